"""DuckDB: a private table in integer-coded CSV or Parquet files, counted where it lies (embedded, out of core).

>>> import tempfile, os, dprelease
>>> from dprelease.engines.duckdb_engine import DuckDBTable
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "t.csv")
>>> _ = open(path, "w").write("a,b,other\\n0,1,x\\n1,2,y\\n1,2,z\\n")
>>> with DuckDBTable.open(path, dprelease.Domain(("a", "b"), (2, 3))) as table:
...     table.n, table.marginal_counts(["b", "a"]).tolist()
(3, [[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])

Opening a table reads only public things and checks the data in one SQL pass: every domain column
present, of an integer-like type, every value a code in ``0..size-1``. A bad column is named with the
kind of problem (missing cells, text, fractions, codes out of range), never with a value or a count
of rows. Columns outside the domain (or outside ``columns``) are ignored and never read.

Private reads (the kernel's only) then take one of two paths (:mod:`dprelease.engines.table`): the
table grouped once into weighted distinct rows (``GROUP BY ALL``) when they fit the cap, else one
``GROUP BY`` per marginal, batched as ``UNION ALL`` of per-set aggregates in one statement. (DuckDB 2.0's
``GROUPING SETS`` took twice as long as the same sets as separate aggregates, 8.5 s vs 4.1-4.6 s for 16
3-way sets of 10^7 rows here: docs/decisions.md.) Each set groups by one flat integer key, the cell's
index in C order, which DuckDB aggregates faster than the tuple of columns.

``memory_limit`` (bytes or ``"2GB"``) is the engine's whole budget: half goes to DuckDB's own
``memory_limit`` (beyond it DuckDB spills to ``temp_directory``, a private folder under the system's
temporary directory by default, removed by :meth:`DuckDBTable.close`), a quarter to the distinct rows in
numpy, a quarter to cached marginals.
"""

from __future__ import annotations

import math
import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np

from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.engines.base import domain_or_schema
from dprelease.engines.counting import CHUNK_ROWS, DEFAULT_MEMORY_LIMIT, DistinctRows, code_dtype, parse_memory_limit
from dprelease.engines.csv_layout import CsvLayout, check_read_options, check_rows, coded_layout, csv_layout
from dprelease.engines.duckdb_raw import csv_source, define_encoded, persons_and_codes
from dprelease.engines.files import detect_format, resolve_files
from dprelease.engines.persons import PersonRows
from dprelease.engines.sql_text import DUCKDB
from dprelease.engines.table import DEFAULT_BATCH, CountingTable
from dprelease.errors import EngineError, InputError
from dprelease.schema import Schema
from dprelease.schema.tables import QUOTE_PROBLEM, csv_error, header_text, ragged_problem
from dprelease.validation import check_positive_int

_INTEGER_TYPES = {"TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT", "USMALLINT", "UINTEGER",
                  "UBIGINT", "UHUGEINT"}
_FLOAT_TYPES = {"FLOAT", "DOUBLE"}
_SQL_CODE_TYPE = {1: "UTINYINT", 2: "USMALLINT", 4: "UINTEGER", 8: "UBIGINT"}
_DISTINCT = "dprelease_distinct"
_ORDERED = "dprelease_ordered"


def _duckdb():
    try:
        import duckdb
    except ImportError:  # pragma: no cover - duckdb is a core dependency
        raise InputError("engine 'duckdb' needs the duckdb package: pip install duckdb") from None
    return duckdb


def quote(identifier: str) -> str:
    """A SQL identifier, double-quoted (column names come from the public domain)."""
    return '"' + identifier.replace('"', '""') + '"'


def literal(text: str) -> str:
    """A SQL string literal (file paths are public)."""
    return "'" + text.replace("'", "''") + "'"


