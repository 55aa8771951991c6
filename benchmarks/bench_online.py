#!/usr/bin/env python
"""Online private MW benchmark: a stream of random conjunctions on the 7-column Adult domain.

    .venv/bin/python benchmarks/bench_online.py [--queries 10000] [--seeds 3] [--epsilon 1] \
        [--scale 20] [--out benchmarks/results]

Data: the bundled Adult table restricted to ADULT_SMALL_COLUMNS (48,842 rows, 120,960 cells).
Stream: per seed s, ``--queries`` conjunctions drawn with numpy's PCG64(s): 1 to 3 distinct
attributes, each fixed to a uniform value (the stream is public; the noise is separate).

Systems, each at epsilon = ``--epsilon`` on the same stream:

* online MW (this library), delta = 0 (Thm 4.14) and delta = 1e-9 (Thm 4.15), declared stream
  length |Q| = ``--queries``: alpha is solved from the theorem and 3 alpha is the promise;
* online MW in warm mode (``mode="warm"``, accuracy ``--accuracy``): an MWEM synopsis of the 1-3-way
  marginals bought with half of epsilon, then NumericSparse on the rest (docs/online.md);
* offline MWEM (``dprelease.mechanisms.mwem.MWEM`` defaults, workload 1-3way), whose final model
  then answers the same queries (MWEM sees the workload, not the stream).

At n = 48,842 the theorems promise nothing useful (3 alpha > 1 for any stream length): the
script reports that, with the smallest alpha over all stream lengths. To show the theorem
where it bites it also runs everything on "Adult x S" (every count multiplied by ``--scale``,
n = S * 48,842): a synthetic scale-up, NOT the privacy of the real table, labelled as such.

Measured: queries per second of ``session.ask`` over the whole stream (setup excluded; the
true answers are computed outside the timed loop), the fraction answered from the hypothesis,
the updates used and the cut-off c, the max and mean |answer - truth|, the promised 3 alpha and
whether the max error is within it. Writes OUT/online.json (every run) and OUT/online.md.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import platform
import statistics
import sys
import time
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE))
import provenance  # noqa: E402  (one machine and commit description for all benchmarks)

from dprelease import Dataset, ProductQuery  # noqa: E402
from dprelease.bounds import online_mw_alpha_approx, online_mw_alpha_pure  # noqa: E402
from dprelease.datasets import ADULT_SMALL_COLUMNS, load_adult  # noqa: E402
from dprelease.errors import BudgetExhaustedError, SeededRunWarning  # noqa: E402
from dprelease.mechanisms.mwem import MWEM  # noqa: E402
from dprelease.mechanisms.online_mw import MEASUREMENT, OnlinePrivateMW  # noqa: E402
from dprelease.privacy.rng import make_rng  # noqa: E402
from dprelease.queries.array_eval import evaluate_on_array  # noqa: E402
from dprelease.queries.workload import Workload  # noqa: E402

DELTA = 1e-9  # BENCHMARKS.md: delta = 1e-9 where a mechanism needs one
BETA = 0.05


def conjunction_stream(domain, count: int, seed: int) -> list[ProductQuery]:
    rng = np.random.Generator(np.random.PCG64(seed))
    queries = []
    for _ in range(count):
        attributes = sorted(rng.choice(len(domain), size=int(rng.integers(1, 4)), replace=False))
        where = {domain.attributes[i]: int(rng.integers(0, domain.sizes[i])) for i in attributes}
        queries.append(ProductQuery.conjunction(domain, where))
    return queries


def errors(values: np.ndarray, truth: np.ndarray) -> dict[str, float]:
    e = np.abs(values - truth)
    return {"max_error": float(e.max()), "mean_error": float(e.mean())}


def run_online(data: Dataset, queries, truth, *, epsilon: float, delta: float, seed: int,
               accuracy: float | None = None) -> dict[str, object]:
    """One session over the stream: the book's mode, or (``accuracy`` given) warm mode."""
    warm = {} if accuracy is None else {"mode": "warm", "accuracy": accuracy}
    start = time.perf_counter()
    session = OnlinePrivateMW(data, epsilon=epsilon, delta=delta, max_queries=len(queries), beta=BETA, seed=seed,
                              **warm)
    setup = time.perf_counter() - start
    values = np.full(len(queries), np.nan)
    measured = refused = 0
    start = time.perf_counter()
    for i, query in enumerate(queries):
        try:
            answer = session.ask(query)
        except BudgetExhaustedError:  # refused with a reason (warm mode's cut-off): no answer to score
            refused += 1
            continue
        values[i] = answer.value
        measured += answer.source == MEASUREMENT
    seconds = time.perf_counter() - start
    plan = session.plan
    answered = ~np.isnan(values)
    result = {"alpha": plan.alpha, "promised_3alpha": plan.promised_accuracy, "vacuous": plan.vacuous,
              "cutoff": plan.cutoff, "threshold": plan.threshold, "updates": session.updates_used,
              "from_hypothesis": 1 - measured / len(queries), "refused": refused, "seconds": seconds,
              "setup_seconds": setup, "qps": len(queries) / seconds, "epsilon_spent": float(session.epsilon_spent),
              "delta_spent": float(session.delta_spent), **errors(values[answered], truth[answered])}
    result["within_promise"] = result["max_error"] <= plan.promised_accuracy
    return result


