"""The public schema: ordered columns, each with its kind, values or bounds and bins, and buckets.

A schema is public knowledge (like the domain it yields): it must never be read off the private
rows, except by the differentially private draft of :mod:`dprelease.schema.draft`, whose spend is
kept in the schema's own ledger. See docs/schema.md for the JSON format, with examples.

>>> s = Schema.from_dict({"age": {"type": "integer", "bounds": [0, 99], "width": 10},
...                       "sex": {"type": "categorical", "values": ["F", "M"], "null": True}, "code": 3})
>>> s.domain.to_dict()
{'age': 10, 'sex': 3, 'code': 3}
>>> s.labels("sex")
('F', 'M', 'NULL')
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from dprelease.domain import Domain
from dprelease.queries.product import label_codes
from dprelease.errors import InputError, InputTypeError
from dprelease.schema.binned import BINNED_KINDS, UndecidedColumn, _Binned
from dprelease.files import write_atomic
from dprelease.schema.columns import BooleanColumn, CategoricalColumn, CodesColumn, Column, check_tokens, where
from dprelease.schema.between import check_between, read_names
from dprelease.schema.orders import check_ordered
from dprelease.spent import Spent

FORMAT = "dprelease-schema/1"
KINDS: dict[str, type[Column]] = {"codes": CodesColumn, "categorical": CategoricalColumn, "boolean": BooleanColumn,
                                  **BINNED_KINDS}
DRAFT_MODES = ("dp", "non-private")
NOT_PUBLIC = ("NOT PUBLIC: this schema was read openly from the data (--non-private). A release built on it is "
              "not differentially private: replace every value, bound and bin with public knowledge first.")


class Labels(dict):
    """Each column's labels, one per code (a plain ``{column: labels}`` dict), and ``aliases``: other names some
    codes answer to in a query, ``{column: {name: code or codes}}`` (a month bin's ``"2023-06"``, a year of month bins'
    ``"2023"``; :meth:`Column.label_aliases`).
    Public, from the schema alone."""

    def __init__(self, labels: Mapping[str, tuple[str, ...]],
                 aliases: Mapping[str, Mapping[str, int | tuple[int, ...]]] | None = None,
                 numbers: Mapping[str, Callable[[float], int]] | None = None):
        super().__init__(labels)
        self.aliases = dict(aliases or {})
        #: Per integer, numeric, date or date-time column, the code a query's number names there (a value, or
        #: refused; never a code: :meth:`~dprelease.schema.binned._Binned.query_code`).
        self.numbers = dict(numbers or {})
        #: Per column, every name a query may give a code (its label, or an alias), made once: a served table's
        #: queries all translate through it.
        self.codes = {name: label_codes(names, self.aliases.get(name)) for name, names in self.items()}


@dataclass(frozen=True, slots=True)
class Draft:
    """How a drafted schema was made: ``"dp"`` (with its exact privacy ledger) or ``"non-private"``."""

    mode: str
    note: str = ""
    ledger: Mapping[str, object] | None = None

    def __post_init__(self) -> None:
        if self.mode not in DRAFT_MODES:
            raise InputError(f"schema draft mode must be one of {list(DRAFT_MODES)}, got {self.mode!r}")
        if self.mode == "dp":
            if not isinstance(self.ledger, Mapping) or not isinstance(self.ledger.get("charges"), list):
                raise InputError("schema draft mode 'dp' needs its privacy_ledger with a list of charges")
            self.charges()  # validates every charge

    @property
    def is_public(self) -> bool:
        return self.mode == "dp"

    def charges(self) -> list[tuple[str, Fraction, Fraction, str]]:
        """Every charge of the draft as (label, epsilon, delta, rule), exact; empty for a non-private draft."""
        out = []
        for entry in (self.ledger or {}).get("charges", []):
            try:
                label, rule = entry["label"], entry["rule"]
                eps, delta = Fraction(entry["epsilon_exact"]), Fraction(entry["delta_exact"])
            except (KeyError, TypeError, ValueError, ZeroDivisionError):
                raise InputError(f"schema draft: a ledger charge must hold label, epsilon_exact, delta_exact and "
                                 f"rule, got {entry!r:.200}") from None
            if eps < 0 or delta < 0:
                raise InputError(f"schema draft: charge {label!r} is negative")
            out.append((str(label), eps, delta, str(rule)))
        return out

    @property
    def privacy_id(self) -> str | None:
        """The privacy-id column of a draft made per person (its ledger's ``person``), None for one made per row."""
        person = (self.ledger or {}).get("person")
        return person.get("privacy_id") if isinstance(person, Mapping) else None

    @property
    def spent(self) -> Spent:
        """Total (epsilon, delta) of the draft, exact (basic composition, Thm 3.16)."""
        charges = self.charges()
        return Spent(sum((c[1] for c in charges), Fraction(0)), sum((c[2] for c in charges), Fraction(0)))

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {"mode": self.mode, "public": self.is_public, "note": self.note}
        if self.ledger is not None:
            out["privacy_ledger"] = dict(self.ledger)
        return out

    @classmethod
    def from_json(cls, raw: object) -> Draft:
        if not isinstance(raw, Mapping):
            raise InputError(f"schema draft must be a JSON object, got {type(raw).__name__}")
        return cls(raw.get("mode"), str(raw.get("note", "")), raw.get("privacy_ledger"))


@dataclass(frozen=True, slots=True)
class Schema:
    """Ordered columns (public), the text that means NULL by default, whether text is stripped, and how
    the schema was drafted (None: written from public knowledge).

    ``ordered``: chains of columns whose values every row keeps in order, each at most the next
    (:mod:`dprelease.schema.orders`: a discharge never before its admission); public knowledge, used only where
    synthetic rows are drawn and decoded.

    ``layout``: for a schema of some columns (:meth:`select`), the names of the whole schema's columns in order: a
    file without a header row holds one field per column of the whole schema, and the readers find the selected
    columns by their place in it. None for a whole schema (its own names). Not part of the JSON form.
    """

    columns: tuple[Column, ...]
    null_tokens: tuple[str, ...] = ("",)
    strip: bool = True
    draft: Draft | None = None
    description: str = ""
    ordered: tuple[tuple[str, ...], ...] = ()
    layout: tuple[str, ...] | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.description, str):
            raise InputTypeError(f"schema description must be a string, got {self.description!r:.100}")
        if isinstance(self.columns, Mapping) or not isinstance(self.columns, Iterable):
            raise InputTypeError(f"schema columns must be a list of columns, got {type(self.columns).__name__}")
        columns = tuple(self.columns)
        object.__setattr__(self, "columns", columns)
        if not columns:
            raise InputError("schema must have at least one column, got none")
        seen: set[str] = set()
        for column in columns:
            if not isinstance(column, Column):
                raise InputTypeError(f"schema columns must be schema column objects, got {column!r:.100}")
            if column.name in seen:
                raise InputError(f"{where(column.name)} appears more than once")
            seen.add(column.name)
        tokens = check_tokens(self.null_tokens, "null_tokens", "*")
        object.__setattr__(self, "null_tokens", tokens)
        for column in columns:
            _check_values_are_not_null_tokens(column, self.null_tokens_of(column))
        if not isinstance(self.strip, bool):
            raise InputTypeError(f"schema strip must be true or false, got {self.strip!r}")
        if self.draft is not None and not isinstance(self.draft, Draft):
            raise InputTypeError(f"schema draft must be a Draft, got {type(self.draft).__name__}")
        object.__setattr__(self, "ordered", check_ordered(self.ordered, columns))
        check_between(columns)

    # ------------------------------------------------------------------ access
    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    @property
    def read_names(self) -> tuple[str, ...]:
        """The columns read from a table: all but those computed between two dates (``between``)."""
        return read_names(self)

    @property
    def domain(self) -> Domain:
        """The public domain of the codes: one attribute per column, sizes with the null/other buckets."""
        return Domain(self.names, tuple(c.size for c in self.columns))

    def column(self, name: str) -> Column:
        for column in self.columns:
            if column.name == name:
                return column
        raise InputError(f"unknown column {name!r}; the schema has {list(self.names)}")

    def labels(self, name: str) -> tuple[str, ...]:
        """One label per code of column ``name`` (categories, bin ranges, 'NULL', the other marker)."""
        return self.column(name).labels()

    def all_labels(self) -> Labels:
        """Every column's labels by code, with the other names queries may use (:class:`Labels`)."""
        return Labels({c.name: c.labels() for c in self.columns},
                      {c.name: aliases for c in self.columns if (aliases := c.label_aliases())},
                      {c.name: c.query_code for c in self.columns if isinstance(c, _Binned)})

    def null_tokens_of(self, column: Column) -> tuple[str, ...]:
        return self.null_tokens if column.null_tokens is None else column.null_tokens

    def select(self, names: Iterable[str]) -> Schema:
        """The schema of some columns, in the order given."""
        names = list(names)
        if len(set(names)) != len(names):
            raise InputError(f"columns {names} name a column twice")
        for name in names:
            column = self.column(name)
            sources = getattr(column, "between", None)
            if sources is not None and not set(sources) <= set(names):
                raise InputError(f"column {name!r} is computed between {list(sources)}: select "
                                 f"{' and '.join(repr(s) for s in sources if s not in names)} too")
        # A chain keeps its selected columns (the order is transitive: a <= b <= c still says a <= c without b).
        chains = [kept for chain in self.ordered if len(kept := tuple(n for n in chain if n in names)) > 1]
        return Schema(tuple(self.column(n) for n in names), self.null_tokens, self.strip, self.draft, self.description,
                      tuple(chains), layout=self.file_names)

    @property
    def file_names(self) -> tuple[str, ...]:
        """The columns a file without a header row holds, in order: the whole schema's (see ``layout``)."""
        return self.layout if self.layout is not None else self.read_names

    def encoding_rules(self) -> list[dict[str, object]]:
        """Every column's encoding rule as plain data (categories, thresholds, bucket codes, NULL text),
        for an engine that translates them (e.g. to SQL). The rule is documented in docs/schema.md."""
        return [{**c.rule(), "null_tokens": list(self.null_tokens_of(c)), "strip": self.strip} for c in self.columns]

    # -------------------------------------------------------------------- JSON
    @classmethod
    def from_domain(cls, domain: Domain) -> Schema:
        """Codes 0..size-1 for every attribute of a domain."""
        return cls(tuple(CodesColumn(name=a, codes=s) for a, s in zip(domain.attributes, domain.sizes)))

    @classmethod
    def from_dict(cls, raw: object) -> Schema:
        """From the JSON form: ``{column: spec}`` (a domain file is one) or ``{"format": ..., "columns": ...}``."""
        if not isinstance(raw, Mapping):
            raise InputError(f"schema must be a JSON object, got {type(raw).__name__}")
        if raw.get("format") == FORMAT:
            unknown = sorted(set(raw) - {"format", "columns", "null_tokens", "strip", "draft", "description",
                                         "ordered"})
            if unknown:
                raise InputError(f"schema has unknown field(s) {unknown}")
            columns = raw.get("columns")
            if not isinstance(columns, Mapping):
                raise InputError(f"schema columns must be a JSON object {{name: spec}}, got {columns!r:.100}")
            draft = None if raw.get("draft") is None else Draft.from_json(raw["draft"])
            return cls(columns_from_json(columns), raw.get("null_tokens", ("",)), raw.get("strip", True), draft,
                       raw.get("description", ""), raw.get("ordered", ()))
        if isinstance(raw.get("format"), str) and raw["format"].startswith("dprelease-schema"):
            raise InputError(f"schema format {raw['format']!r} is not supported; this version reads {FORMAT!r}")
        nested = raw.get("columns")
        if "format" not in raw and isinstance(nested, Mapping) and nested and \
                all(isinstance(spec, Mapping) for spec in nested.values()):
            # The file's form without its format line: no column's spec is a mapping of mappings (its "type" is a
            # string), so this is not a column named "columns"; read as one, it failed with "type ... got None".
            raise InputError(f"schema has a 'columns' object but no \"format\": add \"format\": {FORMAT!r} beside it "
                             "(the schema file's form), or give {column: spec} alone")
        return cls(columns_from_json(raw))

    @classmethod
    def coerce(cls, schema: object) -> Schema:
        """A :class:`Schema` as given, read from a schema (or domain) file's path, or built from the file's JSON form
        as a dict (what a user writes in Python); anything else is refused, naming what it got."""
        if isinstance(schema, (str, Path)):
            schema = cls.from_json(schema)
        elif isinstance(schema, Mapping):
            schema = cls.from_dict(schema)  # its messages name the schema and the field
        if not isinstance(schema, Schema):
            raise InputTypeError(f"schema must be a dprelease Schema, a dict in the schema file's form or the path of a "
                                 f"schema file, got {type(schema).__name__}")
        return schema

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"format": FORMAT}
        if self.description:
            out["description"] = self.description
        if self.null_tokens != ("",):
            out["null_tokens"] = list(self.null_tokens)
        if not self.strip:
            out["strip"] = False
        out["columns"] = {c.name: c.to_json() for c in self.columns}
        if self.ordered:
            out["ordered"] = [list(chain) for chain in self.ordered]
        if self.draft is not None:
            out["draft"] = self.draft.to_json()
        return out

    def dumps(self) -> str:
        """The JSON text: one line per column, the draft's ledger indented; names and values as written (UTF-8: a
        reviewer reads "€" and "Zürich", not "\\u20ac" and "Z\\u00fcrich")."""
        raw = self.to_dict()
        lines = []
        for key, value in raw.items():
            if key == "columns":
                inner = [f"  {json.dumps(n, ensure_ascii=False)}: {json.dumps(spec, ensure_ascii=False)}"
                         for n, spec in value.items()]
                lines.append(' "columns": {\n' + ",\n".join(inner) + "\n }")
            else:
                lines.append(f" {json.dumps(key)}: " + json.dumps(value, indent=1, ensure_ascii=False).replace("\n", "\n "))
        return "{\n" + ",\n".join(lines) + "\n}\n"

    @classmethod
    def from_json(cls, path: str | Path) -> Schema:
        """Read a schema (or a domain) file; duplicate keys are refused."""
        if isinstance(path, str) and path.lstrip().startswith("{"):  # the file's text, not its name
            raise InputError("schema file: got JSON text, not a file name: read text with Schema.loads(text) (or "
                             "Schema.from_dict(json.loads(text)))")
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"schema file {str(path)!r:.200} cannot be read: {exc.strerror or exc}") from None
        return cls.loads(text, source=f"schema file {str(path)!r}")

    @classmethod
    def loads(cls, text: str, *, source: str = "schema") -> Schema:
        def no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
            keys = [k for k, _ in pairs]
            for k in keys:
                if keys.count(k) > 1:
                    raise InputError(f"{source}: key {k!r} appears more than once")
            return dict(pairs)

        try:
            raw = json.loads(text, object_pairs_hook=no_duplicates)
        except json.JSONDecodeError as exc:
            raise InputError(f"{source} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
        try:
            return cls.from_dict(raw)
        except InputError as exc:  # keep the class (InputTypeError stays a TypeError)
            raise type(exc)(f"{source}: {exc}") from None

    def to_json(self, path: str | Path) -> None:
        """Write the schema as JSON, atomically."""
        write_atomic(Path(path), self.dumps())


_COMMON = ("type", "null", "other", "null_tokens")
_FIELDS = {
    "codes": ("codes",),
    "categorical": ("values",),
    "boolean": ("true", "false"),
    "integer": ("bounds", "bins", "width", "edges", "clip", "decimal", "thousands", "symbols", "prefix", "suffix",
                "between", "unit", "until", "format", "multiple", "digits"),
    "numeric": ("bounds", "bins", "width", "edges", "clip", "decimal", "thousands", "symbols", "prefix", "suffix",
                "decimals"),
    "date": ("bounds", "unit", "width", "edges", "clip", "format"),
    "datetime": ("bounds", "unit", "width", "edges", "clip", "format", "separator", "offset", "time_of_day",
                 "precision", "seconds"),
}


def _check_values_are_not_null_tokens(column: Column, null_tokens: tuple[str, ...]) -> None:
    """A category (or boolean word) that is also a NULL token could never be matched: the token wins. Refused, so
    that "NA" for North America beside ``"null_tokens": ["", "NA"]`` is not silently read as a blank."""
    if isinstance(column, CategoricalColumn):
        clash = [key for key in column.keys if key in null_tokens]
        what = "category"
    elif isinstance(column, BooleanColumn):
        clash = [token for token in null_tokens if token.lower() in column.true + column.false]
        what = "true/false word"
    else:
        return
    if clash:
        raise InputError(f"{where(column.name)}: {what} {clash[0]!r} is also a NULL token, so no value could ever match "
                         "it; remove it from null_tokens (the file's or the column's) or from the column's "
                         f"{'values' if what == 'category' else 'true/false words'}")


def columns_from_json(specs: Mapping[object, object]) -> tuple[Column, ...]:
    """Every column of ``{name: spec}``; one error lists every column's mistake (a type error only when
    every mistake is one), so a schema file is corrected in one pass, not one run per column."""
    columns, problems = [], []
    for name, spec in specs.items():
        try:
            columns.append(column_from_json(name, spec))
        except (InputError, InputTypeError) as exc:
            problems.append(exc)
    if len(problems) == 1:
        raise problems[0]
    if problems:
        kind = InputTypeError if all(isinstance(p, InputTypeError) for p in problems) else InputError
        raise kind(f"{len(problems)} columns are wrong: " + "; ".join(str(p) for p in problems))
    return tuple(columns)


def column_from_json(name: object, spec: object) -> Column:
    """One column from its JSON spec: an integer (codes 0..size-1) or an object with a "type"."""
    if not isinstance(name, str) or not name:
        raise InputTypeError(f"schema column names must be non-empty strings, got {name!r}")
    if isinstance(spec, bool) or not isinstance(spec, (int, Mapping)):
        raise InputError(f"{where(name)}: the spec must be an integer (codes) or an object with a type, "
                         f"got {spec!r:.100}")
    if isinstance(spec, int):
        return CodesColumn(name=name, codes=spec)
    kind = spec.get("type")
    if kind not in KINDS:
        raise InputError(f"{where(name)}: type must be one of {list(KINDS)}, got {kind!r}")
    allowed = _COMMON + _FIELDS[kind]
    unknown = [k for k in spec if k not in allowed]
    if unknown:
        raise InputError(f"{where(name)}: unknown field {unknown[0]!r} for a {kind} column "
                         f"(its fields: {', '.join(allowed[1:])})")
    arguments = {k: v for k, v in spec.items() if k != "type"}
    if kind in BINNED_KINDS and "bounds" in arguments and arguments["bounds"] is None:
        # Left by a private draft for the user to declare: loads for review, refused at every use.
        extra = sorted(set(arguments) - {"bounds", "null", "other", "null_tokens", "clip", "decimal", "thousands",
                                         "symbols", "prefix", "suffix", "decimals", "multiple", "format",
                                         "separator", "offset", "precision", "seconds"})
        if extra:
            raise InputError(f"{where(name)}: bounds are null (undecided) but the column gives {extra}; "
                             "declare bounds [low, high]")
        arguments.pop("bounds")
        return UndecidedColumn(name=name, type=kind, **arguments)
    if "bounds" in arguments:
        bounds = arguments.pop("bounds")
        if isinstance(bounds, (str, bytes)) or not isinstance(bounds, (list, tuple)) or len(bounds) != 2:
            raise InputError(f"{where(name)}: bounds must be a list [low, high], got {bounds!r:.100}")
        arguments["low"], arguments["high"] = bounds
    for key in ("values", "edges", "null_tokens", "true", "false", "time_of_day"):
        if isinstance(arguments.get(key), list):
            arguments[key] = tuple(arguments[key])
    return KINDS[kind](name=name, **arguments)
