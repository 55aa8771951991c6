"""Spark reading a raw table through its public schema: the schema's SQL (:mod:`dprelease.engines.schema_sql`)
as chained ``select``s of Spark SQL expressions, checked in one aggregation.

The codes are those of the in-memory encoder and of DuckDB, value for value (tests/test_engines_spark.py
encodes the same raw tables in all three). Spark evaluates the encoding lazily, so each counting job parses
the text again; on a cluster that is where the work is spread, and the grouped path reads the table once.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dprelease.data import Dataset
from dprelease.engines.persons import PersonRows
from dprelease.engines.schema_sql import PROBLEMS, plan, problems_message
from dprelease.engines.sql_text import SPARK
from dprelease.errors import InputError
from dprelease.schema import Schema
from dprelease.schema.between import present_and_missing
from dprelease.schema.parse import as_text
from dprelease.schema.tables import person_index_of_keys


#: The privacy id's column beside the codes (a person-level run's, :mod:`dprelease.privacy.contributions`).
PERSON_KEY = "dprelease_person"


def _person_key(privacy_id: str, spark_type: str, schema: Schema, *, csv: bool) -> str:
    column = SPARK.quote(privacy_id)
    if spark_type != "StringType":
        return column
    text = f"coalesce({column}, '')" if csv else column
    return SPARK.strip(text) if schema.strip else text


def person_rows(coded: object, width: int, n: int, domain: object, privacy_id: str) -> PersonRows:
    """The coded frame's rows brought to the driver with their persons (each id's rank among the distinct ids,
    -1 for a NULL id, as :func:`~dprelease.schema.tables.person_index` ranks them), for the kernel's bounding."""
    rows = coded.select(PERSON_KEY, *[f"c{i}" for i in range(width)]).collect()
    codes = np.array([row[1:] for row in rows], dtype=np.int64).reshape(len(rows), width)
    persons = person_index_of_keys([row[0] for row in rows])
    return PersonRows(Dataset(domain, codes, None, n), persons, privacy_id)


def encode_frame(frame: object, schema: Schema, F: object, label: str, *, csv: bool,
                 show_values: bool, header_names: Sequence[str] = (), privacy_id: str | None = None) -> tuple[object, int]:
    """(a frame of the codes c0.. as ints, n), or the in-memory encoder's InputError for the table's problems.
    ``header_names``: a CSV's header cells (its columns outside the schema are read under placeholder names).
    ``privacy_id``: a column kept beside the codes as ``PERSON_KEY``, as :func:`~dprelease.schema.tables.person_index`
    compares it (text as read, '' for an empty CSV cell, stripped where the schema strips; a typed id by value)."""
    types = {field.name: type(field.dataType).__name__ for field in frame.schema.fields}
    if privacy_id is not None and privacy_id not in types:  # public: the header's names
        raise InputError(f"{label} has no privacy_id column {privacy_id!r}")
    present, missing = present_and_missing(schema, types)
    if not present:
        raise InputError(problems_message(label, schema, missing, {}, present=[*types, *header_names]))
    used = schema.select(present)
    encoding = plan(used, types, SPARK, csv=csv, label=label)
    staged = frame
    for stage in encoding.stages:
        staged = staged.select("*", *[F.expr(sql).alias(alias) for alias, sql in stage])
    person = [] if privacy_id is None else [F.expr(_person_key(privacy_id, types[privacy_id], schema, csv=csv))
                                            .alias(PERSON_KEY)]
    coded = staged.select(*[F.expr(code).cast("int").alias(f"c{i}") for i, code in enumerate(encoding.codes)],
                          *person)
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
    one = plan(_alone(schema, i), types, SPARK, csv=csv)
    staged = frame
    for stage in one.stages:
        staged = staged.select("*", *[F.expr(sql).alias(alias) for alias, sql in stage])
    value = F.col(one.examples[-1])
    bad = staged.where((F.expr(one.codes[-1]) == -kind) & value.isNotNull())
    rows = bad.select(value.alias("x")).distinct().orderBy("x").limit(3).collect()
    texts = [as_text(r["x"]) for r in rows]
    return ["NULL" if text is None else text for text in texts]


def _alone(schema: Schema, i: int) -> Schema:
    """Column i's schema for its examples: the column alone, after its dates where it is computed between two."""
    name = schema.names[i]
    return schema.select([*(getattr(schema.columns[i], "between", None) or ()), name])
