"""The registered tables: loaded and checked at start-up, served behind the PrivateTable seam.

A table is read once, when the service starts (a CSV of integer codes and its public domain, as
``dprelease synth`` reads them), so every mistake in it stops the service before it answers
anything. Its fingerprint (a function of the private data, kept in the private ledger only) is
computed then too: the ledger refuses a table whose data changed since its budget was registered.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.errors import DPReleaseError, InputError
from dprelease.service.config import TableConfig
from dprelease.service.faults import read_log


class ServedTable:
    """A table behind :class:`~dprelease.engines.base.PrivateTable`: its reads pass through unchanged.

    Only the privacy kernel calls :meth:`marginal_counts` / :meth:`marginal` (through the
    mechanisms, after the ledger committed the charge); with the test hook of
    :mod:`~dprelease.service.faults` each read is logged (what was read, never a value).
    """

    def __init__(self, name: str, dataset: Dataset, *, log: Path | None = None) -> None:
        self.name = name
        self._dataset = dataset
        self._fingerprint = dataset.fingerprint()
        self._log = log
        self._log_lock = threading.Lock()

    @property
    def domain(self) -> Domain:
        return self._dataset.domain

    @property
    def n(self) -> int:
        return self._dataset.n

    def marginal_counts(self, attributes: Iterable[str]) -> np.ndarray:
        attributes = tuple(attributes)
        self._record("marginal_counts", attributes)
        return self._dataset.marginal_counts(attributes)

    def marginal(self, attributes: Iterable[str]) -> np.ndarray:
        attributes = tuple(attributes)
        self._record("marginal", attributes)
        return self._dataset.marginal(attributes)

    def fingerprint(self) -> str:
        """Computed once at start-up (private: it goes into the ledger file only)."""
        return self._fingerprint

    def _record(self, method: str, attributes: tuple[str, ...]) -> None:
        if self._log is not None:
            with self._log_lock, self._log.open("a") as stream:
                stream.write(f"{self.name}\t{method}\t{','.join(attributes)}\n")


def load_table(config: TableConfig) -> ServedTable:
    """Read one configured table; a mistake raises :class:`InputError` naming the table."""
    try:
        domain = Domain.from_json(config.domain)
        dataset = Dataset.from_csv(config.data, domain, columns=config.columns)
    except DPReleaseError as exc:
        raise InputError(f"table {config.name!r}: {exc}") from None
    return ServedTable(config.name, dataset, log=read_log())
