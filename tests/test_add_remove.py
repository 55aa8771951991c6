"""The add/remove privacy unit (``privacy_unit="add-remove"``, MWEM only): n private, a noisy count first.

Checked here: the measurer's sensitivities under the unit, exhaustively on small tables where they are bounds (the
dependence over max(n_estimate, n)); a statistical audit of a whole add/remove run on tables one record apart
(false-alarm rate <= 1e-6, tests/audit.py) with a planted bug it catches; the exact ledger of every path (the count,
then the run charged whole as a stage: Laplace, Gaussian, gated); the rows' number; and the public checks.
"""

from __future__ import annotations

import itertools
import json
import warnings
from fractions import Fraction

import numpy as np
import pytest

from dprelease.api import run_epsilon_delta, synthesize
from dprelease.cli import main
from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.errors import InputError
from dprelease.mechanisms.base import Budget
from dprelease.mechanisms.mwem import COUNT_SHARE, MWEMMechanism
from dprelease.mechanisms.mwem import MWEM as MWEM_CLASS
from dprelease.engines.persons import PersonRows
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.contributions import bound
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import SeededRandom
from dprelease.privacy.zcdp import ZCDPAccountant, rho_for
from dprelease.queries import ProductQuery
from dprelease.queries.workload import Workload
from tests.audit import violations
from tests.test_mwem_gate import CountsTable, chain_table

DELTA = 1e-9


def measurer_for(counts: np.ndarray, n_estimate: int) -> PrivateMeasurer:
    return PrivateMeasurer(CountsTable(counts), accountant=PrivacyAccountant(epsilon=1.0), rng=SeededRandom(0),
                           n_estimate=n_estimate)


# ------------------------------------------------------------------------------------------ the measurer's unit
def test_the_sensitivities_follow_the_unit():
    data = Dataset.from_records([[0, 1], [1, 2], [1, 2], [0, 0]], Domain(("a", "b"), (2, 3)))
    book = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=1.0), rng=SeededRandom(0))
    counted = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=1.0), rng=SeededRandom(0), n_estimate=7)
    assert (book.n, book.marginal_sensitivity, book.marginal_l2_sensitivity_squared) == (4, Fraction(1, 2),
                                                                                         Fraction(1, 8))
    assert (counted.n, counted.marginal_sensitivity, counted.marginal_l2_sensitivity_squared) == (
        7, Fraction(1, 7), Fraction(1, 49))
    assert counted.dependence_sensitivity == Fraction(6, 7)
    # the true n never divides: the marginal is the counts over n_estimate
    assert np.array_equal(counted._true_marginal(("b",)), np.array([1, 1, 2]) / 7)
    # the Gaussian's noise is calibrated to one changed cell, not two: sqrt(2) less
    assert counted.gaussian_marginal_std(rho=Fraction(1, 2)) * 7 == pytest.approx(1.0, rel=1e-3)
    assert book.gaussian_marginal_std(rho=Fraction(1, 2)) * 4 == pytest.approx(2 ** 0.5, rel=1e-3)


def test_query_sets_whose_sensitivity_assumes_the_book_unit_are_refused_and_charge_nothing():
    data = Dataset.from_records([[0, 1], [1, 2]], Domain(("a", "b"), (2, 3)))
    accountant = PrivacyAccountant(epsilon=1.0)
    counted = PrivateMeasurer(data, accountant=accountant, rng=SeededRandom(0), n_estimate=2)
    query = ProductQuery.conjunction(data.domain, {"a": 1})
    with pytest.raises(TypeError, match="add/remove"):
        counted.laplace_query(query, epsilon=0.5, label="q")
    with pytest.raises(TypeError, match="add/remove"):
        counted.select_query(Workload.from_spec("1way", data.domain), np.zeros(5), epsilon=0.5, label="s")
    assert accountant.ledger == []
    with pytest.raises(ValueError, match="n_estimate"):
        PrivateMeasurer(data, accountant=accountant, rng=SeededRandom(0), n_estimate=0)


