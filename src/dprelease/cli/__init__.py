"""The ``dprelease`` command: synth, evaluate, report, demo, bounds, online, schema, serve.

Exit codes: 0 success; 2 a user mistake (one line on stderr, nothing written);
1 an internal error (a bug: the traceback is kept so it can be reported); 141 stdout closed early (a pipe).

The subcommands are imported inside :func:`build_parser`: on a loaded machine importing them (numpy,
scipy, every mechanism) takes seconds, and a long command (synth, demo, report, evaluate) draws its
progress line before that, so a terminal never sits silent (:mod:`dprelease.progress`).
"""

from __future__ import annotations

import os
import sys
import warnings

from dprelease.errors import BudgetExceededError, DPReleaseError
from dprelease.progress import Progress

#: Subcommands that report progress on a terminal (they take seconds to minutes on real tables).
LONG_COMMANDS = ("synth", "demo", "report", "evaluate", "online")
#: The exit code of a command whose stdout was closed early (128 + SIGPIPE, as the shell reports one).
EXIT_BROKEN_PIPE = 141


def build_parser():
    from dprelease import __version__
    from dprelease.cli import bounds, demo, evaluate, online, report, schema, serve, synth
    from dprelease.cli.common import OneLineParser

    parser = OneLineParser(prog="dprelease", description="Differentially private query release.",
                           epilog="Run 'dprelease COMMAND --help' for a command's options.")
    parser.add_argument("--version", action="version", version=f"dprelease {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=OneLineParser)
    for module in (synth, evaluate, demo, bounds, online, schema, serve, report):
        module.register(commands)
    return parser


def early_progress(argv: list[str]) -> Progress:
    """A progress line for a long subcommand, drawn before the imports; silent otherwise (and off a terminal)."""
    wanted = bool(argv) and argv[0] in LONG_COMMANDS and not {"-h", "--help", "--quiet", "--json"} & set(argv)
    progress = Progress.for_terminal("dprelease", quiet=not wanted)
    progress.phase("starting")
    return progress


def _one_line_warning(message, category, filename, lineno, file=None, line=None) -> None:
    # On a terminal, clear the progress line first; the next redraw puts it back below the warning.
    clear = "\r\x1b[K" if sys.stderr.isatty() else ""
    sys.stderr.write(f"{clear}dprelease: warning: {message}\n")


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    progress = early_progress(argv)
    try:
        args = build_parser().parse_args(argv)
    except BaseException:
        progress.abort()
        raise
    from dprelease.cli.common import EXIT_USAGE

    args.progress = progress
    warnings.showwarning = _one_line_warning
    try:
        code = args.handler(args)
        sys.stdout.flush()  # a closed pipe shows here, not at exit as "Exception ignored ..."
        return code
    except BrokenPipeError:
        # The reader went away (`dprelease evaluate ... | head -1`): exit quietly, as a killed-by-SIGPIPE
        # command does (128 + 13), with stdout on devnull so the flush at exit cannot fail again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except BudgetExceededError as exc:
        progress.abort()
        sys.stderr.write(f"dprelease: error: {exc}\n")
        return EXIT_USAGE
    except DPReleaseError as exc:
        progress.abort()
        sys.stderr.write(f"dprelease: error: {exc}\n")
        return EXIT_USAGE
    except KeyboardInterrupt:
        progress.abort()
        sys.stderr.write("dprelease: interrupted; nothing was written\n")
        return 130
    finally:
        progress.abort()  # after success the handler has closed it; after a bug, the traceback follows


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
