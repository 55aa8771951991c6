"""Synthetic rows fitted to the released workload answers: discrete local search (post-processing).

Rounding a model to n integer rows costs accuracy of its own: a model over 120,960 cells
rounded to 48,842 rows cannot keep every marginal, and on 7-column Adult the rounded rows'
workload error is 2-3% above the model's. This step moves the rows toward the answers the
release publishes anyway. It minimizes

    D(rows) = sum over workload marginals M of || counts_M(rows) - n * answer_M ||_1

by changing one attribute of one row at a time. Attribute by attribute (in random order), over
chunks of rows (in random order), every row's best new value is estimated from the marginals
holding that attribute (the only ones a change of it touches). Moves made together can overshoot
(every row short of the same cell would move at once), so the best candidates are checked exactly:
each one's gain given every candidate ranked above it (a prefix sum per marginal cell); those that
stop improving are dropped and the rest rechecked until all improve. Then they are applied and
the chunk is searched again, up to :data:`MAX_SWEEPS` times. So D never increases.

Privacy: post-processing only. Its inputs are released answers (a model's workload marginals),
rows already released from that model, and public randomness for the visiting order; it never
reads the private table, so the release's guarantee is unchanged (Dwork & Roth Prop. 2.1).

One pass visits every attribute of every row once. Later passes still find moves (the cells the first filled
free others) and close part of the rows' gap to the model where rows are few against its cells: on the tuning
suite at eps = 10, 1.5-3 % of the avg L1 on tables of 1,000-15,000 rows, where a pass takes under a second,
against 0-0.5 % on tables of 50,000-226,000 rows, where it takes 10-30 s. So :func:`fitted_rows` makes further
passes while the fit's work stays within :data:`PASS_WORK` row-attributes (a public budget: n is public under
the privacy unit), and stops after a pass that lowers D by less than :data:`MIN_PASS_GAIN` of what it was
(docs/decisions.md).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

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
#: A move counts as improving when its exact (float64) gain exceeds this, in rows.
TOLERANCE = 1e-9
#: Moves are sought among those whose float32 estimate gains more than this many rows (float32 sums of up to
#: a few hundred terms in [-1, 1] are off by < 1e-4; a smaller gain is not worth a move).
SCREEN = 1e-4
#: Row-attributes (rows x columns x passes) the default fit may visit: one pass always, more while within this.
PASS_WORK = 1_000_000
#: Passes of the default fit, at most.
MAX_PASSES = 8
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
    """One workload marginal: counts minus target per cell, shaped like the marginal (attributes in domain order)."""

    def __init__(self, rows: Dataset, attributes: tuple[str, ...], target: object) -> None:
        target = _checked_target(rows.domain, attributes, target)
        canonical = rows.domain.canonical(attributes)
        self.axes = list(rows.domain.axes(canonical))
        self.shape = tuple(rows.domain.sizes[axis] for axis in self.axes)
        aligned = np.transpose(target, [attributes.index(a) for a in canonical])
        self.residual = rows.marginal_counts(canonical) - rows.n * aligned


class _AttributeView:
    """A marginal's residual with one attribute as the last axis: each row of it is one cell of the others.

    ``enter`` is |r| - |r + 1| per cell (the change of D when a row enters it), in float32: it only ranks
    candidate moves; the exact check uses the float64 residual.
    """

    def __init__(self, marginal: _MarginalResidual, records: np.ndarray, axis: int) -> None:
        self.marginal, self.position = marginal, marginal.axes.index(axis)
        others = [a for a in marginal.axes if a != axis]
        self.residual = np.moveaxis(marginal.residual, self.position, -1).reshape(-1, marginal.shape[self.position])
        self.residual = np.ascontiguousarray(self.residual)
        self.enter = _entering_gain(self.residual).astype(np.float32)
        self.row_of = (np.ravel_multi_index(tuple(records[:, a] for a in others), [marginal.shape[marginal.axes.index(a)]
                                                                                    for a in others])
                       if others else np.zeros(len(records), dtype=np.intp))

    def move(self, rows: np.ndarray, old: np.ndarray, new: np.ndarray) -> None:
        cells = self.row_of[rows]
        np.add.at(self.residual, (cells, old), -1.0)
        np.add.at(self.residual, (cells, new), 1.0)
        for values in (old, new):
            self.enter[cells, values] = _entering_gain(self.residual[cells, values])

    def write_back(self) -> None:
        shape = list(self.marginal.shape)
        moved = shape[:self.position] + shape[self.position + 1:] + [shape[self.position]]
        self.marginal.residual = np.moveaxis(self.residual.reshape(moved), -1, self.position)


def _entering_gain(r: np.ndarray) -> np.ndarray:
    """|r| - |r + 1|: +1 where the cell is short by a row or more, -1 where it is not short at all."""
    return np.clip(-2.0 * r - 1.0, -1.0, 1.0)


def _leaving_gain(r: np.ndarray) -> np.ndarray:
    """|r| - |r - 1|."""
    return np.clip(2.0 * r - 1.0, -1.0, 1.0)


def workload_distance(records: np.ndarray, domain: Domain, targets: Sequence[tuple[tuple[str, ...], np.ndarray]]
                      ) -> float:
    """Mean over ``targets`` of the L1 distance between the rows' marginal and the target (fractions)."""
    if not targets:
        return 0.0
    rows = Dataset.from_records(records, domain, source="records")
    return float(np.mean([np.abs(rows.marginal(a) - _checked_target(domain, a, t)).sum() for a, t in targets]))


