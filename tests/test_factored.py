"""The factored (log-linear) representation: a drop-in for the histogram, exact inference, sampling, the cap."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from dprelease.data import Dataset
from dprelease.datasets import adult_paths, load_adult
from dprelease.domain import Domain
from dprelease.errors import DomainTooLargeError
from dprelease.mechanisms.mwem import MWEM
from dprelease.mechanisms.mwem_tuning import MWEMTuning
from dprelease.privacy.rng import SeededRandom
from dprelease.queries import Workload
from dprelease.queries.product import ProductQuery
from dprelease.representations.factored import FactoredModel, model_size
from dprelease.representations.histogram import HistogramModel, marginalize
from dprelease.representations.junction_tree import (JunctionTree, calibrate, calibrate_log, candidate_cells,
                                                     candidates_fit, contract, _count_dtype)
from dprelease.updates.measurement_fit import fit_measurements
from dprelease.updates.measurements import MarginalMeasurement

DOMAINS = [
    Domain(("a", "b", "c", "d", "e"), (2, 3, 4, 2, 3)),
    Domain(("p", "q", "r", "s", "t", "u"), (3, 2, 2, 5, 2, 3)),
]
CLIQUE_SETS = [
    [("a", "b"), ("b", "c"), ("c", "d"), ("a", "d"), ("d", "e")],  # a cycle: needs triangulation
    [("a", "b", "c"), ("c", "d", "e"), ("b",), ("a", "e")],
    [("p", "q"), ("q", "r", "s"), ("s", "t"), ("t", "u"), ("p", "u"), ("r",)],
    # independent parts: a marginal across them is the product of each part's (FactoredModel._sorted_marginal)
    [("p", "q"), ("q", "r"), ("s", "t"), ("u",)],
]


def random_model(domain: Domain, cliques, seed: int, scale: float = 2.0) -> FactoredModel:
    g = np.random.Generator(np.random.PCG64(seed))
    return FactoredModel(domain, {c: scale * g.normal(size=[domain.size_of(a) for a in c]) for c in cliques})


def domain_for(cliques) -> Domain:
    return next(d for d in DOMAINS if all(a in d for c in cliques for a in c))


# ------------------------------------------------------------------------- exact inference
@pytest.mark.parametrize("cliques", CLIQUE_SETS)
def test_every_marginal_matches_the_explicit_histogram(cliques):
    domain = domain_for(cliques)
    model = random_model(domain, cliques, seed=1)
    log_probs = model.log_probs()
    assert abs(np.exp(log_probs).sum() - 1) < 1e-12  # log Z is right
    histogram = HistogramModel.from_log_weights(domain, log_probs)
    for k in range(1, len(domain) + 1):
        for attributes in itertools.permutations(domain.attributes, k) if k <= 2 else \
                itertools.combinations(domain.attributes, k):
            assert np.abs(model.marginal(attributes) - histogram.marginal(attributes)).max() < 1e-12, attributes


@pytest.mark.parametrize("cliques", CLIQUE_SETS)
def test_batched_marginals_match_one_by_one(cliques):
    """``marginals`` sums nested cliques from one another: the same values as ``marginal``, in the order asked,
    for the model's cliques, their sub-cliques (nested in one tree clique), repeats and cliques in no tree clique."""
    domain = domain_for(cliques)
    model = random_model(domain, cliques, seed=2)
    asked = [tuple(c) for c in cliques]
    asked += [sub for c in cliques for k in range(len(c)) for sub in itertools.combinations(c, k)]
    asked += [asked[0], domain.attributes[:3], tuple(reversed(asked[0]))]
    batched = model.marginals(asked)
    assert len(batched) == len(asked)
    for attributes, array in zip(asked, batched):
        assert np.abs(array - model.marginal(attributes)).max() < 1e-14, attributes
    assert batched[0] is not batched[len(asked) - 3]  # a clique asked twice: two arrays, not one shared


