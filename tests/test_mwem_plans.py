"""MWEM's budget plans that follow the task's public shape: exact ledgers for every path (issue 12).

* INIT at one planned round's budget per 1-way marginal (AIM's), then annealed rounds: the charges sum to
  the budget exactly, under pure DP (epsilon) and under zCDP (rho);
* the init-only plan: when no round is worth its noise, each 1-way marginal gets 1/d of the budget;
* the noise choice: with delta > 0, Laplace where it affords more rounds at the noise target (by more than one; within
  one, where its expected absolute cell noise is the smaller), and then the run is (epsilon, 0)-DP with an epsilon
  ledger;
* the rounds' plan is a function of public quantities only (n, the workload, the budget).
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from dprelease import Dataset, Domain
from dprelease.errors import InputError, InputTypeError
from dprelease.mechanisms.base import Budget
from dprelease.mechanisms.mwem import MWEM
from dprelease.mechanisms.mwem_tuning import MWEMTuning
from dprelease.mechanisms.registry import create
from dprelease.privacy.noise import exact
from dprelease.privacy.rng import SeededRandom
from dprelease.privacy.zcdp import rho_for
from dprelease.queries.workload import Workload

DOMAIN = Domain(("a", "b", "c", "d"), (3, 4, 2, 5))
PLAN = MWEMTuning(init_per_round=True, one_way_candidates=True, annealing=True, rounds_per_attribute=16,
                  noise_target=0.5, size_penalty=0.5, candidates="closure", selection_share=0.1, warm_start=True,
                  final_iterations=3)


def table(n: int, seed: int = 0) -> Dataset:
    generator = np.random.Generator(np.random.PCG64(seed))
    return Dataset.from_records(generator.integers(0, DOMAIN.sizes, size=(n, 4)), DOMAIN)


@pytest.mark.parametrize("epsilon,n", [(1.0, 20_000), (3.0, 5_000), (0.5, 50_000)])
def test_pure_dp_plan_spends_epsilon_exactly(epsilon, n):
    data, workload = table(n), Workload.all_kway(DOMAIN, 2)
    mwem = MWEM(epsilon=epsilon, tuning=PLAN)
    rounds = mwem.planned_rounds(workload, n=n, total=exact(epsilon), gaussian=False)
    result = mwem.run(data, workload, rng=SeededRandom(1))
    charges = [c.epsilon for c in result.accountant.ledger]
    assert sum(charges) == exact(epsilon)  # the annealed rounds hand out exactly what INIT left
    init = charges[:4]
    if rounds > 4:
        assert init == [exact(epsilon) / rounds * (1 - exact(0.1))] * 4
    else:
        assert init == [exact(epsilon) / 4] * 4
    assert result.parameters["noise"] == "laplace" and result.parameters["rounds"] == rounds


@pytest.mark.parametrize("epsilon,n", [(1.0, 200_000), (10.0, 20_000)])
def test_zcdp_plan_spends_rho_exactly_up_to_the_selections_rounding(epsilon, n):
    data, workload = table(n), Workload.all_kway(DOMAIN, 2)
    mwem = MWEM(epsilon=epsilon, delta=1e-9, tuning=PLAN)
    noise, rounds = mwem.plan_noise(workload, n=n)
    assert noise == "gaussian"
    result = mwem.run(data, workload, rng=SeededRandom(2))
    rho = rho_for(epsilon=epsilon, delta=1e-9)
    spent = sum(c.rho for c in result.accountant.ledger)
    # Measurements cost their rho exactly; a selection costs eps^2 / 8 for the largest float eps within its
    # share (zcdp.exponential_epsilon), a relative hair below it: never above the budget.
    assert spent <= rho and (rho - spent) / rho < Fraction(1, 10**12)
    assert [c.rho for c in result.accountant.ledger[:4]] == [rho / rounds * (1 - exact(0.1))] * 4


def test_init_only_plan_gives_each_one_way_marginal_a_dth_of_the_budget():
    """n * epsilon so small that no round is worth its noise: the independent baseline's plan."""
    data, workload = table(200), Workload.all_kway(DOMAIN, 3)
    mwem = MWEM(epsilon=0.05, tuning=PLAN)
    assert mwem.planned_rounds(workload, n=200, total=exact(0.05), gaussian=False) == 4
    result = mwem.run(data, workload, rng=SeededRandom(3))
    assert [c.epsilon for c in result.accountant.ledger] == [exact(0.05) / 4] * 4
    assert result.parameters["rounds_run"] == 0


WIDE = Domain(("p", "q", "r", "s"), (60, 50, 40, 3))


