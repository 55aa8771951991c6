"""User mistakes: one table for the CLI, one for the Python API.

CLI contract (STYLE.md, "Errors"): exit code 2, exactly one line ``dprelease: error: ...`` on stderr naming
the parameter (or column) and the bad value, no traceback, and no file written.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from dprelease import Dataset, Domain, DomainTooLargeError, InputError, Workload
from dprelease.api import synthesize
from dprelease.cli import main
from dprelease.errors import InputTypeError
from tests.counting import count_random_draws

GOOD_CSV = "a,b,c\n0,1,2\n1,2,3\n0,0,0\n1,1,1\n"
GOOD_DOMAIN = '{"a": 2, "b": 3, "c": 4}'


class Case:
    """Files for one case in tmp_path, and argv builders that refer to them."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.data = self.write("data.csv", GOOD_CSV)
        self.domain = self.write("domain.json", GOOD_DOMAIN)
        self.out = tmp / "out" / "synth.csv"
        self.release = tmp / "out" / "release.json"

    def write(self, name: str, text: str) -> Path:
        path = self.tmp / name
        path.write_text(text, encoding="utf-8")
        return path

    def csv(self, text: str) -> Case:
        self.data = self.write("bad.csv", text)
        return self

    def parquet(self, select_sql: str | None = None, content: bytes | None = None) -> Case:
        """The table as Parquet: written by DuckDB from ``select_sql``, or ``content`` as the file's bytes."""
        path = self.tmp / "bad.parquet"
        if content is not None:
            path.write_bytes(content)
        else:
            import duckdb

            duckdb.connect().execute(f"COPY ({select_sql}) TO '{path}' (FORMAT parquet)")
        self.data = path
        return self

    def schema(self, text: str) -> str:
        return f"--schema={self.write('schema.json', text)}"

    def domain_json(self, text: str) -> Case:
        self.domain = self.write("bad-domain.json", text)
        return self

    def workload_file(self, text: str) -> str:
        return f"--workload={self.write('w.json', text)}"

    def synth(self, *extra: str, drop: tuple[str, ...] = ()) -> list[str]:
        """A valid synth command, with ``extra`` appended (argparse: the last value wins) and ``drop`` removed."""
        options = {"--domain": str(self.domain), "--workload": "1-2way", "--mechanism": "mwem",
                   "--epsilon": "1", "--rounds": "2", "--seed": "0", "--out": str(self.out),
                   "--release": str(self.release)}
        argv = ["synth", str(self.data), "--quiet"]
        for flag, value in options.items():
            if flag not in drop:
                argv.append(f"{flag}={value}")
        return argv + list(extra)

    def evaluate(self, synthetic: Path, *extra: str) -> list[str]:
        return ["evaluate", str(self.data), str(synthetic), f"--domain={self.domain}", "--workload=1-2way", *extra]

    def saved_release(self) -> Path:
        """A release of the good table (JSON + side file) in ``saved/``, made through the Python API (silent)."""
        data = Dataset.from_csv(self.data, Domain.from_json(self.domain))
        path = self.tmp / "saved" / "release.json"
        with warnings.catch_warnings():  # silent without pytest's capture too (``-p no:warnings``): the seed warning
            warnings.simplefilter("ignore")  # is the setup's, not the command's under test
            release = synthesize(data, "1-2way", epsilon=1.0, rounds=2, seed=0)
        release.save(self.tmp / "saved" / "rows.csv", path)
        return path

    def release_without_side_file(self) -> Path:
        path = self.saved_release()
        (path.parent / "release.answers.npz").unlink()
        return path

    def report(self, *extra: str, release: Path | None = None) -> list[str]:
        """A report command on a saved release, writing to ``out/report.html`` (never created by a mistake)."""
        release = self.saved_release() if release is None else release
        return ["report", str(release), f"--out={self.tmp / 'out' / 'report.html'}", *extra]


