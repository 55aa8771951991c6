"""``dprelease report``: a release as one self-contained HTML page (or Markdown), optionally against the real data."""

from __future__ import annotations

import argparse
from pathlib import Path

from dprelease.cli.common import check_output, integer, terminal_progress
from dprelease.domain import Domain
from dprelease.evaluate.comparison import PersonUnit, read_real
from dprelease.errors import InputError
from dprelease.release import Release
from dprelease.files import write_atomic, write_output
from dprelease.release.files import side_file_name
from dprelease.report import FORMATS, build_report, render
from dprelease.schema import Schema
from dprelease.validation import check_positive_int


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "report", help="a readable report of a release (one HTML file, or Markdown)",
        description="Write one self-contained HTML file (charts inline; opens offline) or a Markdown text about a "
                    "release: its guarantee and privacy ledger, the mechanism's rounds, and the synthetic table "
                    "beside the released answers. With --data, a NOT PRIVATE section compares the release with the "
                    "real table (and the baselines drawn from it): that file is for the curator's eyes only.")
    parser.add_argument("release", type=Path, help="the release JSON written by synth --release (its .answers.npz "
                                                   "side file beside it), or a release from dprelease serve")
    parser.add_argument("--rows", type=Path, default=None,
                        help="a release from dprelease serve (answers inline): its rows.csv, for the sections on the "
                             "synthetic rows (without it the report has none)")
    parser.add_argument("--data", type=Path, default=None,
                        help="the real CSV or its part files (a quoted glob or a folder; of raw values, for a "
                             "release made through a schema: encoded by the release's own schema): adds the NOT "
                             "PRIVATE comparison (never publish that report)")
    parser.add_argument("--domain", type=Path, default=None,
                        help="domain JSON of --data (default: the release's own domain; if given, it must agree)")
    parser.add_argument("--out", type=Path, default=None,
                        help="the report file to write (without it: the Markdown report on stdout, for a public "
                             "report only)")
    parser.add_argument("--format", choices=FORMATS, default=None,
                        help="html (charts need the 'report' extra, matplotlib) or md (text, tables only); "
                             "default: md when --out ends in .md or is not given, else html")
    parser.add_argument("--seed", type=integer("--seed"), default=0,
                        help="seed of the baselines drawn from --data (default 0)")
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    parser.set_defaults(handler=run)


def check_domain(path: Path, release: Release) -> None:
    """--domain must give every column of the release the release's number of values."""
    given = Domain.from_json(path)
    for attribute, size in zip(release.domain.attributes, release.domain.sizes):
        if attribute not in given:
            raise InputError(f"--domain {str(path)!r} lacks the release's column {attribute!r}")
        if given.size_of(attribute) != size:
            raise InputError(f"--domain {str(path)!r} gives column {attribute!r} {given.size_of(attribute)} values; "
                             f"the release has {size}")


def run(args: argparse.Namespace) -> int:
    # Public checks first (the output path, the release and its side file, the domain), then the real data.
    to_stdout = args.out is None
    if to_stdout and args.data is not None:  # never print the curator's comparison where a terminal log keeps it
        raise InputError("--out is required with --data: that report is NOT PRIVATE and is written only to a file "
                         "the curator alone can read")
    if to_stdout and args.format == "html":
        raise InputError("--out is required with --format html (one file, charts inline); without --out the report "
                         "is Markdown on stdout")
    fmt = args.format or ("md" if to_stdout or args.out.suffix.lower() in (".md", ".markdown") else "html")
    seed = check_positive_int(args.seed, "--seed", minimum=0)
    if args.release.is_dir():  # a folder has no name to put the side file's beside (Path('.').with_name fails)
        raise InputError(f"release {str(args.release)!r} is a folder; give the release's JSON file")
    side = args.release.with_name(side_file_name(args.release))
    if not to_stdout:
        check_output(args.out, args.release, side, args.data, args.domain, args.rows, flag="--out")
    progress = terminal_progress(args, "report")
    progress.phase(f"reading {args.release.name}")
    release = Release.load(args.release, rows=args.rows)
    if args.domain is not None:
        check_domain(args.domain, release)
    if args.data is not None:
        progress.phase(f"reading {args.data.name}")
    real = None
    if args.data is not None:  # a release made through a schema compares with the raw table encoded by it
        schema = None if release.schema is None else Schema.coerce(release.schema)
        # a person-level release's: with its persons, for the per-person baseline
        real = read_real(args.data, args.data, release.domain, schema, PersonUnit.of(release.parameters))
    progress.phase("building the report")
    content = build_report(release, real=real, seed=seed)
    progress.phase(f"drawing ({fmt})")
    text = render(content, fmt)
    if to_stdout:  # a public release's report: nothing private to protect
        progress.close()
        print(text, end="" if text.endswith("\n") else "\n")
        return 0
    progress.phase("write file")
    # Against the real data the report is the curator's alone: mode 0600, whatever the umask.
    write_output("--out", args.out, lambda staged: write_atomic(staged, text), public=real is None)
    progress.close()
    print(f"wrote the {fmt} report of {args.release} to {args.out}")
    if real is not None:
        print("it holds NOT PRIVATE information computed from --data: keep it to the curator, never publish it")
    return 0
