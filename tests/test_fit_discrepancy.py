"""The discrepancy principle in the measurement fits: stop once the model is as close to the noisy marginals as
the noise makes it (updates/measurements.py, NoiseDiscrepancy; MWEM's final fit, MWEMTuning.final_discrepancy)."""

from __future__ import annotations

import numpy as np
import pytest

from dprelease.domain import Domain
from dprelease.errors import InputError
from dprelease.mechanisms.mwem_tuning import ADAPTIVE, FACTORED, MWEMTuning
from dprelease.representations.factored import FactoredModel
from dprelease.representations.histogram import HistogramModel, marginalize
from dprelease.updates.measurement_fit import fit_measurements
from dprelease.updates.measurements import MarginalMeasurement, NoiseDiscrepancy, combine

DOMAIN = Domain(("a", "b", "c", "d"), (3, 4, 5, 2))
SIGMA = 0.01


def noisy_measurements(seed: int = 7) -> tuple[np.ndarray, list[MarginalMeasurement]]:
    g = np.random.Generator(np.random.PCG64(seed))
    truth = g.dirichlet(np.full(DOMAIN.size, 0.5)).reshape(DOMAIN.shape)
    out = []
    for attributes in [("a",), ("b",), ("c",), ("d",), ("a", "b"), ("b", "c"), ("c", "d"), ("a", "c")]:
        exact = marginalize(DOMAIN, truth, attributes)
        out.append(MarginalMeasurement(attributes, exact + SIGMA * g.standard_normal(exact.shape), SIGMA, "gaussian"))
    return truth, out


def standardized_residual(model, measurements) -> float:
    """Mean squared residual over the raw (2+ attribute) cells, in units of the noise variance."""
    total, cells = 0.0, 0
    for m in combine(measurements):
        if len(m.attributes) > 1:
            residual = np.asarray(model.marginal(m.attributes)) - m.values
            total += float(np.sum(residual**2)) / m.std**2
            cells += residual.size
    return total / cells


def steps_taken(model, measurements, **options) -> tuple[object, int]:
    taken = []
    fitted, _ = fit_measurements(model, measurements, on_step=lambda i, n: taken.append(i), **options)
    return fitted, len(taken)


@pytest.mark.parametrize("level", [0.8, 1.0, 2.0])
def test_the_fit_stops_at_the_first_step_within_the_noise(level):
    _, measurements = noisy_measurements()
    start = HistogramModel.uniform(DOMAIN)
    stopped, steps = steps_taken(start, measurements, iterations=500, discrepancy=level)
    assert 0 < steps < 500
    assert standardized_residual(stopped, measurements) <= level
    # one step fewer, the model was not yet within the noise: the stop is the first step that is
    before, _ = fit_measurements(start, measurements, iterations=steps - 1)
    assert standardized_residual(before, measurements) > level
    # without the stop the same fit goes on below the noise (it fits the noise)
    full, full_steps = steps_taken(start, measurements, iterations=500)
    assert full_steps > steps
    assert standardized_residual(full, measurements) < standardized_residual(stopped, measurements)


def test_the_histogram_and_the_factored_fit_stop_at_the_same_step():
    _, measurements = noisy_measurements(3)
    histogram, steps_h = steps_taken(HistogramModel.uniform(DOMAIN), measurements, iterations=400, discrepancy=0.8)
    factored, steps_f = steps_taken(FactoredModel.uniform(DOMAIN), measurements, iterations=400, discrepancy=0.8)
    assert steps_h == steps_f > 0
    assert isinstance(factored, FactoredModel)
    assert np.abs(histogram.probabilities - np.exp(factored.log_probs())).max() < 1e-9


def test_a_model_already_within_the_noise_takes_no_step():
    _, measurements = noisy_measurements()
    fitted, _ = fit_measurements(HistogramModel.uniform(DOMAIN), measurements, iterations=300)
    again, steps = steps_taken(fitted, measurements, iterations=50, discrepancy=1.0)
    assert steps == 0
    assert np.array_equal(again.log_probs, fitted.log_probs)


def test_one_way_marginals_alone_never_stop_the_fit():
    """MWEM fits each 1-way marginal as a distribution, not as measured: no raw cell, no discrepancy to reach."""
    _, measurements = noisy_measurements()
    one_way = [m for m in measurements if len(m.attributes) == 1]
    assert NoiseDiscrepancy(combine(one_way), 1.0).cells == 0
    # 20 steps: a product of 1-way marginals reaches its float minimum (no step lowers the loss, so the fit
    # ends) after 30 steps on some CPUs, 40+ on others; 20 is short of it everywhere we have run
    _, with_stop = steps_taken(HistogramModel.uniform(DOMAIN), one_way, iterations=20, discrepancy=1.0)
    _, without = steps_taken(HistogramModel.uniform(DOMAIN), one_way, iterations=20)
    assert with_stop == without == 20


def test_laplace_measurements_count_in_their_standard_deviation():
    """A Laplace scale b has variance 2 b^2: the level is in the same units for either noise."""
    m = MarginalMeasurement(("a", "b"), np.zeros((3, 4)), 0.5, "laplace")
    noise = NoiseDiscrepancy([m], 1.0)
    assert noise.standardizers == [pytest.approx(1 / (2 * 0.25))]
    assert noise.cells == 12
    assert noise.reached(12.0) and not noise.reached(12.01)  # at most level x cells


def test_the_presets_stop_their_final_fit_and_the_value_is_checked():
    assert ADAPTIVE.final_discrepancy == FACTORED.final_discrepancy == 0.8
    assert MWEMTuning().final_discrepancy is None  # CLASSIC runs every final step, as first tuned
    for bad in (0, -1.0):
        with pytest.raises(InputError, match="final_discrepancy"):
            MWEMTuning(final_discrepancy=bad)
