"""MWEM: multiplicative weights with the exponential mechanism (Hardt, Ligett, McSherry 2012).

The practical offline release. With T rounds and budget eps:

    INIT (optional)   Laplace on every 1-way marginal the workload uses      eps_init in total
    for t = 1 .. T:                                                          (eps - eps_init) / T per round
        SELECT   exponential mechanism over the workload's marginals,
                 score ||M(x) - M(x^t)||_1 - penalty(M)                      share s of the round
        MEASURE  Laplace(2 / (n eps_m)) (or Gaussian) on every cell of it    share 1 - s
        UPDATE   MW (mirror descent) steps fitting *all* measurements so far
    final UPDATE passes, then release x^T.

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
(Feldman & Zrnic 2021). Every step is charged to the accountant before it runs. The privacy unit
is the book's: neighbouring tables have the same n and differ in one record.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.errors import DomainTooLargeError, InputError
from dprelease.mechanisms.mwem_budget import RoundBudget
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import exact, laplace_scale
from dprelease.privacy.rng import RandomSource
from dprelease.privacy.zcdp import ZCDPAccountant, exponential_epsilon, rho_for
from dprelease.queries.workload import Workload
from dprelease.representations import REPRESENTATIONS, resolve_representation
from dprelease.representations.factored import DEFAULT_MAX_MODEL_CELLS, FactoredModel
from dprelease.representations.histogram import HistogramModel
from dprelease.updates.measurement_fit import fit_measurements
from dprelease.updates.measurements import MarginalMeasurement
from dprelease.validation import check_delta, check_fraction, check_nonnegative, check_positive, check_positive_int

NOISES = ("auto", "laplace", "gaussian")
#: Settings measured best for Gaussian noise (delta > 0) on an explicit histogram (7-column Adult, 1-3way,
#: eps = 1, model avg L1: 0.0251 mean of 8 fresh seeds in ~6 s, against 0.0259 with a tenth of each round
#: to selection and no warm start, and 0.036 with the pure-DP histogram defaults below; docs/decisions.md).
#: ``synthesize`` uses them when MWEM runs on a histogram with delta > 0.
GAUSSIAN_HISTOGRAM_DEFAULTS: dict[str, object] = {"candidates": "closure", "size_penalty": 0.1, "rounds": 40,
                                                  "final_iterations": 100, "selection_share": 0.05,
                                                  "warm_start": True}

CANDIDATES = ("workload", "closure")
SELECTION_WEIGHTS = ("uniform", "workload")

#: Settings measured best for the factored model on full Adult (benchmarks/results/adult_full.md;
#: docs/decisions.md): AIM's downward closure as candidates, a quarter of the expected-noise size
#: penalty, 40 rounds, 300 final fitting passes, a tenth of each round to selection (AIM's share), and a
#: 500,000-cell model cap (as accurate as 2,000,000 and 2-6x faster). :func:`dprelease.api.synthesize` uses them when
#: MWEM runs on the factored model; the other defaults were measured on the explicit histogram.
FACTORED_DEFAULTS: dict[str, object] = {"candidates": "closure", "size_penalty": 0.25, "rounds": 40,
                                        "final_iterations": 300, "selection_share": 0.1,
                                        "max_model_cells": 500_000}


def candidate_marginals(workload: Workload, kind: str, *, smallest: int) -> list[tuple[str, ...]]:
    """The workload's marginals, or (``closure``) also all their sub-marginals of >= ``smallest`` attributes."""
    if kind == "workload":
        return list(workload.marginals)
    found = dict.fromkeys(workload.marginals)
    for m in workload.marginals:
        for k in range(smallest, len(m)):
            found.update(dict.fromkeys(itertools.combinations(m, k)))
    return list(found)



def workload_overlap(workload: Workload, candidates: list[tuple[str, ...]]) -> list[int]:
    """AIM's selection weight of each candidate r: sum over workload marginals s of |r & s| (public).

    A candidate sharing attributes with many workload marginals informs more of them.
    """
    sets = [set(s) for s in workload.marginals]
    return [sum(len(set(r) & s) for s in sets) for r in candidates]


