"""The median mechanism (Def. 5.6, Alg. 9, Thms 5.8-5.9, Remark 5.2): nets, halving, T(alpha), IC runs,
non-linear queries, and the public caps."""

from __future__ import annotations

import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from dprelease import Dataset, Domain, DomainTooLargeError, InputError, Workload
from dprelease.distinguishers import ExponentialMechanismDistinguisher, exponential_distinguisher_error
from dprelease.mechanisms.iterative_construction import AccuracyNotGuaranteedWarning, IterativeConstruction
from dprelease.privacy.rng import SeededRandom
from dprelease.queries import DenseQuery, ProductQuery
from dprelease.queries.callable import CallableQuery, CallableQuerySet, spot_check_sensitivity
from dprelease.representations.nets import (
    all_databases,
    answer_matrix,
    check_net,
    count_databases,
    iter_databases,
    log2_count_databases,
    smalldb_size,
)
from dprelease.updates.median import MedianMechanism, MedianModel, median_max_updates, smallest_net

DOMAIN = Domain(("a", "b"), (2, 3))  # |X| = 6


def nonlinear_queries(domain: Domain) -> list[CallableQuery]:
    """Sensitivity-1/n non-linear queries (each checked by hand below)."""
    return [
        CallableQuery(domain, lambda h: float(h.max()), name="largest cell"),          # moves <= 1/n
        CallableQuery(domain, lambda h: float(np.minimum(h, 0.25).sum()), name="capped mass"),
        CallableQuery(domain, lambda h: float(abs(h[0].sum() - h[1].sum()) / 2), name="half |imbalance|"),
        CallableQuery(domain, lambda h: float(np.sort(h.reshape(-1))[-2:].sum()), name="top-2 mass"),
    ]


# ------------------------------------------------------------------------- nets
@pytest.mark.parametrize("universe, size", [(1, 4), (2, 5), (3, 0), (5, 4), (6, 5), (9, 3)])
def test_net_is_every_database_of_m_rows_exactly_once(universe, size):
    counts = np.concatenate(list(iter_databases(universe, size, chunk=7)))  # tiny chunks: the lazy path
    assert len(counts) == math.comb(universe + size - 1, size) == count_databases(universe, size)
    assert counts.shape[1] == universe
    assert (counts.sum(axis=1) == size).all() and (counts >= 0).all()
    assert len({tuple(row) for row in counts.tolist()}) == len(counts)
    assert log2_count_databases(universe, size) == pytest.approx(math.log2(count_databases(universe, size)), abs=1e-9)


def test_net_cap_is_public_and_refuses_before_enumerating():
    # 2^400-ish databases: refused at once from the count, with the numbers in the message.
    with pytest.raises(DomainTooLargeError, match=r"m=1000 rows over \|X\|=100 cells.*max_databases=1,000,000"):
        check_net(100, 1000)
    with pytest.raises(DomainTooLargeError, match="252 databases"):
        check_net(6, 5, max_databases=100)
    with pytest.raises(DomainTooLargeError, match="max_cells=1,000"):
        check_net(6, 5, num_queries=10, max_cells=1_000)  # 252 x 10 floats
    assert check_net(6, 5) == 252 == math.comb(10, 5)
    with pytest.raises(DomainTooLargeError):
        MedianMechanism(database_size=40, max_databases=1000).initial(DOMAIN)


def test_smalldb_net_size_is_the_fewest_rows_hoeffding_allows():
    # m = floor(ln(2|Q|) / (2 alpha^2)) + 1: the smallest m with 2|Q| exp(-2 m alpha^2) < 1 (Thm 4.2, corrected)
    assert smalldb_size(alpha=0.5, num_queries=8) == math.floor(math.log(16) / 0.5) + 1 == 6
    assert smalldb_size(alpha=0.9, num_queries=1) == 1
    assert smalldb_size(alpha=0.3, num_queries=1) == 4  # the book's ln|Q| / alpha^2 is 0 rows here
    assert smalldb_size(alpha=0.3, num_queries=2) == 8
    for q in (1, 2, 3, 8, 50, 10**6):
        for alpha in (0.05, 0.1, 0.25, 0.3, 0.5, 0.9, 1.0, 2.0):
            m = smalldb_size(alpha=alpha, num_queries=q)
            assert 2 * q * math.exp(-2 * m * alpha**2) < 1 <= 2 * q * math.exp(-2 * (m - 1) * alpha**2)
    rule = MedianMechanism.smalldb_net(alpha=0.5, num_queries=8)
    assert (rule.database_size, rule.net_alpha) == (6, 0.5)
    assert smallest_net(n=5, alpha=0.5, num_queries=8, linear=True) == ("all-databases", 5)
    assert smallest_net(n=50, alpha=0.5, num_queries=8, linear=True) == ("smalldb", 6)
    assert smallest_net(n=50, alpha=0.5, num_queries=8, linear=False) == ("all-databases", 50)


