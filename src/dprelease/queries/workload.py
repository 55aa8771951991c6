"""Marginal workloads and query sets.

A :class:`Workload` is a list of marginals (attribute sets); each cell of each
marginal is a counting query, so the workload is also a query set Q with
``num_queries`` = total number of cells. A :class:`QueryList` is a query set of
arbitrary linear queries. Both answer every query at once on a
:class:`~dprelease.queries.base.MarginalSource`.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from dprelease.domain import Domain
from dprelease.errors import InputError, InputTypeError
from dprelease.queries.base import LinearQuery, MarginalSource
from dprelease.queries.product import ProductQuery

def query_sensitivity(query: object, n: int) -> Fraction:
    """A query's declared sensitivity, or 1/n for a normalized linear query (q in [0, 1]^X)."""
    declared = getattr(query, "sensitivity", None)
    return Fraction(1, n) if declared is None else declared(n)


_SPEC = re.compile(r"^(?:(\d+)-)?(\d+)-? ?way$", re.IGNORECASE)  # 3way; as English writes it, 3-way, 1-3-way
#: Marginals a batch answers at a time in :meth:`Workload.marginal_answers` (between two progress steps).
ANSWER_CHUNK = 512


@dataclass(frozen=True)
class Workload:
    """Marginals over ``domain``; each marginal's attributes are kept in domain order.

    >>> d = Domain(("a", "b", "c"), (2, 3, 4))
    >>> w = Workload.from_spec("1-2way", d)
    >>> len(w.marginals), w.num_queries
    (6, 35)
    """

    domain: Domain
    marginals: tuple[tuple[str, ...], ...]

    def __post_init__(self) -> None:
        if not self.marginals:
            raise InputError("workload must contain at least one marginal, got none")
        canonical = []
        for marginal in self.marginals:
            if isinstance(marginal, str) or not isinstance(marginal, Sequence):
                raise InputTypeError(f"each workload marginal must be a list of attribute names, got {marginal!r}")
            if not marginal:
                raise InputError("workload marginal must name at least one attribute, got []")
            for attribute in marginal:
                if attribute not in self.domain:
                    raise InputError(
                        f"workload names unknown attribute {attribute!r}; the columns are {list(self.domain.attributes)}"
                    )
            canonical.append(self.domain.canonical(marginal))
        object.__setattr__(self, "marginals", tuple(dict.fromkeys(canonical)))

    # ----------------------------------------------------------------- builders
    @classmethod
    def all_kway(cls, domain: Domain, k: int, *, smallest: int | None = None) -> Workload:
        """All k-way marginals (or all ``smallest``..k-way) over the domain's attributes."""
        smallest = k if smallest is None else smallest
        if not 1 <= smallest <= k:
            raise InputError(f"workload sizes must satisfy 1 <= smallest <= k, got {smallest}-{k}")
        if k > len(domain):
            raise InputError(f"workload {k}-way needs at least {k} columns, got {len(domain)}")
        return cls(domain, tuple(m for j in range(smallest, k + 1) for m in itertools.combinations(domain.attributes, j)))

    @classmethod
    def resolve(cls, workload: Workload | str | Sequence[Sequence[str]], domain: Domain) -> Workload:
        """A workload as the API takes it: a :class:`Workload`, a spec (:meth:`from_spec`), or a list of attribute
        lists (the cross-tables to release, e.g. ``[["age", "sex"], ["region", "income"]]``) over ``domain``."""
        if isinstance(workload, Workload):
            return workload
        if isinstance(workload, str):
            return cls.from_spec(workload, domain)
        if isinstance(workload, Sequence) and all(isinstance(m, Sequence) and not isinstance(m, str) for m in workload):
            return cls(domain, tuple(tuple(m) for m in workload))
        raise InputTypeError("workload must be a Workload, a spec such as '1-3way' or a list of attribute lists, "
                             f"got {type(workload).__name__}")

    @classmethod
    def from_spec(cls, spec: str, domain: Domain) -> Workload:
        """``"3way"``, ``"1-3way"`` (also written ``"3-way"``, ``"1-3-way"``), a JSON list of attribute lists
        (``'[["age", "sex"]]'``), or the path of a JSON file holding one."""
        if not isinstance(spec, str):
            raise InputTypeError(f"workload spec must be a string, got {type(spec).__name__}")
        match = _SPEC.match(spec.strip())
        if match:
            k = int(match.group(2))
            smallest = int(match.group(1)) if match.group(1) else k
            if k < 1:
                raise InputError(f"workload {spec!r}: k must be >= 1")
            return cls.all_kway(domain, k, smallest=smallest)
        if spec.lstrip().startswith("["):  # the list itself, as a shell user writes it: '[["age", "sex"]]'
            where = f"workload {spec!r}"
            try:
                raw = json.loads(spec)
            except json.JSONDecodeError as exc:
                raise InputError(f"{where} is not valid JSON: {exc}") from None
        else:
            path = Path(spec)
            if not path.exists():
                raise InputError(f"workload {spec!r} is neither 'Kway', 'J-Kway' (3way: every 3-way marginal; 1-3way: "
                                 "every marginal of 1 to 3 columns), a JSON list of attribute lists ('[[\"age\", "
                                 "\"sex\"]]') nor an existing JSON file")
            where = f"workload file {spec!r}"
            try:
                raw = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
                raise InputError(f"{where} is not valid JSON: {exc}") from None
        if not isinstance(raw, list) or not all(isinstance(m, list) and all(isinstance(a, str) for a in m) for m in raw):
            raise InputError(f"{where} must hold a JSON list of lists of attribute names")
        return cls(domain, tuple(tuple(m) for m in raw))

    # ----------------------------------------------------------------- geometry
    @property
    def attributes(self) -> tuple[str, ...]:
        """Every attribute some marginal uses, in domain order."""
        used = {a for m in self.marginals for a in m}
        return tuple(a for a in self.domain.attributes if a in used)

    def cells(self, marginal: Sequence[str]) -> int:
        return math.prod(self.domain.size_of(a) for a in marginal)

    @property
    def num_queries(self) -> int:
        """|Q|: total number of cells (counting queries) across the marginals."""
        return sum(self.cells(m) for m in self.marginals)

    def sensitivity(self, n: int) -> Fraction:
        """Every cell is a counting query: sensitivity 1/n under the same-size privacy unit."""
        return Fraction(1, n)

    def _offsets(self) -> np.ndarray:
        return np.cumsum([0] + [self.cells(m) for m in self.marginals])

    # ------------------------------------------------------------------ answers
    def answers(self, source: MarginalSource) -> np.ndarray:
        """Every cell of every marginal as fractions, concatenated (length ``num_queries``)."""
        return np.concatenate([np.asarray(source.marginal(m)).reshape(-1) for m in self.marginals])

    def marginal_answers(self, source: MarginalSource, *,
                         on_step: Callable[[int, int], None] | None = None) -> list[np.ndarray]:
        """Every marginal of the workload on ``source``; ``on_step(done, total)`` as they come (progress only).

        A source with a batch (``marginals``: a factored model sums a wide table's pairs from one walk of its tree
        per attribute, and nested cliques from one another) gets the workload in chunks of
        :data:`ANSWER_CHUNK`, so the progress still moves."""
        batch = getattr(source, "marginals", None)
        batch = batch if callable(batch) else None
        answers: list[np.ndarray] = []
        step = ANSWER_CHUNK if batch is not None else 1
        for start in range(0, len(self.marginals), step):
            chunk = self.marginals[start:start + step]
            answers.extend(np.asarray(a) for a in (batch(chunk) if batch is not None else
                                                   [source.marginal(m) for m in chunk]))
            if on_step is not None:
                on_step(len(answers), len(self.marginals))
        return answers

    def query(self, index: int) -> ProductQuery:
        """The counting query of flat cell ``index`` (a conjunction fixing the marginal's attributes)."""
        offsets = self._offsets()
        if not 0 <= index < offsets[-1]:
            raise IndexError(f"query index {index} outside 0..{offsets[-1] - 1}")
        m = int(np.searchsorted(offsets, index, side="right") - 1)
        marginal = self.marginals[m]
        values = np.unravel_index(index - offsets[m], tuple(self.domain.size_of(a) for a in marginal))
        where = {a: int(v) for a, v in zip(marginal, values)}
        return ProductQuery.conjunction(self.domain, where, name=json.dumps(where))

    def to_json(self) -> list[list[str]]:
        return [list(m) for m in self.marginals]