@pytest.mark.parametrize("cliques", CLIQUE_SETS)
@pytest.mark.parametrize("scale", [2.0, 60.0])
def test_probability_domain_calibration_equals_the_log_domain_one(cliques, scale):
    """The fast calibration (messages in probabilities) gives the log-domain algorithm's marginals and log Z, also
    on a model peaked enough (potentials of size 60) that most cells underflow to 0 in their clique."""
    domain = domain_for(cliques)
    model = random_model(domain, cliques, seed=3, scale=scale)
    factors = list(model.potentials.items())
    fast, log_z = calibrate(model.tree, factors)
    exact, exact_log_z = calibrate_log(model.tree, factors)
    assert abs(log_z - exact_log_z) <= 1e-12 * max(1.0, abs(exact_log_z))
    for a, b in zip(fast, exact):
        assert np.abs(a - b).max() < 1e-12
        assert abs(a.sum() - 1) < 1e-12


def test_calibration_falls_back_to_the_log_domain_where_a_message_underflows():
    """Each clique alone puts b where the other says it is e^-1000 less likely: both values of b are equally likely,
    but in the probability domain every product of the two cliques underflows to 0. The log domain answers."""
    domain = Domain(("a", "b", "c"), (2, 2, 2))
    model = FactoredModel(domain, {("a", "b"): np.array([[0.0, -1000.0], [0.0, -1000.0]]),
                                   ("b", "c"): np.array([[-1000.0, -1000.0], [0.0, 0.0]])})
    assert np.allclose(model.marginal(("b",)), [0.5, 0.5], atol=1e-12)
    assert np.allclose(model.marginal(("a", "c")), 0.25, atol=1e-12)
    assert abs(model.log_partition - (math.log(8) - 1000)) < 1e-9


def test_contraction_by_matrix_products_equals_einsum():
    """``contract`` (pairs of factors as batched matrix products) sums the same products as einsum does, for
    attributes shared and kept (the batch), shared and summed, private and kept or summed, in any output order."""
    g = np.random.Generator(np.random.PCG64(4))
    sizes = dict(zip("abcdef", (2, 3, 4, 2, 3, 5)))
    operands = [("a", "b", "c"), ("b", "c", "d"), ("d", "e"), ("a", "f")]
    arrays = [g.random([sizes[x] for x in attrs]) for attrs in operands]
    for output in [("a", "d"), ("d", "a"), ("b",), (), ("f", "e", "c", "a"), tuple("abcdef")]:
        spec = ",".join("".join(attrs) for attrs in operands) + "->" + "".join(output)
        expected = np.einsum(spec, *arrays)
        got = contract(list(zip(operands, arrays)), output)
        assert got.shape == expected.shape
        assert np.abs(got - expected).max() < 1e-12 * max(1.0, np.abs(expected).max()), output


@pytest.mark.parametrize("cliques", CLIQUE_SETS)
def test_junction_tree_has_running_intersection_and_covers_every_clique(cliques):
    domain = domain_for(cliques)
    tree = JunctionTree.build(domain, cliques)
    assert set(domain.attributes) <= {a for c in tree.cliques for a in c}
    for c in cliques:
        assert tree.containing(c) is not None
    for attribute in domain.attributes:  # the cliques holding an attribute form a connected subtree
        holding = {i for i, c in enumerate(tree.cliques) if attribute in c}
        tops = [i for i in holding if tree.parent[i] not in holding]
        assert len(tops) == 1, attribute
    assert tree.total_cells == sum(math.prod(domain.size_of(a) for a in c) for c in tree.cliques)
    assert model_size(domain, cliques) == (tree.total_cells, tree.largest_cells)


def test_batched_size_check_agrees_with_the_tree_it_predicts():
    domain = Domain.from_json(adult_paths()[1])
    g = np.random.Generator(np.random.PCG64(4))
    for _ in range(5):
        cliques = [domain.canonical(g.choice(domain.attributes, 3, replace=False)) for _ in range(g.integers(2, 12))]
        candidates = [domain.canonical(c) for c in itertools.combinations(domain.attributes, 3)][::17]
        totals = candidate_cells(domain, cliques, candidates)
        for c, total in zip(candidates, totals):
            assert JunctionTree.build(domain, [*cliques, c]).total_cells == int(total)
        for cap in np.quantile(totals, [0.0, 0.3, 0.7, 1.0]).astype(int):  # min-fill only where min-size is over
            assert np.array_equal(candidates_fit(domain, cliques, candidates, int(cap)), totals <= cap)


