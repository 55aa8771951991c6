"""The public schema of a raw table, and the encoding and decoding it defines (issue 13).

- :class:`Schema` (``schema.py``): ordered columns of the kinds in ``columns.py`` (codes, categorical,
  boolean) and ``binned.py`` (integer, numeric, date, datetime), each with optional ``null`` and
  ``other`` buckets; JSON read/write; ``Schema.domain`` for the codes.
- :func:`encode` (``encode.py``): a CSV, Parquet file or pandas DataFrame into an array of codes
  (:meth:`dprelease.Dataset.from_schema` makes it a Dataset), every column's problems in one error.
- :func:`decode` (``decode.py``): codes back to values, as a DataFrame, CSV or Parquet.
- ``draft.py`` (imported on its own: it sits above the privacy kernel): a schema drafted from the data,
  differentially privately or openly (then marked not public).

This package imports only :mod:`dprelease.errors`, :mod:`dprelease.validation` and
:mod:`dprelease.domain` (``draft.py`` excepted). See docs/schema.md.
"""

from dprelease.schema.binned import DateColumn, DatetimeColumn, IntegerColumn, NumericColumn
from dprelease.schema.columns import OTHER, BooleanColumn, CategoricalColumn, CodesColumn, Column
from dprelease.schema.decode import Decoded, decode, label_schema
from dprelease.schema.encode import encode, encode_table, read_table
from dprelease.schema.schema import Draft, Schema

__all__ = [
    "OTHER", "BooleanColumn", "CategoricalColumn", "CodesColumn", "Column", "DateColumn", "DatetimeColumn",
    "Decoded", "Draft", "IntegerColumn", "NumericColumn", "Schema", "decode", "encode", "encode_table",
    "label_schema", "read_table",
]
