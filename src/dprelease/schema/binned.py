"""Binned column kinds: integer, numeric, date and datetime, with public bounds.

One rule places every value, for all four kinds: a value ``v`` with ``low <= v <= high`` gets the
code ``#{t in thresholds : t <= v}``, so bin i is ``[edge_i, edge_{i+1})`` and the **last bin is
closed**: it holds ``high`` itself. Integer, date and datetime columns count in whole units (integers,
days, seconds since 1970-01-01 UTC), so each bin is a range of whole values; numeric columns count in
floats. A value outside ``[low, high]`` goes to the ``other`` bucket when the column declares one,
else to the nearest end bin when it declares ``clip``, else it is an encoding error (a column may not
declare both). See docs/schema.md.
"""

from __future__ import annotations

import math
import numbers
import re
from dataclasses import dataclass, field

import numpy as np

from dprelease.errors import InputError, InputTypeError
from dprelease.schema.columns import MAX_CODES, Column, check_flag, check_tokens, format_number, where
from dprelease.schema.parse import format_problem, parse_iso, time_of_day

#: Largest magnitude of an integer bound: integers are compared exactly as float64 below 2^53.
MAX_INTEGER = 2**53

DATE_UNITS = ("day", "week", "month", "year")
DATETIME_UNITS = ("second", "minute", "hour", "day", "week", "month", "year")
_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400, "week": 7 * 86400}


