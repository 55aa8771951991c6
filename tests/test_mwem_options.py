"""MWEM's accuracy options: budget annealing and AIM's workload-weighted selection; exact accounting for each."""

from fractions import Fraction

import numpy as np
import pytest

from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.errors import InputError
from dprelease.mechanisms.mwem import MWEM, workload_overlap
from dprelease.mechanisms.mwem_plan import candidate_marginals
from dprelease.mechanisms.mwem_tuning import MWEMTuning
from dprelease.mechanisms.mwem_budget import RoundBudget
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import SeededRandom
from dprelease.privacy.zcdp import ZCDPAccountant, exponential_epsilon, rho_for
from dprelease.queries.workload import Workload
from dprelease.representations.factored import FactoredModel, model_size


def _data(n=4_000, seed=0):
    domain = Domain(("a", "b", "c", "d"), (3, 4, 2, 5))
    g = np.random.Generator(np.random.PCG64(seed))
    records = g.integers(0, domain.sizes, size=(n, 4))
    records[:, 1] = (records[:, 0] + (g.random(n) < 0.3)) % 4  # some dependence to find
    return Dataset.from_records(records, domain)


# ----------------------------------------------------------------- the schedule
@pytest.mark.parametrize("currency", ["rho", "epsilon"])
def test_annealed_schedule_spends_the_total_exactly_in_at_most_t_plus_one_rounds(currency):
    g = np.random.Generator(np.random.PCG64(1))
    for _ in range(300):
        total = Fraction(int(g.integers(1, 1000)), int(g.integers(1, 1000)))
        rounds = int(g.integers(1, 60))
        share = Fraction(int(g.integers(1, 10)), 10)
        budget = RoundBudget(total=total, rounds=rounds, selection_share=share, currency=currency, annealing=True)
        spent, count, per_round = Fraction(0), 0, total / rounds
        while (shares := budget.next_round()) is not None:
            select, measure = shares
            assert select == (select + measure) * share  # the split is exact
            # a round gets the current per-round budget, or all that is left when that is under two rounds
            assert select + measure == (per_round if total - spent >= 2 * per_round else total - spent)
            spent += select + measure
            count += 1
            if g.random() < 0.3:
                budget.sharpen()
                per_round *= 2  # the budget doubles in either currency (sigma / sqrt 2 under zCDP; b / 2 Laplace)
        assert spent == total == budget.spent
        assert count <= rounds + 1


@pytest.mark.parametrize("annealing", [True, False])
def test_rounds_ahead_is_the_count_the_schedule_still_runs_without_another_sharpening(annealing):
    """The progress line counts to t + rounds_ahead; after every round (and every sharpening) it must be the exact
    number of rounds a copy of the schedule runs when nothing sharpens again, and 0 at the end."""
    from copy import copy

    g = np.random.Generator(np.random.PCG64(2))
    for _ in range(200):
        total = Fraction(int(g.integers(1, 1000)), int(g.integers(1, 1000)))
        budget = RoundBudget(total=total, rounds=int(g.integers(1, 60)), selection_share=Fraction(1, 10),
                             currency="rho", annealing=annealing)
        while True:
            ahead, rest = budget.rounds_ahead, copy(budget)
            count = 0
            while rest.next_round() is not None:
                count += 1
            assert ahead == count
            if budget.next_round() is None:
                break
            if g.random() < 0.3:
                budget.sharpen()


def test_equal_schedule_is_t_rounds_of_total_over_t():
    budget = RoundBudget(total=Fraction(3, 7), rounds=5, selection_share=Fraction(1, 4), currency="rho")
    rounds = []
    while (shares := budget.next_round()) is not None:
        budget.sharpen()  # ignored without annealing
        rounds.append(shares)
    assert rounds == [(Fraction(3, 140), Fraction(9, 140))] * 5


