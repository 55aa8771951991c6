"""Public noisy marginals and what both measurement fits share (histogram and factored).

:class:`MarginalMeasurement` is what a mechanism keeps of a measurement (post-processing from here
on); :func:`combine` merges repeats by inverse-variance weighting, :func:`term_weights` gives each
measured marginal its weight in the loss, and :func:`backtracking_descent` is the step-size search
both fits (:mod:`dprelease.updates.measurement_fit`, :mod:`dprelease.updates.factored_fit`) use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from dprelease.queries.compression import Grouping, compress, expand, grouping_key
from dprelease.updates.perceptron import project_to_simplex


@dataclass(frozen=True)
class MarginalMeasurement:
    """A public noisy marginal: ``values`` (fractions, shaped like the marginal) with noise of ``scale``.

    ``noise`` is ``"laplace"`` (``scale`` = the Laplace scale b, standard deviation sqrt(2) b) or
    ``"gaussian"`` (``scale`` = the standard deviation sigma). With a ``grouping``
    (:mod:`~dprelease.queries.compression`) the marginal was measured on a compressed domain and ``values``
    is shaped like the compressed marginal.
    """

    attributes: tuple[str, ...]
    values: np.ndarray
    scale: float
    noise: str = "laplace"
    grouping: Grouping | None = None

    def model_view(self, marginal: np.ndarray) -> np.ndarray:
        """A model's marginal on these attributes, as this measurement sees it (compressed if it was)."""
        return marginal if self.grouping is None else compress(marginal, self.grouping)

    def gradient_view(self, residual: np.ndarray) -> np.ndarray:
        """A residual on the measured cells, back on the marginal's cells (the adjoint of :meth:`model_view`)."""
        return residual if self.grouping is None else expand(residual, self.grouping)

    @property
    def std(self) -> float:
        """Standard deviation of the noise on each cell."""
        return self.scale * 2**0.5 if self.noise == "laplace" else self.scale

    def to_json(self) -> dict[str, object]:
        key = "laplace_scale" if self.noise == "laplace" else "gaussian_sigma"
        out = {"attributes": list(self.attributes), key: self.scale,
               "values": [float(v) for v in self.values.reshape(-1)]}
        if self.grouping is not None:  # per attribute: each value's group, or null (kept apart)
            out["grouping"] = [None if g is None else [int(v) for v in g] for g in self.grouping]
        return out


def combine(measurements: Sequence[MarginalMeasurement]) -> list[MarginalMeasurement]:
    """Merge repeated measurements of one marginal by inverse-variance weighting (sufficient statistic)."""
    groups: dict[tuple, list[MarginalMeasurement]] = {}
    for m in measurements:  # the same cells: the same attributes under the same grouping
        groups.setdefault((m.attributes, grouping_key(m.grouping)), []).append(m)
    merged = []
    for (attributes, _), group in groups.items():
        kinds = {m.noise for m in group}
        grouping = group[0].grouping
        if kinds == {"laplace"}:
            precisions = np.array([1 / m.scale**2 for m in group])
            values = sum(p * m.values for p, m in zip(precisions, group)) / precisions.sum()
            merged.append(MarginalMeasurement(attributes, values, float(precisions.sum() ** -0.5), grouping=grouping))
        else:  # by standard deviation; reported as one Gaussian-like measurement of that deviation
            precisions = np.array([1 / m.std**2 for m in group])
            values = sum(p * m.values for p, m in zip(precisions, group)) / precisions.sum()
            merged.append(MarginalMeasurement(attributes, values, float(precisions.sum() ** -0.5), "gaussian",
                                              grouping=grouping))
    return merged


