"""Raw tables with the values the encoders most easily disagree on, for the engine-encoding tests.

Every kind of schema column meets text it must parse as Python parses it (``float()``, the ISO pattern,
numpy's calendar, ``str.strip()``), and typed Parquet columns meet every kind. A ``row`` column (integer
codes 0..n-1) lets two encoders' rows be matched whatever order an engine returns them in.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dprelease.schema import Schema

NUMBERS = ["0", "1", "-1", "+1", "1.", "-.5", ".5", "1e3", "1E+3", "1e-400", "1e400", "-1e400", "1_000", "1__0",
           "_1", "1_", "1_0.5_5", "inf", "-inf", "+Infinity", "INF", "nan", "-NaN", "NaN ", "  7  ", "0x10", "1d",
           "3.0", "3.5", "2.9999999999999999", "17", "90", "90.0000000001", "16.9999", "abc", "", "NA", "-0",
           "-0.0", "\u00a03\u2003", "\t4", "9007199254740993", "1e16", "12.", "4.9999999999999999e1", "99999",
           "5e-324", "1e308", "1.7976931348623157e309", "0.1", "0.30000000000000004", "1e", "e5", ".", "-", "+-1"]
DATES = ["2020-01-05", "2020-02-29", "2021-02-29", "2020-13-01", "2020-00-10", "2020-01-00", "0000-01-01",
         "2020-01-05T10:00", "2020-01-05 10:00:00", "2020-01-05T23:59:59.999", "2020-01-05T24:00",
         "2020-01-05T10:60", "2020-01-05T10:00:60", "2020-01-05Z", "2020-01-05+01:00", "2020-01-05T00:30-0130",
         "2020-01-05T10:00:00.1234567890", "2020-1-5", "20200105", " 2020-01-05 ", "2020-01-05  Z",
         "2024-01-31T23:59:59", "2024-02-01T00:00:00+01:00", "1969-12-31T23:59:59", "2016-06-30T12:00",
         "2024-12-31", "2015-01-01", "2014-12-31T23:59:59", "2025-01-01", "2000-02-29", "1900-02-29", "", "NA",
         "2024-01-15 06:00+01:00", "2024-01-01T00:00:00.5", "2024-01-10T25:00", "2023-12-31T23:00:00-02:00",
         "2024-01-01T00:00:00Z", "2024-01-31T23:59:59+00:00", "2020-01-05T10:00:00+05:30", "x"]
WORDS = ["yes", "YES", "Yes", "y", "t", "T", "true", "1", "0", "no", "N", "false", "F", "maybe", "", "tRuE",
         " yes ", "NA", "on", "1.0"]
CATEGORIES = ["F", "M", " F", "f", "F ", "FM", "", "NA", "1", "01", "3", "x,y", "\u00a0M", "<other>"]

#: The columns of the raw text table: (name, the schema spec without buckets, its values).
TEXT_COLUMNS = [
    ("age", {"type": "integer", "bounds": [17, 90], "width": 5}, NUMBERS),
    ("years", {"type": "integer", "bounds": [-3, 99999], "edges": [-3, 0, 1, 17, 1000, 99999]}, NUMBERS),
    ("income", {"type": "numeric", "bounds": [0, 200000], "edges": [0, 0.1, 10, 50.5, 200000]}, NUMBERS),
    ("share", {"type": "numeric", "bounds": [-1, 1], "bins": 7}, NUMBERS),
    ("code", {"type": "codes", "codes": 5}, NUMBERS),
    ("joined", {"type": "date", "bounds": ["2015-01-01", "2024-12-31"], "unit": "month"}, DATES),
    ("week", {"type": "date", "bounds": ["1999-12-01", "2024-12-31"], "unit": "week", "width": 2}, DATES),
    ("login", {"type": "datetime", "bounds": ["2024-01-01T00:00:00", "2024-01-31T23:59:59"], "unit": "hour",
               "width": 6}, DATES),
    ("stamp", {"type": "datetime", "bounds": ["1969-01-01T00:00:00", "2030-01-01T00:00:00"], "unit": "year"}, DATES),
    ("member", {"type": "boolean"}, WORDS),
    ("sex", {"type": "categorical", "values": ["F", "M", 1, "x,y"]}, CATEGORIES),
]


def text_schema(*, buckets: str = "both", strip: bool = True, null_tokens: list[str] | None = None,
                rows: int) -> Schema:
    """The text table's schema: ``buckets`` "both" (null and other everywhere), "clip" (null, and clip or
    other), or "none" (so that every problem is an error)."""
    columns = {"row": {"type": "codes", "codes": rows}}
    for name, spec, _ in TEXT_COLUMNS:
        spec = dict(spec)
        if buckets == "both":
            spec.update(null=True, other=True)
        elif buckets == "clip":
            spec["null"] = True
            if spec["type"] in ("integer", "numeric", "date", "datetime"):
                spec["clip"] = True
            else:
                spec["other"] = True
        columns[name] = spec
    raw: dict[str, object] = {"format": "dprelease-schema/1", "columns": columns, "strip": strip}
    if null_tokens is not None:
        raw["null_tokens"] = null_tokens
    return Schema.from_dict(raw)


def text_rows() -> list[list[str]]:
    """Rows of the text table: the longest value list sets the length, shorter ones cycle."""
    length = max(len(values) for _, _, values in TEXT_COLUMNS)
    return [[str(r)] + [values[r % len(values)] for _, _, values in TEXT_COLUMNS] for r in range(length)]


def write_text_csv(path: Path, rows: list[list[str]] | None = None) -> Path:
    """The text table as CSV, every cell quoted (so leading spaces and commas survive)."""
    import csv

    rows = text_rows() if rows is None else rows
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, quoting=csv.QUOTE_ALL, lineterminator="\n")
        writer.writerow(["row"] + [name for name, _, _ in TEXT_COLUMNS])
        writer.writerows(rows)
    return path


#: Typed Parquet columns (SQL), each read by several kinds of schema column.
TYPED_SQL = {
    "i": "CASE WHEN r % 9 = 8 THEN NULL ELSE (r * 37 % 130) - 20 END",
    "u": "CAST(r * 7 % 12 AS UBIGINT)",
    "f": ("CASE r % 13 WHEN 0 THEN CAST('NaN' AS DOUBLE) WHEN 1 THEN CAST('inf' AS DOUBLE) WHEN 2 THEN "
          "CAST('-inf' AS DOUBLE) WHEN 3 THEN NULL WHEN 4 THEN -0.0 WHEN 5 THEN 1e20 ELSE (r * 0.37) - 3 END"),
    "dec": "CAST((r * 0.25) - 2 AS DECIMAL(9, 2))",
    "b": "CASE WHEN r % 5 = 4 THEN NULL ELSE r % 2 = 0 END",
    "d": "CASE WHEN r % 11 = 10 THEN NULL ELSE DATE '2015-01-01' + CAST(r * 97 AS INTEGER) END",
    "ts": "TIMESTAMP '1969-12-31 22:00:00.5' + to_seconds(r * 40000.25)",
    "tstz": "CAST(TIMESTAMP '2024-01-01 00:00:00' + to_seconds(r * 20000) AS TIMESTAMPTZ)",
    "s": "CASE WHEN r % 7 = 6 THEN NULL ELSE ['F', ' M ', 'x', '', 'true', '3'][r % 6 + 1] END",
}

#: (schema column name, raw column, spec): every kind over the raw types it can read.
TYPED_COLUMNS = [
    ("i_codes", "i", {"type": "codes", "codes": 100}),
    ("i_int", "i", {"type": "integer", "bounds": [-5, 60], "edges": [-5, 0, 7, 30, 60]}),
    ("i_num", "i", {"type": "numeric", "bounds": [-10, 100], "bins": 6}),
    ("i_cat", "i", {"type": "categorical", "values": [0, 17, "54", "-20", "x"]}),
    ("i_bool", "i", {"type": "boolean"}),
    ("i_date", "i", {"type": "date", "bounds": ["2015-01-01", "2024-12-31"], "unit": "year"}),
    ("u_int", "u", {"type": "integer", "bounds": [0, 10]}),
    ("f_num", "f", {"type": "numeric", "bounds": [-3, 40], "edges": [-3, -1.52, 0, 1.11, 40]}),
    ("f_int", "f", {"type": "integer", "bounds": [-3, 40], "width": 4}),
    ("f_codes", "f", {"type": "codes", "codes": 30}),
    ("f_cat", "f", {"type": "categorical", "values": [0, "1e+20", "-0.78", "x", "inf", 100000000000000000000]}),
    ("f_bool", "f", {"type": "boolean", "true": ["1e+20", "inf"], "false": ["0", "-0.0"]}),
    ("dec_num", "dec", {"type": "numeric", "bounds": [-2, 10], "width": 0.75}),
    ("b_bool", "b", {"type": "boolean"}),
    ("b_cat", "b", {"type": "categorical", "values": ["true", "no"]}),
    ("b_num", "b", {"type": "numeric", "bounds": [0, 1], "bins": 2}),
    ("d_date", "d", {"type": "date", "bounds": ["2015-01-01", "2024-12-31"], "unit": "month", "width": 5}),
    ("d_dt", "d", {"type": "datetime", "bounds": ["2016-01-01T00:00:00", "2020-01-01T00:00:00"], "unit": "week"}),
    ("ts_dt", "ts", {"type": "datetime", "bounds": ["1969-12-31T00:00:00", "1970-01-02T00:00:00"], "unit": "hour"}),
    ("ts_date", "ts", {"type": "date", "bounds": ["1969-12-31", "1970-01-20"], "unit": "day"}),
    ("tstz_dt", "tstz", {"type": "datetime", "bounds": ["2024-01-01T00:00:00", "2024-03-01T00:00:00"],
                         "unit": "day"}),
    ("s_cat", "s", {"type": "categorical", "values": ["F", "M", "true"]}),
    ("s_bool", "s", {"type": "boolean"}),
]


def typed_schema(rows: int, *, buckets: bool = True) -> Schema:
    columns = {"row": {"type": "codes", "codes": rows}}
    for name, _, spec in TYPED_COLUMNS:
        columns[name] = {**spec, "null": True, "other": True} if buckets else dict(spec)
    return Schema.from_dict({"format": "dprelease-schema/1", "columns": columns})


def write_typed_parquet(path: Path, rows: int) -> Path:
    """One Parquet file whose column ``name`` of TYPED_COLUMNS holds its raw column's values."""
    import duckdb

    selects = ", ".join(f"{TYPED_SQL[raw]} AS {name}" for name, raw, _ in TYPED_COLUMNS)
    con = duckdb.connect()
    con.execute("SET TimeZone = 'UTC'")
    con.execute(f"COPY (SELECT CAST(r AS INTEGER) AS row, {selects} FROM range({rows}) t(r)) TO '{path}' "
                "(FORMAT parquet)")
    con.close()
    return path


def by_row(codes: np.ndarray) -> np.ndarray:
    """Rows sorted by their first column (the row number)."""
    codes = np.asarray(codes)
    return codes[np.argsort(codes[:, 0], kind="stable")]
