#!/usr/bin/env python
"""The query service end to end: online answers through the real server, and a load test on loopback.

    .venv/bin/python benchmarks/bench_service.py [--seeds 3] [--queries 2000] [--accuracy 0.05] \
        [--clients 50] [--load-queries 20000] [--load-sessions 10] [--skip-accuracy] [--skip-load] \
        [--out benchmarks/results]

Both parts start the real ``dprelease serve`` process on 127.0.0.1 (an ephemeral port) with a fresh
ledger, and talk to it over HTTP with keep-alive connections, as a client would.

**Accuracy** (issue 16's must-show). Data: the bundled Adult table restricted to ADULT_SMALL_COLUMNS
(48,842 rows, 120,960 cells). Per seed s, ``--queries`` random conjunctions (1 to 3 distinct
attributes, each fixed to a uniform value; numpy PCG64(s), the same streams as bench_online.py),
asked one at a time, in two sessions at epsilon = 1 each (two table entries over the same data, each
with a budget of 1: a benchmark, not one analyst's budget):

* ``mode="warm"``: an MWEM synopsis of the 1-3-way marginals on half of epsilon, then NumericSparse,
  with the cut-off and threshold solved from ``--accuracy``;
* ``mode="book"``: Algorithm 6 with Thm 4.14's parameters for a declared stream of ``--queries``.

Measured on the answered queries: the mean and max |answer - truth| (truth computed by this script
from the data); the number refused, with their reasons; where the answers came from; seconds to open
the session; queries per second (one client, sequential).

**Load.** One table (the same Adult data) with a budget of ``--load-sessions`` + 1; one analyst per
session, each capped at epsilon 1. The sessions (warm, accuracy ``--accuracy``) are opened first; then
``--clients`` client threads, spread evenly over the sessions, ask ``--load-queries`` random conjunctions
in total, each request carrying a request id. At the same time 4 more threads of another analyst try,
40 times each, to open book-mode sessions at epsilon 1/4 (the budget left allows exactly 4). Measured:
queries per second over the whole load, p50 / p99 latency per request, status counts; and the overspend
checks: the table's spent epsilon equals the exact sum of its charges and never exceeds its budget,
exactly 4 of the 160 extra sessions were admitted, every query was answered once (one ``done`` record
per request id), every session counted exactly its queries.

The machine is shared with other agents: the 1-minute load average is recorded before and after each
part, and the clients run on the same 2 cores as the server. Writes OUT/service.json and OUT/service.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))
import provenance  # noqa: E402

from dprelease import ProductQuery  # noqa: E402
from dprelease.datasets import ADULT_SMALL_COLUMNS, adult_paths, load_adult  # noqa: E402
from dprelease.queries.array_eval import evaluate_on_array  # noqa: E402

TOKEN = "bench-token"


# ------------------------------------------------------------------------------ the server
class Service:
    """A real ``dprelease serve`` process over a configuration in a temporary folder."""

    def __init__(self, tables: dict[str, dict], analysts: list[str]) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="dprelease-bench-service-"))
        data, domain = adult_paths()
        config = {"ledger": "ledger.sqlite", "analysts": {a: {"token_sha256": hashlib.sha256(f"{TOKEN}-{a}".encode())
                                                             .hexdigest()} for a in analysts},
                  "tables": {name: {"data": str(data), "domain": str(domain), "columns": list(ADULT_SMALL_COLUMNS),
                                    **spec} for name, spec in tables.items()}}
        self.config = self.folder / "config.json"
        self.config.write_text(json.dumps(config, indent=1))
        exe = Path(sys.executable).parent / "dprelease"
        self.log = (self.folder / "server.log").open("w")
        started = time.perf_counter()
        self.process = subprocess.Popen([str(exe), "serve", str(self.config), "--port", "0", "--quiet"],
                                        stdout=subprocess.PIPE, stderr=self.log, text=True)
        line = self.process.stdout.readline()
        if "listening on http://127.0.0.1:" not in line:
            raise SystemExit(f"the server did not start: {line!r}; see {self.folder / 'server.log'}")
        self.start_seconds = time.perf_counter() - started
        self.port = int(line.split("http://127.0.0.1:")[1].split()[0])
        self.ledger = self.folder / "ledger.sqlite"

    def client(self, analyst: str) -> Client:
        return Client(self.port, f"{TOKEN}-{analyst}")

    def sql(self, query: str, args: tuple = ()) -> list[tuple]:
        connection = sqlite3.connect(str(self.ledger), timeout=60)
        try:
            return connection.execute(query, args).fetchall()
        finally:
            connection.close()

    def stop(self) -> None:
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        self.log.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class Client:
    def __init__(self, port: int, token: str) -> None:
        import http.client

        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def call(self, method: str, path: str, body: object = None) -> tuple[int, dict]:
        self.connection.request(method, path, body=None if body is None else json.dumps(body), headers=self.headers)
        response = self.connection.getresponse()
        return response.status, json.loads(response.read())


# ------------------------------------------------------------------------------ the stream
def conjunctions(domain, count: int, seed: int) -> list[dict[str, int]]:
    """bench_online.conjunction_stream's queries, as the ``where`` objects a client sends."""
    rng = np.random.Generator(np.random.PCG64(seed))
    stream = []
    for _ in range(count):
        attributes = sorted(rng.choice(len(domain), size=int(rng.integers(1, 4)), replace=False))
        stream.append({domain.attributes[i]: int(rng.integers(0, domain.sizes[i])) for i in attributes})
    return stream


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