@pytest.mark.parametrize("delta", [0.0, 1e-9])
def test_init_keeps_half_when_few_rounds_fit_and_the_one_way_cells_are_already_precise(delta):
    """Large n, large pairs, small epsilon: T = d + 1, so AIM's INIT would take 72 % of the budget; capped at
    half, since half still measures every 1-way cell within init_cell_noise; the rest goes to the rounds."""
    n = 200_000
    generator = np.random.Generator(np.random.PCG64(5))
    data = Dataset.from_records(generator.integers(0, WIDE.sizes, size=(n, 4)), WIDE)
    workload = Workload.all_kway(WIDE, 2)
    tuning = replace(PLAN, init_cell_noise=0.002)
    noise = "gaussian" if delta else "laplace"  # at T < 10 Laplace would win the auto choice
    mwem = MWEM(epsilon=0.1, delta=delta, noise=noise, tuning=tuning)
    assert mwem.plan_noise(workload, n=n)[0] == noise
    rounds = mwem.plan_noise(workload, n=n)[1]
    gaussian = noise == "gaussian"
    total = rho_for(epsilon=0.1, delta=delta) if gaussian else exact(0.1)
    assert rounds == 5  # d + 1: the typical pair (1,090 cells) cannot be measured usefully in more
    # expected noise per 1-way cell at half the budget: E|Z| <= 0.002 of the rows, so the half binds
    half_each = total / 8
    needed = Fraction(((2 / np.pi) ** 0.5 / (n * 0.002)) ** 2) if gaussian else Fraction(2 / (n * 0.002))
    assert needed < half_each < total / rounds * (1 - exact(0.1))
    result = mwem.run(data, workload, rng=SeededRandom(6))
    if gaussian:
        charges = [c.rho for c in result.accountant.ledger]
        assert charges[:4] == [half_each] * 4
        spent = sum(charges)
        assert spent <= total and (total - spent) / total < Fraction(1, 10**12)
    else:
        charges = [c.epsilon for c in result.accountant.ledger]
        assert charges[:4] == [half_each] * 4 and sum(charges) == total
    # without the cap: AIM's INIT, one round's budget each
    plain = MWEM(epsilon=0.1, delta=delta, noise=noise, tuning=PLAN).run(data, workload, rng=SeededRandom(6))
    first = plain.accountant.ledger[0]
    assert (first.rho if gaussian else first.epsilon) == total / rounds * (1 - exact(0.1))


def test_init_is_not_capped_where_the_one_way_cells_need_the_budget():
    """Small n: half the budget would measure the 1-way cells worse than init_cell_noise: AIM's INIT."""
    mwem = MWEM(epsilon=1.0, tuning=replace(PLAN, init_cell_noise=0.002))
    cap = mwem.init_cap(4, n=5_000, gaussian=False)
    assert cap == Fraction(2 / (5_000 * 0.002)) > exact(1.0) / 8  # the noise target, not the half
    assert MWEM(epsilon=1.0, tuning=PLAN).init_cap(4, n=5_000, gaussian=False) is None
    assert MWEM(epsilon=1.0, rounds=5, tuning=replace(PLAN, init_cell_noise=0.002)).init_cap(4, n=5_000, gaussian=False) is None


def test_laplace_is_chosen_under_delta_where_it_affords_more_rounds():
    """At small n * epsilon, epsilon / T Laplace beats rho / T Gaussian: the run is then (epsilon, 0)-DP."""
    workload = Workload.all_kway(DOMAIN, 2)
    small = MWEM(epsilon=0.1, delta=1e-9, tuning=PLAN)
    noise, rounds = small.plan_noise(workload, n=3_000)
    laplace_rounds = small.planned_rounds(workload, n=3_000, total=exact(0.1), gaussian=False)
    gaussian_rounds = small.planned_rounds(workload, n=3_000, total=rho_for(epsilon=0.1, delta=1e-9), gaussian=True)
    assert noise == "laplace" and rounds == laplace_rounds > gaussian_rounds
    result = small.run(table(3_000), workload, rng=SeededRandom(4))
    assert result.parameters["noise"] == "laplace" and result.parameters["delta"] == 0.0
    assert sum(c.epsilon for c in result.accountant.ledger) == exact(0.1)
    assert not hasattr(result.accountant, "rho")


