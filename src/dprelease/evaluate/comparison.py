"""``compare``: a synthetic table against the real one, beside the baselines (``dprelease evaluate`` from Python).

NOT PRIVATE: everything here reads the real table (errors, baselines drawn from it with a seeded generator, the
shares of its values a schema clips): the curator's own check, never a release. The command line and
:func:`compare` share :func:`evaluation`, so both print the same figures for the same inputs and seed.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from dprelease.api import load_schema
from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.engines.files import several_files
from dprelease.engines.persons import PersonRows
from dprelease.engines.registry import open_table, read_dataset
from dprelease.errors import InputError, InputTypeError, warn_user
from dprelease.evaluate.baselines import Baselines, baseline_tables, run_epsilon
from dprelease.evaluate.metrics import MarginalError, per_marginal_errors, summarize
from dprelease.evaluate.values import (VALUES_NOTE, ColumnValues, OrderValues, render_orders, render_values,
                                       value_report)
from dprelease.mechanisms.progress import Progress
from dprelease.queries.workload import Workload
from dprelease.release import Release
from dprelease.release.files import read_document
from dprelease.schema import Schema, label_schema
from dprelease.schema.decode import VALUE_MODES
from dprelease.schema.draft import read_source
from dprelease.schema.tables import Table
from dprelease.validation import check_positive, check_positive_int

SYNTHETIC = "synthetic"
PER_MARGINAL_NOTE = "NOT PRIVATE: errors against the real table (never its counts), for the curator only"


@dataclass(frozen=True)
class PersonUnit:
    """A person-level release's privacy id and its bound k (public: the release's parameters)."""

    privacy_id: str
    rows_per_person: int

    @classmethod
    def of(cls, parameters: Mapping[str, object] | None) -> PersonUnit | None:
        parameters = parameters or {}
        if parameters.get("privacy_id") is None:
            return None
        return cls(str(parameters["privacy_id"]), int(parameters.get("rows_per_person", 1)))

    def note(self, *, per_person_baseline: bool, hint: str) -> str:
        """What the baselines beside this release compare (``hint``: how to get the per-person one)."""
        k = self.rows_per_person
        baselines = (f"the independent and uniform baselines read every row at a record's noise, a weaker promise "
                     f"than the release's; the per-person one keeps at most {k} rows of each person at the release's "
                     "noise, like for like" if per_person_baseline else
                     "the baselines above read every row at a record's noise, a weaker promise than the release's "
                     f"({hint} for a per-person baseline)")
        return (f"the release protects a person (privacy id {self.privacy_id!r}, at most {k} rows each): its noise is "
                f"{k} times a record's and it describes the table with each person's rows bounded, so the real table "
                f"differs from what it measured; {baselines}")


@dataclass(frozen=True)
class Evaluation:
    """A synthetic table's workload error against the real table, beside the baselines (NOT PRIVATE).

    ``avg_l1`` (the mean over the workload's marginals of the L1 distance between the two tables' marginals, as
    fractions) and ``max_error`` (the largest error of any cell) are the benchmarks' figures;
    ``baselines`` maps each baseline's name to its avg L1; ``to_dict()`` is ``dprelease evaluate --json``'s object
    and ``str()`` its text."""

    workload: Workload
    errors: tuple[MarginalError, ...]
    baseline_draws: Baselines
    n_real: int
    n_synthetic: int
    epsilon: float
    seed: int
    values: tuple[ColumnValues, ...] | None = None
    unit_note: str | None = None
    #: the schema's declared order (``ordered``), pair by pair: the real and synthetic rows out of it
    orders: tuple[OrderValues, ...] = ()

    @cached_property
    def summary(self) -> dict[str, object]:
        """The synthetic table's ``max_error``, ``avg_l1``, ``max_l1``, ``worst_marginal`` and ``n_marginals``."""
        return summarize(list(self.errors), SYNTHETIC)

    @property
    def avg_l1(self) -> float:
        return float(self.summary["avg_l1"])

    @property
    def max_error(self) -> float:
        return float(self.summary["max_error"])

    @property
    def baselines(self) -> dict[str, float]:
        """Each baseline's avg L1, by name."""
        return {name: float(summarize(list(self.errors), name)["avg_l1"]) for name in self.baseline_draws.tables}

    def to_dict(self, *, per_marginal: bool = False) -> dict[str, object]:
        """The figures as ``dprelease evaluate --json`` prints them (``per_marginal``: every marginal's error too,
        NOT PRIVATE like the rest)."""
        out = {**self.summary, "n_real": self.n_real, "n_synthetic": self.n_synthetic}
        if self.values is not None:
            out["values"] = [c.to_json() for c in self.values]
            out["values_note"] = VALUES_NOTE
        if self.orders:
            out["orders"] = [o.to_json() for o in self.orders]
        out["baselines"] = {name: summarize(list(self.errors), name) for name in self.baseline_draws.tables}
        out["baselines_note"] = self.baseline_draws.describe()
        out["baseline_epsilon"], out["baseline_seed"] = self.epsilon, self.seed
        out["baseline_unit"] = "add-remove" if self.baseline_draws.add_remove else "replace"
        if self.unit_note is not None:
            out["unit_note"] = self.unit_note
        if per_marginal:
            out["per_marginal"] = [e.to_json() for e in self.errors]
            out["per_marginal_note"] = PER_MARGINAL_NOTE
        return out

    def to_text(self, *, per_marginal: bool = False) -> str:
        """The figures as ``dprelease evaluate`` prints them."""
        summary = self.summary
        lines = [f"workload: {summary['n_marginals']} marginal{'' if summary['n_marginals'] == 1 else 's'}, "
                 f"{self.workload.num_queries} cells",
                 f"max error:  {summary['max_error']:.4f}  (worst marginal {summary['worst_marginal']})",
                 f"average L1: {summary['avg_l1']:.4f}",
                 f"baselines ({self.baseline_draws.describe()}):"]
        for name in self.baseline_draws.tables:
            result = summarize(list(self.errors), name)
            lines.append(f"  {name:<36} average L1 {result['avg_l1']:.4f}  max error {result['max_error']:.4f}")
        if self.unit_note is not None:
            lines.append(f"note: {self.unit_note}")
        if self.values is not None:
            lines += ["", *render_values(self.values)]
        if self.orders:
            lines += ["", *render_orders(self.orders)]
        if per_marginal:
            names = [SYNTHETIC, *self.baseline_draws.tables]
            lines += ["", f"per marginal, worst first ({PER_MARGINAL_NOTE}):",
                      "| marginal | cells | " + " | ".join(f"L1 {n}" for n in names) + " |",
                      "|---|---:|" + "---:|" * len(names)]
            for e in sorted(self.errors, key=lambda e: -e.l1[SYNTHETIC]):  # stable: ties keep the workload's order
                lines.append(f"| {', '.join(e.marginal)} | {e.cells} | "
                             + " | ".join(f"{e.l1[n]:.4f}" for n in names) + " |")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

    def __repr__(self) -> str:
        base = ", ".join(f"{name!r}: {value:.4f}" for name, value in self.baselines.items())
        return f"Evaluation(avg_l1={self.avg_l1:.4f}, max_error={self.max_error:.4f}, baselines={{{base}}})"