class DuckDBTable(CountingTable):
    """A :class:`~dprelease.engines.base.PrivateTable` over coded CSV/Parquet files, counted by embedded DuckDB.

    Build with :meth:`open`. Close it (or use ``with``) to free DuckDB's memory and its spill folder.
    """

    def __init__(self, connection: object, domain: Domain, n: int, label: str, *, memory_limit: int,
                 max_distinct_rows: int | None, batch_size: int, spill_folder: str | None) -> None:
        super().__init__(domain, n, memory_limit=memory_limit, max_distinct_rows=max_distinct_rows,
                         batch_size=batch_size)
        self._con = connection
        self.label = label
        self._spill_folder = spill_folder

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, source: object, domain: Domain | None = None, *, schema: Schema | None = None,
             columns: Sequence[str] | None = None, format: str | None = None,
             memory_limit: int | str = DEFAULT_MEMORY_LIMIT, threads: int | None = None,
             temp_directory: str | None = None, max_distinct_rows: int | None = None,
             batch_size: int = DEFAULT_BATCH, delimiter: str | None = None, header: bool | str = "auto",
             skip_rows: int = 0, show_values: bool = False, privacy_id: str | None = None) -> DuckDBTable | PersonRows:
        """Open ``source`` (a path, a glob, a folder of part files, or a list of them) over ``domain``, or
        through ``schema`` (a raw table, encoded in SQL as the in-memory encoder encodes it).

        Args:
            domain: the files hold integer codes of this domain (give ``domain`` or ``schema``).
            schema: the files hold raw values (text, numbers, dates, blanks), encoded by this public schema
                (:mod:`dprelease.engines.duckdb_raw`); ``delimiter``, ``header``, ``skip_rows`` and
                ``show_values`` are then those of :func:`dprelease.schema.encode`.
            columns: the domain's attributes to use (default: all); other file columns are ignored.
            format: ``"parquet"`` or ``"csv"`` (default: from the suffixes, else the magic bytes).
            memory_limit: the engine's budget in bytes or as ``"2GB"`` (see the module's docstring).
            threads: DuckDB's worker threads (default: DuckDB's, one per core).
            temp_directory: where DuckDB spills beyond its memory limit (default: a fresh private folder
                under the system's temporary directory, removed on :meth:`close`).
            max_distinct_rows: the cap on distinct rows held in numpy (default: from ``memory_limit``;
                0 always counts per marginal set).
            batch_size: marginals counted per query by :meth:`prefetch`.
            privacy_id: with ``schema``, a column outside it naming each row's person: the table is encoded here and
                returned with its persons as :class:`~dprelease.engines.persons.PersonRows`, in memory (the kernel
                bounds each person's rows before anything is counted), and the connection is closed.

        Raises:
            InputError: a missing file, a glob matching nothing, an unreadable or corrupt file, a missing
                column, or a column that is not integer codes of its domain (named, with the problem).
        """
        domain, schema = domain_or_schema(domain, schema, columns)
        raw = {"delimiter": delimiter, "header": header, "skip_rows": skip_rows, "show_values": show_values}
        if schema is None and raw != {"delimiter": None, "header": "auto", "skip_rows": 0, "show_values": False}:
            raise InputError("delimiter, header, skip_rows and show_values read a raw table: give schema=, "
                             "not domain=")
        check_read_options(delimiter, header, skip_rows)
        budget = parse_memory_limit(memory_limit)
        if threads is not None:
            threads = check_positive_int(threads, "threads")
        batch_size = check_positive_int(batch_size, "batch_size")
        files, label = resolve_files(source)
        kind = detect_format(files, format)
        layout = None
        if schema is not None and kind == "csv":
            layout = csv_layout(files, schema.read_names, delimiter=delimiter, header=header, skip_rows=skip_rows,
                                fields=schema.file_names)
        duckdb = _duckdb()
        spill = temp_directory or os.path.join(tempfile.gettempdir(), f"dprelease-duckdb-{uuid.uuid4().hex}")
        config = {"memory_limit": f"{max(budget // 2 // 2**20, 8)}MiB", "temp_directory": spill,
                  "preserve_insertion_order": False}
        if threads is not None:
            config["threads"] = threads
        connection = duckdb.connect(":memory:", config=config)
        connection.execute("SET enable_progress_bar = false")
        try:
            if schema is None:
                if privacy_id is not None:
                    raise InputError("privacy_id names a column of a raw table: give schema=, not domain=")
                n = _define_coded_view(connection, duckdb, files, kind, domain, label)
            else:
                n = _define_encoded_view(connection, duckdb, files, kind, schema, label, layout, show_values,
                                         privacy_id)
            if privacy_id is not None:  # the rows with their persons, for the kernel to bound (in memory)
                persons, codes = persons_and_codes(connection, len(schema.domain))
                connection.close()
                if not temp_directory:
                    shutil.rmtree(spill, ignore_errors=True)
                return PersonRows(Dataset(schema.domain, codes, None, n), persons, privacy_id)
        except BaseException:
            connection.close()
            if not temp_directory:
                shutil.rmtree(spill, ignore_errors=True)
            raise
        return cls(connection, domain, n, label, memory_limit=budget, max_distinct_rows=max_distinct_rows,
                   batch_size=batch_size, spill_folder=None if temp_directory else spill)

    def close(self) -> None:
        """Close the DuckDB connection and remove its spill folder (if it made one)."""
        self._con.close()
        if self._spill_folder is not None:
            shutil.rmtree(self._spill_folder, ignore_errors=True)

    def __enter__(self) -> DuckDBTable:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def to_records(self) -> np.ndarray:
        """The coded table as an (n, d) int64 array, columns in domain order (for the in-memory engine)."""
        names = ", ".join(f"c{i}" for i in range(len(self.domain)))
        with self._reading("loading the table into memory"):
            arrays = self._con.execute(f"SELECT {names} FROM coded").fetchnumpy()
        records = np.empty((self.n, len(self.domain)), dtype=np.int64)
        for i in range(len(self.domain)):
            records[:, i] = arrays.pop(f"c{i}")
        return records

    # -------------------------------------------------------------------- hooks
    def _group_rows(self, cap: int) -> DistinctRows | None:
        names = ", ".join(f"c{i}" for i in range(len(self.domain)))
        with self._reading("grouping the table into distinct rows"):
            self._con.execute(f"CREATE OR REPLACE TEMP TABLE {_DISTINCT} AS "
                              f"SELECT {names}, count(*) AS w FROM coded GROUP BY ALL")
            try:
                distinct = self._con.execute(f"SELECT count(*) FROM {_DISTINCT}").fetchone()[0]
                arrays = self._con.execute(f"SELECT * FROM {_DISTINCT}").fetchnumpy() if distinct <= cap else None
            finally:
                self._con.execute(f"DROP TABLE IF EXISTS {_DISTINCT}")
        if arrays is None:
            return None
        return DistinctRows.from_columns(self.domain, [arrays[f"c{i}"] for i in range(len(self.domain))],
                                         arrays["w"])

    def _estimate_distinct(self) -> float | None:
        names = ", ".join(f"c{i}" for i in range(len(self.domain)))
        with self._reading("estimating the distinct rows"):
            return float(self._con.execute(f"SELECT approx_count_distinct(hash({names})) FROM coded").fetchone()[0])

    def _count_sets(self, sets: list[tuple[str, ...]]) -> list[np.ndarray]:
        cells = [math.prod(self.domain.size_of(a) for a in s) for s in sets]
        parts = [f"SELECT {j} AS sid, {self._flat_key(s, c)} AS k, count(*) AS w FROM coded GROUP BY k"
                 for j, (s, c) in enumerate(zip(sets, cells))]
        with self._reading(f"counting {len(sets)} marginal(s)"):
            result = self._con.execute(" UNION ALL ".join(parts)).fetchnumpy()
        sid, key, weight = result["sid"], result["k"].astype(np.int64), result["w"].astype(np.float64)
        return [np.bincount(key[sid == j], weights=weight[sid == j], minlength=c) for j, c in enumerate(cells)]

    def _stream_distinct(self) -> tuple[Iterator[np.ndarray], Iterator[np.ndarray]]:
        names = ", ".join(f"c{i}" for i in range(len(self.domain)))
        with self._reading("ordering the distinct rows"):
            self._con.execute(f"CREATE OR REPLACE TEMP TABLE {_ORDERED} AS SELECT row_number() OVER (ORDER BY "
                              f"{names}) AS rn, * FROM (SELECT {names}, count(*) AS w FROM coded GROUP BY ALL)")
            total = self._con.execute(f"SELECT count(*) FROM {_ORDERED}").fetchone()[0]

        def chunks(select: str, last: bool) -> Iterator[np.ndarray]:
            step = CHUNK_ROWS * 16
            for start in range(0, total, step):
                with self._reading("reading the distinct rows"):
                    part = self._con.execute(f"SELECT {select} FROM {_ORDERED} WHERE rn > {start} AND "
                                             f"rn <= {start + step} ORDER BY rn").fetchnumpy()
                yield (np.stack([part[f"c{i}"] for i in range(len(self.domain))], axis=1) if select == names
                       else part["w"])
            if last:
                with self._reading("dropping the ordered rows"):
                    self._con.execute(f"DROP TABLE IF EXISTS {_ORDERED}")

        return chunks(names, False), chunks("w", True)

    # ------------------------------------------------------------------ helpers
    def _flat_key(self, canonical: tuple[str, ...], cells: int) -> str:
        """The cell's C-order index in the marginal on ``canonical``, as SQL over the coded columns."""
        if cells >= 2**62:
            raise InputError(f"the marginal on {list(canonical)} has {cells:.3g} cells: too many to count")
        sql_type = "UINTEGER" if cells < 2**32 else "UBIGINT"
        terms, stride = [], 1
        for attribute in reversed(canonical):
            column = f"CAST(c{self.domain.axis(attribute)} AS {sql_type})"
            terms.append(column if stride == 1 else f"{column} * {stride}")
            stride *= self.domain.size_of(attribute)
        return "(" + " + ".join(reversed(terms)) + ")"

    @contextmanager
    def _reading(self, what: str) -> Iterator[None]:
        """Turn DuckDB's failures during a private read into one EngineError line without its text.

        DuckDB's own message may quote a value it could not convert, so only its class name and the
        table's public label reach the message.
        """
        duckdb = _duckdb()
        try:
            yield
        except duckdb.Error as exc:
            raise EngineError(f"{self.label}: DuckDB failed while {what} ({type(exc).__name__}); "
                              "nothing was read from the table") from None


