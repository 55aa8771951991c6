"""MWEM's gate (MWEMPlan.gate_plan): a private test of the pairs' dependence before the INIT-alone plan commits.

The statistic's sensitivity is checked exhaustively on small tables, audited statistically on a neighbouring pair
(false-alarm rate <= 1e-6, tests/audit.py) with a planted bug that the audit catches, and the ledger of a gated
run is checked exactly on both of its paths.
"""

from __future__ import annotations

import itertools
import warnings
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from dprelease.api import run_epsilon_delta, synthesize
from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.mechanisms.base import Budget
from dprelease.mechanisms.mwem import MWEMMechanism
from dprelease.mechanisms.mwem_plan import GATE_RESOLUTION
from dprelease.privacy import measurer as measurer_module
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import SeededRandom
from dprelease.privacy.zcdp import ZCDPAccountant, rho_for
from dprelease.queries.workload import Workload
from tests.audit import violations

DELTA = 1e-9


class CountsTable:
    """A private table given by its 2-way counts: enough for the measurer's dependence statistic."""

    def __init__(self, counts: np.ndarray) -> None:
        self.counts = np.asarray(counts, dtype=np.float64)
        self.domain = Domain(("a", "b"), self.counts.shape)
        self.n = int(self.counts.sum())

    def marginal_counts(self, attributes):
        assert tuple(attributes) == ("a", "b")
        return self.counts


def dependence(counts: np.ndarray) -> Fraction:
    measurer = PrivateMeasurer(CountsTable(counts), accountant=PrivacyAccountant(epsilon=1.0), rng=SeededRandom(0))
    return measurer._dependence_over_level(("a", "b"), 0.0)


def largest_change(shape: tuple[int, int], n: int) -> Fraction:
    """The most n x |D(x) - D(x')| over every table of n rows on ``shape`` and every neighbour (one row moved)."""
    cells = int(np.prod(shape))
    best = Fraction(0)
    for rows in itertools.combinations_with_replacement(range(cells), n):
        counts = np.bincount(rows, minlength=cells)
        base = dependence(counts.reshape(shape))
        for source in np.flatnonzero(counts):
            for target in range(cells):
                if target != source:
                    moved = counts.copy()
                    moved[source] -= 1
                    moved[target] += 1
                    best = max(best, abs(dependence(moved.reshape(shape)) - base) * n)
    return best


def test_the_dependence_is_exact_and_zero_for_a_product_table():
    assert dependence(np.outer([1, 2, 3], [2, 2])) == 0  # independent columns: exactly 0, no float residue
    assert dependence(np.array([[5, 0], [0, 5]])) == 1  # a copied binary column: |1/2 - 1/4| x 4
    measurer = PrivateMeasurer(CountsTable(np.array([[3, 1], [1, 3]])), accountant=PrivacyAccountant(epsilon=1.0),
                               rng=SeededRandom(0))
    assert measurer._dependence_over_level(("a", "b"), 0.125) == Fraction(1, 2) - Fraction(1, 8)


@pytest.mark.parametrize("shape, n", [((2, 2), 6), ((2, 3), 5), ((3, 3), 5)])
def test_the_dependence_moves_by_at_most_its_stated_sensitivity_on_every_neighbour(shape, n):
    # Exhaustive: every table of n rows, every row moved to every other cell. The bound 6/n holds; the marginal's
    # 2/n, a planted bug's sensitivity, would not (the largest change found is above 3/n on each shape).
    found = largest_change(shape, n)
    assert found <= 6
    assert found > 3


# Neighbours for the audit: 10 rows on 3 x 3 values, one row moved; the largest change of any such pair (found
# exhaustively: 4.4/n against the stated 6/n).
AUDIT_X = np.array([[4, 4, 0], [1, 1, 0], [0, 0, 0]])
AUDIT_X_PRIME = np.array([[4, 4, 0], [0, 1, 0], [0, 0, 1]])
AUDIT_EPSILON = 1.0


def dependence_outputs(counts: np.ndarray, samples: int, seed: int) -> np.ndarray:
    measurer = PrivateMeasurer(CountsTable(counts), accountant=PrivacyAccountant(epsilon=samples * AUDIT_EPSILON),
                               rng=SeededRandom(seed))
    return np.array([measurer.laplace_dependence([("a", "b")], [0.0], epsilon=AUDIT_EPSILON, label="audit")
                     for _ in range(samples)])