def read_once(source: object, schema: Schema | None) -> object:
    """One file's raw columns, as ``synth`` reads them under ``schema``, for both the workload's codes and the values'
    report (a 1,000,000-row table was read twice: half of evaluate's reading time); the source itself without a
    schema, for part files (their codes come through DuckDB, as synth reads them) or for a DataFrame."""
    if schema is None or several_files(source) or not isinstance(source, (str, os.PathLike)):
        return source
    return read_source(Path(source), schema.read_names, strip=schema.strip, layout=schema.file_names)


def curator_table(source: object, domain: Domain, schema: Schema | None) -> Dataset:
    """The real (or synthetic) table for the curator's tools: a table of codes over ``domain`` (a CSV, part files, a
    Dataset, a DataFrame, an array of codes), or a raw table (a file, part files, a DataFrame, its raw columns
    already read) encoded by ``schema``. No budget: evaluation is not a release, so a schema drafted openly is
    accepted too."""
    if isinstance(source, Dataset):
        if source.domain == domain:
            return source
        if all(a in source.domain and source.domain.size_of(a) == domain.size_of(a) for a in domain.attributes):
            return source.select(domain.attributes)  # the columns compared
        raise InputError("a Dataset given for evaluation is over another domain than the schema's or domain's")
    if several_files(source):  # part files, as synth reads them
        return read_dataset(os.fspath(source) if isinstance(source, os.PathLike) else source,
                            domain if schema is None else None, schema=schema)
    if schema is not None:
        return Dataset.from_schema(source, schema)
    if isinstance(source, (str, os.PathLike)):
        return Dataset.from_csv(source, domain)
    if hasattr(source, "columns"):  # a DataFrame of codes: its columns by name, in any order
        return Dataset.from_dataframe(source, domain)
    return Dataset.from_records(source, domain)


