"""MWEM: multiplicative weights with the exponential mechanism (Hardt, Ligett, McSherry 2012).

The practical offline release. With T rounds and budget eps:

    INIT (optional)   Laplace on every 1-way marginal the workload uses      eps_init in total, split equally
                      or by size (``init_allocation``, mwem_budget.init_allocation)
    for t = 1 .. T:                                                          (eps - eps_init) / T per round
        SELECT   exponential mechanism over the workload's marginals,
                 score ||M(x) - M(x^t)||_1 - penalty(M)                      share s of the round
        MEASURE  Laplace(2 / (n eps_m)) (or Gaussian) on every cell of it    share 1 - s
        UPDATE   MW (mirror descent) steps fitting *all* measurements so far
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

import itertools
import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import ClassVar

import numpy as np

from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.engines.base import PrivateTable
from dprelease.errors import DomainTooLargeError, InputError, InputTypeError
from dprelease.mechanisms.base import Budget, Fitted, histogram_check, option
from dprelease.mechanisms.mwem_budget import RoundBudget, init_allocation
from dprelease.mechanisms.mwem_tuning import MWEMTuning, default_rounds, tuning_for
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import exact, laplace_scale
from dprelease.privacy.rng import RandomSource
from dprelease.privacy.zcdp import ZCDPAccountant, exponential_epsilon, rho_for
from dprelease.queries.compression import compressed_shape, rare_value_groups
from dprelease.queries.workload import Workload
from dprelease.representations import MWEM_HISTOGRAM_CELLS, REPRESENTATIONS, resolve_representation
from dprelease.representations.factored import FactoredModel
from dprelease.representations.histogram import HistogramModel
from dprelease.updates.measurement_fit import fit_measurements
from dprelease.updates.measurements import MarginalMeasurement, combine, one_way_distribution
from dprelease.validation import check_delta, check_positive, check_positive_int

NOISES = ("auto", "laplace", "gaussian")


#: Compress an attribute only when at least half its values are rare: a long tail is where compression pays
#: (Chicago taxi at eps = 0.1: 0.27 avg L1 against 0.33), and pooling a few values of a short column lost
#: their interactions for little (7-column Adult at eps = 0.1: 0.15 against 0.14 over 3 seeds).
COMPRESS_MIN_SHARE = 0.5

#: The most of the budget INIT keeps where the 1-way cells are already measured well (:meth:`MWEM.init_cap`):
#: Chicago taxi eps 0.1 0.21 avg L1 against 0.27 (delta 1e-9) and 0.26 against 0.34 (pure); a third measured
#: worse on full Adult and the 32-column mixture at eps 1, pure (0.233 and 0.271 against 0.219 and 0.260).
INIT_MOST_SHARE = Fraction(1, 2)


def candidate_marginals(workload: Workload, kind: str, *, smallest: int) -> list[tuple[str, ...]]:
    """The workload's marginals, or (``closure``) also all their sub-marginals of >= ``smallest`` attributes."""
    if kind == "workload":
        return list(workload.marginals)
    found = dict.fromkeys(workload.marginals)
    for m in workload.marginals:
        for k in range(smallest, len(m)):
            found.update(dict.fromkeys(itertools.combinations(m, k)))
    return list(found)


def budget_for_cell_noise(cell_noise: float, *, n: int, gaussian: bool) -> float:
    """The budget (rho, or epsilon) at which one marginal cell's expected absolute noise is ``cell_noise``.

    Laplace: E|Z| = 2 / (n eps) (L1 sensitivity 2/n). Gaussian: E|Z| = sqrt(2/pi) sigma with
    sigma = 1 / (n sqrt(rho)) (L2 sensitivity sqrt(2)/n). Public quantities only.
    """
    if gaussian:
        return ((2 / np.pi) ** 0.5 / (n * cell_noise)) ** 2
    return 2 / (n * cell_noise)


def rounds_for_noise(*, cells: float, n: int, measure: float, gaussian: bool, tau: float) -> int:
    """The most rounds T at which measuring a marginal of ``cells`` cells with ``measure`` / T adds expected L1
    noise <= ``tau`` (public): cells x E|Z| <= tau, E|Z| as in :func:`budget_for_cell_noise`."""
    return math.floor(measure / budget_for_cell_noise(tau / cells, n=n, gaussian=gaussian))


def mwem_representation(representation: str, domain: Domain, max_cells: int) -> str:
    """MWEM's model: ``auto`` keeps the histogram up to ``max_cells`` and :data:`MWEM_HISTOGRAM_CELLS`
    (public; the class and its registry entry decide alike)."""
    return resolve_representation(representation, domain, max_cells=max_cells, auto_cells=MWEM_HISTOGRAM_CELLS)


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


