#!/usr/bin/env python
"""How faithfully a privately drafted schema decodes number columns: generated columns, drafted, encoded, decoded.

    .venv/bin/python benchmarks/bench_draft_bounds.py [--rows 500,2000,20000,100000] [--eps 0.5,1,5] [--seeds 3]
        [--out benchmarks/results/draft_bounds]

A table of eight generated number columns (birth years 1940-2005, years 2019-2021, latitudes 41.65-42.05, normal
scores (650, 50) and temperatures (21.5, 1.5), ages 18-90, log-normal amounts, gamma hours), written as text, is
drafted by ``draft_schema`` (epsilon, delta 1e-9, seeded), encoded by the draft and decoded with values drawn
evenly inside each bin: the model is perfect, so what is measured is the schema's bounds and bins alone. Per
column: the 1-D Wasserstein distance of the decoded values to the real ones, in the real column's standard
deviations, and the share of real rows outside the drafted bounds (clipped). A column whose bounds the draft left
undecided, or that it drafted as text, has no figure (its cell says so). Medians (distance) and maxima (clipped share) over the seeds.

Outputs: OUT/draft_bounds.json (every run, the machine, the commit) and OUT/draft_bounds.md (tables).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

COLUMNS = ("birth_year", "year", "lat", "score", "temp_c", "age", "amount", "hours")


def table(seed: int, n: int):
    import pandas as pd

    rng = np.random.default_rng(seed)
    return pd.DataFrame({"birth_year": rng.integers(1940, 2006, n), "year": rng.integers(2019, 2022, n),
                         "lat": (41.65 + rng.random(n) * 0.4).round(6),
                         "score": rng.normal(650, 50, n).round().astype(int), "temp_c": rng.normal(21.5, 1.5, n).round(1),
                         "age": rng.integers(18, 91, n), "amount": rng.lognormal(4, 1.5, n).round(2),
                         "hours": rng.gamma(2, 3, n).round(1)}).astype(str)


def one(n: int, eps: float, seed: int) -> dict:
    """Draft, encode, decode one table; per column its distance and clipped share (None: bounds undecided)."""
    import pandas as pd
    from scipy.stats import wasserstein_distance

    from dprelease.schema import Schema, encode
    from dprelease.schema.decode import decode
    from dprelease.schema.draft import draft_schema

    frame = table(seed, n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = draft_schema(frame, epsilon=eps, delta=1e-9, seed=seed)
    decided = []
    for column in schema.columns:
        try:
            column.size  # noqa: B018 -- undecided bounds refuse here
            decided.append(column)
        except Exception:  # noqa: BLE001 -- an undecided column: no figure
            pass
    sub = Schema(tuple(decided), schema.null_tokens)
    names = [c.name for c in decided]
    decoded = decode(encode(frame[names], sub), sub, values="uniform",
                     rng=np.random.default_rng(seed)).to_dataframe()
    out = {}
    for name in COLUMNS:
        if name not in names:
            out[name] = None
            continue
        real = frame[name].astype(float).to_numpy()
        synthetic = pd.to_numeric(decoded[name], errors="coerce").to_numpy(dtype=float)
        if np.isnan(synthetic).mean() > 0.5:  # drafted as text (no categories stood out): no numbers to compare
            out[name] = None
            continue
        spec = sub.column(name).to_json()
        edges = spec.get("edges") or spec.get("bounds") or [float(v) for v in spec.get("values", [])]
        low, high = (float(edges[0]), float(edges[-1])) if edges else (np.nan, np.nan)
        out[name] = {"distance_sd": float(wasserstein_distance(real, synthetic[~np.isnan(synthetic)]) / real.std()),
                     "clipped": float(np.mean((real < low) | (real > high))) if edges else 0.0,
                     "kind": spec["type"], "bounds": [low, high],
                     "charges": [label for label, *_ in schema.draft.charges() if label.startswith(f"{name}: ")]}
    return out


def render(results: dict, meta: dict) -> str:
    lines = ["# Drafted number columns, decoded (session 60)", "",
             f"Written by `benchmarks/bench_draft_bounds.py` at commit `{meta['commit']}` on {meta['when']}; "
             f"{meta['seeds']} seeds; {meta['seconds']:.0f} s.", "",
             "A perfect model over the drafted bins: what is measured is the schema alone. Distance: the 1-D "
             "Wasserstein distance of decoded values to the real ones, in the real column's standard deviations "
             "(median over seeds); clipped: the largest share of real rows outside the drafted bounds; `-`: bounds "
             "undecided, or the column drafted as text, on some seed.", ""]
    for what, key, reduce in (("Distance (standard deviations)", "distance_sd", np.median),
                              ("Clipped share (max over seeds)", "clipped", np.max)):
        lines += [f"## {what}", "", "| rows | eps | " + " | ".join(COLUMNS) + " | mean |",
                  "|---|---|" + "---|" * (len(COLUMNS) + 1)]
        for case, runs in results.items():
            n, eps = case.split("@")
            cells = []
            for name in COLUMNS:
                values = [r[name][key] for r in runs if r[name] is not None]
                cells.append(f"{reduce(values):.3f}" if len(values) == len(runs) else "-")
            numbers = [float(c) for c in cells if c != "-"]
            mean = f"{np.mean(numbers):.3f}" if numbers else "-"
            lines.append(f"| {int(n):,} | {eps} | " + " | ".join(cells) + f" | {mean} |")
        lines.append("")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", default="500,2000,20000,100000")
    parser.add_argument("--eps", default="0.5,1,5")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "draft_bounds"))
    args = parser.parse_args(argv)
    start = time.perf_counter()
    results = {}
    for n in (int(v) for v in args.rows.split(",")):
        for eps in (float(v) for v in args.eps.split(",")):
            results[f"{n}@{eps:g}"] = [one(n, eps, seed) for seed in range(args.seeds)]
    commit = subprocess.run(["git", "rev-parse", "--short=10", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    meta = {"commit": commit, "when": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "seeds": args.seeds,
            "seconds": time.perf_counter() - start, "python": platform.python_version(),
            "numpy": np.__version__}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "draft_bounds.json").write_text(json.dumps({"meta": meta, "results": results}, indent=1))
    (out / "draft_bounds.md").write_text(render(results, meta) + "\n")
    print(render(results, meta))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