# ----------------------------------------------------------------- annealing in MWEM
def test_annealed_mwem_gaussian_ledger_is_exact_and_anneals():
    data = _data()
    workload = Workload.all_kway(data.domain, 2)
    mwem = MWEM(epsilon=1.0, delta=1e-9, rounds=12, tuning=MWEMTuning(annealing=True, final_iterations=3))
    result = mwem.run(data, workload, rng=SeededRandom(3))
    acc = result.accountant
    assert isinstance(acc, ZCDPAccountant)
    split = mwem.rho_split(4)
    # Replay the schedule from the transcript's public anneal events: the ledger must match it exactly.
    anneals = {e["round"] for e in result.transcript if e["action"] == "anneal"}
    assert anneals, "this table should make at least one round anneal"
    budget = RoundBudget(total=split["rounds_total"], rounds=12, selection_share=Fraction(1, 4), currency="rho",
                         annealing=True)
    expected = [split["init_each"]] * 4
    t = 0
    while (shares := budget.next_round()) is not None:
        t += 1
        select, measure = shares
        expected += [Fraction(exponential_epsilon(select)) ** 2 / 8, measure]
        if t in anneals:
            budget.sharpen()
    assert [c.rho for c in acc.ledger] == expected
    assert result.parameters["rounds_run"] == t < 12
    assert acc.spent_rho <= acc.rho == rho_for(epsilon=1.0, delta=1e-9)
    # What is left unspent is only the selections' rounding down of their epsilon.
    assert acc.rho - acc.spent_rho < Fraction(1, 10**12)


def test_annealed_mwem_laplace_spends_epsilon_exactly():
    data = _data()
    result = MWEM(epsilon=0.7, rounds=9, tuning=MWEMTuning(annealing=True, final_iterations=3)).run(
        data, Workload.all_kway(data.domain, 2), rng=SeededRandom(4))
    acc = result.accountant
    assert isinstance(acc, PrivacyAccountant)
    assert acc.spent_epsilon == Fraction(0.7) and acc.spent_delta == 0
    measured = [e for e in result.transcript if e["action"] == "select+measure"]
    assert len(measured) == result.parameters["rounds_run"] <= 10


def test_without_annealing_rounds_are_unchanged():
    data = _data()
    workload = Workload.all_kway(data.domain, 2)
    result = MWEM(epsilon=1.0, rounds=6, tuning=MWEMTuning(final_iterations=3)).run(data, workload, rng=SeededRandom(5))
    assert result.parameters["rounds_run"] == 6
    assert not [e for e in result.transcript if e["action"] == "anneal"]


# ----------------------------------------------------------------- workload-weighted selection
def test_workload_overlap_is_aims_weight():
    domain = Domain(("a", "b", "c", "d"), (2, 2, 2, 2))
    workload = Workload(domain, (("a", "b", "c"), ("b", "c", "d")))
    candidates = candidate_marginals(workload, "closure", smallest=1)
    weights = dict(zip(candidates, workload_overlap(workload, candidates)))
    assert weights[("a", "b", "c")] == 3 + 2 and weights[("b", "c")] == 2 + 2 and weights[("a",)] == 1
    assert weights[("d",)] == 1 and ("a", "d") not in weights
    assert workload_overlap(workload, [("a", "d")]) == [1 + 1]


def test_weighted_selection_scales_the_sensitivity_by_the_largest_weight():
    data = _data()
    marginals = [("a",), ("b",), ("a", "b"), ("c", "d")]
    estimates = [np.full(data.domain.size_of(m[0]) if len(m) == 1 else
                         (data.domain.size_of(m[0]), data.domain.size_of(m[1])), 0.0) + 0.01 for m in marginals]

    def pick(weights, seed):
        acc = PrivacyAccountant(epsilon=1.0)
        measurer = PrivateMeasurer(data, accountant=acc, rng=SeededRandom(seed))
        index = measurer.select_marginal(marginals, estimates, epsilon=0.2, label="s", weights=weights)
        return index, acc.spent_epsilon

    # Equal weights w: scores and sensitivity both scale by w, so the same draw, and the same exact charge.
    for seed in range(20):
        assert pick(None, seed) == pick([3, 3, 3, 3], seed) == pick([Fraction(1, 2)] * 4, seed)
        assert pick(None, seed)[1] == Fraction(0.2)



