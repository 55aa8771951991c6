"""``dprelease synth``: a private table in, a differentially private synthetic table out."""

from __future__ import annotations

import argparse
from pathlib import Path

from dprelease.api import MECHANISMS, ROW_METHODS, SynthesisRequest, synthesize
from dprelease.boosting.mechanism import boosting_for_release, check_base_choice
from dprelease.bounds import BOOSTING_BASES
from dprelease.cli.common import add_data_arguments, check_output, integer, load, number
from dprelease.representations import REPRESENTATIONS
from dprelease.mechanisms.progress import Progress


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser("synth", help="release a DP synthetic table for a marginal workload",
                                 description="Release a differentially private synthetic table.")
    parser.add_argument("data", type=Path, help="CSV of integer codes with a header row")
    add_data_arguments(parser)
    parser.add_argument("--mechanism", choices=MECHANISMS, default="mwem")
    parser.add_argument("--epsilon", type=number("--epsilon"), required=True)
    parser.add_argument("--delta", type=number("--delta"), default=0.0,
                        help="used by ic-mw, and by mwem: > 0 measures with Gaussian noise, zCDP accounting (default 0)")
    parser.add_argument("--alpha", type=number("--alpha"), help="ic-mw target accuracy")
    parser.add_argument("--rounds", type=integer("--rounds"), help="MWEM rounds, or a cap on ic-mw rounds")
    parser.add_argument("--rows", choices=ROW_METHODS, default="auto",
                        help="fitted: rounded, then fitted to the released workload answers; round: n*p by largest "
                             "remainder; sample: i.i.d. draws from the model; auto (default): fitted for mwem with "
                             "--delta > 0 or a factored model, round otherwise (measured better there)")
    parser.add_argument("--representation", choices=REPRESENTATIONS, default="auto",
                        help="the model of mwem and ic-mw: histogram (explicit, up to --max-cells), factored "
                             "(log-linear on the measured marginals, any domain size; for ic-mw the model over all "
                             "the workload's marginals must fit its cap), auto (histogram when the domain fits; "
                             "default)")
    parser.add_argument("--base", choices=BOOSTING_BASES, default=None,
                        help="boosting (needs --delta > 0; --rounds sets its T): the base synopsis generator, lp "
                             "(Thms 6.7/6.8; default) or bruteforce (Thm 6.6; tiny domains and n only)")
    parser.add_argument("--max-model-cells", type=integer("--max-model-cells"), default=None,
                        help="cap on the factored model's junction-tree cells (default: MWEM 500,000; ic-mw 2,000,000)")
    parser.add_argument("--n-rows", type=integer("--n-rows"), help="number of synthetic rows (default: n)")
    parser.add_argument("--seed", type=integer("--seed"), help="reproducible run; NOT fit for a real release")
    parser.add_argument("--out", type=Path, required=True, help="synthetic rows (CSV)")
    parser.add_argument("--release", type=Path, help="full release: answers, ledger, transcript (JSON)")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Public checks first: nothing is read, spent or written before they pass.
    SynthesisRequest(args.mechanism, args.epsilon, args.delta, args.alpha, args.rounds, args.n_rows,
                     args.rows, args.max_cells, args.seed, args.representation, args.max_model_cells)
    if args.mechanism == "boosting" or args.base is not None:  # boosting's public choices (delta > 0, base)
        boosting_for_release(epsilon=args.epsilon, delta=args.delta,
                             base=check_base_choice(args.mechanism, args.base), rounds=args.rounds)
    check_output(args.out, args.data, args.domain, flag="--out")
    if args.release is not None:
        check_output(args.release, args.data, args.domain, args.out, flag="--release")
    dataset, workload = load(args.data, args)
    release = synthesize(
        dataset, workload, mechanism=args.mechanism, epsilon=args.epsilon, delta=args.delta, alpha=args.alpha,
        rounds=args.rounds, n_rows=args.n_rows, rows=args.rows, seed=args.seed, max_cells=args.max_cells,
        representation=args.representation, base=args.base, max_model_cells=args.max_model_cells,
        progress=Progress.for_terminal(args.mechanism, quiet=args.quiet),
    )
    release.save(args.out, args.release)
    ledger = release.privacy_ledger["spent"]
    print(f"wrote {len(release.rows)} synthetic rows to {args.out}"
          + (f" and the release to {args.release}" if args.release else ""))
    print(f"privacy spent: epsilon={ledger['epsilon']:.6g}, delta={ledger['delta']:.3g} ({release.guarantee})")
    return 0
