"""An arbitrary normalized linear query given by its full vector q in [0, 1]^X.

Only for domains small enough to hold q explicitly; product-form queries
(:mod:`dprelease.queries.product`) scale far better.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.errors import InputError
from dprelease.queries.base import MarginalSource


@dataclass(frozen=True, eq=False)
class DenseQuery:
    """f(x) = <q, x> / n with q given over all of X (shaped like the domain)."""

    domain: Domain
    vector: np.ndarray
    name: str = ""

    def __post_init__(self) -> None:
        self.domain.check_fits(DEFAULT_MAX_CELLS, what="a dense query vector")
        vector = np.asarray(self.vector, dtype=np.float64)
        if vector.size != self.domain.size:
            raise InputError(f"query vector must have {self.domain.size} entries, got {vector.size}")
        bad = ~np.isfinite(vector) | (vector < 0) | (vector > 1)
        if bad.any():
            raise InputError(f"query vector entries must lie in [0, 1], got {float(vector.reshape(-1)[bad.reshape(-1)][0])!r}")
        vector = vector.reshape(self.domain.shape).copy()
        vector.setflags(write=False)
        object.__setattr__(self, "vector", vector)

    def evaluate(self, source: MarginalSource) -> float:
        return float(np.sum(source.marginal(self.domain.attributes) * self.vector))

    def factor(self) -> np.ndarray:
        return self.vector
