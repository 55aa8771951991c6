"""Noise distributions and their exact calibration.

Every noise scale is computed so that the float actually used is never smaller
than the exact ``sensitivity / epsilon`` (rounded *up*): float rounding may only
ever add privacy, never remove it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dprelease.privacy.rng import RandomSource


def exact(value: float | int | Fraction) -> Fraction:
    """The exact rational value of a public number (floats are exact binary fractions)."""
    return value if isinstance(value, Fraction) else Fraction(value)


def float_at_least(value: Fraction) -> float:
    """The smallest float >= ``value`` (never rounds a noise scale down)."""
    f = float(value)
    return f if Fraction(f) >= value else math.nextafter(f, math.inf)


def float_at_most(value: Fraction) -> float:
    """The largest float <= ``value`` (never rounds an exponent's epsilon up)."""
    f = float(value)
    return f if Fraction(f) <= value else math.nextafter(f, -math.inf)


def laplace_scale(*, sensitivity: Fraction, epsilon: Fraction) -> float:
    """b >= sensitivity / epsilon: Laplace(b) on a query of that (L1) sensitivity is (epsilon, 0)-DP (Thm 3.6)."""
    return float_at_least(exact(sensitivity) / exact(epsilon))


def laplace(scale: float, size: int | tuple[int, ...], rng: RandomSource) -> np.ndarray:
    """Laplace(0, scale) draws: a fair sign times an Exponential(scale)."""
    return rng.signs(size) * scale * rng.standard_exponential(size)