# ---------------------------------------------------------------------- opening
def _source_sql(files: list[str], kind: str, label: str, keep: Sequence[str]) -> tuple[str, CsvLayout | None]:
    """(the files as a DuckDB table, a CSV's layout or None): CSV columns outside ``keep`` under placeholder names."""
    if kind == "parquet":
        return f"read_parquet([{', '.join(literal(f) for f in files)}])", None
    # The header is read here and every cell typed as text (checked and converted in SQL), so DuckDB's
    # sniffer never guesses a header from data lines, and a ragged line is an error, not a new layout.
    layout = coded_layout(files, label, keep)
    return csv_source(files, layout, keep), layout


#: DuckDB's phrases for a CSV it cannot parse, and what they say in our words (DuckDB's own message repeats the
#: line, a private record, so only the phrase is matched and nothing of its text is passed on).
_CSV_ERRORS = (
    ("Expected Number of Columns", None),  # the in-memory reader's words for a ragged line (ragged_problem)
    ("unterminated quote", QUOTE_PROBLEM),
    ("Invalid unicode", "it is not utf-8 text"),
    ("Maximum line size", "a line is longer than DuckDB's maximum line size"),
)


def _open_error(duckdb: object, exc: BaseException, label: str, kind: str, files: list[str], *,
                layout: CsvLayout | None = None, strip: bool = False) -> InputError:
    """A one-line InputError for a file DuckDB cannot open, naming the file when DuckDB's message does.

    DuckDB's strict reader fails in one phrase on several problems (lines ending in both LF and CRLF among
    them); the file is then read as the in-memory reader reads it, whose error names the problem.
    """
    text = str(exc)
    if layout is not None and "reached an invalid state" in text:
        try:
            check_rows(files, layout, strip=strip)
        except InputError as found:
            raise found from None  # not chained to DuckDB's error, whose text holds the line
    named = next((f for f in files if f in text), None)
    where = f"data file {named!r}" if named else label
    if kind == "parquet":
        return InputError(f"{where} cannot be read as Parquet ({type(exc).__name__})")
    match = next((ours for theirs, ours in _CSV_ERRORS if theirs in text), type(exc).__name__)
    return csv_error(where, ragged_problem(layout is None or layout.header) if match is None else match)


