"""Words written for a missing value (NA, N/A, null, None, -, ?, .): R's ``write.csv`` writes NA in every blank cell,
SAS a dot. In a column of numbers, dates or booleans the draft reads them as blanks (the column's ``null_tokens``);
in a text column they stay values (session 80: a BMI column exported from R, 20 % NA, was drafted as the one category
NA, and every number went to other)."""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from dprelease.schema import encode
from dprelease.schema.draft import draft_schema
from dprelease.schema.parse import CLASSES, MISSING_WORDS, classify
from tests.test_between_columns import assert_duckdb_reads


def r_export(seed: int, n: int = 6_000) -> pd.DataFrame:
    """A table as R's write.csv writes it: NA in a fifth of the BMI, a tenth of the visit dates and of the smoker
    flags; a text column whose values include "None" (never blank)."""
    rng = np.random.default_rng(seed)
    bmi = np.round(rng.normal(27, 5, n), 1).astype(str).astype(object)
    bmi[rng.random(n) < 0.2] = "NA"
    visit = np.datetime_as_string(np.datetime64("2022-01-01") + rng.integers(0, 700, n)).astype(object)
    visit[rng.random(n) < 0.1] = "NA"
    smoker = rng.choice(["TRUE", "FALSE"], n).astype(object)
    smoker[rng.random(n) < 0.1] = "NA"
    return pd.DataFrame({"bmi": bmi, "visit": visit, "smoker": smoker,
                         "alcohol": rng.choice(["None", "Light", "Heavy"], n, p=[0.5, 0.3, 0.2]),
                         "age": rng.integers(18, 90, n).astype(str)})


def test_each_spelling_has_its_class_and_numbers_do_not():
    text = np.array([*MISSING_WORDS, " NA ", "3.5", "-1", "nan", "Nancy", "NAN", "n.a"], dtype=object)
    classes = [CLASSES[c] for c in classify(text, ("",))]
    assert classes[:len(MISSING_WORDS) + 1] == ["missing"] * (len(MISSING_WORDS) + 1)
    assert classes[len(MISSING_WORDS) + 1:] == ["decimal .0", "integer", "null", "text", "null", "text"]


def test_an_r_export_drafts_its_na_as_blanks_where_the_column_is_not_text(tmp_path):
    """6,000 rows, 5 columns at eps 1: the BMI is numeric with a NULL bucket reading NA, the visits dates, the smoker
    flag boolean, each with every spelling of :data:`MISSING_WORDS` as ``null_tokens``, on 6 seeds of 6 (before: the
    BMI categorical, its one value NA; the visits and flags text); the flag still writes TRUE, as R does. "None" in a
    text column stays a value, and a column with no such words gets no tokens. The codes: the in-memory encoder's and DuckDB's SQL alike, NA on the NULL
    code."""
    for seed in range(6):
        frame = r_export(seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = draft_schema(frame, epsilon=1, delta=1e-9, seed=seed)
        for name, kind in (("bmi", "numeric"), ("visit", "date"), ("smoker", "boolean")):
            column = schema.column(name)
            assert column.kind == kind and column.null, (seed, column.to_json())
            assert set(MISSING_WORDS) <= set(column.null_tokens), (seed, column.to_json())
        assert schema.column("smoker").written[0][0] == "TRUE"  # written back as R writes it
        alcohol, age = schema.column("alcohol"), schema.column("age")
        assert "None" in alcohol.values and alcohol.null_tokens is None, (seed, alcohol.to_json())
        assert age.kind == "integer" and age.null_tokens is None, (seed, age.to_json())
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    codes = encode(frame, schema)
    bmi = list(schema.names).index("bmi")
    assert (codes[:, bmi][frame["bmi"].to_numpy() == "NA"] == schema.column("bmi").null_code).all()
    assert_duckdb_reads(codes, path, schema)
