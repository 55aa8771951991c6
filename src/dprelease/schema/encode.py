"""Encoding a raw table into codes by a public :class:`~dprelease.schema.Schema`.

Under the privacy unit n is public and rows are never dropped: a NULL goes to the column's ``null``
bucket, a value the column cannot place (not in the category list, outside the bounds, of the wrong
type) to its ``other`` bucket (or, outside the bounds, to the nearest end bin when the column says
``clip``). A value with no place is an encoding error. Every column is checked in one pass, and one
:class:`~dprelease.errors.InputError` lists every column's problems, each by the column's name and the
kind of problem. By default no message quotes a record's value or counts private rows (messages reach
logs); ``show_values=True`` adds a count and a few distinct bad values per problem.

Text is parsed once per distinct value (pandas' or numpy's factorization), then binned with numpy.

>>> from dprelease.schema import Schema
>>> s = Schema.from_dict({"n": {"type": "integer", "bounds": [0, 9], "width": 5, "clip": True}})
>>> import numpy as np
>>> from dprelease.schema.tables import Table, factorize
>>> t = Table({"n": factorize(np.array(["3", "7", "12"], dtype=object))}, 3, "example")
>>> encode_table(t, s)[:, 0].tolist()
[0, 1, 1]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np

from dprelease.errors import InputError, InputTypeError
from dprelease.schema.between import per_unit, time_between, until_units
from dprelease.schema.binned import (DateColumn, DatetimeColumn, IntegerColumn, NumericColumn, _Binned, duration_seconds,
                                     number_text)
from dprelease.schema.columns import BooleanColumn, CategoricalColumn, CodesColumn, Column, format_number
from dprelease.schema.parse import (FactorColumn, TypedColumn, as_text, datetimes_to_int, parse_booleans,
                                    parse_floats, parse_formatted_times, parse_times, texts, whole_to_int)
from dprelease.schema.schema import Schema
from dprelease.schema.tables import (FRAME_SOURCE, PARQUET_SUFFIXES, Table, from_dataframe, missing_problems, read_csv,
                                     read_parquet)

# Status of each value: placed, NULL, or one of the problems a bucket (or clip) may absorb.
OK, NULL, UNPARSABLE, UNKNOWN, BELOW, ABOVE = range(6)

_WRONG_TYPE = {"codes": "not integer codes", "integer": "not whole numbers", "numeric": "not numbers",
               "date": "not ISO 8601 dates", "datetime": "not ISO 8601 date-times",
               "boolean": "not true/false words", "categorical": "not in the category list"}


def encode(data: object, schema: Schema | Mapping | str | Path, *, show_values: bool = False, delimiter: str | None = None,
           header: bool | str = "auto", skip_rows: int = 0) -> np.ndarray:
    """Codes of a raw table under ``schema``: an (n, d) int64 array over ``schema.domain``, columns in
    schema order. :meth:`dprelease.Dataset.from_schema` wraps them in a Dataset.

    Args:
        data: a pandas DataFrame, a Parquet file (``.parquet``/``.pq``) or a delimited text file (any
            other path), or a :class:`~dprelease.schema.tables.Table`.
        show_values: let error messages quote bad values and count the rows (off by default: they
            reach logs).
        delimiter, header, skip_rows: for text files, see :func:`~dprelease.schema.tables.read_csv`.
    """
    schema = Schema.coerce(schema)
    schema.domain  # noqa: B018 -- refuses a column with undecided bounds (a draft's) before the data is read
    return encode_table(read_table(data, schema.read_names, delimiter=delimiter, header=header, skip_rows=skip_rows,
                                   show_values=show_values, strip=schema.strip, layout=schema.file_names),
                        schema, show_values=show_values)


def read_table(data: object, names: Sequence[str] | None, *, delimiter: str | None = None,
               header: bool | str = "auto", skip_rows: int = 0, show_values: bool = False,
               strip: bool = True, layout: Sequence[str] | None = None) -> Table:
    """The columns ``names`` (None: all) of ``data`` (see :func:`encode`), not yet encoded; ``strip``: the
    schema's (False keeps a CSV cell's spaces after the delimiter); ``layout``: the fields of a CSV without a header
    row (the whole schema's names, :attr:`~dprelease.schema.Schema.file_names`)."""
    if isinstance(data, Table):
        return data
    if isinstance(data, (str, Path)):
        path = Path(data)
        if path.suffix.lower() in PARQUET_SUFFIXES:
            return read_parquet(path, names)
        return read_csv(path, names, delimiter=delimiter, header=header, skip_rows=skip_rows,
                        show_values=show_values, strip=strip, layout=layout)
    return from_dataframe(data, names)


def encode_table(table: Table, schema: Schema, *, show_values: bool = False) -> np.ndarray:
    """Codes of every schema column of ``table``; one error lists every column that cannot be encoded."""
    schema.domain  # noqa: B018 -- refuses a column with undecided bounds (a draft's)
    problems = missing_problems(table.missing, table.present)
    codes = np.zeros((table.n, len(schema.columns)), dtype=np.int64)
    unplaced: dict[str, np.ndarray] = {}  # per column read, its rows of a value with no place (a problem)
    computed = []
    for i, column in enumerate(schema.columns):
        if getattr(column, "between", None) is not None:
            computed.append((i, column))
            continue
        if column.name in table.missing:
            continue
        column_codes, issues, unplaced[column.name] = _resolve(column, *placed(column, table.columns[column.name],
                                                                             schema))
        codes[:, i] = column_codes
        problems += [f"column {column.name!r}: {describe(column, issue, show_values)}"
                     + _read_csv_hint(column, issue, table.source) for issue in issues]
    for i, column in computed:  # from their dates, once those are read (a date's own problem is reported alone)
        if all(name in unplaced for name in column.between):
            column_codes, issues = _encode_between(column, table, schema, codes,
                                                   unplaced[column.between[0]] | unplaced[column.between[1]])
            codes[:, i] = column_codes
            problems += [f"column {column.name!r}: {describe(column, issue, show_values)}" for issue in issues]
    if problems:
        count = len({p.split(":")[0] for p in problems})
        raise InputError(f"{table.source}: cannot encode {count} column{'s' if count > 1 else ''} by the schema: "
                         + "; ".join(problems) + blank_rows_hint(problems))
    if table.n == 0:
        raise InputError(f"{table.source} has no rows; a release needs at least one row")
    return codes


def _encode_between(column: IntegerColumn, table: Table, schema: Schema, codes: np.ndarray, failed: np.ndarray
                    ) -> tuple[np.ndarray, list[tuple[int, int, list[str]]]]:
    """(codes, issues) of a column computed between two dates or integers (:mod:`dprelease.schema.between`): the
    time from the first to the second as read, NULL where either is NULL, other or infinite (``codes``: their codes);
    0, and no problem of its own, in the ``failed`` rows, where a source has a problem (its own, reported), as in
    SQL."""
    names = list(schema.names)
    sources = [schema.column(name) for name in column.between]
    until = until_units(column, sources[1])
    blank = np.zeros(table.n, dtype=bool)
    for source in sources:
        own = codes[:, names.index(source.name)]
        for bucket in (source.null_code, source.other_code):
            if bucket is not None and not (source is sources[1] and bucket == source.null_code and until is not None):
                blank |= own == bucket
    first, second = (parsed_values(s, table.columns[s.name], schema) for s in sources)
    if until is not None:  # a blank second stands for until (a stay still running counts up to it)
        second = np.where(codes[:, names.index(sources[1].name)] == sources[1].null_code, until, second)
    gap = time_between(first, second, per_unit(schema, column))
    blank |= ~np.isfinite(gap)  # an integer read as infinite (clipped into its end bin) has no difference: blank
    placed_codes, status = _place(column, np.where(blank | failed, 0.0, gap), ~(blank | failed))
    status = np.where(failed, OK, np.where(blank, NULL, status))
    column_codes, issues, _ = _resolve(column, np.where(failed, 0, placed_codes), status,
                                       lambda mask: _examples(gap[mask]))
    return column_codes, issues


def blank_rows_hint(problems: list[str]) -> str:
    """Where two or more columns report NULL values, a reminder that a spreadsheet export's trailing rows of empty
    cells (",,,,") are records of blanks: a table without blanks then fails in every column that declares no null.
    From the problems' words alone (no row is read for it)."""
    blanks = sum(": NULL values" in problem for problem in problems)
    if blanks < 2:
        return ""
    return ("; rows whose every cell is empty (as a spreadsheet export may end with) are records of blanks: delete "
            "them from the file if they are not records")


# ----------------------------------------------------------------------- columns
def placed(column: Column, raw: FactorColumn | TypedColumn, schema: Schema):
    """Each row's code before the buckets and clipping, its status (OK, NULL, UNPARSABLE, UNKNOWN, BELOW, ABOVE),
    and a function giving a few distinct values of the rows a mask selects (for messages)."""
    if isinstance(raw, TypedColumn):
        typed = _typed(column, raw.datetimes(column.kind))
        if typed is None:  # no typed rule for this kind and dtype: go through the values' text
            raw = _to_factor(raw)
        else:
            codes, status = typed
            status = np.where(raw.missing, NULL, status)
            return codes, status, lambda mask: _examples(raw.values[mask])
    text = texts(raw.uniques, strip=schema.strip)
    tokens = set(schema.null_tokens_of(column))
    is_null = np.array([t is None or t in tokens for t in text], dtype=bool)
    unique_codes, unique_status = _from_text(column, np.where(is_null, None, text))
    unique_status = np.where(is_null, NULL, unique_status)
    index = raw.index
    typed_null = index < 0
    safe = np.where(typed_null, 0, index)
    if len(text) == 0:
        unique_codes, unique_status = np.zeros(1, np.int64), np.full(1, NULL)
    codes = unique_codes[safe]
    status = np.where(typed_null, NULL, unique_status[safe])

    def examples(mask: np.ndarray) -> list[str]:
        chosen = np.unique(safe[mask & ~typed_null])
        return sorted(str(text[i]) for i in chosen[:3])

    return codes, status, examples


def parsed_values(column: _Binned, raw: FactorColumn | TypedColumn, schema: Schema) -> np.ndarray:
    """Each row's value as the column reads it, as floats (a date in days, a date-time in seconds since 1970), NaN
    where it reads none (NULL, text that is not a value): the values before the bounds, for comparing a table's
    values with another's (``dprelease evaluate``)."""
    unit = "D" if isinstance(column, DateColumn) else "s"
    if isinstance(raw, TypedColumn):
        values = raw.datetimes(column.kind)
        if values.dtype.kind == "M":
            out = datetimes_to_int(values, unit).astype(np.float64)
            return np.where(np.isnat(values) | raw.missing, np.nan, out)
        if values.dtype.kind in "iuf":
            return np.where(raw.missing, np.nan, values.astype(np.float64))
        raw = _to_factor(raw)
    text = texts(raw.uniques, strip=schema.strip)
    tokens = set(schema.null_tokens_of(column))
    values, ok = _read_text(column, np.array([None if t is None or t in tokens else t for t in text], dtype=object))
    unique = np.where(ok, values.astype(np.float64), np.nan)
    if len(unique) == 0:
        return np.full(len(raw.index), np.nan)
    return np.where(raw.index < 0, np.nan, unique[np.maximum(raw.index, 0)])


def _to_factor(raw: TypedColumn) -> FactorColumn:
    values = raw.values.astype(object)
    values[raw.missing] = None
    return FactorColumn.from_values(values)


def _resolve(column: Column, codes: np.ndarray, status: np.ndarray, examples
             ) -> tuple[np.ndarray, list, np.ndarray]:
    """Buckets and clipping for every non-OK value; the problems left over, each (status, rows affected, a few
    distinct bad values); and the rows they hold (a value with no place in the column)."""
    codes = codes.astype(np.int64, copy=True)
    issues = []
    unplaced = np.zeros(len(codes), dtype=bool)
    clip = isinstance(column, _Binned) and column.clip
    rules = [
        (status == NULL, column.null_code, NULL),
        ((status == UNPARSABLE) | (status == UNKNOWN), column.other_code, UNPARSABLE),
        ((status == BELOW) | (status == ABOVE), column.other_code, BELOW),
    ]
    for mask, bucket, kind in rules:
        if not mask.any():
            continue
        if bucket is not None:
            codes[mask] = bucket
        elif kind == BELOW and clip:  # clip: the nearest end bin
            codes[status == BELOW] = 0
            codes[status == ABOVE] = column.value_count - 1
        else:
            issues.append((kind, int(mask.sum()), examples(mask)))
            unplaced |= mask
    return codes, issues, unplaced


#: The texts pandas.read_csv takes as missing by default (its na_values; pandas 2.x).
PANDAS_NA_TEXTS = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND",
                             "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})


def _read_csv_hint(column: Column, issue: tuple[int, int, list[str]], source: str) -> str:
    """Where a DataFrame's categorical column has NULLs and one of its (public) categories is a text pandas reads as
    missing ("NA" for North America), the likely cause and its fix."""
    if source != FRAME_SOURCE or issue[0] != NULL or not isinstance(column, CategoricalColumn):
        return ""
    texts = [key for key in column.keys if key in PANDAS_NA_TEXTS]
    if not texts:
        return ""
    return (f"; pandas.read_csv reads the text {texts[0]!r}, one of the column's categories, as missing unless "
            "keep_default_na=False (or give the file's path, which dprelease reads itself)")


def describe(column: Column, issue: tuple[int, int, list[str]], show_values: bool) -> str:
    """One problem of one column in words; counts and values only when ``show_values``."""
    kind, rows, values = issue
    if kind == NULL:
        text, fix = "NULL values", "declare null"
    elif kind == UNPARSABLE:
        text = "values " + _WRONG_TYPE[column.kind]
        fix = "declare other"
        if column.kind == "integer":  # a private draft types a column integer where its decimals are under the noise
            fix = 'where the column holds decimals, declare "type": "numeric" (with its bounds); else ' + fix
        if column.kind in ("integer", "numeric"):  # how the table writes its numbers, in the options that read them
            fix += ('; where numbers are written 1,234.5 declare "thousands": ","; 3,5 or 1.234,5: "decimal": ","; '
                    'with signs such as $ or %: "symbols": ["$", "%"]')
        elif column.kind in ("date", "datetime"):  # how the table writes its dates, in the option that reads them
            text = "values " + (f"not dates of its format {column.format!r}" if column.format
                                else _WRONG_TYPE[column.kind])
            if not column.format:
                fix += '; where dates are written 10/3/2019 declare "format": "%m/%d/%Y" (03.10.2019: "%d.%m.%Y")'
        if column.kind in ("integer", "numeric", "date", "datetime"):  # a blank written as a word: a NULL token
            fix += '; text that means blank, such as N/A or -, goes in "null_tokens" (with "null": true)'
    else:
        low, high = column.rule()["low"], column.rule()["high"]
        if isinstance(column, (DateColumn, DatetimeColumn)):
            low, high = column.format_value(low), column.format_value(high)
        else:
            low, high = format_number(low), format_number(high)
        text, fix = f"values outside the bounds [{low}, {high}]", "declare other or clip"
        if isinstance(column, CodesColumn):
            fix = "declare other"
    if show_values:
        text = f"{rows} {text}, e.g. {', '.join(repr(v) for v in values)}"
    return f"{text} ({fix})"


def _examples(values: np.ndarray) -> list[str]:
    distinct = np.unique(values)[:3]
    return [as_text(v) or "NULL" for v in distinct]


# ---------------------------------------------------------- values -> codes, text
def _place(column: _Binned, values: np.ndarray, ok: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes of parsed values (``ok``) by the bins; BELOW/ABOVE outside the bounds."""
    low, high = column.bounds
    status = np.where(ok, OK, UNPARSABLE)
    status = np.where(ok & (values < low), BELOW, status)
    status = np.where(ok & (values > high), ABOVE, status)
    inside = status == OK
    codes = np.zeros(len(values), dtype=np.int64)
    codes[inside] = column.bin_codes(values[inside])
    return codes, status


def _from_text(column: Column, text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes and status of distinct text values (None: NULL, handled by the caller)."""
    if isinstance(column, CategoricalColumn):
        lookup = {key: code for code, key in enumerate(column.keys)}
        codes = np.array([lookup.get(t, 0) for t in text], dtype=np.int64)
        status = np.array([OK if t in lookup else UNKNOWN for t in text], dtype=np.int64)
        return codes, status
    if isinstance(column, BooleanColumn):
        values, ok = parse_booleans(text, column.true, column.false)
        return values, np.where(ok, OK, UNPARSABLE)
    if isinstance(column, (DateColumn, DatetimeColumn)):
        return _place(column, *_read_text(column, text))
    floats, ok = _read_text(column, text)
    nan = ok & np.isnan(floats)  # "nan" text: a NULL
    if isinstance(column, NumericColumn):
        codes, status = _place(column, floats, ok & ~nan)
        return codes, np.where(nan, NULL, status)
    integers, whole = whole_to_int(floats)
    if isinstance(column, IntegerColumn):
        codes, status = _place(column, floats, ok & whole)
        status = np.where(ok & np.isinf(floats), np.where(floats > 0, ABOVE, BELOW), status)
        return codes, np.where(nan, NULL, status)
    # codes 0..size-1
    status = np.where(ok & whole, np.where((floats < 0) | (floats >= column.value_count), ABOVE, OK), UNPARSABLE)
    return np.where(status == OK, integers, 0), np.where(nan, NULL, status)


def _read_text(column: Column, text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct texts (None: NULL) as the column reads them, and which read: a date's days or a date-time's seconds
    since 1970 (by its ``format``, else ISO 8601), or a number's float (its signs, grouping and decimal comma
    applied). The one reading rule the encoder and :func:`parsed_values` share."""
    if isinstance(column, (DateColumn, DatetimeColumn)):
        unit = "D" if isinstance(column, DateColumn) else "s"
        return parse_times(text, unit) if column.format is None else parse_formatted_times(text, column.format, unit)
    if isinstance(column, IntegerColumn) and column.format is not None:  # durations: h:mm:ss as seconds
        seconds = [None if t is None else duration_seconds(t) for t in text]
        ok = np.array([s is not None for s in seconds], dtype=bool)
        return np.array([np.nan if s is None else float(s) for s in seconds], dtype=np.float64), ok
    return parse_floats(number_texts(text, column))


def number_texts(text: np.ndarray, column: Column) -> np.ndarray:
    """``text`` as Python's float() reads numbers: each value's ``symbols``, thousands separator and decimal comma
    undone (:func:`~dprelease.schema.binned.number_text`; 1.234,5 is 1234.5 under ``decimal: ","``, $1,234.50 under
    ``thousands: ","`` and ``symbols: ["$"]``). The SQL engines do the same (:mod:`dprelease.engines.schema_sql`)."""
    if not isinstance(column, _Binned) or column.plain_numbers:
        return text
    return np.array([None if t is None else number_text(column, t) for t in text], dtype=object)


# -------------------------------------------------------------- typed -> codes
def _typed(column: Column, values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and status of a typed array (numbers, booleans, datetime64) where the kind takes it as is."""
    kind = values.dtype.kind
    if kind == "u":  # compare as signed integers (or floats beyond int64): no wrap-around with negative bounds
        big = values.size and values.max() >= 2**63
        values, kind = (values.astype(np.float64), "f") if big else (values.astype(np.int64), "i")
    if isinstance(column, BooleanColumn) and kind == "b":
        return values.astype(np.int64), np.full(len(values), OK)
    if kind == "M" and isinstance(column, (DateColumn, DatetimeColumn)):
        ints = datetimes_to_int(values, "D" if isinstance(column, DateColumn) else "s")
        codes, status = _place(column, ints, ~np.isnat(values))
        return codes, np.where(np.isnat(values), NULL, status)
    if kind not in "iuf" or not isinstance(column, (NumericColumn, IntegerColumn, CodesColumn)):
        return None
    if isinstance(column, NumericColumn):
        floats = values.astype(np.float64)
        codes, status = _place(column, floats, ~np.isnan(floats))
        return codes, np.where(np.isnan(floats), NULL, status)
    if kind in "iu":
        if isinstance(column, IntegerColumn):
            # Compare in the integer type (no float rounding of large values), then place.
            low, high = column.bounds
            status = np.where(values < low, BELOW, np.where(values > high, ABOVE, OK))
            codes = np.zeros(len(values), dtype=np.int64)
            inside = status == OK
            codes[inside] = column.bin_codes(values[inside].astype(np.int64))
            return codes, status
        outside = (values < 0) | (values >= column.value_count)
        return np.where(outside, 0, values).astype(np.int64), np.where(outside, ABOVE, OK)
    floats = values.astype(np.float64)
    integers, whole = whole_to_int(floats)
    nan = np.isnan(floats)
    if isinstance(column, IntegerColumn):
        codes, status = _place(column, floats, whole)
        status = np.where(np.isinf(floats), np.where(floats > 0, ABOVE, BELOW), status)
        return codes, np.where(nan, NULL, status)
    status = np.where(whole, np.where((floats < 0) | (floats >= column.value_count), ABOVE, OK), UNPARSABLE)
    return np.where(status == OK, integers, 0), np.where(nan, NULL, status)


def encode_columns(data: object, schema: Schema, columns: Sequence[str], **options) -> np.ndarray:
    """:func:`encode` on some columns of the schema (in the order given)."""
    return encode(data, schema.select(columns), **options)
