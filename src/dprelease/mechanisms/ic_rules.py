"""Choosing and configuring the iterative construction's update rule from public parameters.

Used by :func:`dprelease.api.synthesize` for ``ic-mw``, ``ic-median`` and ``ic-perceptron``:

* the target alpha (given, or the smallest the theorems guarantee: :mod:`dprelease.bounds`);
* for multiplicative weights, the model: an explicit histogram or a factored (log-linear) model,
  checked against the workload (product-form queries, the model-size cap) before any data is read;
* for the median mechanism, the smaller valid net for alpha/2 (Thm 5.9's all-databases net or the
  SmallDB net of Remark 5.2), checked against the public caps *before* any data is read;
* the release: what a synthetic table and the workload answers are made of (post-processing).

Everything here uses public information only (n, the domain, the workload, the budget).
"""

from __future__ import annotations

from dprelease.bounds import ic_median_alpha, ic_perceptron_alpha
from dprelease.domain import DEFAULT_MAX_CELLS
from dprelease.errors import InputError
from dprelease.representations.factored import DEFAULT_MAX_MODEL_CELLS, FactoredModel
from dprelease.representations.histogram import HistogramModel
from dprelease.representations.nets import DEFAULT_MAX_DATABASES, DEFAULT_MAX_NET_CELLS
from dprelease.updates.base import DatabaseUpdate
from dprelease.updates.median import MedianMechanism, MedianModel, smallest_net
from dprelease.updates.multiplicative_weights import MultiplicativeWeights
from dprelease.updates.perceptron import Perceptron, SignedHistogram

IC_RULES = ("ic-mw", "ic-median", "ic-perceptron")


def ic_update_rule(mechanism: str, *, n: int, domain: object, workload: object, epsilon: float, delta: float,
                   alpha: float | None, beta: float = 0.05, norm_ratio_bound: float = 1.0,
                   max_cells: int = DEFAULT_MAX_CELLS, max_databases: int = DEFAULT_MAX_DATABASES,
                   max_net_cells: int = DEFAULT_MAX_NET_CELLS, representation: str = "histogram",
                   max_model_cells: int = DEFAULT_MAX_MODEL_CELLS) -> tuple[DatabaseUpdate, float | None]:
    """The update rule for ``mechanism`` and the alpha to run it at (``None``: IC solves it, MW only).

    ``representation`` (``ic-mw`` only): MW's model, ``histogram``, ``factored`` or ``auto`` (by the
    public domain size). The factored rule is checked against the workload here, before any data is
    read: product-form queries only, and the model over all the workload's marginals under
    ``max_model_cells``.
    """
    if mechanism == "ic-mw":
        rule = MultiplicativeWeights(max_cells=max_cells, representation=representation,
                                     max_model_cells=max_model_cells)
        return rule.for_queries(workload, domain), alpha  # the public caps, before any data is read
    if representation == "factored":
        raise InputError(f"representation='factored' runs with the multiplicative weights rule only (ic-mw), got "
                         f"{mechanism!r}: the median mechanism and the perceptron need the explicit histogram")
    kw = {"n": n, "universe_size": domain.size, "num_queries": workload.num_queries, "epsilon": epsilon,
          "delta": delta, "beta": beta}
    if mechanism == "ic-perceptron":
        if alpha is None:
            alpha = _required(ic_perceptron_alpha(**kw, norm_ratio_bound=norm_ratio_bound), "Thms 5.11 + 5.4", kw)
        return Perceptron(norm_ratio_bound=norm_ratio_bound, max_cells=max_cells), alpha
    if mechanism == "ic-median":
        if alpha is None:
            alpha = _required(ic_median_alpha(**kw), "Thms 5.8 + 5.4", kw)
        # IC's updates form a database update sequence at alpha/2, so the net must be an alpha/2-net.
        kind, size = smallest_net(n=n, alpha=alpha / 2, num_queries=workload.num_queries, linear=True)
        caps = {"max_databases": max_databases, "max_cells": max_net_cells}
        rule = (MedianMechanism.all_databases(n=n, **caps) if kind == "all-databases"
                else MedianMechanism.smalldb_net(alpha=alpha / 2, num_queries=workload.num_queries, **caps))
        rule.check_queries(workload, domain)  # the public cap, before any data is read
        return rule, alpha
    raise InputError(f"mechanism must be one of {list(IC_RULES)}, got {mechanism!r}")


def _required(alpha: float | None, theorems: str, kw: dict[str, object]) -> float:
    if alpha is None:
        raise InputError(
            f"{theorems} guarantee no alpha <= 1 for n={kw['n']}, |X|={kw['universe_size']}, |Q|={kw['num_queries']}, "
            f"epsilon={kw['epsilon']}: give alpha (and rounds) to run without the accuracy guarantee")
    return alpha


def release_models(model: object, workload: object) -> tuple[object, HistogramModel | FactoredModel]:
    """(what answers the workload, what synthetic rows are drawn from), both post-processing of the IC output.

    * MW: the distribution itself (a histogram or a factored model), for both.
    * Perceptron: the Euclidean projection of x^t / n onto the probability simplex, for both (the raw
      vector may be negative; IC itself answered with the raw vector).
    * Median mechanism: the workload answers are the medians over the surviving candidates (the
      structure's answers, Def. 5.6, which the theorems bound); rows come from the surviving candidate
      closest to those medians.
    """
    if isinstance(model, SignedHistogram):
        projected = model.projected()
        return projected, projected
    if isinstance(model, MedianModel):
        return model, model.representative(workload)
    return model, model
