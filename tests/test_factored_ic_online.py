"""The iterative construction with MW, and online private MW, on the factored (log-linear) model.

The factored model is the histogram's distribution held as potentials on the queries' attribute
sets, so both mechanisms must run unchanged on it: same draws, same answers (to 1e-9), the same
ledger exactly. Refusals (non-product queries, the model-size cap) come from public information,
before anything is spent or drawn.
"""

from __future__ import annotations

import io
import json
import sys
import warnings
from fractions import Fraction

import numpy as np
import pytest

from dprelease import Dataset, Domain, ProductQuery, Workload
from dprelease.api import synthesize
from dprelease.cli import main
from dprelease.datasets import load_adult
from dprelease.errors import DomainTooLargeError, InputError, SeededRunWarning, WeakPrivacyWarning
from dprelease.mechanisms.iterative_construction import AccuracyNotGuaranteedWarning, IterativeConstruction
from dprelease.mechanisms.online_mw import HYPOTHESIS, MEASUREMENT, OnlinePrivateMW
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.rng import SeededRandom
from dprelease.queries import DenseQuery, QueryList
from dprelease.representations.factored import FactoredModel
from dprelease.representations.histogram import HistogramModel
from dprelease.updates.multiplicative_weights import MultiplicativeWeights
from tests.conftest import csv_text
from tests.counting import count_random_draws

SMALL = Domain(("a", "b", "c", "d"), (2, 3, 4, 3))

#: Pairs of low-cardinality Adult columns (and age x sex): 276 counting queries, a small junction tree.
ADULT_PAIRS = (("sex", "income>50K"), ("race", "sex"), ("relationship", "marital-status"),
               ("workclass", "income>50K"), ("education-num", "income>50K"), ("age", "sex"))


@pytest.fixture(scope="module")
def adult() -> Dataset:
    return load_adult()


def skewed_small(n: int = 3000, seed: int = 1) -> Dataset:
    """Correlated columns, so MW has something to learn."""
    g = np.random.Generator(np.random.PCG64(seed))
    records = g.integers(0, SMALL.sizes, size=(n, len(SMALL)))
    records[:, 1] = np.where(g.random(n) < 0.7, records[:, 0], records[:, 1])
    records[:, 2] = np.where(g.random(n) < 0.6, records[:, 1], records[:, 2])
    return Dataset.from_records(records, SMALL)


def random_product_query(domain: Domain, g: np.random.Generator, name: str = "") -> ProductQuery:
    """Random weights in [0, 1] on a random attribute set, listed in a random order (not domain order)."""
    k = int(g.integers(0, len(domain) + 1))
    attributes = tuple(domain.attributes[i] for i in g.permutation(len(domain))[:k])
    return ProductQuery(domain, attributes, tuple(g.random(domain.size_of(a)) for a in attributes), name)


def count_charges(monkeypatch) -> list[str]:
    """The label of every charge any accountant records (reservations charge through it)."""
    labels: list[str] = []
    real = PrivacyAccountant.charge
    monkeypatch.setattr(PrivacyAccountant, "charge",
                        lambda self, *a, **k: labels.append(k.get("label")) or real(self, *a, **k))
    return labels


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededRunWarning)
        warnings.simplefilter("ignore", AccuracyNotGuaranteedWarning)
        return function(*args, **kwargs)


# ----------------------------------------------------------------------------- the update rule
@pytest.mark.parametrize("seed", range(6))
def test_mw_updates_give_the_histograms_distribution(seed):
    """Any sequence of product-query MW updates: the factored and histogram rules hold one distribution."""
    g = np.random.Generator(np.random.PCG64(seed))
    histogram_rule = MultiplicativeWeights()
    factored_rule = MultiplicativeWeights(representation="factored")
    histogram, factored = histogram_rule.initial(SMALL), factored_rule.initial(SMALL)
    assert isinstance(histogram, HistogramModel) and isinstance(factored, FactoredModel)
    for _ in range(25):
        query = random_product_query(SMALL, g)
        noisy, alpha = float(g.random()), float(g.uniform(0.05, 0.5))
        histogram = histogram_rule.update(histogram, query, noisy, alpha=alpha)
        factored = factored_rule.update(factored, query, noisy, alpha=alpha)
        assert np.abs(np.exp(factored.log_probs()) - histogram.probabilities).max() < 1e-9
    assert factored.cliques  # potentials grew on the queries' attribute sets only
    assert all(c == SMALL.canonical(c) for c in factored.cliques)


