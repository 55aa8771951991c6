"""Columns computed between two dates: ``"stay": {"type": "integer", "between": ["admitted", "discharged"],
"unit": "day", "bounds": [0, 60]}`` is each row's time from its admission to its discharge, in whole days,
``floor((discharged - admitted) / unit)``, computed from the two columns as they are read (never read from the
table: a table's own column of that name is not read).

Why: the model bins each date on its own (months, weeks), so two dates in the same month are drawn anywhere in it and
a 3-day stay comes out as 10 days on average. A ``between`` column is a column of the model like any other (measured
in the workload's marginals with the two dates: a function of one row, so the sensitivity is unchanged), and the
synthetic rows are drawn to agree with it:

* **codes** (:func:`unfit_rows`): a row whose three bins cannot agree (a January admission, a March discharge and
  a stay of 0..4 days: the model's noise) is drawn again from the model, as a row out of a declared order is
  (:func:`~dprelease.schema.orders.ordered_codes`), and the fitted rows are fitted again by moves that keep every
  row's bins in agreement (:func:`agreeing_moves`);
* **values** (:func:`between_values`): the first date is drawn in its bin, the time between in its bin, and the
  second date is their sum, drawn again until it falls in its own bin: the independent uniform draws conditioned on
  the three bins. The written value is always the time between the two written dates (a reader recomputing it gets
  it); it is blank where either date is (NULL, or the other marker).

Sources are date columns (unit "day") or date-time columns (unit "second", "minute", "hour" or "day": elapsed time,
floored), or integer columns (no unit: an age between a birth year and a survey year; an infinite value is a blank);
a ``between`` column needs ``"null": true`` where a source may be blank or other. "Date" below stands for any of
them. ``"until"`` (a value of the second column, e.g. the day the table was extracted) counts a row whose second is
blank (NULL) up to that value: a tenure to date, a stay not yet discharged; such rows keep the second blank, and the
rows out of agreement with such a column are refitted and mended rather than drawn again (``unfit_rows(with_until=
False)``). Post-processing only,
beside the reading (Dwork & Roth Prop. 2.1 for the draws; the column itself is a per-row function, so a release's
guarantee and its sensitivity are those of any column).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dprelease.errors import InputError
from dprelease.schema.binned import (BETWEEN_UNITS, MAX_INTEGER, DateColumn, DatetimeColumn, IntegerColumn, _Binned,
                                     _parse_bound, to_precision)
from dprelease.schema.columns import Column, where
from dprelease.schema.orders import ordered_pairs

#: Rounds of the constructive draw (first date, then the time between) before draws of both dates alone, and as
#: many of those before the last resort (a witness of the three bins, :func:`_witness`).
VALUE_ROUNDS = 100
#: A stand-in for "no end" in the time between (an end bin that clips, or the other bucket), in seconds: far past
#: any date's range (year 1 to 9999 is 3.2e11 s).
_FAR = 10**15


@dataclass(frozen=True)
class Between:
    """A ``between`` column of a schema by position: ``column`` = floor((``second`` - ``first``) / ``per``) in the
    sources' own unit (days for dates, seconds for date-times)."""

    column: int
    first: int
    second: int
    per: int
    #: Where the second column is blank (its NULL code), the value it stands for, in the sources' unit (``until``);
    #: None: a blank second makes the column blank.
    until: int | None = None


