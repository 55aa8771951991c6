"""``dprelease demo``: raw UCI Adult in, decoded synthetic Adult out, beside two baselines.

The bundled raw Adult training split (32,561 rows of text, numbers and '?' blanks) goes through its bundled
public schema (written from ``adult.names``), MWEM releases a synthetic table for all 1-, 2- and 3-way
marginals of the encoded columns at (epsilon, delta) = (1, 1e-9), and the rows come back decoded, with the
original columns. The demo prints the workload errors beside two baselines and a few real and synthetic
rows side by side.
"""

from __future__ import annotations

import argparse
import csv
import sys
import time
import warnings
from pathlib import Path

import numpy as np

from dprelease.api import load_schema, synthesize, with_schema
from dprelease.cli.common import check_output, column_list, integer, number, save_release_files, terminal_progress
from dprelease.data import Dataset
from dprelease.datasets import ADULT_RAW_COLUMNS, ADULT_RAW_SPLITS, adult_raw_paths, adult_raw_schema, load_adult_raw_codes
from dprelease.errors import InputError, SeededRunWarning, WeakPrivacyWarning
from dprelease.evaluate import workload_errors
from dprelease.files import Outputs
from dprelease.privacy.rng import make_rng
from dprelease.queries.workload import Workload
from dprelease.schema import decode
from dprelease.validation import check_delta, check_epsilon, check_positive_int

#: Rows of each kind printed side by side.
SHOWN = 3
#: Width of one printed cell.
CELL = 16


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("demo", help="raw Adult in, decoded synthetic Adult out (MWEM), beside baselines",
                                 description="MWEM on the bundled raw Adult table (train split, its public schema, "
                                             "all 1-3-way marginals); the synthetic rows are decoded back to text, "
                                             "numbers and blanks.")
    parser.add_argument("--epsilon", type=number("--epsilon"), default=1.0,
                        help="the privacy budget epsilon (default 1; above 10 warns, above 1000 is refused)")
    parser.add_argument("--delta", type=number("--delta"), default=1e-9,
                        help="the privacy parameter delta (default 1e-9; MWEM measures with Gaussian noise under zCDP)")
    parser.add_argument("--columns", type=column_list, help="comma-separated columns to use (default: all 15)")
    parser.add_argument("--workload", default="1-3way",
                        help="the marginals to preserve, as for synth (default 1-3way: all 575 1-, 2- and 3-way)")
    parser.add_argument("--seed", type=integer("--seed"), help="reproducible run; NOT fit for a real release")
    parser.add_argument("--out", type=Path, default=Path("dprelease-demo"), help="output folder (default dprelease-demo)")
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    parser.set_defaults(handler=run)


def _errors(real: Dataset, rows: np.ndarray, workload: Workload) -> dict[str, object]:
    return workload_errors(real, Dataset.from_records(rows, real.domain), workload)


def _real_rows(indices: np.ndarray) -> list[list[str]]:
    """Rows of the bundled (public) raw training file, as published."""
    path = adult_raw_paths()["train"]
    with path.open(newline="", encoding="utf-8") as handle:
        lines = [row for row in csv.reader(handle, skipinitialspace=True) if row]
    return [lines[ADULT_RAW_SPLITS["train"][1] + int(i)] for i in indices]


def _side_by_side(names: tuple[str, ...], real: list[list[str]], synthetic: list[list[str]]) -> list[str]:
    cut = lambda text: text if len(text) <= CELL else text[: CELL - 1] + "~"  # noqa: E731
    head = (f"{'column':<16} | " + " ".join(f"{'real ' + str(i + 1):<{CELL}}" for i in range(len(real))) + " | "
            + " ".join(f"{'synthetic ' + str(i + 1):<{CELL}}" for i in range(len(synthetic))))
    lines = [head, "-" * len(head)]
    for j, name in enumerate(names):
        lines.append(f"{cut(name):<16} | " + " ".join(f"{cut(r[j]):<{CELL}}" for r in real) + " | "
                     + " ".join(f"{cut(s[j]):<{CELL}}" for s in synthetic))
    return lines