def test_the_plan_follows_public_quantities_only():
    workload = Workload.all_kway(DOMAIN, 2)
    mwem = MWEM(epsilon=1.0, tuning=PLAN)
    plans = [mwem.planned_rounds(workload, n=n, total=exact(1.0), gaussian=False) for n in (100, 10**3, 10**4, 10**6)]
    assert plans == sorted(plans) and plans[0] == 4 and plans[-1] == 16 * 4  # more rows, more rounds, up to 16 d
    cells = float(np.median([workload.cells(m) for m in workload.marginals]))
    expected = math.floor(0.9 * 0.5 * 10**4 / (2 * cells))  # eps_m T <= ... : 2 C T / (n 0.9 eps) <= tau
    assert plans[2] == min(64, max(4, expected)) or (expected <= 4 and plans[2] == 4)
    assert mwem.planned_rounds(workload, n=10**4, total=exact(1.0), gaussian=False) == plans[2]  # no data read
    assert replace(mwem, rounds=7).planned_rounds(workload, n=10**4, total=exact(1.0), gaussian=False) == 7


def test_rounds_the_user_gives_come_after_init_and_spend_epsilon_exactly():
    """rounds=T from the user: INIT sized as one of T + d units, then exactly T select+measure rounds."""
    data, workload = table(5_000), Workload.all_kway(DOMAIN, 2)
    mwem = MWEM(epsilon=1.0, rounds=5, tuning=replace(PLAN, annealing=False))
    result = mwem.run(data, workload, rng=SeededRandom(2))
    ledger = [c.epsilon for c in result.accountant.ledger]
    init_each = exact(1.0) / (5 + 4) * (1 - exact(0.1))
    assert ledger[:4] == [init_each] * 4
    assert len(ledger) == 4 + 2 * 5 and result.parameters["rounds_run"] == 5
    assert sum(ledger) == exact(1.0)


def test_pooled_fractions_is_a_distribution_and_mixes_pooling_with_clipping():
    from dprelease.updates.measurements import pooled_fractions

    noisy = np.array([0.9, 0.05, -0.02, 0.04, 0.03])
    out = pooled_fractions(noisy, std=0.05)
    assert out.min() > 0 and math.isclose(out.sum(), 1.0)
    clipped = np.clip(noisy, 0, None) / np.clip(noisy, 0, None).sum()
    small = noisy < 0.15
    pooled = np.where(small, noisy[small].sum() / small.sum(), noisy)
    pooled = pooled / pooled.sum()
    assert np.allclose(out, 0.5 * clipped + 0.5 * pooled, atol=1e-9)


def test_where_no_cell_can_stand_out_of_the_noise_the_clipped_half_shrinks_toward_even():
    """At 3 std over 1 (a 1,000-row table's 50-value column at eps 0.1: std 0.4 of the rows per cell) the clipped
    half keeps noise spikes. Its James-Stein weight max(0, 1 - (k - 3) std^2 / spread) is 0 where the values spread
    no more than that (the half is then even), above 0 where one cell holds more than the noise makes, and 1 for
    k <= 3; below the gate nothing changes."""
    from dprelease.updates.measurements import pooled_fractions, shrunk_toward_even

    rng = np.random.default_rng(5)
    k, std = 50, 0.4
    even = np.full(k, 1 / k)
    noise = rng.normal(0, 1, k)
    noise *= std * np.sqrt(0.9 * (k - 3) / ((noise - noise.mean()) ** 2).sum())  # spread 0.9 (k - 3) std^2
    noise_only = even + noise
    clipped = np.clip(noise_only, 0, None) + 1e-12
    assert np.allclose(shrunk_toward_even(clipped / clipped.sum(), noise_only, std), even)
    assert np.allclose(pooled_fractions(noise_only, std), even)  # both halves even (the pool: all 50 cells)

    spike = np.zeros(k)
    spike[7] = 1.0  # every row in one cell: the values spread more than the noise alone, a weight above 0
    spiky = spike + rng.normal(0, std, k)
    weight = 1 - (k - 3) * std**2 / float(((spiky - spiky.mean()) ** 2).sum())
    clipped = np.clip(spiky, 0, None) + 1e-12
    shrunk = shrunk_toward_even(clipped / clipped.sum(), spiky, std)
    assert 0 < weight < 1 and np.allclose(shrunk, weight * clipped / clipped.sum() + (1 - weight) / k)

    three = np.array([0.9, -0.5, 0.6])  # k = 3: James-Stein toward the mean does not shrink
    clipped = np.clip(three, 0, None) + 1e-12
    assert np.allclose(shrunk_toward_even(clipped / clipped.sum(), three, std), clipped / clipped.sum())

    below = np.array([0.9, 0.05, -0.02, 0.04, 0.03])  # 3 std = 0.99: the gate is shut, the plain clipped half
    plain = np.clip(below, 0, None) + 1e-12
    pooled = np.full(5, below.sum() / 5)  # all five cells are under 0.99: one pool
    assert np.allclose(pooled_fractions(below, 0.33), 0.5 * plain / plain.sum() + 0.5 * pooled / pooled.sum())


