"""Synthetic rows fitted to the released workload answers: discrete local search (post-processing).

Rounding a model to n integer rows costs accuracy of its own: a model over 120,960 cells
rounded to 48,842 rows cannot keep every marginal, and on 7-column Adult the rounded rows'
workload error is 2-3% above the model's. This step moves the rows toward the answers the
release publishes anyway. It minimizes a loss summed over the cells of the workload marginals M,
with m = n * answer_M(cell) the rows the answers expect there and c the rows there:

    ``l1``        |c - m|                        D(rows), the L1 distance to the answers
    ``poisson``   E|c - X|,  X ~ Poisson(m)      the expected L1 distance to a table drawn from them

``poisson`` is the default (:data:`DEFAULT_LOSS`). The answers are expected counts, and a real table's
count in a cell that expects m rows scatters around m; the integer closest to such a count in expectation
is its median, not the integer nearest m. Where m is large the two agree; where m is under a row or two,
the usual case in a large marginal (a 3-way marginal of full Adult has up to 841,500 cells for 48,842 rows),
``poisson`` leaves a cell expecting 0.6 rows empty (E|0 - X| = 0.6 against E|1 - X| = 0.70) where ``l1``
fills it, and spends the row where it is likelier to be right. The rows then score better than the model's
own answers: full Adult all 3-way at eps = 1, 0.1617 avg L1 against the answers' 0.1627 and ``l1``'s
0.1655 (docs/decisions.md). Each cell's loss is convex in c, and E|c - X| = m - c + 2c F(c) - 2m F(c - 1),
F the Poisson CDF, so a row entering or leaving changes it by 1 - 2F(c) or 2F(c - 1) - 1.

Rows move one attribute of one row at a time. Attribute by attribute (in random order), over
chunks of rows (in random order), every row's best new value is estimated from the marginals
holding that attribute (the only ones a change of it touches). Moves made together can overshoot
(every row short of the same cell would move at once), so the best candidates are checked exactly:
each one's gain given every candidate ranked above it (a prefix sum per marginal cell); those that
stop improving are dropped and the rest rechecked until all improve. Then they are applied and
the chunk is searched again, up to :data:`MAX_SWEEPS` times. So the loss never increases.

Privacy: post-processing only. Its inputs are released answers (a model's workload marginals),
rows already released from that model, and public randomness for the visiting order; it never
reads the private table, so the release's guarantee is unchanged (Dwork & Roth Prop. 2.1).

One pass visits every attribute of every row once. Later passes still find moves (the cells the first filled
free others) and close part of the rows' gap to the model where rows are few against its cells: on the tuning
suite at eps = 10, 1.5-3 % of the avg L1 on tables of 1,000-15,000 rows, where a pass takes under a second,
against 0-0.5 % on tables of 50,000-226,000 rows, where it takes 10-30 s. So :func:`fitted_rows` makes further
passes while the fit's work stays within :data:`PASS_WORK` row-attributes (a public budget: n is public under
the privacy unit), and stops after a pass that lowers the loss by less than :data:`MIN_PASS_GAIN` of what it was
(docs/decisions.md).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from scipy.special import pdtr

from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.errors import InputError
from dprelease.privacy.rng import RandomSource
from dprelease.validation import check_positive_int

#: Rows x values x marginals gathered per chunk: bounds the memory of one step (4 bytes each).
CHUNK_WORK = 8_000_000
#: Candidate moves checked exactly per search, best first.
MAX_MOVES = 512
#: Times one chunk of rows is searched again after its moves are applied.
MAX_SWEEPS = 3
#: Rounds of dropping moves that stopped improving before only the improving prefix is kept.
MAX_PRUNING_ROUNDS = 20
#: A move counts as improving when its gain exceeds this, in rows, plus the float32 rounding bound of the gains it
#: sums (:data:`FLOAT32_ROUNDING` per stored gain): so every move kept lowers the loss.
TOLERANCE = 1e-9
#: The most a gain in [-1, 1] stored in float32 is off by (half a unit in the last place below 1: 2^-25).
FLOAT32_ROUNDING = 2.0 ** -25
#: The per-cell losses :func:`fit_rows` can minimize (see the module docstring).
LOSSES = ("l1", "poisson")
#: The row method ``fitted``'s loss (docs/decisions.md: lower avg L1 than ``l1`` on the tuning suite).
DEFAULT_LOSS = "poisson"
#: Moves are sought among those whose float32 estimate gains more than this many rows (float32 sums of up to
#: a few hundred terms in [-1, 1] are off by < 1e-4; a smaller gain is not worth a move).
SCREEN = 1e-4
#: Row-attributes (rows x columns x passes) the default fit may visit: one pass always, more while within this.
PASS_WORK = 1_000_000
#: Passes of the default fit, at most.
MAX_PASSES = 8
#: Rows x the workload's marginal-attributes (each marginal is visited once for each of its attributes) x passes
#: the default fit may spend: a cap on the passes where the workload is large, not only the table. A 3,000-row
#: survey of 43 columns with all 1-3-way marginals (13,287) took 7 passes at 117 M each, 172 of the run's 198 s; the
#: heaviest multi-pass case of the suite and the shape pages (binary16's 2 passes of 36 M) stays within it.
FIT_WORK = 80_000_000
#: The default fit stops after a pass that lowers D by less than this fraction of D before it.
MIN_PASS_GAIN = 0.02


def _checked_target(domain: Domain, attributes: Sequence[str], target: object) -> np.ndarray:
    """``target`` as float64, after checking it holds one value per cell of the marginal on ``attributes``."""
    domain.canonical(attributes)  # every attribute known, none twice
    expected = tuple(domain.size_of(a) for a in attributes)
    if np.shape(target) != expected:
        raise InputError(f"target for marginal {list(attributes)} must have shape {expected} (one value per cell), "
                         f"got shape {np.shape(target)}")
    return np.asarray(target, dtype=np.float64)


class _MarginalResidual:
    """One workload marginal, shaped like it (attributes in domain order): per cell the residual (counts minus
    target, in rows), the target in rows, and the loss's change when a row enters or leaves (float32: they rank
    moves and give the exact check its starting point)."""

    def __init__(self, rows: Dataset, attributes: tuple[str, ...], target: object, loss: str) -> None:
        target = _checked_target(rows.domain, attributes, target)
        canonical = rows.domain.canonical(attributes)
        self.axes = list(rows.domain.axes(canonical))
        self.shape = tuple(rows.domain.sizes[axis] for axis in self.axes)
        aligned = np.transpose(target, [attributes.index(a) for a in canonical])
        self.loss = loss
        self.expected = rows.n * aligned
        self.residual = rows.marginal_counts(canonical) - self.expected
        self.enter = _entering_gain(self.residual, self.expected, loss).astype(np.float32)
        self.leave = _leaving_gain(self.residual, self.expected, loss).astype(np.float32)


class _AttributeView:
    """A marginal's cells with one attribute as the last axis: each row of its arrays is one cell of the others. The
    arrays are windows of the attribute's flat buffers, bound by :class:`_Views`."""

    def __init__(self, marginal: _MarginalResidual, records: np.ndarray, axis: int) -> None:
        self.marginal, self.position = marginal, marginal.axes.index(axis)
        shape = list(marginal.shape)
        self.moved = shape[:self.position] + shape[self.position + 1:] + [shape[self.position]]  # ``axis`` last
        self.count = math.prod(shape)  # its cells, in the buffers
        others = [a for a in marginal.axes if a != axis]
        if not others:
            self.row_of = np.zeros(len(records), dtype=np.intp)
        elif len(others) == 1:  # its code is the cell (ravelling it was a tenth of a 10^6-row fit)
            self.row_of = records[:, others[0]]  # a view: this pass moves only ``axis``
        else:
            self.row_of = np.ravel_multi_index(tuple(records[:, a] for a in others),
                                               [marginal.shape[marginal.axes.index(a)] for a in others])

    def bind(self, name: str, window: np.ndarray) -> None:
        """Copy the marginal's ``name`` array into ``window`` (a flat slice of a buffer), ``axis`` last, and use it."""
        window.reshape(self.moved)[...] = np.moveaxis(getattr(self.marginal, name), self.position, -1)
        setattr(self, name, window.reshape(-1, self.moved[-1]))

    def write_back(self) -> None:
        """Copy what the moves changed back into the marginal's own arrays, in place (the buffers go with the views)."""
        for name in ("residual", "enter", "leave"):
            getattr(self.marginal, name)[...] = np.moveaxis(getattr(self, name).reshape(self.moved), -1,
                                                             self.position)


