"""Columns declared in order: ``"ordered": [["admitted", "discharged"]]`` in a schema says every row's values run
from the first to the last (each at most the next), as a discharge never precedes its admission.

The declaration is public knowledge, like the rest of the schema; it changes nothing that is read or measured, only
how synthetic rows are drawn from the released model (post-processing, Dwork & Roth Prop. 2.1):

* **codes** (:func:`ordered_codes`): a synthetic row whose bins cannot hold the order (a discharge month before its
  admission month: the model's noise) is replaced by a row drawn from the model that can, i.e. from the model
  conditioned on the order's bins;
* **values** (:func:`ordered_values`): inside their bins, the columns' values are drawn as every column's are
  (uniformly, at the schema's times of day, on its decimal grid), conditioned on the order: a row drawn out of
  order is drawn again, whole (its ordered columns), until it is in order, so each row's values are the independent
  draws' distribution given the order. Without it, two dates in the same month bin are in the wrong order in about
  half the rows.

The order is only applied where both values of a pair are present (a NULL or other value has no place in it), and a
chain is transitive: ``["ordered", "shipped", "delivered"]`` also keeps a delivery after its order where the
shipping date is blank. The real table's rows are read as they are; a row of it out of order is not refused (its
values would be private).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dprelease.errors import InputError
from dprelease.schema.binned import DateColumn, DatetimeColumn, IntegerColumn, NumericColumn, _Binned
from dprelease.schema.columns import Column

#: Which kinds a chain may mix: numbers with numbers, dates with dates, date-times with date-times (a date and a
#: date-time are in different units: days and seconds).
_FAMILY = {"integer": "numbers", "numeric": "numbers", "date": "dates", "datetime": "date-times"}
#: Rounds of drawing again a row out of order before the last resort (:func:`ordered_values`): every round keeps
#: at least half of the rows where the order holds in at least half of the bins' area, which a pair of overlapping
#: bins does unless one is far narrower than the other.
VALUE_ROUNDS = 200
#: Rounds of drawing rows from the model to replace the rows whose bins cannot hold the order (:func:`ordered_codes`),
#: and the fewest rows a round draws: a model that rarely gives such a row (a person-level release whose factored model
#: never measured the dates together, 1 in 200 of its rows in order and agreeing with two between columns) still gives
#: enough in a few rounds.
CODE_ROUNDS = 50
CODE_BATCH = 4096


def check_ordered(chains: object, columns: Sequence[Column]) -> tuple[tuple[str, ...], ...]:
    """The schema's ``ordered`` chains, checked against its columns (public): lists of at least two distinct column
    names, each an integer, numeric, date or date-time column, one kind of value a chain, no column before itself."""
    if chains is None:
        return ()
    if isinstance(chains, (str, bytes)) or not isinstance(chains, (list, tuple)):
        raise InputError('schema ordered must be a list of column lists, e.g. [["start", "end"]], '
                         f"got {chains!r:.100}")
    kinds = {c.name: c for c in columns}
    out = []
    for chain in chains:
        if isinstance(chain, (str, bytes)) or not isinstance(chain, (list, tuple)) or len(chain) < 2:
            raise InputError(f"schema ordered: each entry must list two or more columns in order, got {chain!r:.100}")
        chain = tuple(chain)
        for name in chain:
            if name not in kinds:
                raise InputError(f"schema ordered: {name!r:.100} is not a column of the schema")
            if kinds[name].kind not in _FAMILY:  # an undecided column's kind is the one the draft found
                raise InputError(f"schema ordered: column {name!r} is {kinds[name].kind}; only integer, numeric, "
                                 "date and datetime columns have an order")
        if len(set(chain)) != len(chain):
            raise InputError(f"schema ordered: {list(chain)} names a column twice")
        families = {_FAMILY[kinds[name].kind] for name in chain}
        if len(families) > 1:
            raise InputError(f"schema ordered: {list(chain)} mixes {' and '.join(sorted(families))}; a chain compares "
                             "values of one kind")
        out.append(chain)
    edges = {(a, b) for chain in out for a, b in zip(chain, chain[1:])}
    if any(a == b for a, b in _closure(edges)):
        raise InputError(f"schema ordered: {[list(c) for c in out]} puts a column before itself (a cycle)")
    return tuple(out)


def _closure(edges: set[tuple[str, str]]) -> set[tuple[str, str]]:
    """Every (a, b) with a before b through the edges (transitive closure; a cycle gives some (a, a))."""
    pairs = set(edges)
    while True:
        more = {(a, d) for a, b in pairs for c, d in pairs if b == c} - pairs
        if not more:
            return pairs
        pairs |= more


def ordered_pairs(schema: object) -> list[tuple[int, int]]:
    """Every pair (i, j) of column positions whose values the schema's chains keep in order, value_i <= value_j
    (the chains' transitive closure), sorted. Public."""
    names = list(schema.names)
    edges = {(a, b) for chain in schema.ordered for a, b in zip(chain, chain[1:])}
    return sorted((names.index(a), names.index(b)) for a, b in _closure(edges))


@dataclass(frozen=True)
class _Bins:
    """A binned column's bins as comparable values, one entry per bin (the NULL and other codes after them have
    none): each bin's lowest value and its top, attained (``closed``) or the open upper edge of a numeric bin."""

    low: np.ndarray
    top: np.ndarray
    closed: np.ndarray

    @classmethod
    def of(cls, column: _Binned) -> _Bins:
        low, high = column.bounds
        starts = np.asarray((low, *column.thresholds))
        if isinstance(column, NumericColumn):
            tops = np.asarray((*column.thresholds, high), dtype=np.float64)
            closed = np.zeros(len(tops), dtype=bool)
            closed[-1] = True
            return cls(starts.astype(np.float64), tops, closed)
        assert isinstance(column, (IntegerColumn, DateColumn, DatetimeColumn))
        tops = np.asarray((*[t - 1 for t in column.thresholds], high), dtype=np.int64)
        return cls(starts.astype(np.int64), tops, np.ones(len(tops), dtype=bool))


def unorderable_rows(codes: np.ndarray, schema: object, pairs: Sequence[tuple[int, int]] | None = None) -> np.ndarray:
    """The rows of ``codes`` (n x d) whose bins cannot hold the schema's order: for some ordered pair both present,
    the first's lowest value above every value of the second's bin. Public (codes and schema)."""
    pairs = ordered_pairs(schema) if pairs is None else pairs
    codes = np.asarray(codes)
    bad = np.zeros(len(codes), dtype=bool)
    columns = schema.columns
    for i, j in pairs:
        bad |= ~_pair_mask(columns[i], columns[j])[codes[:, i], codes[:, j]]
    return bad


def _pair_mask(first: Column, second: Column) -> np.ndarray:
    """(size of first) x (size of second): True where the two codes can hold first <= second (NULL and other
    codes always can)."""
    a, b = _Bins.of(first), _Bins.of(second)
    low, top, closed = a.low[:, None], b.top[None, :], b.closed[None, :]
    mask = np.ones((first.size, second.size), dtype=bool)
    mask[:len(a.low), :len(b.top)] = ~((low > top) | ((low == top) & ~closed))
    return mask


def ordered_targets(targets: Sequence[tuple[tuple[str, ...], np.ndarray]],
                    schema: object) -> list[tuple[tuple[str, ...], np.ndarray]]:
    """Marginal answers conditioned on the schema's order: in a marginal holding both columns of an ordered pair,
    the cells whose bins cannot hold it set to 0 and the rest scaled back to the answer's total (what rows in that
    order can match). Public (answers and schema)."""
    names = list(schema.names)
    masks = [(names[i], names[j], _pair_mask(schema.columns[i], schema.columns[j])) for i, j in ordered_pairs(schema)]
    out = []
    for attributes, answer in targets:
        answer = np.asarray(answer, dtype=np.float64)
        kept = answer
        for first, second, mask in masks:
            if first in attributes and second in attributes:
                p, q = attributes.index(first), attributes.index(second)
                shape = [1] * answer.ndim
                shape[p], shape[q] = mask.shape[0], mask.shape[1]
                view = mask if p < q else mask.T
                kept = kept * view.reshape(shape)
        total = kept.sum()
        out.append((attributes, kept * (answer.sum() / total) if total > 0 else answer))
    return out


def order_keeping_moves(schema: object) -> Callable[[np.ndarray, np.ndarray, int], np.ndarray] | None:
    """For the row fit (:func:`~dprelease.rows.fitting.fit_rows`' ``allowed``): ``allowed(records, rows, axis)``, a
    (len(rows), size of ``axis``) mask of the codes ``axis`` may move to and keep every ordered pair of the row
    holdable (all codes, where ``axis`` is in none). None for a schema without ``ordered``. Public."""
    pairs = ordered_pairs(schema)
    if not pairs:
        return None
    masks = {(i, j): _pair_mask(schema.columns[i], schema.columns[j]) for i, j in pairs}

    def allowed(records: np.ndarray, rows: np.ndarray, axis: int) -> np.ndarray:
        out = np.ones((len(rows), schema.columns[axis].size), dtype=bool)
        for (i, j), mask in masks.items():
            if i == axis:  # axis before j: the codes v with mask[v, code_j]
                out &= mask[:, records[rows, j]].T
            elif j == axis:  # i before axis: mask[code_i, v]
                out &= mask[records[rows, i], :]
        return out

    return allowed


def ordered_codes(rows: np.ndarray, model: object, rng: object, schema: object,
                  breaks: Callable[[np.ndarray], np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` with each row whose bins cannot hold the schema's order replaced by a row drawn from ``model`` that
    can (the model conditioned on the order; post-processing of the released model with public randomness), and
    the rows replaced (a mask). Rows are left out of order where the model has no such row to give in
    :data:`CODE_ROUNDS` rounds, or there is no ``model`` (:func:`unorderable_rows` finds them). ``breaks``: the rows
    to replace, if not those (e.g. also the rows whose ``between`` columns disagree with their dates). Public."""
    if breaks is None:
        pairs = ordered_pairs(schema)
        breaks = lambda codes: unorderable_rows(codes, schema, pairs)  # noqa: E731
    rows = np.array(rows, dtype=np.int64, copy=True)
    replaced = np.zeros(len(rows), dtype=bool)
    todo = np.flatnonzero(breaks(rows))
    if not len(todo) or model is None:
        return rows, replaced
    for _ in range(CODE_ROUNDS):
        draws = np.asarray(model.sample(max(2 * len(todo), CODE_BATCH), rng), dtype=np.int64)
        fit = draws[~breaks(draws)][:len(todo)]
        rows[todo[:len(fit)]] = fit
        replaced[todo[:len(fit)]] = True
        todo = todo[len(fit):]
        if not len(todo):
            break
    return rows, replaced


def ordered_values(values: dict[str, np.ndarray], codes: np.ndarray, schema: object,
                   draw: Callable[[Column, np.ndarray], np.ndarray], present: dict[str, np.ndarray]) -> None:
    """Redraw, in place, the decoded ``values`` of the schema's ordered columns where a row is out of order and its
    bins can hold the order: all of the row's ordered columns again, with ``draw(column, bins)`` (the decoder's own
    draw), until the row is in order; so each such row's values are the independent draws conditioned on the
    order; ``present``: per column, the rows whose code is a bin (not NULL, not other), as the decoder found them.
    After :data:`VALUE_ROUNDS` rounds (bins that barely overlap), a row still out of order takes the
    smallest ordered values its bins allow (each column the largest lowest value of the columns before it). Rows
    whose bins cannot hold the order (codes that no fitted release gives: :func:`ordered_codes`) keep their draws.
    Post-processing of public codes with public randomness."""
    pairs = ordered_pairs(schema)
    if not pairs:
        return
    columns = schema.columns
    present = {k: present[columns[k].name] for k in {k for pair in pairs for k in pair}}
    possible = ~unorderable_rows(codes, schema, pairs)

    def out_of_order(rows: np.ndarray) -> np.ndarray:
        bad = np.zeros(len(rows), dtype=bool)
        for i, j in pairs:
            a, b = values[columns[i].name][rows], values[columns[j].name][rows]
            bad |= present[i][rows] & present[j][rows] & (a > b)
        return bad

    involved = sorted({k for pair in pairs for k in pair})
    todo = np.flatnonzero(possible)
    todo = todo[out_of_order(todo)]
    for _ in range(VALUE_ROUNDS):
        if not len(todo):
            return
        for k in involved:
            column = columns[k]
            redrawn = draw(column, np.where(present[k][todo], codes[todo, k], 0))
            values[column.name][todo] = np.where(present[k][todo], redrawn, values[column.name][todo])
        todo = todo[out_of_order(todo)]
    # The last resort: a witness of the order, each column at the largest lowest value of the columns before it.
    for k in involved:
        column = columns[k]
        bins = _Bins.of(column)
        witness = bins.low[np.where(present[k][todo], codes[todo, k], 0)]
        for i, j in pairs:
            if j == k:
                before = present[i][todo] & present[k][todo]
                lows = _Bins.of(columns[i]).low[np.where(before, codes[todo, i], 0)]
                witness = np.where(before, np.maximum(witness, lows), witness)
        current = values[column.name]
        if current.dtype.kind in "iu":  # an integer after a numeric column: its smallest whole value above it
            witness = np.ceil(witness)
        current[todo] = np.where(present[k][todo], witness.astype(current.dtype), current[todo])
