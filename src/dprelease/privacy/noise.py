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


# ----------------------------------------------------------------- float-safe Laplace
#: Grid step relative to the sensitivity: the released value is a multiple of a power of two
#: g <= sensitivity * GRID_FRACTION, so rounding inflates the sensitivity by at most this fraction.
GRID_FRACTION = Fraction(1, 2**20)


def grid_step(sensitivity: Fraction) -> Fraction:
    """The largest power of two g with g <= sensitivity * GRID_FRACTION (exact)."""
    target = exact(sensitivity) * GRID_FRACTION
    exponent = math.floor(math.log2(float(target)))
    step = Fraction(2) ** exponent
    while step > target:  # guard float log2 rounding
        step /= 2
    while step * 2 <= target:
        step *= 2
    return step


def discrete_laplace(t: float, size: int | tuple[int, ...], rng: RandomSource) -> np.ndarray:
    """Integers Z with P(Z = k) proportional to exp(-|k| / t): the difference of two geometrics.

    A Geometric(1 - e^{-1/t}) variable is floor(t * E) with E ~ Exponential(1), since
    P(floor(tE) >= k) = e^{-k/t}. E = -log(U) with U uniform on the 53-bit grid inside (0, 1),
    so outcomes with probability below 2^-53 (|Z| beyond about 36.7 t) cannot occur: the
    sampler matches the exact distribution up to that truncation and float rounding at the
    CDF steps, both below 2^-50 in probability.
    """
    g1 = np.floor(t * rng.standard_exponential(size))
    g2 = np.floor(t * rng.standard_exponential(size))
    return (g1 - g2).astype(np.int64)


def snapped_laplace(values: np.ndarray | float, *, sensitivity: Fraction, epsilon: Fraction,
                    rng: RandomSource) -> np.ndarray:
    """values + Laplace noise, released on a fixed grid: float-safe (Mironov 2012).

    Each value is rounded to the nearest multiple of a power of two g (public, from the
    sensitivity alone), then g * Z is added with Z discrete-Laplace of scale
    t = (sensitivity + g) / (g epsilon). The output is a multiple of g, so its floating-point
    pattern carries nothing about the input; rounding moves a value by at most g / 2, so
    neighbouring rounded inputs differ by at most sensitivity + g, and (in L1, over a vector)
    the discrete Laplace ratio is bounded by exp(epsilon) (the discrete analogue of Thm 3.6),
    up to the sampler's 2^-50 truncation (see :func:`discrete_laplace`).

    Privacy: (epsilon, 0)-DP for an input of L1 sensitivity ``sensitivity``, with the
    sensitivity inflated by g <= sensitivity / 2^20 and delta below 2^-50 from float sampling.
    """
    sensitivity, epsilon = exact(sensitivity), exact(epsilon)
    step = grid_step(sensitivity)
    t = float_at_least((sensitivity + step) / (step * epsilon))
    values = np.asarray(values, dtype=np.float64)
    g = float(step)  # a power of two: exact in float
    grid_values = np.rint(values / g)  # exact division by a power of two; ties to even
    return (grid_values + discrete_laplace(t, values.shape, rng)) * g
