"""Columns declared in order (``"ordered"`` in a schema): a discharge never before its admission in a synthetic row.

The declaration is public and post-processing only: the run's ledger and answers are those of the same run without
it; the rows whose bins cannot hold the order are drawn again from the model; inside their bins the values are the
independent draws conditioned on the order (checked against that distribution)."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from dprelease.api import synthesize_table
from dprelease.errors import InputError
from dprelease.privacy.rng import SeededRandom
from dprelease.representations.histogram import HistogramModel
from dprelease.schema import Schema, decode
from dprelease.schema.orders import ordered_codes, ordered_pairs, ordered_targets, unorderable_rows

SCHEMA = "dprelease-schema/1"


def schema_of(columns: dict, ordered=None) -> Schema:
    raw = {"format": SCHEMA, "columns": columns}
    if ordered is not None:
        raw["ordered"] = ordered
    return Schema.from_dict(raw)


TWO_INTS = {"a": {"type": "integer", "bounds": [0, 29], "width": 10, "null": True},
            "b": {"type": "integer", "bounds": [0, 29], "width": 10, "null": True}}


# ------------------------------------------------------------------------------------------------ the declaration
@pytest.mark.parametrize("ordered, message", [
    ("a", "must be a list of column lists"),
    ([["a"]], "two or more columns"),
    ([["a", "zz"]], "'zz' is not a column"),
    ([["a", "a"]], "names a column twice"),
    ([["a", "c"]], "column 'c' is categorical"),
    ([["a", "d"]], "mixes dates and numbers"),
    ([["a", "b"], ["b", "a"]], "a cycle"),
])
def test_a_bad_declaration_is_refused_naming_what_is_wrong(ordered, message):
    columns = {**TWO_INTS, "c": {"type": "categorical", "values": ["x"]},
               "d": {"type": "date", "bounds": ["2020-01-01", "2020-12-31"], "unit": "month"}}
    with pytest.raises(InputError, match=message):
        schema_of(columns, ordered)


def test_the_declaration_round_trips_and_a_selection_keeps_its_chains_transitively():
    columns = {name: {"type": "date", "bounds": ["2020-01-01", "2020-12-31"], "unit": "month"}
               for name in ("ordered", "shipped", "delivered")}
    schema = schema_of(columns, [["ordered", "shipped", "delivered"]])
    assert Schema.loads(schema.dumps()) == schema
    assert schema.to_dict()["ordered"] == [["ordered", "shipped", "delivered"]]
    assert ordered_pairs(schema) == [(0, 1), (0, 2), (1, 2)]
    assert schema.select(["delivered", "ordered"]).ordered == (("ordered", "delivered"),)
    assert schema.select(["shipped"]).ordered == ()
    assert schema_of(columns).ordered == () and "ordered" not in schema_of(columns).to_dict()


# ------------------------------------------------------------------------------------------------ decoding
def test_values_in_one_bin_are_the_independent_draws_conditioned_on_the_order():
    """Two integers in the same bin 0..9: the pair is uniform over the 55 pairs x <= y. Chi-square against that, at
    a false-alarm rate of 0.1 % (the seed fixes the draw); the independent draws (no declaration) are out of order
    in 45 % of rows and fail the same test."""
    codes = np.zeros((22_000, 2), dtype=np.int64)
    ordered = decode(codes, schema_of(TWO_INTS, [["a", "b"]]), rng=SeededRandom(3))
    plain = decode(codes, schema_of(TWO_INTS), rng=SeededRandom(3))

    def p_value(decoded) -> float:
        x, y = decoded.values["a"], decoded.values["b"]
        counts = np.zeros((10, 10))
        np.add.at(counts, (x, y), 1)
        cells = counts[np.triu_indices(10)]
        if counts[np.tril_indices(10, -1)].sum():
            return 0.0  # rows out of order: not this distribution at all
        return stats.chisquare(cells).pvalue

    assert np.all(ordered.values["a"] <= ordered.values["b"])
    assert p_value(ordered) > 1e-3
    assert np.mean(plain.values["a"] > plain.values["b"]) == pytest.approx(0.45, abs=0.02)
    assert p_value(plain) == 0.0


def test_overlapping_bins_dates_times_of_day_and_nulls():
    columns = {"admitted": {"type": "datetime", "bounds": ["2024-01-01T00:00:00", "2024-12-31T23:59:59"],
                            "unit": "month", "time_of_day": [1] * 24},
               "discharged": {"type": "datetime", "bounds": ["2024-01-01T00:00:00", "2024-12-31T23:59:59"],
                              "unit": "month", "null": True},
               "amount": {"type": "numeric", "bounds": [0, 100], "width": 25},
               "limit": {"type": "integer", "bounds": [0, 100], "width": 10}}
    schema = schema_of(columns, [["admitted", "discharged"], ["amount", "limit"]])
    rng = np.random.default_rng(0)
    n = 6_000
    admitted = rng.integers(0, 12, n)
    discharged = np.minimum(admitted + rng.integers(0, 2, n), 11)
    discharged[:500] = 12  # NULL: no order to keep
    amount = rng.integers(0, 4, n)
    limit = np.minimum(amount * 25 // 10 + rng.integers(0, 4, n), 9)  # a limit bin meeting the amount's
    codes = np.stack([admitted, discharged, amount, limit], axis=1)
    assert not unorderable_rows(codes, schema).any()
    decoded = decode(codes, schema, rng=SeededRandom(1))
    present = ~decoded.null["discharged"]
    assert np.all(decoded.values["admitted"][present] <= decoded.values["discharged"][present])
    assert np.all(decoded.values["amount"] <= decoded.values["limit"])
    assert not present[:500].any()
    # every value still lies in its own bin: encoding it back gives the codes
    frame = decoded.to_dataframe()
    from dprelease.schema import encode
    assert np.array_equal(encode(frame, schema), codes)


def test_bins_that_barely_meet_get_the_order_they_allow():
    """a in one bin of 0..999, b in a bin holding 0 alone: a row's draw is in order 1 time in 1,000, so most rows
    reach the last resort, the smallest ordered values (a = 0)."""
    columns = {"a": {"type": "integer", "bounds": [0, 999], "width": 1000},
               "b": {"type": "integer", "edges": [0, 1, 1000]}}
    schema = schema_of(columns, [["a", "b"]])
    codes = np.zeros((300, 2), dtype=np.int64)
    decoded = decode(codes, schema, rng=SeededRandom(0))
    assert np.all(decoded.values["a"] == 0) and np.all(decoded.values["b"] == 0)


def test_rows_whose_bins_cannot_hold_the_order_are_drawn_again_from_the_model():
    schema = schema_of(TWO_INTS, [["a", "b"]])
    probabilities = np.full((4, 4), 1.0)  # codes 0-2: bins 0-9, 10-19, 20-29; 3: NULL
    model = HistogramModel.from_log_weights(schema.domain, np.log(probabilities / probabilities.sum()))
    rows = model.sample(4_000, SeededRandom(0))
    bad = unorderable_rows(rows, schema)
    assert bad.mean() == pytest.approx(3 / 16, abs=0.03)  # (1, 0), (2, 0), (2, 1)
    kept, replaced = ordered_codes(rows, model, SeededRandom(1), schema)
    assert np.array_equal(replaced, bad)
    assert not unorderable_rows(kept, schema).any()
    assert np.array_equal(kept[~bad], rows[~bad])  # the others untouched
    # without a model the rows stay
    same, replaced = ordered_codes(rows, None, SeededRandom(1), schema)
    assert np.array_equal(same, rows) and not replaced.any()
    # decode keeps such a row's independent draws (it cannot order it)
    decoded = decode(np.array([[2, 0]]), schema, rng=SeededRandom(0))
    assert decoded.values["a"][0] > decoded.values["b"][0]


def test_answers_conditioned_on_the_order_lose_the_cells_it_rules_out_and_keep_their_total():
    columns = {"x": {"type": "integer", "bounds": [0, 29], "width": 10},
               "c": {"type": "categorical", "values": ["u", "v"]},
               "y": {"type": "integer", "bounds": [0, 29], "width": 10, "null": True}}
    schema = schema_of(columns, [["y", "x"]])  # y <= x: declared against the columns' order
    answer = np.arange(1, 25, dtype=float).reshape(3, 2, 4) / 300  # (x, c, y)
    ((_, kept), (_, alone)) = ordered_targets([(("x", "c", "y"), answer), (("c",), np.array([0.5, 0.5]))], schema)
    assert kept.sum() == pytest.approx(answer.sum())
    ruled_out = np.zeros((3, 4), dtype=bool)  # y's bin above x's: (x 0, y 1), (x 0, y 2), (x 1, y 2); NULL y kept
    ruled_out[0, 1] = ruled_out[0, 2] = ruled_out[1, 2] = True
    assert np.all(kept[ruled_out[:, None, :].repeat(2, axis=1)] == 0)
    assert np.all(kept[~ruled_out[:, None, :].repeat(2, axis=1)] > 0)
    assert np.array_equal(alone, [0.5, 0.5])


def test_the_row_fit_moves_only_where_the_order_allows():
    """fit_rows with the order's ``allowed`` mask: no move puts a row out of order, and its loss still falls."""
    from dprelease.rows.fitting import fit_rows, workload_loss
    from dprelease.schema.orders import order_keeping_moves

    schema = schema_of(TWO_INTS, [["a", "b"]])
    rng = np.random.default_rng(4)
    rows = np.sort(rng.integers(0, 3, (3_000, 2)), axis=1)  # in order
    targets = [(("a",), np.array([0.1, 0.2, 0.6, 0.1])), (("b",), np.array([0.6, 0.2, 0.1, 0.1]))]  # a late, b early
    free = fit_rows(rows, schema.domain, targets, SeededRandom(0), passes=3)
    kept = fit_rows(rows, schema.domain, targets, SeededRandom(0), passes=3, allowed=order_keeping_moves(schema))
    assert unorderable_rows(free, schema).any()  # what the targets pull toward
    assert not unorderable_rows(kept, schema).any()
    loss = lambda r: workload_loss(r, schema.domain, targets)  # noqa: E731
    assert loss(kept) < loss(rows)


