"""Person-level privacy: a privacy id, at most k rows a person, every sensitivity k times a record's.

Checked here: the bounding (at most k rows a person, all of those with fewer, a uniform subset: a chi-square test
with false-alarm rate 1e-6 and the planted bug "the first k in table order" it catches); the measurer's sensitivities
at k exactly; a statistical audit of the kernel's steps on tables one *person* apart (false-alarm rate <= 1e-6,
tests/audit.py) with two planted bugs it catches (no bounding; sensitivities of one record); the exact ledger of a
person-level run; the release's statement of its unit; and the public checks, which refuse before anything is read.
"""

from __future__ import annotations

import json
import re
import warnings
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy.stats import chisquare

from dprelease.api import run_epsilon_delta, synthesize_table
from dprelease.cli import main
from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.errors import InputError
from dprelease.mechanisms.base import Budget
from dprelease.mechanisms.mwem import COUNT_SHARE, MWEM, MWEMMechanism
from dprelease.privacy import contributions
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.engines.persons import PersonRows
from dprelease.privacy.contributions import bounded_rows
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import SeededRandom
from dprelease.queries.workload import Workload
from dprelease.schema import Schema
from dprelease.schema.parse import FactorColumn, TypedColumn
from dprelease.schema.tables import person_index
from tests.audit import violations
from tests.test_add_remove import AUDIT_EPSILON, counted_outputs
from tests.test_mwem_gate import chain_table


# ------------------------------------------------------------------------------------------------- the bounding
@pytest.mark.parametrize("k", [1, 2, 5])
def test_each_person_keeps_at_most_k_rows_and_all_of_theirs_when_they_have_fewer(k):
    generator = np.random.default_rng(3)
    rows = generator.integers(1, 9, size=300)
    persons = generator.permutation(np.repeat(np.arange(300), rows))  # a person's rows spread through the table
    kept = bounded_rows(persons, rows_per_person=k, rng=SeededRandom(7))
    assert np.all(np.diff(kept) > 0)  # table order, no row twice
    assert np.array_equal(np.bincount(persons[kept], minlength=300), np.minimum(rows, k))


def kept_subsets(draws: int) -> np.ndarray:
    """How often each 2-subset of person 0's 4 rows is kept (persons 1 and 2 around it), over ``draws`` boundings."""
    persons = np.array([1, 0, 2, 0, 0, 1, 2, 0, 2])
    mine = np.flatnonzero(persons == 0)
    rng = SeededRandom(11)
    pairs = {(a, b): i for i, (a, b) in enumerate((a, b) for a in range(4) for b in range(a + 1, 4))}
    counts = np.zeros(len(pairs), dtype=np.int64)
    for _ in range(draws):
        kept = bounded_rows(persons, rows_per_person=2, rng=rng)
        chosen = np.flatnonzero(np.isin(mine, kept))
        counts[pairs[tuple(chosen)]] += 1
    return counts


def test_a_persons_kept_rows_are_a_uniform_subset_of_theirs():
    # chi-square of the 6 subsets' counts against uniform: a uniform draw fails with probability 1e-6
    assert chisquare(kept_subsets(6_000)).pvalue > 1e-6


def test_the_uniformity_test_catches_keeping_the_first_k_rows(monkeypatch):
    monkeypatch.setattr(SeededRandom, "permutation", lambda self, n: np.arange(n))  # planted: table order
    assert chisquare(kept_subsets(6_000)).pvalue < 1e-6


def test_a_privacy_id_reads_equal_ids_as_one_person_and_every_blank_as_one_more():
    text = FactorColumn(np.array(["a", "b"], dtype=object), np.array([0, 1, -1, 0, -1]))
    assert person_index(text).tolist() == [0, 1, -1, 0, -1]
    numbers = TypedColumn(np.array([7.0, 3.0, 0.0, 7.0]), np.array([False, False, True, False]))
    index = person_index(numbers)
    assert index[0] == index[3] != index[1] and index[2] == -1


