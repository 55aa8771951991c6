"""The iterative construction mechanism: Thm 5.3 accounting exactly, Thm 5.5's distinguisher
bound on seeded repeats, Thm 5.4 accuracy on a database large enough for it to bite."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from dprelease.bounds import ic_mw_alpha
from dprelease.data import Dataset
from dprelease.distinguishers import ExponentialMechanismDistinguisher, exponential_distinguisher_error
from dprelease.domain import Domain
from dprelease.evaluate import workload_errors
from dprelease.mechanisms.iterative_construction import AccuracyNotGuaranteedWarning, IterativeConstruction
from dprelease.privacy.accountant import PrivacyAccountant, advanced_composition
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import SeededRandom
from dprelease.queries import Workload
from dprelease.representations import HistogramModel
from dprelease.updates import mw_max_updates

DOMAIN = Domain(("a", "b", "c"), (2, 2, 4))  # |X| = 16


def skewed_dataset(n: int, seed: int = 0) -> Dataset:
    rng = np.random.Generator(np.random.PCG64(seed))
    p = rng.dirichlet(np.full(DOMAIN.size, 0.2))
    counts = np.floor(p * n).astype(np.int64)
    counts[0] += n - counts.sum()
    return Dataset.from_histogram(counts, DOMAIN)


def test_pure_dp_accounting_equals_theorem_5_3_exactly():
    data = skewed_dataset(10_000)
    workload = Workload.all_kway(DOMAIN, 2, smallest=1)
    eps, alpha = 1.0, 0.4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyNotGuaranteedWarning)
        result = IterativeConstruction(epsilon=eps, alpha=alpha).run(data, workload, rng=SeededRandom(0))
    rounds = math.ceil(mw_max_updates(alpha=alpha / 2, universe_size=DOMAIN.size))  # T(alpha/2)
    eps0 = Fraction(eps) / (2 * rounds)  # Thm 5.3
    assert result.parameters["rounds"] == rounds
    (charge,) = result.accountant.ledger  # the whole plan, charged before the first round
    assert charge.epsilon == 2 * rounds * eps0 == Fraction(eps)  # exactly eps, whenever IC stops
    assert charge.delta == 0
    rounds_run = len(result.transcript)
    assert all(r["epsilon"] == float(2 * eps0) for r in result.transcript)
    assert rounds_run <= rounds


def test_approximate_dp_accounting_equals_theorem_5_3_exactly():
    data = skewed_dataset(10_000)
    workload = Workload.all_kway(DOMAIN, 2, smallest=1)
    eps, delta, alpha = 0.5, 1e-6, 0.4
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyNotGuaranteedWarning)
        result = IterativeConstruction(epsilon=eps, delta=delta, alpha=alpha).run(data, workload, rng=SeededRandom(0))
    rounds = math.ceil(mw_max_updates(alpha=alpha / 2, universe_size=DOMAIN.size))
    eps0 = eps / (4 * math.sqrt(rounds * math.log(1 / delta)))  # Thm 5.3
    assert result.parameters["epsilon0"] == eps0
    (charge,) = result.accountant.ledger  # the whole run reserved up front
    advanced, adv_delta = advanced_composition(epsilon=eps0, delta=0.0, k=2 * rounds, delta_slack=delta)
    assert charge.epsilon == min(advanced, 2 * rounds * Fraction(eps0))
    assert charge.epsilon <= Fraction(eps)
    assert charge.delta in (Fraction(0), adv_delta)
    assert result.accountant.spent_delta <= Fraction(delta)


def test_exponential_distinguisher_error_within_F_in_1_minus_gamma_of_repeats():
    data = skewed_dataset(2_000, seed=3)
    workload = Workload.all_kway(DOMAIN, 2, smallest=1)
    estimates = workload.answers(HistogramModel.uniform(DOMAIN))
    errors = np.abs(workload.answers(data) - estimates)
    eps, gamma, repeats = 0.05, 0.1, 400
    f_eps = exponential_distinguisher_error(epsilon=eps, gamma=gamma, n=data.n, num_queries=workload.num_queries)
    assert f_eps == pytest.approx(2 * math.log(workload.num_queries / gamma) / (data.n * eps))  # Thm 5.5
    distinguisher = ExponentialMechanismDistinguisher()
    measurer = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=repeats * Fraction(eps)), rng=SeededRandom(9))
    failures = sum(
        errors[distinguisher.select(measurer, workload, estimates, epsilon=eps, label="r")] < errors.max() - f_eps
        for _ in range(repeats)
    )
    # Def. 5.5 allows gamma * repeats = 40 failures in expectation; P[Bin(400, 0.1) > 60] < 1e-3.
    assert failures <= 60


@pytest.mark.parametrize("seed", range(6))
def test_ic_accuracy_theorem_5_4_on_a_large_database(seed):
    n, eps, beta = 1_000_000, 1.0, 0.05
    data = skewed_dataset(n, seed=seed)
    workload = Workload.all_kway(DOMAIN, 2, smallest=1)
    alpha = ic_mw_alpha(n=n, universe_size=DOMAIN.size, num_queries=workload.num_queries, epsilon=eps, beta=beta)
    assert alpha is not None and alpha < 0.3
    result = IterativeConstruction(epsilon=eps, beta=beta).run(data, workload, rng=SeededRandom(100 + seed))
    assert result.parameters["alpha"] == alpha and result.parameters["accuracy_guaranteed"]
    # Uniform starts far off, so the run had to work.
    assert workload_errors(data, HistogramModel.uniform(DOMAIN), workload)["max_error"] > alpha
    assert workload_errors(data, result.model, workload)["max_error"] <= alpha


def test_round_cap_keeps_privacy_and_says_accuracy_is_not_guaranteed():
    data = skewed_dataset(10_000)
    workload = Workload.all_kway(DOMAIN, 1)
    with pytest.warns(AccuracyNotGuaranteedWarning):
        result = IterativeConstruction(epsilon=1.0, alpha=0.2, max_rounds=7).run(data, workload, rng=SeededRandom(1))
    assert result.parameters["rounds"] == 7
    assert result.parameters["epsilon0"] == 1.0 / 14
    assert len(result.transcript) <= 7
    assert result.accountant.spent_epsilon <= 1


def test_stop_rule_is_three_quarters_alpha():
    data = skewed_dataset(1_000_000)
    workload = Workload.all_kway(DOMAIN, 2, smallest=1)
    result = IterativeConstruction(epsilon=1.0).run(data, workload, rng=SeededRandom(4))
    alpha = result.parameters["alpha"]
    for record in result.transcript:
        gap = abs(record["noisy_answer"] - record["model_answer"])
        assert (gap < 3 * alpha / 4) == (record["action"] == "stop")


def test_alpha_none_without_guarantee_is_a_clear_error():
    data = skewed_dataset(100)
    from dprelease.errors import InputError

    with pytest.raises(InputError, match="guarantees no alpha"):
        IterativeConstruction(epsilon=1.0).run(data, Workload.all_kway(DOMAIN, 1), rng=SeededRandom(0))
