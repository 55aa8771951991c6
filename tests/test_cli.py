"""The ``dprelease`` command end to end: synth, evaluate, demo (in process, and once as a real process)."""

from __future__ import annotations

import csv
import importlib
import json
import os
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from dprelease import Dataset, Domain, Workload
from dprelease.cli import main
from dprelease.datasets import adult_raw_schema
from dprelease.evaluate import workload_errors
from dprelease.release import Release
from dprelease.schema import Schema
from tests.conftest import csv_text


def read_csv(path: Path) -> tuple[list[str], np.ndarray]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    return rows[0], np.array(rows[1:], dtype=np.int64)


def synth(capsys, files, out: Path, *extra: str, epsilon: str = "0.7") -> tuple[int, str, str]:
    argv = ["synth", str(files["data"]), "--domain", str(files["domain"]), "--epsilon", epsilon,
            "--out", str(out), "--quiet", *extra]
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def dprelease_executable() -> str:
    candidate = Path(sys.executable).parent / "dprelease"
    if candidate.exists():
        return str(candidate)
    found = shutil.which("dprelease")
    assert found is not None, "the dprelease console script is not installed"
    return found


# ------------------------------------------------------------------------ synth
def test_synth_without_a_workload_runs_on_the_python_synthesizers_default(capsys, tiny_files, tmp_path):
    """A new user's first `synth` without --workload stopped at argparse ("the following arguments are required"),
    while the Python Synthesizer and the demo default to 1-3way: the CLI now does too, and the release says so."""
    def run(name, *workload):
        code, _, stderr = synth(capsys, tiny_files, tmp_path / f"{name}.csv", "--seed", "3", *workload,
                                "--release", str(tmp_path / f"{name}.json"))
        assert code == 0, stderr
        answers = json.loads((tmp_path / f"{name}.json").read_text())["workload_answers"]
        return [a["marginal"] for a in answers], (tmp_path / f"{name}.csv").read_text()

    (marginals, rows), declared = run("default"), run("declared", "--workload", "1-3way")
    assert (marginals, rows) == declared and sorted(map(len, marginals)) == [1, 1, 1, 2, 2, 2, 3]


def test_synth_mwem_writes_rows_and_release(capsys, tiny_files, tiny_domain, tmp_path):
    out, release_path = tmp_path / "synth.csv", tmp_path / "release.json"
    code, stdout, stderr = synth(capsys, tiny_files, out, "--workload", "1-2way", "--mechanism", "mwem",
                                 "--rounds", "4", "--seed", "3", "--release", str(release_path))
    assert code == 0, stderr
    assert "wrote 200 synthetic rows" in stdout and "epsilon=0.7" in stdout
    assert "Traceback" not in stderr

    header, rows = read_csv(out)
    assert header == list(tiny_domain.attributes)
    assert rows.shape == (200, 3)
    assert ((rows >= 0) & (rows < np.array(tiny_domain.sizes))).all()

    release = json.loads(release_path.read_text())
    assert release["mechanism"] == "mwem"
    assert release["fit_for_release"] is False
    assert "seeded" in release["randomness"]
    assert release["domain"] == tiny_domain.to_dict()
    ledger = release["privacy_ledger"]
    assert ledger["budget"]["epsilon"] == 0.7
    assert ledger["spent"]["epsilon"] == 0.7
    assert Fraction(ledger["spent"]["epsilon_exact"]) == Fraction(0.7)  # exactly the budget, not 0.7 +- ulp
    assert ledger["spent"]["delta"] == 0.0
    assert sum(Fraction(c["epsilon_exact"]) for c in ledger["charges"]) == Fraction(0.7)
    assert [t["round"] for t in release["transcript"] if t["round"] > 0] == [1, 2, 3, 4]
    workload = Workload.from_spec("1-2way", tiny_domain)
    assert [tuple(a["marginal"]) for a in release["workload_answers"]] == list(workload.marginals)
    loaded = Release.load(release_path)
    for marginal, answer in zip(workload.marginals, loaded.answers):
        assert answer.shape == tuple(tiny_domain.size_of(a) for a in marginal)
        assert answer.sum() == pytest.approx(1.0, abs=1e-9)
    assert np.array_equal(loaded.rows, rows)  # the side file holds the rows written to --out
    assert release["synthetic_rows"]["method"] == "fitted"  # auto: MWEM's rows are fitted to its answers
    assert release["synthetic_rows"]["count"] == 200
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data.csv", "domain.json", "release.answers.npz",
                                                          "release.json", "synth.csv"]


