"""The database-update role (Dwork & Roth Def. 5.4).

A T(alpha)-database update algorithm U maps (D, f, v) to a new data structure D'
such that no (U, x, Q, alpha, L)-database update sequence (Def. 5.3) is longer
than T(alpha). Every implementation has this one keyword-only signature, so the
iterative construction mechanism swaps them by a constructor argument.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from dprelease.domain import Domain
from dprelease.queries.base import LinearQuery


@runtime_checkable
class DatabaseUpdate(Protocol):
    """U(BOT) = initial(domain); U(D, f, v) = update(D, f, v, alpha=...); T(alpha) = max_updates(...)."""

    name: str

    def initial(self, domain: Domain) -> object:
        """D_1 = U(BOT, ., .)."""
        ...

    def answers(self, model: object, queries: object) -> np.ndarray:
        """f(D) for every f in the query set (a median structure answers with medians, Def. 5.6)."""
        ...

    def update(self, model: object, query: LinearQuery, noisy_answer: float, *, alpha: float) -> object:
        """D_{t+1} = U(D_t, f_t, v_t); must not modify ``model``."""
        ...

    def max_updates(self, *, alpha: float, domain: Domain) -> float:
        """T(alpha): the longest possible database update sequence."""
        ...
