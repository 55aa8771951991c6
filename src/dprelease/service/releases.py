"""Synthetic releases on request: MWEM through :func:`dprelease.api.synthesize`, paid from the table's budget.

The steps are those of every charge: public checks, then the charge reserved and committed, then
MWEM reads the data, then the release (its JSON and its rows) is stored in the same transaction that
marks the charge done. A release lost to a crash after its reservation is never re-run from the same
charge (that would spend it twice); its request id answers "lost".

On a table read through a schema the release records the schema (its marginals labelled, its guarantee
composed with the schema's draft, as ``synth`` does) and its rows are the schema's labels: a category as
itself, a bin as its label (``21..25``), NULL as the schema's NULL text (post-processing, no draw).
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import time
from dataclasses import dataclass
from fractions import Fraction

from dprelease.api import in_declared_order, synthesize, with_schema
from dprelease.errors import InputError
from dprelease.privacy.noise import float_at_most
from dprelease.privacy.rng import make_rng
from dprelease.queries.workload import Workload
from dprelease.schema import decode
from dprelease.schema.between import betweens
from dprelease.service.faults import fault_point
from dprelease.service.ledger import Ledger
from dprelease.service.sessions import WORKLOAD_SPEC, NotFound, amount
from dprelease.service.tables import ServedTable
from dprelease.validation import check_epsilon

ROWS = ("auto", "fitted", "round", "sample")
#: The most marginals a requested workload may hold (a bound on the work one request can ask for).
MAX_MARGINALS = 1000


@dataclass(frozen=True, slots=True)
class ReleaseRequest:
    epsilon: Fraction
    delta: Fraction
    workload: object  # a spec such as "1-3way", or a list of attribute lists
    rows: str

    FIELDS = ("request_id", "epsilon", "delta", "workload", "rows")

    @classmethod
    def from_body(cls, body: dict[str, object]) -> ReleaseRequest:
        unknown = sorted(set(body) - set(cls.FIELDS))
        if unknown:
            raise InputError(f"unknown field(s) {unknown}; a release request has {list(cls.FIELDS)}")
        if "epsilon" not in body:
            raise InputError("epsilon is required (what the release may spend of the table's budget)")
        rows = body.get("rows", "auto")
        if rows not in ROWS:
            raise InputError(f"rows must be one of {list(ROWS)}, got {rows!r}")
        return cls(amount(body["epsilon"], "epsilon", positive=True), amount(body.get("delta", 0), "delta"),
                   body.get("workload", "1-3way"), rows)

    def check(self, table: ServedTable) -> Workload:
        """The workload, and every public check MWEM makes, before anything is spent."""
        check_epsilon(float(self.epsilon), "epsilon")  # synthesize's own cap, checked before the charge
        spec = self.workload
        if isinstance(spec, str):
            if not WORKLOAD_SPEC.match(spec):
                raise InputError(f"workload must be a spec such as '1-3way' or a list of attribute lists, got {spec!r}")
            workload = Workload.from_spec(spec, table.domain)
        elif isinstance(spec, list) and all(isinstance(m, list) and all(isinstance(a, str) for a in m) for m in spec):
            workload = Workload(table.domain, tuple(tuple(m) for m in spec))
        else:
            raise InputError(f"workload must be a spec such as '1-3way' or a list of attribute lists, got {spec!r}")
        if len(workload.marginals) > MAX_MARGINALS:
            raise InputError(f"workload has {len(workload.marginals)} marginals; at most {MAX_MARGINALS} per request")
        return workload


class Releases:
    def __init__(self, ledger: Ledger, tables: dict[str, ServedTable]) -> None:
        self._ledger = ledger
        self._tables = tables

    def create(self, *, table: str, analyst: str, request_id: str, body_sha256: str,
               request: ReleaseRequest) -> dict[str, object]:
        served = self._tables[table]
        workload = request.check(served)  # public: a mistake costs nothing
        release_id = "r-" + secrets.token_hex(8)
        fault_point("before_reserve", request_id)
        reservation = self._ledger.reserve(table=table, analyst=analyst, request_id=request_id, kind="release",
                                           epsilon=request.epsilon, delta=request.delta, body_sha256=body_sha256)
        fault_point("after_reserve", request_id)
        try:
            release = synthesize(served, workload, mechanism="mwem", epsilon=float_at_most(request.epsilon),
                                 delta=float_at_most(request.delta), rows=request.rows)
            fault_point("after_count", request_id)
            if served.schema is not None:  # a raw table: the schema in the release, its rows as the schema's labels
                if served.schema.ordered or betweens(served.schema):  # rows breaking its order drawn again
                    release = in_declared_order(release, served.schema, make_rng(None, warn=False))
                release = with_schema(release, served.schema)
                rows = decode(release.rows, served.schema, values="label").csv()
                # as synth records it: evaluate and compare then read these rows by the labels, unasked
                release.extra["decoded"] = {"values": "label", "format": "csv", "columns": list(served.schema.names)}
            else:
                rows = release.rows_csv()
            document = release.to_json()
            summary = {"release": release_id, "table": table, "mechanism": "mwem", "guarantee": release.guarantee,
                       "charged": {"epsilon": str(reservation.epsilon), "delta": str(reservation.delta)},
                       "rows": len(release.rows), "rows_url": f"/v1/tables/{table}/releases/{release_id}/rows.csv",
                       "release_url": f"/v1/tables/{table}/releases/{release_id}"}

            def store(connection: sqlite3.Connection) -> None:
                connection.execute("INSERT INTO releases VALUES (?, ?, ?, ?, ?, ?, ?)",
                                   (release_id, table, analyst, reservation.row, json.dumps(document), rows,
                                    time.time()))

            self._ledger.complete(reservation.row, result=json.dumps(summary), also=store)
        except BaseException:
            try:
                self._ledger.mark_lost(reservation.row, reason="lost: the release failed after its charge was "
                                                               "reserved; the charge stays spent")
            except Exception:  # the ledger is unavailable: the next start-up's recovery does it
                pass
            raise
        fault_point("after_answer", request_id)
        return summary

    def get(self, *, table: str, release_id: str, part: str = "release") -> str:
        """A stored release's JSON (``part="release"``) or rows CSV (``part="rows"``): DP output, any analyst of the table."""
        column = {"release": "release", "rows": "rows"}[part]
        row = self._ledger.read(lambda c: c.execute(f"SELECT {column} FROM releases WHERE id = ? AND table_name = ?",
                                                    (release_id, table)).fetchone())
        if row is None:
            raise NotFound(f"no release {release_id!r} on table {table!r}")
        return row[0]
