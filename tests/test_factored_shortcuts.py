"""The factored model's shortcuts give exactly what the direct computations give (MWEM's releases depend on it).

MWEM checks every candidate against the model-size cap and asks for every candidate's marginal each round. The
check shares one elimination of the model's graph among the candidates, finds maximal cliques from the order,
and the marginals replay planned contractions: each must agree exactly (cells, masks, picks; floats to the bit)
with the direct computation it replaces.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from dprelease.domain import Domain
from dprelease.representations.contraction import _elimination_plan, contract, eliminate
from dprelease.representations.factored import FactoredModel, _packed_keys
from dprelease.representations.junction_tree import (JunctionTree, _adjacency, _candidate_fill_counts,
                                                     _candidate_graphs, _criterion_cells, _eliminate_greedy, _Graphs,
                                                     _greedy_step, _logs, _maximal_in_order, _min_size_cells,
                                                     _neighbour_edges, expand, sum_to)


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


def members_of(domain: Domain, candidates: list[tuple[str, ...]]) -> np.ndarray:
    """(K, d): each candidate's attributes."""
    members = np.zeros((len(candidates), len(domain)), dtype=bool)
    for i, c in enumerate(candidates):
        members[i, list(domain.axes(c))] = True
    return members


def shared_matches_from_scratch(domain: Domain, cliques, candidates) -> np.ndarray:
    """Asserts the shared elimination's cells equal the from-scratch min-size triangulation's; returns them."""
    logs = _logs(domain)
    direct = _criterion_cells(logs, _candidate_graphs(domain, cliques, candidates), "min-size")[0]
    assert np.array_equal(_min_size_cells(logs, _adjacency(domain, cliques), members_of(domain, candidates)), direct)
    return direct


@pytest.mark.parametrize("seed", range(6))
def test_shared_elimination_gives_each_candidate_graphs_min_size_cells(seed):
    g = np.random.Generator(np.random.PCG64(seed))
    for _ in range(25):
        shared_matches_from_scratch(*random_case(g))


