"""Evaluation against the real table (the curator's own check, not a release).

:mod:`.metrics`: max error and average L1 per marginal and over the workload, on any domain.
:mod:`.baselines`: the reference tables (independent noisy 1-way marginals; uniform; per person, beside a person-level
release), drawn
from the real table on any domain, seeded.
:mod:`.comparison`: :func:`compare`, the command's evaluation from Python (an :class:`Evaluation`).
:mod:`.values`: per column of a schema, the real values it clips or sends to ``other``, and how far the synthetic
numbers and dates lie from the real ones (raw tables).
"""

from dprelease.evaluate.comparison import Evaluation, compare
from dprelease.evaluate.metrics import MarginalError, per_marginal_errors, summarize, workload_errors

__all__ = ["Evaluation", "MarginalError", "compare", "per_marginal_errors", "summarize", "workload_errors"]
