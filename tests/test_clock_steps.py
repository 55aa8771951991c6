"""Date-times whose minutes fall on steps (appointments on quarter hours): ``"precision": "15 minutes"`` (or 5, 30
minutes, an hour) decodes whole steps and writes them to the minute; the private draft finds the step where a
column is written to the minute (session 79: a clinic's appointments, all on :00/:15/:30/:45, came back 08:27), and
where it is written with seconds that are all :00 finds the whole minute too, written back with ``"seconds": true``
(session 80: meter readings written 2024-01-01 00:15:00 came back at any second)."""
from __future__ import annotations

import warnings
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from dprelease.errors import InputError, InputTypeError
from dprelease.schema import Schema, encode
from dprelease.schema.binned import PRECISIONS, DatetimeColumn
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
    30 minutes "30 minutes", on the hour "hour", at any minute "minute" (before: "minute" for all), on at least 5
    of seeds 0-5 each; a miss is a finer step, still true of the values (over seeds 0-29 at session 80's draws: 28,
    29, 30 and 30 of 30; the misses on the hour were 30 and 15 minutes, on the half hour 15). The exact ledger: the
    step's charge is an eighth of the bounds' part (the part less its times of day), and the column's charges sum
    to the part a text column spends on its categories."""
    cases = {"15 minutes": np.arange(0, 600, 15), "30 minutes": np.arange(0, 600, 30), "hour": np.arange(0, 600, 60),
             "minute": np.arange(0, 600)}
    for expected, minutes in cases.items():
        right = 0
        for seed in range(6):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                schema = draft_schema(frame(seed, minutes), epsilon=1, delta=1e-9, seed=seed)
            found = schema.column("appointment").to_json().get("precision")
            assert PRECISIONS[expected] % PRECISIONS[found] == 0, (expected, seed, found)  # never a coarser step
            right += found == expected
            charges = [(label, Fraction(eps)) for label, eps, *_ in schema.draft.charges()]
            part = dict(charges)["department: categories"]
            spent = {label.split(": ")[1]: e for label, e in charges if label.startswith("appointment: ")}
            assert spent["step"] == part * (1 - TIME_OF_DAY_SHARE) / 8, charges
            assert sum(e for key, e in spent.items() if key != "profile") == part, charges
        assert right >= 5, (expected, right)


def test_an_open_draft_finds_the_step_exactly():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NOT PUBLIC
        opened = draft_schema(frame(0, np.arange(0, 600, 15), n=500), non_private=True)
    assert opened.column("appointment").to_json()["precision"] == "15 minutes"


def readings(seed: int, step_seconds: int, n: int = 3_000, typed: bool = False) -> pd.DataFrame:
    """Meter readings over 300 days on multiples of ``step_seconds``, written with their seconds (or typed)."""
    rng = np.random.default_rng(seed)
    stamps = pd.Timestamp("2024-01-01") + pd.to_timedelta(
        rng.integers(0, 86400 * 300, n) // step_seconds * step_seconds, unit="s")
    return pd.DataFrame({"t": stamps if typed else stamps.strftime("%Y-%m-%dT%H:%M:%S"),
                         "meter": rng.choice(["a", "b"], n)})


def test_a_column_written_with_seconds_that_are_all_00_gets_its_step_and_keeps_its_seconds():
    """3,000 readings over 2 columns at eps 1, written 2024-03-05T10:15:00: every 15 minutes drafted "15 minutes",
    every minute "minute", each with ``seconds`` (written back :00), on 6 seeds of 6; readings at any second keep
    their seconds (no precision) on 6 of 6; a DataFrame's typed timestamps on quarter hours alike (the session
    before: at any second on every seed). Exact ledger: the step's charge is an eighth of the part after the times
    of day, as for a column written to the minute, and the draft's charges sum to its spend. The synthetic text:
    4,000 decoded values all :00, on quarter hours."""
    cases = {("15 minutes", True): 900, ("minute", True): 60, (None, None): 1}
    for (expected, seconds), step in cases.items():
        for seed in range(6):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                schema = draft_schema(readings(seed, step), epsilon=1, seed=seed)
            spec = schema.column("t").to_json()
            assert (spec.get("precision"), spec.get("seconds")) == (expected, seconds), (expected, seed, spec)
            charges = {label: Fraction(eps) for label, eps, *_ in schema.draft.charges()}
            part = sum(e for label, e in charges.items() if label.startswith("t: ") and label != "t: profile")
            assert charges["t: hours"] == part * TIME_OF_DAY_SHARE
            assert charges["t: step"] == part * (1 - TIME_OF_DAY_SHARE) / 8, charges
            assert schema.draft.spent[0] == sum(charges.values()) <= 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        typed = draft_schema(readings(1, 900, typed=True), epsilon=1, seed=1)
    assert (typed.column("t").precision, typed.column("t").seconds) == ("15 minutes", True)
    written = decode(np.arange(10).repeat(400).reshape(-1, 1), Schema((typed.column("t"),)),
                     rng=np.random.default_rng(0)).text_columns()[0]
    assert all(len(t) == 19 and t[-3:] == ":00" and t[14:16] in ("00", "15", "30", "45") for t in written)


def test_the_step_is_not_asked_where_its_histogram_could_not_answer_yes():
    """200 readings at eps 1 over 2 columns: the step's histogram would run at noise scale 28, whose deviation (40
    rows) is more than a tenth of the rows, so it could never answer yes (``step_pays``): nothing is spent on it, and
    the bounds keep the eighth (session 80: asked at every size, 2,000 last orders at eps 0.5 lost the refining of
    their bounds). Exact ledger: the column's part is its times of day's quarter and its bounds' rest."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = draft_schema(readings(0, 900, n=200), epsilon=1, seed=0)
    charges = {label: Fraction(eps) for label, eps, *_ in schema.draft.charges()}
    assert "t: step" not in charges and "precision" not in schema.column("t").to_json(), charges
    part = sum(e for label, e in charges.items() if label.startswith("t: ") and label != "t: profile")
    assert charges["t: hours"] == part * TIME_OF_DAY_SHARE
    assert sum(e for label, e in charges.items() if label.startswith("t: bounds")) == part * 3 / 4, charges


