"""Evaluation against the real table (the curator's own check, not a release).

:mod:`.metrics`: max error and average L1 per marginal and over the workload, on any domain.
:mod:`.baselines`: the two reference tables (independent noisy 1-way marginals; uniform), drawn
from the real table on any domain, seeded.
"""

from dprelease.evaluate.metrics import MarginalError, per_marginal_errors, summarize, workload_errors

__all__ = ["MarginalError", "per_marginal_errors", "summarize", "workload_errors"]