# ------------------------------------------------------------------------------------------------ a release
def admissions(n: int = 3_000, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    admitted = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 360 * 24 * 60, n), unit="min")
    stay = pd.to_timedelta(rng.integers(1, 8, n), unit="D") + pd.to_timedelta(rng.integers(0, 600, n), unit="min")
    return pd.DataFrame({"ward": rng.choice(["A", "B", "C"], n), "admitted": admitted, "discharged": admitted + stay})


ADMISSIONS = {"ward": {"type": "categorical", "values": ["A", "B", "C"]},
              "admitted": {"type": "datetime", "bounds": ["2024-01-01T00:00:00", "2024-12-31T23:59:59"],
                           "unit": "month"},
              "discharged": {"type": "datetime", "bounds": ["2024-01-01T00:00:00", "2024-12-31T23:59:59"],
                             "unit": "month", "clip": True}}


def test_a_release_keeps_the_order_and_spends_what_the_same_run_without_it_spends():
    frame = admissions()
    declared = {"format": SCHEMA, "columns": ADMISSIONS, "ordered": [["admitted", "discharged"]]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = synthesize_table(frame, {"format": SCHEMA, "columns": ADMISSIONS}, "1-2way", epsilon=0.3, seed=5)
        release = synthesize_table(frame, declared, "1-2way", epsilon=0.3, seed=5)
    assert release.privacy_ledger == plain.privacy_ledger and release.guarantee == plain.guarantee
    assert all(np.array_equal(a, b) for a, b in zip(release.answers, plain.answers))
    schema = Schema.from_dict(declared)
    assert unorderable_rows(plain.rows, schema).any()  # the noise gave rows a discharge month before admission
    assert not unorderable_rows(release.rows, schema).any()
    counts = release.extra["ordered"]
    assert counts["chains"] == [["admitted", "discharged"]] and counts["rows_left_unordered"] == 0
    # the plain run's rows out of order, drawn again; the fit to the conditioned answers moves none out of it
    assert release.rows_method == "fitted" and counts["rows_redrawn"] == unorderable_rows(plain.rows, schema).sum()
    # and it brings the ordered columns' 1-way marginals back toward the answers, which the conditioned draws lean
    # away from (an admission early, a discharge late)
    redrawn, _ = ordered_codes(plain.rows, plain.model, SeededRandom(9), schema)

    def one_way_gap(rows: np.ndarray) -> float:
        gap = 0.0
        for k, name in ((1, "admitted"), (2, "discharged")):
            answer = release.marginal_array([name])
            gap += np.abs(np.bincount(rows[:, k], minlength=answer.size) / len(rows) - answer).sum()
        return gap

    assert one_way_gap(release.rows) < 0.7 * one_way_gap(redrawn)  # 0.092 against 0.186 (the plain rows: 0.004)
    from dprelease.report.public import rows_line
    assert rows_line(release) == (f"{len(release.rows):,} (fitted; in the schema's declared order admitted <= "
                                  f"discharged ({counts['rows_redrawn']:,} drawn again from the model))")
    values = decode(release.rows, schema, rng=SeededRandom(0)).values
    assert np.all(values["admitted"] <= values["discharged"])
    plain_values = decode(plain.rows, Schema.from_dict({"format": SCHEMA, "columns": ADMISSIONS}),
                          rng=SeededRandom(0)).values
    assert np.mean(plain_values["admitted"] > plain_values["discharged"]) > 0.3  # what the declaration mends


def test_the_synthesizer_and_the_cli_write_rows_in_order(tmp_path):
    from dprelease.cli import main
    from dprelease.synthesizer import Synthesizer

    frame = admissions(2_000, seed=1)
    declared = {"format": SCHEMA, "columns": ADMISSIONS, "ordered": [["admitted", "discharged"]]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthetic = Synthesizer("mwem", epsilon=1.0, workload="1-2way", seed=2).fit_sample(frame, schema=declared,
                                                                                            n=5_000)
    assert (synthetic["admitted"] <= synthetic["discharged"]).all()
    frame.to_csv(tmp_path / "stays.csv", index=False)
    (tmp_path / "schema.json").write_text(json.dumps(declared))
    out = tmp_path / "synthetic.csv"
    assert main(["synth", str(tmp_path / "stays.csv"), "--schema", str(tmp_path / "schema.json"), "--epsilon", "1",
                 "--seed", "3", "--out", str(out), "--quiet"]) == 0
    written = pd.read_csv(out, parse_dates=["admitted", "discharged"])
    assert (written["admitted"] <= written["discharged"]).all()


def test_evaluate_reports_the_real_and_synthetic_rows_out_of_the_declared_order():
    """The curator's check (NOT PRIVATE): a declaration the real table keeps shows 0 % real rows out of order; rows
    synthesized without it, read with it, show about half out of order; with it, none."""
    from dprelease.evaluate import compare
    from dprelease.synthesizer import Synthesizer

    frame = admissions(2_000, seed=2)
    declared = {"format": SCHEMA, "columns": ADMISSIONS, "ordered": [["admitted", "discharged"]]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kept = Synthesizer("mwem", epsilon=1.0, workload="1-2way", seed=4).fit_sample(frame, schema=declared)
        plain = Synthesizer("mwem", epsilon=1.0, workload="1-2way", seed=4).fit_sample(
            frame, schema={"format": SCHEMA, "columns": ADMISSIONS})
        results = [compare(frame, synthetic, schema=declared, workload="1-2way") for synthetic in (kept, plain)]
    (first,), (second,) = (r.orders for r in results)
    assert (first.first, first.second, first.real, first.synthetic) == ("admitted", "discharged", 0.0, 0.0)
    assert second.real == 0.0 and second.synthetic > 0.3
    assert results[1].to_dict()["orders"][0]["synthetic_out_of_order"] == second.synthetic
    assert "admitted <= discharged: real 0.0%, synthetic 0.0%" in results[0].to_text()


def test_a_draft_of_two_date_columns_says_how_to_declare_their_order():
    from dprelease.schema.draft import draft_schema

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        draft_schema(admissions(4_000), epsilon=1.0, delta=1e-9, seed=0)
    notes = [str(w.message) for w in caught if "ordered" in str(w.message)]
    assert len(notes) == 1 and '"ordered": [["admitted", "discharged"]]' in notes[0]
    assert '"between": ["admitted", "discharged"]' in notes[0]  # and the time between them as a column