# ---------------------------------------------------------------- structure
def test_answers_are_medians_over_candidates_and_marginals_are_cellwise_medians():
    rule = MedianMechanism(database_size=3)
    model = rule.initial(DOMAIN)
    workload = Workload.all_kway(DOMAIN, 2, smallest=1)
    per_candidate = np.array([[q.evaluate(_Source(c / 3)) for q in [workload.query(i) for i in range(11)]]
                              for c in model.counts.reshape(-1, 2, 3)])
    assert np.allclose(model.answers(workload), np.median(per_candidate, axis=0))
    assert np.allclose(answer_matrix(workload, model.counts, DOMAIN, 3), per_candidate)
    assert np.allclose(np.concatenate([model.marginal(m).reshape(-1) for m in workload.marginals]),
                       np.median(per_candidate, axis=0))


class _Source:
    def __init__(self, h):
        self.domain, self.h = DOMAIN, np.asarray(h, dtype=float)

    def marginal(self, attributes):
        attributes = tuple(attributes)
        if attributes == ("a", "b"):
            return self.h
        return self.h.sum(axis=1) if attributes == ("a",) else self.h.sum(axis=0)


def test_update_keeps_its_input_and_never_empties_the_set():
    rule = MedianMechanism(database_size=2)
    model = rule.initial(DOMAIN)
    before = model.counts.copy()
    query = ProductQuery.conjunction(DOMAIN, {"a": 0})
    new = rule.update(model, query, 0.9, alpha=0.1)
    assert np.array_equal(model.counts, before) and len(new) < len(model)
    # Every candidate agrees on the constant query: nothing can be learned, D_t is kept.
    constant = ProductQuery.from_weights(DOMAIN, {"a": [1.0, 1.0]})
    assert rule.update(new, constant, 0.0, alpha=0.1) is new