# id, argv builder, substrings the error line must contain
CLI_CASES: list[tuple[str, Callable[[Case], list[str]], tuple[str, ...]]] = [
    # privacy and accuracy parameters
    ("epsilon-nan", lambda c: c.synth("--epsilon=nan"), ("--epsilon", "'nan'")),
    ("epsilon-inf", lambda c: c.synth("--epsilon=inf"), ("--epsilon", "'inf'")),
    ("epsilon-zero", lambda c: c.synth("--epsilon=0"), ("epsilon must be a finite number > 0", "got 0")),
    ("epsilon-negative", lambda c: c.synth("--epsilon=-1"), ("epsilon must be a finite number > 0", "got -1")),
    ("epsilon-text", lambda c: c.synth("--epsilon=abc"), ("--epsilon must be a number", "'abc'")),
    ("epsilon-missing", lambda c: c.synth(drop=("--epsilon",)), ("required", "--epsilon")),
    ("epsilon-above-1000", lambda c: c.synth("--epsilon=1001"), ("epsilon must be at most 1000", "got 1001")),
    ("online-epsilon-above-1000", lambda c: ["online", str(c.data), f"--domain={c.domain}", "--epsilon=5000",
                                             "--max-queries=10", f"--out={c.out}"],
     ("--epsilon must be at most 1000", "got 5000")),
    ("schema-epsilon-above-1000", lambda c: ["schema", str(c.data), "--epsilon=5000", f"--out={c.tmp / 'out' / 's.json'}"],
     ("epsilon must be at most 1000", "got 5000")),
    ("delta-one", lambda c: c.synth("--delta=1"), ("delta must be a number in [0, 1)", "got 1")),
    ("delta-negative", lambda c: c.synth("--delta=-0.1"), ("delta must be a number in [0, 1)", "got -0.1")),
    ("delta-nan", lambda c: c.synth("--delta=nan"), ("--delta", "'nan'")),
    ("alpha-zero", lambda c: c.synth("--mechanism=ic-mw", "--alpha=0"), ("alpha must be a finite number > 0", "got 0")),
    ("alpha-two", lambda c: c.synth("--mechanism=ic-mw", "--alpha=2"), ("alpha must be a number in (0, 1]", "got 2")),
    ("alpha-nan", lambda c: c.synth("--mechanism=ic-mw", "--alpha=nan"), ("--alpha", "'nan'")),
    ("rounds-zero", lambda c: c.synth("--rounds=0"), ("rounds must be an integer >= 1", "got 0")),
    ("rounds-negative", lambda c: c.synth("--rounds=-3"), ("rounds must be an integer >= 1", "got -3")),
    ("rounds-fraction", lambda c: c.synth("--rounds=1.5"), ("--rounds must be an integer", "'1.5'")),
    ("seed-negative", lambda c: c.synth("--seed=-1"), ("seed must be an integer >= 0", "got -1")),
    ("seed-text", lambda c: c.synth("--seed=x1"), ("--seed must be an integer", "'x1'")),
    ("n-rows-negative", lambda c: c.synth("--n-rows=-5"), ("n_rows must be an integer >= 1", "got -5")),
    ("n-rows-zero", lambda c: c.synth("--n-rows=0"), ("n_rows must be an integer >= 1", "got 0")),
    ("max-cells-zero", lambda c: c.synth("--max-cells=0"), ("max_cells must be an integer >= 1", "got 0")),
    ("mechanism-unknown", lambda c: c.synth("--mechanism=foo"), ("--mechanism", "invalid choice", "'foo'")),
    ("rows-unknown", lambda c: c.synth("--rows=median"), ("--rows", "invalid choice", "'median'")),
    ("option-unknown", lambda c: c.synth("--epsilom=1"), ("unrecognized arguments", "--epsilom=1")),
    ("no-command", lambda c: [], ("required", "command")),
    # the table
    ("column-missing", lambda c: c.csv("a,b\n0,0\n").synth(), ("lacks column(s) ['c']",)),
    ("columns-unknown", lambda c: c.synth("--columns=a,zz"), ("--columns", "['zz']", "not in the domain")),
    ("columns-duplicated", lambda c: c.synth("--columns=a,b,a"), ("--columns", "twice", "['a', 'b', 'a']")),
    ("columns-empty-name", lambda c: c.synth("--columns=a,,b"), ("--columns", "'a,,b'")),
    pytest.param(
        "value-fraction", lambda c: c.csv("a,b,c\n0,1.5,0\n").synth(), ("column 'b'", "not whole numbers"),
        id="value-fraction",
    ),
    ("value-text", lambda c: c.csv("a,b,c\n0,1,x\n1,1,y\n").synth(), ("column 'c'", "not numbers")),
    ("value-empty", lambda c: c.csv("a,b,c\n0,,0\n1,1,1\n").synth(), ("column 'b'", "empty")),
    ("value-too-large", lambda c: c.csv("a,b,c\n0,1,7\n").synth(), ("column 'c'", "outside the codes 0..3")),
    ("value-negative", lambda c: c.csv("a,b,c\n-1,1,2\n").synth(), ("column 'a'", "outside the codes 0..1")),
    ("header-only", lambda c: c.csv("a,b,c\n").synth(), ("bad.csv", "no rows")),
    ("empty-file", lambda c: c.csv("").synth(), ("bad.csv", "is empty")),
    ("ragged", lambda c: c.csv("a,b,c\n0,1,2\n0,1\n").synth(), ("bad.csv", "more or fewer fields")),
    ("duplicate-header", lambda c: c.csv("a,b,c,b\n0,1,2,2\n").synth(), ("['b']", "more than once")),
    ("data-missing", lambda c: ["synth", str(c.tmp / "nope.csv"), *c.synth()[2:]], ("nope.csv", "does not exist")),
    # where the data lives (--engine auto: DuckDB for files)
    ("engine-unknown", lambda c: c.synth("--engine=sqlite"), ("--engine", "invalid choice", "'sqlite'")),
    ("memory-limit-malformed", lambda c: c.synth("--memory-limit=2XB"), ("--memory-limit", "'2XB'", "'2GB'")),
    ("memory-limit-tiny", lambda c: c.synth("--memory-limit=1MB"), ("--memory-limit", "at least 16 MiB", "'1MB'")),
    ("memory-limit-with-memory", lambda c: c.synth("--engine=memory", "--memory-limit=2GB"),
     ("--memory-limit", "--engine memory")),
    ("spark-master-without-spark", lambda c: c.synth("--spark-master=local[2]"), ("--spark-master", "--engine spark")),
    ("glob-matches-nothing", lambda c: ["synth", str(c.tmp / "parts" / "*.parquet"), *c.synth()[2:]],
     ("no data file matches", "*.parquet")),
    ("parquet-unreadable", lambda c: c.parquet(content=b"PAR1 not really parquet").synth(),
     ("bad.parquet", "cannot be read as Parquet")),
    ("parquet-wrong-type", lambda c: c.parquet("SELECT 1 AS a, DATE '2024-01-02' AS b, 2 AS c").synth(),
     ("column 'b' has type DATE; expected integer codes",)),
    ("schema-wrong-type", lambda c: c.parquet("SELECT 1 AS a, DATE '2024-01-02' AS b, 2 AS c").synth(
        c.schema('{"a": 2, "b": {"type": "categorical", "values": ["x"]}, "c": 4}'), drop=("--domain",)),
     ("column 'b' has type DATE, which engine 'duckdb' does not encode as a categorical column",)),
    ("schema-bad-values-in-duckdb", lambda c: c.csv("a,b,c\n0,yes,2\n1,maybe,3\n").synth(
        c.schema('{"a": 2, "b": {"type": "boolean"}, "c": 4}'), drop=("--domain",)),
     ("column 'b': values not true/false words (declare other)",)),
    ("schema-one-cell", lambda c: c.csv("a,b\nx,1\ny,2\n").synth(c.schema(
        '{"a": {"type": "categorical", "values": [], "other": true}, '
        '"b": {"type": "categorical", "values": [], "other": true}}'), drop=("--domain",)),
     ("every column of the schema has one value only", "['a', 'b']", "spend its budget for nothing")),
    # the domain
    ("domain-not-json", lambda c: c.domain_json("{a: 2}").synth(), ("bad-domain.json", "not valid JSON")),
    ("domain-not-object", lambda c: c.domain_json("[2, 3, 4]").synth(), ("bad-domain.json", "JSON object", "list")),
    ("domain-bad-size", lambda c: c.domain_json('{"a": 2, "b": 0, "c": 4}').synth(), ("'b'", "got 0")),
    ("domain-float-size", lambda c: c.domain_json('{"a": 2, "b": 3, "c": 2.5}').synth(), ("'c'", "2.5")),
    ("domain-duplicate-key", lambda c: c.domain_json('{"a": 2, "b": 3, "a": 4}').synth(), ("'a'", "more than once")),
    ("domain-empty", lambda c: c.domain_json("{}").synth(), ("at least one attribute",)),
    ("domain-missing", lambda c: c.synth(f"--domain={c.tmp / 'nope.json'}"), ("nope.json", "cannot be read")),
    ("domain-too-large", lambda c: c.synth("--max-cells=10", "--representation=histogram"), ("max_cells=10", "24 cells")),
    ("max-model-cells-zero", lambda c: c.synth("--max-model-cells=0"), ("max_model_cells", "got 0")),
    # the workload
    ("workload-unknown-spec", lambda c: c.synth("--workload=bogus"), ("workload", "'bogus'")),
    ("workload-too-wide", lambda c: c.synth("--workload=5way"), ("5-way", "at least 5 columns, got 3")),
    ("workload-zero", lambda c: c.synth("--workload=0way"), ("'0way'", "k must be >= 1")),
    ("workload-unknown-attribute", lambda c: c.synth(c.workload_file('[["a", "zz"]]')),
     ("unknown attribute", "'zz'")),
    ("workload-not-json", lambda c: c.synth(c.workload_file('[["a"')), ("w.json", "not valid JSON")),
    ("workload-not-list", lambda c: c.synth(c.workload_file('{"a": 1}')), ("w.json", "list of lists")),
    # the outputs
    ("out-is-folder", lambda c: c.synth(f"--out={c.tmp}"), ("--out", "is a folder")),
    ("out-is-input", lambda c: c.synth(f"--out={c.data}"), ("--out", "would overwrite the input", "data.csv")),
    ("out-is-domain", lambda c: c.synth(f"--out={c.domain}"), ("--out", "would overwrite the input", "domain.json")),
    ("release-is-input", lambda c: c.synth(f"--release={c.data}"), ("--release", "would overwrite", "data.csv")),
    ("release-is-out", lambda c: c.synth(f"--release={c.out}"), ("--release", "would overwrite", "synth.csv")),
    # evaluate
    ("evaluate-synthetic-missing", lambda c: c.evaluate(c.tmp / "nope.csv"), ("nope.csv", "cannot be read")),
    ("evaluate-synthetic-outside", lambda c: c.evaluate(c.write("s.csv", "a,b,c\n0,3,0\n")),
     ("s.csv", "column 'b'", "outside the codes 0..2")),
    ("evaluate-workload", lambda c: c.evaluate(c.data, "--workload=4way"), ("4-way", "at least 4 columns")),
    ("evaluate-columns", lambda c: c.evaluate(c.data, "--columns=a,q"), ("--columns", "['q']")),
    ("evaluate-epsilon", lambda c: c.evaluate(c.data, "--epsilon=0"), ("--epsilon", "got 0")),
    ("evaluate-seed", lambda c: c.evaluate(c.data, "--seed=-1"), ("--seed", "got -1")),
    ("evaluate-release-missing", lambda c: c.evaluate(c.data, f"--release={c.tmp / 'no.json'}"),
     ("release file", "no.json", "cannot be read")),
    ("evaluate-no-reader", lambda c: ["evaluate", str(c.data), str(c.data), "--workload=1-2way"],
     ("--schema", "--domain", "--release")),
    ("evaluate-decode-codes", lambda c: c.evaluate(c.data, "--decode=label"), ("--decode needs --schema",)),
    # report
    ("report-release-missing", lambda c: c.report(release=c.tmp / "nope.json"), ("release file", "nope.json",
                                                                                 "cannot be read")),
    ("report-format", lambda c: c.report("--format=pdf"), ("--format", "'pdf'")),
    ("report-not-a-release", lambda c: c.report(release=c.domain), ("domain.json", "not a dprelease release")),
    ("report-side-file-missing", lambda c: c.report(release=c.release_without_side_file()),
     ("release.answers.npz", "missing")),
    ("report-data-missing", lambda c: c.report(f"--data={c.tmp / 'nope.csv'}"), ("nope.csv", "cannot be read")),
    ("report-data-outside", lambda c: c.report("--data=" + str(c.write("s.csv", "a,b,c\n0,3,0\n"))),
     ("column 'b'", "outside the codes 0..2")),
    ("report-domain-disagrees", lambda c: c.report("--domain=" + str(c.write("d2.json", '{"a": 2, "b": 4, "c": 4}'))),
     ("--domain", "'b'", "4 values", "the release has 3")),
    ("report-out-is-release", lambda c: c.report(f"--out={c.tmp / 'saved' / 'release.json'}"),
     ("--out", "would overwrite the input")),
    ("report-seed", lambda c: c.report("--seed=-2"), ("--seed", "got -2")),
    ("report-stdout-with-data", lambda c: ["report", str(c.saved_release()), f"--data={c.data}"],
     ("--out is required with --data", "NOT PRIVATE")),
    ("report-stdout-html", lambda c: ["report", str(c.saved_release()), "--format=html"],
     ("--out is required with --format html",)),
    pytest.param(
        "demo-epsilon", lambda c: ["demo", "--epsilon=0", f"--out={c.tmp / 'out'}", "--quiet"],
        ("epsilon must be a finite number > 0", "got 0"),
        id="demo-epsilon",
    ),
]


