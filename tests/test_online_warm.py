"""Online MW in warm mode (issue 16): the plan from the asked accuracy and the budget, exact accounting of
the synopsis plus NumericSparse, the accuracy theorem on seeded runs, refusals, resumable state, the
forfeit of a lost comparison, and a statistical privacy audit with a planted bug.

False-alarm rate of the audit below: <= 1e-6 (tests/audit.py).
"""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from dprelease import Dataset, Domain, ProductQuery
from dprelease.bounds import numeric_sparse_alpha
from dprelease.cli import main
from dprelease.errors import BudgetExhaustedError, InputError, SeededRunWarning
from dprelease.mechanisms import online_mw, online_warm
from dprelease.mechanisms.online_mw import HYPOTHESIS, MEASUREMENT, WARM_CHARGE_LABEL, OnlinePrivateMW
from dprelease.mechanisms.online_plan import WarmPlan
from dprelease.privacy.rng import SeededRandom
from dprelease.representations.histogram import HistogramModel
from tests.audit import violations
from tests.test_online_mw import DATA, DOMAIN, N, random_conjunctions


def warm(**kwargs) -> OnlinePrivateMW:
    kwargs.setdefault("epsilon", 1.0)
    kwargs.setdefault("seed", 0)
    kwargs.setdefault("max_queries", 150)
    kwargs.setdefault("accuracy", 0.05)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededRunWarning)
        return OnlinePrivateMW(kwargs.pop("data", DATA), mode="warm", **kwargs)


# ------------------------------------------------------------------------------------ the plan
@pytest.mark.parametrize("accuracy,share,delta", [(0.05, 0.5, 0.0), (0.02, 0.5, 0.0), (0.1, 0.25, 0.0),
                                                  (0.05, 0.5, 1e-6)])
def test_the_plan_takes_the_largest_cutoff_the_online_budget_affords(accuracy, share, delta):
    plan = WarmPlan.solve(n=N, universe_size=DOMAIN.size, epsilon=1.0, delta=delta, accuracy=accuracy,
                          max_queries=500, warm_share=share)
    assert plan.epsilon_offline + plan.epsilon_online == Fraction(1.0)
    assert plan.epsilon_offline == Fraction(share) and plan.delta_offline + plan.delta_online == Fraction(delta)

    def alpha_ns(c: int) -> float:  # Thm 3.28 on the online share, k = 2|Q| questions of sensitivity 1/n
        return numeric_sparse_alpha(cutoff=c, num_queries=1000, epsilon=float(plan.epsilon_online),
                                    delta=float(plan.delta_online), beta=0.05, sensitivity=1 / N)

    assert 3 * alpha_ns(plan.cutoff) <= accuracy < 3 * alpha_ns(plan.cutoff + 1)
    assert plan.threshold == pytest.approx(accuracy - alpha_ns(plan.cutoff), rel=1e-12)
    assert plan.alpha == plan.threshold / 2 >= plan.numeric_sparse_alpha  # the potential argument's condition
    assert plan.promised_accuracy == accuracy and not plan.vacuous
    assert WarmPlan.from_json(json.loads(json.dumps(plan.to_json()))) == plan


def test_the_plan_says_when_the_stream_stops_and_what_accuracy_buys_twice_the_updates():
    """A small cut-off ends the stream at its c-th miss however long it was asked to be (a new user's 200-query
    session ended at query 2); the plan says so, and the accuracy it names does buy 2c when asked for."""
    one = WarmPlan.solve(n=12_000, universe_size=10**6, epsilon=0.5, accuracy=0.1, max_queries=200)
    assert one.cutoff == 1 and one.halting.startswith("at most 1 update: each query the hypothesis misses")
    named = float(one.halting.split("accuracy=")[1].split(" ")[0])
    twice = WarmPlan.solve(n=12_000, universe_size=10**6, epsilon=0.5, accuracy=named * 1.001, max_queries=200)
    assert twice.cutoff >= 2 and "however many of the 200 are left" in one.halting
    assert "updates:" in twice.halting
    everything = WarmPlan.solve(n=10**6, universe_size=64, epsilon=1.0, accuracy=0.1, max_queries=5)
    assert everything.cutoff >= 5 and everything.halting.startswith("every one of the 5 queries")


