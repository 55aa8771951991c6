#!/usr/bin/env python
"""Boosting for queries (LP base) vs MWEM and IC-MW on the same small domains and budgets.

    .venv/bin/python benchmarks/bench_boosting.py [--seeds 3] [--out benchmarks/results]

For each setting (domain, n, epsilon) and seed, every mechanism runs through
``dprelease.api.synthesize`` on the same seeded table (a Dirichlet(1/2) histogram, so some cells
are nearly empty) with the 1-2way marginal workload. Reported: the max error over the workload's
counting queries of the *released answers* (boosting: medians over its synopses; MWEM and IC-MW:
their model), seconds (``time.perf_counter`` around ``synthesize``; a shared 2-core machine, so
indicative only), and the alpha ``dprelease.bounds`` guarantees w.p. 0.95 for each:

* boosting: ``bounds.boosting_error`` (Thm 6.1 with the LP generator's proof constants, exactly as
  ``BoostingForQueries.plan`` runs it), at (epsilon, delta);
* IC-MW: ``bounds.ic_mw_alpha`` (Thms 5.3-5.5 with T from Thm 4.10) at (epsilon, delta); IC-MW runs at
  that alpha, or at a fixed 0.5 ("no guarantee") where the theorem is vacuous;
* MWEM: none (no theorem in Dwork & Roth; ``bounds`` has none). MWEM runs with delta = 0 (pure,
  Laplace), a stronger guarantee than the others' (epsilon, 1e-6).

Writes OUT/boosting.json (every run) and OUT/boosting.md (tables). Seeded runs, not releases.
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

from dprelease import Dataset, Domain, Workload, bounds  # noqa: E402
from provenance import commit_label  # noqa: E402
from dprelease.api import synthesize  # noqa: E402
from dprelease.mechanisms import registry  # noqa: E402
from dprelease.mechanisms.baselines import uniform_model  # noqa: E402

DELTA = 1e-6
BETA = 0.05
IC_FALLBACK_ALPHA = 0.5
DOMAINS = {"8 cells (2x2x2)": (2, 2, 2), "64 cells (4x4x4)": (4, 4, 4)}
NS = [10**4, 10**6, 10**8]
EPSILONS = [0.1, 1.0]
#: The registered mechanisms compared, each with the options this benchmark gives it (a table, not a dispatch):
#: boosting and IC-MW at delta (IC's alpha is filled in per run from its theorem), MWEM with its pure-DP defaults.
OPTIONS: dict[str, dict[str, object]] = {"boosting": {"delta": DELTA}, "ic-mw": {"delta": DELTA}, "mwem": {"delta": 0.0}}  # MWEM pure, as measured
#: The error each mechanism's theorem predicts (MWEM has none).
PREDICTIONS = {"boosting": lambda **kw: bounds.boosting_error(**kw)["error"], "ic-mw": bounds.ic_mw_alpha}
MECHANISMS = tuple(OPTIONS)


def make_data(sizes: tuple[int, ...], n: int, seed: int) -> Dataset:
    domain = Domain(("a", "b", "c"), sizes)
    rng = np.random.Generator(np.random.PCG64(7000 + seed))
    return Dataset.from_histogram(rng.multinomial(n, rng.dirichlet(np.full(domain.size, 0.5))), domain)


def predicted(mechanism: str, *, n: int, universe: int, q: int, eps: float) -> float | None:
    kw = {"n": n, "universe_size": universe, "num_queries": q, "epsilon": eps, "delta": DELTA, "beta": BETA}
    return PREDICTIONS[mechanism](**kw) if mechanism in PREDICTIONS else None


def run_one(mechanism: str, data: Dataset, workload: Workload, eps: float, seed: int,
            ic_alpha: float | None) -> dict[str, object]:
    kwargs = dict(OPTIONS[mechanism])
    if "alpha" in registry.user_options(registry.lookup(mechanism)):
        kwargs["alpha"] = ic_alpha if ic_alpha is not None else IC_FALLBACK_ALPHA
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        release = synthesize(data, workload, mechanism=mechanism, epsilon=eps, seed=seed, n_rows=1000, **kwargs)
        seconds = time.perf_counter() - start
    answers = np.concatenate([a.reshape(-1) for a in release.answers])
    error = float(np.abs(answers - workload.answers(data)).max())
    uniform = float(np.abs(workload.answers(uniform_model(data.domain)) - workload.answers(data)).max())
    spent = release.privacy_ledger["spent"]
    return {"seed": seed, "max_error": error, "uniform_max_error": uniform, "seconds": seconds,
            "epsilon_spent": spent["epsilon"],
            "delta_spent": spent["delta"], "stop": release.parameters.get("stop_reason", ""),
            "synopses": release.parameters.get("synopses")}


def run(seeds: int) -> list[dict[str, object]]:
    rows = []
    for label, sizes in DOMAINS.items():
        for n in NS:
            for eps in EPSILONS:
                domain = Domain(("a", "b", "c"), sizes)
                workload = Workload.from_spec("1-2way", domain)
                q = workload.num_queries
                ic_alpha = predicted("ic-mw", n=n, universe=domain.size, q=q, eps=eps)
                for mechanism in MECHANISMS:
                    runs = [run_one(mechanism, make_data(sizes, n, seed), workload, eps, seed, ic_alpha)
                            for seed in range(seeds)]
                    row = {"domain": label, "universe_size": domain.size, "num_queries": q, "n": n, "epsilon": eps,
                           "mechanism": mechanism,
                           "delta": OPTIONS[mechanism].get("delta", 0.0),
                           "predicted_alpha": predicted(mechanism, n=n, universe=domain.size, q=q, eps=eps),
                           "runs": runs}
                    if "alpha" in registry.user_options(registry.lookup(mechanism)):
                        row["run_alpha"] = ic_alpha if ic_alpha is not None else IC_FALLBACK_ALPHA
                    for key in ("max_error", "seconds", "uniform_max_error"):
                        values = [r[key] for r in runs]
                        row[key] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
                    rows.append(row)
                    print(f"{label:>15} n={n:<10} eps={eps:<4g} {mechanism:<9} max error "
                          f"{row['max_error']['median']:.4f}  {row['seconds']['median']:6.2f}s  predicted "
                          f"{fmt(row['predicted_alpha'])}", flush=True)
    return rows


def theory_grid() -> list[dict[str, object]]:
    """The guaranteed alphas over a finer grid of n (public arithmetic only)."""
    out = []
    for label, sizes in DOMAINS.items():
        universe = int(np.prod(sizes))
        q = Workload.from_spec("1-2way", Domain(("a", "b", "c"), sizes)).num_queries
        for n in [10**k for k in range(4, 11)]:
            boost = bounds.boosting_error(n=n, universe_size=universe, num_queries=q, epsilon=1.0, delta=DELTA,
                                          beta=BETA)
            out.append({"domain": label, "n": n, "boosting": boost["error"], "boosting_lambda": boost["lambda"],
                        "boosting_mu": boost["mu"], "k": boost["k"], "rounds": boost["rounds"],
                        "synopsis_rows": boost["base_synopsis_rows"],
                        "ic_mw": predicted("ic-mw", n=n, universe=universe, q=q, eps=1.0)})
    return out


def fmt(value: float | None, digits: int = 3) -> str:
    if value is None:
        return "no guarantee"
    return f"{value:.{digits}g}" + (" (vacuous)" if value > 1 else "")


def markdown(report: dict) -> str:
    lines = ["# Boosting for queries (LP base) vs MWEM and IC-MW", "",
             f"Generated by `benchmarks/bench_boosting.py` on {report['machine']['date']} "
             f"({report['machine']['cpus']} CPUs, load {report['machine']['load']}; commit {report['commit']}). "
             f"Seeded runs ({report['seeds']} seeds); seconds are indicative (shared machine).", "",
             "Workload: all 1- and 2-way marginals (each cell a counting query). Data: a Dirichlet(1/2) "
             "histogram per seed. Error: max over the workload of |released answer - true answer| (median over "
             f"seeds, [min, max]). Predicted: the alpha `dprelease.bounds` guarantees w.p. {1 - BETA:g}. "
             f"Boosting and IC-MW run at (epsilon, delta={DELTA:g}); MWEM at (epsilon, 0). IC-MW runs at its "
             f"guaranteed alpha, or at {IC_FALLBACK_ALPHA} where it has none. Uniform baseline: the uniform "
             "distribution's max error (no data, no budget).", ""]
    for label in DOMAINS:
        lines += [f"## {label}", "", "| n | eps | mechanism | max error (median [min, max]) | seconds | "
                  "predicted alpha | uniform baseline |", "|---|---|---|---|---|---|---|"]
        for row in report["rows"]:
            if row["domain"] != label:
                continue
            e, s = row["max_error"], row["seconds"]
            lines.append(f"| {row['n']:.0e} | {row['epsilon']:g} | {row['mechanism']} | {e['median']:.4f} "
                         f"[{e['min']:.4f}, {e['max']:.4f}] | {s['median']:.2f} | {fmt(row['predicted_alpha'])} | "
                         f"{row['uniform_max_error']['median']:.4f} |")
        lines.append("")
    lines += ["## Guaranteed alpha over n (eps = 1, public arithmetic)", "",
              "| domain | n | boosting lambda + mu | lambda | mu | k | T | n' | IC-MW |",
              "|---|---|---|---|---|---|---|---|---|"]
    for row in report["theory"]:
        lines.append(f"| {row['domain']} | {row['n']:.0e} | {fmt(row['boosting'])} | {row['boosting_lambda']:.3g} | "
                     f"{row['boosting_mu']:.3g} | {row['k']} | {row['rounds']} | {row['synopsis_rows']} | "
                     f"{fmt(row['ic_mw'])} |")
    lines += ["", "## Reading", "", *report["notes"], ""]
    return "\n".join(lines)


NOTES = [
    "* Boosting's guarantee is about ten times IC-MW's on these domains and only non-vacuous from n of about "
    "10^7 (|X| = 8) at eps = 1: its rounds T = 9 ln|Q| + 1 each pay a base generator at eps / (2T), whose "
    "k (about 6 n' log2|X| sampled queries) enters the Laplace scale as sqrt(k). Its strengths in the book "
    "(polylog |Q|, arbitrary low-sensitivity queries) do not show on |Q| <= 60 linear queries.",
    "* Observed errors sit far below every guarantee. Boosting's LP picks, among feasible points, the one "
    "closest in L1 to the medians of repeated noisy answers (post-processing), which is why it beats IC-MW in "
    "practice while its theorem is weaker.",
    "* Where n eps is small (10^3; 10^4 on 64 cells), boosting is worse than the uniform baseline: its lambda is "
    "vacuous, so D stays uniform, and the LP fits the medians of very noisy answers. From n eps = 10^5 on it beats "
    "IC-MW in every row of the tables.",
    "* MWEM, with no theorem in the book, is the most accurate here: on |X| <= 64 it measures whole marginals.",
    "* The ledger charges boosting about 0.75 eps: Cor. 3.21's Laplace scale (the proof's b) makes each base "
    "round cost eps_base / 2 + k x (e^x - 1) < eps_base by Thm 3.20; the rest of the base budget is unspent.",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    report = {"seeds": args.seeds, "delta": DELTA, "beta": BETA, "rows": run(args.seeds), "theory": theory_grid(),
              "notes": NOTES}
    report["commit"] = commit_label()
    report["machine"] = {"date": _dt.datetime.now().isoformat(timespec="seconds"), "cpus": os.cpu_count(),
                         "python": platform.python_version(), "numpy": np.__version__,
                         "load": " ".join(f"{v:.2f}" for v in os.getloadavg())}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "boosting.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (args.out / "boosting.md").write_text(markdown(report), encoding="utf-8")
    print(f"wrote {args.out / 'boosting.json'} and {args.out / 'boosting.md'}")


if __name__ == "__main__":
    main()
