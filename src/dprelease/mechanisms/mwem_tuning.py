"""MWEM's constants, chosen by ablation: not options a user sets, but named here with the figures that chose them.

A user of MWEM chooses the budget, the rounds (optionally), the representation and the caps
(:class:`~dprelease.mechanisms.mwem.MWEMMechanism`). Everything else is an :class:`MWEMTuning`,
and the registry entry picks one of the presets below from public quantities only (the resolved
representation and whether delta > 0), before any private read:

===================  =============================================================================
preset               used when
===================  =============================================================================
LAPLACE_HISTOGRAM    pure DP (delta = 0) on an explicit histogram
GAUSSIAN_HISTOGRAM   delta > 0 (Gaussian noise, zCDP) on an explicit histogram
FACTORED             the factored model (a domain above ``max_cells``), either noise
===================  =============================================================================

Every option's effect is in benchmarks/results/ablation.md; docs/decisions.md says why each value won.
"""

from __future__ import annotations

from dataclasses import dataclass

from dprelease.errors import InputError
from dprelease.representations.factored import DEFAULT_MAX_MODEL_CELLS
from dprelease.validation import check_fraction, check_nonnegative, check_positive, check_positive_int

CANDIDATES = ("workload", "closure")
SELECTION_WEIGHTS = ("uniform", "workload")


@dataclass(frozen=True, kw_only=True)
class MWEMTuning:
    """The constants of one MWEM run (see :class:`~dprelease.mechanisms.mwem.MWEM` for how each is used).

    Attributes:
        candidates: ``"workload"`` (select among the workload's marginals) or ``"closure"`` (also every
            sub-marginal of them, down to 2 attributes, or 1 without INIT: AIM's downward closure).
        selection_share: fraction of each round's budget spent on selection.
        init_share: fraction of the budget spent measuring the 1-way marginals first (0: none).
        size_penalty: multiple of a marginal's expected measurement noise (cells x noise scale)
            subtracted from its selection score; 0 disables it.
        round_iterations / final_iterations: MW passes over all measurements per round / at the end.
        remeasure: whether a marginal measured once stays a candidate (repeats average its noise).
        step_growth: factor by which the fit's step size grows after an accepted step.
        warm_start: start the fit from the product of the noisy 1-way marginals (post-processing).
        annealing: AIM's budget annealing (:mod:`~dprelease.mechanisms.mwem_budget`; a privacy filter).
        selection_weights: ``"uniform"``, or ``"workload"`` (AIM's attribute-overlap weights).
        reuse_measurements: fit every past measurement each round (True) or only the newest (False).
        rounds: T when the user gives none (``None``: :func:`default_rounds` of epsilon).
        max_model_cells: the factored model's cap when the user gives none.
    """

    candidates: str = "workload"
    selection_share: float = 0.25
    init_share: float = 0.1
    size_penalty: float = 1.0
    round_iterations: int = 5
    final_iterations: int = 100
    remeasure: bool = True
    step_growth: float = 1.25
    warm_start: bool = False
    annealing: bool = False
    selection_weights: str = "uniform"
    reuse_measurements: bool = True
    rounds: int | None = None
    max_model_cells: int = DEFAULT_MAX_MODEL_CELLS

    def __post_init__(self) -> None:
        if self.candidates not in CANDIDATES:
            raise InputError(f"candidates must be one of {list(CANDIDATES)}, got {self.candidates!r}")
        if self.selection_weights not in SELECTION_WEIGHTS:
            raise InputError(f"selection_weights must be one of {list(SELECTION_WEIGHTS)}, "
                             f"got {self.selection_weights!r}")
        check_fraction(self.selection_share, "selection_share", allow_zero=False)
        check_fraction(self.init_share, "init_share")
        check_nonnegative(self.size_penalty, "size_penalty")
        check_positive_int(self.round_iterations, "round_iterations", minimum=0)
        check_positive_int(self.final_iterations, "final_iterations", minimum=0)
        if check_positive(self.step_growth, "step_growth") < 1:
            raise InputError(f"step_growth must be a number >= 1, got {self.step_growth!r}")
        if self.rounds is not None:
            check_positive_int(self.rounds, "rounds")
        check_positive_int(self.max_model_cells, "max_model_cells")


#: Pure DP on an explicit histogram: HLM's MWEM with a quarter of each round to selection, a tenth of the
#: budget on the 1-way marginals first, the full expected-noise size penalty, T from epsilon
#: (benchmarks/results/small3.md: 7-column Adult, 1-3way, eps = 1: 0.042 avg L1 median of 5 seeds).
LAPLACE_HISTOGRAM = MWEMTuning()

#: Gaussian noise (delta > 0) on an explicit histogram (7-column Adult, 1-3way, eps = 1, model avg L1:
#: 0.0251 mean of 8 fresh seeds in ~6 s, against 0.0259 with a tenth of each round to selection and no
#: warm start, and 0.036 with the pure-DP preset; docs/decisions.md).
GAUSSIAN_HISTOGRAM = MWEMTuning(candidates="closure", size_penalty=0.1, rounds=40, final_iterations=100,
                                selection_share=0.05, warm_start=True)

#: The factored model (full Adult, benchmarks/results/adult_full.md; docs/decisions.md): AIM's downward
#: closure as candidates, a quarter of the expected-noise size penalty, 40 rounds, 300 final fitting passes,
#: a tenth of each round to selection (AIM's share) and a 500,000-cell model cap (as accurate as
#: 2,000,000 and 2-6x faster).
FACTORED = MWEMTuning(candidates="closure", size_penalty=0.25, rounds=40, final_iterations=300,
                      selection_share=0.1, max_model_cells=500_000)


def tuning_for(*, representation: str, noise: str) -> MWEMTuning:
    """The preset for a resolved representation (``histogram``/``factored``) and noise (``laplace``/``gaussian``)."""
    if representation == "factored":
        return FACTORED
    return GAUSSIAN_HISTOGRAM if noise == "gaussian" else LAPLACE_HISTOGRAM


def default_rounds(epsilon: float) -> int:
    """T chosen by the benchmark (benchmarks/results/small3.md): more budget pays for more rounds.

    10 rounds at eps = 1, 5 at eps = 0.1, 20 at eps = 10: round(10 eps^0.3), kept in [5, 40].
    """
    return max(5, min(40, round(10 * check_positive(epsilon, "epsilon") ** 0.3)))
