"""benchmarks/bench_shapes.py: the random shapes are the ones its docstring promises, and its page counts honestly."""

from __future__ import annotations

import pytest

from tests.benchmark_modules import load_benchmark


@pytest.fixture(scope="module")
def shapes():
    return load_benchmark("bench_shapes")


def test_shapes_are_seeded_and_within_their_stated_ranges(shapes):
    drawn = [shapes.shape(i) for i in range(40)]
    assert drawn == [shapes.shape(i) for i in range(40)]  # the same tables on every run
    sizes_seen = set()
    for info in drawn:
        assert 3 <= info["d"] <= 14 and len(info["sizes"]) == info["d"]
        assert all(any(low <= s <= high for _, low, high in shapes.SIZE_CLASSES) for s in info["sizes"])
        assert info["alpha"] in shapes.ALPHAS and info["n"] in shapes.SIZES_N
        assert info["workload"] == ("1-3way" if info["d"] <= 7 else "1-2way" if info["d"] <= 11 else "2way")
        for j, (name, size, parents) in enumerate(info["nodes"]):
            assert name == f"x{j}" and size == info["sizes"][j] and len(parents) <= 2
            assert all(int(p[1:]) < j for p in parents)  # a network: parents come earlier
        sizes_seen.update(info["sizes"])
    assert 2 in sizes_seen and max(sizes_seen) >= 50  # both ends of the size classes are drawn
    assert len({(info["d"], info["n"], info["alpha"]) for info in drawn}) > 20  # shapes differ


@pytest.mark.parametrize("family,widest,knob,choices", [("mixture", 24, "classes", "MIXTURE_CLASSES"),
                                                          ("copula", 16, "factors", "COPULA_FACTORS")])
def test_drawn_families_are_seeded_within_their_ranges_and_apart_from_the_networks(shapes, family, widest, knob,
                                                                                   choices):
    alphas = {"mixture": shapes.MIXTURE_CONCENTRATIONS, "copula": shapes.COPULA_STRENGTHS}[family]
    drawn = [shapes.shape(i, family) for i in range(40)]
    assert drawn == [shapes.shape(i, family) for i in range(40)]
    for info in drawn:
        assert 3 <= info["d"] <= widest and len(info["sizes"]) == info["d"] and info["family"] == family
        assert all(any(low <= s <= high for _, low, high in shapes.SIZE_CLASSES) for s in info["sizes"])
        assert info[knob] in getattr(shapes, choices) and info["alpha"] in alphas and info["n"] in shapes.SIZES_N
        assert info["workload"] == ("1-3way" if info["d"] <= 7 else "1-2way" if info["d"] <= 11 else "2way")
    assert max(info["d"] for info in drawn) > 14  # wider than the network family reaches
    assert {info["alpha"] for info in drawn} == set(alphas)
    assert [info["sizes"] for info in drawn] != [shapes.shape(i)["sizes"] for i in range(40)]  # its own seed


def test_a_mixture_table_has_its_shape_and_its_columns_depend_on_one_another(shapes):
    import numpy as np

    info = next(info for info in (shapes.shape(i, "mixture") for i in range(40))
                if info["alpha"] == 0.3 and info["n"] >= 5_000)
    dataset = shapes.dataset_of(info)
    assert dataset.n == info["n"] and list(dataset.domain.sizes) == info["sizes"]
    assert dataset.fingerprint() == shapes.dataset_of(info).fingerprint()
    # sharp classes (concentration 0.3): some pair of columns is far from independent (a column may be near constant)
    names = dataset.domain.attributes[:6]
    gaps = [np.abs(dataset.marginal((a, b)) - np.outer(dataset.marginal((a,)), dataset.marginal((b,)))).sum()
            for i, a in enumerate(names) for b in names[i + 1:]]
    assert max(gaps) > 0.1


