"""The theorems' formulas, one function per theorem, and the alpha solver.

Logs are natural (the book's ``log`` in Ch. 3-6; see docs/theorems.md).
Where alpha appears on both sides of an accuracy condition, the smallest alpha in
(0, 1] that satisfies it is found numerically by bisection (the condition is
monotone in alpha: its right-hand side falls as alpha grows); ``None`` means the
theorem gives no guarantee with alpha <= 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from dprelease.distinguishers import exponential_distinguisher_error
from dprelease.updates.multiplicative_weights import mw_max_updates
from dprelease.validation import check_delta, check_open_unit, check_positive, check_positive_int


def ic_rounds(update_bound: Callable[[float], float], alpha: float) -> int:
    """The number of IC rounds, ceil(T(alpha / 2)) (Algorithm 8)."""
    return max(1, math.ceil(update_bound(alpha / 2)))


def ic_epsilon0(*, epsilon: float, delta: float, rounds: int) -> float:
    """Per-step epsilon of IC (Thm 5.3): eps / (2 T) for (eps, 0); eps / (4 sqrt(T ln(1/delta))) for (eps, delta).

    ``rounds`` is T(alpha/2), or the user's cap on rounds.
    """
    check_positive(epsilon, "epsilon")
    check_delta(delta)
    check_positive_int(rounds, "rounds")
    if delta == 0:
        return epsilon / (2 * rounds)
    return epsilon / (4 * math.sqrt(rounds * math.log(1 / delta)))


def ic_accuracy_holds(*, alpha: float, epsilon0: float, n: int, beta: float, rounds: int,
                      distinguisher_error: float) -> bool:
    """Thm 5.4: alpha >= max(8 ln(2 T(alpha/2) / beta) / (eps0 n), 8 F(eps0)), with gamma = beta / (2 T(alpha/2))."""
    return alpha >= max(8 * math.log(2 * rounds / beta) / (epsilon0 * n), 8 * distinguisher_error)


def ic_mw_alpha(*, n: int, universe_size: int, num_queries: int, epsilon: float, delta: float = 0.0,
                beta: float = 0.05) -> float | None:
    """Smallest alpha for which IC with MW and the exponential distinguisher is (alpha, beta)-accurate.

    Thms 5.3 + 5.4 + 5.5 with T = T_MW(alpha / 2) = 16 ln|X| / alpha^2 (Thm 4.10) and
    gamma = beta / (2 T). ``None`` when no alpha <= 1 qualifies.
    """
    check_positive_int(n, "n")
    check_open_unit(beta, "beta")

    def holds(alpha: float) -> bool:
        rounds = ic_rounds(lambda a: mw_max_updates(alpha=a, universe_size=universe_size), alpha)
        eps0 = ic_epsilon0(epsilon=epsilon, delta=delta, rounds=rounds)
        gamma = beta / (2 * rounds)
        f = exponential_distinguisher_error(epsilon=eps0, gamma=gamma, n=n, num_queries=num_queries)
        return ic_accuracy_holds(alpha=alpha, epsilon0=eps0, n=n, beta=beta, rounds=rounds, distinguisher_error=f)

    return smallest_alpha(holds)


def smallest_alpha(holds: Callable[[float], bool], *, tolerance: float = 1e-6) -> float | None:
    """Bisection for the smallest alpha in (0, 1] with ``holds(alpha)`` (assumed monotone)."""
    if not holds(1.0):
        return None
    low, high = 0.0, 1.0
    while high - low > tolerance:
        mid = (low + high) / 2
        if holds(mid):
            high = mid
        else:
            low = mid
    return high
