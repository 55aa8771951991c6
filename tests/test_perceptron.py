"""The perceptron update (Alg. 10, Thm 5.11): the L2 potential drops by >= alpha^2/|X| per update
(normalized units), no sequence exceeds (||x||_2/||x||_1)^2 |X| / alpha^2, the public norm bound, the
simplex projection, exact accounting in IC, and the release through the API."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from dprelease import Dataset, Domain, InputError, Workload
from dprelease.api import synthesize
from dprelease.mechanisms.iterative_construction import AccuracyNotGuaranteedWarning, IterativeConstruction
from dprelease.privacy.rng import SeededRandom
from dprelease.queries import DenseQuery, ProductQuery
from dprelease.queries.callable import CallableQuery
from dprelease.updates.perceptron import (
    Perceptron,
    SignedHistogram,
    l2_potential,
    norm_ratio_bound_distinct_rows,
    norm_ratio_bound_max_cell_share,
    perceptron_max_updates,
    project_to_simplex,
)

DOMAIN = Domain(("a", "b", "c"), (2, 3, 4))  # |X| = 24


def random_truth(rng: np.random.Generator, dense: bool) -> np.ndarray:
    if dense:  # n >> |X|: mass spread over every cell
        counts = rng.multinomial(100_000, rng.dirichlet(np.full(DOMAIN.size, 5.0)))
    else:  # n << |X|: a few records
        counts = np.bincount(rng.integers(0, DOMAIN.size, 4), minlength=DOMAIN.size)
    return counts.reshape(DOMAIN.shape)


@pytest.mark.parametrize("dense", [True, False])
@pytest.mark.parametrize("alpha", [0.05, 0.1, 0.2])
@pytest.mark.parametrize("seed", range(4))
def test_potential_drop_and_update_bound(dense, alpha, seed):
    rng = np.random.Generator(np.random.PCG64(seed))
    x = random_truth(rng, dense)
    z = x / x.sum()
    ratio = float(np.linalg.norm(z.reshape(-1)))  # ||x||_2 / ||x||_1: the theorem's exact quantity
    vectors = rng.random((120, DOMAIN.size))
    vectors[:40] = (vectors[:40] < 0.3)  # some counting queries
    queries = [DenseQuery(DOMAIN, v.reshape(DOMAIN.shape)) for v in vectors]
    true = vectors @ z.reshape(-1)
    rule = Perceptron()
    model = rule.initial(DOMAIN)
    bound = perceptron_max_updates(alpha=alpha, universe_size=DOMAIN.size, norm_ratio_bound=ratio)
    potential = l2_potential(x, model)
    assert potential == pytest.approx(ratio**2)  # Psi_1 = ||z - 0||^2
    updates = 0
    while True:
        estimates = vectors @ model.values.reshape(-1)
        wrong = np.flatnonzero(np.abs(true - estimates) >= alpha)  # |f(x) - f(x^t)| >= alpha
        if wrong.size == 0:
            break
        i = int(rng.choice(wrong))
        v = true[i] + rng.uniform(-0.999, 0.999) * alpha  # |f(x) - v| < alpha, adversarial
        model = rule.update(model, queries[i], v, alpha=alpha)
        updates += 1
        new_potential = l2_potential(x, model)
        # Thm 5.11's proof, normalized: the drop is >= alpha'^2 / |X| with alpha' = alpha ||x||_1, i.e. alpha^2 / |X|.
        assert potential - new_potential >= alpha**2 / DOMAIN.size - 1e-12
        potential = new_potential
        assert updates <= bound, "Thm 5.11: more than (||x||_2/||x||_1)^2 |X| / alpha^2 updates"
    assert updates >= 1  # x^1 = 0 is far from x: the run had to work
    assert updates <= perceptron_max_updates(alpha=alpha, universe_size=DOMAIN.size)  # the public default r = 1


def test_update_steps_alpha_over_size_against_the_sign_and_keeps_its_input():
    rule = Perceptron()
    model = rule.initial(DOMAIN)
    query = ProductQuery.conjunction(DOMAIN, {"a": 1})
    up = rule.update(model, query, 0.5, alpha=0.24)  # f(x^t) = 0 <= v: add
    assert np.array_equal(model.values, np.zeros(DOMAIN.shape))
    assert up.values[1, 0, 0] == pytest.approx(0.01) and up.values[0, 0, 0] == 0  # alpha / |X| = 0.24 / 24
    down = rule.update(up, query, 0.0, alpha=0.24)  # f(x^t) = 0.12 > v: subtract
    assert np.allclose(down.values, 0)
    negative = rule.update(model, query, -1.0, alpha=0.24)  # f(x^t) = 0 > -1: negative entries appear
    assert negative.marginal(("a",))[1] == pytest.approx(-0.12)
    with pytest.raises(TypeError, match="linear queries"):
        rule.update(model, CallableQuery(DOMAIN, lambda h: 0.0), 0.5, alpha=0.1)


def test_projection_onto_the_simplex():
    rng = np.random.Generator(np.random.PCG64(7))
    for _ in range(50):
        v = rng.normal(0, 0.3, 17)
        p = project_to_simplex(v)
        assert p.min() >= 0 and p.sum() == pytest.approx(1)
        # KKT: p = max(v - theta, 0) with one theta; no simplex point is closer (random checks).
        support = p > 0
        theta = v[support] - p[support]
        assert np.allclose(theta, theta[0]) and (v[~support] <= theta[0] + 1e-12).all()
        others = rng.dirichlet(np.ones(17), 200)
        assert (np.linalg.norm(others - v, axis=1) >= np.linalg.norm(p - v) - 1e-12).all()
    q = rng.dirichlet(np.ones(9))
    assert np.allclose(project_to_simplex(q), q)  # a distribution is its own projection
    model = SignedHistogram(DOMAIN, rng.normal(0, 0.1, DOMAIN.shape))
    released = model.projected()
    assert released.probabilities.sum() == pytest.approx(1) and released.probabilities.min() >= 0


def test_public_norm_ratio_bound():
    assert perceptron_max_updates(alpha=0.1, universe_size=24) == pytest.approx(24 / 0.01)  # r = 1
    assert perceptron_max_updates(alpha=0.1, universe_size=24, norm_ratio_bound=0.5) == pytest.approx(0.25 * 2400)
    assert norm_ratio_bound_distinct_rows(100) == pytest.approx(0.1)  # ||x||_2 = sqrt(n) for 0/1 counts
    assert norm_ratio_bound_max_cell_share(0.04) == pytest.approx(0.2)
    # ||x||_2^2 <= max_i x_i ||x||_1: the share bound holds on data meeting it.
    x = np.array([4, 3, 3, 0, 2], dtype=float)
    assert np.linalg.norm(x) / x.sum() <= norm_ratio_bound_max_cell_share(4 / 12)
    for bad in (0.0, -1.0, 1.5, float("nan")):
        with pytest.raises(ValueError):
            Perceptron(norm_ratio_bound=bad)
    with pytest.raises(InputError, match="1/sqrt"):
        Perceptron(norm_ratio_bound=0.1).initial(DOMAIN)  # 0.1 < 1/sqrt(24): no database meets it
    with pytest.raises(ValueError):
        norm_ratio_bound_max_cell_share(1.5)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_ic_perceptron_accounting_is_exact(delta):
    data = Dataset.from_histogram(np.arange(24) * 10 + 5, DOMAIN)
    workload = Workload.all_kway(DOMAIN, 2, smallest=1)
    rule = Perceptron(norm_ratio_bound=0.5)
    alpha = 0.5
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyNotGuaranteedWarning)
        result = IterativeConstruction(epsilon=1.0, delta=delta, alpha=alpha, update=rule).run(
            data, workload, rng=SeededRandom(0))
    rounds = math.ceil(0.25 * 24 / (alpha / 2) ** 2)  # T(alpha/2) = r^2 |X| / (alpha/2)^2 = 96
    assert result.parameters["rounds"] == rounds == 96
    (charge,) = result.accountant.ledger
    if delta == 0:
        assert result.parameters["epsilon0"] == float(Fraction(1, 2 * rounds))
        assert charge.epsilon == 1
    else:
        assert result.parameters["epsilon0"] == 1.0 / (4 * math.sqrt(rounds * math.log(1 / delta)))
        assert charge.epsilon <= 1
    assert isinstance(result.model, SignedHistogram)


def test_ic_perceptron_on_dense_data_is_accurate_with_a_large_budget():
    # Dense (n >> |X|), a known per-cell share: r = sqrt(max share) is public knowledge here.
    rng = np.random.Generator(np.random.PCG64(3))
    counts = rng.multinomial(1_000_000, rng.dirichlet(np.full(DOMAIN.size, 4.0)))
    assert counts.max() <= 0.2 * counts.sum()
    data = Dataset.from_histogram(counts, DOMAIN)
    workload = Workload.all_kway(DOMAIN, 2, smallest=1)
    rule = Perceptron(norm_ratio_bound=norm_ratio_bound_max_cell_share(0.2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyNotGuaranteedWarning)
        result = IterativeConstruction(epsilon=5.0, alpha=0.1, update=rule).run(data, workload, rng=SeededRandom(4))
    assert any(r["action"] == "update" for r in result.transcript)
    raw = np.abs(workload.answers(result.model) - workload.answers(data)).max()
    projected = np.abs(workload.answers(result.model.projected()) - workload.answers(data)).max()
    assert raw <= 0.1 and projected <= 0.1
    assert np.abs(workload.answers(Perceptron().initial(DOMAIN)) - workload.answers(data)).max() > 0.1


def test_synthesize_ic_perceptron_releases_the_projection():
    data = Dataset.from_histogram(np.arange(24) * 100 + 50, DOMAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(data, "1way", mechanism="ic-perceptron", epsilon=1.0, alpha=0.4, seed=2)
    assert release.parameters["update"] == "perceptron"
    assert release.rows.shape == (data.n, 3)
    for answers in release.answers:
        assert answers.min() >= 0 and answers.sum() == pytest.approx(1)  # the projection, a distribution
    assert release.privacy_ledger["spent"]["epsilon"] == 1.0
