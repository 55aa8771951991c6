"""Non-linear queries given as Python callables with a declared sensitivity.

The median mechanism (Dwork & Roth Sec. 5.2.1, Thm 5.10) answers *any* family of
low-sensitivity queries, not only linear ones. A :class:`CallableQuery` wraps a
Python function of the normalized histogram x / n (an array shaped like the domain,
summing to 1) and declares its sensitivity: ``sensitivity(n) = unit_sensitivity / n``
under the same-size, one-record-differs privacy unit (the book's "sensitivity 1/n"
queries have ``unit_sensitivity = 1``).

The declaration is the user's promise and cannot be checked in general: a function
whose true sensitivity exceeds the declaration voids the privacy guarantee of every
mechanism that measures it. :func:`spot_check_sensitivity` tries random neighbouring
pairs of public, synthetic databases to catch gross mistakes; it proves nothing.

>>> import numpy as np
>>> from dprelease.domain import Domain
>>> d = Domain(("a", "b"), (2, 2))
>>> q = CallableQuery(d, lambda h: float(h.max()), name="largest cell")
>>> q.sensitivity(10)
Fraction(1, 10)
>>> q.evaluate_many(np.array([[[1, 0], [0, 0]], [[0.25, 0.25], [0.25, 0.25]]]))
array([1.  , 0.25])
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import KW_ONLY, dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.errors import InputError, InputTypeError
from dprelease.queries.array_eval import answer_column
from dprelease.queries.base import MarginalSource
from dprelease.queries.workload import QueryList
from dprelease.validation import check_positive_int

if TYPE_CHECKING:  # a test helper's type only: queries must not import the privacy kernel
    from dprelease.privacy.rng import RandomSource


@dataclass(frozen=True, eq=False)
class CallableQuery:
    """f(x) = function(x / n), with declared sensitivity ``unit_sensitivity / n``.

    Args:
        domain: the public universe X; the histogram passed to ``function`` has ``domain.shape``.
        function: maps a normalized histogram (non-negative, summing to 1) to a finite real number.
            With ``batched=True`` it maps a stack of shape ``(k, *domain.shape)`` to ``k`` numbers.
        unit_sensitivity: c such that |f(x) - f(x')| <= c / n for every pair of neighbouring
            databases of n rows. The book's non-linear queries (Thm 5.10) have c = 1.
        name: a label for transcripts.
        batched: whether ``function`` accepts a stack of histograms (much faster for the median
            mechanism, which evaluates every query on every candidate database).
    """

    domain: Domain
    function: Callable[[np.ndarray], object]
    _: KW_ONLY
    unit_sensitivity: Fraction = field(default=Fraction(1))
    name: str = ""
    batched: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.domain, Domain):
            raise InputTypeError(f"domain must be a dprelease.Domain, got {type(self.domain).__name__}")
        if not callable(self.function):
            raise InputTypeError(f"function must be callable, got {type(self.function).__name__}")
        self.domain.check_fits(DEFAULT_MAX_CELLS, what="a callable query's histogram")
        c = self.unit_sensitivity
        if isinstance(c, bool) or not isinstance(c, (numbers.Real, Fraction)):
            raise InputTypeError(f"unit_sensitivity must be a real number, got {c!r} ({type(c).__name__})")
        if not math.isfinite(float(c)) or c <= 0:
            raise InputError(f"unit_sensitivity must be a finite number > 0, got {c!r}")
        object.__setattr__(self, "unit_sensitivity", c if isinstance(c, Fraction) else Fraction(c))
        if not isinstance(self.name, str):
            raise InputTypeError(f"name must be a string, got {type(self.name).__name__}")

    def sensitivity(self, n: int) -> Fraction:
        """The declared sensitivity on databases of ``n`` rows: unit_sensitivity / n."""
        return self.unit_sensitivity / check_positive_int(n, "n")

    def evaluate(self, source: MarginalSource) -> float:
        """f on ``source`` (its full normalized histogram)."""
        histogram = np.asarray(source.marginal(self.domain.attributes), dtype=np.float64)
        return float(self.evaluate_many(histogram[None])[0])

    def evaluate_many(self, histograms: np.ndarray) -> np.ndarray:
        """f on each of ``k`` normalized histograms, given as an array of shape ``(k, *domain.shape)``."""
        stack = np.asarray(histograms, dtype=np.float64).reshape((-1, *self.domain.shape))
        if self.batched:
            values = np.asarray(self.function(stack), dtype=np.float64).reshape(-1)
            if values.shape[0] != stack.shape[0]:
                raise InputError(f"batched query {self.name!r} returned {values.shape[0]} values "
                                 f"for {stack.shape[0]} histograms")
        else:
            values = np.array([_as_float(self.function(h), self.name) for h in stack], dtype=np.float64)
        if not np.all(np.isfinite(values)):
            raise InputError(f"query {self.name!r} returned a non-finite value; a query must return a finite "
                             "number on every database")
        return values


def _as_float(value: object, name: str) -> float:
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise InputTypeError(f"query {name!r} must return a real number, got {value!r}") from None


@dataclass(frozen=True)
class CallableQuerySet(QueryList):
    """A :class:`~dprelease.queries.workload.QueryList` of :class:`CallableQuery` (or linear) queries.

    Adds :meth:`answers_many`, which the median mechanism uses to evaluate every query on every
    candidate database at once, and :attr:`is_linear`.
    """

    def answers_many(self, histograms: np.ndarray) -> np.ndarray:
        """A ``(k, num_queries)`` matrix: every query on each of ``k`` normalized histograms."""
        stack = np.asarray(histograms, dtype=np.float64).reshape((-1, *self.domain.shape))
        return np.stack([answer_column(q, stack) for q in self.queries], axis=1)

    @property
    def is_linear(self) -> bool:
        """True when every query is linear (has a ``factor()``), so Thm 4.2's small nets apply."""
        return all(hasattr(q, "factor") for q in self.queries)


def spot_check_sensitivity(query: CallableQuery, *, n: int, trials: int, rng: RandomSource) -> Fraction:
    """The largest |f(x) - f(x')| * n seen on ``trials`` random neighbouring pairs of n-row databases.

    A public sanity check of a declaration (the databases are synthetic): a value above
    ``query.unit_sensitivity`` proves the declaration wrong; a value below proves nothing.
    """
    n = check_positive_int(n, "n")
    size = query.domain.size
    uniform = np.full(size, 1.0 / size)
    worst = 0.0
    for _ in range(check_positive_int(trials, "trials")):
        counts = np.bincount(rng.choice(uniform, n), minlength=size).astype(np.float64)
        leave = int(rng.choice(counts / n, 1)[0])
        enter = int(rng.choice(uniform, 1)[0])
        neighbour = counts.copy()
        neighbour[leave] -= 1
        neighbour[enter] += 1
        pair = np.stack([counts, neighbour]).reshape((2, *query.domain.shape)) / n
        values = query.evaluate_many(pair)
        worst = max(worst, abs(values[0] - values[1]) * n)
    return Fraction(worst).limit_denominator(10**9)
