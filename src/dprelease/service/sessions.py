"""Online MW sessions served over HTTP, their whole state in the ledger's file.

A session is :class:`~dprelease.mechanisms.online_mw.OnlinePrivateMW` (``mode="warm"`` or the book's
``mode="book"``) on one table, owned by the analyst who opened it and paid for by one charge on the
table's budget. Its state (the plan, the exact ledger, the sparse vector's counters and **secret noisy
threshold**, the hypothesis) lives in the ``sessions`` table of the ledger's SQLite file and is
written in the same transaction as the bookkeeping of the request that changed it:

* opening: the charge is reserved and committed, then the mechanism runs (MWEM reads the data, the
  threshold is drawn), then the session's state and the charge's ``done`` are committed together;
* a query: a ``query`` record is reserved and committed (so a request id is answered at most once),
  then NumericSparse reads the data, then the answer and the new state are committed together;
  only then does the answer leave the process.

A restart resumes every session from its last committed state: no noise is replayed (the noisy
threshold is read back, never redrawn for a run that is still open) and no answer is given twice.
A query reserved but never committed (the process died after its reservation) may have been
compared with the threshold, and a crash could reveal how that went; it is therefore counted as an
above-threshold answer that was never released (:meth:`OnlinePrivateMW.forfeit`: one of the c
updates, a fresh threshold), in the same transaction that marks it lost. One request is in flight
per session at a time (a lock), so at most one such query (or one marginal's cells) per session.
"""

from __future__ import annotations

import json
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from dprelease.errors import InputError, InputTypeError
from dprelease.mechanisms.online_mw import OnlinePrivateMW, session_rule
from dprelease.mechanisms.online_plan import MODES, OnlineMWPlan, WarmPlan
from dprelease.mechanisms.online_queries import answer_record, check_together
from dprelease.mechanisms.online_state import DYNAMIC_KEYS, encode_model, session_body, session_dynamic, session_from_body
from dprelease.mechanisms.online_warm import check_warm_workload
from dprelease.privacy.noise import float_at_most
from dprelease.privacy.rng import SecureRandom
from dprelease.queries.product import ProductQuery
from dprelease.representations import REPRESENTATIONS
from dprelease.service.db import LedgerUnavailable
from dprelease.service.faults import fault_point
from dprelease.service.ledger import Ledger, LedgerError, Reservation
from dprelease.service.tables import ServedTable

#: A workload spec the service accepts (never a file path: the analyst does not name server files).
WORKLOAD_SPEC = re.compile(r"^\d+(-\d+)?way$")


class NotFound(InputError):
    """No such session (or release) for this analyst on this table."""