# -------------------------------------------------------------------------------------- the measurer's sensitivities
def test_every_add_remove_sensitivity_is_k_times_a_records():
    data = Dataset.from_records([[0, 1], [1, 2], [1, 2], [0, 0]], Domain(("a", "b"), (2, 3)))

    def measurer(k: int) -> PrivateMeasurer:
        return PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=1.0), rng=SeededRandom(0), n_estimate=7,
                               rows_per_person=k)

    one, three = measurer(1), measurer(3)
    assert (three.record_sensitivity, three.marginal_sensitivity, three.marginal_l2_sensitivity_squared,
            three.dependence_sensitivity) == (3, Fraction(3, 7), Fraction(9, 49), Fraction(18, 7))
    assert (one.record_sensitivity, one.marginal_sensitivity, one.dependence_sensitivity) == (
        1, Fraction(1, 7), Fraction(6, 7))
    # the Gaussian is calibrated to k rows in one cell: k times the noise
    assert three.gaussian_marginal_std(rho=Fraction(1, 2)) * 7 == pytest.approx(3.0, rel=1e-3)
    with pytest.raises(ValueError, match="add/remove"):
        PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=1.0), rng=SeededRandom(0), rows_per_person=2)
    with pytest.raises(InputError, match="add-remove"):
        MWEM(epsilon=1.0, delta=0.0, rows_per_person=2)


# -------------------------------------------------------------------------------------------------------- the audit
# x holds persons 0-3 (one row each: cells (0, 0) x 3 and (1, 2)); x' holds them and person 9, whose 6 rows all sit
# in (1, 2). k = 2: the bounded tables differ by 2 records, which the kernel's k = 2 sensitivities cover. The steps of
# a person-level run: the bounding, the noisy count, b's marginal over it (read back in counts).
AUDIT_DOMAIN = Domain(("a", "b"), (2, 3))
AUDIT_X = PersonRows(Dataset.from_records([[0, 0]] * 3 + [[1, 2]], AUDIT_DOMAIN), np.arange(4), "person")
AUDIT_X_PLUS = PersonRows(Dataset.from_records([[0, 0]] * 3 + [[1, 2]] * 7, AUDIT_DOMAIN),
                          np.array([0, 1, 2, 3] + [9] * 6), "person")
AUDIT_K = 2


def person_outputs(rows: PersonRows, runs: int, seed: int) -> np.ndarray:
    return counted_outputs(rows, runs, seed, rows_per_person=AUDIT_K)  # the add/remove audit's steps, bounded first


def run_person_audit() -> list[str]:
    runs = 8_000
    out_x, out_y = person_outputs(AUDIT_X, runs, 41), person_outputs(AUDIT_X_PLUS, runs, 42)
    events = [(f"last >= {high}", lambda o, hi=high: o[:, 2] >= hi) for high in (3.0, 4.0, 6.0)]
    events += [(f"count >= {c}, last >= {h}", lambda o, c=c, h=h: (o[:, 0] >= c) & (o[:, 2] >= h))
               for c, h in ((6, 3.0), (8, 4.0), (10, 6.0))]
    return violations(out_x, out_y, events, epsilon=AUDIT_EPSILON, alpha=1e-6)


def test_a_person_level_run_passes_the_audit_on_tables_one_person_apart():
    assert run_person_audit() == []


def test_the_person_audit_catches_a_run_that_does_not_bound(monkeypatch):
    # planted bug: every row kept, so person 9 moves the counts by 6 where the noise allows for 2
    monkeypatch.setattr(contributions, "bounded_rows", lambda persons, *, rows_per_person, rng: np.arange(len(persons)))
    assert run_person_audit() != []


def test_the_person_audit_catches_sensitivities_of_one_record(monkeypatch):
    # planted bug: the rows are bounded, but the kernel charges as if a person moved one record
    monkeypatch.setattr(PrivateMeasurer, "record_sensitivity", property(lambda self: Fraction(1)))
    assert run_person_audit() != []


