"""Decoding codes back to values by the schema: post-processing, it reads nothing private.

Per code: a category its value; a boolean False/True, or its declared words (N/Y) where the schema gives them; a bin
a value inside it, drawn uniformly (from an explicit ``rng``), its midpoint, or its label (``values=``); integers
stay integers, dates dates. Columns the schema declares ``ordered`` are drawn in that order where their bins allow
(:func:`~dprelease.schema.orders.ordered_values`: the uniform draws conditioned on it). A decimal drawn uniformly
keeps two digits below its bin's width (a draw in [5, 10) reads 6.52, not 6.5268052265018515: :func:`decimal_grid`);
the digits past that told nothing, since the release is the bin. The last bin is closed, so a uniform draw may be
its top edge, and a draw in any other bin stays strictly below the next bin's edge (float rounding is clamped), so encoding a decoded value gives its code back. The ``null``
code decodes to NULL; the ``other`` code to the marker :data:`~dprelease.schema.OTHER` (``"<other>"``), which
encodes back to ``other`` (a column with an other bucket is then an object column in a DataFrame), or to NULL with
``other=None`` (typed columns, but the round trip gives ``null``).

>>> import numpy as np
>>> from dprelease.schema import Schema
>>> s = Schema.from_dict({"age": {"type": "integer", "bounds": [0, 99], "width": 10}})
>>> decode(np.array([[0], [9]]), s, values="midpoint").text_columns()[0].tolist()
['4', '94']
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dprelease.errors import InputError, InputTypeError
from dprelease.schema.binned import (DateColumn, DatetimeColumn, IntegerColumn, NumericColumn, _Binned,
                                     duration_text, offset_seconds, on_multiples, to_precision, written_numbers,
                                     zero_padded_texts)
from dprelease.schema.columns import OTHER, BooleanColumn, CategoricalColumn, Column, format_number, on_decimal_grid
from dprelease.schema.between import between_values
from dprelease.schema.orders import ordered_values
from dprelease.schema.parse import format_times, time_of_day
from dprelease.schema.schema import Schema
from dprelease.files import write_atomic
from dprelease.schema.tables import CsvStyle, csv_text, need, write_parquet

VALUE_MODES = ("uniform", "midpoint", "label")


@dataclass(frozen=True, eq=False)
class Decoded:
    """Decoded columns in schema order: typed ``values``, and per column the rows that are NULL or other."""

    schema: Schema
    values: dict[str, np.ndarray]
    null: dict[str, np.ndarray]
    other: dict[str, np.ndarray]
    marker: str | None
    mode: str

    @property
    def n(self) -> int:
        return len(next(iter(self.values.values())))

    # ------------------------------------------------------------------ pandas
    def to_dataframe(self):
        """A pandas DataFrame: the schema's column names and order; dtypes by the column kinds (docs/schema.md)."""
        pd = need("pandas", "pandas", "a decoded DataFrame")
        return pd.DataFrame({c.name: self._series(c, pd) for c in self.schema.columns})

    def _series(self, column: Column, pd, *, clock: bool = True):
        """``clock``: a time of day alone as ``datetime.time`` (else as datetimes on 1970-01-01, as Parquet keeps
        it)."""
        values, null, other = self.values[column.name], self.null[column.name], self.other[column.name]
        marked = self.marker is not None and column.other
        if isinstance(column, CategoricalColumn) or isinstance(column, BooleanColumn) and column.written_as_words:
            # a Y/N column comes back Y/N, as the CLI writes it, so ``to_csv`` gives text the same schema reads (a
            # True/False one is a typed boolean: its ``to_csv`` writes True/False)
            words = column.first_words if isinstance(column, BooleanColumn) else column.values
            categories = list(words) + ([self.marker] if marked else [])
            codes = np.asarray(values, dtype=np.int64)
            codes = np.where(null | (other & (self.marker is None)), -1, codes)
            codes = np.where(other & marked, len(words), codes)
            return pd.Categorical.from_codes(codes, categories=categories)
        if isinstance(column, IntegerColumn) and column.digits is not None and self.mode != "label":
            out = zero_padded_texts(values, column.digits)  # codes written to a width (02134): text, as written
            out[null] = None
            out[other] = self.marker if marked else None
            return pd.array(out, dtype=object)
        if self.mode == "label" and isinstance(column, _Binned) or marked:
            out = np.array([self._python(column, v) for v in values], dtype=object)
            out[null] = None
            out[other] = self.marker if marked else None
            return pd.array(out, dtype=object)
        missing = null | other
        if isinstance(column, BooleanColumn):
            return pd.arrays.BooleanArray(values.astype(bool), missing.copy()) if column.null or column.other \
                else values.astype(bool)
        if isinstance(column, NumericColumn):
            return np.where(missing, np.nan, values.astype(np.float64))
        if isinstance(column, (DateColumn, DatetimeColumn)):
            times = np.where(missing, np.datetime64("NaT"), values).astype("datetime64[s]")
            if clock and column.format is not None and time_of_day(column.format):  # times of day alone:
                # datetime.time, as pandas reads a SQL TIME
                return pd.array(np.array([None if m else t.time() for t, m in zip(times.astype(object), missing)],
                                         dtype=object), dtype=object)
            offset = getattr(column, "offset", None)
            if offset is None:
                return pd.array(times)
            # instants, as the text marks them: UTC, or the declared offset's clock (a Parquet TIMESTAMPTZ)
            zone = "UTC" if offset == "Z" else datetime.timezone(datetime.timedelta(seconds=offset_seconds(offset)))
            return pd.DatetimeIndex(times).tz_localize("UTC").tz_convert(zone).array
        if isinstance(column, IntegerColumn) and column.format is not None:  # durations written as text: durations
            return pd.array(np.where(missing, np.timedelta64("NaT"), values.astype("timedelta64[s]")))
        if column.null or column.other:  # integers and codes with a NULL
            return pd.arrays.IntegerArray(values.astype(np.int64), missing.copy())
        return values.astype(np.int64)

    def _python(self, column: Column, value: object) -> object:
        if isinstance(value, np.datetime64) and getattr(column, "format", None) and time_of_day(column.format):
            return str(value)[11:]  # a time of day alone: its clock (14:05:00)
        if isinstance(value, np.datetime64):
            return str(value)
        if isinstance(value, (np.integer, np.floating, np.bool_)):
            return value.item()
        return value

    # --------------------------------------------------------------------- text
    def text_columns(self) -> list[np.ndarray]:
        """Each column's cells as text: the value, the column's first NULL token, or the other marker."""
        out = []
        for column in self.schema.columns:
            values = self.values[column.name]
            if isinstance(column, CategoricalColumn):
                keys = np.array(column.keys + ("",), dtype=object)
                text = keys[np.where(self.null[column.name] | self.other[column.name], len(column.keys), values)]
            elif isinstance(column, BooleanColumn):
                # the schema's first words as declared (public): a Y/N column is written back Y/N
                text = np.array(column.first_words, dtype=object)[values.astype(np.int64)]
            elif values.dtype.kind == "M" and getattr(column, "format", None) is not None:
                text = format_times(values, column.format)  # written back as the table wrote it (10/3/2019)
            elif values.dtype.kind == "M":
                text = datetime_texts(values, column)
            elif values.dtype.kind == "f":
                # shortest text: a draw on a grid of hundreds is 40900, not 40900.0
                places = getattr(column, "decimals", None)  # written with the table's decimals (15.30), if declared
                text = np.array([format_number(float(v)) if places is None else f"{float(v):.{places}f}"
                                 for v in values], dtype=object)
                if getattr(column, "decimal", ".") == ",":  # written back as the table wrote it (3,5)
                    text = np.array([t.replace(".", ",") for t in text], dtype=object)
                text = written_numbers(column, text)  # with its declared sign ($19.7, 12%)
            elif getattr(column, "format", None) is not None:  # durations, written back h:mm:ss
                text = np.array([duration_text(int(v)) for v in values], dtype=object)
            else:  # zero-padded where the column declares its digits (02134)
                text = written_numbers(column, zero_padded_texts(values, getattr(column, "digits", None)))
            tokens = self.schema.null_tokens_of(column)
            text[self.null[column.name]] = tokens[0] if tokens else ""
            other = self.other[column.name]
            text[other] = self.marker if self.marker is not None else (tokens[0] if tokens else "")
            out.append(text)
        return out

    def csv(self, delimiter: str = ",", *, newline: str = "\n", byte_order_mark: bool = False) -> str:
        return csv_text(self.schema.names, self.text_columns(), CsvStyle(delimiter, newline, byte_order_mark))

    def to_csv(self, path: str | Path, delimiter: str = ",", *, newline: str = "\n",
               byte_order_mark: bool = False) -> None:
        """Write the decoded rows as CSV (header row), atomically: ``newline`` ends each line ("\\n" or "\\r\\n"),
        and ``byte_order_mark`` starts the file with UTF-8's (as Excel's "CSV UTF-8" does)."""
        write_atomic(Path(path), self.csv(delimiter, newline=newline, byte_order_mark=byte_order_mark))

    def to_parquet(self, path: str | Path) -> None:
        """Write the decoded rows as Parquet (DuckDB; the ``parquet`` extra), atomically."""
        pd = need("pandas", "pandas", "a decoded DataFrame")
        # times of day alone as TIMESTAMPs on 1970-01-01, which the schema reads back
        frame = pd.DataFrame({c.name: self._series(c, pd, clock=False) for c in self.schema.columns})
        for name in frame.columns:  # a column of values and the other marker is written as text
            if frame[name].dtype == object:
                frame[name] = frame[name].map(lambda v: None if v is None else str(v))
        write_parquet(frame, path, dates=[c.name for c in self.schema.columns if isinstance(c, DateColumn)])