# ------------------------------------------------------------------------- a drop-in for the histogram
def test_mirror_descent_fit_gives_the_histograms_distribution():
    domain = DOMAINS[0]
    g = np.random.Generator(np.random.PCG64(3))
    truth = g.dirichlet(np.full(domain.size, 0.3)).reshape(domain.shape)
    histogram, factored = HistogramModel.uniform(domain), FactoredModel.uniform(domain)
    measurements: list[MarginalMeasurement] = []
    step_h = step_f = None
    sequence = [("a",), ("b",), ("a", "b"), ("b", "c", "d"), ("a", "e"), ("c", "e"), ("a", "b"), ("d", "e")]
    for i, attributes in enumerate(sequence):
        noisy = marginalize(domain, truth, attributes) + 0.02 * g.standard_normal([domain.size_of(a) for a in attributes])
        kind = "laplace" if i % 2 else "gaussian"
        measurements.append(MarginalMeasurement(attributes, noisy, 0.02 if len(attributes) < 3 else 0.05, kind))
        histogram, step_h = fit_measurements(histogram, measurements, iterations=6, step=step_h)
        factored, step_f = fit_measurements(factored, measurements, iterations=6, step=step_f)
        assert isinstance(factored, FactoredModel)
        assert step_f == pytest.approx(step_h, rel=1e-12)
        assert np.abs(histogram.probabilities - np.exp(factored.log_probs())).max() < 1e-9
    assert set(factored.cliques) == set(sequence)


def test_cell_and_marginal_updates_give_the_histograms_distribution():
    # The MW rule x <- x exp(-eta q) for a query q on attributes C is a potential update on C.
    domain = DOMAINS[1]
    g = np.random.Generator(np.random.PCG64(5))
    log_weights = np.zeros(domain.shape)
    factored = FactoredModel.uniform(domain)
    for _ in range(12):
        attributes = domain.canonical(g.choice(domain.attributes, g.integers(1, 4), replace=False))
        if g.random() < 0.5:  # a marginal-cell (counting) query
            cell = {a: int(g.integers(domain.size_of(a))) for a in attributes}
            update = -0.7 * np.asarray(ProductQuery.conjunction(domain, cell).factor(), dtype=float)
            update = np.broadcast_to(update, domain.shape)
            on_clique = marginalize(domain, update, attributes) / (domain.size / math.prod(
                domain.size_of(a) for a in attributes))
        else:  # a whole-marginal update
            on_clique = g.normal(size=[domain.size_of(a) for a in attributes])
        log_weights = log_weights + _broadcast(domain, attributes, on_clique)
        current = factored.potentials.get(attributes, 0)
        factored = factored.with_potentials({attributes: current + on_clique})
        histogram = HistogramModel.from_log_weights(domain, log_weights)
        assert np.abs(histogram.probabilities - np.exp(factored.log_probs())).max() < 1e-9


def _broadcast(domain, attributes, array):
    return array.reshape([domain.size_of(a) if a in attributes else 1 for a in domain.attributes])


# ------------------------------------------------------------------------- releasing rows
@pytest.mark.parametrize("cliques", CLIQUE_SETS[:2])
def test_sampling_follows_the_distribution(cliques):
    # Pearson's chi-square over all cells; under the model its mean is k - 1 and its sd sqrt(2(k-1)).
    # The bound k - 1 + 6 sd fails with probability < 1e-6 for a correct sampler (seeded: deterministic).
    domain = domain_for(cliques)
    model = random_model(domain, cliques, seed=2, scale=1.0)
    n = 100_000
    rows = model.sample(n, SeededRandom(7))
    assert rows.shape == (n, len(domain)) and rows.dtype == np.int64
    counts = np.bincount(np.ravel_multi_index(rows.T, domain.shape), minlength=domain.size)
    expected = n * np.exp(model.log_probs()).reshape(-1)
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    k = domain.size
    assert chi2 < k - 1 + 6 * math.sqrt(2 * (k - 1))
    # A planted bug the same test must catch: rows drawn from the uniform distribution.
    uniform = np.bincount(np.ravel_multi_index(HistogramModel.uniform(domain).sample(n, SeededRandom(7)).T,
                                               domain.shape), minlength=k)
    assert float(((uniform - expected) ** 2 / expected).sum()) > k - 1 + 6 * math.sqrt(2 * (k - 1))


