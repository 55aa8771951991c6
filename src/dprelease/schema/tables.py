"""Reading raw tables (CSV, Parquet, pandas DataFrames) into raw columns, and writing decoded ones.

Readers keep the schema's columns only and never interpret a value (that is encoding's job); every
problem they find is about the file's shape, and their messages quote no cell and count no private
row (a line number only with ``show_values=True``). pandas and DuckDB (the Parquet reader and writer)
are optional extras, imported only here and only when used.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import re
import tempfile
import zlib
from collections.abc import Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from itertools import chain, islice
from pathlib import Path

import numpy as np

from dprelease.errors import InputError, InputTypeError

from dprelease.schema.parse import FactorColumn, TypedColumn

CSV_DELIMITERS = ",;\t|"
PARQUET_SUFFIXES = (".parquet", ".pq")


@dataclass(frozen=True, eq=False)
class Table:
    """The schema's columns of a raw table (``missing``: those the table lacks), n rows, and a source name."""

    columns: dict[str, FactorColumn | TypedColumn]
    n: int
    source: str
    missing: tuple[str, ...] = ()
    #: every column name the table has (its header's, Parquet's, the DataFrame's), for :func:`missing_problems`
    present: tuple[str, ...] = ()


def need(module: str, extra: str, what: str):
    """Import an optional dependency, or say which extra installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise InputError(f"{what} needs {module}, which is not installed: pip install 'dprelease[{extra}]'") from None


def factorize(values: np.ndarray) -> FactorColumn:
    """Distinct values and each row's index: pandas' hash table when installed, else numpy's sort."""
    try:
        import pandas as pd
    except ImportError:
        return FactorColumn.from_values(values)
    index, uniques = pd.factorize(values, use_na_sentinel=True)
    return FactorColumn(np.asarray(uniques, dtype=object), np.asarray(index, dtype=np.int64))


def person_index(column: FactorColumn | TypedColumn, *, strip: bool = True) -> np.ndarray:
    """Each row's person by its privacy id, as its id's rank among the distinct ids (private): equal ids give equal
    ranks, every blank id (a NULL) is one person, -1 (:mod:`dprelease.privacy.contributions`).

    Text ids are compared as every engine reads them (stripped where the schema strips, code-point order, '' for an
    empty CSV cell), typed ids by value: DuckDB's ``dense_rank`` over the same ids gives the same ranks."""
    if isinstance(column, FactorColumn):
        texts = np.array([text.strip() if strip and isinstance(text, str) else text for text in column.uniques],
                         dtype=object)
        if len(texts) == 0:
            return np.asarray(column.index, dtype=np.int64)
        distinct, rank_of_unique = np.unique(texts.astype(str), return_inverse=True)
        index = np.asarray(column.index, dtype=np.int64)
        return np.where(index >= 0, rank_of_unique.reshape(-1)[np.maximum(index, 0)], -1)
    values, missing = np.asarray(column.values), np.asarray(column.missing, dtype=bool)
    index = np.full(len(values), -1, dtype=np.int64)
    if (~missing).any():
        index[~missing] = np.unique(values[~missing], return_inverse=True)[1].reshape(-1)
    return index


def person_index_of_keys(keys: Sequence[object] | np.ndarray) -> np.ndarray:
    """:func:`person_index` of privacy ids an engine read and prepared in SQL (text already stripped as the schema
    says; None for a NULL): text ranks as text, numbers by value, so every engine ranks as the memory engine does."""
    keys = np.ma.filled(np.ma.asarray(keys, dtype=object), None) if np.ma.isMaskedArray(keys) else \
        np.asarray(keys, dtype=object)
    present = np.not_equal(keys, None).astype(bool)
    if any(isinstance(key, str) for key in keys[present][:1]):
        return person_index(FactorColumn.from_values(keys), strip=False)
    values = np.array([key if key is not None else 0 for key in keys])
    return person_index(TypedColumn(values, ~present), strip=False)


