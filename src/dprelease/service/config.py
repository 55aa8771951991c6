"""The service's configuration file (JSON): where the ledger is, the tables, their budgets and the analysts.

::

    {
      "ledger": "ledger.sqlite",
      "host": "127.0.0.1", "port": 8750,
      "analysts": {"alice": {"token_sha256": "<64 hex digits>"}, "bob": {"token_sha256": "..."}},
      "tables": {
        "adult": {"data": "adult.csv", "domain": "adult-domain.json", "columns": ["sex", "race"],
                  "budget": {"epsilon": 1, "delta": 0},
                  "analysts": {"alice": {"epsilon": 0.5}, "bob": {}}}
      }
    }

Paths are relative to the configuration file. Only the SHA-256 of each token is stored
(``dprelease serve --new-token`` makes a token and its hash). A table lists the analysts who may
use it, each with an optional cap (``epsilon``, ``delta``) on what they may spend of it; the caps
given for a table must not add up to more than its budget (checked here), and every charge is
checked against the table's one budget as well (the ledger). Numbers are read as the decimals
they are written as: ``0.1`` is exactly 1/10.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path

from dprelease.errors import InputError

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
TOKEN_HASH = re.compile(r"^[0-9a-f]{64}$")
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8750
DEFAULT_MAX_BODY = 64 * 1024
#: The largest stream a session may declare (its state grows with nothing but counters; this bounds abuse).
DEFAULT_MAX_SESSION_QUERIES = 1_000_000


#: The deepest nesting of arrays and objects a JSON text may have (a request needs 4; deeper text is refused
#: unparsed, so that it cannot exhaust the parser's recursion).
MAX_JSON_DEPTH = 32
#: The longest number literal accepted, and the decimal exponents allowed (no huge integers or tiny amounts).
MAX_NUMBER_CHARS = 64
EXPONENTS = (-60, 60)


class WrittenNumber(Fraction):
    """A JSON number read as the exact decimal it is written as, that shows itself as written.

    It is a :class:`~fractions.Fraction` (arithmetic on it gives plain fractions); only its ``repr`` differs,
    so that a message quotes the value as the client wrote it (``1.0``, ``10.5``), not ``Fraction(21, 2)``.
    """

    __slots__ = ("text",)

    def __new__(cls, value: Decimal, text: str) -> WrittenNumber:
        self = super().__new__(cls, value)
        self.text = text
        return self

    def __repr__(self) -> str:
        return self.text

    def __reduce__(self) -> tuple:  # a copy or a pickle is a plain Fraction of the same value
        return (Fraction, (self.numerator, self.denominator))

    def __copy__(self) -> WrittenNumber:  # immutable
        return self

    def __deepcopy__(self, memo: dict) -> WrittenNumber:
        return self


class _Refused:
    """A number literal the service does not accept; loads_exact reports it with the field it sits in."""

    __slots__ = ("text", "reason")

    def __init__(self, text: str, reason: str) -> None:
        self.text, self.reason = text, reason


def exact_number(text: str) -> WrittenNumber | _Refused:
    """A JSON number literal as the exact decimal it is written as; refuses absurd exponents (no huge integers)."""
    try:
        value = Decimal(text)
    except InvalidOperation:
        return _Refused(text[:40], "is not a number")
    if not value.is_finite() or len(text) > MAX_NUMBER_CHARS or not EXPONENTS[0] <= value.adjusted() <= EXPONENTS[1]:
        return _Refused(text[:40], f"is out of range (at most {MAX_NUMBER_CHARS} characters, magnitude "
                                   f"1e{EXPONENTS[0]} to 1e{EXPONENTS[1]})")
    return WrittenNumber(value, text)


def _exact_integer(text: str) -> int | _Refused:
    if len(text) > MAX_NUMBER_CHARS:  # int() of a huge literal is slow, and refused above 4300 digits anyway
        return _Refused(text[:40] + "...", f"is out of range (at most {MAX_NUMBER_CHARS} characters)")
    return int(text)


def decimal_text(value: Fraction) -> str:
    """An exact amount as a person wrote it: ``1/10`` -> ``0.1`` (any fraction whose denominator has no prime but
    2 and 5 is a finite decimal, which sums of written decimals always are); other fractions as ``p/q``."""
    value = Fraction(value)
    denominator, digits = value.denominator, 0
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
            digits += 1
    if denominator != 1:
        return str(value)
    scaled = abs(value.numerator) * 10**digits // value.denominator  # exact: the denominator divides 10^digits
    whole, fraction = divmod(scaled, 10**digits)
    text = f"{whole}.{fraction:0{digits}d}".rstrip("0").rstrip(".") if digits else str(whole)
    return ("-" if value < 0 else "") + text


def _no_constant(name: str) -> _Refused:
    return _Refused(name, "is not a JSON number")


def _check_parsed(value: object) -> None:
    """Refuse nesting deeper than MAX_JSON_DEPTH, and the first refused number naming the field it sits in
    (``epsilon``, ``where.sex``, ``workload[0]``). Iterative: no recursion however deep the value."""
    stack = [(value, "", 0)]
    while stack:
        item, where, depth = stack.pop()
        if isinstance(item, _Refused):
            raise InputError(f"{where or 'the value'}: the number {item.text} {item.reason}")
        if isinstance(item, (dict, list)):
            if depth >= MAX_JSON_DEPTH:
                raise InputError(f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep")
            if isinstance(item, dict):
                children = [(f"{where}.{key}" if where else key, child) for key, child in item.items()]
            else:
                children = [(f"{where}[{index}]", child) for index, child in enumerate(item)]
            stack.extend((child, name, depth + 1) for name, child in reversed(children))


def loads_exact(text: str | bytes) -> object:
    """JSON with every non-integer number as an exact :class:`WrittenNumber`; NaN, Infinity, numbers out of range
    and nesting deeper than :data:`MAX_JSON_DEPTH` refused (InputError naming the field)."""
    try:
        value = json.loads(text, parse_float=exact_number, parse_int=_exact_integer, parse_constant=_no_constant)
    except RecursionError:  # the parser's own limit (about 1000 levels): refused, never an internal error
        raise InputError(f"the JSON is nested more than {MAX_JSON_DEPTH} levels deep") from None
    _check_parsed(value)
    return value


@dataclass(frozen=True, slots=True)
class Grant:
    """An analyst's access to a table, with optional caps on what they may spend of it."""

    analyst: str
    epsilon: Fraction | None = None
    delta: Fraction | None = None


