"""Error of a synthetic table against the real one on a marginal workload.

The benchmarks' definitions: every marginal is normalized to fractions of rows;
  * max error = max over all cells of all marginals of |real - synthetic| (the book's alpha);
  * average L1 = mean over marginals of sum over cells |real - synthetic| (AIM's workload error).
Marginals are counted from the records, one at a time, so any domain works (full Adult's
6.4e17 cells included): no histogram over X is ever built.
This reads the real data: it is the data holder's own check, not a release.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from dprelease.queries.base import MarginalSource
from dprelease.queries.workload import Workload


@dataclass(frozen=True)
class MarginalError:
    """One marginal's error for each compared table: L1 (sum over cells) and max |real - table|."""

    marginal: tuple[str, ...]
    cells: int
    l1: dict[str, float]
    max_error: dict[str, float]

    def to_json(self) -> dict[str, object]:
        return {"marginal": list(self.marginal), "cells": self.cells, "l1": self.l1, "max_error": self.max_error}


def per_marginal_errors(real: MarginalSource, tables: Mapping[str, MarginalSource],
                        workload: Workload) -> list[MarginalError]:
    """Every workload marginal of every table against ``real``, in workload order (real counted once each)."""
    errors = []
    for marginal in workload.marginals:
        truth = np.asarray(real.marginal(marginal))
        l1, worst = {}, {}
        for name, table in tables.items():
            diff = np.abs(truth - np.asarray(table.marginal(marginal)))
            l1[name], worst[name] = float(diff.sum()), float(diff.max())
        errors.append(MarginalError(marginal, int(truth.size), l1, worst))
    return errors


def summarize(errors: list[MarginalError], name: str) -> dict[str, object]:
    """``max_error``, ``avg_l1``, ``max_l1``, the worst marginal (by max error) and the count, for table ``name``."""
    worst, max_error = None, 0.0
    for error in errors:
        if error.max_error[name] > max_error:
            max_error, worst = error.max_error[name], list(error.marginal)
    l1 = [e.l1[name] for e in errors]
    return {"max_error": max_error, "avg_l1": float(np.mean(l1)), "max_l1": float(np.max(l1)),
            "worst_marginal": worst, "n_marginals": len(errors)}


def workload_errors(real: MarginalSource, synthetic: MarginalSource, workload: Workload) -> dict[str, object]:
    """``max_error``, ``avg_l1``, ``max_l1`` and the worst marginal."""
    return summarize(per_marginal_errors(real, {"synthetic": synthetic}, workload), "synthetic")
