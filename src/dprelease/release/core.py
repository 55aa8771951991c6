"""What a run publishes: synthetic rows, workload answers, the privacy ledger, the transcript.

Everything in a :class:`Release` is differentially private output (or public
parameters); it is safe to publish as a whole. :meth:`Release.save` writes the rows
(CSV), a small JSON document for people and a binary side file for the numbers
(:mod:`dprelease.release.files`), each atomically; :meth:`Release.load` reads the
JSON and its side file back, exactly.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from dprelease import __version__
from dprelease.domain import Domain
from dprelease.errors import InputError
from dprelease.queries.workload import Workload
from dprelease.release.files import (
    FORMAT, INLINE_FORMAT, SideArrays, externalize, internalize, is_inline, open_side_file, read_document, rows_dtype,
    side_file_name, write_atomic, write_document, write_side_file,
)
from dprelease.release.labels import ValueLabels, labelled

if TYPE_CHECKING:
    from dprelease.schema import Schema

PRIVACY_UNIT = (
    "neighbouring tables have the same public number of rows n and differ in one record "
    "(Dwork & Roth's setting): a counting query has sensitivity 1/n, a whole marginal L1 sensitivity 2/n"
)
#: The unit of a run made with ``privacy_unit="add-remove"`` (its parameters say so).
ADD_REMOVE_UNIT = (
    "neighbouring tables differ by one record added or removed, so n is private (Dwork & Roth's Def. 2.3 on "
    "histograms): the run released a noisy count n_estimate first, and a whole marginal over it has L1 and L2 "
    "sensitivity 1/n_estimate"
)


def ran_add_remove(parameters: dict[str, object]) -> bool:
    """Whether a release's run was under add/remove (its parameters say so; public)."""
    return parameters.get("privacy_unit") == "add-remove"


def privacy_unit_text(parameters: dict[str, object]) -> str:
    """The release's privacy unit in words, from its (public) parameters: the book's, add/remove one record, or add/
    remove one person (a privacy id, at most k rows each: :mod:`dprelease.privacy.contributions`)."""
    if not ran_add_remove(parameters):
        return PRIVACY_UNIT
    if parameters.get("privacy_id") is None:
        return ADD_REMOVE_UNIT
    k = parameters.get("rows_per_person", 1)
    return (f"neighbouring tables differ by one person's rows added or removed, a person being a value of the column "
            f"{parameters['privacy_id']!r}; each person kept at most {k} row{'s' if k != 1 else ''}, drawn at random "
            f"(more were dropped), so a neighbour moves up to {k} record{'s' if k != 1 else ''}: every sensitivity "
            f"is {k} times a record's under add/remove, and n is private (the run released a noisy count n_estimate "
            "first)")
#: The JSON keys a release writes itself; any other key of a loaded document goes back into ``extra``.
_OWN_KEYS = ("format", "dprelease_version", "mechanism", "guarantee", "privacy_unit", "fit_for_release",
             "randomness", "domain", "schema", "parameters", "privacy_ledger", "transcript", "synthetic_rows",
             "workload_answers", "side_file")


def unmeasured_columns(transcript: Sequence[object], domain: Domain) -> list[str]:
    """The columns no measurement in ``transcript`` touched, where it lists its measured marginals (public: the
    transcript is released). A survey's 4 questions outside a user's cross-tables came out as uniform draws without a
    word; MWEM measures the workload's columns only, the independent mechanism every column."""
    measured = [entry["marginal"] for entry in transcript
                if isinstance(entry, dict) and entry.get("action") == "measure" and entry.get("marginal")]
    if not measured:
        return []
    seen = {a for marginal in measured for a in marginal}
    return [a for a in domain.attributes if a not in seen]


