"""MW over all past measurements on a factored (log-linear) model: the histogram fit, clique by clique.

The histogram fit (:mod:`dprelease.updates.measurement_fit`) takes mirror-descent (MW) steps

    log p <- log p - s * grad L(p),     L(p) = sum_r w_r || M_r(p) - y_r ||_2^2,

and grad L(p)(x) = sum_r 2 w_r (M_r(p) - y_r)[x_r] is a sum of functions of each measured
marginal's attributes r. So on p ∝ exp(sum_C theta_C) the same step changes only the potential
on r's clique,

    theta_r <- theta_r - s * 2 w_r (mu_r - y_r),       mu_r = M_r(p) by exact inference,

and the normalization is log Z. Same loss, same gradient, same Armijo backtracking on the step
size s and the same decrease test <grad, p - p'> = sum_r <grad_r, mu_r - mu'_r>: from the same
start the two fits produce the same distribution (tests check 1e-9). Memory and time follow the
junction tree of the measured cliques, not |X|. Pure post-processing of public measurements.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from dprelease.queries.compression import compressed_shape
from dprelease.representations.factored import FactoredModel
from dprelease.updates.measurements import (MarginalMeasurement, NoiseDiscrepancy, backtracking_descent, combine,
                                            term_weights)


def fit_factored(model: FactoredModel, measurements: Sequence[MarginalMeasurement], *, iterations: int,
                 step: float | None = None, growth: float = 1.25,
                 on_step: Callable[[int, int], None] | None = None,
                 discrepancy: float | None = None, momentum: float | None = None) -> tuple[FactoredModel, float]:
    """Run ``iterations`` mirror-descent (MW) steps on the potentials; return the model and the last step size.

    Adds a (zero) potential for each measured clique the model lacks; that may raise
    :class:`~dprelease.errors.DomainTooLargeError` (a public check on the cliques). ``discrepancy``: stop
    earlier, once the residual is within that level of the noise (:class:`NoiseDiscrepancy`).
    """
    if not measurements or iterations <= 0:
        return model, step or 1.0
    merged = combine(measurements)
    weights = term_weights(merged)
    cliques = [model.domain.canonical(m.attributes) for m in merged]
    for m, clique in zip(merged, cliques):
        if tuple(m.attributes) != clique:
            raise ValueError("measurement attributes must be in domain order")
    targets = [m.values.reshape(compressed_shape([model.domain.size_of(a) for a in c], m.grouping or (None,) * len(c)))
               for m, c in zip(merged, cliques)]
    # One clique may carry several terms (a marginal measured whole and on a compressed domain): their
    # gradients add up on its one potential.
    unique = list(dict.fromkeys(cliques))
    term_clique = [unique.index(c) for c in cliques]
    model = model.with_cliques(unique)
    # L is (2 sum w)-smooth w.r.t. the L1 norm, so 1 / (2 sum w) is always a safe first step.
    step = step if step is not None else 1.0 / (2 * sum(weights))
    mus = model.marginals(unique)

    noise = NoiseDiscrepancy(merged, discrepancy if discrepancy is not None else 0.0)

    def loss_and_gradients(mus: list[np.ndarray]) -> tuple[float, list[np.ndarray], float]:
        loss, standardized, grads = 0.0, 0.0, [np.zeros_like(mu) for mu in mus]
        for i, (y, w, m, k) in enumerate(zip(targets, weights, merged, term_clique)):
            residual = m.model_view(mus[k]) - y
            squared = float(np.sum(residual * residual))
            loss += w * squared
            standardized += noise.term(i, squared)
            grads[k] += m.gradient_view(2 * w * residual)
        return loss, grads, standardized

    def propose(state: tuple, step_size: float) -> tuple[tuple, float, float]:
        model, mus, grads, _ = state
        candidate = model.with_potentials({c: model.potentials[c] - step_size * g for c, g in zip(unique, grads)})
        new_mus = candidate.marginals(unique)
        new_loss, new_grads, standardized = loss_and_gradients(new_mus)
        decrease = sum(float(np.vdot(g, mu - new_mu)) for g, mu, new_mu in zip(grads, mus, new_mus))
        return (candidate, new_mus, new_grads, standardized), new_loss, decrease

    def extrapolate(state: tuple, previous: tuple, beta: float) -> tuple[tuple, float]:
        model, before = state[0], previous[0]
        moved = model.with_potentials({c: model.potentials[c] + beta * (model.potentials[c] - before.potentials[c])
                                       for c in unique})
        new_mus = moved.marginals(unique)
        new_loss, new_grads, standardized = loss_and_gradients(new_mus)
        return (moved, new_mus, new_grads, standardized), new_loss

    loss, grads, standardized = loss_and_gradients(mus)
    stop = None if discrepancy is None else (lambda state: noise.reached(state[3]))
    (model, _, _, _), step = backtracking_descent((model, mus, grads, standardized), loss, propose,
                                                  iterations=iterations, step=step, growth=growth, on_step=on_step,
                                                  stop=stop, extrapolate=None if momentum is None else extrapolate,
                                                  accelerate=None if momentum is None else
                                                  (lambda state: not noise.within(state[3], momentum)))
    return model, step
