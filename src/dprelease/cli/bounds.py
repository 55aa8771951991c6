"""``dprelease bounds``: which mechanism the theory favours, before any budget is spent.

    dprelease bounds --n N --universe U --queries Q --epsilon E [--delta D] [--beta B] [--json]

Prints, for every mechanism, the max error over Q its theorem guarantees w.p. >= 1 - beta
("no guarantee" where the theorem is vacuous), its rounds and per-step epsilon, best first.
Reads no data.
"""

from __future__ import annotations

import argparse
import json

from dprelease.cli.common import integer, number
from dprelease.errors import InputError
from dprelease.planner import format_table, plan_mechanisms
from dprelease.validation import check_delta, check_open_unit, check_positive, check_positive_int


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "bounds", help="plan: each mechanism's guaranteed accuracy from n, |X|, |Q|, epsilon",
        description="For every mechanism, the max error over Q its theorem guarantees with probability "
                    ">= 1 - beta, sorted best first. Reads no data.")
    parser.add_argument("--n", type=integer("--n"), required=True, help="number of rows (public)")
    parser.add_argument("--universe", type=integer("--universe"), required=True, help="|X|, the number of cells")
    parser.add_argument("--queries", type=integer("--queries"), required=True, help="|Q|, the number of queries")
    parser.add_argument("--epsilon", type=number("--epsilon"), required=True, help="the privacy budget epsilon")
    parser.add_argument("--delta", type=number("--delta"), default=0.0, help="default 0 (pure DP)")
    parser.add_argument("--beta", type=number("--beta"), default=0.05, help="failure probability (default 0.05)")
    parser.add_argument("--norm-ratio-bound", type=number("--norm-ratio-bound"), default=1.0,
                        help="public bound on ||x||_2/||x||_1 for the perceptron (default 1: always true)")
    parser.add_argument("--json", action="store_true", help="JSON instead of a table")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # The theorems' own checks name their arguments (num_queries); the command names its flags.
    for value, flag in ((args.n, "--n"), (args.universe, "--universe"), (args.queries, "--queries")):
        check_positive_int(value, flag)
    check_positive(args.epsilon, "--epsilon")
    check_delta(args.delta, "--delta")
    check_open_unit(args.beta, "--beta")
    if not check_positive(args.norm_ratio_bound, "--norm-ratio-bound") <= 1:
        raise InputError(f"--norm-ratio-bound must be a number in (0, 1] (||x||_2 <= ||x||_1 always), got "
                         f"{args.norm_ratio_bound!r}")
    rows = plan_mechanisms(n=args.n, universe_size=args.universe, num_queries=args.queries, epsilon=args.epsilon,
                           delta=args.delta, beta=args.beta, norm_ratio_bound=args.norm_ratio_bound)
    if args.json:
        print(json.dumps({"n": args.n, "universe_size": args.universe, "num_queries": args.queries,
                          "epsilon": args.epsilon, "delta": args.delta, "beta": args.beta,
                          "norm_ratio_bound": args.norm_ratio_bound,
                          "mechanisms": [r.to_json() for r in rows]}, indent=1))
    else:
        print(f"guaranteed max error over Q w.p. >= {1 - args.beta:g} (n={args.n}, |X|={args.universe}, "
              f"|Q|={args.queries}, epsilon={args.epsilon:g}, delta={args.delta:g}); best first")
        print(format_table(rows))
    return 0
