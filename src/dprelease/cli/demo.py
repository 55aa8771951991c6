"""``dprelease demo``: the bundled Adult table, MWEM at eps = 1, beside two baselines."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from dprelease.api import synthesize
from dprelease.cli.common import integer, number, terminal_progress
from dprelease.data import Dataset
from dprelease.datasets import ADULT_SMALL_COLUMNS, load_adult
from dprelease.errors import InputError
from dprelease.evaluate import workload_errors
from dprelease.mechanisms.baselines import IndependentMarginals, uniform_model
from dprelease.privacy.rng import make_rng
from dprelease.queries.workload import Workload
from dprelease.validation import check_epsilon, check_positive_int


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("demo", help="run MWEM on the bundled Adult data and compare with baselines",
                                 description="MWEM on the bundled Adult table (7 columns, all 1-3-way marginals), scored beside two "
                                             "baselines; writes the synthetic rows and the release to --out.")
    parser.add_argument("--epsilon", type=number("--epsilon"), default=1.0,
                        help="the privacy budget epsilon (default 1; above 10 warns, above 1000 is refused)")
    parser.add_argument("--seed", type=integer("--seed"), help="reproducible run; NOT fit for a real release")
    parser.add_argument("--out", type=Path, default=Path("dprelease-demo"), help="output folder (default dprelease-demo)")
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    parser.set_defaults(handler=run)


def _rows_errors(real: Dataset, rows, workload: Workload) -> dict[str, object]:
    return workload_errors(real, Dataset.from_records(rows, real.domain), workload)


def run(args: argparse.Namespace) -> int:
    check_epsilon(args.epsilon, "--epsilon")
    if args.seed is not None:
        check_positive_int(args.seed, "--seed", minimum=0)
    if args.out.exists() and not args.out.is_dir():
        raise InputError(f"--out {str(args.out)!r} exists and is not a folder")
    real = load_adult(ADULT_SMALL_COLUMNS)
    workload = Workload.all_kway(real.domain, 3, smallest=1)
    print(f"Adult: {real.n} rows, {len(real.domain)} columns ({real.domain.size:,} cells); "
          f"workload: all 1-3-way marginals ({len(workload.marginals)} marginals, {workload.num_queries:,} cells); "
          f"epsilon = {args.epsilon:g}")
    sys.stdout.flush()
    progress = terminal_progress(args, "mwem")
    start = time.perf_counter()
    release = synthesize(real, workload, mechanism="mwem", epsilon=args.epsilon, seed=args.seed, progress=progress)
    seconds = time.perf_counter() - start
    progress.phase("write files")
    release.save(args.out / "adult-synth.csv", args.out / "adult-release.json")
    progress.phase("baselines")

    baseline_rng = make_rng(None if args.seed is None else args.seed + 1, warn=False)
    independent, _ = IndependentMarginals(epsilon=args.epsilon).run(real, rng=baseline_rng)
    rows = {
        "MWEM (this release)": (_rows_errors(real, release.rows, workload), f"{seconds:.1f}"),
        "independent noisy 1-way marginals": (
            _rows_errors(real, independent.sample(real.n, baseline_rng), workload), "-"),
        "uniform (no data)": (_rows_errors(real, uniform_model(real.domain).sample(real.n, baseline_rng), workload), "-"),
    }
    progress.close()
    print()
    print(f"| {'system (synthetic rows, n = ' + str(real.n) + ')':<40} | avg L1 | max error | seconds |")
    print(f"|{'-' * 42}|--------|-----------|---------|")
    for name, (errors, secs) in rows.items():
        print(f"| {name:<40} | {errors['avg_l1']:.4f} | {errors['max_error']:.4f}    | {secs:>7} |")
    spent = release.privacy_ledger["spent"]
    print()
    print(f"privacy: {release.guarantee}; spent epsilon = {spent['epsilon']:g} (the exact amount is in the release)")
    print(f"wrote {args.out / 'adult-synth.csv'} and {args.out / 'adult-release.json'}")
    if args.seed is not None:
        print("note: seeded run, reproducible but NOT fit for a real release")
    return 0