def run_dependence_audit(samples: int = 20_000) -> list[str]:
    centre = float(dependence(AUDIT_X))
    scale = 6 / (10 * AUDIT_EPSILON)
    events = [(f"out <= D(x) + {t} b", lambda o, t=t: o <= centre + t * scale) for t in (-2, -1, 0, 1)] + \
             [(f"out >= D(x) + {t} b", lambda o, t=t: o >= centre + t * scale) for t in (-1, 0, 1, 2)]
    return violations(dependence_outputs(AUDIT_X, samples, 1), dependence_outputs(AUDIT_X_PRIME, samples, 2),
                      events, epsilon=AUDIT_EPSILON, alpha=1e-6)


def test_the_neighbours_of_the_audit_move_the_dependence_far():
    # 4.4/n: the audit's pair is the worst case on its shape, so a scale too small shows
    assert abs(dependence(AUDIT_X) - dependence(AUDIT_X_PRIME)) == Fraction(44, 100)


def test_the_dependence_measurement_passes_the_audit():
    assert run_dependence_audit() == []


def test_the_dependence_audit_catches_the_marginal_sensitivity(monkeypatch):
    # Planted bug: the statistic calibrated to a marginal's 2/n (a third of its 6/n). The pair moves it by 4.4/n,
    # so the run is then 2.2-DP, not 1-DP.
    real = measurer_module.snapped_laplace
    monkeypatch.setattr(measurer_module, "snapped_laplace", lambda values, *, sensitivity, epsilon, rng: real(
        values, sensitivity=sensitivity / 3, epsilon=epsilon, rng=rng))
    assert run_dependence_audit() != []


def test_the_dependence_measurement_charges_before_it_answers_and_checks_its_levels():
    accountant = PrivacyAccountant(epsilon=0.5)
    measurer = PrivateMeasurer(CountsTable(AUDIT_X), accountant=accountant, rng=SeededRandom(0))
    with pytest.raises(ValueError, match="one public level per pair"):
        measurer.laplace_dependence([("a", "b")], [0.1, 0.2], epsilon=0.25, label="x")
    assert accountant.ledger == []
    measurer.laplace_dependence([("a", "b")], [0.1], epsilon=Fraction(1, 4), label="gate")
    assert [(c.label, c.epsilon) for c in accountant.ledger] == [("gate", Fraction(1, 4))]


# --------------------------------------------------------------------------------------------- the plan and the run
def chain_table(*, stay: float, n: int = 30_000, columns: int = 4, values: int = 12, seed: int = 0) -> Dataset:
    """Each column copies the one before with probability ``stay``, else is uniform (``stay=0``: independent)."""
    rng = np.random.default_rng(seed)
    data = [rng.integers(0, values, n)]
    for _ in range(columns - 1):
        data.append(np.where(rng.random(n) < stay, data[-1], rng.integers(0, values, n)))
    return Dataset.from_records(np.stack(data, axis=1), Domain(tuple("abcdefghi"[:columns]), (values,) * columns))


def runner(data: Dataset, *, epsilon: float = 0.1, delta: float = DELTA, **options):
    return MWEMMechanism(**options).runner(data.domain, Budget(epsilon=epsilon, delta=delta))


