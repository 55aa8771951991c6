#!/usr/bin/env python
"""Tables of random shapes that no default was chosen on: the default beside the independent baseline and uniform.

    .venv/bin/python benchmarks/bench_shapes.py [--tables 16] [--seeds 10] [--eps 0.1,1,10] [--jobs 2] [--out DIR]
    .venv/bin/python benchmarks/bench_shapes.py --family mixture [--seeds 3] [--peer-seeds 2]
    .venv/bin/python benchmarks/bench_shapes.py --render-only [--family mixture]

The suite (bench_suite.py) chose the defaults; its held-out and small-domain pages test them on tables written
by hand. Here the shapes are drawn: table i is a Bayesian network whose width (3-14 columns), column sizes (40 %
binary, 35 % 3-8 values, 20 % 10-40, 5 % 50-100), parents (0-2 earlier columns), CPT concentration
(Dirichlet alpha in {0.2, 0.5, 1, 3}: from a few values per parent setting to nearly uniform) and n (200, 1,000,
5,000 or 30,000) all come from ``numpy.random.default_rng([SHAPES_SEED, i])``. SHAPES_SEED was drawn in session
30, after every default was chosen, and nothing was tuned on these tables. The workload follows the width the way
a user's would: all 1-3-way marginals up to 7 columns, all 1-2-way up to 11, all 2-way beyond.

``--family mixture`` draws a second family from its own seed (MIXTURE_SEED, read off the clock in session 36
before any run; page in results/shapes-mixture): latent-class mixtures of 3-24 columns with the same size
classes and n, 2-8 hidden classes and a per-class concentration in {0.3, 1, 3, 10} (suite_tables.latent_mixture,
the structure of the suite's ``wide``). There every pair of columns is dependent through the class, which no
tree and no sparse network holds exactly.

``--family copula`` draws a third (COPULA_SEED, read off the clock in session 38 before any run; page in
results/shapes-copula): ordinal columns binned from a Gaussian factor model (suite_tables.ordinal_copula), 3-16
columns of the same size classes and n, 1-3 factors, a load strength in {0, 0.4, 0.7, 0.9}, each column's marginal
flat, long-tailed (Zipf) or skewed. Neighbouring values go together, as between a real table's age, hours and income.

Systems: ``dprelease`` (``synthesize`` with every default; its released rows and its model's own answers are both
scored), ``independent`` (Laplace 1-way marginals at eps / d, their product, rows sampled: the issue's baseline,
run per column as in bench_suite.py), ``uniform`` (uniform rows: what a release that measured nothing gives), and
smartnoise-synth's MST through benchmarks/peers/run_peer.py (``bash benchmarks/peers/setup_peers.sh`` makes its
venv; skipped with a note where there is none): ``mst`` at the nominal eps and ``mst-matched`` at the eps that gives
it dprelease's guarantee (peer_guarantee.py), ``--peer-seeds`` seeds each (rows sampled, delta = 1e-9).
Scored with bench_suite's scorer (avg L1 over the workload's marginals). Runs go to a pool of ``--jobs`` worker
processes with one BLAS thread each; seconds are fit + rows inside the worker. Peak memory is not measured here
(bench_suite.py does, one fresh process a run).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import provenance  # noqa: E402
from suite_report import seed_test  # noqa: E402

SHAPES_SEED = 3001
#: The mixture family's seed, read off the clock in session 36 before any mixture table was run.
MIXTURE_SEED = 62166
#: The copula family's seed, read off the clock in session 38 (date +%s mod 100,000) before any copula table was run.
COPULA_SEED = 79948
#: family: (seed, when it was drawn, what the tables are).
FAMILIES = {
    "network": (SHAPES_SEED, "session 30, after every default was chosen",
                "Bayesian networks of 3-14 columns, 0-2 parents a column"),
    "mixture": (MIXTURE_SEED, "session 36, read off the clock before any run",
                "latent-class mixtures of 3-24 columns: every pair dependent through a hidden class"),
    "copula": (COPULA_SEED, "session 38, read off the clock before any run",
               "ordinal columns of 3-16 binned from a Gaussian factor model, flat, long-tailed or skewed"),
}
OUT = HERE / "results" / "shapes"
SYSTEMS = ("dprelease", "independent", "uniform")
PEERS = ("mst", "mst-matched")
PEER_PY = HERE / ".venv-peers" / "bin" / "python"
PEER_RUNNER = HERE / "peers" / "run_peer.py"
PEER_TIME_LIMIT = 600.0
DELTA = 1e-9
#: (probability, low, high) of a column's size class: binary, small, medium, large.
SIZE_CLASSES = ((0.4, 2, 2), (0.35, 3, 8), (0.2, 10, 40), (0.05, 50, 100))
ALPHAS = (0.2, 0.5, 1.0, 3.0)
SIZES_N = (200, 1_000, 5_000, 30_000)
MIXTURE_CLASSES = (2, 3, 5, 8)
#: Per-class concentration of a mixture column around its base distribution: 0.3 sharp classes (strong
#: dependence between every pair), 10 classes close to one another (nearly independent columns).
MIXTURE_CONCENTRATIONS = (0.3, 1.0, 3.0, 10.0)
COPULA_FACTORS = (1, 2, 3)
#: A copula column's load on its factor (times U(0.6, 1)): 0 independent columns, 0.9 strongly tied ones.
COPULA_STRENGTHS = (0.0, 0.4, 0.7, 0.9)


def drawn_sizes(rng, widest: int) -> list[int]:
    """A width from 3 to ``widest``, then each column's size from :data:`SIZE_CLASSES` (both families draw alike)."""
    d = int(rng.integers(3, widest + 1))
    kinds = rng.choice(len(SIZE_CLASSES), size=d, p=[c[0] for c in SIZE_CLASSES])
    return [int(rng.integers(SIZE_CLASSES[k][1], SIZE_CLASSES[k][2] + 1)) for k in kinds]


