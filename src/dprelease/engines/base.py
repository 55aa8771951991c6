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

from collections.abc import Iterable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from dprelease.data import select_domain
from dprelease.domain import Domain
from dprelease.errors import InputError, InputTypeError
from dprelease.schema import Schema


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


def domain_or_schema(domain: Domain | None, schema: Schema | None,
                     columns: Sequence[str] | None) -> tuple[Domain, Schema | None]:
    """(the domain, the schema or None) of a table given ``domain`` (codes) or ``schema`` (raw values)."""
    if (domain is None) == (schema is None):
        raise InputError("give domain= (a table of integer codes) or schema= (a raw table), not both or neither")
    if schema is None:
        return select_domain(domain, columns), None
    if not isinstance(schema, Schema):
        raise InputTypeError(f"schema must be a dprelease Schema, got {type(schema).__name__}")
    if columns is not None:
        if isinstance(columns, str):
            raise InputTypeError(f"columns must be a list of column names, got {columns!r}")
        unknown = [c for c in columns if c not in schema.names]
        if unknown:
            raise InputError(f"columns {unknown} are not in the schema {list(schema.names)}")
        schema = schema.select(columns)
    return schema.domain, schema
