"""The registered tables: loaded and checked at start-up, served behind the PrivateTable seam.

A table is read once, when the service starts (a CSV of integer codes and its public domain, as
``dprelease synth`` reads them), so every mistake in it stops the service before it answers
anything. It is served as a :class:`~dprelease.engines.logged.LoggedTable`, which passes the privacy
kernel's reads through and, only under the test hook of :mod:`~dprelease.service.faults`, logs which
marginals were read (a tripwire). Its fingerprint (a function of the private data, kept in the private
ledger only) is computed then too: the ledger refuses a table whose data changed since its budget was
registered.
"""

from __future__ import annotations

from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.engines.logged import LoggedTable
from dprelease.errors import DPReleaseError, InputError
from dprelease.service.config import TableConfig
from dprelease.service.faults import read_log

#: What the service serves: a table behind the PrivateTable seam, with its name.
ServedTable = LoggedTable


def load_table(config: TableConfig) -> ServedTable:
    """Read one configured table; a mistake raises :class:`InputError` naming the table."""
    try:
        domain = Domain.from_json(config.domain)
        dataset = Dataset.from_csv(config.data, domain, columns=config.columns)
    except DPReleaseError as exc:
        raise InputError(f"table {config.name!r}: {exc}") from None
    return LoggedTable(config.name, dataset, log=read_log())
