"""Engines: where the private table lives and how it is counted (the seam of every private read).

A mechanism never sees rows. It sees a :class:`~dprelease.engines.base.PrivateTable`: the public
``domain`` and ``n``, and counts (marginal contingency tables) computed wherever the data lives.
:class:`dprelease.data.Dataset` is the in-memory implementation; ``duckdb_engine.DuckDBTable`` counts
CSV/Parquet files in place and ``spark_engine.SparkTable`` a Spark DataFrame on its cluster.
:func:`~dprelease.engines.registry.open_table` picks one by name or by the kind of source. A raw table
comes with its public schema (``open_table(source, schema=...)``); DuckDB and Spark encode it in SQL
(``schema_sql.py``), with the in-memory encoder's codes.
"""

from dprelease.engines.base import PrivateTable
from dprelease.engines.registry import ENGINES, open_table

__all__ = ["ENGINES", "PrivateTable", "open_table"]