def test_one_way_distribution_weighs_projection_by_the_mass_above_the_noise():
    from dprelease.updates.measurements import one_way_distribution, pooled_fractions
    from dprelease.updates.perceptron import project_to_simplex

    noisy = np.array([0.9, 0.05, -0.02, 0.04, 0.03])
    out = one_way_distribution(noisy, std=0.05)  # only 0.9 is over 3 std: w = 0.9
    assert out.min() > 0 and math.isclose(out.sum(), 1.0)
    assert np.allclose(out, 0.9 * project_to_simplex(noisy) + 0.1 * pooled_fractions(noisy, std=0.05), atol=1e-9)
    assert np.allclose(one_way_distribution(noisy, std=1e-4), project_to_simplex(noisy), atol=1e-9)  # all visible
    assert np.allclose(one_way_distribution(noisy, std=1.0), pooled_fractions(noisy, std=1.0))  # none visible


def test_the_final_fit_follows_the_measurements_further_where_the_plan_reached_its_cap():
    """``capped_final_momentum`` replaces ``final_momentum`` only when the own plan's rounds hit their cap of
    ``rounds_per_attribute`` * d (public: n, epsilon, the workload); a plan below it, or the user's rounds, keep
    ``final_momentum``. The run records the level it used beside the tuning's two."""
    workload = Workload.all_kway(DOMAIN, 2)
    tuning = replace(PLAN, rounds_per_attribute=2, final_momentum=1.0, capped_final_momentum=0.8)
    mwem = MWEM(epsilon=1.0, tuning=tuning)
    capped_n, uncapped_n = 200_000, 300
    assert mwem.planned_rounds(workload, n=capped_n, total=exact(1.0), gaussian=False) == 2 * 4
    assert mwem.planned_rounds(workload, n=uncapped_n, total=exact(1.0), gaussian=False) < 2 * 4
    assert mwem.final_momentum_level(workload, 8) == 0.8
    assert mwem.final_momentum_level(workload, 7) == 1.0
    assert MWEM(epsilon=1.0, rounds=8, tuning=tuning).final_momentum_level(workload, 8) == 1.0  # the user's rounds
    assert MWEM(epsilon=1.0, tuning=replace(tuning, capped_final_momentum=None)).final_momentum_level(workload, 8) == 1.0
    for n, level in ((capped_n, 0.8), (uncapped_n, 1.0)):
        parameters = mwem.run(table(n), workload, rng=SeededRandom(4)).parameters
        assert parameters["final_fit_momentum"] == level
        assert (parameters["final_momentum"], parameters["capped_final_momentum"]) == (1.0, 0.8)


def test_init_alone_while_the_smallest_pair_fits_in_at_most_twice_d_useful_rounds():
    """ADAPTIVE's ``init_only_pair_rounds=2``: INIT spends d of the plan's units, so rounds run only when the
    budget measures the smallest pair within the noise target more than 2 d times (public quantities only).

    Here the smallest pair has 6 cells: floor(0.9 x 0.05 / (2 / (n x 0.5 / 6))) rounds, 8 at n = 4,799 and 9 at
    n = 4,800 (d = 4)."""
    workload = Workload.all_kway(DOMAIN, 3)
    once, twice = MWEM(epsilon=0.05, tuning=PLAN), MWEM(epsilon=0.05, tuning=replace(PLAN, init_only_pair_rounds=2))
    assert once.planned_rounds(workload, n=4_799, total=exact(0.05), gaussian=False) > 4
    assert twice.planned_rounds(workload, n=4_799, total=exact(0.05), gaussian=False) == 4
    assert twice.planned_rounds(workload, n=4_800, total=exact(0.05), gaussian=False) > 4
    result = twice.run(table(4_799), workload, rng=SeededRandom(4))
    assert [c.epsilon for c in result.accountant.ledger] == [exact(0.05) / 4] * 4  # the independent plan, exactly
    assert result.parameters["rounds_run"] == 0 and result.parameters["init_only_pair_rounds"] == 2



