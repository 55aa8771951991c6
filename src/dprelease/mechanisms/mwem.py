"""MWEM: multiplicative weights with the exponential mechanism (Hardt, Ligett, McSherry 2012).

The practical offline release. With T rounds and budget eps:

    INIT (optional)   Laplace on every 1-way marginal the workload uses      eps_init in total, split equally
                      or by size (``init_allocation``, mwem_budget.init_allocation)
    for t = 1 .. T:                                                          (eps - eps_init) / T per round
        SELECT   exponential mechanism over the workload's marginals,
                 score ||M(x) - M(x^t)||_1 - penalty(M)                      share s of the round
        MEASURE  Laplace(2 / (n eps_m)) (or Gaussian) on every cell of it    share 1 - s
        UPDATE   MW (mirror descent) steps fitting *all* measurements so far (stopped once the model
                 is within the measurements' noise: ``round_discrepancy``, with the user's rounds)
    final UPDATE passes (with momentum while x^T is farther from the measurements than their noise:
    ``final_momentum``; stopped once it is within it: ``final_discrepancy``), then release x^T.

Selection is over whole marginals, not single cells: measuring a whole marginal
costs the same L1 sensitivity (2/n) as two cells, so one round learns every cell
of the marginal for the price of one. The optional penalty subtracts the expected
L1 noise of measuring M (cells(M) * Laplace scale), a public quantity, so that
selection prefers marginals whose measurement will carry signal (as AIM does).

Options measured by ablation (benchmarks/results/ablation.md): reuse of every past measurement in
the fit (``reuse_measurements``), Gaussian noise under zCDP, the size penalty, AIM's downward-closure
candidates, AIM's workload-overlap selection weights (``selection_weights="workload"``: each score
times sum_s |r & s| over the workload's marginals s; the sensitivity is multiplied by the largest
weight, public) and AIM's budget annealing (``annealing=True``, :mod:`~dprelease.mechanisms.mwem_budget`:
the per-round budget grows when a measurement agrees with the model within its noise; adaptively
chosen budgets whose sum never exceeds the total, a privacy filter).

Representations: the model x^t is an explicit histogram over X, or a factored (log-linear)
model whose potentials live on the measured marginals (``representation="factored"``; the
same distribution, exact inference, memory set by the measured cliques). With the factored
model, candidates whose measurement would push the junction tree over ``max_model_cells``
are skipped (a public check on the cliques) and the transcript says so.

The joint plan (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.joint_plan`, public): where the workload
attributes' joint table is small against the workload's marginals and can be measured sharply, the run measures it
once with the whole budget and releases its least-squares distribution (:func:`joint_projection`), or where its noise
is large the direct plan's fit to it (:func:`joint_model`); no INIT, no selection, no rounds. It is one Laplace
mechanism at eps (Thm 3.6; L1 sensitivity 2/n, the joint a partition of the records), or one Gaussian at rho, and so
(eps, 0)-DP, or rho-zCDP converted as below; the model is post-processing.

The direct plan (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.direct_plan`, public): where the workload has at most
as many maximal marginals (those no other workload marginal contains) as attributes, and each can be measured with
expected L1 noise at most ``direct_noise``, the run measures each of them once, with budgets that sum to the total, and
fits the model to them; no INIT, no selection, no rounds. k Laplace mechanisms at eps_1 + ... + eps_k = eps (basic
composition, Thm 3.16) or k Gaussian ones at rho_1 + ... + rho_k = rho (BS Lemma 2.3), each on a marginal of L1
sensitivity 2/n (L2 sqrt(2)/n).

The gate (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.gate_plan`, public plan, private choice): where the public
plan is INIT alone over a workload with pairs and the rows allow it, a Laplace measurement at eps_test (a few % of eps)
of the largest pair dependence ||P_ab - P_a x P_b||_1 over its public level (sensitivity 6/n, Thm 3.6) picks 2 d
Gaussian rounds or INIT alone for the rest, charged as one (eps - eps_test, delta or 0)-DP stage before it runs
(:class:`~dprelease.privacy.accountant.StagedAccountant`): (eps, delta)-DP by basic composition, which holds for a
second mechanism chosen from the first one's output (Thm 3.16).

Privacy: with Laplace noise (delta = 0), (eps, 0)-DP by basic composition (Thm 3.16) of the
Laplace mechanism on marginals (L1 sensitivity 2/n, Thm 3.6) and the exponential mechanism
with an L1 score of sensitivity 2/n (Thm 3.10). With Gaussian noise (delta > 0), the budget is
rho-zCDP with rho the largest value whose conversion is (eps, delta)-DP (Canonne, Kamath &
Steinke 2020); each Gaussian measurement (L2 sensitivity sqrt(2)/n) costs its rho (Bun &
Steinke 2016, Prop. 1.6), each eps_s-DP selection eps_s^2 / 8 (bounded range), and the costs
add (BS Lemma 2.3): see privacy/zcdp.py. With selection weights w, the score's sensitivity is
max w * 2/n, and the exponential mechanism is calibrated to it. With annealing, each round's budget
is a function of earlier public outputs and the rounds' sum never exceeds the total: eps-DP by the
basic-composition filter (Rogers, Roth, Ullman & Vadhan 2016), rho-zCDP by the Renyi filter
(Feldman & Zrnic 2021). INIT's split of its total over the 1-way marginals reads public quantities only
(the domain's sizes, the workload, n, the budget). Every step is charged to the accountant before it runs. The privacy unit
is the book's: neighbouring tables have the same n and differ in one record. The fit, its discrepancy
stop and the rows read only public outputs (noisy values, their scales): post-processing (Prop. 2.1).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import ClassVar

import numpy as np

from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.engines.base import PrivateTable
from dprelease.errors import DomainTooLargeError, InputError
from dprelease.mechanisms.base import Budget, Fitted, histogram_check, option
from dprelease.mechanisms.mwem_budget import GAUSSIAN_MEAN_ABS, RoundBudget
from dprelease.mechanisms.mwem_plan import GatePlan, MWEMPlan, mwem_representation, planned_selection_loss
from dprelease.mechanisms.mwem_tuning import tuning_for, with_user_rounds
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.accountant import PrivacyAccountant, StagedAccountant
from dprelease.privacy.contributions import check_rows_per_person
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import exact, laplace_scale
from dprelease.privacy.rng import RandomSource
from dprelease.privacy.zcdp import ZCDPAccountant, exponential_epsilon, rho_for
from dprelease.queries.compression import compressed_shape, rare_value_groups
from dprelease.queries.workload import Workload
from dprelease.representations import REPRESENTATIONS
from dprelease.representations.factored import FactoredModel
from dprelease.representations.histogram import HistogramModel
from dprelease.updates.measurement_fit import fit_measurements
from dprelease.updates.measurements import MarginalMeasurement, combine, one_way_distribution
from dprelease.updates.perceptron import project_to_simplex

#: Compress an attribute only when at least half its values are rare: a long tail is where compression pays
#: (Chicago taxi at eps = 0.1: 0.27 avg L1 against 0.33), and pooling a few values of a short column lost
#: their interactions for little (7-column Adult at eps = 0.1: 0.15 against 0.14 over 3 seeds).
COMPRESS_MIN_SHARE = 0.5

def workload_overlap(workload: Workload, candidates: list[tuple[str, ...]]) -> list[int]:
    """AIM's selection weight of each candidate r: sum over workload marginals s of |r & s| (public).

    A candidate sharing attributes with many workload marginals informs more of them.
    """
    sets = [set(s) for s in workload.marginals]
    return [sum(len(set(r) & s) for s in sets) for r in candidates]


def warm_started(model: HistogramModel | FactoredModel,
                 measurements: list[MarginalMeasurement]) -> HistogramModel | FactoredModel:
    """The product of the 1-way estimates the fit sees (post-processing).

    ``measurements`` are the fit's: their 1-way values are already distributions (:func:`one_way_distribution`,
    positive). This is where mirror descent on the 1-way measurements alone heads (their max-entropy fit),
    reached in one step: the L2 fit's first steps are short (its safe step is 1 / (2 sum of weights)).
    """
    logs = {m.attributes: np.log(m.values) for m in measurements if len(m.attributes) == 1}
    if isinstance(model, FactoredModel):
        return model.with_potentials(logs)
    domain = model.domain
    total = np.zeros(domain.shape)
    for (attribute,), log_p in logs.items():
        total = total + log_p.reshape([domain.size_of(a) if a == attribute else 1 for a in domain.attributes])
    return HistogramModel.from_log_weights(domain, total)


def summed_one_ways(domain: Domain, measurements: list[MarginalMeasurement]) -> list[MarginalMeasurement]:
    """Each attribute's 1-way marginal as its smallest measured marginal sums to (post-processing), as a
    distribution (:func:`one_way_distribution`, the sum's noise a sqrt(cells summed) times the cell's), for the
    attributes not measured alone: the direct plan's warm start (:func:`warm_started`)."""
    alone = {m.attributes[0] for m in measurements if len(m.attributes) == 1}
    out = []
    for attribute in (a for a in domain.attributes if a not in alone):
        holders = [m for m in measurements if attribute in m.attributes and m.grouping is None]
        if not holders:
            continue
        smallest = min(holders, key=lambda m: m.values.size)
        values = np.asarray(smallest.values).reshape([domain.size_of(a) for a in smallest.attributes])
        axis = smallest.attributes.index(attribute)
        summed = values.sum(axis=tuple(i for i in range(values.ndim) if i != axis))
        std = smallest.std * math.sqrt(values.size / summed.size)
        out.append(MarginalMeasurement((attribute,), one_way_distribution(summed, std), std, "gaussian"))
    return out