def datetime_texts(values: np.ndarray, column: Column) -> np.ndarray:
    """ISO text of a date or datetime column's decoded values: dates as 2019-10-03; date-times to the column's
    ``precision`` (seconds, or minutes: 2024-05-06T07:18, or with ``seconds`` 2024-05-06T07:18:00), with its
    separator ("T" or " ") and, where it declares an ``offset``, at that offset and marked with it
    (2024-05-06T07:18:14+01:00; Z for UTC), else in UTC unmarked."""
    if isinstance(column, DateColumn):
        return np.datetime_as_string(values, unit="D").astype(object)
    offset = getattr(column, "offset", None)
    shift = np.timedelta64(offset_seconds(offset) if offset is not None else 0, "s")
    to_minute = getattr(column, "precision", "second") != "second" and not getattr(column, "seconds", False)
    unit = "m" if to_minute else "s"  # 2023-07-27T05:58, as written; with ``seconds`` 2023-07-27T05:58:00
    text = np.datetime_as_string(values + shift, unit=unit).astype(object)
    separator = getattr(column, "separator", "T")
    if separator != "T" or offset is not None:  # 2023-07-27 05:58:00, as the table wrote it
        text = np.array([t.replace("T", separator) + (offset or "") for t in text], dtype=object)
    return text