# --------------------------------------------------------------- theorems
def _random_database(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    return np.bincount(rng.integers(0, size, n), minlength=size)


@pytest.mark.parametrize("kind", ["linear", "nonlinear"])
@pytest.mark.parametrize("seed", range(6))
def test_every_update_halves_and_sequences_never_exceed_log2_net(kind, seed):
    """Thm 5.8 on adversarial update sequences (Def. 5.3's conditions), Thm 5.9's net (x is in it)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    n, alpha = 5, [0.05, 0.1, 0.2][seed % 3]
    truth = _random_database(rng, n, DOMAIN.size)
    if kind == "linear":
        queries = [DenseQuery(DOMAIN, rng.random(DOMAIN.shape)) for _ in range(40)]
    else:
        queries = nonlinear_queries(DOMAIN)
    x = truth.reshape(1, 2, 3) / n
    rule = MedianMechanism.all_databases(n=n)
    model = rule.initial(DOMAIN)
    bound = median_max_updates(net_size=model.net_size)
    assert model.net_size == math.comb(DOMAIN.size + n - 1, n)
    updates = 0
    while True:
        estimates = np.array([float(np.median(_column(q, model))) for q in queries])
        true = np.array([_column(q, None, x)[0] for q in queries])
        wrong = np.flatnonzero(np.abs(true - estimates) >= alpha)  # condition 2: |f(x) - f(D_t)| >= alpha
        if wrong.size == 0:
            break
        i = int(rng.choice(wrong))
        v = true[i] + rng.uniform(-0.999, 0.999) * alpha  # condition 3: |f(x) - v| < alpha, adversarial
        new = rule.update(model, queries[i], v, alpha=alpha)
        assert 2 * len(new) <= len(model), "an MM update must remove at least half of D_t"
        assert any((row == truth).all() for row in new.counts), "x itself is never removed (Thm 5.9 net)"
        model, updates = new, updates + 1
        assert updates <= bound, "Thm 5.8: more than log2 |N| updates"


def _column(query, model: MedianModel | None, stack=None) -> np.ndarray:
    from dprelease.representations.nets import answer_column, normalized

    if stack is None:
        stack = normalized(model.counts, model.domain, model.database_size)
    return answer_column(query, stack)


@pytest.mark.parametrize("seed", range(4))
def test_smalldb_net_keeps_a_close_database_under_linear_updates(seed):
    """Remark 5.2: the SmallDB net for alpha holds y within alpha of x on linear Q; y survives every update."""
    rng = np.random.Generator(np.random.PCG64(100 + seed))
    n, alpha = 400, 0.3
    workload = Workload.all_kway(DOMAIN, 2, smallest=1)
    truth = _random_database(rng, n, DOMAIN.size)
    rule = MedianMechanism.smalldb_net(alpha=alpha, num_queries=workload.num_queries)
    model = rule.initial(DOMAIN)
    matrix = answer_matrix(workload, model.counts, DOMAIN, rule.database_size)
    true = workload.answers(_Source(truth.reshape(2, 3) / n))
    close = np.abs(matrix - true).max(axis=1) < alpha
    assert close.any()  # Thm 4.2
    keep = {tuple(r) for r in model.counts[close].tolist()}
    updates, bound = 0, rule.max_updates(alpha=alpha, domain=DOMAIN)
    while True:
        estimates = model.answers(workload)
        wrong = np.flatnonzero(np.abs(true - estimates) >= alpha)
        if wrong.size == 0:
            break
        i = int(rng.choice(wrong))
        new = rule.update(model, workload.query(i), true[i] + rng.uniform(-0.999, 0.999) * alpha, alpha=alpha)
        assert 2 * len(new) <= len(model)
        model, updates = new, updates + 1
        assert keep & {tuple(r) for r in model.counts.tolist()}, "every alpha-close net point was removed"
    assert updates <= bound


def test_max_updates_refuses_alphas_the_net_does_not_cover():
    rule = MedianMechanism.smalldb_net(alpha=0.4, num_queries=11)
    assert rule.database_size == math.floor(math.log(22) / (2 * 0.16)) + 1 == 10
    assert rule.max_updates(alpha=0.4, domain=DOMAIN) == math.log2(math.comb(6 + 10 - 1, 6 - 1))
    with pytest.raises(InputError, match="0.4-net"):
        rule.max_updates(alpha=0.3, domain=DOMAIN)
    with pytest.raises(InputError, match="linear queries only"):
        rule.check_queries(CallableQuerySet(DOMAIN, nonlinear_queries(DOMAIN)), DOMAIN)


# ------------------------------------------------------------------ in IC
def _tiny_data(n: int, seed: int = 0) -> Dataset:
    return Dataset.from_histogram(_random_database(np.random.Generator(np.random.PCG64(seed)), n, 6), DOMAIN)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_ic_median_accounting_is_exact(delta):
    data = _tiny_data(4)
    workload = Workload.all_kway(DOMAIN, 2, smallest=1)
    rule = MedianMechanism.all_databases(n=data.n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AccuracyNotGuaranteedWarning)
        result = IterativeConstruction(epsilon=1.0, delta=delta, alpha=0.5, update=rule).run(
            data, workload, rng=SeededRandom(0))
    rounds = math.ceil(math.log2(math.comb(6 + 4 - 1, 4)))  # T(alpha/2) = log2 C(9, 4) = log2 126 -> 7
    assert result.parameters["rounds"] == rounds == 7
    (charge,) = result.accountant.ledger
    if delta == 0:
        assert charge.epsilon == 2 * rounds * Fraction(1, 2 * rounds) == 1
    else:
        eps0 = 1.0 / (4 * math.sqrt(rounds * math.log(1 / delta)))
        assert result.parameters["epsilon0"] == eps0 and charge.epsilon <= 1
    assert len(result.transcript) <= rounds


def test_nonlinear_queries_through_the_median_mechanism():
    n = 6
    data = Dataset.from_histogram([5, 1, 0, 0, 0, 0], DOMAIN)  # concentrated: far from the net's medians
    queries = CallableQuerySet(DOMAIN, nonlinear_queries(DOMAIN))
    assert queries.sensitivity(n) == Fraction(1, n) and not queries.is_linear
    for q in queries.queries:  # the declarations hold on random neighbours (a public sanity check)
        assert spot_check_sensitivity(q, n=n, trials=40, rng=SeededRandom(5)) <= 1
    errors = []
    for seed in range(5):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", AccuracyNotGuaranteedWarning)
            result = IterativeConstruction(epsilon=200.0, alpha=0.3, update=MedianMechanism.all_databases(n=n)).run(
                data, queries, rng=SeededRandom(seed))
        assert result.accountant.spent_epsilon == 200
        errors.append(np.abs(result.model.answers(queries) - queries.answers(data)).max())
    # At this (huge) epsilon every stop means |v - f(D)| < 3 alpha / 4 up to small noise.
    assert max(errors) < 0.3
    start = MedianMechanism.all_databases(n=n).initial(DOMAIN).answers(queries)
    assert np.abs(start - queries.answers(data)).max() > max(errors)


def test_declared_sensitivity_sets_noise_and_distinguisher_error():
    n = 10
    double = CallableQuery(DOMAIN, lambda h: float(2 * h.max()), unit_sensitivity=2, name="2 x largest")
    assert double.sensitivity(n) == Fraction(1, 5)
    base = exponential_distinguisher_error(epsilon=0.5, gamma=0.1, n=n, num_queries=4)
    assert base == pytest.approx(2 * math.log(40) / 5)
    assert exponential_distinguisher_error(epsilon=0.5, gamma=0.1, n=n, num_queries=4,
                                           sensitivity=Fraction(1, 5)) == pytest.approx(2 * base)
    em = ExponentialMechanismDistinguisher(unit_sensitivity=2)
    assert em.error_bound(epsilon=0.5, gamma=0.1, n=n, num_queries=4) == pytest.approx(2 * base)
    assert ExponentialMechanismDistinguisher().error_bound(epsilon=0.5, gamma=0.1, n=n, num_queries=4) == base


@pytest.mark.parametrize("bad, error", [
    (dict(function=3), TypeError),
    (dict(function=lambda h: 0.0, unit_sensitivity=0), ValueError),
    (dict(function=lambda h: 0.0, unit_sensitivity=float("nan")), ValueError),
    (dict(function=lambda h: 0.0, unit_sensitivity="1"), TypeError),
])
def test_callable_query_bad_inputs(bad, error):
    with pytest.raises(error):
        CallableQuery(DOMAIN, **bad)


def test_callable_query_must_return_finite_numbers():
    with pytest.raises(InputError, match="non-finite"):
        CallableQuery(DOMAIN, lambda h: float("nan"), name="nan").evaluate(_Source(np.full((2, 3), 1 / 6)))
    with pytest.raises(TypeError, match="real number"):
        CallableQuery(DOMAIN, lambda h: "x", name="text").evaluate(_Source(np.full((2, 3), 1 / 6)))
    with pytest.raises(InputError):
        CallableQuerySet(DOMAIN, [])
    batched = CallableQuery(DOMAIN, lambda s: s.reshape(len(s), -1).max(axis=1), batched=True)
    assert np.allclose(batched.evaluate_many(all_databases(6, 2).reshape(-1, 2, 3) / 2),
                       [CallableQuery(DOMAIN, lambda h: h.max()).evaluate(_Source(c.reshape(2, 3) / 2))
                        for c in all_databases(6, 2)])


def test_median_model_and_rule_parameters_are_checked():
    with pytest.raises(TypeError):
        MedianMechanism(database_size=2.5)
    with pytest.raises(ValueError):
        MedianMechanism(database_size=0)
    with pytest.raises(ValueError):
        MedianMechanism.smalldb_net(alpha=-0.1, num_queries=3)
