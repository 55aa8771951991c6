"""Evaluation: per-marginal errors on any domain and the two seeded baselines."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dprelease import Dataset, Domain, Workload
from dprelease.evaluate import per_marginal_errors, summarize, workload_errors
from dprelease.evaluate.baselines import INDEPENDENT, UNIFORM, baseline_tables


@pytest.fixture
def skewed() -> Dataset:
    """A table far from uniform and far from independent: b copies a, c is mostly 0."""
    domain = Domain(("a", "b", "c"), (3, 3, 5))
    rng = np.random.Generator(np.random.PCG64(11))
    a = rng.choice(3, size=3000, p=[0.7, 0.2, 0.1])
    c = np.where(rng.random(3000) < 0.8, 0, rng.integers(0, 5, 3000))
    return Dataset.from_records(np.stack([a, a, c], axis=1), domain)


def test_per_marginal_errors_agree_with_the_summary(skewed):
    workload = Workload.from_spec("1-2way", skewed.domain)
    shifted = Dataset.from_records(np.roll(skewed.records, 1, axis=0) % 3, skewed.domain)
    errors = per_marginal_errors(skewed, {"s": shifted, "same": skewed}, workload)
    assert [e.marginal for e in errors] == list(workload.marginals)
    assert all(e.l1["same"] == 0.0 and e.max_error["same"] == 0.0 for e in errors)
    assert summarize(errors, "s") == workload_errors(skewed, shifted, workload)
    (ab,) = [e for e in errors if e.marginal == ("a", "b")]
    truth, other = skewed.marginal(("a", "b")), shifted.marginal(("a", "b"))
    assert ab.cells == 9 and ab.l1["s"] == pytest.approx(np.abs(truth - other).sum())


def test_baselines_spend_at_most_epsilon_exactly_and_repeat_with_the_seed(skewed):
    for epsilon in (0.1, 1.0, 1 / 3):
        drawn = baseline_tables(skewed, epsilon=epsilon, n_rows=500, seed=4)
        assert drawn.spent_epsilon == Fraction(epsilon)  # d charges of exactly eps / d
    one, two = (baseline_tables(skewed, epsilon=1.0, n_rows=500, seed=4) for _ in range(2))
    other = baseline_tables(skewed, epsilon=1.0, n_rows=500, seed=5)
    for name in (INDEPENDENT, UNIFORM):
        assert np.array_equal(one.tables[name].records, two.tables[name].records)
        assert not np.array_equal(one.tables[name].records, other.tables[name].records)
        assert one.tables[name].n == 500 and one.tables[name].domain == skewed.domain


def test_baselines_are_what_they_say(skewed):
    """Independent: 1-way marginals close to the real ones, the a-b dependence lost; uniform: flat."""
    drawn = baseline_tables(skewed, epsilon=50.0, n_rows=20_000, seed=0)
    independent, uniform = drawn.tables[INDEPENDENT], drawn.tables[UNIFORM]
    for attribute in skewed.domain.attributes:
        assert np.abs(independent.marginal((attribute,)) - skewed.marginal((attribute,))).sum() < 0.05
        size = skewed.domain.size_of(attribute)
        assert np.abs(uniform.marginal((attribute,)) - 1 / size).max() < 0.02
    # a == b in the real table; independent draws agree only by chance (0.7^2 + 0.2^2 + 0.1^2 = 0.54).
    agree = np.trace(independent.marginal(("a", "b")))
    assert agree == pytest.approx(0.54, abs=0.03)


def test_the_independent_baseline_stays_factored_past_mwems_histogram_limit(monkeypatch):
    """The product of 1-way marginals as an explicit histogram of 32 million cells took 1.7 GB and 6 s to evaluate
    12,000 rows; past 1,000,000 cells the baseline keeps it factored (the same distribution), below it as before."""
    from dprelease.representations.histogram import HistogramModel

    built = []
    original = HistogramModel.from_log_weights.__func__

    def counting(cls, domain, log_weights):
        built.append(domain.size)
        return original(cls, domain, log_weights)

    monkeypatch.setattr(HistogramModel, "from_log_weights", classmethod(counting))
    rng = np.random.Generator(np.random.PCG64(2))
    large = Domain(("a", "b", "c"), (200, 100, 60))  # 1.2 million cells
    real = Dataset.from_records(np.stack([rng.integers(0, s, 500) for s in large.sizes], axis=1), large)
    drawn = baseline_tables(real, epsilon=1.0, n_rows=500, seed=0)
    assert built == [] and drawn.tables[INDEPENDENT].n == 500 and drawn.spent_epsilon == 1
    small = Domain(("a", "b"), (20, 30))
    baseline_tables(Dataset.from_records(real.records[:, :2] % [20, 30], small), epsilon=1.0, n_rows=50, seed=0)
    assert built == [600]


def test_beside_an_add_remove_release_the_independent_baseline_is_drawn_under_add_remove(skewed, tmp_path, capsys):
    """One record more or fewer moves a 1-way marginal by 1 in L1, a replacement by 2: under the release's add/remove
    unit the baseline's noise at epsilon is the book-unit mechanism's at 2 epsilon, drawn identically; the command
    says which unit it drew under, from the release's parameters."""
    import json
    import warnings

    from dprelease.api import synthesize
    from dprelease.cli import main

    under = baseline_tables(skewed, epsilon=0.5, n_rows=800, seed=2, add_remove=True)
    book = baseline_tables(skewed, epsilon=1.0, n_rows=800, seed=2)
    assert np.array_equal(under.tables[INDEPENDENT].records, book.tables[INDEPENDENT].records)
    assert np.array_equal(under.tables[UNIFORM].records, book.tables[UNIFORM].records)
    assert under.spent_epsilon == Fraction(1) and "under add/remove" in under.describe()
    assert "add/remove" not in baseline_tables(skewed, epsilon=0.5, n_rows=800, seed=2).describe()
    data, domain = tmp_path / "real.csv", tmp_path / "domain.json"
    np.savetxt(data, skewed.records, fmt="%d", delimiter=",", header="a,b,c", comments="")
    domain.write_text(json.dumps(skewed.domain.to_dict()))
    for unit in ("add-remove", "replace"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            release = synthesize(skewed, "1-2way", epsilon=0.5, seed=1, privacy_unit=unit)
        rows, document = tmp_path / f"{unit}.csv", tmp_path / f"{unit}.json"
        release.save(rows, document)
        capsys.readouterr()
        assert main(["evaluate", str(data), str(rows), "--domain", str(domain), "--workload", "1-2way", "--release",
                     str(document), "--json", "--quiet"]) == 0
        printed = json.loads(capsys.readouterr().out)
        assert printed["baseline_unit"] == unit and printed["baseline_epsilon"] == 0.5
        assert ("under add/remove" in printed["baselines_note"]) == (unit == "add-remove")