def run_mwem(data: Dataset, queries, truth, *, epsilon: float, seed: int) -> dict[str, object]:
    start = time.perf_counter()
    model = MWEM(epsilon=epsilon).run(data, Workload.from_spec("1-3way", data.domain),
                                      rng=make_rng(seed, warn=False)).model
    fit = time.perf_counter() - start
    probabilities = model.probabilities
    start = time.perf_counter()
    values = np.array([evaluate_on_array(q, probabilities) for q in queries])
    answer_seconds = time.perf_counter() - start
    return {"fit_seconds": fit, "answer_seconds": answer_seconds, "qps_answering": len(queries) / answer_seconds,
            **errors(values, truth)}


def smallest_alphas(n: int, universe: int, queries: int, epsilon: float) -> dict[str, object]:
    out = {}
    for name, solve in (("pure", lambda q: online_mw_alpha_pure(n=n, universe_size=universe, num_queries=q,
                                                                epsilon=epsilon, beta=BETA)),
                        ("approx", lambda q: online_mw_alpha_approx(n=n, universe_size=universe, num_queries=q,
                                                                    epsilon=epsilon, delta=DELTA, beta=BETA))):
        for q in (1, queries):
            out[f"{name}_Q{q}"] = solve(q)
    return out


def summarize(runs: list[dict[str, object]], keys: list[str]) -> dict[str, dict[str, float]]:
    return {k: {"median": statistics.median(r[k] for r in runs), "min": min(r[k] for r in runs),
                "max": max(r[k] for r in runs)} for k in keys}