class _Views:
    """The views of one attribute's marginals, their arrays laid end to end in one flat buffer per quantity (each
    view's arrays are windows of it): a cell of any view is one index, ``offsets[view] + cell``, so a batch of cells
    across all views is gathered or updated in one operation instead of one per view (a 32-column table's 1-3-way
    workload has 497 views of each attribute)."""

    NAMES = ("residual", "expected", "enter", "leave")

    def __init__(self, views: list[_AttributeView]) -> None:
        self.views = views
        self.size = views[0].moved[-1]
        counts = [view.count for view in views]
        self.offsets = np.concatenate([[0], np.cumsum(counts[:-1])]).astype(np.intp)[:, None]
        for name in self.NAMES:
            flat = np.empty(sum(counts), dtype=getattr(views[0].marginal, name).dtype)
            for view, start, count in zip(views, self.offsets[:, 0], counts):
                view.bind(name, flat[start:start + count])
            setattr(self, name, flat)

    def cells(self, rows: np.ndarray) -> np.ndarray:
        """(views, rows): each row's cell of the other attributes in each view."""
        return np.stack([view.row_of[rows] for view in self.views])


def _move_all(views: _Views, rows: np.ndarray, old: np.ndarray, new: np.ndarray) -> None:
    """Move ``rows`` from value ``old`` to ``new`` in every view; refresh the touched cells' gains in one batch."""
    cells = views.offsets + views.cells(rows) * views.size  # (views, rows): each row's cell, value 0, in the buffer
    source, target = cells + old, cells + new
    # Each cell lies in one view, so it sees its -1s, then its +1s, in the order of the rows, as one view at a time did.
    np.add.at(views.residual, source.reshape(-1), -1.0)
    np.add.at(views.residual, target.reshape(-1), 1.0)
    # Once per cell: a batch's moves share many cells (all of a 1-way view's moves share two), and the Poisson
    # gains cost far more than finding the distinct cells; each cell's gain is the same value either way.
    touched = np.unique(np.concatenate([source, target], axis=1))
    residual, expected = views.residual[touched], views.expected[touched]
    loss = views.views[0].marginal.loss
    views.enter[touched] = _entering_gain(residual, expected, loss)
    views.leave[touched] = _leaving_gain(residual, expected, loss)


