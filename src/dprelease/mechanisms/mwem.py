"""MWEM: multiplicative weights with the exponential mechanism (Hardt, Ligett, McSherry 2012).

The practical offline release. With T rounds and budget eps:

    INIT (optional)   Laplace on every 1-way marginal the workload uses      eps_init in total
    for t = 1 .. T:                                                          (eps - eps_init) / T per round
        SELECT   exponential mechanism over the workload's marginals,
                 score ||M(x) - M(x^t)||_1 - penalty(M)                      share s of the round
        MEASURE  Laplace(2 / (n eps_m)) on every cell of the chosen marginal  share 1 - s
        UPDATE   MW (mirror descent) steps fitting *all* measurements so far
    final UPDATE passes, then release x^T.

Selection is over whole marginals, not single cells: measuring a whole marginal
costs the same L1 sensitivity (2/n) as two cells, so one round learns every cell
of the marginal for the price of one. The optional penalty subtracts the expected
L1 noise of measuring M (cells(M) * Laplace scale), a public quantity, so that
selection prefers marginals whose measurement will carry signal (as AIM does).

Privacy: (eps, 0)-DP by basic composition (Thm 3.16) of the Laplace mechanism on
marginals (L1 sensitivity 2/n, Thm 3.6) and the exponential mechanism with an L1
score of sensitivity 2/n (Thm 3.10); every step is charged to the accountant.
The privacy unit is the book's: neighbouring tables have the same n and differ in
one record. delta is not used (MWEM is pure DP).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import exact, laplace_scale
from dprelease.privacy.rng import RandomSource
from dprelease.queries.workload import Workload
from dprelease.representations.histogram import HistogramModel
from dprelease.updates.measurement_fit import MarginalMeasurement, fit_measurements
from dprelease.validation import check_fraction, check_nonnegative, check_positive, check_positive_int



def default_rounds(epsilon: float) -> int:
    """T chosen by the benchmark (benchmarks/results/small3.md): more budget pays for more rounds.

    10 rounds at eps = 1, 5 at eps = 0.1, 20 at eps = 10: round(10 eps^0.3), kept in [5, 40].
    """
    return max(5, min(40, round(10 * check_positive(epsilon, "epsilon") ** 0.3)))


@dataclass
class MWEMResult:
    model: HistogramModel
    accountant: PrivacyAccountant
    transcript: list[dict[str, object]]
    measurements: list[MarginalMeasurement]
    parameters: dict[str, object]


@dataclass(frozen=True, kw_only=True)
class MWEM:
    """MWEM over marginal workloads on an explicit histogram.

    Args:
        epsilon: total budget; the run is (epsilon, 0)-DP.
        rounds: T, the number of select-measure-update rounds (default: :func:`default_rounds`).
        selection_share: fraction of each round's epsilon spent on selection.
        init_share: fraction of epsilon spent measuring the 1-way marginals first (0: none).
        size_penalty: multiple of each marginal's expected measurement noise (cells x Laplace scale)
            subtracted from its selection score; 0 disables it.
        round_iterations / final_iterations: MW passes over all measurements per round / at the end.
    """

    epsilon: float
    rounds: int | None = None
    selection_share: float = 0.25
    init_share: float = 0.1
    size_penalty: float = 1.0
    round_iterations: int = 5
    final_iterations: int = 100
    max_cells: int = DEFAULT_MAX_CELLS

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")
        if self.rounds is None:
            object.__setattr__(self, "rounds", default_rounds(self.epsilon))
        check_positive_int(self.rounds, "rounds")
        check_fraction(self.selection_share, "selection_share", allow_zero=False)
        check_fraction(self.init_share, "init_share")
        check_nonnegative(self.size_penalty, "size_penalty")
        check_positive_int(self.round_iterations, "round_iterations", minimum=0)
        check_positive_int(self.final_iterations, "final_iterations", minimum=0)

    def budget_split(self, num_one_way: int) -> dict[str, Fraction]:
        """Exact per-step epsilons; they sum to epsilon exactly."""
        total = exact(self.epsilon)
        init_total = total * exact(self.init_share) if num_one_way else Fraction(0)
        per_round = (total - init_total) / self.rounds
        select = per_round * exact(self.selection_share)
        return {"init_each": init_total / num_one_way if num_one_way else Fraction(0),
                "select": select, "measure": per_round - select}

    def run(self, dataset: Dataset, workload: Workload, *, rng: RandomSource,
            progress: Progress | None = None) -> MWEMResult:
        dataset.domain.check_fits(self.max_cells)
        progress = progress or Progress.silent()
        one_way = [(a,) for a in workload.attributes] if self.init_share > 0 else []
        split = self.budget_split(len(one_way))
        accountant = PrivacyAccountant(epsilon=self.epsilon)
        measurer = PrivateMeasurer(dataset, accountant=accountant, rng=rng)
        model = HistogramModel.uniform(dataset.domain, max_cells=self.max_cells)
        measurements: list[MarginalMeasurement] = []
        transcript: list[dict[str, object]] = []

        # INIT: noisy 1-way marginals (Laplace, Thm 3.6)
        for attributes in one_way:
            values = measurer.laplace_marginal(attributes, epsilon=split["init_each"], label=f"init: {attributes[0]}")
            scale = laplace_scale(sensitivity=measurer.marginal_sensitivity, epsilon=split["init_each"])
            measurements.append(MarginalMeasurement(attributes, values, scale))
            transcript.append({"round": 0, "action": "measure", "marginal": list(attributes),
                               "epsilon": float(split["init_each"]), "laplace_scale": scale})
        model, step = fit_measurements(model, measurements, iterations=self.round_iterations)

        measure_scale = laplace_scale(sensitivity=measurer.marginal_sensitivity, epsilon=split["measure"])
        penalties = None
        if self.size_penalty:
            penalties = np.array([self.size_penalty * workload.cells(m) * measure_scale for m in workload.marginals])
        for t in range(1, self.rounds + 1):
            estimates = [model.marginal(m) for m in workload.marginals]
            # SELECT: exponential mechanism over marginals, L1 score (sensitivity 2/n)
            index = measurer.select_marginal(workload.marginals, estimates, epsilon=split["select"],
                                             penalties=penalties, label=f"round {t}: select")
            chosen = workload.marginals[index]
            # MEASURE: Laplace(2 / (n eps_m)) on each cell of the chosen marginal
            values = measurer.laplace_marginal(chosen, epsilon=split["measure"], label=f"round {t}: measure")
            measurements.append(MarginalMeasurement(chosen, values, measure_scale))
            transcript.append({"round": t, "action": "select+measure", "marginal": list(chosen),
                               "epsilon": float(split["select"] + split["measure"]), "laplace_scale": measure_scale})
            # UPDATE: MW steps over all measurements so far
            model, step = fit_measurements(model, measurements, iterations=self.round_iterations, step=step)
            progress.step(t, self.rounds)
        model, _ = fit_measurements(model, measurements, iterations=self.final_iterations, step=step)
        progress.done()
        parameters = {"epsilon": self.epsilon, "delta": 0.0, "rounds": self.rounds,
                      "selection_share": self.selection_share, "init_share": self.init_share,
                      "size_penalty": self.size_penalty, "round_iterations": self.round_iterations,
                      "final_iterations": self.final_iterations,
                      "epsilon_per_step": {k: float(v) for k, v in split.items()}}
        return MWEMResult(model, accountant, transcript, measurements, parameters)
