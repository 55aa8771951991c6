"""MWEM's constants, chosen by ablation: not options a user sets, but named here with the figures that chose them.

A user of MWEM chooses the budget, the rounds (optionally), the representation and the caps
(:class:`~dprelease.mechanisms.mwem.MWEMMechanism`). Everything else is an :class:`MWEMTuning`,
and the registry entry picks one of the presets below from public quantities only (the resolved
representation), before any private read:

===================  =============================================================================
preset               used when
===================  =============================================================================
ADAPTIVE             an explicit histogram (the domain fits ``max_cells``), either noise
FACTORED             the factored model (a domain above ``max_cells``), either noise
CLASSIC              never by default: HLM's MWEM as first tuned on Adult (ablation, benchmarks)
===================  =============================================================================

The presets were chosen on the tuning suite (benchmarks/bench_suite.py: tables of different shapes, eps in
{0.1, 1, 10}, beside MST, AIM and the independent baseline), not on one table.
Every option's effect is in benchmarks/results/ablation.md; docs/decisions.md says why each value won.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from dprelease.errors import InputError
from dprelease.representations.factored import DEFAULT_MAX_MODEL_CELLS
from dprelease.validation import check_fraction, check_nonnegative, check_positive, check_positive_int

CANDIDATES = ("workload", "closure")
SELECTION_WEIGHTS = ("uniform", "workload")
INIT_ALLOCATIONS = ("equal", "l1")


@dataclass(frozen=True, kw_only=True)
class MWEMTuning:
    """The constants of one MWEM run (see :class:`~dprelease.mechanisms.mwem.MWEM` for how each is used).

    Attributes:
        candidates: ``"workload"`` (select among the workload's marginals) or ``"closure"`` (also every
            sub-marginal of them, down to 2 attributes, or 1 without INIT: AIM's downward closure).
        selection_share: fraction of each round's budget spent on selection.
        max_selection_share: with a ``noise_target``, under pure DP (Laplace noise, epsilon) a round's selection
            gets more than ``selection_share``, up to this, where that share would leave the exponential mechanism
            blind: until its utility loss (2 Delta / eps) ln C (Thm 3.11; C candidates, Delta = 2/n) is at most
            the noise target (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.round_selection_share`). None: never.
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
        rounds_per_attribute: T = this times the workload's attributes (AIM's 16 d), when the user and
            ``rounds`` give none; with annealing it is the initial plan.
        noise_target: with ``rounds_per_attribute``, plan only as many rounds as keep a typical
            workload marginal's expected L1 measurement noise at most this
            (:meth:`~dprelease.mechanisms.mwem.MWEM.planned_rounds`).
        init_only_pair_rounds: with a ``noise_target``, the plan is INIT alone (T = d, the independent
            baseline's plan) when the smallest pair of attributes could be measured within the target at most
            this many times d with the whole budget: INIT spends d of the plan's units, and rounds are worth
            their noise only if what is left measures a pair usefully about once per attribute.
        init_per_round: INIT measures each 1-way marginal at one planned round's measurement budget
            (AIM), instead of ``init_share`` of the total.
        one_way_candidates: keep the 1-way marginals among the candidates after INIT, so a round may
            measure one again (AIM: with little budget, better 1-way marginals are what pays).
        max_model_cells: the factored model's cap when the user gives none.
        compress_rare: 0, or measure marginals of 2+ attributes on compressed domains: each attribute's values
            whose noisy 1-way fraction is under 3 standard deviations counted as one, the rarest first while
            their pooled fraction stays at most this (MST's compression, :mod:`~dprelease.queries.compression`);
            the same sensitivity, fewer noisy cells.
        init_cell_noise: with ``init_per_round``, INIT spends at most half of the budget unless the 1-way
            cells need more to be measured with this expected noise (a fraction of the rows)
            (:meth:`~dprelease.mechanisms.mwem.MWEM.init_cap`); None: AIM's INIT as it is.
        max_measure_l1: a round selects only among the candidates whose expected L1 measurement noise at that
            round's budget (cells x expected noise per cell; public) is at most this, when any is; None: all.
            Not yet in a preset (docs/decisions.md: measured, waiting for the suite).
        final_discrepancy: the final fit stops before ``final_iterations`` once the model's squared residual on
            the raw measured cells (2+ attributes), in units of their noise variance, averages at most this
            (the discrepancy principle, :class:`~dprelease.updates.measurements.NoiseDiscrepancy`); None: never.
        round_discrepancy: each round's fit stops before ``round_iterations`` once the model is as close to
            all its measurements as their noise (the same test as ``final_discrepancy``, at this level); None:
            every round runs its ``round_iterations`` passes.
        final_momentum: while the final fit's mean standardized residual (as for ``final_discrepancy``) is above
            this level, its steps start from an extrapolated point (Nesterov's momentum with adaptive restart,
            :func:`~dprelease.updates.measurements.backtracking_descent`; the loss still never rises); below it,
            plain steps. None: plain steps throughout.
        capped_final_momentum: the level used in place of ``final_momentum`` when the plan's rounds reached their
            cap (``rounds_per_attribute`` * d; the budget affords more, so each measurement is sharper than the
            plan's ``noise_target`` needs): there the noise is small against what is measured and the fit can
            follow the measurements further. None: ``final_momentum`` always.
        init_allocation: how INIT splits its budget over the 1-way marginals: ``"equal"`` parts, or ``"l1"``, the
            split minimizing their expected workload L1 error (:func:`~dprelease.mechanisms.mwem_budget.init_allocation`).
        joint_noise: the plan measures the workload attributes' whole joint table once with the whole budget, and
            runs no INIT or rounds, when that measurement's expected L1 noise (cells x E|Z|, the smaller noise) is at
            most this and ``joint_ratio`` holds (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.joint_plan`). None:
            never.
        joint_ratio: the joint plan also needs the joint table to have at most this many cells per cell of the
            workload's largest marginal (each of that marginal's answers a sum of at most this many noisy cells).
        joint_sighted_noise: and, where the plan without the joint would run Gaussian rounds whose selection sees
            (Thm 3.11's loss at most ``noise_target``), the joint's expected L1 noise below this
            (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.rounds_select_with_sight`). None: ``joint_noise`` alone.
        direct_noise: the plan measures each of the workload's maximal marginals once, with no INIT, selection or
            rounds, where there are at most as many of them as the workload has attributes and each measurement's
            expected L1 noise is at most this (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.direct_plan`).
            None: never.
        direct_discrepancy: the direct plan's fit starts from the product of the 1-way marginals its measurements sum
            to and stops once the model is within this level of their noise (as ``final_discrepancy`` does for the
            rounds' fit). None: it runs all ``final_iterations``.
        gate_share: where the public plan is INIT alone over a workload with pairs, spend this share of epsilon on a
            private test of the pairs' dependence (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.gate_plan`), and run
            the rounds' plan if some pair clears its level, else INIT alone, with what is left. None: never.
        gate_ratio: a pair's level in that test: the dependence its sampling alone would show, plus this many times
            the expected L1 noise of measuring it in the rounds' plan.
        blind_gate_share, blind_gate_ratio: where the plan's own rounds would select blind on a workload of at most
            28 pairs (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.blind_selection_plan`), the same test chooses
            between those blind rounds and INIT alone, with these as its ``gate_share`` and ``gate_ratio``. None: the
            blind rounds run ungated.
        init_alone: the rounds' plan is INIT alone (T = d) whatever the public test of the pairs says (the joint and
            direct plans, where they apply, still come first): the gate's other branch
            (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.gate_plan`).
    """

    candidates: str = "workload"
    selection_share: float = 0.25
    max_selection_share: float | None = None
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
    rounds_per_attribute: int | None = None
    noise_target: float | None = None
    init_only_pair_rounds: int = 1
    init_per_round: bool = False
    one_way_candidates: bool = False
    max_model_cells: int = DEFAULT_MAX_MODEL_CELLS
    compress_rare: float = 0.0
    init_cell_noise: float | None = None
    max_measure_l1: float | None = None
    final_discrepancy: float | None = None
    round_discrepancy: float | None = None
    final_momentum: float | None = None
    capped_final_momentum: float | None = None
    init_allocation: str = "equal"
    joint_noise: float | None = None
    joint_ratio: float = 32.0
    joint_sighted_noise: float | None = None
    direct_noise: float | None = None
    direct_discrepancy: float | None = None
    gate_share: float | None = None
    gate_ratio: float = 0.3
    blind_gate_share: float | None = None
    blind_gate_ratio: float | None = None
    init_alone: bool = False

    def __post_init__(self) -> None:
        if self.candidates not in CANDIDATES:
            raise InputError(f"candidates must be one of {list(CANDIDATES)}, got {self.candidates!r}")
        if self.selection_weights not in SELECTION_WEIGHTS:
            raise InputError(f"selection_weights must be one of {list(SELECTION_WEIGHTS)}, "
                             f"got {self.selection_weights!r}")
        if self.init_allocation not in INIT_ALLOCATIONS:
            raise InputError(f"init_allocation must be one of {list(INIT_ALLOCATIONS)}, got {self.init_allocation!r}")
        check_fraction(self.selection_share, "selection_share", allow_zero=False)
        if self.max_selection_share is not None:
            check_fraction(self.max_selection_share, "max_selection_share", allow_zero=False)
            if self.max_selection_share < self.selection_share:
                raise InputError(f"max_selection_share must be at least selection_share={self.selection_share!r}, "
                                 f"got {self.max_selection_share!r}")
        check_fraction(self.init_share, "init_share")
        check_nonnegative(self.size_penalty, "size_penalty")
        check_positive_int(self.round_iterations, "round_iterations", minimum=0)
        check_positive_int(self.final_iterations, "final_iterations", minimum=0)
        if check_positive(self.step_growth, "step_growth") < 1:
            raise InputError(f"step_growth must be a number >= 1, got {self.step_growth!r}")
        if self.rounds is not None:
            check_positive_int(self.rounds, "rounds")
        if self.rounds_per_attribute is not None:
            check_positive_int(self.rounds_per_attribute, "rounds_per_attribute")
        if self.noise_target is not None:
            check_positive(self.noise_target, "noise_target")
        check_positive_int(self.init_only_pair_rounds, "init_only_pair_rounds")
        check_positive_int(self.max_model_cells, "max_model_cells")
        check_fraction(self.compress_rare, "compress_rare")
        if self.init_cell_noise is not None:
            check_positive(self.init_cell_noise, "init_cell_noise")
        if self.max_measure_l1 is not None:
            check_positive(self.max_measure_l1, "max_measure_l1")
        if self.final_discrepancy is not None:
            check_positive(self.final_discrepancy, "final_discrepancy")
        if self.round_discrepancy is not None:
            check_positive(self.round_discrepancy, "round_discrepancy")
        if self.final_momentum is not None:
            check_positive(self.final_momentum, "final_momentum")
        if self.capped_final_momentum is not None:
            check_positive(self.capped_final_momentum, "capped_final_momentum")
        if self.joint_noise is not None:
            check_positive(self.joint_noise, "joint_noise")
        check_positive(self.joint_ratio, "joint_ratio")
        if self.joint_sighted_noise is not None:
            check_positive(self.joint_sighted_noise, "joint_sighted_noise")
        if self.direct_noise is not None:
            check_positive(self.direct_noise, "direct_noise")
        if self.direct_discrepancy is not None:
            check_positive(self.direct_discrepancy, "direct_discrepancy")
        if self.gate_share is not None:
            check_fraction(self.gate_share, "gate_share", allow_zero=False)
        check_positive(self.gate_ratio, "gate_ratio")
        if (self.blind_gate_share is None) != (self.blind_gate_ratio is None):
            raise InputError("blind_gate_share and blind_gate_ratio go together: give both or neither, got "
                             f"{self.blind_gate_share!r} and {self.blind_gate_ratio!r}")
        if self.blind_gate_share is not None:
            check_fraction(self.blind_gate_share, "blind_gate_share", allow_zero=False)
            check_positive(self.blind_gate_ratio, "blind_gate_ratio")


#: HLM's MWEM as first tuned on 7-column Adult (the presets before issue 12): a quarter of each round to
#: selection, a tenth of the budget on the 1-way marginals, the full expected-noise size penalty, T from
#: epsilon. Kept for the ablation and the update-rule benchmarks; no default uses it.
CLASSIC = MWEMTuning()

#: Every default run (issue 12; chosen on the tuning suite, benchmarks/results/suite.md; docs/decisions.md):
#: AIM's plan (McKenna et al. 2022) in MWEM's loop. Candidates are the workload's downward closure (1-way
#: marginals included), selected with a tenth of each round and a quarter of the expected-noise penalty;
#: INIT measures each 1-way marginal at one planned round's budget; the rounds follow the public shape of
#: the task (``noise_target`` 0.5 on a typical pair, between d + 1 and 16 d rounds, or INIT alone when no
#: pair could be measured usefully: :meth:`~dprelease.mechanisms.mwem.MWEM.planned_rounds`), and annealing
#: doubles the rounds' budget when a measurement tells the model nothing new. Each noisy 1-way marginal
#: becomes a distribution before the fit (:func:`~dprelease.updates.measurements.one_way_distribution`:
#: projected where the noise leaves its mass visible, pooled where it hides it), and a column whose values
#: are mostly rare is measured in larger marginals with its rarest values (at most 2 % of the rows) as one
#: (``compress_rare``; full Adult all 3-way at eps = 1, delta = 1e-9: 0.161 avg L1 against 0.178). Where few
#: rounds fit a large table, INIT keeps at most half the budget once its 1-way cells are within 0.2 % of the
#: rows (``init_cell_noise``; Chicago taxi at eps = 0.1: 0.21 against 0.27). The final fit stops once the model
#: is within the noise of the raw measurements (``final_discrepancy`` 0.8, the discrepancy principle): run to
#: its 300 passes it fitted their noise (the suite's medians: clinic at eps = 0.1 0.409 against 0.420; spread
#: at eps = 1 0.188 against 0.224; the pure path on loans at eps = 1 0.265 against 0.310). While the model is
#: farther from the raw measurements than their noise (``final_momentum`` 1.0), its steps carry Nesterov's
#: momentum; within the noise they are plain again, since there the slower path is the safer one (the suite's
#: medians: Chicago taxi at eps = 10 0.083 against 0.101, 7-column Adult at eps = 10 0.0066 against 0.0081).
#: INIT splits its budget over the 1-way marginals to minimize their expected workload L1 error
#: (``init_allocation="l1"``, :func:`~dprelease.mechanisms.mwem_budget.init_allocation`): a column of many small
#: cells gets more than a binary one, unless no affordable share could resolve its cells (3 seeds, against equal
#: parts: Chicago taxi at eps 0.1 0.205 against 0.225, the 5,000-row Adult at eps 1 0.249 against 0.270).
#: The plan is INIT alone while the smallest pair could be measured usefully in at most 2 d rounds
#: (``init_only_pair_rounds``; INIT spends d of them): a 250-row, 6-column network (all 3-way, eps 1, 10 seeds;
#: a table outside the suite) 0.721 avg L1 against 0.850, the independent baseline 0.813; on the suite it changes
#: two plans, both pure DP: the 5,000-row Adult at eps 0.1 (0.827 against 0.891) and bn-1k at eps 1 (0.594 against
#: 0.652, 3 seeds).
#: Under pure DP a round's selection takes more than its tenth, up to half (``max_selection_share``), where a
#: tenth would leave the exponential mechanism blind to a marginal the noise target off the model (Thm 3.11's
#: loss 4 ln C / (n eps_s) above the target): a 5,000-row, 30-column binary chain at eps 1 (a table outside the
#: suite) 0.096 avg L1 against 0.166, loans at eps 0.1 0.493 against 0.545, the 1,300-row table at eps 10 0.422
#: against 0.458 (5 seeds); it costs binary16 at eps 1 0.043 against 0.038, where many marginals are worth a round.
#: Where the workload attributes' joint table has at most 32 cells per cell of the workload's largest marginal and one
#: measurement of it with the whole budget has an expected L1 noise of at most 2 (``joint_ratio``, ``joint_noise``),
#: the plan is that one measurement (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.joint_plan`): 3 independent
#: columns of 2, 3 and 5 values, 1,000 rows, eps 1, 0.025 avg L1 against 0.109 for the rounds and 0.046 for the
#: independent mechanism (5 seeds; benchmarks/results/small_domains/). It changes none of the main suite's 78 plans.
#: A workload of 1-way marginals alone is INIT alone at any budget (a round could only re-measure one of them), or
#: the joint plan where its answers are the less noisy: above the independent baseline in 2 of 63 cases (p >= 0.42)
#: against 7 for the rounds, median 0.80x their error (benchmarks/results/one_way/).
#: Where the workload has at most one maximal marginal (one no other contains) per attribute and each can be measured
#: with an expected L1 noise of at most 1 (``direct_noise``), the plan measures each once and fits the model to them,
#: from the product of the 1-way marginals they sum to, stopped at half their noise (``direct_discrepancy``;
#: :meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.direct_plan`): on 20 tables with adjacent pairs or disjoint triples,
#: lower than the rounds in 69 of the 73 cases it changes, median 0.67x (benchmarks/results/cross_tables/). It changes
#: no plan of the main suite, the held-out, small-domain or 1-way pages.
#: Where that public test makes the plan INIT alone over a workload of 1-28 pairs, a private one may overrule it
#: (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.gate_plan`): up to 5 % of epsilon (``gate_share``; it spends
#: the least that resolves the levels, 0.1-3.6 % where it ran) measures the largest pair dependence over its level, the
#: dependence sampling alone shows plus a quarter (``gate_ratio``) of the pair's noise in the rounds' plan; above it
#: the rest runs 2 d Gaussian rounds, else INIT alone. The ratio was chosen on chained normals binned to 16 values
#: (6 columns, 30,000 and 100,000 rows, eps 0.1: rounds win from correlation 0.8 and 0.6, lose at 0.7 and 0.3) and
#: checked on tables drawn after it (benchmarks/results/gate/): a hub copied into 7 columns 0.39 avg L1 against
#: 0.25, two tied pairs among 7 columns 0.30 against 0.26, and on the pages a 200-row shape at eps 10 0.63 against
#: 0.50; where the columns are independent the test fails and costs 0.3-0.7 % (30 seeds, paired: docs/decisions.md).
#: Where a planned round's selection is blind (Thm 3.11's loss 4 ln C / (n eps_s) above the noise target) and the plan's
#: own Gaussian rounds number more than 2 d (``init_only_pair_rounds`` x d), the run is 2 d rounds as a user asking for
#: them gets them, unannealed and each fitted to its noise
#: (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.blind_selection_plan`): annealing reads a blind pick that the model
#: already had as a model right everywhere, and spends the budget on a few sharp measurements of marginals nobody
#: needed. binary16 at eps 0.1, 0.074 avg L1 against 0.082 (MST 0.076; 30 seeds); lower on 14 of the 16 other cases
#: it changes on the pages and the random shapes (docs/decisions.md, session 53).
#: Where those blind rounds stand on at most 28 pairs, the gate's test chooses between them and INIT alone
#: (``blind_gate_share``, ``blind_gate_ratio``): blind rounds cover the pairs instead of finding them, and on generated
#: chains of 5-8 columns of 3-4 values they tied INIT alone where a column copies the one before with probability
#: 0.2, lost at 0.1 and 0 and won at 0.4. Each pair's level counts three quarters of its noise term (a quarter, the
#: INIT-alone gate's, put the level below that tie and needed 10-17 % of epsilon for the test; a whole one failed
#: a quarter of the seeds at 0.4), and the test may take up to a tenth of epsilon (3-6 % where it ran): six
#: independent columns at eps 0.1 (indep6) 0.09 avg L1 against the blind rounds' 0.13 (the independent baseline
#: 0.10; 10 seeds; docs/decisions.md, session 55).
#: Where the plan without the joint would run Gaussian rounds whose selection sees, the joint plan needs its noise
#: below 0.6 as well (``joint_sighted_noise``): the limit of 2 was chosen where that plan was INIT alone, a direct plan
#: or blind rounds, and where the rounds can see they find the marginals that matter while the joint spreads noise
#: near the data's mass over every cell. A new user's 1,470-cell subscriptions table at eps 1, 0.095 avg L1 against the
#: joint's 0.117 (the independent baseline 0.153, MST 0.115; 10 seeds); on 25 generated cases it moves, 0.79x
#: (benchmarks/results/joint_limit/); no other registered table's plan moves (docs/decisions.md, session 56).
ADAPTIVE = MWEMTuning(candidates="closure", size_penalty=0.25, selection_share=0.1, warm_start=True,
                      annealing=True, rounds_per_attribute=16, noise_target=0.5, init_per_round=True,
                      one_way_candidates=True, final_iterations=300, compress_rare=0.02, init_cell_noise=0.002,
                      final_discrepancy=0.8, final_momentum=1.0, init_allocation="l1", init_only_pair_rounds=2,
                      max_selection_share=0.5, joint_noise=2.0, joint_ratio=32.0, joint_sighted_noise=0.6,
                      direct_noise=1.0, direct_discrepancy=0.5, gate_share=0.05, gate_ratio=0.25,
                      blind_gate_share=0.1, blind_gate_ratio=0.75)

#: The factored model (a domain above ``max_cells``): the same plan under a 500,000-cell model cap (as
#: accurate as 2,000,000 on full Adult and 2-6x faster: benchmarks/results/ablation.md, docs/decisions.md)
#: and at most 8 d rounds (full Adult, all 3-way, eps = 10, delta = 1e-9: 0.107 avg L1 in 82 s against
#: 0.106 in 421 s with 16 d, both at a load average near 5 on 2 cores; a 1,000,000-cell cap: 0.106 in 187 s).
#: Where the budget affords more than those 8 d rounds (the plan is capped), each measurement is sharper than
#: the plan needs and the final fit keeps its momentum down to the discrepancy stop (``capped_final_momentum``):
#: plain steps there crawl, full Adult at eps = 10 from a residual of 1.0 to 0.94 in 300 passes (seed 0: 0.0986
#: against 0.1013; Chicago taxi at eps = 1 0.1108 against 0.1126), while a plan below its cap keeps the slower,
#: safer path (taxi at eps = 0.1 with momentum to 0.85: 0.2191 against 0.2113; docs/decisions.md).
FACTORED = replace(ADAPTIVE, max_model_cells=500_000, rounds_per_attribute=8, capped_final_momentum=0.8)


#: The user's rounds (``--rounds T``): the preset runs T rounds as given, without annealing (it adapts the plan's own
#: rounds), and each round's fit runs until the model is within the noise of its measurements, up to 25 passes
#: (``round_discrepancy`` 1.0). With the preset's 5 passes a fixed-round run re-selected what it had just measured:
#: the warm-started model had absorbed the measurement only partly, so the same marginal still scored highest
#: (binary16 at eps 0.1, T = 16: 8-16 distinct marginals in 16 rounds). Model avg L1, 3 seeds, against 5 passes
#: (docs/decisions.md): 7-column Adult at eps 1, T = 30, 0.0258 against 0.0266 and pure 0.0458 against 0.0683;
#: binary16 at eps 1, T = 16, 0.033 against 0.043 (worst seed 0.034 against 0.155), pure at T = 30 0.044 against
#: 0.057; clinic at eps 0.1, T = 20, 0.409 against 0.456; the 1,300-row table at eps 1, T = 16, 0.667 against 0.699;
#: Chicago taxi at eps 1, T = 20, 0.105 against 0.113 and 14-column Adult at T = 30 0.155 against 0.163 (2 seeds, 1.3-1.7x
#: the seconds); within 1 % on clinic and loans at eps 1 and on the 1,300-row table at eps 0.1 (10 seeds: 1.371 against
#: 1.360); worse on the 1,000-row network at eps 1, T = 32: 0.535 against 0.522 (one seed of three). (The plan's own
#: rounds keep 5 passes: their annealing spends a repeat as a sharper re-measure; the same stop there, measured on 13
#: of the suite's cases, gained and lost a little and turned no verdict, docs/decisions.md.)
USER_ROUNDS_FIT = {"round_iterations": 25, "round_discrepancy": 1.0}


def with_user_rounds(tuning: MWEMTuning) -> MWEMTuning:
    """``tuning`` for a run whose rounds the user fixed: no annealing, each round fitted to its noise
    (:data:`USER_ROUNDS_FIT`). Public: it depends on the options only."""
    return replace(tuning, annealing=False, **USER_ROUNDS_FIT)


def tuning_for(*, representation: str, noise: str) -> MWEMTuning:
    """The preset for a resolved representation (``histogram``/``factored``). Either noise (``laplace``/
    ``gaussian``) gets the same plan, which follows the budget's currency itself (:meth:`MWEM.plan_noise`)."""
    del noise
    return FACTORED if representation == "factored" else ADAPTIVE


def default_rounds(epsilon: float) -> int:
    """T chosen by the benchmark (benchmarks/results/small3.md): more budget pays for more rounds.

    10 rounds at eps = 1, 5 at eps = 0.1, 20 at eps = 10: round(10 eps^0.3), kept in [5, 40].
    """
    return max(5, min(40, round(10 * check_positive(epsilon, "epsilon") ** 0.3)))