def _poisson_cdf(counts: np.ndarray, means: np.ndarray) -> np.ndarray:
    """P(X <= counts) for X ~ Poisson(means), counts integer-valued (-1 allowed), elementwise."""
    out = np.exp(-means)  # counts = 0, the usual case: most cells of a large marginal are empty
    more = counts > 0
    if more.any():
        out[more] = pdtr(counts[more], means[more])
    out[counts < 0] = 0.0
    return out


def _counts(residual: np.ndarray, expected: np.ndarray) -> np.ndarray:
    return np.rint(residual + expected)  # residual = counts - expected: integers up to float error


def _entering_gain(residual: np.ndarray, expected: np.ndarray, loss: str) -> np.ndarray:
    """The loss's decrease when a row enters each cell.

    ``l1``: |r| - |r + 1|: +1 where the cell is short by a row or more, -1 where it is not short at all.
    ``poisson``: f(c) - f(c + 1) = 1 - 2 P(X <= c), f(c) = E|c - X|, X ~ Poisson(expected).
    """
    if loss == "l1":
        return np.clip(-2.0 * residual - 1.0, -1.0, 1.0)
    return 1.0 - 2.0 * _poisson_cdf(_counts(residual, expected), expected)


def _leaving_gain(residual: np.ndarray, expected: np.ndarray, loss: str) -> np.ndarray:
    """The loss's decrease when a row leaves each cell: |r| - |r - 1|, or f(c) - f(c - 1) = 2 P(X <= c - 1) - 1."""
    if loss == "l1":
        return np.clip(2.0 * residual - 1.0, -1.0, 1.0)
    return 2.0 * _poisson_cdf(_counts(residual, expected) - 1.0, expected) - 1.0


