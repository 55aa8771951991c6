"""Test hooks, enabled only by environment variables (never by the configuration file).

* ``DPRELEASE_SERVICE_TEST_FAULTS="step@request_id,..."``: when a request with that id reaches that
  step (``before_reserve``, ``after_reserve``, ``after_count``, ``after_answer``), the server appends
  ``step@request_id`` to the file named by ``DPRELEASE_SERVICE_TEST_FAULT_MARKS`` (fsynced) and stops
  that request there for good, so that a test can ``kill -9`` the process at exactly that step. Each
  fault fires once (a fault already in the marks file is skipped after a restart).
* ``DPRELEASE_SERVICE_TEST_READ_LOG=path``: every private read of a table (a marginal's counts) is
  appended to ``path`` as ``table<TAB>method<TAB>attributes``, so a test can check that a refused
  request read nothing (a tripwire).

Without these variables both hooks do nothing.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

FAULTS_ENV = "DPRELEASE_SERVICE_TEST_FAULTS"
MARKS_ENV = "DPRELEASE_SERVICE_TEST_FAULT_MARKS"
READ_LOG_ENV = "DPRELEASE_SERVICE_TEST_READ_LOG"
STEPS = ("before_reserve", "after_reserve", "after_count", "after_answer")

_lock = threading.Lock()


def fault_point(step: str, request_id: str) -> None:
    """Stop here for good if a test asked for a fault at ``step`` of ``request_id`` (see the module doc)."""
    spec = os.environ.get(FAULTS_ENV)
    if not spec:
        return
    key = f"{step}@{request_id}"
    if key not in spec.split(","):
        return
    marks = Path(os.environ[MARKS_ENV])
    with _lock:
        if marks.exists() and key in marks.read_text().split():
            return
        with marks.open("a") as stream:
            stream.write(key + "\n")
            stream.flush()
            os.fsync(stream.fileno())
    while True:  # the test kills the process now
        time.sleep(3600)


def read_log() -> Path | None:
    path = os.environ.get(READ_LOG_ENV)
    return Path(path) if path else None