def label_schema(schema: Schema) -> Schema:
    """The schema that reads back a table decoded with ``values="label"``: each binned column becomes a
    categorical one whose categories are its bins' labels in order, with the same null and other buckets, so
    every label encodes to its bin's code and the domain is unchanged (``dprelease evaluate --decode label``)."""
    def as_labels(column: Column) -> Column:
        if not isinstance(column, _Binned):
            return column
        return CategoricalColumn(name=column.name, values=column.value_labels(), null=column.null,
                                 other=column.other, null_tokens=column.null_tokens)

    labelled = Schema(tuple(as_labels(c) for c in schema.columns), null_tokens=schema.null_tokens,
                      strip=schema.strip, draft=schema.draft, description=schema.description, layout=schema.layout)
    assert labelled.domain == schema.domain  # same codes, value by value: the comparison needs nothing else
    return labelled


def decode(codes: object, schema: Schema, *, values: str = "uniform", rng: object = None,
           other: str | None = OTHER) -> Decoded:
    """Values of ``codes`` (an (n, d) integer array, or a Dataset, in schema order) by ``schema``.

    Args:
        values: "uniform" (a value drawn uniformly inside its bin; needs ``rng``), "midpoint", or "label"
            (the bin's label, e.g. ``[0, 10)``, as text).
        rng: a :class:`~dprelease.privacy.rng.RandomSource` or a numpy Generator (post-processing: any
            explicit generator will do; never numpy's global state).
        other: what the other bucket decodes to: the marker (default :data:`OTHER`) or None (NULL).
    """
    if not isinstance(schema, Schema):
        raise InputTypeError(f"schema must be a dprelease Schema, got {type(schema).__name__}")
    if values not in VALUE_MODES:
        raise InputError(f"values must be one of {list(VALUE_MODES)}, got {values!r}")
    if other is not None and not isinstance(other, str):
        raise InputTypeError(f"other must be a string marker or None, got {other!r}")
    array = _codes_array(codes, schema)
    uniform = _uniform_source(rng) if values == "uniform" else None
    out_values, nulls, others = {}, {}, {}
    for i, column in enumerate(schema.columns):
        column_codes = array[:, i]
        null = column_codes == column.null_code if column.null else np.zeros(len(column_codes), dtype=bool)
        is_other = column_codes == column.other_code if column.other else np.zeros(len(column_codes), dtype=bool)
        bins = np.where(null | is_other, 0, column_codes)
        out_values[column.name] = _decode_column(column, bins, values, uniform)
        nulls[column.name], others[column.name] = null, is_other
    if values == "uniform" and schema.ordered:  # drawn again, whole, where out of the declared order
        ordered_values(out_values, array, schema, lambda column, bins: _decode_column(column, bins, values, uniform),
                       {name: ~(nulls[name] | others[name]) for name in schema.names})
    if values == "uniform":  # columns between two dates: the dates drawn to agree with them, each written from its dates
        blanks = between_values(out_values, array, schema,
                                lambda column, bins: _decode_column(column, bins, values, uniform),
                                {name: ~(nulls[name] | others[name]) for name in schema.names}, uniform)
        for name, blank in blanks.items():
            nulls[name], others[name] = blank, np.zeros(len(blank), dtype=bool)
    return Decoded(schema, out_values, nulls, others, other, values)