def machine() -> dict[str, object]:
    return {"date": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), "cpus": os.cpu_count(),
            "cpu": provenance.cpu_model() or platform.processor(), "python": platform.python_version(),
            "numpy": np.__version__, "load_average": os.getloadavg(), "commit": provenance.git("rev-parse", "HEAD")}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--scale", type=int, default=20, help="the scale-up factor S of 'Adult x S' (0: skip)")
    parser.add_argument("--accuracy", type=float, default=0.05, help="warm mode's asked accuracy")
    parser.add_argument("--out", type=Path, default=HERE / "results")
    parser.add_argument("--markdown-only", action="store_true", help="rewrite OUT/online.md from OUT/online.json")
    args = parser.parse_args()
    if args.markdown_only:
        (args.out / "online.md").write_text(markdown(json.loads((args.out / "online.json").read_text())))
        return 0
    warnings.simplefilter("ignore", SeededRunWarning)

    adult = load_adult(ADULT_SMALL_COLUMNS)
    tables = {"adult": adult}
    if args.scale > 1:
        counts = (adult.histogram().reshape(-1) * args.scale).astype(np.int64)
        tables[f"adult x{args.scale}"] = Dataset.from_histogram(counts, adult.domain)
    report: dict[str, object] = {"machine": machine(), "queries": args.queries, "seeds": args.seeds,
                                 "epsilon": args.epsilon, "delta": DELTA, "beta": BETA, "tables": {}}
    for name, data in tables.items():
        truth_distribution = data.histogram() / data.n
        entry = {"n": data.n, "cells": data.domain.size,
                 "smallest_alpha": smallest_alphas(data.n, data.domain.size, args.queries, args.epsilon),
                 "systems": {}}
        for seed in range(args.seeds):
            queries = conjunction_stream(data.domain, args.queries, seed)
            truth = np.array([evaluate_on_array(q, truth_distribution) for q in queries])
            systems = [("online MW, delta=0 (Thm 4.14)", 0.0, None),
                       (f"online MW, delta={DELTA:g} (Thm 4.15)", DELTA, None),
                       (f"online MW warm, delta=0 (MWEM 1-3way on eps/2, accuracy {args.accuracy:g})", 0.0,
                        args.accuracy)]
            for label, delta, accuracy in systems:
                result = run_online(data, queries, truth, epsilon=args.epsilon, delta=delta, seed=seed,
                                    accuracy=accuracy)
                entry["systems"].setdefault(label, []).append({"seed": seed, **result})
                print(f"{name:>10} seed {seed} {label}: {result['qps']:.0f} q/s, max {result['max_error']:.4f}, "
                      f"mean {result['mean_error']:.4f}, 3alpha {result['promised_3alpha']:.4f}, "
                      f"updates {result['updates']}/{result['cutoff']}", flush=True)
            result = run_mwem(data, queries, truth, epsilon=args.epsilon, seed=seed)
            entry["systems"].setdefault("offline MWEM (1-3way)", []).append({"seed": seed, **result})
            print(f"{name:>10} seed {seed} MWEM: max {result['max_error']:.4f}, mean {result['mean_error']:.4f}, "
                  f"fit {result['fit_seconds']:.1f} s", flush=True)
        entry["summary"] = {
            label: summarize(runs, [k for k in ("qps", "from_hypothesis", "updates", "refused", "max_error",
                                                "mean_error", "promised_3alpha", "fit_seconds", "setup_seconds")
                                    if k in runs[0]])
            for label, runs in entry["systems"].items()}
        report["tables"][name] = entry
    report["all_within_promise"] = all(r["within_promise"] for t in report["tables"].values()
                                       for label, runs in t["systems"].items() if label.startswith("online")
                                       for r in runs)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "online.json").write_text(json.dumps(report, indent=1) + "\n")
    (args.out / "online.md").write_text(markdown(report))
    print(f"wrote {args.out / 'online.json'} and {args.out / 'online.md'}")
    return 0 if report["all_within_promise"] else 1


