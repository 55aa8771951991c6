"""``dprelease evaluate``: workload error of a synthetic table against the real one, beside two baselines."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from dprelease.api import load_schema
from dprelease.cli.common import column_list, integer, number, read_table, selected_domain, terminal_progress
from dprelease.errors import InputError
from dprelease.evaluate import per_marginal_errors, summarize
from dprelease.evaluate.baselines import baseline_tables, run_epsilon
from dprelease.evaluate.values import VALUES_NOTE, render_values, value_report
from dprelease.queries.workload import Workload
from dprelease.release.files import read_document
from dprelease.engines.files import several_files
from dprelease.engines.persons import PersonRows
from dprelease.engines.registry import open_table
from dprelease.schema import Schema, label_schema
from dprelease.schema.draft import read_source
from dprelease.schema.tables import Table
from dprelease.schema.decode import VALUE_MODES
from dprelease.validation import check_positive, check_positive_int

SYNTHETIC = "synthetic"
PER_MARGINAL_NOTE = "NOT PRIVATE: errors against the real table (never its counts), for the curator only"


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "evaluate", help="max error and average L1 of a synthetic table, beside two baselines",
        description="Compare a synthetic table with the real one on a marginal workload (max error: the largest "
                    "error of any cell of any marginal, as fractions; average L1: the mean over the marginals of "
                    "the L1 distance), beside two baselines drawn from the real table: independent noisy "
                    "1-way marginals and uniform rows. The baselines read the real data with a seeded generator: "
                    "they are for comparison, not for release. Any domain works (marginals are counted from the "
                    "records). Tables of codes take --domain; raw tables (text, numbers, dates, blanks) take "
                    "the --schema synth ran with, and then also get, per column, the shares of the real values the "
                    "schema clips or sends to other and the Kolmogorov-Smirnov distance of the synthetic numbers and "
                    "dates to the real ones.")
    parser.add_argument("data", type=Path, help="the real table (CSV; Parquet too with --schema), or its part files "
                                                "(a quoted glob or a folder, as synth reads them)")
    parser.add_argument("synthetic", type=Path, help="the synthetic table, as synth wrote it")
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--domain", type=Path, help="JSON file {attribute: number of values}: both tables hold "
                                                     "integer codes")
    source.add_argument("--schema", type=Path,
                        help="the schema synth ran with (JSON; docs/schema.md): both tables hold raw values, and "
                             "each is encoded by it (a value in a bin counts as the bin)")
    parser.add_argument("--decode", choices=VALUE_MODES, default=None,
                        help="with --schema: how synth decoded the synthetic table; 'label' reads bin labels (synth "
                             "--decode label) back into their bins, while uniform and midpoint tables hold values "
                             "and need no flag")
    parser.add_argument("--columns", type=column_list, help="comma-separated columns to use (default: all)")
    parser.add_argument("--workload", required=True,
                        help="'Kway', 'J-Kway' (e.g. 1-3way) or a JSON file with a list of attribute lists")
    parser.add_argument("--max-cells", help=argparse.SUPPRESS)  # accepted for old scripts; no histogram is built
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--per-marginal", action="store_true",
                        help="also give every marginal's L1 error for the synthetic table and the baselines, worst "
                             "first (--json: in workload order, with each max error); errors only, never the real "
                             "table's counts, but NOT PRIVATE: for the curator's eyes only")
    parser.add_argument("--epsilon", type=number("--epsilon"), default=None,
                        help="epsilon of the noisy 1-way baseline (default: the run's budget in --release, without "
                             "a schema draft's spend, else 1)")
    parser.add_argument("--release", type=Path, default=None,
                        help="the release JSON of the synthetic table: its run's epsilon is the baseline's")
    parser.add_argument("--seed", type=integer("--seed"), default=0, help="seed of the baselines' draws (default 0)")
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr")
    parser.set_defaults(handler=run)


def baseline_epsilon(args: argparse.Namespace, document: dict | None) -> float:
    """--epsilon, else the run's epsilon in --release's ``document`` (:func:`~dprelease.evaluate.baselines.run_epsilon`:
    without a schema draft's spend), else 1 (public: read before any data)."""
    if args.epsilon is not None:
        return check_positive(args.epsilon, "--epsilon")
    if document is None:
        return 1.0
    epsilon = run_epsilon(document["privacy_ledger"])
    if epsilon is None:
        raise InputError(f"--release {str(args.release)!r} states no epsilon budget; give --epsilon")
    return epsilon


def person_unit(document: dict | None) -> tuple[str, int] | None:
    """A person-level release's privacy id and k (public: its parameters), else None."""
    parameters = (document or {}).get("parameters") or {}
    if parameters.get("privacy_id") is None:
        return None
    return str(parameters["privacy_id"]), int(parameters.get("rows_per_person", 1))


def person_note(unit: tuple[str, int] | None, *, per_person_baseline: bool) -> str | None:
    """Where --release is a person-level run, a note on what its baselines compare."""
    if unit is None:
        return None
    privacy_id, k = unit
    baselines = (f"the independent and uniform baselines read every row at a record's noise, a weaker promise than "
                 f"the release's; the per-person one keeps at most {k} rows of each person at the release's noise, "
                 "like for like" if per_person_baseline else
                 "the baselines above read every row at a record's noise, a weaker promise than the release's (give "
                 "--schema for a per-person baseline)")
    return (f"the release protects a person (privacy id {privacy_id!r}, at most {k} rows each): its noise is {k} "
            "times a record's and it describes the table with each person's rows bounded, so the real table "
            f"differs from what it measured; {baselines}")


def read_once(path: Path, schema: Schema | None) -> Path | Table:
    """One file's raw columns, as ``synth`` reads them under ``schema``, for both the workload's codes and the values'
    report (a 1,000,000-row table was read twice: half of evaluate's reading time); the path itself without a schema,
    or for part files (their codes come through DuckDB, as synth reads them)."""
    if schema is None or several_files(path):
        return path
    return read_source(path, schema.names, strip=schema.strip, layout=schema.file_names)


def run(args: argparse.Namespace) -> int:
    # Public checks first: domain (or schema), workload, epsilon and seed, before either table is read.
    schema = None if args.schema is None else load_schema(args.schema, args.columns)
    if args.decode is not None and schema is None:
        raise InputError("--decode needs --schema: a table of codes (--domain) is not decoded")
    domain = selected_domain(args) if schema is None else schema.domain
    workload = Workload.from_spec(args.workload, domain)
    document = None if args.release is None else read_document(args.release)  # public: the release's JSON, once
    epsilon = baseline_epsilon(args, document)
    unit = person_unit(document)
    unit_note = person_note(unit, per_person_baseline=unit is not None and schema is not None)
    seed = check_positive_int(args.seed, "--seed", minimum=0)
    progress = terminal_progress(args, "evaluate")
    progress.phase(f"reading {args.data.name}")
    real_source = read_once(args.data, schema)  # encoded here, and its values compared below
    if unit is not None and schema is not None:  # a person-level release: the rows with their persons, as synth reads
        real = open_table(str(args.data), schema=schema, privacy_id=unit[0])
    else:
        real = read_table(real_source, domain, schema)
    progress.phase(f"reading {args.synthetic.name}")
    try:
        # a table of bin labels is read by the labels' schema, and has no values to compare
        synthetic_source = args.synthetic if args.decode == "label" else read_once(args.synthetic, schema)
        synthetic = read_table(synthetic_source, domain, label_schema(schema) if args.decode == "label" else schema)
    except InputError as exc:
        if schema is None or args.decode is not None:
            raise
        raise InputError(f"{exc} (if synth wrote it with --decode label, give --decode label)") from None
    progress.phase("drawing baselines")
    baselines = baseline_tables(real, epsilon=epsilon, n_rows=synthetic.n, seed=seed,
                                rows_per_person=unit[1] if isinstance(real, PersonRows) else None)
    real = real.table if isinstance(real, PersonRows) else real
    progress.phase("marginal errors")
    errors = per_marginal_errors(real, {SYNTHETIC: synthetic, **baselines.tables}, workload)
    values = None
    if schema is not None:  # the raw values, which the workload error sees only through the schema's bins
        progress.phase("values")
        values = value_report(real_source, None if args.decode == "label" else synthetic_source, schema)
    progress.close()
    summary = {**summarize(errors, SYNTHETIC), "n_real": real.n, "n_synthetic": synthetic.n}
    if values is not None:
        summary["values"] = [c.to_json() for c in values]
        summary["values_note"] = VALUES_NOTE
    summary["baselines"] = {name: summarize(errors, name) for name in baselines.tables}
    summary["baselines_note"] = baselines.describe()
    summary["baseline_epsilon"], summary["baseline_seed"] = epsilon, seed
    if unit_note is not None:
        summary["unit_note"] = unit_note
    if args.per_marginal:
        summary["per_marginal"] = [e.to_json() for e in errors]
        summary["per_marginal_note"] = PER_MARGINAL_NOTE
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    print(f"workload: {summary['n_marginals']} marginals, {workload.num_queries} cells")
    print(f"max error:  {summary['max_error']:.4f}  (worst marginal {summary['worst_marginal']})")
    print(f"average L1: {summary['avg_l1']:.4f}")
    print(f"baselines ({baselines.describe()}):")
    for name, result in summary["baselines"].items():
        print(f"  {name:<36} average L1 {result['avg_l1']:.4f}  max error {result['max_error']:.4f}")
    if unit_note is not None:
        print(f"note: {unit_note}")
    if values is not None:
        print()
        print("\n".join(render_values(values)))
    if args.per_marginal:
        names = [SYNTHETIC, *baselines.tables]
        print()
        print(f"per marginal, worst first ({PER_MARGINAL_NOTE}):")
        print("| marginal | cells | " + " | ".join(f"L1 {n}" for n in names) + " |")
        print("|---|---:|" + "---:|" * len(names))
        for e in sorted(errors, key=lambda e: -e.l1[SYNTHETIC]):  # stable: ties keep the workload's order
            print(f"| {', '.join(e.marginal)} | {e.cells} | " + " | ".join(f"{e.l1[n]:.4f}" for n in names) + " |")
    return 0