# ---------------------------------------------------------------------------------------------- the exact ledger
@pytest.mark.parametrize("epsilon, delta", [(1.0, 0.0), (4.0, 1e-9)])
def test_a_person_level_run_spends_exactly_its_budget_with_noise_k_times_a_records(epsilon, delta):
    data = chain_table(stay=0.5, n=5_000)
    workload = Workload.from_spec("1-2way", data.domain)

    mechanism = MWEMMechanism(privacy_unit="add-remove", rows_per_person=3)
    result = mechanism.runner(data.domain, Budget(epsilon=epsilon, delta=delta)).run(data, workload,
                                                                                     rng=SeededRandom(5))
    count_charge, stage_charge = result.accountant.ledger
    assert count_charge.epsilon == Fraction(epsilon) - Fraction(result.parameters["run_epsilon"])
    assert abs(count_charge.epsilon - COUNT_SHARE * Fraction(epsilon)) < Fraction(1, 10**14)
    assert result.accountant.spent_epsilon == Fraction(epsilon)
    assert run_epsilon_delta(result.accountant.to_json())[1] == Fraction(stage_charge.delta)
    count = result.transcript[0]
    assert count["count_laplace_scale"] == pytest.approx(3 / float(count_charge.epsilon), rel=1e-12)
    assert result.parameters["rows_per_person"] == 3 and result.parameters["privacy_unit"] == "add-remove"
    # every measurement's noise is k times a record's at the public n_estimate; the plan sees n_estimate / k
    n_estimate = result.parameters["n_estimate"]
    person = replace(MWEMMechanism(privacy_unit="add-remove", rows_per_person=3).runner(
        data.domain, Budget(epsilon=epsilon, delta=delta)), n_estimate=n_estimate)
    assert person.public_n(data) == n_estimate // 3
    measures = [e for e in result.transcript if e.get("action") == "measure"]
    assert measures
    for entry in measures:
        if "laplace_scale" in entry:
            assert entry["laplace_scale"] == pytest.approx(3 / (n_estimate * entry["epsilon"]), rel=1e-12)


# ------------------------------------------------------------------------------------- the release and the API
def visits(persons: int = 1_500, seed: int = 0) -> pd.DataFrame:
    generator = np.random.default_rng(seed)
    rows = generator.geometric(0.35, persons)
    ids = np.repeat(np.arange(persons), rows)
    n = len(ids)
    return pd.DataFrame({"patient": [f"P{i:05d}" for i in ids],
                         "ward": generator.choice(["A", "B", "C"], n),
                         "urgent": generator.choice(["yes", "no"], n, p=[0.3, 0.7])})


VISITS_SCHEMA = Schema.from_dict({"ward": {"type": "categorical", "values": ["A", "B", "C"]},
                                  "urgent": {"type": "boolean"}})


def test_a_person_level_release_states_its_unit_and_releases_about_the_bounded_rows():
    frame = visits()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize_table(frame, VISITS_SCHEMA, "1-2way", epsilon=2.0, privacy_id="patient",
                                   rows_per_person=2, seed=3)
    bounded = int(np.minimum(frame.groupby("patient").size(), 2).sum())
    assert release.parameters["privacy_id"] == "patient" and release.parameters["rows_per_person"] == 2
    assert "one person" in release.guarantee and "sensitivity 2" in release.guarantee
    header = release._header()["privacy_unit"]
    assert "'patient'" in header and "at most 2 rows" in header
    assert abs(len(release.rows) - bounded) < 0.05 * bounded  # the bounded table's size, not the table's
    assert bounded < 0.8 * len(frame)


