"""A factored (log-linear) distribution over X: potentials on the attribute sets MW has touched.

Multiplicative weights on marginal queries keep the distribution log-linear: each update
log p <- log p - eta r adds a function r of the query's attributes only, so after updates on
attribute sets C_1, ..., C_k,

    p(x) = exp( sum_j theta_j(x_{C_j}) - log Z ).

:class:`FactoredModel` stores exactly the theta_j, so its memory follows the measured cliques,
not |X|: the full Adult table (6.4e17 cells) fits in a few megabytes. Marginals are exact
(junction-tree inference, :mod:`~dprelease.representations.junction_tree`); synthetic rows are
drawn through the tree. For the same potentials it is the same distribution as a
:class:`~dprelease.representations.histogram.HistogramModel` holding their sum (tests check
1e-9), so it is a drop-in wherever a model is only asked for marginals, rows or updates.

The model's size is fixed by public information alone, the cliques: :meth:`FactoredModel.model_size`
gives the junction tree's cells, and a model above ``max_model_cells`` is refused with a
:class:`~dprelease.errors.DomainTooLargeError` before anything is computed.

Everything here is post-processing: a model only ever sees public noisy answers.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType

import numpy as np

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.errors import DomainTooLargeError
from dprelease.privacy.rng import RandomSource
from dprelease.queries.base import LinearQuery
from dprelease.representations.histogram import HistogramModel
from dprelease.representations.contraction import eliminate
from dprelease.representations.junction_tree import (Clique, JunctionTree, calibrate, candidates_fit, expand,
                                                     ratio_or_zero, sum_to)
from dprelease.representations.rounding import systematic_counts

#: Default cap on the junction tree's cells (all cliques together). The model keeps a few
#: float64 copies (potentials, calibration's working arrays, clique probabilities, conditionals): ~40 bytes a cell.
DEFAULT_MAX_MODEL_CELLS = 2_000_000

# Rows x columns of the working tables used when drawing rows (bounds their memory).
_CHUNK_CELLS = 4_000_000


def model_size(domain: Domain, cliques: Iterable[Sequence[str]]) -> tuple[int, int]:
    """(total cells, cells of the largest clique) of the junction tree for ``cliques`` (public)."""
    tree = JunctionTree.build(domain, cliques)
    return tree.total_cells, tree.largest_cells


def check_model_size(domain: Domain, cliques: Iterable[Sequence[str]], max_model_cells: int) -> None:
    """Raise :class:`DomainTooLargeError` when the model on ``cliques`` would exceed the cap (public check)."""
    cliques = [tuple(c) for c in cliques]
    total, largest = model_size(domain, cliques)
    if total > max_model_cells:
        raise DomainTooLargeError(
            f"a factored model on the cliques {[list(c) for c in cliques]} needs a junction tree of {total:,} cells "
            f"(largest clique {largest:,}), above the cap of max_model_cells={max_model_cells:,}; "
            "measure smaller marginals or raise max_model_cells"
        )


def _smallest_holding(domain: Domain, clique: Sequence[str], candidates: Iterable[Clique]) -> Clique | None:
    """The candidate with the fewest cells whose attributes hold ``clique`` (first on ties), or None."""
    wanted = set(clique)
    holding = [c for c in candidates if wanted <= set(c)]
    return min(holding, key=lambda c: math.prod(domain.size_of(a) for a in c), default=None)


def _summed_to(array: np.ndarray, attributes: Clique, kept: Clique) -> np.ndarray:
    """``array`` (over ``attributes``) summed over the attributes not in ``kept`` (a new array either way)."""
    summed = sum_to(array, attributes, kept)
    return summed.copy() if summed is array else summed


def _given(marginal: np.ndarray, clique: Clique, separator: Clique) -> np.ndarray:
    """p(clique | separator) from the clique's ``marginal``, shaped like it (0 where the separator's value has none)."""
    return ratio_or_zero(marginal, expand(separator, sum_to(marginal, clique, separator), clique))


def _in_order(array: np.ndarray, canonical: Clique, asked: Sequence[str]) -> np.ndarray:
    """``array`` (over ``canonical``, domain order) with its axes in the order ``asked`` (itself if the same)."""
    asked = tuple(asked)
    return array if asked == canonical else np.transpose(array, [canonical.index(a) for a in asked])


@dataclass(frozen=True, eq=False)
class FactoredModel:
    """p(x) ∝ exp(sum over cliques C of potentials[C][x_C]); cliques' attributes in domain order.

    >>> d = Domain(("a", "b", "c"), (2, 3, 2))
    >>> m = FactoredModel.uniform(d, cliques=[("a", "b")])
    >>> m.marginal(["c", "a"]).round(3).tolist()
    [[0.25, 0.25], [0.25, 0.25]]
    """

    domain: Domain
    potentials: Mapping[Clique, np.ndarray]
    max_model_cells: int = DEFAULT_MAX_MODEL_CELLS
    _cache: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        checked = {}
        for clique, theta in self.potentials.items():
            canonical = self.domain.canonical(clique)
            if canonical != tuple(clique):
                raise ValueError(f"clique {list(clique)} must list its attributes in domain order")
            theta = np.asarray(theta, dtype=np.float64)
            shape = tuple(self.domain.size_of(a) for a in canonical)
            if theta.shape != shape:
                raise ValueError(f"potential on {list(clique)} must have shape {shape}, got {theta.shape}")
            checked[canonical] = theta
        check_model_size(self.domain, checked, self.max_model_cells)
        object.__setattr__(self, "potentials", MappingProxyType(checked))

    # ---------------------------------------------------------------- building
    @classmethod
    def uniform(cls, domain: Domain, *, cliques: Iterable[Sequence[str]] = (),
                max_model_cells: int = DEFAULT_MAX_MODEL_CELLS) -> FactoredModel:
        """The uniform distribution, with zero potentials on ``cliques``."""
        potentials = {domain.canonical(c): np.zeros([domain.size_of(a) for a in domain.canonical(c)])
                      for c in cliques}
        return cls(domain, potentials, max_model_cells)

    def with_potentials(self, potentials: Mapping[Sequence[str], np.ndarray]) -> FactoredModel:
        """A new model with the given potentials replaced or added (the others kept)."""
        merged = dict(self.potentials)
        merged.update({tuple(c): v for c, v in potentials.items()})
        return FactoredModel(self.domain, merged, self.max_model_cells)

    def with_cliques(self, cliques: Iterable[Sequence[str]]) -> FactoredModel:
        """The same distribution with zero potentials added on the cliques it lacks (may hit the cap)."""
        missing = {self.domain.canonical(c) for c in cliques} - set(self.potentials)
        if not missing:
            return self
        return self.with_potentials({c: np.zeros([self.domain.size_of(a) for a in c]) for c in sorted(missing)})

    @property
    def cliques(self) -> tuple[Clique, ...]:
        return tuple(self.potentials)

    def fits(self, cliques: Iterable[Sequence[str]]) -> bool:
        """Whether adding ``cliques`` keeps the model under its cap (public: depends on cliques only)."""
        extra = [self.domain.canonical(c) for c in cliques]
        if all(self.potential_holding(c) is not None for c in extra):
            return True
        return model_size(self.domain, [*self.potentials, *extra])[0] <= self.max_model_cells

    def fits_each(self, candidates: Sequence[Sequence[str]]) -> list[bool]:
        """For each candidate clique, whether adding it alone keeps the model under its cap (one batch)."""
        candidates = [self.domain.canonical(c) for c in candidates]
        result = [self._held(c) for c in candidates]
        todo = [i for i, ok in enumerate(result) if not ok]
        fits = candidates_fit(self.domain, list(self.potentials), [candidates[i] for i in todo], self.max_model_cells)
        for i, ok in zip(todo, fits):
            result[i] = bool(ok)
        return result

    @cached_property
    def _holders(self) -> dict[str, frozenset[int]]:
        """Each attribute's potentials, by their place in :attr:`potentials`."""
        holders: dict[str, set[int]] = {}
        for i, clique in enumerate(self.potentials):
            for a in clique:
                holders.setdefault(a, set()).add(i)
        return {a: frozenset(held) for a, held in holders.items()}

    def _held(self, clique: Sequence[str]) -> bool:
        """Whether :meth:`potential_holding` finds a potential for ``clique``: without scanning every potential,
        which :meth:`fits_each` did for every candidate every round."""
        if not clique:
            return bool(self.potentials)
        return bool(frozenset.intersection(*(self._holders.get(a, frozenset()) for a in clique)))

    def potential_holding(self, clique: Sequence[str]) -> Clique | None:
        """The smallest potential whose attributes hold ``clique`` (first on ties), or None.

        A clique inside a potential adds no edge to the model's graph, so the tree is unchanged. (Inside
        a junction-tree clique is not enough: that clique may hold fill-in edges, and a graph with them
        as real edges can triangulate differently.)
        """
        return _smallest_holding(self.domain, clique, self.potentials)

    # ---------------------------------------------------------------- inference
    @cached_property
    def tree(self) -> JunctionTree:
        return JunctionTree.build(self.domain, self.potentials)

    @cached_property
    def _calibrated(self) -> tuple[list[np.ndarray], float]:
        return calibrate(self.tree, list(self.potentials.items()))

    @property
    def log_partition(self) -> float:
        """log Z = log sum_x exp(sum_C theta_C(x_C))."""
        return self._calibrated[1]

    def _probability(self, index: int) -> np.ndarray:
        """The marginal (probabilities) of tree clique ``index``."""
        return self._calibrated[0][index]

    def _conditional(self, index: int) -> np.ndarray:
        """p(clique | separator with the parent), shaped like the clique (0 where the separator's value has none)."""
        key = ("c", index)
        if key not in self._cache:
            tree = self.tree
            self._cache[key] = _given(self._probability(index), tree.cliques[index], tree.separators[index])
        return self._cache[key]

    def _conditional_given_kid(self, kid: int) -> np.ndarray:
        """p(parent clique | its separator with ``kid``), shaped like the parent clique: :meth:`_conditional` for a
        walk that goes up the tree."""
        key = ("u", kid)
        if key not in self._cache:
            tree = self.tree
            parent = tree.parent[kid]
            self._cache[key] = _given(self._probability(parent), tree.cliques[parent], tree.separators[kid])
        return self._cache[key]

    def _cross_pairs(self, pairs: Sequence[Clique]) -> dict[Clique, np.ndarray]:
        """The marginals of attribute pairs (domain order) that no tree clique holds, grouped by their first attribute.

        One walk of the tree from a clique holding ``a`` carries p(a, C) to every clique C on the way: across the
        edge from C to a neighbour D with separator S, p(a, D) = p(a, S) p(D | S), since D is independent of ``a``
        given S (running intersection). Each pair (a, b) is summed from the first clique holding b that the walk
        reaches. A walk costs about |a| times the cells it crosses and serves every pair starting with ``a``, where
        elimination (:meth:`_sorted_marginal`) walks each pair's path once per pair: most of a round's time on a
        wide table's thousands of 2-way candidates. The walk goes only along the paths to those first holders
        (:meth:`_route`; a branch holding no wanted attribute changes nothing it sums), and where carrying ``a``'s
        values costs more than the pairs' own paths (few pairs, large cliques: full Adult), each pair is eliminated
        alone. A pair across parts of the tree (:attr:`JunctionTree.part`) is independent, p(a, b) = p(a) p(b).
        """
        tree = self.tree
        wanted: dict[str, set[str]] = {}
        for first, second in pairs:
            wanted.setdefault(first, set()).add(second)
        result: dict[Clique, np.ndarray] = {}
        one_way: dict[str, np.ndarray] = {}

        def alone(attribute: str) -> np.ndarray:
            if attribute not in one_way:
                home = tree.containing((attribute,))
                one_way[attribute] = _summed_to(self._probability(home), tree.cliques[home], (attribute,))
            return one_way[attribute]

        for first, seconds in wanted.items():
            start = tree.containing((first,))
            apart = {b for b in seconds if tree.part[tree.containing((b,))] != tree.part[start]}
            for second in apart:
                pair = self.domain.canonical((first, second))
                result[pair] = np.multiply.outer(alone(pair[0]), alone(pair[1]))
            seconds = seconds - apart
            if not seconds:
                continue
            route, walk_cells, alone_cells = self._route(first, start, seconds)
            if walk_cells > alone_cells:
                for second in seconds:
                    pair = self.domain.canonical((first, second))
                    result[pair] = self._sorted_marginal(pair)
                continue
            # breadth first; each entry: (clique, the clique it was reached from, p(first, clique) over ``attributes``)
            frontier = deque([(start, -1, tree.cliques[start], self._probability(start))])
            while frontier and seconds:
                index, came_from, attributes, joint = frontier.popleft()
                for second in seconds.intersection(tree.cliques[index]):
                    pair = self.domain.canonical((first, second))
                    result[pair] = _summed_to(joint, attributes, pair)
                seconds = seconds.difference(tree.cliques[index])
                for nxt in (*tree.kids[index], tree.parent[index]):
                    if nxt in (-1, came_from) or nxt not in route:  # the root's parent, the way back, a dead end
                        continue
                    down = tree.parent[nxt] == index
                    separator = tree.separators[nxt] if down else tree.separators[index]
                    given = self.domain.canonical({first, *separator})
                    target = self.domain.canonical({first, *tree.cliques[nxt]})
                    conditional = self._conditional(nxt) if down else self._conditional_given_kid(index)
                    carried = expand(given, sum_to(joint, attributes, given), target)
                    frontier.append((nxt, index, target, carried * expand(tree.cliques[nxt], conditional, target)))
        return result

    def _route(self, first: str, start: int, seconds: set[str]) -> tuple[set[int], int, int]:
        """The walk of :meth:`_cross_pairs` from ``start`` planned on the tree's shape alone (public, no arrays).

        Returns the cliques on the paths from ``start`` to the first clique holding each of ``seconds`` (a
        breadth-first search in the walk's own order, so each is the clique the walk sums its pair from), the cells
        the walk would carry along them (|first| x each clique's cells, where the clique lacks ``first``), and the
        cells elimination would cross pair by pair (each pair's path).
        """
        tree = self.tree
        size = self.domain.size_of(first)
        came = {start: -1}
        depth_cells = {start: 0}  # cells from ``start`` (excluded) to each clique along its path
        holder: dict[str, int] = {}
        queue = deque([start])
        while queue and len(holder) < len(seconds):
            index = queue.popleft()
            for second in seconds.intersection(tree.cliques[index]):
                holder.setdefault(second, index)
            for nxt in (*tree.kids[index], tree.parent[index]):
                if nxt == -1 or nxt in came:
                    continue
                if not (tree.separators[nxt] if tree.parent[nxt] == index else tree.separators[index]):
                    continue  # another part
                came[nxt] = index
                depth_cells[nxt] = depth_cells[index] + tree.cells(nxt)
                queue.append(nxt)
        route: set[int] = set()
        for index in holder.values():
            while index != -1 and index not in route:
                route.add(index)
                index = came[index]
        walk_cells = sum(tree.cells(i) * (1 if first in tree._clique_sets[i] else size) for i in route if i != start)
        alone_cells = sum(depth_cells[i] for i in holder.values())
        return route, walk_cells, alone_cells

    def _sorted_marginal(self, attributes: Clique) -> np.ndarray:
        """The marginal on ``attributes`` (domain order): one clique's sum, else elimination on a subtree."""
        if not attributes:
            return np.array(1.0)
        tree = self.tree
        home = tree.containing(attributes)
        if home is not None:
            return _summed_to(self._probability(home), tree.cliques[home], attributes)
        groups: dict[int, list[str]] = {}
        for attribute in attributes:
            groups.setdefault(tree.part[tree.containing((attribute,))], []).append(attribute)
        if len(groups) > 1:  # parts of the tree are independent: the product of each part's marginal, where
            # elimination would carry every clique on the empty separators' path between them (a wide table's triples)
            product, held = np.array(1.0), []
            for group in groups.values():
                product = np.multiply.outer(product, self._sorted_marginal(tuple(group)))
                held.extend(group)
            return np.ascontiguousarray(np.transpose(product, [held.index(a) for a in attributes]))
        # p(top) x prod p(C | separator) over the covering subtree, then variable elimination.
        top, nodes = tree.steiner(attributes)
        factors = [(tree.cliques[i], self._probability(i) if i == top else self._conditional(i)) for i in nodes]
        return eliminate(self.domain, factors, attributes)

    # ---------------------------------------------------------------- answering
    def marginal(self, attributes: Sequence[str]) -> np.ndarray:
        """Fractions of the marginal on ``attributes`` (in the order given)."""
        canonical = self.domain.canonical(tuple(attributes))
        return _in_order(self._sorted_marginal(canonical), canonical, attributes)

    def marginals(self, cliques: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """The marginals on ``cliques`` (each in the order given), as :meth:`marginal` gives them one by one.

        A fit asks for every measured clique's marginal at each step, and several lie in the same tree clique
        (a triple and its pairs). Each is summed from the smallest marginal already computed that holds it, so
        a large tree clique is summed down once, not once per measured clique inside it. MWEM's selection asks
        for every candidate's, and on a wide table most are pairs in no one tree clique: those come from one walk
        of the tree per first attribute (:meth:`_cross_pairs`). The sums run in another order than
        :meth:`marginal`'s, so the results agree to float rounding, not bit for bit.
        """
        tree = self.tree
        wanted_sets = [self.domain.canonical(tuple(c)) for c in cliques]
        unique = list(dict.fromkeys(wanted_sets))
        done = self._cross_pairs([c for c in unique if len(c) == 2 and tree.containing(c) is None])
        by_home: dict[int, list[Clique]] = {}
        for clique in sorted(unique, key=len, reverse=True):  # largest first; stable
            if clique in done:
                continue
            home = tree.containing(clique)
            if home is None or not clique:
                done[clique] = self._sorted_marginal(clique)
                continue
            source = _smallest_holding(self.domain, clique, by_home.setdefault(home, []))
            if source is None:
                done[clique] = _summed_to(self._probability(home), tree.cliques[home], clique)
            else:
                done[clique] = _summed_to(done[source], source, clique)
            by_home[home].append(clique)
        result, given = [], set()
        for asked, canonical in zip(cliques, wanted_sets):
            base = done[canonical]
            array = base.copy() if id(base) in given else base  # a clique asked twice gets two arrays
            given.add(id(base))
            result.append(_in_order(array, canonical, asked))
        return result

    def answer(self, query: LinearQuery) -> float:
        return query.evaluate(self)

    def log_probs(self, *, max_cells: int = DEFAULT_MAX_CELLS) -> np.ndarray:
        """The full log-probability table (small domains only; for checks)."""
        self.domain.check_fits(max_cells, what="a full table of the factored model")
        total = np.zeros(self.domain.shape)
        for clique, theta in self.potentials.items():
            total = total + expand(clique, theta, self.domain.attributes)
        return total - self.log_partition

    def to_histogram(self, *, max_cells: int = DEFAULT_MAX_CELLS) -> HistogramModel:
        """The same distribution as an explicit histogram (small domains only)."""
        return HistogramModel(self.domain, self.log_probs(max_cells=max_cells))

    # ---------------------------------------------------------------- releasing
    def sample(self, n: int, rng: RandomSource) -> np.ndarray:
        """n records drawn i.i.d. from the distribution, as an (n, d) int array.

        Ancestral sampling through the junction tree: the root clique's cells from its marginal, then
        each clique's new attributes from p(clique | separator), parents first (exact).
        """
        return self._generate(n, rng, rounded=False)

    def round(self, n: int, rng: RandomSource) -> np.ndarray:
        """n records with counts rounded along the tree (shuffled row order).

        The root clique's counts are n p(root) rounded down or up by systematic sampling, as
        :meth:`HistogramModel.round` does (:mod:`~dprelease.representations.rounding`); then, clique by
        clique, the k records sharing a separator value get k p(new | separator) rounded the same way,
        spread over the records as :func:`_draw_grouped` says.
        """
        return self._generate(n, rng, rounded=True)

    def _generate(self, n: int, rng: RandomSource, *, rounded: bool) -> np.ndarray:
        tree, domain = self.tree, self.domain
        records = np.zeros((n, len(domain)), dtype=np.int64)
        root = tree.order[0]
        p = self._probability(root).reshape(-1)
        if rounded:
            cells = np.repeat(np.arange(p.size), systematic_counts(p, n, rng))
        else:
            cells = rng.choice(p, n)
        shape = tuple(domain.size_of(a) for a in tree.cliques[root])
        records[:, list(domain.axes(tree.cliques[root]))] = np.stack(np.unravel_index(cells, shape), axis=1)
        drawn = list(tree.cliques[root])
        for i in tree.order[1:]:
            clique, separator = tree.cliques[i], tree.separators[i]
            new = tuple(a for a in clique if a not in separator)
            order = [clique.index(a) for a in separator + new]
            s_shape = tuple(domain.size_of(a) for a in separator)
            n_shape = tuple(domain.size_of(a) for a in new)
            table = np.transpose(self._conditional(i), order).reshape(math.prod(s_shape), math.prod(n_shape))
            if separator:
                s_index = np.ravel_multi_index(tuple(records[:, domain.axis(a)] for a in separator), s_shape)
            else:
                s_index = np.zeros(n, dtype=np.intp)
            # Rounding spreads each group's new values evenly over the records sorted by the attributes
            # drawn so far (most recent first), so cross-clique marginals follow the model more closely.
            strata = [records[:, domain.axis(a)] for a in reversed(drawn) if a not in separator]
            codes = _draw_grouped(table, s_index, rng, rounded=rounded, strata=strata)
            records[:, list(domain.axes(new))] = np.stack(np.unravel_index(codes, n_shape), axis=1)
            drawn += list(new)
        if rounded:
            records = records[rng.permutation(n)]
        return records


def _packed_keys(columns: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``columns`` of non-negative integer codes, most significant first, packed into as few int64 keys as hold them
    exactly (mixed radix, each column's radix its largest code + 1). Their lexicographic order, ties included, is the
    columns', so ``np.lexsort`` gives the same permutation with a key for every few columns, not one each: a
    10^6-row table of 32 columns sorts 3 keys where it sorted 33, and that sort was an eighth of its fitted rows."""
    packed: list[np.ndarray] = []
    word, room = None, 1  # room: the product of the radices in ``word``, so its values are below it
    for column in columns:
        radix = int(column.max()) + 1 if column.size else 1
        if word is not None and room * radix <= 2 ** 62:
            word, room = word * radix + column, room * radix
        else:
            if word is not None:
                packed.append(word)
            word, room = column.astype(np.int64), radix
    if word is not None:
        packed.append(word)
    return packed


def _draw_grouped(table: np.ndarray, s_index: np.ndarray, rng: RandomSource, *, rounded: bool,
                  strata: Sequence[np.ndarray] = ()) -> np.ndarray:
    """For each record, a column of ``table`` given its row ``s_index`` (rows: conditional distributions).

    Sampled i.i.d., or rounded: each group of records sharing a row gets its counts by systematic sampling,
    and (with ``strata``, the records' other attributes, most important first) the group's records,
    sorted by the strata, receive the values interleaved as in systematic sampling (the k-th of c copies
    of a value at position (k + u) / c, u uniform per value), so each value is spread evenly over the
    strata instead of by chance. Ties and the order within equal strata are random.
    """
    n, columns = len(s_index), table.shape[1]
    codes = np.zeros(n, dtype=np.int64)
    if n == 0:
        return codes
    groups, inverse = np.unique(s_index, return_inverse=True)
    inverse = inverse.reshape(-1)
    keys = rng.uniform_open(n)
    if rounded and strata:  # by row, then by the strata, then at random
        order = np.lexsort((keys, *reversed(_packed_keys([inverse, *strata]))))
    else:
        order = np.lexsort((keys, inverse))  # records grouped by row, in random order within a group
    sorted_groups = inverse[order]
    bounds = np.searchsorted(sorted_groups, np.arange(len(groups) + 1))
    step = max(1, _CHUNK_CELLS // columns)
    for start in range(0, len(groups), step):
        stop = min(len(groups), start + step)
        rows = table[groups[start:stop]]
        rows = rows / rows.sum(axis=1, keepdims=True)
        lo, hi = bounds[start], bounds[stop]
        members = order[lo:hi]
        if rounded:
            counts = systematic_counts(rows, np.diff(bounds[start:stop + 1]), rng)
            if strata:  # systematic positions: value j's k-th copy at (k + u_j) / c_j within its group
                flat = counts.reshape(-1)
                code_seq = np.repeat(np.tile(np.arange(columns), stop - start), flat)
                group_seq = np.repeat(np.repeat(np.arange(stop - start), columns), flat)
                firsts = np.repeat(np.cumsum(flat) - flat, flat)
                offset = np.repeat(rng.uniform_open(flat.size), flat)
                position = (np.arange(code_seq.size) - firsts + offset) / np.repeat(np.maximum(flat, 1), flat)
                codes[members] = code_seq[np.lexsort((position, group_seq))]
            else:
                codes[members] = np.repeat(np.tile(np.arange(columns), stop - start), counts.reshape(-1))
        else:
            cumulative = np.cumsum(rows, axis=1)
            cumulative /= cumulative[:, -1:]
            local = sorted_groups[lo:hi] - start
            # Row r's cumulative sums shifted to (r, r + 1]: one sorted array, one searchsorted.
            flat = (cumulative + np.arange(stop - start)[:, None]).reshape(-1)
            position = np.searchsorted(flat, local + keys[members], side="right") - local * columns
            codes[members] = np.clip(position, 0, columns - 1)
    return codes