def check_between(columns: Sequence[Column]) -> None:
    """Every ``between`` column's sources: two other columns of the schema, both dates, both date-times or both
    integers, not computed themselves; the unit "day" for dates (the default for date-times too, set here), none for
    integers; ``until`` only where the second may be NULL, a value of its kind; ``null`` declared where a source may
    be NULL or other (a NULL second with ``until`` is not blank)."""
    by_name = {c.name: c for c in columns}
    for column in columns:
        if not isinstance(column, IntegerColumn) or column.between is None:
            continue
        kinds = []
        for source in column.between:
            if source not in by_name:
                raise InputError(f"{where(column.name)}: between names {source!r:.100}, which is not a column of "
                                 "the schema")
            found = by_name[source]
            if isinstance(found, IntegerColumn) and found.between is not None:
                raise InputError(f"{where(column.name)}: between names {source!r}, itself computed between two "
                                 "columns; name the dates it is computed from")
            if not isinstance(found, (DateColumn, DatetimeColumn, IntegerColumn)):
                raise InputError(f"{where(column.name)}: between names {source!r}, a {found.kind} column; its columns "
                                 "must be two date, two datetime or two integer columns")
            kinds.append(found.kind)
        if kinds[0] != kinds[1]:
            raise InputError(f"{where(column.name)}: between names {_a(kinds[0])} and {_a(kinds[1])} column; give "
                             "two of one kind (a date-time column's date is a date column of its own)")
        if kinds[0] == "integer" and column.unit is not None:
            raise InputError(f"{where(column.name)}: the difference of two integer columns is in their own unit "
                             f"(years, counts); drop unit {column.unit!r:.100}")
        if kinds[0] != "integer" and column.unit is None:
            object.__setattr__(column, "unit", "day")
        if kinds[0] == "date" and column.unit != "day":
            raise InputError(f"{where(column.name)}: the time between two date columns is counted in days, not "
                             f"{column.unit!r}s")
        if column.until is not None:
            second = by_name[column.between[1]]
            if not second.null:
                raise InputError(f"{where(column.name)}: until is the value {second.name!r} stands for where it is "
                                 f'blank; declare "null": true on {second.name!r}, or drop until')
            until_units(column, second)
        first, second = (by_name[s] for s in column.between)
        blank = [c.name for c in (first, second)
                 if c.other or (c.null and (c is first or column.until is None))]
        if blank and not column.null:
            raise InputError(f"{where(column.name)}: {blank[0]!r} may be blank or other, and then so is the time "
                             'between: declare "null": true')


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def until_units(column: IntegerColumn, second: Column) -> int | None:
    """A between column's ``until`` in its sources' unit (days for a date, seconds for a date-time, the integer
    itself), checked as the second column's bounds are. Public."""
    until = column.until
    if until is None:
        return None
    if isinstance(second, IntegerColumn):
        if isinstance(until, bool) or not isinstance(until, numbers.Integral) or abs(until) > MAX_INTEGER:
            raise InputError(f"{where(column.name)}: until must be an integer within +-2^53 (a value of "
                             f"{second.name!r}), got {until!r:.100}")
        return int(until)
    return _parse_bound(second, until, "until", second.code)


def betweens(schema: object) -> list[Between]:
    """The schema's ``between`` columns, by position. Public."""
    names = list(schema.names)
    out = []
    for k, column in enumerate(schema.columns):
        if isinstance(column, IntegerColumn) and column.between is not None:
            first, second = (names.index(n) for n in column.between)
            out.append(Between(k, first, second, per_unit(schema, column),
                               until_units(column, schema.columns[second])))
    return out


def _second_ranges(schema: object, between: Between) -> tuple[np.ndarray, np.ndarray]:
    """The second column's bins' ranges, and where it stands for ``until`` when blank, that value as one more range
    at its NULL code (the code after its bins), so a blank second reads as present there."""
    lows, tops = _ranges(schema.columns[between.second])
    if between.until is None:
        return lows, tops
    return np.append(lows, between.until), np.append(tops, between.until)


def per_unit(schema: object, column: IntegerColumn) -> int:
    """A between column's unit in its sources' own unit: 1 for date columns (days) and integer columns, the unit's
    seconds for date-times."""
    return BETWEEN_UNITS[column.unit] if isinstance(schema.column(column.between[0]), DatetimeColumn) else 1


def read_names(schema: object) -> tuple[str, ...]:
    """The columns a table is read for: every column but the ``between`` ones (computed from their sources)."""
    return tuple(c.name for c in schema.columns if not (isinstance(c, IntegerColumn) and c.between is not None))


def present_and_missing(schema: object, found: object) -> tuple[list[str], list[str]]:
    """(the schema's columns an engine can encode from a table whose columns are ``found``, in schema order: those
    it has, and the between columns whose dates it has; the columns read from a table that it lacks)."""
    raw = set(read_names(schema))
    present = [c.name for c in schema.columns
               if (c.name in found and c.name in raw) or (c.name not in raw and all(s in found for s in c.between))]
    return present, [name for name in schema.names if name in raw and name not in found]