def test_the_gate_runs_only_where_the_public_plan_is_init_alone_and_the_test_can_tell():
    data = chain_table(stay=0.8)
    workload = Workload.from_spec("1-3way", data.domain)
    plain = runner(data)
    assert plain.run_plan(workload, n=data.n).rounds == 4  # the public plan: INIT alone (T = d)
    gate = plain.gate_plan(workload, n=data.n)
    assert gate is not None and len(gate.pairs) == 6
    # the test's epsilon and the runs' add up to the budget exactly, the test's at most gate_share of it
    assert gate.epsilon + Fraction(gate.rounds_run.epsilon) == Fraction(0.1)
    assert gate.rounds_run.epsilon == gate.init_run.epsilon
    assert 0 < gate.epsilon <= Fraction(0.1) * Fraction(plain.tuning.gate_share)
    # its Laplace scale is at most GATE_RESOLUTION of the smallest noise term at the runs' budget, and near it
    allowance = (2 * 144 / (np.pi * data.n)) ** 0.5
    scale = 6 / (data.n * float(gate.epsilon))
    assert 0.95 * GATE_RESOLUTION * (min(gate.levels) - allowance) <= scale <= GATE_RESOLUTION * (min(gate.levels) - allowance)
    assert gate.rounds_run.rounds == 8 and gate.rounds_run.noise == "gaussian"
    assert gate.init_run.tuning.gate_share is None and gate.rounds_run.tuning.gate_share is None
    # public: another table of the same n and domain has the same gate
    assert runner(chain_table(stay=0.0)).gate_plan(workload, n=data.n) == gate
    # no gate: pure DP, the user's rounds, noise chosen by hand, 1-way workloads, or too few rows for the test
    assert runner(data, delta=0.0).gate_plan(workload, n=data.n) is None
    assert runner(data, rounds=8).gate_plan(workload, n=data.n) is None
    assert replace(plain, noise="laplace").gate_plan(workload, n=data.n) is None
    assert plain.gate_plan(Workload.from_spec("1way", data.domain), n=data.n) is None
    small = chain_table(stay=0.8, n=1_000)
    assert runner(small).run_plan(workload, n=small.n).rounds == 4 and runner(small).gate_plan(workload, n=1_000) is None
    # where the public plan has rounds, no gate
    assert runner(data, epsilon=10.0).gate_plan(workload, n=data.n) is None
    # nor on a workload of more than GATE_MOST_PAIRS pairs (9 columns: 36), though its public plan is INIT alone
    wide = chain_table(stay=0.8, columns=9)
    wide_workload = Workload.from_spec("1-2way", wide.domain)
    assert runner(wide).run_plan(wide_workload, n=wide.n).rounds == 9
    assert runner(wide).gate_plan(wide_workload, n=wide.n) is None
    assert runner(chain_table(stay=0.8, columns=8)).gate_plan(Workload.from_spec("1-2way", Domain(
        tuple("abcdefgh"), (12,) * 8)), n=data.n) is not None  # 8 columns: 28 pairs, the most it takes


@pytest.mark.parametrize("stay, passed", [(0.8, True), (0.0, False)])
def test_a_gated_run_spends_exactly_its_budget_on_either_path(stay, passed):
    data = chain_table(stay=stay)
    workload = Workload.from_spec("1-3way", data.domain)
    plain = runner(data)
    gate = plain.gate_plan(workload, n=data.n)
    result = plain.run(data, workload, rng=SeededRandom(3))
    accountant = result.accountant
    assert result.parameters["gate"]["passed"] is passed
    test_charge, stage_charge = accountant.ledger
    assert test_charge.epsilon == gate.epsilon and test_charge.delta == 0
    assert test_charge.label.startswith("gate:")
    assert stage_charge.epsilon == Fraction(gate.init_run.epsilon)
    assert accountant.spent_epsilon == Fraction(0.1)  # exactly the budget
    (stage,) = accountant.stages.values()
    if passed:  # the rounds' plan: zCDP at rho(epsilon - test, delta), spent within it, charged as (., delta)
        assert stage_charge.delta == Fraction(DELTA) and accountant.spent_delta == Fraction(DELTA)
        assert isinstance(stage, ZCDPAccountant)
        assert stage.rho == rho_for(epsilon=gate.rounds_run.epsilon, delta=DELTA)
        assert 0 < stage.spent_rho <= stage.rho
        assert result.parameters["rounds_run"] == 8 and result.parameters["noise"] == "gaussian"
    else:  # INIT alone with Laplace noise: pure, the stage's charges sum to what it was charged
        assert stage_charge.delta == 0 and accountant.spent_delta == 0
        assert isinstance(stage, PrivacyAccountant) and stage.spent_epsilon == stage_charge.epsilon
        assert result.parameters["rounds_run"] == 0 and result.parameters["noise"] == "laplace"
    ledger = accountant.to_json()
    assert list(ledger["stages"]) == [stage_charge.label]
    assert run_epsilon_delta(ledger)[:2] == (Fraction(0.1), Fraction(DELTA) if passed else Fraction(0))
    entry = result.transcript[0]
    assert entry["action"] == "gate" and entry["passed"] is passed
    assert entry["gate_laplace_scale"] == pytest.approx(6 / (data.n * float(gate.epsilon)), rel=1e-6)


def test_the_gate_measures_the_pairs_where_they_are_strong_and_not_where_they_are_not():
    # Ten seeds each: the copied columns clear their levels far above the test's noise, independent ones stay far
    # below, so the choice does not depend on the seed
    for stay, passed in ((0.8, True), (0.0, False)):
        data = chain_table(stay=stay)
        workload = Workload.from_spec("1-3way", data.domain)
        plain = runner(data)
        choices = {plain.run(data, workload, rng=SeededRandom(s)).parameters["gate"]["passed"] for s in range(10)}
        assert choices == {passed}


