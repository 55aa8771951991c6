"""Raw columns and the parsers that turn their values into numbers, dates and booleans.

A raw column comes in one of two forms, so that text is parsed once per *distinct* value and never
row by row:

- :class:`FactorColumn`: ``uniques`` (an object array of distinct values: text, or Python objects
  from a DataFrame) and ``index`` (per row, the position of its value in ``uniques``, -1 for a typed
  NULL). CSV columns, object and category columns of a DataFrame, and Parquet text come this way.
- :class:`TypedColumn`: a numpy array of numbers, booleans or datetime64, and a mask of typed NULLs.

The parsers work on numpy arrays and report, beside the values, which entries parsed.
"""

from __future__ import annotations

import functools
import math
import numbers
import re
from dataclasses import dataclass
from datetime import date, datetime

import numpy as np

#: ISO 8601 dates and datetimes: 2020-01-05, 2020-01-05T10:00, 2020-01-05 10:00:00.5, ...Z, ...+01:00.
_ISO = re.compile(r"^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?))?\s*(Z|[+-]\d{2}:?\d{2})?$")


@dataclass(frozen=True, eq=False)
class FactorColumn:
    """Distinct values and, per row, the index of its value (-1: a typed NULL)."""

    uniques: np.ndarray
    index: np.ndarray
    #: whether ``uniques`` are a categorical dtype's categories (a pandas ``category``, a DuckDB ENUM), which may list
    #: values no row holds; never read as public (a dtype built from the data lists the data's own values)
    dtype_categories: bool = False

    @property
    def n(self) -> int:
        return len(self.index)

    @classmethod
    def from_values(cls, values: np.ndarray) -> FactorColumn:
        """Factorize an array of strings (or other mutually comparable values; None is a NULL) with numpy."""
        values = np.asarray(values, dtype=object)
        present = np.not_equal(values, None).astype(bool)
        index = np.full(len(values), -1, dtype=np.int64)
        uniques, inverse = np.unique(values[present], return_inverse=True)
        index[present] = inverse.reshape(-1)
        return cls(uniques.astype(object), index)


@dataclass(frozen=True, eq=False)
class TypedColumn:
    """Numbers, booleans or datetime64 values, with ``missing`` marking typed NULLs."""

    values: np.ndarray
    missing: np.ndarray
    #: a zoned DataFrame column's datetimes on its zone's wall clock (``values`` are UTC), or None: a date column
    #: reads its calendar date there (a Berlin midnight is that day, not the evening before in UTC)
    wall: np.ndarray | None = None
    #: whether the dtype marks the datetimes as instants (a zoned DataFrame column, a Parquet TIMESTAMPTZ): public, as
    #: the dtype is; a drafted datetime column then writes its text marked Z, as a zoned text column's would
    zoned: bool = False
    #: whether ``values`` are the seconds of a duration (a DataFrame's timedelta, a Parquet INTERVAL): public, as the
    #: dtype is
    duration: bool = False
    #: whether the dtype cannot hold a NULL (a DataFrame's numpy integers and booleans): public, as the dtype is; the
    #: draft then gives the column no NULL bucket, whatever its noisy profile (about 18 % of such drafts got one)
    never_null: bool = False

    @property
    def n(self) -> int:
        return len(self.values)

    def datetimes(self, kind: str) -> np.ndarray:
        """The values a column of ``kind`` reads: a date column the wall clock's, any other the UTC instants."""
        return self.wall if kind == "date" and self.wall is not None else self.values


# ------------------------------------------------------------------------- text
def as_text(value: object) -> str | None:
    """The text of one distinct value (None for a typed NULL): what categories and tokens are matched on."""
    if value is None or value is np.ma.masked or type(value).__name__ in ("NAType", "NaTType"):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (bool, np.bool_)):
        return "true" if value else "false"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        x = float(value)
        if math.isnan(x):
            return None
        return str(int(x)) if x.is_integer() and abs(x) < 2**63 else repr(x)
    if isinstance(value, (datetime, date)):
        return value.isoformat()
    if isinstance(value, np.datetime64):
        return None if np.isnat(value) else str(value)
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value)


def texts(uniques: np.ndarray, *, strip: bool) -> np.ndarray:
    """Text of each distinct value (object array; None for typed NULLs), stripped when asked."""
    out = np.empty(len(uniques), dtype=object)
    for i, value in enumerate(uniques):  # per distinct value, not per row
        text = as_text(value)
        out[i] = text.strip() if (strip and text is not None) else text
    return out


