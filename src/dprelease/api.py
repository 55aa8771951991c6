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

from dprelease.boosting.mechanism import boosting_for_release, boosting_guarantee, check_base_choice
from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS
from dprelease.engines.base import PrivateTable
from dprelease.errors import InputError, InputTypeError, SeededRunWarning
from dprelease.mechanisms.ic_rules import ic_update_rule, release_models
from dprelease.mechanisms.iterative_construction import IterativeConstruction
from dprelease.mechanisms.mwem import FACTORED_DEFAULTS, GAUSSIAN_HISTOGRAM_DEFAULTS, MWEM
from dprelease.representations import REPRESENTATIONS
from dprelease.mechanisms.progress import Progress
from dprelease.mechanisms.smalldb import SmallDB
from dprelease.privacy.rng import make_rng
from dprelease.queries.workload import Workload
from dprelease.release import Release
from dprelease.row_fitting import fit_rows
from dprelease.validation import check_alpha, check_delta, check_positive, check_positive_int

MECHANISMS = ("mwem", "ic-mw", "ic-median", "ic-perceptron", "smalldb", "boosting")
ROW_METHODS = ("auto", "fitted", "round", "sample")
#: The mechanisms whose model may be factored (log-linear): their updates add functions of a few attributes.
FACTORED_MECHANISMS = ("mwem", "ic-mw")


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
        if not isinstance(self.mechanism, str):
            raise InputTypeError(f"mechanism must be a string, got {type(self.mechanism).__name__}")
        if self.mechanism not in MECHANISMS:
            raise InputError(f"mechanism must be one of {list(MECHANISMS)}, got {self.mechanism!r}")
        check_positive(self.epsilon, "epsilon")
        check_delta(self.delta)
        if self.alpha is not None:
            check_alpha(self.alpha)
        if self.rounds is not None:
            check_positive_int(self.rounds, "rounds")
        if self.n_rows is not None:
            check_positive_int(self.n_rows, "n_rows", minimum=0)
        if self.rows_method not in ROW_METHODS:
            raise InputError(f"rows must be one of {list(ROW_METHODS)}, got {self.rows_method!r}")
        check_positive_int(self.max_cells, "max_cells")
        if self.seed is not None:
            check_positive_int(self.seed, "seed", minimum=0)
        if self.representation not in REPRESENTATIONS:
            raise InputError(f"representation must be one of {list(REPRESENTATIONS)}, got {self.representation!r}")
        if self.max_model_cells is not None:
            check_positive_int(self.max_model_cells, "max_model_cells")
        if self.representation == "factored" and self.mechanism not in FACTORED_MECHANISMS:
            raise InputError(
                f"representation='factored' runs with mechanism='mwem' or 'ic-mw' only, got {self.mechanism!r}: "
                "the median mechanism, the perceptron, SmallDB and boosting work on the explicit histogram")


def default_rows(mechanism: str, parameters: dict[str, object]) -> str:
    """The row method measured better for a run, from its public parameters (docs/decisions.md).

    Fitting the rows to the released answers pays where the model is sharper than its rounding: MWEM
    with Gaussian noise (7-column Adult, eps 1: 0.0251 fitted vs 0.0263 rounded) or on the factored model
    (full Adult all3: 0.170 vs 0.1755). With pure-DP MWEM on a histogram, the model is smoother than the
    table and largest-remainder rounding, which drops its smallest cells, beats it (0.042 rounded vs
    0.044 fitted), so rounding stays; so do the mechanisms not measured with fitted rows.
    """
    if mechanism == "mwem" and (parameters.get("noise") == "gaussian" or parameters.get("representation") == "factored"):
        return "fitted"
    return "round"


