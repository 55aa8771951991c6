"""A private table that logs which marginals are read from it (never a value), for audits and tests.

:class:`LoggedTable` wraps any :class:`~dprelease.engines.base.PrivateTable` and passes every read
through unchanged; each private read (a marginal's counts, the fingerprint) appends one line
``name<TAB>method<TAB>attributes`` to a log file. The service uses it, behind a test hook, as a
tripwire: a refused request must leave no line (:mod:`dprelease.service.faults`). The fingerprint is
computed once, when the table is wrapped.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from dprelease.domain import Domain
from dprelease.engines.base import PrivateTable


class LoggedTable:
    """``table``'s reads, passed through; logged to ``log`` when it is given (see the module doc)."""

    def __init__(self, name: str, table: PrivateTable, *, log: Path | None = None) -> None:
        self.name = name
        self._table = table
        self._log = log
        self._lock = threading.Lock()
        self._fingerprint = table.fingerprint()

    @property
    def domain(self) -> Domain:
        return self._table.domain

    @property
    def n(self) -> int:
        return self._table.n

    def marginal_counts(self, attributes: Iterable[str]) -> np.ndarray:
        attributes = tuple(attributes)
        self._record("marginal_counts", attributes)
        return self._table.marginal_counts(attributes)

    def marginal(self, attributes: Iterable[str]) -> np.ndarray:
        attributes = tuple(attributes)
        self._record("marginal", attributes)
        return self._table.marginal(attributes)

    def fingerprint(self) -> str:
        """Computed once, when the table was wrapped (private: for private files only)."""
        return self._fingerprint

    def _record(self, method: str, attributes: tuple[str, ...]) -> None:
        if self._log is not None:
            with self._lock, self._log.open("a") as stream:
                stream.write(f"{self.name}\t{method}\t{','.join(attributes)}\n")
