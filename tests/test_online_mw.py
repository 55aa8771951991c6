"""Online private MW via NumericSparse (Sec. 4.2.2): parameters from Thms 4.14/4.15, the accuracy
theorem on seeded runs, explicit halting, exact accounting, resumable state and the CLI."""

from __future__ import annotations

import io
import json
import math
import subprocess
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from dprelease import Dataset, Domain, ProductQuery
from dprelease.bounds import (
    numeric_sparse_alpha,
    online_mw_alpha_approx,
    online_mw_alpha_pure,
    online_mw_max_queries,
)
from dprelease.cli import main
from dprelease.errors import BudgetExceededError, BudgetExhaustedError, InputError, SeededRunWarning
from dprelease.mechanisms.online_mw import HYPOTHESIS, MEASUREMENT, OnlineMWPlan, OnlinePrivateMW
from dprelease.privacy.rng import SecureRandom
from tests.conftest import csv_text

DOMAIN = Domain(("a", "b", "c"), (4, 4, 4))
N = 10**6


def skewed_counts(seed: int = 0) -> np.ndarray:
    """n = 10^6 rows, far from uniform (60% in one cell), so that MW has to learn."""
    rng = np.random.Generator(np.random.PCG64(seed))
    weights = 0.4 * rng.dirichlet(np.full(DOMAIN.size, 0.3))
    weights[5] += 0.6
    return rng.multinomial(N, weights / weights.sum())


DATA = Dataset.from_histogram(skewed_counts(), DOMAIN)


def random_conjunctions(count: int, seed: int, domain: Domain = DOMAIN) -> list[ProductQuery]:
    rng = np.random.Generator(np.random.PCG64(seed))
    queries = []
    for _ in range(count):
        attributes = rng.choice(len(domain), size=int(rng.integers(1, 4)), replace=False)
        where = {domain.attributes[i]: int(rng.integers(0, domain.sizes[i])) for i in attributes}
        queries.append(ProductQuery.conjunction(domain, where))
    return queries


def session(**kwargs) -> OnlinePrivateMW:
    kwargs.setdefault("epsilon", 1.0)
    kwargs.setdefault("seed", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededRunWarning)
        return OnlinePrivateMW(kwargs.pop("data", DATA), **kwargs)


# ------------------------------------------------------------------------------ parameters
def test_thm_4_14_condition_is_thm_3_28_with_the_corrected_constant_36():
    ln_x, q, eps, beta = math.log(DOMAIN.size), 500, 1.0, 0.05
    for alpha in (0.05, 0.1, 0.3):
        c = 4 * ln_x / alpha**2  # un-rounded, as in the theorem's statement
        via_3_28 = numeric_sparse_alpha(cutoff=c, num_queries=2 * q, epsilon=eps, beta=beta, sensitivity=1 / N)
        closed_form = 36 * ln_x * (math.log(q) + math.log(32 * ln_x / (alpha**2 * beta))) / (eps * alpha**2 * N)
        assert via_3_28 == pytest.approx(closed_form, rel=1e-12)
        via_3_28 = numeric_sparse_alpha(cutoff=c, num_queries=2 * q, epsilon=eps, delta=1e-6, beta=beta,
                                        sensitivity=1 / N)
        thm_4_15 = ((2 + 32 * math.sqrt(2)) * math.sqrt(ln_x * math.log(2 / 1e-6))
                    * (math.log(q) + math.log(32 * ln_x / (alpha**2 * beta))) / (alpha * eps * N))
        assert via_3_28 == pytest.approx(thm_4_15, rel=1e-12)


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_alpha_and_stream_length_solve_each_other(delta):
    solve = online_mw_alpha_pure if delta == 0 else (lambda **k: online_mw_alpha_approx(delta=delta, **k))
    for queries in (1, 200, 10**6):
        alpha = solve(n=N, universe_size=DOMAIN.size, num_queries=queries, epsilon=1.0)
        assert 0 < alpha < 1
        assert online_mw_max_queries(alpha=alpha, n=N, universe_size=DOMAIN.size, epsilon=1.0, delta=delta) >= queries
        smaller = alpha * 0.999
        assert online_mw_max_queries(alpha=smaller, n=N, universe_size=DOMAIN.size, epsilon=1.0,
                                     delta=delta) < queries
    plan = OnlineMWPlan.solve(n=N, universe_size=DOMAIN.size, epsilon=1.0, delta=delta, max_queries=200)
    assert plan.cutoff == math.ceil(4 * math.log(DOMAIN.size) / plan.alpha**2)  # c (Thm 4.10 / Alg. 6)
    assert plan.threshold == 2 * plan.alpha and plan.promised_accuracy == 3 * plan.alpha  # T = 2 alpha
    assert plan.numeric_sparse_alpha <= plan.alpha
    back = OnlineMWPlan.solve(n=N, universe_size=DOMAIN.size, epsilon=1.0, delta=delta, alpha=plan.alpha)
    assert back.max_queries >= 200 and back.cutoff == plan.cutoff and back.given == "alpha"


