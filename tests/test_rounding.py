"""Rounding a model to rows: every count n p rounded down or up, unbiased, and no collapse when n << |X|."""

from __future__ import annotations

import numpy as np
import pytest

from dprelease import Domain
from dprelease.privacy.rng import make_rng
from dprelease.representations.factored import FactoredModel
from dprelease.representations.histogram import HistogramModel
from dprelease.representations.rounding import systematic_counts


@pytest.mark.parametrize("seed", range(5))
def test_each_count_is_n_p_rounded_down_or_up_and_they_sum_to_n(seed):
    generator = np.random.Generator(np.random.PCG64(seed))
    table = generator.dirichlet(np.full(40, 0.3), size=7)
    sizes = generator.integers(0, 500, size=7)
    counts = systematic_counts(table, sizes, make_rng(seed, warn=False))
    expected = table * sizes[:, None]
    assert np.array_equal(counts.sum(axis=1), sizes)
    assert np.all((counts == np.floor(expected)) | (counts == np.ceil(expected)))


def test_rounding_is_unbiased():
    """Mean counts over 20,000 seeded draws are n p within 5 standard errors (a count varies by < 1)."""
    p = np.array([0.05, 0.1, 0.15, 0.3, 0.4])
    rng = make_rng(11, warn=False)
    draws = np.array([systematic_counts(p, 3, rng) for _ in range(20_000)])
    assert np.all(np.abs(draws.mean(axis=0) - 3 * p) <= 5 * 0.5 / np.sqrt(20_000))


def test_largest_remainder_would_collapse_here_and_this_does_not():
    """The issue's case: n = 5,000 rows over 1.35 M cells, one column 58.5 % its first value.

    Every cell's count is far below 1, so handing the rows to the largest remainders puts them all in the
    likeliest cells (that column 100 % one value). Unbiased rounding keeps the column's share.
    """
    domain = Domain(("workclass", "b", "c", "d"), (9, 150, 100, 10))  # 1.35 M cells
    first = np.full(9, 0.415 / 8)
    first[0] = 0.585
    generator = np.random.Generator(np.random.PCG64(3))
    logs = np.log(first).reshape(9, 1, 1, 1) + np.log(generator.dirichlet(np.ones(150))).reshape(1, 150, 1, 1) \
        + np.log(generator.dirichlet(np.ones(100))).reshape(1, 1, 100, 1) + np.log(np.full(10, 0.1)).reshape(1, 1, 1, 10)
    model = HistogramModel.from_log_weights(domain, logs)
    rows = model.round(5_000, make_rng(0, warn=False))
    share = np.mean(rows[:, 0] == 0)
    assert abs(share - 0.585) < 0.03, share  # 5,000 rows: a binomial sd of 0.007
    factored = FactoredModel.uniform(domain).with_potentials({("workclass",): np.log(first)})
    share = np.mean(factored.round(5_000, make_rng(0, warn=False))[:, 0] == 0)
    assert abs(share - 0.585) < 0.03, share
