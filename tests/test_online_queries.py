"""The online query forms (``where``, ``weights``, ``marginal``): one parser for ``dprelease online`` and
``dprelease serve`` (mechanisms/online_queries.py), and a marginal line in the CLI answered as the service
answers it: every cell in C order, each one query of the stream; refused whole, spending nothing, when the
session has fewer queries left than it has cells."""

from __future__ import annotations

import io
import json
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from dprelease import Dataset, Domain, ProductQuery
from dprelease.cli import main
from dprelease.errors import BudgetExhaustedError, SeededRunWarning
from dprelease.mechanisms.online_mw import OnlinePrivateMW
from tests.conftest import csv_text

DOMAIN = Domain(("a", "b", "c"), (2, 3, 4))
WARM = ("--mode", "warm", "--accuracy", "0.1", "--max-queries", "40", "--warm-workload", "1way", "--seed", "0")


def correlated(n: int = 20_000, seed: int = 4) -> np.ndarray:
    """c follows b 80% of the time: far from the 1-way synopsis, so the 2-way cells get measured."""
    rng = np.random.Generator(np.random.PCG64(seed))
    b = rng.choice(3, n, p=[0.6, 0.3, 0.1])
    c = np.where(rng.random(n) < 0.8, b, rng.integers(0, 4, n))
    return np.stack([rng.integers(0, 2, n), b, c], axis=1)


@pytest.fixture
def files(write_file):
    return {"data": write_file("data.csv", csv_text(DOMAIN.attributes, correlated().tolist())),
            "domain": write_file("domain.json", DOMAIN.to_dict())}


def online(files, out: Path, lines: list[str], *extra: str, monkeypatch, capsys) -> tuple[int, list[dict]]:
    monkeypatch.setattr(sys, "stdin", io.StringIO("".join(line + "\n" for line in lines)))
    code = main(["online", str(files["data"]), "--domain", str(files["domain"]), "--epsilon", "1", "--out", str(out),
                 "--quiet", *extra])
    assert code == 0, capsys.readouterr().err
    capsys.readouterr()
    return code, [json.loads(line) for line in out.read_text().splitlines()]


def test_the_cli_answers_a_marginal_as_the_seeded_session_answers_its_cells(files, tmp_path, monkeypatch, capsys):
    out, state = tmp_path / "a.jsonl", tmp_path / "s.json"
    _, records = online(files, out, ['{"id": "bc", "marginal": ["b", "c"]}', '{"id": 2, "where": {"a": 0}}'],
                        *WARM, "--state", str(state), monkeypatch=monkeypatch, capsys=capsys)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededRunWarning)
        reference = OnlinePrivateMW(Dataset.from_records(correlated(), DOMAIN), epsilon=1.0, mode="warm",
                                    accuracy=0.1, max_queries=40, warm_workload="1way", seed=0)
    expected = []
    for b in range(3):  # C order: the last attribute varies fastest
        for c in range(4):
            try:
                answer = reference.ask(ProductQuery.conjunction(DOMAIN, {"b": b, "c": c}))
            except BudgetExhaustedError as exc:  # the cut-off reached mid-marginal: refused, nothing drawn
                expected.append({"refused": True, "reason": str(exc)})
            else:
                expected.append({"value": answer.value, "source": answer.source, "query": answer.index,
                                 "updates": answer.updates})
    assert records[0] == {"id": "bc", "marginal": ["b", "c"], "shape": [3, 4], "answers": expected}
    sources = [a.get("source", "refused") for a in expected]
    assert sources == ["measurement", "measurement", "hypothesis", "hypothesis", "measurement"] + ["refused"] * 7
    assert records[1]["refused"] is True and "exhausted" in records[1]["error"]  # the session is used up
    assert json.loads(state.read_text())["body"]["queries_seen"] == 5 == reference.queries_seen


def test_a_marginal_larger_than_the_stream_left_is_refused_whole_and_spends_nothing(files, tmp_path, monkeypatch,
                                                                                    capsys):
    out, state = tmp_path / "a.jsonl", tmp_path / "s.json"
    lines = ['{"id": 1, "marginal": ["b", "c"]}', '{"id": 2, "marginal": ["a", "b"]}', '{"id": 3, "where": {"a": 1}}']
    _, records = online(files, out, lines, "--max-queries", "7", "--seed", "1", "--state", str(state),
                        monkeypatch=monkeypatch, capsys=capsys)
    assert records[0] == {"id": 1, "line": 1, "refused": True,
                          "error": "12 queries asked together (a marginal's cells) and the session has 7 left of its "
                                   "declared stream; none is asked"}
    assert [a["query"] for a in records[1]["answers"]] == [1, 2, 3, 4, 5, 6]  # the refused one counted nothing
    assert records[2]["query"] == 7
    body = json.loads(state.read_text())["body"]
    assert body["queries_seen"] == 7 and body["sparse_vector"]["asked"] == 14  # 2 questions per answered query


@pytest.mark.parametrize("line,error", [
    ('{"id": 1, "marginal": ["b", "b"]}', "marginal must be a list of distinct attribute names, got ['b', 'b']"),
    ('{"id": 1, "marginal": []}', "marginal must be a list of distinct attribute names, got []"),
    ('{"id": 1, "marginal": ["zz"]}', "unknown attribute 'zz'"),
    ('{"id": 1, "marginal": ["a"], "where": {"a": 0}}', "a query needs exactly one of 'where', 'weights' and "
                                                        "'marginal'"),
    ('{"id": 1, "request_id": "r", "where": {"a": 0}}', "unknown field(s) ['request_id']; a query has one of "
                                                        "'where', 'weights' or 'marginal' (and 'id')"),
])
def test_a_malformed_marginal_line_is_an_error_record_and_counts_nothing(files, tmp_path, monkeypatch, capsys, line,
                                                                         error):
    _, records = online(files, tmp_path / "a.jsonl", [line, '{"id": 2, "where": {"a": 0}}'], "--max-queries", "5",
                        monkeypatch=monkeypatch, capsys=capsys)
    assert records[0]["line"] == 1 and error in records[0]["error"] and "refused" not in records[0]
    assert records[1]["query"] == 1


def test_the_service_parses_with_the_same_parser():
    from dprelease.mechanisms import online_queries
    from dprelease.service import app, sessions

    assert app.parse_queries is online_queries.parse_queries  # one parser, not two copies that drift apart
    assert sessions.answer_record is online_queries.answer_record
    queries, extra = online_queries.parse_queries({"request_id": "q", "marginal": ["a", "c"]}, DOMAIN,
                                                  own_fields=("request_id",))
    assert extra == {"marginal": ["a", "c"], "shape": [2, 4]} and len(queries) == 8
    assert queries[5].attributes == ("a", "c")  # C order: cell (1, 1) is the sixth
    assert [w.tolist() for w in queries[5].weights] == [[0, 1], [0, 1, 0, 0]]


def test_an_exhausted_session_refuses_a_cell_before_anything_is_drawn():
    from dprelease.mechanisms import online_queries

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SeededRunWarning)
        session = OnlinePrivateMW(Dataset.from_records(correlated(), DOMAIN), epsilon=1.0, max_queries=3, seed=2)
    session.forfeit(3)
    before = session._sparse.state()
    query = ProductQuery.conjunction(DOMAIN, {"a": 0})
    with pytest.raises(BudgetExhaustedError, match="exhausted"):
        online_queries.check_together(session, [query])
    assert online_queries.answer_record(session, query) == {"refused": True, "reason": session.refusal()}
    assert session._sparse.state() == before and session.queries_seen == 3
