"""Synthetic rows from a released model: the row methods, by name (post-processing only).

A row method is ``method(model, count, rng, *, domain, targets, on_step=None) -> (count, d) int64 codes``,
where ``targets`` are the released workload answers as ``(marginal, fractions)`` pairs and ``on_step(done,
total)``, if the method has steps worth reporting, reports them (progress only). Adding one is one
file and one line in :data:`ROW_METHODS`. ``"auto"`` is the method the mechanism measured better for
the run (:attr:`dprelease.mechanisms.base.Fitted.rows`).
"""

from __future__ import annotations

from collections.abc import Callable

from dprelease.rows.draws import round_rows, sample_rows
from dprelease.rows.fitting import fitted_rows

ROW_METHODS: dict[str, Callable] = {
    "fitted": fitted_rows,
    "round": round_rows,
    "sample": sample_rows,
}

#: What ``rows=`` accepts: ``"auto"`` or a row method's name.
ROW_CHOICES = ("auto", *ROW_METHODS)

__all__ = ["ROW_CHOICES", "ROW_METHODS"]
