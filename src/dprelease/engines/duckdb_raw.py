"""DuckDB reading a raw table through its public schema: encoded in SQL, checked in one pass, kept as codes.

:func:`define_encoded` runs the schema's encoding (:mod:`dprelease.engines.schema_sql`) over the files once,
into a temporary table of codes (``dprelease_encoded``; DuckDB spills it beyond its memory limit), checks
it with one aggregate, and defines the view ``coded`` (``c0 .. c{d-1}``) that every private read counts.
The text is parsed once, however many marginals are counted afterwards.

A problem is reported as the in-memory encoder reports it (the same message, column by column), before
anything private is read; ``show_values`` adds the number of rows and up to three of the smallest distinct
bad values (the in-memory encoder quotes three in the order it met them, so the examples may differ).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice

from dprelease.engines.csv_layout import CsvLayout, column_names
from dprelease.engines.schema_sql import PROBLEMS, Encoding, plan, problems_message
from dprelease.engines.sql_text import DUCKDB
from dprelease.errors import InputError
from dprelease.schema import Schema
from dprelease.schema.between import present_and_missing
from dprelease.schema.parse import as_text
from dprelease.schema.tables import open_text, person_index_of_keys

ENCODED = "dprelease_encoded"
#: The privacy id's column in ``ENCODED`` (a person-level run's, :mod:`dprelease.privacy.contributions`).
PERSON_KEY = "dprelease_person"


def csv_source(files: Sequence[str], layout: CsvLayout, keep: Sequence[str]) -> str:
    """``read_csv`` of every cell as text, laid out as the in-memory reader reads the file (columns outside
    ``keep`` under placeholder names, :func:`column_names`).

    The reader takes the first non-empty row after ``skip_rows`` lines as the header and drops every empty line;
    DuckDB takes the line after ``skip`` lines as the header and drops an empty line only where the file has
    several columns (with one, it is a NULL row). So the empty lines before the header are skipped too, and a
    one-column file drops its NULL rows, read with ``allow_quoted_nulls = false`` so that a quoted empty
    cell (a row to the reader) stays ``''``.
    """
    names = column_names(layout.names, keep)
    paths = "[" + ", ".join(DUCKDB.text(path) for path in files) + "]"
    skip = layout.skip_rows + _empty_lines_before_table(files, layout.skip_rows)
    columns = "{" + ", ".join(f"{DUCKDB.text(name)}: 'VARCHAR'" for name in names) + "}"
    source = (f"read_csv({paths}, header = {str(layout.header).lower()}, skip = {skip}, "
              f"auto_detect = false, columns = {columns}, delim = {DUCKDB.text(layout.delimiter)}, quote = '\"', "
              "escape = '\"', strict_mode = true")
    if len(names) == 1:
        return f"(SELECT * FROM {source}, allow_quoted_nulls = false) WHERE {DUCKDB.quote(names[0])} IS NOT NULL)"
    return source + ")"


def _empty_lines_before_table(files: Sequence[str], skip_rows: int) -> int:
    """The empty lines after ``skip_rows`` before the first row, the same in every file (public: the layout)."""
    counts = []
    for path in files:
        count = 0
        try:
            with open_text(path) as handle:
                for line in islice(handle, skip_rows, None):
                    if line not in ("\n", "\r\n", "\r"):
                        break
                    count += 1
        except (OSError, UnicodeDecodeError):  # read before by csv_layout; DuckDB names the file if it fails now
            pass
        counts.append(count)
    for path, count in zip(files[1:], counts[1:]):
        if count != counts[0]:
            raise InputError(f"data file {path!r} is laid out differently from {files[0]!r} (empty lines before "
                             "the table)")
    return counts[0] if counts else 0


def render(encoding: Encoding, source: str) -> str:
    """The encoding's stages as nested SELECTs over ``source``, ending in the columns c0.. (signed codes)."""
    sql = f"SELECT * FROM {source}"
    for stage in encoding.stages:
        sql = f"SELECT *, {', '.join(f'{expr} AS {alias}' for alias, expr in stage)} FROM ({sql})"
    return sql