def test_rounding_along_the_tree_matches_each_clique_closely():
    domain = DOMAINS[0]
    model = random_model(domain, CLIQUE_SETS[1], seed=3, scale=1.0)
    n = 5_000
    rows = model.round(n, SeededRandom(1))
    released = Dataset.from_records(rows, domain)
    root = model.tree.cliques[model.tree.order[0]]
    # The root clique's counts are n p rounded by largest remainder: off by less than one row per cell.
    assert np.abs(released.marginal_counts(root) - n * model.marginal(root)).max() < 1
    for clique in model.tree.cliques:
        assert np.abs(released.marginal(clique) - model.marginal(clique)).sum() < 0.05


def test_one_clique_rounds_exactly_like_the_histogram():
    domain = DOMAINS[0]
    model = random_model(domain, [domain.attributes], seed=6)
    histogram = model.to_histogram()
    a = model.round(777, SeededRandom(3))
    b = histogram.round(777, SeededRandom(3))
    assert np.array_equal(a, b)


# ------------------------------------------------------------------------- the size cap
def test_model_over_the_cap_is_refused_with_a_clear_error():
    domain = DOMAINS[0]
    # abc (24 cells) plus the lone attributes d (2) and e (3): 29 cells.
    with pytest.raises(DomainTooLargeError, match=r"junction tree of 29 cells \(largest clique 24\).*max_model_cells=25"):
        FactoredModel.uniform(domain, cliques=[("a", "b", "c")], max_model_cells=25)
    model = FactoredModel.uniform(domain, cliques=[("a", "b")], max_model_cells=25)
    assert model.fits_each([("a",), ("a", "b"), ("b", "c"), ("c", "d", "e")]) == [True, True, True, False]


def test_mwem_skips_marginals_over_the_cap_and_says_so():
    domain = DOMAINS[0]
    g = np.random.Generator(np.random.PCG64(0))
    data = Dataset.from_records(g.integers(0, domain.sizes, size=(2_000, len(domain))), domain)
    workload = Workload.all_kway(domain, 3)
    result = MWEM(epsilon=1.0, rounds=3, representation="factored", max_model_cells=30,
                  tuning=MWEMTuning(final_iterations=5)).run(data, workload, rng=SeededRandom(0))
    skips = [e for e in result.transcript if e["action"] == "skip"]
    assert skips and all("max_model_cells=30" in e["reason"] for e in skips)
    assert result.parameters["model_cells"] <= 30
    chosen = [tuple(e["marginal"]) for e in result.transcript if e["action"] == "select+measure"]
    assert len(chosen) == 3 and not any(tuple(m) in chosen for e in skips for m in e["marginals"])
    with pytest.raises(DomainTooLargeError, match="no workload marginal fits"):
        MWEM(epsilon=1.0, rounds=2, representation="factored", max_model_cells=18,
             tuning=MWEMTuning(init_share=0.0, final_iterations=1)).run(data, workload, rng=SeededRandom(0))


# ------------------------------------------------------------------------- real tables
@pytest.fixture(scope="module")
def adult():
    return load_adult()


def test_mwem_runs_on_full_adult_where_no_histogram_fits(adult):
    # 14 attributes, 6.4e17 cells: "auto" must pick the factored model.
    assert adult.domain.size > 10**17
    workload = Workload(adult.domain, (("age", "sex"), ("education-num", "income>50K"), ("race", "sex", "income>50K"),
                                       ("marital-status", "relationship")))
    mwem = MWEM(epsilon=1.0, delta=1e-9, rounds=3, tuning=MWEMTuning(round_iterations=5, final_iterations=150))
    result = mwem.run(adult, workload, rng=SeededRandom(0))
    model = result.model
    assert isinstance(model, FactoredModel) and result.parameters["representation"] == "factored"
    assert result.parameters["noise"] == "gaussian"
    for marginal in workload.marginals:
        estimate = model.marginal(marginal)
        assert estimate.shape == tuple(adult.domain.size_of(a) for a in marginal)
        assert abs(estimate.sum() - 1) < 1e-9 and estimate.min() >= 0
    assert np.abs(model.marginal(["sex"]) - adult.marginal(["sex"])).sum() < 0.05
    rows = model.sample(1_000, SeededRandom(1))
    assert rows.shape == (1_000, 14) and (rows < np.array(adult.domain.sizes)).all()
    # Exact accounting: init, then (select, measure) per round, all in exact rho.
    ledger = result.accountant.ledger
    split = mwem.rho_split(len(workload.attributes))
    assert [c.rho for c in ledger] == [split["init_each"]] * len(workload.attributes) + \
        [split["select_epsilon"] ** 2 / 8, split["measure"]] * 3
    assert result.accountant.spent_rho <= result.accountant.rho
    assert result.accountant.rho - result.accountant.spent_rho < Fraction(1, 10**6) * result.accountant.rho


