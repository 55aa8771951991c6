"""A statistical privacy audit: can the outputs on two neighbouring inputs be told apart
more than (epsilon, delta)-DP allows?

For each event E (a set of outputs) and both orders of the pair, we test
    P[M(x) in E] <= e^epsilon P[M(x') in E] + delta
with exact Clopper-Pearson bounds: a violation is declared only when the *lower*
confidence bound of the left side exceeds e^epsilon times the *upper* bound of the
right side plus delta. If the mechanism is (epsilon, delta)-DP, each bound fails
with probability at most alpha / (4 * #events), so by the union bound the audit
raises a false alarm with probability at most ``alpha`` (the false-alarm rate).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats import beta


def clopper_pearson(successes: int, trials: int, alpha: float) -> tuple[float, float]:
    """Two one-sided bounds, each holding with probability >= 1 - alpha."""
    low = 0.0 if successes == 0 else float(beta.ppf(alpha, successes, trials - successes + 1))
    high = 1.0 if successes == trials else float(beta.ppf(1 - alpha, successes + 1, trials - successes))
    return low, high


def violations(outputs_x: np.ndarray, outputs_y: np.ndarray, events: list, *, epsilon: float,
               delta: float = 0.0, alpha: float = 1e-6) -> list[str]:
    """Events on which the audit finds a DP violation (empty if none)."""
    per_bound = alpha / (4 * len(events))
    found = []
    for name, indicator in events:
        hits = []
        for outputs in (outputs_x, outputs_y):
            inside = indicator(outputs)
            hits.append(clopper_pearson(int(inside.sum()), len(outputs), per_bound))
        (lx, ux), (ly, uy) = hits
        if lx > math.exp(epsilon) * uy + delta:
            found.append(f"{name}: P_x >= {lx:.4g} > e^eps * {uy:.4g}")
        if ly > math.exp(epsilon) * ux + delta:
            found.append(f"{name}: P_y >= {ly:.4g} > e^eps * {ux:.4g}")
    return found