def test_an_accuracy_the_budget_cannot_buy_is_refused_before_anything_is_spent():
    with pytest.raises(InputError, match=r"accuracy=0.001 is below what NumericSparse \(Thm 3.28\) promises") as e:
        WarmPlan.solve(n=10_000, universe_size=64, epsilon=1.0, accuracy=0.001, max_queries=100)
    assert "even one update needs accuracy >=" in str(e.value) and "less accuracy" in str(e.value)
    with pytest.raises(InputError, match=r"which promises nothing \(a fraction's error is at most 1\); ask for more "
                                         r"epsilon") as e:  # a served table's tiny session: never "ask for accuracy 2.7"
        WarmPlan.solve(n=15_000, universe_size=64, epsilon=0.01, accuracy=0.5, max_queries=10)
    assert "less accuracy" not in str(e.value)
    with pytest.raises(InputError, match="needs accuracy= .* and max_queries="):
        warm(accuracy=None)
    with pytest.raises(InputError, match="not alpha="):
        warm(alpha=0.2)
    with pytest.raises(InputError, match="apply to mode='warm' only"):
        OnlinePrivateMW(DATA, epsilon=1.0, max_queries=10, accuracy=0.1, seed=0)
    with pytest.raises(InputError, match="mode must be one of"):
        OnlinePrivateMW(DATA, epsilon=1.0, max_queries=10, mode="hot", seed=0)
    with pytest.raises(InputError, match="workload"):
        warm(warm_workload="nine-way")


# ------------------------------------------------------------------------------- accounting
@pytest.mark.parametrize("epsilon,share", [(1.0, 0.5), (0.7, 0.3), (2.0, 0.75)])
def test_warm_mode_charges_the_synopsis_and_numeric_sparse_exactly_epsilon(epsilon, share):
    s = warm(epsilon=epsilon, warm_share=share, accuracy=0.1)
    labels = [c.label for c in s.accountant.ledger]
    assert labels == [WARM_CHARGE_LABEL, f"OnlineMW NumericSparse: {s.cutoff} AboveThreshold run(s)",
                      f"OnlineMW NumericSparse: {s.cutoff} numeric answer(s)"]
    synopsis, runs, answers = (c.epsilon for c in s.accountant.ledger)
    online = Fraction(epsilon) - Fraction(epsilon) * Fraction(share)
    assert synopsis == Fraction(epsilon) * Fraction(share)
    assert runs == online * Fraction(8, 9) and answers == online / 9  # Thm 3.27's split, delta = 0
    assert s.epsilon_spent == Fraction(epsilon)  # exactly the budget
    assert Fraction(s.synopsis["epsilon_spent"]) <= synopsis  # MWEM never spent more than its share


def test_with_delta_the_charges_stay_within_epsilon_and_delta():
    s = warm(delta=1e-6, accuracy=0.05)
    assert s.epsilon_spent <= Fraction(1.0) and s.delta_spent <= Fraction(1e-6)
    assert s.accountant.ledger[0].delta == Fraction(1e-6) * Fraction(0.5)
    assert s.synopsis["noise"] == "gaussian"


# ---------------------------------------------------------------------------- the accuracy
def test_every_answer_is_within_the_asked_accuracy_in_at_least_1_minus_beta_of_runs():
    runs, successes, updates, refused = 16, 0, 0, 0
    for seed in range(runs):
        # A 1-way synopsis misses the table's correlations, so the online part has work to do.
        s = warm(seed=seed, warm_workload="1way", accuracy=0.05, max_queries=150)
        worst = 0.0
        for query in random_conjunctions(150, seed=2000 + seed):
            try:
                answer = s.ask(query)
            except BudgetExhaustedError as exc:  # refused with a reason: never a wrong answer
                assert "exhausted" in str(exc)
                refused += 1
                continue
            worst = max(worst, abs(answer.value - query.evaluate(DATA)))
        successes += worst <= s.promised_accuracy
        assert s.updates_used <= s.cutoff
        updates += s.updates_used
    assert successes >= math.ceil((1 - 0.05) * runs)
    assert updates > 0  # the hypothesis did learn


def test_updates_are_mw_steps_and_the_session_refuses_after_its_cutoff():
    s = warm(warm_workload="1way", accuracy=0.03, max_queries=400, seed=5)
    cell = np.unravel_index(5, DOMAIN.shape)
    heavy = ProductQuery.conjunction(DOMAIN, {a: int(v) for a, v in zip(DOMAIN.attributes, cell)})
    sources = []
    with pytest.raises(BudgetExhaustedError, match=f"all {s.cutoff} updates"):
        for _ in range(400):
            before = s.model
            answer = s.ask(heavy)
            sources.append(answer.source)
            if answer.source == MEASUREMENT:
                assert s.model is not before
                assert abs(answer.value - heavy.evaluate(DATA)) <= s.plan.numeric_sparse_alpha
            else:
                assert s.model is before and answer.source == HYPOTHESIS
    assert sources.count(MEASUREMENT) == s.cutoff and s.refusal() is not None


