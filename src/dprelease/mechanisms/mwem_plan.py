"""MWEM's plan: how many rounds, which noise, and how the budget splits over INIT and the rounds.

Everything here reads public quantities only (epsilon, delta, n, the domain's sizes, the workload, the
tuning), so the plan itself costs no budget; :class:`~dprelease.mechanisms.mwem.MWEM` runs it. The split is
exact (Fractions): the parts sum to the total, epsilon under pure DP (basic composition, Thm 3.16) or rho
under zCDP (Bun & Steinke 2016, Lemma 2.3), and the accountant charges each step its part.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.errors import InputError, InputTypeError
from dprelease.mechanisms.mwem_budget import (budget_for_cell_noise, cell_noise, init_allocation, rounds_for_noise,
                                               summed_cell_noise)
from dprelease.mechanisms.mwem_tuning import MWEMTuning, default_rounds, with_user_rounds
from dprelease.privacy.noise import exact
from dprelease.privacy.zcdp import exponential_epsilon, rho_for
from dprelease.queries.workload import Workload
from dprelease.representations import MWEM_HISTOGRAM_CELLS, REPRESENTATIONS, resolve_representation
from dprelease.representations.factored import FactoredModel
from dprelease.validation import check_delta, check_positive, check_positive_int

NOISES = ("auto", "laplace", "gaussian")

#: The most of the budget INIT keeps where the 1-way cells are already measured well (:meth:`MWEMPlan.init_cap`):
#: Chicago taxi eps 0.1 0.21 avg L1 against 0.27 (delta 1e-9) and 0.26 against 0.34 (pure); a third measured
#: worse on full Adult and the 32-column mixture at eps 1, pure (0.233 and 0.271 against 0.219 and 0.260).
INIT_MOST_SHARE = Fraction(1, 2)

#: The most cells a joint plan's table may have (:meth:`MWEMPlan.joint_plan`): the largest joint that plan was checked
#: on has 3,360 (benchmarks/results/small_domains/). Past it the simplex projection's bias, spread over thousands of
#: mostly empty cells, reaches every marginal that sums them: a 6-column trip log of 12,096 cells (a table none of the
#: limits was chosen on), 20,000 rows, 0.157 avg L1 at eps 1 against 0.038 for the rounds' plan, and 0.017 against
#: 0.011 at eps 10, where the joint's noise is a tenth of the data's mass (3 seeds; docs/decisions.md).
JOINT_MAX_CELLS = 4096
#: Above this many cells the joint plan's noise limit shrinks as sqrt(JOINT_DENSE_CELLS / cells) (see
#: :meth:`MWEMPlan.joint_plan`): the range where the limit of 2 was checked and held (docs/decisions.md, session 32).
JOINT_DENSE_CELLS = 1024


#: The gate (:meth:`MWEMPlan.gate_plan`) runs only where some pair's level is at most this: a pair's dependence
#: ||P_ab - P_a x P_b||_1 is below 2, and one near it is a column copied into another.
GATE_MOST_LEVEL = 1.5
#: ... and only where the workload has at most this many pairs (8 columns' 28): one strong pair is then a large part
#: of the workload. On wider tables it is a small part, while the rounds' INIT takes two thirds of every 1-way
#: marginal's budget, and the rounds the test passed lost to INIT alone: two tied pairs among 30 columns of 10 values,
#: 50,000 rows, eps 0.1, 0.114 avg L1 against 0.098; a hub copied into 29 columns 0.226 against 0.209; two pairs among
#: 24 columns 0.106 against 0.102; among 12, 0.102 against 0.098 (3 seeds; docs/decisions.md, session 34).
GATE_MOST_PAIRS = 28
#: The test's Laplace scale (6 / (n epsilon_test)) as a share of the smallest pair's noise term: the test spends the
#: epsilon that gives it. Where the test fails its share is what it costs, about one for one on a table whose error is
#: the noise's; a quarter took twice the share for the same choices on benchmarks/results/gate/ (the passes there
#: moved by at most 5 of 20 seeds, on tables within 1 % of the better plan), and with the 0.1 cap it needed then it
#: also ran, and failed, at 6-10 % on 1,000-5,000-row tables (spread's disjoint triples at eps 0.1: 0.589 avg L1
#: against 0.548; docs/decisions.md, session 34).
GATE_RESOLUTION = 0.5

#: Rounds within this many of the most either noise affords count as a tie in :meth:`MWEMPlan.plan_noise`, which the
#: smaller expected absolute noise per cell then breaks: one round more (a pair measured, at T = d + 1) did not pay
#: for Gaussian noise's larger cells on INIT's d 1-way marginals, on any of the 7 cases where it arose (session 52).
ROUNDS_MARGIN = 1

#: Under pure DP the rounds' count aims a typical pair's measurement at half the noise target. Basic composition
#: makes a round's noise grow as T (Laplace at epsilon / T a round) where zCDP's grows as sqrt T: with error
#: bias(T) + noise(T), noise ~ T^p, the best T has -bias'(T) = p noise(T) / T, so for the same gain per round the
#: optimum's noise is half as large at p = 1 as at p = 1/2. Only the count moves: INIT alone's test and the
#: selection share keep the whole target (halving those too lost on binary16 at eps 0.1, 0.187 against 0.143), and
#: so does the Laplace-or-Gaussian choice under delta > 0, where the suite chose the default. The pure path against
#: the whole target (model avg L1; docs/decisions.md, session 35): a 3,000-row orders table at eps 1 0.152 against
#: 0.215 (8 seeds; the independent baseline 0.195); of the 20 cases it changes on the suite's and held-out pages,
#: lower in 12 (to 0.84x) and higher in 8 (to 1.06x), still below the independent baseline in all 60; on the 16
#: random shapes, drawn before it, lower in 10 of the 11 cases it changes (geometric mean 0.89x).
PURE_ROUNDS_TARGET = 0.5


@dataclass(frozen=True)
class RunPlan:
    """What one run will measure and spend, decided from public quantities (n, epsilon, delta, the workload)
    before any private read (:meth:`MWEMPlan.run_plan`)."""

    noise: str  # "laplace" (epsilon, basic composition) or "gaussian" (rho, zCDP)
    rounds: int  # T; T = d with no round after INIT when INIT runs alone
    one_way: list[tuple[str, ...]]  # INIT's 1-way marginals (none without INIT)
    candidates: list[tuple[str, ...]]  # what a round may select
    split: dict[str, Fraction]  # the exact per-step amounts (:meth:`MWEMPlan.budget_split` / ``rho_split``)
    selection_share: Fraction  # of each round's budget (:meth:`MWEMPlan.round_selection_share`)
    joint: tuple[str, ...] | None = None  # the joint plan's one marginal (:meth:`MWEMPlan.joint_plan`), else None
    #: the direct plan's measurements (:meth:`MWEMPlan.direct_plan`): each maximal marginal with its budget, else ()
    direct: tuple[tuple[tuple[str, ...], Fraction], ...] = ()

    @property
    def gaussian(self) -> bool:
        return self.noise == "gaussian"


@dataclass(frozen=True)
class GatePlan:
    """A private choice between two plans, made before either runs (:meth:`MWEMPlan.gate_plan`): a Laplace test of
    the pairs' dependence at ``epsilon``, then ``rounds_run`` if some pair clears its level, else ``init_run``, each
    with the rest of the budget. Public: every field comes from n, the budget, the workload and the tuning."""

    epsilon: Fraction  # the test's, exactly: the total less the float epsilon the runs get
    pairs: tuple[tuple[str, ...], ...]
    levels: tuple[float, ...]  # each pair's: sampling dependence + gate_ratio x its noise in the rounds' plan
    rounds_run: MWEMPlan
    init_run: MWEMPlan
    ratio: float  # the levels' gate_ratio: the tuning's, or its blind_gate_ratio where the plan's rounds select blind
    planned_rounds: int  # the plan it stands in for: d (INIT alone), or the rounds that would select blind


def selection_loss(*, candidates: int, n: int, epsilon: float) -> float:
    """Thm 3.11's bound on the best score the exponential mechanism over ``candidates`` at ``epsilon`` gives up, for
    MWEM's L1 score of sensitivity Delta = 2/n: (2 Delta / epsilon) ln C = 4 ln C / (n epsilon) (a utility bound;
    the selection's privacy is Thm 3.10's at ``epsilon``, whatever the loss)."""
    return 4 * math.log(candidates) / (n * epsilon)


def planned_selection_epsilon(plan: RunPlan) -> float:
    """The selection's epsilon at one of ``plan``'s rounds as planned (before annealing): its share of the round, as
    epsilon (pure DP) or the exponential mechanism's epsilon for that rho (zCDP). Public."""
    select = plan.split["select"]
    return exponential_epsilon(select) if plan.gaussian else float(select)