def _codes_array(codes: object, schema: Schema) -> np.ndarray:
    records = getattr(codes, "to_records", None)
    if callable(records) and hasattr(codes, "domain"):
        if tuple(codes.domain.attributes) != schema.names:
            raise InputError(f"codes are over the columns {list(codes.domain.attributes)}, the schema has "
                             f"{list(schema.names)}")
        codes = records()
    array = np.asarray(codes)
    if array.ndim != 2 or array.shape[1] != len(schema.columns):
        raise InputError(f"codes must have shape (n, {len(schema.columns)}) for the schema's columns, got {array.shape}")
    if array.dtype.kind not in "iu":
        raise InputTypeError(f"codes must be integers, got dtype {array.dtype}")
    for i, column in enumerate(schema.columns):  # synthetic codes are public: quoting them is fine
        bad = (array[:, i] < 0) | (array[:, i] >= column.size)
        if bad.any():
            raise InputError(f"codes of column {column.name!r} must lie in 0..{column.size - 1}, "
                             f"got {int(array[bad, i][0])}")
    return array.astype(np.int64)


def _uniform_source(rng: object):
    if hasattr(rng, "uniform_open"):
        return rng.uniform_open
    if hasattr(rng, "bit_generator") and callable(getattr(rng, "random", None)):  # a numpy Generator
        return rng.random
    raise InputTypeError("decode(values='uniform') needs rng: a dprelease RandomSource or a numpy Generator, "
                         f"got {type(rng).__name__}")