def test_pure_dp_counts_its_rounds_at_half_the_noise_target_and_nothing_else_moves():
    """Under pure DP the typical pair is measured at ``PURE_ROUNDS_TARGET`` x tau (basic composition: a round's
    noise grows as T, so the best T's noise is half zCDP's). All 2-way on (3, 4, 2, 5): the pairs' median is 11
    cells, so at n = 20,000 and eps 0.1 T = floor(0.09 x 20,000 x tau / (2 x 11)): 20 at tau / 2, and 40 for the
    same Laplace noise under delta > 0, whose plan keeps the whole target (the default's Laplace-or-Gaussian choice
    is made there). INIT alone's test keeps it too: at 4,800 rows and eps 0.05 (3-way; the smallest pair 6 cells) the
    pure plan still runs rounds, as in the test above."""
    from dprelease.mechanisms.mwem_budget import rounds_for_noise
    from dprelease.mechanisms.mwem_plan import PURE_ROUNDS_TARGET

    assert PURE_ROUNDS_TARGET == 0.5
    workload = Workload.all_kway(DOMAIN, 2)
    pure = MWEM(epsilon=0.1, delta=0.0, tuning=PLAN).planned_rounds(workload, n=20_000, total=exact(0.1),
                                                                    gaussian=False)
    approx = MWEM(epsilon=0.1, delta=1e-9, tuning=PLAN).planned_rounds(workload, n=20_000, total=exact(0.1),
                                                                       gaussian=False)
    common = dict(cells=11, n=20_000, measure=0.9 * 0.1, gaussian=False)
    assert pure == rounds_for_noise(**common, tau=0.25) == 20
    assert approx == rounds_for_noise(**common, tau=0.5) == 40
    tuning = replace(PLAN, init_only_pair_rounds=2)
    three_way = Workload.all_kway(DOMAIN, 3)
    assert MWEM(epsilon=0.05, tuning=tuning).planned_rounds(three_way, n=4_800, total=exact(0.05), gaussian=False) > 4
    result = MWEM(epsilon=0.1, delta=0.0, tuning=PLAN).run(table(20_000), workload, rng=SeededRandom(4))
    assert result.parameters["rounds"] == 20 and sum(c.epsilon for c in result.accountant.ledger) == exact(0.1)
    assert result.parameters["noise_target"] == 0.5 and result.parameters["rounds_noise_target"] == 0.25
    approx_run = MWEM(epsilon=0.1, delta=1e-9, tuning=PLAN).run(table(20_000), workload, rng=SeededRandom(4))
    assert "rounds_noise_target" not in approx_run.parameters  # the release says which target counted its rounds
    assert MWEM(epsilon=0.1, delta=0.0, rounds=5, tuning=PLAN).rounds_noise_target() is None  # the user's T


def test_init_only_pair_rounds_must_be_a_positive_integer():
    with pytest.raises(InputError, match="init_only_pair_rounds"):
        MWEMTuning(init_only_pair_rounds=0)


SELECTING = replace(PLAN, max_selection_share=0.5)


def _rounds(ledger) -> list[tuple[Fraction, Fraction]]:
    """(selection, measurement) charges of each round, from the ledger's labels."""
    select = {c.label.split(":")[0]: c.epsilon for c in ledger if c.label.endswith(": select")}
    measure = {c.label.split(":")[0]: c.epsilon for c in ledger if c.label.endswith(": measure")}
    assert select.keys() == measure.keys() and select
    return [(select[k], measure[k]) for k in select]


def test_pure_dp_selection_share_grows_until_the_exponential_mechanism_can_see_a_noise_target_gap():
    """``max_selection_share``: with eps_s = share x a planned round's epsilon, Thm 3.11's loss 4 ln C / (n eps_s)
    is at most the noise target (0.5) at share = 4 ln C / (n 0.5 per_round), rounded up to 1/1000 (public); every
    round, annealed or not, selects with exactly that share of its budget, and the ledger sums to epsilon exactly."""
    epsilon, n = 1.0, 2_000
    workload = Workload.all_kway(DOMAIN, 2)
    mwem = MWEM(epsilon=epsilon, tuning=SELECTING)
    rounds = mwem.planned_rounds(workload, n=n, total=exact(epsilon), gaussian=False)
    split = mwem.budget_split(4, rounds)
    per_round = split["select"] + split["measure"]
    candidates = 4 + 6  # the closure of all 2-way marginals, 1-way marginals kept (one_way_candidates)
    needed = 4 * math.log(candidates) / (n * 0.5 * float(per_round))
    assert 0.1 < needed < 0.5  # the case the rule is for: the preset's tenth would leave the selection blind
    share = Fraction(math.ceil(needed * 1000), 1000)
    result = mwem.run(table(n), workload, rng=SeededRandom(5))
    ledger = result.accountant.ledger
    assert sum(c.epsilon for c in ledger) == exact(epsilon)
    assert [c.epsilon for c in ledger[:4]] == [exact(epsilon) / rounds * (1 - exact(0.1))] * 4  # as the preset sizes it
    assert all(select == (select + measure) * share for select, measure in _rounds(ledger))
    assert result.parameters["round_selection_share"] == float(share)
    assert result.parameters["epsilon_per_step"]["select"] == float(per_round * share)
    # The preset's share where the selection already sees such a gap (n large), and always under zCDP.
    large = mwem.run(table(200_000), workload, rng=SeededRandom(5))
    assert all(select == (select + measure) * exact(0.1) for select, measure in _rounds(large.accountant.ledger))
    zcdp = MWEM(epsilon=epsilon, delta=1e-9, noise="gaussian", tuning=SELECTING).run(table(n), workload,
                                                                                    rng=SeededRandom(5))
    assert zcdp.parameters["round_selection_share"] == 0.1


