"""``dprelease synth``: a private table in, a differentially private synthetic table out.

Two ways in: ``--domain`` (a table of integer codes, the rows out are codes) or ``--schema`` (a raw table of
text, numbers, dates and blanks, encoded by its public schema; the rows out are decoded back to the original
column names, order and types). Every public check runs before the table is read; a mistake stops with one
line, exit code 2, nothing written and nothing spent.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from dataclasses import replace
from pathlib import Path

from dprelease.api import SynthesisRequest, load_schema, person_level_options, synthesize, synthesize_table
from dprelease.cli.common import (add_data_arguments, check_output, integer, load, number, save_release_files,
                                  selected_domain, terminal_progress)
from dprelease.cli.engines import add_engine_arguments, engine_options, start_engine
from dprelease.engines.files import detect_format, resolve_files
from dprelease.errors import InputError, InputTypeError
from dprelease.files import Outputs, write_atomic
from dprelease.mechanisms import registry
from dprelease.mechanisms.base import Budget
from dprelease.privacy.rng import make_rng
from dprelease.queries.workload import Workload
from dprelease.report.noise import drowned_note
from dprelease.release.files import side_file_name
from dprelease.rows import ROW_CHOICES
from dprelease.schema import Schema, decode
from dprelease.schema.decode import VALUE_MODES
from dprelease.schema.tables import PARQUET_SUFFIXES, CsvStyle, header_style, need

#: Options that read or decode a raw table: they mean something with --schema only.
SCHEMA_ONLY = ("decode", "allow_non_public_schema", "delimiter", "skip_rows", "privacy_id")
#: Ends the error of a write that fails after the run: a second run is a second spend.
SPENT_NOTE = ", but the run spent its privacy budget"


def register(commands: argparse._SubParsersAction) -> None:
    mechanisms = "\n".join(textwrap.fill(f"{name}: {summary}", width=96, initial_indent="  ",
                                          subsequent_indent="      ") for name, summary in registry.describe())
    parser = commands.add_parser("synth", help="release a DP synthetic table for a marginal workload",
                                 description="Release a differentially private synthetic table for a workload of "
                                             "marginals: the rows and, with --release, the guarantee, the privacy "
                                             "ledger, the transcript and the answers. With --schema the table holds "
                                             "raw values and the synthetic rows are decoded back to them; with "
                                             "--domain both hold integer codes.",
                                 epilog=f"mechanisms (--mechanism):\n{mechanisms}",
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("data", help="the private table: CSV or Parquet (.parquet), a glob or a folder of parts; raw "
                                     "values with --schema, integer codes (with a header row) with --domain")
    add_data_arguments(parser, schema=True)
    add_engine_arguments(parser)
    parser.add_argument("--mechanism", choices=registry.names(), default="mwem",
                        help="the mechanism (each is described below; default: mwem)")
    parser.add_argument("--epsilon", type=number("--epsilon"), required=True,
                        help="the privacy budget epsilon (> 0; above 10 warns that it protects little, above 1000 is refused)")
    parser.add_argument("--delta", type=number("--delta"), default=None,
                        help="default: the mechanism's, 1e-9 for mwem (0 gives pure DP), 0 (pure DP) for the "
                             "others; > 0: mwem measures with Gaussian noise under zCDP where that is the smaller "
                             "noise, the ic-* mechanisms use advanced composition; boosting needs it; smalldb "
                             "ignores it")
    for option in registry.command_line_options():  # every mechanism's user options, from the registry
        kind = {int: integer(option.flag), float: number(option.flag)}.get(option.kind)
        parser.add_argument(option.flag, type=kind, choices=option.choices, default=None, help=option.help)
    parser.add_argument("--rows", choices=ROW_CHOICES, default="auto",
                        help="fitted: rounded, then fitted to the released workload answers; round: each count n*p "
                             "rounded down or up, up with probability its remainder (unbiased); sample: i.i.d. draws "
                             "from the model; auto (default): fitted for MWEM, round for the book's mechanisms (the "
                             "release says which and why)")
    parser.add_argument("--n-rows", type=integer("--n-rows"),
                        help="number of synthetic rows, at least 1 (default: n, the real table's, which is public)")
    parser.add_argument("--seed", type=integer("--seed"), help="reproducible run; NOT fit for a real release")
    parser.add_argument("--out", type=Path, required=True,
                        help="synthetic rows: Parquet when the name ends in .parquet (or .pq), else CSV")
    parser.add_argument("--release", type=Path,
                        help="the release (JSON: guarantee, privacy ledger, parameters, transcript), with the answers "
                             "and rows in NAME.answers.npz beside it")
    raw = parser.add_argument_group("raw tables (with --schema)")
    raw.add_argument("--decode", choices=VALUE_MODES, default=None,
                     help="how a binned value is decoded: uniform (default: drawn uniformly inside its bin), "
                          "midpoint (the bin's middle) or label (the bin's label, as text)")
    raw.add_argument("--allow-non-public-schema", action="store_true",
                     help="run with a schema drafted by reading the data openly (dprelease schema --non-private): "
                          "the release is NOT differentially private and is marked not fit for release")
    raw.add_argument("--delimiter", help="CSV delimiter (default: sniffed among , ; TAB |)")
    raw.add_argument("--skip-rows", type=integer("--skip-rows"), default=0, help="lines to skip before the header")
    raw.add_argument("--privacy-id", metavar="COLUMN",
                     help="a column outside the schema naming each row's person (customer number, patient id): the "
                          "guarantee is per person, not per row; needs --rows-per-person K (each person keeps at most "
                          "K rows, drawn at random) and runs mwem under add/remove (read by the memory engine or "
                          "DuckDB or Spark, counted in memory)")
    parser.add_argument("--show-values", action="store_true",
                        help="let error messages quote the table's values and count rows (they may reach logs)")
    parser.add_argument("--quiet", action="store_true", help="no progress line (drawn on a terminal only) and no closing note on stderr")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Public checks first: nothing is read, spent or written before they pass.
    request = SynthesisRequest(args.mechanism, args.epsilon, args.delta, args.alpha, args.rounds, args.n_rows,
                               args.rows, args.max_cells, args.seed, args.representation or "auto",
                               args.max_model_cells, args.base, args.privacy_unit,
                               None if args.privacy_id is None else args.rows_per_person)
    source = args.schema if args.schema is not None else args.domain
    check_output(args.out, args.data, source, flag="--out")
    if args.release is not None:
        check_output(args.release, args.data, source, flag="--release", others={"--out": args.out})
        check_output(args.release.with_name(side_file_name(args.release)), args.data, source,
                     flag="--release's side file", others={"--out": args.out})
    parquet = args.out.suffix.lower() in PARQUET_SUFFIXES
    if parquet:  # the writer's dependencies, before anything is read or spent
        need("pandas", "pandas", "--out as Parquet")
        need("duckdb", "parquet", "--out as Parquet")
    progress = terminal_progress(args, args.mechanism)
    engine = engine_options(args, args.data)
    if args.schema is None:
        given = [f"--{name.replace('_', '-')}" for name in (*SCHEMA_ONLY, "rows_per_person")
                 if getattr(args, name) not in (None, False, 0)]
        if given:
            raise InputError(f"{', '.join(given)} read or decode a raw table: give --schema, not --domain")
        domain = selected_domain(args)  # public checks before a Spark session starts
        request.mechanism_entry().check(domain, Workload.from_spec(args.workload, domain),
                                        budget=Budget(epsilon=args.epsilon, delta=request.delta))
        progress.phase(f"reading {Path(args.data).name}")
        dataset, workload = load(args.data, args, request.mechanism_entry(), request, start_engine(engine, args))
        progress.done()
        try:
            release = synthesize(
                dataset, workload, mechanism=args.mechanism, epsilon=args.epsilon, delta=request.delta,
                alpha=args.alpha, rounds=args.rounds, n_rows=args.n_rows, rows=args.rows, seed=args.seed,
                max_cells=args.max_cells, representation=args.representation or "auto", base=args.base,
                max_model_cells=args.max_model_cells, privacy_unit=args.privacy_unit, progress=progress)
        finally:
            getattr(dataset, "close", lambda: None)()
        progress.phase("write files")
        with Outputs(SPENT_NOTE) as outputs:  # all files or none: never rows without their release
            if parquet:
                rows = decode(release.rows, Schema.from_domain(release.domain), values="midpoint")
                outputs.write("--out", args.out, rows.to_parquet)
            else:
                outputs.write("--out", args.out, lambda staged: write_atomic(staged, release.rows_csv()))
            save_release_files(release, args.release, outputs)
            outputs.commit()
        what = "synthetic rows"
    else:
        schema = load_schema(args.schema, args.columns)
        if args.privacy_id is not None or args.rows_per_person is not None:  # before a Spark session starts
            person_level_options(args.privacy_id, {"rows_per_person": args.rows_per_person,
                                                   "privacy_unit": args.privacy_unit}, engine["engine"])
        workload = Workload.from_spec(args.workload, schema.domain)  # public checks before a Spark session starts
        request.mechanism_entry().check(schema.domain, workload, budget=Budget(epsilon=args.epsilon, delta=request.delta))
        engine = start_engine(engine, args)
        release = synthesize_table(
            args.data, schema, args.workload, epsilon=args.epsilon, delta=request.delta, mechanism=args.mechanism,
            allow_non_public_schema=args.allow_non_public_schema, progress=progress,
            read_options={"delimiter": args.delimiter, "skip_rows": args.skip_rows, "show_values": args.show_values},
            alpha=args.alpha, rounds=args.rounds, n_rows=args.n_rows, rows=args.rows, seed=args.seed,
            max_cells=args.max_cells, representation=args.representation or "auto", base=args.base,
            max_model_cells=args.max_model_cells, privacy_unit=args.privacy_unit, engine=engine["engine"],
            memory_limit=engine.get("memory_limit"), privacy_id=args.privacy_id,
            **({} if args.rows_per_person is None else {"rows_per_person": args.rows_per_person}))
        values = args.decode or "uniform"
        progress.phase("decode")
        # DECODE (post-processing): where in its bin each value falls; the seed, if any, makes it reproducible.
        decoded = decode(release.rows, schema, values=values, rng=make_rng(args.seed, warn=False))
        release.extra["decoded"] = {"values": values, "format": "parquet" if parquet else "csv",
                                    "columns": list(schema.names)}
        style = None if parquet else output_style(args, schema)
        if style is not None:
            release.extra["decoded"].update(style.recorded())
        progress.phase("write files")
        with Outputs(SPENT_NOTE) as outputs:  # all files or none: never rows without their release
            outputs.write("--out", args.out, decoded.to_parquet if parquet
                          else lambda path: decoded.to_csv(path, style.delimiter, newline=style.newline,
                                                           byte_order_mark=style.byte_order_mark))
            save_release_files(release, args.release, outputs)
            outputs.commit()
        what = "decoded synthetic rows"
    progress.close()
    spent = release.privacy_ledger["spent"]
    print(f"wrote {len(release.rows)} {what} to {args.out}"
          + (f" and the release to {args.release}" if args.release else ""))
    print(f"privacy spent: epsilon={spent['epsilon']:.6g}, delta={spent['delta']:.3g} ({release.guarantee})")
    note = None if args.quiet else drowned_note(release)  # public: the transcript's noise scales and the domain
    if note:  # stderr, beside the warnings: stdout keeps its two result lines for scripts
        print(note, file=sys.stderr)
    return 0


def output_style(args: argparse.Namespace, schema: Schema) -> CsvStyle:
    """How the decoded CSV is written: as the input CSV's header row is (its delimiter, line ending and byte-order
    mark; public: the schema's column names, never a record), ``--delimiter``'s delimiter where given; else with
    commas and LF (Parquet in, no header row)."""
    style = CsvStyle()
    try:
        files, _ = resolve_files(args.data)
        if detect_format(files) == "csv":
            style = header_style(files[0], schema.names, args.skip_rows or 0) or style
    except (InputError, InputTypeError):  # a path only a Spark master sees, say: the default style
        pass
    return replace(style, delimiter=args.delimiter) if args.delimiter else style
