"""The private table: records (or a histogram of counts) over a public :class:`Domain`.

A :class:`Dataset` is the book's database x in N^|X|. It is built from a CSV of
integer codes, a pandas DataFrame, an integer array of records, or directly from
a histogram of counts (so tests can use n in the millions without rows).

Validation uses public information only (the declared domain and the file's
shape) and happens here, at load time: a checked Dataset never makes a mechanism
fail later because of its private values.

Privacy unit: neighbouring datasets have the same public size n and differ in one
record (the book's setting). ``n`` is therefore public.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.errors import InputError, InputTypeError
from dprelease.schema.encode import encode as encode_by_schema
from dprelease.schema.schema import Schema
from dprelease.schema.tables import (check_distinct_header, csv_error, csv_rows, factorize, fit_rows, header_text,
                                    not_text, open_text, ragged_problem)


@dataclass(frozen=True, eq=False)
class Dataset:
    """A private table over ``domain``: either ``records`` (n x d codes) or ``counts`` (|X| cells).

    Build with :meth:`from_csv`, :meth:`from_dataframe`, :meth:`from_records` or
    :meth:`from_histogram`; the constructor itself trusts its arguments (it checks nothing), but counts the rows
    when it is not told them: ``Dataset(domain, records)`` had n = 0, and the first mechanism failed on a division
    by zero deep in its plan.
    """

    domain: Domain
    records: np.ndarray | None = None
    counts: np.ndarray | None = None
    _n: int = field(default=0, repr=False)

    def __post_init__(self) -> None:
        if self._n == 0 and self.records is not None:
            object.__setattr__(self, "_n", int(len(self.records)))
        elif self._n == 0 and self.counts is not None:
            object.__setattr__(self, "_n", int(np.asarray(self.counts).sum()))

    # ------------------------------------------------------------------ loaders
    @classmethod
    def from_records(cls, records: object, domain: Domain, *, source: str = "records") -> Dataset:
        """From an integer array of shape (n, len(domain)), columns in domain order."""
        array = np.asarray(records)
        if array.ndim != 2 or array.shape[1] != len(domain):
            raise InputError(
                f"{source} must have shape (n, {len(domain)}) for domain {list(domain.attributes)}, got {array.shape}"
            )
        columns = {a: array[:, i] for i, a in enumerate(domain.attributes)}
        return cls._from_columns(columns, domain, source=source)

    @classmethod
    def from_csv(cls, path: str | Path, domain: Domain, *, columns: Sequence[str] | None = None) -> Dataset:
        """Read a CSV with a header row; values are integer codes 0..size-1.

        ``columns`` selects attributes (default: every attribute of ``domain``); the
        file may hold other columns, which are ignored. The file is read as every engine reads
        CSV (:func:`dprelease.schema.tables.csv_rows`): empty lines are no rows.
        """
        path = Path(path)
        source = f"data file {str(path)!r}"
        domain = _select(domain, columns)
        try:
            with open_text(path) as handle:  # -sig: tolerate a BOM
                rows = list(csv_rows(handle, source))
        except OSError as exc:
            raise InputError(f"{source} cannot be read: {exc.strerror or exc}") from None
        except UnicodeDecodeError:  # its text quotes the bytes it could not decode
            raise InputError(not_text(source, path=path)) from None
        if not rows:
            raise InputError(f"{source} is empty (no header row)")
        header, body = [h.strip() for h in rows[0]], rows[1:]
        check_distinct_header(header, domain.attributes, source)
        if fit_rows(body, len(header)) is not None:
            raise csv_error(source, ragged_problem(True))
        _check_columns_present(header, domain, source)
        positions = {a: header.index(a) for a in domain.attributes}
        raw = {a: np.array([row[i] for row in body], dtype=object) for a, i in positions.items()}
        return cls._from_columns(raw, domain, source=source)

    @classmethod
    def from_dataframe(cls, frame: object, domain: Domain, *, columns: Sequence[str] | None = None) -> Dataset:
        """From a pandas DataFrame (``pip install 'dprelease[pandas]'``) or any object with ``.columns`` and column indexing."""
        if not hasattr(frame, "columns"):
            raise InputTypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
        domain = _select(domain, columns)
        header = [str(c) for c in frame.columns]
        _check_columns_present(header, domain, "data frame")
        raw = {a: np.asarray(frame[a]) for a in domain.attributes}
        return cls._from_columns(raw, domain, source="data frame")

    @classmethod
    def from_schema(cls, data: object, schema: object, **options: object) -> Dataset:
        """A raw table (CSV, Parquet, pandas DataFrame) encoded by a public schema (a Schema, a schema file's path or
        its JSON form as a dict); see :func:`dprelease.schema.encode` for ``options`` (delimiter, header, skip_rows,
        show_values)."""
        schema = Schema.coerce(schema)
        codes = encode_by_schema(data, schema, **options)
        return cls(schema.domain, codes, None, len(codes))

    @classmethod
    def from_histogram(cls, counts: object, domain: Domain, *, max_cells: int = DEFAULT_MAX_CELLS) -> Dataset:
        """From non-negative integer counts over X (flat in C order, or shaped like the domain)."""
        domain.check_fits(max_cells, what="a histogram dataset")
        array = np.asarray(counts)
        if array.size != domain.size:
            raise InputError(f"counts must have {domain.size} cells for this domain, got {array.size}")
        if not np.issubdtype(array.dtype, np.number) or np.issubdtype(array.dtype, np.complexfloating):
            raise InputTypeError(f"counts must be numeric, got dtype {array.dtype}")
        flat = array.reshape(-1)
        if np.issubdtype(flat.dtype, np.floating):
            bad = ~np.isfinite(flat) | (flat != np.round(flat))
            if bad.any():
                raise InputError(f"counts must be whole numbers, got {float(flat[bad][0])!r} ({int(bad.sum())} cells)")
        flat = flat.astype(np.int64)
        if (flat < 0).any():
            raise InputError(f"counts must be >= 0, got {int(flat.min())} ({int((flat < 0).sum())} cells)")
        n = int(flat.sum())
        if n == 0:
            raise InputError("counts describe an empty table (n = 0); a release needs at least one row")
        return cls(domain, None, flat, n)

    @classmethod
    def _from_columns(cls, raw: dict[str, np.ndarray], domain: Domain, *, source: str) -> Dataset:
        n = len(next(iter(raw.values())))
        if n == 0:
            raise InputError(f"{source} has no rows; a release needs at least one row")
        codes = np.empty((n, len(domain)), dtype=np.int64)
        for i, (attribute, size) in enumerate(zip(domain.attributes, domain.sizes)):
            codes[:, i] = _parse_codes(raw[attribute], attribute, size, source)
        return cls(domain, codes, None, n)

    # ------------------------------------------------------------------- access
    @property
    def n(self) -> int:
        """Number of records; public under the book's privacy unit (same-size neighbours)."""
        return self._n

    def select(self, columns: Sequence[str]) -> Dataset:
        """The same rows restricted to ``columns`` (the order given)."""
        domain = _select(self.domain, columns)
        if self.records is not None:
            return Dataset(domain, self.records[:, list(self.domain.axes(domain.attributes))], None, self.n)
        return Dataset.from_histogram(self.marginal_counts(domain.attributes), domain)

    def marginal_counts(self, attributes: Iterable[str]) -> np.ndarray:
        """Counts of the marginal on ``attributes`` (in the order given), as float64."""
        attributes = tuple(attributes)
        axes = self.domain.axes(attributes)
        shape = tuple(self.domain.sizes[a] for a in axes)
        if self.records is not None:
            if not attributes:
                return np.array(float(self.n))
            flat = np.ravel_multi_index(tuple(self.records[:, a] for a in axes), shape)
            return np.bincount(flat, minlength=math.prod(shape)).astype(np.float64).reshape(shape)
        cube = self.counts.reshape(self.domain.shape).astype(np.float64)
        other = tuple(i for i in range(len(self.domain)) if i not in axes)
        summed = cube.sum(axis=other)
        kept = sorted(axes)
        return np.transpose(summed, [kept.index(a) for a in axes])

    def marginal(self, attributes: Iterable[str]) -> np.ndarray:
        """The marginal on ``attributes`` as fractions of rows (the true, private answer)."""
        return self.marginal_counts(attributes) / self.n

    def histogram(self, *, max_cells: int = DEFAULT_MAX_CELLS) -> np.ndarray:
        """Counts over all of X, shaped like the domain (float64); capped by ``max_cells``."""
        self.domain.check_fits(max_cells)
        return self.marginal_counts(self.domain.attributes)

    def fingerprint(self) -> str:
        """SHA-256 of the domain, n and the distinct rows with their counts (row order ignored); private.

        Same definition in every engine (:class:`~dprelease.engines.base.PrivateTable`): the distinct rows
        in lexicographic order, as little-endian int64, then their counts.
        """
        digest = hashlib.sha256(json.dumps(self.domain.to_dict(), sort_keys=True).encode())
        digest.update(str(self.n).encode())
        if self.counts is not None:  # the distinct rows in lexicographic order, as np.unique gives them
            cells = np.flatnonzero(self.counts)
            rows = np.stack(np.unravel_index(cells, self.domain.shape), axis=1)
            counts = self.counts[cells]
        else:
            rows, counts = np.unique(self.records, axis=0, return_counts=True)
        digest.update(np.ascontiguousarray(rows, dtype="<i8").tobytes())
        digest.update(np.ascontiguousarray(counts, dtype="<i8").tobytes())
        return digest.hexdigest()

    def to_records(self) -> np.ndarray:
        """The records as an (n, d) int array (expanded from counts when needed)."""
        if self.records is not None:
            return self.records
        cells = np.repeat(np.arange(self.counts.size), self.counts)
        return np.stack(np.unravel_index(cells, self.domain.shape), axis=1).astype(np.int64)


