#!/usr/bin/env python
"""Ablation of MWEM's accuracy options on full Adult (all 3-way, eps = 1) and on the 7-column table.

    .venv/bin/python benchmarks/bench_ablation.py [--seeds 3] [--no-small3] [--out DIR]

Each row changes one option of the factored default (``MODES["mwem-factored"]`` of bench_adult_full.py,
which is the ``FACTORED`` preset of mechanisms/mwem_tuning.py with Gaussian noise) and keeps the rest, so its effect is read
against the ``default`` row of the same run, on the same machine. The options (issue 7) and
what their rows set:

* reuse of past measurements: ``reuse_measurements=False`` fits only the newest measurement
  each round, as the original MWEM update does;
* Gaussian noise under zCDP: ``noise="laplace"`` with delta = 0 (pure eps-DP, the same eps);
* selection that weighs a marginal's size: ``size_penalty`` 0 (none) and 1 (AIM's full penalty);
* AIM's workload-overlap weights in selection: ``selection_weights="workload"``;
* budget annealing across rounds: ``annealing=True``;
* AIM's downward-closure candidates: ``candidates="workload"`` (only the workload's own marginals);
* the share of each round spent on selection (0.25, and the 7-column default's 0.05 against 0.1),
  the 7-column default's warm start (from the product of the noisy 1-way marginals), and the model cap.

Runs go through bench_adult_full.py's child-process runner (fresh process per run: its own peak
memory; one frozen copy of src/). Outputs OUT/ablation.json and OUT/ablation.md.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import bench_adult_full as full  # noqa: E402  (same runner, same scoring, same defaults)

CHANGES = {
    "default": {},
    "no reuse (newest measurement only)": {"reuse_measurements": False},
    "Laplace, pure DP (delta = 0)": {"noise": "laplace", "delta": 0.0},
    "no size penalty": {"size_penalty": 0.0},
    "full size penalty (AIM's, 1.0)": {"size_penalty": 1.0},
    "size penalty 0.25 (the factored default)": {"size_penalty": 0.25},
    "workload-overlap weights (AIM)": {"selection_weights": "workload"},
    "budget annealing (AIM)": {"annealing": True},
    "workload candidates (no closure)": {"candidates": "workload"},
    "selection share 0.25 (HLM's MWEM default here)": {"selection_share": 0.25},
    "selection share 0.1 (the factored default)": {"selection_share": 0.1},
    "uniform start (no warm start; the factored default)": {"warm_start": False},
    "model cap 2,000,000 cells (instead of 500,000)": {"max_model_cells": 2_000_000},
}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--no-small3", dest="small3", action="store_false")
    p.add_argument("--no-all3", dest="all3", action="store_false")
    p.add_argument("--run-timeout", type=float, default=1500.0)
    p.add_argument("--out", default=str(full.REPO / "benchmarks" / "results"))
    args = p.parse_args(argv)
    start = time.perf_counter()
    out, tmp = Path(args.out), Path(args.out) / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    full.SNAPSHOT.append(full.snapshot_src(tmp))
    tables = ([("all3", full.MODES["mwem-factored"])] if args.all3 else []) + \
             ([("small3", full.SMALL3_MODES["mwem-small3"])] if args.small3 else [])
    doc = {"benchmark": "ablation", "machine": full.machine_info(), "code": full.code_info(),
           "changes": CHANGES, "base": dict(tables), "runs": []}
    previous = out / "ablation.json"
    if previous.exists() and not (args.all3 and args.small3):
        # A partial rerun keeps the other table's rows from the last run (its base and code are recorded).
        old = json.loads(previous.read_text())
        kept = [w for w in old.get("base", {}) if w not in doc["base"]]
        doc["base"] = {**{w: old["base"][w] for w in kept}, **doc["base"]}
        doc["runs"] = [r for r in old.get("runs", []) if r.get("workload") in kept]
        doc["kept_from"] = {w: old.get("code") for w in kept}
    for workload, base in tables:
        for name, change in CHANGES.items():
            for seed in range(args.seeds):
                params = {**base, **change}
                spec = {"system": name, "workload": workload, "epsilon": 1.0, "seed": seed, "params": params}
                r = full.run_child(spec, args.run_timeout)
                doc["runs"].append(r)
                m = r.get("modes", {})
                print(f"{workload} | {name} | seed {seed}: {r.get('status')} "
                      + " ".join(f"{h}={v['avg_l1']:.4f}/{v['seconds']:.1f}s" for h, v in m.items()), flush=True)
                doc["total_seconds"] = time.perf_counter() - start
                (out / "ablation.json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
                (out / "ablation.md").write_text(render(doc))
    shutil.rmtree(full.SNAPSHOT[0], ignore_errors=True)
    print(f"wrote {out / 'ablation.json'} and {out / 'ablation.md'}")
    return 0


def render(doc: dict) -> str:
    info = doc["machine"]
    L = ["# Ablation: MWEM's accuracy options, one at a time (eps = 1, delta = 1e-9)", ""]
    L.append(full.provenance_line("bench_ablation.py", info, doc["code"], doc.get("total_seconds", 0)))
    L.append("")
    for workload, base in doc["base"].items():
        L.append(f"Base for {workload}: " + ", ".join(f"{k}={v}" for k, v in base.items()) + ".")
    for workload, code in doc.get("kept_from", {}).items():
        L.append(f"The {workload} rows are kept from an earlier run (commit `{(code or {}).get('git_commit', '?')[:10]}`).")
    L.append("")
    L.append("Cells: median [min–max] over seeds; Δ = median avg L1 (rounded rows) minus the default's. "
             "Fitted: the rounded rows fitted to the released answers (what synthesize picks for these runs; runs from before "
             "it existed show –). Seconds: fit + rounding, noisy (2 shared cores).")
    L.append("")
    L.append("| workload | change | avg L1 (round) | avg L1 (fitted) | avg L1 (sample) | model avg L1 | Δ round | "
             "seconds | rounds | runs |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    groups: dict[tuple, list] = {}
    for r in doc["runs"]:
        if r.get("status") == "ok":
            groups.setdefault((r["workload"], r["system"]), []).append(r)
    for workload in doc["base"]:
        base = groups.get((workload, "default"))
        base_l1 = statistics.median(r["modes"]["round"]["avg_l1"] for r in base) if base else None
        for name in doc["changes"]:
            rs = groups.get((workload, name))
            if not rs:
                continue
            rnd = full.med([r["modes"]["round"]["avg_l1"] for r in rs])
            delta = "–" if base_l1 is None or name == "default" else f"{rnd['median'] - base_l1:+.4f}"
            fitted = full.med([r["modes"]["fitted"]["avg_l1"] for r in rs if "fitted" in r["modes"]])
            L.append(f"| {workload} | {name} | {full.fmt(rnd, 4)} | {full.fmt(fitted, 4)} | "
                     f"{full.fmt(full.med([r['modes']['sample']['avg_l1'] for r in rs]), 4)} | "
                     f"{full.fmt(full.med([r['model_avg_l1'] for r in rs]), 4)} | {delta} | "
                     f"{full.fmt(full.med([r['modes']['round']['seconds'] for r in rs]), 1)} | "
                     f"{full.fmt(full.med([r['parameters'].get('rounds_run', r['parameters']['rounds']) for r in rs]), 0)}"
                     f" | {len(rs)} |")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
