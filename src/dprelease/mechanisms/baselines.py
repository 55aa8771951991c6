"""Two reference points every release is compared against.

* :func:`uniform_model`: the uniform distribution over X (no data, no budget).
* :class:`IndependentMarginals`: every 1-way marginal measured with Laplace noise,
  the product of the (clipped, renormalized) noisy marginals released.
  Privacy: (epsilon, 0)-DP by basic composition (Thm 3.16) of d Laplace mechanisms
  (Thm 3.6), each on a marginal of L1 sensitivity 2/n at epsilon / d.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import exact
from dprelease.privacy.rng import RandomSource
from dprelease.representations.histogram import HistogramModel
from dprelease.validation import check_positive


def uniform_model(domain: Domain, *, max_cells: int = DEFAULT_MAX_CELLS) -> HistogramModel:
    return HistogramModel.uniform(domain, max_cells=max_cells)


@dataclass(frozen=True, kw_only=True)
class IndependentMarginals:
    """Noisy 1-way marginals, combined as if the attributes were independent."""

    epsilon: float
    max_cells: int = DEFAULT_MAX_CELLS

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")

    def run(self, dataset: Dataset, *, rng: RandomSource) -> tuple[HistogramModel, PrivacyAccountant]:
        domain = dataset.domain
        domain.check_fits(self.max_cells)
        accountant = PrivacyAccountant(epsilon=self.epsilon)
        measurer = PrivateMeasurer(dataset, accountant=accountant, rng=rng)
        each = exact(self.epsilon) / len(domain)
        log_probs = np.zeros(domain.shape)
        for axis, attribute in enumerate(domain.attributes):
            noisy = measurer.laplace_marginal((attribute,), epsilon=each, label=f"1-way: {attribute}")
            # Post-processing: clip to a small positive floor so the log stays finite, renormalize.
            clipped = np.maximum(noisy, 1e-12)
            shape = [1] * len(domain)
            shape[axis] = domain.sizes[axis]
            log_probs = log_probs + np.log(clipped / clipped.sum()).reshape(shape)
        return HistogramModel.from_log_weights(domain, log_probs), accountant
