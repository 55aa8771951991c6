"""How a CSV file is laid out (delimiter, header row, lines to skip), decided as the in-memory reader decides.

:func:`dprelease.schema.tables.read_csv` sniffs the delimiter among ``, ; TAB |`` on the first 64 KiB after
``skip_rows`` lines (a comma when unclear) and, with ``header="auto"``, takes the first row as a header
when it names any schema column. An engine reading the same file with a schema must read the same
columns, so it asks :func:`csv_layout` first and hands DuckDB the answer (``delim``, ``header``, ``skip``
and the column names); a file of codes has a comma and a header row (:func:`coded_layout`). Only the first
row's cells are parsed here: the header (public column names), or, without one, their number.
:func:`check_rows` reads a whole file as the in-memory reader does, for an engine that cannot tell its
structural problems apart (Spark) or words them otherwise (DuckDB). No cell is ever quoted in a message.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import islice
from typing import TextIO

from dprelease.errors import InputError
from dprelease.schema.tables import (CSV_DELIMITERS, check_distinct_header, check_read_options, csv_error, csv_rows,
                                      has_header_row, not_text, open_text, ragged_problem)

_SNIFF_CHARS = 65536


@dataclass(frozen=True, slots=True)
class CsvLayout:
    """The delimiter, whether the first row (after ``skip_rows`` lines) is a header, and the column names."""

    delimiter: str
    header: bool
    names: tuple[str, ...]
    skip_rows: int = 0


#: The prefix of the names the engines give the CSV columns a reader ignores (see :func:`column_names`).
IGNORED = "__dprelease_ignored_"


def column_names(header: Sequence[str], keep: Sequence[str]) -> list[str]:
    """The names DuckDB and Spark read a CSV's columns under: a column of ``keep`` by its name, any other by a
    placeholder.

    The in-memory readers take any header whose names are distinct and read only the columns they need, so a
    header may hold an empty name (an unnamed column, or the empty last cell of an Excel export whose lines end
    in a delimiter), names that differ only in case, or a name DuckDB's encoding uses as an alias. DuckDB and
    Spark bind names without case, and DuckDB refuses an empty one; the columns nobody reads are renamed, by
    position, to names no kept column has in any case.
    """
    taken = {name.lower() for name in keep}
    names = []
    for j, name in enumerate(header):
        if name not in keep:
            name = f"{IGNORED}{j}"
            while name.lower() in taken:
                name = "_" + name
        names.append(name)
    return names


def csv_layout(files: Sequence[str], names: Sequence[str], *, delimiter: str | None = None,
               header: bool | str = "auto", skip_rows: int = 0, fields: Sequence[str] | None = None) -> CsvLayout:
    """The layout every file shares; an InputError naming a file that cannot be read or differs from the first.

    ``fields``: the columns a file without a header row holds, in order (the whole schema's, for a schema of some of
    its columns; default ``names``)."""
    check_read_options(delimiter, header, skip_rows)
    layouts = [_one(path, names, delimiter, header, skip_rows, fields) for path in files]
    for path, layout in zip(files[1:], layouts[1:]):
        if layout != layouts[0]:
            first = layouts[0]
            why = ("its delimiter differs" if layout.delimiter != first.delimiter else
                   "one has a header row, the other not" if layout.header != first.header else
                   "their headers name other columns or the same in another order: CSV parts share one header"
                   if layout.names != first.names else "their layouts differ")
            raise InputError(f"data file {path!r} is laid out differently from {files[0]!r} ({why})")
    return layouts[0]


def _one(path: str, names: Sequence[str], delimiter: str | None, header: bool | str, skip_rows: int,
         fields: Sequence[str] | None = None) -> CsvLayout:
    source = f"data file {path!r}"
    try:
        with open_text(path) as handle:
            lines = islice(handle, skip_rows, None)
            head = []
            size = 0
            for line in lines:  # enough lines for the sniffer, and the first row whatever its length
                head.append(line)
                size += len(line)
                if size >= _SNIFF_CHARS:
                    break
            text = "".join(head)
            if delimiter is None:
                try:
                    delimiter = csv.Sniffer().sniff(text[:_SNIFF_CHARS], delimiters=CSV_DELIMITERS).delimiter
                except csv.Error:
                    delimiter = ","
            rows = csv.reader(_chain(head, lines), delimiter=delimiter, skipinitialspace=True)
            first = next((row for row in rows if row), None)
    except OSError as exc:
        raise InputError(f"{source} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(not_text(source, path=path)) from None
    except csv.Error:
        raise InputError(f"{source} does not parse as CSV (its first row)") from None
    if first is None:
        raise InputError(f"{source} is empty")
    cells = [h.strip() for h in first]
    if has_header_row(cells, names, header, source, layout=fields):
        return CsvLayout(delimiter, True, tuple(cells), skip_rows)
    return CsvLayout(delimiter, False, tuple(names if fields is None else fields), skip_rows)


def _chain(head: list[str], rest):
    yield from head
    yield from rest


def coded_layout(files: Sequence[str], label: str, declared: Sequence[str]) -> CsvLayout:
    """The layout of CSV files of codes: a comma and a header row (the first non-empty row, its cells stripped), the
    same in every file. Public only where the header names ``declared`` columns (a file without a header row has a
    record there): messages quote no other cell."""
    headers = []
    for path in files:
        source = f"data file {path!r}"
        with _opened(path) as handle:
            first = next(csv_rows(handle, source), None)
        if first is None:
            raise InputError(f"{source} is empty (no header row)")
        header = [h.strip() for h in first]
        check_distinct_header(header, declared, source)
        if headers and header != headers[0]:
            raise InputError(f"{label}: data file {path!r} has another header than {files[0]!r}")
        headers.append(header)
    return CsvLayout(",", True, tuple(headers[0]))


def check_rows(files: Sequence[str], layout: CsvLayout, *, strip: bool) -> None:
    """Read every file as the in-memory reader reads it, keeping nothing; raise the InputError it raises for a
    file's structure (a quote, line endings, a line of more or fewer fields), naming the file."""
    width = len(layout.names)
    for path in files:
        source = f"data file {path!r}"
        with _opened(path) as handle:
            rows = csv_rows(islice(handle, layout.skip_rows, None), source, delimiter=layout.delimiter,
                            skipinitialspace=strip)
            if layout.header:
                next(rows, None)
            for row in rows:
                if len(row) != width and (len(row) < width or any(row[width:])):
                    raise csv_error(source, ragged_problem(layout.header))


@contextmanager
def _opened(path: str) -> Iterator[TextIO]:
    """A file opened as the readers open it, with its read errors in one line naming it."""
    source = f"data file {path!r}"
    try:
        with open_text(path) as handle:
            yield handle
    except OSError as exc:
        raise InputError(f"{source} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise InputError(not_text(source, path=path)) from None