def test_weighted_selection_hands_the_mechanism_weighted_scores_and_the_largest_weights_sensitivity(monkeypatch):
    import dprelease.privacy.measurer as measurer_module

    data = _data()
    marginals = [("a",), ("b",), ("a", "b")]
    estimates = [np.full(3, 1 / 3), np.full(4, 1 / 4), np.full((3, 4), 1 / 12)]
    seen = {}

    def record(scores, *, epsilon, sensitivity, rng):
        seen.update(scores=np.asarray(scores), epsilon=epsilon, sensitivity=sensitivity)
        return 0

    monkeypatch.setattr(measurer_module, "exponential_mechanism", record)
    measurer = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=1.0), rng=SeededRandom(0))
    weights = [0, Fraction(3, 2), 5]
    penalties = np.array([0.01, 0.02, 0.03])
    measurer.select_marginal(marginals, estimates, epsilon=0.2, label="s", weights=weights, penalties=penalties)
    l1 = np.array([np.abs(data.marginal(m) - e).sum() for m, e in zip(marginals, estimates)])
    np.testing.assert_allclose(seen["scores"], [0.0, 1.5 * (l1[1] - 0.02), 5 * (l1[2] - 0.03)], rtol=1e-12)
    assert seen["sensitivity"] == 5 * Fraction(2, data.n) and seen["epsilon"] == 0.2


def test_bad_weights_are_refused_before_anything_is_spent():
    data = _data()
    acc = PrivacyAccountant(epsilon=1.0)
    rng = SeededRandom(0)
    measurer = PrivateMeasurer(data, accountant=acc, rng=rng)
    for weights in ([1, 2], [1, -1, 1, 1], [0, 0, 0, 0]):
        with pytest.raises(ValueError, match="weights"):
            measurer.select_marginal([("a",), ("b",), ("c",), ("d",)], [np.zeros(3), np.zeros(4), np.zeros(2),
                                                                           np.zeros(5)],
                                     epsilon=0.1, label="s", weights=weights)
    assert acc.spent_epsilon == 0 and not acc.ledger


def test_weighted_mwem_ledger_is_exact():
    data = _data()
    workload = Workload.all_kway(data.domain, 3)
    mwem = MWEM(epsilon=1.0, delta=1e-9, rounds=5,
                tuning=MWEMTuning(candidates="closure", selection_weights="workload", final_iterations=3))
    result = mwem.run(data, workload, rng=SeededRandom(6))
    split = mwem.rho_split(4)
    expected = [split["init_each"]] * 4 + [split["select_epsilon"] ** 2 / 8, split["measure"]] * 5
    assert [c.rho for c in result.accountant.ledger] == expected
    with pytest.raises(InputError, match="selection_weights"):
        MWEM(epsilon=1.0, tuning=MWEMTuning(selection_weights="aim"))


# ----------------------------------------------------------------- the model-size check is exact
def test_fits_agrees_with_the_size_of_the_rebuilt_model():
    domain = Domain(tuple("abcdefg"), (3, 4, 5, 2, 6, 3, 4))
    g = np.random.Generator(np.random.PCG64(2))
    import itertools

    pairs = list(itertools.combinations(domain.attributes, 2))
    for _ in range(25):
        chosen = [pairs[i] for i in g.choice(len(pairs), size=int(g.integers(3, 9)), replace=False)]
        cap = int(g.integers(200, 3000))
        try:
            model = FactoredModel.uniform(domain, cliques=chosen, max_model_cells=cap)
        except Exception:
            continue
        candidates = list(itertools.combinations(domain.attributes, 2)) + list(itertools.combinations("abcd", 3))
        for candidate, ok in zip(candidates, model.fits_each(candidates)):
            assert ok == (model_size(domain, [*chosen, candidate])[0] <= cap)
            assert ok == model.fits([candidate])


def test_a_cap_no_candidate_fits_is_refused_before_the_first_measurement():
    data = _data()
    workload = Workload.all_kway(data.domain, 3)
    rng = SeededRandom(0)
    before = rng.state()
    # The 1-way cliques fit (14 cells) but no 2- or 3-way candidate does: refused before INIT spends anything.
    with pytest.raises(Exception, match="no workload marginal fits") as info:
        MWEM(epsilon=1.0, rounds=2, representation="factored", max_model_cells=16,
             tuning=MWEMTuning(final_iterations=1)).run(data, workload, rng=rng)
    assert type(info.value).__name__ == "DomainTooLargeError"
    assert rng.state() == before  # no noise was drawn


def test_synthesize_passes_the_model_cap_to_mwem():
    from dprelease.api import synthesize

    data = _data()
    release = synthesize(data, "2way", epsilon=1.0, delta=1e-9, representation="factored", rounds=3, seed=0,
                         max_model_cells=40)
    assert release.parameters["max_model_cells"] == 40 and release.parameters["model_cells"] <= 40