# ------------------------------------------------------------------------- state and crashes
def test_a_warm_session_saves_and_resumes_like_one_run(tmp_path):
    queries = random_conjunctions(60, seed=9)
    whole = warm(seed=4, warm_workload="1way", max_queries=60)
    expected = [whole.ask(q) for q in queries]
    part = warm(seed=4, warm_workload="1way", max_queries=60)
    got = [part.ask(q) for q in queries[:25]]
    part.save(tmp_path / "s.json")
    record = json.loads((tmp_path / "s.json").read_text())
    assert record["version"] == 3 and record["body"]["plan"]["mode"] == "warm" and record["body"]["synopsis"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededRunWarning)
        resumed = OnlinePrivateMW.load(tmp_path / "s.json", DATA)
    got += [resumed.ask(q) for q in queries[25:]]
    assert got == expected
    assert resumed.mode == "warm" and [c.epsilon for c in resumed.accountant.ledger] == \
        [c.epsilon for c in whole.accountant.ledger]


def test_forfeit_pays_for_a_lost_comparison_with_one_run_and_a_fresh_threshold():
    s = warm(accuracy=0.005, max_queries=100)
    assert s.cutoff < 50
    ledger = [(c.label, c.epsilon) for c in s.accountant.ledger]
    threshold = s._sparse.state()["noisy_threshold"]
    assert s.forfeit(1) == 1
    assert (s.updates_used, s.queries_seen, s.from_hypothesis) == (1, 1, 0)
    assert s._sparse.state()["noisy_threshold"] != threshold  # a new AboveThreshold run
    assert [(c.label, c.epsilon) for c in s.accountant.ledger] == ledger  # nothing more charged
    assert s.forfeit(10 * s.cutoff) == s.cutoff - 1  # stops once the session is exhausted
    assert s.exhausted and f"all {s.cutoff} updates" in s.refusal()
    with pytest.raises(BudgetExhaustedError):
        s._sparse.end_run()


def test_cli_online_warm_mode(capsys, tmp_path, monkeypatch):
    import io
    import sys

    from tests.conftest import csv_text

    rng = np.random.Generator(np.random.PCG64(3))
    records = rng.integers(0, 4, size=(20_000, 3))
    records[:8000, 0] = 1
    data, domain = tmp_path / "d.csv", tmp_path / "dom.json"
    data.write_text(csv_text(("a", "b", "c"), records.tolist()))
    domain.write_text(json.dumps({"a": 4, "b": 4, "c": 4}))
    out = tmp_path / "a.jsonl"
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"id": 1, "where": {"a": 1}}\n{"id": 2, "where": {"b": 0}}\n'))
    code = main(["online", str(data), "--domain", str(domain), "--epsilon", "1", "--mode", "warm", "--accuracy", "0.1",
                 "--max-queries", "50", "--seed", "1", "--out", str(out), "--state", str(tmp_path / "s.json")])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "warm: an MWEM synopsis" in captured.out and "accuracy=0.1" in captured.out
    answers = [json.loads(line) for line in out.read_text().splitlines()]
    assert [a["id"] for a in answers] == [1, 2] and abs(answers[0]["value"] - (8000 + 3000) / 20_000) < 0.1
    code = main(["online", str(data), "--domain", str(domain), "--epsilon", "1", "--max-queries", "50",
                 "--state", str(tmp_path / "s.json"), "--out", str(out)])
    assert code == 2 and "--mode book differs from the resumed session's warm" in capsys.readouterr().err
    code = main(["online", str(data), "--domain", str(domain), "--epsilon", "1", "--mode", "warm", "--alpha", "0.3",
                 "--out", str(tmp_path / "b.jsonl")])
    assert code == 2 and "--mode warm needs --accuracy" in capsys.readouterr().err


# ---------------------------------------------------------------------------- privacy audit
# Neighbouring tables (one record moves from a=1 to a=0); the transcript is the answers to a=0 and
# a=1 of a warm session (an MWEM synopsis on the 1-way marginal, then NumericSparse). The synopsis's
# fitting passes are set to 0 here to keep the audit fast: they are post-processing of its noisy
# measurements, so the privacy audited is the same.
AUDIT_DOMAIN = Domain(("a",), (2,))
AUDIT_X = Dataset.from_histogram([700_000, 300_000], AUDIT_DOMAIN)
AUDIT_X_PRIME = Dataset.from_histogram([700_001, 299_999], AUDIT_DOMAIN)
EPSILON = 1.0