def test_a_gated_release_states_its_guarantee_and_keeps_the_stage_ledger():
    data = chain_table(stay=0.8)
    with pytest.warns(UserWarning, match="seed"):
        release = synthesize(data, "1-3way", epsilon=0.1, seed=0)
    assert "a Laplace test of the pairs' dependence" in release.guarantee
    assert "basic composition (Thm 3.16)" in release.guarantee and "zCDP" in release.guarantee
    ledger = release.privacy_ledger
    assert ledger["spent"]["epsilon_exact"] == str(Fraction(0.1))
    (stage,) = ledger["stages"].values()
    assert "rho_exact" in stage["spent"]
    # the accuracy the gate is for: the rounds' release beats INIT alone with the whole budget on this table
    workload = Workload.from_spec("1-3way", data.domain)
    ungated = replace(runner(data), tuning=replace(runner(data).tuning, gate_share=None))

    def error(model) -> float:
        return float(np.mean([np.abs(model.marginal(m) - data.marginal(m)).sum() for m in workload.marginals]))

    gated_errors = [error(runner(data).run(data, workload, rng=SeededRandom(s)).model) for s in range(3)]
    init_errors = [error(ungated.run(data, workload, rng=SeededRandom(s)).model) for s in range(3)]
    assert max(gated_errors) < min(init_errors)


def test_the_report_shows_the_gate_and_the_charges_inside_its_stage():
    from dprelease.report import build_report, render_markdown

    data = chain_table(stay=0.8)
    with pytest.warns(UserWarning, match="seed"):
        release = synthesize(data, "1-3way", epsilon=0.1, seed=0)
    text = render_markdown(build_report(release))
    assert "gate: the dependence of 6 pairs over their levels" in text
    assert "Inside the stage 'the rounds' plan (the gate passed)'" in text
    assert "round 8: measure" in text  # a charge of the stage's own zCDP ledger
    assert "noisy_dependence_over_level: MWEM's gate: the largest pair dependence" in text  # the field explained


def test_a_staged_ledger_charges_a_stage_once_before_it_runs():
    from dprelease.privacy.accountant import StagedAccountant

    accountant = StagedAccountant(epsilon=1.0, delta=1e-9)
    accountant.charge(epsilon=Fraction(1, 10), label="test")
    accountant.charge_stage(epsilon=Fraction(9, 10), delta=Fraction(1e-9), label="run", rule="its own ledger")
    with pytest.raises(ValueError, match="already charged"):
        accountant.charge_stage(epsilon=0, delta=0, label="run", rule="again")
    with pytest.raises(ValueError, match="was not charged"):
        accountant.attach_stage("other", PrivacyAccountant(epsilon=0.9))
    assert accountant.to_json()["stages"] == {"run": None}  # charged, not yet run
    inner = PrivacyAccountant(epsilon=Fraction(9, 10))
    accountant.attach_stage("run", inner)
    with pytest.raises(ValueError, match="has its ledger already"):
        accountant.attach_stage("run", inner)
    assert accountant.to_json()["stages"]["run"] == inner.to_json()
    assert accountant.spent_epsilon == 1 and accountant.remaining_epsilon == 0


def test_a_gated_run_through_duckdb_gives_the_same_release_as_in_memory(tmp_path):
    # The test reads each pair's counts from the engine (PrivateTable.marginal_counts): the same integers, so the
    # same statistic, the same choice and the same release to the last bit
    from dprelease.engines.duckdb_engine import DuckDBTable
    from tests.engine_tables import same_bits, write_tables

    data = chain_table(stay=0.8)
    files = write_tables(tmp_path, data.records, data.domain)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = synthesize(data, "1-3way", epsilon=0.1, seed=0)
        with DuckDBTable.open(files["glob"], data.domain) as table:
            got = synthesize(table, "1-3way", epsilon=0.1, seed=0)
    assert expected.parameters["gate"]["passed"] is True
    assert np.array_equal(got.rows, expected.rows)
    assert all(same_bits(x, y) for x, y in zip(got.answers, expected.answers))
    assert got.privacy_ledger == expected.privacy_ledger and got.transcript == expected.transcript