def synthesize(
    dataset: Dataset,
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
        dataset: the private table.
        workload: a :class:`Workload` or a spec (``"3way"``, ``"1-3way"``, a JSON path).
        mechanism: ``"mwem"`` ((epsilon, 0)-DP); ``"ic-mw"``, ``"ic-median"``, ``"ic-perceptron"``
            (Algorithm 8 with multiplicative weights, the median mechanism or the perceptron;
            (epsilon, delta)-DP, Thm 5.3); ``"smalldb"`` (Algorithm 4; (epsilon, 0)-DP). The median
            mechanism and SmallDB enumerate databases and only run on tiny domains (a clear
            DomainTooLargeError otherwise); see docs/update_rules.md.
        epsilon, delta: the privacy budget (delta is used by the ic-* mechanisms, and by MWEM, which
            with delta > 0 measures with Gaussian noise under zCDP accounting; smalldb ignores it).
        alpha: target accuracy of the ic-* mechanisms and smalldb (default: the smallest alpha
            their theorems guarantee; an error when they guarantee none).
        rounds: MWEM's T, or a cap on the ic-* rounds (private, but voids Thm 5.4).
        n_rows: synthetic rows to release (default: the real n, which is public).
        rows: ``"fitted"`` (rounded, then moved one attribute at a time toward the released workload
            answers, :mod:`dprelease.row_fitting`; post-processing), ``"round"`` (n * p rounded by largest
            remainder), ``"sample"`` (i.i.d. draws from the model), or ``"auto"`` (the default: the one
            measured better for the run, :func:`default_rows`).
        seed: reproducible run (warns: not fit for a real release); default: OS CSPRNG.
        max_cells: cap on an explicit histogram's cells.
        representation: the model of MWEM and ic-mw: ``"histogram"`` (explicit, up to ``max_cells``),
            ``"factored"`` (log-linear on the measured marginals; any domain size), or ``"auto"`` (the
            histogram when the domain fits ``max_cells``, else factored). For ic-mw the factored model
            must fit its cap over *all* the workload's marginals (MW may update on any of them): checked
            before any data is read. The other mechanisms need the histogram.
        max_model_cells: cap on the factored model's junction-tree cells (public); default MWEM's
            ``FACTORED_DEFAULTS`` (500,000) or ic-mw's 2,000,000.
        base: ``mechanism="boosting"`` only (boosting for queries, Sec. 6.1, Thm 6.1; (epsilon, delta)-DP with
            delta > 0): its base synopsis generator, ``"lp"`` (Thms 6.7/6.8, the default) or ``"bruteforce"``
            (Thm 6.6; tiny domains and n only). ``rounds`` replaces Thm 6.1's T. See docs/boosting.md.
    """
    request = SynthesisRequest(mechanism, epsilon, delta, alpha, rounds, n_rows, rows, max_cells, seed,
                               representation, max_model_cells)
    model_cap = {} if max_model_cells is None else {"max_model_cells": max_model_cells}
    base = check_base_choice(request.mechanism, base)
    if not isinstance(dataset, PrivateTable):
        raise InputTypeError(f"dataset must be a dprelease.Dataset or another PrivateTable, "
                             f"got {type(dataset).__name__}")
    if isinstance(workload, str):
        workload = Workload.from_spec(workload, dataset.domain)
    if workload.domain != dataset.domain:
        raise InputError("workload must be over the dataset's domain (same columns in the same order)")
    if request.mechanism not in FACTORED_MECHANISMS or representation == "histogram":
        dataset.domain.check_fits(max_cells)
    rng = make_rng(seed, warn=False)  # warned about below, once the run has passed every public check

    if request.mechanism == "mwem":
        runner = MWEM(epsilon=epsilon, delta=delta, rounds=rounds, max_cells=max_cells, representation=representation)
        if runner.resolved_representation(dataset.domain) == "factored":  # public: the domain size
            runner = MWEM(**{**FACTORED_DEFAULTS, **({} if rounds is None else {"rounds": rounds}), **model_cap},
                          epsilon=epsilon, delta=delta, max_cells=max_cells, representation="factored")
        elif runner.resolved_noise == "gaussian":  # public: delta > 0
            runner = MWEM(**{**GAUSSIAN_HISTOGRAM_DEFAULTS, **({} if rounds is None else {"rounds": rounds})},
                          epsilon=epsilon, delta=delta, max_cells=max_cells, representation="histogram")
        result = runner.run(dataset, workload, rng=rng, progress=progress)
        if runner.resolved_noise == "gaussian":
            guarantee = (f"(epsilon={epsilon:g}, delta={delta:g})-differential privacy: MWEM with Gaussian "
                         f"measurements, rho={float(result.accountant.rho):.6g}-zCDP (Bun & Steinke 2016), converted "
                         "by Canonne, Kamath & Steinke 2020")
        else:
            guarantee = f"(epsilon={epsilon:g}, delta=0)-differential privacy: MWEM, basic composition (Thm 3.16)"
        transcript, parameters = result.transcript, result.parameters
        extra = {"measurements": [m.to_json() for m in result.measurements]}
    elif request.mechanism == "smalldb":
        # SmallDB (Alg. 4): one exponential-mechanism draw over all databases of a small size.
        for unused, name in ((delta, "delta"), (rounds, "rounds")):
            if unused:
                warnings.warn(f"SmallDB is (epsilon, 0)-DP in one step: {name} is not used", UserWarning, stacklevel=2)
        result = SmallDB(epsilon=epsilon, alpha=alpha).run(dataset, workload, rng=rng)
        guarantee = (f"(epsilon={epsilon:g}, delta=0)-differential privacy: SmallDB, the exponential mechanism "
                     "(Prop. 4.1)")
        transcript, parameters, extra = result.transcript, result.parameters, {}
    elif request.mechanism == "boosting":
        # Boosting for queries (Sec. 6.1, Thm 6.1) over a base synopsis generator (Def. 6.1); docs/boosting.md.
        if alpha is not None:
            warnings.warn("boosting's accuracy follows from its budget (Thm 6.1): alpha is not used", UserWarning,
                          stacklevel=2)
        result = boosting_for_release(epsilon=epsilon, delta=delta, base=base, rounds=rounds).run(
            dataset, workload, rng=rng, progress=progress)
        guarantee = boosting_guarantee(result)
        transcript, parameters, extra = result.transcript, result.parameters, {}
    else:
        # ic-mw, ic-median, ic-perceptron: Algorithm 8 with the chosen update rule (checked publicly first).
        update, ic_alpha = ic_update_rule(request.mechanism, n=dataset.n, domain=dataset.domain, workload=workload,
                                          epsilon=epsilon, delta=delta, alpha=alpha, max_cells=max_cells,
                                          representation=representation, **model_cap)
        runner = IterativeConstruction(epsilon=epsilon, delta=delta, alpha=ic_alpha, max_rounds=rounds, update=update)
        result = runner.run(dataset, workload, rng=rng, progress=progress)
        guarantee = (f"(epsilon={epsilon:g}, delta={delta:g})-differential privacy: iterative construction "
                     f"(Thm 5.3), {result.parameters['composition']}")
        transcript, parameters = result.transcript, {**result.parameters, "stop_reason": result.stop_reason}
        extra = {}

    if seed is not None:
        warnings.warn(f"seed={seed} makes this run reproducible and its noise predictable: "
                      "it is not fit for a real release", SeededRunWarning, stacklevel=2)
    model, row_model = release_models(result.model, workload)  # post-processing (ic_rules.release_models)
    if rows == "auto":
        rows = default_rows(request.mechanism, parameters)
    count = dataset.n if n_rows is None else n_rows
    synthetic = row_model.sample(count, rng) if rows == "sample" else row_model.round(count, rng)
    answers = workload.marginal_answers(model)
    if rows == "fitted":  # post-processing: the rounded rows moved toward the answers released with them
        synthetic = fit_rows(synthetic, dataset.domain, list(zip(workload.marginals, answers)), rng)
    return Release(
        mechanism=mechanism, domain=dataset.domain, workload=workload, guarantee=guarantee,
        parameters=parameters, privacy_ledger=result.accountant.to_json(), transcript=transcript,
        answers=answers, rows=synthetic, rows_method=rows, seeded=seed is not None,
        extra=extra,
    )
