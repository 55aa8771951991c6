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
import sys
import warnings
from fractions import Fraction
from pathlib import Path

import pytest

from dprelease.cli import main
from dprelease.errors import InputError, SeededRunWarning
from dprelease.mechanisms.online_mw import OnlinePrivateMW
from tests.test_online_mw import DATA, random_conjunctions, session
from tests.test_online_warm import warm


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