def take_rows(table: Table, rows: np.ndarray) -> Table:
    """``table`` with only ``rows`` (positions, in order): a factor column keeps only the values those rows hold, so
    nothing downstream sees a value of a dropped row."""
    columns: dict[str, FactorColumn | TypedColumn] = {}
    for name, column in table.columns.items():
        if isinstance(column, FactorColumn):
            index = column.index[rows]
            used, compact = np.unique(index[index >= 0], return_inverse=True)
            remapped = np.full(len(index), -1, dtype=np.int64)
            remapped[index >= 0] = compact.reshape(-1)
            columns[name] = FactorColumn(column.uniques[used], remapped)
        else:
            columns[name] = replace(column, values=column.values[rows], missing=column.missing[rows],
                                    wall=None if column.wall is None else column.wall[rows])
    return Table(columns, len(rows), table.source, table.missing, table.present)


# ------------------------------------------------------------------ header cells
# A file's header is public only where it names declared columns: a file without a header row has a
# private record in its first line, so a message quotes a header cell only when it is a declared
# column name (the domain's or the schema's) and only counts the others. Every reader and engine words
# these messages with the functions below, so that they all say the same.

def header_text(cells: Sequence[str], declared: Collection[str]) -> str:
    """What a message may say of a table's column names ``cells``: the declared ones quoted, the others counted.

    >>> header_text(["a", "b"], {"a", "b", "c"})
    "it has ['a', 'b']"
    >>> header_text(["37", "4"], {"age", "sex"})
    'its header has 2 cells, none of them a declared column (not quoted, as they may be a record: does the file have a header row?)'
    """
    known = [c for c in cells if c in declared]
    others = len(cells) - len(known)
    if not others:
        return f"it has {known}"
    if not known:
        return (f"its header has {others} cell{'s' if others != 1 else ''}, none of them a declared column "
                "(not quoted, as they may be a record: does the file have a header row?)")
    return f"it has {known} and {others} other column{'s' if others != 1 else ''} not declared (not quoted)"


def check_distinct_header(cells: Sequence[str], declared: Collection[str], source: str,
                          where: str = " in the header") -> None:
    """An InputError when a name appears twice in ``cells``, quoting it only when it is a declared column."""
    cells = list(cells)
    duplicated = sorted({h for h in cells if cells.count(h) > 1})
    if not duplicated:
        return
    known = [h for h in duplicated if h in declared]
    if len(known) == len(duplicated):
        raise InputError(f"{source}: column(s) {known} appear more than once{where}")
    if known:
        raise InputError(f"{source}: column(s) {known} appear more than once{where}, and so does a name that is "
                         "not a declared column (not quoted)")
    raise InputError(f"{source}: a name that is not a declared column appears more than once{where} (not quoted, "
                     "as it may be a record's value: does the file have a header row?)")


_NUMBER = re.compile(r"[+-]?(\d[\d_,]*(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}([T ].*)?")


def looks_like_record(cells: Sequence[str]) -> bool:
    """Whether a first row that should name columns looks like data: a cell is a number or an ISO date.

    Column names that are pure numbers or dates are almost always a record's values.

    >>> looks_like_record(["age", "workclass"]), looks_like_record(["39", "State-gov"])
    (False, True)
    >>> looks_like_record(["x", "2020-01-31"]), looks_like_record(["q1.5", "-"])
    (True, False)
    """
    return any(_NUMBER.fullmatch(c.strip()) or _ISO_DATE.fullmatch(c.strip()) for c in cells)


def check_header_names(cells: Sequence[str], source: str) -> None:
    """An InputError when a header that will name (and publish) every column looks like a record; no cell quoted."""
    if looks_like_record(cells):
        raise InputError(f"{source}: its first line looks like a record, not column names (a cell is a number or a "
                         "date); dprelease needs a header row of column names, which are published in the schema")


# ------------------------------------------------------------------ CSV structure
# What every engine's reader takes as CSV, and the words all of them use for a file that is not (DuckDB maps its
# own errors to these; Spark's local files are read here first): Python's csv in strict mode, one kind of line
# ending, empty lines no rows, and a line's empty fields past the header's last ignored (a line ending in a
# delimiter: DuckDB reads it so and cannot be told otherwise). No message quotes a cell or counts rows.

#: A quote problem, as all the readers word it.
QUOTE_PROBLEM = "a quoted field is never closed, or text follows its closing quote"
_ENDINGS = {"\n": "LF", "\r\n": "CRLF", "\r": "CR"}


