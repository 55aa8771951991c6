"""Odd CSV files, and what every engine must make of them: the plain table's codes, or one message.

Each file holds the table of ``PLAIN`` (or is refused), as codes of ``DOMAIN`` and as raw values of ``SCHEMA``
alike. The rules (dprelease/schema/tables.py, ``csv_rows``): Python's csv in strict mode; empty lines are no
rows; a line's empty fields past the header's last are dropped (DuckDB reads them so); every other line of
another length, a quote never closed or followed by text, and lines ending in more than one way are refused.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from dprelease import Domain
from dprelease.engines.registry import open_table
from dprelease.errors import InputError
from dprelease.schema import Schema

DOMAIN = Domain(("a", "b"), (2, 3))
SCHEMA = Schema.from_dict({"a": {"type": "categorical", "values": ["0", "1"], "other": True, "null": True},
                           "b": {"type": "categorical", "values": ["1", "2", '2"x'], "other": True, "null": True}})
PLAIN = "a,b\n0,1\n1,2\n"
RAGGED = "a line has more or fewer fields than the header"
QUOTE = "a quoted field is never closed, or text follows its closing quote"

#: (name, text, None when it reads as PLAIN, else the problem its one-line error names); SECRET never shows.
CASES = [
    ("a data line ending in a delimiter", "a,b\n0,1,\n1,2\n", None),
    ("lines ending in empty fields, one quoted", 'a,b\n0,1,,\n1,2,""\n', None),
    ("empty lines between rows", "a,b\n0,1\n\n1,2\n\n", None),
    ("empty CRLF lines between rows", "a,b\r\n0,1\r\n\r\n1,2\r\n", None),
    ("an empty line before the header", "\na,b\n0,1\n1,2\n", None),
    ("CR line endings", "a,b\r0,1\r1,2\r", None),
    ("a field past the header that is not empty", "a,b\n0,1,SECRET\n1,2\n", RAGGED),
    ("a line with a field missing", "a,b\n0\n1,2\n", RAGGED),
    ("a line of spaces", "a,b\n0,1\n   \n1,2\n", RAGGED),
    ("text after a closing quote", 'a,b\n0,"1"SECRET\n1,2\n', QUOTE),
    ("a quote never closed", 'a,b\n0,1\n1,"SECRET\n', QUOTE),
    ("LF, then CRLF", "a,b\n0,1\r\n1,2\n", "its lines end in both LF and CRLF; save it with one kind of line ending"),
    ("CRLF, then LF", "a,b\r\n0,1\n1,2\r\n", "its lines end in both CRLF and LF; save it with one kind of line ending"),
    ("LF and a lone CR", "a,b\n0,1\r1,2\n", "its lines end in both LF and CR; save it with one kind of line ending"),
]
#: Headers naming SCHEMA's columns in another case: (the file's text, the error after "data file PATH").
LOOSE_HEADERS = [
    ("A,B\n0,1\n1,2\n", ": its first row names 2 of the schema's 2 columns ('a', 'b') only when case, spaces and "
                         "punctuation are ignored; names are matched exactly: write them in the schema as the file's "
                         "header does"),
    ("a,B\n0,1\n1,2\n", ": cannot encode 1 column by the schema: column 'b': missing from the table (a column of the "
                         "table has this name in another case or spacing: names are matched exactly)"),
]
#: A quote inside an unquoted field is a character of it (raw only: ``2"x`` is a category of SCHEMA, code 2).
#: A headerless file of three fields, and its whole schema: a selection reads its columns by their place.
HEADERLESS_SCHEMA = Schema.from_dict({"a": {"type": "categorical", "values": ["x", "y"], "other": True, "null": True},
                                      "skip": {"type": "categorical", "values": ["p"], "other": True},
                                      "b": {"type": "integer", "bounds": [0, 9], "null": True}})
HEADERLESS = "x,p,1\ny,q,2\nz,p,3\n,p,4\n"
#: A European export: semicolons, decimal commas, dots grouping thousands, a blank price, and (session 65) thousands
#: grouped by a no-break, a narrow no-break or a plain space, as French and Nordic exports write them, which a decimal
#: comma reads too; and the schema that reads it.
DECIMAL_SCHEMA = Schema.from_dict({"price": {"type": "numeric", "bounds": [-10, 2000], "width": 10, "clip": True,
                                             "decimal": ",", "null": True},
                                   "units": {"type": "integer", "bounds": [0, 5000], "width": 1000, "decimal": ","}})
DECIMAL = "price;units\n3,5;7\n12,25;1.200\n1.234,5;3\n-0,5;4.999\n;0\n1\u00a0234,5;2\u202f000\n1 999,0;1 234\n"
#: A US export with signs: thousands grouped by commas, a dollar sign (once with a space after it), percents; and a
#: French column (decimal comma, spaces grouping thousands, a euro sign).
SIGNS_SCHEMA = Schema.from_dict({
    "price": {"type": "numeric", "edges": [0, 100, 1000, 10000, 100000], "thousands": ",", "symbols": ["$"]},
    "share": {"type": "integer", "bounds": [0, 100], "width": 10, "symbols": ["%"]},
    "fr": {"type": "numeric", "bounds": [-10, 2000], "width": 10, "decimal": ",", "thousands": " ", "symbols": ["€"],
           "null": True}})
SIGNS = 'price,share,fr\n"1,234.50",12%,"1 234,5"\n$99.00,5%,"3,5"\n"12,000",50%,€ 12\n850.25,0%,-1\n$ 7,100 %,\n'
#: Dates as spreadsheets and portals write them, each column in its declared ``format``: a US date, a German
#: date-time, a portal's month name with a 12-hour clock, and a two-digit year (69-99: 1900s, 00-68: 2000s).
DATES_SCHEMA = Schema.from_dict({
    "visit": {"type": "date", "bounds": ["2019-01-01", "2020-12-31"], "unit": "year", "format": "%m/%d/%Y",
              "other": True, "null": True},
    "stamp": {"type": "datetime", "bounds": ["2020-01-01T00:00:00", "2020-01-31T23:59:59"], "unit": "day",
              "format": "%d.%m.%Y %H:%M", "other": True},
    "logged": {"type": "datetime", "bounds": ["2020-01-05T00:00:00", "2020-01-05T23:59:59"], "unit": "hour",
               "format": "%b %d, %Y %I:%M:%S %p", "other": True},
    "born": {"type": "date", "bounds": ["1950-01-01", "2049-12-31"], "unit": "year", "format": "%d/%m/%y",
             "other": True}})
DATES = ('visit,stamp,logged,born\n'
         '10/3/2019,05.01.2020 13:45,"Jan 05, 2020 12:00:00 AM",31/12/69\n'
         ' 2/29/2020 ,31.01.2020 00:00,"jan 5, 2020 12:30:00 pm",01/01/00\n'
         '2/30/2020,32.01.2020 10:00,"Jan 05, 2020 00:30:00 AM",1/1/2001\n'
         ',2020-01-05T10:00,"JAN 05, 2020 11:59:59 PM",15/06/49\n')
#: Each row's bin, or "other" / "null": Feb 30, Jan 32, a 12-hour clock at 0, a four-digit year under %y and ISO
#: text under a format are not dates of the column's format.
DATES_BINS = [[0, 4, 0, 19], [1, 30, 12, 50], ["other", "other", "other", "other"], ["null", "other", 23, 99]]
STRAY_QUOTE = ('a,b\n0,1\n1,2"x\n', [[1, 0, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 0, 0], [0, 0, 0, 0, 0]])


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_bytes(text.encode("utf-8"))
    return str(path)


def read(path: str, engine: str, mode: str, **options: object) -> list | str:
    """The (a, b) marginal of the file read by ``engine`` as codes or raw values, or its error's message."""
    source = {"domain": DOMAIN} if mode == "coded" else {"schema": SCHEMA}
    try:
        table = open_table(path, engine=engine, **source, **options)
    except InputError as exc:
        return str(exc)
    try:
        return table.marginal_counts(["a", "b"]).astype(int).tolist()
    finally:
        getattr(table, "close", lambda: None)()


