"""``dprelease evaluate``: workload error of a synthetic table against the real one, beside the baselines
(:mod:`dprelease.evaluate.comparison`, which ``compare`` shares from Python)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from dprelease.cli.common import column_list, integer, number, terminal_progress
from dprelease.errors import InputError
from dprelease.evaluate.baselines import run_epsilon
from dprelease.evaluate.comparison import (PersonUnit, curator_table, default_workload, evaluation, is_add_remove,
                                           read_once, read_real, table_reader)
from dprelease.evaluate.values import value_report
from dprelease.queries.workload import Workload
from dprelease.release.files import read_document
from dprelease.schema import label_schema
from dprelease.schema.decode import VALUE_MODES
from dprelease.validation import check_positive, check_positive_int


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "evaluate", help="max error and average L1 of a synthetic table, beside baselines",
        description="Compare a synthetic table with the real one on a marginal workload (max error: the largest "
                    "error of any cell of any marginal, as fractions; average L1: the mean over the marginals of "
                    "the L1 distance), beside baselines drawn from the real table: independent noisy "
                    "1-way marginals (in the --release's privacy unit) and uniform rows, and beside a person-level "
                    "release with --schema, the 1-way marginals of each person's rows bounded as the release bounded "
                    "them. The baselines read the real data with a seeded generator: "
                    "they are for comparison, not for release. Any domain works (marginals are counted from the "
                    "records). Tables of codes take --domain; raw tables (text, numbers, dates, blanks) take "
                    "the --schema synth ran with, and then also get, per column, the shares of the real values the "
                    "schema clips or sends to other and the Kolmogorov-Smirnov distance of the synthetic numbers and "
                    "dates to the real ones.")
    parser.add_argument("data", type=Path, help="the real table (CSV; Parquet too with --schema), or its part files "
                                                "(a quoted glob or a folder, as synth reads them)")
    parser.add_argument("synthetic", type=Path, help="the synthetic table, as synth wrote it")
    source = parser.add_mutually_exclusive_group()
    source.add_argument("--domain", type=Path, help="JSON file {attribute: number of values}: both tables hold "
                                                     "integer codes (default: --release's)")
    source.add_argument("--schema", type=Path,
                        help="the schema synth ran with (JSON; docs/schema.md): both tables hold raw values, and "
                             "each is encoded by it (a value in a bin counts as the bin; default: the schema "
                             "--release records)")
    parser.add_argument("--decode", choices=VALUE_MODES, default=None,
                        help="with --schema: how synth decoded the synthetic table; 'label' reads bin labels (synth "
                             "--decode label) back into their bins, while uniform and midpoint tables hold values "
                             "and need no flag (default with --release and no --schema: what the release says synth "
                             "wrote)")
    parser.add_argument("--columns", type=column_list, help="comma-separated columns to use (default: all)")
    parser.add_argument("--workload", default=None,
                        help="'Kway', 'J-Kway' (e.g. 1-3way) or a JSON file with a list of attribute lists (default: "
                             "--release's own marginals over the columns compared, else 1-3way, or 1-2way for two "
                             "columns)")
    parser.add_argument("--max-cells", help=argparse.SUPPRESS)  # accepted for old scripts; no histogram is built
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")
    parser.add_argument("--per-marginal", action="store_true",
                        help="also give every marginal's L1 error for the synthetic table and the baselines, worst "
                             "first (--json: in workload order, with each max error); errors only, never the real "
                             "table's counts, but NOT PRIVATE: for the curator's eyes only")
    parser.add_argument("--epsilon", type=number("--epsilon"), default=None,
                        help="epsilon of the noisy 1-way baseline, in --release's privacy unit (default: the run's "
                             "budget in --release, without a schema draft's spend, else 1)")
    parser.add_argument("--release", type=Path, default=None,
                        help="the release JSON of the synthetic table: its run's epsilon is the baseline's, and "
                             "without --schema or --domain its schema (or domain) reads both tables")
    parser.add_argument("--seed", type=integer("--seed"), default=0, help="seed of the baselines' draws (default 0)")
    parser.add_argument("--show-values", action="store_true",
                        help="with --schema: name the real values each column sends to other most often, with their "
                             "shares (the table's values: for your own terminal, they may reach logs)")
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


def run(args: argparse.Namespace) -> int:
    # Public checks first: the release, domain (or schema), workload, epsilon and seed, before either table is read.
    document = None if args.release is None else read_document(args.release)  # public: the release's JSON, once
    schema, domain, decode = table_reader(document, args.schema, args.domain, args.decode, args.columns, cli=True)
    if schema is None:  # a schema is restricted to --columns already
        domain = domain.select(args.columns, name="--columns")
    if args.workload is None:  # as compare(): the release's own marginals where they are over these columns
        workload = Workload.resolve(default_workload(document, domain), domain)
    else:
        workload = Workload.from_spec(args.workload, domain)
    epsilon = baseline_epsilon(args, document)
    parameters = (document or {}).get("parameters")
    unit = PersonUnit.of(parameters)
    seed = check_positive_int(args.seed, "--seed", minimum=0)
    progress = terminal_progress(args, "evaluate")
    progress.phase(f"reading {args.data.name}")
    real_source = read_once(args.data, schema)  # encoded here, and its values compared below
    real = read_real(args.data, real_source, domain, schema, unit)  # a person-level release's: with its persons
    progress.phase(f"reading {args.synthetic.name}")
    try:
        # a table of bin labels is read by the labels' schema, and has no values to compare
        synthetic_source = args.synthetic if decode == "label" else read_once(args.synthetic, schema)
        synthetic = curator_table(synthetic_source, domain, label_schema(schema) if decode == "label" else schema)
    except InputError as exc:
        if schema is None:
            raise
        if decode is None:
            raise InputError(f"{exc} (if synth wrote it with --decode label, give --decode label)") from None
        if args.decode is None:
            raise InputError(f"{exc} (--release says synth wrote bin labels; if this table holds values, give "
                             "--decode uniform)") from None
        raise
    values, orders = None, []
    if schema is not None:  # the raw values, which the workload error sees only through the schema's bins
        progress.phase("values")
        values = value_report(real_source, None if decode == "label" else synthetic_source, schema,
                              show_values=args.show_values, orders=orders)
    result = evaluation(real, synthetic, workload, epsilon=epsilon, seed=seed, unit=unit, unit_hint="give --schema",
                        values=values, add_remove=is_add_remove(parameters), progress=progress, orders=orders)
    progress.close()
    if args.json:
        print(json.dumps(result.to_dict(per_marginal=args.per_marginal), indent=2))
    else:
        print(result.to_text(per_marginal=args.per_marginal))
    return 0