#: The first bytes of files that are not text, and what each is (public: the file's format, not its data).
_UTF16 = ("UTF-16 text, not UTF-8: convert it, e.g. with iconv -f utf-16 -t utf-8, or save it from the "
          "spreadsheet as CSV UTF-8")
_NOT_TEXT_MAGIC = ((b"PK\x03\x04", "a spreadsheet workbook or another zip archive (.xlsx, .ods), not CSV text: save "
                    "its sheet as CSV (UTF-8), or read it with pandas.read_excel and pass the DataFrame"),
                   (b"\xd0\xcf\x11\xe0", "an Excel 97-2003 workbook (.xls), not CSV text: save its sheet as CSV "
                    "(UTF-8), or read it with pandas.read_excel and pass the DataFrame"),
                   (b"\x1f\x8b", "gzip-compressed: name it .csv.gz to have it read compressed, or decompress it"),
                   # a UTF-16 byte-order mark: Excel's "Unicode Text" (tab-separated), Windows tools' "Unicode"
                   (b"\xff\xfe", _UTF16), (b"\xfe\xff", _UTF16))


def not_text(source: str, encoding: str = "utf-8-sig", path: str | Path | None = None) -> str:
    """The message for a file that does not decode: what it is where its first bytes say (a workbook, a compressed
    file), else which encoding was expected, and for UTF-8 (the readers' default; a byte-order mark is allowed) how
    to convert one, since Latin-1 and Windows-1252 exports are the usual cause."""
    if path is not None:
        try:
            with open(path, "rb") as handle:
                start = handle.read(4)
        except OSError:
            start = b""
        for magic, what in _NOT_TEXT_MAGIC:
            if start.startswith(magic):
                return f"{source} is {what}"
    if encoding.lower().replace("_", "-") in ("utf-8-sig", "utf-8", "utf8"):
        return f"{source} is not UTF-8 text: convert it to UTF-8 first, e.g. with iconv -f windows-1252 -t utf-8"
    return f"{source} is not {encoding} text"


def open_text(path: str | Path, encoding: str = "utf-8-sig"):
    """A CSV file opened as text for the readers (``newline=""``), gunzipped on the fly where its name ends in ``.gz``
    (as DuckDB and Spark read it: a part file Spark wrote compressed is ``part-00000.csv.gz``). A damaged
    compressed file fails as an OSError whose words quote none of its bytes."""
    if str(path).lower().endswith(".gz"):
        return io.TextIOWrapper(_CheckedGzip(path), encoding=encoding, newline="")
    return open(path, newline="", encoding=encoding)


class _CheckedGzip(gzip.GzipFile):
    """gzip's reader with its three failures (not gzip, cut short, corrupt) as one OSError: ``BadGzipFile`` quotes
    the file's first bytes, and the other two are not OSErrors, which every reader turns into its one-line error."""

    def __init__(self, path: str | Path) -> None:
        super().__init__(path, "rb")

    def read(self, size: int = -1) -> bytes:
        return self._checked(super().read, size)

    def read1(self, size: int = -1) -> bytes:
        return self._checked(super().read1, size)

    def readinto(self, buffer) -> int:
        return self._checked(super().readinto, buffer)

    @staticmethod
    def _checked(read, argument):
        try:
            return read(argument)
        except (gzip.BadGzipFile, EOFError, zlib.error):
            raise OSError("it is not a whole gzip file (its name ends in .gz)") from None


def csv_error(source: str, problem: str) -> InputError:
    """The one-line error for a file that does not read as CSV: ``problem`` names what, never a cell."""
    return InputError(f"{source} cannot be read as CSV ({problem})")


def ragged_problem(header: bool) -> str:
    return f"a line has more or fewer fields than the {'header' if header else 'first row'}"


class _Lines:
    """A file's lines (read with ``newline=""``), remembering how the last one ended."""

    def __init__(self, lines: Iterable[str]) -> None:
        self._lines = iter(lines)
        self.ending = ""

    def __iter__(self) -> _Lines:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.ending = "\r\n" if line.endswith("\r\n") else line[-1:] if line[-1:] in ("\n", "\r") else ""
        return line


