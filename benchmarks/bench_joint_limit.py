"""The joint plan's limit (issue 12, session 56): where does one measurement of the whole joint beat the plan's rounds?

    .venv/bin/python benchmarks/bench_joint_limit.py [--shapes 5x3x7x7x2,4x4x4x4x4,...] [--n 1000,4000,20000]
        [--eps 0.1,1,10] [--seeds 6] [--jobs 2] [--out benchmarks/results/joint_limit]

Generated small domains of known dependence: skewed columns (shares 0.7^k in a random order) of the given sizes, then
a few of them tied: ``none``; ``one`` (the second column copies the first with probability 0.3); ``two`` (the fourth
and fifth copy the second, at 0.3 or 0.6: a star like a group column's); ``chain`` (each copies the one before at 0.3).
Every case where the joint plan's own limits hold (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.joint_plan` with
``joint_sighted_noise=None``, the plan before session 56) is run three ways on all 1-3-way marginals, model answers
scored (avg L1 against the table's marginals), medians over seeds: ``joint`` (that plan); ``without joint`` (the
defaults with ``joint_noise=None``: the plan's own rounds, INIT alone, a direct plan or the gate's choice);
``independent`` (noisy 1-way marginals and their product). The default is one of the first two: the joint unless its
noise is at least ``joint_sighted_noise`` and the rounds without it would select with sight
(:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.rounds_select_with_sight`); the page says which it picks, from
public quantities, beside what each would have given (docs/decisions.md, session 56).
Writes OUT/joint_limit.json and OUT/joint_limit.md.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from dprelease.data import Dataset  # noqa: E402
from dprelease.domain import Domain  # noqa: E402

TIES = (("none", 0.0), ("one", 0.3), ("two", 0.3), ("two", 0.6), ("chain", 0.3))


def tied_table(sizes: tuple[int, ...], n: int, tie: str, strength: float, seed: int = 0) -> Dataset:
    """Skewed independent columns of ``sizes``, then the ``tie`` pattern's columns copy another's value (mod their
    size) with probability ``strength``."""
    rng = np.random.default_rng([seed, n, len(sizes), int(strength * 100), {"none": 0, "one": 1}.get(tie, 2)])
    columns = []
    for size in sizes:
        shares = 0.7 ** np.arange(size)
        shares = shares[rng.permutation(size)]
        columns.append(rng.choice(size, size=n, p=shares / shares.sum()))
    last = len(sizes) - 1
    pairs = {"none": [], "one": [(0, 1)], "two": [(1, min(3, last)), (1, min(4, last))],
             "chain": [(k, k + 1) for k in range(last)]}[tie]
    for source, target in pairs:
        columns[target] = np.where(rng.random(n) < strength, columns[source] % sizes[target], columns[target])
    return Dataset.from_records(np.stack(columns, axis=1), Domain(tuple("abcdefghij"[: len(sizes)]), tuple(sizes)))


def avg_l1(dataset: Dataset, marginals, answers) -> float:
    return float(np.mean([np.abs(a - dataset.marginal(m)).sum() for m, a in zip(marginals, answers)]))


def run_case(case: dict) -> dict | None:
    warnings.simplefilter("ignore")
    from dprelease.api import synthesize
    from dprelease.mechanisms import mwem_tuning
    from dprelease.mechanisms.mwem import MWEM
    from dprelease.queries.workload import Workload

    sizes = tuple(case["sizes"])
    dataset = tied_table(sizes, case["n"], case["tie"], case["strength"])
    workload = Workload.resolve("1-3way", dataset.domain)
    adaptive = mwem_tuning.ADAPTIVE
    tunings = {"joint": replace(adaptive, joint_sighted_noise=None), "without joint": replace(adaptive, joint_noise=None)}
    if MWEM(epsilon=case["eps"], delta=1e-9, tuning=tunings["joint"]).run_plan(workload, n=case["n"]).joint is None:
        return None  # not a joint-plan case
    default_plan = MWEM(epsilon=case["eps"], delta=1e-9, tuning=adaptive).run_plan(workload, n=case["n"])
    out = dict(case, cells=math.prod(sizes), noise=math.prod(sizes) * 2 / (case["n"] * case["eps"]),
               default_runs="joint" if default_plan.joint is not None else "without joint")
    t0 = time.perf_counter()
    for system in ("joint", "without joint", "independent"):
        errors = []
        mwem_tuning.ADAPTIVE = tunings.get(system, adaptive)
        try:
            for seed in range(case["seeds"]):
                kwargs = {"mechanism": "independent"} if system == "independent" else {}
                release = synthesize(dataset, workload, epsilon=case["eps"], seed=seed, **kwargs)
                if system == "joint":
                    out["joint_model"] = release.parameters.get("joint_model")
                errors.append(avg_l1(dataset, workload.marginals, release.answers))
        finally:
            mwem_tuning.ADAPTIVE = adaptive
        out[system] = float(np.median(errors))
    out["default"] = out[out["default_runs"]]
    out["seconds"] = round(time.perf_counter() - t0, 2)
    return out


def render(rows: list[dict], config: dict) -> str:
    lines = ["# The joint plan against its own rounds (issue 12, session 56)", "",
             f"Generated by `benchmarks/bench_joint_limit.py` on {config['when']}; {config['seeds']} seeds; "
             f"{config['minutes']:.1f} min on {os.cpu_count()} CPUs. Model answers' avg L1 (medians); every case "
             "where the joint plan's own limits hold. noise = the joint's expected L1 noise (cells x E|Z|, public). "
             "ratio = joint / without joint (below 1: the joint is lower). default = the plan the defaults run "
             "(public): the joint, or the rounds where the joint's noise is at least `joint_sighted_noise` and they "
             "select with sight.", "",
             "| shape | n | eps | ties | noise | n x eps | joint's model | joint | without joint | independent "
             "| ratio | default |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in sorted(rows, key=lambda r: (r["noise"], r["sizes"], r["tie"], r["strength"])):
        ratio = r["joint"] / r["without joint"]
        mark = "**" if ratio > 1.05 else ""
        lines.append(f"| {'x'.join(map(str, r['sizes']))} | {r['n']:,} | {r['eps']:g} | {r['tie']} {r['strength']:g} "
                     f"| {r['noise']:.3f} | {r['n'] * r['eps']:,.0f} | {r['joint_model']} | {r['joint']:.4f} "
                     f"| {r['without joint']:.4f} | {r['independent']:.4f} | {mark}{ratio:.2f}{mark} "
                     f"| {r['default_runs']} |")
    lines += ["", "## By the joint's noise", "", "| noise | cases | joint lower by 5 % | within 5 % | joint higher by 5 % "
              "| geometric mean ratio | default runs the rounds | default / joint (geometric mean) "
              "| joint above the baseline | default above the baseline |", "|---|---|---|---|---|---|---|---|---|---|"]
    for low, high in ((0, 0.25), (0.25, 0.5), (0.5, 0.75), (0.75, 1.0), (1.0, 2.0)):
        band = [r for r in rows if low <= r["noise"] < high]
        if not band:
            continue
        ratios = [r["joint"] / r["without joint"] for r in band]
        moved = [r["default"] / r["joint"] for r in band]
        lines.append(f"| [{low}, {high}) | {len(band)} | {sum(x < 0.95 for x in ratios)} | "
                     f"{sum(0.95 <= x <= 1.05 for x in ratios)} | {sum(x > 1.05 for x in ratios)} | "
                     f"{math.exp(np.mean(np.log(ratios))):.3f} | {sum(r['default_runs'] != 'joint' for r in band)} | "
                     f"{math.exp(np.mean(np.log(moved))):.3f} | {sum(r['joint'] > r['independent'] for r in band)} | "
                     f"{sum(r['default'] > r['independent'] for r in band)} |")
    changed = [r for r in rows if r["default_runs"] != "joint"]
    if changed:
        moved = [r["default"] / r["joint"] for r in changed]
        lines += ["", f"Where the default runs the rounds ({len(changed)} cases): default / joint geometric mean "
                  f"{math.exp(np.mean(np.log(moved))):.3f}, lower by 5 % in {sum(x < 0.95 for x in moved)}, higher by 5 % "
                  f"in {sum(x > 1.05 for x in moved)} (largest {max(moved):.2f}x)."]
    return "\n".join(lines) + "\n"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shapes", default="5x3x7x7x2,4x4x4x4x4,3x3x3x3x3x3,6x5x4x3x2,8x8x6x4,2x2x2x2x2x2x2x2x2x2")
    p.add_argument("--n", default="1000,4000,20000")
    p.add_argument("--eps", default="0.1,1,10")
    p.add_argument("--seeds", type=int, default=6)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results", "joint_limit"))
    args = p.parse_args()
    cases = [dict(sizes=[int(x) for x in shape.split("x")], n=int(n), tie=tie, strength=strength, eps=float(eps),
                  seeds=args.seeds)
             for shape in args.shapes.split(",") for n in args.n.split(",") for tie, strength in TIES
             for eps in args.eps.split(",")]
    t0 = time.time()
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = [r for r in pool.map(run_case, cases) if r is not None]
    config = {"when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "seeds": args.seeds,
              "minutes": (time.time() - t0) / 60, "shapes": args.shapes, "n": args.n, "eps": args.eps}
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "joint_limit.json"), "w") as f:
        json.dump({"config": config, "rows": rows}, f, indent=1)
    with open(os.path.join(args.out, "joint_limit.md"), "w") as f:
        f.write(render(rows, config))
    print(f"{len(rows)} joint-plan cases of {len(cases)}; {config['minutes']:.1f} min -> {args.out}")


if __name__ == "__main__":
    main()
