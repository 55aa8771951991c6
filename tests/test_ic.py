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
from dprelease.updates import MultiplicativeWeights, mw_max_updates

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


# ------------------------------------------ IC hands U its own alpha: the updates still fit T(alpha/2)
class _GapAdversary:
    """A distinguisher as bad as Thm 5.4's event allows, for the update bound: it picks (mostly) the query with
    the *smallest* true gap |f(x) - f(D)| >= 5 alpha/8 on which IC can still update, and has the noise put v
    alpha/8 (just under) beyond f(x), away from f(D), so |v - f(D)| reaches IC's 3 alpha/4. The update count
    bound needs no accurate distinguisher: every sequence of such updates must fit T(alpha/2). With no such
    query left it picks the largest gap and zero noise, and IC stops."""

    name = "gap-adversary"

    def __init__(self, true: np.ndarray, alpha: float, rng: np.random.Generator) -> None:
        self.true, self.alpha, self.rng, self.offset = true, alpha, rng, 0.0

    def select(self, measurer, queries, estimates, *, epsilon, label) -> int:
        gaps = self.true - np.asarray(estimates)
        eligible = np.flatnonzero(np.abs(gaps) >= 5 * self.alpha / 8 * (1 + 1e-6))
        if eligible.size == 0:
            self.offset = 0.0
            return int(np.argmax(np.abs(gaps)))
        smallest = int(eligible[np.argmin(np.abs(gaps[eligible]))])
        index = smallest if self.rng.random() < 0.7 else int(self.rng.choice(eligible))
        self.offset = float(np.sign(gaps[index])) * self.alpha / 8 * (1 - 1e-9)  # |v - f(x)| < alpha/8
        return index

    def error_bound(self, *, epsilon, gamma, n, num_queries) -> float:
        return 0.0


class _Watched:
    """The rule under test with twice its T as IC's rounds (so IC's cap cannot hide an excess), recording the
    potential drop of every update IC makes: KL(x || x^t) for MW, ||z - z^t||_2^2 for the perceptron."""

    def __init__(self, rule, potential) -> None:
        self.rule, self.potential, self.drops, self.name = rule, potential, [], rule.name

    def initial(self, domain):
        return self.rule.initial(domain)

    def answers(self, model, queries):
        return self.rule.answers(model, queries)

    def update(self, model, query, noisy_answer, *, alpha):
        new = self.rule.update(model, query, noisy_answer, alpha=alpha)
        self.drops.append(self.potential(model) - self.potential(new))
        return new

    def max_updates(self, *, alpha, domain):
        return 2 * self.rule.max_updates(alpha=alpha, domain=domain)


@pytest.mark.parametrize("rule_name", ["mw", "perceptron"])
@pytest.mark.parametrize("seed", range(6))
def test_updates_never_exceed_t_of_alpha_over_2_although_u_gets_ics_alpha(rule_name, seed, monkeypatch):
    """IC passes U its own alpha (MW's eta = alpha/2, the perceptron's step alpha/|X|), the book's proof U at
    alpha/2. On IC's update rule (|v - f(D)| >= 3 alpha/4) with noise < alpha/8, every update drops the potential
    by at least T(alpha/2)'s per-step amount, (alpha/2)^2/4 (MW, Thm 4.10) or (alpha/2)^2/|X| (perceptron,
    Thm 5.11), and the count never exceeds T(alpha/2): 4 ln|X| / (alpha/2)^2, or r^2 |X| / (alpha/2)^2 with
    r = ||x||_2/||x||_1. Deterministic given the seed (the noise is the adversary's)."""
    from dprelease.queries import DenseQuery, QueryList
    from dprelease.updates import kl_potential
    from dprelease.updates.perceptron import Perceptron, l2_potential, perceptron_max_updates

    rng = np.random.Generator(np.random.PCG64(700 + seed))
    domain = Domain(("a", "b"), (2, int(rng.integers(2, 5))))
    alpha, n = [0.2, 0.3, 0.4][seed % 3], 10**6
    counts = rng.multinomial(n, rng.dirichlet(np.full(domain.size, 0.1)))  # concentrated: a large potential
    data = Dataset.from_histogram(counts, domain)
    vectors = rng.random((40, domain.size))
    vectors[:20] = vectors[:20] < 0.5  # counting queries and [0, 1]-valued ones
    queries = QueryList(domain, tuple(DenseQuery(domain, v.reshape(domain.shape)) for v in vectors))
    x = counts.reshape(domain.shape)
    if rule_name == "mw":
        rule = _Watched(MultiplicativeWeights(), lambda model: kl_potential(x, model))
        step_drop, bound = (alpha / 2) ** 2 / 4, mw_max_updates(alpha=alpha / 2, universe_size=domain.size)
    else:
        rule = _Watched(Perceptron(), lambda model: l2_potential(x, model))
        ratio = float(np.linalg.norm(counts / n))
        step_drop = (alpha / 2) ** 2 / domain.size
        bound = perceptron_max_updates(alpha=alpha / 2, universe_size=domain.size, norm_ratio_bound=ratio)
    adversary = _GapAdversary(queries.answers(data), alpha, rng)
    monkeypatch.setattr("dprelease.privacy.measurer.snapped_laplace",
                        lambda values, **_: np.asarray(values, dtype=np.float64) + adversary.offset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyNotGuaranteedWarning)
        result = IterativeConstruction(epsilon=1.0, alpha=alpha, update=rule, distinguisher=adversary).run(
            data, queries, rng=SeededRandom(seed))
    updates = sum(record["action"] == "update" for record in result.transcript)
    assert result.transcript[-1]["action"] == "stop" and updates == len(rule.drops) >= 5
    assert min(rule.drops) >= step_drop * (1 - 1e-9), "an update dropped the potential by less than T(alpha/2) needs"
    assert updates <= bound, f"{updates} updates > T(alpha/2) = {bound:.1f}"
