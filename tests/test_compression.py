"""Marginals measured on compressed domains (MST's compression, issue 12): the sensitivity, the fits, the ledger.

* compressing is a partition of the records: a neighbour changes the compressed marginal by at most 2/n in
  L1 (the marginal's sensitivity), so measuring it costs what measuring the marginal costs;
* :func:`expand` is the adjoint of :func:`compress` (the fits' gradient goes back through it);
* a compressed measurement fits the same way on the histogram and on the factored model (1e-9), and a
  marginal measured whole and compressed adds both terms to one potential;
* MWEM with ``compress_rare`` spends its budget exactly and says which marginals it compressed.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from dprelease import Dataset, Domain
from dprelease.mechanisms.mwem import MWEM
from dprelease.mechanisms.mwem_tuning import ADAPTIVE
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import exact
from dprelease.privacy.rng import SeededRandom
from dprelease.privacy.zcdp import rho_for
from dprelease.queries.compression import compress, compressed_shape, expand, rare_value_groups
from dprelease.queries.workload import Workload
from dprelease.representations.factored import FactoredModel
from dprelease.representations.histogram import HistogramModel, marginalize
from dprelease.updates.measurement_fit import fit_measurements
from dprelease.updates.measurements import MarginalMeasurement

DOMAIN = Domain(("a", "b", "c"), (6, 5, 3))


def groups(seed: int, size: int) -> np.ndarray:
    g = np.random.Generator(np.random.PCG64(seed)).integers(0, max(1, size // 2), size=size)
    return np.unique(g, return_inverse=True)[1]  # groups numbered 0..G-1


def test_rare_values_share_one_group_and_common_ones_keep_their_own():
    fractions = np.array([0.5, 0.001, 0.3, -0.002, 0.004, 0.197])
    grouping = rare_value_groups(fractions, std=0.01)  # rare: under 0.03
    assert grouping.tolist() == [0, 3, 1, 3, 3, 2]
    assert rare_value_groups(np.array([0.5, 0.001, 0.499]), std=0.01) is None  # one rare value: nothing to merge
    # the rarest first, while the pool's (clipped) mass stays within max_mass: -0.002 and 0.001 fit in 0.002,
    # 0.004 would not
    assert rare_value_groups(fractions, std=0.02, max_mass=0.002).tolist() == [0, 4, 1, 4, 2, 3]


@pytest.mark.parametrize("seed", range(5))
def test_expand_is_the_adjoint_of_compress(seed):
    g = np.random.Generator(np.random.PCG64(seed))
    grouping = (groups(seed, 6), None, groups(seed + 10, 3))
    x = g.normal(size=(6, 5, 3))
    y = g.normal(size=compressed_shape((6, 5, 3), grouping))
    assert compress(x, grouping).shape == y.shape
    assert np.vdot(compress(x, grouping), y) == pytest.approx(np.vdot(x, expand(y, grouping)), rel=1e-12)
    assert compress(x, grouping).sum() == pytest.approx(x.sum(), rel=1e-12)  # a partition: nothing lost


@pytest.mark.parametrize("seed", range(20))
def test_a_neighbour_moves_the_compressed_marginal_by_at_most_the_marginals_sensitivity(seed):
    g = np.random.Generator(np.random.PCG64(seed))
    n = 50
    records = g.integers(0, DOMAIN.sizes, size=(n, 3))
    neighbour = records.copy()
    neighbour[g.integers(n)] = g.integers(0, DOMAIN.sizes)  # replace one record
    grouping = (groups(seed, 6), groups(seed + 1, 5))
    one, other = (compress(Dataset.from_records(r, DOMAIN).marginal(("a", "b")), grouping) for r in (records, neighbour))
    assert np.abs(one - other).sum() <= 2 / n + 1e-12


def test_the_kernel_measures_the_compressed_marginal_at_the_marginals_price():
    data = Dataset.from_records(np.random.Generator(np.random.PCG64(0)).integers(0, DOMAIN.sizes, (40_000, 3)), DOMAIN)
    accountant = PrivacyAccountant(epsilon=10.0)
    measurer = PrivateMeasurer(data, accountant=accountant, rng=SeededRandom(0))
    grouping = (np.array([0, 0, 1, 1, 2, 2]), None)
    noisy = measurer.laplace_marginal(("a", "b"), epsilon=Fraction(5), label="compressed", grouping=grouping)
    assert noisy.shape == (3, 5)
    assert np.abs(noisy - compress(data.marginal(("a", "b")), grouping)).max() < 0.01  # scale 2/(n 5) = 1e-5
    assert [c.epsilon for c in accountant.ledger] == [Fraction(5)]  # the same charge as the whole marginal


def test_a_compressed_measurement_fits_alike_on_the_histogram_and_the_factored_model():
    g = np.random.Generator(np.random.PCG64(3))
    truth = g.dirichlet(np.full(DOMAIN.size, 0.3)).reshape(DOMAIN.shape)
    grouping = (np.array([0, 1, 2, 2, 2, 2]), np.array([0, 0, 1, 1, 2]))
    measurements = [
        MarginalMeasurement(("a",), marginalize(DOMAIN, truth, ("a",)), 0.01, "gaussian"),
        MarginalMeasurement(("a", "b"), compress(marginalize(DOMAIN, truth, ("a", "b")), grouping), 0.005, "gaussian",
                            grouping=grouping),
        MarginalMeasurement(("a", "b"), marginalize(DOMAIN, truth, ("a", "b")) + 0.01 * g.normal(size=(6, 5)), 0.02,
                            "gaussian"),  # the same attributes measured whole: a second term on the same clique
        MarginalMeasurement(("b", "c"), marginalize(DOMAIN, truth, ("b", "c")), 0.01, "gaussian"),
    ]
    histogram, step_h = fit_measurements(HistogramModel.uniform(DOMAIN), measurements, iterations=40)
    factored, step_f = fit_measurements(FactoredModel.uniform(DOMAIN), measurements, iterations=40)
    assert step_f == pytest.approx(step_h, rel=1e-12)
    assert np.abs(histogram.probabilities - np.exp(factored.log_probs())).max() < 1e-9
    # and the fit moved the compressed cells toward the measured ones
    fitted = compress(marginalize(DOMAIN, histogram.probabilities, ("a", "b")), grouping)
    start = compress(marginalize(DOMAIN, HistogramModel.uniform(DOMAIN).probabilities, ("a", "b")), grouping)
    target = measurements[1].values
    assert np.abs(fitted - target).sum() < 0.25 * np.abs(start - target).sum()


def skewed_table(n: int) -> Dataset:
    """Columns with a few common values and many rare ones: what compression is for."""
    domain = Domain(("x", "y", "z"), (30, 25, 4))
    g = np.random.Generator(np.random.PCG64(7))
    p_x = np.r_[np.full(3, 0.3), np.full(27, 0.1 / 27)]
    p_y = np.r_[np.full(2, 0.45), np.full(23, 0.1 / 23)]
    records = np.column_stack([g.choice(30, n, p=p_x), g.choice(25, n, p=p_y), g.integers(0, 4, n)])
    return Dataset.from_records(records, domain)


@pytest.mark.parametrize("delta", [0.0, 1e-9])
def test_mwem_with_compression_spends_its_budget_exactly_and_says_what_it_compressed(delta):
    data = skewed_table(10_000)  # at 5,000 rows pure DP plans INIT alone (no round would select but blind)
    workload = Workload.all_kway(data.domain, 2)
    # the rounds' compression is under test: the joint plan, which this 3,000-cell table would take, is off, and so
    # is the direct plan, which its 3 pairs over 3 columns would take (it measures no 1-way marginal to compress by)
    tuning = replace(ADAPTIVE, compress_rare=0.2, final_iterations=5, joint_noise=None, direct_noise=None)
    mwem = MWEM(epsilon=1.0, delta=delta, tuning=tuning)
    result = mwem.run(data, workload, rng=SeededRandom(4))
    if result.parameters["noise"] == "laplace":
        assert sum(c.epsilon for c in result.accountant.ledger) == exact(1.0)
    else:
        rho = rho_for(epsilon=1.0, delta=1e-9)
        spent = sum(c.rho for c in result.accountant.ledger)
        assert spent <= rho and (rho - spent) / rho < Fraction(1, 10**12)
    compressed = [m for m in result.measurements if m.grouping is not None]
    assert compressed, "the rare values of x and y should have been pooled"
    for m in compressed:
        sizes = [data.domain.size_of(a) for a in m.attributes]
        assert m.values.size == int(np.prod(compressed_shape(sizes, m.grouping))) < int(np.prod(sizes))
    logged = [e for e in result.transcript if "compressed_cells" in e]
    assert len(logged) == len(compressed)
    assert result.parameters["compress_rare"] == 0.2
