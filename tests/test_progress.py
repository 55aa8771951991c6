"""Progress over a whole run (issue 14, item 4): phases and steps for a callback, a terminal line that a
thread keeps redrawing, silence off a terminal, and no effect on what is computed. Also the warnings
and refusals for epsilon above 10 and above 1000.
"""

from __future__ import annotations

import io
import os
import pty
import select
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from dprelease import Dataset, InputError
from dprelease.api import synthesize
from dprelease.errors import InputTypeError, WeakPrivacyWarning
from dprelease.privacy.rng import SeededRandom
from dprelease.progress import Progress
from dprelease.rows.fitting import fit_rows
from dprelease.updates.measurement_fit import fit_measurements
from dprelease.updates.measurements import MarginalMeasurement
from dprelease.representations.histogram import HistogramModel
from tests.conftest import csv_text, tiny_records

ROOT = Path(__file__).resolve().parents[1]


def events_of(dataset: Dataset, **options) -> list[tuple[str, int, int | None]]:
    events: list[tuple[str, int, int | None]] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthesize(dataset, "1-2way", seed=0, progress=lambda *e: events.append(e), **options)
    return events


def phases(events: list[tuple[str, int, int | None]]) -> list[str]:
    return [name for i, (name, _, _) in enumerate(events) if i == 0 or events[i - 1][0] != name]


# ------------------------------------------------------------------------------------------ the callback
def test_a_callback_hears_every_phase_of_an_mwem_run_in_order(tiny_dataset):
    events = events_of(tiny_dataset, epsilon=1.0, delta=1e-6, rounds=3)
    assert phases(events) == ["rounds", "final fit", "answers", "rows (fitted)"]
    for name in ("rounds", "final fit", "answers", "rows (fitted)"):
        steps = [(s, t) for p, s, t in events if p == name]
        assert steps[0][0] == 0, name  # each phase announced at step 0
        counts = [s for s, _ in steps]
        assert counts == sorted(counts), name
        assert steps[-1][0] == steps[-1][1], name  # and run to its total
    assert ("rounds", 3, 3) in events and ("answers", 6, 6) in events  # 3 rounds; 1-2way on 3 columns: 6 marginals
    from dprelease.mechanisms.mwem_tuning import ADAPTIVE

    assert [t for p, _, t in events if p == "final fit"][0] == ADAPTIVE.final_iterations  # the preset's final passes


def test_other_mechanisms_report_rounds_answers_and_rows(tiny_dataset):
    events = events_of(tiny_dataset, mechanism="independent", epsilon=1.0)
    assert phases(events) == ["rounds", "answers", "rows (round)"]


