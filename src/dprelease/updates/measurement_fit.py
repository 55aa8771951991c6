"""MW updates that reuse every past measurement: entropic mirror descent on a histogram.

MWEM's update (Hardt, Ligett, McSherry 2012) x <- x * exp(q (m - q(x)) / 2), applied
to each past measurement in turn, is a multiplicative-weights step on the squared
loss (q(x) - m)^2. Here all measurements are fitted together: with loss

    L(p) = sum_r w_r || M_r(p) - y_r ||_2^2,       w_r proportional to 1 / b_r^2

(y_r a noisy marginal, b_r its noise's standard deviation), each step is the MW update
log p <- log p - s * grad L(p), normalized, with step size s found by backtracking
(sufficient decrease as in Armijo's rule). Pure post-processing of public
measurements: it never touches the private data.

On a :class:`~dprelease.representations.factored.FactoredModel` the same steps run in
:mod:`dprelease.updates.factored_fit` (:func:`fit_measurements` dispatches on the model); what both fits
share (the measurement type, merging repeats, weights, backtracking) is :mod:`dprelease.updates.measurements`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from dprelease.domain import Domain
from dprelease.queries.compression import compressed_shape
from dprelease.representations.histogram import HistogramModel, marginalize
from dprelease.updates.factored_fit import fit_factored
from dprelease.updates.measurements import (MarginalMeasurement, NoiseDiscrepancy, backtracking_descent, combine,
                                            term_weights)


class _Term:
    """One measured marginal, prepared for fast marginalization and broadcasting."""

    def __init__(self, domain: Domain, m: MarginalMeasurement, weight: float, standardizer: float = 0.0) -> None:
        axes = domain.axes(m.attributes)
        if list(axes) != sorted(axes):
            raise ValueError("measurement attributes must be in domain order")
        self.domain = domain
        self.attributes = m.attributes
        self.broadcast = tuple(domain.sizes[i] if i in axes else 1 for i in range(len(domain)))
        self.measurement = m
        self.values = m.values.reshape(compressed_shape([domain.sizes[i] for i in axes], m.grouping or (None,) * len(axes)))
        self.weight = weight
        self.standardizer = standardizer  # 1 / sigma^2 for a raw marginal, 0 for a 1-way (NoiseDiscrepancy)


def fit_measurements(model: HistogramModel, measurements: Sequence[MarginalMeasurement], *, iterations: int,
                     step: float | None = None, growth: float = 1.25,
                     on_step: Callable[[int, int], None] | None = None,
                     discrepancy: float | None = None, momentum: float | None = None) -> tuple[HistogramModel, float]:
    """Run ``iterations`` mirror-descent (MW) steps from ``model``; return the model and the last step size.

    A :class:`~dprelease.representations.factored.FactoredModel` is fitted by the same steps on its
    potentials (:func:`dprelease.updates.factored_fit.fit_factored`). ``growth``: the factor the step
    size grows by after an accepted step (halved after a refused one). ``on_step(i, iterations)``: called
    after step i (progress only). ``discrepancy``: stop earlier, once the residual is within that level of
    the noise (:class:`~dprelease.updates.measurements.NoiseDiscrepancy`; None: run every step).
    """
    if not isinstance(model, HistogramModel):
        return fit_factored(model, measurements, iterations=iterations, step=step, growth=growth, on_step=on_step,
                            discrepancy=discrepancy, momentum=momentum)
    if not measurements or iterations <= 0:
        return model, step or 1.0
    merged = combine(measurements)
    noise = NoiseDiscrepancy(merged, discrepancy if discrepancy is not None else 0.0)
    terms = [_Term(model.domain, m, w, standardizer)
             for m, w, standardizer in zip(merged, term_weights(merged), noise.standardizers)]
    hosts = host_groups(terms)
    # L is (2 sum w)-smooth w.r.t. the L1 norm, so 1 / (2 sum w) is always a safe first step.
    step = step if step is not None else 1.0 / (2 * sum(t.weight for t in terms))
    probabilities = np.exp(model.log_probs)

    def evaluate(theta: np.ndarray) -> tuple[tuple, float]:
        """The state at log-weights ``theta`` (normalized here) and its loss."""
        theta = theta - theta.max()
        probabilities = np.exp(theta)
        total = probabilities.sum()
        probabilities /= total
        theta -= np.log(total)
        loss, grad, standardized = _loss_and_gradient(probabilities, hosts)
        return (theta, probabilities, grad, standardized), loss

    def propose(state: tuple, step_size: float) -> tuple[tuple, float, float]:
        theta, probabilities, grad, _ = state
        candidate, new_loss = evaluate(theta - step_size * grad)
        return candidate, new_loss, float(np.vdot(grad, probabilities - candidate[1]))

    def extrapolate(state: tuple, previous: tuple, beta: float) -> tuple[tuple, float]:
        return evaluate(state[0] + beta * (state[0] - previous[0]))

    loss, grad, standardized = _loss_and_gradient(probabilities, hosts)
    stop = None if discrepancy is None else (lambda state: noise.reached(state[3]))
    (theta, _, _, _), step = backtracking_descent((model.log_probs, probabilities, grad, standardized), loss, propose,
                                                  iterations=iterations, step=step, growth=growth, on_step=on_step,
                                                  stop=stop, extrapolate=None if momentum is None else extrapolate,
                                                  accelerate=None if momentum is None else
                                                  (lambda state: not noise.within(state[3], momentum)))
    return HistogramModel(model.domain, theta), step


class _Host:
    """A measured attribute set that contains other measured sets: one pass over X serves them all.

    Its marginal is computed from the full table once; the marginals of the terms inside it are sums
    of that small array, and their gradients are added into it before one broadcast back over X.
    """

    def __init__(self, host: _Term, terms: list[_Term]) -> None:
        self.domain, self.attributes, self.broadcast = host.domain, host.attributes, host.broadcast
        self.shape = tuple(self.domain.size_of(a) for a in self.attributes)
        self.members = []
        for term in terms:
            kept = [i for i, a in enumerate(self.attributes) if a in term.attributes]
            summed = tuple(i for i in range(len(self.attributes)) if i not in kept)
            inside = tuple(self.domain.size_of(a) if a in term.attributes else 1 for a in self.attributes)
            self.members.append((term, summed, inside))


def host_groups(terms: Sequence[_Term]) -> list[_Host]:
    """Group terms under the largest measured set containing each (attributes in domain order)."""
    by_size = sorted(terms, key=lambda t: -len(t.attributes))
    hosts: list[tuple[_Term, list[_Term]]] = []
    for term in by_size:
        for host, members in hosts:
            if set(term.attributes) <= set(host.attributes):
                members.append(term)
                break
        else:
            hosts.append((term, [term]))
    return [_Host(host, members) for host, members in hosts]


def _loss_and_gradient(probabilities: np.ndarray, hosts: list[_Host]) -> tuple[float, np.ndarray, float]:
    """The loss, its gradient over X, and the standardized squared residual (:class:`NoiseDiscrepancy`)."""
    loss, standardized = 0.0, 0.0
    grad = np.zeros(probabilities.shape)
    for host in hosts:
        mu = marginalize(host.domain, probabilities, host.attributes)
        host_grad = np.zeros(host.shape)
        for term, summed, inside in host.members:
            m = term.measurement
            residual = m.model_view(mu.sum(axis=summed) if summed else mu) - term.values
            squared = float(np.sum(residual * residual))
            loss += term.weight * squared
            standardized += term.standardizer * squared
            host_grad += m.gradient_view(2 * term.weight * residual).reshape(inside)
        grad += host_grad.reshape(host.broadcast)
    return loss, grad, standardized