def _define_coded_view(con: object, duckdb: object, files: list[str], kind: str, domain: Domain, label: str) -> int:
    """Check the files against the domain in SQL, define the view ``coded`` (c0..c{d-1}), return n."""
    source, layout = _source_sql(files, kind, label, domain.attributes)
    try:
        described = con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
    except duckdb.Error as exc:
        raise _open_error(duckdb, exc, label, kind, files, layout=layout) from None
    types = {name: sql_type for name, sql_type, *_ in described}
    missing = [a for a in domain.attributes if a not in types]
    if missing:
        header = list(layout.names) if layout is not None else list(types)
        raise InputError(f"{label} {'lack' if label.startswith('data files') else 'lacks'} column(s) {missing} "
                         f"of the domain; {header_text(header, domain.attributes)}")
    checks, codes, type_problems = [], [], []
    for i, (attribute, size) in enumerate(zip(domain.attributes, domain.sizes)):
        sql_type = types[attribute].upper()
        value, column_checks = _column_checks(quote(attribute), sql_type, size)
        if column_checks is None:
            type_problems.append(f"column {attribute!r} has type {sql_type}; expected integer codes")
            continue
        checks.extend((attribute, problem, f"bool_or({condition})") for problem, condition in column_checks)
        codes.append(f"CAST({value} AS {_SQL_CODE_TYPE[code_dtype(size).itemsize]}) AS c{i}")
    if type_problems:
        raise InputError(f"{label}: " + "; ".join(type_problems))
    query = "SELECT count(*)" + "".join(f", {sql}" for _, _, sql in checks) + f" FROM {source}"
    try:
        n, *flags = con.execute(query).fetchone()
    except duckdb.Error as exc:
        raise _open_error(duckdb, exc, label, kind, files, layout=layout) from None
    if n == 0:
        raise InputError(f"{label} has no rows; a release needs at least one row")
    problems: dict[str, str] = {}
    for (attribute, problem, _), flag in zip(checks, flags):
        if flag and attribute not in problems:  # the first problem of each column, in the order checked
            problems[attribute] = problem
    if problems:
        raise InputError(f"{label}: " + "; ".join(f"column {a!r} has {p}" for a, p in problems.items()))
    con.execute(f"CREATE TEMP VIEW coded AS SELECT {', '.join(codes)} FROM {source}")
    return int(n)


