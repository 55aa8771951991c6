"""``dprelease schema``: draft a schema from a data file, for a person to review.

    dprelease schema DATA --out schema.json (--epsilon E [--delta D] | --non-private) [options]

Exactly one mode, never a silent one: ``--epsilon`` drafts with differential privacy (the spend is the
schema file's own ledger); ``--non-private`` reads the data openly and marks the file NOT PUBLIC.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from dprelease.cli.common import check_output, integer, number
from dprelease.errors import InputError
from dprelease.files import write_output
from dprelease.schema.binned import UndecidedColumn
from dprelease.schema.columns import BooleanColumn, CategoricalColumn, Column
from dprelease.schema.draft import DRAFT_KINDS, draft_schema
from dprelease.schema.parse import MISSING_WORDS
from dprelease.schema.schema import Schema


def _types(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in text.split(","):
        name, _, kind = item.partition("=")
        if not name.strip() or not kind.strip():
            raise argparse.ArgumentTypeError(f"--types must be a comma-separated list of column=kind, got {text!r}")
        out[name.strip()] = kind.strip()
    return out


def _date_format(text: str) -> tuple[str, str]:
    name, _, text_format = text.partition("=")
    if not name.strip() or not text_format.strip():
        raise argparse.ArgumentTypeError(f"--date-format must be column=format, such as visit=%m/%d/%Y, got {text!r}")
    return name.strip(), text_format


def _categories(text: str) -> tuple[str, list[str]]:
    name, _, values = text.partition("=")
    categories = [v.strip() for v in values.split(",")]
    if not name.strip() or not values.strip() or any(not v for v in categories):
        raise argparse.ArgumentTypeError(f"--categories must be column=category,category,..., such as "
                                         f"education=HS,BA,MA, got {text!r}")
    return name.strip(), categories


def _columns(text: str) -> list[str]:
    columns = [c.strip() for c in text.split(",")]
    if any(not c for c in columns):
        raise argparse.ArgumentTypeError(f"--columns must be a comma-separated list of names, got {text!r}")
    return columns


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "schema", help="draft a schema from the data (differentially private, or openly and marked not public)",
        description="Draft a schema (kinds, bounds, bins, categories, NULL and other buckets) for review. "
                    "--epsilon drafts it with differential privacy and writes the spend into the file; "
                    "--non-private reads the data openly and marks the file NOT PUBLIC.")
    parser.add_argument("data", type=Path, help="CSV (with a header row) or Parquet file, or the part files of one "
                                                "table (a quoted glob or a folder, as synth reads them)")
    parser.add_argument("--out", type=Path, required=True, help="the schema (JSON)")
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--epsilon", type=number("--epsilon"),
                      help="draft with (epsilon, delta)-DP at this epsilon (above 10 warns, above 1000 is refused)")
    mode.add_argument("--non-private", action="store_true",
                      help="read the data openly: the draft is NOT public and must be replaced by public knowledge")
    parser.add_argument("--delta", type=number("--delta"), default=0.0,
                        help="needed (> 0) to select categories privately (default 0)")
    parser.add_argument("--columns", type=_columns, help="comma-separated columns to draft (default: all)")
    parser.add_argument("--types", type=_types, default={},
                        help=f"column=kind,... to fix kinds instead of profiling them ({', '.join(DRAFT_KINDS)})")
    parser.add_argument("--date-format", type=_date_format, action="append", default=[], metavar="COLUMN=FORMAT",
                        help="a date column written another way than ISO, with its strptime format (repeat), e.g. "
                             "visit=%%m/%%d/%%Y for 10/3/2019")
    parser.add_argument("--categories", type=_categories, action="append", default=[], metavar="COLUMN=A,B,...",
                        help="a text column's categories from public knowledge (repeat), e.g. education=HS,BA,MA: "
                             "drafted as exactly those, at no cost to select them (a category holding a comma is "
                             "declared in the schema's JSON instead)")
    parser.add_argument("--bins", type=integer("--bins"), default=10, help="bins per numeric column (default 10)")
    parser.add_argument("--max-categories", type=integer("--max-categories"), default=100,
                        help="most categories per column (default 100)")
    parser.add_argument("--null-token", action="append", default=None,
                        help="text that means NULL (repeat; default: the empty cell)")
    parser.add_argument("--delimiter", help="CSV delimiter (default: sniffed)")
    parser.add_argument("--skip-rows", type=integer("--skip-rows"), default=0, help="lines to skip before the header (default 0)")
    parser.add_argument("--seed", type=integer("--seed"), help="reproducible draft; NOT fit for a real release")
    parser.add_argument("--privacy-id", metavar="COLUMN",
                        help="draft per person: the column naming each row's person (left out of the schema); needs "
                             "--rows-per-person K and --epsilon, and a release with the same --privacy-id")
    parser.add_argument("--rows-per-person", type=integer("--rows-per-person"), metavar="K",
                        help="with --privacy-id: each person keeps at most K rows, drawn at random; the draft runs at "
                             "epsilon / K per record (group privacy)")
    parser.add_argument("--show-values", action="store_true",
                        help="let error messages quote the data's values and count rows (they may reach logs)")
    parser.set_defaults(handler=run)


def _declared(pairs: list[tuple[str, list[str]]]) -> dict[str, list[str]] | None:
    out: dict[str, list[str]] = {}
    for name, values in pairs:
        if name in out:
            raise InputError(f"--categories names column {name!r} twice: give its categories once")
        out[name] = values
    return out or None


def run(args: argparse.Namespace) -> int:
    check_output(args.out, args.data, flag="--out")
    if args.out.suffix.lower() != ".json":
        raise InputError(f"--out must name a .json file, got {str(args.out)!r}")
    schema = draft_schema(args.data, epsilon=args.epsilon, delta=args.delta, non_private=args.non_private,
                          columns=args.columns, types=args.types, formats=dict(args.date_format), bins=args.bins,
                          max_categories=args.max_categories,
                          null_tokens=tuple(args.null_token) if args.null_token else ("",), seed=args.seed,
                          delimiter=args.delimiter, skip_rows=args.skip_rows, show_values=args.show_values,
                          privacy_id=args.privacy_id, rows_per_person=args.rows_per_person,
                          categories=_declared(args.categories))
    # A draft read openly (--non-private) is not public: it keeps mode 0600.
    write_output("--out", args.out, schema.to_json, public=not args.non_private,
                 note="" if args.non_private else ", but the draft spent its privacy budget")
    print(f"wrote a draft schema of {len(schema.columns)} columns to {args.out}:")
    for line in draft_summary(schema):
        print(f"  {line}")
    if schema.draft is not None and schema.draft.is_public:
        eps, delta = schema.draft.spent
        left = (f"; {float(args.epsilon) - float(eps):.6g} of epsilon={args.epsilon:g} unspent: steps that needed "
                "none (bins made equal, bounds left undecided, one bin per integer)"
                if float(eps) < float(args.epsilon) else "")
        print(f"privacy spent by the draft: epsilon={float(eps):.6g}, delta={float(delta):.3g} (exact in the file)"
              f"{left}")
    else:
        print("the draft is NOT PUBLIC (its 'draft' field says so): replace it with public knowledge before a release")
    return 0


def draft_summary(schema: Schema) -> list[str]:
    """One line a column, aligned: its name, kind and what the draft chose (bounds and bins, categories' number, the
    null and other buckets), so the draft can be reviewed at a glance. Public: the draft's own contents."""
    rows = [(c.name, c.kind, _drafted(c)) for c in schema.columns]
    name_width, kind_width = (max(len(r[i]) for r in rows) for i in (0, 1))
    return [f"{name:<{name_width}}  {kind:<{kind_width}}  {what}".rstrip() for name, kind, what in rows]