@pytest.mark.parametrize("seed", range(3))
def test_wide_blocky_graphs_resume_on_their_own_components_as_from_scratch(seed):
    """A wide table's model is many small components (linkage blocks): each candidate graph is held on the vertices
    of the components it joins alone, and its cells are still exactly the from-scratch triangulation's, ties and all
    (sizes of 2 and 3 only, so many eliminations tie)."""
    g = np.random.Generator(np.random.PCG64(100 + seed))
    d = 70
    domain = Domain(tuple(f"m{i:02d}" for i in range(d)), tuple(int(s) for s in g.choice([2, 3], d)))
    names = domain.attributes
    cliques = []
    for _ in range(60):  # mostly inside blocks of 5, a few across
        a = int(g.integers(0, d))
        b = (a // 5) * 5 + int(g.integers(0, 5)) if g.random() < 0.9 else int(g.integers(0, d))
        if a != b:
            cliques.append(domain.canonical((names[a], names[b])))
    candidates = [domain.canonical(tuple(g.choice(names, int(g.integers(1, 4)), replace=False))) for _ in range(300)]
    shared_matches_from_scratch(domain, cliques, candidates)


def test_candidates_checked_in_chunks_give_what_one_batch_gives(monkeypatch):
    """A wide table's candidates run in chunks (memory): chunks of 1, 2 and 5 graphs give the cells and the fits of
    the one batch, and the chunk holds about 2^25 float cells, at least one graph."""
    import dprelease.representations.junction_tree as jt

    assert jt._chunk_rows(100) == 3_355 and jt._chunk_rows(200) == 838 and jt._chunk_rows(10_000) == 1
    g = np.random.Generator(np.random.PCG64(11))
    cases = [random_case(g) for _ in range(20)]
    whole = []
    for domain, cliques, candidates in cases:
        members = members_of(domain, candidates)
        cap = int(np.median(_min_size_cells(_logs(domain), _adjacency(domain, cliques), members)))
        whole.append((members, cap, _min_size_cells(_logs(domain), _adjacency(domain, cliques), members),
                      jt.candidates_fit(domain, cliques, candidates, cap)))
    for rows in (1, 2, 5):
        monkeypatch.setattr(jt, "_chunk_rows", lambda d, rows=rows: rows)
        for (domain, cliques, candidates), (members, cap, cells, fits) in zip(cases, whole):
            assert np.array_equal(_min_size_cells(_logs(domain), _adjacency(domain, cliques), members), cells)
            assert np.array_equal(jt.candidates_fit(domain, cliques, candidates, cap), fits)


@pytest.mark.parametrize("seed", range(4))
def test_pairs_in_no_tree_clique_from_one_walk_match_elimination(seed):
    """The batch of marginals answers a pair no tree clique holds from one walk of the tree per first attribute
    (``FactoredModel._cross_pairs``), or as independent where the two lie in different parts of the tree: within
    1e-12 of elimination on the pair's subtree, in the order asked, and every other marginal of the batch as
    before."""
    g = np.random.Generator(np.random.PCG64(seed))
    checked = apart = 0
    for _ in range(15):
        domain, cliques, _ = random_case(g)
        model = FactoredModel(domain, {c: g.normal(size=[domain.size_of(a) for a in c]) * 2
                                        for c in dict.fromkeys(cliques)})
        asked = [pair[::-1] if g.random() < 0.5 else pair for pair in itertools.combinations(domain.attributes, 2)]
        asked += [(a,) for a in domain.attributes] + list(dict.fromkeys(cliques))[:3]
        tree = model.tree
        crossing = {domain.canonical(q) for q in asked if len(q) == 2 and tree.containing(q) is None}
        checked += len(crossing)
        apart += sum(tree.part[tree.containing(q[:1])] != tree.part[tree.containing(q[1:])] for q in crossing)
        for query, batch in zip(asked, model.marginals(asked)):
            one = model.marginal(query)
            assert batch.shape == one.shape and np.abs(batch - one).max() < 1e-12
    assert checked - apart > 50 and apart > 50  # the walk and the independent parts, not only the cliques' own sums


def full_walk(model: FactoredModel, first: str, seconds: set[str]) -> dict[tuple[str, ...], np.ndarray]:
    """The walk as session 40 wrote it: breadth first over every clique of ``first``'s part, carrying p(first, C),
    each pair summed at the first clique holding its second (the reference for the planned route)."""
    tree, domain = model.tree, model.domain
    start = tree.containing((first,))
    frontier, seen, result = [(start, tree.cliques[start], model._probability(start))], {start}, {}
    while frontier:
        index, attributes, joint = frontier.pop(0)
        for second in sorted(seconds.intersection(tree.cliques[index])):
            pair = domain.canonical((first, second))
            result[pair] = sum_to(joint, attributes, pair)
        seconds = seconds.difference(tree.cliques[index])
        for nxt in (*tree.kids[index], tree.parent[index]):
            if nxt == -1 or nxt in seen:
                continue
            down = tree.parent[nxt] == index
            separator = tree.separators[nxt] if down else tree.separators[index]
            if not separator:
                continue
            seen.add(nxt)
            given, target = domain.canonical({first, *separator}), domain.canonical({first, *tree.cliques[nxt]})
            conditional = model._conditional(nxt) if down else model._conditional_given_kid(index)
            carried = expand(given, sum_to(joint, attributes, given), target)
            frontier.append((nxt, target, carried * expand(tree.cliques[nxt], conditional, target)))
    return result


@pytest.mark.parametrize("seed", range(4))
def test_the_walk_on_its_planned_route_gives_the_full_walks_bits_and_the_switch_takes_both_ways(seed):
    """``_cross_pairs`` walks only the paths to the first clique holding each wanted second (``_route``): the same
    float operations on the same arrays as a walk of the whole part, so the same bits. Where carrying the first
    attribute's values costs more cells than the pairs' own paths, it eliminates each pair alone, the bits of
    ``_sorted_marginal`` (full Adult: the walk was 48 of a 93 s fit). Both ways are taken here, and every pair is
    within 1e-12 of elimination."""
    g = np.random.Generator(np.random.PCG64(100 + seed))
    ways = {"walk": 0, "alone": 0}
    for _ in range(40):
        domain, cliques, _ = random_case(g)
        model = FactoredModel(domain, {c: g.normal(size=[domain.size_of(a) for a in c]) * 2
                                        for c in dict.fromkeys(cliques)})
        tree = model.tree
        part = {a: tree.part[tree.containing((a,))] for a in domain.attributes}
        crossing = [q for q in itertools.combinations(domain.attributes, 2)
                    if tree.containing(q) is None and part[q[0]] == part[q[1]]]
        if not crossing:
            continue
        chosen = g.choice(len(crossing), int(g.integers(1, len(crossing) + 1)), replace=False)
        picked = [crossing[i] for i in sorted(chosen)]
        batch = model._cross_pairs(picked)
        for first in dict.fromkeys(q[0] for q in picked):
            seconds = {q[1] for q in picked if q[0] == first}
            _, walk_cells, alone_cells = model._route(first, tree.containing((first,)), set(seconds))
            way = "alone" if walk_cells > alone_cells else "walk"
            ways[way] += 1
            expected = full_walk(model, first, seconds) if way == "walk" else {
                domain.canonical((first, b)): model._sorted_marginal(domain.canonical((first, b))) for b in seconds}
            assert expected.keys() == {domain.canonical((first, b)) for b in seconds}
            for pair, array in expected.items():
                assert np.array_equal(batch[pair], array)
        for pair in picked:
            assert np.abs(batch[pair] - model._sorted_marginal(pair)).max() < 1e-12
    assert ways["walk"] > 10 and ways["alone"] > 10


def counted_afresh(live: np.ndarray, alive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(K, d): each alive vertex's alive neighbours and the edges among them, counted pair by pair (0 where dead)."""
    degree, edges = np.zeros(alive.shape, dtype=np.int64), np.zeros(alive.shape, dtype=np.int64)
    for k, v in zip(*np.nonzero(alive)):
        near = [u for u in np.flatnonzero(live[k, v]) if alive[k, u]]
        degree[k, v] = len(near)
        edges[k, v] = sum(1 for a, b in itertools.combinations(near, 2) if live[k, a, b])
    return degree, edges


def random_graphs(g: np.random.Generator, most: int) -> np.ndarray:
    """(K, d, d) float 0/1 symmetric graphs, diagonal 0, of one random density: sparse to nearly complete."""
    k, d = int(g.integers(1, 6)), int(g.integers(1, most))
    live = (g.random((k, d, d)) < g.uniform(0.03, 0.9)).astype(np.float64)
    return np.triu(live, 1) + np.triu(live, 1).transpose(0, 2, 1)


@pytest.mark.parametrize("seed", range(3))
def test_min_fill_counts_kept_through_each_step_are_a_fresh_count(seed):
    """Min-fill's degree and triangle counts, counted once and then updated at each elimination (the vertex gone,
    its neighbours joined), equal a pair-by-pair count of the graph after every step, on graphs sparse to nearly
    complete; the one product at the start equals it too."""
    g = np.random.Generator(np.random.PCG64(300 + seed))
    steps = 0
    for _ in range(40):
        live = random_graphs(g, 22)
        k, d = live.shape[:2]
        graphs = _Graphs.start(np.log(g.choice([2.0, 3.0, 5.0], d)), live, np.ones((k, d), dtype=bool))
        graphs.degree, graphs.triangles = _neighbour_edges(graphs.live, graphs.alive)
        for _ in range(d + 1):  # one step more than vertices: a graph with none left changes nothing
            degree, edges = counted_afresh(graphs.live, graphs.alive)
            assert np.array_equal(np.where(graphs.alive, graphs.degree, 0), degree)
            assert np.array_equal(np.where(graphs.alive, graphs.triangles, 0), edges)
            _greedy_step(graphs, "min-fill")
            steps += 1
    assert steps > 300


@pytest.mark.parametrize("seed", range(3))
def test_candidate_graphs_min_fill_counts_from_the_base_are_a_fresh_count(seed):
    """A candidate graph's starting counts, from the model graph's own and the candidate's clique added, equal a
    pair-by-pair count of the candidate graph: candidates of one to four attributes, some already joined."""
    g = np.random.Generator(np.random.PCG64(400 + seed))
    for _ in range(40):
        domain, cliques, candidates = random_case(g)
        d = len(domain)
        candidates += [domain.canonical(tuple(g.choice(domain.attributes, min(4, d), replace=False)))]
        base = _adjacency(domain, cliques)
        base_counts = _neighbour_edges(base[None].astype(np.float64), np.ones((1, d), dtype=bool))
        degree, triangles = _candidate_fill_counts(base, base_counts, members_of(domain, candidates))
        expected = counted_afresh(_candidate_graphs(domain, cliques, candidates), np.ones((len(candidates), d), bool))
        assert np.array_equal(degree, expected[0]) and np.array_equal(triangles, expected[1])


def plain_elimination(logs: np.ndarray, adjacency: np.ndarray, criterion: str) -> tuple[list[int], list[set[int]]]:
    """The greedy elimination as the module's docstring defines it, one vertex at a time on neighbour sets: min-size
    eliminates the vertex whose clique has the fewest cells (log sizes summed, rounded to 9 decimals); min-fill the
    one adding the fewest edges, ties by that size; remaining ties by the lowest index."""
    d = len(logs)
    neighbours = {v: set(np.flatnonzero(adjacency[v]).tolist()) for v in range(d)}
    alive, order, cliques = set(range(d)), [], []

    def key(v: int) -> tuple:
        size = float(np.round(logs[v] + sum(logs[u] for u in sorted(neighbours[v])), 9))
        fill = sum(1 for a, b in itertools.combinations(sorted(neighbours[v]), 2) if b not in neighbours[a])
        return (fill, size, v) if criterion == "min-fill" else (size, v)

    while alive:
        v = min(alive, key=key)
        near = neighbours.pop(v)
        for u in near:
            neighbours[u] |= near - {u}
            neighbours[u].discard(v)
        alive.discard(v)
        order.append(v)
        cliques.append(near | {v})
    return order, cliques


@pytest.mark.parametrize("criterion", ["min-size", "min-fill"])
def test_greedy_elimination_is_the_plain_one_vertex_at_a_time(criterion):
    """The vectorised elimination (neighbour sizes counted, not summed from the adjacency; an eliminated vertex's
    edges left in place) orders and cliques K graphs as the plain definition does: ties everywhere (sizes 2 and 3,
    and 2, 4 and 8 whose logs add up alike; one size, where the weights are products), single components and many."""
    g = np.random.Generator(np.random.PCG64(21))
    for case in range(30):
        d = int(g.integers(2, 25))
        sizes = g.choice([[2, 3], [2, 4, 8], [1, 2, 5, 30, 7], [3]][case % 4], d)
        domain = Domain(tuple(f"x{i}" for i in range(d)), tuple(int(s) for s in sizes))
        names = domain.attributes
        cliques = [domain.canonical(tuple(g.choice(names, int(g.integers(2, min(3, d) + 1)), replace=False)))
                   for _ in range(int(g.integers(0, 2 * d)))]
        if case % 2:  # one component: a path through every attribute
            cliques += [(names[i], names[i + 1]) for i in range(d - 1)]
        candidates = [domain.canonical(tuple(g.choice(names, int(g.integers(1, min(3, d) + 1)), replace=False)))
                      for _ in range(8)]
        graphs = _candidate_graphs(domain, cliques, candidates)
        orders, eliminated = _eliminate_greedy(_logs(domain), graphs, criterion)
        for i in range(len(candidates)):
            order, plain = plain_elimination(_logs(domain), graphs[i], criterion)
            assert orders[i].tolist() == order
            assert [set(np.flatnonzero(c).tolist()) for c in eliminated[i]] == plain


def test_packed_sort_keys_order_as_the_columns_do():
    """Rounded rows sort each group's records by row, strata and a random key; packing the codes into few int64 keys
    gives np.lexsort's permutation exactly, ties and their stable order included: radices from 1 to 10^6 (so keys
    split into several words), many columns, tied tie-breakers, and empty and one-row inputs."""
    g = np.random.Generator(np.random.PCG64(12))
    for case in range(60):
        n = [0, 1, 7, 500, 3000][case % 5]
        radices = g.choice([1, 2, 3, 50, 1000, 10 ** 6], int(g.integers(1, 40)))
        columns = [g.integers(0, r, n) for r in radices]
        tiebreak = g.integers(0, 3, n)  # ties even after every column
        packed = _packed_keys(columns)
        assert len(packed) <= len(columns)
        assert np.array_equal(np.lexsort((tiebreak, *reversed(packed))), np.lexsort((tiebreak, *reversed(columns))))


def test_one_size_weights_are_the_product_bit_for_bit():
    """With one size the log cells are an elementwise product; they equal the general ``counts @ sizes`` to the bit
    (a one-term sum is its term's rounding), on counts up to 12,000 neighbours and sizes from 2 to 10^6 values."""
    g = np.random.Generator(np.random.PCG64(8))
    for size in (2, 3, 7, 50, 1_000_003):
        k, d = int(g.integers(1, 40)), int(g.integers(1, 300))
        logs = np.full(d, np.log(size))
        live = np.triu((g.random((k, d, d)) < g.random()).astype(np.float64), 1)
        graphs = _Graphs.start(logs, live + np.swapaxes(live, 1, 2), np.ones((k, d), dtype=bool))
        graphs.counts *= g.integers(1, 40)  # larger counts than a graph of d vertices has
        assert graphs.sizes.size == 1
        assert np.array_equal(graphs.log_cells(), graphs.logs + graphs.counts @ graphs.sizes)


def test_cells_past_two_to_the_32_are_the_exact_product():
    """The resumed check reads a clique's cells from its log cells below 2^32 and multiplies its sizes above: with
    columns of 8,191 and 8,193 values, cliques of up to 2^52 cells are whole numbers exactly as the from-scratch
    product gives them (exp of the log sum is several cells off there)."""
    g = np.random.Generator(np.random.PCG64(5))
    d = 9
    domain = Domain(tuple(f"x{i}" for i in range(d)), (2, 3, 8191, 8193, 8191, 8193, 7, 8193, 8191))
    names = domain.attributes
    cliques = [(names[i], names[i + 1], names[i + 2]) for i in range(d - 2)]
    candidates = [domain.canonical(tuple(g.choice(names, int(g.integers(2, 4)), replace=False))) for _ in range(60)]
    assert shared_matches_from_scratch(domain, cliques, candidates).max() > 2.0 ** 48  # the case this test is for


def pairwise_maximal(cliques: np.ndarray) -> np.ndarray:
    """(K, d) mask of the cliques that are no other's subset (of equal ones the first kept), tested pair by pair."""
    k, d, _ = cliques.shape
    keep = np.zeros((k, d), dtype=bool)
    for i in range(k):
        sets = [frozenset(np.flatnonzero(c).tolist()) for c in cliques[i]]
        for j, c in enumerate(sets):
            keep[i, j] = bool(c) and not any(c < other or (c == other and m < j) for m, other in enumerate(sets))
    return keep


@pytest.mark.parametrize("criterion", ["min-size", "min-fill"])
def test_maximal_cliques_from_the_order_match_the_pairwise_test(criterion):
    g = np.random.Generator(np.random.PCG64(7))
    for _ in range(40):
        domain, cliques, candidates = random_case(g)
        orders, eliminated = _eliminate_greedy(_logs(domain), _candidate_graphs(domain, cliques, candidates), criterion)
        assert np.array_equal(_maximal_in_order(eliminated, orders), pairwise_maximal(eliminated))


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


def test_replayed_contractions_are_the_operations_planned_afresh():
    """A plan's contractions are templates replayed on its slots (``_contraction``): on random factor sets over random
    domains (sizes 1-30, attributes shared or private, outputs of 0-4 attributes) every elimination plan has the
    operations of the same plan made with each contraction planned in place, and its results match einsum (on the
    domains small enough for einsum's plain loop)."""
    from dprelease.representations import contraction

    def fresh_plan(domain, attributes, output):
        plan = contraction._Plan(dict(zip(domain.attributes, domain.sizes)), len(attributes))
        plan.contract = plan._contract  # plan every contraction in place, as before the templates
        result = plan.eliminate(domain, [(a, i) for i, a in enumerate(attributes)], output)
        return tuple(plan.ops), result

    g = np.random.Generator(np.random.PCG64(11))
    replayed = 0
    for _ in range(200):
        domain, cliques, _ = random_case(g)
        factors = [c for c in cliques if c] or [domain.attributes[:1]]
        held = domain.canonical({a for f in factors for a in f})  # an output the factors hold, as callers ask
        output = domain.canonical(g.choice(held, int(g.integers(0, min(4, len(held)) + 1)), replace=False))
        hits = contraction._contraction.cache_info().hits
        ops, result = contraction._elimination_plan.__wrapped__(domain, tuple(factors), output)
        replayed += contraction._contraction.cache_info().hits - hits
        assert (ops, result) == fresh_plan(domain, tuple(factors), output)
        if math.prod(domain.sizes) > 100_000:
            continue  # einsum's plain loop would run over every cell of the domain
        arrays = [g.random(tuple(domain.size_of(a) for a in f)) for f in factors]
        letters = {a: chr(97 + i) for i, a in enumerate(domain.attributes)}
        spec = ",".join("".join(letters[a] for a in f) for f in factors) + "->" + "".join(letters[a] for a in output)
        assert np.allclose(contraction._run(ops, arrays, result), np.einsum(spec, *arrays), rtol=1e-12, atol=0)
    assert replayed > 0  # some contractions were found planned, and replayed on new slots


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
