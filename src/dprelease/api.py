"""The one-call entry point: a private table and a workload in, a :class:`Release` out.

>>> import dprelease
>>> from dprelease.api import synthesize
>>> d = dprelease.Domain(("a", "b"), (2, 3))
>>> data = dprelease.Dataset.from_records([[0, 1], [1, 2], [1, 2], [0, 0]], d)
>>> release = synthesize(data, "1-2way", mechanism="mwem", epsilon=1.0, rounds=2, seed=0)  # doctest: +SKIP

A raw table (strings, numbers, dates, blanks) goes through its public schema with :func:`synthesize_table`:
encoded by the schema, synthesized, and released with the schema recorded and, when the schema was drafted
with differential privacy, the draft's charges composed into the release's ledger (:func:`with_schema`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

import numpy as np

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.engines.base import PrivateTable
from dprelease.engines.counting import parse_memory_limit
from dprelease.engines.files import is_path_source
from dprelease.engines.persons import PersonRows
from dprelease.engines.registry import engine_name, open_table
from dprelease.errors import InputError, InputTypeError, SeededRunWarning, warn_user
from dprelease.mechanisms import registry
from dprelease.mechanisms.base import Budget, Fitted
from dprelease.mechanisms.mwem import PRIVACY_UNITS
from dprelease.privacy.accountant import Charge
from dprelease.privacy.contributions import bound, check_privacy_id, check_rows_per_person
from dprelease.privacy.rng import make_rng
from dprelease.privacy.zcdp import epsilon_for
from dprelease.progress import Progress
from dprelease.queries.workload import Workload
from dprelease.release import Release
from dprelease.release.core import unmeasured_columns
from dprelease.representations import REPRESENTATIONS
from dprelease.rows import ROW_CHOICES, ROW_METHODS
from dprelease.rows.fitting import DEFAULT_LOSS, MIN_PASS_GAIN, default_passes, fit_rows
from dprelease.schema import Schema
from dprelease.schema.between import agreeing_moves, agreeing_targets, betweens, mended_codes, unfit_rows
from dprelease.schema.draft import draft_charges
from dprelease.schema.orders import order_keeping_moves, ordered_codes, ordered_targets, unorderable_rows
from dprelease.schema.schema import NOT_PUBLIC
from dprelease.validation import (check_alpha, check_delta, check_epsilon, check_positive_int, warn_if_delta_weak,
                                  warn_if_weak)

#: The keyword options of :func:`synthesize` besides the privacy budget (``SynthesisRequest.from_options``).
SYNTHESIS_OPTIONS = ("alpha", "rounds", "n_rows", "rows", "seed", "max_cells", "representation", "max_model_cells",
                     "base", "privacy_unit", "rows_per_person")
#: The encoder's options that :func:`synthesize_table` passes on (:func:`dprelease.schema.encode`).
READ_OPTIONS = ("delimiter", "header", "skip_rows", "show_values")


@dataclass(frozen=True)
class SynthesisRequest:
    """Every public choice of a run, validated before any private data is read."""

    mechanism: str
    epsilon: float
    delta: float | None  # None: the mechanism's default (:func:`~dprelease.mechanisms.registry.default_delta`)
    alpha: float | None
    rounds: int | None
    n_rows: int | None
    rows_method: str
    max_cells: int
    seed: int | None = None
    representation: str = "auto"
    max_model_cells: int | None = None
    base: str | None = None
    privacy_unit: str | None = None  # None or "replace": the book's unit; "add-remove": mwem only
    #: k of a person-level run (a raw table's privacy id, :func:`synthesize_table`): mwem under add/remove only
    rows_per_person: int | None = None

    @classmethod
    def from_options(cls, mechanism: str = "mwem", *, epsilon: float, delta: float | None = None,
                     **options: object) -> SynthesisRequest:
        """The request of ``synthesize(..., mechanism=, epsilon=, delta=, **options)`` (its keyword names:
        ``rows``, not ``rows_method``); an option :func:`synthesize` does not take is refused by name."""
        unknown = sorted(set(options) - set(SYNTHESIS_OPTIONS))
        if unknown:
            raise InputError(f"unknown option(s) {unknown}; the options are {list(SYNTHESIS_OPTIONS)}")
        return cls(mechanism, epsilon, delta, options.get("alpha"), options.get("rounds"), options.get("n_rows"),
                   options.get("rows", "auto"), options.get("max_cells", DEFAULT_MAX_CELLS), options.get("seed"),
                   options.get("representation", "auto"), options.get("max_model_cells"), options.get("base"),
                   options.get("privacy_unit"), options.get("rows_per_person"))

    def __post_init__(self) -> None:
        registry.lookup(self.mechanism)
        check_epsilon(self.epsilon, "epsilon")
        if self.delta is None:  # the mechanism's default: 1e-9 for mwem, 0 (pure DP) for the others
            object.__setattr__(self, "delta", registry.default_delta(self.mechanism))
        check_delta(self.delta)
        if self.alpha is not None:
            check_alpha(self.alpha)
        if self.rounds is not None:
            check_positive_int(self.rounds, "rounds")
        if self.n_rows is not None:  # 0 rows would release an empty table: refused, not guessed at
            check_positive_int(self.n_rows, "n_rows", minimum=1)
        if self.rows_method not in ROW_CHOICES:
            raise InputError(f"rows must be one of {list(ROW_CHOICES)}, got {self.rows_method!r}")
        check_positive_int(self.max_cells, "max_cells")
        if self.seed is not None:
            check_positive_int(self.seed, "seed", minimum=0)
        if self.representation not in REPRESENTATIONS:
            raise InputError(f"representation must be one of {list(REPRESENTATIONS)}, got {self.representation!r}")
        if self.max_model_cells is not None:
            check_positive_int(self.max_model_cells, "max_model_cells")
        if self.privacy_unit not in (None, *PRIVACY_UNITS):
            raise InputError(f"privacy_unit must be one of {list(PRIVACY_UNITS)}, got {self.privacy_unit!r:.100}")
        if self.rows_per_person is not None:
            check_rows_per_person(self.rows_per_person)
            if self.mechanism != "mwem":
                raise InputError(f"a person-level run (privacy_id, rows_per_person) is for mechanism='mwem' only, got "
                                 f"mechanism={self.mechanism!r}")
            if self.privacy_unit == "replace":
                raise InputError("a person-level run (privacy_id, rows_per_person) is under add/remove neighbours (one "
                                 "person more or fewer), not privacy_unit='replace'")
            object.__setattr__(self, "privacy_unit", "add-remove")

    def options(self, base: str | None) -> dict[str, object]:
        """The mechanism options as given (``None``: not given; the mechanism's own default applies)."""
        return {"alpha": self.alpha, "rounds": self.rounds, "max_cells": self.max_cells, "base": base,
                "representation": self.representation, "max_model_cells": self.max_model_cells,
                # the book's unit is every mechanism's: only add/remove needs one that takes it
                "privacy_unit": None if self.privacy_unit == "replace" else self.privacy_unit,
                "rows_per_person": self.rows_per_person}

    @property
    def add_remove(self) -> bool:
        """Whether n is private (a neighbour has one record more or fewer)."""
        return self.privacy_unit == "add-remove"

    def mechanism_entry(self, base: str | None = None) -> registry.Mechanism:
        """The registered mechanism configured with these options (public checks only)."""
        return registry.create(self.mechanism, **self.options(self.base if base is None else base))


def synthesize(
    dataset: object,
    workload: Workload | str | Sequence[Sequence[str]],
    *,
    domain: Domain | None = None,
    engine: str = "auto",
    memory_limit: int | str | None = None,
    mechanism: str = "mwem",
    epsilon: float,
    delta: float | None = None,
    alpha: float | None = None,
    rounds: int | None = None,
    n_rows: int | None = None,
    rows: str = "auto",
    seed: int | None = None,
    max_cells: int = DEFAULT_MAX_CELLS,
    representation: str = "auto",
    progress: bool | Callable[[str, int, int | None], None] | Progress | None = None,
    base: str | None = None,
    max_model_cells: int | None = None,
    privacy_unit: str | None = None,
    rows_per_person: int | None = None,
) -> Release:
    """Run ``mechanism`` on ``dataset`` for ``workload`` and return the release.

    Args:
        dataset: the private table: any :class:`~dprelease.engines.base.PrivateTable` (a Dataset, a
            ``DuckDBTable``, a ``SparkTable``), or where it lives, with ``domain``: CSV or Parquet files of
            integer codes (a path, a glob, a folder or a list), a Spark DataFrame, a pandas DataFrame or an
            (n, d) array. A table opened here is closed when the release is built.
        workload: a :class:`Workload`, a spec (``"3way"``, ``"1-3way"``, a JSON path) or a list of attribute lists
            (the cross-tables to release, e.g. ``[["age", "sex"], ["region", "income"]]``).
        domain: the public domain of a ``dataset`` that is not yet a table.
        engine: where such a ``dataset`` is counted (:func:`dprelease.engines.registry.open_table`):
            ``"auto"`` (DuckDB for files, Spark for a Spark DataFrame, memory otherwise), ``"memory"``,
            ``"duckdb"`` or ``"spark"`` (the active SparkSession reads files). Every engine gives the same
            counts, so the same seed gives the same release.
        memory_limit: the DuckDB or Spark engine's memory budget (bytes or a size such as ``"2GB"``; DuckDB
            spills beyond it); default 2 GiB.
        mechanism: a name in the registry (:mod:`dprelease.mechanisms.registry`): ``"mwem"`` (the default),
            ``"ic-mw"``, ``"ic-median"``, ``"ic-perceptron"`` (Algorithm 8 with multiplicative weights, the
            median mechanism or the perceptron; Thm 5.3), ``"smalldb"`` (Algorithm 4), ``"boosting"``
            (Sec. 6, Thm 6.1), ``"online-mw"`` (Algorithm 6 over the workload's cells). The median mechanism
            and SmallDB enumerate databases and only run on tiny domains (a clear DomainTooLargeError
            otherwise); see docs/update_rules.md.
        epsilon, delta: the privacy budget. delta defaults to the mechanism's own: 1e-9 for MWEM (chosen on
            the tuning suite, docs/decisions.md; ``delta=0`` gives pure DP), 0 (pure DP) for the others. With
            delta > 0, MWEM measures with Gaussian noise under zCDP accounting where that is the smaller noise
            for its plan (else Laplace, and the release says pure DP); the ic-* mechanisms use advanced
            composition; boosting needs delta > 0; SmallDB ignores delta (it is (epsilon, 0)-DP).
        alpha: target accuracy of the ic-* mechanisms, SmallDB and online MW (default: the smallest alpha
            their theorems guarantee; an error when they guarantee none).
        rounds: MWEM's T, a cap on the ic-* rounds (private, but voids Thm 5.4), or boosting's T.
        n_rows: synthetic rows to release, at least 1 (default: the real n, which is public).
        rows: a row method of :mod:`dprelease.rows`: ``"fitted"`` (rounded, then moved one attribute at a
            time toward the released workload answers; post-processing), ``"round"`` (each count n * p rounded
            down or up, up with probability its remainder: unbiased, :mod:`dprelease.representations.rounding`),
            ``"sample"`` (i.i.d. draws from the model), or ``"auto"`` (the default: ``"fitted"`` for MWEM,
            ``"round"`` for the book's mechanisms; the release says which and why).
        seed: reproducible run (warns: not fit for a real release); default: OS CSPRNG.
        max_cells: cap on an explicit histogram's cells.
        representation: the model of MWEM, ic-mw and online MW: ``"histogram"`` (explicit, up to
            ``max_cells``), ``"factored"`` (log-linear on the measured marginals; any domain size), or
            ``"auto"`` (the histogram when the domain fits ``max_cells``, and for MWEM at most
            :data:`~dprelease.representations.MWEM_HISTOGRAM_CELLS` = 1,000,000 cells; else factored). For ic-mw the
            factored model must fit its cap over *all* the workload's marginals (MW may update on any of
            them): checked before any data is read. The other mechanisms need the histogram.
        privacy_unit: the neighbouring tables of the guarantee: ``"replace"`` (the default, the book's: the same
            public n, one record replaced) or ``"add-remove"`` (``mechanism="mwem"`` only: one record more or fewer,
            so n is private; the run first releases a noisy count at 2 % of epsilon, plans and normalizes with it,
            and releases as many rows as that count and the measurements' totals say together, unless ``n_rows``
            is given). MST's, AIM's and most libraries' unit: at the
            same epsilon its noise is about half (Laplace) or 1/sqrt(2) (Gaussian) of replace one's, and neither
            guarantee implies the other at the same epsilon (README, "Privacy unit").
        rows_per_person: a person-level run's k (``mechanism="mwem"``; :func:`synthesize_table` with its
            ``privacy_id``, which hands this function the rows with their persons): at most k rows of each person
            are kept, drawn at random, and the guarantee is for one person added or removed.
        max_model_cells: cap on the factored model's junction-tree cells (public); default MWEM's preset
            (500,000, :mod:`dprelease.mechanisms.mwem_tuning`) or 2,000,000.
        base: ``mechanism="boosting"`` only: its base synopsis generator, ``"lp"`` (Thms 6.7/6.8, the
            default) or ``"bruteforce"`` (Thm 6.6; tiny domains and n only). See docs/boosting.md.
        progress: ``True`` for a progress line on stderr when it is a terminal (silent otherwise); a function
            ``progress(phase, step, total)``, called at the start of every phase (step 0) and at each of its
            steps (``total`` is None when a phase has no count): the mechanism's ``"rounds"``, MWEM's
            ``"final fit"``, ``"answers"``, ``"rows (<method>)"``; or a :class:`~dprelease.progress.Progress`
            (which the caller closes). Default: silent.

    An ``epsilon`` above 10 warns (:class:`~dprelease.errors.WeakPrivacyWarning`) and runs.
    """
    request = SynthesisRequest(mechanism, epsilon, delta, alpha, rounds, n_rows, rows, max_cells, seed,
                               representation, max_model_cells, privacy_unit=privacy_unit,
                               rows_per_person=rows_per_person)
    entry = request.mechanism_entry(base)
    persons = isinstance(dataset, PersonRows)
    if persons != (rows_per_person is not None):
        raise InputError("rows_per_person bounds each person's rows of a raw table with a privacy id: use "
                         "synthesize_table(..., privacy_id=..., rows_per_person=...)" if not persons else
                         "these rows carry a privacy id: give rows_per_person, the most rows one person keeps")
    source, options = (None, {}) if persons else table_source(dataset, domain, engine, memory_limit)
    table_domain = dataset.domain if source is None else domain
    workload = Workload.resolve(workload, table_domain)
    if workload.domain != table_domain:
        raise InputError("workload must be over the dataset's domain (same columns in the same order)")
    budget = Budget(epsilon=epsilon, delta=request.delta)
    bar = Progress.from_argument(progress, label=mechanism)
    entry.check(table_domain, workload, budget=budget)  # public: nothing read, spent or drawn yet
    warn_if_weak(epsilon)
    try:
        with opened(dataset if source is None else None, source, domain=domain, **options) as table:
            rng = make_rng(seed, warn=False)  # warned about below, once the run has passed every public check
            if persons:  # BOUND each person's rows (the privacy kernel), before any mechanism sees the table
                table = bound(dataset, rows_per_person=rows_per_person, rng=rng)
            if not request.add_remove:  # under add/remove n is private: not even a warning reads it
                warn_if_delta_weak(budget.delta, table.n)
            fitted = entry.fit(table, workload, budget=budget, rng=rng, progress=bar)
            bar.done()
            unmeasured = unmeasured_columns(fitted.transcript, table.domain)
            if unmeasured:
                warn_user(f"column(s) {unmeasured} are in no marginal this run measured (the workload leaves them "
                          "out): their synthetic values carry nothing of the data (uniform draws); add them to the "
                          "workload, or leave them out of the table (--columns, columns=)", UserWarning)
            if seed is not None:
                warn_user(f"seed={seed} makes this run reproducible and its noise predictable: "
                          "it is not fit for a real release", SeededRunWarning)
            if persons:  # public: the column's name and the bound, as the guarantee states them
                fitted = replace(fitted, parameters={**fitted.parameters, "privacy_id": dataset.privacy_id})
            return build_release(request, fitted, table, workload, rng, progress=bar)
    finally:
        if bar is not progress:  # made here (from True or a function): ended here
            bar.close()


def table_source(dataset: object, domain: Domain | None, engine: object,
                 memory_limit: object) -> tuple[object | None, dict[str, object]]:
    """(the source to open, or None when ``dataset`` is already a table; the engine options), checked (public).

    A table is used as it is, so ``engine`` and ``memory_limit`` must be left at their defaults for it.
    """
    options: dict[str, object] = {"engine": engine_name(engine, dataset)}
    if memory_limit is not None:
        if options["engine"] == "memory":
            raise InputError("memory_limit is the DuckDB and Spark engines' budget; the memory engine has none")
        parse_memory_limit(memory_limit)
        options["memory_limit"] = memory_limit
    if isinstance(dataset, PrivateTable) and not is_path_source(dataset):
        if engine != "auto" or memory_limit is not None:
            raise InputError("engine and memory_limit say how to open a source; dataset is already a table")
        if domain is not None and domain != dataset.domain:
            raise InputError("domain differs from the dataset's own domain")
        return None, {}
    if domain is None:
        raise InputError(f"dataset is a {type(dataset).__name__}, not a table: give its domain (domain=...)")
    if not isinstance(domain, Domain):
        raise InputTypeError(f"domain must be a dprelease.Domain, got {type(domain).__name__}")
    return dataset, options


@contextmanager
def opened(table: PrivateTable | None, source: object, **options: object) -> Iterator[PrivateTable]:
    """``table`` as it is, or ``source`` opened by :func:`open_table` and closed afterwards."""
    if table is not None:
        yield table
        return
    table = open_table(source, **options)
    try:
        yield table
    finally:
        close = getattr(table, "close", None)
        if close is not None:
            close()


def build_release(request: SynthesisRequest, fitted: Fitted, dataset: PrivateTable, workload: Workload,
                  rng: object, *, progress: Progress | None = None) -> Release:
    """Answers and rows from the fitted model, and the Release (post-processing: no private read)."""
    progress = progress or Progress.silent()
    method, reason = (fitted.rows, fitted.rows_reason) if request.rows_method == "auto" else \
        (request.rows_method, "chosen by the user")
    count = request.n_rows or fitted.n_rows or dataset.n  # the user's, else the run's public count, else the public n
    progress.phase("answers", len(workload.marginals))
    answers = workload.marginal_answers(fitted.model, on_step=progress.step)
    progress.phase(f"rows ({method})")
    synthetic = ROW_METHODS[method](fitted.row_model, count, rng, domain=dataset.domain,
                                    targets=list(zip(workload.marginals, answers)), on_step=progress.step)
    progress.done()
    return Release(
        mechanism=request.mechanism, domain=dataset.domain, workload=workload, guarantee=fitted.guarantee,
        parameters=fitted.parameters, privacy_ledger=fitted.accountant.to_json(), transcript=fitted.transcript,
        answers=answers, rows=synthetic, rows_method=method, seeded=request.seed is not None,
        extra={**fitted.extra, "synthetic_rows_reason": reason}, model=fitted.row_model,
    )


# ------------------------------------------------------------------ raw tables, through a public schema
def load_schema(schema: Schema | Mapping | str | Path, columns: Sequence[str] | None = None) -> Schema:
    """A :class:`Schema`, a schema or domain file, or the file's JSON form as a dict (what a user writes in Python),
    restricted to ``columns`` when given (public checks)."""
    schema = Schema.coerce(schema)
    if columns is None:
        return schema
    if isinstance(columns, str) or not isinstance(columns, Sequence):
        raise InputTypeError(f"columns must be a list of column names, got {columns!r:.100}")
    unknown = [c for c in columns if c not in schema.names]
    if unknown:
        raise InputError(f"columns {unknown} are not in the schema {list(schema.names)}")
    return schema.select(columns)


def warn_of_empty_columns(schema: Schema, *, where: str = "") -> None:
    """Warn of the columns with no value of their own, only a NULL or other bucket (what a private draft leaves of a
    column whose categories stayed under its noise): everything released of them is blank or ``<other>``. Public.
    ``where`` prefixes the message (a served table's name)."""
    empty = [c.name for c in schema.columns if c.value_count == 0]
    if empty:
        warn_user(f"{where}column(s) {empty} have no values in the schema, only its NULL or other bucket: every "
                  "synthetic value there will be blank or <other>; declare their values from public knowledge",
                  UserWarning)


def check_column_values(schema: Schema, *, where: str = "") -> None:
    """Refuse a schema whose every column has one value (only its other or NULL bucket: a private draft of a table too
    small for its epsilon), before anything is spent: its domain is one cell, so any release of it is the same table
    of ``<other>`` (or blanks) whatever the data, and would spend its budget to say nothing. Else warn of the columns
    with no value of their own (:func:`warn_of_empty_columns`; ``where`` prefixes that warning, a served table's name:
    the error is prefixed by its caller). Public."""
    if schema.domain.size == 1:
        raise InputError(f"every column of the schema has one value only (its other or NULL bucket: "
                         f"{list(schema.names)}), so a release would be the same whatever the data and spend its "
                         "budget for nothing; declare the columns' values (or bounds) from public knowledge, or "
                         "draft the schema with a larger epsilon")
    warn_of_empty_columns(schema, where=where)


def check_schema_use(schema: Schema, *, allow_non_public: bool = False) -> None:
    """Refuse a schema drafted by reading the data openly (``--non-private``), unless ``allow_non_public``;
    then warn: the release it makes is marked not fit for release (:func:`with_schema`). Refuse a schema of one cell
    and warn of a column with no value of its own (:func:`check_column_values`). Public checks only."""
    if not isinstance(allow_non_public, bool):
        raise InputTypeError(f"allow_non_public_schema must be True or False, got {allow_non_public!r}")
    check_column_values(schema)
    if schema.draft is None or schema.draft.is_public:
        return
    if not allow_non_public:
        raise InputError("the schema was drafted by reading the data openly (--non-private): a release built on it "
                         "is not differentially private; replace it with public knowledge, or draft it with "
                         "--epsilon (or pass --allow-non-public-schema / allow_non_public_schema=True to experiment: "
                         "the release is then marked not fit for release)")
    warn_user("the schema was drafted by reading the data openly: this release is NOT differentially private "
              "and is marked not fit for release", UserWarning)


def run_epsilon_delta(ledger: Mapping[str, object]) -> tuple[Fraction, Fraction, str]:
    """A run's total (epsilon, delta), exact, and how it was obtained.

    An (epsilon, delta) ledger (:class:`~dprelease.privacy.accountant.PrivacyAccountant`) gives its own exact
    sums. A zCDP ledger (:class:`~dprelease.privacy.zcdp.ZCDPAccountant`) is converted first: rho-zCDP implies
    (epsilon, delta)-DP by Canonne, Kamath & Steinke 2020 Sec. 2.3, with epsilon recomputed here from the exact
    rho spent and the run's delta (:func:`~dprelease.privacy.zcdp.epsilon_for`, checked exactly), so it is an
    upper bound, never a rounding of one.
    """
    spent = ledger["spent"]
    if "rho_exact" in spent:
        rho = Fraction(spent["rho_exact"])
        if rho == 0:
            return Fraction(0), Fraction(0), "the run spent nothing"
        delta = Fraction(ledger["budget"]["delta"])
        epsilon = Fraction(epsilon_for(rho=rho, delta=float(delta)))
        return epsilon, delta, (f"the run's rho={float(rho):.6g}-zCDP converted to ({float(epsilon):.6g}, "
                                f"{float(delta):.3g})-DP first (Canonne, Kamath & Steinke 2020, Sec. 2.3), then added")
    return (Fraction(spent["epsilon_exact"]), Fraction(spent["delta_exact"]),
            "the run's (epsilon, delta) ledger (its own charges, composed as it states)")


def compose_with_draft(run_ledger: Mapping[str, object], run_guarantee: str, charges: Sequence[Charge],
                       *, mechanism: str) -> tuple[dict[str, object], str]:
    """The release's ledger and guarantee when its schema was drafted privately: the draft's charges, then the
    run as one charge, added exactly (basic composition, Dwork & Roth Thm 3.16: the draft ran first on the same
    table, the run is a second (epsilon, delta)-DP mechanism, adaptively chosen given the schema).

    A zCDP run is converted to (epsilon, delta) before it is added (:func:`run_epsilon_delta`): the draft's
    stability histogram is (epsilon, delta)-DP with no zCDP bound, so the two are not added in rho.
    """
    draft_epsilon = sum((c.epsilon for c in charges), Fraction(0))
    draft_delta = sum((c.delta for c in charges), Fraction(0))
    run_epsilon, run_delta, how = run_epsilon_delta(run_ledger)
    total_epsilon, total_delta = draft_epsilon + run_epsilon, draft_delta + run_delta
    run_charge = Charge(f"run ({mechanism}): its whole ledger is under 'run'", run_epsilon, run_delta, how)
    ledger = {
        "accounting": "basic composition (Dwork & Roth Thm 3.16) of the schema draft and the run: their (epsilon, "
                      "delta) add; a zCDP run is converted to (epsilon, delta) first",
        "budget": {"epsilon": float(draft_epsilon) + float(run_ledger["budget"]["epsilon"]),
                   "delta": float(draft_delta) + float(run_ledger["budget"]["delta"])},
        "spent": {"epsilon": float(total_epsilon), "delta": float(total_delta),
                  "epsilon_exact": str(total_epsilon), "delta_exact": str(total_delta)},
        "composition": {"schema_draft": {"epsilon_exact": str(draft_epsilon), "delta_exact": str(draft_delta)},
                        "run": {"epsilon_exact": str(run_epsilon), "delta_exact": str(run_delta), "rule": how}},
        "charges": [*(c.to_json() for c in charges), run_charge.to_json()],
        "run": dict(run_ledger),
    }
    guarantee = (f"({float(total_epsilon):.6g}, {float(total_delta):.3g})-DP in total: the schema draft's "
                 f"({float(draft_epsilon):.6g}, {float(draft_delta):.3g})-DP and this run's "
                 f"({float(run_epsilon):.6g}, {float(run_delta):.3g})-DP by basic composition (Thm 3.16)"
                 + ("; the run's zCDP converted to (epsilon, delta) first (CKS 2020)" if "rho_exact" in
                    run_ledger["spent"] else "") + f". The run: {run_guarantee}")
    return ledger, guarantee


def with_schema(release: Release, schema: Schema) -> Release:
    """``release`` with its schema recorded (``Release.schema``, and the schema as its value labels) and the
    schema's draft accounted for.

    - written from public knowledge (no draft): the release as it is;
    - drafted privately: the draft's charges composed into the ledger and the guarantee
      (:func:`compose_with_draft`);
    - drafted openly (allowed by :func:`check_schema_use`): the guarantee says the release is not
      differentially private, and ``fit_for_release`` is false, with the reason.
    """
    release = replace(release, schema=schema.to_dict(), labels=schema)  # labels: Release.marginal names values
    draft = schema.draft
    if draft is None:
        return release
    if not draft.is_public:
        extra = {**release.extra, "fit_for_release": False, "not_fit_for_release_because": NOT_PUBLIC}
        ledger = {**release.privacy_ledger,
                  "schema_draft": {"mode": draft.mode, "accounted": False, "note": NOT_PUBLIC}}
        guarantee = (f"NOT differentially private: the schema was read openly from the data (--non-private); "
                     f"given that schema, the run alone is: {release.guarantee}")
        return replace(release, guarantee=guarantee, privacy_ledger=ledger, extra=extra)
    ledger, guarantee = compose_with_draft(release.privacy_ledger, release.guarantee, draft_charges(schema),
                                           mechanism=release.mechanism)
    return replace(release, guarantee=guarantee, privacy_ledger=ledger)


def person_level_options(privacy_id: object, options: dict[str, object],
                         engine: object) -> tuple[dict[str, object], object]:
    """The options and engine of a person-level run (public checks): ``privacy_id`` and ``rows_per_person`` go
    together, and the unit is add/remove (any engine reads the rows with their persons; the kernel bounds them)."""
    if privacy_id is None:
        raise InputError("rows_per_person bounds each person's rows: give privacy_id, the column naming each row's "
                         "person (--privacy-id)")
    if options.get("rows_per_person") is None:
        raise InputError(f"privacy_id={privacy_id!r:.100} needs rows_per_person, the most rows one person keeps "
                         "(--rows-per-person): a public choice, e.g. what most persons have at most")
    if options.get("privacy_unit") not in (None, "add-remove"):
        raise InputError("a person-level run (privacy_id) is under add/remove neighbours (one person more or fewer), "
                         f"not privacy_unit={options['privacy_unit']!r:.100}")
    return {**options, "privacy_unit": "add-remove"}, engine


def check_draft_unit(schema: Schema, privacy_id: str | None) -> None:
    """Refuse a privately drafted schema whose unit is not the run's (public): a draft per row spends for one row,
    which says nothing of a person with many; a draft per person composes only with a run for the same persons."""
    draft = schema.draft
    if draft is None or not draft.is_public or draft.privacy_id == privacy_id:
        return
    if privacy_id is None:
        raise InputError(f"the schema was drafted per person (privacy id {draft.privacy_id!r}): run with the same "
                         "privacy id (--privacy-id, privacy_id=) so that the draft and the run protect the same unit")
    drafted = "per row" if draft.privacy_id is None else f"per person of {draft.privacy_id!r}"
    raise InputError(f"the schema was drafted {drafted}: its charge does not protect a person of {privacy_id!r}; "
                     f"draft it with --privacy-id {privacy_id} --rows-per-person K (privacy_id=, rows_per_person=), "
                     "or declare it from public knowledge")


def synthesize_table(
    data: object,
    schema: Schema | Mapping | str | Path,
    workload: Workload | str | Sequence[Sequence[str]] = "1-3way",
    *,
    epsilon: float,
    delta: float | None = None,
    mechanism: str = "mwem",
    columns: Sequence[str] | None = None,
    allow_non_public_schema: bool = False,
    read_options: Mapping[str, object] | None = None,
    progress: bool | Callable[[str, int, int | None], None] | Progress | None = None,
    engine: str = "auto",
    memory_limit: int | str | None = None,
    privacy_id: str | None = None,
    **options: object,
) -> Release:
    """A raw table through its public schema: encode, :func:`synthesize`, and :func:`with_schema`.

    Public checks run first, in this order, and a mistake stops before the data is read or anything is
    spent: the options (:meth:`SynthesisRequest.from_options`), the schema (and ``columns``), the read
    options, the workload, the mechanism's own checks, the schema's draft (:func:`check_schema_use`). Then the table is encoded (every
    column's problems in one error), and the run spends ``(epsilon, delta)``; a privately drafted schema's
    spend is added to the release's ledger.

    Args:
        data: a pandas DataFrame, a Parquet file or a CSV (see :func:`dprelease.schema.encode`), a glob or a
            folder of them, or a Spark DataFrame.
        schema: a :class:`Schema`, a schema file (a domain file of sizes is one), or its JSON form as a dict.
        workload, epsilon, delta, mechanism, options: as :func:`synthesize` (an ``epsilon`` above 10 warns,
            above 1000 is refused).
        progress: as :func:`synthesize`, with the phase ``"encode"`` first.
        columns: use these schema columns only, in this order.
        allow_non_public_schema: run with a schema drafted openly; the release is marked not fit for release.
        read_options: ``delimiter``, ``header``, ``skip_rows``, ``show_values`` of the encoder.
        engine, memory_limit: as :func:`synthesize`. DuckDB and Spark encode the table in SQL, with the
            in-memory encoder's codes and messages (:mod:`dprelease.engines.schema_sql`).
        privacy_id: a column outside the schema naming each row's person (a customer number, a patient id), for a
            guarantee per person rather than per row: with ``rows_per_person=k`` (required), each person keeps at
            most k of their rows, drawn at random, and the run (``mechanism="mwem"``, add/remove) charges every step
            for one person added or removed (:mod:`dprelease.privacy.contributions`). A blank id is one person.
            Any engine reads and encodes the rows (DuckDB: part files, globs, Parquet; Spark: its frames and files)
            and hands them with their persons to the kernel, which bounds and counts them in memory. A privately
            drafted schema must have been drafted with the same privacy id.

    Returns:
        The release: rows are codes over ``schema.domain`` (decode them with
        :func:`dprelease.schema.decode`), ``schema`` the schema used (JSON form), its marginals labelled by it.
    """
    if privacy_id is not None or options.get("rows_per_person") is not None:
        options, engine = person_level_options(privacy_id, options, engine)
    request = SynthesisRequest.from_options(mechanism, epsilon=epsilon, delta=delta, **options)
    schema = load_schema(schema, columns)
    if privacy_id is not None:
        check_privacy_id(privacy_id, schema.names)
    check_draft_unit(schema, privacy_id)
    read_options = dict(read_options or {})
    unknown = sorted(set(read_options) - set(READ_OPTIONS))
    if unknown:
        raise InputError(f"unknown read option(s) {unknown}; the read options are {list(READ_OPTIONS)}")
    workload = Workload.resolve(workload, schema.domain)
    if workload.domain != schema.domain:
        raise InputError("workload must be over the schema's domain (same columns in the same order)")
    source, engine_options = table_source(data, schema.domain, engine, memory_limit)
    if source is None:
        raise InputTypeError("data must be a raw table (a file, a glob, a DataFrame), not an encoded table")
    request.mechanism_entry().check(schema.domain, workload, budget=Budget(epsilon=epsilon, delta=request.delta))
    bar = Progress.from_argument(progress, label=mechanism)  # a bad progress= refused before the data is read
    try:
        check_schema_use(schema, allow_non_public=allow_non_public_schema)  # last: its warning means "running"
        bar.phase("encode")
        persons = {} if privacy_id is None else {"privacy_id": privacy_id}
        with opened(None, source, schema=schema, **engine_options, **read_options, **persons) as dataset:
            bar.done()
            release = synthesize(dataset, workload, mechanism=mechanism, epsilon=epsilon, delta=request.delta,
                                 progress=bar, **options)
    finally:
        if bar is not progress:  # made here (from True or a function): ended here
            bar.close()
    if schema.ordered or betweens(schema):  # rows whose bins break the declared order or disagree with a between
        # column: drawn again from the model (post-processing)
        release = in_declared_order(release, schema, make_rng(options.get("seed"), warn=False))
    return with_schema(release, schema)


def in_declared_order(release: Release, schema: Schema, rng: object) -> Release:
    """``release`` whose rows keep the schema's ``ordered`` chains and agree with its ``between`` columns where their
    bins can (:func:`~dprelease.schema.orders.ordered_codes`: a row whose bins cannot is replaced by one drawn from the
    release's model that can; :mod:`dprelease.schema.between`), with the rows replaced and left out of order counted
    in ``extra["ordered"]`` and ``extra["between"]``; warns
    where rows are left out of order (a release without its model, or a model with no such rows). Post-processing:
    the model and public draws."""
    found = betweens(schema)
    unordered = unorderable_rows(release.rows, schema)
    unfit = unfit_rows(release.rows, schema)

    def breaks(codes, with_until=False):  # the rows to draw again: out of the declared order, or out of agreement
        # with a between column (not, at first, with one that declares until: mended inside the row, below)
        return unorderable_rows(codes, schema) | unfit_rows(codes, schema, with_until=with_until)

    rows, replaced = ordered_codes(release.rows, release.model, rng, schema, breaks=breaks)
    # A row out of agreement with a between column that declares until is not drawn again: the rows kept leaned to a
    # blank second, whose agreement asks less of the model (tenures to date at eps 1: 53 % still employed against the
    # real 34 %, the tenures' KS distance 0.25). The refit moves it into agreement where the answers say so, and the
    # rest is mended inside the row (KS 0.07; docs/decisions.md, session 76).
    mended = np.zeros(len(rows), dtype=bool)
    with_until = any(b.until is not None for b in found)
    still = unfit_rows(rows, schema)  # all False without a between column
    if (replaced.any() or (with_until and still.any())) and release.rows_method == "fitted":
        # The redrawn rows are draws of the model conditioned on the order, whose 1-way marginals of the ordered
        # columns lean (an order early, a delivery late, where the model knows little of their tie): fitted again to
        # the answers conditioned on the order, by moves that keep every row in it.
        targets = agreeing_targets(ordered_targets(list(zip(release.workload.marginals, release.answers)), schema),
                                   schema)
        rows = fit_rows(rows, release.domain, targets, rng,
                        passes=default_passes(len(rows), len(release.domain), targets),
                        min_gain=MIN_PASS_GAIN, loss=DEFAULT_LOSS, allowed=_both(order_keeping_moves(schema),
                                                                                  agreeing_moves(schema)))
        if found:  # the moves keep each pair and triple; a row whose constraints no longer hold together is
            # drawn again (a shipping 8 days and a delivery 5 days after the order, each alone possible)
            rows, again = ordered_codes(rows, release.model, rng, schema, breaks=breaks)
            replaced, unfit, mended = replaced | again, unfit | again, mended & ~again
        still = unfit_rows(rows, schema)
    if still.any():  # the model gave too few agreeing rows: mended inside the row
        rows, late = mended_codes(rows, schema, rng)
        still = unfit_rows(rows, schema)
        mended = (mended | late) & ~still
    if still.any() and with_until:
        # a row whose triple agrees but whose constraints do not hold together with a between column that declares
        # until (left out of the redraw above; 0-5 rows in 9,000 on the employees trial): drawn again, the few
        rows, again = ordered_codes(rows, release.model, rng, schema, breaks=lambda codes: breaks(codes, True))
        replaced, unfit, mended = replaced | again, unfit | again, mended & ~again
        still = unfit_rows(rows, schema)
    extra = dict(release.extra)
    why = "this mechanism's release has no model to draw other rows from" if release.model is None else \
        "the model gave too few such rows"
    if schema.ordered:
        left = int(unorderable_rows(rows, schema).sum())
        if left:
            warn_user(f"{left:,} synthetic rows keep bins out of the schema's declared order "
                      f"{[list(c) for c in schema.ordered]}: {why}", UserWarning)
        extra["ordered"] = {"chains": [list(c) for c in schema.ordered],
                            "rows_redrawn": int((replaced & unordered).sum()), "rows_left_unordered": left}
    if found:
        names = {schema.columns[b.column].name: [schema.names[b.first], schema.names[b.second]] for b in found}
        left = int(still.sum())
        if left:
            warn_user(f"{left:,} synthetic rows keep bins of {list(names)} that their dates' bins cannot give: {why}; "
                      "their values are the time between the dates as drawn", UserWarning)
        extra["between"] = {"columns": names, "rows_redrawn": int((replaced & unfit).sum()),
                            "rows_mended": int(mended.sum()), "rows_left_unfit": left}
    return replace(release, rows=rows, extra=extra)


def _both(first, second):
    """Two row-fit move masks (``allowed``) as one: the moves both allow; either alone where the other is None."""
    if first is None or second is None:
        return first if second is None else second
    return lambda records, rows, axis: first(records, rows, axis) & second(records, rows, axis)
