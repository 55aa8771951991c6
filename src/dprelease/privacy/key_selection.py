"""Counts over a public set of classes, and private selection of keys nobody declared (categories).

Counts are integers, so noise is the discrete Laplace (geometric) distribution, the integer analogue of
Thm 3.6 (Ghosh, Roughgarden & Sundararajan 2009): P(Z = k) proportional to exp(-|k| / t). Under the
privacy unit (same n, one record replaced) a histogram of counts changes in at most two cells by 1 each:
L1 sensitivity 2, so t >= 2 / eps gives (eps, 0)-DP.

Keys that are not public (the distinct values of a text column) cannot be released with delta = 0: a
value held by one record must not be seen. The stability-based histogram (Korolova, Kenthapadi, Mishra &
Ntoulas 2009; Bun, Nissim & Stemmer 2016; Vadhan 2017, Prop. 3.5) adds the same noise to the count of
every key present and keeps the keys whose noisy count exceeds tau = 1 + t ln(2 / delta). Proof sketch,
for neighbours x, x' where a record with key a is replaced by one with key b: on the keys both tables
hold, the released counts are the Laplace mechanism on an L1-sensitivity-2 vector (e^eps); a key held
only by x has count 1 there and is released with probability P[Z >= tau - 1] <= exp(-(tau - 1) / t) =
delta / 2, and likewise one key held only by x'; so P[M(x) in E] <= e^eps P[M(x') in E] + delta.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dprelease.privacy.noise import discrete_laplace, exact, float_at_least
from dprelease.privacy.rng import RandomSource

#: L1 sensitivity of a histogram of counts under the privacy unit (one record replaced).
HISTOGRAM_SENSITIVITY = 2


def count_scale(epsilon: Fraction | float) -> float:
    """t >= 2 / eps, rounded up (a larger scale only adds privacy)."""
    return float_at_least(Fraction(HISTOGRAM_SENSITIVITY) / exact(epsilon))


def noisy_counts(counts: np.ndarray, *, epsilon: Fraction | float, rng: RandomSource) -> np.ndarray:
    """Integer counts over a public set of cells plus discrete Laplace noise of scale 2 / eps.

    Privacy: (eps, 0)-DP for a histogram of L1 sensitivity 2 (one record replaced), the geometric
    mechanism (the discrete analogue of Thm 3.6), up to the sampler's 2^-50 truncation
    (:func:`~dprelease.privacy.noise.discrete_laplace`).
    """
    counts = np.asarray(counts, dtype=np.int64)
    return counts + discrete_laplace(count_scale(epsilon), counts.shape, rng)


def selection_threshold(*, epsilon: Fraction | float, delta: float) -> float:
    """tau = 1 + t ln(2 / delta) with t the noise scale, rounded up: a count of 1 passes w.p. <= delta / 2."""
    return 1 + count_scale(epsilon) * math.log(2 / delta) * (1 + 1e-12)


def passing_keys(counts: np.ndarray, *, epsilon: Fraction | float, delta: float,
                 rng: RandomSource) -> tuple[np.ndarray, np.ndarray]:
    """Which keys the stability histogram releases (present, and noisy count above tau), and the noisy
    counts (kept inside the kernel: only the choice of keys leaves it).

    ``counts`` may have any shape (the last axis the keys); each entry gets its own noise. Privacy:
    (eps, delta)-DP per row of keys (module docstring; Vadhan 2017 Prop. 3.5), plus the sampler's
    2^-50 truncation.
    """
    counts = np.asarray(counts, dtype=np.int64)
    noisy = noisy_counts(counts, epsilon=epsilon, rng=rng)
    return (counts > 0) & (noisy > selection_threshold(epsilon=epsilon, delta=delta)), noisy


def stable_keys(counts: np.ndarray, *, epsilon: Fraction | float, delta: float, max_keys: int,
                rng: RandomSource, with_counts: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Positions of the keys (among those present, ``counts`` > 0) released by the stability histogram,
    at most ``max_keys`` of them, largest noisy count first; ``with_counts``: and their noisy counts.

    Privacy: that of :func:`passing_keys`. Keeping the ``max_keys`` largest is post-processing. The noisy counts of
    the keys that pass are released by the same guarantee (Vadhan 2017, Prop. 3.5 releases them: on the keys both
    neighbours hold they are the Laplace mechanism, and a key only one holds passes w.p. <= delta / 2).
    """
    passed, noisy = passing_keys(counts, epsilon=epsilon, delta=delta, rng=rng)
    passed = np.flatnonzero(passed)
    order = np.argsort(-noisy[passed], kind="stable")
    kept = passed[order][:max_keys]
    return (kept, noisy[kept]) if with_counts else kept
