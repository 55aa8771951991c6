"""An explicit probability histogram over X, kept in the log domain.

This is the book's x^t in Delta(X) for multiplicative weights (Sec. 4.2). Log
weights make every update an addition and keep tiny probabilities representable
(no underflow to 0 that a later update could not undo). Memory is |X| float64s, so
the domain must fit under a public cap (:data:`~dprelease.domain.DEFAULT_MAX_CELLS`).

Everything here is post-processing: a model only ever sees public noisy answers.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

import numpy as np
from scipy.special import logsumexp

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.privacy.rng import RandomSource
from dprelease.queries.base import LinearQuery


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
class HistogramModel:
    """A probability distribution over X: ``log_probs`` shaped like the domain, logsumexp = 0."""

    domain: Domain
    log_probs: np.ndarray

    @classmethod
    def uniform(cls, domain: Domain, *, max_cells: int = DEFAULT_MAX_CELLS) -> HistogramModel:
        domain.check_fits(max_cells)
        return cls(domain, np.full(domain.shape, -math.log(domain.size)))

    @classmethod
    def from_log_weights(cls, domain: Domain, log_weights: np.ndarray) -> HistogramModel:
        """Normalize unnormalized log weights (shaped like the domain)."""
        return cls(domain, log_weights - logsumexp(log_weights))

    @cached_property
    def probabilities(self) -> np.ndarray:
        return np.exp(self.log_probs)

    # ---------------------------------------------------------------- answering
    def marginal(self, attributes: Sequence[str]) -> np.ndarray:
        """Fractions of the marginal on ``attributes`` (in the order given)."""
        return marginalize(self.domain, self.probabilities, tuple(attributes))

    def answer(self, query: LinearQuery) -> float:
        return query.evaluate(self)

    # ---------------------------------------------------------------- releasing
    def sample(self, n: int, rng: RandomSource) -> np.ndarray:
        """n records drawn i.i.d. from the distribution, as an (n, d) int array."""
        cells = rng.choice(self.probabilities.reshape(-1), n)
        return np.stack(np.unravel_index(cells, self.domain.shape), axis=1).astype(np.int64)

    def round(self, n: int, rng: RandomSource) -> np.ndarray:
        """n records whose counts are n * p rounded by largest remainder (shuffled row order)."""
        expected = self.probabilities.reshape(-1) * n
        counts = np.floor(expected).astype(np.int64)
        short = n - int(counts.sum())
        if short > 0:
            # Largest remainders first; ties broken by index (deterministic post-processing).
            order = np.argsort(-(expected - counts), kind="stable")[:short]
            counts[order] += 1
        cells = np.repeat(np.arange(counts.size), counts)
        records = np.stack(np.unravel_index(cells, self.domain.shape), axis=1).astype(np.int64)
        return records[rng.permutation(len(records))]