def workload_for_width(d: int) -> str:
    """The workload a user would ask of d columns: all 1-3-way up to 7, all 1-2-way up to 11, all 2-way beyond."""
    return "1-3way" if d <= 7 else "1-2way" if d <= 11 else "2way"


def shape(i: int, family: str = "network") -> dict:
    """Table i's shape: columns' sizes and parents, CPT concentration, n and workload (public, seeded); of the
    ``mixture`` family, :func:`mixture_shape`."""
    import numpy as np

    if family == "mixture":
        return mixture_shape(i)
    if family == "copula":
        return copula_shape(i)
    rng = np.random.default_rng([SHAPES_SEED, i])
    sizes = drawn_sizes(rng, 14)
    d = len(sizes)
    alpha = float(rng.choice(ALPHAS))
    n = int(rng.choice(SIZES_N))
    nodes = []
    for j, size in enumerate(sizes):
        count = 0 if j == 0 else int(rng.choice(min(j, 2) + 1))
        parents = tuple(f"x{p}" for p in sorted(rng.choice(j, size=count, replace=False))) if count else ()
        nodes.append((f"x{j}", size, parents))
    return {"table": f"shape{i:02d}", "index": i, "d": d, "sizes": sizes, "alpha": alpha, "n": n,
            "workload": workload_for_width(d), "cells": math.prod(sizes), "nodes": nodes}


def family_shape(i: int, *, family: str, seed: int, prefix: str, widest: int, knobs: tuple) -> dict:
    """Table i of a drawn family: a width from 3 to ``widest`` and the network family's size classes, then each knob
    ``(key, choices, cast)`` drawn in order, then n (the same stream as the family's first pages)."""
    import numpy as np

    rng = np.random.default_rng([seed, i])
    sizes = drawn_sizes(rng, widest)
    drawn = {key: cast(rng.choice(choices)) for key, choices, cast in knobs}
    n = int(rng.choice(SIZES_N))
    return {"table": f"{prefix}{i:02d}", "family": family, "index": i, "d": len(sizes), "sizes": sizes, **drawn,
            "n": n, "workload": workload_for_width(len(sizes)), "cells": math.prod(sizes)}


def mixture_shape(i: int) -> dict:
    """Mixture table i: width 3-24, the network family's size classes and n, classes and concentration drawn."""
    return family_shape(i, family="mixture", seed=MIXTURE_SEED, prefix="mix", widest=24,
                        knobs=(("classes", MIXTURE_CLASSES, int), ("alpha", MIXTURE_CONCENTRATIONS, float)))


def copula_shape(i: int) -> dict:
    """Copula table i: width 3-16, the network family's size classes and n, factors and strength drawn."""
    return family_shape(i, family="copula", seed=COPULA_SEED, prefix="cop", widest=16,
                        knobs=(("factors", COPULA_FACTORS, int), ("alpha", COPULA_STRENGTHS, float)))