def fuzzed_dates(text_format: str, count: int, seed: int) -> list[str]:
    """``count`` values written in ``text_format``, many of them wrong: fields out of range (month 13, day 32, 0 and 13
    on a 12-hour clock, Feb 29 of common years), one- and two-digit fields, three-digit two-digit years, month names
    in any case or misspelt, spaces around, text after, another separator."""
    rng = np.random.Generator(np.random.PCG64(seed))
    names = ["Jan", "feb", "MAR", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "Sept", "Mai",
             "\u017fep"]  # a long s: Python's Unicode case folding matches it to s, Java's (?i) does not
    full = ["January", "february", "MARCH", "April", "May", "June", "July", "August", "September", "October",
            "November", "December", "Juli", "Augu\u017ft"]
    pick = lambda options: options[int(rng.integers(len(options)))]  # noqa: E731
    out = []
    for _ in range(count):
        year = int(rng.integers(1940, 2060)) if rng.random() < 0.9 else int(rng.integers(0, 10000))
        number = lambda low, high: str(int(rng.integers(low, high + 1))).zfill(int(rng.integers(1, 3)))  # noqa: E731
        fields = {"Y": f"{year:04d}", "y": f"{year % 100:02d}" if rng.random() < 0.95 else str(year % 1000),
                  "m": number(0, 13), "d": number(0, 32), "H": number(0, 25), "I": number(0, 13), "M": number(0, 61),
                  "S": number(0, 61), "p": pick(["AM", "PM", "am", "pM", "XM"]), "b": pick(names), "B": pick(full),
                  "f": str(int(rng.integers(0, 10**6))), "%": "%"}
        text = re.sub("%(.)", lambda directive: fields[directive.group(1)], text_format)
        roll = rng.random()
        if roll < 0.1:
            text = f" {text} " if roll < 0.05 else text + "x" if roll < 0.08 else text.replace("/", "-")
        out.append(text)
    return out


