"""The multiplicative weights update rule (Dwork & Roth Sec. 4.2.1, Algorithm 5).

    r_t = f_t            if f_t(x^t) > v_t
    r_t = 1 - f_t        otherwise
    x^{t+1}_i  proportional to  x^t_i * exp(-eta * r_t(i)),   eta = alpha / 2

Thm 4.10: starting from uniform x^1, if every update has |f_t(x) - f_t(x^t)| > alpha
and |f_t(x) - v_t| < alpha, there are at most 4 ln|X| / alpha^2 updates; the potential
KL(x || x^t) drops by at least alpha^2 / 4 at each (Lemma 4.12 with eta = alpha / 2).
So MW is a T(alpha)-database update algorithm with T(alpha) = 4 ln|X| / alpha^2.

In the log domain, exp(-eta (1 - f)) and exp(+eta f) differ by a constant factor,
which normalization removes: the update is log x += -/+ eta * f.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.queries.base import LinearQuery
from dprelease.representations.histogram import HistogramModel
from dprelease.validation import check_positive


def mw_max_updates(*, alpha: float, universe_size: int) -> float:
    """T(alpha) = 4 ln|X| / alpha^2 (Thm 4.10)."""
    check_positive(alpha, "alpha")
    return 4 * math.log(universe_size) / alpha**2


def kl_potential(true_distribution: np.ndarray, model: HistogramModel) -> float:
    """Psi_t = KL(x || x^t) = sum_i x_i ln(x_i / x^t_i), x normalized (the proof of Thm 4.10)."""
    x = np.asarray(true_distribution, dtype=np.float64).reshape(model.log_probs.shape)
    x = x / x.sum()
    support = x > 0
    return float(np.sum(x[support] * (np.log(x[support]) - model.log_probs[support])))


@dataclass(frozen=True)
class MultiplicativeWeights:
    """Algorithm 5 on an explicit :class:`HistogramModel`; ``eta`` defaults to alpha / 2."""

    eta: float | None = None
    max_cells: int = DEFAULT_MAX_CELLS
    name: str = "multiplicative-weights"

    def __post_init__(self) -> None:
        if self.eta is not None:
            check_positive(self.eta, "eta")

    def initial(self, domain: Domain) -> HistogramModel:
        """x^1: the uniform distribution over X."""
        return HistogramModel.uniform(domain, max_cells=self.max_cells)

    def answers(self, model: HistogramModel, queries: object) -> np.ndarray:
        return queries.answers(model)

    def update(self, model: HistogramModel, query: LinearQuery, noisy_answer: float, *, alpha: float) -> HistogramModel:
        """x^{t+1} = MW(x^t, f_t, v_t) (Algorithm 5)."""
        eta = self.eta if self.eta is not None else alpha / 2
        direction = -1.0 if query.evaluate(model) > noisy_answer else 1.0
        return HistogramModel.from_log_weights(model.domain, model.log_probs + direction * eta * query.factor())

    def max_updates(self, *, alpha: float, domain: Domain) -> float:
        return mw_max_updates(alpha=alpha, universe_size=domain.size)
