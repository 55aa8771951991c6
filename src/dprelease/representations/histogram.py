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
from functools import cached_property

import numpy as np
from scipy.special import logsumexp

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.privacy.rng import RandomSource
from dprelease.queries.array_eval import BINCOUNT_MAX_CELLS, marginal_index, marginalize  # noqa: F401 (re-exported)
from dprelease.queries.base import LinearQuery
from dprelease.representations.rounding import systematic_counts


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

    def marginals(self, cliques: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """The marginals on ``cliques``, each exactly as :meth:`marginal` gives it (the factored model's batch)."""
        return [self.marginal(c) for c in cliques]

    def answer(self, query: LinearQuery) -> float:
        return query.evaluate(self)

    # ---------------------------------------------------------------- releasing
    def sample(self, n: int, rng: RandomSource) -> np.ndarray:
        """n records drawn i.i.d. from the distribution, as an (n, d) int array."""
        cells = rng.choice(self.probabilities.reshape(-1), n)
        return np.stack(np.unravel_index(cells, self.domain.shape), axis=1).astype(np.int64)

    def round(self, n: int, rng: RandomSource) -> np.ndarray:
        """n records whose counts are n * p rounded down or up by systematic sampling (shuffled row order).

        See :mod:`~dprelease.representations.rounding`: unbiased, so it never hands every row to the likeliest
        cells when n is small against the support.
        """
        counts = systematic_counts(self.probabilities.reshape(-1), n, rng)
        cells = np.repeat(np.arange(counts.size), counts)
        records = np.stack(np.unravel_index(cells, self.domain.shape), axis=1).astype(np.int64)
        return records[rng.permutation(len(records))]
