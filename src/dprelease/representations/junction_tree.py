"""Junction trees over a :class:`~dprelease.domain.Domain`: structure from public cliques, exact inference.

A log-linear model p(x) ∝ exp(sum_r theta_r(x_r)) over attribute sets r (its *cliques*) is
answered exactly by the junction-tree algorithm (Lauritzen & Spiegelhalter 1988; Koller &
Friedman, *Probabilistic Graphical Models*, ch. 9-10):

1. **Triangulate** the graph that links every two attributes sharing a clique, by greedy
   variable elimination. Two greedy criteria are tried, *min-size* (eliminate the attribute
   whose elimination clique has the fewest cells) and *min-fill* (fewest new edges, ties by
   size); the order giving the smaller tree is kept. Both are heuristics: finding the best
   order is NP-hard.
2. Link the maximal elimination cliques by a **maximum spanning tree** on the number of shared
   attributes: for the maximal cliques of a chordal graph this has the running-intersection
   property (Koller & Friedman, Thm 10.4 ff.). Attributes that share no clique get their own
   one-attribute clique, joined by an empty separator.
3. **Calibrate** by sum-product message passing (collect to the root, then distribute; Hugin-style
   division at the separators) in the probability domain: each clique's log potential is exponentiated
   once, shifted by its own maximum, and each message is scaled to peak 1, the scales kept in logs.
   Where a whole message would underflow (a model peaked beyond e^-745), the same passes run in the
   log domain (log-sum-exp messages), which nothing underflows. The result is every tree clique's
   exact marginal and log Z.

Everything here depends only on public information (the domain and the chosen cliques) and
on public potentials: it is post-processing.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from dprelease.domain import Domain
from dprelease.representations.contraction import contract, row_sums  # noqa: F401 (contract: re-exported)

Clique = tuple[str, ...]


# ---------------------------------------------------------------------- structure
def _count_dtype(d: int) -> type:
    """The float type whose matmul counts 0/1 products over d attributes exactly: every partial sum is a whole
    number at most d^2, exact in float32 up to 2^24 (d <= 4096), in float64 beyond."""
    return np.float32 if d * d <= 2 ** 24 else np.float64


def _eliminate_greedy(logs: np.ndarray, adjacency: np.ndarray, criterion: str,
                      fill_counts: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Greedy elimination of K graphs at once: (orders (K, d), elimination cliques (K, d, d) boolean).

    ``adjacency`` is (K, d, d) boolean; ``logs`` the log sizes of the d attributes. *min-size*
    eliminates the vertex whose clique (itself and its remaining neighbours) has the fewest cells;
    *min-fill* the one adding the fewest edges, ties by size; remaining ties by the lowest index.
    Vectorized over the K graphs: checking every candidate clique against the cap is one call. ``fill_counts``:
    min-fill's starting (degree, triangles), where the caller has them cheaper than a count from the graphs.
    """
    k, d = adjacency.shape[0], adjacency.shape[1]
    graphs = _Graphs.start(logs, adjacency.astype(np.float64), np.ones((k, d), dtype=bool))
    if criterion == "min-fill":
        graphs.degree, graphs.triangles = (_neighbour_edges(graphs.live, graphs.alive) if fill_counts is None
                                           else fill_counts)
    orders = np.zeros((k, d), dtype=np.intp)
    cliques = np.zeros((k, d, d), dtype=bool)
    for step in range(d):
        orders[:, step], cliques[:, step], _ = _greedy_step(graphs, criterion)
    return orders, cliques


@dataclass
class _Graphs:
    """K graphs under greedy elimination, updated in place by :func:`_greedy_step`.

    ``live`` is the (K, d, d) 0/1 float64 adjacency, right among the vertices ``alive``: an eliminated vertex's edges
    are left in place (clearing a column of every graph was a sixth of the check's time on wide tables), so a reader
    masks them out. ``counts[k, v, s]`` counts v's live neighbours of log size ``sizes[s]``, so a vertex's min-size
    weight is its own log size plus ``counts @ sizes``: O(K d S) a step for S distinct sizes, where summing the
    adjacency's rows was O(K d^2) (most of a 200-column release's time). The weight is then a function of the
    multiset of neighbour sizes alone, so two vertices with equal multisets tie exactly. ``logs`` (and ``kind``,
    each vertex's index into ``sizes``) is (d,), or (K, d) where each graph numbers its own vertices
    (:func:`_resumed_cells`).

    For min-fill, ``degree`` and ``triangles`` (K, d) int64 hold each alive vertex's live neighbours and the edges
    among them (the triangles through it), set at the start and kept up to date through each step
    (:func:`_update_fill_counts`): O(K d s^2) a step for a vertex of s neighbours, where recounting them was O(K m^3)
    for m vertices alive (most of the cap check's time at 200 columns). Whole numbers either way, so the order is
    the same."""

    logs: np.ndarray
    kind: np.ndarray
    sizes: np.ndarray
    live: np.ndarray
    alive: np.ndarray
    counts: np.ndarray
    degree: np.ndarray | None = None
    triangles: np.ndarray | None = None

    @staticmethod
    def start(logs: np.ndarray, live: np.ndarray, alive: np.ndarray, sizes: np.ndarray | None = None) -> _Graphs:
        """The state for graphs ``live`` (float64, diagonal 0); ``sizes``: the distinct log sizes, where ``logs`` holds
        only some of them (a resumed graph's own vertices). Min-fill's counts are the caller's to set."""
        sizes = np.unique(logs) if sizes is None else sizes
        kind = np.searchsorted(sizes, logs)
        one_hot = (kind[..., None] == np.arange(len(sizes))).astype(np.float64)
        return _Graphs(logs, kind, sizes, live, alive, live @ one_hot)  # exact: sums of 0/1 below 2^53

    def first(self, n: int) -> _Graphs:
        """The first n graphs (views: a step on them updates these)."""
        logs, kind = (self.logs, self.kind) if self.logs.ndim == 1 else (self.logs[:n], self.kind[:n])
        degree, triangles = (None, None) if self.degree is None else (self.degree[:n], self.triangles[:n])
        return _Graphs(logs, kind, self.sizes, self.live[:n], self.alive[:n], self.counts[:n], degree, triangles)

    def log_cells(self) -> np.ndarray:
        """(K, d): each vertex's log size plus its live neighbours' (the log cells of its elimination clique). Where
        every vertex has one size (genotype or binary columns) ``counts @ sizes`` is a one-term sum, whose value is
        the product's rounding, so the elementwise product gives the same bits in a third of the time (the cap check
        on 100 and 200 ternary columns near the cap: 1.08x faster, benchmarks/bench_cap_check.py)."""
        if self.sizes.size == 1:
            return self.logs + self.counts[..., 0] * self.sizes[0]
        return self.logs + self.counts @ self.sizes