def time_between(first: np.ndarray, second: np.ndarray, per: int) -> np.ndarray:
    """floor((second - first) / per) of values in the sources' unit (floats, NaN where a value is missing): NaN
    where either is."""
    with np.errstate(invalid="ignore"):
        return np.floor((np.asarray(second, dtype=np.float64) - np.asarray(first, dtype=np.float64)) / per)


# ------------------------------------------------------------------------------------------------ the bins' agreement
def _ranges(column: _Binned) -> tuple[np.ndarray, np.ndarray]:
    """Each bin's lowest and highest whole value (a date's days, a date-time's seconds)."""
    low, high = column.bounds
    starts = np.asarray((low, *column.thresholds), dtype=np.int64)
    tops = np.asarray((*[t - 1 for t in column.thresholds], high), dtype=np.int64)
    return starts, tops


def _spans(column: IntegerColumn, per: int) -> tuple[np.ndarray, np.ndarray]:
    """Per code of a between column (bins, then NULL, then other), the least and greatest difference second - first
    (in the sources' unit) it stands for; NULL none (lo > hi). An end bin that clips reaches without end, except
    below a lower bound of 0 or more: bounds such as [0, 60] say the second date is never before the first (a clip
    there is for the long times, and the rows a wrong order would need are drawn again)."""
    starts, tops = _ranges(column)
    lo, hi = starts * per, tops * per + per - 1
    if column.clip:
        hi[-1] = _FAR
        if column.bounds[0] < 0:
            lo[0] = -_FAR
    los, his = list(lo), list(hi)
    if column.null:
        los.append(1)
        his.append(0)
    if column.other:  # outside the bounds: checked apart (two pieces), a stand-in span here
        los.append(-_FAR)
        his.append(_FAR)
    return np.asarray(los, dtype=np.int64), np.asarray(his, dtype=np.int64)


def _outside(column: IntegerColumn, per: int) -> tuple[int, int, bool]:
    """The bounds in the sources' unit (the least difference of the first bin, the greatest of the last), and
    whether a difference below them belongs to the column (not where its lower bound is 0 or more: see
    :func:`_spans`)."""
    low, high = column.bounds
    return low * per, high * per + per - 1, low < 0


def agrees(schema: object, between: Between, first: np.ndarray, second: np.ndarray, code: np.ndarray) -> np.ndarray:
    """Whether codes of the first date, the second date and the between column (arrays that broadcast together) can
    describe one row: both dates in their bins with a difference in the column's bin, or a date blank (NULL or other)
    with the column NULL. Computed from the bins' ranges, so no table of every triple is held (date-times by the hour
    over a year would make one of 8,784 x 8,784 x the column's bins). Public."""
    columns = schema.columns
    a_lo, a_hi = _ranges(columns[between.first])
    d_lo, d_hi = _second_ranges(schema, between)
    column = columns[between.column]
    s_lo, s_hi = _spans(column, between.per)
    first, second, code = np.asarray(first), np.asarray(second), np.asarray(code)
    a, d = np.minimum(first, len(a_lo) - 1), np.minimum(second, len(d_lo) - 1)
    least, most = d_lo[d] - a_hi[a], d_hi[d] - a_lo[a]  # the differences the two bins allow
    fits = (least <= s_hi[code]) & (most >= s_lo[code])
    if column.other:  # outside [low, high]: below the first bin's least (where it may be) or above the last's most
        low, high, below = _outside(column, between.per)
        fits = np.where(code == column.other_code, ((least < low) & below) | (most > high), fits)
    blank = (code == column.null_code) if column.null else np.zeros(np.shape(code), dtype=bool)
    return np.where((first < len(a_lo)) & (second < len(d_lo)), fits & ~blank, blank)


def agreement(schema: object, between: Between) -> np.ndarray:
    """:func:`agrees` for every triple of codes: (first's size, second's size, the column's size). Public."""
    columns = schema.columns
    sizes = [columns[k].size for k in (between.first, between.second, between.column)]
    return agrees(schema, between, np.arange(sizes[0])[:, None, None], np.arange(sizes[1])[None, :, None],
                  np.arange(sizes[2])[None, None, :])


