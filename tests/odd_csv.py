"""Odd CSV files, and what every engine must make of them: the plain table's codes, or one message.

Each file holds the table of ``PLAIN`` (or is refused), as codes of ``DOMAIN`` and as raw values of ``SCHEMA``
alike. The rules (dprelease/schema/tables.py, ``csv_rows``): Python's csv in strict mode; empty lines are no
rows; a line's empty fields past the header's last are dropped (DuckDB reads them so); every other line of
another length, a quote never closed or followed by text, and lines ending in more than one way are refused.
"""

from __future__ import annotations

from pathlib import Path

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
#: A quote inside an unquoted field is a character of it (raw only: ``2"x`` is a category of SCHEMA, code 2).
#: A headerless file of three fields, and its whole schema: a selection reads its columns by their place.
HEADERLESS_SCHEMA = Schema.from_dict({"a": {"type": "categorical", "values": ["x", "y"], "other": True, "null": True},
                                      "skip": {"type": "categorical", "values": ["p"], "other": True},
                                      "b": {"type": "integer", "bounds": [0, 9], "null": True}})
HEADERLESS = "x,p,1\ny,q,2\nz,p,3\n,p,4\n"
#: A European export: semicolons, decimal commas, dots grouping thousands, a blank price; and the schema that reads it.
DECIMAL_SCHEMA = Schema.from_dict({"price": {"type": "numeric", "bounds": [-10, 2000], "width": 10, "clip": True,
                                             "decimal": ",", "null": True},
                                   "units": {"type": "integer", "bounds": [0, 5000], "width": 1000, "decimal": ","}})
DECIMAL = "price;units\n3,5;7\n12,25;1.200\n1.234,5;3\n-0,5;4.999\n;0\n"
#: A US export with signs: thousands grouped by commas, a dollar sign (once with a space after it), percents; and a
#: French column (decimal comma, spaces grouping thousands, a euro sign).
SIGNS_SCHEMA = Schema.from_dict({
    "price": {"type": "numeric", "edges": [0, 100, 1000, 10000, 100000], "thousands": ",", "symbols": ["$"]},
    "share": {"type": "integer", "bounds": [0, 100], "width": 10, "symbols": ["%"]},
    "fr": {"type": "numeric", "bounds": [-10, 2000], "width": 10, "decimal": ",", "thousands": " ", "symbols": ["€"],
           "null": True}})
SIGNS = 'price,share,fr\n"1,234.50",12%,"1 234,5"\n$99.00,5%,"3,5"\n"12,000",50%,€ 12\n850.25,0%,-1\n$ 7,100 %,\n'
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
