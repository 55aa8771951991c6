"""The registered tables: loaded and checked at start-up, served behind the PrivateTable seam.

A table is read once, when the service starts, so every mistake in it stops the service before it answers
anything: a CSV of integer codes and its public domain (``domain``), or a CSV of raw values (text, numbers,
dates, blanks) and the public schema that encodes it (``schema``), as ``dprelease synth`` reads them, with the
same codes and the same one-line errors. It is served as a :class:`ServedTable`, a
:class:`~dprelease.engines.logged.LoggedTable` that passes the privacy kernel's reads through and, only under the
test hook of :mod:`~dprelease.service.faults`, logs which marginals were read (a tripwire). Its fingerprint (a
function of the private data, kept in the private ledger only) is computed then too: the ledger refuses a table
whose data changed since its budget was registered.

A schema drafted from the data with differential privacy (``dprelease schema --epsilon``) has already spent
part of the table's budget: that spend is taken off the configured budget before the table is registered
(:attr:`ServedTable.draft_spent`), so the draft and everything served add up to at most the budget (basic
composition, Thm 3.16). A schema drafted openly (``--non-private``) is refused: nothing built on it is private.
"""

from __future__ import annotations

from fractions import Fraction

from dprelease.api import check_column_values, load_schema
from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.engines.logged import LoggedTable
from dprelease.engines.registry import open_table
from dprelease.errors import DPReleaseError, InputError
from dprelease.schema import Schema
from dprelease.service.config import TableConfig, check_caps_fit, decimal_text
from dprelease.service.faults import read_log


class ServedTable(LoggedTable):
    """A registered table: its reads (logged under the test hook), and the public schema it was encoded by."""

    def __init__(self, name: str, table: object, *, schema: Schema | None = None, log=None) -> None:
        super().__init__(name, table, log=log)
        self.schema = schema
        spent = (Fraction(0), Fraction(0)) if schema is None or schema.draft is None else schema.draft.spent
        #: What drafting the schema spent, (epsilon, delta), exact: taken off the table's budget.
        self.draft_spent: tuple[Fraction, Fraction] = (Fraction(spent[0]), Fraction(spent[1]))
        # Made once: every query of the table translates its labels through them.
        self._labels = None if schema is None else schema.all_labels()

    def labels(self) -> dict[str, tuple[str, ...]] | None:
        """Each attribute's label per code (public: the schema's), or None for a table of codes."""
        return self._labels


def load_table(config: TableConfig) -> ServedTable:
    """Read one configured table; a mistake raises :class:`InputError` naming the table."""
    try:
        if config.schema is None:
            domain = Domain.from_json(config.domain)
            return ServedTable(config.name, Dataset.from_csv(config.data, domain, columns=config.columns),
                               log=read_log())
        schema = load_schema(config.schema, config.columns)
        if schema.draft is not None and not schema.draft.is_public:
            raise InputError("its schema was drafted by reading the data openly (--non-private): nothing served from "
                             "it would be differentially private; replace it with public knowledge, or draft it with "
                             "--epsilon")
        if schema.draft is not None and schema.draft.privacy_id is not None:
            raise InputError(f"its schema was drafted per person (privacy id {schema.draft.privacy_id!r}), and the "
                             "service releases per record: the two protect different units; draft it without "
                             "--privacy-id, or declare it")
        check_column_values(schema, where=f"table {config.name!r}: ")
        table = ServedTable(config.name, open_table(str(config.data), schema=schema, engine="memory"),
                            schema=schema, log=read_log())
    except DPReleaseError as exc:
        raise InputError(f"table {config.name!r}: {exc}") from None
    check_draft_fits(config, table)
    return table


def check_draft_fits(config: TableConfig, table: ServedTable) -> None:
    """The budget left after the schema's draft must be positive and hold the analysts' caps (public amounts)."""
    epsilon, delta = table.draft_spent
    if not epsilon and not delta:
        return
    where = f"table {config.name!r}"
    left = (config.epsilon - epsilon, config.delta - delta)
    if left[0] <= 0 or left[1] < 0:
        raise InputError(f"{where}: its schema's draft spent epsilon={decimal_text(epsilon)}, "
                         f"delta={decimal_text(delta)}, which leaves nothing of the budget (epsilon="
                         f"{decimal_text(config.epsilon)}, delta={decimal_text(config.delta)}); the budget counts the "
                         "draft, so raise it or draft with less")
    check_caps_fit(where, config.grants, *left, "what the budget leaves after the schema's draft,")
