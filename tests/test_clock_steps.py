"""Date-times whose minutes fall on steps (appointments on quarter hours): ``"precision": "15 minutes"`` (or 5, 30
minutes, an hour) decodes whole steps and writes them to the minute; the private draft finds the step where a
column is written to the minute (session 79: a clinic's appointments, all on :00/:15/:30/:45, came back 08:27)."""
from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd

from dprelease.schema import Schema, encode
from dprelease.schema.binned import DatetimeColumn
from dprelease.schema.decode import decode
from dprelease.schema.draft import TIME_OF_DAY_SHARE, draft_schema


def test_a_step_decodes_whole_steps_written_to_the_minute():
    column = DatetimeColumn(name="t", low="2024-01-01T00:00:00", high="2024-12-31T23:59:59", unit="month",
                            precision="15 minutes", separator=" ")
    schema = Schema((column,))
    assert schema.column("t").to_json()["precision"] == "15 minutes"
    assert Schema.loads(schema.dumps()) == schema
    codes = np.arange(12).repeat(200).reshape(-1, 1)
    decoded = decode(codes, schema, rng=np.random.default_rng(0))
    seconds = decoded.values["t"].astype("datetime64[s]").astype(np.int64)
    assert (seconds % 900 == 0).all() and len(np.unique(seconds % 3600)) == 4  # every quarter hour, all four
    text = decoded.text_columns()[0]
    assert all(len(t) == 16 and t[10] == " " and t[14:16] in ("00", "15", "30", "45") for t in text)
    assert (encode(pd.DataFrame({"t": text}), schema) == codes).all()  # in their bins


def frame(seed: int, minutes: np.ndarray, n: int = 6_000) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    start = (np.datetime64("2024-01-02T08:00") + rng.integers(0, 360, n) * np.timedelta64(1, "D")
             + rng.choice(minutes, n) * np.timedelta64(1, "m"))
    return pd.DataFrame({"appointment": pd.to_datetime(start).strftime("%Y-%m-%d %H:%M"),
                         "department": rng.choice(["a", "b", "c"], n), "age": rng.integers(0, 90, n).astype(str)})


def test_the_draft_finds_the_step_a_column_written_to_the_minute_falls_on():
    """6,000 rows, 3 columns at eps 1: appointments every 15 minutes over 08:00-17:45 are drafted "15 minutes", every
    30 minutes "30 minutes", on the hour "hour", at any minute "minute", on 6 seeds of 6 each (before: "minute"
    for all). The exact ledger: the step's charge is an eighth of the bounds' part (the part less its times of
    day), and the column's charges sum to the part a text column spends on its categories."""
    cases = {"15 minutes": np.arange(0, 600, 15), "30 minutes": np.arange(0, 600, 30), "hour": np.arange(0, 600, 60),
             "minute": np.arange(0, 600)}
    for expected, minutes in cases.items():
        for seed in range(6):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                schema = draft_schema(frame(seed, minutes), epsilon=1, delta=1e-9, seed=seed)
            assert schema.column("appointment").to_json().get("precision") == expected, (expected, seed)
            charges = [(label, Fraction(eps)) for label, eps, *_ in schema.draft.charges()]
            part = dict(charges)["department: categories"]
            spent = {label.split(": ")[1]: e for label, e in charges if label.startswith("appointment: ")}
            assert spent["step"] == part * (1 - TIME_OF_DAY_SHARE) / 8, charges
            assert sum(e for key, e in spent.items() if key != "profile") == part, charges


def test_an_open_draft_finds_the_step_exactly_and_seconds_keep_theirs():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NOT PUBLIC
        opened = draft_schema(frame(0, np.arange(0, 600, 15), n=500), non_private=True)
    assert opened.column("appointment").to_json()["precision"] == "15 minutes"
    rng = np.random.default_rng(1)
    stamps = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 86400 * 300, 3000) // 900 * 900, unit="s")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seconds = draft_schema(pd.DataFrame({"t": stamps.strftime("%Y-%m-%dT%H:%M:%S")}), epsilon=1, seed=0)
    assert "precision" not in seconds.column("t").to_json()  # written with seconds: the step is not asked
