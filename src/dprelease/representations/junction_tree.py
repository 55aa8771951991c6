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
3. **Calibrate** by sum-product message passing in the log domain (collect to the root, then
   distribute; Hugin-style division at the separators), each message a log-sum-exp shifted
   by its own maximum, so nothing underflows however peaked the model. The result is every
   tree clique's exact log-marginal and log Z.

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

Clique = tuple[str, ...]


# ---------------------------------------------------------------------- structure
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
            a = live.astype(np.int64)
            degree = a.sum(axis=2)
            edges = (a * (a @ a)).sum(axis=2) // 2  # edges among each vertex's neighbours
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
    # inside[k, i, j]: clique i is a subset of clique j
    inside = ~(cliques[:, :, None, :] & ~cliques[:, None, :, :]).any(axis=3)
    equal = inside & inside.transpose(0, 2, 1)
    earlier = np.tril(np.ones((d, d), dtype=bool), -1)  # j < i
    strict = inside & ~equal
    dominated = (strict | (equal & earlier[None])).any(axis=2)
    return ~dominated


def _tree_cells(logs: np.ndarray, adjacency: np.ndarray) -> tuple[np.ndarray, list]:
    """Per graph: total cells (float64; exact below 2^53) of the better greedy triangulation, and its parts."""
    sizes = np.exp(logs)
    best_total, best_parts = None, None
    for criterion in ("min-size", "min-fill"):
        orders, cliques = _eliminate_greedy(logs, adjacency, criterion)
        keep = _maximal_mask(cliques)
        cells = np.where(cliques, sizes[None, None, :], 1.0).prod(axis=2)
        total = np.where(keep, np.rint(cells), 0.0).sum(axis=1)
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
    base = _adjacency(domain, cliques)
    if not candidates:
        return np.zeros(0)
    batch = np.repeat(base[None], len(candidates), axis=0)
    for i, c in enumerate(candidates):
        axes = list(domain.axes(c))
        batch[i][np.ix_(axes, axes)] = True
        batch[i][axes, axes] = False
    return _tree_cells(_logs(domain), batch)[0]


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


def contract(operands: Sequence[tuple[Clique, np.ndarray]], output: Clique) -> np.ndarray:
    """Sum over every attribute not in ``output`` of the product of the operands (numpy einsum)."""
    letters: dict[str, str] = {}
    for attributes, _ in operands:
        for a in attributes:
            letters.setdefault(a, _LETTERS[len(letters)] if len(letters) < len(_LETTERS) else None)
    if None in letters.values():
        raise ValueError(f"contraction over {len(letters)} attributes exceeds einsum's {len(_LETTERS)} labels")
    spec = ",".join("".join(letters[a] for a in attrs) for attrs, _ in operands)
    spec += "->" + "".join(letters[a] for a in output)
    return np.einsum(spec, *(array for _, array in operands), optimize=len(operands) > 2)


_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


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


def calibrate(tree: JunctionTree, factors: Sequence[tuple[Clique, np.ndarray]]) -> tuple[list[np.ndarray], float]:
    """Exact log-marginals of every tree clique and log Z, for p ∝ exp(sum of the log ``factors``).

    Each factor's attributes must lie in some tree clique (true for the cliques the tree was built for).
    """
    domain = tree.domain
    beliefs = [np.zeros([domain.size_of(a) for a in c]) for c in tree.cliques]
    for attributes, log_factor in factors:
        home = tree.containing(attributes)
        if home is None:
            raise ValueError(f"factor on {list(attributes)} lies in no junction-tree clique")
        beliefs[home] += expand(attributes, log_factor, tree.cliques[home])  # in place: beliefs are fresh arrays
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
    for belief in beliefs:
        belief -= log_z
    return beliefs, log_z