def test_the_selection_share_stops_at_its_most():
    workload = Workload.all_kway(DOMAIN, 2)
    mwem = MWEM(epsilon=0.2, tuning=replace(SELECTING, max_selection_share=0.3))
    result = mwem.run(table(2_000), workload, rng=SeededRandom(6))
    assert result.parameters["rounds_run"] > 0 and result.parameters["round_selection_share"] == 0.3
    assert all(select == (select + measure) * exact(0.3) for select, measure in _rounds(result.accountant.ledger))
    assert sum(c.epsilon for c in result.accountant.ledger) == exact(0.2)


@pytest.mark.parametrize("most", [0.05, 1.0, 0.0, "half"])
def test_max_selection_share_must_be_a_share_at_least_the_selection_share(most):
    with pytest.raises((InputError, InputTypeError), match="max_selection_share"):
        MWEMTuning(selection_share=0.1, max_selection_share=most)


def test_under_pure_dp_the_init_only_test_leaves_out_what_a_round_may_spend_selecting():
    """With ``max_selection_share`` (pure DP: a round may select with up to half its budget), the INIT-only test
    sizes a round's measurement at (1 - 0.5) of the budget instead of the tenth's 0.9; the rounds' own plan, the
    zCDP test and the ledger's form are unchanged.

    The smallest pair has 6 cells: a round measures it within the target with eps >= 24 / n, so the test's rounds are
    floor(0.025 n / 24): 8 at n = 8,500 (INIT alone, d = 4) and 9 at n = 8,700; with the tenth, floor(0.045 n / 24)
    = 15 at n = 8,500 (rounds)."""
    workload = Workload.all_kway(DOMAIN, 3)
    tenth, selecting = MWEM(epsilon=0.05, tuning=replace(PLAN, init_only_pair_rounds=2)), MWEM(
        epsilon=0.05, tuning=replace(SELECTING, init_only_pair_rounds=2))
    total = exact(0.05)
    assert tenth.planned_rounds(workload, n=8_500, total=total, gaussian=False) > 4
    assert selecting.planned_rounds(workload, n=8_500, total=total, gaussian=False) == 4
    assert selecting.planned_rounds(workload, n=8_700, total=total, gaussian=False) == \
        tenth.planned_rounds(workload, n=8_700, total=total, gaussian=False) > 4  # past the test, the same plan
    rho = rho_for(epsilon=1.0, delta=1e-9)
    for n in (300, 8_500, 50_000):  # zCDP's test keeps the tenth: the share does not grow there
        assert selecting.planned_rounds(workload, n=n, total=rho, gaussian=True) == \
            tenth.planned_rounds(workload, n=n, total=rho, gaussian=True)
    result = selecting.run(table(8_500), workload, rng=SeededRandom(4))
    assert [c.epsilon for c in result.accountant.ledger] == [total / 4] * 4  # the independent plan, exactly
    assert result.parameters["rounds_run"] == 0


