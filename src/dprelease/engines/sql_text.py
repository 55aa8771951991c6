"""SQL text for encoding raw values inside an engine: two dialects, Python's grammars, binning by thresholds.

The in-memory encoder (:mod:`dprelease.schema.encode`) parses text with Python: ``str.strip()``,
``float()``, the ISO 8601 pattern of :func:`dprelease.schema.parse.parse_iso` and numpy's calendar. An
engine must give the same code for every value, so the SQL here spells out those grammars instead of
trusting the engine's own casts (DuckDB's and Spark's ``CAST(... AS DOUBLE)`` and date parsers each accept
text Python refuses and refuse text Python accepts):

* **whitespace** is the 29 characters for which ``str.isspace()`` holds (not only spaces);
* **numbers** are matched against Python's ``float()`` grammar (underscores between digits, ``1.``,
  ``.5``, ``inf``/``infinity``/``nan`` in any case) before the engine converts the digits, correctly
  rounded in both engines; a number too large for a float is infinite, as in Python;
* **dates** are matched against the ISO pattern, their fields checked as numpy checks them (month,
  days of the month in the proleptic Gregorian calendar, 24-hour clock), and turned into days or
  seconds since 1970-01-01 by integer arithmetic (Howard Hinnant's ``days_from_civil``), with the zone
  offset subtracted: the same integers :func:`~dprelease.schema.parse.parse_iso` returns.

Python's ``float()`` and ``re``'s ``\\d`` also accept non-ASCII decimal digits (``'٣'`` is 3.0); the SQL
here does not, so such a value is "not a number" in an engine (docs/decisions.md).

Everything here is built from the public schema: no private value is read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from dprelease.schema.parse import MONTH_NAMES, TWO_DIGIT_PIVOT, format_regex

#: The characters ``str.strip()`` removes (``str.isspace()``), in code-point order.
WHITESPACE = ("\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007"
              "\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000")
#: The same set as a regular-expression class (RE2 and Java both read ``\\x{h}``).
SPACE_CLASS = "[" + "".join(f"\\x{{{ord(c):x}}}" for c in WHITESPACE) + "]"
_DIGITS = "[0-9](?:_?[0-9])*"
#: Python's ``float()`` literal grammar, without inf and nan (ASCII digits).
NUMBER = rf"\A[+-]?(?:{_DIGITS}(?:\.(?:{_DIGITS})?)?|\.{_DIGITS})(?:[eE][+-]?{_DIGITS})?\z"
NAN = r"(?i)\A[+-]?nan\z"
PLUS_INFINITY = r"(?i)\A\+?inf(?:inity)?\z"
MINUS_INFINITY = r"(?i)\A-inf(?:inity)?\z"
#: :data:`dprelease.schema.parse._ISO` with its fields as groups: 1 year, 2 month, 3 day, 4 hour, 5 minute,
#: 6 second, 7 the zone (DuckDB extracts groups 0..9 only).
ISO = (r"\A([0-9]{4})-([0-9]{2})-([0-9]{2})(?:[T ]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.[0-9]{1,9})?)?)?"
       rf"{SPACE_CLASS}*(Z|[+-][0-9]{{2}}:?[0-9]{{2}})?\z")
#: Thresholds placed by one flat CASE below this many; a balanced tree of CASEs above.
_FLAT = 8


@dataclass(frozen=True, slots=True)
class Dialect:
    """How one engine spells the few things that differ: literals, regular expressions, division, dates."""

    name: str

    def __post_init__(self) -> None:
        if self.name not in ("duckdb", "spark"):
            raise ValueError(f"dialect must be 'duckdb' or 'spark', got {self.name!r}")

    # ------------------------------------------------------------- literals
    def text(self, value: str) -> str:
        """A string literal. Spark SQL unescapes backslashes in literals; DuckDB takes them as they are."""
        if self.name == "duckdb":
            return "'" + value.replace("'", "''") + "'"
        out = []
        for char in value:
            if char in "\\'":
                out.append("\\" + char)
            elif char.isascii() and char.isprintable():
                out.append(char)
            else:
                out.extend(f"\\u{unit:04x}" for unit in _utf16(char))
        return "'" + "".join(out) + "'"

    def double(self, value: float) -> str:
        """A DOUBLE literal that is exactly ``value`` (repr round-trips; a bare 0.1 is a DECIMAL in DuckDB)."""
        if math.isnan(value):
            return "CAST('NaN' AS DOUBLE)"
        if math.isinf(value):
            return f"CAST('{'-' if value < 0 else ''}Infinity' AS DOUBLE)"
        return f"CAST('{float(value)!r}' AS DOUBLE)"

    def string_type(self) -> str:
        return "VARCHAR" if self.name == "duckdb" else "STRING"

    def quote(self, identifier: str) -> str:
        """A column name as an identifier (names come from the public schema)."""
        if self.name == "duckdb":
            return '"' + identifier.replace('"', '""') + '"'
        return "`" + identifier.replace("`", "``") + "`"

    def whole(self, expr: str) -> str:
        """A whole DOUBLE as a BIGINT (NULL beyond BIGINT's range: never an error, whatever the row)."""
        return f"try_cast({expr} AS BIGINT)"

    # -------------------------------------------------------------- strings
    def matches(self, expr: str, pattern: str) -> str:
        """Whether the text matches ``pattern`` (anchored by the pattern itself)."""
        if self.name == "duckdb":
            return f"regexp_matches({expr}, {self.text(pattern)})"
        return f"({expr} RLIKE {self.text(pattern)})"

    def extract(self, expr: str, pattern: str, group: int) -> str:
        """Group ``group`` of the first match ('' when the group took no part)."""
        return f"regexp_extract({expr}, {self.text(pattern)}, {group})"

    def strip(self, expr: str) -> str:
        """``str.strip()``: Python's whitespace off both ends.

        DuckDB's ``trim`` with a set of multi-byte characters is several times slower than its plain ``trim``
        (spaces) and a regular expression that finds no other whitespace at either end, so it runs only
        where some is (3.4 s against 0.4 s on 4 million cells)."""
        if self.name == "duckdb":
            spaces = f"trim({expr})"
            edges = self.matches(spaces, rf"\A{SPACE_CLASS}|{SPACE_CLASS}\z")
            return f"(CASE WHEN {edges} THEN trim({expr}, {self.text(WHITESPACE)}) ELSE {spaces} END)"
        return f"trim(BOTH {self.text(WHITESPACE)} FROM {expr})"

    def position(self, expr: str, keys: Sequence[str]) -> str:
        """The 0-based index of the text in ``keys``, NULL when absent (a CASE for short lists)."""
        if not keys:
            return "CAST(NULL AS BIGINT)"
        if len(keys) <= 64:
            whens = " ".join(f"WHEN {self.text(k)} THEN {i}" for i, k in enumerate(keys))
            return f"(CASE {expr} {whens} END)"
        items = ", ".join(self.text(k) for k in keys)
        if self.name == "duckdb":
            return f"(list_position([{items}], {expr}) - 1)"
        return f"nullif(array_position(array({items}), {expr}) - 1, -1)"

    # --------------------------------------------------------------- numbers
    def div(self, a: str, b: str) -> str:
        """Integer division of a non-negative ``a`` by a positive ``b`` (both engines truncate)."""
        return f"({a} // {b})" if self.name == "duckdb" else f"({a} div {b})"

    def floor_div(self, a: str, b: int) -> str:
        """Floor division of any BIGINT ``a`` by a positive integer ``b``."""
        return f"(CASE WHEN {a} >= 0 THEN {self.div(a, str(b))} ELSE -{self.div(f'(-({a}) + {b - 1})', str(b))} END)"

    def is_infinite(self, expr: str) -> str:
        return f"(abs({expr}) = {self.double(math.inf)})"

    def python_float(self, stripped: str) -> str:
        """Python's ``float(text)`` of a stripped text as a DOUBLE (NaN for 'nan'), NULL where it raises."""
        digits = f"replace({stripped}, '_', '')"
        return (f"(CASE WHEN {self.matches(stripped, NUMBER)} THEN try_cast({digits} AS DOUBLE) "
                f"WHEN {self.matches(stripped, NAN)} THEN {self.double(math.nan)} "
                f"WHEN {self.matches(stripped, PLUS_INFINITY)} THEN {self.double(math.inf)} "
                f"WHEN {self.matches(stripped, MINUS_INFINITY)} THEN {self.double(-math.inf)} END)")

    # ----------------------------------------------------------------- dates
    def date_days(self, expr: str) -> str:
        """Days since 1970-01-01 of a DATE."""
        if self.name == "duckdb":
            return f"date_diff('day', DATE '1970-01-01', {expr})"
        return f"CAST(unix_date({expr}) AS BIGINT)"

    def interval_seconds(self, expr: str) -> str:
        """Seconds of a duration (DuckDB's INTERVAL, Spark's day-time interval) as a DOUBLE: numpy's reading of it."""
        if self.name == "duckdb":
            return f"epoch({expr})"
        return f"(CAST(unix_micros(timestamp_micros(0) + {expr}) AS DOUBLE) / 1e6)"  # exact: micros from the epoch

    def timestamp_seconds(self, expr: str, sql_type: str) -> str:
        """Whole seconds since 1970-01-01 UTC of a timestamp, floored (numpy's cast to datetime64[s])."""
        if self.name == "duckdb":
            if sql_type.upper() == "TIMESTAMP_NS":
                return self.floor_div(f"epoch_ns({expr})", 10**9)
            return self.floor_div(f"epoch_us({expr})", 10**6)
        if sql_type == "TimestampNTZType":  # wall-clock fields, read as UTC (as numpy reads a naive time)
            return (f"(CAST(unix_date(CAST({expr} AS DATE)) AS BIGINT) * 86400 + hour({expr}) * 3600 "
                    f"+ minute({expr}) * 60 + second({expr}))")
        return self.floor_div(f"unix_micros({expr})", 10**6)


def _utf16(char: str) -> list[int]:
    data = char.encode("utf-16-be")
    return [int.from_bytes(data[i:i + 2], "big") for i in range(0, len(data), 2)]


DUCKDB = Dialect("duckdb")
SPARK = Dialect("spark")


# ------------------------------------------------------------------------ ISO dates
def iso_fields(dialect: Dialect, stripped: str) -> list[tuple[str, str]]:
    """(suffix, SQL) of the ISO fields of a stripped text as BIGINTs: y, mo, d (NULL when the text is not ISO),
    h, mi, s (0 when absent) and z, the zone offset in seconds (0 when absent)."""
    def group(k: int) -> str:
        return f"CAST(nullif({dialect.extract(stripped, ISO, k)}, '') AS BIGINT)"

    # Without a match every group is '', so the year, month and day are NULL exactly when the text is not ISO.
    fields = [("y", group(1)), ("mo", group(2)), ("d", group(3))]
    fields += [(name, f"coalesce({group(k)}, 0)") for name, k in (("h", 4), ("mi", 5), ("s", 6))]
    zone = dialect.extract(stripped, ISO, 7)  # '', 'Z', '+hh:mm' or '+hhmm'
    offset = (f"(CASE WHEN substr({zone}, 1, 1) = '-' THEN -1 ELSE 1 END) * (CAST(substr({zone}, 2, 2) AS BIGINT) "
              f"* 3600 + CAST(right({zone}, 2) AS BIGINT) * 60)")
    fields.append(("z", f"(CASE WHEN length({zone}) >= 5 THEN {offset} ELSE 0 END)"))
    return fields


def format_fields(dialect: Dialect, stripped: str, text_format: str) -> list[tuple[str, str]]:
    """:func:`iso_fields` for text written in a column's ``format``: the fields of
    :func:`dprelease.schema.parse.format_regex`'s expression (the one the memory engine matches), read by the same
    rules as :func:`dprelease.schema.parse.parse_formatted_times` (two-digit years, month names, the 12-hour clock),
    for :func:`iso_seconds` to check. The year is NULL when the text does not match; the zone is always 0 (UTC)."""
    body, groups = format_regex(text_format)
    pattern = rf"(?i)\A{body}\z"

    def text(field: str) -> str:
        return dialect.extract(stripped, pattern, groups[field])

    def number(field: str) -> str:
        return f"CAST(nullif({text(field)}, '') AS BIGINT)"

    if "y" in groups:
        year = number("y")
    elif "yy" in groups:
        year = f"({number('yy')} + (CASE WHEN {number('yy')} >= {TWO_DIGIT_PIVOT} THEN 1900 ELSE 2000 END))"
    else:  # a time of day alone (parse.time_of_day): on 1970-01-01, where the text matches
        year = f"(CASE WHEN {dialect.extract(stripped, pattern, 0)} <> '' THEN 1970 END)"
    if "mo" in groups:
        month = number("mo")
    elif not groups.keys() & {"mon", "month"}:
        month = "1"
    else:
        name = "mon" if "mon" in groups else "month"
        cases = " ".join(f"WHEN {dialect.text(m[:3] if name == 'mon' else m)} THEN {i}"
                         for i, m in enumerate(MONTH_NAMES, start=1))
        month = f"(CASE lower({text(name)}) {cases} END)"
    if "h12" in groups:  # 12 AM is 0 h, 12 PM 12 h; a 12-hour clock reading 0 or above 12 fails the check (99)
        twelve = number("h12")
        hour = (f"(CASE WHEN {twelve} BETWEEN 1 AND 12 THEN {twelve} % 12 + "
                f"(CASE WHEN lower({text('p')}) = 'pm' THEN 12 ELSE 0 END) ELSE 99 END)")
    else:
        hour = f"coalesce({number('h')}, 0)" if "h" in groups else "0"
    minute = f"coalesce({number('mi')}, 0)" if "mi" in groups else "0"
    second = f"coalesce({number('s')}, 0)" if "s" in groups else "0"
    day = number("d") if "d" in groups else "1"
    return [("y", year), ("mo", month), ("d", day), ("h", hour), ("mi", minute), ("s", second), ("z", "0")]


def iso_seconds(dialect: Dialect, y: str, mo: str, d: str, h: str, mi: str, s: str, z: str) -> str:
    """Seconds since 1970-01-01 UTC of checked ISO fields, NULL where numpy refuses the date or the clock."""
    leap = f"(({y} % 4 = 0 AND {y} % 100 <> 0) OR {y} % 400 = 0)"
    month_days = (f"(CASE WHEN {mo} = 2 THEN (CASE WHEN {leap} THEN 29 ELSE 28 END) "
                  f"WHEN {mo} IN (4, 6, 9, 11) THEN 30 ELSE 31 END)")
    valid = (f"{mo} BETWEEN 1 AND 12 AND {d} >= 1 AND {d} <= {month_days} AND {h} <= 23 AND {mi} <= 59 "
             f"AND {s} <= 59")
    # days_from_civil (H. Hinnant): the year shifted to start in March, so the leap day ends it.
    shifted = f"({y} - (CASE WHEN {mo} <= 2 THEN 1 ELSE 0 END))"
    era = f"(CASE WHEN {shifted} >= 0 THEN {dialect.div(shifted, '400')} ELSE -1 END)"
    year_of_era = f"({shifted} - {era} * 400)"
    day_of_year = f"({dialect.div(f'(153 * (CASE WHEN {mo} > 2 THEN {mo} - 3 ELSE {mo} + 9 END) + 2)', '5')} + {d} - 1)"
    day_of_era = (f"({year_of_era} * 365 + {dialect.div(year_of_era, '4')} - {dialect.div(year_of_era, '100')} "
                  f"+ {day_of_year})")
    days = f"({era} * 146097 + {day_of_era} - 719468)"
    return f"(CASE WHEN {y} IS NOT NULL AND {valid} THEN {days} * 86400 + {h} * 3600 + {mi} * 60 + {s} - {z} END)"


# ------------------------------------------------------------------------- binning
def place(dialect: Dialect, value: str, thresholds: Sequence[int | float], *, integral: bool) -> str:
    """``#{t in thresholds : t <= value}`` (numpy's ``searchsorted(..., side="right")``) as SQL.

    Evenly spaced integer thresholds (one bin per unit, a width) are one division; others a balanced
    tree of CASEs, depth log2 of their number. ``integral``: the value and thresholds are whole numbers
    (BIGINT, or a whole DOUBLE within 2^53, cast exactly).
    """
    count = len(thresholds)
    if count == 0:
        return "0"

    def literal(t: int | float) -> str:
        return str(int(t)) if integral else dialect.double(float(t))

    steps = {b - a for a, b in zip(thresholds, thresholds[1:])}
    if integral and count >= 3 and len(steps) == 1:
        step, first = steps.pop(), int(thresholds[0])
        whole = dialect.whole(value)
        return (f"(CASE WHEN {whole} < {first} THEN 0 ELSE "
                f"least({dialect.div(f'({whole} - {first})', str(step))} + 1, {count}) END)")

    def tree(lo: int, hi: int) -> str:  # the answer lies in lo..hi, given thresholds[lo-1] <= value < thresholds[hi]
        if hi - lo <= _FLAT:
            whens = " ".join(f"WHEN {value} < {literal(thresholds[i])} THEN {i}" for i in range(lo, hi))
            return f"(CASE {whens} ELSE {hi} END)" if whens else str(hi)
        mid = (lo + hi) // 2
        return f"(CASE WHEN {value} < {literal(thresholds[mid])} THEN {tree(lo, mid)} ELSE {tree(mid + 1, hi)} END)"

    return tree(0, count)