def _greedy_step(graphs: _Graphs, criterion: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One step of :func:`_eliminate_greedy` on K graphs: (the vertex eliminated, its elimination clique, the clique's
    log cells), an empty clique for a graph with no vertex left. Updates ``graphs`` in place."""
    live, alive = graphs.live, graphs.alive
    k, d = alive.shape
    rows = np.arange(k)
    log_cells = graphs.log_cells()
    weight = np.round(log_cells, 9)
    if criterion == "min-fill":
        degree, edges = graphs.degree, graphs.triangles
        fill = degree * (degree - 1) // 2 - edges
        fill = np.where(alive, fill, np.iinfo(np.int64).max)
        weight = np.where(fill == fill.min(axis=1, keepdims=True), weight, np.inf)
    weight = np.where(alive, weight, np.inf)
    best = np.argmin(weight, axis=1)
    log_cells = log_cells[rows, best]
    neighbours = (live[rows, best] > 0) & alive  # (k, d)
    clique = neighbours.copy()
    clique[rows, best] = alive[rows, best]
    if graphs.degree is not None:
        _update_fill_counts(graphs, best, neighbours)  # from the graphs before their fill-in
    # Fill-in: each graph's neighbours of the vertex become a clique. Pairs listed, not a (k, d, d) mask: a
    # few neighbours each.
    graph, vertex = np.nonzero(neighbours)
    gone = graphs.kind[best] if graphs.kind.ndim == 1 else graphs.kind[rows, best]
    graphs.counts[graph, vertex, gone[graph]] -= 1.0  # each neighbour loses the vertex (one entry each)
    size = np.bincount(graph, minlength=k)[graph]  # the neighbours of its graph, for each neighbour
    first = np.searchsorted(graph, graph)  # where its graph's neighbours start
    left = np.repeat(np.arange(len(vertex)), size)
    right = np.repeat(first, size) + np.arange(len(left)) - np.repeat(np.cumsum(size) - size, size)
    new = (left != right) & (live[graph[left], vertex[left], vertex[right]] == 0.0)  # the edges fill-in adds
    left, right = left[new], right[new]
    added = graphs.kind[vertex[right]] if graphs.kind.ndim == 1 else graphs.kind[graph[right], vertex[right]]
    np.add.at(graphs.counts, (graph[left], vertex[left], added), 1.0)
    live[graph[left], vertex[left], vertex[right]] = 1.0
    alive[rows, best] = False
    return best, clique, log_cells


def _update_fill_counts(graphs: _Graphs, best: np.ndarray, neighbours: np.ndarray) -> None:
    """Bring ``graphs.degree`` and ``graphs.triangles`` from before eliminating vertex ``best`` of each graph (whose
    alive neighbours are ``neighbours``, (K, d)) to after: the vertex gone, its neighbours made a clique. The
    vertex's removal takes from each neighbour w one neighbour and the triangles it closed (|N(w) & S| for the
    neighbours S); the fill-in then adds what :func:`_joining_counts` counts."""
    live, alive = graphs.live, graphs.alive
    k, d = alive.shape
    rows = np.arange(k)
    members, valid = _listed(neighbours)
    if members.shape[1] == 0:
        return
    left = alive.copy()
    left[rows, best] = False  # the vertices alive after the step
    rows_of_s = live[rows[:, None], members] * left[:, None, :] * valid[:, :, None]  # (k, s, d): their rows
    triangles, gained, joined = _joining_counts(rows_of_s, members, valid)
    graph, slot = np.nonzero(valid)
    vertex = members[graph, slot]
    graphs.triangles += triangles
    graphs.triangles[graph, vertex] -= joined[graph, slot]
    graphs.degree[graph, vertex] += gained[graph, slot] - 1


def _listed(mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(members, valid), both (K, s) for s the most set in a row of ``mask`` (K, d): each row's set vertices in
    index order, padded with 0 where ``valid`` is False."""
    size = np.count_nonzero(mask, axis=1)
    width = int(size.max(initial=0))
    valid = np.arange(width)[None, :] < size[:, None]
    return np.where(valid, np.argsort(~mask, axis=1, kind="stable")[:, :width], 0), valid