def planned_selection_loss(plan: RunPlan, *, n: int) -> float | None:
    """:func:`selection_loss` at one of ``plan``'s rounds as planned; None where the plan selects nothing. Public."""
    epsilon = planned_selection_epsilon(plan)
    return selection_loss(candidates=len(plan.candidates), n=n, epsilon=epsilon) if epsilon > 0 else None


def candidate_marginals(workload: Workload, kind: str, *, smallest: int) -> list[tuple[str, ...]]:
    """The workload's marginals, or (``closure``) also all their sub-marginals of >= ``smallest`` attributes."""
    if kind == "workload":
        return list(workload.marginals)
    found = dict.fromkeys(workload.marginals)
    for m in workload.marginals:
        for k in range(smallest, len(m)):
            found.update(dict.fromkeys(itertools.combinations(m, k)))
    return list(found)


def maximal_marginals(workload: Workload, *, most: int | None = None) -> list[tuple[str, ...]] | None:
    """The workload's marginals that no other of its marginals contains, smallest first (then in workload order):
    every workload marginal is a sum of one of them; None once there are more than ``most``. Public.

    Longest first, each checked against the maximal ones found so far (a marginal inside any other is inside a maximal
    one), so the work is k x (maximal found), and stops early: 5,488 marginals (32 columns, all 1-3-way) in
    milliseconds, where comparing every pair took a second on each run's plan."""
    order = {m: i for i, m in enumerate(workload.marginals)}
    found: list[tuple[str, ...]] = []
    sets: list[frozenset[str]] = []
    for marginal in sorted(workload.marginals, key=len, reverse=True):
        attributes = frozenset(marginal)
        if any(attributes < other for other in sets):
            continue
        found.append(marginal)
        sets.append(attributes)
        if most is not None and len(found) > most:
            return None
    return sorted(found, key=lambda m: (len(m), order[m]))


def marginals_answered(workload: Workload, marginal: tuple[str, ...]) -> int:
    """How many of the workload's marginals are sums of ``marginal`` (itself included). Public."""
    return sum(set(other) <= set(marginal) for other in workload.marginals)