def test_an_update_lands_on_a_potential_that_holds_the_querys_attributes():
    """Seeded with the query set's maximal attribute sets, the model's structure never changes."""
    queries = QueryList(SMALL, (ProductQuery.conjunction(SMALL, {"a": 1, "b": 2}),
                                ProductQuery.conjunction(SMALL, {"b": [0, 1]}),
                                ProductQuery.conjunction(SMALL, {"c": 3, "d": 0})))
    rule = MultiplicativeWeights(representation="factored").for_queries(queries, SMALL)
    assert rule.cliques == (("a", "b"), ("c", "d"))  # ("b",) lies inside ("a", "b")
    model = reference = rule.initial(SMALL)
    histogram = MultiplicativeWeights().initial(SMALL)
    for i in (1, 0, 2, 1):
        model = rule.update(model, queries.query(i), 0.9, alpha=0.3)
        histogram = MultiplicativeWeights().update(histogram, queries.query(i), 0.9, alpha=0.3)
        assert model.cliques == reference.cliques
    assert np.abs(np.exp(model.log_probs()) - histogram.probabilities).max() < 1e-9
    assert np.allclose(queries.answers(model), queries.answers(histogram), atol=1e-12)


def test_query_list_answers_share_one_marginal_per_attribute_set(monkeypatch):
    g = np.random.Generator(np.random.PCG64(3))
    queries = QueryList(SMALL, tuple(random_product_query(SMALL, g, str(i)) for i in range(40)))
    model = FactoredModel.uniform(SMALL, cliques=[("a", "b"), ("b", "c", "d")])
    model = model.with_potentials({("a", "b"): g.normal(size=(2, 3)), ("b", "c", "d"): g.normal(size=(3, 4, 3))})
    asked: list[tuple[str, ...]] = []
    real = FactoredModel.marginal
    monkeypatch.setattr(FactoredModel, "marginal", lambda self, attrs: asked.append(tuple(attrs)) or real(self, attrs))
    values = queries.answers(model)
    assert len(asked) == len(set(asked)) == len({q.attributes for q in queries.queries if q.attributes})
    monkeypatch.undo()
    assert values.tolist() == [q.evaluate(model) for q in queries.queries]  # exactly evaluate's values


# ----------------------------------------------------------------------- iterative construction
def test_ic_mw_runs_identically_on_both_representations():
    data = skewed_small()
    releases = {}
    for rep in ("histogram", "factored"):  # eps 20: MW learns in 40 rounds; the run says what such an eps protects
        with pytest.warns(WeakPrivacyWarning, match="epsilon=20 is above 10"):
            releases[rep] = quiet(synthesize, data, "1-2way", mechanism="ic-mw", epsilon=20.0, alpha=0.02, rounds=40,
                                  seed=3, representation=rep)
    h, f = releases["histogram"], releases["factored"]
    assert h.parameters["representation"] == "histogram" and f.parameters["representation"] == "factored"
    assert sum(r["action"] == "update" for r in h.transcript) >= 20  # MW really learned
    assert len(h.transcript) == len(f.transcript)
    for a, b in zip(h.transcript, f.transcript):
        assert (a["round"], a["query_index"], a["query"], a["action"]) == \
               (b["round"], b["query_index"], b["query"], b["action"])
        assert a["noisy_answer"] == b["noisy_answer"] and a["epsilon"] == b["epsilon"]  # the same draws
        assert abs(a["model_answer"] - b["model_answer"]) < 1e-9
    assert h.privacy_ledger == f.privacy_ledger
    assert max(np.abs(x - y).max() for x, y in zip(h.answers, f.answers)) < 1e-9