@pytest.mark.parametrize("change", [{"reuse_measurements": False}, {"size_penalty": 0.0}, {"size_penalty": 1.0},
                                    {"candidates": "closure"}, {"max_measure_l1": 0.3}, {"final_discrepancy": 0.8},
                                    {"round_iterations": 25, "round_discrepancy": 1.0}])
def test_post_processing_options_charge_exactly_the_default_plan(change):
    # Reuse of past measurements, the size penalty (public), the candidate set and the noise cap on it (public)
    # change what is fitted or
    # which marginal is picked, never what a step costs: the ledger's amounts equal the default run's.
    data = _data()
    workload = Workload.all_kway(data.domain, 2)
    runs = [MWEM(epsilon=1.0, delta=1e-9, rounds=4, tuning=MWEMTuning(final_iterations=2, **kw)).run(
        data, workload, rng=SeededRandom(8)) for kw in ({}, change)]
    amounts = [[c.rho for c in r.accountant.ledger] for r in runs]
    assert amounts[0] == amounts[1]
    split = MWEM(epsilon=1.0, delta=1e-9, rounds=4).rho_split(4)
    assert amounts[1] == [split["init_each"]] * 4 + [split["select_epsilon"] ** 2 / 8, split["measure"]] * 4


def test_synthesize_uses_the_measured_defaults_for_each_representation_and_noise():
    from dprelease.api import synthesize
    from dataclasses import asdict

    from dprelease.mechanisms.mwem_tuning import ADAPTIVE, FACTORED

    # 8 columns: the joint is 576 times a pair's cells, so the rounds' plan runs (the joint plan: test_joint_plan.py)
    domain = Domain(tuple("abcdefgh"), (3, 4, 2, 5, 3, 4, 2, 5))
    data = Dataset.from_records(np.random.Generator(np.random.PCG64(0)).integers(0, domain.sizes, size=(4_000, 8)),
                                domain)
    gaussian = synthesize(data, "2way", epsilon=1.0, delta=1e-9, representation="histogram", seed=0).parameters
    pure = synthesize(data, "2way", epsilon=1.0, delta=0.0, representation="histogram", seed=0).parameters
    default = synthesize(data, "2way", epsilon=1.0, representation="histogram", seed=0).parameters
    assert default == gaussian  # MWEM's default delta is 1e-9 (docs/decisions.md, issue 12)
    factored = synthesize(data, "2way", epsilon=1.0, delta=1e-9, representation="factored", seed=0).parameters
    for parameters, preset in ((gaussian, ADAPTIVE), (factored, FACTORED), (pure, ADAPTIVE)):
        expected = {k: v for k, v in asdict(preset).items()
                    if v is not None and (k != "max_model_cells" or parameters["representation"] == "factored")}
        assert {k: parameters[k] for k in expected} == expected
    assert pure["noise"] == "laplace" and gaussian["noise"] == "gaussian" and factored["noise"] == "gaussian"


def test_a_noise_cap_selects_only_marginals_it_can_measure_usefully():
    """``max_measure_l1``: every round measures a candidate whose expected L1 noise at the round's budget
    (cells x sqrt(2/pi) sigma, public) is within the cap when one is; without the cap the same runs do not."""
    data = _data(n=2_000)
    workload = Workload.all_kway(data.domain, 2)
    cap = 0.3

    def noise_l1(entry) -> float:
        cells = int(np.prod([data.domain.size_of(a) for a in entry["marginal"]]))
        return cells * np.sqrt(2 / np.pi) / (data.n * np.sqrt(entry["rho"]))

    over = []
    for limit in (cap, None):
        run = MWEM(epsilon=0.3, delta=1e-9, rounds=6,
                   tuning=MWEMTuning(final_iterations=2, max_measure_l1=limit)).run(data, workload, rng=SeededRandom(3))
        measured = [e for e in run.transcript if e.get("round", 0) > 0 and e.get("marginal")]
        assert len(measured) == 6
        over.append(sum(noise_l1(e) > cap for e in measured))
        assert (run.parameters.get("max_measure_l1"), "max_measure_l1" in run.parameters) == (limit, limit is not None)
    assert over[0] == 0 and over[1] > 0