def default_rounds(epsilon: float) -> int:
    """T chosen by the benchmark (benchmarks/results/small3.md): more budget pays for more rounds.

    10 rounds at eps = 1, 5 at eps = 0.1, 20 at eps = 10: round(10 eps^0.3), kept in [5, 40].
    """
    return max(5, min(40, round(10 * check_positive(epsilon, "epsilon") ** 0.3)))


def warm_started(model: HistogramModel | FactoredModel,
                 measurements: list[MarginalMeasurement]) -> HistogramModel | FactoredModel:
    """The product of the noisy 1-way marginals, clipped at 0 and renormalized (post-processing).

    This is where mirror descent on the 1-way measurements alone heads (their max-entropy fit), reached
    in one step: the L2 fit's first steps are short (its safe step is 1 / (2 sum of weights)).
    """
    logs = {}
    for m in measurements:
        if len(m.attributes) == 1:
            p = np.clip(m.values, 0, None) + 1e-9
            logs[m.attributes] = np.log(p / p.sum())
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
            has at most ``max_cells`` cells, else the factored model).
        max_model_cells: cap on the factored model's junction-tree cells.
        candidates: ``"workload"`` (select among the workload's marginals) or ``"closure"`` (also
            every sub-marginal of them, down to 2 attributes, or 1 without INIT: AIM's downward
            closure; smaller marginals are cheaper to measure well).
        remeasure: whether a marginal measured once stays a candidate (repeats average its noise).
        step_growth: factor by which the fit's step size grows after an accepted step.
        warm_start: start the fit from the product of the noisy 1-way marginals (clipped at 0,
            renormalized) instead of the uniform distribution (post-processing).
        rounds: T, the number of select-measure-update rounds (default: :func:`default_rounds`).
        selection_share: fraction of each round's epsilon spent on selection.
        init_share: fraction of epsilon spent measuring the 1-way marginals first (0: none).
        size_penalty: multiple of each marginal's expected measurement noise (cells x Laplace scale)
            subtracted from its selection score; 0 disables it.
        round_iterations / final_iterations: MW passes over all measurements per round / at the end.
        annealing: AIM's budget annealing (:mod:`~dprelease.mechanisms.mwem_budget`): ``rounds`` is then
            the initial plan, and a round whose measurement barely moved the model halves the noise
            scale of the next ones; the total is unchanged (a privacy filter).
        reuse_measurements: fit every past measurement each round (True), or only the newest one, as the
            original MWEM update does (False; the ablation).
        selection_weights: ``"uniform"``, or ``"workload"``: AIM's weights, each candidate's score times
            its attribute overlap with the workload (the selection's sensitivity grows by the largest weight).
    """

    epsilon: float
    rounds: int | None = None
    selection_share: float = 0.25
    init_share: float = 0.1
    size_penalty: float = 1.0
    round_iterations: int = 5
    final_iterations: int = 100
    max_cells: int = DEFAULT_MAX_CELLS
    delta: float = 0.0
    noise: str = "auto"
    representation: str = "auto"
    max_model_cells: int = DEFAULT_MAX_MODEL_CELLS
    candidates: str = "workload"
    remeasure: bool = True
    step_growth: float = 1.25
    warm_start: bool = False
    annealing: bool = False
    selection_weights: str = "uniform"
    reuse_measurements: bool = True

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
        check_positive_int(self.max_model_cells, "max_model_cells")
        if check_positive(self.step_growth, "step_growth") < 1:
            raise InputError(f"step_growth must be a number >= 1, got {self.step_growth!r}")
        if self.selection_weights not in SELECTION_WEIGHTS:
            raise InputError(f"selection_weights must be one of {list(SELECTION_WEIGHTS)}, "
                             f"got {self.selection_weights!r}")
        if self.candidates not in CANDIDATES:
            raise InputError(f"candidates must be one of {list(CANDIDATES)}, got {self.candidates!r}")
        if self.rounds is None:
            object.__setattr__(self, "rounds", default_rounds(self.epsilon))
        check_positive_int(self.rounds, "rounds")
        check_fraction(self.selection_share, "selection_share", allow_zero=False)
        check_fraction(self.init_share, "init_share")
        check_nonnegative(self.size_penalty, "size_penalty")
        check_positive_int(self.round_iterations, "round_iterations", minimum=0)
        check_positive_int(self.final_iterations, "final_iterations", minimum=0)

    def _split(self, total: Fraction, num_one_way: int) -> dict[str, Fraction]:
        """``total`` (epsilon or rho) over INIT and the rounds, exactly; the rounds' plan without annealing."""
        init_total = total * exact(self.init_share) if num_one_way else Fraction(0)
        per_round = (total - init_total) / self.rounds
        select = per_round * exact(self.selection_share)
        return {"init_each": init_total / num_one_way if num_one_way else Fraction(0),
                "rounds_total": total - init_total, "select": select, "measure": per_round - select}

    def budget_split(self, num_one_way: int) -> dict[str, Fraction]:
        """Exact per-step epsilons; they sum to epsilon exactly."""
        return self._split(exact(self.epsilon), num_one_way)

    def rho_split(self, num_one_way: int) -> dict[str, Fraction]:
        """Exact per-step rho (zCDP, Gaussian noise); selections get the largest eps with eps^2/8 <= their share.

        The charges sum to at most rho = :func:`~dprelease.privacy.zcdp.rho_for` (epsilon, delta).
        """
        total = rho_for(epsilon=self.epsilon, delta=self.delta)
        split = self._split(total, num_one_way)
        return {"rho": total, **split, "select_epsilon": Fraction(exponential_epsilon(split["select"]))}

    @property
    def resolved_noise(self) -> str:
        return self.noise if self.noise != "auto" else ("gaussian" if self.delta > 0 else "laplace")

    def resolved_representation(self, domain: Domain) -> str:
        """The representation ``auto`` picks from the public domain size."""
        return resolve_representation(self.representation, domain, max_cells=self.max_cells)

    def run(self, dataset: Dataset, workload: Workload, *, rng: RandomSource,
            progress: Progress | None = None) -> MWEMResult:
        domain = dataset.domain
        representation = self.resolved_representation(domain)
        if representation == "histogram":
            domain.check_fits(self.max_cells)
        progress = progress or Progress.silent()
        one_way = [(a,) for a in workload.attributes] if self.init_share > 0 else []
        gaussian = self.resolved_noise == "gaussian"
        if gaussian:
            split = self.rho_split(len(one_way))
            accountant = ZCDPAccountant(epsilon=self.epsilon, delta=self.delta)
        else:
            split = self.budget_split(len(one_way))
            accountant = PrivacyAccountant(epsilon=self.epsilon)
        measurer = PrivateMeasurer(dataset, accountant=accountant, rng=rng)
        if representation == "histogram":
            model = HistogramModel.uniform(domain, max_cells=self.max_cells)
        else:
            model = FactoredModel.uniform(domain, max_model_cells=self.max_model_cells)
        measurements: list[MarginalMeasurement] = []
        transcript: list[dict[str, object]] = []

        def noise_per_cell(amount: Fraction) -> float:
            """E|Z| of one cell's noise when a marginal is measured with ``amount`` (rho or epsilon); public."""
            if gaussian:
                return measurer.gaussian_marginal_std(rho=amount) * (2 / np.pi) ** 0.5  # E|N(0, sigma^2)|
            return laplace_scale(sensitivity=measurer.marginal_sensitivity, epsilon=amount)

        def measure(attributes: tuple[str, ...], amount: Fraction, label: str, entry: dict) -> None:
            """MEASURE one marginal with ``amount`` (Laplace at epsilon, Thm 3.6; or Gaussian at rho, BS Prop. 1.6)."""
            if gaussian:
                values = measurer.gaussian_marginal(attributes, rho=amount, label=label)
                sigma = measurer.gaussian_marginal_std(rho=amount)
                measurements.append(MarginalMeasurement(attributes, values, sigma, "gaussian"))
                transcript.append({**entry, "marginal": list(attributes), "rho": float(amount),
                                   "gaussian_sigma": sigma})
                return
            values = measurer.laplace_marginal(attributes, epsilon=amount, label=label)
            scale = laplace_scale(sensitivity=measurer.marginal_sensitivity, epsilon=amount)
            measurements.append(MarginalMeasurement(attributes, values, scale))
            transcript.append({**entry, "marginal": list(attributes), "laplace_scale": scale})

        candidates = candidate_marginals(workload, self.candidates, smallest=2 if one_way else 1)
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

        # INIT: noisy 1-way marginals
        for attributes in one_way:
            measure(attributes, split["init_each"], f"init: {attributes[0]}",
                    {"round": 0, "action": "measure"} | ({} if gaussian else {"epsilon": float(split["init_each"])}))
        if self.warm_start and measurements:
            model = warm_started(model, measurements)
        model, step = fit_measurements(model, measurements, iterations=self.round_iterations, growth=self.step_growth)

        cells = np.array([workload.cells(m) for m in candidates], dtype=np.float64)
        weights = workload_overlap(workload, candidates) if self.selection_weights == "workload" else None
        budget = RoundBudget(total=split["rounds_total"], rounds=self.rounds,
                             selection_share=exact(self.selection_share), currency="rho" if gaussian else "epsilon",
                             annealing=self.annealing)
        t = 0
        while (shares := budget.next_round()) is not None:
            t += 1
            select_amount, measure_amount = shares
            select_epsilon = Fraction(exponential_epsilon(select_amount)) if gaussian else select_amount
            expected_noise = noise_per_cell(measure_amount)
            if representation == "factored":
                drop_unfit(model, t)
            options = [candidates[i] for i in active]
            estimates = [model.marginal(m) for m in options]
            # SELECT: exponential mechanism over marginals, L1 score (sensitivity 2/n)
            penalties = self.size_penalty * expected_noise * cells[active] if self.size_penalty else None
            index = measurer.select_marginal(options, estimates, epsilon=select_epsilon, penalties=penalties,
                                             weights=[weights[i] for i in active] if weights else None,
                                             label=f"round {t}: select")
            chosen = options[index]
            # MEASURE: Laplace(2 / (n eps_m)) or Gaussian on each cell of the chosen marginal
            entry = {"round": t, "action": "select+measure"}
            if not gaussian:
                entry["epsilon"] = float(select_amount + measure_amount)
            else:
                entry["select_epsilon"] = float(select_epsilon)
            measure(chosen, measure_amount, f"round {t}: measure", entry)
            if not self.remeasure:
                active = [i for i in active if candidates[i] != chosen]
            # UPDATE: MW steps over all measurements so far
            model, step = fit_measurements(model, measurements if self.reuse_measurements else measurements[-1:],
                                           iterations=self.round_iterations, step=step, growth=self.step_growth)
            if self.annealing:
                # ANNEAL (AIM): the measurement told the model nothing it did not know, within the noise's
                # expected L1 size, so the coming rounds need sharper measurements. AIM compares the model
                # before and after a fit run to convergence; our fit takes a few steps a round, so we compare
                # the measurement itself with the model's earlier answer. Public: noisy output, model, scale.
                surprise = float(np.abs(measurements[-1].values.reshape(estimates[index].shape)
                                        - estimates[index]).sum())
                if surprise <= expected_noise * workload.cells(chosen):
                    budget.sharpen()
                    transcript.append({"round": t, "action": "anneal", "surprise_l1": surprise,
                                       "next_round_budget": float(budget.per_round)})
            progress.step(t, max(self.rounds, t))
        model, _ = fit_measurements(model, measurements if self.reuse_measurements else measurements[-1:],
                                    iterations=self.final_iterations, step=step, growth=self.step_growth)
        progress.done()
        parameters = {"epsilon": self.epsilon, "delta": self.delta if gaussian else 0.0, "rounds": self.rounds,
                      "rounds_run": t, "annealing": self.annealing, "selection_weights": self.selection_weights,
                      "reuse_measurements": self.reuse_measurements,
                      "noise": self.resolved_noise, "representation": representation,
                      "selection_share": self.selection_share, "init_share": self.init_share,
                      "size_penalty": self.size_penalty, "round_iterations": self.round_iterations,
                      "final_iterations": self.final_iterations, "candidates": self.candidates,
                      "warm_start": self.warm_start, "remeasure": self.remeasure, "step_growth": self.step_growth}
        if gaussian:
            parameters["rho_per_step"] = {k: float(v) for k, v in split.items()}
        else:
            parameters["epsilon_per_step"] = {k: float(v) for k, v in split.items()}
        if representation == "factored":
            parameters["max_model_cells"] = self.max_model_cells
            parameters["model_cells"] = model.tree.total_cells
            parameters["skipped_marginals"] = len(skipped)
        return MWEMResult(model, accountant, transcript, measurements, parameters)
