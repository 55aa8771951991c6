"""Online MW state files (docs/online.md, "The state file"): a body that was edited and re-checksummed is
refused unless it is consistent. The plan must be the one its public parameters derive, the ledger must hold
exactly the charges that plan implies (never less), and the counters must agree with each other.

Each forged state below is built from a real session (a few queries answered) and re-checksummed the way a
user would: SHA-256 of the body written with sorted keys and no spaces.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from dprelease import Dataset, Domain
from dprelease.cli import main
from dprelease.errors import InputError, SeededRunWarning
from dprelease.mechanisms.online_mw import OnlinePrivateMW
from tests.test_online_mw import DATA, random_conjunctions, session
from tests.conftest import csv_text
from tests.test_online_warm import warm

DOMAIN_4 = {"a": 4, "b": 4, "c": 4}


def _digest(body: dict) -> str:
    return hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


def _saved(tmp_path: Path, answered: int = 5, **kwargs) -> Path:
    s = kwargs.pop("made", None) or session(max_queries=50, **kwargs)
    for query in random_conjunctions(answered, seed=1):
        s.answer(query)
    path = tmp_path / "state.json"
    s.save(path)
    record = json.loads(path.read_text())
    assert record["sha256"] == _digest(record["body"])  # the checksum a forger recomputes
    return path


def _forge(path: Path, edit) -> Path:
    record = json.loads(path.read_text())
    edit(record["body"])
    record["sha256"] = _digest(record["body"])
    path.write_text(json.dumps(record))
    return path


def _load(path: Path) -> OnlinePrivateMW:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededRunWarning)
        return OnlinePrivateMW.load(path, DATA)


def raise_cutoff(body: dict, to: int = 1000) -> None:
    """A larger cut-off c written everywhere it appears (the plan, the sparse vector, the charges' labels)."""
    old = body["plan"]["cutoff"]
    body["plan"]["cutoff"] = body["sparse_vector"]["cutoff"] = to
    body["sparse_vector"]["charges"] = [c.replace(f": {old} ", f": {to} ") for c in body["sparse_vector"]["charges"]]
    for charge in body["ledger"]["charges"]:
        charge["label"] = charge["label"].replace(f": {old} ", f": {to} ")


def zero_ledger(body: dict) -> None:
    for charge in body["ledger"]["charges"]:
        charge["epsilon"] = "0"


def rewind_queries(body: dict) -> None:
    """The query count rewound (queries_seen = from_hypothesis + updates kept), while the sparse vector still
    records the questions those queries asked: the stream would get |Q| more queries against the same plan."""
    assert body["from_hypothesis"] > 0  # else there is nothing to rewind
    body["from_hypothesis"] = 0
    body["queries_seen"] = body["sparse_vector"]["count"]


def halve_sparse_epsilon(body: dict) -> None:
    """NumericSparse at half the budget, its ledger charges halved to match: the state claims eps / 2 spent."""
    body["sparse_vector"]["epsilon"] = str(Fraction(body["sparse_vector"]["epsilon"]) / 2)
    for charge in body["ledger"]["charges"]:
        charge["epsilon"] = str(Fraction(charge["epsilon"]) / 2)


def drop_questions(body: dict) -> None:
    """The sparse vector's question count rewound: fewer comparisons than the answers given imply."""
    body["sparse_vector"]["asked"] = 0


FORGERIES = {"raise_cutoff": (raise_cutoff, "not the one its parameters derive"),
             "zero_ledger": (zero_ledger, "privacy ledger is not the one its plan charges"),
             "rewind_queries": (rewind_queries, "counters disagree"),
             "halve_sparse_epsilon": (halve_sparse_epsilon, "sparse vector disagrees with the plan"),
             "drop_questions": (drop_questions, "counters disagree")}


@pytest.mark.parametrize("name", sorted(FORGERIES))
def test_a_forged_book_state_is_refused(tmp_path, name):
    edit, message = FORGERIES[name]
    path = _forge(_saved(tmp_path), edit)
    with pytest.raises(InputError, match=message):
        _load(path)


def test_a_forged_warm_state_is_refused(tmp_path):
    made = warm(warm_workload="1way", max_queries=60)
    path = _saved(tmp_path, made=made)
    assert json.loads(path.read_text())["body"]["ledger"]["charges"][0]["label"].startswith("OnlineMW warm start")
    _forge(path, lambda body: body["ledger"]["charges"][0].update(epsilon="0"))  # the synopsis "was free"
    with pytest.raises(InputError, match="privacy ledger is not the one its plan charges"):
        _load(path)


@pytest.mark.parametrize("kind", ["book-max-queries", "book-alpha-delta", "forfeited", "exhausted", "warm"])
def test_genuine_states_still_load_with_the_whole_plan_charged(tmp_path, kind):
    if kind == "warm":
        s = warm(warm_workload="1way", max_queries=60)
    elif kind == "book-alpha-delta":
        s = session(alpha=0.5, delta=1e-9)
    else:
        s = session(max_queries=50)
    for query in random_conjunctions(3, seed=1):
        s.answer(query)
    if kind in ("forfeited", "exhausted"):
        s.forfeit(2 if kind == "forfeited" else s.cutoff)
    s.save(tmp_path / "state.json")
    resumed = _load(tmp_path / "state.json")
    assert resumed.plan == s.plan and resumed.epsilon_spent == s.epsilon_spent > 0
    assert (resumed.queries_seen, resumed.from_hypothesis, resumed.updates_used, resumed.exhausted) == \
        (s.queries_seen, s.from_hypothesis, s.updates_used, s.exhausted)


@pytest.mark.parametrize("name", ["raise_cutoff", "zero_ledger", "rewind_queries"])
def test_cli_refuses_a_forged_warm_state_with_exit_2_and_writes_nothing(capsys, tmp_path, monkeypatch, name):
    from tests.conftest import csv_text
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(3))
    data, domain = tmp_path / "d.csv", tmp_path / "dom.json"
    data.write_text(csv_text(("a", "b", "c"), rng.integers(0, 4, size=(20_000, 3)).tolist()))
    domain.write_text(json.dumps({"a": 4, "b": 4, "c": 4}))
    state, out = tmp_path / "s.json", tmp_path / "a.jsonl"
    argv = ["online", str(data), "--domain", str(domain), "--epsilon", "1", "--mode", "warm", "--accuracy", "0.1",
            "--max-queries", "50", "--warm-workload", "1way", "--state", str(state)]
    queries = "".join(f'{{"id": {i}, "where": {{"a": {i % 4}}}}}\n' for i in range(4))
    monkeypatch.setattr(sys, "stdin", io.StringIO(queries))
    assert main([*argv, "--out", str(out)]) == 0, capsys.readouterr().err
    capsys.readouterr()
    _forge(state, FORGERIES[name][0])
    forged = state.read_bytes()
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"id": 99, "where": {"b": 1}}\n'))
    code = main([*argv, "--out", str(tmp_path / "b.jsonl")])
    captured = capsys.readouterr()
    assert code == 2 and FORGERIES[name][1] in captured.err and captured.err.count("\n") == 1
    assert "Traceback" not in captured.err and "resumed" not in captured.out
    assert not (tmp_path / "b.jsonl").exists() and state.read_bytes() == forged


