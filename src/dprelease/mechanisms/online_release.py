"""The registry's ``online-mw``: online private MW (Alg. 6) answering a workload's counting queries as a stream.

Every cell of every workload marginal is one counting query, asked in the workload's order; the
release's answers are the session's answers (from the public hypothesis or a noisy measurement, clipped
to [0, 1]), and the synthetic rows come from the final hypothesis x^t. This is Hardt & Rothblum's use
of private MW for offline query release; for queries that arrive one at a time, chosen after earlier
answers, use the session itself (:class:`~dprelease.mechanisms.online_mw.OnlinePrivateMW`,
``dprelease online``).

Privacy: (epsilon, delta)-DP by Thm 4.13: the table is read only through NumericSparse (Thm 3.27) with
queries of sensitivity 1/n, its whole plan charged when the session starts. Once the session is
exhausted (its cut-off c of updates), the remaining cells are answered from the public hypothesis:
post-processing, no further charge.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.engines.base import PrivateTable
from dprelease.errors import InputError
from dprelease.mechanisms.base import Budget, Fitted, histogram_check, option
from dprelease.mechanisms.online_mw import OnlinePrivateMW
from dprelease.mechanisms.online_plan import OnlineMWPlan
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.rng import RandomSource
from dprelease.queries.workload import Workload
from dprelease.representations import REPRESENTATIONS
from dprelease.representations.factored import DEFAULT_MAX_MODEL_CELLS
from dprelease.updates.multiplicative_weights import MultiplicativeWeights


@dataclass(frozen=True)
class StreamAnswers:
    """The session's answers, one array per workload marginal, as a marginal source (public)."""

    domain: Domain
    by_marginal: dict[tuple[str, ...], np.ndarray]

    def marginal(self, attributes) -> np.ndarray:
        return self.by_marginal[tuple(attributes)]


@dataclass(frozen=True, kw_only=True)
class OnlineMWMechanism:
    """Online private MW over the workload's cells.

    Privacy: (epsilon, delta)-DP (Thm 4.13): NumericSparse (Thm 3.27) on queries of sensitivity 1/n, the
    whole plan charged up front; answers after the cut-off come from the public hypothesis.
    """

    name: ClassVar[str] = "online-mw"
    summary: ClassVar[str] = ("online private multiplicative weights (Alg. 6, Thms 4.13-4.15) answering every "
                              "workload cell as a stream; queries one at a time: `dprelease online`")
    representations: ClassVar[tuple[str, ...]] = ("histogram", "factored")
    default_delta: ClassVar[float] = 0.0  # pure DP unless the user gives a delta

    alpha: float | None = option(None, "target accuracy (default: the smallest alpha Thm 4.14/4.15 gives for "
                                       "the workload's number of cells)", kind=float)
    representation: str = option("auto", "the hypothesis: histogram, factored or auto", choices=REPRESENTATIONS)
    max_model_cells: int | None = option(None, "cap on the factored hypothesis's junction-tree cells", kind=int)
    max_cells: int = option(DEFAULT_MAX_CELLS, "cap on an explicit histogram's cells", kind=int)

    def plan(self, *, n: int, domain: Domain, workload: Workload, budget: Budget) -> OnlineMWPlan:
        """The session's public plan: the stream is the workload's cells, so |Q| is their number."""
        given = {"max_queries": workload.num_queries} if self.alpha is None else {"alpha": self.alpha}
        plan = OnlineMWPlan.solve(n=n, universe_size=domain.size, epsilon=budget.epsilon, delta=budget.delta,
                                  **given)
        if plan.max_queries < workload.num_queries:
            raise InputError(f"alpha={self.alpha:g} supports a stream of {plan.max_queries} queries, but the workload "
                             f"has {workload.num_queries} cells: give a larger alpha, or none")
        return plan

    def check(self, domain: Domain, workload: Workload, *, budget: Budget) -> None:
        rule = MultiplicativeWeights(max_cells=self.max_cells, representation=self.representation,
                                     max_model_cells=self.max_model_cells or DEFAULT_MAX_MODEL_CELLS)
        if rule.resolved_representation(domain) == "histogram":
            histogram_check(domain, self.max_cells)

    def fit(self, table: PrivateTable, workload: Workload, *, budget: Budget, rng: RandomSource,
            progress: Progress) -> Fitted:
        plan = self.plan(n=table.n, domain=table.domain, workload=workload, budget=budget)
        session = OnlinePrivateMW(table, epsilon=budget.epsilon, delta=budget.delta, alpha=plan.alpha, rng=rng,
                                  max_cells=self.max_cells, representation=self.representation,
                                  max_model_cells=self.max_model_cells or DEFAULT_MAX_MODEL_CELLS)
        answers = np.empty(workload.num_queries)
        sources: dict[str, int] = {}
        for i in range(workload.num_queries):
            if session.exhausted:  # after the cut-off: the public hypothesis answers (post-processing)
                answers[i] = float(np.clip(workload.query(i).evaluate(session.model), 0.0, 1.0))
                sources["hypothesis after the cut-off"] = sources.get("hypothesis after the cut-off", 0) + 1
            else:
                answer = session.ask(workload.query(i))
                answers[i] = answer.value
                sources[answer.source] = sources.get(answer.source, 0) + 1
            progress.step(i + 1, workload.num_queries)
        progress.done()
        offsets = np.cumsum([0] + [workload.cells(m) for m in workload.marginals])
        by_marginal = {m: answers[offsets[j]:offsets[j + 1]].reshape([table.domain.size_of(a) for a in m])
                       for j, m in enumerate(workload.marginals)}
        guarantee = (f"(epsilon={budget.epsilon:g}, delta={budget.delta:g})-differential privacy: online private "
                     f"multiplicative weights (Alg. 6) via NumericSparse ({plan.theorem}, Thms 3.27, 4.13)")
        transcript = [{"step": "stream", "queries": workload.num_queries, "answered_from": sources,
                       "updates_used": session.updates_used}]
        parameters = {**session.describe()["plan"], "representation": session.representation}
        return Fitted(StreamAnswers(table.domain, by_marginal), session.model, session.accountant, transcript,
                      parameters, guarantee)
