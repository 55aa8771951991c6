"""Checks of public parameters, shared by the library and the CLI.

Each check raises :class:`InputTypeError` for a wrong type and :class:`InputError`
for a wrong value, naming the parameter and quoting the value, e.g.
``epsilon must be a finite number > 0, got nan``.
"""

from __future__ import annotations

import math
import numbers

from dprelease.errors import InputError, InputTypeError, WeakPrivacyWarning, warn_user

#: Above this epsilon a run warns (:class:`WeakPrivacyWarning`) and goes on.
WEAK_EPSILON = 10.0
#: Above this epsilon a run is refused: e^epsilon overflows a float beyond ~709, so the guarantee says nothing a
#: number can hold, and the arithmetic of some mechanisms overflows (ic-mw with delta > 0 near 1e5).
MAX_EPSILON = 1000.0


def _as_real(value: object, name: str) -> float:
    # bool is an int subclass; epsilon=True is a bug, not 1.0.
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise InputTypeError(f"{name} must be a real number, got {value!r} ({type(value).__name__})")
    return float(value)


def check_positive(value: object, name: str) -> float:
    """A finite real number > 0 (epsilon, alpha, a scale, ...)."""
    x = _as_real(value, name)
    if not math.isfinite(x) or x <= 0:
        raise InputError(f"{name} must be a finite number > 0, got {value!r}")
    return x


def check_epsilon(value: object, name: str = "epsilon") -> float:
    """A privacy budget: a finite number > 0 and at most :data:`MAX_EPSILON` (above 10 it also warns, later)."""
    x = check_positive(value, name)
    if x > MAX_EPSILON:
        raise InputError(f"{name} must be at most {MAX_EPSILON:g}, got {x:g}: e^{name.lstrip('-')} overflows a float "
                         "there, so the guarantee bounds nothing (above 10 it already protects almost nothing)")
    return x


def warn_if_weak(epsilon: float, name: str = "epsilon") -> bool:
    """Warn when ``epsilon`` > :data:`WEAK_EPSILON`; return whether it warned.

    Not an error: benchmarks and research runs use large budgets on purpose. But at epsilon = 20 the
    probability of any output may differ by a factor e^20 (about 5e8) between neighbouring tables, which
    bounds what an observer learns about a record by almost nothing, and a user should hear it.
    """
    if epsilon <= WEAK_EPSILON:
        return False
    factor = epsilon / math.log(10)  # e^eps = 10^(eps / ln 10), printable at any size
    warn_user(f"{name}={epsilon:g} is above {WEAK_EPSILON:g}: the probability of any output may then differ "
              f"by a factor up to e^{epsilon:g} (about 10^{factor:.3g}) between tables that differ in one "
              "record, so the guarantee protects almost nothing; the run goes on as asked",
              WeakPrivacyWarning)
    return True


def warn_if_delta_weak(delta: float, n: int) -> bool:
    """Warn when ``delta`` >= 1/n; return whether it warned.

    (epsilon, delta)-DP with delta >= 1/n admits a mechanism that publishes one randomly chosen record
    outright (Dwork & Roth, Sec. 2.3: delta should be less than the inverse of any polynomial in n). n is
    public under the privacy unit (same-size neighbours), but the message does not quote it.
    """
    if delta == 0 or delta * n < 1:
        return False
    warn_user(f"delta={delta:g} is not below 1/n for this table: (epsilon, delta)-DP then allows publishing a "
              "randomly chosen record outright; choose delta far below 1/n (MWEM's default is 1e-9); the run "
              "goes on as asked", WeakPrivacyWarning)
    return True


def check_nonnegative(value: object, name: str) -> float:
    """A finite real number >= 0."""
    x = _as_real(value, name)
    if not math.isfinite(x) or x < 0:
        raise InputError(f"{name} must be a finite number >= 0, got {value!r}")
    return x


def check_open_unit(value: object, name: str) -> float:
    """A real number in the open interval (0, 1) (delta, beta, gamma, a share)."""
    x = _as_real(value, name)
    if not math.isfinite(x) or not 0 < x < 1:
        raise InputError(f"{name} must be a number in (0, 1), got {value!r}")
    return x


def check_delta(value: object, name: str = "delta") -> float:
    """delta in [0, 1): zero means pure differential privacy."""
    x = _as_real(value, name)
    if not math.isfinite(x) or not 0 <= x < 1:
        raise InputError(f"{name} must be a number in [0, 1), got {value!r}")
    return x


def check_positive_int(value: object, name: str, *, minimum: int = 1) -> int:
    """An int >= minimum (bool and float are refused)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputTypeError(f"{name} must be an integer, got {value!r} ({type(value).__name__})")
    if value < minimum:
        raise InputError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_fraction(value: object, name: str, *, allow_zero: bool = True) -> float:
    """A real number in [0, 1) (or (0, 1) when ``allow_zero`` is false): a share of a budget."""
    x = _as_real(value, name)
    low_ok = x >= 0 if allow_zero else x > 0
    if not math.isfinite(x) or not low_ok or x >= 1:
        interval = "[0, 1)" if allow_zero else "(0, 1)"
        raise InputError(f"{name} must be a number in {interval}, got {value!r}")
    return x


def check_release_parameters(*, n: int, universe_size: int, num_queries: int, epsilon: float,
                             delta: float = 0.0, beta: float = 0.05) -> None:
    """The public parameters every accuracy theorem is stated in: n, |X|, |Q|, eps, delta, beta."""
    check_positive_int(n, "n")
    check_positive_int(universe_size, "universe_size")
    check_positive_int(num_queries, "num_queries")
    check_positive(epsilon, "epsilon")
    check_delta(delta)
    check_open_unit(beta, "beta")


def check_alpha(value: object, name: str = "alpha") -> float:
    """A target accuracy in (0, 1]."""
    x = check_positive(value, name)
    if x > 1:
        raise InputError(f"{name} must be a number in (0, 1], got {value!r}")
    return x
