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

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np

from dprelease.domain import Domain

Clique = tuple[str, ...]


# ---------------------------------------------------------------------- structure
def _count_dtype(d: int) -> type:
    """The float type whose matmul counts 0/1 products over d attributes exactly: every partial sum is a whole
    number at most d^2, exact in float32 up to 2^24 (d <= 4096), in float64 beyond."""
    return np.float32 if d * d <= 2 ** 24 else np.float64


def _eliminate_greedy(logs: np.ndarray, adjacency: np.ndarray, criterion: str) -> tuple[np.ndarray, np.ndarray]:
    """Greedy elimination of K graphs at once: (orders (K, d), elimination cliques (K, d, d) boolean).

    ``adjacency`` is (K, d, d) boolean; ``logs`` the log sizes of the d attributes. *min-size*
    eliminates the vertex whose clique (itself and its remaining neighbours) has the fewest cells;
    *min-fill* the one adding the fewest edges, ties by size; remaining ties by the lowest index.
    Vectorized over the K graphs: checking every candidate clique against the cap is one call.
    """
    k, d = adjacency.shape[0], adjacency.shape[1]
    adj = adjacency.copy()
    alive = np.ones((k, d), dtype=bool)
    orders = np.zeros((k, d), dtype=np.intp)
    cliques = np.zeros((k, d, d), dtype=bool)
    rows = np.arange(k)
    for step in range(d):
        live = adj & alive[:, None, :] & alive[:, :, None]
        weight = np.round(logs[None, :] + live.astype(np.float64) @ logs, 9)
        if criterion == "min-fill":
            # Counts of at most d^2 are exact in a float matmul, which is BLAS's (numpy's int64 matmul is a plain
            # loop: 5x slower, and most of a round's time on a 60-column table checking 1,830 candidates).
            a = live.astype(_count_dtype(d))
            degree = live.sum(axis=2, dtype=np.int64)
            edges = np.rint((a * (a @ a)).sum(axis=2)).astype(np.int64) // 2  # edges among each vertex's neighbours
            fill = degree * (degree - 1) // 2 - edges
            fill = np.where(alive, fill, np.iinfo(np.int64).max)
            weight = np.where(fill == fill.min(axis=1, keepdims=True), weight, np.inf)
        weight = np.where(alive, weight, np.inf)
        best = np.argmin(weight, axis=1)
        neighbours = live[rows, best]  # (k, d)
        orders[:, step] = best
        clique = neighbours.copy()
        clique[rows, best] = True
        cliques[:, step] = clique
        adj |= neighbours[:, :, None] & neighbours[:, None, :]  # fill-in
        adj[:, np.arange(d), np.arange(d)] = False
        alive[rows, best] = False
    return orders, cliques


def _maximal_mask(cliques: np.ndarray) -> np.ndarray:
    """(K, d) mask of the elimination cliques that are maximal (duplicates: the first one kept)."""
    k, d, _ = cliques.shape
    # inside[k, i, j]: clique i is a subset of clique j, i.e. |i & j| = |i| (exact counts, :func:`_count_dtype`; a
    # (K, d, d, d) boolean test took gigabytes on wide tables)
    members = cliques.astype(_count_dtype(d))
    shared = members @ members.transpose(0, 2, 1)
    inside = shared == members.sum(axis=2)[:, :, None]
    equal = inside & inside.transpose(0, 2, 1)
    earlier = np.tril(np.ones((d, d), dtype=bool), -1)  # j < i
    strict = inside & ~equal
    dominated = (strict | (equal & earlier[None])).any(axis=2)
    return ~dominated


def _criterion_cells(logs: np.ndarray, adjacency: np.ndarray, criterion: str) -> tuple[np.ndarray, tuple]:
    """Per graph: total cells (float64; exact below 2^53) of one greedy triangulation, and its parts."""
    orders, cliques = _eliminate_greedy(logs, adjacency, criterion)
    keep = _maximal_mask(cliques)
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
    are most of the check's time on wide tables, and far from the cap no candidate needs them."""
    if not candidates:
        return np.zeros(0, dtype=bool)
    logs, batch = _logs(domain), _candidate_graphs(domain, cliques, candidates)
    fits = _criterion_cells(logs, batch, "min-size")[0] <= cap
    over = np.flatnonzero(~fits)
    if over.size:
        fits[over] = _criterion_cells(logs, batch[over], "min-fill")[0] <= cap
    return fits


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
    def _containing(self) -> dict[frozenset[str], int | None]:
        return {}  # attributes -> :meth:`containing`'s answer: a fit asks the same few thousand times

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
            for i, clique in enumerate(self._clique_sets):
                if wanted <= clique and (best is None or cells[i] < cells[best]):
                    best = i
            self._containing[wanted] = best
        return self._containing[wanted]

    def steiner(self, attributes: Iterable[str]) -> tuple[int, list[int]]:
        """(top, nodes): a small connected subtree whose cliques cover ``attributes``, parents first.

        Cliques are chosen greedily (most uncovered attributes, then fewest cells); the subtree is the
        union of their paths to their lowest common ancestor ``top``.
        """
        needed = set(attributes)
        chosen: set[int] = set()
        while needed:
            best = max(range(len(self.cliques)),
                       key=lambda i: (len(needed & self._clique_sets[i]), -self._cell_counts[i], -i))
            chosen.add(best)
            needed -= self._clique_sets[best]
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
        return top, [i for i in self.order if i in nodes]


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
    # The kept axes first, contiguous, then one sum along each row: 3-5x faster than ndarray.sum over several
    # axes (whose inner loops run over a clique's short axes) on the cliques of a large model.
    rows = np.transpose(array, kept + summed).reshape(math.prod(shape), -1)
    return tuple(attributes[i] for i in kept), rows.sum(axis=1).reshape(shape)