def decimal_grid(values: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Each value in [low, high] cut down to a grid of 10^k, k two digits below its bin's width (public).

    Cut down (floor), never above the value and never below ``low``: a value stays in its bin, so encoding it
    gives its code back; the grid's values print short (:func:`~dprelease.schema.columns.on_decimal_grid`).
    """
    width = np.maximum(np.asarray(high, dtype=np.float64) - low, np.finfo(np.float64).tiny)
    cut = on_decimal_grid(values, np.floor(np.log10(width)) - 2, np.floor)
    cut = np.where(np.isfinite(cut), cut, values)  # a bin far narrower than its values: no grid
    return np.clip(cut, low, values)  # never above the draw (float rounding in values * scale), never below the bin


def written_decimals(values: np.ndarray, low: np.ndarray, top: np.ndarray, decimals: int) -> np.ndarray:
    """Each value cut down to ``decimals`` places, never below its bin's ``low`` (then its first such value above it)
    nor above ``top`` (its bin's highest value); a bin holding no such value keeps :func:`decimal_grid`'s (public)."""
    scale = 10.0 ** decimals
    cut = np.floor(np.round(values * scale, 6)) / scale  # the round: 0.29 * 100 is 28.999999999999996
    cut = np.where(cut < low, np.ceil(np.round(low * scale, 6)) / scale, cut)
    return np.where(cut <= top, cut, decimal_grid(values, low, top))


def _at_times_of_day(drawn: np.ndarray, starts: np.ndarray, ends: np.ndarray, weights: tuple[float, ...],
                     uniform) -> np.ndarray:
    """Date-times in bins of whole days [start, end] (seconds, end inclusive) redrawn on a day of their bin (evenly)
    at an hour drawn by ``weights`` (24, public) and a second of that hour (evenly); values in other bins (an hour, a
    part of a day) keep their even draws. Public: the bins, the weights and fresh draws."""
    day = 86400
    whole_days = (starts % day == 0) & ((ends + 1) % day == 0)
    days = np.where(whole_days, (ends + 1 - starts) // day, 1)
    cumulative = np.cumsum(np.asarray(weights, dtype=np.float64))
    on_day = np.minimum(np.floor(uniform(len(drawn)) * days).astype(np.int64), days - 1)
    hour = np.minimum(np.searchsorted(cumulative, uniform(len(drawn)) * cumulative[-1], side="right"), 23)
    second = np.minimum(np.floor(uniform(len(drawn)) * 3600).astype(np.int64), 3599)
    return np.where(whole_days, starts + on_day * day + hour * 3600 + second, drawn)


def _decode_column(column: Column, bins: np.ndarray, mode: str, uniform) -> np.ndarray:
    if isinstance(column, CategoricalColumn):
        return bins  # codes into column.values; the DataFrame and the text build on them
    if isinstance(column, BooleanColumn):
        return bins.astype(bool)
    if not isinstance(column, _Binned):
        return bins  # integer codes
    if mode == "label":
        return np.array(column.value_labels(), dtype=object)[bins]
    low, high = column.bounds
    starts = np.asarray((low, *column.thresholds))
    if isinstance(column, NumericColumn):
        ends = np.asarray((*column.thresholds, high), dtype=np.float64)
        a, b = starts.astype(np.float64)[bins], ends[bins]
        if mode == "midpoint":
            return a + (b - a) / 2
        drawn = a + uniform(len(bins)) * (b - a)
        last = bins == len(starts) - 1
        top = np.where(last, b, np.nextafter(b, -np.inf))  # bin i is [a, b): stay below b, except the closed last bin
        drawn = np.clip(drawn, a, top)
        if column.decimals is not None:
            return written_decimals(drawn, a, top, column.decimals)
        return decimal_grid(drawn, a, b)
    ends = np.asarray((*[t - 1 for t in column.thresholds], high), dtype=np.int64)
    a, b = starts.astype(np.int64)[bins], ends[bins]
    if mode == "midpoint":
        whole = a + (b - a) // 2
    else:
        whole = np.minimum(a + np.floor(uniform(len(bins)) * (b - a + 1)).astype(np.int64), b)
    if isinstance(column, DateColumn):
        return whole.astype("datetime64[D]")
    if isinstance(column, DatetimeColumn):
        if column.time_of_day is not None and mode != "midpoint":
            whole = _at_times_of_day(whole, a, b, column.time_of_day, uniform)
        return to_precision(whole, column).astype("datetime64[s]")
    assert isinstance(column, IntegerColumn)
    return on_multiples(whole, a, b, column.multiple)