def test_a_copula_table_ties_its_columns_by_its_strength(shapes):
    """Strength 0: no two columns' ranks go together beyond sampling (30,000 rows: |rho| about 0.006 apiece);
    strength 0.9: some pair's ranks go together strongly (two loads of 0.9 x U(0.6, 1) on one factor)."""
    import numpy as np
    from scipy.stats import spearmanr

    def largest_rank_correlation(info):
        dataset = shapes.dataset_of(info)
        assert dataset.n == info["n"] and list(dataset.domain.sizes) == info["sizes"]
        rho = spearmanr(dataset.records).correlation
        return np.abs(rho - np.eye(len(rho))).max()

    drawn = [shapes.shape(i, "copula") for i in range(40)]
    free = next(info for info in drawn if info["alpha"] == 0.0 and info["n"] == 30_000)
    tied = next(info for info in drawn if info["alpha"] == 0.9 and info["n"] == 30_000)
    assert largest_rank_correlation(free) < 0.03 and largest_rank_correlation(tied) > 0.5


def test_a_drawn_table_has_its_shape(shapes):
    info = shapes.shape(9)
    dataset = shapes.dataset_of(info)
    assert dataset.n == info["n"] and list(dataset.domain.sizes) == info["sizes"]


def doc_with(results: dict[str, dict[str, list[float]]]) -> dict:
    runs = []
    for table, systems in results.items():
        for system, values in systems.items():
            for seed, value in enumerate(values):
                run = {"table": table, "system": system, "epsilon": 0.1, "seed": seed, "rows_avg_l1": value,
                       "seconds": 0.1}
                if system == "dprelease":
                    run.update(model_avg_l1=value, plan="INIT alone")
                runs.append(run)
    tables = [{"table": t, "n": 1000, "d": 3, "sizes": [2, 3, 4], "alpha": 1.0, "cells": 24, "workload": "1-3way"}
              for t in results]
    return {"machine": {"date": "d", "cpu_count": 2, "cpu_model": "c", "python": "3", "numpy": "2"},
            "code": {"git_commit": "0" * 40, "git_status_src": []}, "total_seconds": 1.0,
            "config": {"eps": [0.1], "seeds": 3}, "tables": tables, "runs": runs}


def test_the_page_counts_losses_to_each_baseline(shapes):
    page = shapes.render(doc_with({
        "shapeA": {"dprelease": [0.50, 0.51, 0.52], "independent": [0.60] * 3, "uniform": [0.45] * 3},
        "shapeB": {"dprelease": [0.70, 0.71, 0.72], "independent": [0.60] * 3, "uniform": [0.90] * 3}}))
    assert "**Default <= the independent baseline:** 1 of 2." in page
    assert "**Default <= a uniform table:** 1 of 2." in page
    loss = next(line for line in page.splitlines() if line.startswith("- shapeB, eps = 0.1: 0.7100 > independent"))
    assert "Mann-Whitney" in loss
    assert ("- shapeA, eps = 0.1 (INIT alone): 0.5100 > uniform 0.4500 (1.13x; independent 0.6000); n eps = 100 over 3 "
            "columns") in page
    assert not any(line.startswith("- shapeA, eps = 0.1: ") for line in page.splitlines())  # no loss to independent
    assert "No loss to the independent baseline." not in page


def test_a_clean_page_says_so(shapes):
    page = shapes.render(doc_with({"shapeA": {"dprelease": [0.5] * 3, "independent": [0.6] * 3,
                                              "uniform": [0.7] * 3}}))
    assert "No loss to the independent baseline." in page
    assert "The default is at or below a uniform table everywhere." in page


