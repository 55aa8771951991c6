"""Whole numbers written with a leading zero (postcodes 02134 beside 10001): read as numbers by an integer column,
written back zero-padded to its ``digits`` (session 79). Before, a postcode column 9 % of whose codes start with 0
was drafted as integers whose low bound clipped those codes, and every synthetic value lost its zeros."""
from __future__ import annotations

import json
import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from dprelease.errors import InputError
from dprelease.schema import IntegerColumn, Schema, encode
from dprelease.schema.decode import decode
from dprelease.schema.draft import draft_schema
from dprelease.schema.parse import CLASSES, classify


@pytest.mark.parametrize(("text", "expected"), [
    ("02134", "0-led"), ("007", "0-led"), (" 0123 ", "0-led"), ("00", "0-led"), ("0", "integer"), ("10001", "integer"),
    ("-01", "text"), ("+01", "text"), ("00.5", "text"), ("0.5", "decimal .0"), ("0x1F", "text")])
def test_a_whole_number_written_with_a_leading_zero_has_its_own_class(text, expected):
    """Unsigned digits only: a signed or fractional number with a leading zero stays text, as before."""
    assert CLASSES[classify(np.array([text], dtype=object), ("",))[0]] == expected


def postcodes_table(seed: int, n: int = 10_000) -> pd.DataFrame:
    """German-like postcodes: 400 codes in ten regions, region 0 (01067-09999) holding 9 % of the customers, none of
    the codes common; with an age and a segment. The header does not name a postcode (:data:`POSTCODE_NAMES`): the
    zeros alone tell."""
    rng = np.random.default_rng(seed)
    region = rng.choice(10, n, p=[0.09, 0.12, 0.11, 0.10, 0.12, 0.11, 0.10, 0.09, 0.08, 0.08])
    codes = np.stack([rng.integers(1000 if r == 0 else r * 10_000, (r + 1) * 10_000, 40) for r in range(10)])
    postcodes = [f"{code:05d}" for code in codes[region, rng.integers(0, 40, n)]]
    return pd.DataFrame({"area": postcodes, "age": rng.integers(18, 90, n).astype(str),
                         "segment": rng.choice(["basic", "plus", "premium"], n, p=[.6, .3, .1])})


def test_postcodes_a_tenth_of_which_start_with_zero_draft_as_integers_written_with_their_digits():
    """At eps 0.5 over 3 columns: the column is an integer written with 5 digits on 6 seeds of 6 (before: integers
    without digits, their low bound 10000 clipping every code of region 0, or, where the noisy text share passed a
    tenth, categorical with no values at all); its low bound reads region 0's codes, and a decoded value is always
    five characters, some of them starting with 0. Before (checked on the code before): no draft had digits."""
    for seed in range(6):
        frame = postcodes_table(seed)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            schema = draft_schema(frame, epsilon=0.5, delta=1e-9, seed=seed)
        plz = schema.column("area")
        # every code of 5 digits, in equal bins: region 0's codes are read, not clipped to 10000 where their thin
        # cells (1000-1999, ..., 9000-9999) do not stand out of the bounds' noise
        assert isinstance(plz, IntegerColumn) and plz.digits == 5, (seed, plz.to_json())
        assert (plz.low, plz.high, plz.value_count) == (0, 99_999, 10), (seed, plz.to_json())
        # the exact ledger: half the column's part asked for a few codes, the other half its bounds (its bins are
        # equal: no edges), as a categorical column's whole part (the segment's)
        charges = [(label, Fraction(eps)) for label, eps, *_ in schema.draft.charges()]
        spent = dict(charges)
        assert sum(e for label, e in charges if label.startswith("area: ") and label != "area: profile") \
            == spent["segment: categories"] == 2 * spent["area: values"], charges
        assert any("write whole numbers with a leading zero" in str(w.message) and "'area'" in str(w.message)
                   for w in caught), seed
        # its drafted bounds were replaced, so the note on bounds at a cell's edge does not name them
        assert not any("'area' " in str(w.message) and "(outer cells" in str(w.message) for w in caught), seed
        codes = encode(frame[["area"]], schema.select(["area"]))
        text = decode(codes, schema.select(["area"]), rng=np.random.default_rng(seed)).text_columns()[0]
        assert {len(t) for t in text} == {5} and sum(t.startswith("0") for t in text) > 0.05 * len(text), seed
        real_region_0 = np.mean([p.startswith("0") for p in frame["area"]])
        assert abs(np.mean([t.startswith("0") for t in text]) - real_region_0) < 0.01, seed  # bin 0: 00000-09999


