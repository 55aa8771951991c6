"""Helpers for the service tests: a real ``dprelease serve`` process, a small HTTP client, the ledger file.

Every test that needs the server starts the real command (``.venv/bin/dprelease serve``) on
127.0.0.1 with an ephemeral port; nothing is mocked. The test hooks of
:mod:`dprelease.service.faults` are enabled through environment variables only.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np

from dprelease.service.faults import FAULTS_ENV, MARKS_ENV, READ_LOG_ENV

TOKENS = {"alice": "alice-secret-token", "bob": "bob-secret-token", "carol": "carol-secret-token"}


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def write_table(folder: Path, name: str, n: int, seed: int) -> tuple[str, str]:
    """A small skewed table over a = 3, b = 4, c = 2 values (n rows), as CSV + domain JSON."""
    rng = np.random.Generator(np.random.PCG64(seed))
    rows = rng.integers(0, [3, 4, 2], size=(n, 3))
    rows[: n // 2, 0] = 0
    rows[: n // 3, 1] = 2
    data, domain = folder / f"{name}.csv", folder / f"{name}-domain.json"
    data.write_text("a,b,c\n" + "".join(f"{r[0]},{r[1]},{r[2]}\n" for r in rows))
    domain.write_text(json.dumps({"a": 3, "b": 4, "c": 2}))
    return data.name, domain.name


def write_config(folder: Path, tables: dict[str, dict], **extra: object) -> Path:
    """A configuration: ``tables`` maps a name to {"n", "seed", "budget", "analysts"}."""
    entries = {}
    for name, spec in tables.items():
        data, domain = write_table(folder, name, spec.get("n", 4000), spec.get("seed", 0))
        entries[name] = {"data": data, "domain": domain, "budget": spec["budget"], "analysts": spec["analysts"]}
    config = {"ledger": "ledger.sqlite", "analysts": {a: {"token_sha256": token_hash(t)} for a, t in TOKENS.items()},
              "tables": entries, **extra}
    path = folder / "config.json"
    path.write_text(json.dumps(config, indent=1))
    return path


@dataclass
class Server:
    process: subprocess.Popen
    port: int
    log: Path

    def client(self, analyst: str | None = "alice") -> Client:
        return Client(self.port, None if analyst is None else TOKENS[analyst])

    def kill9(self) -> None:
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill9()


def start_server(config: Path, *, faults: list[str] | None = None, read_log: Path | None = None,
                 quiet: bool = True) -> Server:
    """Start ``dprelease serve CONFIG --port 0 [--quiet]`` and wait for its "listening" line."""
    env = {k: v for k, v in os.environ.items() if k not in (FAULTS_ENV, MARKS_ENV, READ_LOG_ENV)}
    if faults:
        env[FAULTS_ENV] = ",".join(faults)
        env[MARKS_ENV] = str(config.parent / "fault-marks.txt")
    if read_log is not None:
        env[READ_LOG_ENV] = str(read_log)
    log = config.parent / "server.log"
    exe = Path(sys.executable).parent / "dprelease"
    with log.open("a") as stderr:
        process = subprocess.Popen([str(exe), "serve", str(config), "--port", "0", *(["--quiet"] if quiet else [])], stdout=subprocess.PIPE,
                                   stderr=stderr, text=True, env=env)
    line = process.stdout.readline()
    if not line.startswith("dprelease serve: listening on http://127.0.0.1:"):
        process.kill()
        raise AssertionError(f"the server did not start: {line!r}; log: {log.read_text()[-2000:]}")
    port = int(line.split("http://127.0.0.1:")[1].split()[0])
    return Server(process, port, log)


class Client:
    """One keep-alive connection; ``call`` returns (status, decoded JSON or text)."""

    def __init__(self, port: int, token: str | None, timeout: float = 120) -> None:
        self.port, self.token, self.timeout = port, token, timeout
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)

    def call(self, method: str, path: str, body: object = None, *, raw: bytes | None = None,
             headers: dict[str, str] | None = None) -> tuple[int, object]:
        sent = {} if self.token is None else {"Authorization": f"Bearer {self.token}"}
        sent.update(headers or {})
        payload = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        if payload is not None:
            sent.setdefault("Content-Type", "application/json")
        try:
            self.connection.request(method, path, body=payload, headers=sent)
            response = self.connection.getresponse()
            data = response.read()
        except (ConnectionError, http.client.HTTPException, OSError):
            self.connection.close()
            raise
        if response.getheader("Connection", "").lower() == "close":
            self.connection.close()
        text = data.decode()
        try:
            return response.status, json.loads(text)
        except json.JSONDecodeError:
            return response.status, text

    def close(self) -> None:
        self.connection.close()


def ledger_rows(path: Path, sql: str, args: tuple = ()) -> list[tuple]:
    connection = sqlite3.connect(str(path), timeout=30)
    try:
        return connection.execute(sql, args).fetchall()
    finally:
        connection.close()


def spent(path: Path, table: str) -> Fraction:
    (row,) = ledger_rows(path, "SELECT spent_epsilon FROM budgets WHERE table_name = ?", (table,))
    return Fraction(row[0])


def charges_sum(path: Path, table: str) -> Fraction:
    return sum((Fraction(e) for (e,) in ledger_rows(path, "SELECT epsilon FROM requests WHERE table_name = ?",
                                                       (table,))), Fraction(0))


def wait_for(predicate, timeout: float = 60.0, what: str = "a condition") -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)