@dataclass(frozen=True, slots=True)
class TableConfig:
    name: str
    data: Path
    domain: Path | None  # a CSV of codes and its domain, or
    schema: Path | None  # a CSV of raw values and the public schema that encodes it (exactly one of the two)
    columns: tuple[str, ...] | None
    epsilon: Fraction
    delta: Fraction
    grants: dict[str, Grant]

    def __post_init__(self) -> None:
        where = f"table {self.name!r}"
        if not self.epsilon > 0:
            raise InputError(f"{where}: budget epsilon must be > 0, got {decimal_text(self.epsilon)}")
        if not 0 <= self.delta < 1:
            raise InputError(f"{where}: budget delta must be in [0, 1), got {decimal_text(self.delta)}")
        for grant in self.grants.values():
            for kind, cap, total in (("epsilon", grant.epsilon, self.epsilon), ("delta", grant.delta, self.delta)):
                if cap is not None and not 0 <= cap <= total:
                    raise InputError(f"{where}: analyst {grant.analyst!r}'s {kind} cap must be in "
                                     f"[0, {decimal_text(total)}], got {decimal_text(cap)}")
        check_caps_fit(where, self.grants, self.epsilon, self.delta, "the table's budget")


def check_caps_fit(where: str, grants: dict[str, Grant], epsilon: Fraction, delta: Fraction, budget: str) -> None:
    """The analysts' caps may not add up to more than ``budget`` (epsilon, delta): a cap is a ceiling within the one
    budget, never an addition to it. Public amounts only."""
    for kind, total in (("epsilon", epsilon), ("delta", delta)):
        caps = [getattr(g, kind) for g in grants.values() if getattr(g, kind) is not None]
        if sum(caps, Fraction(0)) > total:
            raise InputError(f"{where}: the analysts' {kind} caps add up to {decimal_text(sum(caps, Fraction(0)))}, "
                             f"more than {budget} {decimal_text(total)}; caps share the one budget, they never add "
                             "to it")


@dataclass(frozen=True, slots=True)
class ServiceConfig:
    path: Path
    ledger: Path
    host: str
    port: int
    max_body_bytes: int
    max_session_queries: int
    analysts: dict[str, str]  # name -> sha256 of the token
    tables: dict[str, TableConfig]


def load_config(path: str | Path) -> ServiceConfig:
    """Read and check a configuration file; every mistake raises :class:`InputError` naming it."""
    path = Path(path)
    where = f"configuration {str(path)!r}"
    try:
        raw = loads_exact(path.read_bytes())
    except OSError as exc:
        raise InputError(f"{where} cannot be read: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{where} is not valid JSON: {exc}") from None
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    try:
        return _build(raw, path)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None


