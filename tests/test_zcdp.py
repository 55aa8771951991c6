"""zCDP: the conversion to (eps, delta), calibration, the accountant, and MWEM's exact Gaussian ledger."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.errors import BudgetExceededError, InputError
from dprelease.mechanisms.mwem import MWEM
from dprelease.mechanisms.mwem_tuning import MWEMTuning
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import grid_step
from dprelease.privacy.rng import SeededRandom
from dprelease.privacy.zcdp import (ZCDPAccountant, bun_steinke_epsilon, cks_delta, discrete_gaussian,
                                    epsilon_for, exponential_epsilon, gaussian_sigma, rho_for, snapped_gaussian,
                                    snapped_gaussian_scale)
from dprelease.queries import Workload


def reference_delta(rho: float, eps: float) -> float:
    """CKS Sec. 2.3 by brute force over a fine alpha grid (an independent check of the bisection)."""
    alphas = 1 + np.logspace(-6, 4, 200_001)
    log_delta = (alphas - 1) * (alphas * rho - eps) + alphas * np.log1p(-1 / alphas) - np.log(alphas - 1)
    return float(np.exp(log_delta.min()))


@pytest.mark.parametrize("rho,eps", [(0.01, 1.0), (0.0002, 0.1), (1.0, 10.0), (0.5, 2.0)])
def test_cks_delta_matches_a_brute_force_minimum(rho, eps):
    assert cks_delta(rho=rho, epsilon=eps) == pytest.approx(reference_delta(rho, eps), rel=1e-4)
    assert cks_delta(rho=rho, epsilon=eps) <= reference_delta(rho, eps) * (1 + 1e-8)  # the bisection finds the dip


@pytest.mark.parametrize("eps", [0.1, 1.0, 10.0])
def test_rho_for_is_the_largest_float_rho_that_converts_within_budget(eps):
    delta = 1e-9
    rho = rho_for(epsilon=eps, delta=delta)
    assert Fraction(cks_delta(rho=float(rho), epsilon=eps)) <= Fraction(delta)  # exact comparison
    above = math.nextafter(float(rho), math.inf) * (1 + 1e-9)
    assert Fraction(cks_delta(rho=above, epsilon=eps)) > Fraction(delta)
    # CKS is never worse than Bun & Steinke's Prop. 1.3, and strictly better here.
    assert bun_steinke_epsilon(rho=float(rho), delta=delta) > eps
    assert epsilon_for(rho=rho, delta=delta) <= eps


def test_known_values_at_the_benchmark_budget():
    # eps = 1, delta = 1e-9: BS Prop. 1.3 allows rho = (sqrt(L + 1) - sqrt(L))^2, L = ln(1e9); CKS more.
    L = math.log(1e9)
    bs_rho = (math.sqrt(L + 1) - math.sqrt(L)) ** 2
    rho = float(rho_for(epsilon=1.0, delta=1e-9))
    assert round(bs_rho, 4) == 0.0118 and round(rho, 4) == 0.0150
    assert rho > 1.2 * bs_rho


def test_exponential_mechanism_epsilon_is_exactly_within_its_rho():
    for rho in (Fraction(1, 3), Fraction(0.000123), 0.01):
        eps = exponential_epsilon(rho)
        assert Fraction(eps) ** 2 / 8 <= Fraction(rho)
        assert Fraction(math.nextafter(eps, math.inf)) ** 2 / 8 > Fraction(rho)


def test_gaussian_sigma_is_the_smallest_float_meeting_the_theorem():
    need_sq = Fraction(2, 48842**2)
    for rho in (Fraction(1, 1000), Fraction(0.0003), 1.5):
        sigma = gaussian_sigma(l2_sensitivity_squared=need_sq, rho=rho)
        assert need_sq / (2 * Fraction(sigma) ** 2) <= Fraction(rho)  # Delta^2 / (2 sigma^2) <= rho, exactly
        assert need_sq / (2 * Fraction(math.nextafter(sigma, 0)) ** 2) > Fraction(rho)


def test_snapped_gaussian_is_on_the_grid_and_accounts_for_it():
    sensitivity = Fraction(1, 48842)
    step, sigma_z = snapped_gaussian_scale(sensitivity=sensitivity, changed=2, rho=Fraction(1, 1000))
    assert step == grid_step(sensitivity)
    # The grid inflates the L2 sensitivity to sqrt(2) (1/n + g): rho is still met, exactly.
    delta_z_sq = 2 * ((sensitivity + step) / step) ** 2
    assert delta_z_sq / (2 * Fraction(sigma_z) ** 2) <= Fraction(1, 1000)
    values = snapped_gaussian(np.linspace(0, 1, 50), sensitivity=sensitivity, changed=2, rho=Fraction(1, 1000),
                              rng=SeededRandom(0))
    g = float(step)
    assert np.array_equal(values / g, np.round(values / g))


def test_discrete_gaussian_has_the_right_moments():
    z = discrete_gaussian(3.0, 200_000, SeededRandom(1))
    assert z.dtype == np.int64
    assert abs(z.mean()) < 5 * 3.0 / math.sqrt(200_000)
    # Var of N_Z(0, 9) is just below 9 (CKS Cor. 9); the sample variance's sd is about 9 sqrt(2/n) = 0.03.
    assert 8.85 < z.var() < 9.1


def test_accountant_refuses_over_budget_and_converts_what_was_spent():
    acc = ZCDPAccountant(epsilon=1.0, delta=1e-9)
    acc.charge_exponential(epsilon=0.1, label="select")
    acc.charge_pure(epsilon=0.05, label="laplace")
    assert acc.spent_rho == Fraction(0.1) ** 2 / 8 + Fraction(0.05) ** 2 / 2
    with pytest.raises(BudgetExceededError, match="nothing was charged"):
        acc.charge(rho=acc.remaining_rho + Fraction(1, 10**30), label="too much")
    assert len(acc.ledger) == 2
    acc.charge(rho=acc.remaining_rho, label="the rest")
    assert acc.remaining_rho == 0
    eps, delta = acc.guarantee()
    assert eps <= 1.0 and delta == 1e-9
    with pytest.raises(InputError):
        ZCDPAccountant(epsilon=1.0, delta=0.0)


def test_gaussian_measurement_needs_a_zcdp_accountant():
    domain = Domain(("a", "b"), (2, 3))
    data = Dataset.from_records([[0, 1], [1, 2], [1, 0]], domain)
    pure = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=1.0), rng=SeededRandom(0))
    with pytest.raises(TypeError, match="ZCDPAccountant"):
        pure.gaussian_marginal(("a",), rho=0.001, label="x")
    acc = ZCDPAccountant(epsilon=1.0, delta=1e-9)
    measurer = PrivateMeasurer(data, accountant=acc, rng=SeededRandom(0))
    measurer.gaussian_marginal(("a", "b"), rho=Fraction(1, 1000), label="m")
    measurer.select_marginal([("a",), ("b",)], [np.full(2, 0.5), np.full(3, 1 / 3)], epsilon=0.05, label="s")
    assert [c.rho for c in acc.ledger] == [Fraction(1, 1000), Fraction(0.05) ** 2 / 8]


@pytest.mark.parametrize("epsilon,rounds,init_share,selection_share", [(1.0, 4, 0.1, 0.25), (0.3, 3, 0.0, 0.5)])
def test_mwem_gaussian_ledger_is_exact(epsilon, rounds, init_share, selection_share):
    domain = Domain(("a", "b", "c"), (3, 4, 2))
    g = np.random.Generator(np.random.PCG64(0))
    data = Dataset.from_records(g.integers(0, domain.sizes, size=(3_000, 3)), domain)
    workload = Workload.all_kway(domain, 2)
    mwem = MWEM(epsilon=epsilon, delta=1e-9, rounds=rounds,
                tuning=MWEMTuning(init_share=init_share, selection_share=selection_share, final_iterations=3))
    result = mwem.run(data, workload, rng=SeededRandom(0))
    split = mwem.rho_split(3 if init_share else 0)
    acc = result.accountant
    assert isinstance(acc, ZCDPAccountant) and acc.rho == rho_for(epsilon=epsilon, delta=1e-9) == split["rho"]
    expected = [split["init_each"]] * (3 if init_share else 0) + [split["select_epsilon"] ** 2 / 8,
                                                                    split["measure"]] * rounds
    assert [c.rho for c in acc.ledger] == expected
    assert acc.spent_rho == sum(expected) <= acc.rho
    # Only the selections' rounding down of eps leaves budget unspent, and very little of it.
    assert acc.rho - acc.spent_rho < Fraction(1, 10**9) * acc.rho
    assert result.parameters["noise"] == "gaussian" and result.parameters["delta"] == 1e-9
