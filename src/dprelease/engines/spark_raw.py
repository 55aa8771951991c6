"""Spark reading a raw table through its public schema: the schema's SQL (:mod:`dprelease.engines.schema_sql`)
as chained ``select``s of Spark SQL expressions, checked in one aggregation.

The codes are those of the in-memory encoder and of DuckDB, value for value (tests/test_engines_spark.py
encodes the same raw tables in all three). Spark evaluates the encoding lazily, so each counting job parses
the text again; on a cluster that is where the work is spread, and the grouped path reads the table once.
"""

from __future__ import annotations

from dprelease.engines.schema_sql import PROBLEMS, plan, problems_message
from dprelease.engines.sql_text import SPARK
from dprelease.errors import InputError
from dprelease.schema import Schema
from dprelease.schema.parse import as_text


def encode_frame(frame: object, schema: Schema, F: object, label: str, *, csv: bool,
                 show_values: bool) -> tuple[object, int]:
    """(a frame of the codes c0.. as ints, n), or the in-memory encoder's InputError for the table's problems."""
    types = {field.name: type(field.dataType).__name__ for field in frame.schema.fields}
    missing = [name for name in schema.names if name not in types]
    present = [name for name in schema.names if name in types]
    if not present:
        raise InputError(problems_message(label, schema, missing, {}))
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
        found = {key: _counted(staged, encoding, F, *key) for key, flag in found.items() if flag}
    message = problems_message(label, used, missing, found, show_values=show_values)
    if message is not None:
        raise InputError(message)
    n = int(row["n"])
    if n == 0:
        raise InputError(f"{label} has no rows; a release needs at least one row")
    return coded, n


def _counted(staged: object, encoding, F: object, i: int, kind: int) -> tuple[int, list[str]]:
    """(rows with the problem, up to three of the smallest distinct values with it), for ``show_values``."""
    bad = staged.where(F.expr(encoding.codes[i]) == -kind)
    rows = bad.count()
    value = F.col(encoding.examples[i])
    examples = bad.where(value.isNotNull()).select(value.alias("x")).distinct().orderBy("x").limit(3).collect()
    texts = [as_text(r["x"]) for r in examples]
    return int(rows), ["NULL" if text is None else text for text in texts]