def test_the_count_is_charged_before_it_answers_and_is_a_whole_number_at_least_one():
    data = Dataset.from_records([[0, 0]] * 3, Domain(("a", "b"), (2, 2)))
    accountant = PrivacyAccountant(epsilon=100.0)
    measurer = PrivateMeasurer(data, accountant=accountant, rng=SeededRandom(1))
    counts = [measurer.laplace_record_count(epsilon=Fraction(1, 4), label="n") for _ in range(400)]
    assert all(isinstance(c, int) and c >= 1 for c in counts) and min(counts) == 1  # clipped at 1, never below
    assert accountant.spent_epsilon == 100  # 400 charges of exactly 1/4
    sharp_measurer = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=20_000), rng=SeededRandom(2))
    sharp = [sharp_measurer.laplace_record_count(epsilon=Fraction(1000), label="n") for _ in range(20)]
    assert set(sharp) == {3}


def dependence(counts: np.ndarray, n_estimate: int) -> Fraction:
    return measurer_for(counts, n_estimate)._dependence_over_level(("a", "b"), 0.0)


def largest_change_when_added(shape: tuple[int, int], n: int, n_estimate: int) -> Fraction:
    """The most |D(x + r) - D(x)| over every table x of n rows on ``shape`` and every record r added."""
    cells = int(np.prod(shape))
    largest = Fraction(0)
    for rows in itertools.combinations_with_replacement(range(cells), n):
        counts = np.bincount(rows, minlength=cells)
        base = dependence(counts.reshape(shape), n_estimate)
        for cell in range(cells):
            more = counts.copy()
            more[cell] += 1
            largest = max(largest, abs(dependence(more.reshape(shape), n_estimate) - base))
    return largest


@pytest.mark.parametrize("shape, n", [((2, 2), 5), ((2, 3), 4), ((3, 3), 4)])
def test_the_dependence_over_max_n_estimate_n_moves_by_at_most_six_over_n_estimate_when_a_record_is_added(shape, n):
    # Exhaustive: every table of n rows, every row added in every cell, for counts below, at and above n. Adding
    # covers removing (the same pair read backwards).
    for n_estimate in (1, 2, n - 1, n, n + 1, n + 3):
        assert largest_change_when_added(shape, n, n_estimate) <= Fraction(6, n_estimate), n_estimate


def test_a_normalizer_of_n_estimate_alone_would_break_the_dependence_bound(monkeypatch):
    # Planted bug: the fractions over n_estimate alone, the counts' own total ignored. Their products then grow with
    # the true n, and the exhaustive check above finds a change far past 6/n_estimate where the count is low.
    monkeypatch.setattr(PrivateMeasurer, "_dependence_scale", lambda self, total: self.n)
    assert largest_change_when_added((2, 2), 5, 1) > 6


# ------------------------------------------------------------------------------------------------- the audit
# One record added: x has 5 records, x' those 5 and one more at (1, 2). An add/remove run's kernel steps: the noisy
# count (Laplace, sensitivity 1), then b's marginal over that count, read back in counts (value x n_estimate). One added
# record moves the last cell by 1, so joint events on the count and the cells see the unit's whole sensitivity.
AUDIT_DOMAIN = Domain(("a", "b"), (2, 3))
AUDIT_X = Dataset.from_records([[0, 0]] * 3 + [[1, 2]] * 2, AUDIT_DOMAIN)
AUDIT_X_PLUS = Dataset.from_records([[0, 0]] * 3 + [[1, 2]] * 3, AUDIT_DOMAIN)
AUDIT_EPSILON = 1.0
COUNT_EPSILON, MARGINAL_EPSILON = Fraction(1, 4), Fraction(3, 4)


