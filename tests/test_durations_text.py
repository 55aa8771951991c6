"""Durations written as text (``"format": "h:mm:ss"`` on an integer column): 36:15:00 and 45:10 read as their
seconds in every engine alike, and written back as h:mm:ss (hours past 23 included), as a DataFrame's durations."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from dprelease.errors import InputError
from dprelease.privacy.rng import SeededRandom
from dprelease.schema import Schema, decode, encode
from dprelease.schema.binned import duration_seconds, duration_text
from tests.test_between_columns import assert_duckdb_reads, error_in_memory_and_duckdb

SCHEMA = "dprelease-schema/1"
TRICKY = ["0:00:00", "36:15:00", "45:10", "-0:01:30", "1:60:00", "1:02:3", " 2:03:04 ", "\uff11:02:03",
          "999999999:59:59", "1234567890:00:00", "abc", "1:02:03.5", "+1:00:00", "0:59", "100:00", ""]


def test_the_text_of_a_duration_and_back():
    assert [duration_seconds(t) for t in ("36:15:00", "45:10", "-0:01:30", "0:00:00", "100:00")] == \
        [130_500, 2_710, -90, 0, 6_000]
    assert [duration_seconds(t) for t in ("1:60:00", "1:02:3", "1:02:03.5", "+1:00:00", "\uff11:02:03", "")] == \
        [None] * 6
    for seconds in (0, 59, 3_600, 130_500, -90, 999_999_999 * 3600):
        assert duration_seconds(duration_text(seconds)) == seconds
    assert duration_text(130_500) == "36:15:00" and duration_text(-90) == "-0:01:30"


@pytest.mark.parametrize("spec, message", [
    ({"format": "hh:mm"}, "an integer column's format is 'h:mm:ss'"),
    ({"format": "h:mm:ss", "symbols": ["$"]}, "has no symbols, thousands or decimal comma"),
])
def test_a_wrong_format_is_refused(spec, message):
    with pytest.raises(InputError, match=message):
        Schema.from_dict({"format": SCHEMA, "columns": {"d": {"type": "integer", "bounds": [0, 9], **spec}}})


def schema(**buckets) -> Schema:
    return Schema.from_dict({"format": SCHEMA, "columns": {
        "d": {"type": "integer", "format": "h:mm:ss", "edges": [-100, 0, 60, 3600, 86_400, 200_000],
              "null": True, **buckets}}})


def test_every_engine_reads_tricky_durations_alike(tmp_path):
    path = tmp_path / "durations.csv"
    pd.DataFrame({"d": TRICKY}).to_csv(path, index=False)
    tolerant = schema(other=True)
    codes = encode(path, tolerant)
    # 0 s, 36 h, 45 min, -90 s, wrong, wrong, 2 h (stripped), wrong, too long (other), wrong, ..., 59 s, 100 min, blank
    assert codes[:, 0].tolist() == [1, 4, 2, 0, 6, 6, 3, 6, 6, 6, 6, 6, 6, 1, 3, 5]
    assert_duckdb_reads(codes, path, tolerant)
    assert "column 'd'" in error_in_memory_and_duckdb(path, schema())


def test_durations_are_written_back_as_text_and_a_frame_gets_durations():
    column = schema()
    codes = np.array([[4], [2], [5], [0]])
    decoded = decode(codes, column, rng=SeededRandom(0))
    text = decoded.csv().splitlines()[1:]  # a blank alone on its line is written "" (a row, not an empty line)
    seconds = [duration_seconds(t) for t in (text[0], text[1], text[3])]
    assert 86_400 <= seconds[0] <= 200_000 and int(text[0].split(":")[0]) >= 24  # 24 h and on, not wrapped
    assert 60 <= seconds[1] < 3_600 and text[2] == "\"\"" and -100 <= seconds[2] < 0 and text[3].startswith("-0:")
    frame = decoded.to_dataframe()
    assert str(frame["d"].dtype).startswith("timedelta64") and frame["d"].isna().tolist() == [False, False, True, False]
    assert frame["d"][0].total_seconds() == seconds[0]


def test_a_release_of_text_durations_keeps_their_spread(tmp_path):
    from dprelease.cli import main

    rng = np.random.default_rng(0)
    seconds = rng.lognormal(np.log(5 * 3600), 1.0, 3_000).astype(int)
    frame = pd.DataFrame({"kind": rng.choice(["a", "b"], 3_000), "d": [duration_text(int(s)) for s in seconds]})
    frame.to_csv(tmp_path / "calls.csv", index=False)
    declared = Schema.from_dict({"format": SCHEMA, "columns": {
        "kind": {"type": "categorical", "values": ["a", "b"]},
        "d": {"type": "integer", "format": "h:mm:ss", "edges": [0, 900, 3600, 7200, 14400, 28800, 86400, 172800],
              "clip": True}}})
    declared.to_json(tmp_path / "schema.json")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert main(["synth", str(tmp_path / "calls.csv"), "--schema", str(tmp_path / "schema.json"), "--workload",
                     "1-2way", "--epsilon", "1", "--seed", "2", "--out", str(tmp_path / "out.csv"), "--quiet"]) == 0
    written = pd.read_csv(tmp_path / "out.csv", dtype=str)
    synthetic = np.array([duration_seconds(t) for t in written["d"]])
    assert (synthetic >= 0).all() and (synthetic > 86_400).mean() > 0.01  # past a day, written 24:00:00 and on
    assert abs(np.median(synthetic) - np.median(seconds)) < 0.25 * np.median(seconds)