def _cell_loss(residual: np.ndarray, expected: np.ndarray, loss: str) -> np.ndarray:
    """Each cell's loss: |r|, or E|c - X| = m - c + 2 c P(X <= c) - 2 m P(X <= c - 1) (X ~ Poisson(m))."""
    if loss == "l1":
        return np.abs(residual)
    counts = _counts(residual, expected)
    return (expected - counts + 2.0 * counts * _poisson_cdf(counts, expected)
            - 2.0 * expected * _poisson_cdf(counts - 1.0, expected))


def workload_distance(records: np.ndarray, domain: Domain, targets: Sequence[tuple[tuple[str, ...], np.ndarray]]
                      ) -> float:
    """Mean over ``targets`` of the L1 distance between the rows' marginal and the target (fractions)."""
    if not targets:
        return 0.0
    rows = Dataset.from_records(records, domain, source="records")
    return float(np.mean([np.abs(rows.marginal(a) - _checked_target(domain, a, t)).sum() for a, t in targets]))


def workload_loss(records: np.ndarray, domain: Domain, targets: Sequence[tuple[tuple[str, ...], np.ndarray]],
                  loss: str = DEFAULT_LOSS) -> float:
    """The loss :func:`fit_rows` minimizes, in rows: summed over ``targets``' cells (``l1``: D)."""
    _check_loss(loss)
    if not targets or len(records) == 0:
        return 0.0
    rows = Dataset.from_records(np.asarray(records), domain, source="records")
    return _total_loss([_MarginalResidual(rows, tuple(a), t, loss) for a, t in targets])


def _check_loss(loss: object) -> None:
    if loss not in LOSSES:
        raise InputError(f"loss must be one of {list(LOSSES)}, got {loss!r}")


