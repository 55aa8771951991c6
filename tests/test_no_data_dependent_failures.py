"""A checked input never makes a mechanism fail because of the private values.

How: every noisy quantity is finite by construction (noise is bounded by the 53-bit
sampler, scores are finite differences of fractions), the exponential mechanism works on
log-scale scores (Gumbel-max: no exp() to underflow, however large n * eps * score), MW
keeps log weights (no probability underflows to an unrecoverable 0), and the measurement
fit only sees public noisy values. The extreme tables below (one row, one cell holding
everything, empty marginals, n = 10^9) must all release finite results.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from dprelease.api import synthesize
from dprelease.data import Dataset
from dprelease.domain import Domain

DOMAIN = Domain(("a", "b", "c"), (3, 2, 4))


def one_cell(n: int) -> Dataset:
    counts = np.zeros(DOMAIN.size, dtype=np.int64)
    counts[5] = n
    return Dataset.from_histogram(counts, DOMAIN)


TABLES = {
    "one row": lambda: Dataset.from_records([[2, 1, 3]], DOMAIN),
    "all rows in one cell": lambda: one_cell(1000),
    "a billion rows in one cell": lambda: one_cell(10**9),
    "first and last cells only": lambda: Dataset.from_records([[0, 0, 0]] * 50 + [[2, 1, 3]] * 50, DOMAIN),
}


@pytest.mark.parametrize("table", TABLES)
@pytest.mark.parametrize("mechanism,kwargs", [
    ("mwem", {}), ("mwem", {"epsilon": 1e-4}), ("mwem", {"epsilon": 1e3}),  # 1e3: the largest epsilon accepted
    ("ic-mw", {"alpha": 0.5, "rounds": 20}), ("ic-mw", {"alpha": 0.05, "rounds": 5, "delta": 1e-9}),
])
def test_extreme_tables_release_finite_results(table, mechanism, kwargs):
    data = TABLES[table]()
    params = {"epsilon": 1.0, **kwargs}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(data, "1-3way", mechanism=mechanism, seed=0, n_rows=100, **params)
    assert all(np.all(np.isfinite(a)) and abs(a.sum() - 1) < 1e-9 for a in release.answers)
    assert release.rows.shape == (100, 3)
    assert np.all((release.rows >= 0) & (release.rows < np.array(DOMAIN.sizes)))