def _written_example(column: Column) -> str | None:
    """How a number column writes its values back, as one example (``$1.00``, ``1,5%``), where it declares decimals or
    a sign; None otherwise. Public: the schema's fields."""
    decimals, prefix, suffix = (getattr(column, k, None) for k in ("decimals", "prefix", "suffix"))
    if decimals is None and not prefix and not suffix:
        return None
    number = "1" if not decimals else "1" + getattr(column, "decimal", ".") + "0" * decimals
    return f"{prefix or ''}{number}{suffix or ''}"


def _hour_runs(hours: list[int]) -> str:
    """Hours as runs, "4, 6-12" (public: the schema's weights)."""
    runs: list[list[int]] = []
    for hour in hours:
        if runs and hour == runs[-1][-1] + 1:
            runs[-1].append(hour)
        else:
            runs.append([hour])
    return ", ".join(f"{r[0]}" if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _drafted(column: Column) -> str:
    if isinstance(column, UndecidedColumn):
        return "bounds undecided: declare them"
    if isinstance(column, CategoricalColumn):
        what = f"{len(column.values)} value{'' if len(column.values) == 1 else 's'}"
    elif isinstance(column, BooleanColumn):
        what = f"{column.written[0][0]}/{column.written[1][0]}"  # the words synth writes back
    else:  # binned: integers, decimals, dates
        unit, width = getattr(column, "unit", None), getattr(column, "width", None)
        step = "" if not unit else f" by {width} {unit}s" if width and width > 1 else f" by {unit}"
        ends = (column.low, column.high) if column.low is not None else (column.edges[0], column.edges[-1])
        low, high = (f"{b:g}" if isinstance(b, float) else str(b) for b in ends)  # a date's edges are its bounds
        what = f"{low}..{high}{step}, {column.value_count} bin{'' if column.value_count == 1 else 's'}"
        what += ", clipped" if getattr(column, "clip", False) else ""
        what += ", written with a space" if getattr(column, "separator", "T") != "T" else ""
        precision = getattr(column, "precision", "second")
        what += "" if precision == "second" else ", to the minute" if precision == "minute" else f", every {precision}"
        what += ", written with :00 seconds" if getattr(column, "seconds", False) else ""
        offset = getattr(column, "offset", None)
        what += "" if offset is None else ", written in UTC with Z" if offset == "Z" else f", written at {offset}"
        text_format = getattr(column, "format", None)
        what += "" if text_format is None else f", written {text_format}"
        example = _written_example(column)
        what += f", written like {example}" if example else ""
        multiple = getattr(column, "multiple", None)
        what += f", in multiples of {multiple:,}" if multiple else ""
        digits = getattr(column, "digits", None)
        what += f", written with {digits} digits (0{'21345678901234567'[:digits - 1]})" if digits else ""
        hours = [h for h, w in enumerate(getattr(column, "time_of_day", None) or ()) if w > 0]
        what += f", times of day in hours {_hour_runs(hours)}" if hours else ""
    blanks = " + null (NA, N/A, null, None, -, ? and . read as blank)" if column.null and set(MISSING_WORDS) <= set(
        column.null_tokens or ()) else " + null" if column.null else ""
    return what + (" + other" if column.other else "") + blanks