def test_synth_mwem_default_delta_is_one_in_a_billion_and_zero_means_pure(capsys, tiny_files, write_file, tmp_path):
    """MWEM without --delta runs with delta = 1e-9 (docs/decisions.md); --delta 0 is pure DP; ic-mw stays pure.
    On 200 rows of 6 columns (576 cells, 36 times a pair's: no joint plan) at eps 5 MWEM plans many rounds, where
    Gaussian noise under zCDP is the smaller; at eps 0.7 it plans INIT alone, where Laplace is, and the release is
    pure DP (delta spent 0) even with the default. On the 24-cell table the joint plan measures the joint table
    once, with Laplace noise: pure DP again."""
    domain = Domain(tuple("abcdef"), (2, 3, 4, 2, 3, 4))
    records = np.random.Generator(np.random.PCG64(5)).integers(0, domain.sizes, size=(200, 6))
    six = {"data": write_file("six.csv", csv_text(domain.attributes, records.tolist())),
           "domain": write_file("six.json", domain.to_dict())}
    budgets, plans = {}, {}
    for name, files, epsilon, extra in (
            ("default", six, "5", ()), ("given", six, "5", ("--delta", "1e-9")), ("pure", six, "5", ("--delta", "0")),
            ("few rounds", six, "0.7", ()), ("joint", tiny_files, "5", ()),
            ("ic", tiny_files, "5", ("--mechanism", "ic-mw", "--alpha", "0.3", "--rounds", "5"))):
        release_path = tmp_path / f"{name}.json"
        code, stdout, stderr = synth(capsys, files, tmp_path / f"{name}.csv", "--workload", "1-2way", "--seed",
                                     "3", "--release", str(release_path), *extra, epsilon=epsilon)
        assert code == 0, stderr
        release = json.loads(release_path.read_text())
        ledger = release["privacy_ledger"]
        budgets[name] = (ledger["budget"]["delta"], ledger["spent"]["delta"])
        plans[name] = release["parameters"].get("joint_plan")
    assert budgets == {"default": (1e-9, 1e-9), "given": (1e-9, 1e-9), "pure": (0.0, 0.0), "few rounds": (0.0, 0.0),
                       "joint": (0.0, 0.0), "ic": (0.0, 0.0)}
    assert plans == {"default": False, "given": False, "pure": False, "few rounds": False, "joint": True, "ic": None}
    assert (tmp_path / "default.csv").read_bytes() == (tmp_path / "given.csv").read_bytes()


def test_synth_seed_is_reproducible(capsys, tiny_files, tmp_path):
    first, second, other = tmp_path / "1.csv", tmp_path / "2.csv", tmp_path / "3.csv"
    for out, seed in ((first, "5"), (second, "5"), (other, "6")):
        code, _, err = synth(capsys, tiny_files, out, "--workload", "2way", "--seed", seed, "--rounds", "3")
        assert code == 0, err
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != other.read_bytes()


