"""SmallDB (Dwork & Roth Sec. 4.1, Algorithm 4, Prop. 4.1, Prop. 4.4, Thm 4.5).

    R = { y in N^|X| : ||y||_1 = m },  m = floor(ln(2|Q|) / (2 alpha_net^2)) + 1
    u(x, y) = -max_{f in Q} |f(x) - f(y)|
    output y ~ exponential mechanism M_E(x, u, R)

Thm 4.2 guarantees that R holds a database within alpha_net of x on every *linear* query, and the
exponential mechanism loses at most 2 (ln|R| + ln(1/beta)) / (eps n) more (Prop. 4.4). The net's m
is the smallest with 2|Q| exp(-2 m alpha_net^2) < 1 (Hoeffding and a union bound over Q), a net for
every |Q| >= 1; the book's m = ln|Q| / alpha_net^2 is none for |Q| <= 2 (0 rows for |Q| = 1), a
correction recorded in docs/theorems.md. Thm 4.5, redone with this m, runs Algorithm 4 with
alpha_net = alpha / 2 to be alpha-accurate w.p. 1 - beta whenever
n >= (8 ln|X| ln(2|Q|) + 4 ln|X| + 4 ln(1/beta)) / (eps alpha^3), i.e. for
alpha = ((8 ln|X| ln(2|Q|) + 4 ln|X| + 4 ln(1/beta)) / (eps n))^(1/3)
(:func:`~dprelease.bounds.thm_4_5_smalldb_alpha`).

R is enumerated exactly (every histogram of m rows, :mod:`dprelease.representations.nets`), so
SmallDB only runs where C(|X| + m - 1, m) fits under a public cap; above it, a clear
:class:`~dprelease.errors.DomainTooLargeError` is raised before any data is read. Candidate answers
are computed here, publicly; the private step (scoring against the true answers and sampling) is
:meth:`~dprelease.privacy.measurer.PrivateMeasurer.select_database` in the privacy kernel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from dprelease.bounds import thm_4_5_smalldb_alpha
from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.engines.base import PrivateTable
from dprelease.errors import InputError, warn_user
from dprelease.mechanisms.base import Budget, Fitted, histogram_check, option
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import exact
from dprelease.privacy.rng import RandomSource
from dprelease.queries.workload import Workload
from dprelease.representations.histogram import HistogramModel
from dprelease.representations.nets import (
    DEFAULT_MAX_DATABASES,
    DEFAULT_MAX_NET_CELLS,
    all_databases,
    answer_matrix,
    check_net,
    smalldb_size,
)
from dprelease.updates.median import database_model
from dprelease.validation import check_open_unit, check_positive, check_positive_int


@dataclass
class SmallDBResult:
    model: HistogramModel
    counts: np.ndarray
    accountant: PrivacyAccountant
    parameters: dict[str, object]
    transcript: list[dict[str, object]] = field(default_factory=list)


@dataclass(frozen=True, kw_only=True)
class SmallDB:
    """Algorithm 4: the exponential mechanism over every database of m rows.

    Args:
        epsilon: the privacy budget; the run is (epsilon, 0)-DP.
        alpha: target accuracy. The net is Algorithm 4's for alpha/2 (Thm 4.5):
            m = floor(ln(2|Q|) / (2 (alpha/2)^2)) + 1 (Thm 4.2 corrected). ``None``: the alpha of Thm 4.5
            (corrected closed form) at this n, an error when that exceeds 1 (no guarantee).
        beta: failure probability of the accuracy guarantee.
        database_size: use this m instead (Algorithm 4 with any size; voids Thm 4.5's accounting of alpha).
        max_databases, max_cells: public caps on the enumeration.

    Privacy: (epsilon, 0)-DP (Prop. 4.1, an instance of the exponential mechanism, Thm 3.10) with
    utility -max_f |f(x) - f(y)| of sensitivity ``queries.sensitivity(n)`` (1/n for linear queries).
    Accuracy: Prop. 4.4 / Thm 4.5 with the corrected net, for linear queries.
    """

    epsilon: float
    alpha: float | None = None
    beta: float = 0.05
    database_size: int | None = None
    max_databases: int = DEFAULT_MAX_DATABASES
    max_cells: int = DEFAULT_MAX_NET_CELLS

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")
        if self.alpha is not None:
            check_positive(self.alpha, "alpha")
            if self.alpha > 1:
                raise InputError(f"alpha must be a number in (0, 1], got {self.alpha!r}")
        check_open_unit(self.beta, "beta")
        if self.database_size is not None:
            check_positive_int(self.database_size, "database_size")
        check_positive_int(self.max_databases, "max_databases")
        check_positive_int(self.max_cells, "max_cells")

    def plan(self, *, n: int, domain: object, num_queries: int) -> dict[str, object]:
        """Every public parameter, and the net's size checked against the caps, before any data is read."""
        alpha = self.alpha
        theorem_alpha = thm_4_5_smalldb_alpha(n=n, universe_size=domain.size, num_queries=num_queries,
                                      epsilon=self.epsilon, beta=self.beta)
        if alpha is None and self.database_size is None:
            if theorem_alpha > 1:
                raise InputError(
                    f"Thm 4.5 guarantees no alpha <= 1 for n={n}, |X|={domain.size}, |Q|={num_queries}, "
                    f"epsilon={self.epsilon} (it gives {theorem_alpha:.3g}): give alpha to run without the guarantee")
            alpha = theorem_alpha
        size = self.database_size if self.database_size is not None else smalldb_size(alpha=alpha / 2,
                                                                                       num_queries=num_queries)
        count = check_net(domain.size, size, num_queries=num_queries, max_databases=self.max_databases,
                          max_cells=self.max_cells, what="SmallDB's range R")
        guaranteed = alpha is not None and self.database_size is None and alpha >= theorem_alpha
        return {"alpha": alpha, "beta": self.beta, "database_size": size, "candidates": count,
                "theorem_alpha": theorem_alpha, "accuracy_guaranteed": guaranteed,
                "sensitivity": "queries.sensitivity(n) (1/n for linear queries)"}

    def run(self, dataset: Dataset, queries: object, *, rng: RandomSource) -> SmallDBResult:
        plan = self.plan(n=dataset.n, domain=dataset.domain, num_queries=queries.num_queries)
        size = plan["database_size"]
        # R: every database of m rows, and its answers (public).
        counts = all_databases(dataset.domain.size, size, max_databases=self.max_databases, max_cells=self.max_cells)
        candidate_answers = answer_matrix(queries, counts, dataset.domain, size)
        accountant = PrivacyAccountant(epsilon=self.epsilon)
        measurer = PrivateMeasurer(dataset, accountant=accountant, rng=rng)
        # SELECT (exponential mechanism, Alg. 4 / Prop. 4.1): utility -max_f |f(x) - f(y)|.
        index = measurer.select_database(queries, candidate_answers, epsilon=exact(self.epsilon),
                                         label=f"SmallDB: exponential mechanism over {plan['candidates']:,} databases")
        chosen = counts[index]
        parameters = {**plan, "epsilon": self.epsilon, "delta": 0.0}
        transcript = [{"step": "select", "candidates": plan["candidates"], "database_size": size,
                       "epsilon": self.epsilon}]
        return SmallDBResult(database_model(dataset.domain, chosen, size), chosen.copy(), accountant,
                             parameters, transcript)


# ----------------------------------------------------------------------------------------- registry entry
@dataclass(frozen=True, kw_only=True)
class SmallDBMechanism:
    """The registry's ``smalldb``: Algorithm 4 at the user's alpha or Thm 4.5's.

    Privacy: (epsilon, 0)-DP, one exponential-mechanism draw (Prop. 4.1, Thm 3.10) with a utility of
    sensitivity 1/n for linear queries; delta is not used.
    """

    name: ClassVar[str] = "smalldb"
    summary: ClassVar[str] = ("SmallDB (Alg. 4): the exponential mechanism over all small databases; tiny domains, "
                              "the book's one-shot baseline")
    representations: ClassVar[tuple[str, ...]] = ("histogram",)
    default_delta: ClassVar[float] = 0.0  # pure DP unless the user gives a delta

    alpha: float | None = option(None, "target accuracy (default: Thm 4.5's alpha at this n; an error when it "
                                       "exceeds 1)", kind=float)
    max_cells: int = option(DEFAULT_MAX_CELLS, "cap on an explicit histogram's cells", kind=int)

    def check(self, domain: Domain, workload: Workload, *, budget: Budget) -> None:
        histogram_check(domain, self.max_cells)

    def fit(self, table: PrivateTable, workload: Workload, *, budget: Budget, rng: RandomSource,
            progress: Progress) -> Fitted:
        if budget.delta:
            warn_user("SmallDB is (epsilon, 0)-DP in one step: delta is not used", UserWarning)
        result = SmallDB(epsilon=budget.epsilon, alpha=self.alpha).run(table, workload, rng=rng)
        guarantee = (f"(epsilon={budget.epsilon:g}, delta=0)-differential privacy: SmallDB, the exponential "
                     "mechanism (Prop. 4.1)")
        return Fitted(result.model, result.model, result.accountant, result.transcript, result.parameters, guarantee)