#: The joint plan's model is its projection where the joint's expected L1 noise (cells x E|Z|) is below this, else
#: the direct plan's fit (:func:`joint_model`). Chosen at 0.75 on 316 cases where the joint plan ran (6 generated
#: shapes of 2 to 4 columns at 1,000-20,000 rows, eps 0.1, 1 and 10, independent or chained columns, flat or skewed;
#: and the 12 small-domain tables; 6 seeds; docs/decisions.md, session 54): by noise, the fit against the projection
#: was 1.22x below 0.05, 0.99x at 0.1-0.2, 0.86-0.91x at 0.2-0.5 (geometric means); 0.75 kept every case within 1 %.
#: Lowered to 0.3 in session 73, when fresh random shapes showed the projection's cost there on tables nobody tuned
#: on: 4 independent copula columns, 30,000 rows, eps 0.1, 0.091 avg L1 against the independent baseline's 0.049
#: (the fit 0.061), a 112th network at eps 10 0.027 against the fit's 0.0076. Of the 75 joint cases of the
#: small-domain and shape pages it moves 7: 6 lower (0.28x-0.99x), six3 at eps 1 1.06x (0.093, below MST's 0.102).
JOINT_FIT_NOISE = 0.3


def joint_model(model: HistogramModel, joint: MarginalMeasurement, *, per_cell: float, iterations: int,
                discrepancy: float | None, momentum: float | None) -> tuple[HistogramModel, int | None]:
    """The joint plan's model (post-processing) and the fit's steps (None for the projection).

    The projection (:func:`joint_projection`) where the joint's expected L1 noise, its cells x ``per_cell`` (E|Z|,
    public), is below :data:`JOINT_FIT_NOISE`; at or above it the direct plan's model: from the product of the 1-way
    marginals the joint sums to (:func:`summed_one_ways`, :func:`warm_started`), MW steps toward the joint that stop
    once the residual is within ``discrepancy`` of the noise. Where the noise is large the projection keeps it in
    every cell while the fit stays near the product: 2 columns of 10 values, 1,000 independent rows, all 1-2-way at
    eps 0.1, 0.487 avg L1 against the projection's 0.667 (6 seeds)."""
    if joint.values.size * per_cell < JOINT_FIT_NOISE:
        return joint_projection(model.domain, joint), None
    steps = 0

    def counted(done: int, total: int) -> None:
        nonlocal steps
        steps = done

    start = warm_started(model, summed_one_ways(model.domain, [joint]))
    fitted, _ = fit_measurements(start, [joint], iterations=iterations, discrepancy=discrepancy, momentum=momentum,
                                 on_step=counted)
    return fitted, steps


def joint_projection(domain: Domain, joint: MarginalMeasurement) -> HistogramModel:
    """The model of the joint plan: the noisy joint table's least-squares distribution (its Euclidean projection
    onto the simplex, :func:`~dprelease.updates.perceptron.project_to_simplex`), uniform over any attribute the
    workload leaves out (post-processing). The MW fit stopped at the noise (``final_discrepancy``) stays near its
    uniform start on a table of many small cells: 6 skewed columns of 4 values, 10,000 rows, eps 10, 0.024 avg L1
    against the projection's 0.014."""
    p = project_to_simplex(np.asarray(joint.values, dtype=np.float64).reshape(-1)) + 1e-12
    shape = [domain.size_of(a) if a in joint.attributes else 1 for a in domain.attributes]
    return HistogramModel.from_log_weights(domain, np.broadcast_to(np.log(p / p.sum()).reshape(shape), domain.shape))