def test_the_page_weighs_mst_where_it_ran(shapes):
    doc = doc_with({"shapeA": {"dprelease": [0.50, 0.51, 0.52], "independent": [0.60] * 3, "uniform": [0.9] * 3,
                               "mst": [0.40, 0.41, 0.42], "mst-matched": [0.55, 0.56, 0.57]}})
    doc["config"]["peer_seeds"] = 3
    page = shapes.render(doc)
    assert "**Default <= MST at the same nominal eps:** 0 of 1" in page
    assert "**Default <= MST at dprelease's guarantee (`mst-matched`):** 1 of 1" in page
    assert any(line.startswith("- shapeA, eps = 0.1: 0.5100 > mst 0.4100 (1.24x; runs 3 vs 3") for line in page.splitlines())
    assert "| shapeA | 0.1 | INIT alone | 0.510 | 0.510 | 0.600 | 0.900 | 0.410 | 0.560 | 0.85x |" in page
    above = shapes.render(doc_with({"shapeA": {"dprelease": [0.5] * 3, "independent": [0.6] * 3, "uniform": [0.4] * 3,
                                               "mst": [0.7] * 3}}))
    assert "(1.25x; independent 0.6000; mst 0.7000)" in above  # the others' figures where the default is above uniform
    failed = doc_with({"shapeA": {"dprelease": [0.5] * 3, "independent": [0.6] * 3, "uniform": [0.9] * 3}})
    failed["runs"].append({"table": "shapeA", "system": "mst", "epsilon": 0.1, "seed": 0, "status": "timeout"})
    assert "MST" not in shapes.render(failed)  # a peer with no finished run is not weighed


def test_a_rerun_replaces_one_case_and_the_page_says_so(shapes):
    # shape09 (5,000 rows, 24 cells): the independent baseline's runs at eps 1, rerun on the current code
    doc = doc_with({"shape09": {"independent": [9.0, 9.0], "uniform": [0.7] * 2}})
    doc["tables"][0]["table"] = "shape09"
    for run in doc["runs"]:
        run["epsilon"] = 1.0
    doc["config"]["eps"] = [1.0]
    shapes.rerun_cases(doc, ["shape09:1:independent"], jobs=1)
    fresh = [r for r in doc["runs"] if r["system"] == "independent"]
    assert sorted(r["seed"] for r in fresh) == [0, 1] and all(r["rows_avg_l1"] < 1 for r in fresh)
    assert {r["table"] for r in fresh} == {"shape09"}  # the table named, wherever it sits on the page
    assert [r["system"] for r in doc["runs"]].count("uniform") == 2  # the other case kept
    (rerun,) = doc["reruns"]
    assert rerun["case"] == "shape09:1:independent" and rerun["seeds"] == 2
    assert "Rerun on " in shapes.render(doc) and "shape09:1:independent, 2 seeds" in shapes.render(doc)
    with pytest.raises(SystemExit, match="no such case"):
        shapes.rerun_cases(doc, ["shape09:0.1:independent"], jobs=1)
    with pytest.raises(SystemExit, match="TABLE:EPS:SYSTEM"):
        shapes.rerun_cases(doc, ["shape99:1:independent"], jobs=1)


def test_peers_from_an_earlier_run_join_the_page_only_for_the_same_tables(shapes):
    ours = doc_with({"shapeA": {"dprelease": [0.5] * 10, "independent": [0.6] * 10, "uniform": [0.9] * 10}})
    earlier = doc_with({"shapeA": {"dprelease": [0.7] * 3, "independent": [0.6] * 3, "mst": [0.8] * 2}})
    earlier["config"]["peer_seeds"] = 2
    earlier["code"] = {"git_commit": "1" * 40, "git_status_src": []}
    shapes.merge_peers(ours, earlier, "old.json")
    assert [r["rows_avg_l1"] for r in ours["runs"] if r["system"] == "mst"] == [0.8, 0.8]
    assert [r["seed"] for r in ours["runs"] if r["system"] == "dprelease"] == list(range(10))  # its own kept
    page = shapes.render(ours)
    assert "**Default <= MST at the same nominal eps:** 1 of 1 (medians; MST's seeds 0..1)." in page
    assert "MST's runs come from an earlier run of the same tables on 1111111111" in page
    with pytest.raises(SystemExit, match="has peer runs of its own"):
        shapes.merge_peers(ours, earlier, "old.json")
    other = doc_with({"shapeB": {"mst": [0.8]}})
    with pytest.raises(SystemExit, match="not the same family, tables and eps"):
        shapes.merge_peers(doc_with({"shapeA": {"dprelease": [0.5]}}), other, "old.json")
