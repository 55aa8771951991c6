"""The service's endpoints, independent of the HTTP server: a request in, a status and a JSON body out.

Endpoints (all JSON; every one but ``/v1/health`` needs ``Authorization: Bearer <token>``):

=======  ==============================================  =====================================================
GET      /v1/health                                       ``{"status": "ok"}``
GET      /v1/tables                                       the tables this analyst may use (domain, n, budget)
GET      /v1/tables/{table}/budget                        spent and left: the table, each analyst, each charge
POST     /v1/tables/{table}/sessions                      open an online MW session (a charge)
GET      /v1/tables/{table}/sessions/{id}                 the session's public state (plan, counters, ledger)
POST     /v1/tables/{table}/sessions/{id}/queries         ask a counting query (``where`` / ``weights``) or a
                                                          marginal (``marginal``: its cells, each a query)
POST     /v1/tables/{table}/releases                      a synthetic release by MWEM (a charge)
GET      /v1/tables/{table}/releases/{id}                 the release (JSON); ``.../rows.csv``: its rows
=======  ==============================================  =====================================================

Every POST may carry a ``request_id`` (letters, digits, ``_.:-``, up to 128): a repeated id gets the
stored answer again (``"replayed": true``), never a new one; an id whose request was cut off by a
crash after its reservation gets 409 (``"lost": true``): its charge stays spent and it is not answered.
Mistakes get 4xx before anything is reserved or read: 400 a bad body or parameter, 401 a missing or
unknown token, 403 a refusal (budget, cap, or the session's plan used up), 404 an unknown table (or one
this analyst may not use), session or release, 405, 409 (request id), 411/413 (body length, in the
HTTP layer). 503: the ledger could not commit (nothing was released; restart the service).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import sys
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field

from dprelease.errors import BudgetExceededError, DPReleaseError, InputError, InputTypeError
from dprelease.mechanisms.online_queries import parse_queries
from dprelease.privacy.sparse_vector import dataset_fingerprint
from dprelease.service.config import ServiceConfig, decimal_text, loads_exact
from dprelease.service.db import LedgerUnavailable
from dprelease.service.ledger import Ledger, LedgerError, RequestIdInUse
from dprelease.service.releases import ReleaseRequest, Releases
from dprelease.service.sessions import NotFound, SessionRequest, Sessions
from dprelease.service.tables import ServedTable, load_table

REQUEST_ID = re.compile(r"^[A-Za-z0-9_.:-]{1,128}$")
_ROUTES = [
    ("GET", re.compile(r"^/v1/health$"), "health"),
    ("GET", re.compile(r"^/v1/tables$"), "tables"),
    ("GET", re.compile(r"^/v1/tables/(?P<table>[^/]+)/budget$"), "budget"),
    ("POST", re.compile(r"^/v1/tables/(?P<table>[^/]+)/sessions$"), "open_session"),
    ("GET", re.compile(r"^/v1/tables/(?P<table>[^/]+)/sessions/(?P<session>[^/]+)$"), "session"),
    ("POST", re.compile(r"^/v1/tables/(?P<table>[^/]+)/sessions/(?P<session>[^/]+)/queries$"), "query"),
    ("POST", re.compile(r"^/v1/tables/(?P<table>[^/]+)/releases$"), "release"),
    ("GET", re.compile(r"^/v1/tables/(?P<table>[^/]+)/releases/(?P<release>[^/]+)$"), "get_release"),
    ("GET", re.compile(r"^/v1/tables/(?P<table>[^/]+)/releases/(?P<release>[^/]+)/rows\.csv$"), "get_rows"),
]


class Unauthorized(DPReleaseError):
    pass


@dataclass(frozen=True, slots=True)
class Response:
    status: int
    body: bytes
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)


def json_response(status: int, payload: object, **headers: str) -> Response:
    return Response(status, (json.dumps(payload, default=str) + "\n").encode("utf-8"), headers=headers)


class Service:
    """Everything a running ``dprelease serve`` holds: configuration, ledger, tables, sessions, releases."""

    def __init__(self, config: ServiceConfig, ledger: Ledger, tables: dict[str, ServedTable]) -> None:
        self.config = config
        self.ledger = ledger
        self.tables = tables
        self.sessions = Sessions(ledger, tables)
        self.releases = Releases(ledger, tables)
        self.recovered: dict[str, int] = {}

    @staticmethod
    def load_tables(config: ServiceConfig) -> dict[str, ServedTable]:
        """Read every configured table (raises :class:`InputError` naming a bad one); writes nothing."""
        return {name: load_table(table) for name, table in config.tables.items()}

    @classmethod
    def start(cls, config: ServiceConfig, tables: dict[str, ServedTable] | None = None) -> Service:
        """Load every table (unless given, from :meth:`load_tables`), open the ledger, register budgets and caps,
        check the ledger, recover.

        Raises :class:`InputError` (or :class:`LedgerError`) before anything is served if any of it fails.
        """
        if tables is None:
            tables = cls.load_tables(config)
        ledger = Ledger(config.ledger)
        try:
            for name, table in config.tables.items():
                draft_epsilon, draft_delta = tables[name].draft_spent  # the schema's draft is paid first
                ledger.register_table(name, epsilon=table.epsilon - draft_epsilon, delta=table.delta - draft_delta,
                                      fingerprint=dataset_fingerprint(tables[name]))
                ledger.set_caps(name, {g.analyst: (g.epsilon, g.delta) for g in table.grants.values()})
                ledger.verify(name)
            service = cls(config, ledger, tables)
            service.recovered = service.sessions.recover()
        except BaseException:
            ledger.close()
            raise
        return service

    def close(self) -> None:
        self.ledger.close()

    # ------------------------------------------------------------------ requests
    def handle(self, method: str, path: str, headers: Mapping[str, str], body: bytes | None) -> Response:
        """One request; never raises (every failure becomes a status)."""
        try:
            path = path.split("?", 1)[0]
            allowed = [m for m, pattern, _ in _ROUTES if pattern.match(path)]
            for route_method, pattern, name in _ROUTES:
                match = pattern.match(path)
                if match and route_method == method:
                    if name == "health":
                        return json_response(200, {"status": "ok"})
                    analyst = self._authenticate(headers)
                    return getattr(self, f"_{name}")(analyst, body, **match.groupdict())
            if allowed:
                return json_response(405, {"error": f"{method} is not allowed on {path}; use {', '.join(allowed)}"},
                                     Allow=", ".join(allowed))
            return json_response(404, {"error": f"no endpoint {path}"})
        except Unauthorized as exc:
            return json_response(401, {"error": str(exc)}, **{"WWW-Authenticate": 'Bearer realm="dprelease"'})
        except NotFound as exc:
            return json_response(404, {"error": str(exc)})
        except BudgetExceededError as exc:  # includes a session whose plan is used up
            return json_response(403, {"error": str(exc), "refused": True})
        except RequestIdInUse as exc:
            return json_response(409, {"error": str(exc)})
        except LedgerUnavailable as exc:
            return json_response(503, {"error": f"{exc}; nothing was released"})
        except LedgerError as exc:
            return json_response(500, {"error": str(exc)})
        except (InputError, InputTypeError) as exc:
            return json_response(400, {"error": str(exc)})
        except Exception as exc:  # a bug: say so, keep serving
            sys.stderr.write(f"dprelease serve: internal error: {type(exc).__name__}\n{traceback.format_exc()}")
            return json_response(500, {"error": f"internal error ({type(exc).__name__}); see the server log"})

    def _authenticate(self, headers: Mapping[str, str]) -> str:
        value = headers.get("Authorization") or ""
        scheme, _, token = value.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("missing 'Authorization: Bearer <token>'")
        digest = hashlib.sha256(token.strip().encode("utf-8")).hexdigest()
        found = None
        for analyst, expected in self.config.analysts.items():  # compare with every hash, in constant time
            if hmac.compare_digest(digest, expected):
                found = analyst
        if found is None:
            raise Unauthorized("unknown token")
        return found

    def _table(self, analyst: str, table: str) -> str:
        config = self.config.tables.get(table)
        if config is None or analyst not in config.grants:
            raise NotFound(f"no table {table!r} for this analyst")
        return table

    # ----------------------------------------------------------------- endpoints
    def _tables(self, analyst: str, body: bytes | None) -> Response:
        listing = []
        for name, config in self.config.tables.items():
            if analyst in config.grants:
                served = self.tables[name]
                entry = {"table": name, "domain": served.domain.to_dict(), "n": served.n, **self.ledger.spent(name)}
                if served.schema is not None:  # public: the schema's labels, and what its draft spent
                    entry["labels"] = {a: list(v) for a, v in served.labels().items()}
                    entry.update(self._draft(served))
                listing.append(entry)
        return json_response(200, {"analyst": analyst, "tables": listing})

    def _budget(self, analyst: str, body: bytes | None, table: str) -> Response:
        table = self._table(analyst, table)
        return json_response(200, {**self.ledger.spent(table), "charge_list": self.ledger.charges(table),
                                   **self._draft(self.tables[table])})

    @staticmethod
    def _draft(served: ServedTable) -> dict[str, object]:
        """What the table's schema draft spent before its budget was registered (none for a table of codes)."""
        if served.schema is None:
            return {}
        return {"schema_draft_spent": {"epsilon": decimal_text(served.draft_spent[0]),
                                       "delta": decimal_text(served.draft_spent[1])}}

    def _open_session(self, analyst: str, body: bytes | None, table: str) -> Response:
        table = self._table(analyst, table)
        record, request_id, digest = self._request(body)
        replay = self._replay(table, analyst, request_id, digest, "session")
        if replay is not None:
            return replay
        request = SessionRequest.from_body(record, max_queries_cap=self.config.max_session_queries)
        result = self.sessions.open(table=table, analyst=analyst, request_id=request_id, body_sha256=digest,
                                    request=request)
        return json_response(201, {"request_id": request_id, **result})

    def _session(self, analyst: str, body: bytes | None, table: str, session: str) -> Response:
        table = self._table(analyst, table)
        return json_response(200, self.sessions.describe(table=table, analyst=analyst, session_id=session))

    def _query(self, analyst: str, body: bytes | None, table: str, session: str) -> Response:
        table = self._table(analyst, table)
        record, request_id, digest = self._request(body)
        replay = self._replay(table, analyst, request_id, digest, "query", session)
        if replay is not None:
            return replay
        served = self.tables[table]
        queries, extra = parse_queries(record, served.domain, own_fields=("request_id",), labels=served.labels())
        result = self.sessions.ask(table=table, analyst=analyst, session_id=session, request_id=request_id,
                                   body_sha256=digest, queries=queries, extra=extra)
        return json_response(200, result)

    def _release(self, analyst: str, body: bytes | None, table: str) -> Response:
        table = self._table(analyst, table)
        record, request_id, digest = self._request(body)
        replay = self._replay(table, analyst, request_id, digest, "release")
        if replay is not None:
            return replay
        result = self.releases.create(table=table, analyst=analyst, request_id=request_id, body_sha256=digest,
                                      request=ReleaseRequest.from_body(record))
        return json_response(201, {"request_id": request_id, **result})

    def _get_release(self, analyst: str, body: bytes | None, table: str, release: str) -> Response:
        table = self._table(analyst, table)
        text = self.releases.get(table=table, release_id=release)
        return Response(200, (text + "\n").encode("utf-8"))

    def _get_rows(self, analyst: str, body: bytes | None, table: str, release: str) -> Response:
        table = self._table(analyst, table)
        text = self.releases.get(table=table, release_id=release, part="rows")
        return Response(200, text.encode("utf-8"), content_type="text/csv")

    # ------------------------------------------------------------------ helpers
    @staticmethod
    def _request(body: bytes | None) -> tuple[dict[str, object], str, str]:
        """The JSON object of a POST (numbers exact), its request id (given or new), and its digest."""
        if not body:
            raise InputError("the request needs a JSON object body")
        try:
            record = loads_exact(body)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InputError(f"the body is not valid JSON: {exc}") from None
        if not isinstance(record, dict):
            raise InputError(f"the body must be a JSON object, got {type(record).__name__}")
        request_id = record.get("request_id")
        if request_id is None:
            request_id = "auto-" + secrets.token_hex(12)
        elif not isinstance(request_id, str) or not REQUEST_ID.match(request_id):
            raise InputError("request_id must be 1-128 letters, digits or '_.:-'")
        canonical = json.dumps({k: v for k, v in record.items() if k != "request_id"}, sort_keys=True, default=str)
        return record, request_id, hashlib.sha256(canonical.encode("utf-8")).hexdigest()

    def _replay(self, table: str, analyst: str, request_id: str, digest: str, kind: str,
                session: str | None = None) -> Response | None:
        """The stored outcome of a request id already used, or None for a new one."""
        record = self.ledger.lookup(table, analyst, request_id)
        if record is None:
            return None
        if record.kind != kind or record.body_sha256 != digest or (session is not None and record.session_id != session):
            return json_response(409, {"error": f"request id {request_id!r} was already used for a different request"})
        if record.status == "done":
            return json_response(200, {**json.loads(record.result), "replayed": True})
        if record.status == "reserved":
            return json_response(409, {"error": f"request {request_id!r} is in progress", "in_progress": True})
        return json_response(409, {"error": f"request {request_id!r} was cut off after its reservation and is not "
                                            f"answered again ({record.result})", "lost": True})
