"""The shared half of every out-of-memory engine: which counting path to take, caching, prefetching.

An engine that counts outside numpy (DuckDB on files, Spark on a cluster) subclasses
:class:`CountingTable` and implements three hooks in its own dialect:

* ``_group_rows(cap)``: one pass grouping the whole coded table into weighted distinct rows, returned
  as :class:`~dprelease.engines.counting.DistinctRows` when there are at most ``cap`` of them, else None;
* ``_count_sets(sets)``: flat counts of several marginals (attribute sets in domain order), counted
  together in one batched query;
* ``_stream_distinct()``: the distinct rows and their counts in lexicographic order, in chunks (the
  fingerprint of a table whose distinct rows do not fit in memory).

**The grouped path.** On the first private read the engine groups the table once. If the distinct
rows fit ``max_distinct_rows`` (a public cap, derived from the public memory limit), they come into
numpy and every marginal and the fingerprint follow from them; the table is never read again. When
n exceeds the cap, an engine may first estimate the distinct rows (``_estimate_distinct``, HyperLogLog
in one scan) and skip a grouping pass that would not fit.

**The per-set path.** Otherwise each marginal is a ``GROUP BY`` in the engine, cached; :meth:`prefetch`
counts a mechanism's candidate marginals in a few batched queries, and a marginal contained in a
counted one is summed from it in numpy.

Which path runs depends on the private number of distinct rows. Both give bit-identical counts
(tests/test_engines.py forces each), so the choice changes only the time and memory a read takes,
never anything released: a timing channel, outside what dprelease defends (README, "Known limits").
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

import numpy as np

from dprelease.domain import Domain
from dprelease.engines.counting import (
    DistinctRows,
    MarginalCache,
    check_marginal,
    fingerprint_digest,
    in_order,
    row_bytes,
)
from dprelease.validation import check_positive_int

#: Marginals counted per batched query by default.
DEFAULT_BATCH = 32
#: The grouping pass is skipped when the estimated distinct rows exceed the cap by this factor (HyperLogLog
#: estimates err by a few percent; a wrong guess costs time, never a different count).
ESTIMATE_MARGIN = 1.25


class CountingTable:
    """A :class:`~dprelease.engines.base.PrivateTable` counted by an engine; subclasses add the three hooks."""

    def __init__(self, domain: Domain, n: int, *, memory_limit: int, max_distinct_rows: int | None = None,
                 batch_size: int = DEFAULT_BATCH) -> None:
        if max_distinct_rows is None:  # a quarter of the budget for the rows, a quarter for cached marginals
            max_distinct_rows = memory_limit // 4 // row_bytes(domain)
        max_distinct_rows = check_positive_int(max_distinct_rows, "max_distinct_rows", minimum=0)  # 0: never group
        self._domain = domain
        self._n = int(n)
        self.max_distinct_rows = max_distinct_rows
        self.batch_size = check_positive_int(batch_size, "batch_size")
        self._rows: DistinctRows | None = None
        self._grouped = False  # whether the grouping pass has run (whatever it found)
        self._cache = MarginalCache(domain, max_cells=memory_limit // 4 // 8)
        self._fingerprint: str | None = None

    # ------------------------------------------------------------------ public
    @property
    def domain(self) -> Domain:
        return self._domain

    @property
    def n(self) -> int:
        return self._n

    @property
    def path(self) -> str | None:
        """``"grouped"``, ``"per-set"``, or None before the first read (for tests and benchmarks; private-ish:
        it reveals whether the distinct rows fit the cap, so it is never written into a release)."""
        if not self._grouped:
            return None
        return "grouped" if self._rows is not None else "per-set"

    def close(self) -> None:
        """Free what the engine holds for this table (nothing here; DuckDB closes its connection)."""

    def __enter__(self):
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def marginal_counts(self, attributes: Iterable[str]) -> np.ndarray:
        """Counts of the marginal on ``attributes``, axes in the order given, float64 (private)."""
        asked, canonical = check_marginal(self.domain, attributes)
        return in_order(self.domain, canonical, self._counts(canonical), asked)

    def marginal(self, attributes: Iterable[str]) -> np.ndarray:
        """The marginal on ``attributes`` as fractions of rows (private)."""
        return self.marginal_counts(attributes) / self.n

    def prefetch(self, attribute_sets: Sequence[Iterable[str]]) -> None:
        """Count these marginals now, in as few engine queries as possible, and keep them for later reads.

        For a mechanism's candidate marginals: on the per-set path only the maximal sets not yet
        covered are counted, ``batch_size`` per query, and every subset is later summed from them.
        Returns nothing: the counts stay inside the table until the kernel reads them.
        """
        wanted = list(dict.fromkeys(check_marginal(self.domain, s)[1] for s in attribute_sets))
        self._group_once()
        if self._rows is not None:
            for canonical in wanted:
                self._cache.put(canonical, self._rows.marginal_counts(canonical))
            return
        missing = [c for c in wanted if not self._cache.covered(c)]
        maximal = [c for c in missing if not any(set(c) < set(o) for o in missing)]
        for start in range(0, len(maximal), self.batch_size):
            batch = maximal[start:start + self.batch_size]
            for canonical, counts in zip(batch, self._count_sets(batch)):
                self._cache.put(canonical, counts)

    def fingerprint(self) -> str:
        """SHA-256 of the domain, n and the distinct rows with their counts (same as ``Dataset.fingerprint``)."""
        if self._fingerprint is None:
            self._group_once()
            if self._rows is not None:
                self._fingerprint = self._rows.fingerprint(self.n)
            else:
                rows, counts = self._stream_distinct()
                self._fingerprint = fingerprint_digest(self.domain, self.n, rows, counts)
        return self._fingerprint

    # ----------------------------------------------------------------- private
    def _group_once(self) -> None:
        if not self._grouped:
            self._rows = self._group_rows(self.max_distinct_rows) if self._worth_grouping() else None
            self._grouped = True

    def _worth_grouping(self) -> bool:
        """Whether to run the grouping pass: never with a cap of 0; always when n (public) fits the cap;
        otherwise unless a cheap estimate (one scan, no hash table) puts the distinct rows well above it."""
        if self.max_distinct_rows == 0:
            return False
        if self.n <= self.max_distinct_rows:
            return True
        estimate = self._estimate_distinct()
        return estimate is None or estimate <= ESTIMATE_MARGIN * self.max_distinct_rows

    def _counts(self, canonical: tuple[str, ...]) -> np.ndarray:
        if not canonical:  # the empty marginal is n, public
            return np.array([float(self.n)])
        self._group_once()
        cached = self._cache.get(canonical)
        if cached is not None:
            return cached
        if self._rows is not None:
            counts = self._rows.marginal_counts(canonical)
        else:
            counts = self._count_sets([canonical])[0]
        self._cache.put(canonical, counts)
        return counts

    # ------------------------------------------------------------------- hooks
    def _group_rows(self, cap: int) -> DistinctRows | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def _count_sets(self, sets: list[tuple[str, ...]]) -> list[np.ndarray]:  # pragma: no cover - abstract
        raise NotImplementedError

    def _estimate_distinct(self) -> float | None:
        """An estimate of the number of distinct rows (one cheap pass), or None for no estimate."""
        return None

    def _stream_distinct(self) -> tuple[Iterator[np.ndarray], Iterator[np.ndarray]]:  # pragma: no cover
        raise NotImplementedError