def counted_outputs(table: Dataset | PersonRows, runs: int, seed: int, *, rows_per_person: int = 1) -> np.ndarray:
    """(n_estimate, first cell, last cell) of ``runs`` add/remove runs' kernel steps on ``table``: the noisy count, then
    b's marginal over it, read back in counts; rows with their persons (tests/test_person_level.py) are bounded to
    ``rows_per_person`` first, and every sensitivity is that many times a record's."""
    rng = SeededRandom(seed)
    out = np.empty((runs, 3))
    for i in range(runs):
        dataset = table if isinstance(table, Dataset) else bound(table, rows_per_person=rows_per_person, rng=rng)
        accountant = PrivacyAccountant(epsilon=AUDIT_EPSILON)
        n_estimate = PrivateMeasurer(dataset, accountant=accountant, rng=rng, n_estimate=1,
                                     rows_per_person=rows_per_person).laplace_record_count(epsilon=COUNT_EPSILON,
                                                                                           label="n")
        counted = PrivateMeasurer(dataset, accountant=accountant, rng=rng, n_estimate=n_estimate,
                                  rows_per_person=rows_per_person)
        cells = counted.laplace_marginal(("b",), epsilon=MARGINAL_EPSILON, label="b") * n_estimate
        out[i] = (n_estimate, cells[0], cells[-1])
    return out


def run_counted_audit() -> list[str]:
    runs = 8_000
    out_x, out_y = counted_outputs(AUDIT_X, runs, 41), counted_outputs(AUDIT_X_PLUS, runs, 42)
    events = [(f"first <= {low}, last >= {high}", lambda o, lo=low, hi=high: (o[:, 1] <= lo) & (o[:, 2] >= hi))
              for low, high in ((3.0, 2.0), (3.0, 3.0), (4.0, 3.5), (2.5, 2.5))]
    events += [(f"count >= {c}, last >= {h}", lambda o, c=c, h=h: (o[:, 0] >= c) & (o[:, 2] >= h))
               for c, h in ((6, 3.0), (7, 2.5))]
    return violations(out_x, out_y, events, epsilon=AUDIT_EPSILON, alpha=1e-6)


def test_an_add_remove_run_passes_the_audit_on_tables_one_record_apart():
    assert run_counted_audit() == []


def test_the_add_remove_audit_catches_the_book_unit_sensitivity_halved(monkeypatch):
    # Planted bug: the kernel believes one added record moves a marginal by 1/(2 n_estimate), half the truth.
    monkeypatch.setattr(PrivateMeasurer, "changed_cells", property(lambda self: Fraction(1, 2)))
    assert run_counted_audit() != []


# ---------------------------------------------------------------------------------------------- exact ledgers
def runner(data: Dataset, *, epsilon: float, delta: float):
    return MWEMMechanism(privacy_unit="add-remove").runner(data.domain, Budget(epsilon=epsilon, delta=delta))


def count_then_stage(result):
    count_charge, stage_charge = result.accountant.ledger
    assert count_charge.label == "the number of records (add/remove)" and count_charge.delta == 0
    assert stage_charge.label == "the run after the count"
    return count_charge, stage_charge


@pytest.mark.parametrize("epsilon, delta", [(1.0, 0.0), (10.0, DELTA)])
def test_an_add_remove_run_spends_exactly_its_budget_count_then_the_run(epsilon, delta):
    data = chain_table(stay=0.5, n=5_000)
    workload = Workload.from_spec("1-2way", data.domain)
    result = runner(data, epsilon=epsilon, delta=delta).run(data, workload, rng=SeededRandom(5))
    assert "gate" not in result.parameters  # the rounds' plan (the gated run: below)
    count_charge, stage_charge = count_then_stage(result)
    assert count_charge.epsilon == Fraction(epsilon) - Fraction(result.parameters["run_epsilon"])
    assert abs(count_charge.epsilon - COUNT_SHARE * Fraction(epsilon)) < Fraction(1, 10**14)  # 2 %, to float rounding
    assert stage_charge.epsilon == Fraction(result.parameters["run_epsilon"])
    assert result.accountant.spent_epsilon == Fraction(epsilon)  # exactly the budget
    (stage,) = result.accountant.stages.values()
    if delta:
        assert result.parameters["noise"] == "gaussian" and stage_charge.delta == Fraction(DELTA)
        assert isinstance(stage, ZCDPAccountant)
        assert stage.rho == rho_for(epsilon=result.parameters["run_epsilon"], delta=DELTA)
        assert 0 < stage.spent_rho <= stage.rho
    else:
        assert stage_charge.delta == 0 and stage.spent_epsilon == stage_charge.epsilon
    assert run_epsilon_delta(result.accountant.to_json())[:2] == (Fraction(epsilon), Fraction(delta))
    entry = result.transcript[0]
    assert entry["action"] == "count" and entry["n_estimate"] == result.parameters["n_estimate"]
    assert abs(entry["n_estimate"] - data.n) < 1_000 / epsilon  # Laplace of scale 50 / epsilon: 20 scales
    assert result.parameters["privacy_unit"] == "add-remove"


