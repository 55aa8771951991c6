"""Boosting for queries (Dwork & Roth Sec. 6.1, Figure 6.1 as reconstructed in docs/theorems.md; Thm 6.1).

    alpha = (1/2) ln((1 + 2 eta) / (1 - 2 eta));   D_1 = uniform on Q
    for t = 1..T:                                   T = the smallest integer > ln|Q| / eta^2
        S_t = k queries drawn i.i.d. from D_t                        # SAMPLE (exp. mechanism, Lemma 6.4)
        A_t = base synopsis generator on S_t                          # BASE (eps_base, delta_base)-DP
        a_{t,q} = 1 if d <= lambda; -1 if d > lambda + mu; 1 - 2(d - lambda)/mu otherwise,  d = |q(x) - q(A_t)|
        D_{t+1}[q] proportional to exp(-alpha sum_{j<=t} a_{j,q})     # REWEIGHT (inside the kernel)
    answer q by median{q(A_1), ..., q(A_T)}                           # OUTPUT

D_t depends on q(x), so it never leaves the kernel: the SAMPLE and REWEIGHT steps are one kernel
call, :meth:`~dprelease.privacy.measurer.PrivateMeasurer.boosting_draws`, which releases only the
drawn indices. The base generator's only private step is its own kernel call (Laplace). A round
whose base generator fails (⊥) leaves D unchanged and is left out of the median; if every round
fails, the release is the uniform distribution (public). The transcript holds only public values:
per round the sampled multiset (query index, count), the base outcome and its public details.

Parameters (Thm 6.1, Lemma 6.4, Eq. 6.7, Sec. 6.2.3; :mod:`dprelease.bounds.boosting`):
eta = 1/3 (both base generators); eps_sample = eps / 2 and T eps_base = eps / 2, likewise delta;
beta_base = beta / T; the base generator's k and lambda at (eps_base, delta_base, beta_base); eps*
the largest per-draw epsilon whose kT draws cost at most eps_sample (Thm 3.20 exactly, not Eq. 6.7's
x^2); mu = 4 alpha T rho / eps*. Accuracy: every query within lambda + mu w.p. >= 1 - T beta_base.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

import numpy as np

from dprelease.boosting.base import BasePlan, BaseSynopsisGenerator, Synopsis
from dprelease.boosting.bruteforce import BruteForceGenerator
from dprelease.boosting.lp import LPSynthesizer
from dprelease.bounds.boosting import (
    boosting_budget_split,
    thm_6_1_boosting,
    thm_6_1_boosting_rounds,
)
from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.engines.base import PrivateTable
from dprelease.errors import InputError, InputTypeError, warn_user
from dprelease.mechanisms.base import Budget, Fitted, histogram_check, option
from dprelease.mechanisms.ic_rules import release_models
from dprelease.mechanisms.iterative_construction import AccuracyNotGuaranteedWarning
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.accountant import PrivacyAccountant, block_charge
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import exact
from dprelease.privacy.rng import RandomSource
from dprelease.representations.histogram import HistogramModel
from dprelease.updates.median import MedianModel
from dprelease.validation import check_open_unit, check_positive, check_positive_int


@dataclass
class BoostingResult:
    """The synopses A_1..A_T (``None`` for ⊥), their median structure, the ledger, transcript and parameters."""

    model: MedianModel | HistogramModel
    synopses: list[Synopsis | None]
    accountant: PrivacyAccountant
    transcript: list[dict[str, object]]
    parameters: dict[str, object]


@dataclass(frozen=True, kw_only=True)
class BoostingForQueries:
    """Figure 6.1 with a pluggable base synopsis generator (Def. 6.1).

    Args:
        epsilon, delta: the privacy budget; delta > 0 (the draws and the base generators compose by Thm 3.20).
        base: a :class:`~dprelease.boosting.base.BaseSynopsisGenerator` (default: the LP synthesizer).
        beta: failure probability of the accuracy guarantee (the base generators get beta / T each).
        sample_share: the share of (epsilon, delta) spent on sampling (Sec. 6.2.3 takes 1/2).
        rounds: T instead of the theorem's (fewer voids Thm 6.1's accuracy; privacy holds for any T).

    Privacy: (eps_sample + T eps_base, delta_sample + T delta_base)-DP (Thm 6.1, part 2) for queries of
    sensitivity rho = ``queries.sensitivity(n)``. Each of the kT draws is the exponential mechanism with
    utility -g_t of sensitivity 2 T rho / mu (Lemma 6.4), the kT draws reserved up front as one block,
    min(basic, Thm 3.20) <= (eps_sample, delta_sample) (Eq. 6.7 with the exact x(e^x - 1)); each round's base
    generator is charged its own block <= (eps_base, delta_base) (Cor. 3.21). Everything else is
    post-processing.
    """

    epsilon: float
    delta: float
    base: BaseSynopsisGenerator = field(default_factory=LPSynthesizer)
    beta: float = 0.05
    sample_share: float = 0.5
    rounds: int | None = None

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")
        if self.delta == 0:
            raise InputError("boosting for queries needs delta > 0 (Thm 6.1 composes by Thm 3.20), got 0: give delta "
                             "(--delta), well below 1/n, e.g. 1e-9")
        check_open_unit(self.delta, "delta")
        if not isinstance(self.base, BaseSynopsisGenerator):
            raise InputTypeError(f"base must be a base synopsis generator (plan, generate), got "
                                 f"{type(self.base).__name__}")
        check_open_unit(self.beta, "beta")
        check_open_unit(self.sample_share, "sample_share")
        if self.rounds is not None:
            check_positive_int(self.rounds, "rounds")

    def plan(self, *, n: int, domain: Domain, queries: object) -> dict[str, object]:
        """Every public parameter of the run, and the base generator's public caps, before any data is read."""
        eta = self.base.eta
        theorem_rounds = thm_6_1_boosting_rounds(num_queries=queries.num_queries, eta=eta)
        rounds = theorem_rounds if self.rounds is None else self.rounds
        split = boosting_budget_split(epsilon=self.epsilon, delta=self.delta, rounds=rounds,
                                      sample_share=self.sample_share)
        beta_base = self.beta / rounds
        base_plan = self.base.plan(n=n, domain=domain, queries=queries, epsilon=split["epsilon_base"],
                                   delta=split["delta_base"], beta=beta_base)
        rho = queries.sensitivity(n)
        theory = thm_6_1_boosting(num_queries=queries.num_queries, rho=float(rho),
                                  epsilon_sample=split["epsilon_sample"], delta_sample=split["delta_sample"],
                                  k=base_plan.k, lambda_=base_plan.lambda_, beta_base=beta_base, eta=eta,
                                  rounds=rounds)
        draws = base_plan.k * rounds
        epsilon_each = Fraction(theory["epsilon_per_draw"])
        sample_epsilon, sample_delta, rule = block_charge(epsilon_each=epsilon_each, count=draws,
                                                          delta_slack=split["delta_sample"])
        lambda_ok = bool(base_plan.details.get("lambda_is_theorems", True))
        return {
            **split, "rounds": rounds, "theorem_rounds": theorem_rounds, "eta": eta,
            "reweighting_alpha": theory["alpha"],
            "k": base_plan.k, "draws": draws, "epsilon_per_draw": epsilon_each, "mu": theory["mu"],
            "lambda": base_plan.lambda_, "sensitivity": rho, "beta": self.beta, "beta_base": beta_base,
            "error_bound": theory["error"], "sampling_charge": (sample_epsilon, sample_delta, rule),
            # an error bound >= 1 says nothing about [0, 1]-valued answers (the library's convention, bounds/)
            "bound_vacuous": theory["error"] >= 1,
            "accuracy_guaranteed": rounds >= theorem_rounds and lambda_ok and theory["error"] < 1,
            "base_plan": base_plan,
        }

    def run(self, dataset: Dataset, queries: object, *, rng: RandomSource,
            progress: Progress | None = None) -> BoostingResult:
        plan = self.plan(n=dataset.n, domain=dataset.domain, queries=queries)  # public, before any data is read
        base_plan: BasePlan = plan["base_plan"]
        if plan["bound_vacuous"]:
            warn_user(f"boosting is private, but Thm 6.1's error bound here is {float(plan['error_bound']):.3g}, "
                      "above 1, so it guarantees nothing about answers in [0, 1] (more rows or a larger epsilon "
                      "shrink it)", AccuracyNotGuaranteedWarning)
        elif not plan["accuracy_guaranteed"]:
            warn_user(f"boosting with {plan['rounds']} rounds (Thm 6.1 asks for {plan['theorem_rounds']}) is "
                      "private, but Thm 6.1 does not guarantee its accuracy", AccuracyNotGuaranteedWarning)
        rounds, k, domain = plan["rounds"], plan["k"], dataset.domain
        accountant = PrivacyAccountant(epsilon=self.epsilon, delta=self.delta)
        measurer = PrivateMeasurer(dataset, accountant=accountant, rng=rng)
        # Lemma 6.4 + Thm 3.20 (Eq. 6.7): all kT draws are paid before the first one
        sampling = accountant.reserve(epsilon_each=plan["epsilon_per_draw"], count=plan["draws"],
                                      label=f"boosting: {rounds} x {k} query draws (Lemma 6.4, Thm 3.20)",
                                      delta_slack=plan["delta_sample"])
        answers = np.zeros((0, queries.num_queries))
        synopses: list[Synopsis | None] = []
        transcript: list[dict[str, object]] = []
        progress = progress or Progress.silent()
        for t in range(1, rounds + 1):
            # SAMPLE S_t ~ D_t^k and REWEIGHT (exponential mechanism over Q, Lemma 6.4; inside the kernel)
            sample = measurer.boosting_draws(queries, answers, lambda_=plan["lambda"], mu=plan["mu"], rounds=rounds,
                                             count=k, epsilon_each=plan["epsilon_per_draw"], reservation=sampling,
                                             label=f"round {t}: sample")
            # BASE SYNOPSIS GENERATOR on S_t (Def. 6.1): (eps_base, delta_base)-DP, or ⊥
            synopsis = self.base.generate(measurer, queries, sample, plan=base_plan, rng=rng, label=f"round {t}")
            indices, counts = np.unique(sample, return_counts=True)
            record: dict[str, object] = {"round": t, "sampled": [[int(i), int(c)] for i, c in zip(indices, counts)],
                                         "base": "⊥" if synopsis is None else "synopsis"}
            if synopsis is not None:
                record.update(synopsis.info)
                answers = np.vstack([answers, synopsis.answers(queries, domain)[None, :]])
            synopses.append(synopsis)
            transcript.append(record)
            progress.step(t, rounds)
        progress.done()
        # OUTPUT: every query answered by the median over the synopses (post-processing)
        kept = [s.counts for s in synopses if s is not None]
        if kept:
            counts = np.stack(kept)
            counts.setflags(write=False)
            model: MedianModel | HistogramModel = MedianModel(domain, base_plan.synopsis_rows, counts, len(kept))
        else:
            model = HistogramModel.uniform(domain)
        return BoostingResult(model, synopses, accountant, transcript, self._parameters(plan, len(kept)))

    def _parameters(self, plan: dict[str, object], synopses: int) -> dict[str, object]:
        base_plan: BasePlan = plan["base_plan"]
        sample_epsilon, sample_delta, rule = plan["sampling_charge"]
        skip = {"base_plan", "sampling_charge", "sensitivity", "epsilon_per_draw"}
        return {
            **{key: value for key, value in plan.items() if key not in skip},
            "epsilon": self.epsilon, "delta": self.delta, "sample_share": self.sample_share,
            "epsilon_per_draw": float(plan["epsilon_per_draw"]), "sensitivity": float(exact(plan["sensitivity"])),
            "sampling_charge": {"epsilon": float(sample_epsilon), "delta": float(sample_delta), "rule": rule},
            "base": base_plan.to_json(), "synopses": synopses,
            "output": "median over the synopses" if synopses else "uniform (every base round returned ⊥)",
            "theorem": "Thm 6.1 (Fig. 6.1, Lemma 6.4, Eq. 6.7 with Thm 3.20 exactly)",
        }


