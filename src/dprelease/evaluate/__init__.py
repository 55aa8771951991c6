"""Evaluation against the real table (the curator's own check, not a release).

:mod:`.metrics`: max error and average L1 per marginal and over the workload, on any domain.
:mod:`.baselines`: the two reference tables (independent noisy 1-way marginals; uniform), drawn
from the real table on any domain, seeded.
:mod:`.values`: per column of a schema, the real values it clips or sends to ``other``, and how far the synthetic
numbers and dates lie from the real ones (raw tables).
"""

from dprelease.evaluate.metrics import MarginalError, per_marginal_errors, summarize, workload_errors

__all__ = ["MarginalError", "per_marginal_errors", "summarize", "workload_errors"]
