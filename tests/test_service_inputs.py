"""Hostile and careless request bodies on the real ``dprelease serve`` process (the new-user trial of issue 2).

Deep nesting, numbers out of range, amounts written as strings: each is a 400 that names the field and
quotes the value as the client wrote it, with nothing spent and nothing read. A client that goes away
early costs one log line, not a traceback. A refused start writes nothing next to the ledger.
"""

from __future__ import annotations

import json
import socket
import struct

import pytest

from dprelease.cli import main
from tests.service_helpers import ledger_rows, spent, start_server, wait_for, write_config

TABLES = {"t": {"n": 4000, "budget": {"epsilon": 2}, "analysts": {"alice": {}, "bob": {}}}}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve-inputs")
    config = write_config(folder, TABLES)  # the default body cap, 64 KiB
    reads = folder / "reads.log"
    server = start_server(config, read_log=reads, quiet=False)  # its request log is checked below
    status, opened = server.client("bob").call("POST", "/v1/tables/t/sessions", {"epsilon": 1, "max_queries": 20,
                                                                                 "accuracy": 0.3})
    assert status == 201, opened
    yield server, folder / "ledger.sqlite", reads, opened["session"]
    server.stop()


def assert_refused_unspent(served, path, raw: bytes, *words: str) -> str:
    server, ledger, reads, _ = served
    was, lines = spent(ledger, "t"), len(reads.read_text().splitlines()) if reads.exists() else 0
    count = ledger_rows(ledger, "SELECT COUNT(*) FROM requests")[0][0]
    status, reply = server.client("bob").call("POST", path, raw=raw)
    assert status == 400, (raw[:80], reply)
    for word in words:
        assert word in reply["error"], (word, reply)
    assert spent(ledger, "t") == was and ledger_rows(ledger, "SELECT COUNT(*) FROM requests")[0][0] == count
    assert (len(reads.read_text().splitlines()) if reads.exists() else 0) == lines  # nothing read
    return reply["error"]


@pytest.mark.parametrize("endpoint", ["sessions", "releases"])
def test_a_deeply_nested_body_under_the_size_cap_is_a_400_not_an_internal_error(served, endpoint):
    server = served[0]
    deep = b"[" * 30_000 + b"]" * 30_000  # 60 KB, under the 64 KiB cap; deeper than the parser's recursion
    assert_refused_unspent(served, f"/v1/tables/t/{endpoint}", deep, "nested")
    inside = b'{"epsilon": 0.01, "workload": ' + deep[:-2000] + b"}"
    assert_refused_unspent(served, f"/v1/tables/t/{endpoint}", inside, "nested")
    shallow_but_too_deep = b'{"epsilon": 0.01, "workload": ' + b"[" * 40 + b"]" * 40 + b"}"
    assert_refused_unspent(served, f"/v1/tables/t/{endpoint}", shallow_but_too_deep, "nested")
    assert "Traceback" not in server.log.read_text() and "internal error" not in server.log.read_text()


@pytest.mark.parametrize("body,words", [
    (b'{"epsilon": 1e-400, "max_queries": 5, "accuracy": 0.3}', ("epsilon", "1e-400", "out of range")),
    (b'{"epsilon": 1e400, "max_queries": 5, "accuracy": 0.3}', ("epsilon", "1e400", "out of range")),
    (b'{"epsilon": 0.1, "delta": -1E+999, "max_queries": 5, "accuracy": 0.3}', ("delta", "-1E+999")),
    (b'{"epsilon": 0.1, "max_queries": 10.5, "accuracy": 0.3}', ("max_queries", "10.5")),
    (b'{"epsilon": 0.1, "max_queries": 1' + b"0" * 80 + b', "accuracy": 0.3}', ("max_queries", "out of range")),
    (b'{"epsilon": 0.1, "max_queries": 5, "accuracy": NaN}', ("accuracy", "NaN")),
])
def test_a_bad_number_is_refused_naming_its_field_and_quoting_it_as_written(served, body, words):
    error = assert_refused_unspent(served, "/v1/tables/t/sessions", body, *words)
    assert "Fraction" not in error


def test_a_query_value_is_quoted_as_written(served):
    session = served[3]
    path = f"/v1/tables/t/sessions/{session}/queries"
    error = assert_refused_unspent(served, path, b'{"where": {"a": 1.0}}', "'a'", "integer code, got 1.0")
    assert "Fraction" not in error
    error = assert_refused_unspent(served, path, b'{"where": {"a": [0, 2.50]}}', "2.50")
    assert "Fraction" not in error


@pytest.mark.parametrize("endpoint,extra", [("sessions", {"max_queries": 5, "accuracy": 0.3}), ("releases", {})])
@pytest.mark.parametrize("field,value", [("epsilon", "0.1"), ("epsilon", "1/100"), ("delta", "0"),
                                         ("epsilon", True)])
def test_an_amount_written_as_a_string_is_refused_as_true_is(served, endpoint, extra, field, value):
    body = {"epsilon": 0.1, **extra, field: value}
    error = assert_refused_unspent(served, f"/v1/tables/t/{endpoint}", json.dumps(body).encode(), field,
                                   "JSON number", json.dumps(value))
    assert "Fraction" not in error


def test_a_client_that_goes_away_early_costs_one_log_line_not_a_traceback(served):
    server = served[0]
    head = (b"POST /v1/tables/t/releases HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer bob-secret-token\r\n"
            b"Content-Length: 500\r\n\r\n")
    for body in (b'{"epsilon"', b'{"epsilon": 0.1}'):  # cut off; and a complete JSON shorter than declared
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=30)
        sock.sendall(head + body)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
        sock.close()
    was = spent(served[1], "t")
    wait_for(lambda: server.log.read_text().count("went away") >= 2, timeout=20, what="the went-away log lines")
    log = server.log.read_text()
    assert "Traceback" not in log and "ConnectionResetError:" not in log
    assert spent(served[1], "t") == was  # a body shorter than its Content-Length is never answered
    assert server.client("bob").call("GET", "/v1/health") == (200, {"status": "ok"})


def test_a_refused_start_writes_nothing(tmp_path, capsys):
    config = write_config(tmp_path, TABLES)
    record = json.loads(config.read_text())
    record["tables"]["t"]["columns"] = ["a", "nope"]
    record["ledger"] = "state/ledger.sqlite"
    config.write_text(json.dumps(record))
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert main(["serve", str(config), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "nope" in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.rglob("*")) == before  # no lock, no ledger, no folder


def test_a_start_refused_after_the_ledger_was_opened_removes_what_it_created(tmp_path, capsys):
    config = write_config(tmp_path, TABLES)
    record = json.loads(config.read_text())
    record["host"] = "192.0.2.1"  # TEST-NET-1: never an address of this machine, so binding it fails
    config.write_text(json.dumps(record))
    before = sorted(p.name for p in tmp_path.rglob("*"))
    assert main(["serve", str(config), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "cannot listen on 192.0.2.1" in err
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


@pytest.mark.parametrize("host,loopback", [("127.0.0.1", True), ("127.1.2.3", True), ("::1", True),
                                           ("localhost", True), ("0.0.0.0", False), ("::", False),
                                           ("10.0.0.5", False), ("example.org", False)])
def test_a_host_that_is_not_loopback_is_told_apart(host, loopback):
    from dprelease.cli.serve import _is_loopback  # the start-up warning's test (docs/service.md)

    assert _is_loopback(host) is loopback
