"""benchmarks/suite_report.py: the suite page's checks, including the seed test beside a lost comparison."""

from __future__ import annotations

import itertools
import statistics

import pytest

from tests.benchmark_modules import BENCHMARKS, load_benchmark


@pytest.fixture(scope="module")
def report():
    return load_benchmark("suite_report")


def suite_doc(runs: dict[str, list[float]]) -> dict:
    """A one-table, one-eps suite.json with these per-run avg L1s per system (summary by medians, as the page)."""
    doc_runs = [{"table": "t", "system": system, "epsilon": 1.0, "seed": seed, "status": "ok",
                 "scores": {"main": {"avg_l1": value}}}
                for system, values in runs.items() for seed, value in enumerate(values)]
    doc_runs.append({"table": "t", "system": "mst", "epsilon": 1.0, "seed": 99, "status": "timeout"})
    summary = [{"table": "t", "system": system, "workload": "main", "epsilon": 1.0,
                "avg_l1": {"median": statistics.median(values)}} for system, values in runs.items()]
    return {"config": {"tables": ["t"]}, "summary": summary, "runs": doc_runs}


def test_a_loss_the_seeds_separate_gets_a_small_p(report):
    ours = [0.30, 0.31, 0.32, 0.33, 0.34, 0.35]
    _, failures = report.checks(suite_doc({"dprelease": ours, "independent": [0.5] * 6,
                                           "mst": [0.20, 0.21, 0.22, 0.23, 0.24, 0.25]}))
    (line,) = failures
    # every one of our runs above every MST run: the exact two-sided p is 2 / C(12, 6) = 0.0022
    assert "> MST 0.2250" in line and "runs 6 vs 6, Mann-Whitney two-sided p = 0.0022" in line


def test_a_loss_within_the_spread_gets_a_large_p_and_failed_runs_are_left_out(report):
    ours = [0.20, 0.26, 0.22, 0.28, 0.24]
    mst = [0.21, 0.25, 0.23, 0.27, 0.19]
    lines, failures = report.checks(suite_doc({"dprelease": ours, "independent": [0.5] * 5, "mst": mst}))
    (line,) = failures
    # the exact two-sided p by enumeration: splits of the 10 runs whose rank sum is as far from its mean as ours
    pooled = sorted(ours + mst)
    rank_sum = sum(pooled.index(v) + 1 for v in ours)
    sums = [sum(c) for c in itertools.combinations(range(1, 11), 5)]
    p = sum(abs(s - 27.5) >= abs(rank_sum - 27.5) for s in sums) / len(sums)
    assert f"(1.04x; runs 5 vs 5, Mann-Whitney two-sided p = {p:.2g})" in line  # the timed-out MST run is no run
    assert any("**NO** (0.240 vs MST 0.230)" in row for row in lines)


def test_one_run_a_side_is_too_few_to_test(report):
    assert report.seed_test([0.3], [0.2, 0.1]) == "too few runs for a test"
    _, failures = report.checks(suite_doc({"dprelease": [0.6, 0.7], "independent": [0.5]}))
    assert failures == ["t, eps = 1, dprelease: avg L1 0.6500 > independent baseline 0.5000 (1.30x; "
                        "too few runs for a test)"]


def test_a_page_names_itself_and_describes_aim_only_where_it_ran(report):
    """The committed pages: the held-out one carries its own title and says AIM did not run; the suite page keeps
    the suite's heading and AIM's settings; each names as delta's peers only those that ran."""
    import json

    held_out = report.render(json.loads((BENCHMARKS / "results" / "heldout" / "suite.json").read_text()))
    assert held_out.startswith("# Held-out tables (issue 12)")
    assert "AIM not run" in held_out and "AIM seeds" not in held_out
    suite = report.render(json.loads((BENCHMARKS / "results" / "suite.json").read_text()))
    assert suite.startswith(f"# {report.DEFAULT_TITLE}")
    assert "AIM seeds 0..9 under 600 s" in suite and "AIM not run" not in suite
    assert "for dprelease (its default), MST and AIM." in suite and "for dprelease (its default), MST." in held_out
    alone = report.render(json.loads((BENCHMARKS / "results" / "ties" / "small91-eps1" / "suite.json").read_text()))
    assert "for dprelease (its default), AIM." in alone  # MST did not run there


def test_the_peers_at_dpreleases_guarantee_get_their_own_check(report):
    """A loss to the nominal peer stays a loss; the matched peer is checked beside it, under its own label."""
    ours = [0.30, 0.31, 0.32]
    lines, failures = report.checks(suite_doc({"dprelease": ours, "independent": [0.5] * 3,
                                               "mst": [0.20, 0.21, 0.22], "mst-matched": [0.35, 0.36, 0.37],
                                               "aim-matched": [0.40, 0.41, 0.42]}))
    assert lines[0].count("best peer") == 2 and "at the same guarantee" in lines[0]
    (row,) = [line for line in lines if "| dprelease |" in line]
    assert "**NO** (0.310 vs MST 0.210) | yes (0.310 vs MST 0.360) |" in row  # the best matched peer: MST's 0.360
    (line,) = failures
    assert "> MST 0.2100 (" in line and "guarantee" not in line
    _, failures = report.checks(suite_doc({"dprelease": ours, "independent": [0.5] * 3, "aim-matched": [0.25] * 3}))
    (line,) = failures
    assert "> AIM 0.2500 at dprelease's guarantee (1.24x;" in line
    plain, _ = report.checks(suite_doc({"dprelease": ours, "independent": [0.5] * 3, "mst": [0.2] * 3}))
    assert "same guarantee" not in plain[0]  # pages without matched peers keep their columns


def test_rows_worse_than_uniform_are_a_listed_loss_even_under_the_independent_baseline(report):
    """A release worse than no data loses, though the issue's check is the independent baseline (which a blind
    run can beat while still above uniform rows: bn-1k at eps 0.1); a release under uniform rows is no loss."""
    ours = [0.90, 0.92, 0.94]
    lines, failures = report.checks(suite_doc({"dprelease": ours, "independent": [1.2] * 3,
                                                "uniform": [0.87, 0.88, 0.89]}))
    # every run above every uniform run: the exact two-sided p is 2 / C(6, 3) = 0.1
    assert failures == ["t, eps = 1, dprelease: avg L1 0.9200 > uniform rows 0.8800 (1.05x; runs 3 vs 3, "
                        "Mann-Whitney two-sided p = 0.1)"]
    assert any("yes (0.920 vs 1.200) | **NO** (0.920 vs 0.880)" in row for row in lines)
    _, fine = report.checks(suite_doc({"dprelease": ours, "independent": [1.2] * 3, "uniform": [1.5] * 3}))
    assert fine == []
