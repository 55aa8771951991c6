"""A fitted DataFrame's own column types, for giving synthetic rows back in them (:meth:`Synthesizer.sample`).

:meth:`Decoded.to_dataframe` types each column by its schema kind (docs/schema.md): text as ``category``, times as
``datetime64[s]``, integers as ``int64``. A user who fitted a DataFrame of ``str`` columns, microsecond times, an
ordered ``category`` and ``int32`` counts expects those types back, so that ``pd.concat([real, synthetic])`` and
the code written against the real frame keep working. What is read here is public like the schema itself: the
frame's dtypes (an ordered categorical dtype's order among the schema's own categories) and the schema's categories,
never a record's value; a categorical dtype's categories that the schema does not hold are not given back (they may
have been read off the data).
"""

from __future__ import annotations

import numpy as np

from dprelease.schema.columns import OTHER, BooleanColumn, CategoricalColumn


def frame_dtypes(data: object, schema) -> dict[str, object]:
    """The dtype of each column of a pandas DataFrame ``data`` that decoding alone would not give back.

    - a duration (timedelta), read as its seconds;
    - a ``float32``, ``Float32`` or ``Float64`` numeric column (decoded as float64, NULL as NaN);
    - a number column the schema holds as categories of numbers: a fee always 19.99, 29.99 or 49.99, which the
      schema draft makes categorical so that no synthetic fee falls between them (docs/schema.md);
    - text (``object``, ``str``, ``string``) held as categories, or a boolean written as words (decoded as
      ``category``); an ordered ``category`` column (its order);
    - ``bool`` (decoded as ``boolean``), a date-time's unit (decoded in seconds), integers narrower than 64 bits or
      nullable (``Int64`` stays ``Int64`` where no NULL came back).

    A path or a Spark DataFrame has no dtypes: its rows come back in the schema's kinds."""
    if not type(data).__module__.startswith("pandas"):
        return {}
    import pandas as pd
    from pandas.api.types import is_bool_dtype, is_float_dtype, is_numeric_dtype, is_string_dtype

    dtypes = {}
    for column in schema.columns:
        if column.name not in data.columns:
            continue
        dtype = data[column.name].dtype
        kind = getattr(dtype, "kind", "O")
        categorical = isinstance(dtype, pd.CategoricalDtype)
        narrow_or_nullable = getattr(dtype, "itemsize", 8) < 8 or not isinstance(dtype, np.dtype)
        if kind in "mM" or (kind in "iu" and narrow_or_nullable and column.kind in ("integer", "codes")):
            dtypes[column.name] = dtype
        elif column.kind == "numeric" and is_float_dtype(dtype) and narrow_or_nullable:
            dtypes[column.name] = dtype  # float32, and the nullable Float32 / Float64 (NULL as NA, not NaN)
        elif kind == "b" and isinstance(column, BooleanColumn) and not column.written_as_words:
            dtypes[column.name] = dtype
        elif isinstance(column, CategoricalColumn) and column.keys and not categorical and is_numeric_dtype(dtype) \
                and not is_bool_dtype(dtype) \
                and pd.to_numeric(pd.Series(column.keys, dtype=object), errors="coerce").notna().all():
            dtypes[column.name] = dtype
        elif isinstance(column, CategoricalColumn) or isinstance(column, BooleanColumn) and column.written_as_words:
            if categorical or kind == "O" or is_string_dtype(dtype):
                dtypes[column.name] = dtype
    return dtypes


def in_frame_dtypes(frame, dtypes: dict[str, object], schema):
    """``frame`` (decoded, time zones already applied) with each column of ``dtypes`` in that dtype, where its values
    allow: an integer past the narrower type's range, a missing value in a ``bool`` column or the other bucket's
    marker in a number column keep the decoded column (``Int64`` and ``boolean`` hold a NULL; the marker is text)."""
    for name, dtype in dtypes.items():
        column = schema.column(name)
        frame[name] = in_dtype(frame[name], dtype, column)
    return frame


