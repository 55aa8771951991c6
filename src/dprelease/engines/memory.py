"""The in-memory engine: the table loaded into numpy as a :class:`~dprelease.data.Dataset`.

Arrays, pandas DataFrames and CSV files go through Dataset's own loaders; a Parquet file is read
with DuckDB (its domain columns only) and checked by the same code as a CSV. Every count is then
numpy over the records: the reference the other engines must match bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

from dprelease.data import Dataset, select_domain
from dprelease.domain import Domain
from dprelease.engines.files import detect_format, is_path_source, resolve_files
from dprelease.errors import InputError


def open_memory(source: object, domain: Domain, *, columns: Sequence[str] | None = None,
                format: str | None = None) -> Dataset:
    """A Dataset from an (n, d) array, a DataFrame, or CSV/Parquet files (paths or globs)."""
    if not is_path_source(source):
        if hasattr(source, "columns"):
            return Dataset.from_dataframe(source, domain, columns=columns)
        table = Dataset.from_records(source, domain)
        return table if columns is None else table.select(columns)
    files, label = resolve_files(source)
    kind = detect_format(files, format)
    if kind == "csv":
        if len(files) != 1:
            raise InputError(f"{label}: the memory engine reads one CSV file; use engine='duckdb' for several")
        return Dataset.from_csv(files[0], domain, columns=columns)
    return _from_parquet(files, select_domain(domain, columns), label)


def _from_parquet(files: list[str], domain: Domain, label: str) -> Dataset:
    from dprelease.engines.duckdb_engine import DuckDBTable

    # DuckDB checks the files and the values (named errors, no private values); then the codes come over.
    with DuckDBTable.open(files, domain, format="parquet", max_distinct_rows=0) as table:
        records = table.to_records()
    return Dataset(domain, records, None, records.shape[0])