def fit_rows(records: np.ndarray, domain: Domain, targets: Sequence[tuple[tuple[str, ...], np.ndarray]],
             rng: RandomSource, *, passes: int = 1, min_gain: float = 0.0, loss: str = "l1",
             on_step: Callable[[int, int], None] | None = None,
             allowed: Callable[[np.ndarray, np.ndarray, int], np.ndarray] | None = None) -> np.ndarray:
    """Rows moved, one attribute of one row at a time, to lower their loss against the marginals in ``targets``.

    Args:
        records: (n, d) value codes in domain order (not modified).
        domain: the public domain.
        targets: (attributes, fractions) pairs, the answers the rows should reproduce.
        rng: randomness for the order attributes and rows are visited in (public).
        passes: sweeps over all attributes, at most.
        min_gain: stop after a sweep that lowered the loss by less than this fraction of the loss before it (0:
            make all ``passes``; a sweep that finds no move at all always ends the fit: the next would find none).
        loss: ``"l1"`` (D, the L1 distance to the targets) or ``"poisson"`` (the expected L1 distance to a
            table drawn from them); see the module docstring.
        on_step: ``on_step(done, total)`` after each chunk of rows, in rows x attributes visited (progress only).
        allowed: ``allowed(records, rows, axis)``, a (len(rows), size of axis) mask of the codes each row's
            ``axis`` may move to (public: the schema's declared order, :mod:`dprelease.schema.orders`); None: any.

    Returns:
        A new (n, d) array; its :func:`workload_loss` against ``targets`` is never larger than the input's.
    """
    check_positive_int(passes, "passes", minimum=0)
    if not 0 <= min_gain < 1:
        raise InputError(f"min_gain must be a number in [0, 1), got {min_gain!r}")
    _check_loss(loss)
    records = np.array(records, dtype=np.int64, copy=True)
    n_rows = len(records)
    if n_rows == 0 or not targets:
        return records
    rows = Dataset.from_records(records, domain, source="records")  # checks every code against the domain
    marginals = [_MarginalResidual(rows, tuple(a), t, loss) for a, t in targets]
    visited, total = 0, passes * len(domain) * n_rows
    # The loss is summed only to decide on another pass (over every cell, it costs a pass's worth of gains).
    current = _total_loss(marginals) if passes > 1 else None
    for done in range(passes):
        before = current
        for axis in rng.permutation(len(domain)):
            attribute_views = [_AttributeView(m, records, axis) for m in marginals if axis in m.axes]
            if not attribute_views:
                visited += n_rows
                continue
            views = _Views(attribute_views)
            size = domain.sizes[axis]
            chunk = max(1, CHUNK_WORK // (size * len(attribute_views)))
            order = rng.permutation(n_rows)
            for start in range(0, n_rows, chunk):
                for _sweep in range(MAX_SWEEPS):  # moves to cells others just filled are re-sought
                    if not _improve_attribute(records, order[start:start + chunk], axis, views, allowed):
                        break
                if on_step is not None:
                    on_step(visited + min(start + chunk, n_rows), total)
            visited += n_rows
            for view in attribute_views:
                view.write_back()
        if done + 1 == passes:
            break
        current = _total_loss(marginals)
        if before - current <= min_gain * before:
            break
    if on_step is not None and visited < total:
        on_step(total, total)  # stopped early: the fit is done
    return records


def _total_loss(marginals: Sequence[_MarginalResidual]) -> float:
    """The summed loss, in rows, of the rows' marginals against the targets (``l1``: D)."""
    return float(sum(_cell_loss(m.residual, m.expected, m.loss).sum() for m in marginals))


def _improve_attribute(records: np.ndarray, rows: np.ndarray, axis: int, views: _Views,
                       allowed: Callable[[np.ndarray, np.ndarray, int], np.ndarray] | None = None) -> int:
    """Give ``rows`` better values of attribute ``axis``, keeping only moves that lower the loss (and that
    ``allowed`` allows); how many moved."""
    current = records[rows, axis]
    everyone = np.arange(len(rows))
    gain = np.zeros((len(rows), views.size), dtype=np.float32)
    gathered = np.empty_like(gain)
    leaving = np.zeros(len(rows), dtype=np.float32)
    for view in views.views:
        cells = view.row_of[rows]
        np.take(view.enter, cells, axis=0, out=gathered)
        gain += gathered
        leaving += view.leave[cells, current]
    gain += leaving[:, None]
    if allowed is not None:  # a row's own codes decide (each move changes one row): exact for every move kept
        gain[~allowed(records, rows, axis)] = -np.inf
    gain[everyone, current] = -np.inf
    best = gain.argmax(axis=1)
    best_gain = gain[everyone, best]
    movers = np.flatnonzero(best_gain > SCREEN)
    # Only a few hundred moves per search stay compatible with the ones ranked above them; checking the
    # rest exactly costs more than searching again after the best are applied.
    movers = movers[np.argsort(-best_gain[movers], kind="stable")][:MAX_MOVES]
    if movers.size == 0:
        return 0
    moves = _RankedMoves(rows[movers], current[movers], best[movers], views)
    alive = np.ones(movers.size, dtype=bool)
    # A move's gain sums two float32 gains per view; above this bound it surely lowers the loss.
    threshold = TOLERANCE + 2 * len(views.views) * FLOAT32_ROUNDING
    for _ in range(MAX_PRUNING_ROUNDS):
        improving = moves.exact_gains(alive) > threshold
        if (improving | ~alive).all():
            break
        alive &= improving
    else:  # each move's gain is exact given all live moves ranked above it: keep the improving prefix
        improving = (moves.exact_gains(alive) > threshold) | ~alive
        alive[int(np.argmin(improving)):] = False
    movers = movers[alive]
    if movers.size == 0:
        return 0
    _move_all(views, rows[movers], current[movers], best[movers])
    records[rows[movers], axis] = best[movers]
    return int(movers.size)


class _RankedMoves:
    """Candidate moves in rank order, their cells in every view sorted once (all views together) for prefix sums."""

    def __init__(self, rows: np.ndarray, old: np.ndarray, new: np.ndarray, views: _Views) -> None:
        self.k = k = rows.size
        cells = views.offsets + views.cells(rows) * views.size  # (views, k), in the buffers
        source, target = cells + old, cells + new

        self.loss = views.views[0].marginal.loss
        self.r_source, self.r_target = views.residual[source], views.residual[target]
        self.m_source, self.m_target = views.expected[source], views.expected[target]
        # Each move's gains with no other move applied: the stored ones (float32, see ``threshold``).
        self.leave, self.enter = views.leave[source].astype(np.float64), views.enter[target].astype(np.float64)
        # The gains as of the last check and the flows they were computed at: a pruning round changes the flow
        # into few cells, so only those are computed again.
        self.leave_now, self.enter_now = self.leave.copy(), self.enter.copy()
        self.earlier = np.zeros((len(views.views), 2 * k))
        # One event per (view, move, source or target), a buffer index (views' cells never share one); sorted by
        # index (so by view, then cell), then rank.
        ranks = np.broadcast_to(np.arange(k), cells.shape)
        events = np.concatenate([source, target], axis=1).reshape(-1)
        ranked = np.concatenate([ranks, ranks], axis=1).reshape(-1)
        self.order = np.argsort(events * (2 * k) + ranked)
        sorted_events = events[self.order]
        first = np.empty(events.size, dtype=bool)
        first[0], first[1:] = True, sorted_events[1:] != sorted_events[:-1]
        self.group_start = np.maximum.accumulate(np.where(first, np.arange(events.size), 0))
        self.shape = (len(views.views), 2 * k)

    def exact_gains(self, alive: np.ndarray) -> np.ndarray:
        """Each move's decrease of the loss (rows) if exactly the ``alive`` moves ranked before it applied: the
        stored gain where no earlier move shares its cell, else computed in float64."""
        k = self.k
        live = alive.astype(np.float64)
        flows = np.broadcast_to(np.concatenate([-live, live]), self.shape).reshape(-1)
        sorted_flows = flows[self.order]
        running = np.cumsum(sorted_flows) - sorted_flows  # flow of all events before this one
        earlier = np.empty(flows.size)
        earlier[self.order] = running - running[self.group_start]
        earlier = earlier.reshape(self.shape)
        for half, stored, now, residual, expected, gain in (
                (slice(None, k), self.leave, self.leave_now, self.r_source, self.m_source, _leaving_gain),
                (slice(k, None), self.enter, self.enter_now, self.r_target, self.m_target, _entering_gain)):
            flow = earlier[:, half]
            changed = flow != self.earlier[:, half]
            alone = changed & (flow == 0)
            now[alone] = stored[alone]
            shared = changed & (flow != 0)
            now[shared] = gain(residual[shared] + flow[shared], expected[shared], self.loss)
        self.earlier = earlier
        return (self.leave_now + self.enter_now).sum(axis=0)


def fitted_rows(model: object, count: int, rng: RandomSource, *, domain: Domain,
                targets: Sequence[tuple[tuple[str, ...], np.ndarray]],
                on_step: Callable[[int, int], None] | None = None) -> np.ndarray:
    """The row method ``fitted``: the model rounded to ``count`` rows, then moved toward ``targets`` (:func:`fit_rows`
    with :data:`DEFAULT_LOSS`, :func:`default_passes` passes at most, stopping after one that gains less than
    :data:`MIN_PASS_GAIN`).

    Post-processing: the model and the targets are released outputs (Prop. 2.1).
    """
    return fit_rows(model.round(count, rng), domain, targets, rng, passes=default_passes(count, len(domain), targets),
                    min_gain=MIN_PASS_GAIN, loss=DEFAULT_LOSS, on_step=on_step)


def default_passes(rows: int, columns: int,
                   targets: Sequence[tuple[tuple[str, ...], np.ndarray]] = ()) -> int:
    """Passes of the default fit over ``rows`` x ``columns`` (public): one, and more while the work stays within
    :data:`PASS_WORK` and, over ``targets``' marginals, :data:`FIT_WORK`; at most :data:`MAX_PASSES`."""
    passes = max(1, min(MAX_PASSES, PASS_WORK // max(1, rows * columns)))
    per_pass = rows * sum(len(attributes) for attributes, _ in targets)
    return max(1, min(passes, FIT_WORK // per_pass)) if per_pass else passes