def evaluation(real: Dataset | PersonRows, synthetic: Dataset, workload: Workload, *, epsilon: float, seed: int,
               unit: PersonUnit | None = None, unit_hint: str = "", values: Sequence[ColumnValues] | None = None,
               add_remove: bool = False, progress: Progress | None = None,
               orders: Sequence[OrderValues] = ()) -> Evaluation:
    """The errors of ``synthetic`` and of the baselines drawn from ``real`` (with its persons: the per-person baseline
    too, at ``unit``'s k; ``add_remove``: the release's unit, the independent baseline's too) on ``workload``;
    ``values`` the schema's per-column report and ``orders`` its declared order's, already computed."""
    progress = progress or Progress.silent()
    persons = isinstance(real, PersonRows)
    progress.phase("drawing baselines")
    baselines = baseline_tables(real, epsilon=epsilon, n_rows=synthetic.n, seed=seed,
                                rows_per_person=unit.rows_per_person if persons and unit is not None else None,
                                add_remove=add_remove)
    table = real.table if persons else real
    progress.phase("marginal errors")
    errors = per_marginal_errors(table, {SYNTHETIC: synthetic, **baselines.tables}, workload)
    note = None if unit is None else unit.note(per_person_baseline=persons, hint=unit_hint)
    return Evaluation(workload, tuple(errors), baselines, table.n, synthetic.n, epsilon, seed,
                      None if values is None else tuple(values), note, tuple(orders))


def is_add_remove(parameters: Mapping[str, object] | None) -> bool:
    """Whether a release's privacy unit is add/remove (public: its parameters)."""
    return (parameters or {}).get("privacy_unit") == "add-remove"


def codes_array(table: object) -> bool:
    """Whether ``table`` is an in-memory array of codes (not a path, part files, a Dataset or a DataFrame)."""
    return not isinstance(table, (str, os.PathLike, Dataset, list, tuple)) and hasattr(table, "__array__") \
        and not hasattr(table, "columns")


def released_workload(document: Mapping[str, object] | None, domain: Domain) -> list[list[str]] | None:
    """The marginals the release answered over ``domain``'s columns (all of them where every column is compared; None
    where none is over them). Public."""
    marginals = [list(a["marginal"]) for a in (document or {}).get("workload_answers") or []]
    return [m for m in marginals if all(a in domain for a in m)] or None


def default_workload(document: Mapping[str, object] | None, domain: Domain) -> list[list[str]] | str:
    """The marginals compared where none are named: the release's own (:func:`released_workload`), else all of one
    to three columns (fewer where fewer columns are compared). Public."""
    return released_workload(document, domain) or f"1-{min(3, len(domain.attributes))}way"


def release_document(release: object) -> dict[str, object]:
    """The ``privacy_ledger``, ``parameters`` and answered marginals of a :class:`~dprelease.release.Release`, its JSON
    file's path, or its JSON as a dict (public)."""
    if isinstance(release, Release):
        return {"privacy_ledger": release.privacy_ledger, "parameters": release.parameters,
                "workload_answers": [{"marginal": list(m)} for m in release.workload.marginals],
                "schema": release.schema, "domain": release.domain}
    if isinstance(release, Mapping):
        if "privacy_ledger" not in release:
            raise InputError("release has no 'privacy_ledger': give a Release, its JSON file or the file's JSON")
        return dict(release)
    if isinstance(release, (str, os.PathLike)):
        return read_document(Path(release))
    raise InputTypeError(f"release must be a Release, its JSON file's path or its JSON as a dict, got "
                         f"{type(release).__name__}")


def recorded_reader(document: Mapping[str, object]) -> tuple[Schema | None, Domain | None]:
    """The schema a release ran with (a raw table's), else its domain (a table of codes): what both tables are read by
    where the curator gives neither (public: the release's JSON)."""
    if document.get("schema") is not None:
        try:
            return Schema.coerce(document["schema"]), None
        except InputError as exc:
            raise InputError(f"the release's schema does not read: {exc}") from None
    if document.get("domain") is None:
        raise InputError("the release records neither a schema nor a domain: give its schema or domain")
    return None, as_domain(document["domain"])


def schema_difference(recorded: Schema, schema: Schema) -> str | None:
    """Where ``schema`` reads a column into other cells than ``recorded`` (the schema the release ran with), in words;
    None where they agree on every column of ``schema``. Public: both schemas."""
    for name in schema.names:
        if name not in recorded.names:
            return f"column {name!r} is not in the release's schema"
        ours, theirs = schema.labels(name), recorded.labels(name)
        if ours != theirs:
            counts = f"{len(theirs)} cells there, {len(ours)} here" if len(ours) != len(theirs) else "other cells"
            return f"column {name!r} has {counts}"
    return None


