"""The ``dprelease`` command: synth, evaluate, demo.

Exit codes: 0 success; 2 a user mistake (one line on stderr, nothing written);
1 an internal error (a bug: the traceback is kept so it can be reported).
"""

from __future__ import annotations

import sys
import warnings

from dprelease import __version__
from dprelease.cli import bounds, demo, evaluate, online, report, schema, serve, synth
from dprelease.cli.common import EXIT_USAGE, OneLineParser
from dprelease.errors import BudgetExceededError, DPReleaseError


def build_parser() -> OneLineParser:
    parser = OneLineParser(prog="dprelease", description="Differentially private query release.")
    parser.add_argument("--version", action="version", version=f"dprelease {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for module in (synth, evaluate, demo, bounds, online, schema, serve, report):
        module.register(commands)
    return parser


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    sys.stderr.write(f"dprelease: warning: {message}\n")


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    warnings.showwarning = _one_line_warning
    try:
        return args.handler(args)
    except BudgetExceededError as exc:
        sys.stderr.write(f"dprelease: error: {exc}\n")
        return EXIT_USAGE
    except DPReleaseError as exc:
        sys.stderr.write(f"dprelease: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        sys.stderr.write("dprelease: interrupted; nothing was written\n")
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