def csv_rows(lines: Iterable[str], source: str, *, delimiter: str = ",",
             skipinitialspace: bool = False) -> Iterator[list[str]]:
    """The non-empty rows of CSV ``lines`` (a file or StringIO opened with ``newline=""``), read strictly.

    A quote never closed, text after a closing quote, and rows ending in more than one way (LF, CRLF, CR:
    DuckDB's strict reader refuses such files, Spark's multi-line reader splits them wrongly) are InputErrors
    naming ``source``. A line break inside a quoted field is part of the cell, whatever its kind.
    """
    lines = _Lines(lines)
    ending = ""
    try:
        for row in csv.reader(lines, delimiter=delimiter, skipinitialspace=skipinitialspace, strict=True):
            if lines.ending and lines.ending != ending:  # the ending of the row's last line: outside any quote
                if ending:
                    raise csv_error(source, f"its lines end in both {_ENDINGS[ending]} and {_ENDINGS[lines.ending]}; "
                                            "save it with one kind of line ending")
                ending = lines.ending
            if row:
                yield row
    except csv.Error as exc:  # Python's words name the problem, never the text
        if "expected after" in str(exc) or "unexpected end of data" in str(exc):
            raise csv_error(source, QUOTE_PROBLEM) from None
        raise InputError(f"{source} does not parse as CSV: {exc}") from None


def fit_rows(rows: list[list[str]], width: int) -> int | None:
    """Cut each row's empty fields past ``width`` (in place); the index of the first row of another length, or None."""
    for i, row in enumerate(rows):
        if len(row) != width:
            if len(row) < width or any(row[width:]):
                return i
            del row[width:]
    return None


# --------------------------------------------------------------------------- CSV
def has_header_row(cells: Sequence[str], names: Sequence[str], header: object, source: str,
                   declared: Collection[str] | None = None, layout: Sequence[str] | None = None) -> bool:
    """Whether a CSV's first row (``cells``, stripped) is its header; shared by this reader and the engines'.

    ``header`` True/False, or "auto": a header when it names one of ``names``. A header may not name a
    column twice; rows without one must have one field per column of ``layout`` (the whole schema's names, for a
    schema of some of its columns; default ``names``) (public: the file's layout, not its values).
    ``declared``: the column names a message may quote (default ``names``; see :func:`header_text`).
    """
    if header == "auto":
        header = any(h in names for h in cells)
        if not header:
            check_loosely_named(cells, names, source)
    if header:
        check_distinct_header(cells, names if declared is None else declared, source)
        return True
    fields = names if layout is None else layout
    if len(cells) != len(fields):
        raise InputError(f"{source} has no header row naming the schema's columns, and its rows have "
                         f"{len(cells)} fields where the schema has {len(fields)} columns")
    return False


def _loose(name: str) -> str:
    return re.sub(r"[\W_]+", "", name.casefold())


def check_loosely_named(cells: Sequence[str], names: Sequence[str], source: str) -> None:
    """An InputError where a first row naming none of ``names`` exactly names at least half of them, and two (one
    for a one-column schema), once case, spaces and punctuation are ignored (``Age``, ``Hours Per Week`` for ``age``,
    ``hours-per-week``): a header written another way, which read as a record made every column's values wrong. (A
    record whose values spell half the column names is left to read as one.) It quotes the schema's names only
    (public); the row's cells may be a record's."""
    loose = {_loose(cell) for cell in cells}
    matched = [name for name in names if _loose(name) and _loose(name) in loose]
    if len(matched) >= min(2, len(names)) and 2 * len(matched) >= len(names):
        shown = ", ".join(repr(name) for name in matched[:5]) + (", ..." if len(matched) > 5 else "")
        raise InputError(f"{source}: its first row names {len(matched)} of the schema's {len(names)} columns "
                         f"({shown}) only when case, spaces and punctuation are ignored; names are matched exactly: "
                         "write them in the schema as the file's header does")


def missing_problems(missing: Sequence[str], present: Collection[str]) -> list[str]:
    """The encoders' words for schema columns the table lacks; where the table has a column of the same name once
    case, spaces and punctuation are ignored (``Region`` for ``region``), they say so without quoting it (a name
    outside the schema is not public)."""
    loose = {_loose(name) for name in present}
    return [f"column {name!r}: missing from the table" + (" (a column of the table has this name in another case or "
                                                         "spacing: names are matched exactly)"
                                                         if _loose(name) and _loose(name) in loose else "")
            for name in missing]