def _build(raw: object, path: Path) -> ServiceConfig:
    record = _object(raw, "the file", {"ledger", "host", "port", "max_body_bytes", "max_session_queries", "analysts",
                                       "tables"}, required={"ledger", "analysts", "tables"})
    base = path.parent
    analysts = {}
    for name, entry in _object(record["analysts"], "analysts", None).items():
        _name(name, "analyst")
        entry = _object(entry, f"analyst {name!r}", {"token_sha256"}, required={"token_sha256"})
        token_hash = entry["token_sha256"]
        if not isinstance(token_hash, str) or not TOKEN_HASH.match(token_hash):
            raise InputError(f"analyst {name!r}: token_sha256 must be 64 lowercase hex digits (the SHA-256 of the "
                             "token, never the token itself; `dprelease serve --new-token` makes both)")
        analysts[name] = token_hash
    if len(set(analysts.values())) != len(analysts):
        raise InputError("two analysts have the same token hash")
    tables = {}
    for name, entry in _object(record["tables"], "tables", None).items():
        _name(name, "table")
        tables[name] = _table(name, entry, base, analysts)
    if not tables:
        raise InputError("no tables are configured")
    port = record.get("port", DEFAULT_PORT)
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise InputError(f"port must be an integer in [0, 65535], got {port!r}")
    host = record.get("host", DEFAULT_HOST)
    if not isinstance(host, str) or not host:
        raise InputError(f"host must be a host name or address, got {host!r}")
    limits = {}
    for key, default in (("max_body_bytes", DEFAULT_MAX_BODY), ("max_session_queries", DEFAULT_MAX_SESSION_QUERIES)):
        value = record.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"{key} must be an integer >= 1, got {value!r}")
        limits[key] = value
    ledger = record["ledger"]
    if not isinstance(ledger, str) or not ledger:
        raise InputError(f"ledger must be a file path, got {ledger!r}")
    return ServiceConfig(path, base / ledger, host, port, limits["max_body_bytes"], limits["max_session_queries"],
                         analysts, tables)


def _table(name: str, entry: object, base: Path, analysts: dict[str, str]) -> TableConfig:
    where = f"table {name!r}"
    entry = _object(entry, where, {"data", "domain", "schema", "columns", "budget", "analysts"},
                    required={"data", "budget", "analysts"})
    if ("domain" in entry) == ("schema" in entry):
        raise InputError(f"{where}: give exactly one of domain (a CSV of integer codes) and schema (a CSV of raw "
                         "values, encoded by the schema)")
    for key in ("data", "domain", "schema"):
        if key in entry and (not isinstance(entry[key], str) or not entry[key]):
            raise InputError(f"{where}: {key} must be a file path, got {entry[key]!r}")
    columns = entry.get("columns")
    if columns is not None and (not isinstance(columns, list) or not columns
                                or not all(isinstance(c, str) for c in columns)):
        raise InputError(f"{where}: columns must be a non-empty list of column names, got {columns!r}")
    budget = _object(entry["budget"], f"{where}: budget", {"epsilon", "delta"}, required={"epsilon"})
    epsilon = _amount(budget["epsilon"], f"{where}: budget epsilon")
    delta = _amount(budget.get("delta", 0), f"{where}: budget delta")
    grants = {}
    for analyst, caps in _object(entry["analysts"], f"{where}: analysts", None).items():
        if analyst not in analysts:
            raise InputError(f"{where}: analyst {analyst!r} is not among the configured analysts")
        caps = _object(caps, f"{where}: analyst {analyst!r}", {"epsilon", "delta"})
        grants[analyst] = Grant(analyst, *(None if caps.get(k) is None else
                                           _amount(caps[k], f"{where}: analyst {analyst!r}'s {k} cap")
                                           for k in ("epsilon", "delta")))
    domain, schema = (base / entry[key] if key in entry else None for key in ("domain", "schema"))
    return TableConfig(name, base / entry["data"], domain, schema, None if columns is None else tuple(columns),
                       epsilon, delta, grants)


def _object(value: object, what: str, allowed: set[str] | None, required: set[str] = frozenset()) -> dict:
    if not isinstance(value, dict):
        raise InputError(f"{what} must be a JSON object, got {type(value).__name__}")
    if allowed is not None:
        unknown = sorted(set(value) - allowed)
        if unknown:
            raise InputError(f"{what}: unknown field(s) {unknown}; allowed: {sorted(allowed)}")
    missing = sorted(required - set(value))
    if missing:
        raise InputError(f"{what}: missing field(s) {missing}")
    return value


def _name(name: str, what: str) -> None:
    if not NAME.match(name):
        raise InputError(f"{what} name {name!r} must be 1-64 letters, digits, '_', '.' or '-'")


def _amount(value: object, what: str) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        raise InputError(f"{what} must be a number, got {value!r}")
    return Fraction(value)