# ---------------------------------------------------------------------- numbers
def parse_floats(text: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Floats of text values; ``ok`` is False where a value is not a number. NaN means NULL (ok)."""
    values = np.full(len(text), np.nan)
    ok = np.zeros(len(text), dtype=bool)
    present = np.array([t is not None for t in text], dtype=bool)
    candidates = text[present]
    try:
        parsed = candidates.astype(np.float64)  # fast path: every value parses
        good = np.ones(len(candidates), dtype=bool)
    except (ValueError, TypeError):
        parsed = np.full(len(candidates), np.nan)
        good = np.zeros(len(candidates), dtype=bool)
        for i, t in enumerate(candidates):  # only when some distinct value does not parse
            try:
                parsed[i] = float(t)
                good[i] = True
            except (ValueError, TypeError):
                pass
    values[present] = parsed
    ok[present] = good
    return values, ok


def whole_to_int(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integers of whole finite floats (int64, exact below 2^53; 0 beyond 2^62); ``whole`` marks them."""
    finite = np.isfinite(values)
    whole = finite & (values == np.floor(np.where(finite, values, 0)))
    fits = whole & (np.abs(np.where(finite, values, 0)) < 2.0**62)
    out = np.zeros(len(values), dtype=np.int64)
    out[fits] = values[fits].astype(np.int64)
    return out, whole


# ------------------------------------------------------------------------ dates
def parse_iso(text: str, unit: str) -> int | None:
    """An ISO 8601 date or datetime as an integer count of ``unit`` ('D' days or 's' seconds) since
    1970-01-01 UTC, floored; None if the text is not ISO 8601. Seconds are the UTC instant (an offset is applied);
    days are the date as written (the time of day and any offset dropped: 2024-02-01T00:30+01:00 is February 1,
    as a zoned DataFrame's date is its zone's)."""
    match = _ISO.match(text.strip())
    if match is None:
        return None
    day, clock, zone = match.groups()
    try:
        stamp = np.datetime64(day if clock is None else f"{day}T{clock}", "s")
    except ValueError:
        return None
    seconds = int(stamp.astype(np.int64))
    if unit == "D":
        return seconds // 86400
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        digits = zone[1:].replace(":", "")
        seconds -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return seconds


#: What each strptime directive of a date or datetime column's ``format`` reads: (field, pattern). Numeric fields,
#: English month names, AM/PM (case-insensitive), a fraction of a second (floored away) and a literal %. No zone (values
#: are UTC, as ISO text without an offset) and no weekday (it says nothing the date does not). ASCII digits only.
MONTH_NAMES = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december")
FORMAT_FIELDS = {"Y": ("y", "([0-9]{4})"), "y": ("yy", "([0-9]{2})"), "m": ("mo", "([0-9]{1,2})"),
                 "b": ("mon", f"({'|'.join(m[:3] for m in MONTH_NAMES)})"),
                 "B": ("month", f"({'|'.join(MONTH_NAMES)})"),
                 "d": ("d", "([0-9]{1,2})"), "H": ("h", "([0-9]{1,2})"), "I": ("h12", "([0-9]{1,2})"),
                 "M": ("mi", "([0-9]{1,2})"), "S": ("s", "([0-9]{1,2})"), "p": ("p", "(am|pm)"),
                 "f": (None, "[0-9]{1,9}")}


def format_problem(text_format: object) -> str | None:
    """What is wrong with a column's ``format`` (None: nothing): a string of :data:`FORMAT_FIELDS` directives
    naming the year, the month and the day once each, with %I and %p together or not at all."""
    if not isinstance(text_format, str) or not text_format.strip():
        return f"format must be a non-empty strptime pattern such as '%m/%d/%Y', got {text_format!r:.100}"
    directives = re.findall(r"%(.?)", text_format.replace("%%", ""))
    bad = [f"%{c}" for c in directives if c not in FORMAT_FIELDS]
    if bad:
        return (f"format {text_format!r:.100} uses {bad[0] if bad[0] != '%' else 'a lone %'}; a format may use "
                f"{' '.join('%' + c for c in FORMAT_FIELDS)} and %%")
    named = [FORMAT_FIELDS[c][0] for c in directives if FORMAT_FIELDS[c][0] is not None]
    year, month = {"y", "yy"} & set(named), {"mo", "mon", "month"} & set(named)
    if len(named) != len(set(named)) or len(year) > 1 or len(month) > 1:
        return f"format {text_format!r:.100} names a field twice"
    if not (year and month) and not (time_of_day(text_format) and not (year or month or "d" in named)):
        return (f"format {text_format!r:.100} must name the year (%Y or %y) and the month (%m, %b or %B), with the "
                "day (%d) or without (the 1st), or be a time of day alone naming the hour (%H, or %I with %p) and the "
                "minute (%M)")
    if ("h12" in named) != ("p" in named) or ("h12" in named and "h" in named):
        return f"format {text_format!r:.100} must use %I (12-hour clock) with %p (AM/PM), and not with %H"
    return None


@functools.lru_cache(maxsize=256)  # public format strings; asked once a decoded value in label mode
def time_of_day(text_format: str) -> bool:
    """Whether a format names no date, only a time of day (hour and minute, and maybe seconds): ``"%H:%M"``,
    ``"%I:%M %p"``. Such values are read as that time on 1970-01-01 (UTC), as a clock reads a day, and written back
    as the time alone."""
    directives = re.findall(r"%(.?)", text_format.replace("%%", ""))
    named = {FORMAT_FIELDS[c][0] for c in directives if c in FORMAT_FIELDS and FORMAT_FIELDS[c][0] is not None}
    return not named & {"y", "yy", "mo", "mon", "month", "d"} and "mi" in named and bool(named & {"h", "h12"})


def format_regex(text_format: str) -> tuple[str, dict[str, int]]:
    """The regular expression (without anchors or flags; the same for Python, DuckDB and Spark) that a value written
    in ``text_format`` matches, and the group of each field it names. Literal characters match themselves
    (punctuation as ``\\xHH``, which all three read alike)."""
    parts, groups, i = [], {}, 0
    while i < len(text_format):
        c = text_format[i]
        if c == "%" and text_format[i + 1] != "%":
            field, pattern = FORMAT_FIELDS[text_format[i + 1]]
            if field is not None:
                groups[field] = len(groups) + 1
            parts.append(pattern)
            i += 2
            continue
        i += 2 if c == "%" else 1
        parts.append(c if c.isalnum() or c == " " or ord(c) > 127 else f"\\x{ord(c):02x}")
    return "".join(parts), groups


#: Two-digit years (%y) as POSIX and Python's strptime read them: 69-99 in the 1900s, 00-68 in the 2000s.
TWO_DIGIT_PIVOT = 69


def _iso_of_fields(match: re.Match, groups: dict[str, int]) -> str | None:
    """The ISO text (YYYY-MM-DDTHH:MM:SS) of one formatted value's fields, for :func:`parse_iso` to check (as the
    engines check theirs with the same rules); None where a 12-hour clock reads 0 or above 12."""
    get = lambda field, default=0: int(match.group(groups[field])) if field in groups else default  # noqa: E731
    if not groups.keys() & {"y", "yy", "mo", "mon", "month", "d"}:  # a time of day alone: on 1970-01-01
        year, month = 1970, 1
    elif "y" in groups:
        year = get("y")
    else:
        year = get("yy") + (1900 if get("yy") >= TWO_DIGIT_PIVOT else 2000)
    if not groups.keys() & {"mo", "mon", "month"}:
        month = 1
    elif "mo" in groups:
        month = get("mo")
    else:
        name = match.group(groups["mon" if "mon" in groups else "month"]).lower()
        month = [m[:len(name)] for m in MONTH_NAMES].index(name) + 1
    hour = get("h")
    if "h12" in groups:
        if not 1 <= get("h12") <= 12:
            return None
        hour = get("h12") % 12 + (12 if match.group(groups["p"]).lower() == "pm" else 0)
    return f"{year:04d}-{month:02d}-{get('d', 1):02d}T{hour:02d}:{get('mi'):02d}:{get('s'):02d}"


def parse_formatted_times(text: np.ndarray, text_format: str, unit: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer days ('D') or seconds ('s') since the epoch of text written in ``text_format`` (read as UTC; a time
    of day is floored away for days); ``ok`` marks those that parse. The engines read the same fields with the same
    regular expression (:func:`format_regex`) and check them by the same rules."""
    body, groups = format_regex(text_format)
    # ASCII case-insensitivity, as Java's (?i): Python's own would match "Auguſt" (a long s) and fail to name it
    pattern = re.compile(rf"\A{body}\Z", re.IGNORECASE | re.ASCII)
    values = np.zeros(len(text), dtype=np.int64)
    ok = np.zeros(len(text), dtype=bool)
    for i, t in enumerate(text):  # per distinct value
        match = None if t is None else pattern.match(t.strip())
        iso = None if match is None else _iso_of_fields(match, groups)
        parsed = None if iso is None else parse_iso(iso, unit)
        if parsed is not None:
            values[i], ok[i] = parsed, True
    return values, ok


def format_times(values: np.ndarray, text_format: str) -> np.ndarray:
    """datetime64 values written in ``text_format``, as object text: each field zero-padded (%Y four digits, %y two,
    the others two; %f six zeros), month names in English with a capital (Oct, October), AM/PM. Written here, not by
    strftime, whose month names follow the locale and whose years below 1000 or 1 it writes short or refuses: what
    :func:`parse_formatted_times` reads back, for every date the schema can hold."""
    iso = np.datetime_as_string(values.astype("datetime64[s]"), unit="s")
    out = []
    for text in iso:
        if text == "NaT":  # a NULL's place: its caller writes the NULL token there
            out.append("")
            continue
        year, month, day, hour, minute, second = (int(text[0:4]), int(text[5:7]), int(text[8:10]), int(text[11:13]),
                                                  int(text[14:16]), int(text[17:19]))
        fields = {"Y": f"{year:04d}", "y": f"{year % 100:02d}", "m": f"{month:02d}", "d": f"{day:02d}",
                  "H": f"{hour:02d}", "I": f"{(hour - 1) % 12 + 1:02d}", "M": f"{minute:02d}", "S": f"{second:02d}",
                  "p": "AM" if hour < 12 else "PM", "b": MONTH_NAMES[month - 1][:3].title(),
                  "B": MONTH_NAMES[month - 1].title(), "f": "000000", "%": "%"}
        out.append(re.sub("%(.)", lambda directive: fields[directive.group(1)], text_format))
    return np.array(out, dtype=object)


def parse_times(text: np.ndarray, unit: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer days ('D') or seconds ('s') since the epoch of ISO text; ``ok`` marks those that parse."""
    values = np.zeros(len(text), dtype=np.int64)
    ok = np.zeros(len(text), dtype=bool)
    for i, t in enumerate(text):  # per distinct value
        if t is None:
            continue
        parsed = parse_iso(t, unit)
        if parsed is not None:
            values[i], ok[i] = parsed, True
    return values, ok


def datetimes_to_int(values: np.ndarray, unit: str) -> np.ndarray:
    """datetime64 values as integer days or seconds since the epoch, floored (NaT left as the minimum)."""
    return values.astype(f"datetime64[{unit}]").astype(np.int64)


# --------------------------------------------------------------------- booleans
def parse_booleans(text: np.ndarray, true: tuple[str, ...], false: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """1 for a true word, 0 for a false word (without case); ``ok`` marks the values that are either."""
    values = np.zeros(len(text), dtype=np.int64)
    ok = np.zeros(len(text), dtype=bool)
    true_set, false_set = set(true), set(false)
    for i, t in enumerate(text):  # per distinct value
        if t is None:
            continue
        word = t.lower()
        if word in true_set:
            values[i], ok[i] = 1, True
        elif word in false_set:
            ok[i] = True
    return values, ok


# ------------------------------------------------------------------ value kinds
#: What a value looks like, for drafting a schema: its class, in order of precedence. ``grouped`` is a number
#: written with "," grouping its thousands or with a sign (1,234.50, $99, 12%), ``comma`` one with a decimal comma
#: (3,5, 1.234,5): they read as numbers with ``"thousands": ","`` or ``"decimal": ","``.
#: ``yes/no`` is a boolean written as yes, no, y or n, ``boolean`` one written as true, false, t or f (or typed); the
#: classes after ``yes/no`` are the same words as a table spells them (True/False, Y/N, ...): a drafted boolean writes
#: back the spelling most of its values use. A word in none of those spellings (tRUE) counts as its family's lower case.
#: ``date time`` is an ISO date-time written with a space for its ``T`` (2023-07-27 05:58:00, as pandas and SQL
#: exports write it), ``datetime zoned`` and ``date time zoned`` the same with a UTC offset (2024-01-17T15:49:38+01:00,
#: ...Z): a drafted datetime column writes back the separator and the offset (or none) most of its values use.
#: Then five classes of dates written another way than ISO, each with a four-digit year, with or without a time of day
#: (:data:`TIME_VARIANTS`): ``d.m.Y`` (31.03.2022, day first, as every table that writes dates with dots does),
#: ``Y/m/d`` (2022/03/31), and slashes with the year last, by what the value itself shows: ``d/m/Y`` where the first
#: field is above 12 (31/03/2022), ``m/d/Y`` where the second is (03/31/2022), ``a/b/Y`` where both are 12 or less
#: and the value reads either way (03/04/2022); ``time`` is a time of day alone (14:05, 2:05 PM). Last, a decimal
#: number written with one place (3.5) or two (16.10) has a class of its own, ``decimal .0`` and ``decimal .00``
#: (``decimal`` is three places or more, an exponent, or a typed float): the profile's one histogram then says how many
#: places a column writes, at no further cost (session 63).
CLASSES = ("null", "boolean", "integer", "decimal", "date", "datetime", "text", "grouped", "comma", "yes/no",
           "True/False", "TRUE/FALSE", "t/f", "T/F", "Yes/No", "YES/NO", "y/n", "Y/N", "date time",
           "datetime zoned", "date time zoned", "d.m.Y", "Y/m/d", "d/m/Y", "m/d/Y", "a/b/Y", "time",
           "decimal .0", "decimal .00", "Y-m", "m/Y", "ja/nein", "Ymd", "1900-2099", "datetime hh:mm",
           "date time hh:mm", "0-led", "missing")
C_NULL, C_BOOLEAN, C_INTEGER, C_DECIMAL, C_DATE, C_DATETIME, C_TEXT, C_GROUPED, C_COMMA, C_YESNO = range(10)
C_DATETIME_SPACED = CLASSES.index("date time")
C_DATETIME_ZONED = CLASSES.index("datetime zoned")
C_DATETIME_SPACED_ZONED = CLASSES.index("date time zoned")
C_DOTTED_DATE, C_YEAR_FIRST_DATE, C_DAY_FIRST_DATE, C_MONTH_FIRST_DATE, C_SLASH_DATE, C_TIME = range(
    CLASSES.index("d.m.Y"), CLASSES.index("time") + 1)
C_DECIMAL_1, C_DECIMAL_2 = CLASSES.index("decimal .0"), CLASSES.index("decimal .00")
#: A month written without its day: 2023-05 (year first with a dash, as billing periods are) and 05/2023 (month first
#: with a slash, as card expiries are); session 63.
C_YEAR_MONTH, C_MONTH_YEAR = CLASSES.index("Y-m"), CLASSES.index("m/Y")
#: Yes and no in another language than English, in any case (:data:`LOCAL_TRUE_WORDS`, :data:`LOCAL_FALSE_WORDS`):
#: a German, Dutch, Scandinavian, French, Spanish, Italian, Portuguese or Polish export's flags; session 65.
C_LOCAL_YESNO = CLASSES.index("ja/nein")
#: A date written as eight digits, year first (20240301: mainframe, SAS and SAP exports), a real day in 1900-2099;
#: session 65. Any other whole number stays an integer.
C_COMPACT_DATE = CLASSES.index("Ymd")
_COMPACT_DATE = re.compile(r"(19|20)\d{6}")
#: A whole number from 1900 to 2099: where such numbers hold most of a column's whole numbers it is years (births,
#: policy years), and the bounds' cells there are a year each; else (durations in seconds, rents in dollars that run
#: through 1900-2099 on their way up) a century or a thousand, whose one noise draw sees what a hundred years' sum
#: cannot (session 70).
C_YEAR_NUMBER = CLASSES.index("1900-2099")
#: The whole numbers' classes: an eight-digit date is a whole number too, where a column is not all dates.
INTEGER_CLASSES = (C_INTEGER, C_COMPACT_DATE, C_YEAR_NUMBER)
#: The decimal numbers' classes, by the places they are written with: one, two, and the rest.
DECIMAL_CLASSES = (C_DECIMAL_1, C_DECIMAL_2, C_DECIMAL)
#: The format each class of dates written another way reads by, and the classes a format reads (``a/b/Y`` reads by
#: either slash format; alone it says neither); "" is a time of day alone (14:05), whose clock is all its format.
DATE_FORMAT_CLASSES = {"%d.%m.%Y": (C_DOTTED_DATE,), "%Y/%m/%d": (C_YEAR_FIRST_DATE,),
                       "%d/%m/%Y": (C_DAY_FIRST_DATE, C_SLASH_DATE), "%m/%d/%Y": (C_MONTH_FIRST_DATE, C_SLASH_DATE),
                       "": (C_TIME,), "%Y-%m": (C_YEAR_MONTH,), "%m/%Y": (C_MONTH_YEAR,), "%Y%m%d": (C_COMPACT_DATE,)}
#: The formats of months written without a day: no time of day follows them.
MONTH_FORMATS = ("%Y-%m", "%m/%Y")
#: The found formats no time of day follows (a month alone; eight digits, 20240301).
CLOCKLESS_FORMATS = (*MONTH_FORMATS, "%Y%m%d")
#: ISO date-times written to the minute without an offset (2023-07-27 05:58, as tills and booking systems export
#: them), with a ``T`` or a space: a drafted datetime column writes back the precision most of its values use
#: (session 78). Two classes, not four: each class costs every column's test of stray rows some power
#: (:func:`~dprelease.schema.draft.has_stray`), and a time written to the minute with an offset is rare (it keeps the
#: zoned classes, and its seconds).
C_MINUTES, C_MINUTES_SPACED = CLASSES.index("datetime hh:mm"), CLASSES.index("date time hh:mm")
MINUTE_CLASSES = (C_MINUTES, C_MINUTES_SPACED)
#: A whole number written with a leading zero and no sign (02134, 007): a code written to a fixed width, a postcode or
#: an account. Text to a number kind, which would lose its zeros; where whole numbers without one stand out beside it
#: (US ZIP codes, 8 % of which start with 0; German postcodes, 9 %), the column is an integer column written with its
#: ``digits`` (session 79). Signed ones (-01) stay ``text``.
C_LEADING_ZERO = CLASSES.index("0-led")
#: A word that tables write for a missing value (:data:`MISSING_WORDS`: NA, N/A, null, None, -, ?, .): R's
#: ``write.csv`` writes NA in every blank cell, SAS a dot. In a column of numbers, dates or booleans it is a blank (the
#: draft reads them so: ``null_tokens``); in a text column it stays a value (Adult's ``?``, a smoker's ``None``).
#: Session 80: a BMI column exported from R, 20 % NA, was drafted as the one category NA, every number other.
C_MISSING_WORD = CLASSES.index("missing")
#: The spellings of :data:`C_MISSING_WORD`, as written (a column's ``null_tokens`` lists them: matching is exact).
MISSING_WORDS = ("NA", "na", "N/A", "n/a", "N/a", "#N/A", "NULL", "null", "Null", "None", "none", "NONE", "nil", "NIL",
                 "missing", "Missing", "MISSING", "-", "--", "?", ".")
_MISSING_SPELLINGS = frozenset(MISSING_WORDS)
#: The date-time classes: every one reads as a datetime; by the character between date and time, by an offset, and
#: by whether the seconds are written.
DATETIME_CLASSES = (C_DATETIME, C_DATETIME_SPACED, C_DATETIME_ZONED, C_DATETIME_SPACED_ZONED, *MINUTE_CLASSES)
SPACED_CLASSES = (C_DATETIME_SPACED, C_DATETIME_SPACED_ZONED, C_MINUTES_SPACED)
ZONED_CLASSES = (C_DATETIME_ZONED, C_DATETIME_SPACED_ZONED)
#: Each boolean class's spelling: (its true word, its false word), as written back.
BOOLEAN_SPELLINGS = {C_BOOLEAN: ("true", "false"), C_YESNO: ("yes", "no"),
                     **{c: tuple(CLASSES[c].split("/")) for c in range(C_YESNO + 1, C_DATETIME_SPACED)}}
_SPELLING_CLASS = {word: c for c, words in BOOLEAN_SPELLINGS.items() for word in words}
_TRUE_FALSE_WORDS = {"true", "false", "t", "f"}
_YES_NO_WORDS = {"yes", "no", "y", "n"}
#: Yes and no in other languages (public), lower case; "no" and "n" (Spanish, Italian, German J/N) are English's too.
LOCAL_TRUE_WORDS = ("ja", "j", "oui", "s\u00ed", "si", "s\u00ec", "sim", "tak")
LOCAL_FALSE_WORDS = ("nein", "nee", "nej", "nei", "non", "n\u00e3o", "nao", "nie")
#: The spellings a column of local words may be written back in (:func:`~dprelease.schema.draft._local_boolean`):
#: (true, false) pairs, lower case; each is also tried capitalized and in upper case.
LOCAL_SPELLINGS = (("ja", "nein"), ("ja", "nee"), ("ja", "nej"), ("ja", "nei"), ("j", "n"), ("oui", "non"),
                   ("s\u00ed", "no"), ("si", "no"), ("s\u00ec", "no"), ("sim", "n\u00e3o"), ("sim", "nao"),
                   ("tak", "nie"), ("yes", "no"))
_LOCAL_WORDS = set(LOCAL_TRUE_WORDS) | set(LOCAL_FALSE_WORDS)
#: Every class of boolean words: the spellings of true/false and yes/no, and the local words.
BOOLEAN_CLASSES = (*BOOLEAN_SPELLINGS, C_LOCAL_YESNO)
#: A number written with a zero before another digit (02134, 007, -01): a code, not a quantity.
_LEADING_ZERO = re.compile(r"[+-]?0[0-9]")
#: The signs a drafted number column may carry (public): a column of grouped or comma numbers declares them all.
DRAFT_SYMBOLS = ("$", "\u20ac", "\u00a3", "\u00a5", "%")
_PLAIN_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
_US_GROUPED = re.compile(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?")
#: A number with a decimal comma, its thousands grouped by dots or by spaces (1.234,5; 1 234,5 with a space, a no-break
#: or a narrow no-break space, as French and Nordic spreadsheets write it: a decimal comma reads both).
_DECIMAL_COMMA = re.compile(r"[+-]?(\d{1,3}(\.\d{3})+|\d{1,3}([ \u00a0\u202f]\d{3})+|\d+)(,\d+)?")


#: A date written another way than ISO, and an optional time of day after one space: 14:05, 14:05:33, 2:05 PM or
#: 2:05:33 PM (US open data and spreadsheets write 12/1/2010 8:26 or 01/01/2019 12:00:00 AM). A year written last may
#: have two digits (31.03.22, 3/31/22: German and US spreadsheet exports), read by :data:`TWO_DIGIT_PIVOT`.
_WRITTEN_DATE = re.compile(r"(?:(\d{1,2})([./])(\d{1,2})\2(\d{4}|\d{2})|(\d{4})/(\d{1,2})/(\d{1,2}))"
                           r"(?: (\d{1,2}):(\d{2})(:\d{2})?( [AaPp][Mm])?)?")
#: The times of day a date written another way may carry, as the format's tail: none, or one of four clocks. The
#: profile's date classes hold them all; a draft tells them apart with a second histogram (:func:`time_variants`).
TIME_VARIANTS = ("", " %H:%M", " %H:%M:%S", " %I:%M %p", " %I:%M:%S %p")


def _is_compact_date(text: str) -> bool:
    """Whether ``text`` is eight digits naming a real day in 1900-2099, year first (20240301)."""
    return _COMPACT_DATE.fullmatch(text) is not None and _is_date(text[:4], text[4:6], text[6:])


def _is_date(year: str, month: str, day: str) -> bool:
    full_year = int(year) if len(year) != 2 else int(year) + (1900 if int(year) >= TWO_DIGIT_PIVOT else 2000)
    return parse_iso(f"{full_year:04d}-{int(month):02d}-{int(day):02d}", "D") is not None


#: A time of day alone, on one of the four clocks: 14:05, 14:05:33, 2:05 PM, 2:05:33 PM.
_TIME_ONLY = re.compile(r"(\d{1,2}):(\d{2})(:\d{2})?( [AaPp][Mm])?")


def _time_variant(match: re.Match, first: int = 8) -> int | None:
    """The index in :data:`TIME_VARIANTS` of a written date's time of day (its groups from ``first``: hour, minute,
    seconds, AM/PM), or None where it names no time (25:00, 0:30 PM, 12:61)."""
    hour, minute, second, half = match.group(first, first + 1, first + 2, first + 3)
    if hour is None:
        return 0
    if int(minute) > 59 or (second is not None and int(second[1:]) > 59):
        return None
    if not (1 <= int(hour) <= 12 if half else int(hour) <= 23):
        return None
    return (3 if half else 1) + (second is not None)


def time_variants(text: np.ndarray) -> np.ndarray:
    """For each distinct text value, 1 + the index in :data:`TIME_VARIANTS` of its time of day where it is a date
    written another way (:func:`written_date_class`) or a time of day alone, plus ``len(TIME_VARIANTS)`` where the
    date's year has two digits (31.03.22), else 0: 1 + 2 len(TIME_VARIANTS) cells."""
    out = np.zeros(len(text), dtype=np.int64)
    for i, t in enumerate(text):
        stripped = None if t is None else t.strip()
        match = None if stripped is None else _WRITTEN_DATE.fullmatch(stripped)
        variant = None if match is None else _time_variant(match)
        if variant is not None and _date_class(match) != C_TEXT:
            out[i] = 1 + variant + (len(TIME_VARIANTS) if len(match.group(4) or "") == 2 else 0)
        elif stripped is not None and (alone := _TIME_ONLY.fullmatch(stripped)) is not None:
            variant = _time_variant(alone, first=1)
            out[i] = 0 if variant is None else 1 + variant
    return out


def written_date_class(text: str) -> int:
    """The class of a date written another way than ISO, with or without a time of day (the five from ``d.m.Y``), or
    of a month written without its day (``Y-m``, ``m/Y``), or C_TEXT: a value whose fields name no real day, month or
    time (31.02.2022, 13/13/2022, 1/2/2022 25:00, 2023-13) is text."""
    match = _WRITTEN_DATE.fullmatch(text)
    if match is None:
        return _month_class(text)
    if _time_variant(match) is None:
        return C_TEXT
    return _date_class(match)


_YEAR_MONTH = re.compile(r"(\d{4})-(\d{2})")
_MONTH_YEAR = re.compile(r"(\d{1,2})/(\d{4})")


def _month_class(text: str) -> int:
    """C_YEAR_MONTH for 2023-05, C_MONTH_YEAR for 05/2023 or 5/2023 (a month 1-12, a year 1000-2999), else C_TEXT."""
    if (match := _YEAR_MONTH.fullmatch(text)) is not None:
        year, month, found = match.group(1), match.group(2), C_YEAR_MONTH
    elif (match := _MONTH_YEAR.fullmatch(text)) is not None:
        month, year, found = match.group(1), match.group(2), C_MONTH_YEAR
    else:
        return C_TEXT
    return found if 1 <= int(month) <= 12 and 1000 <= int(year) <= 2999 else C_TEXT


def _date_class(match: re.Match) -> int:
    """:func:`written_date_class` of a value :data:`_WRITTEN_DATE` matched: its class by the day it names."""
    first, mark, second, year, year_first, month, day = match.groups()[:7]
    if year_first is not None:
        return C_YEAR_FIRST_DATE if _is_date(year_first, month, day) else C_TEXT
    day_first, month_first = _is_date(year, second, first), _is_date(year, first, second)
    if mark == ".":
        return C_DOTTED_DATE if day_first else C_TEXT
    if day_first and month_first:
        return C_SLASH_DATE
    return C_DAY_FIRST_DATE if day_first else C_MONTH_FIRST_DATE if month_first else C_TEXT


def written_number_class(text: str) -> int:
    """C_GROUPED, C_COMMA or C_TEXT for a text that is not a plain number: $1,234.50 and 12% are grouped, 3,5 and
    1.234,5 comma. 1,234 reads both ways and counts as grouped (a decimal comma rarely has three digits)."""
    bare = text
    for symbol in DRAFT_SYMBOLS:
        bare = bare.replace(symbol, "")
    bare = bare.strip()
    signed = bare != text.strip()
    if _US_GROUPED.fullmatch(bare) or (signed and _PLAIN_NUMBER.fullmatch(bare)):
        return C_GROUPED
    if _DECIMAL_COMMA.fullmatch(bare) and ("," in bare or bare.count(".") > 1 or signed):
        return C_COMMA
    return C_TEXT


def classify(text: np.ndarray, null_tokens: tuple[str, ...]) -> np.ndarray:
    """The class of each distinct text value (None is NULL): null, boolean word, integer, decimal number,
    ISO date, ISO date-time (with a T, or a space; with a UTC offset or without), a date written another way
    (31.03.2022, 2022/03/31, 31/03/2022, 03/31/2022), a number written with signs or a decimal comma, or other text
    (a whole number written with a leading zero, 02134, has a class of its own: a code written to a width; signed
    or fractional, -01 or 00.5, it is text; so has a word written for a missing value, NA or N/A)."""
    tokens = set(null_tokens)
    out = np.full(len(text), C_TEXT, dtype=np.int64)
    floats, numeric = parse_floats(text)
    _, whole = whole_to_int(floats)
    for i, t in enumerate(text):  # per distinct value
        if t is None or t in tokens or (numeric[i] and np.isnan(floats[i])):
            out[i] = C_NULL
        elif t.strip() in _MISSING_SPELLINGS:
            out[i] = C_MISSING_WORD
        elif t in _SPELLING_CLASS:
            out[i] = _SPELLING_CLASS[t]
        elif t.lower() in _TRUE_FALSE_WORDS:
            out[i] = C_BOOLEAN
        elif t.lower() in _YES_NO_WORDS:
            out[i] = C_YESNO
        elif t.strip().lower() in _LOCAL_WORDS:
            out[i] = C_LOCAL_YESNO
        elif numeric[i] and _LEADING_ZERO.match(t.strip()):
            # 02134, 007: a code (a postcode, an account), whose zeros a number would lose
            out[i] = C_LEADING_ZERO if t.strip().isascii() and t.strip().isdigit() else C_TEXT
        elif numeric[i] and _is_compact_date(t.strip()):
            out[i] = C_COMPACT_DATE  # 20240301: a date, whose bins as a number would decode 20231399
        elif numeric[i]:
            out[i] = (C_YEAR_NUMBER if 1900 <= floats[i] <= 2099 else C_INTEGER) \
                if whole[i] and not _FIXED_PLACES.search(t) else _decimal_class(t)
        else:
            match = _ISO.match(t.strip())
            if match is not None and parse_iso(t, "s") is not None:
                if match.group(2) is None:
                    out[i] = C_DATE
                else:
                    spaced, zoned = t.strip()[10] == " ", match.group(3) is not None
                    out[i] = ((C_DATETIME_SPACED_ZONED if zoned else C_DATETIME_SPACED) if spaced else
                              (C_DATETIME_ZONED if zoned else C_DATETIME))
                    if len(match.group(2)) == 5 and not zoned:  # 05:58, no seconds: the class to the minute
                        out[i] = C_MINUTES_SPACED if spaced else C_MINUTES
            elif len(t) <= 64 and any(c.isdigit() for c in t):
                out[i] = written_date_class(t.strip())
                if out[i] == C_TEXT and (alone := _TIME_ONLY.fullmatch(t.strip())) is not None:
                    out[i] = C_TIME if _time_variant(alone, first=1) is not None else C_TEXT
                if out[i] == C_TEXT:
                    out[i] = written_number_class(t)
    return out


#: A whole number written with two or more places (0.00, 12.000): a fixed-point amount, whose column is decimals
#: (session 81: late fees $0.00 on 81 % of 2,000 rows and $0.25-$9.75 on the rest were drafted as integers 0..0,
#: the fractions too few to stand out, and the table then would not encode). One place (3.0) stays a whole number:
#: pandas writes a column of integers with a blank that way.
_FIXED_PLACES = re.compile(r"\.00+\s*$")


def _decimal_class(text: str) -> int:
    """A decimal number's class by the places it is written with (3.5, 16.10; 1e-05 and 0.125 are ``decimal``)."""
    _, _, fraction = text.strip().partition(".")
    places = len(fraction) if fraction.isdigit() else 0
    return {1: C_DECIMAL_1, 2: C_DECIMAL_2}.get(places, C_DECIMAL)


def float_places(stored: np.ndarray, most: int) -> np.ndarray:
    """The fewest decimal places, 0 .. ``most`` - 1, that give each float back in its own precision (a 4-byte float,
    Parquet's FLOAT or a float32 frame, holds 8.1 as 8.100000381 in a double), else ``most`` (more places, or not
    finite). A function of each value alone."""
    stored = np.asarray(stored)
    values = stored.astype(np.float64)
    narrow = stored.dtype if stored.dtype.kind == "f" and stored.dtype.itemsize < 8 else None
    out = np.full(len(values), most, dtype=np.int64)
    for place in range(most - 1, -1, -1):
        rounded = np.round(values, place)
        with np.errstate(over="ignore", invalid="ignore"):
            same = rounded.astype(narrow) == stored if narrow is not None else \
                np.isclose(rounded, values, rtol=0, atol=1e-9)
        out = np.where(np.isfinite(values) & same, place, out)
    return out


def typed_classes(values: np.ndarray, zoned: bool = False) -> np.ndarray | int:
    """The class of each value of a typed column, as :func:`classify` gives text's: a whole float is an integer
    (4.0 as "4.0"; pandas stores an integer column with blanks as floats), a datetime at midnight a date
    (``parse_dates`` stores dates as datetimes), and a ``zoned`` one's others zoned datetimes; a whole number from
    1900 to 2099 is ``1900-2099``. Other dtypes have one class, returned as an int. Privacy: the draft's
    profile (a histogram of the classes, L1 sensitivity 2) needs each row's class to be a function of that row alone;
    a dtype is a function of the whole column (one blank makes pandas' int64 column float64), so it may decide a
    class only where every value of the kind has the same class."""
    kind = values.dtype.kind
    if kind in "fiu":  # a whole number's class by its value alone: years (1900-2099) or not
        with np.errstate(invalid="ignore"):
            year = (values >= 1900) & (values <= 2099)
        whole_class = np.where(year, C_YEAR_NUMBER, C_INTEGER)
        if kind != "f":
            return whole_class
        # a fraction's class by the places that give it back, as its text's (6.7: "decimal .0"): a DataFrame's scores
        # came back 8.441 where the table had 6.7, its one class hiding the places (session 78)
        places = float_places(values, 3)
        decimal = np.select([places == 1, places == 2], [C_DECIMAL_1, C_DECIMAL_2], C_DECIMAL)
        return np.where(whole_to_int(values)[1], whole_class, decimal)
    if kind == "M":
        days = values.astype("datetime64[D]")
        # NaT is neither (a NULL; the caller masks it); a zoned dtype's instants count as text with an offset would
        return np.where(days == values, C_DATE, C_DATETIME_ZONED if zoned else C_DATETIME)
    return {"b": C_BOOLEAN}.get(kind, C_TEXT)
