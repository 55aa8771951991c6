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


def exponential_distinguisher_error(*, epsilon: float, gamma: float, n: int, num_queries: int,
                                    sensitivity: Fraction | float | None = None) -> float:
    """F(eps) = 2 Delta ln(|Q| / gamma) / eps (Thm 5.5, via the exponential mechanism's utility, Thm 3.11).

    Delta is the sensitivity of the quality score |f(x) - f(D)|, i.e. of the queries: 1/n for
    normalized linear queries (the default, which gives the book's 2 ln(|Q| / gamma) / (n eps)),
    or a query set's declared ``sensitivity(n)``.
    """
    check_positive(epsilon, "epsilon")
    check_open_unit(gamma, "gamma")
    check_positive_int(n, "n")
    check_positive_int(num_queries, "num_queries")
    if sensitivity is None:
        return 2 * math.log(num_queries / gamma) / (n * epsilon)
    delta_f = check_positive(float(sensitivity), "sensitivity")
    return 2 * delta_f * math.log(num_queries / gamma) / epsilon


@dataclass(frozen=True)
class ExponentialMechanismDistinguisher:
    """The exponential mechanism over Q with quality |f(x) - f(D)| (sensitivity Delta, 1/n for linear queries).

    Args:
        unit_sensitivity: c with Delta = c / n, used by :meth:`error_bound` when no sensitivity is
            passed (1 for normalized linear queries and the book's non-linear ones). Only the
            accuracy bound uses it: :meth:`select` always calibrates to the query set's own
            ``sensitivity(n)``, so privacy never rests on this field.

    Privacy: (eps, 0)-DP (Thm 3.10); an (F(eps), gamma)-private distinguisher with
    F(eps) = 2 Delta ln(|Q| / gamma) / eps = 2 c ln(|Q| / gamma) / (n eps) (Thm 5.5).
    """

    name: str = "exponential-mechanism"
    unit_sensitivity: Fraction | float = 1

    def __post_init__(self) -> None:
        check_positive(float(self.unit_sensitivity), "unit_sensitivity")

    def select(self, measurer: PrivateMeasurer, queries: object, estimates: np.ndarray, *,
               epsilon: Fraction | float, label: str) -> int:
        return measurer.select_query(queries, estimates, epsilon=epsilon, label=label)

    def error_bound(self, *, epsilon: float, gamma: float, n: int, num_queries: int,
                    sensitivity: Fraction | float | None = None) -> float:
        """F(eps) for the given sensitivity, or unit_sensitivity / n."""
        if sensitivity is None and self.unit_sensitivity != 1:
            sensitivity = Fraction(self.unit_sensitivity) / n
        return exponential_distinguisher_error(epsilon=epsilon, gamma=gamma, n=n, num_queries=num_queries,
                                               sensitivity=sensitivity)