def test_the_two_representations_give_one_release(adult):
    # Same seed, same measurements: the factored model is the histogram's distribution (7 columns).
    from dprelease.datasets import ADULT_SMALL_COLUMNS

    small = load_adult(ADULT_SMALL_COLUMNS)
    workload = Workload.all_kway(small.domain, 2)
    runs = {r: MWEM(epsilon=1.0, rounds=3, representation=r, tuning=MWEMTuning(round_iterations=3, final_iterations=5))
            .run(small, workload, rng=SeededRandom(11)) for r in ("histogram", "factored")}
    chosen = {r: [e.get("marginal") for e in res.transcript] for r, res in runs.items()}
    assert chosen["histogram"] == chosen["factored"]
    factored = runs["factored"].model
    for marginal in workload.marginals:
        assert np.abs(runs["histogram"].model.marginal(marginal) - factored.marginal(marginal)).max() < 1e-9


def test_cli_synth_runs_the_factored_model_and_the_release_says_so(tmp_path, tiny_files, capsys):
    import json

    from dprelease.cli import main

    out, release = tmp_path / "rows.csv", tmp_path / "release.json"
    argv = ["synth", str(tiny_files["data"]), "--domain", str(tiny_files["domain"]), "--workload", "1-2way",
            "--epsilon", "1", "--delta", "1e-9", "--rounds", "20", "--seed", "0", "--representation", "factored",
            "--out", str(out), "--release", str(release), "--quiet"]
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "Gaussian" in printed and "zCDP" in printed
    document = json.loads(release.read_text())
    assert document["parameters"]["representation"] == "factored"
    assert document["privacy_ledger"]["spent"]["epsilon"] <= 1.0
    assert len(out.read_text().splitlines()) == 201  # header + n rows


def test_rounded_rows_spread_each_value_evenly_over_the_attributes_drawn_before():
    # Tree (b, c) -> (a, b): a is drawn given b, and rounding spreads each a-value evenly over the
    # records of the b-group sorted by c. So within every (b, c) block the count of each a-value is
    # its group share of the block, up to 2 (systematic sampling), not a binomial draw around it.
    domain = Domain(("a", "b", "c"), (4, 3, 5))
    g = np.random.Generator(np.random.PCG64(7))
    model = FactoredModel(domain, {("a", "b"): g.normal(size=(4, 3)), ("b", "c"): g.normal(size=(3, 5))})
    for seed in range(5):
        rows = model.round(10_000, SeededRandom(seed))
        for b in range(3):
            group = rows[rows[:, 1] == b]
            share = np.bincount(group[:, 0], minlength=4) / len(group)
            for c in range(5):
                block = group[group[:, 2] == c]
                counts = np.bincount(block[:, 0], minlength=4)
                assert np.all(np.abs(counts - share * len(block)) <= 2), (b, c, counts, share * len(block))


def test_the_cap_checks_float_counts_stay_exact_for_any_width():
    """Neighbour-edge and shared-attribute counts go through a float matmul: float32 holds every whole number up to
    2^24 (counts reach d^2, so d <= 4096) and not 2^24 + 1; wider domains count in float64."""
    assert float(np.float32(2 ** 24 + 1)) != 2 ** 24 + 1
    assert _count_dtype(4096) is np.float32 and _count_dtype(4097) is np.float64
