"""The base synopsis generator role (Dwork & Roth Def. 6.1) and what its implementations share.

A (k, lambda, eta, beta)-base synopsis generator gets k queries sampled i.i.d. from a distribution D
over Q and, with probability >= 1 - beta, outputs a synopsis that is lambda-accurate on a (1/2 + eta)
fraction of D's mass (6.1), or fails (the book's ⊥, here ``None``). Boosting for queries
(:mod:`dprelease.boosting.mechanism`) takes any implementation by constructor argument:

* :class:`~dprelease.boosting.bruteforce.BruteForceGenerator`: any low-sensitivity queries (Thm 6.6);
* :class:`~dprelease.boosting.lp.LPSynthesizer`: linear queries (Thms 6.7, 6.8).

Both share one keyword-only signature: ``plan(...)`` computes every public parameter (k, lambda,
the per-measurement epsilon, public precomputations) before any data is read, and
``generate(measurer, queries, sample, *, plan, rng, label)`` runs one round. The only private step
inside ``generate`` is a kernel call (:meth:`~dprelease.privacy.measurer.PrivateMeasurer.laplace_queries`);
the rest is post-processing of its noisy answers. Both output a database of a fixed, public number
of rows, so a synopsis is a :class:`Synopsis` (counts over X) and is answered like a histogram.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Protocol, runtime_checkable

import numpy as np

from dprelease.domain import Domain
from dprelease.errors import InputError
from dprelease.privacy.accountant import block_charge
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import exact, float_at_most
from dprelease.privacy.rng import RandomSource
from dprelease.representations.nets import answer_matrix
from dprelease.validation import (
    check_delta,
    check_open_unit,
    check_positive,
    check_positive_int,
)


@dataclass(frozen=True, slots=True)
class Synopsis:
    """A database of ``rows`` rows over X (``counts``, length |X|, summing to ``rows``); ``info`` is public."""

    counts: np.ndarray
    rows: int
    info: dict[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        counts = np.asarray(self.counts)
        if counts.ndim != 1 or not np.issubdtype(counts.dtype, np.integer) or counts.min(initial=0) < 0:
            raise InputError("synopsis counts must be a 1-d array of non-negative integers")
        if int(counts.sum()) != self.rows or self.rows < 1:
            raise InputError(f"synopsis counts must sum to rows={self.rows}, got {int(counts.sum())}")

    def answers(self, queries: object, domain: Domain) -> np.ndarray:
        """Every query of the set on this database (normalized by its rows): public."""
        return answer_matrix(queries, self.counts[None, :], domain, self.rows)[0]


@dataclass(frozen=True, eq=False)
class BasePlan:
    """Every public parameter of a base generator at (epsilon, delta, beta), computed before any data is read.

    ``epsilon_each`` is the per-measurement epsilon of the k Laplace measurements (Cor. 3.21) and
    ``block_epsilon`` / ``block_delta`` what the ledger charges for them each round (min(basic,
    Thm 3.20)), never above (epsilon, delta). ``public`` holds precomputed public arrays.
    """

    generator: str
    theorem: str
    k: int
    lambda_: float
    eta: float
    beta: float
    epsilon: float
    delta: float
    epsilon_each: Fraction
    laplace_scale: float
    block_epsilon: Fraction
    block_delta: Fraction
    synopsis_rows: int
    bits: float
    details: dict[str, object]
    public: dict[str, object] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict[str, object]:
        return {"generator": self.generator, "theorem": self.theorem, "k": self.k, "lambda": self.lambda_,
                "eta": self.eta, "beta": self.beta, "epsilon": self.epsilon, "delta": self.delta,
                "epsilon_per_measurement": float(self.epsilon_each), "laplace_scale": self.laplace_scale,
                "block_epsilon": float(self.block_epsilon), "block_delta": float(self.block_delta),
                "synopsis_rows": self.synopsis_rows, "bits": self.bits, **self.details}


@runtime_checkable
class BaseSynopsisGenerator(Protocol):
    """Def. 6.1's role: one keyword-only signature shared by every implementation."""

    name: str
    eta: float

    def plan(self, *, n: int, domain: Domain, queries: object, epsilon: float, delta: float,
             beta: float) -> BasePlan:
        """Public parameters at (epsilon, delta)-DP and failure probability beta; public caps checked here."""
        ...

    def generate(self, measurer: PrivateMeasurer, queries: object, sample: np.ndarray, *, plan: BasePlan,
                 rng: RandomSource, label: str) -> Synopsis | None:
        """One synopsis from the k sampled query indices ``sample``, or ``None`` (⊥)."""
        ...


