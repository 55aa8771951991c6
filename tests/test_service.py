"""``dprelease serve`` end to end, on the real server process bound to 127.0.0.1 (issue 16).

Bad requests get 4xx with nothing spent and nothing read (a tripwire table logs every private read);
a request id is answered once; a bounded load test; a restart resumes sessions without redrawing
their noise; a second server on the same ledger, and configuration mistakes, stop with exit code 2.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from fractions import Fraction

import pytest

from dprelease.cli import main
from tests.service_helpers import (
    Client,
    charges_sum,
    ledger_rows,
    spent,
    start_server,
    write_config,
)

TABLES = {
    "t": {"n": 4000, "budget": {"epsilon": 10}, "analysts": {"alice": {"epsilon": 6}, "bob": {}}},
    # The tripwire: its reads are logged; every request below that is refused must leave no line.
    "trip": {"n": 2000, "seed": 1, "budget": {"epsilon": 1}, "analysts": {"alice": {"epsilon": 0.5}, "carol": {}}},
}


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    folder = tmp_path_factory.mktemp("serve")
    config = write_config(folder, TABLES, max_body_bytes=4096)
    reads = folder / "reads.log"
    server = start_server(config, read_log=reads)
    yield server, folder / "ledger.sqlite", reads, config
    server.stop()


def tripwire_reads(reads) -> list[str]:
    return [line for line in reads.read_text().splitlines() if line.startswith("trip\t")] if reads.exists() else []


def raw_http(port: int, data: bytes) -> str:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks).decode(errors="replace")


def test_bad_requests_get_4xx_spend_nothing_and_read_nothing(served):
    server, ledger, reads, _ = served
    alice, bob = server.client("alice"), server.client("bob")
    status, opened = bob.call("POST", "/v1/tables/t/sessions", {"mode": "warm", "epsilon": 1, "max_queries": 20,
                                                                 "accuracy": 0.3})
    assert status == 201, opened
    bobs = opened["session"]
    before = {name: spent(ledger, name) for name in TABLES}
    trip_before = len(tripwire_reads(reads))
    session_path = "/v1/tables/trip/sessions"
    cases = [
        (server.client(None), "GET", "/v1/tables", None, None, 401),
        (Client(server.port, "wrong-token"), "POST", session_path, {"epsilon": 0.1}, None, 401),
        (Client(server.port, "alice-secret-token "), "GET", "/v1/tables/trip/budget", None, None, 200),
        (alice, "POST", session_path, None, b"{not json", 400),
        (alice, "POST", session_path, None, b"[1, 2]", 400),
        (alice, "POST", session_path, None, b'{"epsilon": NaN, "max_queries": 5}', 400),
        (alice, "POST", session_path, None, b'{"epsilon": 1e999999, "max_queries": 5}', 400),
        (alice, "POST", session_path, None, b"\xff\xfe", 400),
        (alice, "POST", session_path, {"epsilon": 0.1, "max_queries": 5, "accuracy": 0.5, "colour": 1}, None, 400),
        (alice, "POST", session_path, {"epsilon": -1, "max_queries": 5, "accuracy": 0.5}, None, 400),
        (alice, "POST", session_path, {"epsilon": "lots", "max_queries": 5, "accuracy": 0.5}, None, 400),
        (alice, "POST", session_path, {"epsilon": 0.4, "max_queries": 5}, None, 400),  # warm needs an accuracy
        (alice, "POST", session_path, {"epsilon": 0.4, "mode": "book", "max_queries": 5}, None, 400),  # no alpha <= 1
        (alice, "POST", session_path, {"epsilon": 0.4, "max_queries": 5, "accuracy": 0.001}, None, 400),
        (alice, "POST", session_path, {"epsilon": 0.4, "max_queries": 5, "accuracy": 0.5,
                                       "warm_workload": "/etc/passwd"}, None, 400),
        (alice, "POST", "/v1/tables/trip/releases", {"epsilon": 0.1, "workload": "/etc/passwd"}, None, 400),
        (alice, "POST", "/v1/tables/trip/releases", {"epsilon": 0.1, "workload": [["a", "zz"]]}, None, 400),
        (alice, "POST", "/v1/tables/trip/releases", {"epsilon": 0.1, "request_id": "bad id!"}, None, 400),
        (alice, "POST", "/v1/tables/trip/releases", {"epsilon": 0.6}, None, 403),  # over alice's cap of 0.5
        (server.client("carol"), "POST", "/v1/tables/trip/releases", {"epsilon": 1.5}, None, 403),  # over budget
        (alice, "POST", "/v1/tables/trip/releases", {"epsilon": 0.1, "padding": "x" * 5000}, None, 413),
        (alice, "POST", "/v1/tables/nope/releases", {"epsilon": 0.1}, None, 404),
        (server.client("carol"), "POST", "/v1/tables/t/releases", {"epsilon": 0.1}, None, 404),  # not granted
        (alice, "POST", f"/v1/tables/t/sessions/{bobs}/queries", {"where": {"a": 0}}, None, 404),  # bob's session
        (alice, "POST", "/v1/tables/trip/sessions/s-none/queries", {"where": {"a": 0}}, None, 404),
        (bob, "POST", f"/v1/tables/t/sessions/{bobs}/queries", {"where": {"a": 7}}, None, 400),
        (bob, "POST", f"/v1/tables/t/sessions/{bobs}/queries", {"where": {"zz": 0}}, None, 400),
        (bob, "POST", f"/v1/tables/t/sessions/{bobs}/queries", {"marginal": ["a", "b", "c"]}, None, 403),  # 24 > 20
        (alice, "DELETE", "/v1/tables/trip/budget", None, None, 405),
        (alice, "GET", "/v1/nothing", None, None, 404),
    ]
    seen = []
    for client, method, path, body, raw, expected in cases:
        status, reply = client.call(method, path, body, raw=raw)
        seen.append(status)
        assert status == expected, (method, path, body, raw, reply)
        if status >= 400:
            assert isinstance(reply, dict) and reply["error"], reply
        if status == 403:
            assert reply["refused"] is True
    no_length = raw_http(server.port, b"POST /v1/tables/trip/releases HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                                      b"alice-secret-token\r\n\r\n")
    chunked = raw_http(server.port, b"POST /v1/tables/trip/releases HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked"
                                    b"\r\nAuthorization: Bearer alice-secret-token\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    assert no_length.startswith("HTTP/1.1 411") and chunked.startswith("HTTP/1.1 411")
    assert {name: spent(ledger, name) for name in TABLES} == before  # nothing spent
    assert len(tripwire_reads(reads)) == trip_before == 0  # nothing read
    assert status_counts(ledger, "trip") == {}
    # The tripwire does fire on a request that is paid for: the release reads the table, after its charge.
    status, release = server.client("carol").call("POST", "/v1/tables/trip/releases", {"epsilon": 0.25,
                                                                                       "workload": "1way"})
    assert status == 201, release
    assert len(tripwire_reads(reads)) > 0 and spent(ledger, "trip") == Fraction(1, 4)
    status, rows = server.client("alice").call("GET", release["rows_url"])
    assert status == 200 and rows.splitlines()[0] == "a,b,c" and len(rows.splitlines()) == 2001


def status_counts(ledger, table: str) -> dict[str, int]:
    return dict(ledger_rows(ledger, "SELECT status, COUNT(*) FROM requests WHERE table_name = ? GROUP BY status",
                            (table,)))


def test_a_request_id_is_answered_once(served):
    server, ledger, _, _ = served
    alice = server.client("alice")
    status, opened = alice.call("POST", "/v1/tables/t/sessions", {"request_id": "open-1", "epsilon": 1,
                                                                   "max_queries": 30, "accuracy": 0.3})
    assert status == 201, opened
    was = spent(ledger, "t")
    status, again = alice.call("POST", "/v1/tables/t/sessions", {"request_id": "open-1", "epsilon": 1,
                                                                  "max_queries": 30, "accuracy": 0.3})
    assert status == 200 and again["replayed"] and again["session"] == opened["session"] and spent(ledger, "t") == was
    status, other = alice.call("POST", "/v1/tables/t/sessions", {"request_id": "open-1", "epsilon": 2,
                                                                  "max_queries": 30, "accuracy": 0.3})
    assert status == 409 and "different request" in other["error"]
    path = f"/v1/tables/t/sessions/{opened['session']}/queries"
    first = alice.call("POST", path, {"request_id": "q-1", "marginal": ["a", "c"]})
    second = alice.call("POST", path, {"request_id": "q-1", "marginal": ["a", "c"]})
    assert first[0] == second[0] == 200
    assert second[1]["answers"] == first[1]["answers"] and second[1]["replayed"] is True
    assert len(first[1]["answers"]) == 6 and first[1]["shape"] == [3, 2] and first[1]["queries_seen"] == 6
    status, state = alice.call("GET", f"/v1/tables/t/sessions/{opened['session']}")
    assert status == 200 and state["queries_seen"] == 6  # the replay asked nothing
    assert "noisy_threshold" not in json.dumps(state)  # the secret never leaves
    status, budget = server.client("bob").call("GET", "/v1/tables/t/budget")
    assert status == 200 and Fraction(budget["spent"]["epsilon"]) == spent(ledger, "t") == charges_sum(ledger, "t")
    assert Fraction(budget["analysts"]["alice"]["spent"]["epsilon"]) >= 1


def test_a_bounded_load_on_loopback_answers_every_query_once_and_spends_nothing_more(served, capsys):
    server, ledger, _, _ = served
    sessions = []
    for analyst in ("alice", "bob"):
        status, opened = server.client(analyst).call("POST", "/v1/tables/t/sessions", {
            "mode": "book", "epsilon": 1, "alpha": 0.9})
        assert status == 201, opened
        assert opened["warning"].startswith("the book's promise 3 alpha") and opened["plan"]["max_queries"] >= 200
        sessions.append((analyst, opened["session"], opened["plan"]["max_queries"]))
    was = spent(ledger, "t")
    clients, per_client = 8, 50  # a fixed number of requests: the test stops by itself
    latencies, errors = [], []

    def client(i: int) -> None:
        analyst, session, _ = sessions[i % 2]
        connection = server.client(analyst)
        for j in range(per_client):
            started = time.perf_counter()
            status, reply = connection.call("POST", f"/v1/tables/t/sessions/{session}/queries",
                                            {"request_id": f"load-{i}-{j}", "where": {"a": j % 3, "c": i % 2}})
            latencies.append(time.perf_counter() - started)
            if status != 200 or "value" not in reply["answers"][0]:
                errors.append((status, reply))
        connection.close()

    started = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    seconds = time.perf_counter() - started
    assert errors == []
    assert len(latencies) == clients * per_client
    assert spent(ledger, "t") == was == charges_sum(ledger, "t")  # queries cost nothing beyond their sessions
    for analyst, session, _ in sessions:
        state = server.client(analyst).call("GET", f"/v1/tables/t/sessions/{session}")[1]
        assert state["queries_seen"] == clients * per_client // 2
    done = ledger_rows(ledger, "SELECT COUNT(*), COUNT(DISTINCT request_id) FROM requests WHERE request_id LIKE "
                               "'load-%' AND status = 'done'")[0]
    assert done == (clients * per_client, clients * per_client)
    latencies.sort()
    with capsys.disabled():
        print(f"\n  load (bounded, 127.0.0.1): {clients} clients x {per_client} queries = {len(latencies)} answered in "
              f"{seconds:.2f} s ({len(latencies) / seconds:.0f} q/s), p50 {1000 * latencies[len(latencies) // 2]:.1f} ms, "
              f"p99 {1000 * latencies[int(0.99 * len(latencies))]:.1f} ms; spent unchanged at {spent(ledger, 't')}")


def test_a_second_server_on_the_same_ledger_is_refused(served, capsys):
    server, _, _, config = served
    assert main(["serve", str(config), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert "another dprelease serve is using the ledger" in err and err.count("\n") == 1


def test_a_restart_resumes_sessions_without_redrawing_their_noise(tmp_path):
    config = write_config(tmp_path, {"t": {"n": 3000, "budget": {"epsilon": 3}, "analysts": {"alice": {}}}})
    ledger = tmp_path / "ledger.sqlite"
    server = start_server(config)
    try:
        alice = server.client()
        status, opened = alice.call("POST", "/v1/tables/t/sessions", {"epsilon": 2, "max_queries": 50,
                                                                       "accuracy": 0.3})
        assert status == 201, opened
        path = f"/v1/tables/t/sessions/{opened['session']}/queries"
        answers = [alice.call("POST", path, {"request_id": f"q{i}", "where": {"b": i % 4}})[1] for i in range(5)]
        state = json.loads(ledger_rows(ledger, "SELECT dynamic FROM sessions")[0][0])
    finally:
        server.stop()  # SIGTERM: a clean stop
    assert server.process.returncode == 0
    server = start_server(config)
    try:
        alice = server.client()
        assert json.loads(ledger_rows(ledger, "SELECT dynamic FROM sessions")[0][0]) == state  # nothing redrawn
        assert spent(ledger, "t") == 2
        replay = alice.call("POST", path, {"request_id": "q2", "where": {"b": 2}})[1]
        assert replay["answers"] == answers[2]["answers"] and replay["replayed"]
        status, more = alice.call("POST", path, {"request_id": "q5", "where": {"a": 1}})
        assert status == 200 and more["answers"][0]["query"] == 6 and more["queries_seen"] == 6
        status, refused = alice.call("POST", "/v1/tables/t/sessions", {"epsilon": 1.5, "max_queries": 5,
                                                                        "accuracy": 0.5})
        assert status == 403 and spent(ledger, "t") == 2  # the budget survived the restart
    finally:
        server.stop()
    # A configuration that changes a registered budget is refused at start-up (exit 2, one line).
    changed = json.loads(config.read_text())
    changed["tables"]["t"]["budget"]["epsilon"] = 30
    config.write_text(json.dumps(changed))
    code = main(["serve", str(config), "--port", "0"])
    assert code == 2


def test_a_query_that_fails_after_its_reservation_is_lost_and_its_run_forfeited(tmp_path, monkeypatch):
    # In-process (the Service behind the HTTP server): a failure inside the mechanism after the reservation.
    from dprelease.mechanisms.online_mw import OnlinePrivateMW
    from dprelease.service.app import Service
    from dprelease.service.config import load_config

    config = write_config(tmp_path, {"t": {"n": 3000, "budget": {"epsilon": 4}, "analysts": {"alice": {}}}})
    service = Service.start(load_config(config))
    headers = {"Authorization": "Bearer alice-secret-token"}
    try:
        opened = json.loads(service.handle("POST", "/v1/tables/t/sessions", headers, json.dumps(
            {"epsilon": 4, "max_queries": 40, "accuracy": 0.3}).encode()).body)
        path = f"/v1/tables/t/sessions/{opened['session']}/queries"
        real = OnlinePrivateMW.ask

        def broken(self, query):
            real(self, query)  # the data is read, the comparison made ...
            raise RuntimeError("a bug after the comparison")  # ... and then the request fails

        monkeypatch.setattr(OnlinePrivateMW, "ask", broken)
        response = service.handle("POST", path, headers, b'{"request_id": "x", "where": {"a": 0}}')
        assert response.status == 500
        monkeypatch.setattr(OnlinePrivateMW, "ask", real)
        state = json.loads(service.handle("GET", f"/v1/tables/t/sessions/{opened['session']}", headers, None).body)
        assert (state["updates_used"], state["queries_seen"]) == (1, 1)  # forfeited: one run used
        retry = service.handle("POST", path, headers, b'{"request_id": "x", "where": {"a": 0}}')
        assert retry.status == 409 and json.loads(retry.body)["lost"] is True
        fresh = service.handle("POST", path, headers, b'{"request_id": "y", "where": {"a": 0}}')
        assert fresh.status == 200 and json.loads(fresh.body)["queries_seen"] == 2
        assert spent(tmp_path / "ledger.sqlite", "t") == 4
    finally:
        service.close()