@dataclass(frozen=True)
class QueryList:
    """An explicit query set over one domain: linear queries, or any query with ``evaluate``."""

    domain: Domain
    queries: tuple[LinearQuery, ...]

    def __post_init__(self) -> None:
        if isinstance(self.queries, (str, bytes)) or not isinstance(self.queries, Sequence):
            raise InputTypeError(f"queries must be a sequence of queries, got {type(self.queries).__name__}")
        object.__setattr__(self, "queries", tuple(self.queries))
        if not self.queries:
            raise InputError("query list must contain at least one query, got none")
        for q in self.queries:
            if not hasattr(q, "evaluate") or getattr(q, "domain", None) != self.domain:
                raise InputError(f"query {getattr(q, 'name', q)!r} is not a query over this domain")

    @property
    def num_queries(self) -> int:
        return len(self.queries)

    def sensitivity(self, n: int) -> Fraction:
        """The largest sensitivity of any query in the list (1/n for normalized linear queries)."""
        return max(query_sensitivity(q, n) for q in self.queries)

    def answers(self, source: MarginalSource) -> np.ndarray:
        """Every query on ``source``; product-form queries on the same attributes share one marginal.

        The values are exactly ``q.evaluate(source)``'s; a factored model then runs one inference
        per attribute set, not one per query.
        """
        shared: dict[tuple[str, ...], np.ndarray] = {}
        values = np.empty(len(self.queries), dtype=np.float64)
        for i, q in enumerate(self.queries):
            if isinstance(q, ProductQuery) and q.attributes:
                marginal = shared.get(q.attributes)
                if marginal is None:
                    marginal = shared[q.attributes] = np.asarray(source.marginal(q.attributes))
                values[i] = q.contract(marginal)
            else:
                values[i] = q.evaluate(source)
        return values

    def query(self, index: int) -> LinearQuery:
        return self.queries[index]