def _contract_pair(x: tuple[Clique, np.ndarray], y: tuple[Clique, np.ndarray], keep: set[str]) -> tuple[Clique, np.ndarray]:
    """The product of two factors summed over their attributes not in ``keep``, as one batched matrix product.

    Attributes of both factors that are kept index the batch, those summed are the inner dimension, the rest the
    rows and columns: numpy's matmul (BLAS) runs it, 10-20x faster than einsum's loops on the junction tree's
    large cliques (full Adult's workload answers: 19 s -> 1 s).
    """
    (x_attrs, xa), (y_attrs, ya) = x, y
    x_attrs, xa = _summed_out(x_attrs, xa, {a for a in x_attrs if a not in y_attrs and a not in keep})
    y_attrs, ya = _summed_out(y_attrs, ya, {a for a in y_attrs if a not in x_attrs and a not in keep})
    batch = [a for a in x_attrs if a in y_attrs and a in keep]
    inner = [a for a in x_attrs if a in y_attrs and a not in keep]
    rows = [a for a in x_attrs if a not in y_attrs]
    columns = [a for a in y_attrs if a not in x_attrs]
    size = dict(zip(x_attrs, xa.shape)) | dict(zip(y_attrs, ya.shape))

    def block(attributes: Clique, array: np.ndarray, *groups: list[str]) -> np.ndarray:
        order = [attributes.index(a) for g in groups for a in g]
        return np.transpose(array, order).reshape([math.prod(size[a] for a in g) for g in groups])

    product = np.matmul(block(x_attrs, xa, batch, rows, inner), block(y_attrs, ya, batch, inner, columns))
    out = tuple(batch + rows + columns)
    return out, product.reshape([size[a] for a in out])


def contract(operands: Sequence[tuple[Clique, np.ndarray]], output: Clique) -> np.ndarray:
    """Sum over every attribute not in ``output`` of the product of the operands, axes in ``output``'s order.

    Two at a time (:func:`_contract_pair`), the pair whose product spans the fewest cells first; each attribute
    is summed out as soon as no other operand and not the output holds it.
    """
    operands = [(tuple(a), f) for a, f in operands]
    keep = set(output)
    while len(operands) > 1:
        best = None
        for i, j in itertools.combinations(range(len(operands)), 2):
            sizes: dict[str, int] = {}
            for attrs, array in (operands[i], operands[j]):
                sizes.update(zip(attrs, array.shape))
            cost = math.prod(sizes.values())
            if best is None or cost < best[0]:
                best = cost, i, j
        _, i, j = best
        rest = [o for k, o in enumerate(operands) if k not in (i, j)]
        elsewhere = {a for attrs, _ in rest for a in attrs}
        operands = rest + [_contract_pair(operands[i], operands[j], keep | elsewhere)]
    attributes, array = operands[0]
    attributes, array = _summed_out(attributes, array, {a for a in attributes if a not in keep})
    return np.transpose(array, [attributes.index(a) for a in output])


def eliminate(domain: Domain, factors: Sequence[tuple[Clique, np.ndarray]], output: Clique) -> np.ndarray:
    """Sum-product variable elimination: sum over every attribute not in ``output`` of the factors' product.

    Greedy order: each step eliminates the attribute whose factors span the fewest cells, together
    with every other non-output attribute found only in those factors. Factors are in the probability
    domain; ``output`` is in domain order.
    """
    keep = set(output)
    factors = [(tuple(a), f) for a, f in factors]

    def combine(group: list[tuple[Clique, np.ndarray]], others: list[tuple[Clique, np.ndarray]]):
        # Keep an attribute only if it is wanted or still used by another factor.
        elsewhere = {a for attrs, _ in others for a in attrs}
        inside = {a for attrs, _ in group for a in attrs}
        result = tuple(a for a in domain.attributes if a in inside and (a in keep or a in elsewhere))
        if len(group) == 1 and result == group[0][0]:
            return group[0]
        return result, contract(group, result)

    # Attributes private to one factor are summed out of it first.
    factors = [combine([f], factors[:i] + factors[i + 1:]) for i, f in enumerate(factors)]
    while True:
        present = {a for attrs, _ in factors for a in attrs} - keep
        if not present:
            break
        best, best_cost = None, None
        for a in sorted(present, key=domain.axis):
            scope = {b for attrs, _ in factors if a in attrs for b in attrs}
            cost = math.prod(domain.size_of(b) for b in scope)
            if best_cost is None or cost < best_cost:
                best, best_cost = a, cost
        group = [f for f in factors if best in f[0]]
        others = [f for f in factors if best not in f[0]]
        factors = others + [combine(group, others)]
    return contract(factors, output) if len(factors) > 1 or factors[0][0] != output else factors[0][1]


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