def dataset_of(info: dict):
    import suite_tables

    if info.get("family") == "mixture":
        names = tuple(f"x{j}" for j in range(info["d"]))
        return suite_tables.latent_mixture(names, tuple(info["sizes"]), info["classes"], info["alpha"], info["n"],
                                           MIXTURE_SEED + info["index"])
    if info.get("family") == "copula":
        return suite_tables.ordinal_copula(tuple(info["sizes"]), info["factors"], info["alpha"], info["n"],
                                           COPULA_SEED + info["index"])
    return suite_tables.drawn_network(info["nodes"], info["alpha"], info["n"], SHAPES_SEED + info["index"])


def run_peer(dataset, system: str, eps: float, seed: int) -> tuple[object, dict]:
    """(rows, fields) of one MST run on ``dataset``'s codes, through run_peer.py in the peers' venv."""
    import tempfile

    import peer_guarantee
    from bench_suite import read_peer_rows, write_peer_files

    eps_run = peer_guarantee.run_epsilon(system, eps, DELTA, columns=len(dataset.domain))
    with tempfile.TemporaryDirectory() as folder:
        data, domain, rows, result = (Path(folder) / name for name in ("data.csv", "domain.json", "rows.csv", "run.json"))
        write_peer_files(dataset, data, domain)
        subprocess.run([str(PEER_PY), str(PEER_RUNNER), "--data", str(data), "--domain", str(domain),
                        "--synth", peer_guarantee.program(system), "--epsilon", repr(eps_run), "--delta", f"{DELTA:g}",
                        "--seed", str(seed), "--time-limit", f"{PEER_TIME_LIMIT:g}", "--out", str(rows),
                        "--json", str(result)], capture_output=True, text=True, timeout=PEER_TIME_LIMIT + 300)
        run = json.loads(result.read_text())
        fields = {"status": run.get("status"), "seconds": run.get("seconds_fit_sample"), "epsilon_run": eps_run}
        if run.get("status") != "ok":
            return None, {**fields, "error": str(run.get("error"))[-500:]}
        return read_peer_rows(rows, dataset.domain), fields


def run_one(job: tuple) -> dict:
    """One (table, system, eps, seed[, family]) run, scored."""
    import bench_suite
    from dprelease.errors import SeededRunWarning
    from dprelease.queries.workload import Workload

    warnings.filterwarnings("ignore", category=SeededRunWarning)
    i, system, eps, seed, *family = job
    info = shape(i, *family)
    dataset = dataset_of(info)
    workload = Workload.from_spec(info["workload"], dataset.domain)
    real = bench_suite.LazyRowMarginals(dataset)
    out = {"table": info["table"], "system": system, "epsilon": eps, "seed": seed}
    t0 = time.perf_counter()
    if system in PEERS:
        rows, fields = run_peer(dataset, system, eps, seed)
        out.update(fields)
        if rows is not None:
            out["rows_avg_l1"] = bench_suite.score_rows(real, rows, dataset, {"m": workload})["m"]["avg_l1"]
        return out
    if system == "dprelease":
        from dprelease.api import synthesize

        release = synthesize(dataset, workload, epsilon=eps, seed=seed)
        out["seconds"] = time.perf_counter() - t0
        out["rows_avg_l1"] = bench_suite.score_rows(real, release.rows, dataset, {"m": workload})["m"]["avg_l1"]
        out["model_avg_l1"] = bench_suite.score(real, bench_suite.ReleasedAnswers(release), workload)["avg_l1"]
        p = release.parameters
        out["plan"] = ("joint" if p.get("joint_plan") else "direct" if p.get("direct_plan")
                       else "INIT alone" if not p.get("rounds_run") else f"{p.get('rounds_run')} rounds")
        out["rows_method"] = release.rows_method
        return out
    rows = bench_suite.baseline_rows(dataset, system, eps, seed)  # the suite's baselines, drawn the same way
    out["seconds"] = time.perf_counter() - t0
    out["rows_avg_l1"] = bench_suite.score_rows(real, rows, dataset, {"m": workload})["m"]["avg_l1"]
    return out


def by_case(doc: dict) -> dict[tuple[str, str, float], list[dict]]:
    """The runs grouped by (table, system, eps), once, for the page."""
    grouped: dict[tuple[str, str, float], list[dict]] = {}
    for run in doc["runs"]:
        grouped.setdefault((run["table"], run["system"], run["epsilon"]), []).append(run)
    return grouped


def runs_of(grouped: dict, table: str, system: str, eps: float, key: str = "rows_avg_l1") -> list:
    """One field of a case's runs, from those that have it (a peer's failed run has no score)."""
    return [r[key] for r in grouped.get((table, system, eps), []) if key in r]


