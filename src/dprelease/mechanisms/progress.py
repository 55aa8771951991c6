"""A progress bar for mechanism rounds on stderr (no dependency; off unless asked for)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """``step(done, total)`` redraws one line; ``done()`` ends it. Silent when disabled."""

    def __init__(self, label: str, *, stream: TextIO | None = None, enabled: bool = True) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self._start = time.perf_counter()
        self._drawn = False

    @classmethod
    def silent(cls) -> Progress:
        return cls("", enabled=False)

    @classmethod
    def for_terminal(cls, label: str, *, quiet: bool = False) -> Progress:
        """Enabled only when stderr is a terminal and ``quiet`` is false."""
        return cls(label, enabled=not quiet and sys.stderr.isatty())

    def step(self, done: int, total: int) -> None:
        if not self.enabled:
            return
        width = 30
        filled = int(width * done / max(total, 1))
        elapsed = time.perf_counter() - self._start
        self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {elapsed:5.1f}s")
        self.stream.flush()
        self._drawn = True

    def done(self) -> None:
        if self.enabled and self._drawn:
            self.stream.write("\n")
            self.stream.flush()
            self._drawn = False