@pytest.mark.parametrize("epsilon,laplace_up_to", [(0.1, 8), (1.0, 9), (10.0, 13)])
def test_on_a_tie_of_rounds_the_noise_with_the_smaller_expected_absolute_cell_noise_wins(epsilon, laplace_up_to):
    """Rounds tie (the user's T here): the plan compares E|Z| per cell, 2 / (n m) for Laplace against sqrt(2 / pi) /
    (n sqrt m) for Gaussian (m: a round's measurement), not the standard deviations 2 sqrt 2 / (n m) and 1 / (n sqrt m).
    They cross at T = 0.9 eps^2 / (2 pi rho): 8.1, 9.6 and 13.1 at delta = 1e-9. The standard deviations cross at
    pi / 4 of that (6.4, 7.5, 10.3), so T = 7 and 8 at eps 0.1 were Gaussian before."""
    workload = Workload.all_kway(DOMAIN, 2)
    rho = float(rho_for(epsilon=epsilon, delta=1e-9))
    assert laplace_up_to == math.floor(0.9 * epsilon ** 2 / (2 * math.pi * rho))
    for rounds in range(laplace_up_to - 2, laplace_up_to + 3):
        mwem = MWEM(epsilon=epsilon, delta=1e-9, rounds=rounds, tuning=PLAN)
        assert mwem.plan_noise(workload, n=5_000) == ("laplace" if rounds <= laplace_up_to else "gaussian", rounds)


def test_init_alone_under_delta_takes_laplace_where_its_cells_are_the_less_noisy_in_l1():
    """An 8-column, 300-row table at eps 0.1: both noises plan INIT alone (T = d = 8), where Laplace's E|Z| is the
    smaller (8 <= 8.1 above); the run is (0.1, 0)-DP, each 1-way marginal charged in epsilon, the total exact."""
    domain = Domain(tuple("abcdefgh"), (2, 5, 12, 3, 40, 7, 2, 20))
    workload = Workload.from_spec("1-3way", domain)
    generator = np.random.Generator(np.random.PCG64(1))
    data = Dataset.from_records(generator.integers(0, domain.sizes, size=(300, 8)), domain)
    mwem = create("mwem").runner(domain, Budget(0.1, 1e-9))  # the default, as `synth` builds it
    assert mwem.plan_noise(workload, n=300) == ("laplace", 8)
    result = mwem.run(data, workload, rng=SeededRandom(2))
    assert result.parameters["noise"] == "laplace" and result.parameters["rounds_run"] == 0
    assert len(result.accountant.ledger) == 8 and sum(c.epsilon for c in result.accountant.ledger) == exact(0.1)


@pytest.mark.parametrize("delta", [0.0, 1e-9])
def test_a_one_way_workload_is_init_alone_at_any_budget(delta):
    """A workload of 1-way marginals: INIT alone (T = d), even where n * epsilon would afford many rounds for
    pairs. Each 1-way marginal is measured once; the charges sum to the budget exactly (epsilon, or rho under
    zCDP); no round selects or measures. The same data with a 2-way workload plans rounds (the rule is the
    workload's, not the budget's)."""
    n, epsilon = 50_000, 10.0
    data, one_way = table(n), Workload.all_kway(DOMAIN, 1)
    mwem = create("mwem").runner(DOMAIN, Budget(epsilon, delta))  # the default, as `synth` builds it
    gaussian = delta > 0 and mwem.plan_noise(one_way, n=n)[0] == "gaussian"
    total = rho_for(epsilon=epsilon, delta=delta) if gaussian else exact(epsilon)
    assert mwem.planned_rounds(one_way, n=n, total=total, gaussian=gaussian) == 4
    assert mwem.planned_rounds(Workload.all_kway(DOMAIN, 2), n=n, total=total, gaussian=gaussian) > 4
    result = mwem.run(data, one_way, rng=SeededRandom(7))
    ledger = result.accountant.ledger
    assert result.parameters["rounds_run"] == 0 and len(ledger) == 4
    assert [entry.label for entry in ledger] == [f"init: {a}" for a in DOMAIN.attributes]
    assert sum(c.rho if gaussian else c.epsilon for c in ledger) == total


def test_summed_cell_noise_is_exact_for_gaussian_and_close_for_laplace():
    """The joint-or-INIT choice for a 1-way workload rests on it: E|sum of m noisy cells|, checked by simulation."""
    from dprelease.mechanisms.mwem_budget import summed_cell_noise

    g = np.random.Generator(np.random.PCG64(11))
    for m in (1, 2, 8, 40):
        laplace = np.abs(g.laplace(0.0, 1.0, size=(200_000, m)).sum(axis=1)).mean()
        gauss = np.abs(g.normal(0.0, 1.0, size=(200_000, m)).sum(axis=1)).mean()
        assert abs(summed_cell_noise(1.0, cells=m, gaussian=False) - laplace) / laplace < (0.07 if m == 2 else 0.02)
        assert abs(summed_cell_noise(math.sqrt(2 / math.pi), cells=m, gaussian=True) - gauss) / gauss < 0.01