def in_dtype(series, dtype, column):
    """One decoded column in the fitted frame's ``dtype`` (see :func:`in_frame_dtypes`)."""
    import pandas as pd

    kind = getattr(dtype, "kind", "O")
    if kind == "m":
        return as_durations(series, dtype)
    if kind == "M":
        unit = getattr(dtype, "unit", None) or (np.datetime_data(dtype)[0] if isinstance(dtype, np.dtype) else None)
        return series.dt.as_unit(unit) if unit and pd.api.types.is_datetime64_any_dtype(series.dtype) else series
    if column.kind == "numeric":  # a narrow float, unless other's marker made it objects
        return series.astype(dtype) if series.dtype == np.float64 else series
    if kind in "iu" and not isinstance(column, CategoricalColumn):
        return as_narrow_integers(series, dtype)
    if kind == "b":  # numpy's bool where no NULL came back; the other marker keeps its objects
        return series.astype(dtype) if series.dtype != object and not series.isna().any() else series
    if isinstance(dtype, pd.CategoricalDtype):
        return in_category_order(series, dtype)
    if kind in "iuf":
        return as_numbers(series, dtype, other=column.other)
    return series.astype(dtype)  # text: object, str or string (NULL as that dtype's missing value)


def in_category_order(series, dtype):
    """A decoded categorical column in the order of a fitted *ordered* ``category`` dtype (small < medium < large, a
    declared order): the schema's categories that the dtype names in its order, then the schema's others, then the
    other marker. An unordered dtype's order is no declaration (it may rank the categories by their counts, as a
    dtype built from ``value_counts()`` does): the schema's order stays."""
    if not dtype.ordered:
        return series
    decoded = list(series.cat.categories)
    named = [c for c in dtype.categories if isinstance(c, str) and c in decoded and c != OTHER]
    rest = [c for c in decoded if c not in named and c != OTHER] + [c for c in decoded if c == OTHER]
    return series.cat.set_categories(named + rest, ordered=True)


def as_narrow_integers(series, dtype):
    """Integers (``int64`` or ``Int64``) in the fitted ``dtype``, narrower or nullable: a nullable one stays nullable,
    a numpy one where none is missing (else the nullable one of its width); unchanged where a value would not fit."""
    import pandas as pd

    values = pd.Series(series)
    if values.dtype == object:  # the other bucket's marker: a mixed column
        return series
    info = np.iinfo(np.dtype(dtype.numpy_dtype if hasattr(dtype, "numpy_dtype") else dtype))
    present = values.dropna()
    if len(present) and (present.min() < info.min or present.max() > info.max):
        return series
    if isinstance(dtype, pd.api.extensions.ExtensionDtype):  # Int32, UInt8, ...: they hold a NULL themselves
        return values.astype(dtype)
    nullable = pd.api.types.pandas_dtype(np.dtype(info.dtype).name.capitalize().replace("Uint", "UInt"))
    return values.astype(nullable if values.isna().any() else info.dtype)


def as_numbers(series, dtype, *, other: bool):
    """A decoded categorical column of number texts as numbers in ``dtype``: NULL is missing (NaN, or pandas' NA where
    an integer column has any: its dtype then becomes the nullable ``Int64``). A column with an ``other`` bucket
    comes back as a number column with one does (docs/schema.md): Python numbers and the other marker, in an
    object column."""
    import pandas as pd

    text = pd.Series(series, dtype=object)
    if other:
        number = int if dtype.kind in "iu" else float
        return pd.array([None if v is None or v != v else v if v == OTHER else number(float(v)) for v in text],
                        dtype=object)
    values = pd.to_numeric(text, errors="raise")
    if dtype.kind in "iu" and values.isna().any():
        return values.astype("Int64")
    return values.astype(dtype)


def as_durations(series, dtype):
    """A decoded column of seconds (numbers, or number texts where the schema holds a few as categories) as durations
    in ``dtype``: NULL is NaT. The other bucket's marker has no duration: such a column stays as it was decoded."""
    import pandas as pd

    values = pd.Series(series, dtype=object)
    seconds = pd.to_numeric(values, errors="coerce")
    if seconds.isna().sum() > values.isna().sum():  # a value that is no number: other
        return series
    return pd.to_timedelta(seconds, unit="s").astype(dtype)


def time_zones(data: object, schema) -> dict[str, object]:
    """The time zone of each date-time column of a pandas DataFrame that has one (its dtype's, public like the
    schema: no record's value). The encoder reads such a column in UTC; :meth:`Synthesizer.sample` gives it back
    in its zone, so a user's Berlin times do not come back as naive UTC ones, hours apart."""
    if not type(data).__module__.startswith("pandas"):  # a path, or a Spark DataFrame (its columns have no dtype)
        return {}
    zones = {}
    for column in schema.columns:
        if column.kind == "datetime" and column.name in data.columns:
            zone = getattr(data[column.name].dtype, "tz", None)
            if zone is not None:
                zones[column.name] = zone
    return zones