def _check_count(value: object, field_name: str, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise InputError(f"{where(name)}: {field_name} must be an integer >= 1, got {value!r}")
    return int(value)


def _check_bins(column: _Binned) -> int | None:
    """``bins``, refused above the cap by arithmetic alone, before any edge is made (10**9 bins took over a
    minute and gigabytes to reach the cap's check on the edges)."""
    bins = _check_count(column.bins, "bins", column.name)
    if bins is not None and bins > MAX_CODES:
        raise InputError(f"{where(column.name)}: bins={bins} is above the cap of {MAX_CODES:,} codes; "
                         "give fewer bins, a wider width or edges")
    return bins


def _choose_one(column: _Binned) -> None:
    given = [f for f in ("bins", "width", "edges") if getattr(column, f) is not None]
    if len(given) > 1:
        raise InputError(f"{where(column.name)}: give one of bins, width or edges, got {' and '.join(given)}")
    if column.clip and column.other:
        raise InputError(f"{where(column.name)}: declare either other or clip, not both (a value outside the "
                         "bounds would have two places)")


@dataclass(frozen=True, slots=True, kw_only=True)
class _Binned(Column):
    """Bounds, bins and the clipping flag shared by the binned kinds; ``thresholds`` and ``bounds`` are derived."""

    low: object = None
    high: object = None
    bins: int | None = None
    width: object = None
    edges: tuple | None = None
    clip: bool = False
    #: How a number in text writes its decimals: "." (3.5), or "," (3,5 and 1.234,5: a European export, whose dots
    #: group thousands and are dropped). Integer and numeric columns only; typed values (Parquet, DataFrames) are
    #: numbers already. Decoded numbers are written back the same way.
    decimal: str = "."
    #: The character that groups a number's thousands in text, dropped before it is read: "," for 1,234.5 (a US
    #: export), "." (the default where decimal is ","), " " or "'". None: no grouping (with decimal ".").
    thousands: str | None = None
    #: Signs written around the numbers in text, each dropped wherever it appears before the number is read:
    #: ["$", "%"] reads $1,234.50 and 12%. Decoded numbers are written back without them, unless ``prefix`` or
    #: ``suffix`` names one.
    symbols: tuple[str, ...] = ()
    #: A symbol (one of ``symbols``, so that the text reads back) written before (after) every decoded number in
    #: text: "$" writes $19.7 and -$5, "%" as a suffix 12%. Typed output (a DataFrame, Parquet) stays numbers.
    prefix: str | None = None
    suffix: str | None = None
    thresholds: tuple = field(init=False, default=())  # interior edges, in the column's unit
    bounds: tuple = field(init=False, default=())  # (low, high), in the column's unit

    unit_name = "number"

    def _finish(self, low: int | float, high: int | float, thresholds: list) -> None:
        object.__setattr__(self, "thresholds", tuple(thresholds))
        object.__setattr__(self, "bounds", (low, high))
        Column.__post_init__(self)

    @property
    def value_count(self) -> int:
        return len(self.thresholds) + 1

    def bin_starts(self) -> np.ndarray:
        """Each bin's lower edge, in the column's unit."""
        return np.array((self.bounds[0], *self.thresholds))

    def bin_codes(self, values: np.ndarray) -> np.ndarray:
        """The codes of values inside the bounds, in the column's unit (compared in the values' own type): the one
        bin rule the encoder and a query's number both use."""
        # One type for both sides: an integer value against a numeric column's 0.01 must not truncate the edge to 0.
        thresholds = np.asarray(self.thresholds)
        common = np.result_type(values.dtype, thresholds.dtype)
        return np.searchsorted(thresholds.astype(common), values.astype(common, copy=False),
                               side="right").astype(np.int64)

    def query_code(self, value: float) -> int:
        """The code a query's number names (``{"rating": 4}``): its bin's, where that bin is an integer column's one
        value; else refused, saying why. A code would be a silent trap here (``{"age": 5}`` read as the sixth bin),
        and a number inside a wider bin would answer for the whole bin. Public: the analyst's number, the schema."""
        value = value.item() if isinstance(value, np.generic) else value  # quoted as the number, not np.int64(0)
        low, high = self.bounds
        if not low <= value <= high:  # NaN too
            raise InputError(f"query value {value!r:.100} for attribute {self.name!r} is outside its bounds "
                             f"[{low}, {high}]")
        if self.kind == "integer" and value != int(value):
            raise InputError(f"query value {value!r:.100} for attribute {self.name!r} is not a whole number (an "
                             "integer column)")
        code = int(self.bin_codes(np.array([value]))[0])
        ends = [t - 1 for t in self.thresholds] + [high]
        if self.kind != "integer" or self.bin_starts()[code] != ends[code]:
            raise InputError(f"query value {value!r:.100} for attribute {self.name!r} lies in the bin "
                             f"{self.labels()[code]!r}, which holds other values too: name the bin by its label")
        return code

    def _spec(self) -> dict[str, object]:
        if self.edges is not None:
            spec: dict[str, object] = {"edges": list(self.edges)}
        else:
            spec = {"bounds": [self.low, self.high]}
            for name in ("bins", "width", "unit"):
                if getattr(self, name, None) is not None:
                    spec[name] = getattr(self, name)
        if getattr(self, "format", None) is not None:
            spec["format"] = self.format
        if getattr(self, "separator", "T") != "T":
            spec["separator"] = self.separator
        if getattr(self, "offset", None) is not None:
            spec["offset"] = self.offset
        if self.clip:
            spec["clip"] = True
        return {**spec, **number_format(self)}

    @property
    def grouping_characters(self) -> tuple[str, ...]:
        """The thousands separators dropped before a number is read: ``thousands``, or "." where decimal is ","; a
        space stands for the no-break spaces too (U+00A0, U+202F: 1 234,56 as French and Nordic exports write it,
        which a decimal comma reads as well as 1.234,56; session 65)."""
        grouping = self.thousands if self.thousands is not None else ("." if self.decimal == "," else None)
        if grouping is None:
            return ()
        spaces = SPACES if grouping == " " or (self.thousands is None and self.decimal == ",") else ()
        return tuple(dict.fromkeys((grouping, *spaces)))

    @property
    def plain_numbers(self) -> bool:
        """Whether numbers in text are read as written (no decimal comma, thousands separator or symbols)."""
        return self.decimal == "." and self.thousands is None and not self.symbols

    def _rule(self) -> dict[str, object]:
        low, high = self.bounds
        return {"unit": self.unit_name, "low": low, "high": high, "thresholds": list(self.thresholds),
                "clip": self.clip, **number_format(self),
                **({"format": self.format} if getattr(self, "format", None) is not None else {})}


THOUSANDS = (",", ".", " ", "'")
#: The spaces that group a number's thousands: a space, a no-break space and a narrow no-break space (U+00A0, U+202F:
#: spreadsheets in French and the Nordic languages write them).
SPACES = (" ", "\u00a0", "\u202f")
#: A datetime's written UTC offset (:attr:`_Temporal.offset`): Z, or +hh:mm / -hh:mm from -12:00 to +14:00.
_OFFSET = re.compile(r"Z|[+-][01]\d:[0-5]\d")
#: A datetime's written separators between its date and its time (:attr:`_Temporal.separator`).
SEPARATORS = ("T", " ")


def check_offset(column: _Temporal | UndecidedColumn) -> None:
    """A column's ``offset``: None, "Z" or "+hh:mm" / "-hh:mm" from -12:00 to +14:00, only on a datetime column
    without a ``format``."""
    offset = column.offset
    if offset is None:
        return
    if (not isinstance(offset, str) or not _OFFSET.fullmatch(offset)
            or not -12 * 3600 <= offset_seconds(offset) <= 14 * 3600):
        raise InputError(f"{where(column.name)}: offset must be \"Z\" (UTC) or a UTC offset \"+hh:mm\" or "
                         f"\"-hh:mm\" from -12:00 to +14:00, got {offset!r:.100}")
    if column.kind != "datetime":
        raise InputError(f"{where(column.name)}: offset applies to datetime columns, not {column.kind}")
    if column.format is not None:
        raise InputError(f"{where(column.name)}: give a format or an offset, not both (a format writes no offset)")


def offset_seconds(offset: str) -> int:
    """The seconds east of UTC that a checked ``offset`` names (Z: 0)."""
    if offset == "Z":
        return 0
    seconds = int(offset[1:3]) * 3600 + int(offset[4:6]) * 60
    return seconds if offset[0] == "+" else -seconds


def check_separator(column: _Temporal | UndecidedColumn) -> None:
    """A column's ``separator``: "T" or " ", and other than "T" only on a datetime column without a ``format``."""
    separator = column.separator
    if not isinstance(separator, str) or separator not in SEPARATORS:
        raise InputError(f"{where(column.name)}: separator must be \"T\" or \" \" (between a date-time's date and "
                         f"time), got {separator!r:.100}")
    if separator != "T" and column.kind != "datetime":
        raise InputError(f"{where(column.name)}: separator applies to datetime columns, not {column.kind}")
    if separator != "T" and column.format is not None:
        raise InputError(f"{where(column.name)}: give a format or a separator, not both (the format writes the "
                         "separator itself)")


#: A datetime's precisions (:attr:`DatetimeColumn.precision`), and the seconds of each: how finely its decoded
#: values fall (every second, minute, 5 or 15 or 30 minutes, or hour: appointments on quarter hours; session 79).
PRECISIONS = {"second": 1, "minute": 60, "5 minutes": 300, "15 minutes": 900, "30 minutes": 1800, "hour": 3600}


def _check_precision(column: DatetimeColumn) -> None:
    """A datetime column's ``precision``: one of :data:`PRECISIONS`; other than "second" only over bins of whole steps
    (a value floored to its step must stay in its bin). With a ``format``, the values are floored and the format
    writes them (31.03.2024 10:15; session 80: before, the two were refused together). ``seconds`` (true or false)
    only with a precision coarser than a second, and without a format (which writes its own clock: %S)."""
    precision = column.precision
    if not isinstance(precision, str) or precision not in PRECISIONS:
        raise InputError(f"{where(column.name)}: precision must be one of {', '.join(map(repr, PRECISIONS))} (how "
                         f"finely the decoded date-times fall), got {precision!r:.100}")
    check_flag(column.seconds, "seconds", column.name)
    if column.seconds and precision == "second":
        raise InputError(f"{where(column.name)}: seconds writes the :00 seconds of a precision coarser than a "
                         "second (\"precision\": \"minute\"); a precision of a second writes its seconds already")
    if precision == "second":
        return
    if column.format is not None and column.seconds:
        raise InputError(f"{where(column.name)}: give a format or seconds, not both (the format writes its own "
                         "clock: %H:%M:%S writes the seconds)")
    if not getattr(column, "bounds", ()):  # undecided: checked again once declared
        return
    low, high = column.bounds
    starts, step = (low, *column.thresholds), PRECISIONS[precision]
    if any(start % step for start in starts) or (high + 1) % step:
        raise InputError(f"{where(column.name)}: precision {precision!r} needs bins of whole steps (each starting at "
                         f"a multiple of {step} seconds from midnight, the last ending just before one); declare "
                         "bounds and edges on whole steps, or drop precision")


def number_format(column: _Binned | UndecidedColumn) -> dict[str, object]:
    """``decimal``, ``thousands``, ``symbols``, ``prefix`` and ``suffix`` as schema fields, those that differ from
    plain numbers (public)."""
    return {**({"decimal": column.decimal} if column.decimal != "." else {}),
            **({"thousands": column.thousands} if column.thousands is not None else {}),
            **({"symbols": list(column.symbols)} if column.symbols else {}),
            **({"prefix": column.prefix} if column.prefix is not None else {}),
            **({"suffix": column.suffix} if column.suffix is not None else {})}


def _check_decimal(column: _Binned) -> None:
    """``decimal``, ``thousands`` and ``symbols``: how a number is written in text (public, from the table's format)."""
    if column.decimal not in (".", ","):
        raise InputError(f"{where(column.name)}: decimal must be \".\" or \",\", got {column.decimal!r:.100}")
    if column.thousands is not None:
        if column.thousands not in THOUSANDS:
            raise InputError(f"{where(column.name)}: thousands must be one of {list(THOUSANDS)}, got "
                             f"{column.thousands!r:.100}")
        if column.thousands == column.decimal:
            raise InputError(f"{where(column.name)}: thousands and decimal must differ, both are "
                             f"{column.decimal!r}")
    symbols = column.symbols
    if isinstance(symbols, str) or not isinstance(symbols, (list, tuple)):
        raise InputError(f"{where(column.name)}: symbols must be a list of strings, got {symbols!r:.100}")
    for symbol in symbols:
        if not isinstance(symbol, str) or not symbol.strip() or any(c.isdigit() or c in "+-.," for c in symbol):
            raise InputError(f"{where(column.name)}: each symbol must be a non-blank string without digits, signs, "
                             f"dots or commas (a number's own characters), got {symbol!r:.100}")
    object.__setattr__(column, "symbols", tuple(symbols))
    for side in ("prefix", "suffix"):
        sign = getattr(column, side)
        if sign is not None and (not isinstance(sign, str) or sign not in column.symbols):
            raise InputError(f"{where(column.name)}: {side} must be one of the column's symbols "
                             f"{list(column.symbols)}, so that the numbers it writes read back, got {sign!r:.100}")


def written_numbers(column: Column, text: np.ndarray) -> np.ndarray:
    """Decoded numbers' text with the column's declared ``thousands`` separator (43,773.5; 3.918,45) and its
    ``prefix`` and ``suffix`` (a minus sign first: -$5), as object text; unchanged where it declares none of them.
    Every such text reads back to the same value by the same schema."""
    prefix, suffix = getattr(column, "prefix", None) or "", getattr(column, "suffix", None) or ""
    separator = getattr(column, "thousands", None)
    if separator is not None:
        text = np.array([_grouped(t, separator, column.decimal) for t in text], dtype=object)
    if not (prefix or suffix):
        return text
    return np.array([f"-{prefix}{t[1:]}{suffix}" if t.startswith("-") else f"{prefix}{t}{suffix}" for t in text],
                    dtype=object)


def _grouped(text: str, separator: str, decimal: str) -> str:
    """A number's text with its whole part's thousands grouped (-43773.5 -> -43,773.5); text that is not digits
    (inf, nan, an exponent) as it is."""
    sign = "-" if text.startswith("-") else ""
    whole, point, fraction = text[len(sign):].partition(decimal)
    if not whole.isdigit() or not (fraction.isdigit() or not fraction):
        return text
    groups = [whole[max(0, end - 3):end] for end in range(len(whole), 0, -3)][::-1]
    return sign + separator.join(groups) + point + fraction


def number_text(column: _Binned, text: str) -> str:
    """One number's text as Python's float() reads it: its ``symbols`` dropped, then its thousands separator
    (``thousands``, or "." where ``decimal`` is ","), then a decimal comma made a point: $1,234.50 is 1234.5 with
    thousands ",", and 1.234,5 is 1234.5 with decimal ",". The SQL engines do the same
    (:mod:`dprelease.engines.schema_sql`)."""
    for symbol in column.symbols:
        text = text.replace(symbol, "")
    for grouping in column.grouping_characters:
        text = text.replace(grouping, "")
    if column.decimal == ",":
        text = text.replace(",", ".")
    return text.strip() if column.symbols else text


def _stepped(column: _Binned, first: int, high: int, step: int) -> list[int]:
    """first, first + step, ... up to high, refusing more than MAX_CODES of them."""
    count = 0 if first > high else (high - first) // step + 1
    if count >= MAX_CODES:
        raise InputError(f"{where(column.name)} would have {count + 1:,} bins, above the cap of {MAX_CODES:,}; "
                         "give fewer bins, a wider width or edges")
    return list(range(first, high + 1, step))


def _integer_bounds(column: _Binned, low: object, high: object, what: str = "bounds") -> tuple[int, int]:
    for name, value in (("low", low), ("high", high)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise InputError(f"{where(column.name)}: {what} must be integers, got {name}={value!r}")
        if abs(value) > MAX_INTEGER:
            raise InputError(f"{where(column.name)}: {what} must lie within +-2^53, got {name}={value!r}")
    if low > high:
        raise InputError(f"{where(column.name)}: low must be <= high, got bounds [{low}, {high}]")
    return int(low), int(high)


def _range_thresholds(column: _Binned, low: int, high: int, edges: list[int] | None, *,
                      step: int | None, bins: int | None, label: str) -> list[int]:
    """Interior edges of whole-unit bins: explicit edges, a step, a bin count, or one bin per unit."""
    if edges is not None:
        if len(edges) < 2:
            raise InputError(f"{where(column.name)}: edges must list at least 2 {label}s, got {len(edges)}")
        show = getattr(column, "format_value", lambda v: v)
        for a, b in zip(edges, edges[1:]):
            if b <= a:
                raise InputError(f"{where(column.name)}: edges must increase strictly, got "
                                 f"{show(a)!r} then {show(b)!r}")
        return list(edges[1:-1])
    count = high - low + 1
    if bins is not None:
        if bins > count:
            raise InputError(f"{where(column.name)}: bins={bins} is more than the {count} {label}s in the bounds")
        return [low + (i * count) // bins for i in range(1, bins)]
    step = 1 if step is None else step
    thresholds = _stepped(column, low + step, high, step)
    if step > 1 and thresholds and thresholds[-1] == high:
        thresholds.pop()  # a last bin holding only `high` joins the bin before it (docs/schema.md), as for dates
    return thresholds


@dataclass(frozen=True, slots=True, kw_only=True)
class IntegerColumn(_Binned):
    """Whole numbers in ``[low, high]``; by default one bin per integer."""

    #: A column computed from two date, date-time or integer columns of the schema, not read from the table: the
    #: time from the first to the second, ``floor((second - first) / unit)`` (:mod:`dprelease.schema.between`), e.g.
    #: a stay in days from its admission to its discharge, or an age from a birth year to a survey's year. None: an
    #: ordinary column, read from the table.
    between: tuple[str, str] | None = None
    #: The unit of a ``between`` column: "day" (the only one for dates, and the default for date-times), or
    #: "second", "minute" or "hour" for date-times; none for integers (their difference, in their own unit).
    unit: str | None = None
    #: The value a ``between`` column's second column stands for where it is blank (NULL): an extraction date, so
    #: that a tenure or a stay still running counts up to it (the second column's kind, written as its bounds are:
    #: "2024-12-31", or 2024 for integers). None: a blank second column makes the column blank.
    until: object = None
    #: "h:mm:ss": durations written as text, hours:minutes:seconds (hours past 23 too, 36:15:00) or minutes:seconds
    #: (45:10), read as their seconds and written back as h:mm:ss (:func:`duration_seconds`). None: numbers.
    format: str | None = None
    #: How the table rounds its values: a decoded value is a multiple of it (salaries in whole hundreds: 100), drawn
    #: evenly over the multiples in its bin (where its bin holds one; else any whole number of the bin). Writing only:
    #: every integer is read. None: any whole number.
    multiple: int | None = None
    #: Codes written to a fixed width (postcodes 02134, accounts 007): decoded values are written zero-padded to at
    #: least this many digits, as text (a DataFrame's too). Writing only: 02134 and 2134 both read as 2134. None:
    #: numbers.
    digits: int | None = None

    kind = "integer"
    unit_name = "integer"

    def __post_init__(self) -> None:
        check_flag(self.clip, "clip", self.name)
        _check_between(self)
        _check_multiple(self)
        _check_digits(self)
        if self.format is not None and self.format not in DURATION_FORMATS:
            raise InputError(f"{where(self.name)}: an integer column's format is {' or '.join(map(repr, DURATION_FORMATS))} "
                             f"(durations written as text, read as seconds), got {self.format!r:.100}")
        if self.format is not None and (self.symbols or self.thousands is not None or self.decimal != "."):
            raise InputError(f"{where(self.name)}: a duration written {self.format!r} has no symbols, thousands or "
                             "decimal comma")
        _check_decimal(self)
        _choose_one(self)
        bins = _check_bins(self)
        width = _check_count(self.width, "width", self.name)
        edges = None
        if self.edges is not None:
            edges = _edge_list(self)
            for e in edges:
                _integer_bounds(self, e, e, "edges")
            low, high = _bounds_from_edges(self, edges)
        else:
            low, high = _integer_bounds(self, self.low, self.high)
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        if self.digits is not None and low < 0:
            raise InputError(f"{where(self.name)}: digits is for codes written to a fixed width (02134), which are "
                             f"not negative; its bounds start at {low}")
        self._finish(low, high, _range_thresholds(self, low, high, edges, step=width, bins=bins, label="integer"))

    def value_labels(self) -> tuple[str, ...]:
        starts = [self.low, *self.thresholds]
        ends = [t - 1 for t in self.thresholds] + [self.high]
        return tuple(str(a) if a == b else f"{a}..{b}" for a, b in zip(starts, ends))

    def _spec(self) -> dict[str, object]:
        spec = _Binned._spec(self)
        if self.between is not None:
            unit = {"unit": self.unit} if self.unit is not None else {}
            until = {"until": self.until} if self.until is not None else {}
            spec = {"between": list(self.between), **unit, **until, **{k: v for k, v in spec.items() if k != "unit"}}
        spec = spec if self.multiple is None else {**spec, "multiple": self.multiple}
        return spec if self.digits is None else {**spec, "digits": self.digits}

    def _rule(self) -> dict[str, object]:
        rule = _Binned._rule(self)
        if self.between is not None:
            rule["between"] = {"first": self.between[0], "second": self.between[1], "unit": self.unit,
                               **({"until": self.until} if self.until is not None else {})}
        return rule


#: How an integer column of durations may be written as text (its ``format``): hours, minutes and seconds.
DURATION_FORMATS = ("h:mm:ss",)
#: A duration as text: h:mm:ss (minutes and seconds 00-59, hours of up to 9 digits) or m:ss (minutes of up to 9
#: digits), with a sign; ASCII digits.
DURATION_TEXT = re.compile(r"\A(-?)(?:([0-9]{1,9}):([0-5][0-9])|([0-9]{1,9})):([0-5][0-9])\Z")


def duration_seconds(text: str) -> int | None:
    """The seconds of a duration written h:mm:ss or m:ss (36:15:00 is 130,500; 45:10 is 2,710), None if it is not one.
    The SQL engines read it by the same expression (:data:`DURATION_SQL`)."""
    match = DURATION_TEXT.match(text)
    if match is None:
        return None
    sign, hours, minutes, alone, seconds = match.groups()
    total = int(hours or 0) * 3600 + int(minutes if minutes is not None else alone) * 60 + int(seconds)
    return -total if sign else total


def duration_text(seconds: int) -> str:
    """A whole number of seconds written h:mm:ss (130500 is 36:15:00; -90 is -0:01:30)."""
    sign, seconds = ("-", -seconds) if seconds < 0 else ("", seconds)
    return f"{sign}{seconds // 3600}:{seconds % 3600 // 60:02d}:{seconds % 60:02d}"


#: :data:`DURATION_TEXT` for the engines' regular expressions (RE2 and Java: \z ends the text).
DURATION_SQL = r"\A(-?)(?:([0-9]{1,9}):([0-5][0-9])|([0-9]{1,9})):([0-5][0-9])\z"


#: The units of a ``between`` column, in seconds (dates count days: only "day").
BETWEEN_UNITS = {"second": 1, "minute": 60, "hour": 3600, "day": 86400}


def _check_between(column: IntegerColumn) -> None:
    """The form of a ``between`` declaration (its columns' kinds are checked with the schema's)."""
    if column.between is None:
        for name, value in (("unit", column.unit), ("until", column.until)):
            if value is not None:
                raise InputError(f"{where(column.name)}: {name} is for a column computed between two columns "
                                 '("between": [first, second]); an integer column read from the table has none')
        return
    between = column.between
    if isinstance(between, (str, bytes)) or not isinstance(between, (list, tuple)) or len(between) != 2 \
            or not all(isinstance(n, str) and n for n in between):
        raise InputError(f"{where(column.name)}: between must name two columns [first, second], got {between!r:.100}")
    if between[0] == between[1]:
        raise InputError(f"{where(column.name)}: between names {between[0]!r} twice; it needs two columns")
    if column.name in between:
        raise InputError(f"{where(column.name)}: between cannot name the column itself")
    object.__setattr__(column, "between", tuple(between))
    # No unit yet: the schema sets "day" where the columns are dates or date-times, and none for integers
    # (:func:`~dprelease.schema.between.check_between`), which are counted in their own unit.
    if column.unit is not None and column.unit not in BETWEEN_UNITS:
        raise InputError(f"{where(column.name)}: unit must be one of {list(BETWEEN_UNITS)}, got {column.unit!r:.100}")
    if column.symbols or column.prefix is not None or column.suffix is not None:
        raise InputError(f"{where(column.name)}: a between column is computed, not read: symbols, prefix and suffix "
                         "have no text to apply to")


def _edge_list(column: _Binned) -> list:
    if isinstance(column.edges, (str, bytes)) or not isinstance(column.edges, (list, tuple)):
        raise InputTypeError(f"{where(column.name)}: edges must be a list, got {column.edges!r}")
    edges = list(column.edges)
    object.__setattr__(column, "edges", tuple(edges))
    return edges


def _bounds_from_edges(column: _Binned, edges: list) -> tuple:
    if len(edges) < 2:
        raise InputError(f"{where(column.name)}: edges must list at least 2 values, got {len(edges)}")
    for name, given, edge in (("low", column.low, edges[0]), ("high", column.high, edges[-1])):
        if given is not None and given != edge:
            hint = (f"; an integer column's last bin holds its last edge (edges [0, 10, 20] are 0..9 and 10..20)"
                    if column.kind == "integer" else "")
            raise InputError(f"{where(column.name)}: {name}={given!r} disagrees with the edges, which give {edge!r}: "
                             f"the first and last edges are the bounds{hint}")
    return edges[0], edges[-1]


def format_weight(weight: float) -> int | float:
    """A weight as the schema file writes it: a whole number as an integer (0, not 0.0)."""
    return int(weight) if float(weight).is_integer() else weight


def _finite(column: _Binned, value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise InputError(f"{where(column.name)}: {name} must be a finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class NumericColumn(_Binned):
    """Real numbers in ``[low, high]``, in ``bins`` equal bins, bins of ``width``, or at explicit ``edges``; bounds
    ``[v, v]`` with one bin (``"edges": [v, v]``) hold one value, to which every value is clipped (a drafted amount
    whose non-zero values were too few to stand out: decoded as 0, not as draws in a cell next to it).

    ``decimals``: how many decimal places the table writes (2 for amounts in cents). A decoded value is then cut
    down to that many (inside its bin; a bin too narrow to hold such a value keeps the finer grid) and written with
    them, 15.30 and 0.00, where without it a value keeps two digits below its bin's width. Decoding only.
    """

    decimals: int | None = None

    kind = "numeric"
    unit_name = "float"

    def __post_init__(self) -> None:
        check_flag(self.clip, "clip", self.name)
        _check_decimals(self)
        _check_decimal(self)
        _choose_one(self)
        if self.edges is not None:
            edges = [_finite(self, e, "each edge") for e in _edge_list(self)]
            low, high = _bounds_from_edges(self, edges)
        else:
            low, high = _finite(self, self.low, "low"), _finite(self, self.high, "high")
            bins = _check_bins(self)
            if not (low < high or (low == high and bins == 1)):
                raise InputError(f"{where(self.name)}: low must be < high (or equal, with one bin: a column of one "
                                 f"value), got bounds [{self.low!r}, {self.high!r}]")
            if low == high:
                edges = [low, high]
            elif bins is not None:
                edges = [low + (high - low) * i / bins for i in range(bins)] + [high]
            elif self.width is not None:
                width = _finite(self, self.width, "width")
                if width <= 0:
                    raise InputError(f"{where(self.name)}: width must be > 0, got {self.width!r}")
                count = math.ceil((high - low) / width - 1e-9)
                if count > MAX_CODES:
                    raise InputError(f"{where(self.name)} would have {count:,} bins, above the cap of {MAX_CODES:,}")
                edges = [low + i * width for i in range(count)] + [high]
            else:
                raise InputError(f"{where(self.name)}: a numeric column needs bins, width or edges")
        for a, b in zip(edges, edges[1:]):
            if not (b > a or len(edges) == 2 and b == a):  # [v, v]: one value
                raise InputError(f"{where(self.name)}: edges must increase strictly (or be [v, v], one value), got "
                                 f"{a!r} then {b!r}")
        object.__setattr__(self, "low", low)
        object.__setattr__(self, "high", high)
        self._finish(low, high, edges[1:-1])

    def _spec(self) -> dict[str, object]:
        spec = _Binned._spec(self)
        return spec if self.decimals is None else {**spec, "decimals": self.decimals}

    def value_labels(self) -> tuple[str, ...]:
        edges = [self.low, *self.thresholds, self.high]
        last = len(edges) - 2
        return tuple(f"[{format_number(a)}, {format_number(b)}{']' if i == last else ')'}"
                     for i, (a, b) in enumerate(zip(edges, edges[1:])))


# ------------------------------------------------------------------ dates, times
#: A bound of a column of times of day alone (its format names no date), written as the time: 00:00 or 23:59:59.
_CLOCK_BOUND = re.compile(r"\d\d:\d\d(:\d\d)?")


def _parse_bound(column: _Binned, value: object, name: str, unit: str) -> int:
    if not isinstance(value, str):
        raise InputError(f"{where(column.name)}: {name} must be an ISO 8601 date string, got {value!r}")
    clock = getattr(column, "format", None) is not None and time_of_day(column.format)
    if clock and _CLOCK_BOUND.fullmatch(value.strip()):
        value = f"1970-01-01T{value.strip()}"  # a time of day alone is that time on 1970-01-01
    parsed = parse_iso(value, unit)
    if parsed is None:
        raise InputError(f"{where(column.name)}: {name} is not an ISO 8601 date, got {value!r}")
    return parsed


def _month_of(day: int) -> int:
    return int(np.datetime64(day, "D").astype("datetime64[M]").astype(np.int64))


def _first_day(month: int) -> int:
    return int(np.datetime64(month, "M").astype("datetime64[D]").astype(np.int64))


def _calendar_thresholds(low_day: int, high_day: int, months: int, per_day: int) -> list[int]:
    """Starts of every ``months``-th calendar month after ``low_day``, up to ``high_day``, in 1/per_day days."""
    step = months
    first = _month_of(low_day)
    first -= first % step if step == 12 else 0  # years start in January
    out = []
    month = first + step
    while _first_day(month) <= high_day:
        out.append(_first_day(month) * per_day)
        month += step
        if len(out) > MAX_CODES:
            break
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class _Temporal(_Binned):
    """Dates (in days) or date-times (in seconds) since 1970-01-01 UTC; bounds and edges are ISO strings."""

    unit: str | None = None
    #: How the table writes its values in text, as a strptime pattern ("%m/%d/%Y" for 10/3/2019; None: ISO 8601).
    #: Decoded text is written back the same way; typed values (Parquet, DataFrames) are dates already.
    format: str | None = None
    #: A datetime column without a ``format``: the character between the date and the time in the decoded text,
    #: "T" (ISO 8601's) or " " (2023-07-27 05:58:00, as pandas' ``to_csv`` and SQL exports write it, and the form
    #: spreadsheets read as a date-time). Writing only: either form is read.
    separator: str = "T"
    #: A datetime column without a ``format``: the UTC offset its decoded text is written at and marked with, "Z"
    #: (UTC: 2024-05-06T06:18:14Z) or "+01:00" (2024-05-06T07:18:14+01:00); None writes UTC unmarked. Writing only:
    #: values are read as UTC instants either way (an offset in the text is applied, text without one is UTC).
    offset: str | None = None

    units = DATE_UNITS
    per_day = 1
    code = "D"

    def __post_init__(self) -> None:
        check_flag(self.clip, "clip", self.name)
        if self.decimal != "." or self.thousands is not None or self.symbols or self.prefix or self.suffix:
            raise InputError(f"{where(self.name)}: decimal, thousands, symbols, prefix and suffix apply to integer and "
                             f"numeric columns, not a {self.kind} one")
        if self.bins is not None:
            raise InputError(f"{where(self.name)}: a {self.kind} column takes a unit (and a width) or edges, not bins")
        if self.format is not None and (problem := format_problem(self.format)) is not None:
            raise InputError(f"{where(self.name)}: {problem}")
        if self.format is not None and self.per_day == 1 and time_of_day(self.format):
            raise InputError(f"{where(self.name)}: format {self.format!r} is a time of day alone, which a date column "
                             "would read as one day: declare the column a datetime")
        check_separator(self)
        check_offset(self)
        _choose_one(self)
        if self.unit is not None and self.edges is not None:
            raise InputError(f"{where(self.name)}: give a unit or edges, not both")
        unit = "day" if self.unit is None and self.edges is None else self.unit
        if unit is not None and unit not in self.units:
            raise InputError(f"{where(self.name)}: unit must be one of {list(self.units)}, got {unit!r}")
        width = _check_count(self.width, "width", self.name)
        if self.edges is not None:
            edges = [_parse_bound(self, e, "each edge", self.code) for e in _edge_list(self)]
            if len(edges) < 2:
                raise InputError(f"{where(self.name)}: edges must list at least 2 values, got {len(edges)}")
            low, high = edges[0], edges[-1]
            for name, given, edge in (("low", self.low, low), ("high", self.high, high)):
                if given is not None and _parse_bound(self, given, name, self.code) != edge:
                    raise InputError(f"{where(self.name)}: {name}={given!r} disagrees with the edges, which give "
                                     f"{self.format_value(edge)!r}: the first and last edges are the bounds")
            thresholds = _range_thresholds(self, low, high, edges, step=None, bins=None, label=self.kind)
            object.__setattr__(self, "edges", tuple(self.format_value(e) for e in edges))
        else:
            low = _parse_bound(self, self.low, "low", self.code)
            high = _parse_bound(self, self.high, "high", self.code)
            if low > high:
                raise InputError(f"{where(self.name)}: low must be <= high, got bounds [{self.low!r}, {self.high!r}]")
            step = width or 1
            if unit in ("month", "year"):
                months = step * (12 if unit == "year" else 1)
                thresholds = _calendar_thresholds(low // self.per_day, high // self.per_day, months, self.per_day)
            elif unit == "week":  # weeks start on the low bound
                thresholds = _stepped(self, low + 7 * step * self.per_day, high, 7 * step * self.per_day)
            else:  # days (and for date-times seconds .. days) follow the calendar (UTC)
                size = step * (_SECONDS[unit] if self.per_day > 1 else 1)
                thresholds = _stepped(self, (low // size + 1) * size, high, size)
            finest = step == 1 and unit == ("second" if self.per_day > 1 else "day")
            if thresholds and thresholds[-1] == high and not finest:
                thresholds.pop()  # a last bin holding only the instant `high` joins the bin before it
            object.__setattr__(self, "low", self.format_value(low))
            object.__setattr__(self, "high", self.format_value(high))
        object.__setattr__(self, "unit", unit)
        self._finish(low, high, thresholds)

    def format_value(self, value: int) -> str:
        raise NotImplementedError

    def query_code(self, value: float) -> int:
        """A date column's bins are named by their labels: a number would be a code or a count of days."""
        raise InputError(f"query value {value!r:.100} for attribute {self.name!r}: a {self.kind} column's bins are "
                         f"named by their labels, such as {self.labels()[0]!r}")

    def label_aliases(self) -> dict[str, int | tuple[int, ...]]:
        """Each calendar year, month or day (UTC) that is exactly one bin or a run of whole bins, by its ISO name
        (``"2023"``, ``"2023-06"``, ``"2023-06-15"``): the name a query gives it more naturally than its range labels.
        One bin: its code; a run (a year of month bins): its codes, in order. A period the bounds cut (a year from
        March) names nothing. Public."""
        low, high = self.bounds
        starts, ends = [low, *self.thresholds], [*self.thresholds, high + 1]  # ends exclusive; high is in the last bin
        code_ending = {int(end): code for code, end in enumerate(ends)}
        taken = set(self.labels())
        aliases: dict[str, int | tuple[int, ...]] = {}
        for first, start in enumerate(starts):
            for name, stop in calendar_periods(int(start), self.per_day):
                last = code_ending.get(stop)
                if last is not None and name not in taken:
                    aliases[name] = first if last == first else tuple(range(first, last + 1))
        return aliases


def calendar_periods(start: int, per_day: int) -> list[tuple[str, int]]:
    """The calendar day, month and year (UTC) that begin at ``start`` (days, or seconds with ``per_day`` 86400, since
    1970-01-01), each as its ISO name and its exclusive end; none where ``start`` is not a midnight."""
    if start % per_day:
        return []
    day = np.datetime64(start // per_day, "D")
    periods = [(str(day), (start // per_day + 1) * per_day)]
    for unit in ("M", "Y"):
        period = day.astype(f"datetime64[{unit}]")
        if period.astype("datetime64[D]") != day:
            break  # a year begins on a month's first day
        periods.append((str(period), int((period + 1).astype("datetime64[D]").astype(np.int64)) * per_day))
    return periods


@dataclass(frozen=True, slots=True, kw_only=True)
class DateColumn(_Temporal):
    """Calendar dates in ``[low, high]`` (ISO strings), binned by a unit (day, week, month, year) times a width."""

    kind = "date"
    unit_name = "day"

    def format_value(self, value: int) -> str:
        return str(np.datetime64(int(value), "D"))

    def value_labels(self) -> tuple[str, ...]:
        low, high = self.bounds
        starts = [low, *self.thresholds]
        ends = [t - 1 for t in self.thresholds] + [high]
        return tuple(self.format_value(a) if a == b else f"{self.format_value(a)}..{self.format_value(b)}"
                     for a, b in zip(starts, ends))


@dataclass(frozen=True, slots=True, kw_only=True)
class DatetimeColumn(_Temporal):
    """Date-times (to the second, UTC) in ``[low, high]``, binned by a unit (second .. year) times a width.

    ``time_of_day``: 24 public weights, one an hour from 00:00 (UTC) on: a value decoded in a bin of whole days is
    drawn on a day of the bin (evenly) at an hour drawn by these weights (and a second of that hour, evenly), where
    without them it is drawn evenly over the bin's seconds, so that synthetic lab draws binned by month do not fall
    at 03:00 as often as at 09:30. Decoding only: the codes, and so the release, are the same. The private draft
    writes them from a noisy histogram of the hours (its ``hours`` charge).
    """

    time_of_day: tuple[float, ...] | None = None
    #: How finely the decoded values fall and are written, without a ``format``: "second" (2023-07-27T05:58:41, ISO's
    #: default) or "minute" (2023-07-27T05:58, as a till or a booking system exports): the decoded values are then
    #: whole minutes, drawn evenly over the minutes of their bin, which needs bins of whole minutes; or "5 minutes",
    #: "15 minutes", "30 minutes", "hour" (appointments on quarter hours, 09:15): whole steps, drawn evenly over the
    #: steps of their bin, written to the minute. With a ``format``, the format writes them. Writing only: any is
    #: read.
    precision: str = "second"
    #: Where the precision is coarser than a second: write the values with their seconds, :00 (2023-07-27 05:58:00,
    #: as pandas and SQL exports write whole minutes), not to the minute. Writing only.
    seconds: bool = False

    units = DATETIME_UNITS
    per_day = 86400
    code = "s"
    kind = "datetime"
    unit_name = "second"

    def __post_init__(self) -> None:
        _Temporal.__post_init__(self)
        if self.time_of_day is not None:
            weights = self.time_of_day
            if isinstance(weights, (str, bytes)) or not isinstance(weights, (list, tuple)) or len(weights) != 24:
                raise InputError(f"{where(self.name)}: time_of_day must list 24 weights, one an hour from 00:00, got "
                                 f"{weights!r:.100}")
            values = [_finite(self, w, "each time_of_day weight") for w in weights]
            if min(values) < 0 or sum(values) <= 0:
                raise InputError(f"{where(self.name)}: time_of_day weights must be >= 0 with a positive sum, got "
                                 f"{list(weights)!r:.100}")
            object.__setattr__(self, "time_of_day", tuple(values))
        _check_precision(self)

    def _spec(self) -> dict[str, object]:
        spec = _Binned._spec(self)
        if self.time_of_day is not None:
            spec["time_of_day"] = [format_weight(w) for w in self.time_of_day]
        if self.precision != "second":
            spec["precision"] = self.precision
        if self.seconds:
            spec["seconds"] = True
        return spec

    def format_value(self, value: int) -> str:
        return str(np.datetime64(int(value), "s"))

    def value_labels(self) -> tuple[str, ...]:
        low, high = self.bounds
        edges = [low, *self.thresholds, high]
        last = len(edges) - 2
        return tuple(f"[{self.format_value(a)}, {self.format_value(b)}{']' if i == last else ')'}"
                     for i, (a, b) in enumerate(zip(edges, edges[1:])))


BINNED_KINDS = {c.kind: c for c in (IntegerColumn, NumericColumn, DateColumn, DatetimeColumn)}


def _check_multiple(column) -> None:
    """An integer column's ``multiple``: a whole number from 2 to 10^15, not on a column computed between two others
    (its values are their difference)."""
    multiple = column.multiple
    if multiple is None:
        return
    if isinstance(multiple, bool) or not isinstance(multiple, int) or not 2 <= multiple <= 10**15:
        raise InputError(f"{where(column.name)}: multiple must be a whole number from 2 to 10^15 (decoded values are "
                         f"its multiples), got {multiple!r:.100}")
    if getattr(column, "between", None) is not None:
        raise InputError(f"{where(column.name)}: a column between two others is their difference; drop multiple")


def _check_digits(column) -> None:
    """An integer column's ``digits``: a whole number from 2 to 18, on a column of codes (no sign below 0, no
    thousands, no duration format, not between two others)."""
    digits = column.digits
    if digits is None:
        return
    if isinstance(digits, bool) or not isinstance(digits, int) or not 2 <= digits <= 18:
        raise InputError(f"{where(column.name)}: digits must be a whole number from 2 to 18 (decoded values are "
                         f"written zero-padded to it), got {digits!r:.100}")
    if column.between is not None or column.format is not None or column.thousands is not None:
        raise InputError(f"{where(column.name)}: digits is for codes written to a fixed width (02134); drop it, or "
                         "drop between, format and thousands")


def zero_padded_texts(values: np.ndarray, digits: int | None) -> np.ndarray:
    """Whole numbers as text, zero-padded to ``digits`` (2134 -> 02134 at 5; wider ones as they are); plain
    text where ``digits`` is None or the values are not numbers (a decoded table's bin labels, 47..56)."""
    if digits is None or values.dtype.kind not in "iu":
        return values.astype(str).astype(object)
    return np.char.zfill(values.astype(str), digits).astype(object)


def on_multiples(values: np.ndarray, low: np.ndarray, high: np.ndarray, multiple: int | None) -> np.ndarray:
    """Whole numbers drawn evenly in their bins [low, high] moved down to a multiple of ``multiple`` (up to the bin's
    first where that falls below it), evenly over the bin's multiples up to the bin's ends; a bin holding none keeps
    its value. Public: post-processing of decoded values."""
    if multiple is None:
        return values
    down = values - np.mod(values, multiple)
    first = low + np.mod(-low, multiple)  # the bin's first multiple
    moved = np.where(down < low, first, down)
    return np.where(first <= high, moved, values)


def _check_decimals(column) -> None:
    if column.decimals is not None and (isinstance(column.decimals, bool) or not isinstance(column.decimals, int)
                                        or not 0 <= column.decimals <= 12):
        raise InputError(f"{where(column.name)}: decimals must be a whole number from 0 to 12, got "
                         f"{column.decimals!r:.100}")


@dataclass(frozen=True, slots=True, kw_only=True)
class UndecidedColumn(Column):
    """A number or date column whose bounds the private draft left to the user: none of its bounds histogram's
    noisy cells stood out of the noise, and the draft does not guess bounds from noise. Its JSON says
    ``"bounds": null``; the schema loads (for review), but every use of the column (its codes, its domain, its
    encoding rule, its labels) refuses it, naming it, until its bounds are declared."""

    type: str
    clip: bool = False
    #: How its numbers are written (integer and numeric only; :class:`_Binned`'s fields): the draft finds that
    #: too, and keeps it here so that declaring the bounds is all the column then needs.
    decimal: str = "."
    thousands: str | None = None
    symbols: tuple[str, ...] = ()
    prefix: str | None = None
    suffix: str | None = None
    decimals: int | None = None  # numeric only (:class:`NumericColumn`'s field)
    multiple: int | None = None  # integer only (:class:`IntegerColumn`'s field)
    #: How a date column's table writes its dates (:class:`_Temporal`'s field), declared to the draft.
    format: str | None = None
    #: A datetime column's date-time separator and written offset (:class:`_Temporal`'s fields), found by the draft.
    separator: str = "T"
    offset: str | None = None
    precision: str = "second"
    seconds: bool = False

    @property
    def kind(self) -> str:  # the kind the draft found (the other kinds name theirs on the class)
        return self.type

    def __post_init__(self) -> None:
        if self.type not in BINNED_KINDS:
            raise InputError(f"{where(self.name)}: only {list(BINNED_KINDS)} columns may leave their bounds "
                             f"undecided, got {self.type!r}")
        if not isinstance(self.name, str) or not self.name:
            raise InputTypeError(f"schema column names must be non-empty strings, got {self.name!r}")
        check_flag(self.null, "null", self.name)
        check_flag(self.other, "other", self.name)
        check_flag(self.clip, "clip", self.name)
        object.__setattr__(self, "null_tokens", check_tokens(self.null_tokens, "null_tokens", self.name))
        _check_decimal(self)
        _check_decimals(self)
        if self.decimals is not None and self.type != "numeric":
            raise InputError(f"{where(self.name)}: decimals applies to numeric columns, not {self.type}")
        _check_multiple(self)
        if self.multiple is not None and self.type != "integer":
            raise InputError(f"{where(self.name)}: multiple applies to integer columns, not {self.type}")
        if number_format(self) and self.type not in ("integer", "numeric"):
            raise InputError(f"{where(self.name)}: decimal, thousands, symbols, prefix and suffix apply to integer "
                             f"and numeric columns, not {self.type}")
        if self.format is not None and self.type not in ("date", "datetime"):
            raise InputError(f"{where(self.name)}: format applies to date and datetime columns, not {self.type}")
        if self.format is not None and (problem := format_problem(self.format)) is not None:
            raise InputError(f"{where(self.name)}: {problem}")
        check_separator(self)
        check_offset(self)
        if self.precision != "second" and self.type != "datetime":
            raise InputError(f"{where(self.name)}: precision applies to datetime columns, not {self.type}")
        _check_precision(self)

    def _refuse(self) -> InputError:
        more = {"integer": "", "numeric": " and bins, width or edges", "date": " (ISO dates) and a unit",
                "datetime": " (ISO date-times) and a unit"}[self.type]
        return InputError(f"{where(self.name)}: its bounds are undecided (null: the private draft saw no values "
                          f"stand out of its noise); declare \"bounds\": [low, high]{more} from public knowledge")

    @property
    def value_count(self) -> int:
        raise self._refuse()

    def value_labels(self) -> tuple[str, ...]:
        raise self._refuse()

    def _rule(self) -> dict[str, object]:
        raise self._refuse()

    def _spec(self) -> dict[str, object]:
        return {"bounds": None, **({"clip": True} if self.clip else {}), **number_format(self),
                **({"decimals": self.decimals} if self.decimals is not None else {}),
                **({"multiple": self.multiple} if self.multiple is not None else {}),
                **({"format": self.format} if self.format is not None else {}),
                **({"separator": self.separator} if self.separator != "T" else {}),
                **({"offset": self.offset} if self.offset is not None else {}),
                **({"precision": self.precision} if self.precision != "second" else {}),
                **({"seconds": True} if self.seconds else {})}


def to_precision(seconds: np.ndarray, column: object) -> np.ndarray:
    """Date-time values (whole seconds) floored to the column's ``precision``: a whole minute (or a whole step of 5,
    15, 30 minutes or an hour), evenly over its bin's steps where the seconds were even over its seconds, and in the
    bin (its bins are whole steps, as the column checks). Other columns' values unchanged. Public: post-processing of
    decoded values."""
    step = PRECISIONS[column.precision] if isinstance(column, DatetimeColumn) else 1
    return seconds if step == 1 else seconds - np.mod(seconds, step)