def render(doc: dict) -> str:
    machine, code = doc["machine"], doc["code"]
    eps_list, tables = doc["config"]["eps"], doc["tables"]
    seed, when, what = FAMILIES[doc["config"].get("family", "network")]
    lines = ["# Random shapes: the default on tables no default was chosen on", "",
             provenance.provenance_line("bench_shapes.py", machine, code, doc["total_seconds"]), "",
             *[f"Rerun on {provenance.commit_label(r['code'])} ({r['machine']['date'][:10]}): {r['case']}, "
               f"{r['seeds']} seeds, {r['seconds']:.0f} s (a default changed it; every other case as above)."
               for r in doc.get("reruns", [])], *([""] if doc.get("reruns") else []),
             *([f"MST's runs come from an earlier run of the same tables on {provenance.commit_label(doc['peers_from']['code'])} "
                f"({doc['peers_from']['machine']['date'][:10]}, {doc['peers_from']['seconds'] / 60:.1f} min with its own "
                "dprelease runs at fewer seeds); dprelease's and the baselines' runs are this run's.", ""]
               if doc.get("peers_from") else []),
             f"Config: {len(tables)} tables drawn from seed {seed} ({when}): {what}; "
             f"eps {', '.join(f'{e:g}' for e in eps_list)}; seeds 0..{doc['config']['seeds'] - 1}; delta = 1e-9 for "
             "dprelease (its default). avg L1 = mean over the workload's marginals of the L1 distance between fraction "
             "vectors, of the released rows (`auto`'s method) unless marked model.", "",
             "## Tables", "", "| table | n | columns | sizes | alpha | cells | workload |", "|---|---|---|---|---|---|---|"]
    if any("classes" in t for t in tables):  # the mixture family: its alpha is the per-class concentration
        lines[-2:] = ["| table | n | columns | sizes | classes | concentration | cells | workload |",
                      "|---|---|---|---|---|---|---|---|"]
    if any("factors" in t for t in tables):  # the copula family: its alpha is the factor loading's strength
        lines[-2:] = ["| table | n | columns | sizes | factors | strength | cells | workload |",
                      "|---|---|---|---|---|---|---|---|"]
    for t in tables:
        shape_cells = (f"{t['classes']} | {t['alpha']:g}" if "classes" in t else f"{t['factors']} | {t['alpha']:g}"
                       if "factors" in t else f"{t['alpha']:g}")
        lines.append(f"| {t['table']} | {t['n']:,} | {t['d']} | {' '.join(map(str, t['sizes']))} | {shape_cells} | "
                     f"{t['cells']:.3g} | `{t['workload']}` |")
    below_ind = below_uni = total = 0
    losses, above_uniform = [], []
    grouped = by_case(doc)
    peers = [p for p in PEERS if any(r["system"] == p and "rows_avg_l1" in r for r in doc["runs"])]
    peer_wins = {p: [0, 0] for p in peers}  # [at or below, cases]
    peer_losses: list[str] = []
    body = ["", "## Medians over seeds", "",
            "| table | eps | plan | dprelease rows | dprelease model | independent | uniform | "
            + "".join(f"{p} | " for p in peers) + "rows / independent | seconds |",
            "|---|---|---|---|---|---|---|" + "---|" * len(peers) + "---|---|"]
    for t in tables:
        for eps in eps_list:
            ours = runs_of(grouped, t["table"], "dprelease", eps)
            model = runs_of(grouped, t["table"], "dprelease", eps, "model_avg_l1")
            ind, uni = runs_of(grouped, t["table"], "independent", eps), runs_of(grouped, t["table"], "uniform", eps)
            if not (ours and ind and uni):
                continue
            o, i_, u = statistics.median(ours), statistics.median(ind), statistics.median(uni)
            plans = sorted({p if "rounds" not in p else "rounds" for p in runs_of(grouped, t["table"], "dprelease", eps, "plan")})
            seconds = statistics.median(runs_of(grouped, t["table"], "dprelease", eps, "seconds"))
            total += 1
            below_ind += o <= i_
            below_uni += o <= u
            if o > i_:
                losses.append(f"- {t['table']}, eps = {eps:g}: {o:.4f} > independent {i_:.4f} ({o / i_:.2f}x; "
                              f"{seed_test(ours, ind)})")
            medians = {"independent": i_}  # the others' medians in this case, the peers' where they finished
            for p in peers:
                theirs = runs_of(grouped, t["table"], p, eps)
                if not theirs:
                    continue
                m = medians[p] = statistics.median(theirs)
                peer_wins[p][0] += o <= m
                peer_wins[p][1] += 1
                if o > m:
                    peer_losses.append(f"- {t['table']}, eps = {eps:g}: {o:.4f} > {p} {m:.4f} ({o / m:.2f}x; "
                                       f"{seed_test(ours, theirs)})")
            if o > u:
                others = "; ".join(f"{name} {m:.4f}" for name, m in medians.items())
                above_uniform.append(f"- {t['table']}, eps = {eps:g} ({', '.join(plans)}): {o:.4f} > uniform {u:.4f} "
                                     f"({o / u:.2f}x; {others}); n eps = {t['n'] * eps:g} over {t['d']} columns")
            peer_cells = "".join(f"{medians[p]:.3f} | " if p in medians else "– | " for p in peers)
            body.append(f"| {t['table']} | {eps:g} | {', '.join(plans)} | {o:.3f} | {statistics.median(model):.3f} | "
                        f"{i_:.3f} | {u:.3f} | {peer_cells}{o / i_:.2f}x | {seconds:.1f} |")
    summary = ["", "## Verdicts", "",
               f"- **Default <= the independent baseline:** {below_ind} of {total}.",
               f"- **Default <= a uniform table:** {below_uni} of {total}."]
    names = {"mst": "MST at the same nominal eps", "mst-matched": "MST at dprelease's guarantee (`mst-matched`)"}
    summary += [f"- **Default <= {names[p]}:** {won} of {cases} (medians; MST's seeds 0..{doc['config'].get('peer_seeds', 0) - 1})."
                for p, (won, cases) in peer_wins.items()]
    summary += [""]
    summary += ["Losses to the independent baseline:" if losses else "No loss to the independent baseline.", *losses, ""]
    if peers:
        summary += ["Losses to MST:" if peer_losses else "No loss to MST.", *peer_losses, ""]
    summary += (["Where the default is above a uniform table (each line gives the baseline's and the peers' medians "
                 "there):", *above_uniform]
                if above_uniform else ["The default is at or below a uniform table everywhere."])
    return "\n".join(lines + summary + body) + "\n"


