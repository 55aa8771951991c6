"""``dprelease online``: answer a stream of linear queries as they arrive (online private MW).

``--mode warm`` warm-starts the hypothesis from an MWEM synopsis bought with ``--warm-share`` of
the budget and solves the cut-off and threshold from ``--accuracy`` (docs/online.md).

Queries come one JSON object per line, from ``--queries`` or stdin, in the forms ``dprelease serve``
takes (:mod:`dprelease.mechanisms.online_queries`)::

    {"id": 1, "where": {"sex": 1, "race": [0, 2]}}        the fraction of rows matching a conjunction
    {"id": 2, "weights": {"age": [0, 0.5, 1, 1]}}          a product-form query, weights in [0, 1]
    {"id": 3, "marginal": ["sex", "race"]}                 every cell of the marginal, each one query

and each answer is written to ``--out`` at once (one JSON line, flushed)::

    {"id": 1, "value": 0.123, "source": "hypothesis", "query": 1, "updates": 0}
    {"id": 3, "marginal": ["sex", "race"], "shape": [2, 5], "answers": [{"value": ..., ...}, ...]}

A malformed line gets ``{"id": ..., "line": N, "error": "..."}`` and spends nothing; so does a query
that would push a factored hypothesis (``--representation factored``) over its size cap. Once the
session is used up every further query gets an error record with ``"refused": true``, as does a
marginal with more cells than the session has queries left (none of its cells is asked); a cell
reached after the cut-off, mid-marginal, is ``{"refused": true, "reason": ...}`` in its answers.
User mistakes in the arguments or files exit with code 2 and one line on stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import TextIO

from dprelease.api import check_schema_use, load_schema
from dprelease.cli.common import check_output, column_list, integer, number, selected_domain, terminal_progress
from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.engines.registry import open_table
from dprelease.errors import BudgetExhaustedError, DPReleaseError, InputError
from dprelease.files import target_of
from dprelease.mechanisms.online_mw import OnlinePrivateMW, session_rule
from dprelease.mechanisms.online_plan import DEFAULT_WARM_SHARE, DEFAULT_WARM_WORKLOAD, MODES
from dprelease.mechanisms.online_queries import answer_record, check_together, parse_queries
from dprelease.mechanisms.online_state import check_resumed, read_body
from dprelease.representations import REPRESENTATIONS
from dprelease.validation import check_delta, check_epsilon, check_open_unit, check_positive_int, warn_if_weak

STATE_HELP = ("the session's state file: resumed if it exists, else created; saved (atomically) before each answer "
              "is written. PRIVATE: it holds the sparse vector's secret noisy threshold and a fingerprint of the "
              "data, so keep it like the data itself and never publish it")


def register(commands: argparse._SubParsersAction) -> None:
    parser = commands.add_parser(
        "online", help="answer a stream of linear queries as they arrive (online private MW)",
        description="Online private multiplicative weights via NumericSparse (Dwork & Roth Alg. 6, Thms 4.13-4.15). "
                    "Each query is answered at once, from the public hypothesis when it is accurate enough and from "
                    "a fresh noisy measurement otherwise. Give --alpha or --max-queries; the other is solved from "
                    "the theorem and printed with the promised accuracy 3 alpha. The whole budget is charged when "
                    "the session starts. At real table sizes the book's promise is vacuous (3 alpha >= 1, and every "
                    "answer comes from the uniform prior): use --mode warm with --accuracy there.")
    parser.add_argument("data", type=Path, help="CSV with a header row: integer codes (--domain) or raw values (--schema)")
    table = parser.add_mutually_exclusive_group(required=True)
    table.add_argument("--domain", type=Path, help="JSON file {attribute: number of values}: the data holds codes")
    table.add_argument("--schema", type=Path,
                       help="a public schema file: the data holds raw values (text, numbers, dates, blanks), encoded "
                            "by it as synth encodes them; a where-query may name values by their labels")
    parser.add_argument("--columns", type=column_list, help="comma-separated columns to use (default: all)")
    parser.add_argument("--epsilon", type=number("--epsilon"), required=True,
                        help="the privacy budget epsilon (> 0; above 10 warns that it protects little, above 1000 is refused)")
    parser.add_argument("--delta", type=number("--delta"), default=0.0, help="0 (default): Thm 4.14; > 0: Thm 4.15")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--alpha", type=number("--alpha"), help="target alpha (answers within 3 alpha)")
    target.add_argument("--max-queries", type=integer("--max-queries"), help="the stream length |Q|")
    parser.add_argument("--beta", type=number("--beta"), default=0.05, help="failure probability (default 0.05)")
    parser.add_argument("--mode", choices=MODES, default="book",
                        help="book (default): Algorithm 6 with Thm 4.14/4.15's parameters; warm: an MWEM synopsis "
                             "bought with --warm-share of the budget, then NumericSparse with its cut-off and "
                             "threshold solved from --accuracy (needs --accuracy and --max-queries)")
    parser.add_argument("--accuracy", type=number("--accuracy"),
                        help="--mode warm: the accuracy every answer should have (w.p. >= 1 - beta)")
    parser.add_argument("--warm-share", type=number("--warm-share"),
                        help=f"--mode warm: share of the budget spent on the synopsis (default {DEFAULT_WARM_SHARE})")
    parser.add_argument("--warm-workload",
                        help=f"--mode warm: the synopsis's marginals, 'Kway' or 'J-Kway' (default {DEFAULT_WARM_WORKLOAD})")
    parser.add_argument("--state", type=Path, help=STATE_HELP)
    parser.add_argument("--seed", type=integer("--seed"), help="reproducible run; NOT fit for a real release")
    parser.add_argument("--queries", type=Path,
                        help="JSON-lines file of queries, each {\"where\": ...}, {\"weights\": ...} or "
                             "{\"marginal\": [...]} as dprelease serve takes them, with an optional \"id\" "
                             "(default: read stdin)")
    parser.add_argument("--out", type=Path, required=True,
                        help="answers, one JSON line each (appended to when a session is resumed)")
    parser.add_argument("--max-cells", type=integer("--max-cells"), default=DEFAULT_MAX_CELLS,
                        help=f"cap on histogram cells (default {DEFAULT_MAX_CELLS:,})")
    parser.add_argument("--quiet", action="store_true", help="no progress line on stderr while the session starts")
    parser.add_argument("--representation", choices=REPRESENTATIONS, default="auto",
                        help="the hypothesis: histogram (explicit, up to --max-cells), factored (log-linear on the "
                             "attribute sets of the queries that caused updates, any domain size; a query that would "
                             "push it over its cap gets an error record and spends nothing), auto (default: the "
                             "histogram up to 1,000,000 cells, factored past them with its cap raised to --max-cells; "
                             "the same answers). A resumed session keeps its original representation")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    # Public checks first: nothing is read, spent or written before they pass.
    check_epsilon(args.epsilon, "--epsilon")
    check_delta(args.delta, "--delta")
    check_open_unit(args.beta, "--beta")
    if args.alpha is not None and not 0 < args.alpha <= 1:
        raise InputError(f"--alpha must be a number in (0, 1], got {args.alpha!r}")
    if args.max_queries is not None:
        check_positive_int(args.max_queries, "--max-queries")
    warm_flags = [flag for flag, value in (("--accuracy", args.accuracy), ("--warm-share", args.warm_share),
                                           ("--warm-workload", args.warm_workload)) if value is not None]
    if args.mode == "book" and warm_flags:
        raise InputError(f"{', '.join(warm_flags)} apply to --mode warm only")
    if args.mode == "warm":
        if args.alpha is not None or args.accuracy is None:
            raise InputError("--mode warm needs --accuracy and --max-queries (not --alpha: its threshold is solved "
                             "from the accuracy and the budget)")
        check_open_unit(args.accuracy, "--accuracy")
        if args.warm_share is not None:
            check_open_unit(args.warm_share, "--warm-share")
    if args.seed is not None:
        check_positive_int(args.seed, "--seed", minimum=0)
    check_positive_int(args.max_cells, "--max-cells")
    # An existing --out is opened in place and appended to (a FIFO or /dev/stdout will do); a new one is created,
    # its missing folders made, as for every output path. --state is replaced atomically.
    table_file = args.domain if args.schema is None else args.schema
    check_output(args.out, args.data, table_file, args.queries, args.state, flag="--out",
                 in_place=args.out.exists())
    if args.state is not None:
        check_output(args.state, args.data, table_file, args.queries, flag="--state")
    if args.queries is not None and not args.queries.is_file():
        raise InputError(f"--queries {str(args.queries)!r} is not a readable file")
    schema = None
    if args.schema is not None:
        schema = load_schema(args.schema, args.columns)
        check_schema_use(schema)  # a schema drafted openly is refused: nothing built on it is private
    domain = selected_domain(args) if schema is None else schema.domain
    resume = args.state is not None and args.state.exists()
    representation = session_rule(domain, representation=args.representation,
                                  max_cells=args.max_cells).resolved_representation(domain)
    if resume:  # checksum and parameters, before the data is read (OnlinePrivateMW.load checks them again)
        representation = check_resumed(read_body(args.state), _expected(args), where=f"state file {str(args.state)!r}",
                                       spell=_flag)
    if representation == "histogram":
        domain.check_fits(args.max_cells)
    if not resume:
        warn_if_weak(args.epsilon, "--epsilon")
    progress = terminal_progress(args, "online")
    progress.phase(f"reading {args.data.name}")
    dataset = Dataset.from_csv(args.data, domain) if schema is None else \
        open_table(str(args.data), schema=schema, engine="memory")
    progress.phase("resuming" if resume else "warm synopsis (MWEM)" if args.mode == "warm" else "starting")
    if resume:
        session = OnlinePrivateMW.load(args.state, dataset, max_cells=args.max_cells, **_expected(args))
    else:
        warm = {} if args.mode == "book" else {"mode": "warm", "accuracy": args.accuracy,
                                               "warm_share": args.warm_share, "warm_workload": args.warm_workload}
        session = OnlinePrivateMW(dataset, epsilon=args.epsilon, delta=args.delta, alpha=args.alpha,
                                  max_queries=args.max_queries, beta=args.beta, seed=args.seed,
                                  max_cells=args.max_cells, representation=args.representation, **warm)
        if args.state is not None:
            session.save(args.state)  # the budget is spent now: record it before anything else
    progress.close()
    _print_plan(session, resume)
    if schema is not None and schema.draft is not None:
        draft_epsilon, draft_delta = schema.draft.spent
        print(f"the schema's draft spent epsilon={float(draft_epsilon):g}, delta={float(draft_delta):g} before this "
              f"session: in total epsilon={float(draft_epsilon + Fraction(args.epsilon)):g}, "
              f"delta={float(draft_delta + Fraction(args.delta)):g} by basic composition (Thm 3.16)")
    labels = None if schema is None else schema.all_labels()
    # Undecodable bytes become a malformed line (an error record), not a crash.
    if args.queries is not None:
        source = args.queries.open(encoding="utf-8-sig", errors="replace")
    else:
        source = sys.stdin
        if hasattr(source, "reconfigure"):
            source.reconfigure(errors="replace")
    answered = 0
    try:
        target_of(args.out).parent.mkdir(parents=True, exist_ok=True)
        with args.out.open("a" if resume else "w", encoding="utf-8") as out:
            for number_, line in _lines(source):
                record, ok = _handle(session, domain, line, number_, args.state, labels)
                answered += ok
                out.write(json.dumps(record) + "\n")
                out.flush()
    except KeyboardInterrupt:
        sys.stderr.write(f"dprelease: interrupted after {answered} answer(s) in this run"
                         + ("; the state file holds the session" if args.state else "") + "\n")
        return 130
    finally:
        if source is not sys.stdin:
            source.close()
    status = "exhausted" if session.exhausted else f"{session.remaining_queries} queries left"
    print(f"answered {answered} queries in this run; session: {session.queries_seen} answered, "
          f"{session.from_hypothesis} from the hypothesis, {session.updates_used} of {session.cutoff} updates; {status}")
    return 0


def _expected(args: argparse.Namespace) -> dict[str, object]:
    """The parameters the command line gives, as OnlinePrivateMW.load compares them with a resumed session."""
    return {"mode": args.mode, "representation": args.representation, "epsilon": args.epsilon, "delta": args.delta,
            "beta": args.beta, "alpha": args.alpha, "max_queries": args.max_queries, "accuracy": args.accuracy,
            "warm_share": args.warm_share, "warm_workload": args.warm_workload, "seed": args.seed}


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _print_plan(session: OnlinePrivateMW, resumed: bool) -> None:
    plan = session.plan
    if plan.mode == "warm":
        print(f"{'resumed' if resumed else 'started'} online MW session (warm: an MWEM synopsis on "
              f"{plan.warm_workload} at epsilon={float(plan.epsilon_offline):.6g}, then NumericSparse, Thm 3.28; "
              f"{session.representation} hypothesis): every answer within accuracy={plan.accuracy:g} w.p. >= "
              f"{1 - plan.beta:g}; up to {plan.max_queries} queries, {plan.halting}; privacy "
              f"(epsilon={plan.epsilon:g}, delta={plan.delta:g}), spent epsilon={float(session.epsilon_spent):.6g} "
              "at the start")
        sys.stdout.flush()
        return
    note = " (vacuous: 3 alpha >= 1 at this n)" if plan.vacuous else ""
    print(f"{'resumed' if resumed else 'started'} online MW session ({plan.theorem}, {session.representation} "
          f"hypothesis): alpha={plan.alpha:.4g}, "
          f"promised accuracy 3 alpha={plan.promised_accuracy:.4g}{note} w.p. >= {1 - plan.beta:g}; "
          f"up to {plan.max_queries} queries and {plan.cutoff} updates; privacy (epsilon={plan.epsilon:g}, "
          f"delta={plan.delta:g}), spent epsilon={float(session.epsilon_spent):.6g} at the start")
    sys.stdout.flush()


def _lines(source: TextIO) -> Iterator[tuple[int, str]]:
    number_ = 0
    for line in iter(source.readline, ""):  # readline: answer each line as soon as it arrives
        number_ += 1
        if line.strip():
            yield number_, line


def parse_record(line: str) -> dict[str, object]:
    """One query line as a JSON object; raises :class:`InputError` naming what is wrong."""
    try:
        record = json.loads(line, parse_constant=_no_constants)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}") from None
    if not isinstance(record, dict):
        raise InputError(f"a query must be a JSON object, got {type(record).__name__}")
    return record


def _no_constants(name: str) -> None:
    raise InputError(f"not valid JSON: {name} is not a JSON number")


def _handle(session: OnlinePrivateMW, domain: Domain, line: str, number_: int,
            state: Path | None, labels: dict[str, tuple[str, ...]] | None = None) -> tuple[dict[str, object], int]:
    """One line's record, and how many queries it got answered (a marginal: one per cell answered)."""
    qid = None
    try:
        record = parse_record(line)
        qid = record.get("id")
        queries, marginal = parse_queries(record, domain, own_fields=("id",), name=json.dumps(qid), labels=labels)
        check_together(session, queries)  # refused or malformed: nothing asked, nothing spent
        answers = [answer_record(session, query) for query in queries]
    except BudgetExhaustedError as exc:
        return {"id": qid, "line": number_, "error": str(exc), "refused": True}, 0
    except DPReleaseError as exc:  # malformed: nothing was asked of the data, nothing spent
        return {"id": qid, "line": number_, "error": str(exc)}, 0
    if state is not None:
        session.save(state)  # write-ahead: the state is on disk before the answer leaves
    answered = sum("value" in answer for answer in answers)
    if marginal:  # the service's form: the marginal, its shape and one answer per cell, in C order
        return {"id": qid, **marginal, "answers": answers}, answered
    return {"id": qid, **answers[0]}, answered