# ---------------------------------------------------------------------------- accuracy part
def run_accuracy(args: argparse.Namespace, adult) -> list[dict]:
    truth_distribution = adult.histogram() / adult.n
    runs = []
    for seed in range(args.seeds):
        stream = conjunctions(adult.domain, args.queries, seed)
        truth = np.array([evaluate_on_array(ProductQuery.conjunction(adult.domain, w), truth_distribution)
                          for w in stream])
        service = Service({"adult_warm": {"budget": {"epsilon": 1}, "analysts": {"bench": {}}},
                           "adult_book": {"budget": {"epsilon": 1}, "analysts": {"bench": {}}}}, ["bench"])
        try:
            client = service.client("bench")
            for mode, table, body in (
                    ("warm", "adult_warm", {"mode": "warm", "epsilon": 1, "max_queries": args.queries,
                                            "accuracy": args.accuracy}),
                    ("book", "adult_book", {"mode": "book", "epsilon": 1, "max_queries": args.queries})):
                started = time.perf_counter()
                status, opened = client.call("POST", f"/v1/tables/{table}/sessions", body)
                open_seconds = time.perf_counter() - started
                if status != 201:
                    raise SystemExit(f"opening the {mode} session failed: {status} {opened}")
                path = f"/v1/tables/{table}/sessions/{opened['session']}/queries"
                values, sources, reasons = [], {}, {}
                started = time.perf_counter()
                for i, where in enumerate(stream):
                    status, reply = client.call("POST", path, {"request_id": f"q{i}", "where": where})
                    answer = reply["answers"][0] if status == 200 else {"refused": True, "reason": reply["error"]}
                    if "value" in answer:
                        values.append((i, answer["value"]))
                        sources[answer["source"]] = sources.get(answer["source"], 0) + 1
                    else:  # refused with a reason
                        reasons[answer["reason"]] = reasons.get(answer["reason"], 0) + 1
                seconds = time.perf_counter() - started
                index = np.array([i for i, _ in values], dtype=int)
                error = np.abs(np.array([v for _, v in values]) - truth[index])
                plan = opened["plan"]
                run = {"seed": seed, "mode": mode, "answered": len(values), "refused": sum(reasons.values()),
                       "refusal_reasons": reasons, "sources": sources, "mean_error": float(error.mean()),
                       "max_error": float(error.max()), "open_seconds": open_seconds, "seconds": seconds,
                       "qps": len(stream) / seconds, "cutoff": plan["cutoff"], "threshold": plan["threshold"],
                       "promised": plan["promised_accuracy"], "vacuous": bool(opened.get("warning")),
                       "updates": reply.get("updates_used"), "spent": opened["privacy_ledger"]["spent"]["epsilon_exact"],
                       "table_spent": service.sql("SELECT spent_epsilon FROM budgets WHERE table_name = ?",
                                                  (table,))[0][0]}
                runs.append(run)
                print(f"seed {seed} {mode}: mean {run['mean_error']:.4f} max {run['max_error']:.4f} answered "
                      f"{run['answered']} refused {run['refused']} ({run['qps']:.0f} q/s, opened in "
                      f"{open_seconds:.1f} s; c={run['cutoff']}, T={run['threshold']:.4f})", flush=True)
        finally:
            service.stop()
    return runs