def table_reader(document: Mapping[str, object] | None, schema: object, domain: object, decode: str | None,
                 columns: Sequence[str] | None, *, cli: bool = False) -> tuple[Schema | None, Domain, str | None]:
    """What both tables are read by: the schema (restricted to ``columns``) or the domain (whole: a caller's arrays of
    codes are read over it before :meth:`Domain.select` picks ``columns``), and how the synthetic table was decoded;
    as given, else as ``document`` (the release's JSON) records. A given schema that bins a column otherwise than the
    release's warns, naming it. Messages name parameters as ``compare`` takes them (``schema=``), or as the command
    line does with ``cli`` (``--schema``). Public checks only."""
    def flag(name: str) -> str:
        return f"--{name}" if cli else f"{name}="

    if schema is not None and domain is not None:
        raise InputError(f"give {flag('schema')} (raw tables) or {flag('domain')} (tables of integer codes), not both")
    given = schema is not None or domain is not None
    if not given:
        if document is None:
            raise InputError(f"give {flag('schema')} (raw tables), {flag('domain')} (tables of integer codes) or "
                             f"{flag('release')} (the schema or domain it records)")
        schema, domain = recorded_reader(document)
        decoded = document.get("decoded")
        if decode is None and schema is not None and isinstance(decoded, Mapping) and decoded.get("values") == "label":
            decode = "label"  # synth wrote bin labels, the release says
    if decode is not None and decode not in VALUE_MODES:
        raise InputError(f"{'--decode' if cli else 'decode'} must be one of {list(VALUE_MODES)}, got {decode!r}")
    if decode is not None and schema is None:
        raise InputError(f"{'--decode' if cli else 'decode'} needs {flag('schema')}: a table of codes is not decoded")
    if schema is None:
        return None, as_domain(domain), decode
    schema = load_schema(schema, columns)
    if given and document is not None and document.get("schema") is not None:
        difference = schema_difference(recorded_reader(document)[0], schema)
        if difference is not None:
            warn_user(f"{flag('schema')} is not the schema the release ran with ({difference}): both tables are read "
                      f"through {flag('schema')}; without it the release's own is used", UserWarning)
    return schema, schema.domain, decode


def as_domain(domain: object) -> Domain:
    """``domain=`` as a user gives it: a Domain, a dict of column sizes, or a domain file's path (public)."""
    if isinstance(domain, Domain):
        return domain
    if isinstance(domain, Mapping):
        return Domain.from_dict(domain)
    if isinstance(domain, (str, os.PathLike)):
        return Domain.from_json(domain)
    raise InputTypeError(f"domain must be a Domain, a dict of column sizes or a domain file's path, got "
                         f"{type(domain).__name__}")