def test_the_cli_runs_a_person_level_release_and_refuses_bad_input_writing_nothing(tmp_path, capsys):
    data, schema = tmp_path / "visits.csv", tmp_path / "schema.json"
    visits().to_csv(data, index=False)
    schema.write_text(json.dumps(VISITS_SCHEMA.to_dict()))
    base = ["synth", str(data), "--schema", str(schema), "--workload", "1-2way", "--epsilon", "1", "--seed", "1"]
    out, release = tmp_path / "out.csv", tmp_path / "release.json"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main([*base, "--privacy-id", "patient", "--rows-per-person", "3", "--out", str(out),
                     "--release", str(release)]) == 0
    document = json.loads(release.read_text())
    assert "'patient'" in document["privacy_unit"] and document["parameters"]["rows_per_person"] == 3
    assert out.read_text().splitlines()[0] == "ward,urgent"
    capsys.readouterr()
    assert main(["evaluate", str(data), str(out), "--schema", str(schema), "--workload", "1-2way", "--release",
                 str(release), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert "note: the release protects a person (privacy id 'patient', at most 3 rows each)" in printed
    assert "independent noisy 1-way, per person  average L1" in printed and "like for like" in printed
    report = tmp_path / "report.md"
    assert main(["report", str(release), "--data", str(data), "--out", str(report), "--format", "md", "--quiet"]) == 0
    assert "| independent noisy 1-way, per person |" in report.read_text()
    bad = {"needs rows_per_person": ["--privacy-id", "patient"],
           "give privacy_id": ["--rows-per-person", "3"],
           "has no privacy_id column 'nobody'": ["--privacy-id", "nobody", "--rows-per-person", "3"],
           "is a column of the schema": ["--privacy-id", "ward", "--rows-per-person", "3"],
           "mechanism='mwem' only": ["--privacy-id", "patient", "--rows-per-person", "3", "--mechanism", "independent"],
           "between 1 and": ["--privacy-id", "patient", "--rows-per-person", "0"]}
    for message, flags in bad.items():
        capsys.readouterr()
        target = tmp_path / "never.csv"
        assert main([*base, *flags, "--out", str(target)]) == 2
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
        assert not target.exists()


def test_the_per_person_baseline_bounds_the_persons_at_the_release_noise_and_leaves_the_others_as_they_were(
        monkeypatch):
    """evaluate's baseline for a person-level release: each person's rows bounded to k, then the independent 1-way
    marginals at the release's noise, which the book-unit mechanism gives at 2 epsilon / k (one person moves a 1-way
    marginal's counts by k under add/remove; a record replaced moves them by 2). The other two baselines are the same
    draws with or without it."""
    from dprelease.engines.persons import PersonRows
    from dprelease.evaluate.baselines import INDEPENDENT, PER_PERSON, UNIFORM, baseline_tables
    from dprelease.mechanisms.independent import IndependentMechanism
    domain = Domain(("a", "b"), (2, 3))
    # one person holds 1,000 rows of a = 1; 1,000 persons hold one row of a = 0 each
    records = np.column_stack([np.r_[np.ones(1_000, int), np.zeros(1_000, int)], np.arange(2_000) % 3])
    persons = np.r_[np.zeros(1_000, int), np.arange(1, 1_001)]
    real = Dataset(domain, records, None, 2_000)
    budgets = []
    fit = IndependentMechanism.fit
    monkeypatch.setattr(IndependentMechanism, "fit", lambda self, data, workload, *, budget, **kw: (
        budgets.append(budget.epsilon), fit(self, data, workload, budget=budget, **kw))[1])
    plain = baseline_tables(real, epsilon=40.0, n_rows=5_000, seed=3)
    person = baseline_tables(PersonRows(real, persons, "who"), epsilon=40.0, n_rows=5_000, seed=3, rows_per_person=4)
    assert budgets == [40.0, 40.0, 2 * 40.0 / 4]
    for name in (INDEPENDENT, UNIFORM):
        assert np.array_equal(plain.tables[name].records, person.tables[name].records)
    assert PER_PERSON not in plain.tables and person.rows_per_person == 4
    assert abs(np.mean(plain.tables[INDEPENDENT].records[:, 0]) - 0.5) < 0.03
    kept_share = 4 / 1_004  # the heavy person keeps 4 rows
    assert abs(np.mean(person.tables[PER_PERSON].records[:, 0]) - kept_share) < 0.02
    with pytest.raises(ValueError, match="both"):
        baseline_tables(real, epsilon=1.0, n_rows=10, rows_per_person=2)


def test_a_schema_drafted_per_row_is_refused_for_a_person_level_run():
    frame = visits(persons=400)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from dprelease.schema.draft import draft_schema
        per_row = draft_schema(frame, epsilon=1.0, delta=1e-6, columns=["ward", "urgent"], seed=2)
    with pytest.raises(InputError, match="drafted per row"):
        synthesize_table(frame, per_row, "1-2way", epsilon=1.0, privacy_id="patient", rows_per_person=2, seed=1)



# --------------------------------------------------------------------------------------- the draft, per person
@pytest.mark.parametrize("k", [1, 2, 5, 40])
@pytest.mark.parametrize("epsilon, delta", [(0.1, 1e-9), (1.0, 1e-6), (8.0, 1e-5)])
def test_group_privacy_of_the_per_record_budget_stays_within_the_persons(k, epsilon, delta):
    from decimal import Decimal, getcontext

    from dprelease.privacy.contributions import group_delta_factor, person_charge, record_budget
    epsilon_r, delta_r = record_budget(epsilon=epsilon, delta=delta, rows_per_person=k)
    person_epsilon, person_delta = person_charge(epsilon=Fraction(epsilon_r), delta=Fraction(delta_r),
                                                 rows_per_person=k)
    assert person_epsilon <= Fraction(epsilon) and person_delta <= Fraction(delta)
    assert person_epsilon > Fraction(epsilon) * (1 - Fraction(1, 10**12))  # nothing left unspent but rounding
    # the factor bounds sum_{i<k} e^(i eps) from above, checked at 40 digits
    getcontext().prec = 40
    exact_sum = sum((Decimal(i) * Decimal(epsilon_r)).exp() for i in range(k))
    factor = group_delta_factor(epsilon=Fraction(epsilon_r), rows_per_person=k)
    assert Decimal(factor.numerator) / Decimal(factor.denominator) >= exact_sum
    assert factor < Fraction(exact_sum) * (1 + Fraction(1, 10**9))


def test_a_per_person_draft_charges_each_step_by_group_privacy_within_its_budget():
    from dprelease.privacy.contributions import person_charge
    from dprelease.schema.draft import draft_schema
    frame = visits(persons=1_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = draft_schema(frame, epsilon=1.0, delta=1e-6, privacy_id="patient", rows_per_person=3, seed=4)
    assert "patient" not in schema.names and schema.draft.privacy_id == "patient"
    ledger = schema.draft.ledger
    record = ledger["per_record"]["charges"]
    histogram, *converted = ledger["charges"]  # the rows-per-person histogram is charged per person already
    assert histogram["label"].startswith("rows per person")
    assert len(record) == len(converted) > 0
    for per_record, per_person in zip(record, converted):
        expected = person_charge(epsilon=Fraction(per_record["epsilon_exact"]),
                                 delta=Fraction(per_record["delta_exact"]), rows_per_person=3)
        assert (Fraction(per_person["epsilon_exact"]), Fraction(per_person["delta_exact"])) == expected
    spent = schema.draft.spent
    assert spent == (sum(Fraction(c["epsilon_exact"]) for c in ledger["charges"]),
                     sum(Fraction(c["delta_exact"]) for c in ledger["charges"]))
    assert spent[0] <= 1 and spent[1] <= Fraction(1e-6)
    assert Fraction(ledger["per_record"]["budget"]["epsilon"]) <= Fraction(9, 10) / 3
    # the release composes the draft's person-level charges with the run's
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize_table(frame, schema, "1-2way", epsilon=1.0, privacy_id="patient", rows_per_person=3,
                                   seed=5)
        with pytest.raises(InputError, match="drafted per person"):
            synthesize_table(frame, schema, "1-2way", epsilon=1.0, seed=5)
    composed = release.privacy_ledger["composition"]["schema_draft"]
    assert (Fraction(composed["epsilon_exact"]), Fraction(composed["delta_exact"])) == spent


def one_loud_person() -> pd.DataFrame:
    """3,000 persons of one row in wards A/B, and one person with 2,000 rows in ward Z."""
    generator = np.random.default_rng(8)
    return pd.DataFrame({"patient": [f"P{i}" for i in range(3_000)] + ["LOUD"] * 2_000,
                         "ward": list(generator.choice(["A", "B"], 3_000)) + ["Z"] * 2_000})


def loud_ward_drafted(seed: int) -> bool:
    from dprelease.schema.draft import draft_schema
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = draft_schema(one_loud_person(), epsilon=1.0, delta=1e-6, privacy_id="patient", rows_per_person=2,
                              types={"ward": "categorical"}, seed=seed)
    return "Z" in schema.columns[0].values


def test_a_per_person_draft_does_not_see_one_persons_many_rows():
    # bounded to 2 rows, the one person's ward is far under the stability threshold (hundreds of rows)
    assert not any(loud_ward_drafted(seed) for seed in range(5))


def test_the_loud_person_test_catches_a_draft_that_does_not_bound(monkeypatch):
    monkeypatch.setattr("dprelease.schema.draft.bounded_rows",
                        lambda persons, *, rows_per_person, rng: np.arange(len(persons)))
    assert all(loud_ward_drafted(seed) for seed in range(5))


def test_the_synthesizer_takes_a_privacy_id_and_checks_it_before_any_fit():
    from dprelease.synthesizer import Synthesizer
    with pytest.raises(InputError, match="needs rows_per_person"):
        Synthesizer(epsilon=1.0, privacy_id="patient")
    with pytest.raises(InputError, match="give privacy_id"):
        Synthesizer(epsilon=1.0, rows_per_person=2)
    with pytest.raises(InputError, match="privacy_unit='replace'"):
        Synthesizer(epsilon=1.0, privacy_id="patient", rows_per_person=2, privacy_unit="replace")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fitted = Synthesizer(epsilon=1.0, workload="1-2way", privacy_id="patient", rows_per_person=2,
                             seed=1).fit(visits(), schema=VISITS_SCHEMA)
    assert fitted.release.parameters["privacy_id"] == "patient"
    assert list(fitted.sample(10).columns) == ["ward", "urgent"]


# ------------------------------------------------------------------------------------------------- the engines
def engine_release(source, engine: str, seed: int = 7):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return synthesize_table(source, VISITS_SCHEMA, "1-2way", epsilon=1.0, privacy_id="patient",
                                rows_per_person=3, seed=seed, engine=engine)


def same_release(a, b) -> bool:
    return (np.array_equal(a.rows, b.rows) and a.parameters == b.parameters
            and all(np.array_equal(x, y) for x, y in zip(a.answers, b.answers)))


def test_memory_and_duckdb_keep_the_same_rows_whatever_order_or_files_the_table_comes_in(tmp_path):
    frame = visits(persons=800)
    frame.to_csv(tmp_path / "visits.csv", index=False)
    reference = engine_release(tmp_path / "visits.csv", "memory")
    assert same_release(reference, engine_release(tmp_path / "visits.csv", "duckdb"))
    assert same_release(reference, engine_release(frame, "memory"))  # a DataFrame, read in memory
    # the rows in another order, and split over part files: the bound keeps the same rows (a canonical order)
    shuffled = frame.sample(frac=1.0, random_state=3)
    parts = tmp_path / "parts"
    parts.mkdir()
    shuffled.iloc[:1000].to_csv(parts / "part-0.csv", index=False)
    shuffled.iloc[1000:].to_csv(parts / "part-1.csv", index=False)
    assert same_release(reference, engine_release(parts, "duckdb"))
    assert not same_release(reference, engine_release(parts, "duckdb", seed=8))  # the seed does choose


def test_duckdb_reads_a_parquet_privacy_id_by_value_as_memory_does(tmp_path):
    pytest.importorskip("duckdb")
    frame = visits(persons=500)
    frame["patient"] = frame["patient"].str[1:].astype(int)  # typed ids
    import duckdb
    path = tmp_path / "visits.parquet"
    connection = duckdb.connect()
    connection.register("frame", frame)
    connection.execute(f"COPY frame TO '{path}' (FORMAT PARQUET)")
    connection.close()
    assert same_release(engine_release(path, "memory"), engine_release(path, "duckdb"))


@pytest.mark.parametrize("n, spec, epsilon", [(2_000, "3way", 10.0), (2_000, "2way", 1.0), (20_000, "3way", 1.0)])
def test_the_stage_charges_delta_exactly_when_the_person_level_run_measures_with_gaussian_noise(n, spec, epsilon):
    # the stage's delta is decided on the plan the run executes (n_estimate / k), not on n_estimate's: on these
    # shapes the two plans pick different noise (a stage charged delta = 0 around a Gaussian run under-reported it)
    data = chain_table(stay=0.5, n=n)
    workload = Workload.from_spec(spec, data.domain)
    mechanism = MWEMMechanism(privacy_unit="add-remove", rows_per_person=8)
    result = mechanism.runner(data.domain, Budget(epsilon=epsilon, delta=1e-9)).run(data, workload,
                                                                                     rng=SeededRandom(2))
    _, stage_charge = result.accountant.ledger
    (stage,) = result.accountant.stages.values()
    gaussian = result.counted.parameters["noise"] == "gaussian" or "gate" in result.counted.parameters
    assert (stage_charge.delta == Fraction(1e-9)) == gaussian and (stage_charge.delta == 0) == (not gaussian)
    assert result.parameters["delta"] == float(stage_charge.delta)


# ------------------------------------------------------------------------- the draft's rows-per-person histogram
def test_one_person_more_moves_the_rows_histogram_by_one_entry_in_one_bucket():
    from dprelease.privacy.contributions import ROWS_BUCKET_EDGES, person_buckets
    generator = np.random.default_rng(4)
    persons = np.repeat(np.arange(500), generator.integers(1, 40, 500))
    for extra_rows in (1, 3, 17, 2_000):
        grown = np.concatenate([persons, np.full(extra_rows, 10_000)])
        before = np.bincount(person_buckets(persons), minlength=len(ROWS_BUCKET_EDGES))
        after = np.bincount(person_buckets(grown), minlength=len(ROWS_BUCKET_EDGES))
        assert np.abs(after - before).sum() == 1  # L1 sensitivity 1 per person added (2 calibrated)


def test_the_rows_kept_estimate_is_unbiased_and_its_stated_noise_is_the_noise():
    """The estimate of the rows a bound keeps adds the noisy counts as they are: over many draws of the histogram's
    noise its mean is the noiseless estimate and its spread the standard deviation it states (2,000 draws: the mean
    within 4 standard errors, the spread within 8 %)."""
    from dprelease.privacy.column_reader import PrivateColumnReader
    from dprelease.privacy.contributions import person_buckets, rows_kept_estimate, rows_per_person_histogram
    generator = np.random.default_rng(5)
    persons = np.repeat(np.arange(3_000), generator.zipf(1.8, 3_000).clip(max=5_000))
    epsilon = Fraction(1, 20)
    exact_counts = np.bincount(person_buckets(persons), minlength=12)
    rng = SeededRandom(11)
    for k in (1, 4, 32):
        noiseless, _ = rows_kept_estimate(exact_counts, k, epsilon=float(epsilon))
        draws = []
        for _ in range(2_000):
            reader = PrivateColumnReader(accountant=PrivacyAccountant(epsilon=epsilon), rng=rng)
            noisy = rows_per_person_histogram(persons, reader=reader, epsilon=epsilon)
            draws.append(float(np.dot(noisy, np.minimum(np.sqrt(np.asarray(ROWS_LOWS) * ROWS_HIGHS), k))))
        _, stated_sd = rows_kept_estimate(noisy, k, epsilon=float(epsilon))
        assert abs(np.mean(draws) - noiseless) < 4 * stated_sd / np.sqrt(len(draws)), k
        assert abs(np.std(draws) / stated_sd - 1) < 0.08, k
    # k = 1 counts the persons; at a bucket's upper edge persons in the buckets above count k rows each, exactly
    assert rows_kept_estimate(exact_counts, 1, epsilon=1.0)[0] == 3_000
    assert rows_kept_estimate(exact_counts, 2, epsilon=1.0)[0] == np.minimum(np.bincount(persons), 2).sum()


ROWS_LOWS = (1, 2, 3, 5, 9, 17, 33, 65, 129, 257, 513, 1025)
ROWS_HIGHS = np.append(np.asarray(ROWS_LOWS[1:]) - 1, ROWS_LOWS[-1])


def test_a_draft_on_heavy_users_does_not_call_the_few_persons_it_sees_the_whole_table():
    """A new user's orders table: 20,000 orders, 667 customers, half the orders from three of them. The histogram
    sees only the 404 one-order customers above its noise; the note once read that as "a bound of 1 keeps 100 % of
    the rows" (it keeps 3 %). Now it estimates the rows kept, not their share, and says why."""
    from dprelease.schema.draft import draft_schema
    generator = np.random.default_rng(7)
    customers = generator.zipf(1.6, 20_000) % 6_000
    frame = pd.DataFrame({"customer": customers, "device": generator.choice(["mobile", "desktop"], 20_000)})
    rows = np.unique(customers, return_counts=True)[1]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        draft_schema(frame, epsilon=0.5, delta=1e-9, privacy_id="customer", rows_per_person=4, seed=1)
    note = next(str(w.message) for w in caught if "persons with at most so many rows" in str(w.message))
    assert "share of the table is not estimated privately" in note and "100%" not in note
    for k in (1, 2, 4, 8, 16, 32):
        estimate, sd = rows_kept_in(note, k)
        assert abs(estimate - np.minimum(rows, k).sum()) < 4 * sd, (k, note)
        assert estimate < 0.5 * len(frame)


def test_nondecreasing_pools_adjacent_violators_by_weight():
    from dprelease.schema.draft import nondecreasing
    assert nondecreasing([1, 3, 2], [1, 1, 1]) == [1, 2.5, 2.5]
    assert nondecreasing([1, 3, 0], [1, 3, 1]) == [1, 2.25, 2.25]
    assert nondecreasing([5, 4, 3, 2], [1, 1, 1, 1]) == [3.5] * 4
    assert nondecreasing([1, 2, 3], [1, 9, 1]) == [1, 2, 3]


def rows_kept_in(note: str, k: int) -> tuple[float, float]:
    """The note's estimate of the rows a bound of k keeps, and its standard deviation."""
    found = re.search(rf"[ ,]{k:,}: ([\d,]+) \(± ([\d,]+)\)", note.split("rows a bound keeps")[1])
    return float(found[1].replace(",", "")), float(found[2].replace(",", ""))


def test_a_per_person_draft_spends_a_tenth_on_the_rows_histogram_and_says_what_a_bound_keeps():
    from dprelease.schema.draft import ROWS_HISTOGRAM_SHARE, draft_schema
    frame = visits(persons=4_000, seed=2)
    rows = frame.groupby("patient").size().to_numpy()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        schema = draft_schema(frame, epsilon=2.0, delta=1e-6, privacy_id="patient", rows_per_person=3, seed=6)
    first = schema.draft.ledger["charges"][0]
    assert first["label"].startswith("rows per person") and Fraction(first["epsilon_exact"]) == 2 * ROWS_HISTOGRAM_SHARE
    assert Fraction(first["delta_exact"]) == 0  # per person already: not converted
    per_record = schema.draft.ledger["per_record"]["budget"]["epsilon"]
    assert per_record <= float((2 - 2 * ROWS_HISTOGRAM_SHARE) / 3) and per_record > 0.5999
    assert schema.draft.spent[0] <= 2
    histogram = schema.draft.ledger["person"]["rows_histogram"]
    assert len(histogram["noisy_persons"]) == len(histogram["bucket_lows"]) == 12
    note = next(str(w.message) for w in caught if "persons with at most so many rows" in str(w.message))
    for k in (1, 2, 3, 4, 8):
        estimate, sd = rows_kept_in(note, k)
        assert abs(estimate - np.minimum(rows, k).sum()) < 4 * sd, (k, note)  # within 4 of its standard deviations
        assert sd < 0.1 * np.minimum(rows, k).sum()  # and informative: 4,000 patients at eps 0.2 for the histogram
        # the noise's table at that bound: rows kept / k, as printed (rounded)
        table = re.search(rf"[ ,]{k:,}: ([\d,]+)[,(]", note.split("table of about rows kept / k rows:")[1])
        assert abs(float(table[1].replace(",", "")) - estimate / k) <= 1, (k, note)
