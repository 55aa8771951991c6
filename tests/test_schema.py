"""The public schema: building, JSON, labels and rules; encoding of CSV, DataFrames and Parquet; decoding;
the round trip encode(decode(codes)) == codes for every column kind (issue 13)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dprelease import Dataset, Domain
from dprelease.datasets import adult_paths
from dprelease.schema import OTHER, Schema, decode, encode
from dprelease.errors import InputError
from dprelease.privacy.rng import SeededRandom
from dprelease.schema.binned import NumericColumn

MIXED = {
    "age": {"type": "integer", "bounds": [17, 90], "width": 5, "other": True},
    "job": {"type": "categorical", "values": ["a", "b", 3], "null": True, "other": True},
    "code": 3,
    "income": {"type": "numeric", "bounds": [0, 100], "bins": 4, "null": True},
    "income2": {"type": "numeric", "edges": [-1.5, 0, 0.1, 1e6], "clip": True},
    "day": {"type": "date", "bounds": ["2020-01-15", "2020-12-31"], "unit": "month", "null": True},
    "when": {"type": "datetime", "bounds": ["2020-01-01T00:00:00", "2020-01-02T00:00:00"], "unit": "hour", "width": 6},
    "flag": {"type": "boolean", "null": True, "other": True},
    "n": {"type": "integer", "edges": [0, 10, 20], "null": True},
}


def random_codes(schema: Schema, n: int, seed: int) -> np.ndarray:
    rng = np.random.Generator(np.random.PCG64(seed))
    return np.stack([rng.integers(0, k, n) for k in schema.domain.sizes], axis=1)


# ----------------------------------------------------------------- the schema
def test_every_domain_file_is_a_schema():
    _, domain_path = adult_paths()
    schema = Schema.from_json(domain_path)
    assert schema.domain == Domain.from_json(domain_path)
    assert "\"format\"" in schema.dumps() and Schema.loads(schema.dumps()) == schema


def test_json_round_trip_and_domain_sizes_include_buckets(tmp_path):
    schema = Schema.from_dict(MIXED)
    path = tmp_path / "s.json"
    schema.to_json(path)
    assert Schema.from_json(path) == schema
    assert schema.domain.to_dict() == {"age": 16, "job": 5, "code": 3, "income": 5, "income2": 3, "day": 13,
                                       "when": 4, "flag": 4, "n": 3}


def test_a_schema_file_writes_its_text_as_written(tmp_path):
    """A drafted schema is read by a person: "Zürich" and the euro sign are written as such (UTF-8), not as
    \\u escapes, and read back to the same schema."""
    schema = Schema.from_dict({"format": "dprelease-schema/1", "description": "Preise in €",
                               "columns": {"ort": {"type": "categorical", "values": ["Zürich", "Genève"]},
                                           "préis": {"type": "numeric", "edges": [0, 10, 100], "symbols": ["€"]}}})
    path = tmp_path / "s.json"
    schema.to_json(path)
    text = path.read_text(encoding="utf-8")
    assert '"Zürich"' in text and '"€"' in text and '"préis"' in text and "in €" in text and "\\u" not in text
    assert Schema.from_json(path) == schema


def test_labels_for_every_code():
    schema = Schema.from_dict(MIXED)
    assert schema.labels("age")[:2] == ("17..21", "22..26") and schema.labels("age")[-2:] == ("87..90", OTHER)
    assert schema.labels("job") == ("a", "b", "3", "NULL", OTHER)
    assert schema.labels("income") == ("[0, 25)", "[25, 50)", "[50, 75)", "[75, 100]", "NULL")
    assert schema.labels("day")[:2] == ("2020-01-15..2020-01-31", "2020-02-01..2020-02-29")
    assert schema.labels("when")[-1] == "[2020-01-01T18:00:00, 2020-01-02T00:00:00]"  # a lone instant joins it
    assert schema.labels("n") == ("0..9", "10..20", "NULL")
    assert all(len(schema.labels(c)) == s for c, s in schema.domain.to_dict().items())


def test_encoding_rules_are_data():
    rules = {r["name"]: r for r in Schema.from_dict(MIXED).encoding_rules()}
    assert rules["income"]["thresholds"] == [25.0, 50.0, 75.0] and rules["income"]["null_code"] == 4
    assert rules["job"]["categories"] == ["a", "b", "3"] and rules["job"]["other_code"] == 4
    assert rules["n"] == {**rules["n"], "low": 0, "high": 20, "thresholds": [10], "unit": "integer"}
    assert json.loads(json.dumps(rules["day"]))["thresholds"][0] == 18293  # 2020-02-01 in days since 1970


def test_binning_rule_last_bin_is_closed_and_clip_goes_to_the_end_bins():
    schema = Schema.from_dict({"x": {"type": "numeric", "bounds": [0, 10], "bins": 2, "clip": True},
                               "k": {"type": "integer", "bounds": [0, 9], "width": 5, "other": True}})
    frame = pd.DataFrame({"x": [0.0, 4.999, 5.0, 10.0, -3.0, 11.0], "k": [0, 4, 5, 9, 10, -1]})
    codes = encode(frame, schema)
    assert codes[:, 0].tolist() == [0, 0, 1, 1, 0, 1]
    assert codes[:, 1].tolist() == [0, 0, 1, 1, 2, 2]


def test_a_numeric_column_of_one_value_clips_to_it_and_decodes_as_it():
    """Bounds [v, v] with one bin (what the draft writes for an amount that is 0 on most rows, session 62): every value
    clips to v, or goes to other, and decodes as v itself, where the cell [0, 0.001] decoded as 0.00088. Two bins
    over one value, or a repeated edge among others, are still refused."""
    for spelled in ({"edges": [0, 0]}, {"bounds": [0, 0], "bins": 1}):
        schema = Schema.from_dict({"fee": {"type": "numeric", **spelled, "clip": True},
                                   "late": {"type": "numeric", **spelled, "other": True}})
        assert Schema.loads(schema.dumps()) == schema and schema.column("fee").bounds == (0.0, 0.0)
        frame = pd.DataFrame({"fee": [0.0, 25.13, -1.0], "late": [0.0, 3.5, 0.0]})
        codes = encode(frame, schema)
        assert codes[:, 0].tolist() == [0, 0, 0] and codes[:, 1].tolist() == [0, 1, 0]  # 1: other
        assert decode(codes, schema, rng=SeededRandom(0)).text_columns()[0].tolist() == ["0", "0", "0"]
    with pytest.raises(InputError, match="edges must increase strictly"):
        Schema.from_dict({"fee": {"type": "numeric", "edges": [0, 0, 1]}})


def test_a_datetime_with_times_of_day_draws_its_hours_by_their_weights():
    """``time_of_day`` (24 public weights): values decoded in bins of whole days fall on a day of their bin at an hour
    drawn by the weights, so they re-encode to their codes; bins of an hour keep their even draws, midpoint decoding
    its midpoints, and the file round-trips."""
    weights = [0] * 7 + [1, 2, 4, 2, 1] + [0] * 12
    schema = Schema.from_dict({"at": {"type": "datetime", "bounds": ["2024-01-01T00:00:00", "2024-12-31T23:59:59"],
                                      "unit": "month", "time_of_day": weights},
                               "hour": {"type": "datetime", "bounds": ["2024-01-01T00:00:00", "2024-01-01T23:59:59"],
                                        "unit": "hour", "time_of_day": weights}})
    assert Schema.loads(schema.dumps()) == schema and schema.to_dict()["columns"]["at"]["time_of_day"] == weights
    codes = np.column_stack([np.arange(6000) % 12, np.arange(6000) % 24])
    decoded = decode(codes, schema, rng=np.random.Generator(np.random.PCG64(2)))
    seconds = decoded.values["at"].astype("datetime64[s]").astype(np.int64)
    shares = np.bincount((seconds % 86400) // 3600, minlength=24) / len(seconds)
    assert np.abs(shares - np.array(weights) / sum(weights)).max() < 0.02 and shares[np.array(weights) == 0].sum() == 0
    assert len(np.unique(seconds // 86400)) > 300  # spread over the days of each month
    assert np.array_equal(encode(decoded.to_dataframe(), schema), codes)
    hours = decoded.values["hour"].astype("datetime64[s]").astype(np.int64)
    assert np.array_equal((hours % 86400) // 3600, codes[:, 1])  # an hour's bin: its own hour, drawn evenly in it
    middle = decode(codes, schema, values="midpoint").values["at"].astype("datetime64[s]").astype(np.int64)
    unweighted = Schema.from_dict({"at": {**schema.to_dict()["columns"]["at"], "time_of_day": None}})
    assert np.array_equal(middle, decode(codes[:, :1], unweighted, values="midpoint").values["at"]
                          .astype("datetime64[s]").astype(np.int64))


def test_numbers_decoded_with_the_decimals_the_table_writes():
    """``decimals``: each decoded value cut down to that many places inside its bin and written with them (15.30,
    $0.00), so a bin [0, 0.001) that holds the zeros of an amount in cents decodes them as 0.00; a bin too narrow to
    hold such a value keeps the finer grid; the text reads back to its codes, with the decimal comma too."""
    schema = Schema.from_dict({"fee": {"type": "numeric", "edges": [0, 0.001, 10, 10.004, 100], "decimals": 2,
                                       "symbols": ["$"], "prefix": "$"},
                               "eu": {"type": "numeric", "edges": [0, 5, 10], "decimals": 1, "decimal": ","}})
    assert Schema.loads(schema.dumps()) == schema and schema.to_dict()["columns"]["fee"]["decimals"] == 2
    codes = np.column_stack([np.arange(4000) % 4, np.arange(4000) % 2])
    decoded = decode(codes, schema, rng=np.random.Generator(np.random.PCG64(3)))
    fee, eu = decoded.text_columns()
    assert set(fee[codes[:, 0] == 0]) == {"$0.00"}
    assert all(re.fullmatch(r"\$\d+\.\d\d", t) for t in fee[(codes[:, 0] == 1) | (codes[:, 0] == 3)])
    narrow = decoded.values["fee"][codes[:, 0] == 2]  # [10, 10.004): no value in cents but 10.00 (on its edge)
    assert np.all((narrow >= 10) & (narrow < 10.004))
    assert all(re.fullmatch(r"\d+,\d", t) for t in eu)
    assert np.array_equal(encode(pd.DataFrame({"fee": fee, "eu": eu}), schema), codes)


# ------------------------------------------------------------------ round trip
@pytest.mark.parametrize("values", ["uniform", "midpoint"])
def test_round_trip_every_kind_through_frame_csv_and_parquet(tmp_path, values):
    schema = Schema.from_dict(MIXED)
    codes = random_codes(schema, 500, 1)
    decoded = decode(codes, schema, values=values, rng=np.random.Generator(np.random.PCG64(2)))
    assert np.array_equal(encode(decoded.to_dataframe(), schema), codes)
    decoded.to_csv(tmp_path / "d.csv")
    assert np.array_equal(encode(tmp_path / "d.csv", schema), codes)
    decoded.to_parquet(tmp_path / "d.parquet")
    assert np.array_equal(encode(tmp_path / "d.parquet", schema), codes)


@settings(max_examples=40, deadline=None)
@given(edges=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=8, unique=True),
       seed=st.integers(0, 2**32 - 1))
def test_decoded_numbers_lie_in_their_bin(edges, seed):
    edges = sorted(edges)
    column = NumericColumn(name="x", edges=tuple(edges))
    schema = Schema((column,))
    rng = np.random.Generator(np.random.PCG64(seed))
    codes = rng.integers(0, column.size, size=(200, 1))
    values = decode(codes, schema, rng=rng).values["x"]
    low, high = np.array(edges[:-1])[codes[:, 0]], np.array(edges[1:])[codes[:, 0]]
    last = codes[:, 0] == column.size - 1
    assert np.all(values >= low) and np.all((values < high) | (last & (values <= high)))
    assert np.array_equal(encode(pd.DataFrame({"x": values}), schema), codes)


def test_decoded_decimals_keep_two_digits_below_their_bins_width():
    """A value drawn in [5, 10) reads like 6.52, not 6.5268052265018515; a bin 999.75 wide gives whole numbers,
    written as whole numbers (40900, not 40900.0), and they read back to their codes."""
    schema = Schema.from_dict({"minutes": {"type": "numeric", "bounds": [0, 60], "width": 5},
                               "price": {"type": "numeric", "edges": [0, 0.25, 1000]}})
    codes = np.column_stack([np.arange(300) % 12, np.arange(300) % 2])
    decoded = decode(codes, schema, rng=np.random.Generator(np.random.PCG64(4)))
    minutes, price = decoded.text_columns()
    assert max(len(t.partition(".")[2]) for t in minutes) == 2  # width 5: a grid of 0.01
    assert max(len(t.partition(".")[2]) for t, c in zip(price, codes[:, 1]) if c == 0) == 3  # width 0.25: 0.001
    wide = [float(t) for t, c in zip(price, codes[:, 1]) if c == 1]
    assert all(v == round(v) for v in wide) and len(set(wide)) > 100  # width 999.75: a grid of 1
    assert not any("." in t for t, c in zip(price, codes[:, 1]) if c == 1)
    assert np.array_equal(encode(pd.DataFrame({"minutes": minutes, "price": price}), schema), codes)  # the texts
    assert len({round(v, 6) for v in decoded.values["minutes"]}) > 200  # still spread over the bin, not its edge
    assert np.array_equal(encode(decoded.to_dataframe(), schema), codes)
    # a bin 0.001 wide: a grid of 0.00001, written out (0.00009), never in exponent form (9e-05)
    rate = Schema.from_dict({"rate": {"type": "numeric", "edges": [0, 0.001]}})
    tiny = decode(np.zeros((300, 1), dtype=np.int64), rate,
                  rng=np.random.Generator(np.random.PCG64(5))).text_columns()[0]
    assert not any("e" in t for t in tiny) and any(t.startswith("0.0000") for t in tiny)


def test_uniform_draws_at_the_top_of_a_bin_stay_inside():
    # A source that returns the top of the unit interval: a + u (b - a) is then b itself.
    class Top:
        def uniform_open(self, size):
            return np.full(size, 1.0)

    schema = Schema.from_dict({"x": {"type": "numeric", "edges": [0.1, 0.7, 1.3]},
                               "k": {"type": "integer", "bounds": [0, 9], "width": 5}})
    decoded = decode(np.array([[0, 0], [1, 1]]), schema, rng=Top())
    # the top of [0.1, 0.7) on the bin's grid (0.001: two digits below its width), and the closed last bin's top
    assert decoded.values["x"][0] == 0.699 and decoded.values["x"][1] == 1.3
    assert decoded.values["k"].tolist() == [4, 9]
    assert encode(decoded.to_dataframe(), schema).tolist() == [[0, 0], [1, 1]]


@settings(max_examples=25, deadline=None)
@given(low=st.integers(-10**6, 10**6), span=st.integers(0, 10**4), width=st.integers(1, 500),
       seed=st.integers(0, 2**32 - 1))
def test_integer_round_trip(low, span, width, seed):
    schema = Schema.from_dict({"k": {"type": "integer", "bounds": [low, low + span], "width": width, "null": True}})
    codes = random_codes(schema, 100, seed)
    for values in ("uniform", "midpoint"):
        frame = decode(codes, schema, values=values, rng=np.random.Generator(np.random.PCG64(seed))).to_dataframe()
        assert str(frame["k"].dtype) == "Int64"
        assert np.array_equal(encode(frame, schema), codes)


def test_decoded_dtypes_and_other_marker():
    schema = Schema.from_dict(MIXED)
    frame = decode(random_codes(schema, 50, 3), schema, rng=np.random.Generator(np.random.PCG64(0))).to_dataframe()
    assert list(frame.columns) == list(MIXED)
    assert str(frame["job"].dtype) == "category" and OTHER in list(frame["job"].cat.categories)
    assert str(frame["code"].dtype) == "int64" and str(frame["income"].dtype) == "float64"
    assert str(frame["day"].dtype) == "datetime64[s]" and frame["age"].dtype == object  # other: values and marker
    typed = decode(random_codes(schema, 50, 3), schema, rng=np.random.Generator(np.random.PCG64(0)),
                   other=None).to_dataframe()
    assert str(typed["age"].dtype) == "Int64" and str(typed["flag"].dtype) == "boolean"
    labels = decode(random_codes(schema, 5, 3), schema, values="label").to_dataframe()
    assert set(labels["income"].dropna()) <= set(schema.labels("income"))


# --------------------------------------------------------------------- inputs
MESSY = ('name;age;income;joined;member;city\n'
         '"Smith, J";34;52000.50;2021-03-04;yes;"Paris"\n'
         'Doe;;  71000 ;2020-12-31;no;\n'
         '"O\'Neil";90;1e5;2019-01-01;TRUE;Lyon\n'
         'Li;17;0;2022-06-30;;Oslo\n')
MESSY_SCHEMA = {
    "age": {"type": "integer", "bounds": [17, 90], "width": 10, "null": True},
    "income": {"type": "numeric", "bounds": [0, 200000], "width": 25000},
    "joined": {"type": "date", "bounds": ["2019-01-01", "2022-12-31"], "unit": "year"},
    "member": {"type": "boolean", "null": True},
    "city": {"type": "categorical", "values": ["Paris", "Lyon"], "null": True, "other": True},
}


def test_a_messy_csv_goes_through_with_a_schema_and_no_hand_code(tmp_path):
    path = tmp_path / "messy.csv"
    path.write_text(MESSY, encoding="utf-8")
    schema = Schema.from_dict(MESSY_SCHEMA)
    data = Dataset.from_schema(path, schema)  # the Dataset of codes, ready for synthesize
    # age: 8 bins of 10 years (the last 87..90), then NULL (8); city: Paris, Lyon, NULL, other
    assert data.records.tolist() == [[1, 2, 2, 1, 0], [8, 2, 1, 0, 2], [7, 4, 0, 1, 1], [0, 0, 3, 2, 3]]
    frame = decode(data, schema, rng=np.random.Generator(np.random.PCG64(5))).to_dataframe()
    assert frame["age"].isna().tolist() == [False, True, False, False]
    # the schema as the README writes it from Python (the file's JSON as a dict), or the file's path, encodes the same
    (tmp_path / "schema.json").write_text(json.dumps(MESSY_SCHEMA), encoding="utf-8")
    for given in (MESSY_SCHEMA, tmp_path / "schema.json", str(tmp_path / "schema.json")):
        again = Dataset.from_schema(path, given)
        assert again.domain == data.domain and np.array_equal(again.records, data.records)
    assert frame["joined"].dt.year.tolist() == [2021, 2020, 2019, 2022]
    assert frame["city"].tolist()[:2] == ["Paris", None] or pd.isna(frame["city"].tolist()[1])


@pytest.mark.parametrize("delimiter", [",", ";", "\t", "|"])
def test_csv_delimiters_are_sniffed_and_header_is_optional(tmp_path, delimiter):
    schema = Schema.from_dict({"a": {"type": "categorical", "values": ["x", "y, z"]}, "b": 4})
    rows = [["x", "1"], ["y, z", "3"]]
    body = "\n".join(delimiter.join(f'"{v}"' for v in row) for row in rows) + "\n"
    (tmp_path / "h.csv").write_text(f"b{delimiter}a\n" + "\n".join(delimiter.join(f'"{v}"' for v in r[::-1])
                                                               for r in rows) + "\n")
    (tmp_path / "n.csv").write_text(body)
    assert encode(tmp_path / "h.csv", schema).tolist() == [[0, 1], [1, 3]]
    assert encode(tmp_path / "n.csv", schema).tolist() == [[0, 1], [1, 3]]


def test_dataframe_dtypes_category_nullable_string_and_datetime():
    schema = Schema.from_dict({
        "c": {"type": "categorical", "values": ["lo", "hi"], "null": True},
        "i": {"type": "integer", "bounds": [0, 9], "null": True},
        "b": {"type": "boolean", "null": True},
        "s": {"type": "categorical", "values": ["p", "q"], "null": True},
        "t": {"type": "datetime", "bounds": ["2020-01-01", "2020-01-03"], "unit": "day", "null": True},
        "d": {"type": "date", "bounds": ["2020-01-01", "2020-01-03"], "null": True},
        "f": {"type": "numeric", "bounds": [0, 1], "bins": 2, "null": True},
        "k": {"type": "categorical", "values": [1, 2], "other": True},
    })
    frame = pd.DataFrame({
        "c": pd.Categorical(["hi", None, "lo"], categories=["lo", "hi", "unused"]),
        "i": pd.array([3, None, 9], dtype="Int64"),
        "b": pd.array([True, None, False], dtype="boolean"),
        "s": pd.array(["q", None, "p"], dtype="string"),
        "t": pd.to_datetime(["2020-01-02T12:00:00+01:00", None, "2020-01-01T00:00:00+00:00"], utc=True),
        "d": pd.to_datetime(["2020-01-03", None, "2020-01-01T23:00"], format="ISO8601"),
        "f": pd.array([0.5, None, 0.25], dtype="Float64"),
        "k": [2, 1, 7],
    })
    assert encode(frame, schema).tolist() == [
        [1, 3, 1, 1, 1, 2, 1, 1], [2, 10, 2, 2, 2, 3, 2, 0], [0, 9, 0, 0, 0, 0, 0, 2]]


def test_parquet_read_by_duckdb(tmp_path):
    import duckdb

    path = tmp_path / "t.parquet"
    duckdb.connect().execute(f"COPY (SELECT * FROM (VALUES ('a', 1, 2.5), (NULL, 3, NULL)) t(s, k, x)) "
                             f"TO '{path}' (FORMAT parquet)")
    schema = Schema.from_dict({"k": {"type": "integer", "bounds": [0, 3]}, "s": {
        "type": "categorical", "values": ["a"], "null": True}, "x": {"type": "numeric", "bounds": [0, 5], "bins": 2,
                                                                       "null": True}})
    assert encode(path, schema).tolist() == [[1, 0, 1], [3, 1, 2]]


def test_large_table_encodes_vectorised(tmp_path):
    # 50,000 rows of text through the CSV reader: one pass per distinct value, not per row.
    rng = np.random.Generator(np.random.PCG64(9))
    values = rng.integers(0, 1000, 50_000)
    (tmp_path / "big.csv").write_text("v\n" + "\n".join(map(str, values)) + "\n")
    schema = Schema.from_dict({"v": {"type": "integer", "bounds": [0, 999], "width": 100}})
    assert np.array_equal(encode(tmp_path / "big.csv", schema)[:, 0], values // 100)


def test_schema_is_frozen():
    schema = Schema.from_dict({"a": 2})
    with pytest.raises(AttributeError):
        schema.columns = ()  # type: ignore[misc]


def test_the_documented_example_is_a_valid_schema():
    text = (Path(__file__).parents[1] / "docs" / "schema.md").read_text(encoding="utf-8")
    example = text.split("```json\n", 1)[1].split("```", 1)[0]
    schema = Schema.loads(example)
    assert schema.names == ("age", "workclass", "income", "joined", "login", "member", "region")
    assert schema.null_tokens == ("", "NA") and schema.column("login").value_count == 31 * 4


def test_unsigned_integers_compare_without_wrapping():
    schema = Schema.from_dict({"a": {"type": "integer", "bounds": [-5, 5], "other": True}, "b": 3})
    frame = pd.DataFrame({"a": np.array([1, 7, 2**64 - 1], dtype=np.uint64), "b": np.array([0, 2, 1], dtype=np.uint8)})
    assert encode(frame, schema).tolist() == [[6, 0], [11, 2], [11, 1]]


def test_boolean_words_decode_as_declared_and_match_without_case():
    """A Y/N column comes back Y/N (it came back y/n before), its schema file keeps Y/N, and y, Y both encode."""
    schema = Schema.from_dict({"helmet": {"type": "boolean", "true": ["Y", "Yes"], "false": ["N"]}})
    (column,) = schema.columns
    assert column.true == ("y", "yes") and column.written == (("Y", "Yes"), ("N",))
    decoded = decode(np.array([[1], [0], [1]]), schema, rng=np.random.Generator(np.random.PCG64(0)))
    assert decoded.text_columns()[0].tolist() == ["Y", "N", "Y"]
    assert encode(pd.DataFrame({"helmet": ["y", "Y", "yes", "n", "N"]}), schema)[:, 0].tolist() == [1, 1, 1, 0, 0]
    again = Schema.from_dict(schema.to_dict()["columns"])
    assert again.columns[0].written == column.written and again.to_dict() == schema.to_dict()
    assert again.encoding_rules() == schema.encoding_rules()  # what engines translate: lower case, unchanged
    assert schema.to_dict()["columns"]["helmet"]["true"] == ["Y", "Yes"]
    default = Schema.from_dict({"b": {"type": "boolean"}})
    assert decode(np.array([[1], [0]]), default, values="midpoint").text_columns()[0].tolist() == ["true", "false"]


def test_boolean_words_come_back_in_a_dataframe_and_its_own_csv_reads_again(tmp_path):
    """A Y/N column decodes to Y/N in a DataFrame as in the CLI's CSV (it was True/False, so ``frame.to_csv`` wrote
    text the same schema refused); NULL and the other marker stay; default words keep a typed boolean."""
    schema = Schema.from_dict({"helmet": {"type": "boolean", "true": ["Y", "Yes"], "false": ["N"], "null": True,
                                          "other": True},
                               "seen": {"type": "boolean", "true": ["1e+20"], "false": ["0"]},
                               "plain": {"type": "boolean", "null": True}})
    codes = random_codes(schema, 400, 7)
    frame = decode(codes, schema, rng=np.random.Generator(np.random.PCG64(0))).to_dataframe()
    assert list(frame["helmet"].cat.categories) == ["N", "Y", OTHER] and frame["helmet"].isna().any()
    assert list(frame["seen"].cat.categories) == ["0", "1e+20"] and str(frame["plain"].dtype) == "boolean"
    assert np.array_equal(encode(frame, schema), codes)
    frame.to_csv(tmp_path / "pandas.csv", index=False)
    assert np.array_equal(encode(tmp_path / "pandas.csv", schema), codes)


@pytest.mark.parametrize(("low", "high", "width", "last"), [(0, 100, 10, "90..100"), (-50, 50, 10, "40..50"),
                                                            (0, 10, 10, "0..10"), (0, 99, 10, "90..99"),
                                                            (0, 100, 1, "100")])
def test_an_integer_last_bin_of_one_value_joins_the_one_before(low, high, width, last):
    """docs/schema.md: a last bin that would hold only `high` joins the bin before it (dates did; integers made a
    bin '100' of [0, 100] by 10); one bin per integer (width 1) keeps every value its own bin."""
    schema = Schema.from_dict({"v": {"type": "integer", "bounds": [low, high], "width": width}})
    labels = schema.labels("v")
    assert labels[-1] == last and len(labels) == -(-(high - low) // width) + (width == 1)
    codes = encode(pd.DataFrame({"v": [low, high - 1, high]}), schema)[:, 0]
    assert codes.tolist() == [0, len(labels) - 1 - (width == 1), len(labels) - 1]


@pytest.mark.parametrize("strip", [True, False])
def test_strip_false_keeps_the_cell_as_written_in_every_reader(tmp_path, strip):
    """With `"strip": false` a CSV cell ' padded ' is ' padded ' for the in-memory reader too (it dropped the space
    after the delimiter, as DuckDB does not: synth's table then failed evaluate); with strip both readers strip."""
    from dprelease.engines.duckdb_engine import DuckDBTable
    from dprelease.engines.registry import open_table

    path = tmp_path / "t.csv"
    quoted = 'v, "q, r"' if strip else 'v," q, r "'  # a space before a quote: a quoted field only when stripping
    path.write_text(f"k,name\nu, padded \nv,plain\nu,  two  \n{quoted}\n", encoding="utf-8")
    values = [" padded ", "plain", "  two  ", " q, r "] if not strip else ["padded", "plain", "two", "q, r"]
    schema = Schema.from_dict({"format": "dprelease-schema/1", "strip": strip, "columns": {
        "k": {"type": "categorical", "values": ["u", "v"]}, "name": {"type": "categorical", "values": values}}})
    expected = [[0, 0], [1, 1], [0, 2], [1, 3]]
    assert encode(path, schema).tolist() == expected
    assert open_table(path, schema=schema, engine="memory").to_records().tolist() == expected
    with DuckDBTable.open(path, schema=schema) as table:
        assert sorted(table.to_records().tolist()) == sorted(expected)  # DuckDB's row order is its own


def test_numbers_are_written_back_with_their_declared_sign():
    """A new user's prices written $19.70 came back 85.2: symbols are read, not written. ``prefix`` and ``suffix``
    (each one of the column's symbols) write the sign around every decoded number in text, a minus first (-$40), and
    the text reads back to the same codes; typed output stays numbers; a sign that is not one of the symbols, or on
    a date column, is refused naming the column."""
    from dprelease.schema.decode import decode

    schema = Schema.from_dict({
        "price": {"type": "numeric", "bounds": [-50, 5000], "bins": 5, "symbols": ["$"], "prefix": "$",
                  "thousands": ","},
        "share": {"type": "integer", "bounds": [0, 100], "symbols": ["%"], "suffix": "%"},
        "plain": {"type": "numeric", "bounds": [0, 10], "bins": 2, "symbols": ["$"]}})
    frame = pd.DataFrame({"price": ["$19.70", "-$5.00", "$1,234.00", "$300"], "share": ["12%", "5%", "100%", "0%"],
                          "plain": ["$1", "2", "$9.5", "3"]})
    codes = encode(frame, schema)
    decoded = decode(codes, schema, values="uniform", rng=np.random.Generator(np.random.PCG64(0)))
    price, share, plain = decoded.text_columns()
    assert all(re.fullmatch(r"-?\$\d{1,3}(,\d{3})*(\.\d+)?", t) for t in price) and any(t.startswith("-$") for t in price)
    assert any("," in t for t in price)  # thousands grouped as the table groups them: $1,234.5
    assert list(share) == ["12%", "5%", "100%", "0%"] and not any("$" in t for t in plain)
    again = encode(pd.DataFrame({"price": price, "share": share, "plain": plain}), schema)
    assert np.array_equal(codes, again)
    assert decoded.to_dataframe()["price"].dtype.kind == "f"
    assert Schema.from_dict(schema.to_dict()["columns"]).column("price").prefix == "$"
    with pytest.raises(InputError, match=r"column 'p': prefix must be one of the column's symbols \[\]"):
        Schema.from_dict({"p": {"type": "numeric", "bounds": [0, 1], "bins": 2, "prefix": "$"}})
    with pytest.raises(InputError, match=r"column 'p': suffix must be one of the column's symbols \['\$'\]"):
        Schema.from_dict({"p": {"type": "integer", "bounds": [0, 1], "symbols": ["$"], "suffix": "%"}})
    with pytest.raises(InputError, match="unknown field 'prefix' for a date column"):
        Schema.from_dict({"p": {"type": "date", "bounds": ["2020-01-01", "2020-12-31"], "prefix": "$"}})


def test_numbers_are_written_back_with_their_declared_thousands_separator(tmp_path):
    """A salary written $52,000 came back $43773 (session 76; sessions 60 and 67 noticed it too): a declared
    ``thousands`` separator is written back in the whole part (43,773.5; with a decimal comma 3.918,45), the CSV
    quotes a cell that holds its delimiter, and the file reads back to the same codes; text that is not digits is
    left as it is."""
    from dprelease.schema.binned import _grouped
    from dprelease.schema.decode import decode

    schema = Schema.from_dict({
        "salary": {"type": "numeric", "bounds": [0, 2_000_000], "bins": 8, "thousands": ",", "symbols": ["$"],
                   "prefix": "$", "decimals": 0},
        "amount": {"type": "numeric", "bounds": [-10_000, 10_000], "bins": 8, "decimal": ",", "thousands": "."},
        "rooms": {"type": "integer", "bounds": [0, 99_999], "width": 10_000, "thousands": " "}})
    frame = pd.DataFrame({"salary": ["$52,000", "$1,250,000", "$900"], "amount": ["3.918,45", "-12,5", "9.999,99"],
                          "rooms": ["12 000", "7", "99 999"]})
    codes = encode(frame, schema)
    decoded = decode(np.repeat(codes, 50, axis=0), schema, values="uniform", rng=np.random.Generator(np.random.PCG64(1)))
    salary, amount, rooms = decoded.text_columns()
    assert all(re.fullmatch(r"\$\d{1,3}(,\d{3})*", t) for t in salary) and any(t.count(",") == 2 for t in salary)
    assert all(re.fullmatch(r"-?\d{1,3}(\.\d{3})*(,\d+)?", t) for t in amount) and any("." in t for t in amount)
    assert all(re.fullmatch(r"\d{1,3}( \d{3})*", t) for t in rooms) and any(" " in t for t in rooms)
    path = tmp_path / "written.csv"
    decoded.to_csv(path)
    assert '"$1,' in path.read_text()  # quoted: the cell holds the delimiter
    assert np.array_equal(encode(path, schema), np.repeat(codes, 50, axis=0))
    assert [_grouped(t, ",", ".") for t in ("inf", "1e+20", "-5", "-1234567.25")] == ["inf", "1e+20", "-5",
                                                                                     "-1,234,567.25"]


def test_a_time_of_day_alone_is_a_datetime_on_1970_01_01():
    """A format naming only a time of day (%H:%M, %I:%M %p) reads its values on 1970-01-01; the bounds may be written
    as times (00:00, 23:59). A format naming the year and month alone (%Y-%m) reads the 1st of the month. A format
    naming no year, or bounds written as times for a dated format, are refused naming the column."""
    from dprelease.schema.decode import decode

    schema = Schema.from_dict({"t": {"type": "datetime", "format": "%H:%M", "bounds": ["00:00", "23:59"],
                                     "unit": "hour", "other": True}})
    assert schema.column("t").bounds == (0, 86340)
    codes = encode(pd.DataFrame({"t": ["14:05", "2:39", "23:59", "24:00", "x"]}), schema)
    assert codes.ravel().tolist() == [14, 2, 23, 24, 24]  # 24: other
    text = decode(codes[:3], schema, values="uniform", rng=np.random.Generator(np.random.PCG64(0))).text_columns()[0]
    assert [t[:2] for t in text] == ["14", "02", "23"]
    months = Schema.from_dict({"m": {"type": "date", "format": "%Y-%m", "bounds": ["2019-01-01", "2020-12-31"],
                                     "unit": "month", "other": True}})  # a month alone: its 1st
    codes = encode(pd.DataFrame({"m": ["2019-01", "2020-12", "2019-13", "2021-01"]}), months)
    assert codes.ravel().tolist() == [0, 23, 24, 24]
    assert decode(codes[:2], months, values="uniform", rng=np.random.Generator(np.random.PCG64(0))
                  ).text_columns()[0].tolist() == ["2019-01", "2020-12"]
    with pytest.raises(InputError, match="column 'm': format '%m/%d' must name the year"):
        Schema.from_dict({"m": {"type": "date", "format": "%m/%d", "bounds": ["2020-01-01", "2020-12-31"]}})
    with pytest.raises(InputError, match="column 'c': format '%H:%M' is a time of day alone, which a date column"):
        Schema.from_dict({"c": {"type": "date", "format": "%H:%M", "bounds": ["1970-01-01", "1970-01-01"]}})
    with pytest.raises(InputError, match="column 'd': low is not an ISO 8601 date"):
        Schema.from_dict({"d": {"type": "datetime", "format": "%m/%d/%Y %H:%M", "bounds": ["00:00", "23:59"]}})
