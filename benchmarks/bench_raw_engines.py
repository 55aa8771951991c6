#!/usr/bin/env python
"""Raw tables encoded where they live: the in-memory encoder against DuckDB's SQL encoding (issue 15, phase 2).

    nice -n 5 .venv/bin/python benchmarks/bench_raw_engines.py [--copies 1,31,307] [--repeats 3] [--out DIR]

Data: the bundled raw Adult training split (32,561 rows of text, ``?`` for NULL, a space after every comma)
copied k times into one headerless CSV (``benchmarks/data/adult_raw_x{k}.csv``, written if missing), read
through the bundled schema (15 columns: integer bins with clipping, categories, NULL buckets).

For each size and engine, a fresh subprocess opens the table through the schema (memory:
``Dataset.from_schema``, the Python reader and numpy encoder; duckdb: ``DuckDBTable.open(schema=...)``,
the SQL encoding into a temporary table of codes and its checks) and then computes the fingerprint (every
distinct row and its count: DuckDB's grouping pass). Seconds of each, peak MB (the child's own ru_maxrss, from ``os.wait4``) and
the fingerprint, which must agree between engines at every size. The memory engine is skipped above
1.1e6 rows (its reader holds every cell as a Python string: ~10 GB at 1e7). Medians over ``--repeats``,
with the 1-minute load average before each run (2 shared cores: read the ratios).
Outputs: results/raw_engines.json and results/raw_engines.md.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from provenance import code_info, machine_info, provenance_line  # noqa: E402

DATA = HERE / "data"
MEMORY_MAX_ROWS = 1_100_000

CHILD = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from dprelease.datasets import adult_raw_schema
engine, path = sys.argv[2], sys.argv[3]
schema = adult_raw_schema()
start = time.perf_counter()
if engine == "memory":
    from dprelease import Dataset
    table = Dataset.from_schema(path, schema, delimiter=",", header=False)
else:
    from dprelease.engines.duckdb_engine import DuckDBTable
    table = DuckDBTable.open(path, schema=schema, delimiter=",", header=False, memory_limit="2GB")
opened = time.perf_counter()
fingerprint = table.fingerprint()
done = time.perf_counter()
print(json.dumps({"n": table.n, "open_s": opened - start, "fingerprint_s": done - opened, "fingerprint": fingerprint}))
"""


def ensure_data(copies: int) -> Path:
    from dprelease.datasets import adult_raw_paths

    path = DATA / f"adult_raw_x{copies}.csv"
    if not path.exists():
        DATA.mkdir(parents=True, exist_ok=True)
        lines = [line for line in adult_raw_paths()["train"].read_text().splitlines() if line.strip()]
        text = "\n".join(lines) + "\n"
        with open(path.with_suffix(".tmp"), "w") as handle:
            for _ in range(copies):
                handle.write(text)
        os.replace(path.with_suffix(".tmp"), path)
    return path


def run(engine: str, path: Path) -> dict:
    load = os.getloadavg()[0]
    started = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(REPO / "src"), engine, str(path)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = child.stdout.read(), child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)  # this child's own peak RSS
    child.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    if child.returncode != 0:
        raise RuntimeError(f"{engine} on {path.name} failed: {err[-2000:]}")
    result = json.loads(out.strip().splitlines()[-1])
    result.update(engine=engine, wall_s=wall, peak_mb=usage.ru_maxrss / 1024, load_1min=load)
    return result


def render(results: dict) -> str:
    lines = [provenance_line("bench_raw_engines.py", results["machine"], results["code"], results["total_seconds"]),
             "", "Raw Adult (train split, k copies) through its schema: open = encode + check, then the "
             "fingerprint (the grouping pass). Medians of the repeats; load = 1-minute load average (2 cores).", "",
             "| rows | engine | open s | fingerprint s | total s | peak MB | load | same fingerprint |",
             "|---:|---|---:|---:|---:|---:|---:|---|"]
    for row in results["table"]:
        lines.append(f"| {row['n']:,} | {row['engine']} | {row['open_s']:.2f} | {row['fingerprint_s']:.2f} | "
                     f"{row['open_s'] + row['fingerprint_s']:.2f} | {row['peak_mb']:.0f} | {row['load']:.1f} | "
                     f"{row['same']} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[1])
    parser.add_argument("--copies", default="1,31,307")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    started = time.perf_counter()
    results = {"machine": machine_info(), "code": code_info(), "runs": [], "table": []}
    for copies in [int(c) for c in args.copies.split(",")]:
        path = ensure_data(copies)
        engines = ["memory", "duckdb"] if copies * 32_561 <= MEMORY_MAX_ROWS else ["duckdb"]
        by_engine = {}
        for engine in engines:
            runs = [run(engine, path) for _ in range(args.repeats)]
            results["runs"] += [{**r, "copies": copies} for r in runs]
            by_engine[engine] = runs
            print(f"{copies} copies {engine}: " + ", ".join(f"{r['open_s']:.2f}+{r['fingerprint_s']:.2f} s "
                                                         f"{r['peak_mb']:.0f} MB" for r in runs), flush=True)
        prints = {r["fingerprint"] for runs in by_engine.values() for r in runs}
        for engine, runs in by_engine.items():
            results["table"].append({
                "n": runs[0]["n"], "engine": engine, "copies": copies,
                "open_s": statistics.median(r["open_s"] for r in runs),
                "fingerprint_s": statistics.median(r["fingerprint_s"] for r in runs),
                "peak_mb": max(r["peak_mb"] for r in runs),
                "load": statistics.median(r["load_1min"] for r in runs),
                "same": "yes" if len(prints) == 1 and len(by_engine) > 1 else ("n/a" if len(by_engine) == 1 else "NO"),
            })
    results["total_seconds"] = time.perf_counter() - started
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "raw_engines.json").write_text(json.dumps(results, indent=1) + "\n")
    (args.out / "raw_engines.md").write_text(render(results))
    print(render(results))


if __name__ == "__main__":
    main()