# -------------------------------------------------------------------------------- load part
def run_load(args: argparse.Namespace, adult) -> dict:
    sessions = args.load_sessions
    analysts = [f"a{i}" for i in range(sessions)] + ["extra"]
    grants = {f"a{i}": {"epsilon": 1} for i in range(sessions)} | {"extra": {}}
    service = Service({"adult": {"budget": {"epsilon": sessions + 1}, "analysts": grants}}, analysts)
    load_before = os.getloadavg()
    try:
        per_session = args.load_queries // sessions
        opened, started = [], time.perf_counter()
        for i in range(sessions):
            status, reply = service.client(f"a{i}").call("POST", "/v1/tables/adult/sessions", {
                "mode": "warm", "epsilon": 1, "max_queries": per_session, "accuracy": args.accuracy})
            if status != 201:
                raise SystemExit(f"opening session {i} failed: {status} {reply}")
            opened.append(reply["session"])
        open_seconds = time.perf_counter() - started
        print(f"load: opened {sessions} warm sessions in {open_seconds:.1f} s", flush=True)
        latencies: list[float] = []
        statuses: dict[int, int] = {}
        lock = threading.Lock()
        per_client = args.load_queries // args.clients
        go = threading.Barrier(args.clients + 4 + 1)

        def client(c: int) -> None:
            session = c % sessions
            connection = service.client(f"a{session}")
            stream = conjunctions(adult.domain, per_client, 1000 + c)
            mine, codes = [], {}
            go.wait()
            for j, where in enumerate(stream):
                t = time.perf_counter()
                status, _ = connection.call("POST", f"/v1/tables/adult/sessions/{opened[session]}/queries",
                                            {"request_id": f"c{c}-{j}", "where": where})
                mine.append(time.perf_counter() - t)
                codes[status] = codes.get(status, 0) + 1
            with lock:
                latencies.extend(mine)
                for k, v in codes.items():
                    statuses[k] = statuses.get(k, 0) + v

        extra_outcomes: dict[int, int] = {}

        def overspender(k: int) -> None:
            connection = service.client("extra")
            go.wait()
            for j in range(40):
                status, _ = connection.call("POST", "/v1/tables/adult/sessions", {
                    "request_id": f"x{k}-{j}", "mode": "book", "epsilon": 0.25, "alpha": 1})
                with lock:
                    extra_outcomes[status] = extra_outcomes.get(status, 0) + 1

        threads = [threading.Thread(target=client, args=(c,)) for c in range(args.clients)]
        threads += [threading.Thread(target=overspender, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        go.wait()
        started = time.perf_counter()
        for t in threads:
            t.join()
        seconds = time.perf_counter() - started
        load_after = os.getloadavg()
        charges = service.sql("SELECT epsilon FROM requests WHERE table_name = 'adult'")
        spent = Fraction(service.sql("SELECT spent_epsilon FROM budgets WHERE table_name = 'adult'")[0][0])
        charged = sum((Fraction(e) for (e,) in charges), Fraction(0))
        done = service.sql("SELECT COUNT(*), COUNT(DISTINCT request_id) FROM requests WHERE kind = 'query' AND "
                           "status = 'done'")[0]
        counted = {}
        for i, session in enumerate(opened):
            status, state = service.client(f"a{i}").call("GET", f"/v1/tables/adult/sessions/{session}")
            counted[session] = state["queries_seen"]
        expected = {s: sum(per_client for c in range(args.clients) if c % sessions == i) for i, s in enumerate(opened)}
        result = {"clients": args.clients, "sessions": sessions, "queries": len(latencies), "seconds": seconds,
                  "qps": len(latencies) / seconds, "p50_ms": 1000 * percentile(latencies, 0.5),
                  "p99_ms": 1000 * percentile(latencies, 0.99), "max_ms": 1000 * max(latencies),
                  "mean_ms": 1000 * statistics.fmean(latencies), "statuses": statuses,
                  "extra_session_attempts": extra_outcomes, "budget": sessions + 1, "spent": str(spent),
                  "sum_of_charges": str(charged), "overspend": str(max(Fraction(0), spent - (sessions + 1))),
                  "query_records_done": done[0], "distinct_request_ids": done[1],
                  "sessions_counted_their_queries": counted == expected, "open_seconds": open_seconds,
                  "server_start_seconds": service.start_seconds, "load_average_before": load_before,
                  "load_average_after": load_after}
        result["zero_overspend"] = (spent == charged <= sessions + 1 and extra_outcomes.get(201, 0) == 4
                                    and done[0] == done[1] == len(latencies) and result["sessions_counted_their_queries"])
        print(f"load: {len(latencies)} queries by {args.clients} clients in {seconds:.1f} s = {result['qps']:.0f} q/s, "
              f"p50 {result['p50_ms']:.1f} ms, p99 {result['p99_ms']:.1f} ms; statuses {statuses}; extra sessions "
              f"{extra_outcomes}; spent {spent} of {sessions + 1} (sum of charges {charged}); zero overspend: "
              f"{result['zero_overspend']}", flush=True)
        return result
    finally:
        service.stop()


# ---------------------------------------------------------------------------------- report
def summarize(runs: list[dict], mode: str) -> dict:
    mine = [r for r in runs if r["mode"] == mode]
    out = {}
    for key in ("mean_error", "max_error", "answered", "refused", "qps", "open_seconds"):
        values = [r[key] for r in mine]
        out[key] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
    return out


def markdown(report: dict) -> str:
    m = report["machine"]
    lines = ["# The query service: online answers through `dprelease serve`, and a load test", "",
             provenance.provenance_line("bench_service.py", m, report["code"], report["total_seconds"]),
             f"The machine is shared with other agents: 1-minute load average {m['loadavg_at_start'][0]:.2f} at the "
             "start; the clients run on the same cores as the server.", ""]
    if report.get("accuracy"):
        a = report["accuracy_parameters"]
        lines += [f"## Accuracy: Adult, 7 columns, epsilon = 1, {a['queries']:,} random conjunctions (1-3 attributes)",
                  "", f"Seeds 0..{a['seeds'] - 1} (one stream each, the same as `bench_online.py`'s), asked one at a "
                  "time over HTTP in one session per mode. Errors are |answer - truth| over the answered queries; "
                  "medians over seeds, [min, max].", "",
                  "| mode | mean abs error | max abs error | answered | refused | promise | q/s | session opened in |",
                  "|---|---|---|---|---|---|---|---|"]
        for mode, label in (("warm", f"warm (MWEM 1-3way on eps/2, then NumericSparse; accuracy {a['accuracy']:g})"),
                            ("book", "book (Algorithm 6, Thm 4.14)")):
            s = report["accuracy_summary"][mode]
            run = next(r for r in report["accuracy"] if r["mode"] == mode)
            cell = lambda k, f: f"{s[k]['median']:{f}} [{s[k]['min']:{f}}, {s[k]['max']:{f}}]"  # noqa: E731
            promise = (f"each answer within {run['promised']:g} w.p. 0.95" if mode == "warm"
                       else f"3 alpha = {run['promised']:.3f}{' (vacuous)' if run['vacuous'] else ''}")
            lines.append(f"| {label} | {cell('mean_error', '.4f')} | {cell('max_error', '.4f')} | "
                         f"{cell('answered', '.0f')} | {cell('refused', '.0f')} | {promise} | {cell('qps', '.0f')} | "
                         f"{cell('open_seconds', '.1f')} s |")
        reasons = {}
        for r in report["accuracy"]:
            for reason, count in r["refusal_reasons"].items():
                reasons[reason] = reasons.get(reason, 0) + count
        lines += ["", "Refusals: " + ("none: every query was answered." if not reasons else
                                       "; ".join(f"{c} x \"{r}\"" for r, c in reasons.items())), ""]
        target = report["accuracy_summary"]["warm"]
        lines += [f"Issue 16's target (warm mode): mean <= 0.01 and max <= 0.1 in every run: "
                  f"{'met' if target['mean_error']['max'] <= 0.01 and target['max_error']['max'] <= 0.1 else 'NOT met'} "
                  f"(worst run: mean {target['mean_error']['max']:.4f}, max {target['max_error']['max']:.4f}).", ""]
    if report.get("load"):
        ld = report["load"]
        lines += [f"## Load: {ld['clients']} concurrent clients on 127.0.0.1, {ld['queries']:,} queries", "",
                  f"{ld['sessions']} warm sessions (one analyst each, opened first in {ld['open_seconds']:.0f} s), "
                  f"{ld['clients'] // ld['sessions']} clients per session, one keep-alive connection per client, a "
                  "request id on every request. Meanwhile 4 threads of another analyst try 160 times to open sessions "
                  "of epsilon 1/4 with 1 epsilon left. Load average "
                  f"{ld['load_average_before'][0]:.2f} before, {ld['load_average_after'][0]:.2f} after.", "",
                  "| queries | seconds | queries/s | p50 latency | p99 latency | max latency | statuses |",
                  "|---|---|---|---|---|---|---|",
                  f"| {ld['queries']:,} | {ld['seconds']:.1f} | {ld['qps']:.0f} | {ld['p50_ms']:.1f} ms | "
                  f"{ld['p99_ms']:.1f} ms | {ld['max_ms']:.0f} ms | {ld['statuses']} |", "",
                  f"Overspend: the table's spent epsilon is {ld['spent']} of {ld['budget']}, exactly the sum of its "
                  f"charges ({ld['sum_of_charges']}); extra session attempts {ld['extra_session_attempts']} (exactly 4 "
                  f"fit); {ld['query_records_done']:,} query records done for {ld['distinct_request_ids']:,} request ids; "
                  f"every session counted exactly its queries: {ld['sessions_counted_their_queries']}. **Zero "
                  f"overspend: {ld['zero_overspend']}.**", "",
                  "One session answers its queries one at a time (the sparse vector is sequential), and each answer "
                  "is committed (fsync) before it is sent; sessions run concurrently and their commits are grouped "
                  "into shared transactions, so throughput grows with the number of sessions.", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--queries", type=int, default=2000)
    parser.add_argument("--accuracy", type=float, default=0.05)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--load-queries", type=int, default=20_000)
    parser.add_argument("--load-sessions", type=int, default=10)
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--skip-load", action="store_true")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--markdown-only", action="store_true", help="rewrite OUT/service.md from OUT/service.json")
    args = parser.parse_args()
    if args.markdown_only:
        (args.out / "service.md").write_text(markdown(json.loads((args.out / "service.json").read_text())))
        return 0
    started = time.perf_counter()
    report = {"machine": provenance.machine_info(), "code": provenance.code_info()}
    adult = load_adult(ADULT_SMALL_COLUMNS)
    if not args.skip_accuracy:
        report["accuracy_parameters"] = {"seeds": args.seeds, "queries": args.queries, "accuracy": args.accuracy,
                                         "epsilon": 1}
        report["accuracy"] = run_accuracy(args, adult)
        report["accuracy_summary"] = {mode: summarize(report["accuracy"], mode) for mode in ("warm", "book")}
        report["load_average_after_accuracy"] = os.getloadavg()
    if not args.skip_load:
        report["load"] = run_load(args, adult)
    report["total_seconds"] = time.perf_counter() - started
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "service.json").write_text(json.dumps(report, indent=1, default=str) + "\n")
    (args.out / "service.md").write_text(markdown(report))
    print(f"wrote {args.out / 'service.json'} and {args.out / 'service.md'}")
    ok = report.get("load", {}).get("zero_overspend", True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