def joint_answers_noise(*, joint_cells: int, per_cell: float, cells: list[int], weights: list[int],
                        gaussian: bool) -> float:
    """The weighted expected L1 noise of a joint table's answers to marginals of ``cells`` cells each: an answer's cell
    sums ``joint_cells // cells`` noisy joint cells of expected noise ``per_cell`` (:func:`summed_cell_noise`). Public."""
    return sum(w * c * summed_cell_noise(per_cell, cells=joint_cells // c, gaussian=gaussian)
               for c, w in zip(cells, weights))


def mwem_representation(representation: str, domain: Domain, max_cells: int) -> str:
    """MWEM's model: ``auto`` keeps the histogram up to ``max_cells`` and :data:`MWEM_HISTOGRAM_CELLS`
    (public; the class and its registry entry decide alike)."""
    return resolve_representation(representation, domain, max_cells=max_cells, auto_cells=MWEM_HISTOGRAM_CELLS)


@dataclass(frozen=True, kw_only=True)
class MWEMPlan:
    """MWEM's parameters and its plan: the rounds, the noise and the budget's split, from public quantities only.

    Args:
        epsilon: total budget; the run is (epsilon, 0)-DP with Laplace noise, (epsilon, delta)-DP
            with Gaussian noise.
        delta: 0 for pure DP; > 0 allows Gaussian noise with zCDP accounting.
        noise: ``"laplace"``, ``"gaussian"`` (needs delta > 0), or ``"auto"`` (Gaussian when delta > 0).
        representation: ``"histogram"``, ``"factored"``, or ``"auto"`` (the histogram when the domain
            has at most ``max_cells`` and at most :data:`~dprelease.representations.MWEM_HISTOGRAM_CELLS`
            cells, else the factored model).
        max_cells: cap on an explicit histogram's cells (public).
        max_model_cells: cap on the factored model's junction-tree cells (default: the tuning's).
        rounds: T, the number of select-measure-update rounds (default: the tuning's, else
            :func:`~dprelease.mechanisms.mwem_tuning.default_rounds`).
        tuning: the constants chosen by ablation (:class:`~dprelease.mechanisms.mwem_tuning.MWEMTuning`: the
            candidates, the budget shares, the size penalty, the fit's passes, warm start, annealing, ...).
            The registry entry (:class:`MWEMMechanism`) picks the preset for the run's representation and
            noise from public quantities; pass one here only to study an option (tests, the ablation).
    """

    epsilon: float
    delta: float = 0.0
    rounds: int | None = None
    representation: str = "auto"
    max_cells: int = DEFAULT_MAX_CELLS
    max_model_cells: int | None = None
    noise: str = "auto"
    tuning: MWEMTuning = field(default_factory=MWEMTuning)

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")
        check_delta(self.delta)
        if self.noise not in NOISES:
            raise InputError(f"noise must be one of {list(NOISES)}, got {self.noise!r}")
        if self.noise == "gaussian" and self.delta == 0:
            raise InputError("noise='gaussian' needs delta > 0 (zCDP converts to (epsilon, delta)-DP), got delta=0")
        if self.representation not in REPRESENTATIONS:
            raise InputError(f"representation must be one of {list(REPRESENTATIONS)}, got {self.representation!r}")
        check_positive_int(self.max_cells, "max_cells")
        if not isinstance(self.tuning, MWEMTuning):
            raise InputTypeError(f"tuning must be an MWEMTuning, got {type(self.tuning).__name__}")
        # The user's rounds and model cap, else the tuning's, else T from epsilon (public choices only). With
        # ``rounds_per_attribute`` the plan depends on the workload: it is resolved by :meth:`planned_rounds`.
        if self.rounds is None and self.tuning.rounds_per_attribute is None:
            object.__setattr__(self, "rounds", self.tuning.rounds or default_rounds(self.epsilon))
        if self.rounds is not None:
            check_positive_int(self.rounds, "rounds")
        if self.max_model_cells is None:
            object.__setattr__(self, "max_model_cells", self.tuning.max_model_cells)
        check_positive_int(self.max_model_cells, "max_model_cells")

    def total(self, *, gaussian: bool) -> Fraction:
        """The whole budget in the plan's currency: rho (zCDP, Gaussian noise) or epsilon (Laplace), exactly."""
        return rho_for(epsilon=self.epsilon, delta=self.delta) if gaussian else exact(self.epsilon)

    def planned_rounds(self, workload: Workload, *, n: int, total: Fraction, gaussian: bool) -> int:
        """T: the user's; else the rounds whose measurements the candidates can use (public quantities only).

        With ``noise_target`` tau, :func:`rounds_for_noise` gives the most rounds at which measuring a marginal
        of C cells adds expected L1 noise <= tau. T is that for a typical pair of attributes (C = the median cells of
        the closure's pairs; of the workload's marginals when it has none; under pure DP at
        :data:`PURE_ROUNDS_TARGET` x tau), kept in [d + 1, ``rounds_per_attribute`` * d] (d: the workload's attributes; AIM's 16 d plan
        when n * epsilon is large, and one round after INIT when it is small). When even the smallest pair
        of attributes could be measured usefully in at most ``init_only_pair_rounds`` x d rounds (INIT spends d
        units; what is left would not measure a pair once per attribute), no round is worth its noise: T = d,
        and INIT measures each 1-way marginal with 1/d of the budget (the independent baseline's plan). Under
        pure DP that test sizes a round's measurement after the most a round may spend selecting
        (``max_selection_share``): a round there selects with up to half its budget where the exponential
        mechanism would otherwise be blind, and the one or few rounds such a plan ran lost to INIT alone (the
        loan log at eps 0.1: 0.457 avg L1 against 0.503, 10 seeds; docs/decisions.md).

        A workload of 1-way marginals alone is INIT alone too (:meth:`one_way_init_alone`; unless :meth:`joint_plan`
        answers it with less noise): the product of INIT's noisy 1-way marginals answers every workload marginal
        with no model bias, and a round could only re-measure one of them, after paying to select it, with budget
        INIT could have spent on it directly. Rounds there lost to the independent baseline (the spread-out table
        at eps 0.1: 0.211 avg L1 against 0.200; the 1,300-row table at eps 1: 0.177 against 0.174; INIT alone
        0.168 and 0.130, 10 seeds; benchmarks/results/one_way/).
        """
        if self.rounds is not None:
            return self.rounds
        d = len(workload.attributes)
        most = self.round_cap(workload)
        if self.tuning.noise_target is None:
            return most
        if self.one_way_init_alone(workload) or self.tuning.init_alone:
            return d
        plan = dict(n=n, measure=(1 - self.tuning.selection_share) * float(total), gaussian=gaussian,
                    tau=self.tuning.noise_target)
        pairs = [workload.cells(p) for p in candidate_marginals(workload, "closure", smallest=2) if len(p) == 2]
        # Under pure DP a round may spend up to ``max_selection_share`` selecting (:meth:`round_selection_share`),
        # so the test leaves that much out of each round's measurement (the rounds' plan below keeps the tenth).
        test_share = self.tuning.max_selection_share
        if gaussian or test_share is None:
            test_share = self.tuning.selection_share
        test = {**plan, "measure": (1 - test_share) * float(total)}
        if pairs and rounds_for_noise(cells=min(pairs), **test) <= self.tuning.init_only_pair_rounds * d:
            return d
        # A typical pair, not a typical workload marginal: rounds measure the closure's pairs as often as the
        # workload's marginals, and planning for the largest marginals starves wide tables of rounds.
        typical = float(np.median(pairs)) if pairs else float(np.median([workload.cells(m) for m in workload.marginals]))
        plan = {**plan, "tau": self.rounds_noise_target()}
        return int(min(most, max(d + 1, rounds_for_noise(cells=typical, **plan))))

    def rounds_noise_target(self) -> float | None:
        """The noise target a typical pair's measurement is planned at when the plan counts its own rounds: the
        tuning's ``noise_target``, or :data:`PURE_ROUNDS_TARGET` of it under pure DP (basic composition). None where
        the user fixed the rounds or the tuning plans none. Public: the options alone."""
        if self.rounds is not None or self.tuning.noise_target is None:
            return None
        return self.tuning.noise_target * (PURE_ROUNDS_TARGET if self.delta == 0 else 1.0)

    def gaussian_noise_factor(self) -> float:
        """A Gaussian measurement's noise against what the plan's formulas (the book's unit: L2 sensitivity
        sqrt(2)/n) give: 1 here; 1/sqrt(2) under add/remove (:class:`MWEM`)."""
        return 1.0

    def gate_plan(self, workload: Workload, *, n: int, plan: RunPlan | None = None) -> GatePlan | None:
        """Where the public plan is INIT alone over a workload with pairs, a private test of whether it should be
        (:class:`GatePlan`); where its own rounds would select blind (:meth:`blind_selection_plan`), the same test
        between those blind rounds and INIT alone; else None. Public quantities only.

        The public test of :meth:`planned_rounds` asks whether a pair could be measured usefully at all; whether
        measuring one pays depends on how far the table's pairs are from independence, which only the data knows.
        Six readings binned to 16 values, 30,000 rows, eps 0.1: INIT alone 0.73 avg L1 where 12 rounds give 0.55
        with neighbours correlated 0.85, and 0.17 against 0.20 where they are independent. So a small part of
        epsilon (at most ``gate_share``) buys one noisy number: the largest over the closure's pairs of the pair's dependence D =
        ||P_ab - P_a x P_b||_1 less its level (:meth:`~dprelease.privacy.measurer.PrivateMeasurer.laplace_dependence`,
        sensitivity 6/n). A pair's level is the dependence its sampling alone shows in an independent table,
        sqrt(2 cells / (pi n)), plus ``gate_ratio`` times the expected L1 noise of measuring it in the rounds' plan
        (in the run's privacy unit: :meth:`gaussian_noise_factor`).
        At or above 0 the rest of the budget runs the rounds' plan: the user-rounds preset at
        ``init_only_pair_rounds`` x d rounds with Gaussian noise, as a user asking for those rounds would get it;
        below, INIT alone with the rest. Both are charged as one (epsilon, delta) stage after the test's (epsilon,
        0) (:class:`~dprelease.privacy.accountant.StagedAccountant`; basic composition, Thm 3.16, adaptive).

        The test spends the least epsilon at which its Laplace scale, 6 / (n epsilon_test), is :data:`GATE_RESOLUTION`
        of the smallest pair's noise term, and runs only where that is at most ``gate_share`` of epsilon, with delta
        > 0 (the rounds' plan is Gaussian), ``noise="auto"``, the mechanism's own plan, at most
        :data:`GATE_MOST_PAIRS` pairs, and some pair's level at most :data:`GATE_MOST_LEVEL`. Elsewhere the plan is
        as before, INIT alone with the whole budget: where n epsilon is small (1,000 rows at eps 0.1) the test would cost more than it tells.
        Pure DP has no gate: with d Laplace rounds in its place the test passed on the 1,000-row Bayesian network at
        eps 1 and the rounds lost to INIT alone, 0.784 avg L1 against 0.589 (the level does not see what selecting
        among 500 candidates at eps / d costs), though they won on the strong tables of benchmarks/results/gate/.

        Where the plan's own rounds would select blind, the rounds' plan is the blind plan itself (2 d user rounds),
        the other branch INIT alone (``init_alone``: not the own plan, which is those rounds), a pair's level counts
        ``blind_gate_ratio`` of its noise term and the test may take up to ``blind_gate_share`` of epsilon: blind
        rounds cover the pairs instead of finding them, and paid for themselves only where a pair's dependence was
        near its measurement's noise (generated chains of 5-8 columns of 3-4 values: the rounds tie INIT alone where
        a column copies the one before with probability 0.2, lose at 0.1 and 0; docs/decisions.md, session 55).
        The other conditions are the gate's above.
        """
        tuning = self.tuning
        if tuning.gate_share is None or self.rounds is not None or self.delta == 0 or self.noise != "auto":
            return None
        plan = plan or self.run_plan(workload, n=n)  # ``plan``: the run's own, where the caller has it already
        d = len(workload.attributes)
        if plan.joint is not None or plan.direct:
            return None
        blind = plan.rounds != d  # the plan has rounds: gated only where they would select blind
        if blind and (tuning.blind_gate_share is None or self.blind_selection_plan(workload, n=n, plan=plan) is None):
            return None
        share, ratio = ((tuning.blind_gate_share, tuning.blind_gate_ratio) if blind
                        else (tuning.gate_share, tuning.gate_ratio))
        pairs = [p for p in candidate_marginals(workload, "closure", smallest=2) if len(p) == 2]
        if not pairs or len(pairs) > GATE_MOST_PAIRS:  # no pairs: a workload of 1-way marginals
            return None
        total = exact(self.epsilon)
        untested = replace(tuning, gate_share=None)
        cells = [workload.cells(p) for p in pairs]

        def runs(test: Fraction) -> tuple[float, MWEMPlan, MWEMPlan, list[float]]:
            """The runs' float epsilon (rounded down, so test + runs <= total exactly), both runs, and each pair's
            noise term in the rounds' plan at that budget."""
            rest = float(total - test)
            if Fraction(rest) > total - test:
                rest = math.nextafter(rest, 0.0)
            rounds_run = replace(self, epsilon=rest, rounds=tuning.init_only_pair_rounds * d, noise="gaussian",
                                 tuning=with_user_rounds(untested))
            per_cell = cell_noise(float(rounds_run.run_plan(workload, n=n).split["measure"]), n=n, gaussian=True) \
                * self.gaussian_noise_factor()
            return rest, rounds_run, replace(self, epsilon=rest, tuning=replace(untested, init_alone=True)), \
                [ratio * c * per_cell for c in cells]

        def levels_of(terms: list[float]) -> tuple[float, ...]:
            return tuple(math.sqrt(2 * c / (math.pi * n)) + term for c, term in zip(cells, terms))

        def needed(terms: list[float]) -> Fraction:
            """The test's epsilon at which its Laplace scale 6 / (n epsilon) is GATE_RESOLUTION of the least term."""
            return Fraction(6, n) / exact(GATE_RESOLUTION * min(terms))

        most = total * exact(share)
        least = needed(runs(most)[3])  # with the runs' noise at its largest (the test at its most): a lower bound
        if least > most:
            return None
        test = needed(runs(least)[3])  # the runs' terms with the most they can get: the test this takes is enough,
        if test > most:  # since the runs, left total - test, only get noisier terms than these
            return None
        rest, rounds_run, init_run, terms = runs(test)
        levels = levels_of(terms)
        if min(levels) > GATE_MOST_LEVEL:
            return None
        epsilon = total - Fraction(rest)
        return GatePlan(epsilon, tuple(pairs), levels, rounds_run, init_run, ratio, plan.rounds)

    def _split(self, total: Fraction, num_one_way: int, rounds: int, init_cap: Fraction | None = None) -> dict[str, Fraction]:
        """``total`` (epsilon or rho) over INIT and the rounds, exactly; the rounds' plan without annealing.

        INIT spends ``init_share`` of the total on the 1-way marginals, or, with ``init_per_round`` (AIM's
        choice), measures each at one planned round's measurement budget (total / T, less the selection
        share), so a 1-way marginal is measured as well as a selected one. With the mechanism's own plan
        (:meth:`planned_rounds`) INIT's measurements are sized as 1/T of the total each and T rounds share what
        they leave (annealing then grows a round's budget where measurements agree with the model); with the
        user's ``rounds``, INIT is sized as 1/(rounds + d), so the rounds asked for keep their share.
        ``init_cap`` (:meth:`init_cap`) bounds one INIT measurement; the rounds get what it leaves.
        """
        share = exact(self.tuning.selection_share)
        per_init = bool(num_one_way and self.tuning.init_per_round)
        units = rounds + num_one_way if self.rounds is not None and per_init else rounds
        after_init = rounds  # the own plan's INIT units are spent from the same total: annealing then grows the
        # rounds' budget where measurements agree with the model (measured better than T - d larger rounds:
        # adult-n5000 eps 1, 0.27 against 0.32 avg L1)
        if per_init and units <= num_one_way:
            init_each, init_total, after_init = total / num_one_way, total, 0  # INIT takes it all
        elif per_init:
            init_each = total / units * (1 - share)
            if init_cap is not None:  # see :meth:`init_cap`
                init_each = min(init_each, init_cap)
            init_total = init_each * num_one_way
            if init_total >= total:
                raise InputError(f"rounds={rounds} leaves nothing after measuring the {num_one_way} 1-way marginals "
                                 f"at one round's budget each: give more rounds than {num_one_way}")
        else:
            init_total = total * exact(self.tuning.init_share) if num_one_way else Fraction(0)
            init_each = init_total / num_one_way if num_one_way else Fraction(0)
        per_round = (total - init_total) / after_init if after_init else Fraction(0)
        select = per_round * share
        return {"init_each": init_each, "rounds_total": total - init_total, "select": select,
                "measure": per_round - select, "rounds_after_init": Fraction(after_init)}

    def joint_plan(self, workload: Workload, *, n: int) -> RunPlan | None:
        """One measurement of the workload attributes' whole joint table with the whole budget, where the joint is
        small against the workload and sharp (``joint_ratio``, ``joint_noise``); else None. Public quantities only.

        Every workload marginal is a sum of the joint's cells, so one measurement answers them all without a model's
        bias, and its noise is paid once: Laplace at epsilon, or Gaussian at rho, whichever has the smaller expected
        noise per cell (:func:`cell_noise`; for one measurement Laplace's unless epsilon is far above 2 pi rho). The
        model is its least-squares distribution (:func:`~dprelease.mechanisms.mwem.joint_projection`). Adaptive rounds
        split the same budget over INIT and many measurements, and on a small domain that buys nothing the joint does
        not hold: 3 columns of 2, 3 and 5 values, 1,000 independent rows, all 1-3-way at eps 1, 0.108 avg L1 with
        AIM's 48 rounds against the independent baseline's 0.081 and the joint's 0.025.

        The plan needs the joint to have at most :data:`JOINT_MAX_CELLS` cells (4,096: the range it was checked on), at
        most ``joint_ratio`` cells per cell of the workload's largest marginal
        (32: each of that marginal's answers sums at most 32 noisy cells, so its noise is at most sqrt(32) ~ 5.7 times
        that of measuring it alone), and the joint's expected L1 noise (cells x E|Z|) at most ``joint_noise`` (2: the
        noise's mass at most twice the data's). Both were chosen on 28 generated small-domain tables (14 shapes at 1-3
        sizes; docs/decisions.md; 12 of those shapes, drawn again, have their own page,
        benchmarks/results/small_domains/suite.md): past the ratio, where the workload's marginals are much smaller
        than the joint (6 columns of 4 values, all 1-3-way: the joint 64 times the largest marginal), the adaptive
        plan's model wins; within it the joint won or tied in every case up to a noise of 2 but two near 0.6, and beyond
        it lost as often as it won (docs/decisions.md). Those cases had at most 1,024 cells where the noise was above 1;
        above :data:`JOINT_DENSE_CELLS` the limit is 2 sqrt(1,024 / cells), since the simplex projection's bias grows
        with the cells under the noise: a 2,940-cell joint of 3,000 rows at noise 1.96 (eps 1) gave 0.267 avg L1
        against the rounds' 0.120 and the independent baseline's 0.258, and at noise 0.20 (eps 10) 0.031 against the
        rounds' 0.036 (10 seeds; the limit there is 1.18). It changes no plan of any benchmark page. Where the plan
        without it would run Gaussian rounds that select with sight (:meth:`sighted_rounds_plan`, applied by
        :meth:`run_plan`), the joint also needs its noise below ``joint_sighted_noise`` (0.6): those limits were
        chosen where that plan was INIT alone, a direct plan or blind rounds, and on 25 generated cases of the sighted
        kind with noise 0.72-1.54 the rounds were lower in 18 (geometric mean 0.79x) and higher in 3, by up to 1.27x
        (benchmarks/results/joint_limit/); of the pages' plans it moves one, the small-domain page's subscriptions at
        eps 1 (0.095 against 0.117). It runs
        only the mechanism's own plan (no ``rounds`` given), on an explicit histogram. For a workload of 1-way marginals
        alone it runs only where its answers carry less expected L1 noise than INIT alone's (:meth:`planned_rounds`),
        since there each answer for a cell of attribute A sums cells / |A| of the joint's noisy cells: 4 binary columns
        (8 cells a sum) take the joint, 2 columns of 10 values (10 a sum, the budget split only in 2) INIT alone
        (eps 0.1, 40 seeds: 1,000 rows, 0.097 avg L1 against INIT alone's 0.152; 3,000 rows, 0.128 against the joint's
        0.168).
        """
        tuning = self.tuning
        if tuning.joint_noise is None or self.rounds is not None:
            return None
        if self.resolved_representation(workload.domain) != "histogram":
            return None
        attributes = tuple(workload.attributes)
        cells = workload.cells(attributes)
        if cells > JOINT_MAX_CELLS or cells > tuning.joint_ratio * max(workload.cells(m) for m in workload.marginals):
            return None
        options = []
        for noise in self.noise_choices():
            gaussian = noise == "gaussian"
            total = self.total(gaussian=gaussian)
            options.append((cell_noise(float(total), n=n, gaussian=gaussian), noise, total))
        per_cell, noise, total = min(options)
        if cells * per_cell > tuning.joint_noise * min(1.0, math.sqrt(JOINT_DENSE_CELLS / cells)):
            return None
        if self.one_way_init_alone(workload) and \
                not self._joint_answers_one_way_better(workload, n=n, joint=per_cell, gaussian=noise == "gaussian"):
            return None
        zero = Fraction(0)
        split = {"joint": total, "init_each": zero, "rounds_total": zero, "select": zero, "measure": zero,
                 "rounds_after_init": zero}
        return RunPlan(noise, 0, [], [], split, zero, joint=attributes)

    def sighted_rounds_plan(self, workload: Workload, joint: RunPlan, *, n: int) -> RunPlan | None:
        """The plan without the joint (``joint_noise`` None), where the ``joint`` plan's expected L1 noise is at least
        ``joint_sighted_noise`` and that plan's rounds select with sight (:meth:`rounds_select_with_sight`); else
        None. :meth:`run_plan` runs it in the joint's place. Public quantities only."""
        limit = self.tuning.joint_sighted_noise
        if limit is None or self.tuning.noise_target is None:
            return None
        per_cell = cell_noise(float(joint.split["joint"]), n=n, gaussian=joint.gaussian)
        if workload.cells(joint.joint) * per_cell < limit:
            return None
        other = self._without_joint(workload, n=n)
        return other if self._selects_with_sight(other, workload, n=n) else None

    def _without_joint(self, workload: Workload, *, n: int) -> RunPlan:
        return replace(self, tuning=replace(self.tuning, joint_noise=None)).run_plan(workload, n=n)

    def _selects_with_sight(self, plan: RunPlan, workload: Workload, *, n: int) -> bool:
        loss = planned_selection_loss(plan, n=n)
        return plan.gaussian and plan.rounds > len(workload.attributes) and not plan.direct \
            and loss is not None and loss <= self.tuning.noise_target

    def rounds_select_with_sight(self, workload: Workload, *, n: int) -> bool:
        """Whether the plan without the joint (``joint_noise`` None) runs Gaussian rounds, more than INIT's d, whose
        planned selection sees: Thm 3.11's loss 4 ln C / (n eps_s) at most ``noise_target``
        (:func:`planned_selection_loss`). Public quantities only.

        The joint plan's noise limit of 2 was chosen where the plan without it was INIT alone, a direct plan or
        rounds that select blind. Where Gaussian rounds can see, they find the marginals that hold the table's
        dependence and measure them sharply under zCDP, while a joint whose noise is comparable to the data's mass
        spreads that noise over every cell (``joint_sighted_noise``): on generated small domains (5 columns of
        5, 3, 7, 7, 2 values, 4,000 rows, eps 1: 0.095 avg L1 against the joint's 0.117-0.127). Laplace rounds
        under basic composition are not counted: in pure DP the same choice lost by up to 1.8x where columns form a
        chain (docs/decisions.md, session 56)."""
        if self.tuning.noise_target is None:
            return False
        return self._selects_with_sight(self._without_joint(workload, n=n), workload, n=n)

    def direct_plan(self, workload: Workload, *, n: int) -> RunPlan | None:
        """Each of the workload's maximal marginals (:func:`maximal_marginals`) measured once, with no INIT, selection
        or rounds, where there are at most as many of them as the workload has attributes and each measurement's
        expected L1 noise (cells x E|Z|) is at most ``direct_noise``; else None. Public quantities only.

        Every workload marginal is a sum of a maximal one, so measuring those answers the workload with no model bias
        and pays no selection. The budget splits over them to minimize the workload's expected L1 noise
        (:func:`~dprelease.mechanisms.mwem_budget.init_allocation`, each weighed by the workload marginals it answers;
        equal parts were worse in 10 of 13 cases), under Laplace noise at epsilon (basic composition) or Gaussian noise
        at rho (zCDP), whichever gives the smaller sum. Where the workload is a few cross-tables, the rounds select
        among the same marginals and their sub-marginals, paying for each choice: on 20 tables with 2 such workloads
        (adjacent pairs, disjoint triples; benchmarks/results/cross_tables/) the direct plan's error is a median
        0.67x the rounds' over the 73 cases it changes, lower in 69 (the 6-column chain at eps 0.1 0.31 against
        0.79); the 4 higher are at eps 1 on tables whose largest marginal has 1,600-5,000 cells (the web shop's
        orders 0.101 against 0.063). Past the two limits it lost (5 seeds, the limits lifted): more maximal marginals
        than attributes, a workload dense in overlaps where the rounds measure the sub-marginals that carry the
        signal (6 independent columns, all 1-3-way, eps 1: 0.062 against 0.040; a 6-column chain, all 3-way at eps 1: 0.371
        against 0.254); a measurement's expected noise above 1, where its marginal drowns (7 triples of 7-column
        Adult at eps 0.1: 0.236 against 0.155; a 500-row survey, all 1-3-way at eps 0.1: 1.12 against INIT alone's
        0.57; docs/decisions.md). It runs only the mechanism's own plan (no ``rounds`` given), on an explicit
        histogram or a factored model whose cap holds the maximal marginals.
        """
        tuning = self.tuning
        if tuning.direct_noise is None or self.rounds is not None or self.one_way_init_alone(workload):
            return None
        maximal = maximal_marginals(workload, most=len(workload.attributes))
        if maximal is None:
            return None
        if self.resolved_representation(workload.domain) == "factored" and \
                not FactoredModel.uniform(workload.domain, max_model_cells=self.max_model_cells).fits(maximal):
            return None
        cells = [workload.cells(m) for m in maximal]
        uses = [marginals_answered(workload, m) for m in maximal]
        options = []
        for noise in self.noise_choices():
            gaussian = noise == "gaussian"
            parts = init_allocation(cells, uses, n=n, total=self.total(gaussian=gaussian), gaussian=gaussian)
            noises = [c * cell_noise(float(p), n=n, gaussian=gaussian) for c, p in zip(cells, parts)]
            options.append((sum(w * e for w, e in zip(uses, noises)), max(noises), noise, parts))
        _, worst, noise, parts = min(options)
        if worst > tuning.direct_noise:
            return None
        zero = Fraction(0)
        split = {"init_each": zero, "rounds_total": zero, "select": zero, "measure": zero, "rounds_after_init": zero}
        return RunPlan(noise, 0, [], [], split, zero, direct=tuple(zip(maximal, parts)))

    def _direct_answers_better(self, workload: Workload, direct: RunPlan, joint: RunPlan, *, n: int) -> bool:
        """Where both apply: whether the direct plan's answers to the maximal marginals carry less expected L1 noise
        than the joint plan's, each of whose answers sums joint cells / marginal cells noisy cells. Public."""
        cells = [workload.cells(m) for m, _ in direct.direct]
        uses = [marginals_answered(workload, m) for m, _ in direct.direct]
        from_joint = joint_answers_noise(joint_cells=workload.cells(joint.joint), cells=cells, weights=uses,
                                         per_cell=cell_noise(float(joint.split["joint"]), n=n, gaussian=joint.gaussian),
                                         gaussian=joint.gaussian)
        from_direct = sum(w * c * cell_noise(float(part), n=n, gaussian=direct.gaussian)
                          for w, c, (_, part) in zip(uses, cells, direct.direct))
        return from_direct < from_joint

    def one_way_init_alone(self, workload: Workload) -> bool:
        """Whether the workload is 1-way marginals alone and the tuning has INIT (``init_per_round``): then the plan is
        INIT alone (:meth:`planned_rounds`), or the joint where that is the less noisy (:meth:`joint_plan`). Public."""
        return bool(self.tuning.init_per_round) and all(len(m) == 1 for m in workload.marginals)

    def _joint_answers_one_way_better(self, workload: Workload, *, n: int, joint: float, gaussian: bool) -> bool:
        """For a workload of 1-way marginals: whether the joint's answers (``joint``: E|Z| per joint cell) carry at most
        the expected L1 noise of INIT alone's (each 1-way marginal at 1/d of the budget, the better noise). A joint
        answer for a cell of attribute A sums cells / |A| noisy cells (:func:`summed_cell_noise`). Public."""
        sizes = [workload.cells(m) for m in workload.marginals]
        from_joint = joint_answers_noise(joint_cells=workload.cells(tuple(workload.attributes)), per_cell=joint,
                                         cells=sizes, weights=[1] * len(sizes), gaussian=gaussian)
        from_init = min(sum(sizes) * cell_noise(float(self.total(gaussian=g)) / len(sizes), n=n, gaussian=g)
                        for g in (noise == "gaussian" for noise in self.noise_choices()))
        return from_joint <= from_init

    def blind_selection_plan(self, workload: Workload, *, n: int, plan: RunPlan | None = None) -> MWEMPlan | None:
        """Where a round of the plan's own Gaussian rounds would select blind, the plan to run instead: ``2 d`` rounds
        as a user asking for them gets them (no annealing, each round fitted to its noise, INIT at one round's
        budget of the T + d); else None. Public quantities only.

        Annealing doubles the rounds' budget when the marginal a round selected was measured where the model
        already had it (:mod:`~dprelease.mechanisms.mwem_budget`), which says the model is right everywhere only
        if the selection could find a marginal the model gets wrong. The exponential mechanism at a planned round's
        eps_s over C candidates gives up 4 ln C / (n eps_s) of the best score (Thm 3.11, :func:`selection_loss`);
        above the noise target, the pick is near random, most picks land where the model is right, the budget
        doubles round after round, and the run spends it on a few sharp measurements of marginals nobody needed:
        40 sparse flags (30,000 rows, eps 0.1, T = 320 planned) ran 26-35 rounds to 0.038 avg L1, where 80 equal
        rounds read 0.030 and MST 0.028. Blind rounds find the marginals that matter by covering many, so the plan
        runs as many as the gate's rounds' plan (``init_only_pair_rounds`` x d, :meth:`gate_plan`), unannealed.
        Only where the plan's own T is larger: a plan of at most 2 d rounds keeps its annealing. Measured on every
        page's case it changes (docs/decisions.md, session 53).
        Privacy: the choice reads n, the budget, the workload and the tuning only, so the run's guarantee is the
        user-rounds run's own, rho(epsilon, delta)-zCDP by composition of its steps (Bun & Steinke 2016, Lemma 2.3),
        converted to (epsilon, delta)-DP (Canonne, Kamath & Steinke 2020); its ledger is that run's, exactly.
        """
        if self.rounds is not None or self.tuning.noise_target is None or not self.tuning.annealing:
            return None
        plan = plan or self.run_plan(workload, n=n)
        rounds = self.tuning.init_only_pair_rounds * len(workload.attributes)
        if not plan.gaussian or plan.joint is not None or plan.direct or plan.rounds <= rounds:
            return None
        loss = planned_selection_loss(plan, n=n)
        if loss is None or loss <= self.tuning.noise_target:
            return None
        return replace(self, rounds=rounds, noise="gaussian", tuning=with_user_rounds(self.tuning))

    def run_plan(self, workload: Workload, *, n: int) -> RunPlan:
        """The run's whole plan: noise and rounds, INIT's marginals and cap, the exact split, the candidates and
        the rounds' selection share; every piece from public quantities only. The joint plan (:meth:`joint_plan`) or
        the direct plan (:meth:`direct_plan`) where it applies; where both do, the one whose answers to the workload's
        maximal marginals carry the less expected L1 noise."""
        joint, direct = self.joint_plan(workload, n=n), self.direct_plan(workload, n=n)
        if joint is not None and direct is None:  # with a direct plan the plan without the joint is not rounds
            sighted = self.sighted_rounds_plan(workload, joint, n=n)
            if sighted is not None:  # computed once: it is this run's plan, as run_plan without the joint gives it
                return sighted
        if joint is not None and direct is not None:
            return direct if self._direct_answers_better(workload, direct, joint, n=n) else joint
        if joint is not None or direct is not None:
            return joint or direct
        one_way = [(a,) for a in workload.attributes] if self.tuning.init_share > 0 or self.tuning.init_per_round \
            else []
        noise, rounds = self.plan_noise(workload, n=n)
        gaussian = noise == "gaussian"
        init_cap = self.init_cap(len(one_way), n=n, gaussian=gaussian)
        split = (self.rho_split if gaussian else self.budget_split)(len(one_way), rounds, init_cap)
        smallest = 1 if self.tuning.one_way_candidates or not one_way else 2
        candidates = candidate_marginals(workload, self.tuning.candidates, smallest=smallest)
        per_round = split["select"] + split["measure"]
        share = self.round_selection_share(candidates=len(candidates), n=n, per_round=per_round, gaussian=gaussian)
        if share != exact(self.tuning.selection_share):  # pure DP only: the split reports what the rounds use
            split = {**split, "select": per_round * share, "measure": per_round * (1 - share)}
        return RunPlan(noise, rounds, one_way, candidates, split, share)

    def round_selection_share(self, *, candidates: int, n: int, per_round: Fraction, gaussian: bool) -> Fraction:
        """The share of each round's budget (``per_round``, the plan's, before annealing) that selects; public.

        ``selection_share``, except under pure DP (Laplace noise, epsilon) with ``max_selection_share`` and a
        ``noise_target`` tau: there the exponential mechanism with eps_s = share x ``per_round`` over C candidates
        of score sensitivity Delta = 2/n loses (2 Delta / eps_s) ln C = 4 ln C / (n eps_s) of the best score in
        Thm 3.11's bound, and a round is worth its measurement only if it can find a marginal about tau off the
        model (tau: a typical pair's expected measurement noise, the plan's unit). So the share grows to
        4 ln C / (n tau ``per_round``), rounded up to 1/1000, and at most ``max_selection_share`` (0.5 in the
        presets: the book's MWEM). Under zCDP the selection's eps grows only as the square root of its share
        (eps^2 / 8 <= its rho), and its share stays: the same rule there cost the suite (docs/decisions.md).
        The split is exact either way: a round's selection and measurement add up to its budget.
        """
        base = exact(self.tuning.selection_share)
        most, tau = self.tuning.max_selection_share, self.tuning.noise_target
        if gaussian or most is None or tau is None or per_round <= 0:
            return base
        needed = selection_loss(candidates=candidates, n=n, epsilon=float(per_round)) / tau
        return max(base, min(exact(most), Fraction(math.ceil(needed * 1000), 1000)))

    def init_amounts(self, workload: Workload, one_way: list[tuple[str, ...]], init_each: Fraction, *, n: int,
                     gaussian: bool) -> dict[tuple[str, ...], Fraction]:
        """Each 1-way marginal's INIT budget, together exactly ``init_each`` times their number (public): equal
        parts, or (``init_allocation="l1"``) :func:`~dprelease.mechanisms.mwem_budget.init_allocation`'s split."""
        if self.tuning.init_allocation == "equal":
            return {a: init_each for a in one_way}
        parts = init_allocation([workload.cells(a) for a in one_way],
                                [sum(a[0] in m for m in workload.marginals) for a in one_way],
                                n=n, total=init_each * len(one_way), gaussian=gaussian)
        return dict(zip(one_way, parts))

    def init_cap(self, num_one_way: int, *, n: int, gaussian: bool) -> Fraction | None:
        """The most INIT may spend on one 1-way marginal (rho or epsilon; public), or None (no cap).

        AIM's INIT measures each 1-way marginal at one round's budget, which is most of the budget when few
        rounds are planned (T near d: a large table whose pairs have many cells, at a small epsilon). There
        INIT keeps at most half of the total (:data:`INIT_MOST_SHARE`), unless the 1-way cells need more to be
        measured with expected noise ``init_cell_noise`` (a fraction of the rows; :func:`budget_for_cell_noise`).
        Small tables never reach that noise, and keep AIM's INIT.
        """
        target = self.tuning.init_cell_noise
        if not num_one_way or target is None or self.rounds is not None:
            return None
        total = self.total(gaussian=gaussian)
        needed = Fraction(budget_for_cell_noise(target, n=n, gaussian=gaussian))
        return max(needed, total * INIT_MOST_SHARE / num_one_way)

    def budget_split(self, num_one_way: int, rounds: int | None = None, init_cap: Fraction | None = None) -> dict[str, Fraction]:
        """Exact per-step epsilons; they sum to epsilon exactly."""
        return self._split(exact(self.epsilon), num_one_way, rounds or self.rounds, init_cap)

    def rho_split(self, num_one_way: int, rounds: int | None = None, init_cap: Fraction | None = None) -> dict[str, Fraction]:
        """Exact per-step rho (zCDP, Gaussian noise); selections get the largest eps with eps^2/8 <= their share.

        The charges sum to at most rho = :func:`~dprelease.privacy.zcdp.rho_for` (epsilon, delta).
        """
        total = rho_for(epsilon=self.epsilon, delta=self.delta)
        split = self._split(total, num_one_way, rounds or self.rounds, init_cap)
        return {"rho": total, **split, "select_epsilon": Fraction(exponential_epsilon(split["select"]))}

    @property
    def resolved_noise(self) -> str:
        """The noise by the rule that needs no plan: Gaussian when delta > 0 (see :meth:`plan_noise`)."""
        return self.noise if self.noise != "auto" else ("gaussian" if self.delta > 0 else "laplace")

    def noise_choices(self) -> tuple[str, ...]:
        """The noises a plan may weigh: both where delta > 0 and ``noise="auto"``, else :attr:`resolved_noise`."""
        return ("gaussian", "laplace") if self.noise == "auto" and self.delta > 0 else (self.resolved_noise,)

    def plan_noise(self, workload: Workload, *, n: int) -> tuple[str, int]:
        """(noise, rounds) for this run, from public quantities only.

        With delta > 0 and ``noise="auto"``, Gaussian noise under zCDP is not always the better choice: at
        few rounds, Laplace noise at epsilon / T (pure DP, delta unused) is smaller than Gaussian noise at
        rho(epsilon, delta) / T. With a ``noise_target`` the plan picks the noise that affords more rounds at that
        target, by more than :data:`ROUNDS_MARGIN`; within it, the smaller expected absolute noise per cell
        (:func:`cell_noise`; with a round's measurement m = (1 - s) total / T, 2 / (n m) against
        sqrt(2 / pi) / (n sqrt m)): the quantity the noise target and INIT's split already weigh, and the workload's
        L1 error sums. They cross at T = (1 - s) eps^2 / (2 pi rho): 8.1, 9.6 and 13.1 at eps 0.1, 1 and 10 with
        delta = 1e-9. The standard deviations, which this tie compared before, cross at pi / 4 of that (6.4, 7.5,
        10.3) and chose Gaussian noise where Laplace's was the smaller in L1 (an 8-column, 300-row table at eps 0.1,
        INIT alone, T = 8: 1.279 avg L1 against 1.292, 10 seeds; docs/decisions.md). One round more is within the
        margin: near T = d it is one pair measured, bought with the larger noise on every measurement, INIT's d
        1-way marginals included (Gaussian T = d + 1 against Laplace INIT alone lost on all 7 such cases of the
        suite and the held-out tables, by 1-12 %; session 52)."""
        plans = []
        for noise in self.noise_choices() if self.tuning.noise_target is not None else (self.resolved_noise,):
            gaussian = noise == "gaussian"
            total = self.total(gaussian=gaussian)
            rounds = self.planned_rounds(workload, n=n, total=total, gaussian=gaussian)
            measure = (1 - self.tuning.selection_share) * float(total) / rounds
            plans.append((rounds, cell_noise(measure, n=n, gaussian=gaussian), noise))
        most = max(rounds for rounds, _, _ in plans)
        rounds, _, noise = min((p for p in plans if p[0] >= most - ROUNDS_MARGIN), key=lambda p: (p[1], -p[0]))
        return noise, rounds

    def round_cap(self, workload: Workload) -> int | None:
        """The most rounds the mechanism's own plan may take, ``rounds_per_attribute`` * d; None when the user
        gave the rounds (or the tuning plans none)."""
        if self.rounds is not None or self.tuning.rounds_per_attribute is None:
            return None
        return self.tuning.rounds_per_attribute * len(workload.attributes)

    def final_momentum_level(self, workload: Workload, rounds: int) -> float | None:
        """The final fit's momentum level: ``capped_final_momentum`` where the mechanism's own plan reached its
        :meth:`round_cap` (public: the plan uses n, epsilon and the workload only), else ``final_momentum``."""
        cap = self.round_cap(workload)
        if cap is not None and rounds >= cap and self.tuning.capped_final_momentum is not None:
            return self.tuning.capped_final_momentum
        return self.tuning.final_momentum

    def resolved_representation(self, domain: Domain) -> str:
        """The representation ``auto`` picks from the public domain size."""
        return mwem_representation(self.representation, domain, self.max_cells)
