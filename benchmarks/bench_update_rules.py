#!/usr/bin/env python
"""MW vs perceptron vs median mechanism in the iterative construction: where the book's crossover falls.

    .venv/bin/python benchmarks/bench_update_rules.py [--seeds 5] [--out benchmarks/results]

Two parts, both written to OUT/update_rules.json and OUT/update_rules.md:

1. **Theory** (public arithmetic, ``dprelease.bounds``). For a fixed alpha, each rule's T(alpha), the
   number of updates the IC must pay for (eps0 = eps / (2 T(alpha/2))):
     MW 4 ln|X| / alpha^2 (Thm 4.10); perceptron r^2 |X| / alpha^2 (Thm 5.11, r = ||x||_2/||x||_1);
     median log2 |net| (Thm 5.8) on Thm 5.9's net (all databases of n rows) -- with the book's count
     |X|^n and with the exact count C(|X|+n-1, n) that the code enumerates.
   The predicted crossovers: median beats MW while n log2|X| < 4 ln|X| / alpha^2, i.e. n < 4 ln 2 / alpha^2
   (book count); the perceptron beats MW when r^2 |X| < 4 ln|X|, i.e. for evenly spread data
   (r^2 = 1/min(n, |X|)) once n > |X| / (4 ln|X|). Over a grid of n, each rule's guaranteed alpha
   (Thms 5.3-5.5 + its T, exactly as the code plans it) is tabulated too.
2. **Runs.** IC with each rule at one common alpha per setting (so only T, hence eps0, differs), on
   (a) sparse data (n << |X|) and (b) dense data (n >> |X|, 2 attributes, Dataset.from_histogram),
   several seeds. Reported: the max error over the workload of the IC's own answers (MW's histogram,
   the perceptron's raw vector, the median structure's medians) and of the release (the projection /
   the representative candidate), rounds, updates, eps0, seconds, and beside them the alpha each rule's
   theorem guarantees at that setting ("no guarantee" where vacuous).

Seeded runs (SeededRunWarning suppressed); not releases. Wall seconds are time.perf_counter() around
IterativeConstruction.run on a shared 2-core machine: indicative only.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
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

from dprelease import Dataset, Domain, DomainTooLargeError, Workload, bounds  # noqa: E402
from provenance import commit_label  # noqa: E402
from dprelease.errors import SeededRunWarning  # noqa: E402
from dprelease.evaluate import workload_errors  # noqa: E402
from dprelease.mechanisms.iterative_construction import (  # noqa: E402
    AccuracyNotGuaranteedWarning,
    IterativeConstruction,
)
from dprelease.privacy.rng import SeededRandom  # noqa: E402
from dprelease.representations.nets import check_net, smalldb_size  # noqa: E402
from dprelease.updates import MedianMechanism, MultiplicativeWeights, Perceptron  # noqa: E402
from dprelease.updates.median import smallest_net  # noqa: E402

# ---------------------------------------------------------------------------- settings
#: Enumeration cap for the median's net here (the library default is 1,000,000).
MAX_DATABASES = 2_000_000
SETTINGS = [
    {"name": "sparse", "label": "(a) sparse: |X|=32 (2x4x4), n=4 distinct cells, 1-2way (|Q|=42)",
     "sizes": (2, 4, 4), "n": 4, "workload": "1-2way", "alphas": [0.5, 0.25, 0.125], "epsilons": [10.0, 1000.0],
     "perceptron_r": 0.5, "r_reason": "rows known to lie in distinct cells (like a graph's edges): r = 1/sqrt(n)"},
    {"name": "dense-4", "label": "(b1) dense: |X|=4 (2x2), n=10^6, 1-2way (|Q|=8)",
     "sizes": (2, 2), "n": 1_000_000, "workload": "1-2way",
     "alphas": [0.3, 0.2, 0.15, 0.1, 0.07, 0.05], "epsilons": [0.1, 1.0],
     "perceptron_r": 0.75, "r_reason": "declared public bound r = 0.75 (assumed known, e.g. from an earlier census)"},
    {"name": "dense-64", "label": "(b2) dense: |X|=64 (8x8), n=10^6, 1-2way (|Q|=80)",
     "sizes": (8, 8), "n": 1_000_000, "workload": "1-2way",
     "alphas": [0.2, 0.15, 0.1, 0.07, 0.05], "epsilons": [0.1, 1.0],
     "perceptron_r": 0.35, "r_reason": "declared public bound r = 0.35 (assumed known, e.g. from an earlier census)"},
]


def make_data(setting: dict, seed: int) -> Dataset:
    domain = Domain(tuple("abc"[: len(setting["sizes"])]), setting["sizes"])
    rng = np.random.Generator(np.random.PCG64(1000 + seed))
    if setting["name"] == "sparse":
        cells = rng.choice(domain.size, setting["n"], replace=False)
        counts = np.bincount(cells, minlength=domain.size)
    elif setting["name"] == "dense-4":
        counts = rng.multinomial(setting["n"], [0.7, 0.05, 0.2, 0.05])
    else:  # a smooth, skewed 2-D table (a discretised correlated pair), every cell populated
        i, j = np.meshgrid(np.arange(8), np.arange(8), indexing="ij")
        p = np.exp(-((i - j) ** 2) / 1.5 - (i + j) / 4.0) * (1 + 0.2 * rng.random((8, 8)))
        counts = rng.multinomial(setting["n"], (p / p.sum()).reshape(-1))
    return Dataset.from_histogram(counts, domain)


def rules_for(setting: dict, workload: Workload, n: int, alpha: float) -> dict[str, object]:
    rules: dict[str, object] = {
        "mw": MultiplicativeWeights(),
        "perceptron r=1": Perceptron(),
        f"perceptron r={setting['perceptron_r']:.3g}": Perceptron(norm_ratio_bound=setting["perceptron_r"]),
    }
    kind, size = smallest_net(n=n, alpha=alpha / 2, num_queries=workload.num_queries, linear=True)
    caps = {"max_databases": MAX_DATABASES}
    median = (MedianMechanism.all_databases(n=n, **caps) if kind == "all-databases"
              else MedianMechanism.smalldb_net(alpha=alpha / 2, num_queries=workload.num_queries, **caps))
    try:
        median.check_queries(workload, workload.domain)
        rules["median"] = median
    except DomainTooLargeError as exc:
        rules["median"] = exc
    return rules


def guaranteed_alpha(rule: object, *, n: int, universe: int, q: int, eps: float) -> float | None:
    kw = {"n": n, "universe_size": universe, "num_queries": q, "epsilon": eps}
    if isinstance(rule, MultiplicativeWeights):
        return bounds.ic_mw_alpha(**kw)
    if isinstance(rule, Perceptron):
        return bounds.ic_perceptron_alpha(**kw, norm_ratio_bound=rule.norm_ratio_bound)
    return bounds.ic_median_alpha(**kw)


def ic_errors(result, data: Dataset, workload: Workload) -> tuple[float, float]:
    model = result.model
    y_error = float(np.abs(workload.answers(model) - workload.answers(data)).max())
    if hasattr(model, "projected"):
        released = model.projected()
    elif hasattr(model, "representative"):
        released = model.representative(workload)
    else:
        released = model
    return y_error, workload_errors(data, released, workload)["max_error"]


def short(rule: object) -> str:
    if isinstance(rule, Perceptron):
        return f"perceptron r={rule.norm_ratio_bound:.3g}"
    return "mw" if isinstance(rule, MultiplicativeWeights) else "median"


def run_setting(setting: dict, seeds: int) -> dict:
    data0 = make_data(setting, 0)
    domain = data0.domain
    workload = Workload.from_spec(setting["workload"], domain)
    n = data0.n
    z = data0.histogram().reshape(-1) / n
    true_ratio = float(np.linalg.norm(z))
    out = {"setting": setting["label"], "name": setting["name"], "universe_size": domain.size, "n": n,
           "num_queries": workload.num_queries, "alphas": setting["alphas"], "epsilons": setting["epsilons"],
           "true_norm_ratio": true_ratio, "perceptron_r_reason": setting["r_reason"], "seeds": seeds,
           "start_max_error": {}, "rows": []}
    for eps in setting["epsilons"]:
        for alpha in setting["alphas"]:
            for name, rule in rules_for(setting, workload, n, alpha).items():
                row = {"rule": name, "epsilon": eps, "alpha": alpha}
                if isinstance(rule, Exception):
                    row["error"] = str(rule).split(";")[0]
                    row["guaranteed_alpha"] = bounds.ic_median_alpha(n=n, universe_size=domain.size,
                                                                     num_queries=workload.num_queries, epsilon=eps)
                    out["rows"].append(row)
                    print(f"  {setting['name']:>8} eps={eps:<6g} alpha={alpha:<5g} {name:<22} not run: net too large",
                          flush=True)
                    continue
                if isinstance(rule, Perceptron):
                    assert rule.norm_ratio_bound >= true_ratio, "a declared bound must hold for the data used"
                if isinstance(rule, MedianMechanism):
                    row["net"] = f"{'all databases' if rule.net_alpha is None else 'SmallDB'}, m={rule.database_size}"
                row["guaranteed_alpha"] = guaranteed_alpha(rule, n=n, universe=domain.size,
                                                           q=workload.num_queries, eps=eps)
                if isinstance(rule, MedianMechanism) and row["guaranteed_alpha"] is not None:
                    # Could the median run at its own guaranteed alpha? (its net for alpha/2 under the cap)
                    kind, size = smallest_net(n=n, alpha=row["guaranteed_alpha"] / 2,
                                              num_queries=workload.num_queries, linear=True)
                    try:
                        check_net(domain.size, size, num_queries=workload.num_queries, max_databases=MAX_DATABASES)
                        row["guaranteed_alpha_runnable"] = True
                    except DomainTooLargeError:
                        row["guaranteed_alpha_runnable"] = False
                runs = []
                for seed in range(seeds):
                    data = make_data(setting, seed)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore", (AccuracyNotGuaranteedWarning, SeededRunWarning))
                        start = time.perf_counter()
                        result = IterativeConstruction(epsilon=eps, alpha=alpha, update=rule).run(
                            data, workload, rng=SeededRandom(seed))
                        seconds = time.perf_counter() - start
                    y_error, release_error = ic_errors(result, data, workload)
                    runs.append({"seed": seed, "y_max_error": y_error, "release_max_error": release_error,
                                 "rounds_run": len(result.transcript),
                                 "updates": sum(r["action"] == "update" for r in result.transcript),
                                 "seconds": seconds})
                    row.update(rounds_planned=result.parameters["rounds"], epsilon0=result.parameters["epsilon0"],
                               accuracy_guaranteed=result.parameters["accuracy_guaranteed"])
                    out["start_max_error"].setdefault(short(rule), float(np.abs(
                        workload.answers(rule.initial(domain)) - workload.answers(data0)).max()))
                row["runs"] = runs
                row["success"] = sum(r["y_max_error"] <= alpha for r in runs)
                for key in ("y_max_error", "release_max_error", "seconds", "updates"):
                    values = [r[key] for r in runs]
                    row[key] = {"median": statistics.median(values), "min": min(values), "max": max(values)}
                out["rows"].append(row)
                print(f"  {setting['name']:>8} eps={eps:<6g} alpha={alpha:<5g} {name:<22} "
                      f"ok {row['success']}/{seeds} y={row['y_max_error']['median']:.3f} "
                      f"release={row['release_max_error']['median']:.3f} T={row['rounds_planned']} "
                      f"upd={row['updates']['median']:g} ({row['seconds']['median']:.2f}s)", flush=True)
    return out


# ------------------------------------------------------------------------------ theory
def theory(universe: int, num_queries: int, alpha: float, epsilon: float, ns: list[int]) -> dict:
    t_mw = bounds.thm_4_10_mw_updates(alpha=alpha, universe_size=universe)
    t_smalldb_book = math.log(num_queries) * math.log2(universe) / alpha**2  # Remark 5.2
    t_smalldb_exact = bounds.log2_net_size(universe, smalldb_size(alpha=alpha, num_queries=num_queries))
    rows = []
    for n in ns:
        best_r = 1 / math.sqrt(min(n, universe))
        kw = {"n": n, "universe_size": universe, "num_queries": num_queries, "epsilon": epsilon}
        rows.append({
            "n": n,
            "T_mw": t_mw,
            # Thm 5.8 on the smaller net, book counts: Thm 5.9's |X|^n or Remark 5.2's |X|^(ln|Q|/alpha^2)
            "T_median_book": min(n * math.log2(universe), t_smalldb_book),
            # ... and exact counts C(|X|+m-1, m), the net the code would pick (linear queries)
            "T_median_exact": bounds.median_updates_for(n=n, universe_size=universe, num_queries=num_queries)(alpha),
            "T_perceptron_r1": bounds.thm_5_11_perceptron_updates(alpha=alpha, universe_size=universe),
            "T_perceptron_even": bounds.thm_5_11_perceptron_updates(alpha=alpha, universe_size=universe,
                                                                    norm_ratio=best_r),
            "alpha_mw": bounds.ic_mw_alpha(**kw),
            "alpha_median": bounds.ic_median_alpha(**kw),
            "alpha_perceptron_r1": bounds.ic_perceptron_alpha(**kw),
            "alpha_perceptron_even": bounds.ic_perceptron_alpha(**kw, norm_ratio_bound=best_r),
        })
    # Exact crossover: the smallest n with log2 C(|X|+n-1, n) >= T_MW (monotone in n; bisection) -- unless
    # the SmallDB net (which does not grow with n) already needs fewer updates than MW: then never.
    exact = None
    if t_smalldb_exact >= t_mw:
        low, high = 1, 2
        while bounds.log2_net_size(universe, high) < t_mw:
            low, high = high, high * 2
        while high - low > 1:
            mid = (low + high) // 2
            low, high = (mid, high) if bounds.log2_net_size(universe, mid) < t_mw else (low, mid)
        exact = high
    return {
        "universe_size": universe, "num_queries": num_queries, "alpha": alpha, "epsilon": epsilon,
        # n log2|X| = 4 ln|X| / alpha^2, unless Remark 5.2's net is already below MW (|Q| <= 16): never
        "crossover_median_vs_mw_book": 4 * math.log(2) / alpha**2 if t_smalldb_book >= t_mw else None,
        "T_median_smalldb_net_book": t_smalldb_book, "T_median_smalldb_net_exact": t_smalldb_exact,
        "crossover_median_vs_mw_exact": exact,
        "crossover_perceptron_even_vs_mw": universe / (4 * math.log(universe)),  # |X| / n = 4 ln|X|
        "perceptron_r1_beats_mw": universe < 4 * math.log(universe),
        "rows": rows,
    }


# ------------------------------------------------------------------------------- report
def fmt(value: float | None, digits: int = 3) -> str:
    return "no guarantee" if value is None else f"{value:.{digits}g}"


def markdown(report: dict) -> str:
    lines = ["# Update rules in the iterative construction: MW vs perceptron vs median", "",
             f"Generated by `benchmarks/bench_update_rules.py` on {report['machine']['date']} "
             f"({report['machine']['cpus']} CPUs, load {report['machine']['load']}; commit {report['commit']}). "
             "Seeded runs; seconds are indicative (shared machine).", "",
             "## 1. Theory: T(alpha) and the predicted crossovers", ""]
    for th in report["theory"]:
        book, exact = th["crossover_median_vs_mw_book"], th["crossover_median_vs_mw_exact"]
        lines += [f"### |X| = {th['universe_size']}, |Q| = {th['num_queries']}, alpha = {th['alpha']}, "
                  f"eps = {th['epsilon']}", "",
                  f"- T: MW {th['rows'][0]['T_mw']:.0f}; median on Remark 5.2's SmallDB net "
                  f"{th['T_median_smalldb_net_book']:.0f} (book count) / {th['T_median_smalldb_net_exact']:.0f} "
                  "(exact count); median on Thm 5.9's net n log2|X| (book) / log2 C(|X|+n-1, n) (exact)",
                  "- median needs fewer updates than MW: with the book's counts "
                  + (f"while n < 4 ln2 / alpha^2 = **{book:.1f}**" if book is not None else "**for every n**")
                  + "; with the exact counts the code uses "
                  + (f"while n < **{exact:,}**" if exact is not None else "**for every n** (the SmallDB net's exact "
                     "count alone is below MW's T)"),
                  f"- perceptron on evenly spread data (r^2 = 1/min(n, |X|)) beats MW once n > |X| / (4 ln|X|) = "
                  f"**{th['crossover_perceptron_even_vs_mw']:.2f}**; with the public default r = 1 it beats MW "
                  f"{'always' if th['perceptron_r1_beats_mw'] else 'never'} here (|X| vs 4 ln|X|)",
                  "- the median's guaranteed alphas for large n use nets far beyond any enumeration cap: they are "
                  "what the theorem promises, not what can be run", "",
                  "| n | T MW | T median (book) | T median (exact) | T perc. r=1 | T perc. even | alpha MW | "
                  "alpha median | alpha perc. r=1 | alpha perc. even |",
                  "|---|---|---|---|---|---|---|---|---|---|"]
        for r in th["rows"]:
            lines.append(f"| {r['n']:,} | {r['T_mw']:.0f} | {r['T_median_book']:.0f} | {r['T_median_exact']:.1f} | "
                         f"{r['T_perceptron_r1']:.0f} | {r['T_perceptron_even']:.0f} | {fmt(r['alpha_mw'])} | "
                         f"{fmt(r['alpha_median'])} | {fmt(r['alpha_perceptron_r1'])} | "
                         f"{fmt(r['alpha_perceptron_even'])} |")
        lines.append("")
    lines += ["T columns are at the table's alpha; alpha columns are the smallest alpha Thms 5.3-5.5 guarantee "
              "(w.p. 0.95, delta = 0) with each rule's T, exactly as `IterativeConstruction.plan` computes them "
              "(\"perc. even\" declares r = 1/sqrt(min(n, |X|)), the best case).", "",
              "## 2. Runs", "",
              "Each cell: seeds with max error <= alpha / seeds, then the median max error of the IC's answers "
              "[of the release], then T(alpha/2) = the rounds paid for. \"alpha*\" is the smallest grid alpha "
              "where every seed succeeded; \"bounds alpha\" is the smallest alpha the rule's theorems guarantee "
              "at this n, |X|, |Q|, eps (w.p. 0.95).", ""]
    for s in report["runs"]:
        alphas = s["alphas"]
        starts = ", ".join(f"{k} {v:.2f}" for k, v in s["start_max_error"].items())
        lines += [f"### {s['setting']}", "",
                  f"True ||x||_2/||x||_1 = {s['true_norm_ratio']:.3f}; perceptron bound: {s['perceptron_r_reason']}. "
                  f"Max error of each rule's starting point: {starts}. {s['seeds']} seeds.", ""]
        for eps in s["epsilons"]:
            lines += [f"eps = {eps:g}", "",
                      "| rule | bounds alpha | alpha* (runs) | " + " | ".join(f"alpha = {a:g}" for a in alphas) + " |",
                      "|---|---|---|" + "---|" * len(alphas)]
            rules = list(dict.fromkeys(r["rule"] for r in s["rows"] if r["epsilon"] == eps))
            for rule in rules:
                cells, shown, star = [], "-", None
                for a in alphas:
                    r = next(x for x in s["rows"] if x["epsilon"] == eps and x["alpha"] == a and x["rule"] == rule)
                    bound = r.get("guaranteed_alpha")
                    shown = fmt(bound) + (" (its net: too large to run)" if r.get("guaranteed_alpha_runnable") is False
                                          or ("error" in r and bound is not None) else "")
                    if "error" in r:
                        cells.append("net too large")
                        continue
                    if r["success"] == len(r["runs"]):
                        star = a
                    cells.append(f"{r['success']}/{len(r['runs'])}, {r['y_max_error']['median']:.3f} "
                                 f"[{r['release_max_error']['median']:.3f}], T={r['rounds_planned']}")
                lines.append(f"| {rule} | {shown} | {'-' if star is None else f'{star:g}'} | "
                             + " | ".join(cells) + " |")
            lines.append("")
    lines += ["\"IC answers\" are the theorem's y: MW's histogram, the perceptron's raw (possibly negative) vector, "
              "the median structure's medians; the release (in brackets) is the perceptron's simplex projection / "
              "the median's representative candidate (post-processing). \"net too large\": the median's net for "
              f"alpha/2 exceeds the enumeration cap ({MAX_DATABASES:,} databases here).", ""]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=HERE / "results")
    args = parser.parse_args()
    start = time.perf_counter()
    print("theory ...", flush=True)
    grid = [1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000]
    report = {
        "theory": [theory(32, 42, 0.25, 1.0, grid), theory(64, 80, 0.1, 1.0, grid)],
        "runs": [],
    }
    for setting in SETTINGS:
        print(f"runs: {setting['label']}", flush=True)
        report["runs"].append(run_setting(setting, args.seeds))
    report["commit"] = commit_label()
    report["machine"] = {"date": _dt.datetime.now().isoformat(timespec="seconds"), "cpus": os.cpu_count(),
                         "python": platform.python_version(), "numpy": np.__version__,
                         "load": f"{os.getloadavg()[0]:.2f}", "total_seconds": time.perf_counter() - start}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "update_rules.json").write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    (args.out / "update_rules.md").write_text(markdown(report), encoding="utf-8")
    print(f"wrote {args.out / 'update_rules.json'} and update_rules.md in {time.perf_counter() - start:.0f} s")


if __name__ == "__main__":
    main()
