"""Spark reading a raw table through its public schema: the schema's SQL (:mod:`dprelease.engines.schema_sql`)
as chained ``select``s of Spark SQL expressions, checked in one aggregation.

The codes are those of the in-memory encoder and of DuckDB, value for value (tests/test_engines_spark.py
encodes the same raw tables in all three). Spark evaluates the encoding lazily, so each counting job parses
the text again; on a cluster that is where the work is spread, and the grouped path reads the table once.
"""

from __future__ import annotations

from collections.abc import Sequence

from dprelease.engines.schema_sql import PROBLEMS, plan, problems_message
from dprelease.engines.sql_text import SPARK
from dprelease.errors import InputError
from dprelease.schema import Schema
from dprelease.schema.parse import as_text


def encode_frame(frame: object, schema: Schema, F: object, label: str, *, csv: bool,
                 show_values: bool, header_names: Sequence[str] = ()) -> tuple[object, int]:
    """(a frame of the codes c0.. as ints, n), or the in-memory encoder's InputError for the table's problems.
    ``header_names``: a CSV's header cells (its columns outside the schema are read under placeholder names)."""
    types = {field.name: type(field.dataType).__name__ for field in frame.schema.fields}
    missing = [name for name in schema.names if name not in types]
    present = [name for name in schema.names if name in types]
    if not present:
        raise InputError(problems_message(label, schema, missing, {}, present=[*types, *header_names]))
    used = schema.select(present)
    encoding = plan(used, types, SPARK, csv=csv, label=label)
    staged = frame
    for stage in encoding.stages:
        staged = staged.select("*", *[F.expr(sql).alias(alias) for alias, sql in stage])
    coded = staged.select(*[F.expr(code).cast("int").alias(f"c{i}") for i, code in enumerate(encoding.codes)])
    keys = [(i, kind) for i in range(len(present)) for kind in PROBLEMS]
    flags = [F.max(F.when(F.col(f"c{i}") == -kind, 1).otherwise(0)).alias(f"f{j}") for j, (i, kind) in enumerate(keys)]
    row = coded.agg(F.count(F.lit(1)).alias("n"), *flags).collect()[0]
    found = {key: bool(row[f"f{j}"]) for j, key in enumerate(keys)}
    if show_values and any(found.values()):
        bad = [key for key, flag in found.items() if flag]
        counts = coded.agg(*[F.sum(F.when(F.col(f"c{i}") == -kind, 1).otherwise(0)) for i, kind in bad]).collect()[0]
        found = {(i, kind): (int(rows), _examples(frame, used, types, F, csv, i, kind))
                 for (i, kind), rows in zip(bad, counts)}
    message = problems_message(label, used, missing, found, show_values=show_values,
                               present=[*types, *header_names])
    if message is not None:
        raise InputError(message)
    n = int(row["n"])
    if n == 0:
        raise InputError(f"{label} has no rows; a release needs at least one row")
    return coded, n


def _examples(frame: object, schema: Schema, types: dict[str, str], F: object, csv: bool, i: int,
              kind: int) -> list[str]:
    """Up to three of the smallest distinct values of column i with problem ``kind`` (for ``show_values``)."""
    one = plan(schema.select([schema.names[i]]), types, SPARK, csv=csv)
    staged = frame
    for stage in one.stages:
        staged = staged.select("*", *[F.expr(sql).alias(alias) for alias, sql in stage])
    value = F.col(one.examples[0])
    bad = staged.where((F.expr(one.codes[0]) == -kind) & value.isNotNull())
    rows = bad.select(value.alias("x")).distinct().orderBy("x").limit(3).collect()
    texts = [as_text(r["x"]) for r in rows]
    return ["NULL" if text is None else text for text in texts]