def test_a_gated_add_remove_run_nests_the_gate_stage_inside_the_count_stage():
    data = chain_table(stay=0.8)
    workload = Workload.from_spec("1-3way", data.domain)
    mwem = runner(data, epsilon=0.1, delta=DELTA)
    result = mwem.run(data, workload, rng=SeededRandom(3))
    count_then_stage(result)
    assert result.parameters["gate"]["passed"] is True
    (inner,) = result.accountant.stages.values()
    test_charge, run_charge = inner.ledger  # the gated run's own ledger: the test, then its chosen run
    assert test_charge.label.startswith("gate:")
    assert inner.spent_epsilon == Fraction(result.parameters["run_epsilon"])
    assert result.accountant.spent_epsilon == Fraction(0.1)
    assert [e["action"] for e in result.transcript[:2]] == ["count", "gate"]
    scale = result.transcript[1]["gate_laplace_scale"]
    assert scale == pytest.approx(6 / (result.parameters["n_estimate"] * float(test_charge.epsilon)), rel=1e-6)


def test_a_release_under_add_remove_states_its_unit_and_releases_n_estimate_rows():
    data = chain_table(stay=0.5, n=3_000)
    with pytest.warns(UserWarning, match="seed"):
        release = synthesize(data, "1-2way", epsilon=1.0, seed=2, privacy_unit="add-remove")
    n_estimate = release.parameters["n_estimate"]
    assert len(release.rows) == release.parameters["rows_estimate"] != data.n  # not the private n (on this seed)
    assert "under add/remove neighbours" in release.guarantee and f"n_estimate={n_estimate}" in release.guarantee
    assert release.privacy_ledger["spent"]["epsilon_exact"] == "1"
    with pytest.warns(UserWarning, match="seed"):
        asked = synthesize(data, "1-2way", epsilon=1.0, seed=2, privacy_unit="add-remove", n_rows=10)
    assert len(asked.rows) == 10
    with pytest.warns(UserWarning, match="seed"):
        book = synthesize(data, "1-2way", epsilon=1.0, seed=2, privacy_unit="replace")
    assert len(book.rows) == data.n and "privacy_unit" not in book.parameters


def test_the_rows_number_pools_the_count_with_every_measurements_total():
    from dprelease.mechanisms.mwem import pooled_count
    from dprelease.updates.measurements import MarginalMeasurement

    # exact: a count of 100 (Laplace scale 10: variance 200) and a 2-cell Gaussian marginal whose total says 110
    # (sigma 0.05 over n_estimate 100: 5 a cell, variance 2 x 25 = 50): (100/200 + 110/50) / (1/200 + 1/50) = 108
    marginal = MarginalMeasurement(("a",), np.array([0.6, 0.5]), 0.05, "gaussian")
    assert pooled_count(100, 10.0, [marginal]) == 108
    assert pooled_count(100, 10.0, []) == 100
    # on a 600-row table at eps 0.1 the pooled number is nearer n than the count alone, seed for seed on average
    data = chain_table(stay=0.5, n=600, columns=6, values=4)
    workload = Workload.from_spec("1-2way", data.domain)
    errors = np.array([[abs(r.parameters[k] - data.n) for k in ("n_estimate", "rows_estimate")]
                       for r in (runner(data, epsilon=0.1, delta=DELTA).run(data, workload, rng=SeededRandom(s))
                                 for s in range(20))])
    assert errors[:, 1].mean() < 0.6 * errors[:, 0].mean()


