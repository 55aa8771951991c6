"""``dprelease evaluate``: workload error of a synthetic table against the real one."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from dprelease.cli.common import add_data_arguments, load
from dprelease.data import Dataset
from dprelease.evaluate import workload_errors


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("evaluate", help="max error and average L1 of a synthetic table",
                                 description="Compare a synthetic table with the real one on a marginal workload "
                                             "(the same metrics as shared/bench/score.py).")
    parser.add_argument("data", type=Path, help="the real CSV")
    parser.add_argument("synthetic", type=Path, help="the synthetic CSV")
    add_data_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    real, workload = load(args.data, args)
    synthetic = Dataset.from_csv(args.synthetic, real.domain)
    errors = workload_errors(real, synthetic, workload)
    errors.update({"n_real": real.n, "n_synthetic": synthetic.n})
    if args.json:
        print(json.dumps(errors, indent=2))
    else:
        print(f"workload: {errors['n_marginals']} marginals, {workload.num_queries} cells")
        print(f"max error:  {errors['max_error']:.4f}  (worst marginal {errors['worst_marginal']})")
        print(f"average L1: {errors['avg_l1']:.4f}")
    return 0