def laplace_block(*, epsilon: float, delta: float, k: int) -> tuple[Fraction, Fraction, Fraction]:
    """Cor. 3.21 for the k Laplace measurements of a base generator: (epsilon_each, block epsilon, block delta).

    epsilon_each = eps / (2 sqrt(2 k ln(1/delta))), rounded down: the Laplace scale rho / epsilon_each is
    at least the proofs' b = 2 sqrt(2 k ln(1/delta)) rho / eps (Thm 6.6; Sec. 6.2.2). The block is charged
    min(basic, Thm 3.20) exactly as :meth:`~dprelease.privacy.accountant.PrivacyAccountant.reserve` does;
    an error when that exceeds eps (Cor. 3.21 needs eps < 1, ln(1/delta) >= 1/2).
    """
    each = Fraction(float_at_most(exact(epsilon) / Fraction(2 * math.sqrt(2 * k * math.log(1 / delta)))))
    block_epsilon, block_delta, _ = block_charge(epsilon_each=each, count=k, delta_slack=delta)
    if block_epsilon > exact(epsilon):
        raise InputError(
            f"the base generator's k={k} Laplace measurements cost epsilon={float(block_epsilon):.6g} by Thm 3.20, "
            f"above epsilon_base={epsilon:.6g}: Cor. 3.21 needs epsilon_base < 1 "
            "(give a smaller epsilon or more rounds)")
    return each, block_epsilon, block_delta


def unique_sample(sample: np.ndarray, noisy: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                                                   np.ndarray]:
    """Per distinct sampled query: (index, min noisy answer, max noisy answer, median, multiplicity).

    A query sampled several times has several independent noisy answers; a synopsis within
    ``r`` of every one of them is exactly one inside [max - r, min + r]. Post-processing.
    """
    sample, noisy = np.asarray(sample), np.asarray(noisy, dtype=np.float64)
    order = np.lexsort((noisy, sample))
    sorted_index, sorted_noisy = sample[order], noisy[order]
    starts = np.flatnonzero(np.r_[True, sorted_index[1:] != sorted_index[:-1]])
    counts = np.diff(np.r_[starts, sorted_index.size])
    lows = sorted_noisy[starts]
    highs = sorted_noisy[starts + counts - 1]
    medians = (sorted_noisy[starts + (counts - 1) // 2] + sorted_noisy[starts + counts // 2]) / 2
    return sorted_index[starts], lows, highs, medians, counts


def check_sample(sample: np.ndarray, plan: BasePlan, num_queries: int) -> np.ndarray:
    """The k sampled indices as an integer array (public check of the boosting's call)."""
    sample = np.asarray(sample)
    if sample.shape != (plan.k,) or not np.issubdtype(sample.dtype, np.integer):
        raise InputError(f"sample must hold k={plan.k} query indices, got shape {sample.shape}")
    if sample.min() < 0 or sample.max() >= num_queries:
        raise InputError(f"sample indices must lie in 0..{num_queries - 1}")
    return sample


def check_base_parameters(*, n: int, epsilon: float, delta: float, beta: float) -> None:
    """Public checks shared by every base generator's plan; delta > 0 because Cor. 3.21 composes k measurements."""
    check_positive_int(n, "n")
    check_positive(epsilon, "epsilon")
    check_delta(delta)
    check_open_unit(beta, "beta")
    if delta == 0:
        raise InputError("the base generator needs delta > 0 (Cor. 3.21 composes its k measurements), got 0")