# ------------------------------------------------------------------------------------------------- public checks
def test_a_bad_unit_or_a_mechanism_without_it_is_refused_before_anything_is_read():
    data = Dataset.from_records([[0, 1], [1, 2]], Domain(("a", "b"), (2, 3)))
    with pytest.raises(InputError, match=r"privacy_unit must be one of \['replace', 'add-remove'\], got 'add'"):
        synthesize(data, "1way", epsilon=1.0, privacy_unit="add")
    with pytest.raises(InputError, match="privacy_unit='add-remove' is for mechanism='mwem' only"):
        synthesize(data, "1way", mechanism="smalldb", epsilon=1.0, privacy_unit="add-remove")
    # the book's unit, named, is every mechanism's: it runs, and no warning says the option goes unused
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        release = synthesize(data, "1way", mechanism="smalldb", epsilon=1.0, alpha=0.5, privacy_unit="replace",
                             seed=0)
    assert len(release.rows) == 2
    assert [str(w.message) for w in seen if "privacy_unit" in str(w.message)] == []
    assert any("seed=0" in str(w.message) for w in seen)  # the warnings were recorded


def test_the_cli_takes_the_unit_and_refuses_a_bad_one(tmp_path, capsys):
    data = chain_table(stay=0.5, n=2_000, columns=3, values=4)
    csv = tmp_path / "codes.csv"
    np.savetxt(csv, data.records, fmt="%d", delimiter=",", header="a,b,c", comments="")
    domain = tmp_path / "domain.json"
    domain.write_text(json.dumps({"a": 4, "b": 4, "c": 4}))
    out, release = tmp_path / "rows.csv", tmp_path / "release.json"
    args = ["synth", str(csv), "--domain", str(domain), "--workload", "1-2way", "--epsilon", "1", "--seed", "0",
            "--out", str(out), "--release", str(release), "--quiet"]
    assert main([*args, "--privacy-unit", "add-remove"]) == 0
    document = json.loads(release.read_text())
    assert document["parameters"]["privacy_unit"] == "add-remove"
    assert len(out.read_text().splitlines()) == 1 + document["parameters"]["rows_estimate"]
    out.unlink()
    release.unlink()
    with pytest.raises(SystemExit) as stop:
        main([*args, "--privacy-unit", "add"])
    assert stop.value.code != 0 and "--privacy-unit" in capsys.readouterr().err
    assert not out.exists() and not release.exists()


# ------------------------------------------------------------------------------------- the draft under add/remove
def test_the_drafts_quantile_utility_moves_by_at_most_one_when_a_record_is_added():
    # A schema drafted privately is composed into an add/remove release's ledger at the charges it was made with: its
    # histograms have L1 sensitivity 1 under add/remove (2 under replace one, what they are calibrated to), and the
    # quantiles' rank utility stays within its stated 1 when a value (or a NULL, which changes nothing) is added.
    from dprelease.privacy.quantiles import RANK_SENSITIVITY, quantile_scores

    rng = np.random.default_rng(7)
    candidates = np.arange(-1.5, 12.5, 0.5)
    largest = 0.0
    for _ in range(300):
        values = np.sort(rng.integers(0, 11, rng.integers(0, 30)).astype(np.float64))
        added = float(rng.integers(-1, 12))
        more = np.sort(np.append(values, added))
        for p in (0.1, 0.25, 0.5, 0.9):
            largest = max(largest, float(np.abs(quantile_scores(more, p, candidates)
                                                - quantile_scores(values, p, candidates)).max()))
    assert largest <= RANK_SENSITIVITY
    assert largest > 0.85  # the bound is nearly reached: 1 - p at p = 0.1