def rerun_cases(doc: dict, specs: list[str], *, jobs: int) -> None:
    """Rerun each ``TABLE:EPS:SYSTEM`` of ``doc`` with as many seeds as it had, replace its runs, record the rerun."""
    names = [t["table"] for t in doc["tables"]]
    for spec in specs:
        try:
            table, eps, system = spec.split(":")
            names.index(table)
            # the table's own index (its name's number), not its place on the page: an unseen page starts at 16
            index, eps = int(re.search(r"(\d+)$", table).group(1)), float(eps)
        except (ValueError, AttributeError):
            raise SystemExit(f"--rerun {spec!r}: give TABLE:EPS:SYSTEM with a table of the page ({', '.join(names)})")
        seeds = sorted(r["seed"] for r in doc["runs"] if (r["table"], r["system"], r["epsilon"]) == (table, system, eps))
        if not seeds:
            raise SystemExit(f"--rerun {spec!r}: the page has no such case")
        t0 = time.perf_counter()
        family = doc["config"].get("family", "network")
        if shape(index, family)["table"] != table:
            raise SystemExit(f"--rerun {spec!r}: table {index} of the {family} family is not {table!r}")
        todo = [(index, system, eps, seed, family) for seed in seeds]
        if jobs == 1:  # in this process (a test loads this script as a module the pool could not pickle from)
            fresh = [run_one(job) for job in todo]
        else:
            with ProcessPoolExecutor(jobs) as pool:
                fresh = list(pool.map(run_one, todo))
        doc["runs"] = [r for r in doc["runs"] if (r["table"], r["system"], r["epsilon"]) != (table, system, eps)] + fresh
        doc["reruns"] = [r for r in doc.get("reruns", []) if r["case"] != spec]  # its runs are replaced: so is that note
        doc["reruns"].append({"case": spec, "seeds": len(seeds), "code": provenance.code_info(),
                              "machine": provenance.machine_info(), "seconds": time.perf_counter() - t0})


