"""A fit/sample synthesizer over raw tables, in the conventions of scikit-learn and smartnoise-synth.

>>> from dprelease.synthesizer import Synthesizer
>>> synth = Synthesizer("mwem", epsilon=1.0, delta=1e-9, workload="1-3way")   # doctest: +SKIP
>>> synthetic = synth.fit_sample(frame, schema="schema.json")                 # doctest: +SKIP
>>> synth.release.privacy_ledger                                               # doctest: +SKIP

The constructor looks the mechanism up in the registry and validates every option through
:class:`dprelease.api.SynthesisRequest` (nothing is read yet); it stores them and nothing mutates them
afterwards. ``fit`` runs :func:`dprelease.api.synthesize_table`: the public checks, then the table encoded by
its schema, then the run, whose release carries the schema and, for a privately drafted schema, the draft's
charges. ``sample`` decodes released rows (:func:`dprelease.schema.decode`): post-processing. Each ``fit``
spends the budget again, and says so.
"""

from __future__ import annotations

import difflib

import json
from fractions import Fraction
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from dprelease.api import (SynthesisRequest, load_schema, person_level_options, run_epsilon_delta,
                           synthesize_table)
from dprelease.privacy.contributions import check_privacy_id
from dprelease.engines.counting import parse_memory_limit
from dprelease.engines.registry import engine_name
from dprelease.errors import InputError, InputTypeError, warn_user
from dprelease.privacy.rng import make_rng
from dprelease.progress import Progress
from dprelease.release import Release
from dprelease.schema import Schema, decode
from dprelease.schema.decode import VALUE_MODES
from dprelease.schema.frame_types import frame_dtypes, in_frame_dtypes, time_zones
from dprelease.schema.tables import need
from dprelease.spent import Spent
from dprelease.validation import check_positive_int


def required(name: str, value: object, others: dict[str, object]) -> None:
    """A required keyword given as None or left out: say so, and name a misspelling of it among the others
    (Python's own "missing argument" hid ``epsilom=1`` behind a complaint about epsilon)."""
    if value is not None:
        return
    near = difflib.get_close_matches(name, list(others), n=1, cutoff=0.75)
    hint = f" ({near[0]!r} is not an argument: did you mean {name}=?)" if near else ""
    draft = (" (none yet? dprelease.schema.draft.draft_schema(data, epsilon=..., delta=...) drafts one privately, "
             "for you to review)") if name == "schema" and not near else ""
    raise InputTypeError(f"{name} is required: give {name}=...{hint}{draft}")