def snapshot(folder: Path) -> dict[str, bytes | None]:
    return {str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None) for p in sorted(folder.rglob("*"))}


def _case_id(case) -> str:
    return case.id if hasattr(case, "id") else case[0]


def _case_values(case):
    return case if hasattr(case, "id") else pytest.param(*case, id=case[0])


@pytest.mark.parametrize(("case_id", "build", "expected"), [_case_values(c) for c in CLI_CASES])
def test_cli_user_mistake(tmp_path, capsys, monkeypatch, case_id, build, expected):
    case = Case(tmp_path)
    argv = build(case)
    draws = count_random_draws(monkeypatch)
    before = snapshot(tmp_path)
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse errors
        code = exc.code
    captured = capsys.readouterr()
    err = captured.err
    assert code == 2, (case_id, err)
    assert err.startswith("dprelease: error:"), err
    assert err.endswith("\n") and err.count("\n") == 1, f"expected exactly one line, got {err!r}"
    assert "Traceback" not in err
    for fragment in expected:
        assert fragment in err, f"{fragment!r} not in {err!r}"
    assert "np.float64" not in err and "np.int64" not in err
    assert captured.out == ""
    # Nothing written: no output, no temporary file, inputs untouched.
    assert snapshot(tmp_path) == before
    assert not case.out.exists() and not case.release.exists()
    assert draws == [], "noise was drawn before the mistake was caught"