def backtracking_descent(state: object, loss: float, propose: Callable[[object, float], tuple[object, float, float]],
                         *, iterations: int, step: float, growth: float,
                         on_step: Callable[[int, int], None] | None = None,
                         stop: Callable[[object], bool] | None = None,
                         extrapolate: Callable[[object, object, float], tuple[object, float]] | None = None,
                         accelerate: Callable[[object], bool] | None = None) -> tuple[object, float]:
    """``iterations`` descent steps with Armijo backtracking on the step size; shared by both fits.

    ``propose(state, step)`` returns (candidate state, its loss, <grad, p - p'>). A candidate is
    accepted when it decreases the loss by at least half that amount; then the step grows by
    ``growth``, otherwise it halves. Stops early when no step size helps (a float-precision minimum),
    or when ``stop(state)`` holds before a step (the discrepancy principle: :class:`NoiseDiscrepancy`).
    ``on_step(i, iterations)`` is called after step i (progress only; it changes nothing).

    ``extrapolate(state, previous, beta)``, if given, returns the point theta + beta (theta - theta_prev)
    (with its loss) that the step is taken from instead of ``state``: Nesterov's momentum, beta = k / (k + 3)
    after k steps in a row. A step that does not lower the loss below ``state``'s restarts the momentum
    (O'Donoghue and Candes' adaptive restart) and is taken again from ``state``, so the loss never rises.
    ``accelerate(state)``, if given, says whether a step from ``state`` may use the momentum (once it says no,
    the rest of the steps are plain).
    """
    previous, streak = None, 0
    for i in range(iterations):
        if stop is not None and stop(state):
            break
        if extrapolate is not None and accelerate is not None and not accelerate(state):
            extrapolate = None  # near the noise: plain steps from here on
        starts = [(state, loss)]
        if extrapolate is not None and streak > 0:
            starts.insert(0, extrapolate(state, previous, streak / (streak + 3)))
        accepted, step_before = None, step
        for start, start_loss in starts:
            if start is state:
                step = max(step, step_before)  # a refused extrapolation's halvings say nothing about state
            candidate, new_loss, step = _armijo_step(propose, start, start_loss, step, growth)
            if candidate is not None and (new_loss < loss or start is state):
                accepted = candidate, new_loss
                break
            streak = 0  # the momentum overshot: restart, from state
        if accepted is None:
            break  # no step size helps: a float-precision minimum
        previous, (state, loss) = state, accepted
        streak = streak + 1 if extrapolate is not None else 0
        if on_step is not None:
            on_step(i + 1, iterations)
    return state, step


def _armijo_step(propose: Callable[[object, float], tuple[object, float, float]], start: object, start_loss: float,
                 step: float, growth: float) -> tuple[object | None, float, float]:
    """(candidate, its loss, next step size) from ``start`` by Armijo's rule, or (None, inf, step) if 30 halvings
    of the step never decrease the loss enough."""
    for _attempt in range(30):
        candidate, new_loss, decrease = propose(start, step)
        if new_loss <= start_loss - 0.5 * decrease:
            return candidate, new_loss, step * growth
        step *= 0.5
    return None, float("inf"), step


class NoiseDiscrepancy:
    """The discrepancy principle for a fit to noisy marginals: stop once the model is as close as the noise.

    A fit run to convergence reproduces the measurements' noise along with the data: from a smooth start
    (the product of the 1-way marginals) the error first falls, then rises. Morozov's discrepancy
    principle stops an iterative fit once its residual is as small as the noise makes it: here once the
    mean squared standardized residual over the raw measured cells, sum_r ||M_r(p) - y_r||^2 / sigma_r^2
    / cells, is at most ``level`` (1 at the true table, less at the fit's minimum, which absorbs part of
    the noise). Only marginals of 2+ attributes count: MWEM fits each 1-way marginal as a distribution, not
    as measured. Public: the noisy values and their noise scales only, so the stop is post-processing.
    """

    def __init__(self, merged: Sequence[MarginalMeasurement], level: float) -> None:
        counted = [len(m.attributes) > 1 for m in merged]
        self.cells = sum(int(np.size(m.values)) for m, c in zip(merged, counted) if c)
        #: per term, what multiplies its squared residual: 1 / sigma^2 for a raw marginal, 0 for a 1-way one
        self.standardizers = [1.0 / m.std**2 if c else 0.0 for m, c in zip(merged, counted)]
        self.level = level

    def term(self, index: int, squared_residual: float) -> float:
        """One term's share of the standardized sum (0 for a 1-way term)."""
        return squared_residual * self.standardizers[index]

    def reached(self, standardized_sum: float) -> bool:
        """Whether the residual is within the noise (never, when no raw marginal is in the fit)."""
        return self.within(standardized_sum, self.level)

    def within(self, standardized_sum: float, level: float) -> bool:
        """Whether the mean standardized residual is at most ``level`` (never, when no raw marginal is in the fit)."""
        return self.cells > 0 and standardized_sum <= level * self.cells


def term_weights(merged: Sequence[MarginalMeasurement]) -> list[float]:
    """w_r proportional to 1 / variance, the most precise measurement weighing 1."""
    if all(m.noise == "laplace" for m in merged):
        smallest = min(m.scale for m in merged)
        return [(smallest / m.scale) ** 2 for m in merged]
    smallest = min(m.std for m in merged)
    return [(smallest / m.std) ** 2 for m in merged]


