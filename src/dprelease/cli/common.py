"""Shared pieces of the command line: argument types, loading, the error contract.

Contract: a user mistake prints one line ``dprelease: error: ...`` on stderr and
exits with code 2; no traceback, no output file, no budget spent (every check runs
before any private data is read or any file is written).
"""

from __future__ import annotations

import argparse
import difflib
import math
import sys
from pathlib import Path

from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.engines.registry import open_table
from dprelease.errors import InputError
from dprelease.files import Outputs, unwritable
from dprelease.mechanisms.base import Budget
from dprelease.progress import Progress
from dprelease.queries.workload import Workload
from dprelease.release import Release
from dprelease.release.files import SideArrays, side_file_name, write_document, write_side_file
from dprelease.schema import Schema
from dprelease.schema.tables import PARQUET_SUFFIXES

EXIT_USAGE = 2


class OneLineParser(argparse.ArgumentParser):
    """argparse with a one-line error (the default prints the whole usage block) that puts a misspelled flag
    first: argparse checks the required flags before it complains of unknown ones, so ``--max-querys 10`` was
    reported as "--max-queries is required", the misspelling unnamed."""

    def parse_known_args(self, args=None, namespace=None):  # type: ignore[override]
        self._given = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str) -> None:  # type: ignore[override]
        flags = [a.split("=", 1)[0] for a in getattr(self, "_given", ()) if a.startswith("--")]
        unknown = [f for f in flags if not any(o.startswith(f) for o in self._option_string_actions)]  # abbreviations
        if unknown and not message.startswith("unrecognized"):
            near = difflib.get_close_matches(unknown[0], list(self._option_string_actions), n=1, cutoff=0.75)
            message = f"unrecognized argument {unknown[0]!r}" + (f" (did you mean {near[0]}?)" if near else "")
        sys.stderr.write(f"dprelease: error: {message}\n")
        raise SystemExit(EXIT_USAGE)


def number(name: str):
    """An argparse type: a float, with the parameter named in the error."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be a number, got {text!r}") from None
        if not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"{name} must be a finite number, got {text!r}")
        return value

    return parse


def integer(name: str):
    def parse(text: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {text!r}") from None

    return parse


def column_list(text: str) -> list[str]:
    columns = [c.strip() for c in text.split(",")]
    if any(not c for c in columns):
        raise argparse.ArgumentTypeError(f"--columns must be a comma-separated list of names, got {text!r}")
    return columns


def add_data_arguments(parser: argparse.ArgumentParser, *, schema: bool = False) -> None:
    """--domain (a table of codes), or with ``schema`` either --domain or --schema (a raw table), and the
    columns, the workload and the histogram cap."""
    if schema:
        source = parser.add_mutually_exclusive_group(required=True)
        source.add_argument("--domain", type=Path, help="JSON file {attribute: number of values}: the table holds "
                                                         "integer codes 0..size-1")
        source.add_argument("--schema", type=Path,
                            help="public schema (JSON; docs/schema.md): the table holds raw values (text, numbers, "
                                 "dates, blanks), encoded by it, and the synthetic rows are decoded back; a domain "
                                 "file is a schema of codes")
    else:
        parser.add_argument("--domain", required=True, type=Path, help="JSON file {attribute: number of values}")
    parser.add_argument("--columns", type=column_list, help="comma-separated columns to use (default: all)")
    parser.add_argument("--workload", default="1-3way",
                        help="'Kway', 'J-Kway' (e.g. 1-3way) or a JSON file with a list of attribute lists "
                             "(default 1-3way, as the Python Synthesizer's and the demo's)")
    parser.add_argument("--max-cells", type=integer("--max-cells"), default=DEFAULT_MAX_CELLS,
                        help=f"cap on histogram cells (default {DEFAULT_MAX_CELLS:,})")


def selected_domain(args: argparse.Namespace) -> Domain:
    """The domain file's attributes, restricted to ``--columns`` when given (public checks only)."""
    return Domain.from_json(args.domain).select(args.columns, name="--columns")


def load(data: Path, args: argparse.Namespace, mechanism: object = None,
         request: object = None, engine: dict[str, object] | None = None) -> tuple[Dataset, Workload]:
    """Domain, then workload (both public), then the mechanism's public checks, then the table: loaded into
    memory, or opened by the engine that ``engine`` names with its options (cli/engines.py)."""
    domain = selected_domain(args)
    workload = Workload.from_spec(args.workload, domain)
    if mechanism is not None:  # e.g. a histogram over the cap, an ic-mw model the workload cannot fit
        mechanism.check(domain, workload, budget=Budget(epsilon=request.epsilon, delta=request.delta))
    if engine is not None and engine["engine"] != "memory":
        return open_table(data, domain, **engine), workload
    if Path(data).suffix.lower() in PARQUET_SUFFIXES:  # Parquet of codes: the domain as a schema of codes
        return Dataset.from_schema(data, Schema.from_domain(domain)), workload
    return Dataset.from_csv(data, domain), workload


def check_output(path: Path, *inputs: Path | None, flag: str, others: dict[str, Path | None] | None = None,
                 in_place: bool = False) -> None:
    """Refuse, before anything is read or spent, an output path that cannot be written (:func:`unwritable`;
    ``in_place``: opened and appended to, not replaced), would overwrite an input, or names the same file as
    another output (``others``: option -> path)."""
    problem = unwritable(path, atomic=not in_place)
    if problem is not None:
        raise InputError(f"{flag} {str(path)!r} {problem}")
    for source in inputs:
        if source is not None and path.resolve() == Path(source).resolve():
            raise InputError(f"{flag} {str(path)!r} would overwrite the input {str(source)!r}")
    for option, other in (others or {}).items():
        if other is not None and path.resolve() == other.resolve():
            raise InputError(f"{flag} {str(path)!r} and {option} name the same file: each would overwrite the other")


def save_release_files(release: Release, path: Path | None, outputs: Outputs, option: str = "--release") -> None:
    """The release's JSON and its side file, as :meth:`Release.save` writes them, without the CSV of codes
    (a raw table's release writes its decoded rows instead), staged in ``outputs`` (errors name ``option``)."""
    if path is None:
        return
    side = SideArrays()
    document = release.document(side)
    side_path = path.with_name(side_file_name(path))
    entry = outputs.write(option, side_path, lambda staged: write_side_file(staged, side))
    document["side_file"] = {**entry, "name": side_path.name}  # written under a temporary name: the final one
    outputs.write(option, path, lambda staged: write_document(staged, document))
    release.location = path


def terminal_progress(args: argparse.Namespace, label: str) -> Progress:
    """The command's progress line (started by ``main`` before the imports; silent off a terminal), labelled."""
    progress = getattr(args, "progress", None)
    if progress is None:
        return Progress.for_terminal(label, quiet=getattr(args, "quiet", False))
    progress.done()  # "starting", drawn under main's label
    progress.label = label
    return progress