def fit_rows(records: np.ndarray, domain: Domain, targets: Sequence[tuple[tuple[str, ...], np.ndarray]],
             rng: RandomSource, *, passes: int = 1, min_gain: float = 0.0,
             on_step: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Rows moved, one attribute of one row at a time, toward the marginals in ``targets``.

    Args:
        records: (n, d) value codes in domain order (not modified).
        domain: the public domain.
        targets: (attributes, fractions) pairs, the answers the rows should reproduce.
        rng: randomness for the order attributes and rows are visited in (public).
        passes: sweeps over all attributes, at most.
        min_gain: stop after a sweep that lowered D by less than this fraction of D before it (0: make all
            ``passes``; a sweep that finds no move at all always ends the fit, since the next would find none).
        on_step: ``on_step(done, total)`` after each chunk of rows, in rows x attributes visited (progress only).

    Returns:
        A new (n, d) array; :func:`workload_distance` to ``targets`` is never larger than the input's.
    """
    check_positive_int(passes, "passes", minimum=0)
    if not 0 <= min_gain < 1:
        raise InputError(f"min_gain must be a number in [0, 1), got {min_gain!r}")
    records = np.array(records, dtype=np.int64, copy=True)
    n_rows = len(records)
    if n_rows == 0 or not targets:
        return records
    rows = Dataset.from_records(records, domain, source="records")  # checks every code against the domain
    marginals = [_MarginalResidual(rows, tuple(a), t) for a, t in targets]
    visited, total = 0, passes * len(domain) * n_rows
    distance = _distance(marginals)
    for _ in range(passes):
        before = distance
        for axis in rng.permutation(len(domain)):
            views = [_AttributeView(m, records, axis) for m in marginals if axis in m.axes]
            if not views:
                visited += n_rows
                continue
            size = domain.sizes[axis]
            chunk = max(1, CHUNK_WORK // (size * len(views)))
            order = rng.permutation(n_rows)
            for start in range(0, n_rows, chunk):
                for _sweep in range(MAX_SWEEPS):  # moves to cells others just filled are re-sought
                    if not _improve_attribute(records, order[start:start + chunk], axis, views):
                        break
                if on_step is not None:
                    on_step(visited + min(start + chunk, n_rows), total)
            visited += n_rows
            for view in views:
                view.write_back()
        distance = _distance(marginals)
        if before - distance <= min_gain * before:
            break
    if on_step is not None and visited < total:
        on_step(total, total)  # stopped early: the fit is done
    return records


def _distance(marginals: Sequence[_MarginalResidual]) -> float:
    """D: the summed L1 distance, in rows, of the rows' marginals from the targets."""
    return float(sum(np.abs(m.residual).sum() for m in marginals))


def _improve_attribute(records: np.ndarray, rows: np.ndarray, axis: int, views: list[_AttributeView]) -> int:
    """Give ``rows`` better values of attribute ``axis``, keeping only moves that lower D exactly; how many moved."""
    current = records[rows, axis]
    everyone = np.arange(len(rows))
    gain = np.zeros((len(rows), views[0].residual.shape[1]), dtype=np.float32)
    gathered = np.empty_like(gain)
    residual_here = np.empty((len(views), len(rows)))
    for i, view in enumerate(views):
        cells = view.row_of[rows]
        np.take(view.enter, cells, axis=0, out=gathered)
        gain += gathered
        residual_here[i] = view.residual[cells, current]
    gain += _leaving_gain(residual_here).sum(axis=0).astype(np.float32)[:, None]
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
    for _ in range(MAX_PRUNING_ROUNDS):
        improving = moves.exact_gains(alive) > TOLERANCE
        if (improving | ~alive).all():
            break
        alive &= improving
    else:  # each move's gain is exact given all live moves ranked above it: keep the improving prefix
        improving = (moves.exact_gains(alive) > TOLERANCE) | ~alive
        alive[int(np.argmin(improving)):] = False
    movers = movers[alive]
    if movers.size == 0:
        return 0
    for view in views:
        view.move(rows[movers], current[movers], best[movers])
    records[rows[movers], axis] = best[movers]
    return int(movers.size)


class _RankedMoves:
    """Candidate moves in rank order, their cells in every view sorted once (all views together) for prefix sums."""

    def __init__(self, rows: np.ndarray, old: np.ndarray, new: np.ndarray, views: list[_AttributeView]) -> None:
        self.k = k = rows.size
        size = views[0].residual.shape[1]
        cells = np.stack([view.row_of[rows] for view in views])  # (views, k)
        source, target = cells * size + old, cells * size + new
        self.r_source = np.stack([view.residual.reshape(-1)[s] for view, s in zip(views, source)])
        self.r_target = np.stack([view.residual.reshape(-1)[t] for view, t in zip(views, target)])
        # One event per (view, move, source or target); sorted by view, then cell, then rank.
        largest = max(view.residual.size for view in views)
        view_index = np.arange(len(views))[:, None]
        ranks = np.broadcast_to(np.arange(k), cells.shape)
        events = np.concatenate([view_index * largest + source, view_index * largest + target], axis=1).reshape(-1)
        ranked = np.concatenate([ranks, ranks], axis=1).reshape(-1)
        self.order = np.argsort(events * (2 * k) + ranked)
        sorted_events = events[self.order]
        first = np.empty(events.size, dtype=bool)
        first[0], first[1:] = True, sorted_events[1:] != sorted_events[:-1]
        self.group_start = np.maximum.accumulate(np.where(first, np.arange(events.size), 0))
        self.shape = (len(views), 2 * k)

    def exact_gains(self, alive: np.ndarray) -> np.ndarray:
        """Each move's decrease of D (float64, rows) if exactly the ``alive`` moves ranked before it applied."""
        k = self.k
        live = alive.astype(np.float64)
        flows = np.broadcast_to(np.concatenate([-live, live]), self.shape).reshape(-1)
        sorted_flows = flows[self.order]
        running = np.cumsum(sorted_flows) - sorted_flows  # flow of all events before this one
        earlier = np.empty(flows.size)
        earlier[self.order] = running - running[self.group_start]
        earlier = earlier.reshape(self.shape)
        gains = _leaving_gain(self.r_source + earlier[:, :k]) + _entering_gain(self.r_target + earlier[:, k:])
        return gains.sum(axis=0)


def fitted_rows(model: object, count: int, rng: RandomSource, *, domain: Domain,
                targets: Sequence[tuple[tuple[str, ...], np.ndarray]],
                on_step: Callable[[int, int], None] | None = None) -> np.ndarray:
    """The row method ``fitted``: the model rounded to ``count`` rows, then moved toward ``targets`` (:func:`fit_rows`,
    :func:`default_passes` passes at most, stopping after one that gains less than :data:`MIN_PASS_GAIN`).

    Post-processing: the model and the targets are released outputs (Prop. 2.1).
    """
    return fit_rows(model.round(count, rng), domain, targets, rng, passes=default_passes(count, len(domain)),
                    min_gain=MIN_PASS_GAIN, on_step=on_step)


def default_passes(rows: int, columns: int) -> int:
    """Passes of the default fit over ``rows`` x ``columns`` (public): one, and more while the work stays within
    :data:`PASS_WORK`, at most :data:`MAX_PASSES`."""
    return max(1, min(MAX_PASSES, PASS_WORK // max(1, rows * columns)))
