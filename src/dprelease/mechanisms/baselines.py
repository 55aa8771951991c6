"""Two reference points every release is compared against.

* :func:`uniform_model`: the uniform distribution over X (no data, no budget).
* :class:`IndependentMarginals`: every 1-way marginal measured with Laplace noise,
  the product of the (clipped, renormalized) noisy marginals released: the registry's
  ``independent`` (:mod:`dprelease.mechanisms.independent`) on an explicit histogram.
  Privacy: (epsilon, 0)-DP by basic composition (Thm 3.16) of d Laplace mechanisms
  (Thm 3.6), each on a marginal of L1 sensitivity 2/n at epsilon / d.
"""

from __future__ import annotations

from dataclasses import dataclass

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.engines.base import PrivateTable
from dprelease.mechanisms.base import Budget
from dprelease.mechanisms.independent import IndependentMechanism
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.rng import RandomSource
from dprelease.queries.workload import Workload
from dprelease.representations.histogram import HistogramModel
from dprelease.validation import check_positive


def uniform_model(domain: Domain, *, max_cells: int = DEFAULT_MAX_CELLS) -> HistogramModel:
    return HistogramModel.uniform(domain, max_cells=max_cells)


@dataclass(frozen=True, kw_only=True)
class IndependentMarginals:
    """Noisy 1-way marginals, combined as if the attributes were independent: the registry's ``independent``.

    Kept for the benchmarks' and the demo's baseline rows; see :mod:`dprelease.mechanisms.independent`.
    """

    epsilon: float
    max_cells: int = DEFAULT_MAX_CELLS

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")

    def run(self, dataset: PrivateTable, *, rng: RandomSource) -> tuple[HistogramModel, PrivacyAccountant]:
        dataset.domain.check_fits(self.max_cells)  # the baseline is an explicit histogram
        fitted = IndependentMechanism(max_cells=self.max_cells).fit(
            dataset, Workload(dataset.domain, tuple((a,) for a in dataset.domain.attributes)),
            budget=Budget(epsilon=self.epsilon), rng=rng, progress=Progress.silent())
        return fitted.model, fitted.accountant