@dataclass(frozen=True, slots=True)
class SessionRequest:
    """A request to open a session, checked from public information before anything is spent."""

    mode: str
    epsilon: Fraction
    delta: Fraction
    max_queries: int | None
    alpha: float | None
    accuracy: float | None
    beta: float
    warm_share: float | None
    warm_workload: str | None
    representation: str

    FIELDS = ("request_id", "mode", "epsilon", "delta", "max_queries", "alpha", "accuracy", "beta", "warm_share",
              "warm_workload", "representation")

    @classmethod
    def from_body(cls, body: dict[str, object], *, max_queries_cap: int) -> SessionRequest:
        unknown = sorted(set(body) - set(cls.FIELDS))
        if unknown:
            raise InputError(f"unknown field(s) {unknown}; a session request has {list(cls.FIELDS)}")
        mode = body.get("mode", "warm")
        if mode not in MODES:
            raise InputError(f"mode must be one of {list(MODES)}, got {mode!r}")
        if "epsilon" not in body:
            raise InputError("epsilon is required (what the session may spend of the table's budget)")
        max_queries = body.get("max_queries")
        if max_queries is not None and (isinstance(max_queries, bool) or not isinstance(max_queries, int)
                                        or not 1 <= max_queries <= max_queries_cap):
            raise InputError(f"max_queries must be an integer in [1, {max_queries_cap}], got {shown(max_queries)}")
        warm_workload = body.get("warm_workload")
        if warm_workload is not None and (not isinstance(warm_workload, str) or not WORKLOAD_SPEC.match(warm_workload)):
            raise InputError(f"warm_workload must be a spec such as '1-3way', got {warm_workload!r}")
        representation = body.get("representation", "auto")
        if representation not in REPRESENTATIONS:
            raise InputError(f"representation must be one of {list(REPRESENTATIONS)}, got {representation!r}")
        return cls(mode, amount(body["epsilon"], "epsilon", positive=True), amount(body.get("delta", 0), "delta"),
                   max_queries, optional_number(body, "alpha"), optional_number(body, "accuracy"),
                   0.05 if body.get("beta") is None else optional_number(body, "beta"),
                   optional_number(body, "warm_share"), warm_workload,
                   representation)

    def mechanism_arguments(self) -> dict[str, object]:
        """The keyword arguments of OnlinePrivateMW: amounts rounded down to floats (never above the charge)."""
        arguments = {"epsilon": float_at_most(self.epsilon), "delta": float_at_most(self.delta),
                     "max_queries": self.max_queries, "beta": self.beta, "mode": self.mode,
                     "representation": self.representation}
        if self.mode == "book":
            arguments["alpha"] = self.alpha
        else:
            arguments |= {"alpha": self.alpha, "accuracy": self.accuracy, "warm_share": self.warm_share,
                          "warm_workload": self.warm_workload}
        return arguments

    def check(self, table: ServedTable) -> OnlineMWPlan | WarmPlan:
        """Every public check the session would make, so that a mistake costs nothing (raises InputError)."""
        arguments = self.mechanism_arguments()
        if self.mode == "book":
            if self.accuracy is not None or self.warm_share is not None or self.warm_workload is not None:
                raise InputError("accuracy, warm_share and warm_workload apply to mode 'warm' only")
            plan = OnlineMWPlan.solve(n=table.n, universe_size=table.domain.size, epsilon=arguments["epsilon"],
                                      delta=arguments["delta"], alpha=self.alpha, max_queries=self.max_queries,
                                      beta=self.beta)
        else:
            if self.alpha is not None:
                raise InputError("mode 'warm' takes accuracy and max_queries, not alpha (its threshold is solved from "
                                 "the accuracy and the budget)")
            if self.accuracy is None or self.max_queries is None:
                raise InputError("mode 'warm' needs accuracy (every answer's target, e.g. 0.05) and max_queries")
            plan = WarmPlan.solve(n=table.n, universe_size=table.domain.size, epsilon=arguments["epsilon"],
                                  delta=arguments["delta"], accuracy=self.accuracy, max_queries=self.max_queries,
                                  beta=self.beta, **{k: v for k, v in (("warm_share", self.warm_share),
                                                                        ("warm_workload", self.warm_workload))
                                                     if v is not None})
            check_warm_workload(plan.warm_workload, table)
        update = session_rule(table.domain, representation=self.representation)
        if update.resolved_representation(table.domain) == "histogram":
            table.domain.check_fits(update.max_cells)
        return plan


def amount(value: object, name: str, *, positive: bool = False) -> Fraction:
    """A privacy amount: a JSON number, read as the exact decimal written (``0.1`` is 1/10). A string such as
    ``"0.1"`` is refused, as ``true`` is: an amount that is spent is written as a number."""
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise InputTypeError(f"{name} must be a JSON number, got {shown(value)}")
    exact = Fraction(value)
    if (positive and exact <= 0) or exact < 0 or (name == "delta" and exact >= 1):
        raise InputError(f"{name} must be a number {'> 0' if positive else 'in [0, 1)'}, got {shown(value)}")
    return exact


def shown(value: object) -> str:
    """A value of a request body as the client wrote it (numbers as written, strings quoted as in JSON)."""
    try:
        return json.dumps(value) if isinstance(value, (str, bool, type(None))) else repr(value)
    except ValueError:
        return repr(value)


def optional_number(body: dict[str, object], name: str) -> float | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise InputTypeError(f"{name} must be a JSON number, got {shown(value)}")
    return float(value)


class _Live:
    """A session in memory: the lock that serializes its requests, and its state when loaded."""

    __slots__ = ("id", "table", "analyst", "lock", "session", "version", "model_updates", "unsettled")

    def __init__(self, session_id: str, table: str, analyst: str, version: int, model_updates: int) -> None:
        self.id, self.table, self.analyst = session_id, table, analyst
        self.lock = threading.Lock()
        self.session: OnlinePrivateMW | None = None
        self.version, self.model_updates = version, model_updates
        self.unsettled = False  # a lost query's forfeit could not be recorded: serve nothing until a restart