def test_the_plan_names_the_theorem_of_the_sizing_it_runs():
    """With a delta, NumericSparse runs the book's delta > 0 sizing only past c of about 150 (below, the delta = 0
    sizing is less noisy: privacy/sparse_vector.py step_epsilons); the plan's bound and its theorem follow."""
    few = OnlineMWPlan.solve(n=N, universe_size=DOMAIN.size, epsilon=1.0, delta=1e-9, alpha=0.45)
    many = OnlineMWPlan.solve(n=N, universe_size=DOMAIN.size, epsilon=1.0, delta=1e-9, max_queries=200)
    assert few.cutoff < 100 < many.cutoff
    assert (few.theorem, many.theorem) == ("Thm 4.14", "Thm 4.15")
    pure = OnlineMWPlan.solve(n=N, universe_size=DOMAIN.size, epsilon=1.0, delta=0.0, alpha=0.45)
    assert few.max_queries == pure.max_queries  # the same sizing, the same stream length


def test_parameters_the_theorem_cannot_support_are_refused():
    with pytest.raises(InputError, match="exactly one of alpha and max_queries"):
        OnlineMWPlan.solve(n=N, universe_size=64, epsilon=1.0)
    with pytest.raises(InputError, match="exactly one"):
        OnlineMWPlan.solve(n=N, universe_size=64, epsilon=1.0, alpha=0.2, max_queries=10)
    with pytest.raises(InputError, match="guarantees no alpha <= 1"):
        OnlineMWPlan.solve(n=200, universe_size=64, epsilon=1.0, max_queries=10)
    with pytest.raises(InputError, match="below what Thm 4.14 supports"):
        OnlineMWPlan.solve(n=N, universe_size=64, epsilon=1.0, alpha=0.01)
    with pytest.raises(InputError, match="alpha must be a number in"):
        OnlineMWPlan.solve(n=N, universe_size=64, epsilon=1.0, alpha=1.5)
    with pytest.raises(InputError, match="epsilon"):
        OnlineMWPlan.solve(n=N, universe_size=64, epsilon=float("nan"), max_queries=3)


# ------------------------------------------------------------------- the accuracy theorem
@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_answers_within_3_alpha_in_at_least_1_minus_beta_of_runs(delta):
    runs, successes, updates_seen = 16, 0, 0
    for seed in range(runs):
        s = session(delta=delta, max_queries=150, seed=seed)
        truth_error = 0.0
        for query in random_conjunctions(150, seed=1000 + seed):
            answer = s.ask(query)
            truth_error = max(truth_error, abs(answer.value - query.evaluate(DATA)))
        successes += truth_error <= s.promised_accuracy
        # Thms 4.14/4.15 and 4.10: never more than c updates, and (w.h.p.) at most 4 ln|X| / alpha^2.
        assert s.updates_used <= s.cutoff
        assert s.updates_used <= 4 * math.log(DOMAIN.size) / s.alpha**2
        updates_seen += s.updates_used
        assert s.queries_seen == 150 and s.exhausted
    assert successes >= math.ceil((1 - s.plan.beta) * runs)
    assert updates_seen > 0  # the data is far from uniform: the runs did learn


def test_updates_are_mw_steps_on_measured_answers():
    s = session(delta=1e-6, max_queries=60, seed=3)
    for query in random_conjunctions(60, seed=7):
        before = s.model
        answer = s.ask(query)
        if answer.source == MEASUREMENT:
            assert s.model is not before and answer.updates == s.updates_used
        else:
            assert s.model is before and answer.source == HYPOTHESIS
            assert answer.value == pytest.approx(min(1, max(0, query.evaluate(before))), abs=1e-12)
    assert s.from_hypothesis + s.updates_used == s.queries_seen == 60


