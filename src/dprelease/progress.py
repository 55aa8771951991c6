"""Progress over a whole run: named phases, the steps inside them, and a line that never looks frozen.

A run reports *phases* (``"rounds"``, ``"final fit"``, ``"answers"``, ``"rows (fitted)"``, ``"write
files"`` ...) and *steps* inside the current phase (``step(done, total)``). A :class:`Progress` hands
each event to a callback ``callback(phase, step, total)`` when it has one, and draws it on a terminal
when it is enabled: one line per phase, redrawn in place, left on screen when the next phase starts::

    mwem:      rounds             [##############################] 40/40          24.9 s
    mwem:      final fit          [##########....................] 104/300         6.1 s

On a terminal a background thread redraws the current line every :data:`TICK` seconds (its elapsed
time moves), so a phase without steps, or a single long step, never leaves the screen still for
more than a second (docs/progress.md). :meth:`Progress.for_terminal` is enabled only when stderr is a terminal: logs and
pipes stay quiet. No dependency (tqdm would be one for ~150 lines; docs/decisions.md).

>>> events = []
>>> progress = Progress.from_argument(lambda phase, step, total: events.append((phase, step, total)))
>>> progress.phase("final fit", total=2); progress.step(1, 2); progress.step(2, 2); progress.close()
>>> events
[('final fit', 0, 2), ('final fit', 1, 2), ('final fit', 2, 2)]
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import TextIO

from dprelease.errors import InputTypeError

#: A progress callback: ``callback(phase, step, total)``; ``total`` is None when the phase has no count.
ProgressCallback = Callable[[str, int, "int | None"], None]

#: Seconds between redraws of the current line on a terminal (its elapsed time changes each time).
TICK = 0.5
#: Least seconds between two redraws caused by steps (a fit can take hundreds of steps a second).
MIN_REDRAW = 0.05
#: Seconds without a phase (after one ended, before the next began) before the line says so.
IDLE = 1.0
_BAR = 30
_SPINNER = "|/-\\"


class Progress:
    """Phases and steps of a run, for a callback and/or a line on a terminal stream.

    Args:
        label: the line's prefix (e.g. the mechanism's name).
        stream: where the line is drawn (default: stderr).
        enabled: draw on ``stream``; when false, only the callback (if any) hears the events.
        callback: ``callback(phase, step, total)``: at each phase's start (step 0) and at each step.
        tick: seconds between redraws by the background thread; None: no thread (redraws only on events).

    ``step`` with no phase started counts in the phase ``"rounds"`` (what a mechanism's loop reports);
    ``done`` ends the current phase's line; ``close`` ends the run (the line, and the thread).
    """

    def __init__(self, label: str = "", *, stream: TextIO | None = None, enabled: bool = True,
                 callback: ProgressCallback | None = None, tick: float | None = TICK) -> None:
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.callback = callback
        self.tick = tick
        self._lock = threading.RLock()
        self._phase: str | None = None
        self._done, self._total = 0, None
        self._started = self._idle_since = time.perf_counter()
        self._drawn_at = 0.0
        self._drawn = False
        self._spin = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ constructors
    @classmethod
    def silent(cls) -> Progress:
        """Hears nothing, draws nothing."""
        return cls("", enabled=False, tick=None)

    @classmethod
    def for_terminal(cls, label: str, *, quiet: bool = False) -> Progress:
        """A line on stderr, enabled only when stderr is a terminal and ``quiet`` is false."""
        return cls(label, enabled=not quiet and _is_terminal(sys.stderr))

    @classmethod
    def from_argument(cls, progress: object, label: str = "") -> Progress:
        """The ``progress=`` argument of the Python API as a :class:`Progress`.

        ``None`` or ``False``: silent; ``True``: a line on stderr when it is a terminal; a callable:
        ``progress(phase, step, total)`` at every event (nothing drawn); a :class:`Progress`: itself.
        """
        if progress is None or progress is False:
            return cls.silent()
        if progress is True:
            return cls.for_terminal(label)
        if isinstance(progress, Progress):
            return progress
        if callable(progress):
            return cls(label, enabled=False, callback=progress, tick=None)
        raise InputTypeError("progress must be True, False, None, a function (phase, step, total) or a "
                             f"dprelease Progress, got {type(progress).__name__}")

    # ------------------------------------------------------------------ events
    @property
    def current_phase(self) -> str | None:
        return self._phase

    def phase(self, name: str, total: int | None = None) -> None:
        """Begin phase ``name`` (with ``total`` steps, or None); the previous phase's line stays on screen."""
        with self._lock:
            if self._phase is not None:
                self._finish_line()
            self._phase, self._done, self._total = name, 0, total
            self._started = time.perf_counter()
            if self.enabled:
                self._draw()
                self._ensure_thread()
        if self.callback is not None:
            self.callback(name, 0, total)

    def step(self, done: int, total: int | None = None) -> None:
        """``done`` of ``total`` steps of the current phase (``total`` None: the phase's own, if any)."""
        if self._phase is None:
            self.phase("rounds", total)
            if done == 0:
                return
        with self._lock:
            self._done = done
            if total is not None:
                self._total = total
            if self.enabled and (time.perf_counter() - self._drawn_at >= MIN_REDRAW or done == self._total):
                self._draw()
        if self.callback is not None:
            self.callback(self._phase, done, self._total)

    def done(self) -> None:
        """End the current phase: its line stays on screen as drawn last, with its final step."""
        with self._lock:
            if self._phase is not None:
                self._finish_line()
            self._phase = None
            self._idle_since = time.perf_counter()

    def close(self) -> None:
        """End the run: finish the line and stop the redrawing thread. Safe to call twice."""
        self._stop_thread()
        self.done()
        self._erase()  # an idle line

    def abort(self) -> None:
        """End the run after a failure: stop the thread and erase the unfinished line (the error takes its place)."""
        self._stop_thread()
        with self._lock:
            self._phase = None
            self._erase()

    def _stop_thread(self) -> None:
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout=2 * (self.tick or 0) + 1)

    def _erase(self) -> None:
        with self._lock:
            if self.enabled and self._drawn:
                self._write("\r\x1b[K")
            self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ drawing
    def render(self, now: float | None = None, *, finished: bool = False) -> str:
        """The current line's text (without the carriage return); ``finished``: as left on screen."""
        elapsed = (now if now is not None else time.perf_counter()) - self._started
        prefix = f"{self.label + ':':<11}" if self.label else ""  # "dprelease:" and "mwem:" start lines alike
        if self._phase is None:
            idle = (now if now is not None else time.perf_counter()) - self._idle_since
            return f"{prefix}{'working':<18} {_SPINNER[self._spin % 4]:<4} {idle:7.1f} s"
        if self._total:
            filled = int(_BAR * min(self._done, self._total) / self._total)
            count = (f"{100 * self._done / self._total:3.0f}%" if self._total > 100_000
                     else f"{self._done}/{self._total}")
            return (f"{prefix}{self._phase:<18} [{'#' * filled}{'.' * (_BAR - filled)}] {count:<11} "
                    f"{elapsed:7.1f} s")
        mark = "done" if finished else _SPINNER[self._spin % 4]
        return f"{prefix}{self._phase:<18} {mark:<4} {elapsed:7.1f} s"

    def _draw(self, *, finished: bool = False) -> None:
        text = self.render(finished=finished)
        self._write("\r" + text + "\x1b[K")  # \x1b[K: clear what a longer earlier line left
        self._drawn_at = time.perf_counter()
        self._drawn = True

    def _finish_line(self) -> None:
        if self.enabled and self._drawn:
            self._draw(finished=True)
            self._write("\n")
            self._drawn = False

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # a closed terminal must not stop the run
            self.enabled = False

    def _ensure_thread(self) -> None:
        if self.tick is None or self._thread is not None or self._stop.is_set():
            return
        self._thread = threading.Thread(target=self._redraw_forever, name="dprelease-progress", daemon=True)
        self._thread.start()

    def _redraw_forever(self) -> None:
        while not self._stop.wait(self.tick):
            with self._lock:
                if not self.enabled:
                    return
                self._spin += 1
                if self._phase is not None or time.perf_counter() - self._idle_since >= IDLE:
                    self._draw()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