class Sessions:
    """Every online session of the service (see the module doc)."""

    def __init__(self, ledger: Ledger, tables: dict[str, ServedTable]) -> None:
        self._ledger = ledger
        self._tables = tables
        self._live: dict[str, _Live] = {}
        self._guard = threading.Lock()

    # ------------------------------------------------------------------ opening
    def open(self, *, table: str, analyst: str, request_id: str, body_sha256: str,
             request: SessionRequest) -> dict[str, object]:
        served = self._tables[table]
        plan = request.check(served)  # public: a mistake costs nothing
        session_id = "s-" + secrets.token_hex(8)
        fault_point("before_reserve", request_id)
        reservation = self._ledger.reserve(table=table, analyst=analyst, request_id=request_id, kind="session",
                                           epsilon=request.epsilon, delta=request.delta, body_sha256=body_sha256,
                                           session_id=session_id)
        fault_point("after_reserve", request_id)
        try:
            session = OnlinePrivateMW(served, rng=SecureRandom(), **request.mechanism_arguments())
            fault_point("after_count", request_id)
            result = self._public(session_id, session, reservation, plan)
            body = session_body(session, with_model=False)
            dynamic = json.dumps({key: body.pop(key) for key in DYNAMIC_KEYS})
            static, model = json.dumps(body), json.dumps(encode_model(session.model))
            updates = session.updates_used

            def insert(connection: sqlite3.Connection) -> None:
                connection.execute("INSERT INTO sessions VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)",
                                   (session_id, table, analyst, reservation.row, request.mode, static, dynamic, model,
                                    updates, time.time()))

            self._ledger.complete(reservation.row, result=json.dumps(result), also=insert)
        except BaseException:
            self._lose(reservation.row, "lost: the session could not be started after its charge was reserved; "
                                        "the charge stays spent")
            raise
        live = _Live(session_id, table, analyst, 0, updates)
        live.session = session
        with self._guard:
            self._live[session_id] = live
        fault_point("after_answer", request_id)
        return result

    @staticmethod
    def _public(session_id: str, session: OnlinePrivateMW, reservation: Reservation,
                plan: OnlineMWPlan | WarmPlan) -> dict[str, object]:
        result = {"session": session_id, "mode": session.mode, "charged": {"epsilon": str(reservation.epsilon),
                                                                           "delta": str(reservation.delta)},
                  **session.describe()}
        if session.plan.vacuous:
            result["warning"] = (f"the book's promise 3 alpha = {session.promised_accuracy:.3g} is >= 1 at n = "
                                 f"{plan.n}: it is vacuous, and at this threshold the session answers from the uniform "
                                 "prior; mode 'warm' answers from a private synopsis")
        return result

    # ---------------------------------------------------------------- answering
    def ask(self, *, table: str, analyst: str, session_id: str, request_id: str, body_sha256: str,
            queries: list[ProductQuery], extra: dict[str, object] | None = None) -> dict[str, object]:
        """Answer ``queries`` (one, or a marginal's cells) in the session; see the module doc for the steps."""
        live = self._get(session_id, table, analyst)
        with live.lock:
            if live.unsettled:
                raise LedgerUnavailable(f"session {session_id!r} has a lost query whose forfeit is not recorded yet; "
                                        "it answers again after the service restarts")
            session = self._loaded(live)
            check_together(session, queries)  # public: a refusal or a mistake reserves and reads nothing
            fault_point("before_reserve", request_id)
            version = live.version
            reservation = self._ledger.reserve(
                table=table, analyst=analyst, request_id=request_id, kind="query", body_sha256=body_sha256,
                session_id=session_id, cells=len(queries), also=lambda c, row: _check_version(c, session_id, version))
            fault_point("after_reserve", request_id)
            try:
                answers = [answer_record(session, query) for query in queries]
                fault_point("after_count", request_id)
                result = {"session": session_id, "request_id": request_id, **(extra or {}), "answers": answers,
                          "queries_seen": session.queries_seen, "updates_used": session.updates_used,
                          "remaining_queries": session.remaining_queries, "exhausted": session.exhausted}
                save, model_updates = self._saver(live, session)
                committed = self._ledger.complete_later(reservation.row, result=json.dumps(result), also=save)
            except BaseException:
                live.session = None  # ran ahead of the disk: reload, and forfeit what this request may have used
                self._forfeit(live, reservation.row, len(queries), "the request failed after its reservation")
                raise
            # The next request of this session may start now: its reservation is queued after this answer's
            # commit, and checks the session's version, so it never runs on a state that did not reach the disk.
            live.version, live.model_updates = version + 1, model_updates
        try:
            committed()  # the answer leaves the process only once it and the new state are on disk
        except BaseException:
            with live.lock:
                self._forfeit(live, reservation.row, len(queries), "its answer could not be committed")
            raise
        fault_point("after_answer", request_id)
        return result

    def describe(self, *, table: str, analyst: str, session_id: str) -> dict[str, object]:
        live = self._get(session_id, table, analyst)
        with live.lock:
            return {"session": session_id, **self._loaded(live).describe()}

    # ----------------------------------------------------------------- recovery
    def recover(self) -> dict[str, int]:
        """At start-up: mark lost every charge a dead process left reserved, forfeiting lost session queries."""
        counts = {"lost_charges": 0, "lost_queries": 0, "forfeited": 0}
        for record in self._ledger.reserved():
            if record.kind == "query" and record.session_id is not None:
                live = self._get(record.session_id, record.table, record.analyst)
                with live.lock:  # strict: a forfeit that cannot be recorded stops the start-up
                    counts["forfeited"] += self._forfeit(live, record.row, record.cells,
                                                         "the service stopped after its reservation", strict=True)
                counts["lost_queries"] += 1
            else:
                self._lose(record.row, "lost: the service stopped after reserving this charge; it stays spent")
                counts["lost_charges"] += 1
        return counts

    def _forfeit(self, live: _Live, row: int, cells: int, why: str, *, strict: bool = False) -> int:
        """Mark a reserved query lost and, in the same transaction, count its cells as above-threshold answers.

        If that cannot be recorded, the session answers nothing more in this process (``unsettled``): the
        query stays reserved, and the next start-up's recovery forfeits it (or, ``strict``, this raises).
        """
        try:
            live.session = None
            session = self._loaded(live)  # the last committed state
            forfeited = session.forfeit(cells)
            save, model_updates = self._saver(live, session)
            self._ledger.mark_lost(row, reason=f"lost: {why}; not answered, and {forfeited} of its {cells} "
                                               "queries counted as above-threshold answers (one update each)",
                                   also=save)
            live.version, live.model_updates = live.version + 1, model_updates
            return forfeited
        except Exception:
            live.session = None
            live.unsettled = True
            if strict:
                raise
            return 0

    def _lose(self, row: int, reason: str) -> None:
        try:
            self._ledger.mark_lost(row, reason=reason)
        except Exception:  # the ledger is unavailable: the next start-up's recovery does it
            pass

    # -------------------------------------------------------------------- state
    def _get(self, session_id: str, table: str, analyst: str) -> _Live:
        with self._guard:
            live = self._live.get(session_id)
            if live is None:
                row = self._ledger.read(lambda c: c.execute(
                    "SELECT table_name, analyst, version, model_updates FROM sessions WHERE id = ?",
                    (session_id,)).fetchone())
                if row is not None:
                    live = self._live[session_id] = _Live(session_id, row[0], row[1], row[2], row[3])
        if live is None or live.table != table or live.analyst != analyst:
            raise NotFound(f"no session {session_id!r} of this analyst on table {table!r}")
        return live

    def _loaded(self, live: _Live) -> OnlinePrivateMW:
        """The session in memory, read back from its last committed state when needed (caller holds the lock)."""
        if live.session is None:
            row = self._ledger.read(lambda c: c.execute(
                "SELECT static, dynamic, model, version, model_updates FROM sessions WHERE id = ?",
                (live.id,)).fetchone())
            body = {**json.loads(row[0]), **json.loads(row[1]), "model": json.loads(row[2])}
            live.session = session_from_body(OnlinePrivateMW, body, self._tables[live.table],
                                             where=f"session {live.id!r}")
            live.version, live.model_updates = row[3], row[4]
        return live.session

    @staticmethod
    def _saver(live: _Live, session: OnlinePrivateMW) -> tuple[Callable[[sqlite3.Connection], None], int]:
        """The SQL that stores the session's new state (run in the answer's transaction), and its model version."""
        dynamic = json.dumps(session_dynamic(session))
        updates = session.updates_used
        model = json.dumps(encode_model(session.model)) if updates != live.model_updates else None
        version, session_id = live.version, live.id

        def save(connection: sqlite3.Connection) -> None:
            cursor = connection.execute("UPDATE sessions SET version = version + 1, dynamic = ? WHERE id = ? AND "
                                        "version = ?", (dynamic, session_id, version))
            if cursor.rowcount != 1:
                raise LedgerError(f"session {session_id!r} changed on disk under this process; nothing is released")
            if model is not None:
                connection.execute("UPDATE sessions SET model = ?, model_updates = ? WHERE id = ?",
                                   (model, updates, session_id))

        return save, updates


def _check_version(connection: sqlite3.Connection, session_id: str, version: int) -> None:
    found = connection.execute("SELECT version FROM sessions WHERE id = ?", (session_id,)).fetchone()
    if found is None or found[0] != version:
        raise LedgerError(f"session {session_id!r} changed on disk under this process; refusing to answer from it")
