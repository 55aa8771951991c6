"""The engines by name, and :func:`open_table`: from where the data lives to a PrivateTable.

>>> import dprelease
>>> from dprelease.engines.registry import open_table
>>> table = open_table([[0, 1], [1, 2]], dprelease.Domain(("a", "b"), (2, 3)))   # auto: memory
>>> type(table).__name__, table.n
('Dataset', 2)

Adding an engine is one file under ``engines/`` (a :class:`~dprelease.engines.table.CountingTable`
subclass, or any :class:`~dprelease.engines.base.PrivateTable`, with an opener taking
``(source, domain, *, columns=None, **options)``) and one line in :data:`ENGINES`. Engines are imported
only when used (pyspark only when a Spark table is opened), so an optional engine's package is needed only
by those who pick it.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dprelease.domain import Domain
from dprelease.engines.base import PrivateTable
from dprelease.engines.files import is_path_source
from dprelease.engines.spark_engine import is_spark_frame
from dprelease.errors import InputError, InputTypeError
from dprelease.schema import Schema


@dataclass(frozen=True, slots=True)
class Engine:
    """An engine: the module and attribute of its opener (imported on use), and what it is for."""

    name: str
    opener: str  # "module:attribute" or "module:Class.method"
    summary: str

    def __post_init__(self) -> None:
        if ":" not in self.opener:
            raise ValueError(f"opener must be 'module:attribute', got {self.opener!r}")

    def load(self) -> Callable[..., PrivateTable]:
        module, _, path = self.opener.partition(":")
        target: object = importlib.import_module(module)
        for part in path.split("."):
            target = getattr(target, part)
        return target


#: The engines, by the name ``open_table(engine=...)`` (and, in phase 2, ``--engine``) takes.
ENGINES: dict[str, Engine] = {
    "memory": Engine("memory", "dprelease.engines.memory:open_memory",
                     "numpy in this process (arrays, DataFrames, one CSV, Parquet loaded whole)"),
    "duckdb": Engine("duckdb", "dprelease.engines.duckdb_engine:DuckDBTable.open",
                     "embedded DuckDB over CSV/Parquet files and globs, out of core"),
    "spark": Engine("spark", "dprelease.engines.spark_engine:open_spark",
                    "a Spark DataFrame, or files read by a SparkSession, on its master"),
}


def auto_engine(source: object) -> str:
    """The engine ``engine="auto"`` picks: spark for a Spark DataFrame, duckdb for paths and globs, else memory."""
    if is_spark_frame(source):
        return "spark"
    if is_path_source(source):
        return "duckdb"
    return "memory"


def open_table(source: object, domain: Domain | None = None, *, schema: Schema | None = None, engine: str = "auto",
               columns: Sequence[str] | None = None, **options: object) -> PrivateTable:
    """The private table in ``source`` over the public ``domain`` (integer codes), or encoded by ``schema``
    (raw values), counted by ``engine``.

    Args:
        source: a path, glob, folder or list of them (CSV or Parquet); an (n, d) array; a pandas DataFrame;
            a Spark DataFrame; or a PrivateTable (returned as it is, if over the domain).
        domain: the table holds integer codes of this domain. Give ``domain`` or ``schema``.
        schema: the table holds raw values (text, numbers, dates, blanks), encoded by this public schema: in
            SQL by DuckDB and Spark, in numpy by the memory engine, with the same codes.
        engine: ``"auto"`` (see :func:`auto_engine`) or a name in :data:`ENGINES`.
        columns: the attributes to use (default: all); other columns of the source are ignored.
        options: the engine's own (DuckDB: ``memory_limit``, ``threads``, ``temp_directory``,
            ``max_distinct_rows``, ``batch_size``, ``format``; Spark: ``spark``, ``memory_limit``, ...; with a
            schema, the reader's ``delimiter``, ``header``, ``skip_rows``, ``show_values``).

    Raises:
        InputError: an unknown engine or option, or the engine's own checks of the source.
    """
    if (domain is None) == (schema is None):
        raise InputError("give domain= (a table of integer codes) or schema= (a raw table), not both or neither")
    if schema is not None and not isinstance(schema, Schema):
        raise InputTypeError(f"schema must be a dprelease Schema, got {type(schema).__name__}")
    if domain is not None and not isinstance(domain, Domain):
        raise InputTypeError(f"domain must be a dprelease.Domain, got {type(domain).__name__}")
    if isinstance(source, PrivateTable) and not is_path_source(source):
        full = domain if domain is not None else schema.domain
        expected = full if columns is None else full.project(columns)
        if source.domain != expected:
            raise InputError("source is a PrivateTable over another domain than the one given")
        return source
    name = engine_name(engine, source)
    opener = ENGINES[name].load()
    accepted = inspect.signature(opener).parameters
    if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values()):
        unknown = sorted(set(options) - set(accepted))
        if unknown:
            raise InputError(f"engine {name!r} takes no option(s) {unknown}; it takes "
                             f"{sorted(k for k in accepted if k not in ('source', 'domain', 'schema', 'cls'))}")
    if schema is not None:
        return opener(source, schema=schema, columns=columns, **options)
    return opener(source, domain, columns=columns, **options)


def engine_name(engine: object, source: object) -> str:
    """The engine ``engine`` names for ``source`` ("auto" resolved), or an InputError naming the choices."""
    if not isinstance(engine, str):
        raise InputTypeError(f"engine must be a string, got {type(engine).__name__}")
    name = auto_engine(source) if engine == "auto" else engine
    if name not in ENGINES:
        raise InputError(f"engine must be 'auto' or one of {list(ENGINES)}, got {engine!r}")
    return name


def read_dataset(source: object, domain: Domain | None = None, *, schema: Schema | None = None):
    """Files (part files, :func:`~dprelease.engines.files.several_files`) read whole into a
    :class:`~dprelease.data.Dataset`, through DuckDB as ``synth`` reads them (the same codes, the same checks): for
    the curator's tools, ``evaluate`` and ``report --data``, which compare against every record (they read one file
    with the Dataset loaders, as before)."""
    from dprelease.data import Dataset

    schema = None if schema is None else Schema.coerce(schema)  # a release keeps its schema in the file's form
    with open_table(source, domain, schema=schema, engine="duckdb") as table:
        records = table.to_records()
    return Dataset(domain if schema is None else schema.domain, records, None, len(records))