def test_synth_ic_mw(capsys, tiny_files, tiny_domain, tmp_path):
    out, release_path = tmp_path / "ic.csv", tmp_path / "ic.json"
    code, stdout, stderr = synth(capsys, tiny_files, out, "--workload", "1-2way", "--mechanism", "ic-mw",
                                 "--alpha", "0.5", "--rounds", "5", "--seed", "0", "--release", str(release_path),
                                 epsilon="1.0")
    assert code == 0, stderr
    header, rows = read_csv(out)
    assert header == list(tiny_domain.attributes) and rows.shape == (200, 3)
    release = json.loads(release_path.read_text())
    assert release["mechanism"] == "ic-mw" and release["fit_for_release"] is False
    params, ledger = release["parameters"], release["privacy_ledger"]
    assert params["rounds"] == 5 and params["alpha"] == 0.5 and params["accuracy_guaranteed"] is False
    assert ledger["budget"] == {"epsilon": 1.0, "delta": 0.0}
    # Pure DP (Thm 5.3): the whole plan of 2T steps at eps0 = eps / (2 T) is charged before the first
    # round, so stopping early (a data-dependent event) never understates what was spent.
    ran = len(release["transcript"])
    assert 1 <= ran <= 5
    (charge,) = ledger["charges"]
    assert Fraction(charge["epsilon_exact"]) == Fraction(ledger["spent"]["epsilon_exact"]) == 1
    assert all(r["epsilon"] == 2 * 0.1 for r in release["transcript"])
    assert "warning" in stderr and "Thm 5.4" in stderr  # rounds cap voids the accuracy theorem; said so


def test_synth_ic_mw_with_delta_stays_within_budget(capsys, tiny_files, tmp_path):
    release_path = tmp_path / "ic.json"
    code, _, stderr = synth(capsys, tiny_files, tmp_path / "ic.csv", "--workload", "2way", "--mechanism", "ic-mw",
                            "--alpha", "0.5", "--rounds", "5", "--delta", "1e-6", "--seed", "1",
                            "--release", str(release_path), epsilon="1.0")
    assert code == 0, stderr
    ledger = json.loads(release_path.read_text())["privacy_ledger"]
    assert ledger["budget"] == {"epsilon": 1.0, "delta": 1e-6}
    assert 0 < Fraction(ledger["spent"]["epsilon_exact"]) <= 1
    assert Fraction(ledger["spent"]["delta_exact"]) <= Fraction(1e-6)
    assert len(ledger["charges"]) == 1  # all 2T steps reserved before anything ran


def test_synth_n_rows_and_columns(capsys, tiny_files, tmp_path):
    out = tmp_path / "nested" / "dir" / "s.csv"
    code, stdout, err = synth(capsys, tiny_files, out, "--workload", "1-2way", "--columns", "c,a",
                              "--n-rows", "37", "--seed", "2", "--rounds", "2")
    assert code == 0, err
    header, rows = read_csv(out)
    assert header == ["c", "a"]
    assert rows.shape == (37, 2)
    assert rows[:, 0].max() <= 3 and rows[:, 1].max() <= 1
    assert "wrote 37 synthetic rows" in stdout


def test_synth_rows_round_matches_released_histogram(capsys, tiny_files, tiny_domain, tmp_path):
    out, release_path = tmp_path / "r.csv", tmp_path / "r.json"
    code, _, err = synth(capsys, tiny_files, out, "--workload", "3way", "--rows", "round", "--seed", "4",
                         "--rounds", "3", "--release", str(release_path))
    assert code == 0, err
    _, rows = read_csv(out)
    assert len(rows) == 200
    release = Release.load(release_path)
    assert release.rows_method == "round"
    # The 3-way marginal is the whole histogram p; rounding keeps every cell within 1 of n p.
    (answer,) = release.answers
    expected = answer.reshape(-1) * 200
    counts = Dataset.from_records(rows, tiny_domain).histogram().reshape(-1)
    assert np.all(np.abs(counts - expected) < 1.0)


def test_synth_json_workload(capsys, tiny_files, write_file, tmp_path):
    workload = write_file("w.json", [["c", "b"], ["a"]])
    release_path = tmp_path / "w-release.json"
    code, _, err = synth(capsys, tiny_files, tmp_path / "w.csv", "--workload", str(workload), "--seed", "0",
                         "--rounds", "2", "--release", str(release_path))
    assert code == 0, err
    answers = json.loads(release_path.read_text())["workload_answers"]
    assert [a["marginal"] for a in answers] == [["b", "c"], ["a"]]


# --------------------------------------------------------------------- evaluate
@pytest.fixture
def synthetic_csv(write_csv, tiny_domain) -> Path:
    rng = np.random.Generator(np.random.PCG64(99))
    rows = rng.integers(0, np.array(tiny_domain.sizes), size=(150, len(tiny_domain)))
    return write_csv("fake-synth.csv", tiny_domain.attributes, rows.tolist())


