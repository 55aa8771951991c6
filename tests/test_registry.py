"""The registry of mechanisms: one shape for every entry, looked up by name everywhere.

Every registered mechanism is run through the registry on a tripwired table (private reads only inside
the kernel), has its options in ``synth --help``, states its privacy in its docstring, and the
``independent`` mechanism (the worked example of adding one) releases exactly the baseline's model
with an exact ledger.
"""

from __future__ import annotations

import dataclasses
import warnings
from fractions import Fraction

import numpy as np
import pytest

from dprelease import Dataset, Domain
from dprelease.api import synthesize
from dprelease.cli import build_parser
from dprelease.errors import InputError
from dprelease.mechanisms import registry
from dprelease.mechanisms.base import Budget
from dprelease.mechanisms.baselines import IndependentMarginals
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.rng import SeededRandom, make_rng
from dprelease.queries.workload import Workload
from tests.tripwire import Tripwire

DOMAIN = Domain(("a", "b"), (2, 2))

#: Options that make each mechanism runnable on the tiny table (public choices; none change the shape).
RUNNABLE = {"ic-mw": {"alpha": 0.5, "rounds": 5}, "ic-median": {"alpha": 0.6}, "ic-perceptron": {"alpha": 0.6},
            "smalldb": {"alpha": 0.6}, "boosting": {"rounds": 2}, "mwem": {"rounds": 3}}
DELTA = {"boosting": 1e-6}


def tiny() -> Dataset:
    """Four cells, a million rows: every mechanism's theorem has something to say here (online MW's too)."""
    return Dataset.from_histogram([400_000, 300_000, 200_000, 100_000], DOMAIN)


