#!/usr/bin/env python
"""A terminal run of full Adult, captured: is the screen ever still for more than 2 s? (issue 14, item 4)

    .venv/bin/python benchmarks/capture_progress.py [--work DIR] [--out benchmarks/results] [-- EXTRA SYNTH ARGS]

Runs the README's full-Adult command as a user would type it, in a terminal:

    dprelease synth adult.csv --domain adult-domain.json --workload 3way --epsilon 1 --delta 1e-9 \\
        --out DIR/synth.csv --release DIR/release.json

inside tmux (a real terminal emulator, 120 x 40, on a private tmux socket), under util-linux
``script --log-timing``, which records every chunk the program writes to the terminal with the time
since the previous one. The chunks are replayed through a small terminal model (carriage return, line
feed, erase-to-end-of-line) to find the moments the *screen* changed; the largest interval between two
changes (and from the launch to the first one) is the longest the user saw nothing move. tmux's own
view of the final screen is kept beside the replayed one (they must agree).

Writes OUT/progress_capture.json (every change's time) and OUT/progress_capture.md. The 1-minute load
average is recorded before and after (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import provenance  # noqa: E402

ADULT = HERE.parent / "src" / "dprelease" / "datasets" / "adult"
LIMIT_SECONDS = 2.0  # issue 14: never silent for more than 2 s on a terminal
SOCKET = "dprelease-capture"


def dprelease_command() -> list[str]:
    script = Path(sys.executable).parent / "dprelease"
    return [str(script)] if script.exists() else [sys.executable, "-m", "dprelease.cli"]


class Screen:
    """Enough of a terminal to tell when the picture changes: lines, a cursor column, \\r, \\n, ESC [ K."""

    def __init__(self) -> None:
        self.lines: list[str] = [""]
        self.column = 0
        self._escape = ""

    def feed(self, text: str) -> None:
        for char in text:
            if self._escape:
                self._escape += char
                if char.isalpha():
                    if self._escape == "\x1b[K":
                        self.lines[-1] = self.lines[-1][:self.column]
                    self._escape = ""
                continue
            if char == "\x1b":
                self._escape = char
            elif char == "\r":
                self.column = 0
            elif char == "\n":
                self.lines.append("")
                self.column = 0
            else:
                line = self.lines[-1]
                self.lines[-1] = line[:self.column] + char + line[self.column + 1:]
                self.column += 1

    def picture(self) -> str:
        return "\n".join(self.lines)


def replay(log: bytes, timing: str) -> tuple[list[float], Screen]:
    """The times (s after launch) at which the screen changed, and the final screen."""
    body = log.split(b"\n", 1)[1] if log.startswith(b"Script started") else log  # drop script's header line
    screen, changes, clock, offset = Screen(), [], 0.0, 0
    for row in timing.split("\n"):
        if not row.strip():
            continue
        delay, size = row.split()
        clock += float(delay)
        chunk = body[offset:offset + int(size)]
        offset += int(size)
        before = screen.picture()
        screen.feed(chunk.decode("utf-8", errors="replace"))
        if screen.picture() != before:
            changes.append(clock)
    return changes, screen


def tmux(*argv: str, check: bool = True) -> subprocess.CompletedProcess:
    return subprocess.run(["tmux", "-L", SOCKET, *argv], capture_output=True, text=True, check=check)


def capture(command: list[str], work: Path) -> dict[str, object]:
    log, timing = work / "terminal.log", work / "terminal.timing"
    inner = f"script -q --log-timing {shlex.quote(str(timing))} -c {shlex.quote(shlex.join(command))} " \
            f"{shlex.quote(str(log))}"
    shell = f"cd {shlex.quote(str(work))} && {inner}; tmux -L {SOCKET} wait-for -S finished; sleep 600"
    tmux("kill-server", check=False)
    start = time.perf_counter()
    tmux("new-session", "-d", "-s", "capture", "-x", "120", "-y", "40", shell)
    tmux("wait-for", "finished")
    wall = time.perf_counter() - start
    pane = tmux("capture-pane", "-p", "-t", "capture").stdout
    tmux("kill-server", check=False)
    changes, screen = replay(log.read_bytes(), timing.read_text())
    gaps = [b - a for a, b in zip([0.0, *changes], changes)]
    worst = max(range(len(gaps)), key=gaps.__getitem__)
    return {"wall_seconds": wall, "changes": changes, "gaps": gaps, "largest_gap": gaps[worst],
            "largest_gap_ends_at": changes[worst], "first_change": changes[0], "last_change": changes[-1],
            "screen": [line for line in screen.lines if line.strip()],
            "tmux_pane": [line.rstrip() for line in pane.splitlines() if line.strip()]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--work", type=Path, default=None, help="folder for the outputs (default: a temporary one)")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--render-only", action="store_true", help="rewrite the markdown from the JSON")
    parser.add_argument("extra", nargs="*", help="more synth arguments (after --)")
    args = parser.parse_args()
    if args.render_only:
        result = json.loads((args.out / "progress_capture.json").read_text())
        (args.out / "progress_capture.md").write_text(markdown(result))
        return
    if shutil.which("tmux") is None or shutil.which("script") is None:
        raise SystemExit("needs tmux and util-linux script")
    work = (args.work or Path(tempfile.mkdtemp(prefix="dprelease-capture-"))).resolve()
    work.mkdir(parents=True, exist_ok=True)
    command = [*dprelease_command(), "synth", str(ADULT / "adult.csv"), "--domain", str(ADULT / "adult-domain.json"),
               "--workload", "3way", "--epsilon", "1", "--delta", "1e-9", "--out", str(work / "synth.csv"),
               "--release", str(work / "release.json"), *args.extra]
    machine, code = provenance.machine_info(), provenance.code_info()
    load_before = os.getloadavg()[0]
    result = capture(command, work)
    shown = shlex.join(["dprelease", *command[len(dprelease_command()):]])
    result["screen"] = [line.replace(str(work) + "/", "DIR/") for line in result["screen"]]
    result["tmux_pane"] = [line.replace(str(work) + "/", "DIR/") for line in result["tmux_pane"]]
    result.update({"command": shown.replace(str(ADULT) + "/", "").replace(str(work) + "/", "DIR/"),
                   "load_before": load_before, "load_after": os.getloadavg()[0], "machine": machine, "code": code,
                   "limit_seconds": LIMIT_SECONDS})
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "progress_capture.json").write_text(json.dumps(result, indent=1) + "\n")
    (args.out / "progress_capture.md").write_text(markdown(result))
    print((args.out / "progress_capture.md").read_text())


def markdown(r: dict) -> str:
    ok = "yes" if r["largest_gap"] <= r["limit_seconds"] else "**no**"
    over_1s = sum(1 for g in r["gaps"] if g > 1.0)
    lines = [
        "# A terminal run of full Adult: the longest the screen stood still", "",
        provenance.provenance_line("capture_progress.py", r["machine"], r["code"], r["wall_seconds"]), "",
        f"`{r['command']}` (no seed: a user's run), in tmux (120 x 40) under `script --log-timing`; every chunk "
        "written to the terminal replayed to find when the screen changed. 1-minute load average "
        f"{r['load_before']:.2f} before, {r['load_after']:.2f} after (a shared 2-core machine).", "",
        "| measure | value |", "|---|---:|",
        f"| whole run, launch to exit (s) | {r['wall_seconds']:.1f} |",
        f"| screen changes | {len(r['changes']):,} |",
        f"| launch to first output (s) | {r['first_change']:.2f} |",
        f"| **largest interval without a change (s)** (limit {r['limit_seconds']:g}) | "
        f"**{r['largest_gap']:.2f}** ({ok}), ending at {r['largest_gap_ends_at']:.1f} s |",
        f"| intervals over 1 s | {over_1s} |", "",
        "The final screen (stderr's progress lines, then the two lines on stdout), as replayed:", "",
        "```", *r["screen"], "```", "",
        "tmux's own capture of the pane (where it wraps lines at 120 columns) agrees with the replay: "
        + ("yes" if "".join("".join(r["tmux_pane"]).split()).endswith("".join("".join(r["screen"]).split()))
           else "no (see progress_capture.json)") + ".",
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