def unfit_rows(codes: np.ndarray, schema: object, *, with_until: bool = True) -> np.ndarray:
    """The rows of ``codes`` (n x d) whose bins of a ``between`` column and its dates cannot agree, or whose bins no
    values can fill that keep every between column and the declared order at once (:func:`jointly_unfit`: a
    shipping 8-9 days and a delivery 4-7 days after the order, with the order declared order <= shipped <=
    delivered). ``with_until=False`` leaves out the between columns that declare ``until`` (their rows are mended
    inside the row, :func:`mended_codes`, after the refit: drawn again from the model until they agree, the rows kept
    lean to those whose second is blank, whose agreement asks less of the model's bins). Public."""
    codes = np.asarray(codes)
    bad = np.zeros(len(codes), dtype=bool)
    found = betweens(schema)
    for b in found:
        if with_until or b.until is None:
            bad |= ~agrees(schema, b, codes[:, b.first], codes[:, b.second], codes[:, b.column])
    if found:
        bad |= jointly_unfit(codes, schema, with_until=with_until)
    return bad


def mended_codes(rows: np.ndarray, schema: object, rng: object) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` with each row whose bins still disagree with a between column (the model gave too few rows that
    agree: date-times binned by the hour, a stay of hours) mended inside the row: the second date's bin drawn from
    the first date's bin and the column's (a first date drawn in its bin plus a time drawn in the column's bin), or
    the column's bin from the two dates' (both drawn in their bins; a blank second standing for ``until`` is that
    value), or the column set blank where a date is; and
    the rows mended (a mask). A mended row keeps its other columns; it is a draw of the dates given the rest of the
    row, not of the model. Rows still unfit after it (a declared order that the new bin breaks) are left. Public:
    codes, schema and public randomness."""
    rows = np.array(rows, dtype=np.int64, copy=True)
    mended = np.zeros(len(rows), dtype=bool)
    columns = schema.columns
    for b in betweens(schema):
        todo = np.flatnonzero(~agrees(schema, b, rows[:, b.first], rows[:, b.second], rows[:, b.column]))
        if not len(todo):
            continue
        first, second, column = columns[b.first], columns[b.second], columns[b.column]
        a_lo, a_hi = _ranges(first)
        d_lo, d_hi = _second_ranges(schema, b)  # a blank second with ``until`` is present: that value
        starts, tops = _ranges(column)
        code = rows[todo, b.column]
        has_first, has_second = rows[todo, b.first] < len(a_lo), rows[todo, b.second] < len(d_lo)
        a_code = np.minimum(rows[todo, b.first], len(a_lo) - 1)
        a = a_lo[a_code] + np.floor(rng.uniform_open(len(todo)) * (a_hi - a_lo + 1)[a_code]).astype(np.int64)
        # a bin of the column and a first date: the second date's bin follows (not a blank second that stands for
        # ``until``: its column's bin follows from it, below)
        running = _running(rows[todo], b, second)
        timed = has_first & (code < column.value_count) & ~running
        inside = np.minimum(code, column.value_count - 1)
        gap = starts[inside] + np.floor(rng.uniform_open(len(todo)) * (tops - starts + 1)[inside]).astype(np.int64)
        d = a + gap * b.per + np.floor(rng.uniform_open(len(todo)) * b.per).astype(np.int64)
        d_code = _code_of(second, d)
        timed &= d_code >= 0
        rows[todo[timed], b.second] = d_code[timed]
        # both dates and a blank column, or a time that takes the second date past its bounds: the column's bin
        # follows from dates drawn in their bins
        blank = has_first & has_second & ~timed
        d_own = np.minimum(rows[todo, b.second], len(d_lo) - 1)
        drawn = d_lo[d_own] + np.floor(rng.uniform_open(len(todo)) * (d_hi - d_lo + 1)[d_own]).astype(np.int64)
        s_code = _code_of(column, np.floor_divide(drawn - a, b.per))
        rows[todo[blank & (s_code >= 0)], b.column] = s_code[blank & (s_code >= 0)]
        # no first date: the column is blank
        if column.null:
            rows[todo[~has_first], b.column] = column.null_code
        mended[todo] = agrees(schema, b, rows[todo, b.first], rows[todo, b.second], rows[todo, b.column])
    return rows, mended


def _code_of(column: _Binned, values: np.ndarray) -> np.ndarray:
    """Each whole value's code in a binned column: its bin, an end bin where the column clips, its other bucket; -1
    where it has none."""
    low, high = column.bounds
    codes = column.bin_codes(np.clip(values, low, high))
    outside = (values < low) | (values > high)
    if column.other:
        return np.where(outside, column.other_code, codes)
    return codes if column.clip else np.where(outside, -1, codes)


# ------------------------------------------------------------------------------- all the constraints of a row at once
def _graph_nodes(schema: object) -> list[int]:
    """The columns (by position) the rows' difference constraints tie: the dates of every between column and the
    whole-valued columns (integer, date, date-time) of the declared order's pairs that share one with them."""
    pairs = ordered_pairs(schema)
    nodes = {k for b in betweens(schema) for k in (b.first, b.second)}
    whole = {k for k, c in enumerate(schema.columns) if isinstance(c, (IntegerColumn, DateColumn, DatetimeColumn))
             and getattr(c, "between", None) is None}
    grown = True
    while grown:  # a chain ties in its other columns (shipped, between the order and its delivery)
        more = {k for i, j in pairs if {i, j} & nodes and {i, j} <= whole for k in (i, j)} - nodes
        nodes |= more
        grown = bool(more)
    return sorted(nodes)


def _shortest_paths(codes: np.ndarray, schema: object, nodes: list[int], *, with_until: bool = True) -> np.ndarray:
    """Per row, the all-pairs least upper bounds of the differences x_j - x_i (Floyd-Warshall over the constraint
    graph: node 0 the zero, node 1 + m the column ``nodes[m]``): each present column within its bin, each declared
    pair in order, each between column's dates within its bin's span (not for its other bucket, which is two
    pieces: its three bins' agreement covers it), a first date within the span of ``until`` where the second is
    blank and stands for it. A row is feasible iff no diagonal is negative."""
    columns, pairs = schema.columns, ordered_pairs(schema)
    place = {k: m + 1 for m, k in enumerate(nodes)}
    size = len(nodes) + 1
    bound = np.full((len(codes), size, size), np.inf)
    bound[:, np.arange(size), np.arange(size)] = 0.0
    present = {}
    for k in nodes:
        lows, tops = _ranges(columns[k])
        code = codes[:, k]
        present[k] = code < len(lows)
        inside = np.minimum(code, len(lows) - 1)
        bound[:, 0, place[k]] = np.where(present[k], tops[inside], np.inf)
        bound[:, place[k], 0] = np.where(present[k], -lows[inside], np.inf)
    for i, j in pairs:
        if i in place and j in place:  # x_i - x_j <= 0
            edge = np.where(present[i] & present[j], 0.0, np.inf)
            bound[:, place[j], place[i]] = np.minimum(bound[:, place[j], place[i]], edge)
    for b in (b for b in betweens(schema) if with_until or b.until is None):
        column = columns[b.column]
        s_lo, s_hi = _spans(column, b.per)
        code = codes[:, b.column]
        on = present[b.first] & present[b.second] & (code < column.value_count)  # a bin: one interval
        inside = np.minimum(code, column.value_count - 1)
        f, t = place[b.first], place[b.second]
        bound[:, f, t] = np.minimum(bound[:, f, t], np.where(on, s_hi[inside], np.inf))
        bound[:, t, f] = np.minimum(bound[:, t, f], np.where(on, -s_lo[inside], np.inf))
        if b.until is not None:  # a blank second standing for until: the first date within the span of it
            running = present[b.first] & _running(codes, b, columns[b.second]) & (code < column.value_count)
            bound[:, 0, f] = np.minimum(bound[:, 0, f], np.where(running, b.until - s_lo[inside], np.inf))
            bound[:, f, 0] = np.minimum(bound[:, f, 0], np.where(running, s_hi[inside] - b.until, np.inf))
    for m in range(size):
        bound = np.minimum(bound, bound[:, :, m, None] + bound[:, None, m, :])
    return bound


def jointly_unfit(codes: np.ndarray, schema: object, *, with_until: bool = True) -> np.ndarray:
    """The rows whose bins no values can fill that keep every between column's bin and the declared order together
    (a system of difference constraints with a negative cycle); ``with_until=False``: without the between columns
    that declare ``until``. Public."""
    nodes = _graph_nodes(schema)
    codes = np.asarray(codes)
    if not nodes or not len(codes):
        return np.zeros(len(codes), dtype=bool)
    paths = _shortest_paths(codes, schema, nodes, with_until=with_until)
    return (np.diagonal(paths, axis1=1, axis2=2) < 0).any(axis=1)


def agreeing_targets(targets: Sequence[tuple[tuple[str, ...], np.ndarray]],
                     schema: object) -> list[tuple[tuple[str, ...], np.ndarray]]:
    """Marginal answers conditioned on the ``between`` columns' agreement: in a marginal holding a between column
    and both its dates, the cells that cannot agree set to 0 and the rest scaled back to the answer's total. Public."""
    names = list(schema.names)
    triples = [((names[b.first], names[b.second], names[b.column]), b) for b in betweens(schema)]
    out = []
    for attributes, answer in targets:
        answer = np.asarray(answer, dtype=np.float64)
        kept = answer
        for triple, b in triples:
            if all(name in attributes for name in triple):  # a marginal this large is measured: its mask is no larger
                mask = agreement(schema, b)
                places = [attributes.index(name) for name in triple]
                order = np.argsort(places)
                view = mask.transpose(order)  # the mask's axes in the marginal's order
                shape = [1] * answer.ndim
                for axis, place in enumerate(sorted(places)):
                    shape[place] = view.shape[axis]
                kept = kept * view.reshape(shape)
        total = kept.sum()
        out.append((attributes, kept * (answer.sum() / total) if total > 0 else answer))
    return out


def agreeing_moves(schema: object) -> Callable[[np.ndarray, np.ndarray, int], np.ndarray] | None:
    """For the row fit (:func:`~dprelease.rows.fitting.fit_rows`' ``allowed``): the codes ``axis`` may move to and
    keep every between column's three bins in agreement, a (len(rows), size of axis) mask. None without a between
    column. Public."""
    found = betweens(schema)
    if not found:
        return None

    def allowed(records: np.ndarray, rows: np.ndarray, axis: int) -> np.ndarray:
        out = np.ones((len(rows), schema.columns[axis].size), dtype=bool)
        every = np.arange(schema.columns[axis].size)[None, :]
        for b in found:
            if axis in (b.first, b.second, b.column):
                a, d, s = (every if k == axis else records[rows, k][:, None] for k in (b.first, b.second, b.column))
                out &= agrees(schema, b, a, d, s)
        return out

    return allowed


# ------------------------------------------------------------------------------------------------------ the values
def between_values(values: dict[str, np.ndarray], codes: np.ndarray, schema: object,
                   draw: Callable[[Column, np.ndarray], np.ndarray], present: dict[str, np.ndarray],
                   uniform: Callable[[int], np.ndarray]) -> dict[str, np.ndarray]:
    """Redraw, in place, the two dates of every row whose three bins agree so that their time between falls in its
    bin, and write each between column as the time between its written dates (to ``until`` where the second is
    blank and stands for it); returns each between column's blanks (a date blank or other). A redraw is kept only where it also keeps the schema's declared order and the
    between columns drawn before it that share a date. ``draw(column, bins)``: the decoder's draw; ``present``: per
    column, the rows whose code is a bin; ``uniform(n)``: n uniform draws in [0, 1). Post-processing of public codes
    with public randomness."""
    columns, names = schema.columns, list(schema.names)
    pairs = ordered_pairs(schema)
    done: list[tuple[Between, np.ndarray, np.ndarray, np.ndarray]] = []  # (between, agreeing rows, its spans)

    def kept(todo: np.ndarray, b: Between, a: np.ndarray, d: np.ndarray) -> np.ndarray:
        """Whether the candidate dates ``a``, ``d`` of rows ``todo`` keep the declared order and the earlier between
        columns that share a date."""
        def value(k: int) -> np.ndarray:
            return a if k == b.first else d if k == b.second else _as_units(values[names[k]][todo])

        def both(i: int, j: int) -> np.ndarray:
            return present[names[i]][todo] & present[names[j]][todo]

        ok = np.ones(len(todo), dtype=bool)
        for i, j in pairs:
            if {i, j} & {b.first, b.second}:
                ok &= ~both(i, j) | (value(i) <= value(j))
        for other, agreeing, s_lo, s_hi in done:
            if {other.first, other.second} & {b.first, b.second}:
                fits = _in_span(value(other.second) - value(other.first), codes[todo, other.column],
                                columns[other.column], other.per, s_lo, s_hi)
                ok &= ~agreeing[todo] | fits
        return ok

    for b in betweens(schema):
        first, second, column = columns[b.first], columns[b.second], columns[b.column]
        running = _running(codes, b, second)
        both = present[first.name] & (present[second.name] | running)
        agreeing = both & agrees(schema, b, codes[:, b.first], codes[:, b.second], codes[:, b.column])
        rows = np.flatnonzero(agreeing & ~running)
        a_lo, a_hi = _ranges(first)
        d_lo, d_hi = _second_ranges(schema, b)
        s_lo, s_hi = _spans(column, b.per)
        a_vals, d_vals = _as_units(values[first.name]), _as_units(values[second.name])
        code = codes[:, b.column]
        todo = rows[code[rows] < column.value_count]  # a bin: the first date drawn, then the time between
        starts, tops = _ranges(column)
        for _ in range(VALUE_ROUNDS):
            if not len(todo):
                break
            a = _as_units(draw(first, codes[todo, b.first]))
            s = starts[code[todo]] + np.floor(uniform(len(todo)) * (tops - starts + 1)[code[todo]]).astype(np.int64)
            d = a + np.minimum(s, tops[code[todo]]) * b.per + np.floor(uniform(len(todo)) * b.per).astype(np.int64)
            fits = (d >= d_lo[codes[todo, b.second]]) & (d <= d_hi[codes[todo, b.second]]) & kept(todo, b, a, d)
            a_vals[todo[fits]], d_vals[todo[fits]] = a[fits], d[fits]
            todo = todo[~fits]
        # Left (an end bin that clips, the other bucket, bins that barely meet), and the rows whose blank second
        # stands for ``until`` (it stays blank; its value here is until): both dates drawn alone until their time
        # between is in the code's span, then a witness.
        todo = np.union1d(todo, np.flatnonzero(agreeing & (running | (code >= column.value_count))))
        for _ in range(VALUE_ROUNDS):
            if not len(todo):
                break
            a = _as_units(draw(first, codes[todo, b.first]))
            d = np.full(len(todo), 0 if b.until is None else b.until, dtype=np.int64)
            live = ~running[todo]
            d[live] = _as_units(draw(second, codes[todo[live], b.second]))
            fits = _in_span(d - a, code[todo], column, b.per, s_lo, s_hi) & kept(todo, b, a, d)
            a_vals[todo[fits]], d_vals[todo[fits]] = a[fits], d[fits]
            todo = todo[~fits]
        if len(todo):
            a, d = _witness(codes[todo, b.first], codes[todo, b.second], code[todo], column, b.per,
                            (a_lo, a_hi), (d_lo, d_hi), (s_lo, s_hi))
            a_vals[todo], d_vals[todo] = a, d
        values[first.name] = _as_type(a_vals, values[first.name])
        values[second.name] = _as_type(d_vals, values[second.name])
        done.append((b, agreeing, s_lo, s_hi))
    _repair(values, codes, schema, present, uniform)
    for k in _graph_nodes(schema):  # a date-time written to the minute, floored there: the written dates are the
        # values, and each between column is written from them below (floor keeps a declared order)
        values[names[k]] = _as_type(to_precision(_as_units(values[names[k]]), columns[k]), values[names[k]])
    blanks = {}
    for b in betweens(schema):  # written from the final dates (a later column may have drawn a shared date again)
        first, second, column = columns[b.first], columns[b.second], columns[b.column]
        running = _running(codes, b, second)
        both = present[first.name] & (present[second.name] | running)
        gap = time_between(_as_units(values[first.name]),
                           np.where(running, b.until, _as_units(values[second.name])), b.per)
        values[column.name] = np.where(both, gap, 0).astype(np.int64)
        blanks[column.name] = ~both
    return blanks


def _running(codes: np.ndarray, between: Between, second: Column) -> np.ndarray:
    """The rows whose second column is blank (its NULL code) and stands for the column's ``until``."""
    if between.until is None:
        return np.zeros(len(codes), dtype=bool)
    return codes[:, between.second] == second.null_code


def _repair(values: dict[str, np.ndarray], codes: np.ndarray, schema: object, present: dict[str, np.ndarray],
            uniform: Callable[[int], np.ndarray]) -> None:
    """The last resort: a row whose drawn values still break the declared order or a between column's bin, where its
    bins allow all of them at once, takes values drawn column by column, each uniformly among the whole values the
    constraints leave it given the columns drawn before it. The constraints' shortest paths make that interval never
    empty (a path-consistent system of difference constraints is decomposable: Dechter, Meiri & Pearl 1991), so every
    such row keeps them all; the draw is not the independent draws conditioned on them (the rejection before it is),
    only a spread of values that keeps them."""
    nodes = _graph_nodes(schema)
    if not nodes:
        return
    columns, names = schema.columns, list(schema.names)
    units = {k: _as_units(values[names[k]]) for k in nodes}
    broken = np.zeros(len(codes), dtype=bool)
    for i, j in ordered_pairs(schema):
        if i in units and j in units:
            broken |= present[names[i]] & present[names[j]] & (units[i] > units[j])
    for b in betweens(schema):
        column = columns[b.column]
        code = codes[:, b.column]
        s_lo, s_hi = _spans(column, b.per)
        running = _running(codes, b, columns[b.second])
        on = present[names[b.first]] & (present[names[b.second]] | running) & (code < column.value_count)
        second = np.where(running, b.until, units[b.second]) if b.until is not None else units[b.second]
        broken |= on & ~_in_span(second - units[b.first], np.minimum(code, column.value_count - 1),
                                 column, b.per, s_lo, s_hi)
    rows = np.flatnonzero(broken)
    if not len(rows):
        return
    paths = _shortest_paths(codes[rows], schema, nodes)
    rows, paths = rows[~(np.diagonal(paths, axis1=1, axis2=2) < 0).any(axis=1)], paths[
        ~(np.diagonal(paths, axis1=1, axis2=2) < 0).any(axis=1)]
    drawn = np.zeros((len(rows), len(nodes) + 1))  # node 0, the zero, is drawn: 0
    done = [0]
    for m, k in enumerate(nodes, start=1):
        here = present[names[k]][rows]
        low = np.max(drawn[:, done] - paths[:, m, done], axis=1)
        high = np.min(drawn[:, done] + paths[:, done, m], axis=1)
        low, high = np.where(here, low, 0), np.where(here, np.maximum(high, low), 0)  # an absent column: no bounds
        drawn[:, m] = np.minimum(low + np.floor(uniform(len(rows)) * (high - low + 1)), high)
        done.append(m)
        units[k][rows[here]] = drawn[here, m].astype(np.int64)
        values[names[k]] = _as_type(units[k], values[names[k]])


def _as_units(values: np.ndarray) -> np.ndarray:
    """Decoded dates (datetime64[D]) or date-times (datetime64[s]) as whole days or seconds since 1970."""
    return np.asarray(values).astype(np.int64)


def _as_type(units: np.ndarray, like: np.ndarray) -> np.ndarray:
    return units.astype(np.asarray(like).dtype)


def _in_span(difference: np.ndarray, code: np.ndarray, column: IntegerColumn, per: int,
             s_lo: np.ndarray, s_hi: np.ndarray) -> np.ndarray:
    """Whether each difference (in the sources' unit) is one the column's code stands for."""
    inside = (difference >= s_lo[code]) & (difference <= s_hi[code])
    if column.other:
        low, high, below = _outside(column, per)
        inside = np.where(code == column.other_code, ((difference < low) & below) | (difference > high), inside)
    return inside


def _witness(a_code, d_code, s_code, column, per, a_range, d_range, s_range):
    """Two dates in their bins whose difference is in the code's span (the three bins agree): the first as late as
    the span's top allows, the second as early as its bin and the span's foot allow."""
    a_lo, a_hi = (r[a_code] for r in a_range)
    d_lo, d_hi = (r[d_code] for r in d_range)
    least, most = (r[s_code] for r in s_range)
    if column.other:  # the other bucket: the far side that the bins reach
        low, high, below = _outside(column, per)
        is_other = s_code == column.other_code
        below = below & (d_lo - a_hi < low)
        least = np.where(is_other, np.where(below, -_FAR, high + 1), least)
        most = np.where(is_other, np.where(below, low - 1, _FAR), most)
    a = np.clip(d_lo - most, a_lo, a_hi)
    d = np.minimum(np.maximum(d_lo, a + least), d_hi)
    return a, d