# ------------------------------------------------------------ the parameters a caller expects (load's keywords)
@pytest.mark.parametrize("given,message", [
    ({"epsilon": 2.0}, "epsilon 2 differs from the resumed session's 1"),
    ({"delta": 1e-6}, "delta 1e-06 differs from the resumed session's 0"),
    ({"beta": 0.1}, "beta 0.1 differs from the resumed session's 0.05"),
    ({"max_queries": 51}, "max_queries 51 differs from the resumed session's 50"),
    ({"mode": "warm"}, "mode warm differs from the resumed session's book"),
    ({"accuracy": 0.05}, "accuracy 0.05 differs from the resumed session's book-mode plan, which has no accuracy"),
    ({"representation": "factored"}, "representation factored differs from the resumed session's histogram"),
    ({"seed": 1}, "seed 1 differs from the resumed session's randomness (seed 0)"),
    ({"epsilon": 1.0, "delta": 1e-9}, "delta 1e-09 differs from the resumed session's 0"),
])
def test_load_refuses_a_state_whose_budget_or_plan_is_not_the_expected_one(tmp_path, given, message):
    path = _saved(tmp_path)  # epsilon 1, delta 0, beta 0.05, |Q| 50, seed 0, a histogram
    before = path.read_bytes()
    with pytest.raises(InputError) as refused:
        OnlinePrivateMW.load(path, DATA, **given)
    assert str(refused.value) == f"{message} (state file '{path}'); a session keeps its parameters"
    assert path.read_bytes() == before