# ---------------------------------------------------------------------- helpers
def select_domain(domain: Domain, columns: Sequence[str] | None) -> Domain:
    """``domain`` restricted to ``columns`` (in that order; all of it for None), or an InputError naming the bad name."""
    return _select(domain, columns)


def _select(domain: Domain, columns: Sequence[str] | None) -> Domain:
    if columns is None:
        return domain
    if isinstance(columns, str):
        raise InputTypeError(f"columns must be a list of attribute names, got the string {columns!r}")
    columns = list(columns)
    if not columns:
        raise InputError("columns must name at least one attribute, got an empty list")
    duplicated = sorted({c for c in columns if columns.count(c) > 1})
    if duplicated:
        raise InputError(f"columns names {duplicated} more than once")
    unknown = [c for c in columns if c not in domain]
    if unknown:
        raise InputError(f"columns {unknown} are not in the domain {list(domain.attributes)}")
    return domain.project(columns)


def _check_columns_present(header: list[str], domain: Domain, source: str) -> None:
    missing = [a for a in domain.attributes if a not in header]
    if missing:
        # The header is quoted only where it names domain columns: without a header row, it is a record.
        raise InputError(f"{source} lacks column(s) {missing} of the domain; {header_text(header, domain.attributes)}")


def _parse_codes(values: np.ndarray, attribute: str, size: int, source: str) -> np.ndarray:
    """Integer codes in 0..size-1 (int64), or an error naming the column and the kind of problem.

    The message quotes no value and counts no rows: both are private, and messages reach logs.
    """
    where = f"{source}, column {attribute!r}"
    if values.dtype.kind in "iu":
        numeric = values
    elif values.dtype.kind == "b":
        raise InputError(f"{where}: values must be integer codes, got booleans")
    else:
        numeric = _coerce_integers(values, where)
    # Range-check in the original type, before any cast could wrap a huge code around.
    outside = (numeric < 0) | (numeric >= size)
    if outside.any():
        raise InputError(f"{where}: a value is outside the codes 0..{size - 1} (values are private: not shown)")
    return numeric.astype(np.int64)


