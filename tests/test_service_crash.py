"""kill -9 of the real server process at every step of every kind of request (issue 16).

The server is started with the fault hooks of dprelease.service.faults (environment variables
only): a request whose id is listed stops for good at its step, the test waits until the server
has recorded that it got there, and sends SIGKILL to the process. Then the server is started
again on the same ledger and the test checks what the step left:

* the budget is never reset: what was spent before the kill is still spent after the restart;
* nothing is spent twice: a charge reserved before the kill is never charged again, and a retry
  of the same request id is never answered from a new charge;
* no answer is given twice from one charge: a retry gets the stored answer (after the answer was
  committed), or 409 "lost" (after the reservation, before the answer was committed); a lost
  session query is counted as an above-threshold answer (one update used, a fresh threshold);
* the data is read only after the charge is on disk (the read log: nothing read at
  "after_reserve", the data read at "after_count").

It prints one line per step.
"""

from __future__ import annotations

import json
import threading
from fractions import Fraction

from dprelease.service.faults import STEPS
from tests.service_helpers import (
    Client,
    charges_sum,
    ledger_rows,
    spent,
    start_server,
    wait_for,
    write_config,
)

EPSILON = {"session": Fraction(1, 2), "release": Fraction(1, 4), "query": Fraction(0)}


def request_for(kind: str, request_id: str, session: str) -> tuple[str, dict]:
    if kind == "session":
        return "/v1/tables/t/sessions", {"request_id": request_id, "mode": "warm", "epsilon": 0.5,
                                         "max_queries": 40, "accuracy": 0.5}
    if kind == "release":
        return "/v1/tables/t/releases", {"request_id": request_id, "epsilon": 0.25, "workload": "2way"}
    return f"/v1/tables/t/sessions/{session}/queries", {"request_id": request_id, "where": {"a": 0, "b": 2}}


def session_state(ledger, session: str) -> dict:
    (row,) = ledger_rows(ledger, "SELECT dynamic FROM sessions WHERE id = ?", (session,))
    state = json.loads(row[0])
    return {"updates": state["sparse_vector"]["count"], "threshold": state["sparse_vector"]["noisy_threshold"],
            "queries": state["queries_seen"]}


def status_of(ledger, request_id: str) -> str | None:
    rows = ledger_rows(ledger, "SELECT status FROM requests WHERE request_id = ?", (request_id,))
    return rows[0][0] if rows else None


KINDS = ("session", "query", "release")