def expected_errors(files, synthetic: Path, spec: str, columns=None) -> dict:
    domain = Domain.from_json(files["domain"])
    if columns:
        domain = domain.project(columns)
    real, synth_data = Dataset.from_csv(files["data"], domain), Dataset.from_csv(synthetic, domain)
    errors = workload_errors(real, synth_data, Workload.from_spec(spec, domain))
    return {**errors, "n_real": real.n, "n_synthetic": synth_data.n}


@pytest.mark.parametrize(("spec", "columns"), [("1-2way", None), ("3way", None), ("2way", "c,a")])
def test_evaluate_json_matches_workload_errors(capsys, tiny_files, synthetic_csv, spec, columns):
    argv = ["evaluate", str(tiny_files["data"]), str(synthetic_csv), "--domain", str(tiny_files["domain"]),
            "--workload", spec, "--json"] + (["--columns", columns] if columns else [])
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    got = json.loads(captured.out)
    expected = expected_errors(tiny_files, synthetic_csv, spec, columns.split(",") if columns else None)
    assert {k: got[k] for k in expected} == expected
    assert set(got["baselines"]) == {"independent noisy 1-way marginals", "uniform (no data)"}
    assert got["max_error"] > 0 and got["n_synthetic"] == 150 and got["n_real"] == 200


