"""Column kinds of a public schema that need no bins: integer codes, categories, booleans.

Every column turns its values into codes ``0 .. size-1``: first its own values (categories, bins),
then, when declared, the ``null`` bucket (a missing value), then the ``other`` bucket (a value the
column cannot place). The binned kinds (integer, numeric, date, datetime) are in
:mod:`dprelease.schema.binned`.

Every check here reads the schema only (public), never a record, and names the column and quotes
the bad public value in one line.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field

import numpy as np

from dprelease.errors import InputError, InputTypeError

#: What a decoded ``other`` code becomes in a text cell (documented in docs/schema.md). No category
#: may equal it, so encoding the marker gives ``other`` back.
OTHER = "<other>"

#: The most codes one column may have (a histogram axis); far above any useful marginal.
MAX_CODES = 1_000_000

#: Default words of a boolean column (compared without case, after stripping).
TRUE_WORDS = ("true", "t", "yes", "y", "1")
FALSE_WORDS = ("false", "f", "no", "n", "0")


def where(name: str) -> str:
    return f"schema column {name!r}"


def check_flag(value: object, field: str, name: str) -> bool:
    if not isinstance(value, bool):
        raise InputTypeError(f"{where(name)}: {field} must be true or false, got {value!r}")
    return value


def check_tokens(value: object, field: str, name: str) -> tuple[str, ...] | None:
    """A list of strings (text that means NULL, or a boolean's words), or None for the default."""
    if value is None:
        return None
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise InputTypeError(f"{where(name)}: {field} must be a list of strings, got {value!r}")
    for token in value:
        if not isinstance(token, str):
            raise InputTypeError(f"{where(name)}: {field} must be a list of strings, got the item {token!r}")
    if len(set(value)) != len(value):
        raise InputError(f"{where(name)}: {field} lists a string twice: {list(value)!r}")
    return tuple(value)


@dataclass(frozen=True, slots=True, kw_only=True)
class Column:
    """What every column kind has: a name, and optional ``null`` and ``other`` buckets.

    ``null_tokens``: text that means NULL in this column (default: the schema's, itself by default
    the empty cell only). Typed NULLs (NaN, None, pandas NA, NaT) are always NULL.
    """

    name: str
    null: bool = False
    other: bool = False
    null_tokens: tuple[str, ...] | None = None

    kind = "column"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InputTypeError(f"schema column names must be non-empty strings, got {self.name!r}")
        check_flag(self.null, "null", self.name)
        check_flag(self.other, "other", self.name)
        object.__setattr__(self, "null_tokens", check_tokens(self.null_tokens, "null_tokens", self.name))
        if self.size > MAX_CODES:
            raise InputError(f"{where(self.name)} has {self.size:,} codes, above the cap of {MAX_CODES:,}; "
                             "use fewer bins or categories")

    # ------------------------------------------------------------- the codes
    @property
    def value_count(self) -> int:
        """Number of codes for the column's own values (categories or bins), before the buckets."""
        raise NotImplementedError

    @property
    def size(self) -> int:
        """All codes: the values' codes, then the null bucket, then the other bucket (as declared)."""
        return self.value_count + int(self.null) + int(self.other)

    @property
    def null_code(self) -> int | None:
        return self.value_count if self.null else None

    @property
    def other_code(self) -> int | None:
        return self.value_count + int(self.null) if self.other else None

    def labels(self) -> tuple[str, ...]:
        """One label per code, for reports and labelled marginals."""
        return self.value_labels() + (("NULL",) if self.null else ()) + ((OTHER,) if self.other else ())

    def value_labels(self) -> tuple[str, ...]:
        raise NotImplementedError

    def label_aliases(self) -> dict[str, int | tuple[int, ...]]:
        """Other names a query may give some codes, besides their labels: a code, or several (a year of month bins);
        public."""
        return {}

    # ----------------------------------------------------------------- JSON
    def to_json(self) -> dict[str, object]:
        spec: dict[str, object] = {"type": self.kind, **self._spec()}
        if self.null:
            spec["null"] = True
        if self.other:
            spec["other"] = True
        if self.null_tokens is not None:
            spec["null_tokens"] = list(self.null_tokens)
        return spec

    def _spec(self) -> dict[str, object]:
        raise NotImplementedError

    def rule(self) -> dict[str, object]:
        """The encoding rule as data (for an engine that translates it, e.g. to SQL): see docs/schema.md."""
        return {"name": self.name, "type": self.kind, "size": self.size, "null_code": self.null_code,
                "other_code": self.other_code, **self._rule()}

    def _rule(self) -> dict[str, object]:
        raise NotImplementedError


@dataclass(frozen=True, slots=True, kw_only=True)
class CodesColumn(Column):
    """Integer codes ``0 .. size-1`` already (the bare integer of a domain file)."""

    codes: int

    kind = "codes"

    def __post_init__(self) -> None:
        if isinstance(self.codes, bool) or not isinstance(self.codes, numbers.Integral) or self.codes < 1:
            raise InputError(f"{where(self.name)}: codes must be an integer >= 1, got {self.codes!r}")
        object.__setattr__(self, "codes", int(self.codes))
        Column.__post_init__(self)

    @property
    def value_count(self) -> int:
        return self.codes

    def value_labels(self) -> tuple[str, ...]:
        return tuple(str(i) for i in range(self.codes))

    def to_json(self) -> dict[str, object] | int:
        if not (self.null or self.other or self.null_tokens is not None):
            return self.codes  # the domain file's form
        return Column.to_json(self)

    def _spec(self) -> dict[str, object]:
        return {"codes": self.codes}

    def _rule(self) -> dict[str, object]:
        return {"low": 0, "high": self.codes - 1}


def _category_key(value: object, name: str) -> str:
    # Categories are strings or integers; a value matches a category by its text (see docs/schema.md).
    if isinstance(value, bool) or not isinstance(value, (str, numbers.Integral)):
        raise InputTypeError(f"{where(name)}: categories must be strings or integers, got {value!r}")
    return value if isinstance(value, str) else str(int(value))


@dataclass(frozen=True, slots=True, kw_only=True)
class CategoricalColumn(Column):
    """A public, ordered list of values; code i is ``values[i]``."""

    values: tuple[object, ...]

    kind = "categorical"

    def __post_init__(self) -> None:
        if isinstance(self.values, (str, bytes)) or not isinstance(self.values, (list, tuple)):
            raise InputTypeError(f"{where(self.name)}: values must be a list of categories, got {self.values!r}")
        values = tuple(self.values)
        object.__setattr__(self, "values", values)
        keys = [_category_key(v, self.name) for v in values]
        if not values and not self.other:
            raise InputError(f"{where(self.name)}: values must list at least one category (or declare other)")
        seen: set[str] = set()
        for value, key in zip(values, keys):
            if key in seen:
                raise InputError(f"{where(self.name)}: category {value!r} appears more than once")
            seen.add(key)
            if key == OTHER:
                raise InputError(f"{where(self.name)}: category {OTHER!r} is reserved for the other bucket")
        Column.__post_init__(self)

    @property
    def keys(self) -> tuple[str, ...]:
        """The text each category matches (integers by their decimal form)."""
        return tuple(_category_key(v, self.name) for v in self.values)

    @property
    def value_count(self) -> int:
        return len(self.values)

    def value_labels(self) -> tuple[str, ...]:
        return self.keys

    def _spec(self) -> dict[str, object]:
        return {"values": list(self.values)}

    def _rule(self) -> dict[str, object]:
        return {"categories": list(self.keys)}


@dataclass(frozen=True, slots=True, kw_only=True)
class BooleanColumn(Column):
    """False is code 0, true is code 1. Text matches ``true``/``false`` words without case.

    ``true``/``false`` hold the words lower-cased (what matching uses); ``written`` keeps them as declared, so
    a column declared ``"true": ["Y"]`` decodes to ``Y`` and its schema file says ``Y``.
    """

    true: tuple[str, ...] = TRUE_WORDS
    false: tuple[str, ...] = FALSE_WORDS
    written: tuple[tuple[str, ...], tuple[str, ...]] = field(init=False, default=((), ()), repr=False, compare=False)

    kind = "boolean"

    def __post_init__(self) -> None:
        true = check_tokens(self.true, "true", self.name)
        false = check_tokens(self.false, "false", self.name)
        object.__setattr__(self, "written", (tuple(true), tuple(false)))
        object.__setattr__(self, "true", tuple(t.lower() for t in true))
        object.__setattr__(self, "false", tuple(f.lower() for f in false))
        if not self.true or not self.false:
            raise InputError(f"{where(self.name)}: true and false must each list at least one word")
        both = sorted(set(self.true) & set(self.false))
        if both:
            raise InputError(f"{where(self.name)}: the words {both} are listed both as true and as false")
        Column.__post_init__(self)

    @property
    def value_count(self) -> int:
        return 2

    def value_labels(self) -> tuple[str, ...]:
        return ("false", "true")

    def label_aliases(self) -> dict[str, int]:
        """Every word the column reads, as written, in lower, upper and title case (a query's ``"Y"`` in a Y/N
        column, as the encoder reads it): 0 for a false word, 1 for a true one; public, the schema's words."""
        return {form: code for code, words in ((0, self.written[1]), (1, self.written[0])) for word in words
                for form in (word, word.lower(), word.upper(), word.title())}

    @property
    def written_as_words(self) -> bool:
        """Whether the column is written back as words other than true and false (Y/N, yes/no), in a DataFrame too.
        A column written true/false in any case (True/False, as pandas' ``to_csv`` writes booleans) is a typed
        boolean in a DataFrame; text gets its first words as declared either way."""
        return tuple(word.lower() for word in self.first_words) != (FALSE_WORDS[0], TRUE_WORDS[0])

    @property
    def first_words(self) -> tuple[str, str]:
        """The words false and true decode to: each list's first word, as declared."""
        return self.written[1][0], self.written[0][0]

    def _spec(self) -> dict[str, object]:
        spec: dict[str, object] = {}
        if self.written[0] != TRUE_WORDS:
            spec["true"] = list(self.written[0])
        if self.written[1] != FALSE_WORDS:
            spec["false"] = list(self.written[1])
        return spec

    def _rule(self) -> dict[str, object]:
        return {"false_words": list(self.false), "true_words": list(self.true)}


def on_decimal_grid(values: np.ndarray, exponent: np.ndarray, rounding) -> np.ndarray:
    """``values`` rounded (``rounding``: ``np.round`` or ``np.floor``) to multiples of 10^``exponent``, as the
    doubles nearest those decimals: a grid finer than 1 divides by a power of ten, so 142 / 10 prints 14.2
    (142 * 0.1 is 14.200000000000001). Where the grid overflows (a far finer grid than the values), the
    result is not finite; the caller keeps its value there."""
    exponent = np.asarray(exponent, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        power = 10.0 ** np.abs(exponent)
        return np.where(exponent < 0, rounding(values * power) / power, rounding(values / power) * power)


def format_number(value: float | int) -> str:
    """Shortest text of a public number: 10 for 10.0, 0.1 for 0.1, 0.00009 for 9e-05 (a synthetic value drawn in a
    narrow bin is written as a spreadsheet writes it, not in Python's exponent form)."""
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if math.isfinite(value) and value == int(value) and abs(value) < 2**53:
        return str(int(value))
    if math.isfinite(value) and abs(value) < 1e-4:
        return np.format_float_positional(float(value), trim="-")
    return repr(float(value))
