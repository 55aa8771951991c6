"""benchmarks/bench_gate.py: every table of its page is one where the gate runs, and the page reports what ran."""

from __future__ import annotations

import pytest

from tests.benchmark_modules import load_benchmark


@pytest.fixture(scope="module")
def gate():
    return load_benchmark("bench_gate")


@pytest.mark.parametrize("name", ["normals-0.80-30k", "star-50k-p0.3", "skew-40k", "star-20k-40v-eps1"])
def test_the_tables_are_ones_where_the_gate_runs(gate, name):
    from dprelease.mechanisms.base import Budget
    from dprelease.mechanisms.mwem import MWEMMechanism

    data, workload = gate.build(name)
    kind, params, eps, _ = gate.TABLES[name]
    assert data.n == (params[1] if kind == "normals" else params[0])
    runner = MWEMMechanism().runner(data.domain, Budget(epsilon=eps, delta=gate.DELTA))
    assert runner.run_plan(workload, n=data.n).rounds == len(workload.attributes)  # INIT alone without the gate
    assert runner.gate_plan(workload, n=data.n) is not None


@pytest.mark.parametrize("name", ["pairs-50k-30col-p0.7", "star-50k-30col-p0.3"])
def test_the_too_wide_tables_have_no_gate(gate, name):
    from dprelease.mechanisms.base import Budget
    from dprelease.mechanisms.mwem import MWEMMechanism
    from dprelease.mechanisms.mwem_plan import GATE_MOST_PAIRS

    data, workload = gate.build(name)
    runner = MWEMMechanism().runner(data.domain, Budget(epsilon=gate.TABLES[name][2], delta=gate.DELTA))
    assert len(workload.marginals) > GATE_MOST_PAIRS
    assert runner.run_plan(workload, n=data.n).rounds == len(workload.attributes)  # INIT alone, the gate off
    assert runner.gate_plan(workload, n=data.n) is None


def test_the_page_shows_each_systems_median_and_the_gates_choices(gate):
    runs = []
    for seed in range(3):
        runs += [{"table": "star-50k-p0.3", "system": "gated", "seed": seed, "avg_l1": 0.25 + seed / 100,
                  "passed": seed > 0, "test_epsilon": 0.002, "min_level": 0.19, "statistic": 0.3},
                 {"table": "star-50k-p0.3", "system": "ungated", "seed": seed, "avg_l1": 0.40},
                 {"table": "star-50k-p0.3", "system": "rounds", "seed": seed, "avg_l1": 0.24}]
    doc = {"machine": {"date": "d", "cpu_count": 2, "cpu_model": "c", "python": "3", "numpy": "2"},
           "code": {"git_commit": "0" * 40, "git_status_src": []}, "total_seconds": 60.0,
           "config": {"seeds": 3}, "dependence": {name: 0.5 for name in gate.TABLES}, "runs": runs}
    page = gate.render(doc)
    assert "| star-50k-p0.3 | validation | 0.1 | 0.50 | 0.19 | 0.020 | 2/3 | 0.2600 | 0.4000 | **0.2400** | 0.65 |" in page
    assert "| skew-40k | validation | 0.1 | 0.50 | (no gate) |" in page  # a table without runs is not silently left out
    assert "- validation: gated / ungated median 0.65" in page