def test_load_checks_the_expected_parameters_before_the_data(tmp_path):
    path = _saved(tmp_path)
    other = Dataset.from_histogram(np.full(DATA.domain.size, 10), DATA.domain)
    with pytest.raises(InputError, match="epsilon 0.5 differs"):  # not "made on another table": no data read
        OnlinePrivateMW.load(path, other, epsilon=0.5)
    with pytest.raises(TypeError, match="epsilon must be a number, got '1'"):
        OnlinePrivateMW.load(path, DATA, epsilon="1")
    resumed = _load_expecting(path, epsilon=1.0, delta=0.0, beta=0.05, max_queries=50, mode="book",
                              representation="auto", seed=0)
    assert resumed.epsilon_spent == 1 and resumed.queries_seen == 5  # the expected ones: loaded, nothing re-spent


def test_a_warm_state_is_compared_on_its_accuracy_share_and_workload(tmp_path):
    path = _saved(tmp_path, made=warm(max_queries=50, warm_workload="1way"))
    for given, was in [({"accuracy": 0.1}, "0.05"), ({"warm_share": 0.25}, "0.5"), ({"warm_workload": "1-2way"}, "1way")]:
        (name, value), = given.items()
        with pytest.raises(InputError, match=re.escape(f"{name} {value} differs from the resumed session's {was}")):
            OnlinePrivateMW.load(path, DATA, **given)
    assert _load_expecting(path, mode="warm", accuracy=0.05, warm_share=0.5, warm_workload="1way").mode == "warm"


def test_the_cli_refuses_with_the_same_check_as_load(capsys, tmp_path, monkeypatch, write_file):
    rows = np.random.Generator(np.random.PCG64(3)).integers(0, 4, size=(2_000, 3))
    data, domain = write_file("d.csv", csv_text(("a", "b", "c"), rows.tolist())), write_file("dom.json", DOMAIN_4)
    state = tmp_path / "s.json"
    argv = ["online", str(data), "--domain", str(domain), "--max-queries", "5", "--state", str(state), "--quiet"]
    monkeypatch.setattr(sys, "stdin", io.StringIO(""))
    assert main([*argv, "--epsilon", "1", "--out", str(tmp_path / "a.jsonl")]) == 0
    capsys.readouterr()
    before = state.read_bytes()
    code = main([*argv, "--epsilon", "1", "--delta", "1e-6", "--out", str(tmp_path / "b.jsonl")])
    err = capsys.readouterr().err
    with pytest.raises(InputError) as refused:
        OnlinePrivateMW.load(state, Dataset.from_csv(data, Domain.from_dict(DOMAIN_4)), epsilon=1.0, delta=1e-6)
    assert code == 2 and err == f"dprelease: error: --{refused.value}\n"  # the same words, the flag spelled as such
    assert state.read_bytes() == before and not (tmp_path / "b.jsonl").exists()


def _load_expecting(path: Path, **given) -> OnlinePrivateMW:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededRunWarning)
        return OnlinePrivateMW.load(path, DATA, **given)
