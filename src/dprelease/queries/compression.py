"""Marginals on compressed domains: rare values of an attribute counted together (MST's compression).

A marginal over attributes with many values spreads a measurement's noise over many cells, most of
them near empty. MST (McKenna, Miklau & Sheldon 2021) measures each attribute's 1-way marginal first and
then measures larger marginals on a compressed domain: the values whose noisy 1-way count is too small to
tell from zero are merged into one value. A compressed marginal is still a partition of the records (each
record adds 1/n to exactly one compressed cell), so its sensitivity is the marginal's: compression changes
which public query is asked, not what measuring it costs. The grouping is computed from public noisy
answers only (post-processing), before the query is asked.

A *grouping* is, per attribute, ``None`` (values kept apart) or an integer array mapping each value's code
to its group (groups numbered 0..G-1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

Grouping = tuple[np.ndarray | None, ...]


def rare_value_groups(fractions: np.ndarray, std: float, *, threshold: float = 3.0,
                      max_mass: float = 1.0, min_share: float = 0.0) -> np.ndarray | None:
    """One attribute's grouping from its noisy 1-way fractions: rare values share one group.

    A value is rare when its noisy fraction is under ``threshold`` standard deviations; the rarest are
    pooled first, while the pool's noisy mass stays at most ``max_mass`` (a pool holding much of the table
    would hide the interactions inside it). The kept values come first in code order, then the pool. None
    when fewer than two values, or fewer than ``min_share`` of the values, would be pooled (too little to
    gain). Public inputs only.
    """
    y = np.asarray(fractions, dtype=np.float64).reshape(-1)
    order = np.argsort(y, kind="stable")
    candidates = order[y[order] < threshold * std]
    mass = np.cumsum(np.clip(y[candidates], 0.0, None))
    pooled = candidates[mass <= max_mass]
    if pooled.size < max(2, min_share * y.size):
        return None
    rare = np.zeros(y.size, dtype=bool)
    rare[pooled] = True
    groups = np.empty(y.size, dtype=np.intp)
    kept = np.flatnonzero(~rare)
    groups[kept] = np.arange(kept.size)
    groups[rare] = kept.size
    return groups


def compressed_shape(shape: Sequence[int], grouping: Grouping) -> tuple[int, ...]:
    """The compressed marginal's shape."""
    return tuple(size if g is None else int(g.max()) + 1 for size, g in zip(shape, grouping))


def compress(values: np.ndarray, grouping: Grouping) -> np.ndarray:
    """Sum a marginal's cells within each group, attribute by attribute (``values`` shaped like the marginal).

    One matrix product per compressed attribute (a 0/1 matrix, groups x values): the fits call this on every
    step for every compressed term, where ``np.add.at`` was 5x slower.
    """
    out = np.asarray(values, dtype=np.float64)
    for axis, g in enumerate(grouping):
        if g is None:
            continue
        indicator = np.zeros((int(g.max()) + 1, g.size))
        indicator[g, np.arange(g.size)] = 1.0
        out = np.moveaxis(np.tensordot(indicator, out, axes=([1], [axis])), 0, axis)
    return out


def expand(values: np.ndarray, grouping: Grouping) -> np.ndarray:
    """Each full cell takes its group's value (the adjoint of :func:`compress`: a gradient's way back)."""
    out = np.asarray(values, dtype=np.float64)
    for axis, g in enumerate(grouping):
        if g is not None:
            out = np.take(out, g, axis=axis)
    return out


def grouping_key(grouping: Grouping | None) -> tuple:
    """A hashable key: measurements of one marginal merge only under the same grouping."""
    if grouping is None:
        return ()
    return tuple(None if g is None else g.tobytes() for g in grouping)
