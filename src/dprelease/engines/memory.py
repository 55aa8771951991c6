"""The in-memory engine: the table loaded into numpy as a :class:`~dprelease.data.Dataset`.

Arrays, pandas DataFrames and CSV files go through Dataset's own loaders; a Parquet file is read
with DuckDB (its domain columns only) and checked by the same code as a CSV. A raw table and its schema
go through the schema's encoder (:mod:`dprelease.schema.encode`). Every count is then numpy over the
records: the reference the other engines must match bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence

from dprelease.data import Dataset, select_domain
from dprelease.domain import Domain
from dprelease.engines.base import domain_or_schema
from dprelease.engines.csv_layout import check_read_options
from dprelease.engines.files import detect_format, is_path_source, resolve_files
from dprelease.engines.persons import PersonRows
from dprelease.engines.spark_engine import is_spark_frame
from dprelease.errors import InputError
from dprelease.schema import Schema
from dprelease.schema.encode import encode_table, read_table
from dprelease.schema.tables import person_index, read_csv, read_parquet


def open_memory(source: object, domain: Domain | None = None, *, schema: Schema | None = None,
                columns: Sequence[str] | None = None, format: str | None = None, delimiter: str | None = None,
                header: bool | str = "auto", skip_rows: int = 0, show_values: bool = False,
                privacy_id: str | None = None) -> Dataset | PersonRows:
    """A Dataset from an (n, d) array, a DataFrame, or CSV/Parquet files (paths or globs) of codes; or, with
    ``schema``, from one raw CSV or Parquet file or a pandas DataFrame encoded by :func:`dprelease.schema.encode`.

    With ``privacy_id`` (a raw table's column outside the schema) the rows come with their persons, as
    :class:`~dprelease.engines.persons.PersonRows`: no mechanism reads them until they are bounded."""
    if schema is not None:
        return _from_schema(source, schema, columns, format, delimiter=delimiter, header=header, skip_rows=skip_rows,
                            show_values=show_values, privacy_id=privacy_id)
    if privacy_id is not None:
        raise InputError("privacy_id names a column of a raw table: give schema=, not domain=")
    if (delimiter, header, skip_rows, show_values) != (None, "auto", 0, False):
        raise InputError("delimiter, header, skip_rows and show_values read a raw table: give schema=, not domain=")
    if not is_path_source(source):
        if hasattr(source, "columns"):
            return Dataset.from_dataframe(source, domain, columns=columns)
        table = Dataset.from_records(source, domain)
        return table if columns is None else table.select(columns)
    files, label = resolve_files(source)
    kind = detect_format(files, format)
    if kind == "csv":
        if len(files) != 1:
            raise InputError(f"{label}: the memory engine reads one CSV file; use engine='duckdb' (--engine duckdb) for several")
        return Dataset.from_csv(files[0], domain, columns=columns)
    return _from_parquet(files, select_domain(domain, columns), label)


def _from_schema(source: object, schema: Schema, columns: Sequence[str] | None, format: str | None, *,
                 privacy_id: str | None = None, **read_options: object) -> Dataset | PersonRows:
    _, schema = domain_or_schema(None, schema, columns)
    names = list(schema.read_names) if privacy_id is None else [*schema.read_names, privacy_id]  # checked by the caller
    if not is_path_source(source):
        if is_spark_frame(source):
            raise InputError("the memory engine does not read a Spark DataFrame; use engine='spark'")
        if privacy_id is None:
            return Dataset.from_schema(source, schema, **read_options)
        show = bool(read_options.pop("show_values"))
        table = read_table(source, names, show_values=show, strip=schema.strip, **read_options)
    else:
        files, label = resolve_files(source)
        if len(files) != 1:
            raise InputError(f"{label}: the memory engine reads one raw file; use engine='duckdb' (--engine duckdb) "
                             "for several")
        kind = detect_format(files, format)
        check_read_options(read_options["delimiter"], read_options["header"], read_options["skip_rows"])
        show = bool(read_options.pop("show_values"))
        table = read_parquet(files[0], names) if kind == "parquet" else \
            read_csv(files[0], names, show_values=show, strip=schema.strip, layout=schema.file_names,
                     **read_options)
    if privacy_id is not None and privacy_id in table.missing:  # public: the header's names
        raise InputError(f"{table.source} has no privacy_id column {privacy_id!r}")
    codes = encode_table(table, schema, show_values=show)
    dataset = Dataset(schema.domain, codes, None, len(codes))
    if privacy_id is None:
        return dataset
    return PersonRows(dataset, person_index(table.columns[privacy_id], strip=schema.strip), privacy_id)


def _from_parquet(files: list[str], domain: Domain, label: str) -> Dataset:
    from dprelease.engines.duckdb_engine import DuckDBTable

    # DuckDB checks the files and the values (named errors, no private values); then the codes come over.
    with DuckDBTable.open(files, domain, format="parquet", max_distinct_rows=0) as table:
        records = table.to_records()
    return Dataset(domain, records, None, records.shape[0])