def check_read_options(delimiter: object, header: object, skip_rows: object) -> None:
    """The CSV reader's checks of its options (public), shared by the engines' reader."""
    if delimiter is not None and (not isinstance(delimiter, str) or len(delimiter) != 1 or delimiter in "\"\r\n"):
        raise InputError(f"delimiter must be one character (not a quote or newline), got {delimiter!r}")
    if header not in (True, False, "auto"):
        raise InputError(f"header must be true, false or 'auto', got {header!r}")
    if isinstance(skip_rows, bool) or not isinstance(skip_rows, int) or skip_rows < 0:
        raise InputError(f"skip_rows must be an integer >= 0, got {skip_rows!r}")


def read_csv(path: str | Path, names: Sequence[str] | None, *, delimiter: str | None = None, header: bool | str = "auto",
             skip_rows: int = 0, encoding: str = "utf-8-sig", show_values: bool = False, strip: bool = True,
             layout: Sequence[str] | None = None) -> Table:
    """The columns ``names`` of a delimited text file.

    Args:
        delimiter: one character; default: sniffed among ``, ; TAB |`` (comma when unclear).
        header: True (the first row names the columns), False (no header: the columns are the schema's,
            in order), or "auto" (a header when the first row names any schema column).
        names: the columns to keep; None keeps every column the header names.
        skip_rows: lines to skip before the table (comments, a title).
        strip: the schema's ``strip``: True skips spaces after a delimiter (the encoder strips the rest), so
            ``a, "b,c"`` reads ``b,c`` as DuckDB does; False keeps every cell as written (`` x `` stays `` x ``,
            as DuckDB keeps it), for a schema that matches text with its spaces.
    Quoted fields may hold delimiters and newlines; blank lines are not records; a line's empty fields past the
    header's last are ignored (:func:`csv_rows`).
    """
    path = Path(path)
    source = f"data file {str(path)!r}"
    check_read_options(delimiter, header, skip_rows)
    try:
        with open_text(path, encoding) as handle:
            text = "".join(islice(handle, skip_rows, None)) if skip_rows else handle.read()
    except OSError as exc:
        raise InputError(f"{source} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(not_text(source, encoding, path)) from None
    except LookupError:
        raise InputError(f"encoding {encoding!r} is unknown") from None
    if delimiter is None:
        try:
            delimiter = csv.Sniffer().sniff(text[:65536], delimiters=CSV_DELIMITERS).delimiter
        except csv.Error:
            delimiter = ","
    rows = list(csv_rows(io.StringIO(text, newline=""), source, delimiter=delimiter, skipinitialspace=strip))
    if not rows:
        raise InputError(f"{source} is empty")
    first = [h.strip() for h in rows[0]]
    declared = names
    if names is None:  # every column, named by the header (public once drafted, so it must look like names)
        if header is False:
            raise InputError(f"{source}: reading every column needs a header row naming them")
        if header == "auto":
            check_header_names(first, source)
        header, names, declared = True, first, ()
    headed = has_header_row(first, names, header, source, declared, layout)
    if headed:
        body, width = rows[1:], len(first)
    else:  # one field per column of the whole schema (``layout``), in its order
        first = list(names if layout is None else layout)
        body, width = rows, len(first)
    ragged = fit_rows(body, width)
    if ragged is not None:  # which row only where values were asked for: a row's place is private
        where = f"; row {ragged + 1} of the table is one" if show_values else ""
        raise csv_error(source, ragged_problem(headed) + where)
    fields = list(zip(*body)) if body else [()] * width
    columns, missing = {}, []
    for name in names:
        if name not in first:
            missing.append(name)
            continue
        columns[name] = factorize(np.array(fields[first.index(name)], dtype=object))
    return Table(columns, len(body), source, tuple(missing), tuple(first) if headed else ())


# ----------------------------------------------------------------------- Parquet
def read_parquet(path: str | Path, names: Sequence[str] | None) -> Table:
    """The columns ``names`` of a Parquet file, read by DuckDB (the ``parquet`` extra)."""
    duckdb = need("duckdb", "parquet", "reading Parquet")
    path = Path(path)
    source = f"data file {str(path)!r}"
    if not path.is_file():
        raise InputError(f"{source} cannot be read: no such file")
    connection = duckdb.connect()
    try:
        try:
            described = connection.execute("SELECT * FROM read_parquet(?) LIMIT 0", [str(path)]).description
            present = [d[0] for d in described]
            # TIMESTAMPTZ holds instants (its numpy values are UTC without the mark): public, from the file's schema
            zoned = {d[0] for d in described if str(d[1]).upper() == "TIMESTAMP WITH TIME ZONE"}
        except duckdb.Error as exc:
            raise InputError(f"{source} is not a readable Parquet file: {str(exc).splitlines()[0]}") from None
        names = present if names is None else names
        missing = [n for n in names if n not in present]
        wanted = [n for n in names if n in present]
        n = int(connection.execute("SELECT count(*) FROM read_parquet(?)", [str(path)]).fetchone()[0])
        arrays = {}
        if wanted:
            selected = ", ".join('"' + n.replace('"', '""') + '"' for n in wanted)
            arrays = connection.execute(f"SELECT {selected} FROM read_parquet(?)", [str(path)]).fetchnumpy()
    finally:
        connection.close()
    columns = {name: _from_numpy(arrays[name], name, zoned=name in zoned) for name in wanted}
    return Table(columns, n, source, tuple(missing), tuple(present))


def _from_numpy(array: np.ndarray, name: str, *, zoned: bool = False) -> FactorColumn | TypedColumn:
    mask = np.ma.getmaskarray(array) if np.ma.isMaskedArray(array) else np.zeros(len(array), dtype=bool)
    data = np.ma.getdata(array)
    if type(array).__name__ == "Categorical":  # DuckDB ENUM
        codes = np.asarray(array.codes, dtype=np.int64)
        return FactorColumn(np.asarray(array.categories, dtype=object), codes, dtype_categories=True)
    if data.dtype.kind in "biufM":
        if data.dtype.kind == "M":
            mask = mask | np.isnat(data)
        elif data.dtype.kind == "f":
            mask = mask | np.isnan(data)
        return TypedColumn(data, mask, zoned=zoned and data.dtype.kind == "M")
    if data.dtype.kind == "m":  # DuckDB's INTERVAL
        return duration_column(data, mask)
    if data.dtype.kind in "OUS":
        factor = factorize(np.where(mask, None, data.astype(object)))
        return factor
    raise InputTypeError(f"column {name!r} has the unsupported type {data.dtype}")


def duration_column(durations: np.ndarray, missing: np.ndarray) -> TypedColumn:
    """A duration (numpy's timedelta64: a DataFrame's, DuckDB's INTERVAL) as its seconds, whole microseconds over a
    million, as the SQL engines read it (``Dialect.interval_seconds``): the same bins in every engine. NaT is NULL."""
    missing = missing | np.isnat(durations)
    micros = durations.astype("timedelta64[us]").astype(np.int64)
    return TypedColumn(np.where(missing, np.nan, micros / 1e6), missing, duration=True)


# --------------------------------------------------------------------- DataFrame
#: The source a DataFrame's table names in messages (and by which the encoder knows one).
FRAME_SOURCE = "data frame"


def from_dataframe(frame: object, names: Sequence[str] | None) -> Table:
    """The columns ``names`` of a pandas DataFrame; its dtypes are kept (category, nullable, datetime); a duration
    (timedelta) column is read as its seconds."""
    pd = need("pandas", "pandas", "reading a DataFrame")
    if not isinstance(frame, pd.DataFrame):
        raise InputTypeError(f"data must be a pandas DataFrame, a CSV or a Parquet path, got {type(frame).__name__}")
    header = [str(c) for c in frame.columns]
    check_distinct_header(header, () if names is None else names, FRAME_SOURCE, where="")
    names = header if names is None else names
    missing = [n for n in names if n not in header]
    columns = {}
    for name in names:
        if name not in header:
            continue
        columns[name] = _from_series(frame[frame.columns[header.index(name)]], name, pd)
    return Table(columns, len(frame), FRAME_SOURCE, tuple(missing), tuple(header))


def _from_series(series, name: str, pd) -> FactorColumn | TypedColumn:
    dtype = series_dtype = series.dtype
    missing = series.isna().to_numpy(dtype=bool)
    if isinstance(dtype, pd.CategoricalDtype):
        return FactorColumn(np.asarray(dtype.categories, dtype=object),
                            series.cat.codes.to_numpy(dtype=np.int64), dtype_categories=True)
    wall = None  # a zoned column's local datetimes: what a date column reads (the zone is the dtype's, public)
    if isinstance(dtype, pd.DatetimeTZDtype):
        if str(dtype.tz) != "UTC":
            wall = series.dt.tz_localize(None).to_numpy(dtype="datetime64[s]", na_value=np.datetime64("NaT"))
        series = series.dt.tz_convert("UTC").dt.tz_localize(None)
        dtype = series.dtype
    kind = getattr(dtype, "kind", "O")
    if kind == "M":
        return TypedColumn(series.to_numpy(dtype="datetime64[s]", na_value=np.datetime64("NaT")), missing, wall,
                           zoned=isinstance(series_dtype, pd.DatetimeTZDtype))
    never_null = isinstance(dtype, np.dtype)  # numpy's integers and booleans hold no NULL; Int64 and boolean do
    if kind in "iu":
        return TypedColumn(series.to_numpy(dtype=np.int64 if kind == "i" else np.uint64, na_value=0), missing,
                           never_null=never_null)
    if kind == "f":  # a float32 column stays one: the draft reads its decimals in its own precision
        narrow = getattr(dtype, "numpy_dtype", dtype)
        return TypedColumn(series.to_numpy(dtype=narrow if narrow.itemsize < 8 else np.float64, na_value=np.nan),
                           missing)
    if kind == "b":
        return TypedColumn(series.to_numpy(dtype=bool, na_value=False), missing, never_null=never_null)
    if kind == "m":  # Synthesizer.sample gives it back as a duration
        return duration_column(series.to_numpy(), missing)
    if kind in "OSU" or pd.api.types.is_string_dtype(dtype):
        return factorize(series.to_numpy(dtype=object, na_value=None))
    raise InputTypeError(f"data frame column {name!r} has the unsupported dtype {dtype}")


# ----------------------------------------------------------------------- writing
@dataclass(frozen=True)
class CsvStyle:
    """How a CSV file is written: its delimiter, its line ending and whether it starts with UTF-8's byte-order mark
    (Excel's "CSV UTF-8" writes one, and opens a file without it as the local code page: São Paulo as SÃ£o Paulo)."""

    delimiter: str = ","
    newline: str = "\n"
    byte_order_mark: bool = False

    def __post_init__(self) -> None:
        check_read_options(self.delimiter, "auto", 0)
        if self.newline not in ("\n", "\r\n"):
            raise InputError(f"newline must be '\\n' or '\\r\\n', got {self.newline!r}")
        if not isinstance(self.byte_order_mark, bool):
            raise InputTypeError(f"byte_order_mark must be true or false, got {self.byte_order_mark!r}")

    def recorded(self) -> dict[str, object]:
        """What a release's ``decoded`` section says of the style: the fields that are not a plain CSV's."""
        return {**({"delimiter": self.delimiter} if self.delimiter != "," else {}),
                **({"line_ending": "CRLF"} if self.newline == "\r\n" else {}),
                **({"byte_order_mark": True} if self.byte_order_mark else {})}


def header_style(path: str | Path, names: Sequence[str], skip_rows: int = 0) -> CsvStyle | None:
    """The style of a CSV file's header row (its first non-empty line after ``skip_rows``), or None (no header row,
    an unreadable file, or no single delimiter): the one delimiter among ``, ; TAB |`` that splits it into cells
    holding every one of ``names``, the line's ending (CRLF or LF) and whether the file starts with a byte-order mark.

    Synthetic rows are written in it, so a table written with semicolons (a decimal-comma locale's spreadsheet) or
    by Excel (CRLF, a byte-order mark) comes back the same. It reads the header row alone, which is public (the
    columns the schema names), never a record: the sniffer that reads the file looks at its records too."""
    try:
        with open_text(path, encoding="utf-8") as handle:  # not -sig: the mark is read as U+FEFF
            opening = next(handle, "")
            marked = opening.startswith("\ufeff")
            lines = islice(chain([opening], handle), skip_rows, None)
            first = next((line for line in lines if line.strip("\ufeff \t\r\n")), None)
    except (OSError, UnicodeDecodeError, EOFError, InputError):
        return None
    if first is None:
        return None
    wanted = set(names)
    fits = [d for d in CSV_DELIMITERS
            if wanted <= {cell.strip() for row in csv.reader([first.lstrip("\ufeff")], delimiter=d) for cell in row}]
    if len(fits) != 1:
        return None
    return CsvStyle(fits[0], "\r\n" if first.endswith("\r\n") else "\n", marked)


def csv_text(header: Sequence[str], columns: Sequence[Sequence[str]], style: CsvStyle = CsvStyle()) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, delimiter=style.delimiter, lineterminator=style.newline)
    writer.writerow(header)
    writer.writerows(zip(*columns))
    return ("\ufeff" if style.byte_order_mark else "") + buffer.getvalue()