def test_ic_mw_on_a_query_list_of_product_queries_matches_the_histogram():
    data = skewed_small(seed=4)
    g = np.random.Generator(np.random.PCG64(9))
    queries = QueryList(SMALL, tuple(ProductQuery.conjunction(
        SMALL, {a: int(g.integers(0, SMALL.size_of(a))) for a in g.choice(SMALL.attributes, 2, replace=False)},
        name=str(i)) for i in range(30)))
    results = {}
    for rep in ("histogram", "factored"):
        ic = IterativeConstruction(epsilon=20.0, alpha=0.02, max_rounds=30,
                                   update=MultiplicativeWeights(representation=rep))
        results[rep] = quiet(ic.run, data, queries, rng=SeededRandom(5))
    h, f = results["histogram"], results["factored"]
    assert [r["query_index"] for r in h.transcript] == [r["query_index"] for r in f.transcript]
    assert [r["noisy_answer"] for r in h.transcript] == [r["noisy_answer"] for r in f.transcript]
    assert h.accountant.to_json() == f.accountant.to_json()
    assert np.abs(queries.answers(h.model) - queries.answers(f.model)).max() < 1e-9


def test_ic_mw_runs_on_full_adult_with_an_exact_ledger(adult):
    """6.4e17 cells: no histogram fits, the factored model holds a few hundred cells."""
    workload = Workload(adult.domain, ADULT_PAIRS)
    assert workload.num_queries == 276
    release = quiet(synthesize, adult, workload, mechanism="ic-mw", epsilon=1.0, alpha=0.05, rounds=60, seed=1)
    params = release.parameters
    assert params["representation"] == "factored"  # auto: the domain is far above max_cells
    assert params["rounds"] == 60 and params["model_cells"] <= 1_000
    updates = sum(r["action"] == "update" for r in release.transcript)
    assert updates >= 30
    ledger = release.privacy_ledger
    (charge,) = ledger["charges"]  # Thm 5.3: all 2T steps reserved before the first round
    assert Fraction(charge["epsilon_exact"]) == Fraction(ledger["spent"]["epsilon_exact"]) == 1
    assert ledger["spent"]["delta_exact"] == "0"
    assert all(r["epsilon"] == 1 / 60 for r in release.transcript)  # 2 eps0 = 2 / (2 * 60)
    # The learned model is closer to the data than the uniform start (eta = alpha / 2: small steps).
    truth = workload.answers(adult)
    start = np.abs(workload.answers(FactoredModel.uniform(adult.domain)) - truth)
    learned = np.abs(np.concatenate([a.reshape(-1) for a in release.answers]) - truth)
    assert learned.max() < 0.9 * start.max() and learned.mean() < start.mean()
    assert release.rows.shape == (adult.n, 14)


# --------------------------------------------------------------------------------- online MW
def adult_stream(domain: Domain, count: int, seed: int) -> list[ProductQuery]:
    """Counting queries on one or two of a few Adult columns (ages as ranges)."""
    g = np.random.Generator(np.random.PCG64(seed))
    columns = ["workclass", "education-num", "marital-status", "relationship", "race", "sex", "income>50K", "age"]
    stream = []
    for i in range(count):
        chosen = g.choice(columns, size=int(g.integers(1, 3)), replace=False)
        where = {a: (list(range(int(g.integers(0, 40)), 60)) if a == "age" else int(g.integers(0, domain.size_of(a))))
                 for a in chosen}
        stream.append(ProductQuery.conjunction(domain, where, name=str(i)))
    return stream


def adult_session(adult: Dataset, **kwargs) -> OnlinePrivateMW:
    # epsilon is large so that, at this n and |X| = 6.4e17, Thm 4.14's alpha is small enough for updates.
    options = {"epsilon": 1000.0, "max_queries": 120, "seed": 7, "representation": "factored", **kwargs}
    return quiet(OnlinePrivateMW, adult, **options)


def test_online_mw_on_full_adult_resumes_identically(adult, tmp_path):
    stream = adult_stream(adult.domain, 120, seed=5)
    whole = adult_session(adult)
    assert whole.representation == "factored" and isinstance(whole.model, FactoredModel)
    uninterrupted = [whole.ask(q) for q in stream]
    sources = {a.source for a in uninterrupted}
    assert sources == {HYPOTHESIS, MEASUREMENT} and whole.updates_used >= 10

    first = adult_session(adult)
    answers = [first.ask(q) for q in stream[:60]]
    first.save(tmp_path / "state.json")
    record = json.loads((tmp_path / "state.json").read_text())
    assert record["version"] == 2 and record["body"]["model"]["representation"] == "factored"
    assert {tuple(p["clique"]) for p in record["body"]["model"]["potentials"]} == set(first.model.cliques)
    resumed = quiet(OnlinePrivateMW.load, tmp_path / "state.json", adult)
    assert resumed.representation == "factored" and resumed.queries_seen == 60
    assert resumed.accountant.ledger == first.accountant.ledger  # restored, not re-spent
    for clique, theta in first.model.potentials.items():
        assert np.array_equal(resumed.model.potentials[clique], theta)  # bit for bit
    answers += [resumed.ask(q) for q in stream[60:]]
    assert answers == uninterrupted
    assert resumed.epsilon_spent == Fraction(1000)


