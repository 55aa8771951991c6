"""Product-form linear queries: counting conjunctions, marginal cells, weighted products.

q(x) = prod over constrained attributes a of w_a[x_a], with each w_a in [0, 1]^size(a).
A counting query ``{"sex": 1, "race": [0, 2]}`` is the product of indicator weights;
a marginal cell is a counting query fixing every attribute of the marginal.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from dprelease.domain import Domain
from dprelease.errors import InputError, InputTypeError
from dprelease.queries.base import MarginalSource


@dataclass(frozen=True, eq=False)
class ProductQuery:
    """f(x) = (1/n) sum over records r of prod_a weights[a][r_a].

    >>> d = Domain(("sex", "race"), (2, 3))
    >>> ProductQuery.conjunction(d, {"race": [0, 2]}).attributes
    ('race',)
    """

    domain: Domain
    attributes: tuple[str, ...]
    weights: tuple[np.ndarray, ...]
    name: str = ""

    def __post_init__(self) -> None:
        for attribute, w in zip(self.attributes, self.weights):
            w.setflags(write=False)
            if w.shape != (self.domain.size_of(attribute),):
                raise InputError(
                    f"weights for attribute {attribute!r} must have {self.domain.size_of(attribute)} entries, got {w.shape[0]}"
                )

    # ----------------------------------------------------------------- builders
    @classmethod
    def conjunction(cls, domain: Domain, where: Mapping[str, object], *, name: str = "",
                    labels: Mapping[str, Sequence[str]] | object | None = None) -> ProductQuery:
        """The fraction of rows with ``attr == value`` (or ``attr in [values]``) for every entry.

        A value is a code (an integer); with ``labels`` (a table's schema, or each attribute's label per code) it may
        also be a label (a string: ``"Private"``, the bin ``"21..25"``, ``"NULL"``, ``"<other>"``) or ``None`` for the
        NULL bucket (:func:`coded`).
        """
        if labels is not None:
            where = coded(where, labels if isinstance(labels, Mapping) else labels.all_labels())  # or a Schema's
        if not isinstance(where, Mapping):
            raise InputTypeError(f"where must be a mapping attribute -> value(s), got {type(where).__name__}")
        weights = {}
        for attribute, wanted in where.items():
            size = domain.size_of(attribute)
            values = [wanted] if not isinstance(wanted, (list, tuple)) else list(wanted)
            if not values:
                raise InputError(f"query value list for attribute {attribute!r} is empty")
            w = np.zeros(size)
            for v in values:
                if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                    raise InputTypeError(f"query value for attribute {attribute!r} must be an integer code, got {v!r}")
                if not 0 <= v < size:
                    raise InputError(f"query value {int(v)} for attribute {attribute!r} is outside 0..{size - 1}")
                w[int(v)] = 1.0
            weights[attribute] = w
        return cls._build(domain, weights, name)

    @classmethod
    def from_weights(cls, domain: Domain, weights: Mapping[str, Sequence[float]], *, name: str = "") -> ProductQuery:
        """A product-form query with explicit per-attribute weights in [0, 1]."""
        if not isinstance(weights, Mapping):
            raise InputTypeError(f"weights must be a mapping attribute -> list of numbers, got {type(weights).__name__}")
        arrays = {}
        for attribute, w in weights.items():
            size = domain.size_of(attribute)
            try:
                array = np.asarray(w, dtype=np.float64)
            except (TypeError, ValueError):
                raise InputTypeError(f"weights for attribute {attribute!r} must be numbers, got {w!r}") from None
            if array.ndim != 1 or array.shape[0] != size:
                raise InputError(f"weights for attribute {attribute!r} must be a list of {size} numbers, got {w!r}")
            bad = ~np.isfinite(array) | (array < 0) | (array > 1)
            if bad.any():
                raise InputError(f"weights for attribute {attribute!r} must lie in [0, 1], got {float(array[bad][0])!r}")
            arrays[attribute] = array
        return cls._build(domain, arrays, name)

    @classmethod
    def _build(cls, domain: Domain, weights: Mapping[str, np.ndarray], name: str) -> ProductQuery:
        attributes = domain.canonical(weights)
        return cls(domain, attributes, tuple(np.array(weights[a], dtype=np.float64) for a in attributes), name)

    # ------------------------------------------------------------------ answers
    def evaluate(self, source: MarginalSource) -> float:
        """f on ``source`` as a fraction of rows."""
        if not self.attributes:
            return 1.0
        return self.contract(source.marginal(self.attributes))

    def contract(self, marginal: np.ndarray) -> float:
        """f from the marginal on ``attributes`` (in that order): sum over its cells of prod_a w_a * cell.

        Lets a query set compute each marginal once for all its queries on the same attributes.
        """
        result = marginal
        for w in reversed(self.weights):  # contract the last axis each time
            result = result @ w
        return float(result)

    def factor(self) -> np.ndarray:
        """q over X as a broadcastable array: weights on their axes, singleton axes elsewhere."""
        q = np.ones((1,) * len(self.domain))
        for attribute, w in zip(self.attributes, self.weights):
            shape = [1] * len(self.domain)
            shape[self.domain.axis(attribute)] = w.shape[0]
            q = q * w.reshape(shape)
        return q

    def describe(self) -> dict[str, list[float]]:
        """A JSON-friendly description (for transcripts)."""
        return {a: [float(v) for v in w] for a, w in zip(self.attributes, self.weights)}

    @property
    def support_size(self) -> int:
        return math.prod(int(np.count_nonzero(w)) for w in self.weights)


def label_codes(labels: Sequence[str], aliases: Mapping[str, int | tuple[int, ...]] | None = None
                ) -> dict[str, int | tuple[int, ...]]:
    """``{name: code}`` of one column: its labels (code i for ``labels[i]``) and its ``aliases`` (a code, or the codes
    of a run of bins), a label winning."""
    return {**(aliases or {}), **{label: code for code, label in enumerate(labels)}}


def coded(where: object, labels: Mapping[str, Sequence[str]]) -> object:
    """``where`` with its labels (strings) and ``None`` (the NULL bucket) replaced by their codes; integers, unknown
    attributes and anything malformed pass through for :meth:`ProductQuery.conjunction` to judge. An unknown label
    is refused, quoted (the analyst's own text) with the attribute's labels (the public schema's).

    A schema's :class:`~dprelease.schema.schema.Labels` also carries other names of some codes (a month bin's
    ``"2023-06"``; a year of month bins' ``"2023"``, which names all twelve), taken as its labels are; ``True`` and
    ``False`` (JSON's true and false) name a column's ``"true"`` and ``"false"`` labels, a boolean column's values.
    For an integer or numeric column of a schema a number is a value: the code of its bin where the bin holds that
    value alone (``{"rating": 4}``), else refused naming the bin's label (``{"age": 32}`` in the bin ``"28..32"``: its
    answer would be the bin's), as is a number outside the bounds or in a date column (``labels.numbers``: the
    schema's rule); a categorical column's integer is a code."""
    if not isinstance(where, Mapping):
        return where
    aliases, numbers = getattr(labels, "aliases", {}), getattr(labels, "numbers", {})
    made = getattr(labels, "codes", {})  # a schema's Labels made each column's lookup once
    out: dict[str, object] = {}
    for attribute, wanted in where.items():
        names = labels.get(attribute) if isinstance(attribute, str) else None
        if names is None:
            out[attribute] = wanted
            continue
        index = made.get(attribute) or label_codes(names)
        values = list(wanted) if isinstance(wanted, (list, tuple)) else [wanted]
        for position, value in enumerate(values):
            if value is None:
                value = "NULL"
                if value not in index:
                    raise InputError(f"query value null for attribute {attribute!r}: the column has no NULL bucket")
            if isinstance(value, (bool, np.bool_)):
                value = "true" if value else "false"
                if value not in index:
                    raise InputError(f"query value {value} for attribute {attribute!r}: true and false name a "
                                     "boolean column's values, and this column has no such label")
            if attribute in numbers and isinstance(value, (int, float, np.integer, np.floating)) and \
                    not isinstance(value, (bool, np.bool_)):
                values[position] = numbers[attribute](value)  # a schema's number column: the value's bin, or refused
                continue
            if isinstance(value, str):
                if value not in index:
                    shown = ", ".join(map(repr, names[:12])) + (f", ... ({len(names)} in all)" if len(names) > 12 else "")
                    other = aliases.get(attribute)
                    what = "one of the words it reads" if tuple(names[:2]) == ("false", "true") else \
                        "a bin's calendar name"  # a boolean's words (Y/N), a date bin's "2023-06"
                    also = f"; or {what}, such as {next(iter(other))!r}" if other else ""
                    raise InputError(f"query value {value!r:.100} for attribute {attribute!r} is not one of its labels "
                                     f"({shown}{also})")
                values[position] = index[value]
        # a name of several bins ("2023" over month bins) stands for their codes
        values = [code for value in values for code in (value if isinstance(value, tuple) else (value,))]
        out[attribute] = values if isinstance(wanted, (list, tuple)) or len(values) > 1 else values[0]
    return out
