"""The float-safe Laplace sampler: grid, calibration, distribution."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dprelease.privacy.noise import discrete_laplace, grid_step, laplace_scale, snapped_laplace
from dprelease.privacy.rng import SeededRandom


@pytest.mark.parametrize("sensitivity", [Fraction(1), Fraction(2, 48842), Fraction(1, 3), Fraction(7, 10**9)])
def test_grid_step_is_the_largest_power_of_two_below_the_fraction(sensitivity):
    g = grid_step(sensitivity)
    assert g <= sensitivity / 2**20 < 2 * g
    assert math.log2(g) == int(math.log2(g))


def test_outputs_lie_on_the_grid_whatever_the_input():
    # Mironov's attack reads the input from the float pattern of value + noise; on a fixed grid
    # every output is an integer multiple of g, for every input.
    sensitivity = Fraction(1, 1000)
    g = float(grid_step(sensitivity))
    for value in (0.3, 0.3 + 2**-50, 1 / 3, 0.0):
        out = snapped_laplace(np.full(10_000, value), sensitivity=sensitivity, epsilon=Fraction(1), rng=SeededRandom(0))
        assert np.all(out / g == np.rint(out / g))


def test_snapped_laplace_has_the_laplace_scale():
    out = snapped_laplace(np.zeros(400_000), sensitivity=Fraction(2), epsilon=Fraction(1, 2), rng=SeededRandom(3))
    scale = 2 / 0.5 * (1 + 2**-20)
    assert abs(np.abs(out).mean() - scale) < 0.02 * scale  # E|Lap(b)| = b
    assert abs(np.median(out)) < 0.05


def test_discrete_laplace_pmf():
    t = 3.0
    z = discrete_laplace(t, 500_000, SeededRandom(4))
    p = math.exp(-1 / t)
    for k in (0, 1, -1, 4):
        expected = (1 - p) / (1 + p) * p ** abs(k)
        assert abs(np.mean(z == k) - expected) < 5 * math.sqrt(expected / 500_000)


def test_laplace_scale_rounds_up():
    for s, e in [(Fraction(1, 3), Fraction(1, 7)), (Fraction(2, 48842), Fraction(1, 10))]:
        assert Fraction(laplace_scale(sensitivity=s, epsilon=e)) >= s / e
