"""A fit/sample synthesizer over raw tables, in the conventions of scikit-learn and smartnoise-synth.

>>> from dprelease.synthesizer import Synthesizer
>>> synth = Synthesizer("mwem", epsilon=1.0, workload="1-2way")   # doctest: +SKIP
>>> synthetic = synth.fit_sample(frame, schema="schema.json")     # doctest: +SKIP
>>> synth.release.privacy_ledger                                   # doctest: +SKIP

``fit`` encodes the table by the public schema (:meth:`dprelease.Dataset.from_schema`) and runs
:func:`dprelease.api.synthesize`; ``sample`` decodes released rows (:func:`dprelease.schema.decode`).
Everything after ``fit`` is post-processing of the release. Each ``fit`` spends the budget again, and
says so; the constructor stores and checks parameters and nothing mutates them afterwards.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

from dprelease.api import synthesize
from dprelease.errors import InputError, InputTypeError
from dprelease.privacy.rng import make_rng
from dprelease.queries.workload import Workload
from dprelease.release import Release
from dprelease.data import Dataset
from dprelease.schema import Schema, decode
from dprelease.schema.decode import VALUE_MODES
from dprelease.schema.tables import need
from dprelease.validation import check_delta, check_positive, check_positive_int


class Synthesizer:
    """Differentially private synthetic data from a raw table and its public schema.

    Args:
        mechanism: a mechanism of :func:`dprelease.api.synthesize` (default ``"mwem"``).
        epsilon, delta: the budget of each ``fit`` (keyword-only).
        workload: the marginals to preserve (``"1-3way"``, a :class:`~dprelease.Workload`, ...).
        seed: a reproducible run (warns: not fit for a real release); default: the OS CSPRNG.
        values: how binned columns decode: ``"uniform"`` in their bin (default), ``"midpoint"``, ``"label"``.
        allow_nonprivate_schema: fit with a schema drafted with ``--non-private`` (warns: not DP).
        **options: passed to :func:`~dprelease.api.synthesize` (``rounds``, ``rows``, ``representation``, ...).
    """

    def __init__(self, mechanism: str = "mwem", *, epsilon: float = 1.0, delta: float = 0.0,
                 workload: object = "1-3way", seed: int | None = None, values: str = "uniform",
                 allow_nonprivate_schema: bool = False, **options: object) -> None:
        if not isinstance(mechanism, str):
            raise InputTypeError(f"mechanism must be a string, got {type(mechanism).__name__}")
        check_positive(epsilon, "epsilon")
        check_delta(delta)
        if seed is not None:
            check_positive_int(seed, "seed", minimum=0)
        if values not in VALUE_MODES:
            raise InputError(f"values must be one of {list(VALUE_MODES)}, got {values!r}")
        for reserved in ("dataset", "seed", "n_rows"):
            if reserved in options:
                raise InputError(f"{reserved} is not an option of Synthesizer (see its arguments)")
        self.mechanism, self.epsilon, self.delta, self.workload = mechanism, epsilon, delta, workload
        self.seed, self.values, self.allow_nonprivate_schema = seed, values, allow_nonprivate_schema
        self.options = dict(options)
        self._release: Release | None = None
        self._schema: Schema | None = None
        self._ledgers: list[dict[str, object]] = []
        self._rng = None

    # ---------------------------------------------------------------------- fit
    def fit(self, data: object, *, schema: Schema | str | Path, **read_options: object) -> Synthesizer:
        """Encode ``data`` (DataFrame, CSV or Parquet path) by ``schema`` and release a synthetic table.

        ``read_options``: ``delimiter``, ``header``, ``skip_rows``, ``show_values`` (see
        :func:`dprelease.schema.encode`). The schema and the workload are checked before the data is read;
        :func:`~dprelease.api.synthesize` checks the other options before it spends anything.
        """
        schema = schema if isinstance(schema, Schema) else Schema.from_json(schema)
        if isinstance(self.workload, str):
            Workload.from_spec(self.workload, schema.domain)  # public: refuse a bad spec before reading
        if schema.draft is not None and not schema.draft.is_public:
            if not self.allow_nonprivate_schema:
                raise InputError("the schema was drafted by reading the data openly (--non-private): a release "
                                 "built on it is not differentially private; replace it with public knowledge, or "
                                 "pass allow_nonprivate_schema=True to experiment")
            warnings.warn("fitting with a non-private schema: this release is NOT differentially private",
                          UserWarning, stacklevel=2)
        dataset = Dataset.from_schema(data, schema, **read_options)
        if self._ledgers:
            warnings.warn(f"this Synthesizer was fitted {len(self._ledgers)} time(s) before: fitting again spends "
                          f"epsilon={self.epsilon:g}, delta={self.delta:g} again (each fit is a new release)",
                          UserWarning, stacklevel=2)
        release = synthesize(dataset, self.workload, mechanism=self.mechanism, epsilon=self.epsilon,
                             delta=self.delta, seed=self.seed, **self.options)
        release.extra["schema"] = schema.to_dict()
        self._release, self._schema = release, schema
        self._ledgers.append(release.privacy_ledger)
        self._rng = make_rng(self.seed, warn=False)  # post-processing: which rows, where in each bin
        return self

    @property
    def release(self) -> Release:
        """The last fit's release: synthetic codes, workload answers, privacy ledger, transcript."""
        if self._release is None:
            raise InputError("this Synthesizer is not fitted yet: call fit(data, schema=...) first")
        return self._release

    @property
    def schema(self) -> Schema:
        self.release  # noqa: B018 (raises when not fitted)
        return self._schema  # type: ignore[return-value]

    @property
    def ledgers(self) -> dict[str, object]:
        """Everything this object spent: the schema draft's ledger (if drafted privately) and each fit's."""
        draft = None
        if self._schema is not None and self._schema.draft is not None and self._schema.draft.is_public:
            draft = self._schema.draft.ledger
        return {"schema_draft": draft, "fits": list(self._ledgers)}

    # ------------------------------------------------------------------- sample
    def sample(self, n: int | None = None):
        """``n`` decoded synthetic rows as a pandas DataFrame (default: all released rows, n = the real n).

        Rows are drawn from the released rows (without replacement up to their number, whole copies
        beyond it), then decoded; post-processing, it spends nothing.
        """
        need("pandas", "pandas", "Synthesizer.sample (a DataFrame)")
        rows = self.release.rows
        if n is not None:
            check_positive_int(n, "n", minimum=0)
            copies, rest = divmod(n, len(rows))
            order = self._rng.permutation(len(rows))
            rows = np.concatenate([np.tile(rows, (copies, 1)), rows[order[:rest]]])
        return decode(rows, self.schema, values=self.values, rng=self._rng).to_dataframe()

    def fit_sample(self, data: object, *, schema: Schema | str | Path, n: int | None = None, **read_options: object):
        """:meth:`fit`, then :meth:`sample`."""
        return self.fit(data, schema=schema, **read_options).sample(n)

    def __repr__(self) -> str:
        return (f"Synthesizer({self.mechanism!r}, epsilon={self.epsilon!r}, delta={self.delta!r}, "
                f"workload={self.workload!r})")