def test_seconds_is_checked_like_any_field():
    column = DatetimeColumn(name="t", low="2024-01-01T00:00:00", high="2024-12-31T23:59:59", unit="month",
                            precision="minute", seconds=True)
    assert Schema.loads(Schema((column,)).dumps()).column("t").seconds is True
    base = {"type": "datetime", "bounds": ["2024-01-01T00:00:00", "2024-12-31T23:59:59"], "unit": "month"}
    for extra, message in (({"seconds": True}, "seconds writes the :00 seconds of a precision coarser"),
                           ({"precision": "minute", "seconds": "yes"}, "seconds must be true or false"),
                           ({"seconds": True, "precision": "minute", "format": "%d.%m.%Y %H:%M:%S"},
                            "give a format or seconds")):
        with pytest.raises((InputError, InputTypeError), match=message) as raised:
            Schema.from_dict({"t": {**base, **extra}})
        assert str(raised.value).startswith("schema column 't'")


def test_a_date_time_written_another_way_finds_its_step_and_its_format_writes_it():
    """Appointments written 31.03.2024 10:15 (a German export), every 15 minutes, 6,000 rows over 3 columns at eps 1:
    the draft finds the format and, where its clock writes minutes, the step: "15 minutes" beside the format on at
    least 5 of seeds 0-5 (the rest a finer step), where ``precision`` and ``format`` were refused together (session
    80). Decoded, whole quarter hours written by the format. The same at any minute: no step coarser than a minute."""
    def german(seed: int, minutes: np.ndarray) -> pd.DataFrame:
        table = frame(seed, minutes)
        return table.assign(appointment=pd.to_datetime(table["appointment"]).dt.strftime("%d.%m.%Y %H:%M"))

    right = 0
    for seed in range(6):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            schema = draft_schema(german(seed, np.arange(0, 600, 15)), epsilon=1, delta=1e-9, seed=seed)
        spec = schema.column("appointment").to_json()
        assert spec["format"] == "%d.%m.%Y %H:%M" and 900 % PRECISIONS[spec.get("precision", "second")] == 0, spec
        right += spec.get("precision") == "15 minutes"
        charges = {label for label, *_ in schema.draft.charges()}
        assert "appointment: step" in charges
    assert right >= 5, right
    column = schema.column("appointment")
    written = decode(np.arange(column.value_count).repeat(50).reshape(-1, 1), Schema((column,)),
                     rng=np.random.default_rng(0)).text_columns()[0]
    assert all(len(t) == 16 and t[2] == "." and t[-2:] in ("00", "15", "30", "45") for t in written), written[:5]
    assert (encode(pd.DataFrame({"appointment": written}), Schema((column,))).ravel()
            == np.arange(column.value_count).repeat(50)).all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        anytime = draft_schema(german(0, np.arange(0, 600)), epsilon=1, delta=1e-9, seed=0)
    assert anytime.column("appointment").to_json().get("precision", "minute") == "minute"
