#!/usr/bin/env python
"""Where the data lives, at scale: the count step and full MWEM through the memory, DuckDB and Spark engines.

    nice -n 5 .venv/bin/python benchmarks/bench_engines.py [--sizes 1e5,1e6,1e7,1e8] [--engines memory,duckdb,spark]
        [--mwem duckdb:1e8,memory:1e7,spark:1e7] [--memory-limit 1GB] [--timeout 5400] [--render-only]

Data: benchmarks/gen_large_table.py's table (a Chow-Liu tree fitted on the bundled Adult, 14 columns,
Adult's domain), written first if missing: 10^8 rows as 100 Parquet parts of 10^6 (a size N of 10^6 or
more is the first N / 10^6 parts), and a separate 10^5-row table. The workload is all 364 3-way
marginals of the 14 columns.

(a) Scaling: for each engine and size, a fresh subprocess opens the table (the engine's checks; for the
memory engine, loading it into numpy) and then counts every 3-way marginal (the count step: DuckDB and
Spark through ``prefetch``, the memory engine by ``marginal_counts`` in a loop). Seconds of each, peak
MB (the process's ru_maxrss; for Spark also the JVM's VmHWM) and the counting path taken.

(b) Full MWEM: ``synthesize(table, "3way", epsilon=1, delta=1e-9, seed=0)`` (delta > 0 and a domain
of 6.4e17 cells: the factored defaults), after ``table.prefetch`` of the workload (the same marginals
as the count step, so the DuckDB-alone time is measured in the same process); on DuckDB with the
engine's ``--memory-limit``, on the memory engine at the largest size it holds, on Spark local[2].

Every run records the 1-minute load average before and after: the machine has 2 cores shared with
other work, so timings are noisy. Outputs: results/engines.json and results/engines.md.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import resource
import subprocess
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from provenance import code_info, machine_info, provenance_line  # noqa: E402

DATA = HERE / "data"
BIG = DATA / "adult_model"
SMALL = DATA / "adult_model_1e5"
PART_ROWS = 10**6
SPARK_MAX_ROWS = 10**7  # local[2] past this: hours (per-set counting scans the table once per batch of sets)
#: Synthetic rows released by the MWEM runs (a public choice; the default, n, would mean 10^8 rows to fit).
RELEASED_ROWS = 100_000
MEMORY_MAX_ROWS = 3 * 10**7  # n x 14 int64 records: 3.4 GB at 3e7, 11 GB at 1e8 (half this machine's RAM)


# ----------------------------------------------------------------------------------- the data
def ensure_data(max_rows: int) -> None:
    gen = [sys.executable, str(HERE / "gen_large_table.py")]
    if not (SMALL / "part-00000.parquet").exists():
        subprocess.run(gen + ["--rows", "1e5", "--out", str(SMALL)], check=True)
    parts = max(1, max_rows // PART_ROWS)
    if not all((BIG / f"part-{k:05d}.parquet").exists() for k in range(parts)):
        subprocess.run(gen + ["--rows", str(parts * PART_ROWS), "--out", str(BIG)], check=True)


def source(rows: int) -> list[str]:
    if rows < PART_ROWS:
        if rows != 10**5:
            raise SystemExit(f"sizes below 1e6 must be 1e5, got {rows}")
        return [str(SMALL / "part-00000.parquet")]
    return [str(BIG / f"part-{k:05d}.parquet") for k in range(rows // PART_ROWS)]


def adult_domain():
    from dprelease.datasets import adult_paths
    from dprelease.domain import Domain

    return Domain.from_json(adult_paths()[1])


# ----------------------------------------------------------------------------------- one run (child)
def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def jvm_peak_mb(spark) -> float | None:
    try:
        pid = spark.sparkContext._gateway.proc.pid
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except (OSError, AttributeError):
        return None
    return None


def open_for(engine: str, rows: int, memory_limit: str):
    from dprelease.engines.registry import open_table

    domain = adult_domain()
    if engine == "duckdb":
        return open_table(source(rows), domain, engine="duckdb", memory_limit=memory_limit), None
    if engine == "memory":
        return open_table(source(rows), domain, engine="memory"), None
    from pyspark.sql import SparkSession

    from dprelease.engines.spark_engine import _pyspark

    _pyspark()  # sets JAVA_HOME when unset
    spark = (SparkSession.builder.master("local[2]").appName("bench-engines")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4").config("spark.driver.memory", "2g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return open_table(source(rows), domain, engine="spark", spark=spark, memory_limit=memory_limit), spark


def run_one(spec: dict) -> dict:
    warnings.simplefilter("ignore")
    engine, rows, task = spec["engine"], spec["rows"], spec["task"]
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    table, spark = open_for(engine, rows, spec["memory_limit"])
    opened = time.perf_counter()
    domain = table.domain
    sets = list(itertools.combinations(domain.attributes, 3))
    if engine == "memory":
        for s in sets:
            table.marginal_counts(s)
    else:
        table.prefetch(sets)
    counted = time.perf_counter()
    out = {**spec, "n": table.n, "open_seconds": opened - t0, "count_seconds": counted - opened,
           "path": getattr(table, "path", "memory"), "peak_mb_after_count": peak_mb()}
    if task == "mwem":
        from dprelease.api import synthesize

        release = synthesize(table, "3way", epsilon=1.0, delta=1e-9, seed=0, n_rows=RELEASED_ROWS)
        done = time.perf_counter()
        out.update(mwem_seconds=done - counted, total_seconds=done - t0, rounds=len(release.transcript),
                   rows_released=int(release.rows.shape[0]),
                   spent_epsilon=release.privacy_ledger.get("spent", {}).get("epsilon"))
    out["peak_mb"] = peak_mb()
    if spark is not None:
        out["jvm_peak_mb"] = jvm_peak_mb(spark)
        spark.stop()
    if hasattr(table, "close"):
        table.close()
    out["load_before"], out["load_after"] = load_before, os.getloadavg()[0]
    return out


# ----------------------------------------------------------------------------------- the parent
def snapshot_source(out: Path) -> Path:
    """Copy src/dprelease (under OUT/tmp) so that edits made while the benchmark runs change nothing it measures."""
    import shutil

    snapshot = out / "tmp" / "engines-src"
    shutil.rmtree(snapshot, ignore_errors=True)
    shutil.copytree(REPO / "src" / "dprelease", snapshot / "dprelease", ignore=shutil.ignore_patterns("__pycache__"))
    return snapshot


def child(spec: dict, timeout: float, snapshot: Path) -> dict:
    started = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(snapshot)}
    try:
        done = subprocess.run([sys.executable, __file__, "--one", json.dumps(spec)], capture_output=True, text=True,
                              timeout=timeout, cwd=REPO, env=env)
    except subprocess.TimeoutExpired:
        return {**spec, "error": f"timed out after {timeout:.0f} s"}
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    if done.returncode != 0 or not lines:
        return {**spec, "error": (done.stderr.strip().splitlines() or ["no output"])[-1],
                "wall_seconds": time.perf_counter() - started}
    return {**json.loads(lines[-1][7:]), "wall_seconds": time.perf_counter() - started}


def fmt(value, digits=1):
    return "-" if value is None else f"{value:,.{digits}f}"


def render(results: dict, out: Path) -> None:
    runs = results["runs"]
    lines = [provenance_line("bench_engines.py", results["machine"], results["code"], results["total_seconds"]),
             "", "Data: a Chow-Liu tree fitted on the bundled Adult (public), 14 columns, Adult's domain "
             "(6.4e17 cells); Parquet parts of 10^6 rows (benchmarks/gen_large_table.py). Workload: the 364 "
             "3-way marginals. Each figure is one run in its own process on a 2-core machine shared with other "
             "work (load = 1-minute load average before / after): read the ratios, not the last digit.", "",
             "## (a) The count step against rows", "",
             "| engine | rows | path | open s | count s | count s per 10^6 rows | x time for x10 rows | peak MB | "
             "JVM peak MB | load |", "|---|---|---|---|---|---|---|---|---|---|"]
    previous: dict[str, dict] = {}
    counted = {(r["engine"], r["rows"]) for r in runs if r["task"] == "count"}
    from_mwem = [r for r in runs if r["task"] == "mwem" and "error" not in r and (r["engine"], r["rows"]) not in counted]
    rows_of_a = sorted([r for r in runs if r["task"] == "count"] + from_mwem,
                       key=lambda r: (("memory", "duckdb", "spark").index(r["engine"]), r["rows"]))
    for r in rows_of_a:
        if "error" in r:
            lines.append(f"| {r['engine']} | {r['rows']:.0e} | - | - | - | - | - | - | - | {r['error']} |")
            continue
        last = previous.get(r["engine"])
        ratio = r["count_seconds"] / last["count_seconds"] if last and last["rows"] * 10 == r["rows"] else None
        previous[r["engine"]] = r
        path = r["path"] + (" (in the MWEM run)" if r["task"] == "mwem" else "")
        lines.append(f"| {r['engine']} | {r['rows']:.0e} | {path} | {fmt(r['open_seconds'])} | "
                     f"{fmt(r['count_seconds'])} | {fmt(r['count_seconds'] / r['rows'] * 1e6, 2)} | {fmt(ratio)} | "
                     f"{fmt(r['peak_mb_after_count'], 0)} | {fmt(r.get('jvm_peak_mb'), 0)} | "
                     f"{r['load_before']:.1f} / {r['load_after']:.1f} |")
    for skipped in results.get("skipped", []):
        lines.append(f"| {skipped['engine']} | {skipped['rows']:.0e} | not run: {skipped['why']} |||||||| ")
    lines += ["", "## (b) Full MWEM (all 3-way marginals of 14 columns, eps = 1, delta = 1e-9)", "",
              f"`synthesize(table, \"3way\", epsilon=1, delta=1e-9, seed=0, n_rows={RELEASED_ROWS:,})` after "
              "`table.prefetch` of the 364 marginals (the engine alone); MWEM then reads them from the cache. "
              "Peak MB is the whole process (engine, kernel caches, model, rows).", "",
              "| engine | rows | memory limit | counting s (the engine alone) | MWEM s after counting | total s | "
              "peak MB | JVM peak MB | load |", "|---|---|---|---|---|---|---|---|---|"]
    for r in [r for r in runs if r["task"] == "mwem"]:
        if "error" in r:
            lines.append(f"| {r['engine']} | {r['rows']:.0e} | {r['memory_limit']} | {r['error']} ||||||")
            continue
        lines.append(f"| {r['engine']} | {r['rows']:.0e} | {r['memory_limit'] if r['engine'] != 'memory' else '-'} | "
                     f"{fmt(r['count_seconds'])} (open {fmt(r['open_seconds'])}) | {fmt(r['mwem_seconds'])} | "
                     f"{fmt(r['total_seconds'])} | {fmt(r['peak_mb'], 0)} | {fmt(r.get('jvm_peak_mb'), 0)} | "
                     f"{r['load_before']:.1f} / {r['load_after']:.1f} |")
    if results.get("note"):
        lines += ["", results["note"]]
    (out / "engines.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--one", help=argparse.SUPPRESS)
    parser.add_argument("--sizes", default="1e5,1e6,1e7,1e8")
    parser.add_argument("--engines", default="duckdb,memory,spark")
    parser.add_argument("--mwem", default="duckdb:1e8,memory:1e7,spark:1e7", help="engine:rows of full MWEM runs")
    parser.add_argument("--memory-limit", default="1GB")
    parser.add_argument("--timeout", type=float, default=5400)
    parser.add_argument("--note", default="")
    parser.add_argument("--render-only", action="store_true")
    parser.add_argument("--merge", type=Path, action="append", default=[],
                        help="with --render-only: add the runs of another engines.json (runs made in parallel)")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args(argv)
    if args.one:
        print("RESULT " + json.dumps(run_one(json.loads(args.one))), flush=True)
        return 0
    path = args.out / "engines.json"
    if args.render_only:
        results = json.loads(path.read_text())
        for other in args.merge:
            extra = json.loads(other.read_text())
            results["runs"] += extra["runs"]
            results["skipped"] += [s for s in extra.get("skipped", []) if s not in results["skipped"]]
            results["total_seconds"] = max(results["total_seconds"], extra["total_seconds"])
        results["note"] = args.note or results.get("note", "")
        render(results, args.out)
        return 0
    sizes = [int(float(s)) for s in args.sizes.split(",") if s]
    mwem = [(e, int(float(r))) for e, r in (item.split(":") for item in args.mwem.split(",") if item)]
    ensure_data(max(sizes + [r for _, r in mwem]))
    snapshot = snapshot_source(args.out)
    started = time.perf_counter()
    results = {"machine": machine_info(), "code": code_info(), "runs": [], "skipped": [], "note": args.note,
               "memory_limit": args.memory_limit}
    plan = [{"engine": e, "rows": r, "task": "mwem", "memory_limit": args.memory_limit} for e, r in mwem[:1]]
    for engine in args.engines.split(","):
        for rows in sizes:
            limit = {"spark": SPARK_MAX_ROWS, "memory": MEMORY_MAX_ROWS}.get(engine)
            if limit is not None and rows > limit:
                why = ("local[2] on 2 shared cores: hours" if engine == "spark"
                       else f"{rows * 14 * 8 / 1e9:.0f} GB of int64 records")
                results["skipped"].append({"engine": engine, "rows": rows, "why": why})
                continue
            if (engine, rows) not in mwem:  # an MWEM run times the same count step first
                plan.append({"engine": engine, "rows": rows, "task": "count", "memory_limit": args.memory_limit})
    plan += [{"engine": e, "rows": r, "task": "mwem", "memory_limit": args.memory_limit} for e, r in mwem[1:]]
    for spec in plan:
        result = child(spec, args.timeout, snapshot)
        results["runs"].append(result)
        print(json.dumps(result), flush=True)
        results["total_seconds"] = time.perf_counter() - started
        args.out.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(results, indent=1))
        render(results, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
