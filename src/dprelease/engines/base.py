"""The one interface behind which a private table lives.

Every private read in dprelease is a count: a marginal contingency table over a few columns
(counting queries, marginal workloads and dense queries over small domains are all answered
from marginals), or a fingerprint of the whole table for a resumed online session. An engine
computes these wherever the data lives (numpy in memory, DuckDB on files, Spark on a cluster);
only the privacy kernel (:mod:`dprelease.privacy`) calls these methods, and it pays for each
measurement before it reads.

Privacy unit: neighbouring tables have the same public number of rows ``n`` and differ in one
record, so ``n`` and the ``domain`` are public; everything else an engine returns is private.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

import numpy as np

from dprelease.domain import Domain


@runtime_checkable
class PrivateTable(Protocol):
    """A private table over a public :class:`~dprelease.domain.Domain` with a public row count ``n``."""

    @property
    def domain(self) -> Domain:
        """The public domain: attributes in order, and their sizes."""
        ...

    @property
    def n(self) -> int:
        """The number of records; public under the privacy unit (same-size neighbours)."""
        ...

    def marginal_counts(self, attributes: Iterable[str]) -> np.ndarray:
        """Counts of the marginal on ``attributes``, axes in the order given, float64 (private)."""
        ...

    def marginal(self, attributes: Iterable[str]) -> np.ndarray:
        """The marginal on ``attributes`` as fractions of rows (private)."""
        ...

    def fingerprint(self) -> str:
        """SHA-256 of the domain, n and the distinct rows with their counts in lexicographic order.

        The same for every engine holding the same table. A function of the private data: it goes
        into private files only (it lets a resumed online session check it reads the same table).
        """
        ...