# ----------------------------------------------------------------------------------------- registry entry
#: The base synopsis generators by name (Def. 6.1): the LP synthesizer (Thms 6.7/6.8) and brute force (Thm 6.6).
BASES = {"lp": LPSynthesizer, "bruteforce": BruteForceGenerator}


@dataclass(frozen=True, kw_only=True)
class BoostingMechanism:
    """The registry's ``boosting``: Figure 6.1 over a named base synopsis generator.

    Privacy: (epsilon, delta)-DP, delta > 0 (Thm 6.1): the kT query draws (Lemma 6.4) reserved up front at
    a share of the budget by min(basic, Thm 3.20), each round's base generator its own block (Cor. 3.21).
    """

    name: ClassVar[str] = "boosting"
    summary: ClassVar[str] = ("boosting for queries (Sec. 6, Thm 6.1) over the LP (Thms 6.7-6.8) or brute-force "
                              "(Thm 6.6) base generator; needs delta > 0; arbitrary low-sensitivity queries")
    representations: ClassVar[tuple[str, ...]] = ("histogram",)
    default_delta: ClassVar[float] = 0.0  # Thm 6.1 needs delta > 0: the user chooses it (a clear error otherwise)

    base: str = option("lp", "the base synopsis generator: lp (Thms 6.7/6.8) or bruteforce (Thm 6.6; tiny "
                             "domains and n only)", choices=tuple(BASES))
    rounds: int | None = option(None, "T instead of Thm 6.1's (fewer voids its accuracy; privacy holds)",
                                kind=int)
    max_cells: int = option(DEFAULT_MAX_CELLS, "cap on an explicit histogram's cells", kind=int)

    def __post_init__(self) -> None:
        if not isinstance(self.base, str):
            raise InputTypeError(f"base must be a string, got {type(self.base).__name__}")
        if self.base not in BASES:
            raise InputError(f"base must be one of {list(BASES)}, got {self.base!r}")

    def runner(self, budget: Budget) -> BoostingForQueries:
        """Validated from public choices (delta > 0, the base, the rounds); no data is read."""
        return BoostingForQueries(epsilon=budget.epsilon, delta=budget.delta, base=BASES[self.base](),
                                  rounds=self.rounds)

    def check(self, domain: Domain, workload: object, *, budget: Budget) -> None:
        self.runner(budget)
        histogram_check(domain, self.max_cells)

    def fit(self, table: PrivateTable, workload: object, *, budget: Budget, rng: RandomSource,
            progress: Progress) -> Fitted:
        result = self.runner(budget).run(table, workload, rng=rng, progress=progress)
        spent_e, spent_d = float(result.accountant.spent_epsilon), float(result.accountant.spent_delta)
        guarantee = (f"(epsilon={float(result.accountant.epsilon):g}, delta={float(result.accountant.delta):g})"
                     f"-differential privacy: boosting for queries (Thm 6.1) with the "
                     f"{result.parameters['base']['generator']} base generator; charged epsilon={spent_e:.6g}, "
                     f"delta={spent_d:.3g} (Lemma 6.4, Thm 3.20, Cor. 3.21)")
        model, row_model = release_models(result.model, workload)  # post-processing
        return Fitted(model, row_model, result.accountant, result.transcript, result.parameters, guarantee)