# ------------------------------------------------------------------------ halting, accounting
def test_refusal_after_the_declared_stream_and_after_the_cutoff():
    s = session(max_queries=3)
    answers = [s.answer(q) for q in random_conjunctions(3, seed=1)]
    ledger = list(s.accountant.ledger)
    with pytest.raises(BudgetExhaustedError, match="stream of 3 queries"):
        s.answer(random_conjunctions(1, seed=2)[0])
    assert s.exhausted and s.remaining_queries == 0 and len(answers) == 3
    assert s.accountant.ledger == ledger  # a refusal spends and changes nothing

    s = session(max_queries=50)
    s._sparse.count = s.cutoff  # as if c updates had been made
    with pytest.raises(BudgetExhaustedError, match="cut-off"):
        s.answer(random_conjunctions(1, seed=3)[0])
    assert issubclass(BudgetExhaustedError, BudgetExceededError)


@pytest.mark.parametrize("epsilon", [0.3, 1.0, 2.0])
def test_the_whole_plan_is_charged_up_front_exactly(epsilon):
    s = session(epsilon=epsilon, max_queries=40)
    assert s.epsilon_spent == Fraction(epsilon) and s.delta_spent == 0  # 8/9 + 1/9 of epsilon, exactly
    assert [c.epsilon for c in s.accountant.ledger] == [Fraction(epsilon) * Fraction(8, 9),
                                                         Fraction(epsilon) / 9]
    before = list(s.accountant.ledger)
    for query in random_conjunctions(40, seed=5):
        s.answer(query)
    assert s.accountant.ledger == before and s.epsilon_spent == Fraction(epsilon)

    s = session(epsilon=epsilon, delta=1e-6, max_queries=40)
    assert s.delta_spent == Fraction(1e-6) and 0 < s.epsilon_spent <= Fraction(epsilon)


def test_queries_are_checked_before_anything_is_asked():
    s = session(max_queries=5)
    before = s._sparse.state()
    with pytest.raises(InputError, match="domain"):
        s.answer(ProductQuery.conjunction(Domain(("a",), (4,)), {"a": 1}))
    with pytest.raises(TypeError):
        s.answer("a == 1")
    assert s._sparse.state() == before and s.queries_seen == 0


# ------------------------------------------------------------------------------ resumable state
def test_save_load_mid_stream_gives_the_uninterrupted_answers(tmp_path):
    queries = random_conjunctions(120, seed=11)
    whole = session(delta=1e-6, max_queries=120, seed=21)
    uninterrupted = [whole.ask(q) for q in queries]
    assert whole.updates_used > 0

    first = session(delta=1e-6, max_queries=120, seed=21)
    answers = [first.ask(q) for q in queries[:60]]
    first.save(tmp_path / "state.json")
    with pytest.warns(SeededRunWarning):
        resumed = OnlinePrivateMW.load(tmp_path / "state.json", DATA)
    assert resumed.queries_seen == 60 and resumed.updates_used == first.updates_used
    assert resumed.accountant.ledger == first.accountant.ledger  # restored, not re-spent or reset
    answers += [resumed.ask(q) for q in queries[60:]]
    assert answers == uninterrupted
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]  # atomic: no temporary left


def test_a_secure_session_resumes_with_fresh_randomness(tmp_path):
    s = OnlinePrivateMW(DATA, epsilon=1.0, max_queries=20)
    assert isinstance(s._rng, SecureRandom) and not s.seeded
    for q in random_conjunctions(5, seed=1):
        s.answer(q)
    s.save(tmp_path / "s.json")
    body = json.loads((tmp_path / "s.json").read_text())["body"]
    assert body["rng"] == {"kind": "secure"}
    resumed = OnlinePrivateMW.load(tmp_path / "s.json", DATA)
    assert isinstance(resumed._rng, SecureRandom) and resumed.queries_seen == 5
    resumed.answer(random_conjunctions(1, seed=2)[0])
    assert resumed.queries_seen == 6 and resumed.epsilon_spent == Fraction(1)


def _saved(tmp_path: Path) -> Path:
    s = session(max_queries=10)
    s.answer(random_conjunctions(1, seed=1)[0])
    s.save(tmp_path / "state.json")
    return tmp_path / "state.json"