def run(args: argparse.Namespace) -> int:
    check_epsilon(args.epsilon, "--epsilon")
    check_delta(args.delta, "--delta")
    if args.seed is not None:
        check_positive_int(args.seed, "--seed", minimum=0)
    if args.out.exists() and not args.out.is_dir():
        raise InputError(f"--out {str(args.out)!r} exists and is not a folder")
    for name in ("adult-synth.csv", "adult-release.json"):
        check_output(args.out / name, flag="--out")
    schema = load_schema(adult_raw_schema(), args.columns)
    workload = Workload.from_spec(args.workload, schema.domain)
    data = adult_raw_paths()["train"]
    print(f"raw Adult (train split, {data.name}): {len(schema.columns)} columns of text, numbers and '?' blanks, "
          f"encoded by its public schema ({schema.domain.size:.2g} cells); workload: {args.workload} "
          f"({len(workload.marginals)} marginals); epsilon = {args.epsilon:g}, delta = {args.delta:g}")
    sys.stdout.flush()
    progress = terminal_progress(args, "mwem")
    start = time.perf_counter()
    # RAW IN: the bundled file through the schema's encoder (load_adult_raw_codes: encode_table, no pandas).
    progress.phase("encode")
    real = load_adult_raw_codes("train").select(schema.names)
    progress.done()
    release = with_schema(synthesize(real, workload, mechanism="mwem", epsilon=args.epsilon, delta=args.delta,
                                     seed=args.seed, progress=progress), schema)
    # DECODED OUT (post-processing): values drawn inside their bins, NULLs as the file's '?'.
    progress.phase("decode")
    rng = make_rng(None if args.seed is None else args.seed + 1, warn=False)
    decoded = decode(release.rows, schema, values="uniform", rng=rng)
    seconds = time.perf_counter() - start
    progress.phase("write files")
    release.extra["decoded"] = {"values": "uniform", "format": "csv", "columns": list(schema.names)}
    with Outputs() as outputs:  # both files or neither
        outputs.write("--out", args.out / "adult-synth.csv", decoded.to_csv)
        save_release_files(release, args.out / "adult-release.json", outputs, "--out")
        outputs.commit()
    progress.phase("baselines")

    # The bundled table is public, so the demo may score its release against it (a curator's step).
    with warnings.catch_warnings():  # the run's own seed and weak-epsilon warnings were given once already
        warnings.simplefilter("ignore", SeededRunWarning)
        warnings.simplefilter("ignore", WeakPrivacyWarning)
        independent = synthesize(real, workload, mechanism="independent", epsilon=args.epsilon,
                                 seed=None if args.seed is None else args.seed + 2)
    uniform = np.column_stack([rng.choice(np.full(size, 1 / size), real.n) for size in real.domain.sizes])
    table = {
        "MWEM (this release)": (_errors(real, release.rows, workload), f"{seconds:.1f}"),
        "independent noisy 1-way marginals": (_errors(real, independent.rows, workload), "-"),
        "uniform (no data)": (_errors(real, uniform, workload), "-"),
    }
    progress.close()
    print()
    print(f"| {'system (synthetic rows, n = ' + str(real.n) + ')':<40} | avg L1 | max error | seconds |")
    print(f"|{'-' * 42}|--------|-----------|---------|")
    for name, (errors, secs) in table.items():
        print(f"| {name:<40} | {errors['avg_l1']:.4f} | {errors['max_error']:.4f}    | {secs:>7} |")

    positions = [list(ADULT_RAW_COLUMNS).index(name) for name in schema.names]
    shown_real = [[row[i] for i in positions] for row in _real_rows(rng.permutation(real.n)[:SHOWN])]
    text = decoded.text_columns()
    shown_synthetic = [[str(column[i]) for column in text] for i in rng.permutation(decoded.n)[:SHOWN]]
    print()
    print("\n".join(_side_by_side(schema.names, shown_real, shown_synthetic)))
    spent = release.privacy_ledger["spent"]
    print()
    print(f"privacy: {release.guarantee}; spent epsilon = {spent['epsilon']:g}, delta = {spent['delta']:g}")
    print(f"wrote {args.out / 'adult-synth.csv'} (decoded rows, the original columns) and "
          f"{args.out / 'adult-release.json'}")
    if args.seed is not None:
        print("note: seeded run, reproducible but NOT fit for a real release")
    return 0