#: The privacy units a run may take: ``"replace"``, the book's (neighbours have the same public n and differ in one
#: record), and ``"add-remove"`` (a neighbour has one record more or fewer; n is private), the unit of MST, AIM and
#: most DP libraries.
PRIVACY_UNITS = ("replace", "add-remove")
#: The share of epsilon an add/remove run spends on its noisy count n_estimate before anything else (Laplace of
#: scale 1 / (COUNT_SHARE epsilon): 50 rows at epsilon 1).
COUNT_SHARE = Fraction(1, 50)


def pooled_count(n_estimate: int, count_scale: float, measurements: list[MarginalMeasurement], *,
                 normalizer: int | None = None) -> int:
    """The number of records as the count and every measurement tell it together (post-processing): each noisy
    marginal's total, in counts (its fractions times n_estimate), is an unbiased estimate of n with variance its cells
    times its cell's noise variance, independent of the others and of the count (variance 2 b^2); their
    inverse-variance mean, rounded, at least 1. An add/remove run's rows: on a 600-row table at eps 0.1 the count
    alone is off by 700 rows (one standard deviation), the 1-way marginals' totals pooled with it by far less."""
    scale = n_estimate if normalizer is None else normalizer  # what the measurements' fractions are over
    estimates, weights = [float(n_estimate)], [1 / (2 * count_scale**2)]
    for m in measurements:
        variance = m.values.size * (m.std * scale) ** 2
        if variance > 0:
            estimates.append(float(np.sum(m.values)) * scale)
            weights.append(1 / variance)
    return max(1, int(round(float(np.dot(estimates, weights) / np.sum(weights)))))


@dataclass
class MWEMResult:
    model: HistogramModel | FactoredModel
    accountant: PrivacyAccountant | ZCDPAccountant
    transcript: list[dict[str, object]]
    measurements: list[MarginalMeasurement]
    parameters: dict[str, object]
    #: an add/remove run's: the run after the count, with its own ledger (a stage of ``accountant``)
    counted: MWEMResult | None = None


