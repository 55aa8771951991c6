"""Every plan MWEM's default makes on the tuning suite, from public quantities only: no data is read but n.

    python benchmarks/suite_plans.py [--tables adult7,taxi] [--out benchmarks/results]

For each suite table, epsilon in {0.1, 1, 10} and both paths (the default's delta = 1e-9, and pure DP), the plan
that :class:`~dprelease.mechanisms.mwem.MWEM` would run: the noise, the rounds T (d of them INIT's when INIT runs
alone), the candidates C, the rounds' selection share and the selection's Thm 3.11 loss 4 ln C / (n eps_s) at a
planned round (the noise target is 0.5). A change of a planning rule can be checked against the suite page by the
plans it changes: a run whose plan is the same releases bit-identical output. Writes ``suite_plans.json`` and
``suite_plans.md``; takes seconds (taxi's and the generated tables' loading is most of it).
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import suite_tables  # noqa: E402

from dprelease.mechanisms.base import Budget  # noqa: E402
from dprelease.mechanisms.mwem_plan import planned_selection_epsilon, planned_selection_loss  # noqa: E402
from dprelease.mechanisms.registry import create  # noqa: E402
from dprelease.queries.workload import Workload  # noqa: E402

EPSILONS = (0.1, 1.0, 10.0)
PATHS = (("default", 1e-9), ("pure", 0.0))


def plan_of(dataset, workload: Workload, *, epsilon: float, delta: float) -> dict[str, object]:
    """The default MWEM's plan for one run (:meth:`~dprelease.mechanisms.mwem_plan.MWEMPlan.run_plan`)."""
    runner = create("mwem").runner(dataset.domain, Budget(epsilon, delta))
    plan = runner.run_plan(workload, n=dataset.n)
    loss = planned_selection_loss(plan, n=dataset.n)
    blind = runner.blind_selection_plan(workload, n=dataset.n, plan=plan)
    return {"noise": plan.noise, "rounds": plan.rounds, "init_alone": plan.split["rounds_after_init"] == 0,
            "d": len(workload.attributes), "candidates": len(plan.candidates),
            "selection_share": float(plan.selection_share),
            "select_epsilon": planned_selection_epsilon(plan), "selection_loss": loss,
            "blind_rounds": None if blind is None else blind.rounds}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", default=",".join(suite_tables.SUITE),
                        help="comma-separated suite tables (default: all but the held-out ones)")
    parser.add_argument("--out", default=str(HERE / "results"), help="folder for suite_plans.json and .md")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    names = [t for t in args.tables.split(",") if t]
    unknown = [t for t in names if t not in suite_tables.TABLES]
    if unknown:
        parser.error(f"--tables: unknown table(s) {unknown}; known: {sorted(suite_tables.TABLES)}")
    rows = []
    for name in names:
        dataset, spec, _ = suite_tables.load(name)
        workload = Workload.from_spec(spec, dataset.domain)
        for epsilon in EPSILONS:
            for path, delta in PATHS:
                rows.append({"table": name, "n": dataset.n, "epsilon": epsilon, "path": path,
                             **plan_of(dataset, workload, epsilon=epsilon, delta=delta)})
                print(json.dumps(rows[-1]), flush=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "suite_plans.json").write_text(json.dumps({"benchmark": "suite_plans", "plans": rows}, indent=1) + "\n")
    lines = ["# MWEM's default plans on the tuning suite (public quantities only)", "",
             "Written by `benchmarks/suite_plans.py`. T: planned rounds (INIT alone: T = d, no round runs). "
             "Loss: the selection's 4 ln C / (n eps_s) at a planned round (Thm 3.11); the noise target is 0.5.", "",
             "| table | n | eps | path | noise | T | d | C | select share | select eps | loss |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        rounds = f"{r['rounds']} (INIT alone)" if r["init_alone"] else str(r["rounds"])
        if r["blind_rounds"] is not None:  # the blind-selection plan runs instead (MWEMPlan.blind_selection_plan)
            rounds = f"{r['rounds']} -> {r['blind_rounds']} unannealed (blind selection)"
        loss = "-" if r["selection_loss"] is None or r["init_alone"] else f"{r['selection_loss']:.2f}"
        lines.append(f"| {r['table']} | {r['n']:,} | {r['epsilon']:g} | {r['path']} | {r['noise']} | {rounds} | "
                     f"{r['d']} | {r['candidates']} | {r['selection_share']:.3f} | {r['select_epsilon']:.2e} | {loss} |")
    (out / "suite_plans.md").write_text("\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