def _distinct_cells(values: np.ndarray):
    """The column's distinct cells and each row's index, where fewer than its rows (a column of codes holds a
    handful: 2,000,000 rows of 8 columns took 14 s to read, 11 of them stripping and lower-casing every cell);
    None where every cell differs or the values do not sort together (numpy's factorize, without pandas)."""
    try:
        factor = factorize(np.asarray(values, dtype=object))
    except TypeError:
        return None
    return factor if len(factor.uniques) < len(values) else None


def _coerce_integers(values: np.ndarray, where: str) -> np.ndarray:
    # Whole-number floats ("3", "3.0", 3.0) are accepted; anything else is named.
    if values.dtype.kind == "f":
        floats = values.astype(np.float64)
        parsed = np.isfinite(floats)
    else:
        factor = _distinct_cells(values)
        if factor is not None:  # each distinct cell parsed once, then spread back to the rows
            if (factor.index < 0).any():  # None or NaN (a DataFrame's missing object)
                raise InputError(f"{where}: empty or missing cells are not allowed")
            return _coerce_integers(np.array([str(v) for v in factor.uniques], dtype=object), where)[factor.index]
        text = np.array([str(v).strip() if v is not None else "" for v in values], dtype=object)
        empty = (text == "") | np.array([t.lower() in ("nan", "na", "null", "none") for t in text], dtype=bool)
        if empty.any():
            raise InputError(f"{where}: empty or missing cells are not allowed")
        try:
            floats = text.astype(np.float64)  # fast path: every cell parses
            parsed = np.isfinite(floats)
        except ValueError:
            floats = np.empty(len(text), dtype=np.float64)
            parsed = np.ones(len(text), dtype=bool)
            for i, t in enumerate(text):
                try:
                    floats[i] = float(t)
                except ValueError:
                    parsed[i] = False
            parsed &= np.isfinite(floats)
    if not parsed.all():
        label = "missing (NaN)" if values.dtype.kind == "f" else "not a number"
        raise InputError(f"{where}: a value is {label} (values are private: not shown)")
    fractional = floats != np.floor(floats)
    if fractional.any():
        raise InputError(f"{where}: a value is not an integer code (values are private: not shown)")
    return floats  # whole numbers; cast after the range check