def test_evaluate_text_matches_workload_errors(capsys, tiny_files, synthetic_csv):
    argv = ["evaluate", str(tiny_files["data"]), str(synthetic_csv), "--domain", str(tiny_files["domain"]),
            "--workload", "1-2way"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    expected = expected_errors(tiny_files, synthetic_csv, "1-2way")
    assert f"workload: {expected['n_marginals']} marginals, 35 cells" in out
    assert f"max error:  {expected['max_error']:.4f}  (worst marginal {expected['worst_marginal']})" in out
    assert f"average L1: {expected['avg_l1']:.4f}" in out


def test_evaluate_identical_tables_have_zero_error(capsys, tiny_files):
    argv = ["evaluate", str(tiny_files["data"]), str(tiny_files["data"]), "--domain", str(tiny_files["domain"]),
            "--workload", "1-3way", "--json"]
    assert main(argv) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["max_error"] == 0.0 and got["avg_l1"] == 0.0 and got["n_marginals"] == 7


# ------------------------------------------------------------------- real process
def test_console_script_runs_synth_and_reports_errors(capsys, tiny_files, tmp_path):
    exe = dprelease_executable()
    out = tmp_path / "proc.csv"
    argv = ["synth", str(tiny_files["data"]), "--domain", str(tiny_files["domain"]), "--workload", "1-2way",
            "--epsilon", "0.7", "--rounds", "3", "--seed", "8", "--out", str(out)]
    env = {**os.environ, "PYTHONWARNINGS": ""}
    done = subprocess.run([exe, *argv], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "wrote 200 synthetic rows" in done.stdout
    # The seeded-run warning is one line, in the CLI's format.
    assert [line for line in done.stderr.splitlines() if line] == [
        line for line in done.stderr.splitlines() if line.startswith("dprelease: warning:")]
    assert "seed=8" in done.stderr and "not fit for a real release" in done.stderr
    # Same seed in process gives the same bytes.
    again = tmp_path / "again.csv"
    assert main([*argv[:-1], str(again), "--quiet"]) == 0
    capsys.readouterr()
    assert out.read_bytes() == again.read_bytes()

    bad = subprocess.run([exe, *argv[:-2], "--out", str(tmp_path / "never.csv"), "--epsilon", "nan"],
                         capture_output=True, text=True, env=env, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.count("\n") == 1 and bad.stderr.startswith("dprelease: error:")
    assert "--epsilon" in bad.stderr and "nan" in bad.stderr
    assert not (tmp_path / "never.csv").exists()

    version = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=120)
    assert version.returncode == 0 and version.stdout.startswith("dprelease ")
    as_module = subprocess.run([sys.executable, "-m", "dprelease", "--version"], capture_output=True, text=True,
                               timeout=120)  # where the scripts folder is not on PATH
    assert as_module.returncode == 0 and as_module.stdout == version.stdout
    bad_module = subprocess.run([sys.executable, "-m", "dprelease", "synth"], capture_output=True, text=True,
                                timeout=120)
    assert bad_module.returncode == 2 and bad_module.stderr.count("\n") == 1


# -------------------------------------------------------------------------- demo
def test_demo_runs_raw_adult_in_and_decoded_adult_out(capsys, tmp_path):
    folder = tmp_path / "demo"
    # Five columns (42,624 cells) keep the test short; `make demo` runs all 15 and all 575 1-3-way marginals.
    columns = ["age", "workclass", "education", "sex", "income"]
    assert main(["demo", "--seed", "0", "--quiet", "--columns", ",".join(columns), "--workload", "1-2way",
                 "--out", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "MWEM (this release)" in out and "uniform (no data)" in out and "seeded run" in out
    assert "real 1" in out and "synthetic 3" in out and "education" in out  # rows side by side
    with (folder / "adult-synth.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == columns and len(rows) == 32_561 + 1
    assert {r[1] for r in rows[1:]} <= set(adult_raw_schema().column("workclass").values) | {"?"}
    assert all(17 <= int(r[0]) <= 90 for r in rows[1:])  # decoded ages, not codes
    release = json.loads((folder / "adult-release.json").read_text())
    assert release["privacy_ledger"]["spent"]["epsilon"] == 1.0 and release["privacy_ledger"]["spent"]["delta"] == 1e-9
    assert release["fit_for_release"] is False
    assert release["schema"] == adult_raw_schema().select(columns).to_dict()
    assert len(release["workload_answers"]) == 5 + 10


def test_demo_refuses_a_file_as_out(capsys, write_file):
    target = write_file("not-a-folder", "x")
    code = main(["demo", "--seed", "0", "--quiet", "--out", str(target)])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("dprelease: error:") and err.count("\n") == 1 and "not a folder" in err
    assert target.read_text() == "x"



# ------------------------------------------------------- evaluate on any domain
def test_evaluate_on_a_domain_far_above_the_histogram_cap(capsys, write_csv, write_file):
    sizes = {f"x{i}": 100 for i in range(10)}  # 1e20 cells: no histogram could hold it
    rng = np.random.Generator(np.random.PCG64(5))
    real = write_csv("real.csv", list(sizes), rng.integers(0, 100, size=(300, 10)).tolist())
    synthetic = write_csv("synth.csv", list(sizes), rng.integers(0, 100, size=(250, 10)).tolist())
    domain = write_file("big-domain.json", sizes)
    argv = ["evaluate", str(real), str(synthetic), "--domain", str(domain), "--workload", "1-2way", "--json",
            "--per-marginal", "--epsilon", "2", "--seed", "3"]
    assert main(argv) == 0
    got = json.loads(capsys.readouterr().out)
    big = Domain.from_dict(sizes)
    expected = workload_errors(Dataset.from_csv(real, big), Dataset.from_csv(synthetic, big),
                               Workload.from_spec("1-2way", big))
    assert {k: got[k] for k in expected} == expected and got["n_marginals"] == 55
    assert got["baseline_epsilon"] == 2.0 and got["baseline_seed"] == 3 and "NOT PRIVATE" in got["baselines_note"]
    per = got["per_marginal"]
    assert [tuple(p["marginal"]) for p in per] == list(Workload.from_spec("1-2way", big).marginals)
    assert np.mean([p["l1"]["synthetic"] for p in per]) == pytest.approx(got["avg_l1"])
    for name, summary in got["baselines"].items():
        assert np.mean([p["l1"][name] for p in per]) == pytest.approx(summary["avg_l1"])
    assert main(argv) == 0 and json.loads(capsys.readouterr().out) == got  # seeded baselines: the same again


def test_evaluate_takes_the_baseline_epsilon_from_the_release(capsys, tiny_files, tmp_path):
    release_path = tmp_path / "r.json"
    code, _, err = synth(capsys, tiny_files, tmp_path / "s.csv", "--workload", "2way", "--seed", "1", "--rounds", "2",
                         "--release", str(release_path), epsilon="0.3")
    assert code == 0, err
    argv = ["evaluate", str(tiny_files["data"]), str(tmp_path / "s.csv"), "--domain", str(tiny_files["domain"]),
            "--workload", "2way", "--release", str(release_path), "--per-marginal"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].startswith("workload: 3 marginals") and lines[1].startswith("max error:")
    assert lines[2].startswith("average L1:") and "NOT PRIVATE" in lines[3] and "epsilon=0.3" in lines[3]
    assert "| marginal | cells | L1 synthetic |" in out and "| a, b | 6 |" in out


def test_evaluate_per_marginal_lists_the_worst_first_and_says_not_private(capsys, write_csv, write_file):
    """Errors only (never the real counts), marked NOT PRIVATE; text worst first, JSON in the workload's order."""
    rng = np.random.Generator(np.random.PCG64(9))
    real_rows = rng.integers(0, 3, size=(400, 3))
    shifted = real_rows.copy()
    shifted[:200, 2] = 0  # c's marginals move most, then a's and b's untouched
    domain = write_file("dom.json", {"a": 3, "b": 3, "c": 3})
    argv = ["evaluate", str(write_csv("real.csv", ["a", "b", "c"], real_rows.tolist())),
            str(write_csv("synth.csv", ["a", "b", "c"], shifted.tolist())), "--domain", str(domain),
            "--workload", "1-2way", "--per-marginal", "--quiet"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    heading = lines.index("| marginal | cells | L1 synthetic | L1 independent noisy 1-way marginals | "
                          "L1 uniform (no data) |")
    assert lines[heading - 1] == ("per marginal, worst first (NOT PRIVATE: errors against the real table (never "
                                  "its counts), for the curator only):")
    rows = [line.split(" | ") for line in lines[heading + 2:]]
    l1 = [float(row[2]) for row in rows]
    assert l1 == sorted(l1, reverse=True) and l1[-1] == 0.0 and rows[0][0] in ("| c", "| a, c", "| b, c")
    assert [row[0] for row in rows if float(row[2]) == 0.0] == ["| a", "| b", "| a, b"]  # ties: workload order
    assert main([*argv, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert [p["marginal"] for p in got["per_marginal"]] == [["a"], ["b"], ["c"], ["a", "b"], ["a", "c"], ["b", "c"]]
    assert got["per_marginal_note"].startswith("NOT PRIVATE")


# ------------------------------------------------------- evaluate a raw table through its schema
def test_evaluate_scores_a_raw_release_through_its_schema(capsys, write_file, tmp_path):
    """synth --schema writes decoded rows (yes/no as declared, numbers inside their bins, blanks); evaluate
    --schema encodes both tables by the same schema, so its errors are those of the release's own codes."""
    rng = np.random.Generator(np.random.PCG64(8))
    n = 400
    branch = rng.choice(["north", "south", "east"], size=n, p=[0.6, 0.3, 0.1])
    returned = np.where(branch == "north", rng.random(n) < 0.9, rng.random(n) < 0.3)
    age = rng.integers(5, 90, size=n)
    lines = ["branch,returned,age"] + [f"{b},{'yes' if r else 'no'},{'' if i % 13 == 0 else a}"
                                       for i, (b, r, a) in enumerate(zip(branch, returned, age))]
    real = write_file("loans.csv", "\n".join(lines) + "\n")
    schema = write_file("schema.json", json.dumps({"format": "dprelease-schema/1", "columns": {
        "branch": {"type": "categorical", "values": ["north", "south", "east"]},
        "returned": {"type": "boolean", "true": ["yes"], "false": ["no"]},
        "age": {"type": "integer", "bounds": [0, 99], "width": 10, "null": True}}}))
    out, release = tmp_path / "synth.csv", tmp_path / "release.json"
    assert main(["synth", str(real), "--schema", str(schema), "--workload", "1-2way", "--epsilon", "2",
                 "--seed", "3", "--quiet", "--out", str(out), "--release", str(release)]) == 0
    capsys.readouterr()
    with out.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert {r[1] for r in rows[1:]} == {"yes", "no"}  # the declared words, not true/false
    argv = ["evaluate", str(real), str(out), "--schema", str(schema), "--workload", "1-2way", "--json",
            "--release", str(release)]
    assert main(argv) == 0
    got = json.loads(capsys.readouterr().out)
    parsed = Schema.from_json(schema)
    codes = Dataset.from_records(Release.load(release).rows, parsed.domain)  # the release's own codes
    expected = workload_errors(Dataset.from_schema(real, parsed), codes, Workload.from_spec("1-2way", parsed.domain))
    assert {k: got[k] for k in expected} == expected
    assert got["n_real"] == n and got["baseline_epsilon"] == 2.0
    with pytest.raises(SystemExit) as stopped:  # one source of codes, not two (argparse exits)
        main(argv[:3] + ["--domain", str(schema)] + argv[3:])
    assert stopped.value.code == 2 and "not allowed with" in capsys.readouterr().err
    # rows written as bin labels ("10..19", with NULL's blank) read back into the same bins with --decode label
    labelled = tmp_path / "labels.csv"
    assert main(["synth", str(real), "--schema", str(schema), "--workload", "1-2way", "--epsilon", "2", "--seed",
                 "3", "--quiet", "--out", str(labelled), "--decode", "label"]) == 0
    capsys.readouterr()
    assert "10..19" in labelled.read_text()
    assert main(argv[:2] + [str(labelled)] + argv[3:] + ["--decode", "label"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert {k: got[k] for k in expected} == expected
    assert main(argv[:2] + [str(labelled)] + argv[3:]) == 2  # read as values: one line that names the fix
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].endswith("(if synth wrote it with --decode label, give --decode label)")


def test_evaluate_shows_what_the_schema_does_to_the_real_values(capsys, write_file, tmp_path, monkeypatch):
    """The workload error encodes both tables by the schema, so an age the schema clips to its bounds counts as the
    end bin and a category left out of the list as ``other``: the draft that bounded ages 18-97 to 40..79 clipped a
    quarter of them unseen. evaluate --schema now gives, per column, the shares of the real (non-blank) values the
    schema clips and sends to other, exactly, and the Kolmogorov-Smirnov distance of the synthetic numbers to the real
    ones (None for categories; None too for a table of bin labels, whose values are not numbers). Each file is read
    once, for both (session 65: a 1,000,000-row table was read twice, 89 s, now 58 s)."""
    from scipy.stats import ks_2samp

    encode_module = importlib.import_module("dprelease.schema.encode")  # the package's ``encode`` is the function
    reads: list[str] = []
    read_csv = encode_module.read_csv
    monkeypatch.setattr(encode_module, "read_csv", lambda path, *a, **k: reads.append(Path(path).name) or
                        read_csv(path, *a, **k))

    rng = np.random.Generator(np.random.PCG64(9))
    n = 600
    age = np.clip(np.round(rng.normal(58, 18, n)), 18, 97).astype(int)
    branch = rng.choice(["north", "south", "east", "west"], size=n, p=[0.5, 0.3, 0.15, 0.05])
    lines = ["age,branch"] + [f"{'' if i % 20 == 0 else a},{b}" for i, (a, b) in enumerate(zip(age, branch))]
    real = write_file("members.csv", "\n".join(lines) + "\n")
    schema = write_file("schema.json", json.dumps({"format": "dprelease-schema/1", "columns": {
        "age": {"type": "integer", "bounds": [40, 79], "bins": 8, "clip": True, "null": True},
        "branch": {"type": "categorical", "values": ["north", "south", "east"], "other": True}}}))
    out = tmp_path / "synth.csv"
    assert main(["synth", str(real), "--schema", str(schema), "--workload", "1-2way", "--epsilon", "2",
                 "--seed", "3", "--quiet", "--out", str(out)]) == 0
    capsys.readouterr()
    argv = ["evaluate", str(real), str(out), "--schema", str(schema), "--workload", "1-2way", "--quiet"]
    reads.clear()
    assert main(argv + ["--json"]) == 0
    assert sorted(reads) == ["members.csv", "synth.csv"]
    got = {c["column"]: c for c in json.loads(capsys.readouterr().out)["values"]}
    present = np.arange(n) % 20 != 0
    assert got["age"]["clipped"] == pytest.approx(np.mean((age[present] < 40) | (age[present] > 79)))
    assert got["age"]["other"] == 0.0 and got["branch"]["clipped"] == 0.0
    assert got["branch"]["other"] == pytest.approx(np.mean(branch == "west")) and got["branch"]["ks"] is None
    with out.open(newline="", encoding="utf-8") as handle:
        synthetic_age = np.array([float(r["age"]) for r in csv.DictReader(handle) if r["age"]])
    assert got["age"]["ks"] == pytest.approx(ks_2samp(age[present], synthetic_age).statistic)
    assert got["age"]["ks"] > 0.1  # the clipped tails show
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert "NOT PRIVATE" in text and f"| age | integer | {got['age']['clipped']:.1%} | 0.0% |" in text
    labelled = tmp_path / "labels.csv"
    assert main(["synth", str(real), "--schema", str(schema), "--workload", "1-2way", "--epsilon", "2", "--seed",
                 "3", "--quiet", "--out", str(labelled), "--decode", "label"]) == 0
    capsys.readouterr()
    assert main(argv[:2] + [str(labelled)] + argv[3:] + ["--decode", "label", "--json"]) == 0
    labels = {c["column"]: c for c in json.loads(capsys.readouterr().out)["values"]}
    assert labels["age"]["ks"] is None and labels["age"]["clipped"] == got["age"]["clipped"]


def test_evaluate_and_report_read_part_files_as_synth_does(capsys, tmp_path, tiny_domain, tiny_records_array):
    """The real table in part files (a glob or a folder, as ``synth`` reads them) gives ``evaluate`` the same errors
    and ``report --data`` the same curator's report as the one file holding the same rows; before, both said the
    glob's file did not exist. Through a schema (raw values) too."""
    header = list(tiny_domain.attributes)
    rows = tiny_records_array.tolist()
    whole = tmp_path / "whole.csv"
    whole.write_text(csv_text(header, rows))
    parts = tmp_path / "parts"
    parts.mkdir()
    for k in range(3):
        (parts / f"part-{k}.csv").write_text(csv_text(header, rows[k::3]))
    ordered = tmp_path / "ordered.csv"  # the parts' rows in the order DuckDB reads the sorted files
    ordered.write_text(csv_text(header, rows[0::3] + rows[1::3] + rows[2::3]))
    domain = tmp_path / "domain.json"
    domain.write_text(json.dumps(tiny_domain.to_dict()))
    synthetic, release = tmp_path / "synthetic.csv", tmp_path / "release.json"
    assert main(["synth", str(whole), "--domain", str(domain), "--workload", "1-2way", "--epsilon", "1",
                 "--seed", "0", "--out", str(synthetic), "--release", str(release), "--quiet"]) == 0
    capsys.readouterr()
    for schema_flag in ("--domain", "--schema"):  # a domain file is also a schema of codes
        outputs = []
        for real in (str(parts / "*.csv"), str(parts), str(whole)):
            assert main(["evaluate", real, str(synthetic), schema_flag, str(domain), "--workload", "1-2way",
                         "--json", "--quiet"]) == 0
            outputs.append(json.loads(capsys.readouterr().out))
        assert outputs[0] == outputs[1] == outputs[2] and outputs[0]["n_real"] == len(rows)
    reports = []
    for k, real in enumerate((str(parts / "*.csv"), str(ordered))):
        out = tmp_path / f"report-{k}.md"
        assert main(["report", str(release), "--data", real, "--out", str(out), "--format", "md", "--quiet"]) == 0
        reports.append(out.read_text().replace(real, "DATA"))
    assert reports[0] == reports[1] and "NOT PRIVATE" in reports[0]