def write_parquet(frame: object, path: str | Path, *, dates: Sequence[str] = ()) -> None:
    """Write a pandas DataFrame as Parquet with DuckDB, atomically; ``dates`` are written as DATE (pandas holds
    them as datetimes)."""
    duckdb = need("duckdb", "parquet", "writing Parquet")
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    folder.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    os.close(handle)
    connection = duckdb.connect()
    try:
        connection.register("decoded", frame)
        quoted = temporary.replace("'", "''")
        quote = lambda name: '"' + str(name).replace('"', '""') + '"'  # noqa: E731
        names = ", ".join(f"CAST({quote(c)} AS DATE) AS {quote(c)}" if c in dates else quote(c) for c in frame.columns)
        connection.execute(f"COPY (SELECT {names} FROM decoded) TO '{quoted}' (FORMAT parquet)")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    finally:
        connection.close()


def concat_tables(tables: Sequence[Table], source: str) -> Table:
    """The rows of several raw tables (the part files of one table) as one, named ``source``: each column's
    text values factorized over all the parts, typed values concatenated. The parts must have the same columns in
    the same order, and a column must be text in every part or typed in every part (Parquet parts of one kind);
    a mismatch is an InputError naming the file and the column, never a value."""
    first = tables[0]
    names = list(first.columns)
    for table in tables[1:]:
        if list(table.columns) != names:
            raise InputError(f"{table.source}: its columns differ from those of {first.source} (the files of one "
                             "table need the same header)")
    columns: dict[str, FactorColumn | TypedColumn] = {}
    for name in names:
        parts = [table.columns[name] for table in tables]
        if all(isinstance(part, FactorColumn) for part in parts):
            merged = factorize(np.concatenate([part.uniques for part in parts]))  # each part's uniques, globally
            indexes, offset = [], 0
            for part in parts:
                index = np.full(part.n, -1, dtype=np.int64)  # -1: a NULL stays one
                present = part.index >= 0
                index[present] = merged.index[part.index[present] + offset]
                indexes.append(index)
                offset += len(part.uniques)
            columns[name] = FactorColumn(merged.uniques, np.concatenate(indexes))  # int64 parts
        elif all(isinstance(part, TypedColumn) for part in parts) and \
                len({_typed_kind(part.values.dtype.kind) for part in parts}) == 1:
            columns[name] = TypedColumn(np.concatenate([part.values for part in parts]),
                                        np.concatenate([part.missing for part in parts]),
                                        zoned=all(part.zoned for part in parts))
        else:
            raise InputError(f"column {name!r}: the files of {source} hold it as different kinds of value (text in "
                             "one, numbers or dates in another); write every part the same way")
    missing = tuple(dict.fromkeys(m for table in tables for m in table.missing))
    return Table(columns, sum(table.n for table in tables), source, missing, first.present)


def _typed_kind(dtype_kind: str) -> str:
    """A typed column's kind of value for :func:`concat_tables`: dates, booleans or numbers (ints and floats join)."""
    return {"M": "dates", "b": "booleans"}.get(dtype_kind, "numbers")
