"""The two reference tables a synthetic table is judged against, on any domain.

* **independent noisy 1-way marginals**: the registry's ``independent``
  (:class:`~dprelease.mechanisms.independent.IndependentMechanism`, a factored model past MWEM's histogram limit of
  1,000,000 cells, so any domain works in little memory), rows drawn from its model.
  Privacy: (epsilon, 0)-DP, basic composition (Thm 3.16) of d Laplace measurements (Thm 3.6).
* **uniform (no data)**: every column drawn uniformly; spends nothing.

Both are drawn with a *seeded* generator, for comparison only: they read the real table and are
not fit for release (the curator's check, like the error metrics).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dprelease.data import Dataset
from dprelease.mechanisms.base import Budget
from dprelease.mechanisms.baselines import uniform_model
from dprelease.mechanisms.independent import IndependentMechanism
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.rng import make_rng
from dprelease.queries.workload import Workload
from dprelease.validation import check_positive, check_positive_int

INDEPENDENT = "independent noisy 1-way marginals"
UNIFORM = "uniform (no data)"


def run_epsilon(ledger: dict) -> float | None:
    """The epsilon a release's run was given, the baseline's like for like: a ledger that composes a privately
    drafted schema with the run (``ledger["run"]``) gives the run's budget alone, since the baseline needs the same
    schema and the draft's spend is behind both; else the budget's, else the spent epsilon. None where it states
    none (public: the release file only)."""
    run = ledger.get("run")
    source = run if isinstance(run, dict) and isinstance(run.get("budget"), dict) else ledger
    for part in ("budget", "spent"):
        value = (source.get(part) or {}).get("epsilon")
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            return float(value)
    return None


@dataclass(frozen=True)
class Baselines:
    """The two baseline tables (rows over the real table's domain) and what drew them."""

    tables: dict[str, Dataset]
    epsilon: float
    spent_epsilon: Fraction
    seed: int

    def describe(self) -> str:
        return (f"NOT PRIVATE: drawn from the real table with seed {self.seed}, for comparison only; "
                f"noisy 1-way marginals at epsilon={self.epsilon:g}, rows drawn i.i.d. from their product, as in "
                f"the tuning suite")


def baseline_tables(real: Dataset, *, epsilon: float, n_rows: int, seed: int = 0) -> Baselines:
    """Draw ``n_rows`` rows of each baseline from ``real`` (seeded: for comparison, never for release)."""
    epsilon = check_positive(epsilon, "epsilon")
    n_rows = check_positive_int(n_rows, "n_rows")
    seed = check_positive_int(seed, "seed", minimum=0)
    rng = make_rng(seed, warn=False)
    domain = real.domain
    fitted = IndependentMechanism().fit(real, Workload(domain, tuple((a,) for a in domain.attributes)),
                                        budget=Budget(epsilon=epsilon), rng=rng, progress=Progress.silent())
    spent = fitted.accountant.spent_epsilon
    independent = fitted.row_model.sample(n_rows, rng)
    uniform = np.stack([uniform_model(domain.project([a])).sample(n_rows, rng)[:, 0] for a in domain.attributes],
                       axis=1)
    tables = {INDEPENDENT: Dataset.from_records(independent, domain),
              UNIFORM: Dataset.from_records(uniform, domain)}
    return Baselines(tables, epsilon, spent, seed)
