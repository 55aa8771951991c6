"""The iterative construction (IC) mechanism (Dwork & Roth Sec. 5.2, Algorithm 8).

Generic over a T(alpha)-database update algorithm U (Def. 5.4) and an
(F(eps), gamma)-private distinguisher (Def. 5.5):

    D_0 = U(BOT)
    for t = 1 .. T(alpha/2):
        f_t = Distinguish_{eps0}(x, D_{t-1})                 # SELECT
        v_t = f_t(x) + Lap(1 / (n eps0))                      # MEASURE
        if |v_t - f_t(D_{t-1})| < 3 alpha / 4: output D_{t-1}  # STOP
        D_t = U(D_{t-1}, f_t, v_t)                            # UPDATE
    output D_{T(alpha/2)}

Privacy (Thm 5.3): (eps, 0)-DP with eps0 = eps / (2 T(alpha/2)) (basic composition of
2 T(alpha/2) eps0-DP steps); (eps, delta)-DP with eps0 = eps / (4 sqrt(T(alpha/2) ln(1/delta)))
(advanced composition, Thm 3.20). Sensitivity: each query is a normalized linear query,
1/n under the same-size, one-record-differs privacy unit.

Accuracy (Thm 5.4, with Thm 5.5 for the exponential distinguisher): (alpha, beta)-accurate
when alpha >= max(8 ln(2 T(alpha/2)/beta) / (eps0 n), 8 F(eps0)) and gamma <= beta / (2 T(alpha/2)).
A user cap on rounds keeps the mechanism private (eps0 is recomputed for the rounds
allowed) but voids the accuracy theorem; the result says so.

Representations: with multiplicative weights, D_t is an explicit histogram or a factored
(log-linear) model (``MultiplicativeWeights(representation=...)``); the factored model is the
same distribution, so the run, its transcript and its guarantees are the same. An update rule
may define ``for_queries(queries, domain)``: the rule specialised to the public query set, with
its public refusals (queries it cannot apply, a model over the cap). :meth:`IterativeConstruction.run`
calls it, and builds D_0, before any budget is reserved.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

from dprelease.bounds import ic_accuracy_holds, ic_mw_alpha
from dprelease.data import Dataset
from dprelease.distinguishers import ExponentialMechanismDistinguisher, PrivateDistinguisher
from dprelease.errors import InputError, warn_user
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import exact
from dprelease.privacy.rng import RandomSource
from dprelease.representations.factored import FactoredModel
from dprelease.updates.base import DatabaseUpdate
from dprelease.updates.multiplicative_weights import MultiplicativeWeights
from dprelease.validation import check_alpha, check_delta, check_open_unit, check_positive, check_positive_int


class AccuracyNotGuaranteedWarning(UserWarning):
    """The run is private, but the accuracy theorem does not cover its parameters."""


@dataclass
class ICResult:
    model: object
    accountant: PrivacyAccountant
    transcript: list[dict[str, object]]
    parameters: dict[str, object]
    stop_reason: str


@dataclass(frozen=True, kw_only=True)
class IterativeConstruction:
    """Algorithm 8 with a pluggable database update and private distinguisher.

    Args:
        epsilon, delta: the privacy budget; delta = 0 gives pure DP.
        alpha: target accuracy. ``None``: the smallest alpha Thm 5.4 guarantees (MW + exponential
            distinguisher only); an error if the theorem guarantees none at this n.
        beta: failure probability of the accuracy guarantee (sets gamma = beta / (2 T(alpha/2))).
        max_rounds: optional cap on the rounds (private, but voids the accuracy theorem).
    """

    epsilon: float
    delta: float = 0.0
    alpha: float | None = None
    beta: float = 0.05
    max_rounds: int | None = None
    update: DatabaseUpdate = field(default_factory=MultiplicativeWeights)
    distinguisher: PrivateDistinguisher = field(default_factory=ExponentialMechanismDistinguisher)

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")
        check_delta(self.delta)
        if self.alpha is not None:
            check_alpha(self.alpha)
        check_open_unit(self.beta, "beta")
        if self.max_rounds is not None:
            check_positive_int(self.max_rounds, "max_rounds")

    def plan(self, *, n: int, domain: object, num_queries: int) -> dict[str, object]:
        """Every public parameter of the run, computed before any data is read."""
        alpha = self.alpha
        if alpha is None:
            if not isinstance(self.update, MultiplicativeWeights):
                raise InputError("alpha is required for this database update algorithm")
            alpha = ic_mw_alpha(n=n, universe_size=domain.size, num_queries=num_queries,
                                epsilon=self.epsilon, delta=self.delta, beta=self.beta)
            if alpha is None:
                raise InputError(
                    f"Thm 5.4 guarantees no alpha <= 1 for n={n}, |X|={domain.size}, |Q|={num_queries}, "
                    f"epsilon={self.epsilon}: give alpha (--alpha, and --rounds to cap the rounds) to run without the "
                    "accuracy guarantee"
                )
        theorem_rounds = max(1, math.ceil(self.update.max_updates(alpha=alpha / 2, domain=domain)))
        rounds = theorem_rounds if self.max_rounds is None else min(self.max_rounds, theorem_rounds)
        eps = exact(self.epsilon)
        if self.delta == 0:
            epsilon0 = eps / (2 * rounds)  # Thm 5.3, (eps, 0)
        else:
            epsilon0 = Fraction(self.epsilon / (4 * math.sqrt(rounds * math.log(1 / self.delta))))  # Thm 5.3
        gamma = self.beta / (2 * rounds)
        f_eps0 = self.distinguisher.error_bound(epsilon=float(epsilon0), gamma=gamma, n=n, num_queries=num_queries)
        guaranteed = rounds == theorem_rounds and ic_accuracy_holds(
            alpha=alpha, epsilon0=float(epsilon0), n=n, beta=self.beta, rounds=rounds, distinguisher_error=f_eps0)
        return {
            "alpha": alpha, "beta": self.beta, "gamma": gamma, "rounds": rounds, "theorem_rounds": theorem_rounds,
            "epsilon0": epsilon0, "distinguisher_error_F": f_eps0, "stop_threshold": 3 * alpha / 4,
            "accuracy_guaranteed": guaranteed,
        }

    def run(self, dataset: Dataset, queries: object, *, rng: RandomSource, progress: Progress | None = None) -> ICResult:
        plan = self.plan(n=dataset.n, domain=dataset.domain, num_queries=queries.num_queries)
        # Public: the rule's checks of the query set (e.g. the factored model's cap over every query's
        # attribute set) and D_0 = U(BOT), before anything is reserved, spent or drawn.
        update = self.update
        specialise = getattr(update, "for_queries", None)
        if specialise is not None:
            update = specialise(queries, dataset.domain)
        model = update.initial(dataset.domain)
        if not plan["accuracy_guaranteed"]:
            warn_user(
                f"IC with alpha={plan['alpha']:.4g} and {plan['rounds']} rounds is private, but Thm 5.4 does not "
                "guarantee its accuracy at these parameters", AccuracyNotGuaranteedWarning)
        rounds, epsilon0, alpha = plan["rounds"], plan["epsilon0"], plan["alpha"]
        accountant = PrivacyAccountant(epsilon=self.epsilon, delta=self.delta)
        # Thm 5.3: 2T steps of eps0 (basic for (eps, 0); Thm 3.20 with delta' = delta for (eps, delta)),
        # charged before anything runs: stopping early is data-dependent and saves nothing.
        reservation = accountant.reserve(epsilon_each=epsilon0, count=2 * rounds, label=f"IC: {rounds} rounds",
                                         delta_slack=self.delta if self.delta > 0 else None)
        measurer = PrivateMeasurer(dataset, accountant=accountant, rng=rng, reservation=reservation)
        transcript: list[dict[str, object]] = []
        stop_reason = f"ran all {rounds} rounds"
        progress = progress or Progress.silent()
        for t in range(1, rounds + 1):
            estimates = update.answers(model, queries)
            # SELECT: the private distinguisher (Def. 5.5; exponential mechanism, Thm 5.5)
            index = self.distinguisher.select(measurer, queries, estimates, epsilon=epsilon0, label=f"round {t}: select")
            query = queries.query(index)
            # MEASURE: Laplace(1 / (n eps0)) on the chosen query
            noisy = measurer.laplace_query(query, epsilon=epsilon0, label=f"round {t}: measure")
            estimate = float(estimates[index])
            record = {"round": t, "query_index": int(index), "query": query.name, "noisy_answer": noisy,
                      "model_answer": estimate, "epsilon": float(2 * epsilon0)}
            # STOP when D_{t-1} already answers f_t within 3 alpha / 4
            if abs(noisy - estimate) < 3 * alpha / 4:
                record["action"] = "stop"
                transcript.append(record)
                stop_reason = f"round {t}: |v_t - f_t(D)| < 3 alpha / 4"
                break
            # UPDATE: D_t = U(D_{t-1}, f_t, v_t). U gets IC's own alpha, where the book's proof runs U at alpha/2
            # (it has T(alpha/2) rounds). T(alpha/2) still bounds the updates, because IC updates on a wider gap
            # than a database update sequence at alpha/2 needs. An update means |v_t - f_t(D)| >= 3 alpha/4; on
            # Thm 5.4's event the noise is below alpha/8 (8 ln(2T/beta) / (eps0 n) <= alpha), so |f_t(x) - v_t| <
            # alpha/8 and the true gap is g = |f_t(x) - f_t(D)| > 3 alpha/4 - alpha/8 = 5 alpha/8, with v_t on
            # f_t(x)'s side of f_t(D). Then, per update:
            #   MW (eta = alpha/2): KL(x || x^t) drops by >= eta g - eta^2 > 5 alpha^2/16 - alpha^2/4 = (alpha/2)^2 / 4
            #     (Lemma 4.12), Thm 4.10's drop at alpha/2, so there are <= ln|X| / ((alpha/2)^2 / 4) = T_MW(alpha/2);
            #   perceptron (step alpha/|X|): ||x - x^t||_2^2 drops by >= (2 alpha g - alpha^2) / |X|
            #     > (alpha/2)^2 / |X|, Thm 5.11's drop at alpha/2, so there are <= r^2 |X| / (alpha/2)^2 = T_P(alpha/2);
            #   median (its net built for alpha/2 by the caller): the net point y within alpha/2 of x has
            #     |f_t(y) - v_t| < alpha/2 + alpha/8 < 3 alpha/4 <= |v_t - f_t(D)|, so it is never removed (Thm 5.8).
            # Both drops need exactly g >= 5 alpha/8. tests/test_ic.py runs IC against an adversary that updates at
            # the smallest such gap and checks the drops and the count <= T(alpha/2).
            model = update.update(model, query, noisy, alpha=alpha)
            record["action"] = "update"
            transcript.append(record)
            progress.step(t, rounds)
        progress.done()
        spent_note = reservation.charge.rule
        parameters = {**{k: (float(v) if isinstance(v, Fraction) else v) for k, v in plan.items()},
                      "epsilon": self.epsilon, "delta": self.delta, "update": self.update.name,
                      "distinguisher": self.distinguisher.name, "composition": spent_note}
        if isinstance(model, FactoredModel):
            parameters.update({"representation": "factored", "max_model_cells": model.max_model_cells,
                               "model_cells": model.tree.total_cells})
        elif isinstance(update, MultiplicativeWeights):
            parameters["representation"] = "histogram"
        return ICResult(model, accountant, transcript, parameters, stop_reason)