@dataclass
class Release:
    """A differentially private release and everything needed to interpret it.

    ``schema`` (optional) is a public schema's JSON form, saved with the release; ``labels`` (optional)
    names the values of each attribute for :meth:`marginal` (default: the codes). ``location`` is the
    JSON file it was last saved to or loaded from. ``model`` is the fitted model the rows came from, kept in
    memory only (never written; ``None`` after :meth:`load`): ``release.model.sample(n, rng)`` draws more
    rows, post-processing that spends nothing.
    """

    mechanism: str
    domain: Domain
    workload: Workload
    guarantee: str
    parameters: dict[str, object]
    privacy_ledger: dict[str, object]
    transcript: list[dict[str, object]]
    answers: list[np.ndarray]
    rows: np.ndarray
    rows_method: str
    seeded: bool
    extra: dict[str, object] = field(default_factory=dict)
    schema: dict[str, object] | None = None
    labels: ValueLabels | None = field(default=None, repr=False, compare=False)
    location: Path | None = field(default=None, repr=False, compare=False)
    model: object | None = field(default=None, repr=False, compare=False)

    # ------------------------------------------------------------------ queries
    def marginal_array(self, attributes: tuple[str, ...] | list[str]) -> np.ndarray:
        """The released answer on ``attributes`` (fractions), axes in the order asked for.

        A workload marginal is returned as released; a subset of one is summed from the smallest
        released marginal that contains it (every answer of a release comes from one model, so any
        containing marginal gives the same sums, up to rounding).
        """
        if isinstance(attributes, str):
            attributes = (attributes,)
        attributes = tuple(attributes)
        canonical = self.domain.canonical(attributes)
        marginals = self.workload.marginals
        if canonical in marginals:
            source, values = canonical, self.answers[marginals.index(canonical)]
        else:
            containing = [i for i, m in enumerate(marginals) if set(canonical) <= set(m)]
            if not containing:
                raise KeyError(f"marginal {list(attributes)} is not in the released workload, nor inside any "
                               "of its marginals")
            best = min(containing, key=lambda i: (self.workload.cells(marginals[i]), i))
            source = marginals[best]
            summed = tuple(i for i, a in enumerate(source) if a not in canonical)
            values = self.answers[best].sum(axis=summed) if summed else self.answers[best]
            source = tuple(a for a in source if a in canonical)
        return np.transpose(values, [source.index(a) for a in attributes])

    def marginal(self, attributes: tuple[str, ...] | list[str]) -> object:
        """The released answer on ``attributes``, labelled: a pandas Series when pandas is installed.

        The Series is indexed by a MultiIndex (an Index for one attribute) named after the attributes,
        in the order asked for, whose entries are the value labels (the codes, or the release's
        ``labels``); ``.unstack()`` makes a table. Without pandas this is :meth:`marginal_array`.
        """
        attributes = (attributes,) if isinstance(attributes, str) else tuple(attributes)
        return labelled(self.marginal_array(attributes), attributes, self.domain, self.labels)

    # ------------------------------------------------------------------ display
    def __repr__(self) -> str:
        spent = self.privacy_ledger.get("spent", {})
        budget = ", ".join(f"{k}={spent[k]:g}" for k in ("epsilon", "delta") if isinstance(spent.get(k), float))
        lines = [f"Release({self.mechanism}: {budget or self.guarantee.split(':')[0]}"
                 + ("; SEEDED, not fit for release" if self.seeded else ""),
                 f"  {len(self.rows):,} synthetic rows ({self.rows_method}) over {len(self.domain)} columns; "
                 f"{len(self.workload.marginals):,} workload marginals, {self.workload.num_queries:,} cells",
                 f"  {'saved to ' + str(self.location) if self.location is not None else 'not saved'})"]
        return "\n".join(lines)

    # ------------------------------------------------------------------- saving
    def _header(self) -> dict[str, object]:
        return {
            "dprelease_version": __version__,
            "mechanism": self.mechanism,
            "guarantee": self.guarantee,
            "privacy_unit": privacy_unit_text(self.parameters),
            "fit_for_release": not self.seeded,
            "randomness": "seeded generator (reproducible; NOT fit for a real release)" if self.seeded
            else "operating-system CSPRNG",
            "domain": self.domain.to_dict(),
            "schema": self.schema,
        }

    def document(self, side: SideArrays) -> dict[str, object]:
        """The JSON document :meth:`save` writes (less the side file's entry), every array handed to ``side``."""
        rows_type = rows_dtype(self.domain.sizes)
        rows_name = side.put("rows", self.rows.astype(rows_type, copy=False), deflate=True)
        answers = [{"marginal": list(m), "shape": list(a.shape),
                    "array": side.add("answer", np.asarray(a, dtype=np.float64), deflate=False)}
                   for m, a in zip(self.workload.marginals, self.answers)]
        return {
            "format": FORMAT,
            **self._header(),
            "parameters": externalize(self.parameters, side),
            "privacy_ledger": externalize(self.privacy_ledger, side),
            "transcript": externalize(self.transcript, side),
            "synthetic_rows": {"count": int(len(self.rows)), "method": self.rows_method, "array": rows_name,
                               "dtype": str(self.rows.dtype)},
            "workload_answers": answers,
            **externalize(self.extra, side),
        }

    def to_json(self) -> dict[str, object]:
        """The release as ONE JSON document, answers inline (lists of fractions), rows counted, not listed.

        For a small release kept whole in one place (the service stores this in its database). On a large
        workload it is large (full Adult all 3-way: ~0.5 GB of text): files are written by :meth:`save`,
        which puts the answers and rows in a binary side file.
        """
        return {
            "format": INLINE_FORMAT,
            **self._header(),
            "parameters": self.parameters,
            "privacy_ledger": self.privacy_ledger,
            "transcript": self.transcript,
            "synthetic_rows": {"count": int(len(self.rows)), "method": self.rows_method},
            "workload_answers": [
                {"marginal": list(m), "shape": list(a.shape), "fractions": [float(v) for v in a.reshape(-1)]}
                for m, a in zip(self.workload.marginals, self.answers)
            ],
            **self.extra,
        }

    def rows_csv(self) -> str:
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(self.domain.attributes)
        writer.writerows(self.rows.tolist())
        return buffer.getvalue()

    def save(self, rows_path: str | Path, json_path: str | Path | None = None) -> None:
        """Write the synthetic rows (CSV) and, optionally, the release: JSON plus its side file, atomically.

        The side file (``<json name>.answers.npz``, beside the JSON) is written first and the JSON last,
        so the JSON never names a side file that is not there.
        """
        write_atomic(Path(rows_path), self.rows_csv())
        if json_path is None:
            return
        json_path = Path(json_path)
        side = SideArrays()
        document = self.document(side)
        document["side_file"] = write_side_file(json_path.with_name(side_file_name(json_path)), side)
        write_document(json_path, document)
        self.location = json_path

    @classmethod
    def load(cls, json_path: str | Path, *, labels: ValueLabels | None = None,
             rows: str | Path | None = None) -> Release:
        """Read a release written by :meth:`save`: the JSON and its side file (size and SHA-256 checked); or one
        whole document with its answers inline (:meth:`to_json`, as ``dprelease serve`` returns a release), whose
        synthetic rows are the service's ``rows.csv``, given as ``rows`` (codes, or the labels of the release's
        schema; without it the release has no rows).

        Raises :class:`~dprelease.errors.InputError` with one clear message when the JSON cannot be read,
        is not a release, or its side file is missing or altered.
        """
        json_path = Path(json_path)
        document = read_document(json_path)
        schema = _recorded_schema(document, json_path)  # a release made through a schema: its labels by default
        labels = schema if labels is None else labels
        if is_inline(document):
            return cls._inline(document, json_path, labels, rows, schema)
        if rows is not None:
            raise InputError(f"release file {str(json_path)!r} keeps its rows in its side file: rows= is for a "
                             "release with its answers inline (from dprelease serve)")
        entry = document.get("side_file")
        if not isinstance(entry, dict):
            raise InputError(f"release file {str(json_path)!r} names no side file")
        arrays = open_side_file(json_path, entry)

        def read(name: str) -> np.ndarray:
            if name not in arrays:
                raise InputError(f"release file {str(json_path)!r} names the array {name!r}, which its side file "
                                 "lacks")
            return arrays[name]

        try:
            domain = Domain.from_dict(document["domain"])
            workload = Workload(domain, tuple(tuple(a["marginal"]) for a in document["workload_answers"]))
            answers = []
            for item in document["workload_answers"]:
                values = read(item["array"])
                if list(values.shape) != list(item["shape"]):
                    raise InputError(f"release file {str(json_path)!r}: the answer to {item['marginal']} has shape "
                                     f"{list(values.shape)} in the side file, {item['shape']} in the JSON")
                answers.append(values)
            rows_entry = document["synthetic_rows"]
            rows = read(rows_entry["array"]).astype(rows_entry["dtype"])
        except (KeyError, TypeError) as exc:
            raise InputError(f"release file {str(json_path)!r} lacks an entry of a release: {exc}") from None
        return cls(
            mechanism=document["mechanism"], domain=domain, workload=workload, guarantee=document["guarantee"],
            parameters=internalize(document.get("parameters", {}), read),
            privacy_ledger=internalize(document["privacy_ledger"], read),
            transcript=internalize(document.get("transcript", []), read),
            answers=answers, rows=rows, rows_method=rows_entry["method"],
            seeded=not document.get("fit_for_release", False),
            extra={k: internalize(v, read) for k, v in document.items() if k not in _OWN_KEYS},
            schema=document.get("schema"), labels=labels, location=json_path,
        )

    @classmethod
    def _inline(cls, document: dict[str, object], json_path: Path, labels: ValueLabels | None,
                rows_path: str | Path | None, parsed: Schema | None) -> Release:
        """A release from one whole document (:meth:`to_json`), its rows read from ``rows_path`` when given;
        ``parsed``: the schema the document records, read."""
        where = f"release file {str(json_path)!r}"
        try:
            domain = Domain.from_dict(document["domain"])
            workload = Workload(domain, tuple(tuple(a["marginal"]) for a in document["workload_answers"]))
            answers = [np.asarray(a["fractions"], dtype=np.float64).reshape(a["shape"])
                       for a in document["workload_answers"]]
            count, method = int(document["synthetic_rows"]["count"]), document["synthetic_rows"]["method"]
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"{where} lacks an entry of a release: {exc}") from None
        rows = np.zeros((0, len(domain)), dtype=np.int64)
        if rows_path is not None:
            rows = _rows_from_csv(Path(rows_path), domain, parsed)
            if len(rows) != count:
                raise InputError(f"rows file {str(rows_path)!r} has {len(rows):,} rows; {where} released {count:,}: "
                                 "it belongs to another release")
        return cls(
            mechanism=document["mechanism"], domain=domain, workload=workload, guarantee=document["guarantee"],
            parameters=document.get("parameters", {}), privacy_ledger=document["privacy_ledger"],
            transcript=document.get("transcript", []), answers=answers, rows=rows, rows_method=method,
            seeded=not document.get("fit_for_release", False),
            extra={**{k: v for k, v in document.items() if k not in _OWN_KEYS},
                   **({"synthetic_rows_released": count} if rows_path is None else {})},
            schema=document.get("schema"), labels=labels, location=json_path,
        )


def _rows_from_csv(path: Path, domain: Domain, schema: Schema | None) -> np.ndarray:
    """The synthetic rows a service wrote (``rows.csv``): codes over ``domain``, or the labels of ``schema``
    (each bin by its label, read back by the schema of labels that decoded them). Errors quote no value."""
    from dprelease.schema import Schema, encode, label_schema

    reader = Schema.from_domain(domain) if schema is None else label_schema(schema)
    try:  # no value quoted: a mistaken --rows may be the private table itself
        return np.asarray(encode(str(path), reader), dtype=np.int64)
    except InputError as exc:
        raise InputError(f"rows file {str(path)!r} does not read as this release's synthetic rows ("
                         f"{'codes' if schema is None else 'the labels of its schema'}): {exc}") from None


def _recorded_schema(document: dict[str, object], json_path: Path) -> Schema | None:
    """The schema a release records, read once (None for a table of codes): its labels name values as the release did
    when it was made (:meth:`Release.marginal`), and it reads a service's label rows."""
    from dprelease.schema import Schema

    if not isinstance(document.get("schema"), dict):
        return None
    try:
        return Schema.from_dict(document["schema"])
    except InputError as exc:
        raise InputError(f"release file {str(json_path)!r}: its schema does not read: {exc}") from None
