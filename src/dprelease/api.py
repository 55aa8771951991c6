"""The one-call entry point: a private table and a workload in, a :class:`Release` out.

>>> import dprelease
>>> from dprelease.api import synthesize
>>> d = dprelease.Domain(("a", "b"), (2, 3))
>>> data = dprelease.Dataset.from_records([[0, 1], [1, 2], [1, 2], [0, 0]], d)
>>> release = synthesize(data, "1-2way", mechanism="mwem", epsilon=1.0, rounds=2, seed=0)  # doctest: +SKIP
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

from dprelease.domain import DEFAULT_MAX_CELLS
from dprelease.engines.base import PrivateTable
from dprelease.errors import InputError, InputTypeError, SeededRunWarning
from dprelease.mechanisms import registry
from dprelease.mechanisms.base import Budget, Fitted
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.rng import make_rng
from dprelease.queries.workload import Workload
from dprelease.release import Release
from dprelease.representations import REPRESENTATIONS
from dprelease.rows import ROW_CHOICES, ROW_METHODS
from dprelease.validation import check_alpha, check_delta, check_positive, check_positive_int


@dataclass(frozen=True)
class SynthesisRequest:
    """Every public choice of a run, validated before any private data is read."""

    mechanism: str
    epsilon: float
    delta: float
    alpha: float | None
    rounds: int | None
    n_rows: int | None
    rows_method: str
    max_cells: int
    seed: int | None = None
    representation: str = "auto"
    max_model_cells: int | None = None

    def __post_init__(self) -> None:
        registry.lookup(self.mechanism)
        check_positive(self.epsilon, "epsilon")
        check_delta(self.delta)
        if self.alpha is not None:
            check_alpha(self.alpha)
        if self.rounds is not None:
            check_positive_int(self.rounds, "rounds")
        if self.n_rows is not None:
            check_positive_int(self.n_rows, "n_rows", minimum=0)
        if self.rows_method not in ROW_CHOICES:
            raise InputError(f"rows must be one of {list(ROW_CHOICES)}, got {self.rows_method!r}")
        check_positive_int(self.max_cells, "max_cells")
        if self.seed is not None:
            check_positive_int(self.seed, "seed", minimum=0)
        if self.representation not in REPRESENTATIONS:
            raise InputError(f"representation must be one of {list(REPRESENTATIONS)}, got {self.representation!r}")
        if self.max_model_cells is not None:
            check_positive_int(self.max_model_cells, "max_model_cells")

    def options(self, base: str | None) -> dict[str, object]:
        """The mechanism options as given (``None``: not given; the mechanism's own default applies)."""
        return {"alpha": self.alpha, "rounds": self.rounds, "max_cells": self.max_cells, "base": base,
                "representation": self.representation, "max_model_cells": self.max_model_cells}

    def mechanism_entry(self, base: str | None = None) -> registry.Mechanism:
        """The registered mechanism configured with these options (public checks only)."""
        return registry.create(self.mechanism, **self.options(base))


def synthesize(
    dataset: PrivateTable,
    workload: Workload | str,
    *,
    mechanism: str = "mwem",
    epsilon: float,
    delta: float = 0.0,
    alpha: float | None = None,
    rounds: int | None = None,
    n_rows: int | None = None,
    rows: str = "auto",
    seed: int | None = None,
    max_cells: int = DEFAULT_MAX_CELLS,
    representation: str = "auto",
    progress: Progress | None = None,
    base: str | None = None,
    max_model_cells: int | None = None,
) -> Release:
    """Run ``mechanism`` on ``dataset`` for ``workload`` and return the release.

    Args:
        dataset: the private table (any :class:`~dprelease.engines.base.PrivateTable`).
        workload: a :class:`Workload` or a spec (``"3way"``, ``"1-3way"``, a JSON path).
        mechanism: a name in the registry (:mod:`dprelease.mechanisms.registry`): ``"mwem"`` (the default),
            ``"ic-mw"``, ``"ic-median"``, ``"ic-perceptron"`` (Algorithm 8 with multiplicative weights, the
            median mechanism or the perceptron; Thm 5.3), ``"smalldb"`` (Algorithm 4), ``"boosting"``
            (Sec. 6, Thm 6.1), ``"online-mw"`` (Algorithm 6 over the workload's cells). The median mechanism
            and SmallDB enumerate databases and only run on tiny domains (a clear DomainTooLargeError
            otherwise); see docs/update_rules.md.
        epsilon, delta: the privacy budget. With delta > 0, MWEM measures with Gaussian noise under zCDP
            accounting; the ic-* mechanisms use advanced composition; boosting needs delta > 0; SmallDB
            ignores delta (it is (epsilon, 0)-DP).
        alpha: target accuracy of the ic-* mechanisms, SmallDB and online MW (default: the smallest alpha
            their theorems guarantee; an error when they guarantee none).
        rounds: MWEM's T, a cap on the ic-* rounds (private, but voids Thm 5.4), or boosting's T.
        n_rows: synthetic rows to release (default: the real n, which is public).
        rows: a row method of :mod:`dprelease.rows`: ``"fitted"`` (rounded, then moved one attribute at a
            time toward the released workload answers; post-processing), ``"round"`` (n * p rounded by
            largest remainder), ``"sample"`` (i.i.d. draws from the model), or ``"auto"`` (the default:
            the one the mechanism measured better for the run; the release says which and why).
        seed: reproducible run (warns: not fit for a real release); default: OS CSPRNG.
        max_cells: cap on an explicit histogram's cells.
        representation: the model of MWEM, ic-mw and online MW: ``"histogram"`` (explicit, up to
            ``max_cells``), ``"factored"`` (log-linear on the measured marginals; any domain size), or
            ``"auto"`` (the histogram when the domain fits ``max_cells``, else factored). For ic-mw the
            factored model must fit its cap over *all* the workload's marginals (MW may update on any of
            them): checked before any data is read. The other mechanisms need the histogram.
        max_model_cells: cap on the factored model's junction-tree cells (public); default MWEM's preset
            (500,000, :mod:`dprelease.mechanisms.mwem_tuning`) or 2,000,000.
        base: ``mechanism="boosting"`` only: its base synopsis generator, ``"lp"`` (Thms 6.7/6.8, the
            default) or ``"bruteforce"`` (Thm 6.6; tiny domains and n only). See docs/boosting.md.
        progress: a :class:`~dprelease.mechanisms.progress.Progress` (default: silent).
    """
    request = SynthesisRequest(mechanism, epsilon, delta, alpha, rounds, n_rows, rows, max_cells, seed,
                               representation, max_model_cells)
    entry = request.mechanism_entry(base)
    if not isinstance(dataset, PrivateTable):
        raise InputTypeError(f"dataset must be a dprelease.Dataset or another PrivateTable, "
                             f"got {type(dataset).__name__}")
    if isinstance(workload, str):
        workload = Workload.from_spec(workload, dataset.domain)
    if workload.domain != dataset.domain:
        raise InputError("workload must be over the dataset's domain (same columns in the same order)")
    budget = Budget(epsilon=epsilon, delta=delta)
    entry.check(dataset.domain, workload, budget=budget)  # public: nothing read, spent or drawn yet
    rng = make_rng(seed, warn=False)  # warned about below, once the run has passed every public check
    fitted = entry.fit(dataset, workload, budget=budget, rng=rng, progress=progress or Progress.silent())
    if seed is not None:
        warnings.warn(f"seed={seed} makes this run reproducible and its noise predictable: "
                      "it is not fit for a real release", SeededRunWarning, stacklevel=2)
    return build_release(request, fitted, dataset, workload, rng)


def build_release(request: SynthesisRequest, fitted: Fitted, dataset: PrivateTable, workload: Workload,
                  rng: object) -> Release:
    """Answers and rows from the fitted model, and the Release (post-processing: no private read)."""
    method, reason = (fitted.rows, fitted.rows_reason) if request.rows_method == "auto" else \
        (request.rows_method, "chosen by the user")
    count = dataset.n if request.n_rows is None else request.n_rows
    answers = workload.marginal_answers(fitted.model)
    synthetic = ROW_METHODS[method](fitted.row_model, count, rng, domain=dataset.domain,
                                    targets=list(zip(workload.marginals, answers)))
    return Release(
        mechanism=request.mechanism, domain=dataset.domain, workload=workload, guarantee=fitted.guarantee,
        parameters=fitted.parameters, privacy_ledger=fitted.accountant.to_json(), transcript=fitted.transcript,
        answers=answers, rows=synthetic, rows_method=method, seeded=request.seed is not None,
        extra={**fitted.extra, "synthetic_rows_reason": reason},
    )