class Synthesizer:
    """Differentially private synthetic data from a raw table and its public schema.

    Args:
        mechanism: a name in the registry (:mod:`dprelease.mechanisms.registry`; default ``"mwem"``).
        epsilon, delta: the budget of each ``fit`` (keyword-only; epsilon has no default; delta defaults to the
            mechanism's, 1e-9 for MWEM and 0 for the others, as in :func:`dprelease.api.synthesize`).
        workload: the marginals to preserve (``"1-3way"``, a :class:`~dprelease.Workload`, ...).
        seed: a reproducible run (warns: not fit for a real release); default: the OS CSPRNG.
        values: how binned columns decode: ``"uniform"`` in their bin (default), ``"midpoint"``, ``"label"``.
        allow_non_public_schema: fit with a schema drafted openly (``--non-private``); the release is then
            marked not fit for release, and the fit warns.
        engine, memory_limit: where ``fit`` reads the table (:func:`dprelease.api.synthesize`): ``"auto"`` (DuckDB
            for files, Spark for a Spark DataFrame, memory for a pandas DataFrame), ``"memory"``, ``"duckdb"``,
            ``"spark"``; the same codes and release whichever.
        progress: every ``fit``'s progress (``fit(progress=)`` overrides it): ``True`` for a line on stderr when
            it is a terminal, or a function ``progress(phase, step, total)``; default silent.
        privacy_id: a column outside the schema naming each row's person, for a guarantee per person (with the
            option ``rows_per_person=k``): see :func:`dprelease.api.synthesize_table`.
        **options: the options of :func:`dprelease.api.synthesize` (``rounds``, ``rows``, ``representation``,
            ``alpha``, ``max_cells``, ``max_model_cells``, ``base``, ``privacy_unit``, ``rows_per_person``),
            validated here, before any data is read.
    """

    def __init__(self, mechanism: str = "mwem", *, epsilon: float | None = None, delta: float | None = None,
                 workload: object = "1-3way",
                 seed: int | None = None, values: str = "uniform", allow_non_public_schema: bool = False,
                 progress: object = None, engine: str = "auto", memory_limit: int | str | None = None,
                 privacy_id: str | None = None, **options: object) -> None:
        required("epsilon", epsilon, options)
        if privacy_id is not None or options.get("rows_per_person") is not None:  # public checks, nothing read
            person_level_options(privacy_id, options, engine)
            check_privacy_id(privacy_id, ())
        self.privacy_id = privacy_id
        for reserved in ("dataset", "n_rows", "data", "schema"):
            if reserved in options:
                raise InputError(f"{reserved} is not an option of Synthesizer (see its arguments; sample(n) sets "
                                 "the number of rows)")
        request = SynthesisRequest.from_options(mechanism, epsilon=epsilon, delta=delta, seed=seed, **options)
        request.mechanism_entry()  # the registry's public checks of the options (e.g. base for boosting only)
        if values not in VALUE_MODES:
            raise InputError(f"values must be one of {list(VALUE_MODES)}, got {values!r}")
        if not isinstance(allow_non_public_schema, bool):
            raise InputTypeError(f"allow_non_public_schema must be True or False, got {allow_non_public_schema!r}")
        self.mechanism, self.epsilon, self.delta, self.workload = mechanism, epsilon, request.delta, workload
        Progress.from_argument(progress)  # a bad progress= refused here (nothing is drawn until a fit)
        self.seed, self.values, self.allow_non_public_schema = seed, values, allow_non_public_schema
        if engine != "auto":
            engine_name(engine, None)  # a known engine (public check; "auto" depends on the data)
        if memory_limit is not None:
            parse_memory_limit(memory_limit)
        self.engine, self.memory_limit = engine, memory_limit
        self.progress = progress
        self.options = dict(options)
        self._release: Release | None = None
        self._schema: Schema | None = None
        self._fits: list[dict[str, object]] = []
        self._drafts: dict[str, dict[str, object]] = {}
        self._rng = None
        self._zones: dict[str, object] = {}
        self._dtypes: dict[str, object] = {}

    # ---------------------------------------------------------------------- fit
    def fit(self, data: object, *, schema: Schema | Mapping | str | Path | None = None,
            columns: list[str] | None = None, progress: object = None, **read_options: object) -> Synthesizer:
        """Encode ``data`` (DataFrame, CSV or Parquet path) by ``schema`` (a :class:`Schema`, a schema file, or the
        file's JSON form as a dict) and release a synthetic table.

        ``progress``: ``True`` for a progress line on stderr (when it is a terminal), or a function
        ``progress(phase, step, total)`` (phases ``"encode"``, then those of :func:`~dprelease.api.synthesize`).
        ``read_options``: ``delimiter``, ``header``, ``skip_rows``, ``show_values`` (see
        :func:`dprelease.schema.encode`). Every public check runs before the data is read; a second ``fit``
        spends ``(epsilon, delta)`` again and warns.
        """
        required("schema", schema, read_options)
        used = load_schema(schema, columns)
        release = synthesize_table(data, used, self.workload, epsilon=self.epsilon, delta=self.delta,
                                   mechanism=self.mechanism, allow_non_public_schema=self.allow_non_public_schema,
                                   read_options=read_options, seed=self.seed, engine=self.engine,
                                   memory_limit=self.memory_limit, privacy_id=self.privacy_id,
                                   progress=self.progress if progress is None else progress, **self.options)
        self._release, self._schema, self._zones = release, used, time_zones(data, used)
        self._dtypes = frame_dtypes(data, used)
        self._fits.append(release.privacy_ledger.get("run", release.privacy_ledger))
        if used.draft is not None and used.draft.is_public:
            self._drafts[json.dumps(used.draft.ledger, sort_keys=True)] = dict(used.draft.ledger)
        self._rng = make_rng(self.seed, warn=False)  # post-processing: which rows, where in each bin
        if len(self._fits) > 1:
            epsilon, delta = self.spent
            # what this fit's ledger says it spent, not the asked delta: a plan may choose Laplace noise and spend none
            this_epsilon, this_delta, _ = run_epsilon_delta(self._fits[-1])
            warn_user(f"this Synthesizer has now been fitted {len(self._fits)} times: this fit spent "
                      f"epsilon={float(this_epsilon):.6g}, delta={float(this_delta):.3g} again (each fit is a new "
                      f"release); in total epsilon={float(epsilon):.6g}, delta={float(delta):.3g} (.spent)",
                      UserWarning)
        return self

    @property
    def release(self) -> Release:
        """The last fit's release: synthetic codes, workload answers, privacy ledger, transcript, schema."""
        if self._release is None:
            raise InputError("this Synthesizer is not fitted yet: call fit(data, schema=...) first")
        return self._release

    @property
    def schema(self) -> Schema:
        """The schema of the last fit (restricted to ``columns`` when they were given)."""
        self.release  # noqa: B018 (raises when not fitted)
        return self._schema  # type: ignore[return-value]

    @property
    def ledgers(self) -> dict[str, object]:
        """Everything this object spent: each private schema draft used (once each), and each fit's run."""
        return {"schema_drafts": list(self._drafts.values()), "fits": list(self._fits)}

    @property
    def spent(self) -> Spent:
        """Total (epsilon, delta) of every fit and every private schema draft used, exact (basic composition,
        Thm 3.16; a zCDP run converted to (epsilon, delta) first). Each draft counts once, however often used.
        A :class:`Spent`: the pair of Fractions, printed in decimals."""
        epsilon, delta = Fraction(0), Fraction(0)
        for run in self._fits:
            e, d, _ = run_epsilon_delta(run)
            epsilon, delta = epsilon + e, delta + d
        for ledger in self._drafts.values():
            e, d = Fraction(ledger["spent"]["epsilon_exact"]), Fraction(ledger["spent"]["delta_exact"])
            epsilon, delta = epsilon + e, delta + d
        return Spent(epsilon, delta)

    # ------------------------------------------------------------------- sample
    def sample(self, n: int | None = None):
        """``n`` decoded synthetic rows as a pandas DataFrame (default: all released rows, the real n; under
        ``privacy_unit="add-remove"`` the run's noisy count),
        with the schema's column names and order; a fitted DataFrame's columns come back in its dtypes where their
        values allow (:mod:`dprelease.schema.frame_types`, docs/schema.md), other inputs' in the schema's kinds.

        Rows are drawn from the released rows (without replacement up to their number, whole copies
        beyond it), then decoded; post-processing, it spends nothing. A date-time column fitted from a DataFrame
        column with a time zone comes back in that zone (its bins are UTC, as the schema's are); a date column
        comes back as the zone's calendar dates, which it read.
        """
        need("pandas", "pandas", "Synthesizer.sample (a DataFrame)")
        rows = self.release.rows
        if n is not None:
            check_positive_int(n, "n", minimum=0)
            copies, rest = divmod(n, len(rows))
            order = self._rng.permutation(len(rows))
            rows = np.concatenate([np.tile(rows, (copies, 1)), rows[order[:rest]]])
        frame = decode(rows, self.schema, values=self.values, rng=self._rng).to_dataframe()
        for name, zone in self._zones.items():
            times = frame[name] if frame[name].dt.tz is not None else frame[name].dt.tz_localize("UTC")  # "offset"
            frame[name] = times.dt.tz_convert(zone)
        return in_frame_dtypes(frame, self._dtypes, self.schema)

    def fit_sample(self, data: object, *, schema: Schema | Mapping | str | Path | None = None, n: int | None = None,
                   columns: list[str] | None = None, **read_options: object):
        """:meth:`fit`, then :meth:`sample`."""
        return self.fit(data, schema=schema, columns=columns, **read_options).sample(n)

    def __repr__(self) -> str:
        return (f"Synthesizer({self.mechanism!r}, epsilon={self.epsilon!r}, delta={self.delta!r}, "
                f"workload={self.workload!r})")
