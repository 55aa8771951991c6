"""Differentially private quantiles by the exponential mechanism over a public grid of candidates.

For a probability p and public, sorted candidates c_1 < ... < c_m, the utility of c is
``u(x, c) = -| #{i : x_i <= c} - p m(x) |`` where m(x) is the number of (non-NULL) values. Under the
privacy unit (same n, one record replaced, possibly a NULL by a value or back), #{x_i <= c} moves by at
most 1 and p m(x) by at most p, in the same direction when both move, so u has sensitivity 1; the
exponential mechanism (Dwork & Roth Thm 3.10) selecting c with probability proportional to
exp(eps u / 2) is (eps, 0)-DP (Smith 2011; the candidate grid replaces his continuous intervals so no
data-dependent interval is released). Its rank error is below (2 / eps) ln(m_c / beta) with probability
1 - beta (Thm 3.11), m_c the number of candidates.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dprelease.privacy.rng import RandomSource
from dprelease.privacy.selection import exponential_mechanism

#: Sensitivity of the rank utility under the privacy unit (see the module docstring).
RANK_SENSITIVITY = 1


def quantile_scores(sorted_values: np.ndarray, probability: float, candidates: np.ndarray) -> np.ndarray:
    """u(x, c) for every candidate: minus the distance of c's rank from p times the number of values."""
    ranks = np.searchsorted(sorted_values, candidates, side="right")
    return -np.abs(ranks - probability * len(sorted_values))


def exponential_quantiles(values: np.ndarray, *, probabilities: np.ndarray, candidates: np.ndarray,
                          epsilon_each: Fraction | float, rng: RandomSource) -> np.ndarray:
    """One candidate per probability, each chosen by the exponential mechanism at ``epsilon_each``.

    Privacy: each selection is (epsilon_each, 0)-DP for the rank utility of sensitivity 1 (Thm 3.10),
    the k selections together (k epsilon_each, 0)-DP by basic composition (Thm 3.16). The caller pays
    first (:class:`~dprelease.privacy.column_reader.PrivateColumnReader`).
    """
    sorted_values = np.sort(np.asarray(values, dtype=np.float64))
    candidates = np.asarray(candidates, dtype=np.float64)
    probabilities = np.asarray(probabilities, dtype=np.float64)
    chosen = np.empty(len(probabilities), dtype=np.float64)
    for p in np.unique(probabilities):  # equal probabilities: independent draws from the same scores
        where = np.flatnonzero(probabilities == p)
        picks = exponential_mechanism(quantile_scores(sorted_values, float(p), candidates), epsilon=epsilon_each,
                                      sensitivity=RANK_SENSITIVITY, rng=rng, size=len(where))
        chosen[where] = candidates[picks]
    return chosen