def _define_encoded_view(con: object, duckdb: object, files: list[str], kind: str, schema: Schema, label: str,
                         layout: CsvLayout | None, show_values: bool, privacy_id: str | None = None) -> int:
    """A raw table through its schema (:mod:`dprelease.engines.duckdb_raw`): the view ``coded``, and n; with
    ``privacy_id``, that column kept beside the codes."""
    paths = "[" + ", ".join(literal(f) for f in files) + "]"
    keep = list(schema.read_names) if privacy_id is None else [*schema.read_names, privacy_id]
    source = f"read_parquet({paths})" if layout is None else csv_source(files, layout, keep)

    def open_error(exc: BaseException) -> InputError:
        return _open_error(duckdb, exc, label, kind, files, layout=layout, strip=schema.strip)

    try:
        described = con.execute(f"DESCRIBE SELECT * FROM {source}").fetchall()
    except duckdb.Error as exc:
        raise open_error(exc) from None
    types = {name: sql_type for name, sql_type, *_ in described}
    if privacy_id is not None and privacy_id not in types:  # public: the header's names
        raise InputError(f"{label} has no privacy_id column {privacy_id!r}")
    code_types = [_SQL_CODE_TYPE[code_dtype(size).itemsize] for size in schema.domain.sizes]
    return define_encoded(con, duckdb, source, types, schema, label, csv=layout is not None, show_values=show_values,
                          code_types=code_types, open_error=open_error,
                          header=layout.names if layout is not None and layout.header else (), privacy_id=privacy_id)


def _column_checks(column: str, sql_type: str, size: int) -> tuple[str, list[tuple[str, str]] | None]:
    """(the column as a number, [(problem, SQL condition true on a bad row)]), or (.., None) for a bad type.

    Checked in order; a column reports its first problem. Whole-number floats ("3", "3.0", 3.0) are
    codes, as in :meth:`Dataset.from_csv <dprelease.data.Dataset.from_csv>`, whose ``float()`` the text
    is parsed by.
    """
    out_of_range = f"values outside the codes 0..{size - 1}"
    base = sql_type.split("(")[0]
    if base in _INTEGER_TYPES:
        return column, [("empty or missing cells", f"{column} IS NULL"),
                        (out_of_range, f"{column} < 0 OR {column} >= {size}")]
    if base in _FLOAT_TYPES or base == "DECIMAL" or base == "VARCHAR":
        if base == "VARCHAR":
            stripped = DUCKDB.strip(column)  # Python's whitespace, then Python's float() grammar (sql_text.py)
            number = DUCKDB.python_float(stripped)
            first = [("empty or missing cells", f"{column} IS NULL OR {stripped} = ''"),
                     ("values that are not numbers", f"{number} IS NULL")]
        else:
            number = f"CAST({column} AS DOUBLE)"
            first = [("empty or missing cells", f"{column} IS NULL")]
        checks = [
            ("missing (NaN) or infinite values", f"NOT isfinite({number})"),
            ("values that are not whole numbers (codes are integers)", f"{number} <> trunc({number})"),
            (out_of_range, f"{number} < 0 OR {number} >= {size}"),
        ]
        if base == "VARCHAR":  # once checked, every cell is digits of the grammar: the view converts them directly
            return f"TRY_CAST(replace({stripped}, '_', '') AS DOUBLE)", first + checks
        return number, first + checks
    return column, None
