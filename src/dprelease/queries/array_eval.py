"""Evaluating one linear query on a dense array over X, fast.

An online mechanism answers queries one at a time, so the per-query cost is what
counts. ``query.evaluate(model)`` builds the query's whole marginal first (a pass
over all of X with ``np.bincount``); for a product-form query this module instead
indexes the array at the single allowed value of each constrained attribute (a
view, no copy), sums the remaining axes, and contracts what is left with the
weights. A conjunction fixing three of seven attributes then touches only the
cells it counts.

Any other query falls back to ``query.evaluate`` on an :class:`ArraySource`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from dprelease.domain import Domain
from dprelease.queries.dense import DenseQuery
from dprelease.queries.product import ProductQuery

#: Up to this many cells, marginals are computed by np.bincount over a cached flat
#: cell index (4x faster than np.sum over several axes); beyond it, by np.sum.
BINCOUNT_MAX_CELLS = 4_000_000


@lru_cache(maxsize=128)
def marginal_index(domain: Domain, attributes: tuple[str, ...]) -> np.ndarray:
    """For every cell of X (C order), the flat index of its cell in the marginal on ``attributes``."""
    axes = domain.axes(attributes)
    sizes = [domain.sizes[a] for a in axes]
    index = np.zeros(domain.shape, dtype=np.intp)
    stride = 1
    for axis, size in zip(reversed(axes), reversed(sizes)):
        shape = [1] * len(domain)
        shape[axis] = size
        index = index + stride * np.arange(size, dtype=np.intp).reshape(shape)
        stride *= size
    index = index.reshape(-1)
    index.setflags(write=False)
    return index


def marginalize(domain: Domain, probabilities: np.ndarray, attributes: tuple[str, ...]) -> np.ndarray:
    """The marginal of an array shaped like ``domain`` on ``attributes`` (in the order given)."""
    axes = domain.axes(attributes)
    shape = tuple(domain.sizes[a] for a in axes)
    if domain.size <= BINCOUNT_MAX_CELLS:
        flat = np.bincount(marginal_index(domain, attributes), weights=probabilities.reshape(-1),
                           minlength=math.prod(shape))
        return flat.reshape(shape)
    other = tuple(i for i in range(len(domain)) if i not in axes)
    summed = probabilities.sum(axis=other)
    kept = sorted(axes)
    return np.transpose(summed, [kept.index(a) for a in axes])


@dataclass(frozen=True, eq=False)
class ArraySource:
    """A :class:`~dprelease.queries.base.MarginalSource` over an array shaped like the domain."""

    domain: Domain
    table: np.ndarray

    def marginal(self, attributes: Sequence[str]) -> np.ndarray:
        return marginalize(self.domain, self.table, tuple(attributes))


def evaluate_on_array(query: object, table: np.ndarray) -> float:
    """sum over x in X of q(x) * table[x], for ``table`` shaped like ``query.domain``.

    With ``table`` a probability histogram this is f evaluated on that distribution
    (the same value as ``query.evaluate``, up to float summation order).

    >>> d = Domain(("a", "b"), (2, 3))
    >>> p = np.full(d.shape, 1 / 6)
    >>> round(evaluate_on_array(ProductQuery.conjunction(d, {"b": [0, 2]}), p), 12)
    0.666666666667
    """
    if isinstance(query, ProductQuery):
        return _product(query, table)
    if isinstance(query, DenseQuery):
        return float(np.vdot(query.vector.reshape(-1), table.reshape(-1)))
    return float(query.evaluate(ArraySource(query.domain, table)))


def _product(query: ProductQuery, table: np.ndarray) -> float:
    # Contract the axes front to back on a flat, C-contiguous array holding the axes not yet
    # contracted: an attribute fixed to one value selects a contiguous block (no copy); a run
    # of unconstrained attributes, or a weighted one, is one BLAS matrix-vector product.
    weights = dict(zip(query.attributes, query.weights))
    flat = np.ascontiguousarray(table).reshape(-1)
    scale = 1.0
    run = 1  # product of the sizes of the pending unconstrained axes
    for attribute, size in zip(query.domain.attributes, query.domain.sizes):
        w = weights.get(attribute)
        if w is None:
            run *= size
            continue
        if run > 1:
            flat = _ones(run) @ flat.reshape(run, -1)
            run = 1
        nonzero = np.flatnonzero(w)
        if nonzero.size == 0:
            return 0.0
        if nonzero.size == 1:
            scale *= float(w[nonzero[0]])
            flat = flat.reshape(size, -1)[int(nonzero[0])]
        else:
            flat = w @ flat.reshape(size, -1)
    return scale * float(flat.sum())


_ONES: dict[int, np.ndarray] = {}


def _ones(length: int) -> np.ndarray:
    ones = _ONES.get(length)
    if ones is None:
        if len(_ONES) > 64:
            _ONES.clear()
        ones = _ONES[length] = np.ones(length)
        ones.setflags(write=False)
    return ones


def answer_column(query: object, histograms: np.ndarray) -> np.ndarray:
    """One query on each normalized histogram of a ``(k, *domain.shape)`` stack."""
    if hasattr(query, "evaluate_many"):
        return np.asarray(query.evaluate_many(histograms), dtype=np.float64)
    if hasattr(query, "factor"):
        k = histograms.shape[0]
        q = np.broadcast_to(query.factor(), histograms.shape[1:]).reshape(-1)
        return histograms.reshape(k, -1) @ q
    domain = query.domain
    return np.array([query.evaluate(_Fixed(domain, h)) for h in histograms], dtype=np.float64)


class _Fixed:
    """One normalized histogram as a MarginalSource (fallback for queries without a vectorised path)."""

    def __init__(self, domain: Domain, histogram: np.ndarray) -> None:
        self.domain, self._h = domain, histogram

    def marginal(self, attributes) -> np.ndarray:
        axes = self.domain.axes(attributes)
        other = tuple(i for i in range(len(self.domain)) if i not in axes)
        summed = self._h.sum(axis=other)
        kept = sorted(axes)
        return np.transpose(summed, [kept.index(a) for a in axes])
