"""The sparse vector family (Dwork & Roth Sec. 3.6): the book's scales, threshold refresh, halting,
exact accounting, resumable state, and statistical privacy audits with planted non-private variants.

False-alarm rate: each audit below has false-alarm probability <= 1e-6 (tests/audit.py); the two
audits run on correct code here add 2e-6 to the suite's rate. Every run is seeded.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.errors import BudgetExceededError, BudgetExhaustedError, InputError
from dprelease.privacy import sparse_vector as sv
from dprelease.privacy.accountant import PrivacyAccountant, advanced_composition
from dprelease.privacy.noise import laplace, snapped_laplace
from dprelease.privacy.rng import SeededRandom
from dprelease.queries import ProductQuery
from tests.audit import violations

EPSILON = 1.0
FALSE_ALARM = 1e-6

# Neighbouring tables of the same size n = 10 (one record moves from (0, 1) to (1, 0)):
# q1 = "a == 1" is 0.4 on X and 0.5 on X'; q2 = "b == 1" is 0.5 on X and 0.4 on X'.
DOMAIN = Domain(("a", "b"), (2, 2))
X = Dataset.from_records([[1, 0]] * 4 + [[0, 1]] * 5 + [[0, 0]], DOMAIN)
X_PRIME = Dataset.from_records([[1, 0]] * 5 + [[0, 1]] * 4 + [[0, 0]], DOMAIN)
Q1 = ProductQuery.conjunction(DOMAIN, {"a": 1})
Q2 = ProductQuery.conjunction(DOMAIN, {"b": 1})
THRESHOLD = 0.45


def big_table(n: int = 100_000) -> Dataset:
    return Dataset.from_histogram([n // 2, n // 4, n // 8, n - n // 2 - n // 4 - n // 8], DOMAIN)


# ------------------------------------------------------------------ the book's noise scales
@pytest.mark.parametrize(("delta", "cutoff"), [(0.0, 1), (0.0, 7), (1e-6, 150), (1e-6, 400)])
@pytest.mark.parametrize("epsilon", [0.5, 3.0])
def test_scales_are_the_books_times_the_sensitivity(cutoff, delta, epsilon):
    # With delta > 0 the book's sizing is used past c of about 100 at delta = 1e-6 (below, the delta = 0
    # sizing is less noisy: test_a_small_cutoff_with_delta_is_sized_as_without_it).
    data = big_table()
    d = 1 / data.n
    acc = PrivacyAccountant(epsilon=10.0, delta=0.5)
    sparse = sv.Sparse(data, threshold=0.3, cutoff=cutoff, epsilon=epsilon, delta=delta, accountant=acc,
                       rng=SeededRandom(0))
    sigma = 2 * cutoff * d / epsilon if delta == 0 else math.sqrt(32 * cutoff * math.log(1 / delta)) * d / epsilon
    assert sparse.threshold_scale == pytest.approx(sigma, rel=1e-12)  # Alg. 2
    assert sparse.query_scale == pytest.approx(2 * sigma, rel=1e-12)

    numeric = sv.NumericSparse(data, threshold=0.3, cutoff=cutoff, epsilon=epsilon, delta=delta, accountant=acc,
                               rng=SeededRandom(0))
    s512 = math.sqrt(512)
    eps1 = 8 * epsilon / 9 if delta == 0 else s512 / (s512 + 1) * epsilon
    eps2 = 2 * epsilon / 9 if delta == 0 else 2 / (s512 + 1) * epsilon  # the typo corrected: times epsilon
    root = 2 * cutoff if delta == 0 else math.sqrt(32 * cutoff * math.log(2 / delta))
    assert numeric.threshold_scale == pytest.approx(root * d / eps1, rel=1e-12)  # Alg. 3: sigma(eps1)
    assert numeric.query_scale == pytest.approx(2 * root * d / eps1, rel=1e-12)
    assert numeric.numeric_scale == pytest.approx(root * d / eps2, rel=1e-12)  # sigma(eps2)
    if delta == 0:
        assert numeric.numeric_scale == pytest.approx(9 * cutoff * d / epsilon, rel=1e-12)


def test_a_large_epsilon_with_delta_falls_back_to_basic_composition_sizing():
    # The book's delta > 0 sizing (Cor. 3.21 style) assumes a small eps: at eps = 200, c = 1000 its runs
    # cost 515 by Thm 3.20 and 560 by basic composition, more than the budget, so a session could not
    # start. The delta = 0 sizing is used instead (it always fits); the accuracy bound follows it.
    from dprelease.bounds import numeric_sparse_alpha

    data = big_table()
    assert not sv.step_epsilons(epsilon=Fraction(200), delta=Fraction(1e-6), cutoff=1000, numeric=True)[2]
    acc = PrivacyAccountant(epsilon=200.0, delta=1e-6)
    numeric = sv.NumericSparse(data, threshold=0.3, cutoff=1000, epsilon=200.0, delta=1e-6, accountant=acc,
                               rng=SeededRandom(0))
    # The delta = 0 scales; each block is still charged the smaller of basic and advanced composition.
    assert acc.spent_epsilon <= 200 and acc.spent_delta <= Fraction(1e-6)
    assert numeric.epsilon_run == Fraction(200) * Fraction(8, 9) / 1000
    assert numeric.numeric_scale == pytest.approx(9 * 1000 / data.n / 200, rel=1e-12)
    kw = {"cutoff": 1000, "num_queries": 50, "epsilon": 200.0, "beta": 0.05}
    assert numeric_sparse_alpha(**kw, delta=1e-6) == numeric_sparse_alpha(**kw, delta=0.0)
    # Where the book's sizing fits, it is kept (and its bound).
    assert sv.step_epsilons(epsilon=Fraction(1), delta=Fraction(1e-6), cutoff=1000, numeric=True)[2]
    assert numeric_sparse_alpha(**{**kw, "epsilon": 1.0}, delta=1e-6) < numeric_sparse_alpha(**{**kw, "epsilon": 1.0})


@pytest.mark.parametrize("delta", [1e-6, 1e-9])
@pytest.mark.parametrize("numeric", [False, True])
def test_a_small_cutoff_with_delta_is_sized_as_without_it(numeric, delta):
    """The book's delta > 0 sizing pays sqrt(8 ln(1/delta)) for its sqrt(c) composition, so below c of about
    8 ln(1/delta) (Sparse) or ln(2/delta) (sqrt(512) + 1)^2 / 81 (NumericSparse) it gave every run a smaller
    epsilon than eps / c: a delta made a warm session's answers noisier (c = 3 at delta = 1e-9: an accuracy
    3.3x coarser). The sizing with the larger runs' epsilon is used, so the accuracy bound never grows when a
    delta is given, and the switch sits where the two epsilons cross."""
    from dprelease.bounds import numeric_sparse_alpha

    eps = Fraction(1)
    crossings = []
    for c in range(1, 400):
        pure = sv.step_epsilons(epsilon=eps, delta=Fraction(0), cutoff=c, numeric=numeric)
        chosen = sv.step_epsilons(epsilon=eps, delta=Fraction(delta), cutoff=c, numeric=numeric)
        assert chosen[0] >= pure[0]  # never a noisier run than without delta
        if numeric:
            kw = {"cutoff": c, "num_queries": 1000, "epsilon": 1.0, "beta": 0.05}
            assert numeric_sparse_alpha(**kw, delta=delta) <= numeric_sparse_alpha(**kw, delta=0.0)
        if chosen[2]:
            crossings.append(c)
    # one switch, from the delta = 0 sizing to the book's, at the predicted c
    assert crossings == list(range(crossings[0], 400))
    predicted = (math.log(2 / delta) * (math.sqrt(512) + 1) ** 2 / 81 if numeric
                 else 8 * math.log(1 / delta))
    assert abs(crossings[0] - predicted) <= 2
    # below it a session with delta runs the delta = 0 scales and is charged (eps, 0)
    data = big_table()
    kind = sv.NumericSparse if numeric else sv.Sparse
    accountants = [PrivacyAccountant(epsilon=1.0, delta=1e-3) for _ in range(2)]
    with_delta, without = (kind(data, threshold=0.3, cutoff=3, epsilon=1.0, delta=d, accountant=acc,
                                rng=SeededRandom(0)) for d, acc in zip((delta, 0.0), accountants))
    assert with_delta.threshold_scale == without.threshold_scale
    assert with_delta.numeric_scale == without.numeric_scale
    assert [(a.spent_epsilon, a.spent_delta) for a in accountants] == [(1, 0), (1, 0)]  # exactly, as Fractions


def test_above_threshold_scales_and_single_top():
    data = big_table()
    at = sv.AboveThreshold(data, threshold=0.3, epsilon=0.5, accountant=PrivacyAccountant(epsilon=0.5),
                           rng=SeededRandom(1))
    assert at.threshold_scale == pytest.approx(2 / (data.n * 0.5), rel=1e-12)  # Alg. 1: Lap(2/eps)
    assert at.query_scale == pytest.approx(4 / (data.n * 0.5), rel=1e-12)  # Lap(4/eps)
    top = ProductQuery.conjunction(DOMAIN, {"a": 0})  # 0.75, far above 0.3
    assert at.ask(ProductQuery.conjunction(DOMAIN, {"a": 1, "b": 1})) is False  # 0.125
    assert at.ask(top) is True
    with pytest.raises(BudgetExhaustedError, match="halted"):
        at.ask(top)
    assert issubclass(BudgetExhaustedError, BudgetExceededError)


def test_scales_never_round_below_the_exact_value():
    numeric = sv.NumericSparse(X, threshold=0.3, cutoff=3, epsilon=0.1, accountant=PrivacyAccountant(epsilon=0.1),
                               rng=SeededRandom(0))
    assert Fraction(numeric.threshold_scale) >= 2 * Fraction(1, 10) / numeric.epsilon_run
    assert Fraction(numeric.numeric_scale) >= Fraction(1, 10) / numeric.epsilon_numeric


# ------------------------------------------------------------------------- the algorithm itself
def replay_numeric_sparse(values, *, threshold, cutoff, scales, seed, sensitivity, epsilon_numeric):
    """Algorithm 3 written out by hand on the same random stream (the order of the draws included).

    The released numeric answer is value + Laplace(sensitivity / eps2), on the float-safe grid.
    """
    rng = SeededRandom(seed)
    t_scale, q_scale = scales
    draw = lambda b: float(laplace(b, 1, rng)[0])  # noqa: E731
    noisy_threshold, count, out = threshold + draw(t_scale), 0, []
    for value in values:
        if value + draw(q_scale) >= noisy_threshold:
            out.append(float(snapped_laplace(value, sensitivity=sensitivity, epsilon=epsilon_numeric, rng=rng)))
            count += 1
            if count >= cutoff:
                break
            noisy_threshold = threshold + draw(t_scale)  # refreshed after every TOP
        else:
            out.append(None)
    return out


def test_numeric_sparse_is_algorithm_3_draw_for_draw():
    data = big_table()
    queries = [ProductQuery.conjunction(DOMAIN, where) for where in
               ({"a": 1}, {"a": 0}, {"b": 0}, {"a": 1, "b": 1}, {"a": 0, "b": 0}, {"b": 1}, {"a": 0})] * 3
    values = [q.evaluate(data) for q in queries]
    acc = PrivacyAccountant(epsilon=1.0)
    numeric = sv.NumericSparse(data, threshold=0.5, cutoff=4, epsilon=1.0, accountant=acc, rng=SeededRandom(42),
                               sensitivity=Fraction(1, 1000))  # a coarser scale makes both outcomes occur
    got = []
    for q in queries:
        try:
            got.append(numeric.ask(q))
        except BudgetExhaustedError:
            break
    expected = replay_numeric_sparse(values, threshold=0.5, cutoff=4, seed=42,
                                     scales=(numeric.threshold_scale, numeric.query_scale),
                                     sensitivity=Fraction(1, 1000), epsilon_numeric=numeric.epsilon_numeric)
    # The numeric answer's Laplace scale is sensitivity / eps_numeric (Alg. 3, eps2 typo corrected).
    assert numeric.numeric_scale == pytest.approx(float(Fraction(1, 1000) / numeric.epsilon_numeric))
    assert got == expected
    assert sum(v is not None for v in got) == 4 and numeric.halted
    assert [float(c.epsilon) for c in acc.ledger] == pytest.approx([8 / 9, 1 / 9])


def test_threshold_is_refreshed_after_each_top_and_only_then():
    data = big_table()
    numeric = sv.NumericSparse(data, threshold=0.5, cutoff=3, epsilon=1.0, accountant=PrivacyAccountant(epsilon=1.0),
                               rng=SeededRandom(5))
    thresholds = [numeric.state()["noisy_threshold"]]
    low, high = ProductQuery.conjunction(DOMAIN, {"a": 1, "b": 1}), ProductQuery.conjunction(DOMAIN, {"a": 0})
    assert numeric.ask(low) is None and numeric.state()["noisy_threshold"] == thresholds[0]
    assert numeric.ask(high) is not None
    thresholds.append(numeric.state()["noisy_threshold"])
    assert thresholds[1] != thresholds[0]
    assert numeric.state()["reservations_used"] == [2, 1]  # two AboveThreshold runs begun, one answer paid


def test_query_checks_come_before_any_noise():
    numeric = sv.NumericSparse(X, threshold=0.3, cutoff=2, epsilon=1.0, accountant=PrivacyAccountant(epsilon=1.0),
                               rng=SeededRandom(0))
    before = numeric.state()
    with pytest.raises(InputError, match="domain"):
        numeric.ask(ProductQuery.conjunction(Domain(("z",), (2,)), {"z": 1}))
    assert numeric.state() == before


# ------------------------------------------------------------------------------- accounting
@pytest.mark.parametrize("epsilon", [0.1, 0.3, 1.0, 2.5])
def test_pure_plans_charge_exactly_epsilon_up_front(epsilon):
    for cls, extra in ((sv.AboveThreshold, {}), (sv.Sparse, {"cutoff": 7}), (sv.NumericSparse, {"cutoff": 7})):
        acc = PrivacyAccountant(epsilon=epsilon)
        mech = cls(X, threshold=0.3, epsilon=epsilon, accountant=acc, rng=SeededRandom(0), **extra)
        assert acc.spent_epsilon == Fraction(epsilon) and acc.spent_delta == 0  # exactly, before any query
        ledger = list(acc.ledger)
        for _ in range(5):
            try:
                mech.ask(Q1)
            except BudgetExhaustedError:
                break
        assert acc.ledger == ledger  # asking never charges
    acc = PrivacyAccountant(epsilon=1.0)
    sv.NumericSparse(X, threshold=0.3, cutoff=7, epsilon=1.0, accountant=acc, rng=SeededRandom(0))
    assert [c.epsilon for c in acc.ledger] == [Fraction(8, 9), Fraction(1, 9)]  # Thm 3.27's split


def test_approximate_plans_charge_theorem_3_20_exactly():
    eps, delta, c = 1.0, 1e-6, 50
    acc = PrivacyAccountant(epsilon=eps, delta=delta)
    numeric = sv.NumericSparse(X, threshold=0.3, cutoff=c, epsilon=eps, delta=delta, accountant=acc,
                               rng=SeededRandom(0))
    expected_eps, expected_delta = Fraction(0), Fraction(0)
    for each in (numeric.epsilon_run, numeric.epsilon_numeric):
        adv_eps, adv_delta = advanced_composition(epsilon=float(each), delta=0.0, k=c, delta_slack=delta / 2)
        basic = c * each
        expected_eps += min(basic, adv_eps)
        expected_delta += adv_delta if adv_eps < basic else 0
    assert acc.spent_epsilon == expected_eps and acc.spent_delta == expected_delta
    assert acc.spent_epsilon <= Fraction(eps) and acc.spent_delta == Fraction(delta)  # both blocks: delta/2 each


def test_a_plan_that_does_not_fit_is_refused_before_anything_is_drawn():
    acc = PrivacyAccountant(epsilon=0.5)
    rng = SeededRandom(0)
    with pytest.raises(BudgetExceededError):
        sv.NumericSparse(X, threshold=0.3, cutoff=3, epsilon=0.6, accountant=acc, rng=rng)
    assert acc.ledger == [] and np.array_equal(rng.raw_bits(1), SeededRandom(0).raw_bits(1))


# ------------------------------------------------------------------------------- resumable
def test_state_round_trip_continues_the_same_stream():
    data = big_table()
    queries = [ProductQuery.conjunction(DOMAIN, {"a": i % 2, "b": (i // 2) % 2}) for i in range(12)]
    first_acc = PrivacyAccountant(epsilon=1.0)
    whole = sv.NumericSparse(data, threshold=0.2, cutoff=5, epsilon=1.0, accountant=first_acc, rng=SeededRandom(9),
                             sensitivity=Fraction(1, 1000))
    uninterrupted = [whole.ask(q) for q in queries[:8]]

    acc = PrivacyAccountant(epsilon=1.0)
    rng = SeededRandom(9)
    part = sv.NumericSparse(data, threshold=0.2, cutoff=5, epsilon=1.0, accountant=acc, rng=rng,
                            sensitivity=Fraction(1, 1000))
    answers = [part.ask(q) for q in queries[:4]]
    saved, ledger, rng_state = part.state(), sv.accountant_state(acc), rng.state()
    restored_acc = sv.accountant_from_state(ledger)
    resumed = sv.NumericSparse.restore(data, saved, accountant=restored_acc, rng=SeededRandom.from_state(rng_state))
    answers += [resumed.ask(q) for q in queries[4:8]]
    assert answers == uninterrupted
    assert restored_acc.spent_epsilon == acc.spent_epsilon == Fraction(1) and len(restored_acc.ledger) == 2


def test_restore_refuses_a_ledger_without_the_plan():
    acc = PrivacyAccountant(epsilon=1.0)
    numeric = sv.NumericSparse(X, threshold=0.3, cutoff=2, epsilon=1.0, accountant=acc, rng=SeededRandom(0))
    with pytest.raises(InputError, match="ledger"):
        sv.NumericSparse.restore(X, numeric.state(), accountant=PrivacyAccountant(epsilon=1.0), rng=SeededRandom(0))
    broken = {**numeric.state(), "count": 2}
    with pytest.raises(InputError, match="counters"):
        sv.NumericSparse.restore(X, broken, accountant=acc, rng=SeededRandom(0))


# ------------------------------------------------------------------ statistical privacy audits
def above_threshold_outcomes(dataset: Dataset, samples: int, seed: int) -> np.ndarray:
    """0: TOP at q1; 1: TOP at q2; 2: BOT, BOT."""
    acc, rng = PrivacyAccountant(epsilon=samples * EPSILON), SeededRandom(seed)
    out = np.empty(samples, dtype=np.int64)
    for i in range(samples):
        at = sv.AboveThreshold(dataset, threshold=THRESHOLD, epsilon=EPSILON, accountant=acc, rng=rng)
        out[i] = 0 if at.ask(Q1) else (1 if at.ask(Q2) else 2)
    return out


def run_above_threshold_audit(samples: int = 3000) -> list[str]:
    events = [("TOP at q1", lambda o: o == 0), ("TOP at q2", lambda o: o == 1), ("no TOP", lambda o: o == 2),
              ("TOP at q2 or none", lambda o: o >= 1)]
    return violations(above_threshold_outcomes(X, samples, 1), above_threshold_outcomes(X_PRIME, samples, 2), events,
                      epsilon=EPSILON, alpha=FALSE_ALARM)


def test_above_threshold_passes_the_audit():
    assert run_above_threshold_audit() == []


def test_above_threshold_audit_catches_the_no_query_noise_variant(monkeypatch):
    # Lyu-Su-Li Alg. 5 (Stoddard et al. 2014): no noise on the queries. With q1 < q2 on X and
    # q1 > q2 on X', "BOT then TOP" needs q1 < T_hat <= q2: possible on X, impossible on X'.
    monkeypatch.setattr(sv._SparseVector, "_query_noise", lambda self: 0.0)
    assert run_above_threshold_audit() != []


def numeric_sparse_outcomes(dataset: Dataset, samples: int, seed: int) -> np.ndarray:
    """Rows (where the TOP was: 0, 1 or 2 = none; the numeric answer or nan)."""
    acc, rng = PrivacyAccountant(epsilon=samples * EPSILON), SeededRandom(seed)
    out = np.full((samples, 2), np.nan)
    for i in range(samples):
        numeric = sv.NumericSparse(dataset, threshold=THRESHOLD, cutoff=1, epsilon=EPSILON, accountant=acc, rng=rng)
        for position, query in enumerate((Q1, Q2)):
            value = numeric.ask(query)
            if value is not None:
                out[i] = (position, value)
                break
        else:
            out[i, 0] = 2
    return out


def run_numeric_sparse_audit(samples: int = 3000) -> list[str]:
    at = lambda k: (lambda o: o[:, 0] == k)  # noqa: E731
    near = lambda k, v: (lambda o: (o[:, 0] == k) & (np.abs(o[:, 1] - v) < 0.02))  # noqa: E731
    below = lambda k, v: (lambda o: (o[:, 0] == k) & (o[:, 1] <= v))  # noqa: E731
    events = [("TOP at q1", at(0)), ("TOP at q2", at(1)), ("no TOP", at(2)),
              ("TOP at q2, answer near 0.5", near(1, 0.5)), ("TOP at q2, answer near 0.4", near(1, 0.4)),
              ("TOP at q1, answer near 0.4", near(0, 0.4)), ("TOP at q1, answer <= 0.45", below(0, 0.45)),
              ("TOP at q2, answer <= 0.45", below(1, 0.45))]
    return violations(numeric_sparse_outcomes(X, samples, 3), numeric_sparse_outcomes(X_PRIME, samples, 4), events,
                      epsilon=EPSILON, alpha=FALSE_ALARM)


def test_numeric_sparse_passes_the_audit():
    assert run_numeric_sparse_audit() == []


def test_numeric_sparse_audit_catches_the_no_query_noise_variant(monkeypatch):
    monkeypatch.setattr(sv._SparseVector, "_query_noise", lambda self: 0.0)
    assert run_numeric_sparse_audit() != []


def test_numeric_sparse_audit_catches_an_unnoised_numeric_answer(monkeypatch):
    # The numeric answer released without its own Laplace noise: the value is f(x) itself.
    monkeypatch.setattr(sv._SparseVector, "_numeric_answer", lambda self, value: value)
    assert run_numeric_sparse_audit() != []