def markdown(report: dict[str, object]) -> str:
    m = report["machine"]
    lines = [
        "# Online private MW: a stream of random conjunctions on Adult (7 columns, 120,960 cells)",
        "",
        f"{report['queries']:,} random conjunctions (1-3 attributes, one value each) per seed, seeds 0..{report['seeds'] - 1}, "
        f"epsilon = {report['epsilon']:g}, beta = {report['beta']:g}. Generated by `benchmarks/bench_online.py` on "
        f"{m['date']} ({m['cpus']} CPUs, {m['cpu']}; load average at start {m['load_average'][0]:.2f}; "
        f"commit {str(m['commit'])[:10]} plus the working tree).",
        "",
        "Medians over seeds, [min, max] in brackets. q/s: `session.ask` over the whole stream (set-up excluded). "
        "The promise is Thm 4.14 (delta = 0, corrected constant 36) or Thm 4.15 (delta = 1e-9) for a declared "
        f"stream of |Q| = {report['queries']:,}: with probability >= 0.95 every answer is within 3 alpha.",
        "",
    ]
    for name, entry in report["tables"].items():
        smallest = entry["smallest_alpha"]
        best = min(v for k, v in smallest.items() if k.endswith("_Q1") and v is not None)
        lines += [f"## {name} (n = {entry['n']:,})", ""]
        if name != "adult":
            lines += [f"Every count of the real table multiplied by {entry['n'] // report['tables']['adult']['n']}: "
                      "a synthetic scale-up to show the theorem where it bites, not a privacy claim about Adult.", ""]
        meaningful = 3 * best < 1
        q = report["queries"]
        pure_q, approx_q = smallest[f"pure_Q{q}"], smallest[f"approx_Q{q}"]
        lines += [f"Smallest alpha the theorems allow: |Q| = 1: {smallest['pure_Q1']:.4g} (delta = 0), "
                  f"{smallest['approx_Q1']:.4g} (delta = 1e-9); |Q| = {q:,}: {pure_q:.4g}, {approx_q:.4g}. "
                  + ("" if meaningful else f"**No stream length gets a meaningful promise at this n**: even one query "
                     f"gives 3 alpha = {3 * best:.3g} > 1, so the promise below is vacuous (reported honestly, not "
                     "tuned away)."), ""]
        lines += ["| system | q/s | from hypothesis | updates / c | refused | max error | mean error | promise | "
                  "max <= promise |",
                  "|---|---|---|---|---|---|---|---|---|"]
        for label, runs in entry["systems"].items():
            s = entry["summary"][label]
            cell = lambda k, f: f"{s[k]['median']:{f}} [{s[k]['min']:{f}}, {s[k]['max']:{f}}]"  # noqa: E731
            if label.startswith("online"):
                promise = "accuracy" if "warm" in label else "3 alpha"
                lines.append(f"| {label} | {cell('qps', ',.0f')} | {cell('from_hypothesis', '.4f')} | "
                             f"{s['updates']['median']:.0f} / {runs[0]['cutoff']} | "
                             f"{s.get('refused', {'median': 0})['median']:.0f} | {cell('max_error', '.4f')} | "
                             f"{cell('mean_error', '.4f')} | {promise} {runs[0]['promised_3alpha']:.4f}"
                             f"{' (vacuous)' if runs[0]['vacuous'] else ''} | "
                             f"{'all runs' if all(r['within_promise'] for r in runs) else 'NOT all runs'} |")
            else:
                lines.append(f"| {label} (fit {s['fit_seconds']['median']:.1f} s, then answers) | – | – | – | – | "
                             f"{cell('max_error', '.4f')} | {cell('mean_error', '.4f')} | – | – |")
        lines.append("")
    ratios = [r["max_error"] / r["promised_3alpha"] for t in report["tables"].values()
              for label, runs in t["systems"].items() if label.startswith("online") for r in runs]
    lines += [f"Max error / promised 3 alpha over all online runs: {min(ratios):.2f} to {max(ratios):.2f} "
              f"({'every' if report['all_within_promise'] else 'NOT every'} run within its promise).", "",
              "Reading: the online mechanism answers each query at once, for queries chosen adaptively, and its "
              "promise covers any such stream; MWEM spends the same epsilon offline on all 1-3-way marginals, which "
              "contain every query of this (non-adaptive) stream, so it is far more accurate here. With the "
              "theorems' parameters the book's threshold T = 2 alpha is large: at the real n it exceeds every "
              "deviation, so the session never updates and answers from the uniform hypothesis; on the scaled table "
              "it updates a few dozen times and stays within its promise. Warm mode spends half of epsilon on an "
              "MWEM synopsis of the 1-3-way marginals and starts there; its threshold comes from the asked "
              "accuracy (Thm 3.28 on the other half), so its answers are about as good as MWEM's at eps/2, and "
              "each is promised within the asked accuracy (w.p. 0.95) or refused.", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
