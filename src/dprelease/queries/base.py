"""What a query needs from whatever it is evaluated on.

A query is evaluated on anything that can give a marginal as fractions of rows:
the private :class:`~dprelease.data.Dataset` (inside the privacy kernel only) or a
public representation such as a histogram model. Evaluating every query through
marginals keeps evaluation cheap: a product-form query touches only its own
attributes, never all of X.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from dprelease.domain import Domain


@runtime_checkable
class MarginalSource(Protocol):
    """Something with a domain that answers marginals as fractions (summing to 1)."""

    domain: Domain

    def marginal(self, attributes: Sequence[str]) -> np.ndarray:
        """Fractions of the marginal on ``attributes`` (in the order given)."""
        ...


@runtime_checkable
class LinearQuery(Protocol):
    """A normalized linear query f(x) = <q, x> / n with q in [0, 1]^X (the book's Sec. 4)."""

    domain: Domain
    name: str

    def evaluate(self, source: MarginalSource) -> float:
        """f on ``source`` (fraction in [0, 1])."""
        ...

    def factor(self) -> np.ndarray:
        """q as an array broadcastable to ``domain.shape`` (singleton axes where q is constant)."""
        ...
