"""Private distinguishers (Dwork & Roth Def. 5.5).

An (F(eps), gamma)-private distinguisher is (eps, 0)-DP in x and, with probability
at least 1 - gamma, returns f* with |f*(x) - f*(D)| >= max_f |f(x) - f(D)| - F(eps).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol, runtime_checkable

import numpy as np

from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.validation import check_open_unit, check_positive, check_positive_int


@runtime_checkable
class PrivateDistinguisher(Protocol):
    name: str

    def select(self, measurer: PrivateMeasurer, queries: object, estimates: np.ndarray, *,
               epsilon: Fraction | float, label: str) -> int:
        """Index of a query on which the public estimates are (privately) far from the data."""
        ...

    def error_bound(self, *, epsilon: float, gamma: float, n: int, num_queries: int) -> float:
        """F(eps) of Def. 5.5 for failure probability gamma."""
        ...


def exponential_distinguisher_error(*, epsilon: float, gamma: float, n: int, num_queries: int) -> float:
    """F(eps) = 2 ln(|Q| / gamma) / (n eps) (Thm 5.5)."""
    check_positive(epsilon, "epsilon")
    check_open_unit(gamma, "gamma")
    check_positive_int(n, "n")
    check_positive_int(num_queries, "num_queries")
    return 2 * math.log(num_queries / gamma) / (n * epsilon)


@dataclass(frozen=True)
class ExponentialMechanismDistinguisher:
    """The exponential mechanism over Q with quality |f(x) - f(D)| (sensitivity 1/n).

    Privacy: (eps, 0)-DP (Thm 3.10); an (F(eps), gamma)-private distinguisher with
    F(eps) = 2 ln(|Q| / gamma) / (n eps) (Thm 5.5).
    """

    name: str = "exponential-mechanism"

    def select(self, measurer: PrivateMeasurer, queries: object, estimates: np.ndarray, *,
               epsilon: Fraction | float, label: str) -> int:
        return measurer.select_query(queries, estimates, epsilon=epsilon, label=label)

    def error_bound(self, *, epsilon: float, gamma: float, n: int, num_queries: int) -> float:
        return exponential_distinguisher_error(epsilon=epsilon, gamma=gamma, n=n, num_queries=num_queries)
