"""Error of a synthetic table against the real one on a marginal workload.

Same definitions as the independent scorer (shared/bench/score.py): every marginal
is normalized to fractions of rows;
  * max error = max over all cells of all marginals of |real - synthetic| (the book's alpha);
  * average L1 = mean over marginals of sum over cells |real - synthetic| (AIM's workload error).
This reads the real data: it is the data holder's own check, not a release.
"""

from __future__ import annotations

import numpy as np

from dprelease.queries.base import MarginalSource
from dprelease.queries.workload import Workload


def workload_errors(real: MarginalSource, synthetic: MarginalSource, workload: Workload) -> dict[str, object]:
    """``max_error``, ``avg_l1``, ``max_l1`` and the worst marginal."""
    l1, worst, max_error = [], None, 0.0
    for marginal in workload.marginals:
        diff = np.abs(np.asarray(real.marginal(marginal)) - np.asarray(synthetic.marginal(marginal)))
        l1.append(float(diff.sum()))
        if float(diff.max()) > max_error:
            max_error, worst = float(diff.max()), list(marginal)
    return {"max_error": max_error, "avg_l1": float(np.mean(l1)), "max_l1": float(np.max(l1)),
            "worst_marginal": worst, "n_marginals": len(workload.marginals)}
