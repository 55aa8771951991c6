"""The factored model's shortcuts give exactly what the direct computations give (MWEM's releases depend on it).

MWEM checks every candidate against the model-size cap and asks for every candidate's marginal each round. The
check shares one elimination of the model's graph among the candidates, finds maximal cliques from the order,
and the marginals replay planned contractions: each must agree exactly (cells, masks, picks; floats to the bit)
with the direct computation it replaces.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dprelease.domain import Domain
from dprelease.representations.contraction import _elimination_plan, contract, eliminate
from dprelease.representations.factored import FactoredModel
from dprelease.representations.junction_tree import (JunctionTree, _adjacency, _candidate_graphs, _criterion_cells,
                                                     _eliminate_greedy, _logs, _maximal_in_order, _maximal_mask,
                                                     _min_size_cells)


def random_case(g: np.random.Generator) -> tuple[Domain, list[tuple[str, ...]], list[tuple[str, ...]]]:
    """A domain (some attributes of size 1), a model's cliques (often several components) and candidates of 1-3
    attributes (some inside a clique already)."""
    d = int(g.integers(2, 16))
    domain = Domain(tuple(f"x{i}" for i in range(d)), tuple(int(s) for s in g.choice([1, 2, 3, 4, 7, 12, 30], d)))
    pick = lambda most: domain.canonical(g.choice(domain.attributes, int(g.integers(1, min(most, d) + 1)),  # noqa: E731
                                                  replace=False))
    cliques = [pick(3) for _ in range(int(g.integers(0, 2 * d)))]
    candidates = [pick(3) for _ in range(int(g.integers(1, 30)))] + cliques[:2]
    return domain, cliques, candidates


@pytest.mark.parametrize("seed", range(6))
def test_shared_elimination_gives_each_candidate_graphs_min_size_cells(seed):
    g = np.random.Generator(np.random.PCG64(seed))
    for _ in range(25):
        domain, cliques, candidates = random_case(g)
        members = np.zeros((len(candidates), len(domain)), dtype=bool)
        for i, c in enumerate(candidates):
            members[i, list(domain.axes(c))] = True
        logs = _logs(domain)
        direct = _criterion_cells(logs, _candidate_graphs(domain, cliques, candidates), "min-size")[0]
        assert np.array_equal(_min_size_cells(logs, _adjacency(domain, cliques), members), direct)


@pytest.mark.parametrize("criterion", ["min-size", "min-fill"])
def test_maximal_cliques_from_the_order_match_the_pairwise_test(criterion):
    g = np.random.Generator(np.random.PCG64(7))
    for _ in range(40):
        domain, cliques, candidates = random_case(g)
        orders, eliminated = _eliminate_greedy(_logs(domain), _candidate_graphs(domain, cliques, candidates), criterion)
        assert np.array_equal(_maximal_in_order(eliminated, orders), _maximal_mask(eliminated))


def test_a_planned_elimination_replays_the_same_bits():
    g = np.random.Generator(np.random.PCG64(3))
    domain = Domain(tuple("abcdefg"), (2, 3, 4, 2, 3, 5, 1))
    factors = [(("a", "b", "c"), g.random((2, 3, 4))), (("b", "d"), g.random((3, 2))),
               (("d", "e", "f"), g.random((2, 3, 5))), (("a", "g"), g.random((2, 1)))]
    for output in [("a", "e"), ("b", "f"), ("c",), (), ("a", "c", "e", "g")]:
        first = eliminate(domain, factors, output)
        hits = _elimination_plan.cache_info().hits
        again = eliminate(domain, [(attrs, array.copy()) for attrs, array in factors], output)
        assert _elimination_plan.cache_info().hits == hits + 1
        assert again.tobytes() == first.tobytes()
        spec = ",".join("".join(attrs) for attrs, _ in factors) + "->" + "".join(output)
        assert np.abs(first - np.einsum(spec, *[a for _, a in factors])).max() < 1e-12
        assert np.abs(contract(factors, output) - first).max() < 1e-12


def scanned_picks(tree: JunctionTree, attributes) -> set[int]:
    """:meth:`JunctionTree.steiner_picks` as it was: each greedy pick scans every tree clique."""
    needed, chosen = set(attributes), set()
    while needed:
        best = max(range(len(tree.cliques)),
                   key=lambda i: (len(needed & set(tree.cliques[i])), -tree.cells(i), -i))
        chosen.add(best)
        needed -= set(tree.cliques[best])
    return chosen


def test_steiner_picks_and_the_held_check_match_a_scan_of_every_clique():
    g = np.random.Generator(np.random.PCG64(5))
    for _ in range(30):
        domain, cliques, candidates = random_case(g)
        tree = JunctionTree.build(domain, cliques)
        for k in (1, 2, 3):
            for attributes in itertools.islice(itertools.combinations(domain.attributes, k), 60):
                assert tree.steiner_picks(attributes) == scanned_picks(tree, attributes)
        model = FactoredModel.uniform(domain, cliques=cliques)
        for c in candidates + [()]:
            assert model._held(c) == (model.potential_holding(c) is not None)