@dataclass
class MWEMResult:
    model: HistogramModel | FactoredModel
    accountant: PrivacyAccountant | ZCDPAccountant
    transcript: list[dict[str, object]]
    measurements: list[MarginalMeasurement]
    parameters: dict[str, object]


@dataclass(frozen=True, kw_only=True)
class MWEM:
    """MWEM over marginal workloads on an explicit histogram or a factored model.

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

    def planned_rounds(self, workload: Workload, *, n: int, total: Fraction, gaussian: bool) -> int:
        """T: the user's; else the rounds whose measurements the candidates can use (public quantities only).

        With ``noise_target`` tau, :func:`rounds_for_noise` gives the most rounds at which measuring a marginal
        of C cells adds expected L1 noise <= tau. T is that for a typical workload marginal (C = their median
        cells), kept in [d + 1, ``rounds_per_attribute`` * d] (d: the workload's attributes; AIM's 16 d plan
        when n * epsilon is large, and one round after INIT when it is small). When even the smallest pair
        of attributes could not be measured usefully within d rounds, no round is worth its noise: T = d,
        and INIT measures each 1-way marginal with 1/d of the budget (the independent baseline's plan).
        """
        if self.rounds is not None:
            return self.rounds
        d = len(workload.attributes)
        most = self.round_cap(workload)
        if self.tuning.noise_target is None:
            return most
        plan = dict(n=n, measure=(1 - self.tuning.selection_share) * float(total), gaussian=gaussian,
                    tau=self.tuning.noise_target)
        pairs = [workload.cells(p) for p in candidate_marginals(workload, "closure", smallest=2) if len(p) == 2]
        if pairs and rounds_for_noise(cells=min(pairs), **plan) <= d:
            return d
        # A typical pair, not a typical workload marginal: rounds measure the closure's pairs as often as the
        # workload's marginals, and planning for the largest marginals starves wide tables of rounds.
        typical = float(np.median(pairs)) if pairs else float(np.median([workload.cells(m) for m in workload.marginals]))
        return int(min(most, max(d + 1, rounds_for_noise(cells=typical, **plan))))

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

    def init_amounts(self, workload: Workload, one_way: list[tuple[str, ...]], init_each: Fraction, *, n: int,
                     gaussian: bool) -> dict[tuple[str, ...], Fraction]:
        """Each 1-way marginal's INIT budget, together exactly ``init_each`` times their number (public): equal
        parts, or (``init_allocation="l1"``) :func:`~dprelease.mechanisms.mwem_budget.init_allocation`'s split."""
        if self.tuning.init_allocation == "equal" or len(one_way) < 2:
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
        total = rho_for(epsilon=self.epsilon, delta=self.delta) if gaussian else exact(self.epsilon)
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

    def plan_noise(self, workload: Workload, *, n: int) -> tuple[str, int]:
        """(noise, rounds) for this run, from public quantities only.

        With delta > 0 and ``noise="auto"``, Gaussian noise under zCDP is not always the better choice: at
        few rounds, Laplace noise at epsilon / T (pure DP, delta unused) is smaller than Gaussian noise at
        rho(epsilon, delta) / T (their standard deviations 2 sqrt 2 T / (n eps) and sqrt(T / rho) / n cross at
        T = eps^2 / (8 rho), about 10 rounds at delta = 1e-9). With a ``noise_target`` the plan picks the noise
        that affords more rounds at that target, and the smaller noise per cell on a tie.
        """
        auto = self.noise == "auto" and self.delta > 0 and self.tuning.noise_target is not None
        choices = ("gaussian", "laplace") if auto else (self.resolved_noise,)
        plans = []
        for noise in choices:
            gaussian = noise == "gaussian"
            total = rho_for(epsilon=self.epsilon, delta=self.delta) if gaussian else exact(self.epsilon)
            rounds = self.planned_rounds(workload, n=n, total=total, gaussian=gaussian)
            measure = (1 - self.tuning.selection_share) * float(total) / rounds
            std = (1 / math.sqrt(measure) if gaussian else 2 * math.sqrt(2) / measure) / n
            plans.append((-rounds, std, noise))
        best = min(plans)
        return best[2], -best[0]

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

    def run(self, dataset: Dataset, workload: Workload, *, rng: RandomSource,
            progress: Progress | None = None) -> MWEMResult:
        domain = dataset.domain
        representation = self.resolved_representation(domain)
        if representation == "histogram":
            domain.check_fits(self.max_cells)
        progress = progress or Progress.silent()
        one_way = [(a,) for a in workload.attributes] if self.tuning.init_share > 0 or self.tuning.init_per_round \
            else []
        noise, rounds = self.plan_noise(workload, n=dataset.n)
        momentum = self.final_momentum_level(workload, rounds)
        gaussian = noise == "gaussian"
        init_cap = self.init_cap(len(one_way), n=dataset.n, gaussian=gaussian)
        if gaussian:
            split = self.rho_split(len(one_way), rounds, init_cap)
            accountant = ZCDPAccountant(epsilon=self.epsilon, delta=self.delta)
        else:
            split = self.budget_split(len(one_way), rounds, init_cap)
            accountant = PrivacyAccountant(epsilon=self.epsilon)
        measurer = PrivateMeasurer(dataset, accountant=accountant, rng=rng)
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
                return measurer.gaussian_marginal_std(rho=amount) * (2 / np.pi) ** 0.5  # E|N(0, sigma^2)|
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

        smallest = 1 if self.tuning.one_way_candidates or not one_way else 2
        candidates = candidate_marginals(workload, self.tuning.candidates, smallest=smallest)
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

        if representation == "factored":  # on the cliques INIT will add: a cap nothing fits costs nothing
            drop_unfit(model.with_cliques(one_way), 0)

        rounds = int(split["rounds_after_init"])
        progress.step(0, rounds)
        # INIT: noisy 1-way marginals
        init_amounts = self.init_amounts(workload, one_way, split["init_each"], n=dataset.n, gaussian=gaussian)
        for attributes in one_way:
            amount = init_amounts[attributes]
            measure(attributes, amount, f"init: {attributes[0]}",
                    {"round": 0, "action": "measure"} | ({} if gaussian else {"epsilon": float(amount)}))
        if self.tuning.warm_start and measurements:
            model = warm_started(model, fitted)
        step = None
        if split["rounds_total"] > 0 or not self.tuning.warm_start:
            model, step = fit_measurements(model, fitted, iterations=self.tuning.round_iterations,
                                           growth=self.tuning.step_growth)

        annealing = self.tuning.annealing
        weights = workload_overlap(workload, candidates) if self.tuning.selection_weights == "workload" else None
        budget = RoundBudget(total=split["rounds_total"], rounds=max(rounds, 1),
                             selection_share=exact(self.tuning.selection_share), currency="rho" if gaussian else "epsilon",
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
            estimates = [model.marginal(m) for m in options]
            # SELECT: exponential mechanism over marginals, L1 score (sensitivity 2/n)
            sizes = np.array([measured_cells(m) for m in options], dtype=np.float64)
            penalties = self.tuning.size_penalty * expected_noise * sizes if self.tuning.size_penalty else None
            index = measurer.select_marginal(options, estimates, epsilon=select_epsilon, penalties=penalties,
                                             weights=[weights[i] for i in pool] if weights else None,
                                             label=f"round {t}: select")
            chosen = options[index]
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
                                           iterations=self.tuning.round_iterations, step=step, growth=self.tuning.step_growth)
            if annealing:
                # ANNEAL (AIM): the measurement told the model nothing it did not know, within the noise's
                # expected L1 size, so the coming rounds need sharper measurements. AIM compares the model
                # before and after a fit run to convergence; our fit takes a few steps a round, so we compare
                # the measurement itself with the model's earlier answer. Public: noisy output, model, scale.
                seen = measured.model_view(estimates[index])
                surprise = float(np.abs(measured.values.reshape(seen.shape) - seen).sum())
                if surprise <= expected_noise * seen.size:
                    budget.sharpen()
                    transcript.append({"round": t, "action": "anneal", "surprise_l1": surprise,
                                       "next_round_budget": float(budget.per_round)})
            progress.step(t, max(rounds, t))
        final_steps = 0
        if t or not (self.tuning.warm_start and measurements):
            progress.phase("final fit", self.tuning.final_iterations)

            def final_step(done: int, total: int) -> None:
                nonlocal final_steps
                final_steps = done
                progress.step(done, total)

            model, _ = fit_measurements(model, fitted if self.tuning.reuse_measurements else fitted[-1:],
                                        iterations=self.tuning.final_iterations, step=step,
                                        growth=self.tuning.step_growth, on_step=final_step,
                                        discrepancy=self.tuning.final_discrepancy,
                                        momentum=momentum)
            if final_steps < self.tuning.final_iterations:  # stopped at the noise (or a float minimum): say where
                progress.step(final_steps, final_steps)
        # else INIT alone ran (the plan found no marginal worth a round): the warm start's product is the
        # estimate; fitting it to the raw noisy 1-ways would undo what one_way_distribution did.
        progress.done()
        parameters = {"epsilon": self.epsilon, "delta": self.delta if gaussian else 0.0, "rounds": rounds,
                      "rounds_run": t, "annealing": annealing, "selection_weights": self.tuning.selection_weights,
                      "reuse_measurements": self.tuning.reuse_measurements,
                      "noise": noise, "representation": representation,
                      "selection_share": self.tuning.selection_share, "init_share": self.tuning.init_share,
                      "size_penalty": self.tuning.size_penalty, "round_iterations": self.tuning.round_iterations,
                      "final_iterations": self.tuning.final_iterations, "candidates": self.tuning.candidates,
                      "warm_start": self.tuning.warm_start, "remeasure": self.tuning.remeasure, "step_growth": self.tuning.step_growth,
                      "rounds_per_attribute": self.tuning.rounds_per_attribute, "noise_target": self.tuning.noise_target,
                      "init_per_round": self.tuning.init_per_round, "one_way_candidates": self.tuning.one_way_candidates,
                      "init_allocation": self.tuning.init_allocation,
                      "compress_rare": self.tuning.compress_rare, "init_cell_noise": self.tuning.init_cell_noise,
                      **({} if self.tuning.max_measure_l1 is None else {"max_measure_l1": self.tuning.max_measure_l1}),
                      **({} if self.tuning.final_discrepancy is None else
                         {"final_discrepancy": self.tuning.final_discrepancy}),
                      **({} if self.tuning.final_momentum is None else {"final_momentum": self.tuning.final_momentum}),
                      **({} if self.tuning.capped_final_momentum is None else
                         {"capped_final_momentum": self.tuning.capped_final_momentum}),
                      "final_fit_momentum": momentum,
                      "final_iterations_run": final_steps}
        if gaussian:
            parameters["rho_per_step"] = {k: float(v) for k, v in split.items() if k != "rounds_after_init"}
        else:
            parameters["epsilon_per_step"] = {k: float(v) for k, v in split.items() if k != "rounds_after_init"}
        if representation == "factored":
            parameters["max_model_cells"] = self.max_model_cells
            parameters["model_cells"] = model.tree.total_cells
            parameters["skipped_marginals"] = len(skipped)
        return MWEMResult(model, accountant, transcript, measurements, parameters)


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

    def runner(self, domain: Domain, budget: Budget) -> MWEM:
        """The configured MWEM: the preset chosen from public quantities (the domain size and delta > 0)."""
        representation = mwem_representation(self.representation, domain, self.max_cells)
        noise = "gaussian" if budget.delta > 0 else "laplace"
        tuning = tuning_for(representation=representation, noise=noise)
        if self.rounds is not None:  # annealing adapts the mechanism's own plan; the user's rounds run as given
            tuning = replace(tuning, annealing=False)
        return MWEM(epsilon=budget.epsilon, delta=budget.delta, rounds=self.rounds, representation=representation,
                    max_cells=self.max_cells, max_model_cells=self.max_model_cells,
                    tuning=tuning)

    def check(self, domain: Domain, workload: Workload, *, budget: Budget) -> None:
        if self.runner(domain, budget).representation == "histogram":
            histogram_check(domain, self.max_cells)

    def fit(self, table: PrivateTable, workload: Workload, *, budget: Budget, rng: RandomSource,
            progress: Progress) -> Fitted:
        runner = self.runner(table.domain, budget)
        result = runner.run(table, workload, rng=rng, progress=progress)
        gaussian = result.parameters["noise"] == "gaussian"
        if gaussian:
            guarantee = (f"(epsilon={budget.epsilon:g}, delta={budget.delta:g})-differential privacy: MWEM with "
                         f"Gaussian measurements, rho={float(result.accountant.rho):.6g}-zCDP (Bun & Steinke 2016), "
                         "converted by Canonne, Kamath & Steinke 2020")
        else:
            guarantee = (f"(epsilon={budget.epsilon:g}, delta=0)-differential privacy: MWEM, basic composition "
                         "(Thm 3.16)")
        # Rows: the model rounded without bias (systematic sampling, representations/rounding.py), then
        # fitted to the released answers (rows/fitting.py). On every suite table they are at least as
        # accurate as i.i.d. draws from the same model (benchmarks/results/suite.md; docs/decisions.md).
        rows, reason = "fitted", ("the model rounded without bias, then fitted to the released answers: at least as "
                                  "accurate as i.i.d. draws from the model on every table of the tuning suite")
        return Fitted(result.model, result.model, result.accountant, result.transcript, result.parameters, guarantee,
                      extra={"measurements": [m.to_json() for m in result.measurements]}, rows=rows,
                      rows_reason=reason)