def warm_transcripts(dataset: Dataset, runs: int, seed: int) -> np.ndarray:
    queries = [ProductQuery.conjunction(AUDIT_DOMAIN, {"a": 0}), ProductQuery.conjunction(AUDIT_DOMAIN, {"a": 1})]
    rng = SeededRandom(seed)
    out = np.empty((runs, 2))
    for i in range(runs):
        session = OnlinePrivateMW(dataset, epsilon=EPSILON, max_queries=2, mode="warm", accuracy=0.05,
                                  warm_workload="1way", warm_rounds=1, rng=rng)
        out[i] = [session.answer(q) for q in queries]
    return out


def run_warm_audit() -> list[str]:
    runs = 500
    out_x, out_y = warm_transcripts(AUDIT_X, runs, 41), warm_transcripts(AUDIT_X_PRIME, runs, 42)
    scale = 2 / (1_000_000 * 0.05)  # the synopsis's Laplace scale on the 1-way marginal (init share of eps/2)
    events = [(f"first answer <= 0.7 + {t:g} b", lambda o, t=t: o[:, 0] <= 0.7 + t * scale) for t in (-2, -1, 0, 1, 2)]
    events += [("first answer >= 0.7 + 5e-7", lambda o: o[:, 0] >= 0.7 + 5e-7),
               ("first answer <= 0.7 + 5e-7", lambda o: o[:, 0] <= 0.7 + 5e-7),
               ("second answer <= 0.3 - 5e-7", lambda o: o[:, 1] <= 0.3 - 5e-7)]
    return violations(out_x, out_y, events, epsilon=EPSILON, alpha=1e-6)


@pytest.fixture
def fast_synopsis(monkeypatch):
    monkeypatch.setitem(online_warm.WARM_MWEM_OPTIONS, "round_iterations", 0)
    monkeypatch.setitem(online_warm.WARM_MWEM_OPTIONS, "final_iterations", 0)


def test_warm_transcript_passes_the_audit(fast_synopsis):
    assert run_warm_audit() == []


def test_warm_audit_catches_a_synopsis_made_without_noise(fast_synopsis, monkeypatch):
    # Planted bug: the hypothesis warm-started from the table's exact marginals, not from MWEM's noisy ones.
    def exact_synopsis(table, plan, *, rng, representation, max_cells, max_model_cells):
        counts = table.marginal_counts(table.domain.attributes)
        return HistogramModel.from_log_weights(table.domain, np.log(counts / table.n)), {}

    monkeypatch.setattr(online_mw, "warm_synopsis", exact_synopsis)
    assert run_warm_audit() != []


def test_a_histogram_sessions_synopsis_past_mwems_histogram_limit_is_fitted_factored(monkeypatch):
    """A new user's 30-million-cell loans table: the warm synopsis ran MWEM on the explicit histogram for 9.8 minutes
    and 3.9 GB, where MWEM itself fits a factored model past MWEM_HISTOGRAM_CELLS. It now keeps MWEM's rule and
    starts the histogram session at that model made explicit: the same x^0, seed for seed, as the factored session,
    and the session still a histogram's. Below the limit nothing changes (the limit lowered here to reach it)."""
    monkeypatch.setattr(online_warm, "MWEM_HISTOGRAM_CELLS", DOMAIN.size - 1)
    explicit, factored = warm(representation="histogram"), warm(representation="factored")
    assert explicit.representation == "histogram" and explicit.synopsis["fitted_as"] == "factored"
    np.testing.assert_allclose(explicit.model.probabilities, factored.model.to_histogram().probabilities,
                               atol=1e-12)
    monkeypatch.setattr(online_warm, "MWEM_HISTOGRAM_CELLS", DOMAIN.size)
    below = warm(representation="histogram")
    assert "fitted_as" not in below.synopsis and below.representation == "histogram"
    assert not np.allclose(below.model.probabilities, explicit.model.probabilities)


