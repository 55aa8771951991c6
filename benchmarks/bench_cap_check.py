"""The model-size cap check near the cap on wide tables: seconds of one check of every candidate pair.

MWEM checks each round that every candidate marginal still fits the model's cap (500,000 cells by default):
:func:`dprelease.representations.junction_tree.candidates_fit` triangulates the model plus each candidate. Near
the cap on a wide table this check is most of a round's time (the 200-marker genotype table at eps 10 took 7-9
minutes a round there before session 46). This script times it where it is slowest:

- **Tables.** d ternary columns (the genotype tables' domain), d in ``--columns`` (60, 100, 200).
- **Model.** Random pairs (seed 5), each kept while the model's junction tree stays within 90 % of the cap, until
  it holds over 87 % of the cap: the state of a long run of pairs near its cap. Built with the code under test.
- **Timed.** One ``candidates_fit`` call on every pair not in the model, ``--repeats`` times; the median.
- **Side by side.** ``--compare-with REV`` times the same call on the same models with the code of git revision
  REV (a temporary worktree, in a subprocess), in the same run, ``--compare-repeats`` times (1: the code before
  session 46 takes about 20 minutes at 200 columns), and checks that both give the same fits.

Writes ``cap_check.json`` and ``cap_check.md`` to ``--out``. About 8 minutes alone, 30 with ``--compare-with`` a
revision before session 46; run it on an idle machine (wall-clock seconds).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from provenance import REPO, git, machine_info

CAP = 500_000
MODEL_SEED = 5


def ternary_domain(columns: int):
    from dprelease.domain import Domain

    return Domain(tuple(f"m{j:03d}" for j in range(columns)), (3,) * columns)


def grow_model(columns: int, cap: int = CAP, fill: float = 0.9) -> list[tuple[str, ...]]:
    """One-column cliques and random pairs, each kept while the tree stays within ``fill`` of the cap, until it
    holds over 0.97 of that."""
    from dprelease.representations.junction_tree import candidate_cells

    domain = ternary_domain(columns)
    pairs = [domain.canonical(p) for p in itertools.combinations(domain.attributes, 2)]
    model = [(a,) for a in domain.attributes]
    for i in np.random.default_rng(MODEL_SEED).permutation(len(pairs)):
        cells = candidate_cells(domain, model, [pairs[i]])[0]
        if cells <= cap * fill:
            model.append(pairs[i])
            if cells > cap * fill * 0.97:
                break
    return model


def time_check(columns: int, model: list[tuple[str, ...]], repeats: int) -> dict:
    """Seconds of ``candidates_fit`` on every pair not in ``model`` (each repeat), and a hash of the fits."""
    from dprelease.representations.junction_tree import candidate_cells, candidates_fit

    domain = ternary_domain(columns)
    taken = set(model)
    left = [p for p in (domain.canonical(p) for p in itertools.combinations(domain.attributes, 2)) if p not in taken]
    seconds, fits = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        fits = candidates_fit(domain, model, left, CAP)
        seconds.append(time.perf_counter() - start)
    return {"columns": columns, "model_cliques": len(model), "model_cells": int(candidate_cells(domain, model,
                                                                                                [model[0]])[0]),
            "candidates": len(left), "fit": int(fits.sum()), "seconds": seconds,
            "fits_sha256": hashlib.sha256(np.packbits(fits).tobytes()).hexdigest()[:16]}


def time_at_revision(revision: str, columns: int, model: list, repeats: int) -> dict:
    """:func:`time_check` with the code of git ``revision``, in a fresh interpreter on a temporary worktree."""
    with tempfile.TemporaryDirectory() as scratch:
        tree = Path(scratch) / "tree"
        subprocess.run(["git", "worktree", "add", "-q", "--detach", str(tree), revision], cwd=REPO, check=True)
        try:
            model_file = Path(scratch) / "model.json"
            model_file.write_text(json.dumps(model))
            env = dict(os.environ, PYTHONPATH=str(tree / "src"))
            out = subprocess.run([sys.executable, __file__, "--worker", str(model_file), "--columns", str(columns),
                                  "--repeats", str(repeats)], env=env, capture_output=True, text=True, check=True)
            return json.loads(out.stdout.strip().splitlines()[-1])
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=REPO, check=True)


def render(result: dict) -> str:
    compared = result["compare_with"]
    lines = ["# The model-size cap check near the cap (`bench_cap_check.py`)", "",
             f"Commit `{result['commit']}`{' with uncommitted changes to src/' if result['src_changed'] else ''}; "
             f"{result['machine']['cpu_count']} CPUs, numpy {result['machine']['numpy']}; "
             f"{result['machine']['date']}, 1-minute load {result['machine']['loadavg_at_start'][0]:.2f} at the start. "
             "One `candidates_fit` call on every pair not in a model of random pairs "
             f"grown to about 87 % of the {CAP:,}-cell cap, on d ternary columns; median of "
             f"{result['repeats']} repeats"
             + (f" ({result['compare_repeats']} at `{compared[:10]}`)." if compared else "."), ""]
    head = "| columns | model cliques | model cells | candidates | fit | seconds (this code) |"
    rule = "|---|---|---|---|---|---|"
    if compared:
        head += f" seconds (`{compared[:10]}`) | ratio | same fits |"
        rule += "---|---|---|"
    lines += [head, rule]
    for row in result["rows"]:
        now = statistics.median(row["seconds"])
        line = (f"| {row['columns']} | {row['model_cliques']} | {row['model_cells']:,} | {row['candidates']:,} | "
                f"{row['fit']:,} | {now:.1f} |")
        if compared:
            then = statistics.median(row["baseline"]["seconds"])
            same = row["baseline"]["fits_sha256"] == row["fits_sha256"]
            line += f" {then:.1f} | {then / now:.1f}x | {'yes' if same else '**NO**'} |"
        lines.append(line)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--columns", default="60,100,200")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--compare-with", default=None, help="a git revision to time side by side")
    parser.add_argument("--compare-repeats", type=int, default=1, help="repeats at that revision (it may be slow)")
    parser.add_argument("--out", default=str(REPO / "benchmarks" / "results"))
    parser.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # a stopped run still removes its temporary worktree
    if args.worker:  # inside the revision's interpreter: time one model, print JSON
        model = [tuple(c) for c in json.loads(Path(args.worker).read_text())]
        print(json.dumps(time_check(int(args.columns), model, args.repeats)))
        return 0
    # the code timed and the machine's state, before it runs
    commit, changed, machine = git("rev-parse", "HEAD"), git("status", "--porcelain", "src"), machine_info()
    rows = []
    for columns in (int(c) for c in args.columns.split(",")):
        model = grow_model(columns)
        row = time_check(columns, model, args.repeats)
        if args.compare_with:
            row["baseline"] = time_at_revision(args.compare_with, columns, model, args.compare_repeats)
        rows.append(row)
        print(json.dumps({k: v for k, v in row.items() if k != "baseline"}), flush=True)
    result = {"benchmark": "cap_check", "machine": machine, "commit": commit, "src_changed": bool(changed),
              "compare_with": args.compare_with and git("rev-parse", args.compare_with), "repeats": args.repeats,
              "compare_repeats": args.compare_repeats,
              "cap": CAP, "rows": rows}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "cap_check.json").write_text(json.dumps(result, indent=1) + "\n")
    (out / "cap_check.md").write_text(render(result))
    print(f"wrote {out / 'cap_check.json'} and {out / 'cap_check.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