def test_one_round_more_is_a_tie_that_the_smaller_cell_noise_breaks(monkeypatch):
    """20,000 rows of 5 columns (20-200 values) at eps 0.1: Gaussian noise affords T = d + 1 (one pair measured),
    Laplace INIT alone (T = d). One round more is within ROUNDS_MARGIN, so the smaller expected absolute cell
    noise (Laplace's, below T = 8.1) wins; two rounds more are not, and the rounds win. Public quantities only."""
    domain = Domain(("country", "city", "age", "income", "device"), (20, 200, 8, 10, 4))
    workload = Workload.from_spec("1-2way", domain)
    mwem = create("mwem").runner(domain, Budget(0.1, 1e-9))  # the default, as `synth` builds it
    rounds = {noise: mwem.planned_rounds(workload, n=20_000, total=mwem.total(gaussian=noise == "gaussian"),
                                         gaussian=noise == "gaussian") for noise in ("gaussian", "laplace")}
    assert rounds == {"gaussian": 6, "laplace": 5}
    assert mwem.plan_noise(workload, n=20_000) == ("laplace", 5)
    planned = {True: 7, False: 5}  # Gaussian two rounds ahead
    monkeypatch.setattr(MWEM, "planned_rounds", lambda self, w, *, n, total, gaussian: planned[gaussian])
    assert mwem.plan_noise(workload, n=20_000) == ("gaussian", 7)
    planned[True] = 6
    assert mwem.plan_noise(workload, n=20_000) == ("laplace", 5)


def binary_table(n: int, d: int = 8, seed: int = 5) -> Dataset:
    """n rows of d binary columns, each a noisy copy of the one before (so pairs are worth measuring)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    columns = [rng.random(n) < 0.3]
    for _ in range(d - 1):
        columns.append(np.where(rng.random(n) < 0.8, columns[-1], rng.random(n) < 0.3))
    domain = Domain(tuple(f"c{i}" for i in range(d)), (2,) * d)
    return Dataset(domain, np.stack(columns, axis=1).astype(np.int64))


def test_where_the_rounds_would_select_blind_the_plan_runs_2d_unannealed_rounds_as_a_user_asking_for_them():
    """8 binary columns, all 2-way, 1,000 rows at eps 1: the plan's own T is 128 annealed Gaussian rounds, where a
    round's selection gives up 4 ln C / (n eps_s) = 1.5 of the best score (Thm 3.11), above the noise target 0.5.
    The plan then runs 2 d = 16 rounds as the user's: the release and the ledger are those of that user-rounds run,
    bit for bit, and the release's parameters say so. At 10,000 rows (loss 0.2), under pure DP, and with the user's
    own rounds the plan is as before. Public quantities only."""
    data = binary_table(1_000)
    workload = Workload.from_spec("2way", data.domain)
    mwem = create("mwem").runner(data.domain, Budget(1.0, 1e-9))
    plan = mwem.run_plan(workload, n=1_000)
    assert (plan.noise, plan.rounds, len(plan.candidates)) == ("gaussian", 128, 36)
    blind = mwem.blind_selection_plan(workload, n=1_000, plan=plan)
    assert (blind.rounds, blind.noise, blind.tuning.annealing, blind.tuning.round_iterations) == \
        (16, "gaussian", False, 25)
    default, asked = (m.run(data, workload, rng=SeededRandom(3)) for m in (mwem, blind))
    assert all(np.array_equal(a.values, b.values) for a, b in zip(default.measurements, asked.measurements))
    assert default.accountant.to_json() == asked.accountant.to_json()
    # the user-rounds split, exactly: INIT at one round's measurement of T + d = 24 units, the rounds the rest
    rho, charges = rho_for(epsilon=1.0, delta=1e-9), default.accountant.ledger
    assert [c.rho for c in charges[:8]] == [rho / 24 * (1 - exact(0.1))] * 8 and len(charges) == 8 + 2 * 16
    spent = sum(c.rho for c in charges)
    assert spent <= rho and (rho - spent) / rho < Fraction(1, 10**12)  # selections a hair below their share
    assert len(default.measurements) == 8 + 16 and default.parameters["rounds_run"] == 16
    assert default.parameters["blind_selection"]["planned_rounds"] == 128
    assert default.parameters["blind_selection"]["selection_loss"] > 0.5
    assert mwem.blind_selection_plan(workload, n=10_000) is None and mwem.run_plan(workload, n=10_000).rounds == 128
    assert create("mwem").runner(data.domain, Budget(1.0, 0.0)).blind_selection_plan(workload, n=1_000) is None
    user = create("mwem", rounds=40).runner(data.domain, Budget(1.0, 1e-9))
    assert user.blind_selection_plan(workload, n=1_000) is None