def _joining_counts(rows_of_s: np.ndarray, members: np.ndarray, valid: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What making each graph's vertex set S a clique adds to min-fill's counts, given A0's rows at S
    (``rows_of_s`` (K, s, d) 0/1, zero at the vertices not counted): (the triangles through each vertex, (K, d);
    the edges each member of S gains, (K, s); each member's neighbours in S before, (K, s)), int64.

    With F the edges added (the pairs of S not yet joined), the triangles through w in A0 + F are half of
    ((A0 + F)^3)_ww, so the fill-in adds half of 2(A0 A0 F)_ww + (A0 F A0)_ww + 2(A0 F F)_ww + (F A0 F)_ww +
    (F^3)_ww. F is zero outside S x S, so every term is a product of (s, d) or (s, s) matrices: O(K d s^2), where
    recounting from the graphs was O(K d^3). All counts are whole numbers below 2^53, exact in float64."""
    width = members.shape[1]
    within = np.take_along_axis(rows_of_s, members[:, None, :], axis=2) * valid[:, None, :]  # (k, s, s): A0 on S
    pair = valid[:, :, None] & valid[:, None, :] & ~np.eye(width, dtype=bool)[None]
    fill = (pair & (within == 0.0)).astype(np.float64)  # F on S
    common = rows_of_s @ rows_of_s.transpose(0, 2, 1)  # (A0 A0) on S x S
    doubled = (rows_of_s * (fill @ rows_of_s)).sum(axis=1)  # (A0 F A0)_ww, every w
    on_s = (2.0 * (common * fill).sum(axis=2) + 2.0 * ((within @ fill) * fill).sum(axis=2)
            + ((fill @ within) * fill).sum(axis=2) + ((fill @ fill) * fill).sum(axis=2))
    graph, slot = np.nonzero(valid)
    doubled[graph, members[graph, slot]] += on_s[graph, slot]
    return (np.rint(doubled).astype(np.int64) // 2, np.rint(fill.sum(axis=2)).astype(np.int64),
            np.rint(within.sum(axis=2)).astype(np.int64))


def _neighbour_edges(live: np.ndarray, alive: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(K, d) int64: each vertex's live neighbours among the vertices alive, and the edges among them (the
    triangles through it; read only where the vertex is alive). Counts of at most d^2 are exact in a float matmul,
    which is BLAS's (numpy's int64 matmul is a plain loop, 5x slower). Counted once per elimination: each step
    then updates them (:func:`_update_fill_counts`)."""
    a = (live * alive[:, None, :]).astype(_count_dtype(alive.shape[1]))  # the edges among the vertices alive
    degree = np.count_nonzero(a, axis=2)
    return degree, np.rint((a * (a @ a)).sum(axis=2)).astype(np.int64) // 2


def _criterion_cells(logs: np.ndarray, adjacency: np.ndarray, criterion: str,
                     fill_counts: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, tuple]:
    """Per graph: total cells (float64; exact below 2^53) of one greedy triangulation, and its parts."""
    orders, cliques = _eliminate_greedy(logs, adjacency, criterion, fill_counts)
    keep = _maximal_in_order(cliques, orders)
    cells = np.where(cliques, np.exp(logs)[None, None, :], 1.0).prod(axis=2)
    return np.where(keep, np.rint(cells), 0.0).sum(axis=1), (orders, cliques, keep)


def _tree_cells(logs: np.ndarray, adjacency: np.ndarray) -> tuple[np.ndarray, list]:
    """Per graph: total cells (float64; exact below 2^53) of the better greedy triangulation, and its parts."""
    best_total, best_parts = None, None
    for criterion in ("min-size", "min-fill"):
        total, (orders, cliques, keep) = _criterion_cells(logs, adjacency, criterion)
        if best_total is None:
            best_total, best_parts = total, [(orders, cliques, keep)] * len(total)
        else:
            better = total < best_total
            best_total = np.where(better, total, best_total)
            best_parts = [(orders, cliques, keep) if b else p for b, p in zip(better, best_parts)]
    return best_total, best_parts


def _adjacency(domain: Domain, cliques: Iterable[Clique]) -> np.ndarray:
    d = len(domain)
    adj = np.zeros((d, d), dtype=bool)
    for clique in cliques:
        axes = list(domain.axes(clique))
        adj[np.ix_(axes, axes)] = True
    adj[np.arange(d), np.arange(d)] = False
    return adj


def _logs(domain: Domain) -> np.ndarray:
    return np.log(np.array(domain.sizes, dtype=np.float64))


def candidate_cells(domain: Domain, cliques: Iterable[Clique], candidates: Sequence[Clique]) -> np.ndarray:
    """Total junction-tree cells of the model on ``cliques`` plus each candidate in turn (one batch).

    The same triangulation as :meth:`JunctionTree.build` (float64 totals, exact below 2^53).
    """
    if not candidates:
        return np.zeros(0)
    return _tree_cells(_logs(domain), _candidate_graphs(domain, cliques, candidates))[0]


def candidates_fit(domain: Domain, cliques: Iterable[Clique], candidates: Sequence[Clique], cap: int) -> np.ndarray:
    """Whether the model on ``cliques`` plus each candidate in turn triangulates within ``cap`` cells: exactly
    ``candidate_cells(...) <= cap``, with min-fill run only where min-size's tree is over the cap (the tree built
    is the smaller of the two, so a min-size tree within the cap settles it). Min-fill's neighbour-edge counts
    are most of the check's time on wide tables, and far from the cap no candidate needs them. The min-size
    trees share one elimination of the model's graph (:func:`_min_size_cells`)."""
    if not candidates:
        return np.zeros(0, dtype=bool)
    logs, cliques = _logs(domain), list(cliques)
    members = np.zeros((len(candidates), len(domain)), dtype=bool)
    for i, c in enumerate(candidates):
        members[i, list(domain.axes(c))] = True
    base = _adjacency(domain, cliques)
    fits = _min_size_cells(logs, base, members) <= cap
    over = np.flatnonzero(~fits)
    if over.size:
        base_counts = _neighbour_edges(base[None].astype(np.float64), np.ones((1, len(domain)), dtype=bool))
    rows = _chunk_rows(len(domain))
    for chunk in (over[i:i + rows] for i in range(0, over.size, rows)):
        batch = _candidate_graphs(domain, cliques, [candidates[i] for i in chunk])
        counts = _candidate_fill_counts(base, base_counts, members[chunk])
        fits[chunk] = _criterion_cells(logs, batch, "min-fill", counts)[0] <= cap
    return fits


def _candidate_fill_counts(base: np.ndarray, base_counts: tuple[np.ndarray, np.ndarray], members: np.ndarray
                           ) -> tuple[np.ndarray, np.ndarray]:
    """Min-fill's starting (degree, triangles) for graph ``base`` (d, d) plus a clique on each row of ``members``
    (K, d), from the base's own counts (1, d) and :func:`_joining_counts`: one d^3 count, where counting each
    candidate graph afresh was K of them (a third of the check's time at 200 columns)."""
    listed, valid = _listed(members)
    degree = np.repeat(base_counts[0], len(members), axis=0)
    if listed.shape[1] == 0:
        return degree, np.repeat(base_counts[1], len(members), axis=0)
    triangles, gained, _ = _joining_counts(base[listed].astype(np.float64) * valid[:, :, None], listed, valid)
    graph, slot = np.nonzero(valid)
    degree[graph, listed[graph, slot]] += gained[graph, slot]
    return degree, base_counts[1] + triangles


def _components(adjacency: np.ndarray) -> np.ndarray:
    """Each vertex's connected component in one (d, d) graph, labelled by its lowest vertex."""
    d = len(adjacency)
    label = np.full(d, -1)
    for v in range(d):
        if label[v] < 0:
            reached = frontier = np.eye(1, d, v, dtype=bool)[0]
            while frontier.any():
                frontier = adjacency[frontier].any(axis=0) & ~reached
                reached = reached | frontier
            label[reached] = v
    return label


def _maximal_in_order(cliques: np.ndarray, eliminated: np.ndarray) -> np.ndarray:
    """(K, steps) mask of the elimination cliques that are maximal, from the order alone: O(K d^2), where a pairwise
    subset test is O(K d^3). ``eliminated[k, s]`` is the vertex whose clique is ``cliques[k, s]`` (-1 where that is
    empty).

    An elimination order is a perfect elimination order of the graph with its fill-in, and there the clique of
    v (v and its neighbours eliminated later) is maximal unless some vertex u whose first-eliminated later
    neighbour is v has a clique one larger (Blair & Peyton 1993, *An introduction to chordal graphs and clique
    trees*, Sec. 4.2). A clique holds only vertices eliminated later, so it never repeats one.
    """
    k, steps, d = cliques.shape
    size = np.count_nonzero(cliques, axis=2)
    graph, step = np.nonzero(eliminated >= 0)
    vertex = eliminated[graph, step]
    position = np.full((k, d), steps, dtype=np.int16 if steps < 2 ** 15 else np.int64)
    position[graph, vertex] = step
    later = np.where(cliques, position[:, None, :], steps)
    later[graph, step, vertex] = steps
    parent = later.min(axis=2)  # the step of each clique's first-eliminated later neighbour (steps: none)
    graph, step = np.nonzero(parent < steps)
    first = parent[graph, step]
    larger = size[graph, step] == size[graph, first] + 1
    keep = size > 0
    keep[graph[larger], first[larger]] = False
    return keep


def _kept_cells(logs: np.ndarray, cliques: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """(K, steps): the cells of each clique kept, else 0 (whole numbers below 2^53). ``logs`` as in
    :func:`_greedy_step`: (d,), or (K, d) per graph."""
    cells = np.zeros(keep.shape)
    sizes = np.exp(logs)[None, :] if logs.ndim == 1 else np.exp(logs)[np.nonzero(keep)[0]]
    cells[keep] = np.rint(np.where(cliques[keep], sizes, 1.0).prod(axis=1))
    return cells


def _min_size_cells(logs: np.ndarray, base: np.ndarray, members: np.ndarray) -> np.ndarray:
    """The min-size tree cells of graph ``base`` (d, d) plus a clique on each row of ``members`` (K, d): the totals
    ``_criterion_cells(logs, graphs, "min-size")`` gives (exact below 2^53), most of each elimination shared.

    Checking every candidate of a wide table from scratch was most of a round's time. Two facts let each candidate
    graph H start from the base graph's own elimination, which runs once:

    - Until it eliminates an attribute of the candidate, the base's greedy order is H's: the added edges only raise
      those attributes' clique sizes, and every other vertex has the same neighbours (same clique, same fill-in).
      So H's elimination resumes from the base's state at that step.
    - Greedy elimination takes each connected component's vertices in the order it would take them alone (a
      clique and its fill-in stay in one component). The components the candidate does not touch keep their base
      cells, and the resumed run eliminates only the touched ones.

    Each resumed graph holds only its joined components' vertices (:func:`_resumed_cells`), numbered in index order.
    A weight is the same float there as from scratch: it comes from the vertex's neighbour counts by size
    (:class:`_Graphs`), not from a sum over a row whose length the numbering changes; so ties break by the lowest
    index as from scratch (tested against from-scratch cells and the plain one-vertex-at-a-time elimination, ties
    and all). The candidates run in chunks of :func:`_chunk_rows` graphs (sized for
    d x d, the most one can need): all 4,950 pairs of a 100-column table at once held 0.4 GB as d x d graphs.
    """
    k, d = members.shape
    graphs = _Graphs.start(logs, base[None].astype(np.float64), np.ones((1, d), dtype=bool))
    order, base_cliques, states = np.zeros(d, dtype=np.intp), np.zeros((1, d, d), dtype=bool), []
    for step in range(d):
        # the base's edges among the vertices left before this step
        states.append((graphs.live[0] > 0) & graphs.alive[0][:, None] & graphs.alive[0][None, :])
        best, base_cliques[:, step], _ = _greedy_step(graphs, "min-size")
        order[step] = best[0]
    states.append(np.zeros((d, d), dtype=bool))  # and after the last (where a candidate of no attribute starts)
    step_cells = _kept_cells(logs, base_cliques, np.ones((1, d), dtype=bool))[0]  # every step's clique, exactly
    base_cells = np.where(_maximal_in_order(base_cliques, order[None])[0], step_cells, 0.0)
    label = _components(base)
    part = np.zeros(d)
    np.add.at(part, label[order], base_cells)  # each component's cells
    stacked = np.stack(states)
    rows = _chunk_rows(d)
    return np.concatenate([_resumed_cells(logs, members[i:i + rows], order, base_cliques, step_cells, stacked, label,
                                          part)
                           for i in range(0, k, rows)] or [np.zeros(0)])


def _chunk_rows(d: int) -> int:
    """How many d x d candidate graphs one batch holds: about 2^25 float64 cells (256 MB) in all."""
    return max(1, 2 ** 25 // (d * d))


def _resumed_cells(logs: np.ndarray, members: np.ndarray, order: np.ndarray, base_cliques: np.ndarray,
                   base_step_cells: np.ndarray, states: np.ndarray, label: np.ndarray, part: np.ndarray) -> np.ndarray:
    """:func:`_min_size_cells` for one chunk of candidates, given the base graph's elimination: its ``order``,
    cliques and their cells, edge ``states`` before each step, component ``label`` of each vertex and cells per
    component.

    Each candidate graph is held on the vertices of the components it joins only, numbered in index order (so the
    lowest index still breaks ties): a pair of two small components is a few vertices, not d, and the run's cost
    follows the components, not the table's width (at 200 columns the d x d graphs were most of a release's time).
    """
    k, d = members.shape
    touched = np.zeros((k, d), dtype=bool)  # touched[i, c]: candidate i joins component c
    graph, vertex = np.nonzero(members)
    touched[graph, label[vertex]] = True
    untouched = np.where(touched, 0.0, part[None, :]).sum(axis=1)
    joined = touched[:, label]  # the vertices of the components each candidate joins
    size = np.count_nonzero(joined, axis=1)
    width = int(size.max(initial=0))
    if width == 0:
        return untouched
    position = np.argsort(order)
    start = np.where(members, position, d).min(axis=1)  # the step each candidate graph resumes from
    done = np.count_nonzero(joined & (position[None, :] < start[:, None]), axis=1)  # steps the base already took
    left = size - done
    # Sorted by steps left, the graphs still running are a prefix.
    by_left = np.argsort(-left, kind="stable")
    members, joined, start, done, left = (members[by_left], joined[by_left], start[by_left], done[by_left],
                                          left[by_left])
    untouched, size = untouched[by_left], size[by_left]
    rows = np.arange(k)
    # vertex[i, c]: the vertex candidate i numbers c (joined vertices in index order; 0 past the end, not valid)
    vertex, valid = _listed(joined)
    pair = valid[:, :, None] & valid[:, None, :]
    inside = members[rows[:, None], vertex]
    groups = _same_rows(joined)
    live = (_submatrices(states, start, vertex, size, groups) | (inside[:, :, None] & inside[:, None, :])) & pair
    live = live.astype(np.float64)
    live[:, np.arange(width), np.arange(width)] = 0.0
    alive = valid & (position[vertex] >= start[:, None])
    own_logs = np.where(valid, logs[vertex], 0.0)
    # The joined components' cliques, in elimination order: the base's before the start, then the resumed run's.
    number = np.full((k, d), -1)
    number[rows[:, None].repeat(width, 1)[valid], vertex[valid]] = np.nonzero(valid)[1]
    taken = np.where(valid, position[vertex], d)
    first_steps = np.sort(taken, axis=1)  # the base steps of each candidate's joined vertices, in order
    prefix = np.arange(width)[None, :] < done[:, None]
    step_vertex = np.where(prefix, order[np.minimum(first_steps, d - 1)], 0)
    cliques = _submatrices(base_cliques[0], np.where(prefix, first_steps, 0), vertex, size, groups)
    cliques &= prefix[:, :, None]
    cliques &= valid[:, None, :]
    eliminated = np.where(prefix, number[rows[:, None], step_vertex], -1)
    cells = np.where(prefix, base_step_cells[np.minimum(first_steps, d - 1)], 0.0)
    graphs = _Graphs.start(own_logs, live, alive, sizes=np.unique(logs))
    for j in range(int(left.max(initial=0))):
        n = int(np.count_nonzero(left > j))
        best, clique, log_cells = _greedy_step(graphs.first(n), "min-size")
        steps = done[:n] + j
        cliques[np.arange(n), steps] = clique
        eliminated[np.arange(n), steps] = best
        cells[np.arange(n), steps] = _whole_cells(log_cells, clique, own_logs[:n])
    totals = np.empty(k)
    totals[by_left] = untouched + np.where(_maximal_in_order(cliques, eliminated), cells, 0.0).sum(1)
    return totals


def _submatrices(matrices: np.ndarray, which: np.ndarray, vertex: np.ndarray, size: np.ndarray,
                 groups: list[np.ndarray]) -> np.ndarray:
    """(K, w, w) from ``vertex`` (K, w), whose first ``size`` entries are valid: with ``matrices`` (M, d, d) and
    ``which`` (K,), ``matrices[which[i]]``'s rows and columns at ``vertex[i]``; with ``matrices`` (M, d) and
    ``which`` (K, w), rows ``matrices[which[i]]`` and their columns at ``vertex[i]``. Zero past ``size``.

    ``groups`` lists the candidates that share their vertices (they join the same components): each group is
    gathered together, each axis by one list, where a gather by three index arrays, one element at a time, was a
    sixth of the check's time on wide tables."""
    k, width = vertex.shape
    out = np.zeros((k, width, width), dtype=matrices.dtype)
    for rows in groups:
        chosen = vertex[rows[0], :size[rows[0]]]
        if matrices.ndim == 2:
            out[rows, :, :len(chosen)] = np.take(matrices[which[rows]], chosen, axis=2)
        else:
            out[rows, :len(chosen), :len(chosen)] = np.take(np.take(matrices[which[rows]], chosen, axis=1), chosen,
                                                            axis=2)
    return out


def _same_rows(mask: np.ndarray) -> list[np.ndarray]:
    """The row indices of each distinct row of boolean ``mask`` (K, d), in groups."""
    packed = np.ascontiguousarray(np.packbits(mask, axis=1))
    keys = packed.view(np.dtype((np.void, packed.shape[1])))[:, 0]
    group = np.unique(keys, return_inverse=True)[1].reshape(-1)
    order = np.argsort(group, kind="stable")
    return np.split(order, np.flatnonzero(np.diff(group[order])) + 1)


#: Below this many cells a clique's cells are rint(exp(log cells)): the float sum of at most d log sizes errs by
#: under 1e-11 even with thousands of terms, so exp errs by under 0.05 cells there (rint exact); above it, the product.
EXACT_FROM_LOGS = 2.0 ** 32


def _whole_cells(log_cells: np.ndarray, cliques: np.ndarray, logs: np.ndarray) -> np.ndarray:
    """The cells of K cliques (whole numbers, exact below 2^53) from their log cells, as :func:`_kept_cells` gives
    them: a product over each clique's d attributes was most of the check's time on wide tables."""
    cells = np.rint(np.exp(log_cells))
    large = cells >= EXACT_FROM_LOGS
    if large.any():
        cells[large] = np.rint(np.where(cliques[large], np.exp(logs[large]), 1.0).prod(axis=1))
    return cells


def _candidate_graphs(domain: Domain, cliques: Iterable[Clique], candidates: Sequence[Clique]) -> np.ndarray:
    """(K, d, d) adjacency: the model's graph plus each candidate's edges in turn."""
    batch = np.repeat(_adjacency(domain, cliques)[None], len(candidates), axis=0)
    for i, c in enumerate(candidates):
        axes = list(domain.axes(c))
        batch[i][np.ix_(axes, axes)] = True
        batch[i][axes, axes] = False
    return batch


@dataclass(frozen=True, eq=False)
class JunctionTree:
    """A junction tree for the cliques of a log-linear model, rooted at its largest clique.

    Attributes:
        domain: the public domain.
        cliques: the tree's (maximal) cliques, attributes in domain order.
        parent: parent index of each clique (-1 for the root).
        order: clique indices parents-first (breadth-first from the root).
        separators: each clique's separator with its parent (``()`` for the root).
        elimination: the elimination order that produced the tree.
        kids: each clique's children.
    """

    domain: Domain
    cliques: tuple[Clique, ...]
    parent: tuple[int, ...]
    order: tuple[int, ...]
    separators: tuple[Clique, ...]
    elimination: tuple[str, ...]
    kids: tuple[tuple[int, ...], ...]

    @staticmethod
    def build(domain: Domain, cliques: Iterable[Sequence[str]]) -> JunctionTree:
        """The tree for ``cliques`` (cached: the structure depends only on the public clique set)."""
        return _build(domain, frozenset(domain.canonical(c) for c in cliques))

    # ------------------------------------------------------------------ sizes
    @cached_property
    def _cell_counts(self) -> tuple[int, ...]:
        return tuple(math.prod(self.domain.size_of(a) for a in clique) for clique in self.cliques)

    @cached_property
    def _clique_sets(self) -> tuple[frozenset[str], ...]:
        return tuple(frozenset(clique) for clique in self.cliques)

    @cached_property
    def _holding(self) -> dict[str, list[int]]:
        """Each attribute's tree cliques."""
        holding: dict[str, list[int]] = {}
        for i, clique in enumerate(self.cliques):
            for a in clique:
                holding.setdefault(a, []).append(i)
        return holding

    @cached_property
    def _position(self) -> dict[int, int]:
        """Each clique's place in :attr:`order`."""
        return {i: k for k, i in enumerate(self.order)}

    @cached_property
    def _containing(self) -> dict[frozenset[str], int | None]:
        return {}  # attributes -> :meth:`containing`'s answer: a fit asks the same few thousand times

    @cached_property
    def part(self) -> tuple[int, ...]:
        """Each clique's part of the tree, labelled by its top clique: the cliques of one connected component of the
        model's graph, which non-empty separators join (an empty separator joins independent parts)."""
        label = [-1] * len(self.cliques)
        for i in self.order:  # parents first
            p = self.parent[i]
            label[i] = label[p] if p != -1 and self.separators[i] else i
        return tuple(label)

    def cells(self, index: int) -> int:
        return self._cell_counts[index]

    @property
    def total_cells(self) -> int:
        """Cells of all tree cliques together (the model's memory, in float64s per copy)."""
        return sum(self.cells(i) for i in range(len(self.cliques)))

    @property
    def largest_cells(self) -> int:
        return max(self.cells(i) for i in range(len(self.cliques)))

    # -------------------------------------------------------------- navigation
    def containing(self, attributes: Iterable[str]) -> int | None:
        """The smallest tree clique holding every attribute given, or None."""
        wanted = frozenset(attributes)
        if wanted not in self._containing:
            best, cells = None, self._cell_counts
            # A holder holds any one wanted attribute: its list (in index order) is all the search needs.
            pool = self._holding.get(next(iter(wanted)), []) if wanted else range(len(self.cliques))
            for i in pool:
                if wanted <= self._clique_sets[i] and (best is None or cells[i] < cells[best]):
                    best = i
            self._containing[wanted] = best
        return self._containing[wanted]

    def steiner(self, attributes: Iterable[str]) -> tuple[int, list[int]]:
        """(top, nodes): a small connected subtree whose cliques cover ``attributes``, parents first.

        Cliques are chosen greedily (:meth:`steiner_picks`); the subtree is the union of their paths to their
        lowest common ancestor ``top``.
        """
        chosen = self.steiner_picks(attributes)
        nodes: set[int] = set()
        for i in chosen:
            while i != -1 and i not in nodes:
                nodes.add(i)
                i = self.parent[i]
        top = self.order[0]
        while top not in chosen:
            below = [c for c in self.kids[top] if c in nodes]
            if len(below) != 1:
                break
            nodes.discard(top)
            top = below[0]
        return top, sorted(nodes, key=self._position.__getitem__)

    def steiner_picks(self, attributes: Iterable[str]) -> set[int]:
        """The cliques :meth:`steiner` joins: greedily the most uncovered attributes, then the fewest cells."""
        needed = set(attributes)
        chosen: set[int] = set()
        while needed:
            # Only a clique holding a needed attribute can win (the keys differ, so any pool holding the best
            # gives the same pick); MWEM asks for thousands of candidates' subtrees a round.
            pool = {i for a in needed for i in self._holding[a]}
            best = max(pool, key=lambda i: (len(needed & self._clique_sets[i]), -self._cell_counts[i], -i))
            chosen.add(best)
            needed -= self._clique_sets[best]
        return chosen


@lru_cache(maxsize=256)
def _build(domain: Domain, cliques: frozenset[Clique]) -> JunctionTree:
    _, parts = _tree_cells(_logs(domain), _adjacency(domain, cliques)[None])
    orders, elimination, keep = parts[0]
    order_attrs = [int(v) for v in orders[0]]
    maximal = [frozenset(int(a) for a in np.nonzero(elimination[0, i])[0])
               for i in range(len(domain)) if keep[0, i]]
    maximal.sort(key=lambda c: (-len(c), sorted(c)))
    tree_cliques = [tuple(domain.attributes[a] for a in sorted(c)) for c in maximal]
    sets = [set(c) for c in maximal]
    # Kruskal: maximum spanning tree on |Ci ∩ Cj| (edges of weight 0 join independent parts).
    edges = sorted(((len(sets[i] & sets[j]), i, j) for i in range(len(sets)) for j in range(i + 1, len(sets))),
                   key=lambda e: (-e[0], e[1], e[2]))
    group = list(range(len(sets)))

    def find(i: int) -> int:
        while group[i] != i:
            group[i] = group[group[i]]
            i = group[i]
        return i

    neighbours: list[list[int]] = [[] for _ in sets]
    for _, i, j in edges:
        ri, rj = find(i), find(j)
        if ri != rj:
            group[ri] = rj
            neighbours[i].append(j)
            neighbours[j].append(i)
    sizes = [math.prod(domain.sizes[a] for a in c) for c in maximal]
    root = max(range(len(sets)), key=lambda i: (sizes[i], -i))
    parent = [-1] * len(sets)
    order = [root]
    placed = {root}
    for i in order:  # breadth-first
        for j in sorted(neighbours[i]):
            if j not in placed:
                parent[j] = i
                order.append(j)
                placed.add(j)
    separators = tuple(() if parent[i] == -1 else tuple(a for a in tree_cliques[i] if a in tree_cliques[parent[i]])
                       for i in range(len(sets)))
    kids = tuple(tuple(j for j in order if parent[j] == i) for i in range(len(sets)))
    return JunctionTree(domain, tuple(tree_cliques), tuple(parent), tuple(order), separators,
                        tuple(domain.attributes[v] for v in order_attrs), kids)


# ---------------------------------------------------------------------- arrays over attribute sets
def expand(attributes: Clique, array: np.ndarray, target: Clique) -> np.ndarray:
    """View ``array`` (over ``attributes``, domain order) broadcastable over ``target`` (domain order)."""
    if attributes == target:
        return array
    present = set(attributes)
    return array.reshape([array.shape[attributes.index(a)] if a in present else 1 for a in target])


def log_sum_to(log_array: np.ndarray, attributes: Clique, kept: Clique) -> np.ndarray:
    """log sum exp of ``log_array`` over the attributes not in ``kept`` (shifted by the maximum: no underflow)."""
    axes = tuple(i for i, a in enumerate(attributes) if a not in kept)
    if not axes:
        return log_array
    peak = log_array.max(axis=axes, keepdims=True)
    total = np.exp(log_array - peak).sum(axis=axes)
    return np.log(total) + peak.reshape(total.shape)


def _summed_out(attributes: Clique, array: np.ndarray, drop: set[str]) -> tuple[Clique, np.ndarray]:
    """``array`` (over ``attributes``) summed over the attributes in ``drop``, with the attributes left."""
    summed = [i for i, a in enumerate(attributes) if a in drop]
    if not summed:
        return attributes, array
    kept = [i for i, a in enumerate(attributes) if a not in drop]
    shape = [array.shape[i] for i in kept]
    return tuple(attributes[i] for i in kept), row_sums(array, kept + summed, math.prod(shape), shape)


def sum_to(array: np.ndarray, attributes: Clique, kept: Clique) -> np.ndarray:
    """``array`` (over ``attributes``) summed over the attributes not in ``kept`` (itself when none is summed)."""
    return _summed_out(attributes, array, {a for a in attributes if a not in kept})[1]


def _log_beliefs(tree: JunctionTree, factors: Sequence[tuple[Clique, np.ndarray]]) -> list[np.ndarray]:
    """Each tree clique's sum of the log factors it is home to (fresh arrays)."""
    domain = tree.domain
    beliefs = [np.zeros([domain.size_of(a) for a in c]) for c in tree.cliques]
    for attributes, log_factor in factors:
        home = tree.containing(attributes)
        if home is None:
            raise ValueError(f"factor on {list(attributes)} lies in no junction-tree clique")
        beliefs[home] += expand(attributes, log_factor, tree.cliques[home])  # in place: beliefs are fresh arrays
    return beliefs


def ratio_or_zero(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0 (Hugin's convention 0 / 0 = 0)."""
    return np.divide(numerator, denominator, out=np.zeros_like(numerator), where=denominator > 0)


def calibrate(tree: JunctionTree, factors: Sequence[tuple[Clique, np.ndarray]]) -> tuple[list[np.ndarray], float]:
    """Exact marginals (probabilities) of every tree clique and log Z, for p ∝ exp(sum of the log ``factors``).

    Each factor's attributes must lie in some tree clique (true for the cliques the tree was built for).
    Messages pass in the probability domain: each clique's log potential is exponentiated once, shifted by
    its maximum, and every message is scaled by its own maximum, the shifts kept apart in logs; that is 2-3x
    faster than log-sum-exp messages (one exp a clique, not one per message). Values more than e^-745 below
    their clique's largest underflow to 0, which changes no probability that prints. Should a whole message
    underflow (a model peaked beyond that), the same algorithm runs in the log domain
    (:func:`calibrate_log`), which nothing underflows.
    """
    beliefs = _log_beliefs(tree, factors)
    shifts = [float(b.max()) for b in beliefs]
    for belief, shift in zip(beliefs, shifts):
        belief -= shift
        np.exp(belief, out=belief)
    up: dict[int, np.ndarray] = {}
    # COLLECT: leaves to root; each message scaled to peak 1, its log scale added to the parent's shift.
    for i in reversed(tree.order):
        p = tree.parent[i]
        if p == -1:
            continue
        message = sum_to(beliefs[i], tree.cliques[i], tree.separators[i])
        peak = float(message.max())
        if not peak > 0 or not math.isfinite(peak):
            return calibrate_log(tree, factors)
        up[i] = message = message / peak
        shifts[p] += shifts[i] + math.log(peak)
        beliefs[p] *= expand(tree.separators[i], message, tree.cliques[p])
    root = tree.order[0]
    total = float(beliefs[root].sum())
    if not total > 0 or not math.isfinite(total):
        return calibrate_log(tree, factors)
    log_z = shifts[root] + math.log(total)
    beliefs[root] /= total
    # DISTRIBUTE: root to leaves; the parent's marginal divided by what the child sent up (Hugin). Each clique is
    # made a distribution (divided by its own sum) once calibrated, so no scale drifts down the tree.
    for i in tree.order:
        p = tree.parent[i]
        if p == -1:
            continue
        down = ratio_or_zero(sum_to(beliefs[p], tree.cliques[p], tree.separators[i]), up[i])
        beliefs[i] *= expand(tree.separators[i], down, tree.cliques[i])
        total = float(beliefs[i].sum())
        if not total > 0 or not math.isfinite(total):
            return calibrate_log(tree, factors)
        beliefs[i] /= total
    return beliefs, log_z


def calibrate_log(tree: JunctionTree, factors: Sequence[tuple[Clique, np.ndarray]]) -> tuple[list[np.ndarray], float]:
    """:func:`calibrate` in the log domain: log-sum-exp messages, each shifted by its own maximum, so nothing
    underflows however peaked the model; returns the same (probabilities, log Z)."""
    beliefs = _log_beliefs(tree, factors)
    up: dict[int, np.ndarray] = {}
    # COLLECT: leaves to root.
    for i in reversed(tree.order):
        p = tree.parent[i]
        if p == -1:
            continue
        up[i] = log_sum_to(beliefs[i], tree.cliques[i], tree.separators[i])
        beliefs[p] += expand(tree.separators[i], up[i], tree.cliques[p])
    # DISTRIBUTE: root to leaves; the parent's full belief divided by what the child sent up.
    for i in tree.order:
        p = tree.parent[i]
        if p == -1:
            continue
        down = log_sum_to(beliefs[p], tree.cliques[p], tree.separators[i]) - up[i]
        beliefs[i] += expand(tree.separators[i], down, tree.cliques[i])
    root = tree.order[0]
    peak = float(beliefs[root].max())
    log_z = peak + math.log(float(np.exp(beliefs[root] - peak).sum()))
    return [np.exp(belief - log_z) for belief in beliefs], log_z
