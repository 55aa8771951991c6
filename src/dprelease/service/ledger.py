"""The service's privacy ledger: one global budget per table, exact, on disk before any data is read.

Guarantees (tests/test_service_ledger.py and tests/test_service_crash.py try to break each):

* **Exact.** Budgets, charges and totals are :class:`fractions.Fraction`, stored as text
  (``"1/10"``); nothing is ever rounded. A request's amount is taken as the decimal it was written
  as (``0.1`` is exactly 1/10), and the mechanism it pays for runs with the largest float not above
  it, so what the mechanism spends (by its own exact accountant) never exceeds the charge.
* **Reserved and committed before the data is read.** :meth:`Ledger.reserve` checks the table's
  budget and the analyst's cap and records the charge in one transaction; it returns only after
  the COMMIT, which with ``synchronous=FULL`` in WAL mode is fsynced. The caller reads private
  data only after that.
* **Never refunded.** A reserved charge ends ``done`` (its result stored in the same transaction as
  the result's bookkeeping) or ``lost`` (the process died, or the work failed, after the
  reservation): both stay spent. Triggers in the file refuse deleting a charge, changing its
  amount, or moving it out of ``done``/``lost``.
* **One budget per table, shared by every analyst, session and release**, checked inside the
  transaction that records the charge, so concurrent threads and processes cannot overspend it;
  per-analyst caps are checked in the same transaction, and a service's caps never add up to more
  than its table's budget (checked when the configuration is loaded).

Composition: each charge pays for one mechanism that is (epsilon_i, delta_i)-DP on the table
(an online session, a synthetic release). Analysts choose them adaptively, and sessions run
concurrently, interleaving their queries. A charge is admitted only while the running sums stay
within the table's (epsilon, delta): basic composition used as a privacy filter (Rogers, Roth,
Ullman & Vadhan 2016, Thm 3.4; epsilons and deltas add even when each is chosen after seeing
earlier outputs), and concurrent composition of interactive mechanisms is no worse than
sequential composition (Vadhan & Wang 2021 for pure DP; Vadhan & Zhang 2023 for (eps, delta);
with adaptively chosen parameters, the concurrent filters of Haney et al. 2023). So everything
the service releases about a table is (epsilon, delta)-DP for its configured budget.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from dprelease.errors import BudgetExceededError, DPReleaseError, InputError
from dprelease.service.db import Readers, Writer
from dprelease.service.config import decimal_text

KINDS = ("session", "query", "release", "charge")

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS budgets (
    table_name TEXT PRIMARY KEY,
    epsilon TEXT NOT NULL, delta TEXT NOT NULL,
    spent_epsilon TEXT NOT NULL, spent_delta TEXT NOT NULL,
    fingerprint TEXT NOT NULL, registered REAL NOT NULL);
CREATE TABLE IF NOT EXISTS caps (
    table_name TEXT NOT NULL REFERENCES budgets(table_name), analyst TEXT NOT NULL,
    epsilon TEXT, delta TEXT, PRIMARY KEY (table_name, analyst));
CREATE TABLE IF NOT EXISTS analyst_spent (
    table_name TEXT NOT NULL REFERENCES budgets(table_name), analyst TEXT NOT NULL,
    spent_epsilon TEXT NOT NULL, spent_delta TEXT NOT NULL, PRIMARY KEY (table_name, analyst));
CREATE TABLE IF NOT EXISTS requests (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    table_name TEXT NOT NULL REFERENCES budgets(table_name), analyst TEXT NOT NULL, request_id TEXT NOT NULL,
    body_sha256 TEXT NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('session', 'query', 'release', 'charge')),
    epsilon TEXT NOT NULL, delta TEXT NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('reserved', 'done', 'lost')),
    session_id TEXT, cells INTEGER NOT NULL DEFAULT 0,
    reserved_at REAL NOT NULL, finished_at REAL, result TEXT,
    UNIQUE (table_name, analyst, request_id));
CREATE INDEX IF NOT EXISTS requests_status ON requests (status);
CREATE TRIGGER IF NOT EXISTS requests_are_never_deleted BEFORE DELETE ON requests
    BEGIN SELECT RAISE(ABORT, 'the ledger never deletes a charge'); END;
CREATE TRIGGER IF NOT EXISTS requests_amounts_are_fixed BEFORE UPDATE OF epsilon, delta, table_name, analyst, kind
    ON requests BEGIN SELECT RAISE(ABORT, 'a charge is never changed'); END;
CREATE TRIGGER IF NOT EXISTS requests_end_once BEFORE UPDATE OF status ON requests
    WHEN OLD.status != 'reserved' OR NEW.status NOT IN ('done', 'lost')
    BEGIN SELECT RAISE(ABORT, 'a charge goes from reserved to done or lost, once'); END;
CREATE TRIGGER IF NOT EXISTS budgets_are_fixed BEFORE UPDATE OF epsilon, delta, fingerprint ON budgets
    BEGIN SELECT RAISE(ABORT, 'a table budget is fixed when the table is registered'); END;
CREATE TRIGGER IF NOT EXISTS budgets_are_never_deleted BEFORE DELETE ON budgets
    BEGIN SELECT RAISE(ABORT, 'the ledger never deletes a table budget'); END;
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY, table_name TEXT NOT NULL REFERENCES budgets(table_name), analyst TEXT NOT NULL,
    charge INTEGER NOT NULL REFERENCES requests(id), mode TEXT NOT NULL, version INTEGER NOT NULL,
    static TEXT NOT NULL, dynamic TEXT NOT NULL, model TEXT NOT NULL, model_updates INTEGER NOT NULL,
    created REAL NOT NULL);
CREATE TRIGGER IF NOT EXISTS sessions_are_never_deleted BEFORE DELETE ON sessions
    BEGIN SELECT RAISE(ABORT, 'an online session is never deleted: its state holds a spent budget'); END;
CREATE TABLE IF NOT EXISTS releases (
    id TEXT PRIMARY KEY, table_name TEXT NOT NULL REFERENCES budgets(table_name), analyst TEXT NOT NULL,
    charge INTEGER NOT NULL REFERENCES requests(id), release TEXT NOT NULL, rows TEXT NOT NULL,
    created REAL NOT NULL);
"""
SCHEMA_VERSION = "1"