def test_a_progress_object_passed_in_stays_open_and_true_is_silent_off_a_terminal(tiny_dataset, capsys):
    heard = []
    bar = Progress("x", enabled=False, callback=lambda *e: heard.append(e), tick=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthesize(tiny_dataset, "1way", epsilon=1.0, rounds=2, seed=0, progress=bar)
        bar.phase("write files")  # the caller's own phase after synthesize
        synthesize(tiny_dataset, "1way", epsilon=1.0, rounds=2, seed=0, progress=True)  # stderr is not a tty
    assert heard[-1] == ("write files", 0, None)
    assert capsys.readouterr().err == ""


def test_progress_must_be_a_flag_a_function_or_a_progress(tiny_dataset):
    with pytest.raises(InputTypeError, match="progress must be True, False, None, a function"):
        synthesize(tiny_dataset, "1way", epsilon=1.0, seed=0, progress=3)


def test_steps_change_nothing_that_is_computed(tiny_domain):
    """The fit loops call on_step and nothing else: the same results with and without it."""
    records = tiny_records(tiny_domain, 300, 5)
    target_rng = np.random.Generator(np.random.PCG64(1))
    targets = [(("a", "b"), target_rng.dirichlet(np.ones(6)).reshape(2, 3)),
               (("b", "c"), target_rng.dirichlet(np.ones(12)).reshape(3, 4))]
    steps = []
    moved = fit_rows(records, tiny_domain, targets, SeededRandom(3), on_step=lambda d, t: steps.append((d, t)))
    assert np.array_equal(moved, fit_rows(records, tiny_domain, targets, SeededRandom(3)))
    assert steps[-1] == (3 * 300, 3 * 300) and [d for d, _ in steps] == sorted(d for d, _ in steps)

    model = HistogramModel.uniform(tiny_domain)
    measurements = [MarginalMeasurement(a, t.reshape(-1), 0.05) for a, t in targets]
    fitted_steps = []
    with_steps, step_a = fit_measurements(model, measurements, iterations=20,
                                          on_step=lambda d, t: fitted_steps.append((d, t)))
    without, step_b = fit_measurements(model, measurements, iterations=20)
    assert np.array_equal(with_steps.log_probs, without.log_probs) and step_a == step_b
    assert fitted_steps == [(i, 20) for i in range(1, 21)]


# ------------------------------------------------------------------------------------------ the terminal line
def test_the_line_keeps_moving_during_a_long_step_and_ends_with_done():
    stream = io.StringIO()
    bar = Progress("mwem", stream=stream, enabled=True, tick=0.02)
    bar.phase("final fit", 300)
    bar.step(12)
    drawn = stream.getvalue().count("\r")
    deadline = time.monotonic() + 10  # a loaded machine may starve the thread a while; it must still redraw
    while stream.getvalue().count("\r") < drawn + 3 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert stream.getvalue().count("\r") >= drawn + 3, "no redraw while the step ran"
    bar.phase("write files")
    bar.close()
    lines = stream.getvalue().split("\n")
    assert "final fit" in lines[0] and "12/300" in lines[0].rsplit("\r", 1)[-1]
    assert lines[1].rsplit("\r", 1)[-1].split()[:4] == ["mwem:", "write", "files", "done"]
    after = stream.getvalue()
    time.sleep(0.1)
    assert stream.getvalue() == after  # closed: the thread is gone


def test_render_shows_counts_percentages_and_a_spinner():
    bar = Progress("mwem", stream=io.StringIO(), tick=None)
    bar.phase("rows (fitted)", 683_788)
    bar.step(341_894)
    assert "50%" in bar.render() and "[###############...............]" in bar.render()
    bar.phase("answers", 364)
    bar.step(10)
    assert "10/364" in bar.render()
    bar.phase("write files")
    assert bar.render().split()[:3] == ["mwem:", "write", "files"] and bar.render(finished=True).split()[-3] == "done"


def run_cli_in_a_terminal(argv: list[str], cwd: Path) -> tuple[int, str, str]:
    """``dprelease ARGV`` with its stderr on a pseudo-terminal: (exit code, stdout, what the terminal showed)."""
    main, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-c", "import sys; from dprelease.cli import main; sys.exit(main())",
                                *argv], cwd=cwd, stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL)
    os.close(follower)
    shown = b""
    while True:
        ready, _, _ = select.select([main], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the process closed its end
            break
        if not chunk:
            break
        shown += chunk
    os.close(main)
    out = process.stdout.read().decode()
    return process.wait(timeout=60), out, shown.decode()


@pytest.fixture
def tiny_files(tmp_path: Path, tiny_domain) -> tuple[Path, Path]:
    data = tmp_path / "data.csv"
    data.write_text(csv_text(tiny_domain.attributes, tiny_records(tiny_domain, 300, 9).tolist()))
    domain = tmp_path / "domain.json"
    domain.write_text('{"a": 2, "b": 3, "c": 4}')
    return data, domain


def test_synth_on_a_terminal_shows_every_phase_and_off_one_shows_none(tmp_path, tiny_files):
    data, domain = tiny_files
    argv = ["synth", str(data), "--domain", str(domain), "--workload", "1-2way", "--epsilon", "1", "--delta", "1e-6",
            "--rounds", "3", "--out", "rows.csv", "--release", "release.json"]
    code, out, shown = run_cli_in_a_terminal(argv, tmp_path)
    assert code == 0, shown
    screen = [line.rsplit("\r", 1)[-1] for line in shown.replace("\x1b[K", "").replace("\r\n", "\n").split("\n")]
    lines = [line for line in screen if line]  # what stays on screen: one line per finished phase
    names = [line[11:29].strip() for line in lines]  # "label:" padded to 11, the phase to 18
    assert names == ["starting", "reading data.csv", "rounds", "final fit", "answers", "rows (fitted)",
                     "write files"], shown
    assert "3/3" in lines[2] and "100%" not in lines[2] and lines[-1].split()[-3] == "done"
    assert "wrote 300 synthetic rows" in out
    piped = subprocess.run([sys.executable, "-c", "import sys; from dprelease.cli import main; sys.exit(main())",
                            *argv[:-4], "--out", "again.csv"], cwd=tmp_path, capture_output=True, text=True)
    assert piped.returncode == 0 and piped.stderr == ""  # a log or a pipe stays quiet


# ------------------------------------------------------------------------------------------ epsilon > 10
def test_epsilon_above_10_warns_with_the_reason_and_runs(tiny_dataset):
    with pytest.warns(WeakPrivacyWarning, match=r"epsilon=20 is above 10: .* e\^20 \(about 10\^8\.69\)"):
        release = synthesize(tiny_dataset, "1way", epsilon=20.0, rounds=2, seed=0)
    assert release.privacy_ledger["spent"]["epsilon"] == 20.0
    with warnings.catch_warnings():
        warnings.simplefilter("error", WeakPrivacyWarning)
        synthesize(tiny_dataset, "1way", epsilon=10.0, rounds=2, seed=0)  # 10 itself: no warning


def test_delta_not_below_one_over_n_warns_without_quoting_n(tiny_dataset):
    """delta >= 1/n lets (epsilon, delta)-DP publish a record outright: a warning that names delta, not n."""
    n = tiny_dataset.n
    assert n * 0.01 >= 1
    with pytest.warns(WeakPrivacyWarning, match=r"delta=0\.01 is not below 1/n for this table") as caught:
        synthesize(tiny_dataset, "1way", epsilon=1.0, delta=0.01, rounds=2, seed=0)
    assert all(str(n) not in str(w.message) for w in caught)
    with warnings.catch_warnings():
        warnings.simplefilter("error", WeakPrivacyWarning)
        synthesize(tiny_dataset, "1way", epsilon=1.0, rounds=2, seed=0)  # the default 1e-9: no warning
        synthesize(tiny_dataset, "1way", epsilon=1.0, delta=0.99 / n, rounds=2, seed=0)  # just below 1/n


def test_epsilon_above_1000_is_refused_before_anything_runs(tiny_dataset):
    with pytest.raises(InputError, match=r"epsilon must be at most 1000, got 1001"):
        synthesize(tiny_dataset, "1way", epsilon=1001.0, seed=0)


def test_synth_warns_once_on_stderr_for_epsilon_above_10(tmp_path, tiny_files, capsys):
    from dprelease.cli import main

    data, domain = tiny_files
    assert main(["synth", str(data), "--domain", str(domain), "--workload", "1way", "--epsilon", "20", "--rounds", "2",
                 "--out", str(tmp_path / "rows.csv")]) == 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("dprelease: warning: epsilon=20 is above 10: "), err


def test_the_service_refuses_a_release_above_1000_before_its_charge(tiny_dataset):
    """The service charges its ledger before synthesize runs, so synthesize's cap is checked first (public)."""
    from fractions import Fraction

    from dprelease.service.releases import ReleaseRequest

    with pytest.raises(InputError, match="epsilon must be at most 1000, got 5000"):
        ReleaseRequest.from_body({"epsilon": Fraction(5000)}).check(tiny_dataset)
    assert ReleaseRequest.from_body({"epsilon": Fraction(1, 10)}).check(tiny_dataset).marginals