def merge_peers(doc: dict, other: dict, source: str) -> None:
    """Put ``other``'s peer runs (MST's) into ``doc``, whose own have none: the same family and tables (drawn from
    the same seed) and eps, so a page can take its dprelease and baseline runs at more seeds than the peers' slow runs
    were given. The page names the run they came from."""
    def drawn(page: dict) -> tuple:
        config = page["config"]
        return (config.get("family", "network"), config.get("shapes_seed"), config["eps"],
                [t["table"] for t in page["tables"]])

    if drawn(doc) != drawn(other):
        raise SystemExit(f"--peers-from {source}: not the same family, tables and eps as the page")
    if any(r["system"] in PEERS for r in doc["runs"]):
        raise SystemExit("--peers-from: the page has peer runs of its own")
    doc["runs"] += [r for r in other["runs"] if r["system"] in PEERS]
    doc["config"]["peer_seeds"] = other["config"].get("peer_seeds", 0)
    doc["peers_from"] = {"code": other["code"], "machine": other["machine"], "seconds": other["total_seconds"]}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=16, help="how many shapes (tables FIRST..FIRST+N-1)")
    parser.add_argument("--first", type=int, default=0,
                        help="the first table's index: tables past those on a page are shapes no run has seen")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--eps", default="0.1,1,10")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--peer-seeds", type=int, default=3, help="MST seeds per case (0: no peers)")
    parser.add_argument("--family", choices=sorted(FAMILIES), default="network",
                        help="network: Bayesian networks (the page in results/shapes); mixture: latent-class mixtures "
                             "(results/shapes-mixture); copula: binned Gaussian factor models (results/shapes-copula)")
    parser.add_argument("--out", type=Path, default=None, help="default: results/shapes or results/shapes-FAMILY")
    parser.add_argument("--render-only", action="store_true")
    parser.add_argument("--peers-from", type=Path, metavar="SHAPES_JSON",
                        help="with --render-only: take MST's runs from an earlier run's shapes.json of the same tables "
                             "(run this one with --peer-seeds 0 and more seeds); the page says where they came from")
    parser.add_argument("--rerun", action="append", default=[], metavar="TABLE:EPS:SYSTEM",
                        help="rerun one case of the saved page (every seed) on the current code and replace its runs; "
                             "the page lists each rerun with its commit (a default change that moves only a few cases)")
    args = parser.parse_args(argv)
    args.out = args.out or (OUT if args.family == "network" else OUT.with_name(f"shapes-{args.family}"))
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "shapes.json"
    if args.peers_from and not args.render_only:
        parser.error("--peers-from goes with --render-only")
    if args.render_only:
        doc = json.loads(path.read_text())
        if args.peers_from:
            merge_peers(doc, json.loads(args.peers_from.read_text()), str(args.peers_from))
            path.write_text(json.dumps(doc, indent=1) + "\n")
    elif args.rerun:
        doc = json.loads(path.read_text())
        rerun_cases(doc, args.rerun, jobs=args.jobs)
        path.write_text(json.dumps(doc, indent=1) + "\n")
    else:
        for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
            os.environ[name] = "1"  # each worker one BLAS thread: N workers use N cores
        eps_list = [float(e) for e in args.eps.split(",")]
        machine, code, t0 = provenance.machine_info(), provenance.code_info(), time.perf_counter()
        peer_seeds = args.peer_seeds if PEER_PY.exists() else 0
        if args.peer_seeds and not peer_seeds:
            print(f"note: no peers' venv at {PEER_PY} (bash benchmarks/peers/setup_peers.sh): MST not run")
        indexes = range(args.first, args.first + args.tables)
        jobs = [(i, system, eps, seed, args.family) for i in indexes for eps in eps_list
                for system, seeds in [*((s, args.seeds) for s in SYSTEMS), *((p, peer_seeds) for p in PEERS)]
                for seed in range(seeds)]
        with ProcessPoolExecutor(args.jobs) as pool:
            runs = list(pool.map(run_one, jobs))
        tables = [{k: v for k, v in shape(i, args.family).items() if k != "nodes"} for i in indexes]
        doc = {"benchmark": "shapes", "machine": machine, "code": code, "total_seconds": time.perf_counter() - t0,
               "config": {"tables": args.tables, "first": args.first, "seeds": args.seeds, "peer_seeds": peer_seeds,
                          "eps": eps_list,
                          "family": args.family, "shapes_seed": FAMILIES[args.family][0]},
               "tables": tables, "runs": runs}
        path.write_text(json.dumps(doc, indent=1) + "\n")
    (args.out / "shapes.md").write_text(render(doc))
    print(f"wrote {'' if args.render_only else f'{path} and '}{args.out / 'shapes.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
