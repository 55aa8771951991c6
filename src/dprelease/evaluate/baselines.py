"""The two reference tables a synthetic table is judged against, on any domain.

* **independent noisy 1-way marginals**: the registry's ``independent``
  (:class:`~dprelease.mechanisms.independent.IndependentMechanism`, a factored model past MWEM's histogram limit of
  1,000,000 cells, so any domain works in little memory), rows drawn from its model.
  Privacy: (epsilon, 0)-DP, basic composition (Thm 3.16) of d Laplace measurements (Thm 3.6). Beside an add/remove
  release, drawn under add/remove too: the book-unit mechanism at 2 epsilon (L1 sensitivity 1 a marginal, not 2).
* **uniform (no data)**: every column drawn uniformly; spends nothing.
* **independent noisy 1-way, per person** (for a person-level release, given each real row's person): each person's
  rows bounded to the release's k (drawn at random, :func:`~dprelease.privacy.contributions.bound`), then the same
  independent mechanism at the release's noise: under add/remove one person moves a 1-way marginal's counts by k in
  L1, so d Laplace measurements at epsilon / d have scale k d / epsilon, which the book-unit mechanism (L1 sensitivity
  2) gives at epsilon' = 2 epsilon / k. Like for like with the release's promise: the bound's bias and its noise (the
  release's noisy count, 2 % of its epsilon, left out).

Both are drawn with a *seeded* generator, for comparison only: they read the real table and are
not fit for release (the curator's check, like the error metrics).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dprelease.data import Dataset
from dprelease.engines.persons import PersonRows
from dprelease.mechanisms.base import Budget
from dprelease.mechanisms.baselines import uniform_model
from dprelease.mechanisms.independent import IndependentMechanism
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.contributions import bound
from dprelease.privacy.rng import make_rng
from dprelease.queries.workload import Workload
from dprelease.validation import check_positive, check_positive_int

INDEPENDENT = "independent noisy 1-way marginals"
UNIFORM = "uniform (no data)"
PER_PERSON = "independent noisy 1-way, per person"


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
    #: a person-level release's k, where the per-person baseline was drawn
    rows_per_person: int | None = None
    #: whether the independent baseline was drawn under add/remove (the release's unit), not the book's replace-one
    add_remove: bool = False

    def describe(self) -> str:
        person = ("" if self.rows_per_person is None else
                  f"; per person: at most {self.rows_per_person} rows of each person kept, drawn at random, and the "
                  f"release's noise (one person added or removed, {self.rows_per_person} times a record's), like for "
                  "like with a person-level release")
        unit = (" under add/remove, the release's unit (one record more or fewer: half the noise of replace-one at "
                "the same epsilon)" if self.add_remove else "")
        return (f"NOT PRIVATE: drawn from the real table with seed {self.seed}, for comparison only; "
                f"noisy 1-way marginals at epsilon={self.epsilon:g}{unit}, rows drawn i.i.d. from their product, as in "
                f"the tuning suite{person}")


def baseline_tables(real: Dataset | PersonRows, *, epsilon: float, n_rows: int, seed: int = 0,
                    rows_per_person: int | None = None, add_remove: bool = False) -> Baselines:
    """Draw ``n_rows`` rows of each baseline from ``real`` (seeded: for comparison, never for release). ``real`` with
    its persons (:class:`PersonRows`) and a person-level release's ``rows_per_person`` add the per-person baseline;
    the other two read every row, as for any release. ``add_remove``: the release's unit is add/remove, so the
    independent baseline is drawn under it too: one record more or fewer moves a 1-way marginal by 1 in L1, half a
    replacement's 2, so its noise at epsilon is the book-unit mechanism's at 2 epsilon (an add/remove eps-DP run
    is replace-one 2 eps-DP)."""
    if isinstance(real, PersonRows) != (rows_per_person is not None):
        raise ValueError("the per-person baseline needs both the rows' persons and rows_per_person")
    rows, real = (real, real.table) if isinstance(real, PersonRows) else (None, real)
    epsilon = check_positive(epsilon, "epsilon")
    n_rows = check_positive_int(n_rows, "n_rows")
    seed = check_positive_int(seed, "seed", minimum=0)
    rng = make_rng(seed, warn=False)
    domain = real.domain
    one_way = Workload(domain, tuple((a,) for a in domain.attributes))
    fitted = IndependentMechanism().fit(real, one_way, budget=Budget(epsilon=2 * epsilon if add_remove else epsilon),
                                        rng=rng, progress=Progress.silent())
    spent = fitted.accountant.spent_epsilon
    independent = fitted.row_model.sample(n_rows, rng)
    uniform = np.stack([uniform_model(domain.project([a])).sample(n_rows, rng)[:, 0] for a in domain.attributes],
                       axis=1)
    tables = {INDEPENDENT: Dataset.from_records(independent, domain),
              UNIFORM: Dataset.from_records(uniform, domain)}
    if rows is not None:  # drawn after the others, so theirs are the same draws as for any release
        bounded = bound(rows, rows_per_person=rows_per_person, rng=rng)
        person = IndependentMechanism().fit(bounded, one_way, budget=Budget(epsilon=2 * epsilon / rows_per_person),
                                            rng=rng, progress=Progress.silent())
        tables[PER_PERSON] = Dataset.from_records(person.row_model.sample(n_rows, rng), domain)
    return Baselines(tables, epsilon, spent, seed, rows_per_person, add_remove)