# ------------------------------------------------------------------------ where the plan's own rounds select blind
def blind_table(*, stay: float, seed: int = 0) -> Dataset:
    """6 columns of 4 values, 10,000 rows: at eps 0.1 the plan's own 24 rounds would select blind (the public test)."""
    return chain_table(stay=stay, n=10_000, columns=6, values=4, seed=seed)


def test_where_the_rounds_would_select_blind_the_gate_chooses_between_them_and_init_alone():
    data = blind_table(stay=0.0)
    workload = Workload.from_spec("1-3way", data.domain)
    plain = runner(data)
    plan = plain.run_plan(workload, n=data.n)
    blind = plain.blind_selection_plan(workload, n=data.n, plan=plan)
    assert plan.rounds == 24 and blind is not None and blind.rounds == 12
    gate = plain.gate_plan(workload, n=data.n, plan=plan)
    assert gate is not None and len(gate.pairs) == 15 and gate.planned_rounds == 24
    assert gate.ratio == plain.tuning.blind_gate_ratio != plain.tuning.gate_ratio
    assert gate.epsilon + Fraction(gate.rounds_run.epsilon) == Fraction(0.1)
    assert 0 < gate.epsilon <= Fraction(0.1) * Fraction(plain.tuning.blind_gate_share)
    # the rounds' branch is the blind plan with the rest of the budget; the other is INIT alone, not the own plan
    assert replace(gate.rounds_run, epsilon=0.1, tuning=blind.tuning) == blind
    init_plan = gate.init_run.run_plan(workload, n=data.n)
    assert init_plan.rounds == 6 and init_plan.split["rounds_after_init"] == 0
    # the levels are the blind ratio's: the sampling allowance plus blind_gate_ratio x each pair's noise term
    levels_at_quarter = replace(plain, tuning=replace(plain.tuning, blind_gate_ratio=0.25))
    quarter = levels_at_quarter.gate_plan(workload, n=data.n, plan=plan)
    assert quarter is None or min(quarter.levels) < min(gate.levels)
    # no gate without the blind ratio: the blind rounds run as before
    ungated = replace(plain, tuning=replace(plain.tuning, blind_gate_share=None, blind_gate_ratio=None))
    assert ungated.gate_plan(workload, n=data.n, plan=plan) is None
    # nor where the plan's rounds select with sight (eps 10 here: the plan's own rounds, ungated)
    sighted = runner(data, epsilon=10.0)
    assert sighted.blind_selection_plan(workload, n=data.n) is None and sighted.gate_plan(workload, n=data.n) is None


@pytest.mark.parametrize("stay, passed", [(0.6, True), (0.0, False)])
def test_a_blind_gated_run_spends_exactly_its_budget_and_picks_by_the_pairs(stay, passed):
    data = blind_table(stay=stay)
    workload = Workload.from_spec("1-3way", data.domain)
    plain = runner(data)
    gate = plain.gate_plan(workload, n=data.n)
    for seed in range(3):  # the copied columns clear their levels far above the test's noise; independent ones do not
        result = plain.run(data, workload, rng=SeededRandom(seed))
        assert result.parameters["gate"]["passed"] is passed
        assert result.parameters["gate"]["planned_rounds"] == 24 and result.parameters["gate_ratio"] == gate.ratio
        test_charge, stage_charge = result.accountant.ledger
        assert test_charge.epsilon == gate.epsilon and test_charge.delta == 0
        assert stage_charge.epsilon == Fraction(gate.init_run.epsilon)
        assert result.accountant.spent_epsilon == Fraction(0.1)
        (stage,) = result.accountant.stages.values()
        if passed:  # the blind plan's 12 Gaussian rounds at rho(epsilon - test, delta)
            assert stage.rho == rho_for(epsilon=gate.rounds_run.epsilon, delta=DELTA)
            assert 0 < stage.spent_rho <= stage.rho
            assert result.parameters["rounds_run"] == 12
        else:  # INIT alone, Laplace: each 1-way marginal once, the stage's charges summing to exactly its charge
            assert result.parameters["rounds_run"] == 0 and result.parameters["noise"] == "laplace"
            assert isinstance(stage, PrivacyAccountant) and stage.spent_epsilon == stage_charge.epsilon
            assert stage_charge.delta == 0 and result.accountant.spent_delta == 0
            assert sorted(m.attributes for m in result.measurements) == [(a,) for a in data.domain.attributes]