def define_encoded(con: object, duckdb: object, source: str, types: dict[str, str], schema: Schema, label: str,
                   *, csv: bool, show_values: bool, code_types: list[str], open_error,
                   header: Sequence[str] = (), privacy_id: str | None = None) -> int:
    """Encode, check and keep the table; return n. ``open_error(exc)`` turns a DuckDB error into an InputError.
    ``header``: a CSV's header cells (its columns outside the schema are read under placeholder names).
    ``privacy_id``: a column kept beside the codes as ``PERSON_KEY`` (:func:`person_key`), for
    :func:`persons_and_codes`."""
    present, missing = present_and_missing(schema, types)
    used = schema.select(present) if present else None
    encoding = plan(used, types, DUCKDB, csv=csv, label=label) if used is not None else None
    flags_of = [(i, kind) for i in range(len(present)) for kind in PROBLEMS]
    try:
        if encoding is None:  # every column missing: nothing to encode
            n, flags = con.execute(f"SELECT count(*) FROM {source}").fetchone()[0], []
        else:
            codes = ", ".join(f"CAST({code} AS INTEGER) AS c{i}" for i, code in enumerate(encoding.codes))
            if privacy_id is not None:
                codes += f", {person_key(privacy_id, types[privacy_id], schema, csv=csv)} AS {PERSON_KEY}"
            select = f"SELECT {codes} FROM ({render(encoding, source)})"
            table = select
            if not missing:  # encode once into a table of codes; a missing column needs only the checks
                con.execute(f"CREATE OR REPLACE TEMP TABLE {ENCODED} AS {select}")
                table = f"SELECT * FROM {ENCODED}"
            checks = "".join(f", bool_or(c{i} = {-kind})" for i, kind in flags_of)
            n, *flags = con.execute(f"SELECT count(*){checks} FROM ({table})").fetchone()
    except duckdb.Error as exc:
        con.execute(f"DROP TABLE IF EXISTS {ENCODED}")
        raise open_error(exc) from None
    found = {key: bool(flag) for key, flag in zip(flags_of, flags)}
    if show_values and any(found.values()):
        bad = [key for key, flag in found.items() if flag]
        counts = con.execute("SELECT " + ", ".join(f"count_if(c{i} = {-kind})" for i, kind in bad)
                             + f" FROM ({table})").fetchone()
        found = {(i, kind): (int(rows), _examples(con, used, types, source, csv, i, kind))
                 for (i, kind), rows in zip(bad, counts)}
    message = problems_message(label, used or schema, missing, found, show_values=show_values,
                               present=[*types, *header])
    if message is not None:
        con.execute(f"DROP TABLE IF EXISTS {ENCODED}")
        raise InputError(message)
    if n == 0:
        con.execute(f"DROP TABLE IF EXISTS {ENCODED}")
        raise InputError(f"{label} has no rows; a release needs at least one row")
    casts = ", ".join(f"CAST(c{i} AS {code_type}) AS c{i}" for i, code_type in enumerate(code_types))
    con.execute(f"CREATE TEMP VIEW coded AS SELECT {casts} FROM {ENCODED}")
    return int(n)


def _examples(con: object, schema: Schema, types: dict[str, str], source: str, csv: bool, i: int,
              kind: int) -> list[str]:
    """Up to three of the smallest distinct values of column i with problem ``kind`` (for ``show_values``),
    through an encoding of that column alone."""
    one = plan(_alone(schema, i), types, DUCKDB, csv=csv)
    code, value = one.codes[-1], one.examples[-1]
    # MATERIALIZED: a filter pushed down through the stages would inline every alias where it is used
    # (the date fields appear a dozen times in the day count), a tree many times the size of the SELECT.
    rows = con.execute(f"WITH t AS MATERIALIZED (SELECT {code} AS c, {value} AS x FROM ({render(one, source)})) "
                       f"SELECT DISTINCT x FROM t WHERE c = {-kind} AND x IS NOT NULL ORDER BY x LIMIT 3").fetchall()
    texts = [as_text(x) for (x,) in rows]
    return ["NULL" if text is None else text for text in texts]


def person_key(privacy_id: str, sql_type: str, schema: Schema, *, csv: bool) -> str:
    """The privacy id as the in-memory reader compares it (:func:`~dprelease.schema.tables.person_index`): text as
    read ('' for an empty CSV cell), stripped where the schema strips; a typed id by value."""
    column = DUCKDB.quote(privacy_id)
    if sql_type.upper().split("(")[0] not in ("VARCHAR", "TEXT", "STRING"):
        return column
    text = f"coalesce({column}, '')" if csv else column
    return DUCKDB.strip(text) if schema.strip else text


def persons_and_codes(con: object, width: int) -> tuple[object, object]:
    """(each row's person, ranked as :func:`~dprelease.schema.tables.person_index_of_keys` ranks the ids, -1 for a NULL
    id; the codes, (n, width) int64), read from ``ENCODED`` in one pass: the rows with their persons, for the kernel."""
    import numpy as np

    names = ", ".join(f"c{i}" for i in range(width))
    arrays = con.execute(f"SELECT {PERSON_KEY}{', ' if width else ''}{names} FROM {ENCODED}").fetchnumpy()
    persons = person_index_of_keys(arrays.pop(PERSON_KEY))
    codes = np.empty((len(persons), width), dtype=np.int64)
    for i in range(width):
        codes[:, i] = arrays.pop(f"c{i}")
    return persons, codes


def _alone(schema: Schema, i: int) -> Schema:
    """Column i's schema for its examples: the column alone, after its dates where it is computed between two."""
    name = schema.names[i]
    return schema.select([*(getattr(schema.columns[i], "between", None) or ()), name])