class LedgerError(DPReleaseError):
    """The ledger file disagrees with the configuration or with itself; the service refuses to start."""


class RequestIdInUse(DPReleaseError):
    """A request id was already used by this analyst on this table (answered, in progress or lost)."""


@dataclass(frozen=True, slots=True)
class Reservation:
    """A charge recorded and committed: its row id and what it pays for."""

    row: int
    table: str
    analyst: str
    request_id: str
    kind: str
    epsilon: Fraction
    delta: Fraction


@dataclass(frozen=True, slots=True)
class RequestRecord:
    """A request as the ledger holds it (for replies to a repeated request id)."""

    row: int
    request_id: str
    kind: str
    status: str
    body_sha256: str
    session_id: str | None
    cells: int
    result: str | None
    table: str
    analyst: str


def as_fraction(value: object, name: str) -> Fraction:
    """An exact amount: a Fraction, an int, a decimal string ('0.1' is 1/10) or a float (its exact value)."""
    if isinstance(value, bool):
        raise InputError(f"{name} must be a number, got {value!r}")
    try:
        amount = Fraction(value) if isinstance(value, (Fraction, int, float, str)) else None
    except (ValueError, ZeroDivisionError, OverflowError):
        amount = None
    if amount is None:
        raise InputError(f"{name} must be a finite number, got {value!r}")
    if amount < 0:
        raise InputError(f"{name} must be >= 0, got {value!r}")
    return amount


