"""``dprelease synth``: a private table in, a differentially private synthetic table out."""

from __future__ import annotations

import argparse
import textwrap
from pathlib import Path

from dprelease.api import SynthesisRequest, synthesize
from dprelease.cli.common import add_data_arguments, check_output, integer, load, number
from dprelease.mechanisms import registry
from dprelease.mechanisms.progress import Progress
from dprelease.rows import ROW_CHOICES


def register(commands: argparse._SubParsersAction) -> None:
    mechanisms = "\n".join(textwrap.fill(f"{name}: {summary}", width=96, initial_indent="  ",
                                          subsequent_indent="      ") for name, summary in registry.describe())
    parser = commands.add_parser("synth", help="release a DP synthetic table for a marginal workload",
                                 description="Release a differentially private synthetic table.",
                                 epilog=f"mechanisms (--mechanism):\n{mechanisms}",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", type=Path, help="CSV of integer codes with a header row")
    add_data_arguments(parser)
    parser.add_argument("--mechanism", choices=registry.names(), default="mwem",
                        help="the mechanism (each is described below; default: mwem)")
    parser.add_argument("--epsilon", type=number("--epsilon"), required=True)
    parser.add_argument("--delta", type=number("--delta"), default=0.0,
                        help="default 0 (pure DP); > 0: mwem measures with Gaussian noise under zCDP, the ic-* "
                             "mechanisms use advanced composition; boosting needs it; smalldb ignores it")
    for option in registry.command_line_options():  # every mechanism's user options, from the registry
        kind = {int: integer(option.flag), float: number(option.flag)}.get(option.kind)
        parser.add_argument(option.flag, type=kind, choices=option.choices, default=None, help=option.help)
    parser.add_argument("--rows", choices=ROW_CHOICES, default="auto",
                        help="fitted: rounded, then fitted to the released workload answers; round: n*p by largest "
                             "remainder; sample: i.i.d. draws from the model; auto (default): the one the mechanism "
                             "measured better for the run (the release says which and why)")
    parser.add_argument("--n-rows", type=integer("--n-rows"), help="number of synthetic rows (default: n)")
    parser.add_argument("--seed", type=integer("--seed"), help="reproducible run; NOT fit for a real release")
    parser.add_argument("--out", type=Path, required=True, help="synthetic rows (CSV)")
    parser.add_argument("--release", type=Path, help="full release: answers, ledger, transcript (JSON)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Public checks first: nothing is read, spent or written before they pass.
    request = SynthesisRequest(args.mechanism, args.epsilon, args.delta, args.alpha, args.rounds, args.n_rows,
                               args.rows, args.max_cells, args.seed, args.representation or "auto",
                               args.max_model_cells)
    check_output(args.out, args.data, args.domain, flag="--out")
    if args.release is not None:
        check_output(args.release, args.data, args.domain, args.out, flag="--release")
    dataset, workload = load(args.data, args, request.mechanism_entry(args.base), request)
    release = synthesize(
        dataset, workload, mechanism=args.mechanism, epsilon=args.epsilon, delta=args.delta, alpha=args.alpha,
        rounds=args.rounds, n_rows=args.n_rows, rows=args.rows, seed=args.seed, max_cells=args.max_cells,
        representation=args.representation or "auto", base=args.base, max_model_cells=args.max_model_cells,
        progress=Progress.for_terminal(args.mechanism, quiet=args.quiet),
    )
    release.save(args.out, args.release)
    ledger = release.privacy_ledger["spent"]
    print(f"wrote {len(release.rows)} synthetic rows to {args.out}"
          + (f" and the release to {args.release}" if args.release else ""))
    print(f"privacy spent: epsilon={ledger['epsilon']:.6g}, delta={ledger['delta']:.3g} ({release.guarantee})")
    return 0