def test_the_final_fit_stops_at_the_noise_and_the_release_says_where():
    """``final_discrepancy`` (the discrepancy principle, post-processing): the final fit stops before its passes
    once the model is within the noise of the raw measurements; the parameters record the passes run."""
    data = _data(n=600)
    workload = Workload.all_kway(data.domain, 2)
    runs = {level: MWEM(epsilon=0.5, delta=1e-9, rounds=6, tuning=MWEMTuning(final_iterations=200,
                                                                             final_discrepancy=level)).run(
        data, workload, rng=SeededRandom(2)) for level in (None, 0.8)}
    assert runs[None].parameters["final_iterations_run"] == 200 and "final_discrepancy" not in runs[None].parameters
    stopped = runs[0.8].parameters
    assert stopped["final_discrepancy"] == 0.8 and stopped["final_iterations_run"] < 200
    # the same measurements (the stop changes nothing before the final fit), a different model
    assert [m.values.tolist() for m in runs[None].measurements] == [m.values.tolist() for m in runs[0.8].measurements]
    assert not np.allclose(runs[None].model.probabilities, runs[0.8].model.probabilities)


def test_each_round_fit_stops_at_the_noise_or_at_its_passes(monkeypatch):
    """``round_discrepancy`` (post-processing): a round's fit runs until the model is within the noise of every
    measurement so far (mean squared standardized residual over the raw cells at most the level), or until its
    ``round_iterations``; without it every round runs all its passes."""
    import dprelease.mechanisms.mwem as mwem_module
    from dprelease.updates.measurements import combine

    real_fit = mwem_module.fit_measurements
    data = _data(n=3_000)
    workload = Workload.all_kway(data.domain, 2)

    def run(level):
        fits = []

        def recording_fit(model, measurements, *, iterations, on_step=None, **kwargs):
            passes = []
            fitted, step = real_fit(model, measurements, iterations=iterations, **kwargs,
                                    on_step=lambda i, total: (passes.append(i), on_step and on_step(i, total)))
            raw = [m for m in combine(measurements) if len(m.attributes) > 1]
            residual = sum(float(((fitted.marginal(m.attributes) - m.values) ** 2).sum()) / m.std ** 2 for m in raw)
            cells = sum(m.values.size for m in raw)
            fits.append((iterations, kwargs.get("discrepancy"), len(passes), residual, cells))
            return fitted, step

        monkeypatch.setattr(mwem_module, "fit_measurements", recording_fit)
        MWEM(epsilon=1.0, delta=1e-9, rounds=8, tuning=MWEMTuning(round_iterations=25, round_discrepancy=level,
                                                                  final_iterations=2)).run(
            data, workload, rng=SeededRandom(4))
        return fits[1:-1]  # the rounds' fits (the first follows INIT, the last is the final fit)

    rounds = run(1.0)
    assert len(rounds) == 8 and all(it == 25 and level == 1.0 for it, level, *_ in rounds)
    stopped = [(residual, cells) for _, _, passes, residual, cells in rounds if passes < 25]
    assert stopped and all(residual <= 1.0 * cells for residual, cells in stopped)
    unstopped = run(None)
    assert all(passes == 25 and level is None for _, level, passes, *_ in unstopped)


def test_the_users_rounds_run_without_annealing_and_fit_each_round_to_its_noise():
    """With ``rounds=`` the preset runs those rounds as given (no annealing) with the per-round stop
    (:data:`~dprelease.mechanisms.mwem_tuning.USER_ROUNDS_FIT`); the own plan keeps its 5 passes a round.
    The release says which ran."""
    from dprelease.api import synthesize
    from dprelease.mechanisms.mwem_tuning import ADAPTIVE, USER_ROUNDS_FIT

    data = _data()
    for delta in (1e-9, 0.0):
        fixed = synthesize(data, "2way", epsilon=1.0, delta=delta, rounds=5, seed=0).parameters
        planned = synthesize(data, "2way", epsilon=1.0, delta=delta, seed=0).parameters
        assert fixed["annealing"] is False and fixed["rounds_run"] == 5
        assert {k: fixed[k] for k in USER_ROUNDS_FIT} == USER_ROUNDS_FIT
        assert planned["annealing"] is True and "round_discrepancy" not in planned
        assert planned["round_iterations"] == ADAPTIVE.round_iterations == 5
