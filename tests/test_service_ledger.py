"""The service's ledger: exact, shared by threads and processes, never refunded, never fooled (issue 16)."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import threading
from fractions import Fraction
from pathlib import Path

import pytest

from dprelease.errors import BudgetExceededError, InputError
from dprelease.service.config import exact_number, load_config, loads_exact
from dprelease.service.ledger import Ledger, LedgerError, RequestIdInUse
from tests.service_helpers import token_hash, write_config

WORKER = """
import sys, time
from pathlib import Path
from dprelease.errors import BudgetExceededError
from dprelease.service.ledger import Ledger
path, name, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
ledger = Ledger(path)
print("ready", flush=True)
while not go.exists():
    time.sleep(0.001)
try:
    ledger.reserve(table="t", analyst=name, request_id=name, kind="charge", epsilon="0.1")
    print("committed", flush=True)
except BudgetExceededError:
    print("refused", flush=True)
ledger.close()
"""


def test_32_threads_and_4_processes_spending_a_tenth_of_a_budget_of_1_commit_exactly_10(tmp_path, capsys):
    path, go = tmp_path / "ledger.sqlite", tmp_path / "go"
    setup = Ledger(path)
    setup.register_table("t", epsilon=1, fingerprint="x")
    setup.close()
    processes = [subprocess.Popen([sys.executable, "-c", WORKER, str(path), f"process-{i}", str(go)],
                                  stdout=subprocess.PIPE, text=True) for i in range(4)]
    ledgers = [Ledger(path) for _ in range(32)]  # one connection (and writer) each: real lock contention
    results: dict[str, str] = {}
    ready = threading.Barrier(33)

    def thread(i: int) -> None:
        ready.wait()
        try:
            ledgers[i].reserve(table="t", analyst=f"thread-{i}", request_id=f"thread-{i}", kind="charge",
                               epsilon="0.1")
            results[f"thread-{i}"] = "committed"
        except BudgetExceededError:
            results[f"thread-{i}"] = "refused"

    threads = [threading.Thread(target=thread, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for p in processes:
        assert p.stdout.readline().strip() == "ready"
    go.touch()
    ready.wait()
    for t in threads:
        t.join(timeout=120)
    for i, p in enumerate(processes):
        results[f"process-{i}"] = p.communicate(timeout=120)[0].strip()
    for ledger in ledgers:
        ledger.close()
    committed = [k for k, v in results.items() if v == "committed"]
    check = Ledger(path)
    summary = check.spent("t")
    check.verify("t")
    check.close()
    with capsys.disabled():
        print(f"\n  race: 32 threads + 4 processes each spend epsilon=1/10 of a budget of 1: {len(committed)} committed "
              f"({sum(k.startswith('thread') for k in committed)} threads, "
              f"{sum(k.startswith('process') for k in committed)} processes), "
              f"{sum(v == 'refused' for v in results.values())} refused; spent exactly {summary['spent']['epsilon']}")
    assert len(results) == 36 and set(results.values()) <= {"committed", "refused"}
    assert len(committed) == 10
    assert Fraction(summary["spent"]["epsilon"]) == 1 and Fraction(summary["remaining"]["epsilon"]) == 0


def test_caps_and_the_table_budget_are_checked_in_the_same_transaction(tmp_path):
    ledger = Ledger(tmp_path / "l.sqlite")
    ledger.register_table("t", epsilon="1", delta="1e-6", fingerprint="x")
    ledger.set_caps("t", {"a": ("0.3", None), "b": (None, "5e-7")})
    outcomes = []

    def spend(analyst: str, i: int) -> None:
        try:
            ledger.reserve(table="t", analyst=analyst, request_id=f"{analyst}{i}", kind="charge", epsilon="0.1",
                           delta="1e-7")
            outcomes.append(analyst)
        except BudgetExceededError:
            pass

    threads = [threading.Thread(target=spend, args=(a, i)) for a in "abc" for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    summary = ledger.spent("t")
    assert outcomes.count("a") == 3  # its epsilon cap 0.3
    assert outcomes.count("b") == 5  # its delta cap 5e-7
    assert outcomes.count("c") == 2  # what is left of the table's epsilon: 1 - 0.3 - 0.5
    assert Fraction(summary["spent"]["epsilon"]) == 1 and Fraction(summary["spent"]["delta"]) == Fraction("1e-6")
    ledger.verify("t")
    ledger.close()


def test_amounts_are_exact_and_a_request_id_is_used_once(tmp_path):
    ledger = Ledger(tmp_path / "l.sqlite")
    ledger.register_table("t", epsilon=1, fingerprint="x")
    for i in range(9):
        ledger.reserve(table="t", analyst="a", request_id=f"r{i}", kind="charge", epsilon="0.1")
    # 0.1 written as a float is above 1/10: it no longer fits, while the decimal 0.1 does
    with pytest.raises(BudgetExceededError, match="nothing was charged"):
        ledger.reserve(table="t", analyst="a", request_id="float", kind="charge", epsilon=0.1)
    with pytest.raises(RequestIdInUse):
        ledger.reserve(table="t", analyst="a", request_id="r0", kind="charge", epsilon="0.01")
    ledger.reserve(table="t", analyst="a", request_id="r9", kind="charge", epsilon=Fraction(1, 10))
    assert Fraction(ledger.spent("t")["spent"]["epsilon"]) == 1
    assert loads_exact('{"e": 0.1}')["e"] == Fraction(1, 10) and exact_number("1e-9") == Fraction(1, 10**9)
    with pytest.raises(InputError, match="e: the number 1e999999 is out of range"):
        loads_exact('{"e": 1e999999}')  # no million-digit integer is built; the field is named
    ledger.close()


def test_the_ledger_file_refuses_refunds_deletions_and_changed_budgets(tmp_path):
    path = tmp_path / "l.sqlite"
    ledger = Ledger(path)
    ledger.register_table("t", epsilon=1, fingerprint="x")
    reservation = ledger.reserve(table="t", analyst="a", request_id="r", kind="charge", epsilon="0.5")
    ledger.mark_lost(reservation.row, reason="test")
    connection = sqlite3.connect(path)
    for statement, message in [("DELETE FROM requests", "never deletes a charge"),
                               ("UPDATE requests SET epsilon = '0'", "never changed"),
                               ("UPDATE requests SET status = 'reserved'", "reserved to done or lost"),
                               ("UPDATE budgets SET epsilon = '2'", "fixed when the table is registered"),
                               ("DELETE FROM budgets", "never deletes a table budget")]:
        with pytest.raises(sqlite3.DatabaseError, match=message):
            connection.execute(statement)
    connection.close()
    with pytest.raises(LedgerError, match="budget is fixed"):
        ledger.register_table("t", epsilon=2, fingerprint="x")
    with pytest.raises(LedgerError, match="different data"):
        ledger.register_table("t", epsilon=1, fingerprint="y")
    assert Fraction(ledger.spent("t")["spent"]["epsilon"]) == Fraction(1, 2)  # lost, never refunded
    ledger.close()
    # a total edited behind the ledger's back is caught by verify (the service checks at start-up)
    connection = sqlite3.connect(path)
    connection.execute("UPDATE budgets SET spent_epsilon = '0'")
    connection.commit()
    connection.close()
    ledger = Ledger(path)
    with pytest.raises(LedgerError, match="the charges sum to"):
        ledger.verify("t")
    ledger.close()


@pytest.mark.parametrize("edit,message", [
    (lambda c: c["tables"]["t"]["analysts"].update({"alice": {"epsilon": 0.6}, "bob": {"epsilon": 0.5}}),
     "caps add up to 1.1, more than the table's budget 1"),
    (lambda c: c["analysts"]["alice"].update({"token_sha256": "alice-secret-token"}), "64 lowercase hex digits"),
    (lambda c: c["tables"]["t"]["analysts"].update({"mallory": {}}), "not among the configured analysts"),
    (lambda c: c["tables"]["t"]["budget"].update({"epsilon": 0}), "budget epsilon must be > 0"),
    (lambda c: c["tables"]["t"]["budget"].update({"delta": 1}), "delta must be in [0, 1)"),
    (lambda c: c.update({"port": 70000}), "port must be an integer"),
    (lambda c: c["tables"]["t"].update({"extra": 1}), "unknown field(s) ['extra']"),
])
def test_configuration_mistakes_are_refused_naming_them(tmp_path, edit, message):
    path = write_config(tmp_path, {"t": {"budget": {"epsilon": 1}, "analysts": {"alice": {}, "bob": {}}}})
    config = json.loads(path.read_text())
    edit(config)
    path.write_text(json.dumps(config))
    with pytest.raises(InputError) as caught:
        load_config(path)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_configuration_reads_budgets_and_caps_exactly(tmp_path):
    path = write_config(tmp_path, {"t": {"budget": {"epsilon": 0.3, "delta": 1e-9},
                                         "analysts": {"alice": {"epsilon": 0.1}, "bob": {"epsilon": 0.2}}}})
    config = load_config(path)
    table = config.tables["t"]
    assert (table.epsilon, table.delta) == (Fraction(3, 10), Fraction(1, 10**9))  # 0.1 + 0.2 == 0.3 exactly
    assert config.host == "127.0.0.1" and config.analysts["alice"] == token_hash("alice-secret-token")
    assert table.data == Path(tmp_path / "t.csv")
