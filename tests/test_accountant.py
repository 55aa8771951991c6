"""Exact accounting: basic and advanced composition, refusal before release."""

from fractions import Fraction
import math

import numpy as np
import pytest

from dprelease.errors import BudgetExceededError, InputError, InputTypeError
from dprelease.privacy.accountant import PrivacyAccountant, advanced_composition


def test_float_budget_is_compared_exactly():
    # As floats, 0.1 + 0.2 == 0.30000000000000004 > 0.3; on the exact values of the
    # three floats the sum also exceeds the budget, so the second charge is refused.
    assert Fraction(0.1) + Fraction(0.2) > Fraction(0.3)
    acc = PrivacyAccountant(epsilon=0.3)
    acc.charge(epsilon=0.1, label="a")
    with pytest.raises(BudgetExceededError, match="nothing was charged"):
        acc.charge(epsilon=0.2, label="b")
    assert [c.label for c in acc.ledger] == ["a"]
    assert acc.spent_epsilon == Fraction(0.1)


def test_point_one_plus_point_nine_does_not_pass_as_one():
    # The floats 0.1 and 0.9 sum, exactly, to 1 + 2.8e-17: above a budget of 1.0.
    assert Fraction(0.1) + Fraction(0.9) > 1
    acc = PrivacyAccountant(epsilon=1.0)
    acc.charge(epsilon=0.1, label="a")
    with pytest.raises(BudgetExceededError):
        acc.charge(epsilon=0.9, label="b")
    assert acc.spent_epsilon == Fraction(0.1)


def test_fraction_charges_sum_exactly_to_budget():
    acc = PrivacyAccountant(epsilon=1.0)
    for i in range(7):
        acc.charge(epsilon=Fraction(1, 7), label=str(i))
    assert acc.spent_epsilon == 1
    assert acc.remaining_epsilon == 0
    with pytest.raises(BudgetExceededError):
        acc.charge(epsilon=Fraction(1, 10**30), label="one more")


def test_random_charge_sequences_never_overspend_and_refusals_change_nothing():
    rng = np.random.Generator(np.random.PCG64(2024))
    for _ in range(1000):
        budget_eps = float(rng.uniform(0.01, 5))
        budget_delta = float(rng.choice([0.0, 1e-6, 1e-3]))
        acc = PrivacyAccountant(epsilon=budget_eps, delta=budget_delta)
        for step in range(int(rng.integers(1, 30))):
            eps = float(rng.uniform(0, budget_eps / 3))
            delta = float(rng.choice([0.0, budget_delta / 4]))
            before = (list(acc.ledger), acc.spent_epsilon, acc.spent_delta)
            expected_ok = acc.spent_epsilon + Fraction(eps) <= Fraction(budget_eps) and \
                acc.spent_delta + Fraction(delta) <= Fraction(budget_delta)
            try:
                acc.charge(epsilon=eps, delta=delta, label=f"s{step}")
                assert expected_ok
            except BudgetExceededError:
                assert not expected_ok
                assert (acc.ledger, acc.spent_epsilon, acc.spent_delta) == before
            assert acc.spent_epsilon <= Fraction(budget_eps)
            assert acc.spent_delta <= Fraction(budget_delta)
            assert acc.spent_epsilon == sum((c.epsilon for c in acc.ledger), Fraction(0))


def test_advanced_composition_matches_theorem_3_20_by_hand():
    eps, k, dp = 0.01, 100, 1e-6
    by_hand = math.sqrt(2 * k * math.log(1 / dp)) * eps + k * eps * (math.exp(eps) - 1)
    total, delta = advanced_composition(epsilon=eps, delta=0.0, k=k, delta_slack=dp)
    assert by_hand <= float(total) <= by_hand * (1 + 1e-11)
    assert delta == Fraction(dp)
    # k delta + delta'
    _, delta2 = advanced_composition(epsilon=eps, delta=1e-9, k=k, delta_slack=dp)
    assert delta2 == 100 * Fraction(1e-9) + Fraction(dp)


def test_book_example_3_7_eps0_1_over_801_exceeds_one():
    # docs/theorems.md: the book's 1/801 only keeps the first term; exact Thm 3.20 gives > 1.
    total, _ = advanced_composition(epsilon=1 / 801, delta=0.0, k=10_000, delta_slack=math.exp(-32))
    assert 1.014 < float(total) < 1.015


def test_reservation_charges_min_of_basic_and_advanced_and_refuses_excess():
    acc = PrivacyAccountant(epsilon=1.0, delta=1e-6)
    res = acc.reserve(epsilon_each=0.001, count=400, delta_slack=1e-6, label="block")
    adv, _ = advanced_composition(epsilon=0.001, delta=0.0, k=400, delta_slack=1e-6)
    assert acc.spent_epsilon == min(adv, 400 * Fraction(0.001))
    for i in range(400):
        res.use(epsilon=0.001, label=str(i))
    with pytest.raises(BudgetExceededError):
        res.use(epsilon=0.001, label="401st")
    with pytest.raises(BudgetExceededError):
        acc.reserve(epsilon_each=0.01, count=10_000, delta_slack=1e-6, label="too much")


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 0.0, -1.0])
def test_accountant_rejects_bad_epsilon(bad):
    with pytest.raises(InputError, match="epsilon"):
        PrivacyAccountant(epsilon=bad)


@pytest.mark.parametrize("bad", [True, "1", None])
def test_accountant_rejects_wrong_types(bad):
    with pytest.raises(InputTypeError, match="epsilon"):
        PrivacyAccountant(epsilon=bad)


@pytest.mark.parametrize("bad", [1.0, 1.5, -0.1, float("nan")])
def test_accountant_rejects_bad_delta(bad):
    with pytest.raises(InputError, match="delta"):
        PrivacyAccountant(epsilon=1.0, delta=bad)


def test_basic_reservation_charges_the_whole_block_up_front():
    acc = PrivacyAccountant(epsilon=1.0)
    res = acc.reserve(epsilon_each=Fraction(1, 8), count=8, label="block")
    assert acc.spent_epsilon == 1 and len(acc.ledger) == 1
    res.use(epsilon=Fraction(1, 8), label="step 1")
    with pytest.raises(BudgetExceededError):
        res.use(epsilon=Fraction(1, 4), label="too big a step")
