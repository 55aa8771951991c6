"""The base synopsis generator for arbitrary queries (Dwork & Roth Thm 6.6), by brute force.

Proof of Thm 6.6 (pp.133-134), step by step:

    S = k queries sampled i.i.d. from D                           # done by boosting (Lemma 6.4)
    v_q = q(x) + Lap(b) for each q in S, b = 2 sqrt(2 k ln(1/delta)) rho / eps     # MEASURE (Cor. 3.21)
    for y in every database of n rows, in lexicographic order:    # public enumeration
        if |q(y) - v_q| <= lambda / 2 for every q in S: output y
    output ⊥

with m = n log2|X| bits, k = the smallest integer > 6 (m + ln(2/beta)) and lambda = 2 b ln(2k/beta)
(``dprelease.bounds.thm_6_6_base_generator``; the proof's b, [BOOK ISSUE] in docs/theorems.md). W.p.
>= 1 - beta/2 every |v_q - q(x)| <= lambda/2, so x itself passes and the output is within lambda of x on
S; Lemma 6.5 (gamma = beta/2) lifts that to a 2/3 fraction of D (eta = 1/3).

The enumeration holds C(|X| + n - 1, n) databases (:mod:`dprelease.representations.nets`); it runs
only for tiny X and n, and above a public cap raises :class:`~dprelease.errors.DomainTooLargeError`
before any data is read. The candidates' answers are computed once, publicly, in :meth:`plan`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dprelease.boosting.base import (
    BasePlan,
    Synopsis,
    check_base_parameters,
    check_sample,
    laplace_block,
    unique_sample,
)
from dprelease.bounds.boosting import thm_6_6_base_generator
from dprelease.domain import Domain
from dprelease.errors import InputError
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import RandomSource
from dprelease.representations.nets import (
    DEFAULT_MAX_DATABASES,
    DEFAULT_MAX_NET_CELLS,
    all_databases,
    answer_matrix,
    check_net,
)
from dprelease.validation import check_positive, check_positive_int


@dataclass(frozen=True, kw_only=True)
class BruteForceGenerator:
    """Thm 6.6: an (eps, delta)-DP (k, lambda, 1/3, beta)-base synopsis generator for any queries of sensitivity rho.

    Args:
        lambda_: the acceptance radius is lambda_/2. ``None`` (default): the theorem's lambda. Privacy never
            depends on it; a smaller value voids Def. 6.1's guarantee (more ⊥), a larger one keeps it.
        max_databases, max_cells: public caps on the enumeration (see ``nets.check_net``).

    Privacy: (eps, delta)-DP. The k Laplace measurements of sensitivity rho = ``queries.sensitivity(n)`` at
    epsilon_each = eps / (2 sqrt(2 k ln(1/delta))) are charged as one block, min(basic, Thm 3.20)
    <= (eps, delta) (Cor. 3.21); the search is post-processing.
    """

    lambda_: float | None = None
    max_databases: int = DEFAULT_MAX_DATABASES
    max_cells: int = DEFAULT_MAX_NET_CELLS
    name: str = "bruteforce"
    eta: float = 1 / 3

    def __post_init__(self) -> None:
        if self.lambda_ is not None:
            check_positive(self.lambda_, "lambda_")
        check_positive_int(self.max_databases, "max_databases")
        check_positive_int(self.max_cells, "max_cells")

    def plan(self, *, n: int, domain: Domain, queries: object, epsilon: float, delta: float,
             beta: float) -> BasePlan:
        """Thm 6.6's k and lambda, the Laplace block, and every candidate database's answers (public)."""
        check_base_parameters(n=n, epsilon=epsilon, delta=delta, beta=beta)
        if domain.size < 2:
            raise InputError(f"Thm 6.6 needs |X| >= 2, got {domain.size}")
        count = check_net(domain.size, n, num_queries=queries.num_queries, max_databases=self.max_databases,
                          max_cells=self.max_cells, what="the brute-force base generator (Thm 6.6)")
        rho = queries.sensitivity(n)
        theorem = thm_6_6_base_generator(n=n, universe_size=domain.size, rho=float(rho), epsilon_base=epsilon,
                                         delta_base=delta, beta=beta)
        k = int(theorem["k"])
        each, block_epsilon, block_delta = laplace_block(epsilon=epsilon, delta=delta, k=k)
        lambda_ = theorem["lambda"] if self.lambda_ is None else self.lambda_
        counts = all_databases(domain.size, n, max_databases=self.max_databases, max_cells=self.max_cells)
        answers = answer_matrix(queries, counts, domain, n)  # (databases, |Q|): public
        return BasePlan(
            generator=self.name, theorem="Thm 6.6 (proof's Laplace scale, Cor. 3.21)", k=k, lambda_=lambda_,
            eta=self.eta, beta=beta, epsilon=epsilon, delta=delta, epsilon_each=each,
            laplace_scale=float(rho / each), block_epsilon=block_epsilon, block_delta=block_delta,
            synopsis_rows=n, bits=theorem["bits"],
            details={"databases": count, "theorem_lambda": theorem["lambda"],
                     "lambda_is_theorems": self.lambda_ is None or self.lambda_ >= theorem["lambda"]},
            public={"counts": counts, "answers": answers})

    def generate(self, measurer: PrivateMeasurer, queries: object, sample: np.ndarray, *, plan: BasePlan,
                 rng: RandomSource, label: str) -> Synopsis | None:
        """The lexicographically first database of n rows within lambda/2 of every noisy answer, or ⊥."""
        sample = check_sample(sample, plan, queries.num_queries)
        # MEASURE (Laplace, Cor. 3.21): k answers, one block of the ledger
        noisy = measurer.laplace_queries(queries, sample, epsilon_each=plan.epsilon_each, delta_slack=plan.delta,
                                         label=f"{label}: {plan.k} Laplace measurements (Thm 6.6)")
        # SEARCH (post-processing): y passes iff max_v - lambda/2 <= q(y) <= min_v + lambda/2 per distinct q
        index, lows, highs, _, _ = unique_sample(sample, noisy)
        half = plan.lambda_ / 2
        candidate = plan.public["answers"][:, index]
        passes = np.all((candidate >= highs - half) & (candidate <= lows + half), axis=1)
        hits = np.flatnonzero(passes)
        if hits.size == 0:
            return None
        first = int(hits[0])  # nets.iter_databases enumerates in lexicographic order
        counts = np.asarray(plan.public["counts"][first], dtype=np.int64)
        return Synopsis(counts, plan.synopsis_rows, {"database_index": first, "passing": int(hits.size)})