def test_kill_9_at_every_step_never_resets_double_spends_or_answers_twice(tmp_path, capsys):
    config = write_config(tmp_path, {"t": {"n": 3000, "budget": {"epsilon": 20}, "analysts": {"alice": {}}}})
    ledger, reads, marks = tmp_path / "ledger.sqlite", tmp_path / "reads.log", tmp_path / "fault-marks.txt"
    faults = [f"{step}@{kind}-{step}" for kind in KINDS for step in STEPS]
    server = start_server(config, faults=faults, read_log=reads)
    status, opened = server.client().call("POST", "/v1/tables/t/sessions", {
        "request_id": "base", "mode": "warm", "epsilon": 4, "max_queries": 40, "accuracy": 0.3})
    assert status == 201, opened
    base = opened["session"]
    assert opened["plan"]["cutoff"] >= 3  # room for the two lost queries' forfeits and more
    lines = []
    try:
        for step in STEPS:
            # One request of each kind stops at this step; then the process is killed.
            before_spent = spent(ledger, "t")
            before_session = session_state(ledger, base)
            reads_before = len(reads.read_text().splitlines()) if reads.exists() else 0
            threads, outcomes = {}, {kind: {} for kind in KINDS}
            for kind in KINDS:
                path, body = request_for(kind, f"{kind}-{step}", base)

                def send(path=path, body=body, outcome=outcomes[kind]) -> None:
                    try:
                        outcome["reply"] = server.client().call("POST", path, body)
                    except OSError as exc:  # the connection dies with the server
                        outcome["error"] = type(exc).__name__

                threads[kind] = threading.Thread(target=send, daemon=True)
                threads[kind].start()
            keys = [f"{step}@{kind}-{step}" for kind in KINDS]
            wait_for(lambda: (marks.exists() and all(k in marks.read_text().split() for k in keys))
                     or not all(t.is_alive() for t in threads.values()),
                     what=f"the server to reach {step} of every request")
            assert all(t.is_alive() for t in threads.values()), f"a request was answered, not stopped: {outcomes}"
            server.kill9()
            for thread in threads.values():
                thread.join(timeout=30)
            assert not any("reply" in o for o in outcomes.values()), f"an answer left before the kill: {outcomes}"
            read_during = (len(reads.read_text().splitlines()) if reads.exists() else 0) - reads_before
            after_kill = {kind: status_of(ledger, f"{kind}-{step}") or "unrecorded" for kind in KINDS}

            server = start_server(config, faults=faults, read_log=reads)
            after_spent = spent(ledger, "t")
            after_status = {kind: status_of(ledger, f"{kind}-{step}") or "unrecorded" for kind in KINDS}
            after_session = session_state(ledger, base)
            # the budget is never reset, and what was reserved stays charged, once
            reserved = sum((EPSILON[k] for k in KINDS), Fraction(0)) if step != "before_reserve" else Fraction(0)
            assert after_spent == before_spent + reserved == charges_sum(ledger, "t")
            if step == "before_reserve":
                assert set(after_kill.values()) == set(after_status.values()) == {"unrecorded"} and read_during == 0
            elif step == "after_answer":
                assert set(after_kill.values()) == set(after_status.values()) == {"done"}
            else:  # after the reservation, before the answer was committed: lost, spent, never answered
                assert set(after_kill.values()) == {"reserved"} and set(after_status.values()) == {"lost"}
                if step == "after_reserve":
                    assert read_during == 0, "data was read before the charges were committed"
                else:
                    assert read_during > 0  # the tripwire sees the reads made after the charges
                # the lost comparison is paid for: one update, and a fresh threshold
                assert after_session["updates"] == before_session["updates"] + 1
                assert after_session["queries"] == before_session["queries"] + 1
                assert after_session["threshold"] != before_session["threshold"]
            retries = {}
            for kind in KINDS:
                path, body = request_for(kind, f"{kind}-{step}", base)
                was = spent(ledger, "t")
                retry_status, retry = server.client().call("POST", path, body)
                now = spent(ledger, "t")
                again_status, again = server.client().call("POST", path, body)
                assert spent(ledger, "t") == now == charges_sum(ledger, "t")
                if step == "before_reserve":  # answered now, from one new charge
                    assert retry_status in (200, 201), retry
                    assert now == was + EPSILON[kind]
                elif step == "after_answer":  # the stored answer, not a new one
                    assert retry_status == 200 and retry["replayed"] is True, retry
                    assert now == was
                else:
                    assert retry_status == 409 and retry["lost"] is True, retry
                    assert now == was
                if retry_status in (200, 201):
                    key = {"session": "session", "release": "release", "query": "answers"}[kind]
                    assert again_status == 200 and again["replayed"] is True and again[key] == retry[key]
                else:
                    assert again_status == retry_status
                retries[kind] = retry_status
            lines.append(f"{step:<14} killed with the requests {'/'.join(str(after_kill[k]) for k in KINDS):<24} -> "
                         f"after restart {'/'.join(str(after_status[k]) for k in KINDS):<17} spent {before_spent} -> "
                         f"{after_spent}; data reads before the kill {read_during}; session updates "
                         f"{before_session['updates']} -> {after_session['updates']}; retries (session/query/release) "
                         f"{'/'.join(str(retries[k]) for k in KINDS)}")
        statuses = dict(ledger_rows(ledger, "SELECT status, COUNT(*) FROM requests GROUP BY status"))
        assert "reserved" not in statuses
        assert Client(server.port, None).call("GET", "/v1/health")[0] == 200
    finally:
        server.stop()
    with capsys.disabled():
        print("\n  kill -9 at every step of a session, a query and a release request (issue 16):")
        for line in lines:
            print("   ", line)
        print(f"    final: spent {spent(ledger, 't')} of 20 = the sum of every charge ({charges_sum(ledger, 't')}); "
              f"requests by status {statuses}")
