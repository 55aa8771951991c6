#!/usr/bin/env python
"""Ablation of MWEM's accuracy options on full Adult (all 3-way, eps = 1) and on the 7-column table.

    .venv/bin/python benchmarks/bench_ablation.py [--seeds 3] [--no-small3] [--out DIR]

Each row changes one option of the default and keeps the rest, so its effect is read against the
``default`` row of the same run, on the same machine. The defaults are the package's presets
(mechanisms/mwem_tuning.py): ``FACTORED`` for full Adult (``MODES["mwem-factored"]`` of bench_adult_full.py)
and ``ADAPTIVE`` on the 7-column histogram, with Gaussian noise as ``synthesize`` runs them at delta = 1e-9.
Each row of ``CHANGES`` turns one of the presets' choices back (issues 7 and 12): the reuse of past
measurements, zCDP, the size penalty (none, AIM's full one), AIM's workload-overlap weights, annealing,
the downward closure, the selection share, the warm start, the planned rounds, INIT at one round's budget,
the 1-way candidates after INIT, the compression of rare values, the INIT cap, the final fit's discrepancy
stop and momentum, and the model cap.

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
    "workload-overlap weights (AIM)": {"selection_weights": "workload"},
    "no budget annealing": {"annealing": False},
    "workload candidates (no closure)": {"candidates": "workload"},
    "selection share 0.25 (HLM's MWEM)": {"selection_share": 0.25},
    "uniform start (no warm start)": {"warm_start": False},
    "rounds 16 d, no noise target (AIM's plan)": {"noise_target": None, "rounds_per_attribute": 16},
    "INIT a tenth of the budget (not one round's)": {"init_per_round": False},
    "no 1-way candidates after INIT": {"one_way_candidates": False},
    "no compression of rare values": {"compress_rare": 0.0},
    "no INIT cap": {"init_cell_noise": None},
    "no discrepancy stop (all final passes)": {"final_discrepancy": None},
    "no momentum in the final fit": {"final_momentum": None},
    "model cap 2,000,000 cells (factored only)": {"max_model_cells": 2_000_000},
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
        # where the last run had itself kept a table's rows, they come from the run before it
        doc["kept_from"] = {w: old.get("kept_from", {}).get(w, old.get("code")) for w in kept}
    for workload, base in tables:
        for name, change in CHANGES.items():
            if "max_model_cells" in change and base["representation"] != "factored":
                continue  # the explicit histogram has no model cap
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
    L.append("Cells: median [min–max] over seeds; Δ = median avg L1 of the fitted rows (what synthesize ships for "
             "these runs) minus the default's. Seconds: fit + rounding, noisy (2 shared cores).")
    L.append("")
    L.append("| workload | change | avg L1 (round) | avg L1 (fitted) | avg L1 (sample) | model avg L1 | Δ fitted | "
             "seconds | rounds | runs |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    groups: dict[tuple, list] = {}
    for r in doc["runs"]:
        if r.get("status") == "ok":
            groups.setdefault((r["workload"], r["system"]), []).append(r)
    for workload in doc["base"]:
        base = groups.get((workload, "default"))
        base_fitted = [r["modes"]["fitted"]["avg_l1"] for r in base or [] if "fitted" in r["modes"]]
        base_l1 = statistics.median(base_fitted) if base_fitted else None  # rows kept from before fitted rows: none
        for name in doc["changes"]:
            rs = groups.get((workload, name))
            if not rs:
                continue
            rnd = full.med([r["modes"]["round"]["avg_l1"] for r in rs])
            fitted = full.med([r["modes"]["fitted"]["avg_l1"] for r in rs if "fitted" in r["modes"]])
            delta = "–" if base_l1 is None or fitted is None or name == "default" else f"{fitted['median'] - base_l1:+.4f}"
            L.append(f"| {workload} | {name} | {full.fmt(rnd, 4)} | {full.fmt(fitted, 4)} | "
                     f"{full.fmt(full.med([r['modes']['sample']['avg_l1'] for r in rs]), 4)} | "
                     f"{full.fmt(full.med([r['model_avg_l1'] for r in rs]), 4)} | {delta} | "
                     f"{full.fmt(full.med([r['modes']['round']['seconds'] for r in rs]), 1)} | "
                     f"{full.fmt(full.med([r['parameters'].get('rounds_run', r['parameters']['rounds']) for r in rs]), 0)}"
                     f" | {len(rs)} |")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    sys.exit(main())
