"""The iterative construction's registry entries: ``ic-mw``, ``ic-median`` and ``ic-perceptron``.

Each entry is Algorithm 8 (:class:`~dprelease.mechanisms.iterative_construction.IterativeConstruction`)
with one database update rule, configured from public parameters:

* the target alpha (given, or the smallest the theorems guarantee: :mod:`dprelease.bounds`);
* for multiplicative weights, the model: an explicit histogram or a factored (log-linear) model,
  checked against the workload (product-form queries, the model-size cap) before any data is read;
* for the median mechanism, the smaller valid net for alpha/2 (Thm 5.9's all-databases net or the
  SmallDB net of Remark 5.2, m = floor(ln(2|Q|) / (2 (alpha/2)^2)) + 1 rows: Thm 4.2 corrected, a net for
  every |Q|), checked against the public caps *before* any data is read;
* the release: what a synthetic table and the workload answers are made of (post-processing).

Everything here uses public information only (n, the domain, the workload, the budget).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dprelease.bounds import ic_median_alpha, ic_perceptron_alpha
from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.engines.base import PrivateTable
from dprelease.errors import InputError
from dprelease.mechanisms.base import Budget, Fitted, histogram_check, option
from dprelease.mechanisms.iterative_construction import IterativeConstruction
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.rng import RandomSource
from dprelease.queries.workload import Workload
from dprelease.representations import REPRESENTATIONS
from dprelease.representations.factored import FactoredModel
from dprelease.representations.histogram import HistogramModel
from dprelease.representations.nets import DEFAULT_MAX_DATABASES, DEFAULT_MAX_NET_CELLS
from dprelease.updates.base import DatabaseUpdate
from dprelease.updates.median import MedianMechanism, MedianModel, smallest_net
from dprelease.updates.multiplicative_weights import MultiplicativeWeights
from dprelease.updates.perceptron import Perceptron, SignedHistogram

#: IC's public accuracy-theorem parameters: beta (failure probability) and the perceptron's bound on
#: ||x||_2 / ||x||_1 (1 holds for every table).
BETA = 0.05
NORM_RATIO_BOUND = 1.0


def _required(alpha: float | None, theorems: str, kw: dict[str, object]) -> float:
    if alpha is None:
        raise InputError(
            f"{theorems} guarantee no alpha <= 1 for n={kw['n']}, |X|={kw['universe_size']}, |Q|={kw['num_queries']}, "
            f"epsilon={kw['epsilon']}: give alpha (--alpha, and --rounds to cap the rounds) to run without the accuracy "
            "guarantee")
    return alpha


@dataclass(frozen=True, kw_only=True)
class _IterativeConstructionEntry:
    """What the three IC entries share: the options, the run, the guarantee and the release models.

    Privacy (Thm 5.3): (epsilon, 0)-DP with eps0 = epsilon / (2 T) by basic composition, or
    (epsilon, delta)-DP with eps0 = epsilon / (4 sqrt(T ln(1/delta))) by advanced composition (Thm 3.20),
    the whole plan of 2T steps charged up front; queries of sensitivity 1/n (the same-size privacy unit).
    """

    representations: ClassVar[tuple[str, ...]] = ("histogram",)
    default_delta: ClassVar[float] = 0.0  # pure DP unless the user gives a delta

    alpha: float | None = option(None, "target accuracy (default: the smallest alpha the theorems guarantee; "
                                       "an error when they guarantee none)", kind=float)
    rounds: int | None = option(None, "a cap on the rounds (private, but voids Thm 5.4)", kind=int)
    max_cells: int = option(DEFAULT_MAX_CELLS, "cap on an explicit histogram's cells", kind=int)

    def update_rule(self, *, n: int, domain: Domain, workload: Workload,
                    budget: Budget) -> tuple[DatabaseUpdate, float | None]:
        """The update rule and the alpha to run it at (``None``: IC solves it); public checks only."""
        raise NotImplementedError

    def check(self, domain: Domain, workload: Workload, *, budget: Budget) -> None:
        histogram_check(domain, self.max_cells)

    def fit(self, table: PrivateTable, workload: Workload, *, budget: Budget, rng: RandomSource,
            progress: Progress) -> Fitted:
        update, alpha = self.update_rule(n=table.n, domain=table.domain, workload=workload, budget=budget)
        runner = IterativeConstruction(epsilon=budget.epsilon, delta=budget.delta, alpha=alpha,
                                       max_rounds=self.rounds, update=update)
        result = runner.run(table, workload, rng=rng, progress=progress)
        guarantee = (f"(epsilon={budget.epsilon:g}, delta={budget.delta:g})-differential privacy: iterative "
                     f"construction (Thm 5.3), {result.parameters['composition']}")
        model, row_model = release_models(result.model, workload)  # post-processing
        return Fitted(model, row_model, result.accountant, result.transcript,
                      {**result.parameters, "stop_reason": result.stop_reason}, guarantee)

    def theorem_arguments(self, *, n: int, domain: Domain, workload: Workload, budget: Budget) -> dict[str, object]:
        return {"n": n, "universe_size": domain.size, "num_queries": workload.num_queries,
                "epsilon": budget.epsilon, "delta": budget.delta, "beta": BETA}


@dataclass(frozen=True, kw_only=True)
class ICMWMechanism(_IterativeConstructionEntry):
    """``ic-mw``: Algorithm 8 with multiplicative weights (Thm 4.10) and the exponential distinguisher (Thm 5.5).

    MW's model is an explicit histogram or a factored model over *all* the workload's marginals (MW may
    update on any of them), checked against its cap before any data is read.

    Privacy: Thm 5.3 (see :class:`_IterativeConstructionEntry`): (epsilon, 0)-DP by basic composition, or
    (epsilon, delta)-DP by advanced composition (Thm 3.20), of 2T steps on queries of sensitivity 1/n.
    Accuracy: Thms 4.10, 5.4, 5.5.
    """

    name: ClassVar[str] = "ic-mw"
    summary: ClassVar[str] = ("the book's iterative construction (Alg. 8) with multiplicative weights and the "
                              "exponential mechanism: the book's accuracy guarantee, for large n")
    representations: ClassVar[tuple[str, ...]] = ("histogram", "factored")

    representation: str = option("auto", "the model: histogram, factored (over all the workload's marginals, "
                                 "checked against its cap first) or auto", choices=REPRESENTATIONS)
    max_model_cells: int | None = option(None, "cap on the factored model's junction-tree cells (default "
                                         "2,000,000)", kind=int)

    def rule(self) -> MultiplicativeWeights:
        cap = {} if self.max_model_cells is None else {"max_model_cells": self.max_model_cells}
        return MultiplicativeWeights(max_cells=self.max_cells, representation=self.representation, **cap)

    def check(self, domain: Domain, workload: Workload, *, budget: Budget) -> None:
        if self.representation == "histogram":
            histogram_check(domain, self.max_cells)
        self.rule().check_queries(workload, domain)  # the model over all the workload's marginals must fit

    def update_rule(self, *, n: int, domain: Domain, workload: Workload,
                    budget: Budget) -> tuple[DatabaseUpdate, float | None]:
        return self.rule().for_queries(workload, domain), self.alpha  # the public caps, before any data is read


@dataclass(frozen=True, kw_only=True)
class ICMedianMechanism(_IterativeConstructionEntry):
    """``ic-median``: Algorithm 8 with the median mechanism over an alpha/2-net (Thms 5.8-5.10).

    Privacy: Thm 5.3, as every IC entry (basic or advanced composition of 2T steps, sensitivity 1/n).
    """

    name: ClassVar[str] = "ic-median"
    summary: ClassVar[str] = ("iterative construction with the median mechanism over an alpha-net (Thms "
                              "5.8-5.10): tiny domains; also non-linear queries (Python API)")

    def update_rule(self, *, n: int, domain: Domain, workload: Workload,
                    budget: Budget) -> tuple[DatabaseUpdate, float | None]:
        kw = self.theorem_arguments(n=n, domain=domain, workload=workload, budget=budget)
        alpha = self.alpha if self.alpha is not None else _required(ic_median_alpha(**kw), "Thms 5.8 + 5.4", kw)
        # IC's updates form a database update sequence at alpha/2, so the net must be an alpha/2-net: Thm 5.9's
        # n rows, or the SmallDB net's floor(ln(2|Q|) / (2 (alpha/2)^2)) + 1 rows (Hoeffding: a net for every |Q|,
        # where the book's ln|Q| / (alpha/2)^2 is none for |Q| <= 2), whichever is smaller.
        kind, _ = smallest_net(n=n, alpha=alpha / 2, num_queries=workload.num_queries, linear=True)
        caps = {"max_databases": DEFAULT_MAX_DATABASES, "max_cells": DEFAULT_MAX_NET_CELLS}
        rule = (MedianMechanism.all_databases(n=n, **caps) if kind == "all-databases"
                else MedianMechanism.smalldb_net(alpha=alpha / 2, num_queries=workload.num_queries, **caps))
        rule.check_queries(workload, domain)  # the public cap, before any data is read
        return rule, alpha


@dataclass(frozen=True, kw_only=True)
class ICPerceptronMechanism(_IterativeConstructionEntry):
    """``ic-perceptron``: Algorithm 8 with the perceptron (Thms 5.11-5.12), norm-ratio bound 1.

    Privacy: Thm 5.3, as every IC entry (basic or advanced composition of 2T steps, sensitivity 1/n).
    """

    name: ClassVar[str] = "ic-perceptron"
    summary: ClassVar[str] = ("iterative construction with the perceptron (Thms 5.11-5.12): dense data, n much "
                              "larger than |X|")

    def update_rule(self, *, n: int, domain: Domain, workload: Workload,
                    budget: Budget) -> tuple[DatabaseUpdate, float | None]:
        kw = self.theorem_arguments(n=n, domain=domain, workload=workload, budget=budget)
        alpha = self.alpha if self.alpha is not None else _required(
            ic_perceptron_alpha(**kw, norm_ratio_bound=NORM_RATIO_BOUND), "Thms 5.11 + 5.4", kw)
        return Perceptron(norm_ratio_bound=NORM_RATIO_BOUND, max_cells=self.max_cells), alpha


def release_models(model: object, workload: object) -> tuple[object, HistogramModel | FactoredModel]:
    """(what answers the workload, what synthetic rows are drawn from), both post-processing of the IC output.

    * MW: the distribution itself (a histogram or a factored model), for both.
    * Perceptron: the Euclidean projection of x^t / n onto the probability simplex, for both (the raw
      vector may be negative; IC itself answered with the raw vector).
    * Median mechanism: the workload answers are the medians over the surviving candidates (the
      structure's answers, Def. 5.6, which the theorems bound); rows come from the surviving candidate
      closest to those medians.
    """
    if isinstance(model, SignedHistogram):
        projected = model.projected()
        return projected, projected
    if isinstance(model, MedianModel):
        return model, model.representative(workload)
    return model, model