@dataclass(frozen=True, kw_only=True)
class MWEM(MWEMPlan):
    """MWEM over marginal workloads on an explicit histogram or a factored model.

    The parameters and the plan (rounds, noise, the budget's split) are those of
    :class:`~dprelease.mechanisms.mwem_plan.MWEMPlan`; :meth:`run` spends the budget.

    ``privacy_unit`` is ``"replace"`` (the book's: n public) or ``"add-remove"`` (n private): the run then pays
    for a noisy count first and plans and measures with it as n (:meth:`_counted_run`). ``n_estimate`` is that
    count, set by the run itself.
    """

    privacy_unit: str = "replace"
    n_estimate: int | None = None
    #: k, the public bound on one person's rows of a person-level run (:mod:`dprelease.privacy.contributions`): the
    #: table holds at most k rows a person, and every add/remove sensitivity is k times a record's
    rows_per_person: int = 1
    #: the Laplace scale of the count n_estimate came from (set by the run with it): after INIT the run pools the
    #: count with the 1-way marginals' totals and renormalizes by that better estimate (:meth:`_renormalized`)
    count_scale: float | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.privacy_unit not in PRIVACY_UNITS:
            raise InputError(f"privacy_unit must be one of {list(PRIVACY_UNITS)}, got {self.privacy_unit!r}")
        if self.n_estimate is not None and self.privacy_unit != "add-remove":
            raise ValueError("n_estimate is an add/remove run's noisy count")
        check_rows_per_person(self.rows_per_person)
        if self.rows_per_person > 1 and self.privacy_unit != "add-remove":
            raise InputError("rows_per_person > 1 (a person-level run) needs privacy_unit='add-remove': the number of "
                             "rows a bounded table keeps is private")

    def gaussian_noise_factor(self) -> float:
        """1 under the book's unit; under add/remove a marginal's L2 sensitivity is 1/sqrt(2) of the book's at the
        same n, and so is its Gaussian noise. Only the gate's levels read it: the rest of the plan budgets with the
        book's noise (planning with the add/remove noise throughout moved small91 and spread by at most 3 %, both
        ways; docs/decisions.md, session 51)."""
        return 1 / math.sqrt(2) if self.privacy_unit == "add-remove" else 1.0

    def public_n(self, dataset: Dataset) -> int:
        """The n the plan uses: the table's (public under the book's unit) or the noisy count; in a person-level run
        the count over k, as every measurement's noise is k times a record's (the plan weighs noise against 1/n)."""
        return dataset.n if self.n_estimate is None else max(1, self.n_estimate // self.rows_per_person)

    def run(self, dataset: Dataset, workload: Workload, *, rng: RandomSource,
            progress: Progress | None = None) -> MWEMResult:
        domain = dataset.domain
        representation = self.resolved_representation(domain)
        if representation == "histogram":
            domain.check_fits(self.max_cells)
        progress = progress or Progress.silent()
        if self.privacy_unit == "add-remove" and self.n_estimate is None:
            return self._counted_run(dataset, workload, rng=rng, progress=progress)
        n = self.public_n(dataset)
        plan = self.run_plan(workload, n=n)
        gate = self.gate_plan(workload, n=n, plan=plan)
        if gate is not None:
            return self._gated_run(dataset, workload, gate, rng=rng, progress=progress)
        if (blind := self.blind_selection_plan(workload, n=n, plan=plan)) is not None:
            # the user-rounds run it stands for, whole: the same ledger and release as ``rounds=blind.rounds``
            result = blind.run(dataset, workload, rng=rng, progress=progress)
            parameters = {**result.parameters, "blind_selection": {
                "planned_rounds": plan.rounds, "selection_loss": planned_selection_loss(plan, n=n), "rounds": blind.rounds}}
            return MWEMResult(result.model, result.accountant, result.transcript, result.measurements, parameters)
        noise, rounds, gaussian, one_way, candidates, split = (plan.noise, plan.rounds, plan.gaussian, plan.one_way,
                                                               plan.candidates, plan.split)
        momentum = self.final_momentum_level(workload, rounds)
        accountant = ZCDPAccountant(epsilon=self.epsilon, delta=self.delta) if gaussian \
            else PrivacyAccountant(epsilon=self.epsilon)
        measurer = PrivateMeasurer(dataset, accountant=accountant, rng=rng, n_estimate=self.n_estimate,
                                   rows_per_person=self.rows_per_person)
        if representation == "histogram":
            model = HistogramModel.uniform(domain, max_cells=self.max_cells)
        else:
            model = FactoredModel.uniform(domain, max_model_cells=self.max_model_cells)
        measurements: list[MarginalMeasurement] = []  # as measured and released
        fitted: list[MarginalMeasurement] = []  # what the fit sees: 1-way marginals as distributions
        transcript: list[dict[str, object]] = []

        def noise_per_cell(amount: Fraction) -> float:
            """E|Z| of one cell's noise when a marginal is measured with ``amount`` (rho or epsilon); public."""
            if gaussian:
                return measurer.gaussian_marginal_std(rho=amount) * GAUSSIAN_MEAN_ABS
            return laplace_scale(sensitivity=measurer.marginal_sensitivity, epsilon=amount)

        rare_groups: dict[str, np.ndarray | None] = {}  # per attribute, from its noisy 1-way marginals (public)

        def grouping_of(attributes: tuple[str, ...]) -> tuple | None:
            """The compressed domain a marginal is measured on (``compress_rare``; MST's compression)."""
            if not self.tuning.compress_rare or len(attributes) < 2:
                return None
            grouping = tuple(rare_groups.get(a) for a in attributes)
            return None if all(g is None for g in grouping) else grouping

        def measured_cells(attributes: tuple[str, ...]) -> int:
            grouping = grouping_of(attributes)
            sizes = [domain.size_of(a) for a in attributes]
            return math.prod(compressed_shape(sizes, grouping) if grouping else sizes)

        def measure(attributes: tuple[str, ...], amount: Fraction, label: str, entry: dict) -> MarginalMeasurement:
            """MEASURE one marginal with ``amount`` (Laplace at epsilon, Thm 3.6; or Gaussian at rho, BS Prop. 1.6)."""
            grouping = grouping_of(attributes)
            extra = {} if grouping is None else {"compressed_cells": measured_cells(attributes)}
            if gaussian:
                values = measurer.gaussian_marginal(attributes, rho=amount, label=label, grouping=grouping)
                measured = MarginalMeasurement(attributes, values, measurer.gaussian_marginal_std(rho=amount),
                                               "gaussian", grouping=grouping)
                transcript.append({**entry, "marginal": list(attributes), "rho": float(amount),
                                   "gaussian_sigma": measured.scale, **extra})
            else:
                values = measurer.laplace_marginal(attributes, epsilon=amount, label=label, grouping=grouping)
                measured = MarginalMeasurement(attributes, values,
                                               laplace_scale(sensitivity=measurer.marginal_sensitivity, epsilon=amount),
                                               grouping=grouping)
                transcript.append({**entry, "marginal": list(attributes), "laplace_scale": measured.scale, **extra})
            measurements.append(measured)
            if len(attributes) == 1:  # the fit sees a distribution (post-processing; the release keeps the raw)
                fitted.append(replace(measured, values=one_way_distribution(values, measured.std)))
                (best,) = combine([m for m in measurements if m.attributes == attributes])
                rare_groups[attributes[0]] = rare_value_groups(best.values, best.std, max_mass=self.tuning.compress_rare,
                                                                min_share=COMPRESS_MIN_SHARE)
            else:
                fitted.append(measured)
            return measured

        active = list(range(len(candidates)))
        skipped: list[tuple[str, ...]] = []
        checked_for: frozenset = frozenset({None})

        def drop_unfit(current: FactoredModel, t: int) -> None:
            """Public: drop the candidates that no longer fit the model-size cap, given the cliques so far."""
            nonlocal active, checked_for
            if frozenset(current.cliques) == checked_for:
                return
            checked_for = frozenset(current.cliques)
            dropped = [i for i, ok in zip(active, current.fits_each([candidates[i] for i in active])) if not ok]
            if dropped:
                gone = set(dropped)
                active = [i for i in active if i not in gone]
                skipped.extend(candidates[i] for i in dropped)
                transcript.append({"round": t, "action": "skip", "marginals": [list(candidates[i]) for i in dropped],
                                   "reason": f"the factored model would exceed max_model_cells={self.max_model_cells:,}"})
            if not active:
                raise DomainTooLargeError(
                    f"no workload marginal fits a factored model under max_model_cells={self.max_model_cells:,}; "
                    "raise max_model_cells or use smaller marginals")

        if representation == "factored" and not plan.direct:  # on the cliques INIT will add: a cap nothing fits
            drop_unfit(model.with_cliques(one_way), 0)  # costs nothing (the direct plan checked its own)

        rounds = int(split["rounds_after_init"])
        if plan.joint is not None:  # the joint plan (MWEMPlan.joint_plan): one measurement, the whole budget
            progress.phase("joint table", 1)
            measure(plan.joint, split["joint"], "joint: " + ", ".join(plan.joint),
                    {"round": 0, "action": "measure"} | ({} if gaussian else {"epsilon": float(split["joint"])}))
            progress.step(1, 1)
        elif plan.direct:  # the direct plan (MWEMPlan.direct_plan): each maximal workload marginal once, no rounds
            progress.phase("workload marginals", len(plan.direct))
            for done, (attributes, amount) in enumerate(plan.direct, 1):
                measure(attributes, amount, "direct: " + ", ".join(attributes),
                        {"round": 0, "action": "measure"} | ({} if gaussian else {"epsilon": float(amount)}))
                progress.step(done, len(plan.direct))
        else:
            progress.step(0, rounds)
        # INIT: noisy 1-way marginals
        init_amounts = self.init_amounts(workload, one_way, split["init_each"], n=n, gaussian=gaussian)
        for attributes in one_way:
            amount = init_amounts[attributes]
            measure(attributes, amount, f"init: {attributes[0]}",
                    {"round": 0, "action": "measure"} | ({} if gaussian else {"epsilon": float(amount)}))
        normalizer = self._renormalized(measurer, measurements, fitted, transcript)
        step, final_steps, joint_steps = None, 0, None
        if plan.joint is not None:
            model, joint_steps = joint_model(model, measurements[0], per_cell=noise_per_cell(split["joint"]),
                                             iterations=self.tuning.final_iterations,
                                             discrepancy=self.tuning.direct_discrepancy, momentum=momentum)
            final_steps = joint_steps or 0
        elif plan.direct:  # from the product of the 1-ways its measurements sum to: where a large marginal's noise
            if self.tuning.warm_start:  # hides its cells, the fit stops near independence, not near uniform
                model = warm_started(model, [*fitted, *summed_one_ways(domain, measurements)])
        else:
            if self.tuning.warm_start and measurements:
                model = warm_started(model, fitted)
            if split["rounds_total"] > 0 or not self.tuning.warm_start:
                model, step = fit_measurements(model, fitted, iterations=self.tuning.round_iterations,
                                               growth=self.tuning.step_growth)

        annealing = self.tuning.annealing
        weights = workload_overlap(workload, candidates) if self.tuning.selection_weights == "workload" else None
        budget = RoundBudget(total=split["rounds_total"], rounds=max(rounds, 1),
                             selection_share=plan.selection_share, currency="rho" if gaussian else "epsilon",
                             annealing=annealing)
        t = 0
        while (shares := budget.next_round()) is not None:
            t += 1
            select_amount, measure_amount = shares
            select_epsilon = Fraction(exponential_epsilon(select_amount)) if gaussian else select_amount
            expected_noise = noise_per_cell(measure_amount)
            if representation == "factored":
                drop_unfit(model, t)
            pool = active
            if self.tuning.max_measure_l1 is not None:  # public: cells and the round's noise scale only
                cap = self.tuning.max_measure_l1
                pool = [i for i in active if measured_cells(candidates[i]) * expected_noise <= cap] or active
            options = [candidates[i] for i in pool]
            estimates = model.marginals(options)  # one batch (a factored model's pairs from a walk per attribute)
            # SELECT: exponential mechanism over marginals, L1 score (sensitivity 2/n)
            sizes = np.array([measured_cells(m) for m in options], dtype=np.float64)
            penalties = self.tuning.size_penalty * expected_noise * sizes if self.tuning.size_penalty else None
            index = measurer.select_marginal(options, estimates, epsilon=select_epsilon, penalties=penalties,
                                             weights=[weights[i] for i in pool] if weights else None,
                                             label=f"round {t}: select")
            chosen = options[index]
            # The factored batch agrees with one-by-one answers to float rounding only, and the transcript records the
            # annealing test's surprise: that test asks for the chosen marginal alone.
            chosen_estimate = model.marginal(chosen) if representation == "factored" else estimates[index]
            # MEASURE: Laplace(2 / (n eps_m)) or Gaussian on each cell of the chosen marginal
            entry = {"round": t, "action": "select+measure"}
            if not gaussian:
                entry["epsilon"] = float(select_amount + measure_amount)
            else:
                entry["select_epsilon"] = float(select_epsilon)
            measured = measure(chosen, measure_amount, f"round {t}: measure", entry)
            if not self.tuning.remeasure:
                active = [i for i in active if candidates[i] != chosen]
            # UPDATE: MW steps over all measurements so far
            model, step = fit_measurements(model, fitted if self.tuning.reuse_measurements else fitted[-1:],
                                           iterations=self.tuning.round_iterations, step=step, growth=self.tuning.step_growth,
                                           discrepancy=self.tuning.round_discrepancy)
            if annealing:
                # ANNEAL (AIM): the measurement told the model nothing it did not know, within the noise's
                # expected L1 size, so the coming rounds need sharper measurements. AIM compares the model
                # before and after a fit run to convergence; our fit takes a few steps a round, so we compare
                # the measurement itself with the model's earlier answer. Public: noisy output, model, scale.
                seen = measured.model_view(chosen_estimate)
                surprise = float(np.abs(measured.values.reshape(seen.shape) - seen).sum())
                if surprise <= expected_noise * seen.size:
                    budget.sharpen()
                    transcript.append({"round": t, "action": "anneal", "surprise_l1": surprise,
                                       "next_round_budget": float(budget.per_round)})
            progress.step(t, t + budget.rounds_ahead)  # annealing shortens the schedule: count to where it ends now
        # INIT alone and the joint plan have their estimate already: the warm start's product (fitting it to the raw
        # noisy 1-ways would undo what one_way_distribution did), and the projection or its fit (joint_model). The
        # direct plan's fit follows its measurements closer than the rounds' (``direct_discrepancy``): each is
        # measured once, none overlaps another's noise (docs/decisions.md, session 27)
        init_alone = not t and not plan.direct and plan.joint is None and self.tuning.warm_start and bool(measurements)
        estimated = plan.joint is not None or init_alone
        if not estimated:
            progress.phase("final fit", self.tuning.final_iterations)

            def final_step(done: int, total: int) -> None:
                nonlocal final_steps
                final_steps = done
                progress.step(done, total)

            model, _ = fit_measurements(model, fitted if self.tuning.reuse_measurements else fitted[-1:],
                                        iterations=self.tuning.final_iterations, step=step,
                                        growth=self.tuning.step_growth, on_step=final_step,
                                        discrepancy=self.tuning.direct_discrepancy if plan.direct
                                        else self.tuning.final_discrepancy,
                                        momentum=momentum)
            if final_steps < self.tuning.final_iterations:  # stopped at the noise (or a float minimum): say where
                progress.step(final_steps, final_steps)
        progress.done()
        parameters = {"epsilon": self.epsilon, "delta": self.delta if gaussian else 0.0, "rounds": rounds,
                      "rounds_run": t, "annealing": annealing, "selection_weights": self.tuning.selection_weights,
                      "reuse_measurements": self.tuning.reuse_measurements,
                      "noise": noise, "representation": representation,
                      "selection_share": self.tuning.selection_share,
                      "max_selection_share": self.tuning.max_selection_share,
                      "round_selection_share": float(plan.selection_share), "init_share": self.tuning.init_share,
                      "size_penalty": self.tuning.size_penalty, "round_iterations": self.tuning.round_iterations,
                      "final_iterations": self.tuning.final_iterations, "candidates": self.tuning.candidates,
                      "warm_start": self.tuning.warm_start, "remeasure": self.tuning.remeasure, "step_growth": self.tuning.step_growth,
                      "rounds_per_attribute": self.tuning.rounds_per_attribute, "noise_target": self.tuning.noise_target,
                      # pure DP counts its own plan's rounds at a sharper target (mwem_plan.PURE_ROUNDS_TARGET)
                      **({"rounds_noise_target": target}
                         if (target := self.rounds_noise_target()) not in (None, self.tuning.noise_target) else {}),
                      "init_per_round": self.tuning.init_per_round, "one_way_candidates": self.tuning.one_way_candidates,
                      "init_allocation": self.tuning.init_allocation,
                      "init_only_pair_rounds": self.tuning.init_only_pair_rounds,
                      "compress_rare": self.tuning.compress_rare, "init_cell_noise": self.tuning.init_cell_noise,
                      **({} if self.tuning.max_measure_l1 is None else {"max_measure_l1": self.tuning.max_measure_l1}),
                      **({} if self.tuning.final_discrepancy is None else
                         {"final_discrepancy": self.tuning.final_discrepancy}),
                      **({} if self.tuning.round_discrepancy is None else
                         {"round_discrepancy": self.tuning.round_discrepancy}),
                      **({} if self.tuning.final_momentum is None else {"final_momentum": self.tuning.final_momentum}),
                      **({} if self.tuning.capped_final_momentum is None else
                         {"capped_final_momentum": self.tuning.capped_final_momentum}),
                      **({} if self.tuning.joint_noise is None else
                         {"joint_noise": self.tuning.joint_noise, "joint_ratio": self.tuning.joint_ratio}),
                      **({} if self.tuning.joint_sighted_noise is None else
                         {"joint_sighted_noise": self.tuning.joint_sighted_noise}),
                      **({} if self.tuning.direct_noise is None else {"direct_noise": self.tuning.direct_noise}),
                      **({} if self.tuning.direct_discrepancy is None else
                         {"direct_discrepancy": self.tuning.direct_discrepancy}),
                      **({} if self.tuning.gate_share is None else
                         {"gate_share": self.tuning.gate_share, "gate_ratio": self.tuning.gate_ratio}),
                      **({} if self.tuning.blind_gate_share is None else
                         {"blind_gate_share": self.tuning.blind_gate_share,
                          "blind_gate_ratio": self.tuning.blind_gate_ratio}),
                      "init_alone": self.tuning.init_alone,  # True in a gate's INIT-alone branch
                      "joint_plan": plan.joint is not None,
                      **({} if plan.joint is None else
                         {"joint_model": "projection" if joint_steps is None else "fit from the product"}),
                      "direct_plan": bool(plan.direct),
                      **({} if normalizer is None else {"normalizer": normalizer}),
                      "final_fit_momentum": momentum,
                      "final_iterations_run": final_steps}
        per_step = {k: float(v) for k, v in split.items() if k != "rounds_after_init"}
        if len(set(init_amounts.values())) > 1:  # INIT's split is not equal: report each part, not their mean
            del per_step["init_each"]
            per_step |= {f"init: {attributes[0]}": float(amount) for attributes, amount in init_amounts.items()}
        if plan.direct:  # each measurement's part, named as the ledger names its charge
            per_step |= {"direct: " + ", ".join(attributes): float(amount) for attributes, amount in plan.direct}
        parameters["rho_per_step" if gaussian else "epsilon_per_step"] = per_step
        if representation == "factored":
            parameters["max_model_cells"] = self.max_model_cells
            parameters["model_cells"] = model.tree.total_cells
            parameters["skipped_marginals"] = len(skipped)
        return MWEMResult(model, accountant, transcript, measurements, parameters)

    def _renormalized(self, measurer: PrivateMeasurer, measurements: list[MarginalMeasurement],
                      fitted: list[MarginalMeasurement], transcript: list[dict[str, object]]) -> int | None:
        """Add/remove, after INIT: the count pooled with every measurement so far (:func:`pooled_count`), and, where
        it differs from n_estimate, every measurement and every later read over it instead (post-processing of
        released values; :meth:`PrivateMeasurer.renormalize`). The normalizer now used, or None (the book's unit).

        A noisy count of scale k / (0.02 eps) may be far from n where n / k is small (one draw gave 1 for 7,618
        rows), and every measurement's fractions, over it, then sum far from 1: the fitted model, a distribution,
        cannot follow them."""
        if self.n_estimate is None or self.count_scale is None or not measurements:
            return None
        pooled = pooled_count(self.n_estimate, self.count_scale, measurements)
        if pooled != self.n_estimate:
            ratio = self.n_estimate / pooled
            measurements[:] = [replace(m, values=m.values * ratio, scale=m.scale * ratio) for m in measurements]
            fitted[:] = [replace(m, values=one_way_distribution(m.values, m.std)) if len(m.attributes) == 1 else m
                         for m in measurements]
            measurer.renormalize(pooled)
            transcript.append({"round": 0, "action": "renormalize", "n_estimate": self.n_estimate,
                               "pooled_count": pooled})
        return pooled

    def _gated_run(self, dataset: Dataset, workload: Workload, gate: GatePlan, *, rng: RandomSource,
                   progress: Progress) -> MWEMResult:
        """The gate (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.gate_plan`): the Laplace test at
        ``gate.epsilon``, then the plan it picks with the rest, charged whole before it starts.

        Privacy: the test is (epsilon_test, 0)-DP (Thm 3.6, sensitivity 6/n); the chosen run, whichever it is, is
        (epsilon - epsilon_test, delta_run)-DP (its own guarantee: basic composition of Laplace steps, or rho-zCDP
        at rho(epsilon - epsilon_test, delta) converted by CKS 2020), with delta_run = delta for the Gaussian
        rounds and 0 for Laplace INIT; the pair composes to (epsilon, delta_run)-DP by basic composition, which
        holds for a second mechanism chosen from the first one's output (Thm 3.16)."""
        accountant = StagedAccountant(epsilon=self.epsilon, delta=self.delta)
        measurer = PrivateMeasurer(dataset, accountant=accountant, rng=rng, n_estimate=self.n_estimate,
                                   rows_per_person=self.rows_per_person)
        statistic = measurer.laplace_dependence(gate.pairs, gate.levels, epsilon=gate.epsilon,
                                                label=f"gate: the dependence of {len(gate.pairs)} pairs over their levels")
        passed = statistic >= 0
        chosen = gate.rounds_run if passed else gate.init_run
        gaussian = chosen.run_plan(workload, n=self.public_n(dataset)).gaussian
        stage_delta = chosen.delta if gaussian else 0.0
        label = "the rounds' plan (the gate passed)" if passed else "INIT alone (the gate did not pass)"
        rule = (f"MWEM at rho={float(rho_for(epsilon=chosen.epsilon, delta=chosen.delta)):.6g}-zCDP, converted to "
                f"(epsilon={chosen.epsilon:.6g}, delta={chosen.delta:g})-DP (CKS 2020); its ledger under 'stages'"
                if gaussian else f"MWEM's Laplace steps at epsilon={chosen.epsilon:.6g} in all by basic composition "
                "(Thm 3.16); its ledger under 'stages'")
        accountant.charge_stage(epsilon=chosen.epsilon, delta=stage_delta, label=label, rule=rule)
        result = chosen.run(dataset, workload, rng=rng, progress=progress)
        accountant.attach_stage(label, result.accountant)
        scale = float(laplace_scale(sensitivity=measurer.dependence_sensitivity, epsilon=gate.epsilon))
        entry = {"round": 0, "action": "gate", "pairs_tested": len(gate.pairs), "epsilon": float(gate.epsilon),
                 "gate_laplace_scale": scale, "noisy_dependence_over_level": statistic, "passed": passed}
        # The chosen run's parameters (its own tuning: the rounds' plan is the user-rounds preset), the gate's beside
        parameters = {**result.parameters, "epsilon": self.epsilon, "delta": stage_delta,
                      "gate_share": self.tuning.gate_share, "gate_ratio": gate.ratio,
                      "gate": {"epsilon": float(gate.epsilon), "run_epsilon": chosen.epsilon,
                               "noisy_dependence_over_level": statistic, "passed": passed,
                               "rounds_if_passed": gate.rounds_run.rounds, "planned_rounds": gate.planned_rounds}}
        return MWEMResult(result.model, accountant, [entry, *result.transcript], result.measurements, parameters)

    def spends_delta(self, workload: Workload, *, n: int) -> bool:
        """Whether a run with this n may measure with Gaussian noise (and so spend delta), public: where its plan's
        noise is Gaussian, or where it is gated (a gate's rounds' plan is always Gaussian)."""
        plan = self.run_plan(workload, n=n)
        return plan.gaussian or self.gate_plan(workload, n=n, plan=plan) is not None

    def _counted_run(self, dataset: Dataset, workload: Workload, *, rng: RandomSource,
                     progress: Progress) -> MWEMResult:
        """Add/remove: a noisy count n_estimate at ``COUNT_SHARE`` of epsilon, then the run with the rest, charged
        whole before it starts, planning with n_estimate as n and normalizing every marginal by it.

        Privacy, under add/remove neighbours (one record more or fewer; n private): the count is
        (epsilon_count, 0)-DP (Laplace, sensitivity 1, Thm 3.6); the run after it, with n_estimate public, is
        (epsilon - epsilon_count, delta_run)-DP: its steps are those of the book's unit with the add/remove
        sensitivities (:class:`~dprelease.privacy.measurer.PrivateMeasurer` with ``n_estimate``: a marginal's L1 and
        L2 sensitivity 1/n_estimate, the selection score's 1/n_estimate, the gate's 6/n_estimate), under basic
        composition or zCDP as that run's own guarantee states. delta_run is delta where the run may measure with
        Gaussian noise, else 0. The pair composes to (epsilon, delta_run)-DP (Thm 3.16, which holds for a second
        mechanism chosen from the first one's output). The rows' number (:func:`pooled_count`) and the rows are
        post-processing.

        After INIT the run pools the count with the 1-way marginals' totals and, where that differs, normalizes every
        measurement and every later read by it (:meth:`_renormalized`): public values, so each later step's
        sensitivity is stated over it and the charges are unchanged.

        A person-level run (``rows_per_person`` = k, the table bounded to k rows a person): one person more or fewer
        moves up to k records, and every sensitivity above is k times (the count's k, a marginal's k/n_estimate,
        the gate's 6k/n_estimate; :mod:`dprelease.privacy.contributions`); the run plans with n_estimate / k, and
        delta_run is decided on that plan, the one the run executes."""
        accountant = StagedAccountant(epsilon=self.epsilon, delta=self.delta)
        # the count's own measurer: add/remove with a placeholder n_estimate (it normalizes nothing here), so that a
        # person-level run's count has sensitivity k
        measurer = PrivateMeasurer(dataset, accountant=accountant, rng=rng, n_estimate=1,
                                   rows_per_person=self.rows_per_person)
        run_epsilon = float(exact(self.epsilon) * (1 - COUNT_SHARE))
        count_epsilon = exact(self.epsilon) - exact(run_epsilon)  # exactly the rest: the two sum to epsilon
        n_estimate = measurer.laplace_record_count(epsilon=count_epsilon, label="the number of records (add/remove)")
        scale = float(laplace_scale(sensitivity=measurer.record_sensitivity, epsilon=count_epsilon))
        counted = replace(self, epsilon=run_epsilon, n_estimate=n_estimate, count_scale=scale)
        # decided on the plan the run executes (its public n: n_estimate, over k in a person-level run)
        stage_delta = self.delta if counted.spends_delta(workload, n=counted.public_n(dataset)) else 0.0
        label = "the run after the count"
        accountant.charge_stage(epsilon=run_epsilon, delta=stage_delta, label=label,
                                rule=f"MWEM at epsilon={run_epsilon:.6g}, delta={stage_delta:g} under add/remove, with "
                                     f"n_estimate public; its ledger under 'stages'")
        result = counted.run(dataset, workload, rng=rng, progress=progress)
        accountant.attach_stage(label, result.accountant)
        entry = {"round": 0, "action": "count", "epsilon": float(count_epsilon), "count_laplace_scale": scale,
                 "n_estimate": n_estimate}
        rows = pooled_count(n_estimate, scale, result.measurements,
                            normalizer=result.parameters.get("normalizer", n_estimate))
        person = {} if self.rows_per_person == 1 else {"rows_per_person": self.rows_per_person}
        parameters = {**result.parameters, **person, "epsilon": self.epsilon, "delta": stage_delta,
                      "privacy_unit": "add-remove", "n_estimate": n_estimate, "count_epsilon": float(count_epsilon), "run_epsilon": run_epsilon,
                      "rows_estimate": rows}
        return MWEMResult(result.model, accountant, [entry, *result.transcript], result.measurements, parameters,
                          counted=result)


# ----------------------------------------------------------------------------------------- registry entry
@dataclass(frozen=True, kw_only=True)
class MWEMMechanism:
    """The registry's ``mwem``: MWEM with the preset for the run's public shape (:mod:`.mwem_tuning`).

    Privacy: as :class:`MWEM`: (epsilon, 0)-DP with Laplace noise by basic composition (Thm 3.16) of the
    Laplace (Thm 3.6) and exponential (Thm 3.10) mechanisms on marginals of L1 sensitivity 2/n; with
    delta > 0, Gaussian noise (L2 sensitivity sqrt(2)/n) under zCDP (Bun & Steinke 2016), converted to
    (epsilon, delta)-DP (Canonne, Kamath & Steinke 2020). A marginal measured on a compressed domain
    (:mod:`~dprelease.queries.compression`, grouping chosen from earlier noisy answers) is still a partition
    of the records: the same sensitivities, the same charge.
    """

    name: ClassVar[str] = "mwem"
    summary: ClassVar[str] = ("MWEM (Hardt, Ligett & McSherry 2012) with AIM's selection options, on a histogram or a "
                              "factored model: the most accurate synthetic table, any domain size")
    representations: ClassVar[tuple[str, ...]] = ("histogram", "factored")
    #: delta when the user gives none: 1e-9, AIM's and MST's, far below 1/n up to ~1e8 rows (a delta >= 1/n warns).
    #: Chosen on the tuning suite (docs/decisions.md, issue 12): pure DP's basic composition cost 1.0-2.9x the
    #: avg L1 of zCDP's and lost to the independent baseline at eps 0.1 on two tables; with delta = 1e-9 the
    #: plan still runs Laplace noise (and spends no delta) where that is the smaller noise (:meth:`MWEM.plan_noise`).
    #: ``delta=0`` gives pure DP.
    default_delta: ClassVar[float] = 1e-9

    rounds: int | None = option(None, "T, the number of select-measure-update rounds (default: the preset's)",
                                kind=int)
    representation: str = option("auto", "the model: histogram (explicit, up to --max-cells), factored "
                                 "(log-linear on the measured marginals, any domain size) or auto (histogram when "
                                 "the domain fits)", choices=REPRESENTATIONS)
    max_model_cells: int | None = option(None, "cap on the factored model's junction-tree cells (default "
                                         "500,000)", kind=int)
    max_cells: int = option(DEFAULT_MAX_CELLS, "cap on an explicit histogram's cells", kind=int)
    privacy_unit: str = option("replace", "the neighbouring tables the guarantee is over: replace (the book's: the "
                               "same public n, one record replaced) or add-remove (one record more or fewer, n private:"
                               " a noisy count is released, and with the measurements sets the rows' number; MST's and AIM's unit)",
                               choices=PRIVACY_UNITS)
    rows_per_person: int | None = option(None, "with --privacy-id (a raw table, --schema): the most rows one person "
                                         "keeps (k, public; more are dropped at random), for a guarantee per person: "
                                         "add/remove one person, every sensitivity k times a record's", kind=int)

    def runner(self, domain: Domain, budget: Budget) -> MWEM:
        """The configured MWEM: the preset chosen from public quantities (the domain size and delta > 0)."""
        representation = mwem_representation(self.representation, domain, self.max_cells)
        noise = "gaussian" if budget.delta > 0 else "laplace"
        tuning = tuning_for(representation=representation, noise=noise)
        if self.rounds is not None:  # annealing adapts the mechanism's own plan; the user's rounds run as given
            tuning = with_user_rounds(tuning)
        return MWEM(epsilon=budget.epsilon, delta=budget.delta, rounds=self.rounds, representation=representation,
                    max_cells=self.max_cells, max_model_cells=self.max_model_cells,
                    tuning=tuning, privacy_unit=self.privacy_unit, rows_per_person=self.rows_per_person or 1)

    def check(self, domain: Domain, workload: Workload, *, budget: Budget) -> None:
        if self.runner(domain, budget).representation == "histogram":
            histogram_check(domain, self.max_cells)

    def fit(self, table: PrivateTable, workload: Workload, *, budget: Budget, rng: RandomSource,
            progress: Progress) -> Fitted:
        runner = self.runner(table.domain, budget)
        result = runner.run(table, workload, rng=rng, progress=progress)
        if result.counted is None:
            guarantee = run_guarantee(result, epsilon=budget.epsilon, delta=budget.delta)
        else:
            count = result.transcript[0]
            delta = result.parameters["delta"]
            k = runner.rows_per_person
            pooled = result.counted.parameters.get("normalizer")
            renormalized = ("" if pooled in (None, count["n_estimate"]) else
                            f" (a read after INIT: {k}/{pooled}, the count pooled with the measurements' totals)")
            unit = ("neighbours (one record more or fewer; n private)" if self.rows_per_person is None else
                    f"neighbours of one person (one person's rows more or fewer, at most {k} kept a person, "
                    f"drawn at random; every sensitivity {k} times a record's)")
            guarantee = (f"(epsilon={budget.epsilon:g}, delta={delta:g})-differential privacy under add/remove "
                         f"{unit}: a Laplace count of the records at "
                         f"epsilon={count['epsilon']:.6g} (Thm 3.6, sensitivity {k}), n_estimate={count['n_estimate']}, "
                         "then, with it public, "
                         + run_guarantee(result.counted, epsilon=result.parameters["run_epsilon"], delta=delta,
                                         marginal=f"{k}/n_estimate" + renormalized, dependence=f"{6 * k}/n_estimate")
                         + "; basic composition (Thm 3.16)")
        # Rows: the model rounded without bias (systematic sampling, representations/rounding.py), then
        # fitted to the released answers (rows/fitting.py). On every suite table they are at least as
        # accurate as i.i.d. draws from the same model (benchmarks/results/suite.md; docs/decisions.md).
        rows, reason = "fitted", ("the model rounded without bias, then fitted to the released answers: at least as "
                                  "accurate as i.i.d. draws from the model on every table of the tuning suite")
        return Fitted(result.model, result.model, result.accountant, result.transcript, result.parameters, guarantee,
                      extra={"measurements": [m.to_json() for m in result.measurements]}, rows=rows,
                      rows_reason=reason, n_rows=result.parameters.get("rows_estimate"))


def run_guarantee(result: MWEMResult, *, epsilon: float, delta: float, marginal: str = "2/n",
                  dependence: str = "6/n") -> str:
    """The guarantee of one run (:meth:`MWEM.run` under the book's unit, or the run after an add/remove count), as
    the release states it; ``marginal`` and ``dependence`` name the sensitivities its unit gives."""
    gaussian = result.parameters["noise"] == "gaussian"
    joint, direct = result.parameters["joint_plan"], result.parameters["direct_plan"]
    gate = result.parameters.get("gate")
    if gate is not None:
        stage = next(iter(result.accountant.stages.values()))
        run = (f"MWEM with Gaussian measurements at rho={float(stage.rho):.6g}-zCDP (Bun & Steinke 2016), "
               f"converted to (epsilon={gate['run_epsilon']:.6g}, delta={delta:g}) by Canonne, Kamath & "
               "Steinke 2020" if gaussian else
               f"MWEM with Laplace measurements at epsilon={gate['run_epsilon']:.6g} in all (basic composition)")
        return (f"(epsilon={epsilon:g}, delta={delta if gaussian else 0:g})-differential "
                f"privacy: a Laplace test of the pairs' dependence at epsilon={gate['epsilon']:.6g} (Thm 3.6, "
                f"sensitivity {dependence}), then, as it {'passed' if gate['passed'] else 'did not pass'}, {run}; "
                "basic composition (Thm 3.16)")
    if gaussian:
        what = ("the Gaussian mechanism on the workload attributes' joint table" if joint
                else "the Gaussian mechanism on each maximal workload marginal" if direct
                else "MWEM with Gaussian measurements")
        return (f"(epsilon={epsilon:g}, delta={delta:g})-differential privacy: {what}, "
                f"rho={float(result.accountant.rho):.6g}-zCDP (Bun & Steinke 2016), "
                "converted by Canonne, Kamath & Steinke 2020")
    if joint:
        return (f"(epsilon={epsilon:g}, delta=0)-differential privacy: the Laplace mechanism on the "
                f"workload attributes' joint table, L1 sensitivity {marginal} (Thm 3.6)")
    if direct:
        return (f"(epsilon={epsilon:g}, delta=0)-differential privacy: the Laplace mechanism on each "
                f"maximal workload marginal, L1 sensitivity {marginal} (Thm 3.6), basic composition (Thm 3.16)")
    return f"(epsilon={epsilon:g}, delta=0)-differential privacy: MWEM, basic composition (Thm 3.16)"