@pytest.mark.parametrize("mode", ["book", "warm"])
def test_auto_past_mwems_histogram_limit_is_factored_with_the_same_answers(monkeypatch, tmp_path, mode):
    """A new user's 32.6-million-cell trips table: 20 queries saved with --state took 89 s, 2 GB and a 348 MB state
    file on the auto-chosen histogram. auto now takes the factored model past MWEM_HISTOGRAM_CELLS (the limit lowered
    here to reach it), whose cap is raised to max_cells so that a query on every attribute is still taken; seed for
    seed it gives the histogram session's answers, sources and updates, and it resumes as it was saved."""
    monkeypatch.setattr(online_mw, "MWEM_HISTOGRAM_CELLS", DOMAIN.size - 1)
    monkeypatch.setattr(online_warm, "MWEM_HISTOGRAM_CELLS", DOMAIN.size - 1)
    options = {"epsilon": 1.0, "seed": 4, "max_cells": 10_000, "max_model_cells": 30}  # the synopsis's cap too
    options.update({"mode": "warm", "accuracy": 0.05, "max_queries": 60} if mode == "warm" else {"alpha": 0.13})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededRunWarning)
        auto = OnlinePrivateMW(DATA, representation="auto", **options)
        explicit = OnlinePrivateMW(DATA, representation="histogram", **options)
    assert auto.representation == "factored" and auto.model.max_model_cells == 10_000 > DOMAIN.size
    every = ProductQuery.conjunction(DOMAIN, {"a": 1, "b": 2, "c": 0})  # over a cap of 30, not over max_cells
    for query in [every, *random_conjunctions(40, seed=11)][:explicit.max_queries]:
        got, want = auto.ask(query), explicit.ask(query)
        assert (got.source, got.updates) == (want.source, want.updates)
        assert got.value == pytest.approx(want.value, abs=1e-9)
    assert auto.updates_used == explicit.updates_used and (mode == "book" or auto.updates_used > 0)  # warm: MW steps
    auto.save(tmp_path / "auto.json")
    resumed = OnlinePrivateMW.load(tmp_path / "auto.json", DATA)
    assert resumed.representation == "factored" and resumed.model.max_model_cells == 10_000
    monkeypatch.setattr(online_mw, "MWEM_HISTOGRAM_CELLS", DOMAIN.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededRunWarning)
        assert OnlinePrivateMW(DATA, representation="auto", **options).representation == "histogram"


def small_survey(n: int = 5_000, seed: int = 8) -> Dataset:
    """A small table with structure: b follows a, d follows c."""
    rng = np.random.Generator(np.random.PCG64(seed))
    domain = Domain(("a", "b", "c", "d"), (5, 6, 4, 8))
    a, c = rng.integers(0, 5, n), rng.choice(4, n, p=[0.5, 0.3, 0.15, 0.05])
    b = np.where(rng.random(n) < 0.7, a, rng.integers(0, 6, n))
    d = np.where(rng.random(n) < 0.6, 2 * c, rng.integers(0, 8, n))
    return Dataset.from_records(np.column_stack([a, b, c, d]), domain)


@pytest.mark.parametrize("delta", [0.0, 1e-9])
def test_the_synopsis_is_mwems_own_run_at_the_warm_share(delta):
    """x^0 is what MWEM itself releases at (share epsilon, share delta) on the warm workload, seed for seed: its plan
    follows n, |X|, the workload and epsilon. It was a fixed 40-round plan chosen on the 7-column Adult, whose rounds
    at small n got too little epsilon each (online_warm.WARM_MWEM_OPTIONS)."""
    from dprelease.mechanisms.mwem import MWEM
    from dprelease.mechanisms.mwem_tuning import tuning_for
    from dprelease.privacy.rng import make_rng
    from dprelease.queries.workload import Workload

    data = small_survey()
    session = warm(data=data, delta=delta, accuracy=0.15, max_queries=50)
    preset = tuning_for(representation="histogram", noise="gaussian" if delta else "laplace")  # synth's MWEM
    mwem = MWEM(epsilon=0.5, delta=delta / 2, tuning=preset).run(data, Workload.from_spec("1-3way", data.domain),
                                                                 rng=make_rng(0, warn=False))
    np.testing.assert_array_equal(session.model.probabilities, mwem.model.probabilities)


def test_a_small_tables_warm_session_answers_its_stream():
    """On the suite's 8,000-row loans table (a generated network, 8 columns of 2-12 values) at epsilon 1, the fixed
    plan's synopsis (chosen on the 7-column Adult) was off by more than the threshold early in the stream: the session
    spent its one update and refused 196 of these 200 queries, after 32 s to start. With MWEM's own plan it answers
    them all from the hypothesis, within the accuracy asked, a second after it starts."""
    from tests.benchmark_modules import load_benchmark

    data = load_benchmark("suite_tables").loans()
    queries = random_conjunctions(200, seed=3, domain=data.domain)
    session = warm(data=data, accuracy=0.0781, max_queries=200)
    answers = [session.ask(query) for query in queries]  # a BudgetExhaustedError here is the failure
    assert session.plan.cutoff == 1 and session.updates_used == 0
    assert max(abs(answer.value - query.evaluate(data)) for answer, query in zip(answers, queries)) <= 0.0781