@pytest.mark.parametrize("damage", ["flip", "truncate", "empty", "version", "not-json-object"])
def test_a_damaged_state_file_is_refused_clearly(tmp_path, damage):
    path = _saved(tmp_path)
    text = path.read_text()
    if damage == "flip":
        i = text.index('"queries_seen":1')
        text = text[:i] + '"queries_seen":0' + text[i + len('"queries_seen":1'):]
    elif damage == "truncate":
        text = text[: len(text) // 2]
    elif damage == "empty":
        text = ""
    elif damage == "version":
        text = text.replace('"version":1', '"version":99')
    else:
        text = "[1, 2]"
    path.write_text(text)
    expected = {"flip": "checksum", "truncate": "damaged", "empty": "damaged", "version": "version 99",
                "not-json-object": "not a dprelease"}[damage]
    with pytest.raises(InputError, match=expected):
        OnlinePrivateMW.load(path, DATA)


def test_a_state_file_is_refused_on_another_table(tmp_path):
    path = _saved(tmp_path)
    other = Dataset.from_histogram(skewed_counts(seed=1), DOMAIN)
    with pytest.raises(InputError, match="another table"):
        OnlinePrivateMW.load(path, other)


# -------------------------------------------------------------------------------------- CLI
@pytest.fixture
def cli_files(write_file):
    rng = np.random.Generator(np.random.PCG64(4))
    domain = Domain(("a", "b", "c"), (2, 3, 4))
    rows = np.stack([rng.choice(2, 20_000, p=[0.85, 0.15]), rng.choice(3, 20_000, p=[0.7, 0.2, 0.1]),
                     rng.integers(0, 4, 20_000)], axis=1)
    return {"data": write_file("data.csv", csv_text(domain.attributes, rows.tolist())),
            "domain": write_file("domain.json", domain.to_dict()), "domain_obj": domain}


QUERY_LINES = [
    '{"id": 1, "where": {"a": 0}}',
    "this is not json",
    '{"id": "x", "where": {"nope": 1}}',
    '{"id": 2, "weights": {"c": [0, 0.5, 1, 1]}}',
    '{"id": 3, "where": {"a": 1, "b": [0, 2]}}',
    '{"id": 4, "where": {"a": 1.5}}',
    '{"id": 5, "where": {"b": 0}, "extra": true}',
    "",
    '{"id": 6, "where": {"a": 0, "b": 0}}',
    '{"id": 7, "weights": {"c": [NaN, 0, 0, 0]}}',
]


def online(capsys, files, out, *extra, stdin=None, monkeypatch=None):
    argv = ["online", str(files["data"]), "--domain", str(files["domain"]), "--epsilon", "1", "--out", str(out),
            *extra]
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def read_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_cli_answers_a_stream_with_error_records_and_resumes(capsys, cli_files, tmp_path, monkeypatch):
    out, state = tmp_path / "answers.jsonl", tmp_path / "state.json"
    code, stdout, stderr = online(capsys, cli_files, out, "--max-queries", "6", "--seed", "3", "--state", str(state),
                                  stdin="\n".join(QUERY_LINES) + "\n", monkeypatch=monkeypatch)
    assert code == 0, stderr
    assert "Thm 4.14" in stdout and "promised accuracy 3 alpha" in stdout
    records = read_records(out)
    assert [r.get("id") for r in records] == [1, None, "x", 2, 3, 4, 5, 6, None]
    errors = {r["line"]: r["error"] for r in records if "error" in r}
    assert set(errors) == {2, 3, 6, 7, 10}
    assert "not valid JSON" in errors[2] and "nope" in errors[3] and "integer" in errors[6] and "extra" in errors[7]
    assert "NaN" in errors[10]
    answered = [r for r in records if "value" in r]
    assert [r["query"] for r in answered] == [1, 2, 3, 4]  # malformed lines are not counted or paid for
    assert all(r["source"] in (HYPOTHESIS, MEASUREMENT) and 0 <= r["value"] <= 1 for r in answered)

    body = json.loads(state.read_text())["body"]
    assert body["queries_seen"] == 4
    assert Fraction(body["ledger"]["charges"][0]["epsilon"]) + Fraction(body["ledger"]["charges"][1]["epsilon"]) == 1
    secret = body["sparse_vector"]["noisy_threshold"]
    assert "noisy_threshold" not in out.read_text() and repr(secret) not in out.read_text()

    # Resume: two queries left of the six declared, then refusals.
    more = ['{"id": 8, "where": {"c": 1}}', '{"id": 9, "where": {"c": 2}}', '{"id": 10, "where": {"c": 3}}']
    code, stdout, stderr = online(capsys, cli_files, out, "--max-queries", "6", "--seed", "3", "--state", str(state),
                                  stdin="\n".join(more) + "\n", monkeypatch=monkeypatch)
    assert code == 0, stderr
    assert "resumed" in stdout and "exhausted" in stdout
    records = read_records(out)
    assert len(records) == 12  # appended
    assert [r["query"] for r in records[-3:-1]] == [5, 6]
    assert records[-1]["refused"] is True and "exhausted" in records[-1]["error"]
    body = json.loads(state.read_text())["body"]
    assert body["queries_seen"] == 6
    assert Fraction(body["ledger"]["charges"][0]["epsilon"]) == Fraction(8, 9)  # never re-spent


def test_cli_seeded_runs_reproduce_and_resume_like_one_run(capsys, cli_files, tmp_path, monkeypatch):
    lines = [json.dumps({"id": i, "where": w}) for i, w in enumerate(
        [{"a": 0}, {"b": 0}, {"a": 1, "b": 1}, {"c": 2}, {"a": 0, "c": 1}, {"b": 2}] * 2)]
    whole = tmp_path / "whole.jsonl"
    code, _, err = online(capsys, cli_files, whole, "--max-queries", "12", "--seed", "8", "--delta", "1e-6",
                          stdin="\n".join(lines) + "\n", monkeypatch=monkeypatch)
    assert code == 0, err
    parts, state = tmp_path / "parts.jsonl", tmp_path / "s.json"
    for chunk in (lines[:5], lines[5:]):
        code, _, err = online(capsys, cli_files, parts, "--max-queries", "12", "--seed", "8", "--delta", "1e-6",
                              "--state", str(state), stdin="\n".join(chunk) + "\n", monkeypatch=monkeypatch)
        assert code == 0, err
    assert parts.read_text() == whole.read_text()


@pytest.mark.parametrize("extra,message", [
    ((), "one of the arguments --alpha --max-queries is required"),
    (("--alpha", "0.5", "--max-queries", "5"), "not allowed with"),
    (("--alpha", "2"), "--alpha must be a number in (0, 1]"),
    (("--max-queries", "0"), "--max-queries must be an integer >= 1"),
    (("--max-queries", "five"), "--max-queries must be an integer"),
    (("--alpha", "0.001"), "below what Thm 4.14 supports"),
    (("--max-queries", "5", "--delta", "1.5"), "--delta must be a number in [0, 1)"),
    (("--max-queries", "5", "--queries", "missing.jsonl"), "--queries"),
])
def test_cli_user_mistakes_exit_2_with_one_line(capsys, cli_files, tmp_path, extra, message):
    try:
        code = main(["online", str(cli_files["data"]), "--domain", str(cli_files["domain"]), "--epsilon", "1",
                     "--out", str(tmp_path / "a.jsonl"), *extra])
    except SystemExit as exit_:  # argparse's own checks
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "a.jsonl").exists()


