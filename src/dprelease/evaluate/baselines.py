"""The two reference tables a synthetic table is judged against, on any domain.

* **independent noisy 1-way marginals**: :class:`~dprelease.mechanisms.baselines.IndependentMarginals`
  run on each column alone at epsilon / d (largest float not above it, so the d runs sum to at
  most epsilon exactly), and each column drawn from its own noisy marginal. Its distribution is
  the product of the noisy 1-way marginals, the mechanism's own model, without the explicit
  histogram over X that the whole-table run builds (full Adult has 6.4e17 cells).
  Privacy: (epsilon, 0)-DP by basic composition (Thm 3.16) of the d runs, each on a function
  of the table (its projection on one column, whose neighbours are neighbours).
* **uniform (no data)**: every column drawn uniformly; spends nothing.

Both are drawn with a *seeded* generator, for comparison only: they read the real table and are
not fit for release (the curator's check, like the error metrics).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from dprelease.data import Dataset
from dprelease.mechanisms.baselines import IndependentMarginals, uniform_model
from dprelease.privacy.rng import make_rng
from dprelease.validation import check_positive, check_positive_int

INDEPENDENT = "independent noisy 1-way marginals"
UNIFORM = "uniform (no data)"


@dataclass(frozen=True)
class Baselines:
    """The two baseline tables (rows over the real table's domain) and what drew them."""

    tables: dict[str, Dataset]
    epsilon: float
    spent_epsilon: Fraction
    seed: int

    def describe(self) -> str:
        return (f"NOT PRIVATE: drawn from the real table with seed {self.seed}, for comparison only; "
                f"noisy 1-way marginals at epsilon={self.epsilon:g}")


def float_at_most(value: Fraction) -> float:
    """The largest float <= ``value``."""
    f = float(value)
    return f if Fraction(f) <= value else math.nextafter(f, -math.inf)


def baseline_tables(real: Dataset, *, epsilon: float, n_rows: int, seed: int = 0) -> Baselines:
    """Draw ``n_rows`` rows of each baseline from ``real`` (seeded: for comparison, never for release)."""
    epsilon = check_positive(epsilon, "epsilon")
    n_rows = check_positive_int(n_rows, "n_rows")
    seed = check_positive_int(seed, "seed", minimum=0)
    rng = make_rng(seed, warn=False)
    domain = real.domain
    each = float_at_most(Fraction(epsilon) / len(domain))
    spent = Fraction(0)
    independent, uniform = [], []
    for attribute in domain.attributes:
        model, accountant = IndependentMarginals(epsilon=each).run(real.select([attribute]), rng=rng)
        spent += accountant.spent_epsilon
        independent.append(model.sample(n_rows, rng)[:, 0])
    for attribute in domain.attributes:
        uniform.append(uniform_model(domain.project([attribute])).sample(n_rows, rng)[:, 0])
    assert spent <= Fraction(epsilon), "the baseline's runs must sum to at most epsilon"
    tables = {INDEPENDENT: Dataset.from_records(np.stack(independent, axis=1), domain),
              UNIFORM: Dataset.from_records(np.stack(uniform, axis=1), domain)}
    return Baselines(tables, epsilon, spent, seed)