def test_the_saved_release_and_its_report_name_the_unit_it_ran_under(tmp_path):
    from dprelease.release import Release
    from dprelease.release.core import ADD_REMOVE_UNIT, PRIVACY_UNIT
    from dprelease.report.public import guarantee_section

    data = chain_table(stay=0.5, n=2_000, columns=3, values=4)
    for unit, stated, said in (("add-remove", ADD_REMOVE_UNIT, "one record added or removed"),
                               ("replace", PRIVACY_UNIT, "the same public number of rows")):
        with pytest.warns(UserWarning, match="seed"):
            release = synthesize(data, "1-2way", epsilon=1.0, seed=0, privacy_unit=unit)
        path = tmp_path / f"{unit}.json"
        release.save(tmp_path / f"{unit}.csv", path)
        assert json.loads(path.read_text())["privacy_unit"] == stated
        loaded = Release.load(path)
        (table,) = [b for b in guarantee_section(loaded).blocks if hasattr(b, "rows")][:1]
        assert any(k == "privacy unit" and said in v for k, v in table.rows)


def test_the_gates_levels_read_the_add_remove_noise():
    # The gate weighs a pair's dependence against the noise the rounds would measure it with; under add/remove that
    # noise is 1/sqrt(2) of the book's at the same n and budget, and so is the levels' noise term.
    data = chain_table(stay=0.8)
    workload = Workload.from_spec("1-3way", data.domain)
    book = MWEMMechanism().runner(data.domain, Budget(epsilon=0.1, delta=DELTA))
    counted = MWEMMechanism(privacy_unit="add-remove").runner(data.domain, Budget(epsilon=0.1, delta=DELTA))
    assert counted.gaussian_noise_factor() == pytest.approx(2 ** -0.5) and book.gaussian_noise_factor() == 1
    sampling = [np.sqrt(2 * workload.cells(p) / (np.pi * data.n)) for p in book.gate_plan(workload, n=data.n).pairs]
    book_terms = np.array(book.gate_plan(workload, n=data.n).levels) - sampling
    counted_gate = counted.gate_plan(workload, n=data.n)
    counted_terms = np.array(counted_gate.levels) - sampling
    # the test spends more where the terms are smaller, so the runs' budgets differ a little: within 5 %
    assert np.allclose(counted_terms / book_terms, 2 ** -0.5, rtol=0.05)



def test_a_far_off_count_is_pooled_with_inits_totals_and_every_later_read_is_over_that():
    # n_estimate 1,000 from a count too noisy to trust (scale 10^6), for a table of 5,000 rows: INIT's 1-way totals
    # (fractions over n_estimate, summing to about 5) say otherwise, and the run moves to their pooled estimate
    from dprelease.updates.measurements import MarginalMeasurement
    data = chain_table(stay=0.5, n=5_000)
    accountant = PrivacyAccountant(epsilon=1.0)
    measurer = PrivateMeasurer(data, accountant=accountant, rng=SeededRandom(0), n_estimate=1_000)
    one_ways = [MarginalMeasurement((a,), data.marginal_counts((a,)) / 1_000 + 0.001, 0.002) for a in ("a", "b")]
    measurements, fitted, transcript = list(one_ways), list(one_ways), []
    run = runner(data, epsilon=1.0, delta=0.0)
    run = MWEM_CLASS(**{**{f: getattr(run, f) for f in run.__dataclass_fields__}, "n_estimate": 1_000,
                        "count_scale": 1e6})
    pooled = run._renormalized(measurer, measurements, fitted, transcript)
    assert abs(pooled - 5_000) < 50 and measurer.n == pooled
    assert all(abs(m.values.sum() - 1) < 0.02 for m in measurements)  # fractions over the pooled count now
    assert measurements[0].scale == pytest.approx(0.002 * 1_000 / pooled)
    assert all(abs(f.values.sum() - 1) < 1e-9 for f in fitted)  # 1-way distributions, rebuilt from the rescaled
    assert transcript == [{"round": 0, "action": "renormalize", "n_estimate": 1_000, "pooled_count": pooled}]
    assert accountant.spent_epsilon == 0  # post-processing: nothing charged
    assert measurer.marginal_sensitivity == Fraction(1, pooled)  # every later read over the pooled count
    with pytest.raises(TypeError, match="add/remove"):
        PrivateMeasurer(data, accountant=accountant, rng=SeededRandom(0)).renormalize(10)