def test_cli_refuses_a_damaged_state_and_changed_parameters(capsys, cli_files, tmp_path, monkeypatch):
    state, out = tmp_path / "s.json", tmp_path / "a.jsonl"
    code, _, err = online(capsys, cli_files, out, "--max-queries", "5", "--state", str(state), stdin="",
                          monkeypatch=monkeypatch)
    assert code == 0, err
    code = main(["online", str(cli_files["data"]), "--domain", str(cli_files["domain"]), "--epsilon", "2",
                 "--max-queries", "5", "--state", str(state), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "--epsilon 2 differs" in err and err.count("\n") == 1
    state.write_text(state.read_text()[:-40])
    code = main(["online", str(cli_files["data"]), "--domain", str(cli_files["domain"]), "--epsilon", "1",
                 "--max-queries", "5", "--state", str(state), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "damaged" in err and err.count("\n") == 1


def test_cli_streams_each_answer_as_its_query_arrives(cli_files, tmp_path):
    exe = Path(sys.executable).parent / "dprelease"
    out = tmp_path / "answers.jsonl"
    argv = [str(exe), "online", str(cli_files["data"]), "--domain", str(cli_files["domain"]), "--epsilon", "1",
            "--max-queries", "10", "--out", str(out)]
    process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        process.stdin.write('{"id": "first", "where": {"a": 0}}\n')
        process.stdin.flush()
        assert "started online MW session" in process.stdout.readline()  # the session is open
        for _ in range(200):  # the answer is on disk while stdin is still open
            if out.exists() and out.read_text().endswith("\n"):
                break
            subprocess.run(["sleep", "0.05"])
        assert json.loads(out.read_text())["id"] == "first"
        process.stdin.write('{"id": "second", "where": {"b": 1}}\n')
        process.stdin.close()
        assert process.wait(timeout=60) == 0
    finally:
        if process.poll() is None:
            process.kill()
    assert [r["id"] for r in read_records(out)] == ["first", "second"]