def compare(real: object, synthetic: object, *, workload: Workload | str | Sequence[Sequence[str]] | None = None,
            schema: Schema | Mapping | str | Path | None = None, domain: object = None,
            release: object = None, epsilon: float | None = None, seed: int = 0, decode: str | None = None,
            columns: Sequence[str] | None = None, show_values: bool = False) -> Evaluation:
    """NOT PRIVATE: ``synthetic`` against ``real`` on ``workload``, beside the baselines drawn from ``real`` (seeded),
    as ``dprelease evaluate`` prints it. For the curator's eyes only: nothing here is a release.

    Args:
        real, synthetic: raw tables (a CSV or Parquet path, part files, a pandas DataFrame) with ``schema``, as
            ``synthesize_table`` and :class:`~dprelease.synthesizer.Synthesizer` read and write them; or tables of
            integer codes (a CSV path, a DataFrame, an (n, d) array in the domain's column order, a
            :class:`~dprelease.Dataset`) with ``domain``. ``synthetic`` may be a
            :class:`~dprelease.release.Release` itself: its rows' codes are compared (no values' distances: they are
            codes), and its schema (or domain) and ledger are used unless given.
        workload: the marginals compared (``"1-3way"``, a :class:`~dprelease.Workload`, a list of attribute lists;
            default: the release's own marginals over the columns compared where ``release`` is given, else
            ``"1-3way"``, or ``"1-2way"`` for two columns).
        schema: the schema the release ran with (a Schema, its file, or its JSON as a dict; default: the one
            ``release`` records); a raw table's columns then also get the shares of real values the schema clips or
            sends to ``other`` and the Kolmogorov-Smirnov distance of the synthetic numbers and dates to the real
            ones. One that reads a column into other cells than the release's schema warns, naming the column.
        domain: for tables of codes (a Domain, a dict of column sizes, or a domain file; default: ``release``'s).
        release: the release of ``synthetic`` (a Release, its JSON file or the file's JSON): the baselines then draw
            at its run's epsilon (a schema draft's spend left out), and a person-level release read with ``schema``
            adds the per-person baseline (each person's rows bounded to its k, at its noise). Without ``schema`` and
            ``domain``, both tables are read by the schema (or domain) it records, and by bin labels where synth
            wrote labels (``decode``).
        epsilon: the noisy 1-way baseline's epsilon (default: ``release``'s run, else 1).
        seed: the baselines' draws (seeded, for comparison only).
        decode: ``"label"`` where ``synthetic`` holds bin labels (``decode="label"`` in synth; default: what
            ``release`` says synth wrote, where the schema is the release's).
        columns: compare these columns only.
        show_values: with ``schema``, name the real values each column sends to ``other`` most often, with their
            shares (``Evaluation.values``; the table's own values, for the curator).

    Returns:
        an :class:`Evaluation`: ``avg_l1``, ``max_error``, ``baselines`` (name -> avg L1), ``values``,
        ``to_dict()`` (the command's JSON) and ``str()`` (its text).

    Raises:
        InputError, InputTypeError: a bad parameter (named), or a table the schema or domain cannot read.
    """
    if isinstance(synthetic, Release):  # a release in memory: its rows' codes, its own schema and domain and ledger
        release = synthetic if release is None else release
        synthetic = Dataset.from_records(synthetic.rows, synthetic.domain)
    # public checks first, before either table is read
    document = None if release is None else release_document(release)
    schema, domain, decode = table_reader(document, schema, domain, decode, columns)
    if isinstance(synthetic, Dataset):  # codes (a Release's rows): nothing was decoded, whatever synth wrote
        decode = None
    if not isinstance(show_values, bool):
        raise InputTypeError(f"show_values must be True or False, got {show_values!r:.100}")
    if schema is None:
        # arrays of codes over the whole domain, before its columns are chosen (they have no header to choose by)
        real, synthetic = (Dataset.from_records(t, domain) if codes_array(t) else t for t in (real, synthetic))
        domain = domain.select(columns)  # (a schema is restricted to ``columns`` already)
    if workload is None:
        workload = default_workload(document, domain)
    workload = Workload.resolve(workload, domain)
    if workload.domain != domain:
        raise InputError("workload must be over the schema's or domain's columns (the same columns in the same order)")
    if epsilon is not None:
        epsilon = check_positive(epsilon, "epsilon")
    elif document is not None:
        epsilon = run_epsilon(document["privacy_ledger"])
        if epsilon is None:
            raise InputError("release states no epsilon budget; give epsilon=")
    else:
        epsilon = 1.0
    seed = check_positive_int(seed, "seed", minimum=0)
    parameters = (document or {}).get("parameters")
    unit = PersonUnit.of(parameters)
    real_source = read_once(real, schema)
    real_table = read_real(real, real_source, domain, schema, unit)
    synthetic_source = synthetic if decode == "label" else read_once(synthetic, schema)
    synthetic_table = curator_table(synthetic_source, domain, label_schema(schema) if decode == "label" else schema)
    values, orders = None, []
    if schema is not None and not isinstance(real, Dataset):
        values = value_report(real_source, None if decode == "label" or isinstance(synthetic, Dataset) else
                              synthetic_source, schema, show_values=show_values, orders=orders)
    return evaluation(real_table, synthetic_table, workload, epsilon=epsilon, seed=seed, unit=unit,
                      unit_hint="give the raw table with schema=", values=values, add_remove=is_add_remove(parameters),
                      orders=orders)


def read_real(source: object, read: object, domain: Domain, schema: Schema | None,
              unit: PersonUnit | None) -> Dataset | PersonRows:
    """The real table: with its persons where the release is person-level and the raw table comes with its schema
    (read as synth reads it, so the per-person baseline bounds the same persons), else its codes (``read``: its raw
    columns already read, where :func:`read_once` read them)."""
    if unit is not None and schema is not None and not isinstance(source, (Dataset, Table)):
        # read again, through the engine synth used, for each row's person (``read`` has the values, not the ids)
        return open_table(str(source) if isinstance(source, os.PathLike) else source, schema=schema,
                          privacy_id=unit.privacy_id)
    return curator_table(read, domain, schema)