def test_a_histogram_session_still_writes_and_reads_version_1(tmp_path):
    data = skewed_small()
    s = quiet(OnlinePrivateMW, data, epsilon=5.0, max_queries=10, seed=1)
    assert s.representation == "histogram"  # auto: the domain fits max_cells
    s.ask(ProductQuery.conjunction(SMALL, {"a": 1}))
    s.save(tmp_path / "s.json")
    record = json.loads((tmp_path / "s.json").read_text())
    assert record["version"] == 1 and "representation" not in record["body"]["model"]
    resumed = quiet(OnlinePrivateMW.load, tmp_path / "s.json", data)
    assert isinstance(resumed.model, HistogramModel) and resumed.queries_seen == 1


# ------------------------------------------------------------------------------------ refusals
def test_a_dense_query_on_the_factored_model_is_refused_before_anything_is_spent(monkeypatch):
    data = skewed_small()
    dense = DenseQuery(SMALL, np.full(SMALL.shape, 0.5), name="half")
    queries = QueryList(SMALL, (ProductQuery.conjunction(SMALL, {"a": 1}), dense))
    draws, charges = count_random_draws(monkeypatch), count_charges(monkeypatch)
    ic = IterativeConstruction(epsilon=1.0, alpha=0.1, max_rounds=5,
                               update=MultiplicativeWeights(representation="factored"))
    with pytest.raises(InputError, match="'half' is a DenseQuery.*representation='histogram'"):
        ic.run(data, queries, rng=SeededRandom(0))
    assert draws == [] and charges == []

    # Online: the session's plan is charged at the start; the refused query costs nothing more.
    session = quiet(OnlinePrivateMW, data, epsilon=5.0, max_queries=10, seed=0, representation="factored")
    before, charged = session._sparse.state(), list(charges)
    draws.clear()
    with pytest.raises(InputError, match="DenseQuery.*representation='histogram'"):
        session.ask(dense)
    assert draws == [] and charges == charged and session._sparse.state() == before
    assert session.queries_seen == 0


def test_a_workload_over_the_cap_is_refused_before_anything_is_spent(adult, monkeypatch):
    draws, charges = count_random_draws(monkeypatch), count_charges(monkeypatch)
    with pytest.raises(DomainTooLargeError, match="max_model_cells=2,000,000.*any query"):
        synthesize(adult, "2way", mechanism="ic-mw", epsilon=1.0, alpha=0.1, rounds=5, seed=0)
    assert draws == [] and charges == []
    small = Domain(("a", "b", "c"), (10, 10, 10))
    data = Dataset.from_records(np.zeros((20, 3), dtype=np.int64), small)
    ic = IterativeConstruction(epsilon=1.0, alpha=0.1, max_rounds=5,
                               update=MultiplicativeWeights(representation="factored", max_model_cells=500))
    quiet(ic.run, data, Workload(small, (("a", "b"), ("b", "c"))), rng=SeededRandom(0))  # a chain: 200 cells
    draws.clear(), charges.clear()
    with pytest.raises(DomainTooLargeError, match="1,000 cells"):  # a triangle: one clique on a, b, c
        ic.run(data, Workload(small, (("a", "b"), ("b", "c"), ("a", "c"))), rng=SeededRandom(0))
    assert draws == [] and charges == []


