"""Private selection: the exponential mechanism, sampled exactly by the Gumbel-max trick.

argmax_i (epsilon * u_i / (2 Delta) + G_i) with i.i.d. standard Gumbel G_i picks i with
probability proportional to exp(epsilon * u_i / (2 Delta)): exactly the exponential
mechanism of Dwork & Roth Sec. 3.4 (Thm 3.10: (epsilon, 0)-DP; Thm 3.11: utility).
Why Gumbel-max rather than permute-and-flip: it *is* the exponential mechanism, so
the book's theorems built on it (Thm 5.5, the private distinguisher) apply verbatim;
it works in the log domain, so no exp() underflows however large the scores; and it
is one vectorised argmax.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dprelease.privacy.noise import exact, float_at_most
from dprelease.privacy.rng import RandomSource


def exponential_mechanism(
    scores: np.ndarray,
    *,
    epsilon: Fraction | float,
    sensitivity: Fraction | float,
    rng: RandomSource,
    size: int | None = None,
) -> int | np.ndarray:
    """Index of a candidate drawn with probability proportional to exp(epsilon * score / (2 sensitivity)).

    Privacy: (epsilon, 0)-DP when each score changes by at most ``sensitivity``
    between neighbouring datasets (Dwork & Roth Thm 3.10).

    ``size`` draws that many independent selections at once (for audits).
    """
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 1 or scores.size == 0 or not np.all(np.isfinite(scores)):
        raise ValueError("scores must be a non-empty 1-d array of finite numbers")
    # Round the exponent's factor down: a smaller factor is a smaller epsilon.
    factor = float_at_most(exact(epsilon) / (2 * exact(sensitivity)))
    shape = (scores.size,) if size is None else (size, scores.size)
    noisy = factor * scores + rng.standard_gumbel(shape)
    return int(np.argmax(noisy)) if size is None else np.argmax(noisy, axis=1)