@pytest.mark.parametrize("command", ["synth", "evaluate"])
def test_the_base_commands_succeed(tmp_path, capsys, monkeypatch, command):
    """Control: each case above differs from a command that works, so its failure is its own mistake."""
    case = Case(tmp_path)
    argv = case.synth() if command == "synth" else case.evaluate(case.data)
    draws = count_random_draws(monkeypatch)
    assert main(argv) == 0, capsys.readouterr().err
    assert draws != []  # the draw counter sees a real run (evaluate draws its seeded baselines)
    assert case.out.exists() == (command == "synth")


def test_the_base_report_command_succeeds(tmp_path, capsys):
    """Control for the report cases: the same command, without the mistake, writes its report."""
    case = Case(tmp_path)
    assert main(case.report(f"--data={case.data}", f"--domain={case.domain}")) == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "report.html").stat().st_size > 1000


def test_the_report_without_out_prints_the_public_markdown(tmp_path, capsys):
    """Control for the two stdout cases: without --data or --format html, no --out prints the Markdown report (the
    same text as --out report.md) and writes nothing."""
    case = Case(tmp_path)
    release = case.saved_release()
    assert main(["report", str(release), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert main(["report", str(release), f"--out={tmp_path / 'out' / 'report.md'}", "--quiet"]) == 0
    assert printed == (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    assert printed.startswith("# dprelease report") and "NOT PRIVATE comparison" in printed
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["report.md"]


def test_cli_case_ids_are_unique():
    ids = [_case_id(c) for c in CLI_CASES]
    assert len(ids) == len(set(ids))


def test_public_seed_check_precedes_reading_the_data(tmp_path, capsys):
    case = Case(tmp_path)
    argv = ["synth", str(tmp_path / "nope.csv"), *case.synth("--seed=-1")[2:]]
    assert main(argv) == 2
    assert "seed must be an integer >= 0, got -1" in capsys.readouterr().err


# ------------------------------------------------------------------ Python API
@pytest.fixture
def api_dataset() -> Dataset:
    domain = Domain(("a", "b", "c"), (2, 3, 4))
    rng = np.random.Generator(np.random.PCG64(17))
    return Dataset.from_records(rng.integers(0, [2, 3, 4], size=(50, 3)), domain)


API_CASES = [
    # id, keyword overrides, error type, message fragments
    ("epsilon-bool", {"epsilon": True}, InputTypeError, ("epsilon", "True", "bool")),
    ("epsilon-string", {"epsilon": "1"}, InputTypeError, ("epsilon", "'1'", "str")),
    ("epsilon-none", {"epsilon": None}, InputTypeError, ("epsilon", "None")),
    ("epsilon-nan", {"epsilon": math.nan}, InputError, ("epsilon must be a finite number > 0", "nan")),
    ("epsilon-inf", {"epsilon": math.inf}, InputError, ("epsilon must be a finite number > 0", "inf")),
    ("epsilon-zero", {"epsilon": 0}, InputError, ("epsilon must be a finite number > 0", "got 0")),
    ("epsilon-negative", {"epsilon": -0.5}, InputError, ("epsilon", "-0.5")),
    ("epsilon-above-1000", {"epsilon": 1e4}, InputError, ("epsilon must be at most 1000", "got 10000")),
    ("delta-one", {"delta": 1.0}, InputError, ("delta must be a number in [0, 1)", "1.0")),
    ("delta-negative", {"delta": -1e-9}, InputError, ("delta", "-1e-09")),
    ("delta-bool", {"delta": False}, InputTypeError, ("delta", "False")),
    ("alpha-zero", {"mechanism": "ic-mw", "alpha": 0.0}, InputError, ("alpha", "0.0")),
    ("alpha-above-one", {"mechanism": "ic-mw", "alpha": 1.5}, InputError, ("alpha must be a number in (0, 1]", "1.5")),
    ("alpha-nan", {"mechanism": "ic-mw", "alpha": math.nan}, InputError, ("alpha", "nan")),
    ("rounds-zero", {"rounds": 0}, InputError, ("rounds must be an integer >= 1", "got 0")),
    ("rounds-float", {"rounds": 2.0}, InputTypeError, ("rounds must be an integer", "2.0")),
    ("rounds-bool", {"rounds": True}, InputTypeError, ("rounds", "True")),
    ("n-rows-negative", {"n_rows": -1}, InputError, ("n_rows", "-1")),
    ("n-rows-zero", {"n_rows": 0}, InputError, ("n_rows must be an integer >= 1", "got 0")),
    ("progress-type", {"progress": "yes"}, InputTypeError, ("progress must be True, False, None, a function", "str")),
    ("mechanism-unknown", {"mechanism": "mwm"}, InputError, ("mechanism must be one of", "'mwm'")),
    ("mechanism-case", {"mechanism": "MWEM"}, InputError, ("got 'MWEM' (did you mean 'mwem'?)",)),
    ("mechanism-type", {"mechanism": None}, InputTypeError, ("mechanism", "NoneType")),
    ("rows-unknown", {"rows": "median"}, InputError, ("rows must be one of", "'median'")),
    ("seed-negative", {"seed": -1}, InputError, ("seed", "-1")),
    ("seed-float", {"seed": 1.5}, InputTypeError, ("seed must be an integer", "1.5")),
    ("seed-bool", {"seed": True}, InputTypeError, ("seed", "True")),
    ("max-cells-zero", {"max_cells": 0}, InputError, ("max_cells", "0")),
    ("max-cells-small", {"max_cells": 10, "representation": "histogram"}, DomainTooLargeError, ("max_cells=10",)),
    ("max-cells-small-ic", {"mechanism": "ic-mw", "max_cells": 10, "representation": "histogram"},
     DomainTooLargeError, ("max_cells=10",)),
    ("representation-unknown", {"representation": "tree"}, InputError, ("representation must be one of", "'tree'")),
    ("representation-factored-ic", {"mechanism": "ic-median", "representation": "factored"}, InputError,
     ("representation='factored'", "mwem", "'ic-mw'", "'ic-median'")),
    ("workload-spec", {"workload": "bogus"}, InputError, ("'bogus'",)),
    ("max-model-cells-negative", {"max_model_cells": -5}, InputError, ("max_model_cells", "-5")),
    ("workload-domain", {"workload": Workload.from_spec("1way", Domain(("a", "b"), (2, 3)))}, InputError,
     ("workload must be over the dataset's domain",)),
]


@pytest.mark.parametrize(("overrides", "error", "fragments"), [c[1:] for c in API_CASES], ids=[c[0] for c in API_CASES])
def test_synthesize_user_mistake(api_dataset, overrides, error, fragments):
    arguments = {"workload": "1-2way", "mechanism": "mwem", "epsilon": 1.0, "rounds": 2, "seed": 0, **overrides}
    workload = arguments.pop("workload")
    with pytest.raises(error) as info:
        synthesize(api_dataset, workload, **arguments)
    for fragment in fragments:
        assert fragment in str(info.value), str(info.value)


def test_synthesize_needs_the_domain_of_a_source_that_is_not_a_table(api_dataset):
    with pytest.raises(InputError, match=r"dataset is a ndarray, not a table: give its domain \(domain=...\)"):
        synthesize(api_dataset.records, "1way", epsilon=1.0, seed=0)
    with pytest.raises(InputError, match="engine must be 'auto' or one of"):
        synthesize(api_dataset.records, "1way", domain=api_dataset.domain, engine="sqlite", epsilon=1.0, seed=0)
    with pytest.raises(InputError, match="already a table"):
        synthesize(api_dataset, "1way", engine="duckdb", epsilon=1.0, seed=0)


def test_synthesize_privacy_parameters_are_keyword_only(api_dataset):
    with pytest.raises(TypeError):
        synthesize(api_dataset, "1way", "mwem", 1.0)  # type: ignore[misc]
