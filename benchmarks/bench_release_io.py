#!/usr/bin/env python
"""What writing a release costs: full Adult, all 3-way marginals, eps 1, delta 1e-9, with and without --release.

    .venv/bin/python benchmarks/bench_release_io.py [--runs 3] [--work DIR] [--out benchmarks/results] \
        [--screenshot docs/report-screenshot.png]

Runs the README's command as a user would, in a fresh process each time, under ``/usr/bin/time -v``:

    dprelease synth adult.csv --domain adult-domain.json --workload 3way --epsilon 1 --delta 1e-9 \
        --out DIR/synth.csv [--release DIR/release.json] --quiet --seed 0

``--seed 0`` makes every run do the same work: MWEM's run time depends on the marginals it selects
(the factored model grows with them), and unseeded runs measured 31 to 73 s of CPU each, which
drowned the cost of writing. The seed changes nothing in what is written or how.

``--runs`` times each way, interleaved (without, with, without, ...) so a change in the machine's load
falls on both. Measured: wall time and peak resident memory (medians, and the ratio with / without),
the sizes of the release JSON and of its side file, ``Release.load`` time, and ``dprelease report``
on the release (public, and with ``--data``: time and file size). The 1-minute load average is
recorded before every run (the machine is shared). With ``--screenshot``, headless Chromium draws the
top of the report with ``--data`` into a small PNG for the docs.

Writes OUT/release_io.json (every run) and OUT/release_io.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))
import provenance  # noqa: E402

from dprelease.release import Release  # noqa: E402

ADULT = HERE.parent / "src" / "dprelease" / "datasets" / "adult"
LIMIT_RATIO = 1.10  # issue 14: writing a release adds at most 10 % to time and peak memory
LIMIT_JSON_BYTES = 5 * 2**20


def dprelease_command() -> list[str]:
    script = Path(sys.executable).parent / "dprelease"
    return [str(script)] if script.exists() else [sys.executable, "-m", "dprelease.cli"]


def timed(argv: list[str]) -> dict[str, float]:
    """Run ``argv`` under /usr/bin/time -v: wall seconds, peak RSS (MiB), and the load average before."""
    load = os.getloadavg()[0]
    done = subprocess.run(["/usr/bin/time", "-v", *argv], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"command failed ({done.returncode}): {' '.join(argv)}\n{done.stderr[-3000:]}")
    fields = dict(line.strip().split(": ", 1) for line in done.stderr.splitlines() if ": " in line)
    wall = fields["Elapsed (wall clock) time (h:mm:ss or m:ss)"]
    seconds = sum(float(part) * 60**i for i, part in enumerate(reversed(wall.split(":"))))
    return {"seconds": seconds, "cpu_seconds": float(fields["User time (seconds)"]) + float(fields["System time (seconds)"]),
            "peak_rss_mib": int(fields["Maximum resident set size (kbytes)"]) / 1024, "loadavg_1min_before": load}


def synth_argv(work: Path, with_release: bool) -> list[str]:
    argv = [*dprelease_command(), "synth", str(ADULT / "adult.csv"), "--domain", str(ADULT / "adult-domain.json"),
            "--workload", "3way", "--epsilon", "1", "--delta", "1e-9", "--out", str(work / "synth.csv"), "--quiet",
            "--seed", "0"]
    return argv + (["--release", str(work / "release.json")] if with_release else [])


def save_alone(release: Release, work: Path, runs: int) -> dict[str, float]:
    """``Release.save`` (rows CSV, side file, JSON) on its own: median seconds, and the extra memory it allocates.

    Less exposed to the shared machine's load than the whole runs: the same work, a few seconds each.
    The memory is the peak traced by tracemalloc (numpy reports its buffers to it) above what the
    release already held.
    """
    seconds = []
    for i in range(runs):
        start = time.perf_counter()
        release.save(work / "again.csv", work / "again.json")
        seconds.append(time.perf_counter() - start)
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    release.save(work / "again.csv", work / "again.json")
    peak = tracemalloc.get_traced_memory()[1] - base
    tracemalloc.stop()
    return {"seconds": seconds, "seconds_median": statistics.median(seconds), "traced_peak_mib": peak / 2**20}


def screenshot(page: Path, target: Path, work: Path) -> dict[str, object]:
    """The top of ``page`` drawn by headless Chromium, reduced to a 64-colour PNG (small enough for the docs)."""
    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)),
                   None)
    if browser is None:
        return {"skipped": "no chromium binary"}
    raw = work / "shot.png"
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                    f"--user-data-dir={work / 'chromium-profile'}", "--window-size=1000,1500",
                    f"--screenshot={raw}", page.as_uri()], capture_output=True, check=True, timeout=120)
    from PIL import Image  # comes with matplotlib (the report extra)

    with Image.open(raw) as image:
        image.convert("RGB").quantize(colors=64).save(target, optimize=True)
    return {"path": str(target), "bytes": target.stat().st_size}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--work", type=Path, default=None, help="folder for the outputs (default: a temporary one)")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--screenshot", type=Path, default=None)
    parser.add_argument("--render-only", action="store_true", help="rewrite release_io.md from release_io.json")
    args = parser.parse_args()
    if args.render_only:
        payload = json.loads((args.out / "release_io.json").read_text())
        (args.out / "release_io.md").write_text(markdown(payload, len(payload["runs"]["with"])))
        return
    start = time.perf_counter()
    machine, code = provenance.machine_info(), provenance.code_info()
    work = args.work or Path(tempfile.mkdtemp(prefix="dprelease-release-io-"))
    work.mkdir(parents=True, exist_ok=True)

    runs: dict[str, list[dict]] = {"without": [], "with": []}
    for i in range(args.runs):
        for way in ("without", "with"):
            result = timed(synth_argv(work, way == "with"))
            runs[way].append(result)
            print(f"run {i + 1} {way:>7} --release: {result['seconds']:.1f} s, {result['peak_rss_mib']:.0f} MiB "
                  f"(load {result['loadavg_1min_before']:.2f})", flush=True)
    measures = ("seconds", "cpu_seconds", "peak_rss_mib")
    medians = {way: {k: statistics.median(r[k] for r in rs) for k in measures} for way, rs in runs.items()}
    ratios = {k: medians["with"][k] / medians["without"][k] for k in measures}

    document = json.loads((work / "release.json").read_text())
    sizes = {"json_bytes": (work / "release.json").stat().st_size,
             "side_file_bytes": (work / document["side_file"]["name"]).stat().st_size,
             "rows_csv_bytes": (work / "synth.csv").stat().st_size}
    load_start = time.perf_counter()
    release = Release.load(work / "release.json")
    load_seconds = time.perf_counter() - load_start
    cells = release.workload.num_queries
    save = save_alone(release, work, args.runs)
    print(f"Release.save alone: {save['seconds_median']:.2f} s, +{save['traced_peak_mib']:.0f} MiB traced", flush=True)

    reports = {}
    for name, extra in (("public", []), ("with --data", ["--data", str(ADULT / "adult.csv")])):
        page = work / f"report-{'data' if extra else 'public'}.html"
        result = timed([*dprelease_command(), "report", str(work / "release.json"), "--out", str(page), *extra])
        reports[name] = {**result, "bytes": page.stat().st_size}
        print(f"report ({name}): {result['seconds']:.1f} s, {page.stat().st_size / 1e3:.0f} kB", flush=True)
    shot = screenshot(work / "report-data.html", args.screenshot, work) if args.screenshot else None

    total = time.perf_counter() - start
    payload = {"machine": machine, "code": code, "runs": runs, "medians": medians, "ratios": ratios,
               "sizes": sizes, "cells": cells, "load_seconds": load_seconds, "save_alone": save, "reports": reports, "screenshot": shot,
               "limits": {"ratio": LIMIT_RATIO, "json_bytes": LIMIT_JSON_BYTES}, "total_seconds": total}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "release_io.json").write_text(json.dumps(payload, indent=1) + "\n")
    (args.out / "release_io.md").write_text(markdown(payload, args.runs))
    print((args.out / "release_io.md").read_text())


def markdown(p: dict, runs: int) -> str:
    m, r, s = p["medians"], p["ratios"], p["sizes"]
    loads = [x["loadavg_1min_before"] for rs in p["runs"].values() for x in rs]
    ok = lambda good: "yes" if good else "**no**"  # noqa: E731
    lines = [
        "# Writing a release: full Adult, all 3-way marginals, eps 1, delta 1e-9", "",
        provenance.provenance_line("bench_release_io.py", p["machine"], p["code"], p["total_seconds"]), "",
        f"`dprelease synth ... --seed 0` (the same work in every run) on the bundled Adult table (14 columns, "
        "48,842 rows), workload `3way` "
        f"({p['cells']:,} cells), with and without `--release`, {runs} runs each, interleaved, each a fresh process "
        f"under `/usr/bin/time -v`. 1-minute load average before the runs: {min(loads):.2f} to {max(loads):.2f} "
        "(a shared 2-core machine: the wall times carry that noise; the ratio compares runs made side by side).", "",
        "| run | median wall time (s) | median CPU time, user + sys (s) | median peak RSS (MiB) |",
        "|---|---:|---:|---:|",
        *[f"| {way} `--release` | {m[way]['seconds']:.1f} | {m[way]['cpu_seconds']:.1f} | {m[way]['peak_rss_mib']:.0f} |"
          for way in ("without", "with")],
        f"| ratio with / without (limit {LIMIT_RATIO}) | {r['seconds']:.3f} ({ok(r['seconds'] <= LIMIT_RATIO)}) | "
        f"{r['cpu_seconds']:.3f} ({ok(r['cpu_seconds'] <= LIMIT_RATIO)}) | "
        f"{r['peak_rss_mib']:.3f} ({ok(r['peak_rss_mib'] <= LIMIT_RATIO)}) |", "",
        "CPU time is what the process itself used; on a loaded machine it moves far less than the wall time. "
        "Wall time with / without, run by run: " + ", ".join(
            f"{w['seconds'] / o['seconds']:.2f}" for w, o in zip(p["runs"]["with"], p["runs"]["without"])) + ".", "",
        "| file | size |", "|---|---:|",
        f"| release JSON (limit 5 MiB) | {s['json_bytes'] / 1e3:,.0f} kB ({ok(s['json_bytes'] <= LIMIT_JSON_BYTES)}) |",
        f"| side file `.answers.npz` (answers, rows, long arrays) | {s['side_file_bytes'] / 1e6:,.1f} MB |",
        f"| synthetic rows CSV | {s['rows_csv_bytes'] / 1e6:,.1f} MB |", "",
        f"`Release.save` on its own (rows CSV, side file, JSON; median of {runs}): "
        f"{p['save_alone']['seconds_median']:.2f} s, {100 * p['save_alone']['seconds_median'] / m['without']['seconds']:.1f}% "
        f"of the median run without `--release`, allocating {p['save_alone']['traced_peak_mib']:.0f} MiB above the "
        f"release it writes (tracemalloc peak). `Release.load` (JSON + side file, SHA-256 checked): "
        f"{p['load_seconds']:.2f} s.", "",
        "| `dprelease report` | wall time (s) | peak RSS (MiB) | file |", "|---|---:|---:|---:|",
    ]
    for name, rep in p["reports"].items():
        lines.append(f"| {name} | {rep['seconds']:.1f} | {rep['peak_rss_mib']:.0f} | {rep['bytes'] / 1e3:,.0f} kB |")
    lines.append("")
    lines.append("Every run (wall / CPU / peak RSS): " + "; ".join(
        f"{way}: " + ", ".join(f"{x['seconds']:.1f} s / {x['cpu_seconds']:.1f} s / {x['peak_rss_mib']:.0f} MiB"
                               for x in rs) for way, rs in p["runs"].items()) + ".")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
