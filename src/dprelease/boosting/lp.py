"""The base synopsis generator for linear queries: the LP synthesizer (Dwork & Roth Thms 6.7, 6.8).

One round, following the proofs (pp.134-138):

    v_s = q_s(x) + Lap(b), s = 1..k,  b = 2 sqrt(2 k ln(1/delta)) rho / eps         # MEASURE (Cor. 3.21)
    find a in R^X:  a >= 0,  sum_i a_i = 1,                                          # LP (Thm 6.7)
                    v_s - t <= <q_s, a> <= v_s + t   for every sampled s
    a_i <- a_i rounded down to a multiple of a_r / |X|                              # ROUND
    y   <- n' rows drawn i.i.d. from the rounded database                           # SUBSAMPLE
    output y (a database of n' rows), or ⊥ if the LP is infeasible

For a counting query <q, a> = sum_{i: q(i)=1} a_i; a general [0, 1]-valued linear query uses its vector.
Every constant (t, a_r, n', k, lambda) is :func:`dprelease.bounds.thm_6_8_lp_base_generator`'s, derived
from the proofs because Thm 6.8 states only O(.): with t = b ln(3k/beta), x itself is feasible w.p.
1 - beta/3, so any solution is within 2t of x on the sample; rounding moves an answer by at most
a_r/(1 - a_r); subsampling by s (Hoeffding); Lemma 6.5 lifts the fit to 2/3 of D (eta = 1/3).

**Which feasible point.** Any feasible a meets Thm 6.7. HiGHS is asked for the one minimising
sum over distinct sampled q of mult_q |<q, a> - med_q|, with med_q the median of q's noisy answers
in the sample (the maximum-likelihood estimate under Laplace noise) and mult_q its multiplicity: a
choice among feasible points made from noisy answers only, i.e. post-processing. Constraint matrices
are ``scipy.sparse``; a query sampled several times contributes its tightest interval.

Everything after the kernel's ``laplace_queries`` is post-processing; the subsample uses the run's rng.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

from dprelease.boosting.base import (
    BasePlan,
    Synopsis,
    check_base_parameters,
    check_sample,
    laplace_block,
    unique_sample,
)
from dprelease.bounds.boosting import thm_6_8_lp_base_generator
from dprelease.domain import Domain
from dprelease.errors import DomainTooLargeError, InputError
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import RandomSource
from dprelease.representations.nets import (
    DEFAULT_MAX_NET_CELLS,
    answer_matrix,
    is_linear_query_set,
)
from dprelease.validation import check_positive, check_positive_int


def query_matrix(queries: object, domain: Domain, *, max_cells: int = DEFAULT_MAX_NET_CELLS) -> np.ndarray:
    """The ``(|Q|, |X|)`` matrix of q(i) for every linear query q and cell i (public; checked against a cap)."""
    if not is_linear_query_set(queries):
        raise InputError("the LP synthesizer answers linear queries only (Thms 6.7, 6.8); for other queries use "
                         "the brute-force base generator (Thm 6.6)")
    if domain.size * queries.num_queries > max_cells:
        raise DomainTooLargeError(
            f"the LP synthesizer's query matrix has |Q| x |X| = {queries.num_queries:,} x {domain.size:,} entries, "
            f"above max_cells={max_cells:,}; use fewer queries or cells, or raise the cap")
    cells = np.eye(domain.size, dtype=np.uint8)  # the point-mass databases: q(e_i) = q(i)
    return np.ascontiguousarray(answer_matrix(queries, cells, domain, 1).T)


def solve_synthesis_lp(vectors: np.ndarray, lower: np.ndarray, upper: np.ndarray, *,
                       target: np.ndarray | None = None, weights: np.ndarray | None = None) -> np.ndarray | None:
    """A fractional database a (a >= 0, sum a = 1) with lower <= vectors @ a <= upper, or ``None`` if infeasible.

    ``vectors`` is ``(m, |X|)``, one query vector per row. With ``target`` the solution minimises
    sum_j weights_j |<vectors_j, a> - target_j|; otherwise any feasible point. Solved by HiGHS
    (``scipy.optimize.linprog(method="highs")``) on sparse matrices; any status but "optimal" is ⊥.
    The result is clipped at 0 and renormalised (HiGHS's feasibility tolerance is 1e-7).

    >>> a = solve_synthesis_lp(np.array([[1.0, 0.0]]), np.array([0.2]), np.array([0.3]))
    >>> bool(0.2 - 1e-7 <= a[0] <= 0.3 + 1e-7), round(float(a.sum()), 12)
    (True, 1.0)
    """
    q = sp.csr_matrix(np.asarray(vectors, dtype=np.float64))
    m, cells = q.shape
    lower, upper = np.asarray(lower, dtype=np.float64), np.asarray(upper, dtype=np.float64)
    if np.any(lower > upper):
        return None  # an empty interval: infeasible without asking the solver
    if target is None:
        cost = np.zeros(cells)
        a_ub = sp.vstack([q, -q], format="csr")
        b_ub = np.concatenate([upper, -lower])
        a_eq = sp.csr_matrix(np.ones((1, cells)))
        bounds = [(0, None)] * cells
    else:
        weights = np.ones(m) if weights is None else np.asarray(weights, dtype=np.float64)
        cost = np.concatenate([np.zeros(cells), weights])
        zeros, eye = sp.csr_matrix((m, m)), sp.identity(m, format="csr")
        a_ub = sp.vstack([sp.hstack([q, zeros]), sp.hstack([-q, zeros]),     # the book's constraints
                          sp.hstack([q, -eye]), sp.hstack([-q, -eye])],      # e_j >= |<q_j, a> - target_j|
                         format="csr")
        b_ub = np.concatenate([upper, -lower, target, -np.asarray(target, dtype=np.float64)])
        a_eq = sp.hstack([sp.csr_matrix(np.ones((1, cells))), sp.csr_matrix((1, m))], format="csr")
        bounds = [(0, None)] * (cells + m)
    result = linprog(cost, A_ub=a_ub, b_ub=b_ub, A_eq=a_eq, b_eq=np.ones(1), bounds=bounds, method="highs")
    if result.status != 0 or result.x is None:
        return None
    a = np.clip(result.x[:cells], 0.0, None)
    total = a.sum()
    return a / total if total > 0 else None


def round_down(fractions: np.ndarray, *, alpha: float) -> np.ndarray:
    """Integer counts c with c_i alpha/|X| = a_i rounded down to a multiple of alpha/|X| (Thm 6.7's rounding).

    Each a_i moves by less than alpha/|X| (a 1e-9 relative slack absorbs float error at exact
    multiples); the counts describe a database of sum(c) <= |X|/alpha rows.
    """
    a = np.asarray(fractions, dtype=np.float64)
    check_positive(alpha, "alpha")
    return np.floor(a * a.size / alpha + 1e-9).astype(np.int64)


@dataclass(frozen=True, kw_only=True)
class LPSynthesizer:
    """Thms 6.7/6.8: an (eps, delta)-DP (k, lambda, 1/3, beta)-base synopsis generator for linear queries.

    Args:
        subsample_alpha: a_s in the book's n' = ceil(ln k ln(1/beta) / a_s^2); ``None`` (default): the
            public choice minimising lambda (``thm_6_8_lp_base_generator``).
        synopsis_rows: give n' directly instead (k, lambda follow from it).
        max_cells: cap on the public |Q| x |X| query matrix.

    Privacy: (eps, delta)-DP. The k Laplace measurements of sensitivity rho = ``queries.sensitivity(n)``
    (1/n) at epsilon_each = eps / (2 sqrt(2 k ln(1/delta))) are charged as one block, min(basic,
    Thm 3.20) <= (eps, delta) (Cor. 3.21); the LP, rounding and subsample are post-processing.
    """

    subsample_alpha: float | None = None
    synopsis_rows: int | None = None
    max_cells: int = DEFAULT_MAX_NET_CELLS
    name: str = "lp"
    eta: float = 1 / 3

    def __post_init__(self) -> None:
        if self.subsample_alpha is not None:
            check_positive(self.subsample_alpha, "subsample_alpha")
        if self.synopsis_rows is not None:
            check_positive_int(self.synopsis_rows, "synopsis_rows")
            if self.subsample_alpha is not None:
                raise InputError("give subsample_alpha or synopsis_rows, not both")
        check_positive_int(self.max_cells, "max_cells")

    def plan(self, *, n: int, domain: Domain, queries: object, epsilon: float, delta: float,
             beta: float) -> BasePlan:
        """The proof's constants, the Laplace block and the public query matrix."""
        check_base_parameters(n=n, epsilon=epsilon, delta=delta, beta=beta)
        matrix = query_matrix(queries, domain, max_cells=self.max_cells)
        rho = queries.sensitivity(n)
        kw = {"n": n, "universe_size": domain.size, "rho": float(rho), "epsilon_base": epsilon,
              "delta_base": delta, "beta": beta}
        theory = thm_6_8_lp_base_generator(**kw, subsample_alpha=self.subsample_alpha,
                                           synopsis_rows=self.synopsis_rows)
        k = int(theory["k"])
        each, block_epsilon, block_delta = laplace_block(epsilon=epsilon, delta=delta, k=k)
        return BasePlan(
            generator=self.name, theorem="Thms 6.7, 6.8 (constants from the proofs; Lemma 6.5)", k=k,
            lambda_=theory["lambda"], eta=self.eta, beta=beta, epsilon=epsilon, delta=delta, epsilon_each=each,
            laplace_scale=float(rho / each), block_epsilon=block_epsilon, block_delta=block_delta,
            synopsis_rows=int(theory["synopsis_rows"]), bits=theory["bits"],
            details={key: theory[key] for key in ("tolerance", "rounding_alpha", "subsample_error",
                                                  "subsample_alpha")},
            public={"matrix": matrix})

    def generate(self, measurer: PrivateMeasurer, queries: object, sample: np.ndarray, *, plan: BasePlan,
                 rng: RandomSource, label: str) -> Synopsis | None:
        """LP, round, subsample: a database of n' rows, or ⊥ when the LP is infeasible."""
        sample = check_sample(sample, plan, queries.num_queries)
        # MEASURE (Laplace, Cor. 3.21): k answers, one block of the ledger
        noisy = measurer.laplace_queries(queries, sample, epsilon_each=plan.epsilon_each, delta_slack=plan.delta,
                                         label=f"{label}: {plan.k} Laplace measurements (Thms 6.7, 6.8)")
        # LP (Thm 6.7): v - t <= <q, a> <= v + t for every sampled answer (tightest interval per query)
        index, lows, highs, medians, multiplicity = unique_sample(sample, noisy)
        t = plan.details["tolerance"]
        fractional = solve_synthesis_lp(plan.public["matrix"][index], highs - t, lows + t, target=medians,
                                        weights=multiplicity.astype(np.float64))
        if fractional is None:
            return None
        # ROUND each a_i down to a multiple of a_r / |X|, then SUBSAMPLE n' rows (post-processing)
        rounded = round_down(fractional, alpha=plan.details["rounding_alpha"])
        if rounded.sum() == 0:  # only possible through float error; the largest cell is >= 1/|X|
            rounded[int(np.argmax(fractional))] = 1
        drawn = rng.choice(rounded / rounded.sum(), plan.synopsis_rows)
        counts = np.bincount(drawn, minlength=rounded.size).astype(np.int64)
        return Synopsis(counts, plan.synopsis_rows, {"rounded_rows": int(rounded.sum()),
                                                     "distinct_queries": int(index.size)})