def test_a_few_codes_with_leading_zeros_are_drafted_as_codes_many_as_integers():
    """Seven 3-digit postcodes, a quarter of the rows 021 or 007 (8,000 rows): each code matters, and half the
    column's part (its bin edges' part) asks whether a few codes hold half the rows: at eps 1 the column is those
    codes (categorical) on 6 seeds of 6, written as the table writes them; at eps 0.1 no code stands out and no
    bound either, so the bounds are left to declare, and the note asks for digits with them. Never integers
    without digits (session 74 kept such a column text; at eps 0.1 its categories were empty)."""
    rng = np.random.default_rng(0)
    n = 8_000
    frame = pd.DataFrame({"zip3": rng.choice(["021", "100", "606", "941", "007", "331", "770"], n,
                                             p=[.2, .2, .15, .15, .05, .15, .1]),
                          "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n)})
    for seed in range(6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            column = draft_schema(frame, epsilon=1.0, delta=1e-9, seed=seed).column("zip3")
        assert column.kind == "categorical" and {"021", "100", "606", "941"} <= set(column.values), column.to_json()
    for seed in range(3):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            column = draft_schema(frame, epsilon=0.1, delta=1e-9, seed=seed).column("zip3")
        assert column.kind == "integer" and column.to_json()["bounds"] is None, column.to_json()
        assert any('add "digits"' in str(w.message) for w in caught), seed


def test_codes_alone_or_beside_text_stay_text():
    """Every code written with a leading zero (account numbers 00123 ...), or beside words: no plain whole number
    stands out beside them, so they stay categorical, as before."""
    rng = np.random.default_rng(5)
    n = 6_000
    frame = pd.DataFrame({"branch": rng.choice([f"{i:04d}" for i in range(1, 9)], n),
                          "note": rng.choice(["02134", "n/a", "pending", "closed"], n)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in range(3):
            schema = draft_schema(frame, epsilon=1.0, delta=1e-9, seed=seed)
            assert [c.kind for c in schema.columns] == ["categorical", "categorical"]
        opened = draft_schema(frame, non_private=True)
    assert opened.column("branch").values == tuple(f"{i:04d}" for i in range(1, 9))


def test_an_open_draft_of_many_postcodes_is_an_integer_written_with_its_digits():
    """Openly (the exact counts) 400 codes are more than a column of codes may list (``max_categories``): integers
    over every code of 5 digits, 0..99999, written with 5 digits; decoded text reads back to the same codes."""
    frame = postcodes_table(1, 3_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NOT PUBLIC, and the digits' note
        schema = draft_schema(frame, non_private=True)
    plz = schema.column("area")
    assert (plz.digits, plz.low, plz.high, plz.value_count) == (5, 0, 99_999, 10)  # equal bins: by the first digit
    codes = encode(frame[["area"]], schema.select(["area"]))
    decoded = decode(codes, schema.select(["area"]), rng=np.random.default_rng(0))
    again = encode(pd.DataFrame({"area": decoded.text_columns()[0]}), schema.select(["area"]))
    assert (again == codes).all()  # 02134 reads as 2134: the same bin


def test_digits_writes_text_zero_padded_and_reads_either_way():
    column = IntegerColumn(name="zip", low=0, high=99_999, bins=10, digits=5, null=True)
    schema = Schema((column,))
    assert json.loads(schema.dumps())["columns"]["zip"]["digits"] == 5
    assert Schema.loads(schema.dumps()) == schema
    codes = encode(pd.DataFrame({"zip": ["02134", "2134", "00501", "94110", ""]}), schema)
    assert codes[0, 0] == codes[1, 0] == 0 and codes[2, 0] == 0 and codes[3, 0] == 9
    decoded = decode(codes, schema, rng=np.random.default_rng(1))
    text = decoded.text_columns()[0]
    assert all(len(t) == 5 and t.isdigit() for t in text[:4]) and text[0].startswith("0") and text[4] == ""
    series = decoded.to_dataframe()["zip"]
    assert pd.api.types.is_string_dtype(series) and series.iloc[0] == text[0] and pd.isna(series.iloc[4])
    wide = IntegerColumn(name="account", low=0, high=10**7, bins=4, digits=3)  # wider values are as they are
    assert decode(np.array([[3]]), Schema((wide,)), values="midpoint").text_columns()[0][0] == "8750000"


@pytest.mark.parametrize(("fields", "message"), [
    ({"digits": 1}, "digits must be a whole number from 2 to 18"),
    ({"digits": True}, "digits must be a whole number from 2 to 18"),
    ({"digits": "5"}, "got '5'"),
    ({"low": -5, "digits": 5}, "its bounds start at -5"),
    ({"digits": 5, "thousands": ","}, "drop between, format and thousands"),
    ({"digits": 5, "format": "h:mm:ss"}, "drop between, format and thousands")])
def test_a_bad_digits_is_refused_with_the_column_named(fields, message):
    arguments = {"name": "zip", "low": 0, "high": 99_999, "bins": 10, **fields}
    with pytest.raises(InputError, match="zip") as raised:
        IntegerColumn(**arguments)
    assert message in str(raised.value)


def test_the_schema_review_line_names_the_digits():
    from dprelease.cli.schema import _drafted

    line = _drafted(IntegerColumn(name="zip", low=0, high=99_999, bins=10, digits=5))
    assert "written with 5 digits (02134)" in line


def test_a_column_named_as_postcodes_is_written_with_its_digits_where_its_zeros_are_too_few_to_see():
    """US ZIP codes, 8 % of them 01001-09999 (12,000 rows, 8 columns at eps 0.5): 960 rows, under the 884 a class
    asked alone needs on about half the drafts, so the column was drafted as integers 10000..99999 without digits,
    clipping those codes. Its header (public) names a postcode: written with its 5 digits over 0..99999 on 6 seeds of
    6. The same values under another header are drafted as they were (on the seeds whose zeros stay unseen)."""
    rng = np.random.default_rng(11)
    n = 12_000
    east = rng.random(n) < 0.08
    zips = np.where(east, rng.choice(rng.integers(1001, 10_000, 250), n),
                    rng.choice(rng.integers(10_000, 99_951, 2_500), n))
    others = {f"c{i}": rng.choice(["a", "b", "c"], n) for i in range(6)}
    frame = pd.DataFrame({"patient_zip": [f"{z:05d}" for z in zips], "area": [f"{z:05d}" for z in zips], **others})
    unseen = 0
    for seed in range(6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = draft_schema(frame, epsilon=0.5, delta=1e-9, seed=seed)
        named, area = schema.column("patient_zip"), schema.column("area")
        assert (named.digits, named.low, named.high) == (5, 0, 99_999), (seed, named.to_json())
        unseen += area.kind == "integer" and area.to_json().get("digits") is None
    assert unseen >= 1  # the zeros alone are not always seen at this budget (the header is what told)
    typed = frame.assign(patient_zip=zips)  # read as integers (pandas without dtype=str): they stay numbers
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        column = draft_schema(typed, epsilon=0.5, delta=1e-9, seed=0).column("patient_zip")
    assert column.kind == "integer" and column.to_json().get("digits") is None


def test_a_padded_columns_digits_are_not_the_walks_past_its_last_cell():
    """The same ZIP codes, 24 seeds: the bounds' walk past the last cell that stood out (90000-99999) passes the
    empty cell 100000-199999 by its noise on some drafts (seeds 4, 5 and 12 of 0-23 here; 10 of 144 drafts of the
    test above's table over sessions 79-80), and the digits were the walked high bound's: 6, every synthetic code
    written 0xxxxx. They are now the high bound's before the walk: 5 on every seed."""
    rng = np.random.default_rng(11)
    n = 12_000
    east = rng.random(n) < 0.08
    zips = np.where(east, rng.choice(rng.integers(1001, 10_000, 250), n),
                    rng.choice(rng.integers(10_000, 99_951, 2_500), n))
    frame = pd.DataFrame({"patient_zip": [f"{z:05d}" for z in zips],
                          **{f"c{i}": rng.choice(["a", "b", "c"], n) for i in range(7)}})
    digits = []
    for seed in range(24):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            digits.append(draft_schema(frame, epsilon=0.5, delta=1e-9, seed=seed).column("patient_zip").digits)
    assert digits == [5] * 24, digits


def test_the_postcode_header_pattern():
    from dprelease.schema.draft import POSTCODE_NAMES

    for name in ("zip", "ZipCode", "patient_zip", "postcode", "post_code", "Postal Code", "PLZ", "code_postal"):
        assert POSTCODE_NAMES.search(name), name
    for name in ("amount", "capacity", "code", "post", "position", "zone"):
        assert not POSTCODE_NAMES.search(name), name


def test_without_delta_a_padded_column_spends_its_bounds_alone():
    """With delta = 0 no codes can be selected: the column's bounds' half of its part finds its digits, and its bin
    edges' half goes unspent (its bins are equal over every code of those digits; before the review it bought
    quantiles that the equal bins then replaced). Exact ledger: each charge of the column by its share."""
    frame = postcodes_table(3)  # 10,000 rows at eps 4: quantiles would see, were there a part for them
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = draft_schema(frame, epsilon=4, seed=3)
    assert schema.column("area").digits == 5
    charges = [(label, Fraction(eps)) for label, eps, *_ in schema.draft.charges()]
    spent = {label.split(": ")[1]: e for label, e in charges if label.startswith("area: ")}
    part = (Fraction(4) - 3 * Fraction(4) / 3 / 4) / 2  # segment's categories cannot run: two users
    # the bounds' half: two thirds to the histogram, a third to refining in up to three levels (fewer where a level
    # has nothing left to cut: two at session 80's draws); nothing else
    assert spent["bounds"] == part / 2 * Fraction(2, 3), charges
    levels = [key for key in spent if key.startswith("bounds, level")]
    assert 1 <= len(levels) <= 3 and all(spent[key] == part / 2 / 9 for key in levels), charges
    assert set(spent) == {"profile", "bounds", *levels}, charges