FUZZED_FORMATS = ["%m/%d/%Y", "%d.%m.%Y %H:%M", "%d-%b-%y", "%B %d, %Y %I:%M:%S %p", "%Y%m%d",
                  "%m/%d/%Y %I:%M:%S.%f %p", "100%% %d/%m/%Y", "%Y-%m", "%b %Y"]  # the last two: months (the 1st)
#: Times of day alone (read on 1970-01-01): binned by the minute over that day.
FUZZED_TIMES = ["%H:%M", "%I:%M %p", "%H:%M:%S"]


def fuzzed_dates_table(tmp_path: Path) -> tuple[Path, Schema]:
    """A CSV of :func:`fuzzed_dates` in every format of FUZZED_FORMATS and FUZZED_TIMES (one column each, 1,500 rows)
    and its schema: datetimes by the day over 1960-2030, times of day by the minute over 1970-01-01, with other
    buckets for what does not parse or falls outside."""
    formats = FUZZED_FORMATS + FUZZED_TIMES
    columns = {f"c{i}": fuzzed_dates(f, 1500, seed=i) for i, f in enumerate(formats)}
    path = tmp_path / "fuzzed.csv"
    lines = [",".join(columns)] + [",".join(f'"{v}"' for v in row) for row in zip(*columns.values())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    day = {"bounds": ["1970-01-01T00:00:00", "1970-01-01T23:59:59"], "unit": "minute"}
    decades = {"bounds": ["1960-01-01T00:00:00", "2030-12-31T23:59:59"], "unit": "day"}
    schema = Schema.from_dict({name: {"type": "datetime", **(day if f in FUZZED_TIMES else decades), "format": f,
                                      "other": True, "null": True}
                               for name, f in zip(columns, formats)})
    return path, schema
