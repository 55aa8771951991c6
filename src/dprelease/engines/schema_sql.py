"""A public schema as SQL: every column's encoding as CASE and bin expressions, run inside the engine.

:func:`plan` turns a :class:`~dprelease.schema.Schema` and the types of the raw table's columns into an
:class:`Encoding`: a few stages of SQL expressions (text, then parsed values, then a status per value, then
the code) that DuckDB runs as nested ``SELECT``s and Spark as chained ``select``s. The codes are those of
the in-memory encoder (:mod:`dprelease.schema.encode`), value for value: the same statuses in the same
order (NULL, a value of the wrong kind, a value outside the bounds), the same buckets, the same clipping,
the same thresholds (``#{t <= v}``). ``tests/test_schema_sql.py`` checks it against the in-memory encoder
on tricky values of every kind.

A value that has no place (NULL without a ``null`` bucket, a wrong value without ``other``, a value out of
bounds without ``other`` or ``clip``) gets a negative code: -1, -2, -4, the kind of its problem
(``schema.encode``'s NULL, UNPARSABLE, BELOW). The engine checks for them in one aggregate and
:func:`problems_message` names each column and problem in the in-memory encoder's own words.

Raw types: text; integers; floats and decimals; booleans; dates and timestamps (as date or datetime
columns). A typed date or timestamp under another kind is refused with a clear error (the in-memory
engine reads it as its ISO text). Everything here is built from the public schema and the column types.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from dprelease.errors import InputError
from dprelease.schema.between import per_unit, until_units
from dprelease.schema.binned import DURATION_SQL, DateColumn, DatetimeColumn, IntegerColumn, NumericColumn, _Binned
from dprelease.schema.columns import BooleanColumn, CategoricalColumn, CodesColumn, Column
from dprelease.schema.encode import ABOVE, BELOW, NULL, OK, UNPARSABLE, blank_rows_hint, describe
from dprelease.schema.parse import as_text
from dprelease.schema.schema import Schema
from dprelease.schema.tables import missing_problems
from dprelease.engines.sql_text import Dialect, format_fields, iso_fields, iso_seconds, place

#: The raw column classes, by the engine's type names (DuckDB's DESCRIBE; Spark's DataType class names).
TEXT, INT, FLOAT, BOOL, DATE, TIMESTAMP = "text", "integer", "float", "boolean", "date", "timestamp"
_DUCKDB_TYPES = {
    **dict.fromkeys(("VARCHAR", "ENUM"), TEXT),
    **dict.fromkeys(("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER", "UBIGINT"), INT),
    **dict.fromkeys(("FLOAT", "DOUBLE", "DECIMAL", "HUGEINT", "UHUGEINT"), FLOAT),  # HUGEINT: numpy reads float64
    "BOOLEAN": BOOL, "DATE": DATE, "INTERVAL": FLOAT,  # a duration: read as its seconds, as in memory
    **dict.fromkeys(("TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS", "TIMESTAMP_NS", "TIMESTAMP WITH TIME ZONE"),
                    TIMESTAMP),
}
_SPARK_TYPES = {
    "StringType": TEXT, "VarcharType": TEXT, "CharType": TEXT,
    **dict.fromkeys(("ByteType", "ShortType", "IntegerType", "LongType"), INT),
    **dict.fromkeys(("FloatType", "DoubleType", "DecimalType"), FLOAT),
    "BooleanType": BOOL, "DateType": DATE, "TimestampType": TIMESTAMP, "TimestampNTZType": TIMESTAMP,
    "DayTimeIntervalType": FLOAT,  # read as its seconds, as DuckDB's INTERVAL and numpy's timedelta64
}
#: The engines' duration types: read as their seconds (:meth:`Dialect.interval_seconds`).
_INTERVALS = ("INTERVAL", "DAYTIMEINTERVALTYPE")
_NUMBER_KINDS = (NumericColumn, IntegerColumn, CodesColumn)
_TIME_KINDS = (DateColumn, DatetimeColumn)
#: Thresholds of an unevenly binned column an engine encodes at most (a tree of CASEs, one per threshold).
MAX_UNEVEN_THRESHOLDS = 20_000
#: The problem codes, as negative codes (the in-memory encoder's status constants).
PROBLEMS = (NULL, UNPARSABLE, BELOW)


def raw_class(dialect: Dialect, sql_type: str) -> str | None:
    """The class of a raw column from its engine type name, or None for a type no engine encodes."""
    if dialect.name == "duckdb":
        base = sql_type.upper().split("(")[0].strip()
        return _DUCKDB_TYPES.get(base)
    return _SPARK_TYPES.get(sql_type)


@dataclass(frozen=True)
class Encoding:
    """Stages of (alias, SQL): stage k reads the raw columns (k = 0) or every alias of the stages before it.

    ``codes[i]`` is the SQL of column i's code over the last stage's aliases (a negative code marks a
    problem); ``examples[i]`` the alias holding the value that an error with ``show_values`` quotes.
    """

    stages: tuple[tuple[tuple[str, str], ...], ...]
    codes: tuple[str, ...]
    examples: tuple[str, ...]
    names: tuple[str, ...]


def plan(schema: Schema, types: Mapping[str, str], dialect: Dialect, *, csv: bool = False,
         label: str = "the table") -> Encoding:
    """The SQL encoding of ``schema``'s columns (all present in ``types``: name -> engine type name).

    ``csv``: the table was read from CSV, where every cell is text and an empty cell is '' (the engines read
    it as NULL). Raises an InputError naming every column whose raw type the engines do not encode.
    """
    builder = _Builder(dialect, schema, csv)
    refused = []
    for i, column in enumerate(schema.columns):
        if getattr(column, "between", None) is not None:
            continue  # computed from its dates, below (a table's own column of its name is not read)
        sql_type = types[column.name]
        kind = raw_class(dialect, sql_type)
        if kind is None or (kind in (DATE, TIMESTAMP) and not isinstance(column, _TIME_KINDS)):
            refused.append(f"column {column.name!r} has type {sql_type}, which engine {dialect.name!r} does not "
                           f"encode as a {column.kind} column")
            continue
        builder.column(i, column, kind, sql_type)
    if refused:
        hint = ("engine 'memory' reads such a column of a file as its text; a Spark DataFrame's can be cast to a "
                "string first" if dialect.name == "spark" else "engine 'memory' reads such a column as its text")
        raise InputError(f"{label}: " + "; ".join(refused) + f" ({hint})")
    for i, column in enumerate(schema.columns):
        if getattr(column, "between", None) is not None:
            builder.between(i, column)
    return builder.finish()


def problems_message(label: str, schema: Schema, missing: Sequence[str], found: Mapping[tuple[int, int], object],
                     *, show_values: bool = False, present: Collection[str] = ()) -> str | None:
    """The in-memory encoder's error for these problems (None when there are none).

    ``found[(i, kind)]``: column i has values with problem ``kind``; the value is (rows, examples) when
    ``show_values``, else anything true.
    ``present``: every column name the table has (for the hint on a missing column named another way).
    """
    problems = missing_problems(missing, present)
    for i, column in enumerate(schema.columns):
        for kind in PROBLEMS:
            if found.get((i, kind)):
                rows, examples = found[(i, kind)] if show_values else (0, [])
                problems.append(f"column {column.name!r}: {describe(column, (kind, rows, examples), show_values)}")
    if not problems:
        return None
    count = len({p.split(":")[0] for p in problems})
    return (f"{label}: cannot encode {count} column{'s' if count > 1 else ''} by the schema: " + "; ".join(problems)
            + blank_rows_hint(problems))


# ----------------------------------------------------------------------------- building
class _Builder:
    def __init__(self, dialect: Dialect, schema: Schema, csv: bool) -> None:
        self.d, self.schema, self.csv = dialect, schema, csv
        self.stages: list[list[tuple[str, str]]] = [[], [], [], [], [], []]
        self.codes: dict[int, str] = {}
        self.examples: dict[int, str] = {}
        self.units: dict[str, str] = {}  # a date column's alias of its value in days or seconds, by name

    def add(self, stage: int, alias: str, sql: str) -> str:
        self.stages[stage].append((alias, sql))
        return alias

    def finish(self) -> Encoding:
        stages = tuple(tuple(s) for s in self.stages if s)
        order = sorted(self.codes)
        return Encoding(stages, tuple(self.codes[i] for i in order), tuple(self.examples[i] for i in order),
                        self.schema.names)

    def between(self, i: int, column: IntegerColumn) -> None:
        """A column computed between two date or integer columns (:mod:`dprelease.schema.between`): floor((second -
        first) / unit) of their values as read, NULL where either's code is its NULL or other bucket (and 0, no
        problem of its own, where a source has a problem: that source's problem is reported); as the in-memory
        encoder's ``_encode_between``."""
        d, names = self.d, list(self.schema.names)
        sources = [names.index(name) for name in column.between]
        per = per_unit(self.schema, column)
        first, second = (self.units[name] for name in column.between)
        until = until_units(column, self.schema.column(column.between[1]))
        if until is not None:  # a blank second stands for until: as the in-memory encoder's
            second = f"(CASE WHEN {self.codes[sources[1]]} = {self.schema.columns[sources[1]].null_code} THEN " \
                     f"{until} ELSE {second} END)"
        if isinstance(self.schema.column(column.between[0]), IntegerColumn):
            # Integers as DOUBLEs, as numpy reads them: whole where the row is not blank or failed (their difference
            # too, so no floor: Spark's floor() of a DOUBLE is a BIGINT); an infinite one (clipped) gives a blank.
            finite = " AND ".join(f"NOT isnan({v}) AND NOT {d.is_infinite(v)}" for v in (first, second))
            gap = self.add(4, f"__dp{i}_g", f"(CASE WHEN {finite} THEN {second} - {first} END)")
        else:
            gap = self.add(4, f"__dp{i}_g", d.floor_div(f"({second} - {first})", per))
        blank, failed = [], []
        for k in sources:
            buckets = [str(c) for c in (self.schema.columns[k].null_code, self.schema.columns[k].other_code)
                       if c is not None and not (k == sources[1] and until is not None
                                                 and c == self.schema.columns[k].null_code)]
            if buckets:
                blank.append(f"{self.codes[k]} IN ({', '.join(buckets)})")
            failed.append(f"{self.codes[k]} < 0")
        low, high = column.bounds
        null = " OR ".join([*blank, f"{gap} IS NULL"])
        status = (f"(CASE WHEN {' OR '.join(failed)} THEN {OK} WHEN {null} THEN {NULL} WHEN {gap} < {low} "
                  f"THEN {BELOW} WHEN {gap} > {high} THEN {ABOVE} ELSE {OK} END)")
        st = self.add(5, f"__dp{i}_st", status)
        code = f"(CASE WHEN {' OR '.join(failed)} THEN 0 ELSE {place(d, gap, column.thresholds, integral=True)} END)"
        self.examples[i] = gap
        self.codes[i] = self._code(column, st, code)

    # ----------------------------------------------------------------- a column
    def column(self, i: int, column: Column, kind: str, sql_type: str) -> None:
        d, raw = self.d, self.d.quote(column.name)
        a = f"__dp{i}_"  # aliases: a prefix no schema column is likely to carry, and distinct per column
        if kind == FLOAT:
            raw = d.interval_seconds(raw) if sql_type.upper() in _INTERVALS else f"CAST({raw} AS DOUBLE)"
        elif kind == TEXT and sql_type.upper().startswith("ENUM"):
            raw = f"CAST({raw} AS {d.string_type()})"
        typed_number = kind in (INT, FLOAT) and isinstance(column, _NUMBER_KINDS)
        if typed_number:
            value = self.add(0, a + "v", raw)
            null = f"({value} IS NULL)"
            status, code = self._number(column, value, null, integral_value=kind == INT, stage=1, a=a)
        elif kind == FLOAT:  # a float read as its text by a text kind: matched through its exact value
            value = self.add(0, a + "v", raw)
            status, code = self._float_as_text(column, value)
        elif kind == BOOL and isinstance(column, BooleanColumn):
            value = self.add(0, a + "v", raw)
            status = f"(CASE WHEN {value} IS NULL THEN {NULL} ELSE {OK} END)"
            code = f"(CASE WHEN {value} THEN 1 ELSE 0 END)"
        elif kind in (DATE, TIMESTAMP):
            value = self.add(0, a + "v", raw)
            if kind == DATE:
                units = d.date_days(value) if isinstance(column, DateColumn) else f"({d.date_days(value)} * 86400)"
            else:
                seconds = d.timestamp_seconds(value, sql_type)
                units = d.floor_div(seconds, 86400) if isinstance(column, DateColumn) else seconds
            unit = self.units[column.name] = self.add(1, a + "u", units)
            status, code = self._binned(column, unit, f"({value} IS NULL)", integral=True)
        else:  # text, or a typed value read as its text (integers, booleans)
            value = self.add(0, a + "v", self._text(raw, kind))
            status, code = self._text_kind(column, value, a)
        self.examples[i] = value
        st = self.add(3, a + "st", status)
        self.codes[i] = self._code(column, st, code)

    def _text(self, raw: str, kind: str) -> str:
        """The text the in-memory encoder matches: as read (CSV: '' for an empty cell), stripped when asked."""
        d = self.d
        if kind == INT:
            return f"CAST({raw} AS {d.string_type()})"
        if kind == BOOL:
            return f"(CASE WHEN {raw} THEN 'true' WHEN NOT {raw} THEN 'false' END)"
        text = f"coalesce({raw}, '')" if self.csv else raw
        # Unstripped (strip: false), a CSV cell is what DuckDB read; Python's reader also drops spaces after a
        # delimiter outside quotes (skipinitialspace), which DuckDB keeps: docs/decisions.md.
        return d.strip(text) if self.schema.strip else text

    def _null_text(self, column: Column, text: str) -> str:
        tokens = self.schema.null_tokens_of(column)
        if not tokens:
            return f"({text} IS NULL)"
        return f"({text} IS NULL OR {text} IN ({', '.join(self.d.text(t) for t in tokens)}))"

    def _text_kind(self, column: Column, text: str, a: str) -> tuple[str, str]:
        d = self.d
        null = self._null_text(column, text)
        stripped = text if self.schema.strip else d.strip(text)  # float() and parse_iso strip whatever the schema
        if isinstance(column, CategoricalColumn):
            code = self.add(1, a + "k", d.position(text, column.keys))
            return f"(CASE WHEN {null} THEN {NULL} WHEN {code} IS NULL THEN {UNPARSABLE} ELSE {OK} END)", code
        if isinstance(column, BooleanColumn):
            word = f"lower({text})"
            truth = (f"(CASE WHEN {word} IN ({', '.join(d.text(w) for w in column.true)}) THEN 1 "
                     f"WHEN {word} IN ({', '.join(d.text(w) for w in column.false)}) THEN 0 END)")
            code = self.add(1, a + "k", truth)
            return f"(CASE WHEN {null} THEN {NULL} WHEN {code} IS NULL THEN {UNPARSABLE} ELSE {OK} END)", code
        if isinstance(column, IntegerColumn) and column.format is not None:  # durations, h:mm:ss: their seconds
            seconds = self.add(1, a + "f", duration_seconds_sql(d, stripped))
            return self._number(column, seconds, null, integral_value=True, stage=2, a=a)
        if isinstance(column, _NUMBER_KINDS):
            if not getattr(column, "plain_numbers", True):  # as schema.binned.number_text: symbols, thousands, comma
                for symbol in column.symbols:
                    stripped = f"replace({stripped}, {d.text(symbol)}, '')"
                for grouping in column.grouping_characters:
                    stripped = f"replace({stripped}, {d.text(grouping)}, '')"
                if column.decimal == ",":
                    stripped = f"replace({stripped}, ',', '.')"
                if column.symbols:  # "$ 5": the space the sign left
                    stripped = d.strip(stripped)
            value = self.add(1, a + "f", d.python_float(stripped))
            return self._number(column, value, null, integral_value=False, stage=2, a=a)
        written = iso_fields(d, stripped) if column.format is None else format_fields(d, stripped, column.format)
        fields = {name: self.add(1, a + name, sql) for name, sql in written}
        dated = isinstance(column, DateColumn)  # a date as written: its time of day and offset dropped (parse_iso)
        seconds = iso_seconds(d, fields["y"], fields["mo"], fields["d"], fields["h"], fields["mi"], fields["s"],
                              "0" if dated else fields["z"])
        unit = self.units[column.name] = self.add(2, a + "u", d.floor_div(seconds, 86400) if dated else seconds)
        return self._binned(column, unit, null, integral=True)

    def _number(self, column: Column, value: str, null: str, *, integral_value: bool, stage: int,
                a: str) -> tuple[str, str]:
        """Status and code of a number (a DOUBLE that may be NaN or infinite, or a BIGINT) in a number kind."""
        d = self.d
        if isinstance(column, NumericColumn):
            if integral_value:
                value = self.add(stage, a + "x", f"CAST({value} AS DOUBLE)")  # numpy compares floats here
            return self._binned(column, value, null, integral=False, double=True)
        if isinstance(column, IntegerColumn):  # the source of a between column: its value as numpy reads it
            self.units[column.name] = f"CAST({value} AS DOUBLE)"
        if integral_value:  # compared as integers (exact whatever their size)
            if isinstance(column, CodesColumn):
                outside = f"{value} < 0 OR {value} >= {column.value_count}"
                return f"(CASE WHEN {null} THEN {NULL} WHEN {outside} THEN {ABOVE} ELSE {OK} END)", value
            return self._binned(column, value, null, integral=True)
        # x % 1 tests wholeness without a conversion (Spark's floor() returns a BIGINT and overflows on 1e300).
        special = (f"WHEN {null} THEN {NULL} WHEN {value} IS NULL THEN {UNPARSABLE} WHEN isnan({value}) THEN {NULL} ")
        if isinstance(column, CodesColumn):
            status = (f"(CASE {special}WHEN {d.is_infinite(value)} OR {value} % 1 <> 0 THEN {UNPARSABLE} "
                      f"WHEN {value} < 0 OR {value} >= {column.value_count} THEN {ABOVE} ELSE {OK} END)")
            return status, d.whole(value)
        low, high = column.bounds
        status = (f"(CASE {special}WHEN {value} = {d.double(math.inf)} THEN {ABOVE} "
                  f"WHEN {value} = {d.double(-math.inf)} THEN {BELOW} WHEN {value} % 1 <> 0 THEN {UNPARSABLE} "
                  f"WHEN {value} < {low} THEN {BELOW} WHEN {value} > {high} THEN {ABOVE} ELSE {OK} END)")
        return status, place(d, value, column.thresholds, integral=True)

    def _binned(self, column: _Binned, value: str, null: str, *, integral: bool,
                double: bool = False) -> tuple[str, str]:
        """Status and code of a value in the column's unit (NULL: not parsed) against the bounds and bins."""
        d = self.d
        low, high = column.bounds
        lo, hi = (d.double(low), d.double(high)) if double else (str(low), str(high))
        nan = f"WHEN isnan({value}) THEN {NULL} " if double else ""
        status = (f"(CASE WHEN {null} THEN {NULL} WHEN {value} IS NULL THEN {UNPARSABLE} {nan}"
                  f"WHEN {value} < {lo} THEN {BELOW} WHEN {value} > {hi} THEN {ABOVE} ELSE {OK} END)")
        if not integral and len(column.thresholds) > MAX_UNEVEN_THRESHOLDS:
            raise InputError(f"schema column {column.name!r} has {len(column.thresholds) + 1:,} bins; an engine encodes "
                             f"at most {MAX_UNEVEN_THRESHOLDS + 1:,} uneven bins (engine 'memory' takes any number)")
        if integral and not _even(column.thresholds) and len(column.thresholds) > MAX_UNEVEN_THRESHOLDS:
            raise InputError(f"schema column {column.name!r} has {len(column.thresholds) + 1:,} uneven bins; an engine "
                             f"encodes at most {MAX_UNEVEN_THRESHOLDS + 1:,} (engine 'memory' takes any number)")
        return status, place(d, value, column.thresholds, integral=integral)

    def _float_as_text(self, column: Column, value: str) -> tuple[str, str]:
        """A float under a text kind: the in-memory encoder matches its text (:func:`as_text`), so each key
        matches the one float whose text it is, if any."""
        d = self.d
        tokens = [x for x in map(_float_of_text, self.schema.null_tokens_of(column)) if x is not None]
        null = " OR ".join([f"{value} IS NULL", f"isnan({value})", *(f"{value} = {d.double(x)}" for x in tokens)])
        if isinstance(column, CategoricalColumn):
            pairs = [(x, code) for code, key in enumerate(column.keys) if (x := _float_of_text(key)) is not None]
        elif isinstance(column, BooleanColumn):
            pairs = [(x, 1) for w in column.true if (x := _float_of_text(w)) is not None]
            pairs += [(x, 0) for w in column.false if (x := _float_of_text(w)) is not None]
        else:  # dates and datetimes: no float's text is an ISO date
            pairs = []
        whens = " ".join(f"WHEN {value} = {d.double(x)} THEN {code}" for x, code in pairs)
        code = f"(CASE {whens} END)" if pairs else "CAST(NULL AS BIGINT)"
        matched = f"WHEN {code} IS NOT NULL THEN {OK} " if pairs else ""
        return f"(CASE WHEN {null} THEN {NULL} {matched}ELSE {UNPARSABLE} END)", code

    def _code(self, column: Column, status: str, code: str) -> str:
        """The final code: the value's own, a bucket, an end bin (clip), or the negative problem code."""
        clip = isinstance(column, _Binned) and column.clip
        other = column.other_code
        null = column.null_code if column.null_code is not None else -NULL
        wrong = other if other is not None else -UNPARSABLE
        below = other if other is not None else (0 if clip else -BELOW)
        above = other if other is not None else (column.value_count - 1 if clip else -BELOW)
        return (f"(CASE {status} WHEN {OK} THEN {code} WHEN {NULL} THEN {null} WHEN {UNPARSABLE} THEN {wrong} "
                f"WHEN {BELOW} THEN {below} WHEN {ABOVE} THEN {above} END)")


def duration_seconds_sql(d: Dialect, stripped: str) -> str:
    """The seconds of a duration written h:mm:ss or m:ss (:func:`~dprelease.schema.binned.duration_seconds`) as a
    BIGINT, NULL where the text is not one."""
    def group(k: int) -> str:
        return f"CAST(nullif({d.extract(stripped, DURATION_SQL, k)}, '') AS BIGINT)"

    total = f"(coalesce({group(2)}, 0) * 3600 + coalesce({group(3)}, {group(4)}) * 60 + {group(5)})"
    return (f"(CASE WHEN {d.matches(stripped, DURATION_SQL)} THEN (CASE WHEN {d.extract(stripped, DURATION_SQL, 1)} "
            f"= '-' THEN -1 ELSE 1 END) * {total} END)")


def _even(thresholds: Sequence[int | float]) -> bool:
    return len({b - a for a, b in zip(thresholds, thresholds[1:])}) <= 1


def _float_of_text(key: str) -> float | None:
    """The float whose text (as the in-memory encoder writes a float: :func:`as_text`) is ``key``, if any."""
    try:
        x = float(key)
    except ValueError:
        return None
    return x if as_text(x) == key else None