def pooled_fractions(values: np.ndarray, std: float, *, threshold: float = 3.0) -> np.ndarray:
    """A distribution from a noisy 1-way marginal: half clipped, half with its small cells pooled (post-processing).

    A cell whose noisy fraction is under ``threshold`` times the noise's standard deviation cannot be told
    from an empty one, and clipping such cells at 0 one by one keeps the noise's positive spikes. MST
    compresses them into one bucket (McKenna, Miklau & Sheldon 2021); here, with no budget to re-measure the
    bucket, the pool's noisy total (clipped at 0) is spread evenly over its cells. The even mixture of the
    clipped and the pooled estimate was within 3 % of the better one on every suite table tried
    (docs/decisions.md). It is the estimate for the mass the noise hides; see :func:`one_way_distribution`.
    Where no cell can stand out of the noise (``threshold * std`` over 1), the clipped half is first shrunk toward
    the even distribution (:func:`shrunk_toward_even`).
    """
    y = np.asarray(values, dtype=np.float64).reshape(-1)
    clipped = np.clip(y, 0.0, None) + 1e-12
    clipped = clipped / clipped.sum()
    if threshold * std > 1.0:
        clipped = shrunk_toward_even(clipped, y, std)
    small = y < threshold * std
    pooled = y
    if small.sum() > 1:
        pooled = np.where(small, max(float(y[small].sum()), 0.0) / small.sum(), y)
    pooled = np.clip(pooled, 0.0, None) + 1e-12
    mixed = 0.5 * clipped + 0.5 * pooled / pooled.sum()
    return mixed.reshape(np.shape(values))


def shrunk_toward_even(clipped: np.ndarray, values: np.ndarray, std: float) -> np.ndarray:
    """The clipped distribution mixed with the even one by the positive-part James-Stein weight (post-processing).

    Used where the noise is so large (``threshold * std`` over 1) that no cell of a distribution can stand out of
    it: clipping then keeps the noise's positive spikes as mass, an estimate further from a spread column than the
    even distribution is. The weight is James-Stein's toward the values' mean, max(0, 1 - (k - 3) sigma^2 /
    sum (y - mean)^2): near 0 when the k noisy values spread no more than the noise does (their distribution is then
    nearly even), near 1 when they spread far more (a column whose mass sits in a few cells), and 1 for k <= 3,
    where shrinking toward the mean has no such guarantee. Public inputs only: the noisy values and the noise's
    scale. The suite, held-out tables and random shapes at eps 0.1 (docs/decisions.md, session 72): 42 changed
    cases, 0.96x their error (geometric mean; 0.85x-1.07x), 9 losses to a baseline turned to wins and none the other
    way; (k - 1), which shrinks harder, was as good on average but 1.14x at worst.
    """
    spread = float(((values - values.mean()) ** 2).sum())
    weight = max(0.0, 1.0 - max(values.size - 3, 0) * std**2 / spread) if spread > 0 else 0.0
    return weight * clipped + (1.0 - weight) / values.size


def one_way_distribution(values: np.ndarray, std: float, *, threshold: float = 3.0) -> np.ndarray:
    """The distribution the fit sees for a noisy 1-way marginal (post-processing of public values).

    Two estimates, weighed by w, the noisy mass of the cells measured above ``threshold`` standard
    deviations (clipped to [0, 1]): w times the simplex projection
    (:func:`~dprelease.updates.perceptron.project_to_simplex`, the least-squares distribution, which is
    right where the mass sits in cells the noise cannot hide) plus 1 - w times :func:`pooled_fractions`
    (right where it sits in cells under the noise, where the projection would zero most of them). Suite,
    rows, 5 seeds (docs/decisions.md, issue 12): adult-n1000 eps 1 0.625 against 0.732 for the pooled
    estimate alone, adult-n5000 eps 0.1 0.743 against 0.890, and within 4 % of it on every small suite
    table and eps. Public inputs only: the noisy values and the noise's scale.
    """
    y = np.asarray(values, dtype=np.float64).reshape(-1)
    detectable = y >= threshold * std
    weight = float(np.clip(y[detectable].sum(), 0.0, 1.0))
    projected = project_to_simplex(y) + 1e-12
    mixed = weight * projected / projected.sum() + (1.0 - weight) * pooled_fractions(y, std, threshold=threshold)
    return mixed.reshape(np.shape(values))