def test_an_online_query_that_would_break_the_cap_is_refused_and_the_session_goes_on(adult, monkeypatch):
    session = adult_session(adult, max_model_cells=20_000)
    draws = count_random_draws(monkeypatch)
    answered = [session.ask(q) for q in adult_stream(adult.domain, 10, seed=2)]
    seen, updates, state = session.queries_seen, session.updates_used, session._sparse.state()
    draws.clear()
    wide = ProductQuery.conjunction(adult.domain, {"fnlwgt": 3, "capital-gain": 0, "capital-loss": 0}, name="wide")
    with pytest.raises(DomainTooLargeError, match="'wide'.*max_model_cells=20,000.*before anything is spent"):
        session.ask(wide)
    assert draws == [] and session._sparse.state() == state
    assert (session.queries_seen, session.updates_used) == (seen, updates)
    assert session.ask(adult_stream(adult.domain, 1, seed=3)[0]).index == seen + 1  # and it goes on
    assert len(answered) == 10


# ----------------------------------------------------------------------------------------- CLI
@pytest.fixture
def small_files(write_file):
    data = skewed_small(n=400, seed=6)
    return {"data": write_file("data.csv", csv_text(SMALL.attributes, data.records.tolist())),
            "domain": write_file("domain.json", SMALL.to_dict())}


def test_cli_synth_ic_mw_on_the_factored_model(capsys, small_files, tmp_path):
    out, release_path = tmp_path / "ic.csv", tmp_path / "ic.json"
    code = quiet(main, ["synth", str(small_files["data"]), "--domain", str(small_files["domain"]), "--workload",
                        "1-2way", "--mechanism", "ic-mw", "--representation", "factored", "--epsilon", "2",
                        "--alpha", "0.1", "--rounds", "8", "--seed", "0", "--out", str(out),
                        "--release", str(release_path), "--quiet"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    release = json.loads(release_path.read_text())
    assert release["mechanism"] == "ic-mw" and release["parameters"]["representation"] == "factored"
    assert Fraction(release["privacy_ledger"]["spent"]["epsilon_exact"]) == 2
    assert len(out.read_text().splitlines()) == 401


def test_cli_synth_refuses_a_factored_workload_over_the_cap_before_reading_the_data(capsys, tmp_path, write_file):
    domain = write_file("domain.json", {"a": 100, "b": 100, "c": 100, "d": 100})
    code = main(["synth", str(tmp_path / "missing.csv"), "--domain", str(domain), "--workload", "2way",
                 "--mechanism", "ic-mw", "--representation", "factored", "--epsilon", "1", "--alpha", "0.1",
                 "--out", str(tmp_path / "o.csv")])
    err = capsys.readouterr().err
    assert code == 2 and "max_model_cells" in err and err.count("\n") == 1  # not "missing.csv cannot be read"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["domain.json"]


def test_cli_online_on_the_factored_model_answers_and_resumes(capsys, small_files, tmp_path, monkeypatch):
    lines = [json.dumps({"id": i, "where": w}) for i, w in enumerate(
        [{"a": 0}, {"b": 0}, {"a": 1, "b": 1}, {"c": 2}, {"a": 0, "c": 1}, {"b": 2, "d": 1}] * 2)]

    def online(out, chunk, *extra):
        monkeypatch.setattr(sys, "stdin", io.StringIO("\n".join(chunk) + "\n"))
        code = quiet(main, ["online", str(small_files["data"]), "--domain", str(small_files["domain"]),
                            "--epsilon", "5", "--max-queries", "12", "--seed", "8", "--out", str(out), *extra])
        captured = capsys.readouterr()
        assert code == 0, captured.err
        return captured.out

    whole = tmp_path / "whole.jsonl"
    stdout = online(whole, lines, "--representation", "factored")
    assert "factored hypothesis" in stdout
    records = [json.loads(line) for line in whole.read_text().splitlines()]
    assert [r["query"] for r in records] == list(range(1, 13))
    assert {r["source"] for r in records} <= {HYPOTHESIS, MEASUREMENT}

    parts, state = tmp_path / "parts.jsonl", tmp_path / "s.json"
    online(parts, lines[:5], "--representation", "factored", "--state", str(state))
    assert json.loads(state.read_text())["version"] == 2
    assert "resumed" in online(parts, lines[5:], "--state", str(state))  # auto: the session keeps its own
    assert parts.read_text() == whole.read_text()

    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    code = main(["online", str(small_files["data"]), "--domain", str(small_files["domain"]), "--epsilon", "5",
                 "--max-queries", "12", "--out", str(parts), "--state", str(state), "--representation", "histogram"])
    err = capsys.readouterr().err
    assert code == 2 and "--representation histogram differs" in err and err.count("\n") == 1
