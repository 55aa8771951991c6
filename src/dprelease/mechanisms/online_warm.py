"""The offline synopsis that warm-starts an online session (``OnlinePrivateMW(mode="warm")``).

The book's online MW starts from the uniform distribution, and at real table sizes its theorem
(Thm 4.14 / 4.15) sets a threshold so high that it never leaves it: on Adult's 7 columns at
eps = 1 every answer comes from the uniform prior (benchmarks/results/online.md). Warm mode
spends a declared share of the budget first on an MWEM synopsis over a public workload of
marginals, and starts the public hypothesis x^0 there; NumericSparse then runs on the rest.

Privacy: MWEM is run at exactly (share * epsilon, share * delta) (rounded down to floats: its
own accountant never spends more), pure DP by basic composition of Laplace measurements and
exponential-mechanism selections, or with delta > 0 zCDP converted to (eps, delta)
(:mod:`~dprelease.mechanisms.mwem`). Everything returned is MWEM's output: public from here on.
The session charges the synopsis to its own ledger before this runs.
"""

from __future__ import annotations

from dataclasses import replace

from dprelease.domain import DEFAULT_MAX_CELLS
from dprelease.engines.base import PrivateTable
from dprelease.mechanisms.mwem import MWEM
from dprelease.mechanisms.mwem_tuning import tuning_for
from dprelease.mechanisms.online_plan import WarmPlan
from dprelease.privacy.noise import float_at_most
from dprelease.privacy.rng import RandomSource
from dprelease.queries.workload import Workload
from dprelease.representations import MWEM_HISTOGRAM_CELLS
from dprelease.representations.factored import DEFAULT_MAX_MODEL_CELLS, FactoredModel
from dprelease.representations.histogram import HistogramModel

#: Changes to MWEM's preset (:func:`~dprelease.mechanisms.mwem_tuning.tuning_for`) for the synopsis: none. MWEM's own
#: plan follows the task's public shape (n, |X|, the workload, epsilon). Until session 50 the synopsis ran a fixed
#: 40-round plan chosen on the 7-column Adult alone, whose rounds at small n each got too little epsilon. Its 1-3-way
#: avg L1 at eps 0.5 without a delta was worse on every suite table tried (loans 0.81 against 0.28, clinic 0.65
#: against 0.27, the 1,300-row table 1.26 against 0.75, full Adult 0.32 against 0.22 and 40 s against 4 s; the
#: 7-column Adult 0.085 against 0.084). Warm sessions at eps 1 without a delta (500 random conjunctions, seeds 0
#: and 1) spent their one update early and refused 461-494 of the 500 queries on clinic, spread, loans and the
#: 5,000-row Adult; with MWEM's own plan none (52 and 371 on the 5,000-row Adult). The fixed plan was better on the
#: 7-column Adult without a delta (mean error 0.0016 against 0.0020; with one 0.0009 against 0.0007).
#: Fields of MWEMTuning; tests set some to keep audits fast.
WARM_MWEM_OPTIONS: dict[str, object] = {}


def check_warm_workload(spec: str, table: PrivateTable) -> Workload:
    """The synopsis's workload from its public spec, checked before anything is spent."""
    return Workload.from_spec(spec, table.domain)


def warm_synopsis(table: PrivateTable, plan: WarmPlan, *, rng: RandomSource, representation: str,
                  max_cells: int = DEFAULT_MAX_CELLS,
                  max_model_cells: int = DEFAULT_MAX_MODEL_CELLS) -> tuple[HistogramModel | FactoredModel, dict]:
    """Run MWEM at the plan's offline share; return x^0 and a public summary of what it measured.

    Privacy: (plan.epsilon_offline, plan.delta_offline)-DP at most (MWEM's guarantee at the floats
    rounded down from them); see the module doc.
    """
    workload = check_warm_workload(plan.warm_workload, table)
    delta = float_at_most(plan.delta_offline)
    # A histogram session's synopsis keeps MWEM's own rule: past MWEM_HISTOGRAM_CELLS MWEM fits a factored model (on
    # a histogram it is minutes slower and no more accurate), and x^0 is that distribution made explicit
    # (post-processing). A new user's 30-million-cell loans table spent 9.8 minutes and 3.9 GB here on the histogram.
    fitted = "factored" if representation == "histogram" and table.domain.size > MWEM_HISTOGRAM_CELLS else \
        representation
    # MWEM's own preset for this representation and noise (public choices), with any overrides.
    tuning = replace(tuning_for(representation=fitted, noise="gaussian" if delta > 0 else "laplace"),
                     **WARM_MWEM_OPTIONS)
    runner = MWEM(epsilon=float_at_most(plan.epsilon_offline), delta=delta, max_cells=max_cells,
                  representation=fitted, max_model_cells=max_model_cells, rounds=plan.warm_rounds,
                  tuning=tuning)
    result = runner.run(table, workload, rng=rng)
    model = result.model.to_histogram(max_cells=max_cells) if fitted != representation else result.model
    measured = [list(m.attributes) for m in result.measurements]
    summary = {"mechanism": "mwem", "workload": plan.warm_workload, "measured_marginals": measured,
               "epsilon": str(plan.epsilon_offline), "delta": str(plan.delta_offline),
               "epsilon_spent": str(getattr(result.accountant, "spent_epsilon", plan.epsilon_offline)),
               "noise": runner.resolved_noise, "rounds": runner.rounds, "model": representation,
               **({"fitted_as": fitted} if fitted != representation else {})}
    return model, summary