@pytest.mark.parametrize("name", registry.names())
def test_every_mechanism_reads_private_data_only_through_the_kernel(name):
    data = tiny()
    wired = Tripwire.around(data)
    with pytest.raises(AssertionError):
        wired.marginal(("a",))  # the tripwire works
    entry = registry.create(name, **RUNNABLE.get(name, {}))
    budget = Budget(epsilon=1.0, delta=DELTA.get(name, 0.0))
    workload = Workload.from_spec("1way", DOMAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        entry.check(DOMAIN, workload, budget=budget)
        fitted = entry.fit(wired, workload, budget=budget, rng=SeededRandom(0), progress=Progress.silent())
    assert fitted.guarantee.startswith("(epsilon=1")
    assert fitted.accountant.to_json()["spent"]["epsilon"] <= 1.0


@pytest.mark.parametrize("name", registry.names())
def test_every_entry_has_the_registry_shape(name):
    entry = registry.lookup(name)
    assert entry.name == name and entry.summary and set(entry.representations) <= {"histogram", "factored"}
    assert dataclasses.is_dataclass(entry) and entry.__dataclass_params__.frozen
    for option in dataclasses.fields(entry):
        assert option.metadata.get("help"), f"{name}: option {option.name} has no help text"
    doc = entry.__doc__ or ""
    assert "Privacy:" in doc and "Thm" in doc, f"{name}: its docstring states no guarantee and theorem"
    # the delta a run gets when the user gives none: pure DP, except MWEM's 1e-9 (docs/decisions.md, issue 12)
    assert isinstance(entry.default_delta, float) and registry.default_delta(name) == (1e-9 if name == "mwem" else 0.0)


def test_synth_help_lists_every_mechanism_and_its_options():
    synth = build_parser()._subparsers._group_actions[0].choices["synth"]
    text = synth.format_help()
    for name in registry.names():
        assert name in text
    for option in registry.command_line_options():
        assert option.flag in text


def test_unknown_options_warn_and_meaningless_ones_are_refused():
    with pytest.warns(UserWarning, match="alpha is not used by mechanism 'mwem'"):
        registry.create("mwem", alpha=0.5)
    with pytest.raises(InputError, match="base='lp' is for mechanism='boosting' only, got mechanism='mwem'"):
        registry.create("mwem", base="lp")
    with pytest.raises(InputError, match="representation='factored' runs with mechanism="):
        registry.create("smalldb", representation="factored")
    with pytest.raises(InputError, match="mechanism must be one of"):
        registry.create("aim")
    assert registry.create("smalldb", representation="histogram").alpha is None  # a model it keeps: fine


def test_independent_releases_the_baselines_model_with_an_exact_ledger():
    rng = np.random.Generator(np.random.PCG64(3))
    domain = Domain(("a", "b", "c"), (3, 4, 5))
    data = Dataset.from_records(rng.integers(0, [3, 4, 5], size=(300, 3)), domain)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(data, "1-2way", mechanism="independent", epsilon=0.7, seed=4)
    baseline, _ = IndependentMarginals(epsilon=0.7).run(data, rng=make_rng(4, warn=False))
    for marginal, answer in zip(release.workload.marginals, release.answers):
        np.testing.assert_array_equal(answer, baseline.marginal(marginal))
    charges = release.privacy_ledger["charges"]
    assert [Fraction(c["epsilon_exact"]) for c in charges] == [Fraction(0.7) / 3] * 3
    assert Fraction(release.privacy_ledger["spent"]["epsilon_exact"]) == Fraction(0.7)
    assert release.privacy_ledger["spent"]["delta"] == 0


def test_independent_works_on_a_domain_no_histogram_holds():
    domain = Domain(tuple(f"x{i}" for i in range(12)), (40,) * 12)  # 1.7e19 cells
    rng = np.random.Generator(np.random.PCG64(5))
    data = Dataset.from_records(rng.integers(0, 40, size=(500, 12)), domain)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(data, "1way", mechanism="independent", epsilon=1.0, seed=0, rows="sample")
    assert release.parameters["representation"] == "factored" and release.rows.shape == (500, 12)


def test_independent_keeps_its_product_factored_past_mwems_histogram_limit():
    """A product is exact factored; built explicit on a new user's 32.6-million-cell table it took 1.7 GB and 14 s.
    Past MWEM's 1,000,000-cell limit it stays factored, at and below it a histogram (those releases unchanged)."""
    from dprelease.representations import MWEM_HISTOGRAM_CELLS
    rng = np.random.Generator(np.random.PCG64(6))
    for size, kind in ((MWEM_HISTOGRAM_CELLS, "histogram"), (MWEM_HISTOGRAM_CELLS + 1000, "factored")):
        domain = Domain(("a", "b"), (1000, size // 1000))
        data = Dataset.from_records(rng.integers(0, [1000, size // 1000], size=(200, 2)), domain)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            release = synthesize(data, "1way", mechanism="independent", epsilon=1.0, seed=0, rows="sample")
        assert release.parameters["representation"] == kind


def test_a_column_no_measurement_touched_is_named():
    """A survey's four questions outside the user's cross-tables came out as uniform draws without a word. MWEM
    measures the workload's columns only, and says which it left; the independent mechanism measures every column."""
    from dprelease.report.noise import noise_section

    rng = np.random.Generator(np.random.PCG64(7))
    domain = Domain(("a", "b", "c", "d"), (3, 4, 2, 5))
    data = Dataset.from_records(rng.integers(0, [3, 4, 2, 5], size=(2_000, 4)), domain)

    def warned(workload, mechanism="mwem"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            release = synthesize(data, workload, mechanism=mechanism, epsilon=1.0, seed=0)
        return [str(w.message) for w in caught if "no marginal this run measured" in str(w.message)], release

    named, release = warned([["a", "b"]])
    assert len(named) == 1 and named[0].startswith("column(s) ['c', 'd'] are in no marginal")
    assert "2 column(s) are in no measurement (c, d)" in str(noise_section(release))  # the report says it too
    assert warned("1-2way")[0] == [] and warned([["a", "b"]], mechanism="independent")[0] == []


def test_auto_keeps_mwem_histograms_under_a_million_cells_and_theory_paths_up_to_max_cells():
    """MWEM's ``auto`` takes the factored model above MWEM_HISTOGRAM_CELLS (minutes slower there and no more
    accurate: docs/decisions.md); IC-MW keeps MW over all of X up to ``max_cells``; a lower cap still wins."""
    from dprelease.representations import MWEM_HISTOGRAM_CELLS
    budget = Budget(epsilon=1.0, delta=1e-9)
    at_limit = Domain(("a", "b"), (1000, MWEM_HISTOGRAM_CELLS // 1000))
    above = Domain(("a", "b", "c"), (1000, 1000, 2))  # 2,000,000 cells, under max_cells = 50,000,000
    mwem = registry.create("mwem")
    assert mwem.runner(at_limit, budget).representation == "histogram"
    assert mwem.runner(above, budget).representation == "factored"
    assert registry.create("mwem", max_cells=10_000).runner(at_limit, budget).representation == "factored"
    assert registry.create("mwem", representation="histogram").runner(above, budget).representation == "histogram"
    assert registry.create("ic-mw").rule().resolved_representation(above) == "histogram"