class Ledger:
    """The budgets and charges of a service's tables in one SQLite file (see the module doc)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._writer = Writer(self.path)
        self._readers = Readers(self.path)
        self._writer.run(self._create)

    @staticmethod
    def _create(connection: sqlite3.Connection) -> None:
        for statement in SCHEMA.split(";\n"):
            if statement.strip():
                connection.execute(statement)
        found = connection.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone()
        if found is None:
            connection.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        elif found[0] != SCHEMA_VERSION:
            raise LedgerError(f"ledger schema version {found[0]!r}; this dprelease reads {SCHEMA_VERSION!r}")

    def close(self) -> None:
        self._writer.close()
        self._readers.close()

    @property
    def commits(self) -> int:
        return self._writer.commits

    def transaction(self, operation: Callable[[sqlite3.Connection], object]) -> object:
        """Run ``operation`` in a committed write transaction (group commit; see :mod:`~dprelease.service.db`)."""
        return self._writer.run(operation)

    def read(self, operation: Callable[[sqlite3.Connection], object]) -> object:
        return self._readers.snapshot(operation)

    # ------------------------------------------------------------------ tables
    def register_table(self, name: str, *, epsilon: object, delta: object = 0, fingerprint: str) -> None:
        """Record a table's budget the first time; afterwards the same budget and data must be given."""
        eps, dlt = as_fraction(epsilon, "epsilon"), as_fraction(delta, "delta")

        def register(connection: sqlite3.Connection) -> None:
            row = connection.execute("SELECT epsilon, delta, fingerprint FROM budgets WHERE table_name = ?",
                                     (name,)).fetchone()
            if row is None:
                connection.execute("INSERT INTO budgets VALUES (?, ?, ?, '0', '0', ?, ?)",
                                   (name, str(eps), str(dlt), fingerprint, time.time()))
                return
            if (Fraction(row[0]), Fraction(row[1])) != (eps, dlt):
                raise LedgerError(
                    f"table {name!r} was registered with budget (epsilon={row[0]}, delta={row[1]}); the configuration "
                    f"says (epsilon={eps}, delta={dlt}). A table's budget is fixed when it is first registered: "
                    "register the data under a new table name for a new budget")
            if row[2] != fingerprint:
                raise LedgerError(f"table {name!r} holds different data than when it was registered (its fingerprint "
                                  "changed); its budget belongs to the data it was registered with: register the new "
                                  "data under a new table name")

        self._writer.run(register)

    def set_caps(self, table: str, caps: Mapping[str, tuple[object | None, object | None]]) -> None:
        """Replace the per-analyst caps of ``table`` (None: no cap of that kind)."""
        rows = [(table, analyst, None if e is None else str(as_fraction(e, "cap epsilon")),
                 None if d is None else str(as_fraction(d, "cap delta"))) for analyst, (e, d) in caps.items()]

        def store(connection: sqlite3.Connection) -> None:
            connection.execute("DELETE FROM caps WHERE table_name = ?", (table,))
            connection.executemany("INSERT INTO caps VALUES (?, ?, ?, ?)", rows)

        self._writer.run(store)

    # ----------------------------------------------------------------- charges
    def reserve(self, *, table: str, analyst: str, request_id: str, kind: str, epsilon: object = 0,
                delta: object = 0, body_sha256: str = "", session_id: str | None = None, cells: int = 0,
                also: Callable[[sqlite3.Connection, int], None] | None = None) -> Reservation:
        """Record a charge (``status='reserved'``) if the table's budget and the analyst's cap allow it.

        Returns after the COMMIT (fsynced). Raises :class:`~dprelease.errors.BudgetExceededError` (nothing
        recorded) when the charge would exceed the table's remaining budget or the analyst's cap, and
        :class:`RequestIdInUse` when this analyst already used ``request_id`` on this table. ``also``
        runs in the same transaction (given the connection and the new row id).
        """
        if kind not in KINDS:
            raise InputError(f"kind must be one of {list(KINDS)}, got {kind!r}")
        eps, dlt = as_fraction(epsilon, "epsilon"), as_fraction(delta, "delta")

        def charge(connection: sqlite3.Connection) -> Reservation:
            budget = connection.execute(
                "SELECT epsilon, delta, spent_epsilon, spent_delta FROM budgets WHERE table_name = ?",
                (table,)).fetchone()
            if budget is None:
                raise InputError(f"unknown table {table!r}")
            total_e, total_d, spent_e, spent_d = map(Fraction, budget)
            if spent_e + eps > total_e or spent_d + dlt > total_d:
                raise BudgetExceededError(
                    f"the charge (epsilon={decimal_text(eps)}, delta={decimal_text(dlt)}) exceeds what is left of table "
                    f"{table!r}'s budget (epsilon={decimal_text(total_e - spent_e)}, "
                    f"delta={decimal_text(total_d - spent_d)}); nothing was charged or read")
            mine = connection.execute("SELECT spent_epsilon, spent_delta FROM analyst_spent WHERE table_name = ? "
                                      "AND analyst = ?", (table, analyst)).fetchone()
            mine_e, mine_d = (Fraction(mine[0]), Fraction(mine[1])) if mine else (Fraction(0), Fraction(0))
            cap = connection.execute("SELECT epsilon, delta FROM caps WHERE table_name = ? AND analyst = ?",
                                     (table, analyst)).fetchone()
            if cap is not None:
                cap_e, cap_d = (None if c is None else Fraction(c) for c in cap)
                if (cap_e is not None and mine_e + eps > cap_e) or (cap_d is not None and mine_d + dlt > cap_d):
                    caps = ", ".join(f"{k}={decimal_text(v)}" for k, v in (("epsilon", cap_e), ("delta", cap_d))
                                     if v is not None)
                    raise BudgetExceededError(
                        f"the charge (epsilon={decimal_text(eps)}, delta={decimal_text(dlt)}) exceeds analyst "
                        f"{analyst!r}'s cap on table {table!r} ({caps}; spent epsilon={decimal_text(mine_e)}, "
                        f"delta={decimal_text(mine_d)}); nothing was charged or read")
            try:
                cursor = connection.execute(
                    "INSERT INTO requests (table_name, analyst, request_id, body_sha256, kind, epsilon, delta, status, "
                    "session_id, cells, reserved_at) VALUES (?, ?, ?, ?, ?, ?, ?, 'reserved', ?, ?, ?)",
                    (table, analyst, request_id, body_sha256, kind, str(eps), str(dlt), session_id, cells, time.time()))
            except sqlite3.IntegrityError:
                raise RequestIdInUse(f"request id {request_id!r} was already used on table {table!r}") from None
            if eps or dlt:
                connection.execute("UPDATE budgets SET spent_epsilon = ?, spent_delta = ? WHERE table_name = ?",
                                   (str(spent_e + eps), str(spent_d + dlt), table))
                connection.execute("INSERT INTO analyst_spent VALUES (?, ?, ?, ?) ON CONFLICT (table_name, analyst) "
                                   "DO UPDATE SET spent_epsilon = excluded.spent_epsilon, "
                                   "spent_delta = excluded.spent_delta",
                                   (table, analyst, str(mine_e + eps), str(mine_d + dlt)))
            row = cursor.lastrowid
            if also is not None:
                also(connection, row)
            return Reservation(row, table, analyst, request_id, kind, eps, dlt)

        return self._writer.run(charge)

    def complete(self, row: int, *, result: str, also: Callable[[sqlite3.Connection], None] | None = None) -> None:
        """Mark a reserved charge ``done`` with its result, and run ``also`` in the same transaction.

        Raises :class:`LedgerError` if the charge is no longer reserved (e.g. recovered as lost): the
        result must then not be released.
        """
        self.complete_later(row, result=result, also=also)()

    def complete_later(self, row: int, *, result: str,
                       also: Callable[[sqlite3.Connection], None] | None = None) -> Callable[[], None]:
        """:meth:`complete`, queued: returns the function that waits for its commit (and raises if it failed).

        Operations queued later run after it, in the same or a later transaction.
        """
        def finish(connection: sqlite3.Connection) -> None:
            cursor = connection.execute("UPDATE requests SET status = 'done', finished_at = ?, result = ? "
                                        "WHERE id = ? AND status = 'reserved'", (time.time(), result, row))
            if cursor.rowcount != 1:
                raise LedgerError(f"charge {row} is no longer reserved; its result is not released")
            if also is not None:
                also(connection)

        return self._writer.submit(finish)

    def mark_lost(self, row: int, *, reason: str, also: Callable[[sqlite3.Connection], None] | None = None) -> None:
        """A reserved charge whose work failed or was cut off after the reservation: it stays spent, and its
        request is never answered. ``also`` runs in the same transaction (e.g. the session's forfeit)."""
        def lose(connection: sqlite3.Connection) -> None:
            connection.execute("UPDATE requests SET status = 'lost', finished_at = ?, result = ? "
                               "WHERE id = ? AND status = 'reserved'", (time.time(), reason, row))
            if also is not None:
                also(connection)

        self._writer.run(lose)

    def reserved(self) -> list[RequestRecord]:
        """Every charge still ``reserved``: at start-up, those of a process that died after reserving them."""
        rows = self._readers.connection().execute(
            f"SELECT {_RECORD_COLUMNS} FROM requests WHERE status = 'reserved' ORDER BY id").fetchall()
        return [RequestRecord(*r) for r in rows]

    # ------------------------------------------------------------------- reads
    def lookup(self, table: str, analyst: str, request_id: str) -> RequestRecord | None:
        row = self._readers.connection().execute(
            f"SELECT {_RECORD_COLUMNS} FROM requests WHERE table_name = ? AND analyst = ? AND request_id = ?",
            (table, analyst, request_id)).fetchone()
        return None if row is None else RequestRecord(*row)

    def spent(self, table: str) -> dict[str, object]:
        """The table's budget, what has been spent (in total and per analyst, with caps) and what is left."""
        def read(connection: sqlite3.Connection) -> dict[str, object]:
            budget = connection.execute("SELECT epsilon, delta, spent_epsilon, spent_delta FROM budgets "
                                        "WHERE table_name = ?", (table,)).fetchone()
            if budget is None:
                raise InputError(f"unknown table {table!r}")
            total_e, total_d, spent_e, spent_d = map(Fraction, budget)
            analysts: dict[str, dict[str, object]] = {}
            for analyst, e, d in connection.execute("SELECT analyst, spent_epsilon, spent_delta FROM analyst_spent "
                                                    "WHERE table_name = ? ORDER BY analyst", (table,)):
                analysts[analyst] = {"spent": _amounts(Fraction(e), Fraction(d))}
            for analyst, e, d in connection.execute("SELECT analyst, epsilon, delta FROM caps WHERE table_name = ?",
                                                    (table,)):
                entry = analysts.setdefault(analyst, {"spent": _amounts(Fraction(0), Fraction(0))})
                entry["cap"] = {"epsilon": e, "delta": d}
            counts = dict(connection.execute("SELECT status, COUNT(*) FROM requests WHERE table_name = ? AND "
                                             "kind != 'query' GROUP BY status", (table,)).fetchall())
            return {"table": table, "budget": _amounts(total_e, total_d), "spent": _amounts(spent_e, spent_d),
                    "remaining": _amounts(total_e - spent_e, total_d - spent_d), "analysts": analysts,
                    "charges": {s: counts.get(s, 0) for s in ("reserved", "done", "lost")}}

        return self._readers.snapshot(read)

    def charges(self, table: str) -> list[dict[str, object]]:
        """Every charge with a non-zero amount on ``table``, oldest first."""
        rows = self._readers.connection().execute(
            "SELECT id, analyst, kind, epsilon, delta, status, session_id, reserved_at, finished_at FROM requests "
            "WHERE table_name = ? AND kind != 'query' ORDER BY id", (table,)).fetchall()
        return [{"charge": r[0], "analyst": r[1], "kind": r[2], "epsilon": r[3], "delta": r[4], "status": r[5],
                 "session": r[6], "reserved_at": r[7], "finished_at": r[8]} for r in rows]

    def verify(self, table: str) -> None:
        """Recompute the table's and analysts' totals from the charges; raise :class:`LedgerError` on a mismatch."""
        def check(connection: sqlite3.Connection) -> None:
            rows = connection.execute("SELECT analyst, epsilon, delta FROM requests WHERE table_name = ?",
                                      (table,)).fetchall()
            budget = connection.execute("SELECT epsilon, delta, spent_epsilon, spent_delta FROM budgets "
                                        "WHERE table_name = ?", (table,)).fetchone()
            total_e, total_d, spent_e, spent_d = map(Fraction, budget)
            sums: dict[str, list[Fraction]] = {}
            for analyst, e, d in rows:
                entry = sums.setdefault(analyst, [Fraction(0), Fraction(0)])
                entry[0] += Fraction(e)
                entry[1] += Fraction(d)
            all_e = sum((v[0] for v in sums.values()), Fraction(0))
            all_d = sum((v[1] for v in sums.values()), Fraction(0))
            if (all_e, all_d) != (spent_e, spent_d) or spent_e > total_e or spent_d > total_d:
                raise LedgerError(f"table {table!r}: the charges sum to (epsilon={all_e}, delta={all_d}), the total "
                                  f"says ({spent_e}, {spent_d}), the budget is ({total_e}, {total_d})")
            for analyst, e, d in connection.execute("SELECT analyst, spent_epsilon, spent_delta FROM analyst_spent "
                                                    "WHERE table_name = ?", (table,)):
                if [Fraction(e), Fraction(d)] != sums.get(analyst, [Fraction(0), Fraction(0)]):
                    raise LedgerError(f"table {table!r}: analyst {analyst!r}'s total disagrees with their charges")

        self._readers.snapshot(check)


_RECORD_COLUMNS = "id, request_id, kind, status, body_sha256, session_id, cells, result, table_name, analyst"


def _amounts(epsilon: Fraction, delta: Fraction) -> dict[str, object]:
    """An (epsilon, delta) pair as JSON: exact text and, for reading, floats."""
    return {"epsilon": str(epsilon), "delta": str(delta), "epsilon_float": float(epsilon),
            "delta_float": float(delta)}
