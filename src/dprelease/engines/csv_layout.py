"""How a raw CSV file is laid out (delimiter, header row, lines to skip), decided as the in-memory reader decides.

:func:`dprelease.schema.tables.read_csv` sniffs the delimiter among ``, ; TAB |`` on the first 64 KiB after
``skip_rows`` lines (a comma when unclear) and, with ``header="auto"``, takes the first row as a header
when it names any schema column. An engine reading the same file with a schema must read the same
columns, so it asks :func:`csv_layout` first and hands DuckDB the answer (``delim``, ``header``, ``skip``
and the column names). Only the first row's cells are parsed here: the header (public column names), or,
without one, their number. No cell is ever quoted in a message.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice

from dprelease.errors import InputError
from dprelease.schema.tables import CSV_DELIMITERS, check_read_options, has_header_row

_SNIFF_CHARS = 65536


@dataclass(frozen=True, slots=True)
class CsvLayout:
    """The delimiter, whether the first row (after ``skip_rows`` lines) is a header, and the column names."""

    delimiter: str
    header: bool
    names: tuple[str, ...]
    skip_rows: int = 0


def csv_layout(files: Sequence[str], names: Sequence[str], *, delimiter: str | None = None,
               header: bool | str = "auto", skip_rows: int = 0) -> CsvLayout:
    """The layout every file shares; an InputError naming a file that cannot be read or differs from the first."""
    check_read_options(delimiter, header, skip_rows)
    layouts = [_one(path, names, delimiter, header, skip_rows) for path in files]
    for path, layout in zip(files[1:], layouts[1:]):
        if layout != layouts[0]:
            first = layouts[0]
            why = ("its delimiter differs" if layout.delimiter != first.delimiter else
                   "one has a header row, the other not" if layout.header != first.header else
                   "their headers name other columns or the same in another order: CSV parts share one header"
                   if layout.names != first.names else "their layouts differ")
            raise InputError(f"data file {path!r} is laid out differently from {files[0]!r} ({why})")
    return layouts[0]


def _one(path: str, names: Sequence[str], delimiter: str | None, header: bool | str, skip_rows: int) -> CsvLayout:
    source = f"data file {path!r}"
    try:
        with open(path, newline="", encoding="utf-8-sig") as handle:
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
        raise InputError(f"{source} is not utf-8-sig text") from None
    except csv.Error:
        raise InputError(f"{source} does not parse as CSV (its first row)") from None
    if first is None:
        raise InputError(f"{source} is empty")
    cells = [h.strip() for h in first]
    if has_header_row(cells, names, header, source):
        return CsvLayout(delimiter, True, tuple(cells), skip_rows)
    return CsvLayout(delimiter, False, tuple(names), skip_rows)


def _chain(head: list[str], rest):
    yield from head
    yield from rest
