"""The ledger's SQLite file: WAL mode, synchronous=FULL, and one writer thread that commits in groups.

Every write of a process goes through one :class:`Writer`: a thread with its own connection that
takes the queued operations, runs each inside ``BEGIN IMMEDIATE ... COMMIT`` (each under its own
savepoint, so one refused operation does not undo the others) and wakes their callers only after
the COMMIT returned. With ``synchronous=FULL`` in WAL mode SQLite fsyncs the write-ahead log before
COMMIT returns, so an operation that returned is on disk; one that did not return may or may not be,
and its caller has released nothing. Grouping the operations of concurrent requests into one
transaction (group commit) pays one fsync for many of them.

Several processes may open the same file: ``BEGIN IMMEDIATE`` takes SQLite's write lock, so their
transactions are serialized, and every check made inside an operation (a budget, a version) sees
the latest committed state.

A failed COMMIT (disk full, I/O error) leaves the writer *broken*: every pending and later operation
raises :class:`LedgerUnavailable`, so nothing more is answered until the process restarts from what
is on disk. (Fail-stop: an in-memory state that ran ahead of the disk is never used again.)
"""

from __future__ import annotations

import queue
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from dprelease.errors import DPReleaseError

T = TypeVar("T")

#: Most operations committed in one transaction.
MAX_BATCH = 256
#: How long a connection waits for another process's write lock before it gives up (milliseconds).
BUSY_TIMEOUT_MS = 60_000


class LedgerUnavailable(DPReleaseError):
    """The ledger could not commit; nothing that depended on it was released."""


def connect(path: str | Path) -> sqlite3.Connection:
    """A connection in autocommit mode (transactions are explicit), WAL journal, synchronous=FULL."""
    connection = sqlite3.connect(str(path), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000,
                                 check_same_thread=False)
    connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    for _ in range(100):  # switching to WAL needs a moment without other connections' locks
        try:
            mode = connection.execute("PRAGMA journal_mode=WAL").fetchone()[0]
            break
        except sqlite3.OperationalError:
            time.sleep(0.05)
    else:  # pragma: no cover - a file locked for 5 s by another process
        raise LedgerUnavailable(f"ledger {str(path)!r} could not be switched to WAL mode (locked)")
    if str(mode).lower() != "wal":
        raise LedgerUnavailable(f"ledger {str(path)!r} cannot use WAL mode (journal_mode is {mode!r}); "
                                "put it on a local file system")
    connection.execute("PRAGMA synchronous=FULL")
    connection.execute("PRAGMA foreign_keys=ON")
    return connection


class _Job:
    __slots__ = ("operation", "result", "error", "done")

    def __init__(self, operation: Callable[[sqlite3.Connection], object]) -> None:
        self.operation = operation
        self.result: object = None
        self.error: BaseException | None = None
        self.done = threading.Event()


class Writer:
    """One connection and one thread through which every write of this process is committed."""

    def __init__(self, path: str | Path, *, max_batch: int = MAX_BATCH) -> None:
        self.path = str(path)
        self._connection = connect(path)
        self._queue: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self._max_batch = max_batch
        self._broken: BaseException | None = None
        self.commits = 0  # transactions committed (each one fsync of the log): for benchmarks
        self._thread = threading.Thread(target=self._loop, name="dprelease-ledger-writer", daemon=True)
        self._thread.start()

    @property
    def broken(self) -> bool:
        return self._broken is not None

    def run(self, operation: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``operation(connection)`` in a write transaction; return its result once it is committed.

        An exception raised by ``operation`` undoes what it wrote (its savepoint) and is raised here;
        the other operations of the same transaction are not affected.
        """
        return self.submit(operation)()

    def submit(self, operation: Callable[[sqlite3.Connection], T]) -> Callable[[], T]:
        """Queue ``operation``; the returned function waits until it is committed and returns its result.

        Operations run in the order they were submitted, so an operation submitted after another one
        sees what the other wrote (or, if the other failed, does not).
        """
        if self._broken is not None:
            raise LedgerUnavailable(f"the ledger could not commit earlier ({self._broken}); restart the service")
        job = _Job(operation)
        self._queue.put(job)

        def wait() -> T:
            job.done.wait()
            if job.error is not None:
                raise job.error
            return job.result  # type: ignore[return-value]

        return wait

    def close(self) -> None:
        self._queue.put(None)
        self._thread.join(timeout=30)
        self._connection.close()

    def _loop(self) -> None:
        while True:
            job = self._queue.get()
            if job is None:
                return
            batch = [job]
            while len(batch) < self._max_batch:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)  # close after this batch
                    break
                batch.append(more)
            self._commit(batch)

    def _commit(self, batch: list[_Job]) -> None:
        if self._broken is not None:
            self._fail(batch, LedgerUnavailable(f"the ledger could not commit earlier ({self._broken})"))
            return
        connection = self._connection
        try:
            connection.execute("BEGIN IMMEDIATE")
        except sqlite3.Error as exc:  # another process held the write lock past the busy timeout
            self._fail(batch, LedgerUnavailable(f"the ledger is busy: {exc}"))
            return
        for job in batch:
            connection.execute("SAVEPOINT job")
            try:
                job.result = job.operation(connection)
                connection.execute("RELEASE job")
            except BaseException as exc:  # noqa: BLE001 - handed to the caller, whatever it is
                connection.execute("ROLLBACK TO job")
                connection.execute("RELEASE job")
                job.error = exc
        try:
            connection.execute("COMMIT")
        except sqlite3.Error as exc:
            self._broken = exc
            try:
                connection.execute("ROLLBACK")
            except sqlite3.Error:
                pass
            self._fail(batch, LedgerUnavailable(f"the ledger could not commit: {exc}"))
            return
        self.commits += 1
        for job in batch:
            job.done.set()

    @staticmethod
    def _fail(batch: list[_Job], error: BaseException) -> None:
        for job in batch:
            job.error = error
            job.done.set()


class Readers:
    """One read connection per thread; a read sees the latest committed state (WAL: readers never block)."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()

    def connection(self) -> sqlite3.Connection:
        connection = getattr(self._local, "connection", None)
        if connection is None:
            connection = connect(self.path)
            self._local.connection = connection
            with self._lock:
                self._all.append(connection)
        return connection

    def snapshot(self, read: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``read`` on one consistent snapshot of the file."""
        connection = self.connection()
        connection.execute("BEGIN")
        try:
            return read(connection)
        finally:
            connection.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            for connection in self._all:
                connection.close()
            self._all.clear()
