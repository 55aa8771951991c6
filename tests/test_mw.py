"""Theorem 4.10 on randomized adversarial runs: the KL potential drops by >= alpha^2 / 4
at every update that meets the theorem's conditions, and no sequence has more than
4 ln|X| / alpha^2 updates."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dprelease.domain import Domain
from dprelease.queries import DenseQuery, ProductQuery
from dprelease.representations import HistogramModel
from dprelease.updates import MultiplicativeWeights, kl_potential, mw_max_updates

DOMAIN = Domain(("a", "b", "c"), (4, 5, 6))  # |X| = 120


def random_truth(rng: np.random.Generator) -> np.ndarray:
    # Skewed, with empty cells: far from uniform, so updates are needed.
    weights = rng.dirichlet(np.full(DOMAIN.size, 0.3))
    weights[rng.random(DOMAIN.size) < 0.3] = 0
    return (weights / weights.sum()).reshape(DOMAIN.shape)


def random_queries(rng: np.random.Generator, count: int) -> list:
    queries = []
    for _ in range(count):
        if rng.random() < 0.5:
            queries.append(DenseQuery(DOMAIN, rng.random(DOMAIN.shape)))
        else:
            attrs = [a for a in DOMAIN.attributes if rng.random() < 0.6] or ["a"]
            queries.append(ProductQuery.from_weights(DOMAIN, {a: rng.random(DOMAIN.size_of(a)) for a in attrs}))
    return queries


class Truth:
    """The true distribution as a marginal source (queries evaluate through it)."""

    def __init__(self, p: np.ndarray) -> None:
        self.domain, self.model = DOMAIN, HistogramModel(DOMAIN, np.log(np.maximum(p, 1e-300)))
        self.p = p

    def marginal(self, attributes):
        axes = DOMAIN.axes(attributes)
        other = tuple(i for i in range(3) if i not in axes)
        s = self.p.sum(axis=other)
        kept = sorted(axes)
        return np.transpose(s, [kept.index(a) for a in axes])


@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.2])
@pytest.mark.parametrize("seed", range(8))
def test_potential_drop_and_update_bound(alpha, seed):
    rng = np.random.Generator(np.random.PCG64(seed))
    truth = Truth(random_truth(rng))
    queries = random_queries(rng, 200)
    rule = MultiplicativeWeights()
    model = rule.initial(DOMAIN)
    bound = mw_max_updates(alpha=alpha, universe_size=DOMAIN.size)
    updates = 0
    potential = kl_potential(truth.p, model)
    assert potential <= math.log(DOMAIN.size) + 1e-12  # Psi_1 <= ln|X|
    while True:
        errors = np.array([abs(q.evaluate(truth) - q.evaluate(model)) for q in queries])
        wrong = np.flatnonzero(errors > alpha)  # condition 1: |f(x) - f(x^t)| > alpha
        if wrong.size == 0:
            break
        query = queries[int(rng.choice(wrong))]
        # condition 2: |f(x) - v| < alpha, v adversarial within the allowed band
        v = query.evaluate(truth) + rng.uniform(-0.999, 0.999) * alpha
        model = rule.update(model, query, v, alpha=alpha)
        updates += 1
        new_potential = kl_potential(truth.p, model)
        assert potential - new_potential >= alpha**2 / 4 - 1e-12, "Lemma 4.12 / Thm 4.10 potential drop"
        assert new_potential >= -1e-12
        potential = new_potential
        assert updates <= bound, "Thm 4.10: more than 4 ln|X| / alpha^2 updates"
    assert updates <= bound


def test_update_does_not_modify_its_input_and_stays_normalized():
    rule = MultiplicativeWeights()
    model = rule.initial(DOMAIN)
    before = model.log_probs.copy()
    query = ProductQuery.conjunction(DOMAIN, {"a": 1})
    new = rule.update(model, query, 0.9, alpha=0.1)
    assert np.array_equal(model.log_probs, before)
    assert new.probabilities.sum() == pytest.approx(1.0, abs=1e-12)
    # v above f(x^t): mass moves towards the query's cells, by exp(eta) with eta = alpha / 2
    ratio = new.probabilities[1, 0, 0] / new.probabilities[0, 0, 0]
    assert ratio == pytest.approx(math.exp(0.05), rel=1e-12)


def test_log_domain_survives_many_updates_without_underflow():
    rule = MultiplicativeWeights()
    model = rule.initial(DOMAIN)
    query = ProductQuery.conjunction(DOMAIN, {"a": 0})
    for _ in range(5_000):
        model = rule.update(model, query, 0.0, alpha=0.5)
    assert np.all(np.isfinite(model.log_probs))
    assert model.probabilities.sum() == pytest.approx(1.0)


def test_mw_bound_formula():
    assert mw_max_updates(alpha=0.1, universe_size=120) == pytest.approx(4 * math.log(120) / 0.01)
