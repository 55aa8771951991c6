#!/usr/bin/env python
"""Full Adult (14 attributes, 6.4e17 cells): dprelease MWEM on the factored model beside the peers.

    .venv/bin/python benchmarks/bench_adult_full.py [--quick] [--eps 0.1,1,10] [--seeds 3] \
        [--workloads all2,all3] [--peers mst] [--peer-eps 1] [--peer-seeds 1] [--no-small3] [--out DIR]

Protocol: /work/shared/BENCHMARKS.md. Data: the bundled Adult table, all 14 attributes, 48,842 rows.
Workloads all2 (91 marginals) and all3 (364). dprelease runs MWEM with Gaussian noise under zCDP
(delta = 1e-9) on the factored (log-linear) representation, with the configuration in
``MODES`` below; each (mode, workload, eps, seed) is a fresh subprocess of this script (``--one``),
so its peak RSS (ru_maxrss) is that run's own. One fit releases rows three ways: i.i.d. draws
("sample", the peers' mode in BENCHMARKS.md), largest-remainder rounding along the junction
tree ("round"), and those rounded rows fitted to the released workload answers ("fitted", what
synthesize's rows="auto" picks for these runs; dprelease.rows.fitting); seconds = fit + that row
generation (for "fitted": rounding, answering the workload and fitting), timed in-process
(perf_counter; imports and CSV loading excluded). Rows are scored with /work/shared/bench/score.py's
``score`` (same definitions as the peers' figures). smartnoise's MST runs through
benchmarks/peers/run_peer.py in the peer venv where it exists; MST ignores the workload, so one MST
fit per (eps, seed) is scored on every workload. ``--quick``: one seed, eps = 1.

A second, small section runs the 7-column table (small3: all 63 1-, 2- and 3-way marginals) at
eps = 1 with dprelease's best mode there, against the target avg L1 <= 0.026 (AIM, round) in <= 10 s.

Outputs: OUT/adult_full.json (every run, summaries, machine, code) and OUT/adult_full.md.
The machine has 2 cores shared with other work: timings are noisy (the load average is recorded).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(HERE))
from provenance import code_info, machine_info, provenance_line  # noqa: E402  (one description for all benchmarks)
from scoring import load_scorer, score_rows  # noqa: E402  (one scoring path for all benchmarks)
from dataclasses import asdict, fields  # noqa: E402

from dprelease.mechanisms.mwem_tuning import ADAPTIVE, FACTORED, MWEMTuning  # noqa: E402
PEER_PY = REPO / "benchmarks" / ".venv-peers" / "bin" / "python"
PEER_RUNNER = HERE / "peers" / "run_peer.py"
DELTA = 1e-9
#: How one fit releases rows: i.i.d. draws, rounding, and rounding fitted to the released answers (auto's pick here).
ROW_MODES = ("sample", "round", "fitted")

#: dprelease configurations (MWEM's options and its tuning constants, flat; epsilon and delta are added per
#: run), taken from the package so the benchmark measures what users get. "mwem-factored" is what
#: dprelease.api.synthesize runs on a table too large for a histogram (representation "auto"): MWEM's
#: FACTORED preset (mechanisms/mwem_tuning.py), Gaussian since delta > 0.
MODES = {"mwem-factored": {"representation": "factored", "noise": "gaussian", **asdict(FACTORED)}}
#: The 7-column table on the explicit histogram (it fits: 120,960 cells): what synthesize runs there with
#: delta > 0 (the ADAPTIVE preset).
SMALL3_MODES = {"mwem-small3": {"representation": "histogram", "noise": "gaussian", **asdict(ADAPTIVE)}}


def configured_mwem(epsilon: float, params: dict):
    """MWEM from a flat configuration: its own options, and the rest as its tuning (MWEMTuning's fields)."""
    from dprelease.mechanisms.mwem import MWEM

    tuning_keys = {f.name for f in fields(MWEMTuning)}
    tuning = MWEMTuning(**{k: v for k, v in params.items() if k in tuning_keys})
    options = {k: v for k, v in params.items() if k not in tuning_keys}
    return MWEM(epsilon=epsilon, **{"delta": DELTA, **options}, tuning=tuning)  # params may set delta

# BENCHMARKS.md, "full Adult (14 attributes), eps = 1": (all2 avg L1, all2 max, all3 avg L1, all3 max, seconds).
REFERENCE = {
    "independent noisy 1-way marginals": (0.166, 0.219, 0.356, 0.280, 0.02),
    "uniform": (1.534, 0.872, 1.765, 0.781, None),
    "MST (smartnoise, sample)": (0.119, 0.039, 0.249, 0.037, 82),
    "MST (smartnoise, round, as installed)": (0.273, 0.151, 0.585, 0.184, 86),
    "MST (private-pgm mechanisms/mst.py)": (0.146, 0.104, 0.288, 0.109, 113),
    "MWEM+PGM (private-pgm, 25 MB cap)": (0.141, 0.051, 0.274, 0.051, 199),
    "AIM (private-pgm aim.py; 10 MB cap, 56 rounds, 2-way candidates)": (0.077, 0.018, 0.176, 0.019, 772),
    "AIM (smartnoise over mbi 1.1.0, sample; same reductions)": (0.107, 0.087, 0.226, 0.088, 391),
}
TARGETS = {"all3_avg_l1": 0.176, "aim_seconds": 772.0, "speedup": 5.0, "peak_mb": 4096.0,
           "small3_avg_l1": 0.026, "small3_seconds": 10.0}


# ----------------------------------------------------------------------------- scoring
def workload_marginals(name: str, domain) -> list[tuple[str, ...]]:
    import itertools

    k = {"all2": 2, "all3": 3}[name]
    return list(itertools.combinations(domain.attributes, k))


# ----------------------------------------------------------------------------- one run (child)
def run_one(spec: dict) -> dict:
    from dprelease.errors import SeededRunWarning

    warnings.filterwarnings("ignore", category=SeededRunWarning)
    from dprelease.datasets import ADULT_SMALL_COLUMNS, load_adult
    from dprelease.privacy.rng import make_rng
    from dprelease.queries.workload import Workload
    from dprelease.rows.fitting import DEFAULT_LOSS, MIN_PASS_GAIN, default_passes, fit_rows

    scorer, _ = load_scorer()
    small = spec["workload"] == "small3"
    dataset = load_adult(ADULT_SMALL_COLUMNS if small else None)
    if small:
        workload = Workload.from_spec("1-3way", dataset.domain)
    else:
        workload = Workload(dataset.domain, tuple(workload_marginals(spec["workload"], dataset.domain)))
    eps, seed = float(spec["epsilon"]), int(spec["seed"])
    params = dict(spec["params"])
    load_before = os.getloadavg()[0]
    rng = make_rng(seed, warn=False)
    t0 = time.perf_counter()
    result = configured_mwem(eps, params).run(dataset, workload, rng=rng)
    fit = time.perf_counter() - t0
    out = {**spec, "status": "ok", "seconds_fit": round(fit, 3), "modes": {}}
    timed_rows = {}
    t1 = time.perf_counter()
    timed_rows["sample"] = (result.model.sample(dataset.n, rng), time.perf_counter() - t1)
    t1 = time.perf_counter()
    rounded = result.model.round(dataset.n, rng)
    timed_rows["round"] = (rounded, time.perf_counter() - t1)
    t1 = time.perf_counter()  # as synthesize does: the rounded rows moved toward the released answers
    answers = workload.marginal_answers(result.model)
    fitted = fit_rows(rounded, dataset.domain, list(zip(workload.marginals, answers)), rng,
                      passes=default_passes(dataset.n, len(dataset.domain)), min_gain=MIN_PASS_GAIN, loss=DEFAULT_LOSS)
    timed_rows["fitted"] = (fitted, timed_rows["round"][1] + time.perf_counter() - t1)
    for how in ROW_MODES:
        rows, seconds = timed_rows[how]
        out["modes"][how] = {"seconds_rows": round(seconds, 3), "seconds": round(fit + seconds, 3),
                             **score_rows(rows, dataset, workload.marginals, scorer)}
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
    model_scores = score_answers(answers, dataset, workload)
    ledger = result.accountant.to_json()
    out.update(model_avg_l1=model_scores, loadavg1_before_after=[round(load_before, 2), round(os.getloadavg()[0], 2)],
               parameters={k: v for k, v in result.parameters.items() if not k.endswith("_per_step")},
               privacy={"spent": ledger["spent"], "budget": ledger["budget"]},
               selected=[e["marginal"] for e in result.transcript if e.get("action") == "select+measure"],
               skipped=sum(len(e["marginals"]) for e in result.transcript if e.get("action") == "skip"))
    return out


def score_answers(answers, dataset, workload) -> float:
    """Avg L1 of the model's own workload answers (no rows)."""
    import numpy as np

    return float(np.mean([np.abs(a - dataset.marginal(m)).sum() for m, a in zip(workload.marginals, answers)]))


# ----------------------------------------------------------------------------- parent
def snapshot_src(tmp: Path) -> Path:
    """Freeze src/dprelease into a fresh tmp/src-snapshot-<pid>: every run imports one version, whatever is
    edited meanwhile. Per process, so two benchmark scripts running at once never share a snapshot."""
    root = tmp / f"src-snapshot-{os.getpid()}"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(REPO / "src" / "dprelease", root / "dprelease", ignore=shutil.ignore_patterns("__pycache__"))
    return root


SNAPSHOT: list[Path] = []


def run_child(spec: dict, timeout: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", json.dumps(spec)]
    source = SNAPSHOT[0] if SNAPSHOT else REPO / "src"
    env = {**os.environ, "PYTHONPATH": str(source) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO, env=env)
    except subprocess.TimeoutExpired:
        return {**spec, "status": "timeout", "error": f"killed after {timeout:g} s"}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {**spec, "status": "error", "error": (proc.stderr or proc.stdout)[-2000:]}
    out = json.loads(lines[-1])
    out["seconds_process_wall"] = round(time.perf_counter() - t0, 2)
    return out


def run_mst(eps: float, seed: int, time_limit: float, tmp: Path, dataset, workloads: dict, scorer) -> dict:
    import numpy as np

    from dprelease.datasets import adult_paths

    data_csv, domain_json = adult_paths()
    csv_out, json_out = tmp / f"mst-eps{eps:g}-seed{seed}.csv", tmp / f"mst-eps{eps:g}-seed{seed}.json"
    cmd = [str(PEER_PY), str(PEER_RUNNER), "--data", str(data_csv), "--domain", str(domain_json), "--synth", "mst",
           "--epsilon", f"{eps:g}", "--delta", f"{DELTA:g}", "--seed", str(seed), "--time-limit", f"{time_limit:g}",
           "--out", str(csv_out), "--json", str(json_out)]
    spec = {"system": "smartnoise-mst", "epsilon": eps, "seed": seed}
    try:
        subprocess.run(cmd, capture_output=True, text=True, timeout=time_limit + 180, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {**spec, "status": "timeout"}
    try:
        res = json.loads(json_out.read_text())
    except (OSError, ValueError):
        return {**spec, "status": "error"}
    out = {**spec, "status": res.get("status"), "error": res.get("error"),
           "seconds": res.get("seconds_fit_sample"), "peak_rss_mb": res.get("peak_rss_mb"),
           "versions": res.get("versions"), "scores": {}}
    if out["status"] == "ok":
        with open(csv_out) as f:
            header = f.readline().strip().split(",")
        rows = np.loadtxt(csv_out, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
        rows = rows[:, [header.index(c) for c in dataset.domain.attributes]]
        for name, marginals in workloads.items():
            out["scores"][name] = score_rows(rows, dataset, marginals, scorer)
    return out


def med(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def summarize(doc: dict) -> list[dict]:
    groups: dict[tuple, list[dict]] = {}
    for r in doc["runs"]:
        if r.get("status") == "ok":
            groups.setdefault((r["system"], r["workload"], float(r["epsilon"])), []).append(r)
    rows = []
    for (system, workload, eps), rs in sorted(groups.items()):
        for how in ROW_MODES:
            rows.append({"system": system, "workload": workload, "epsilon": eps, "rows": how, "runs": len(rs),
                         "avg_l1": med([r["modes"][how]["avg_l1"] for r in rs]),
                         "max_error": med([r["modes"][how]["max_error"] for r in rs]),
                         "seconds": med([r["modes"][how]["seconds"] for r in rs]),
                         "peak_rss_mb": med([r["peak_rss_mb"] for r in rs]),
                         "model_avg_l1": med([r["model_avg_l1"] for r in rs])})
    for r in doc["peer_runs"]:
        if r.get("status") != "ok":
            continue
        for workload, sc in r["scores"].items():
            rows.append({"system": r["system"], "workload": workload, "epsilon": float(r["epsilon"]), "rows": "sample",
                         "runs": 1, "avg_l1": med([sc["avg_l1"]]), "max_error": med([sc["max_error"]]),
                         "seconds": med([r["seconds"]]), "peak_rss_mb": med([r["peak_rss_mb"]]), "model_avg_l1": None})
    return rows


def fmt(stat, digits=3):
    if stat is None:
        return "–"
    f = lambda v: f"{v:.{digits}f}"  # noqa: E731
    return f(stat["median"]) if stat["min"] == stat["max"] else f"{f(stat['median'])} [{f(stat['min'])}–{f(stat['max'])}]"


def targets(doc: dict) -> list[str]:
    by = {(s["system"], s["workload"], s["epsilon"], s["rows"]): s for s in doc["summary"]}
    lines = []
    for how in ROW_MODES:
        s = by.get(("mwem-factored", "all3", 1.0, how))
        if s is None:
            continue
        l1, sec, mb = s["avg_l1"]["median"], s["seconds"]["median"], s["peak_rss_mb"]["median"]
        mst = by.get(("smartnoise-mst", "all3", 1.0, "sample"))
        mst_l1 = mst["avg_l1"]["median"] if mst else REFERENCE["MST (smartnoise, sample)"][2]
        speed = TARGETS["aim_seconds"] / sec
        lines.append(f"eps = 1, all3, rows={how}: avg L1 {l1:.4f} (target <= {TARGETS['all3_avg_l1']} AIM: "
                     f"{'met' if l1 <= TARGETS['all3_avg_l1'] else 'NOT met'}; below MST's {mst_l1:.3f}: "
                     f"{'yes' if l1 < mst_l1 else 'NO'}); {sec:.1f} s = {speed:.1f}x faster than AIM's 772 s "
                     f"(target >= 5x: {'met' if speed >= TARGETS['speedup'] else 'NOT met'}); peak {mb:.0f} MB "
                     f"(target <= 4 GB: {'met' if mb <= TARGETS['peak_mb'] else 'NOT met'}).")
    for how in ROW_MODES:
        s = by.get(("mwem-small3", "small3", 1.0, how))
        if s is None:
            continue
        l1, sec = s["avg_l1"]["median"], s["seconds"]["median"]
        ok = l1 <= TARGETS["small3_avg_l1"] and sec <= TARGETS["small3_seconds"]
        lines.append(f"7 columns (small3), eps = 1, rows={how}: avg L1 {l1:.4f} in {sec:.1f} s (target <= 0.026 in "
                     f"<= 10 s: {'met' if ok else 'NOT met'}).")
    return lines


def render(doc: dict) -> str:
    info = doc["machine"]
    L = ["# Full Adult (14 attributes): dprelease MWEM on the factored model, beside the peers", ""]
    L.append(provenance_line("bench_adult_full.py", info, doc["code"], doc["total_seconds"]))
    loads = [r["loadavg1_before_after"][1] for r in doc["runs"] if r.get("loadavg1_before_after")]
    if loads:
        L.append(f"1-min load average at the end of each dprelease run: median {statistics.median(loads):.2f}, max "
                 f"{max(loads):.2f} on {info['cpu_count']} CPUs shared with other work: **timings are noisy**.")
    L.append("")
    L.append(f"Data: bundled Adult, 48,842 rows, 14 attributes (6.4e17 cells). delta = {DELTA:g}. Rows scored with "
             f"{doc['scorer']}. dprelease: seeds {doc['config']['seeds']}; seconds = fit + row generation in the "
             "run's own process; peak MB = that process's ru_maxrss. model = avg L1 of the fitted model's own "
             "marginals (no row sampling). Cells: median [min–max].")
    L.append("")
    L.append("dprelease modes (MWEM keyword arguments): " + "; ".join(
        f"`{k}`: " + ", ".join(f"{a}={v}" for a, v in p.items()) for k, p in {**MODES, **SMALL3_MODES}.items()))
    L.append("")
    L.append("## Targets (eps = 1)")
    L.append("")
    L += [f"- {t}" for t in targets(doc)] or ["- (not measured in this run)"]
    L.append("")
    L.append("## Results (measured here)")
    L.append("")
    L.append("| system | workload | eps | rows | avg L1 | max error | model avg L1 | seconds | peak MB | runs |")
    L.append("|---|---|---|---|---|---|---|---|---|---|")
    for s in doc["summary"]:
        L.append(f"| {s['system']} | {s['workload']} | {s['epsilon']:g} | {s['rows']} | {fmt(s['avg_l1'])} | "
                 f"{fmt(s['max_error'])} | {fmt(s['model_avg_l1'])} | {fmt(s['seconds'], 1)} | "
                 f"{fmt(s['peak_rss_mb'], 0)} | {s['runs']} |")
    bad = [r for r in doc["runs"] + doc["peer_runs"] if r.get("status") != "ok"]
    if bad:
        L.append("")
        L.append("Runs that did not finish: " + "; ".join(
            f"{r['system']} {r.get('workload', '')} eps={r['epsilon']:g} seed={r['seed']}: {r.get('status')}"
            for r in bad))
    L.append("")
    L.append("## Peers' figures (BENCHMARKS.md; measured elsewhere on a 2-core machine of this kind, one seed, eps = 1)")
    L.append("")
    L.append("| system | all2 avg L1 / max | all3 avg L1 / max | seconds |")
    L.append("|---|---|---|---|")
    for name, (a2, m2, a3, m3, sec) in REFERENCE.items():
        L.append(f"| {name} | {a2} / {m2} | {a3} / {m3} | {sec if sec is not None else '–'} |")
    if doc.get("notes"):
        L.append("")
        L.append("## Notes")
        L.append("")
        L += [f"- {n}" for n in doc["notes"]]
    return "\n".join(L) + "\n"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="one seed, eps = 1")
    p.add_argument("--eps", default="0.1,1,10")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--workloads", default="all2,all3")
    p.add_argument("--peers", default="mst", help="'mst' or '' (none)")
    p.add_argument("--peer-eps", default="1")
    p.add_argument("--peer-seeds", type=int, default=1)
    p.add_argument("--peer-time-limit", type=float, default=900.0)
    p.add_argument("--no-small3", dest="small3", action="store_false")
    p.add_argument("--run-timeout", type=float, default=1500.0)
    p.add_argument("--out", default=str(REPO / "benchmarks" / "results"))
    p.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.one is not None:
        print(json.dumps(run_one(json.loads(args.one))), flush=True)
        return 0
    start = time.perf_counter()
    out, tmp = Path(args.out), Path(args.out) / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    SNAPSHOT.append(snapshot_src(tmp))
    sys.path.insert(0, str(SNAPSHOT[0]))
    eps_list = [1.0] if args.quick else [float(e) for e in args.eps.split(",") if e]
    seeds = 1 if args.quick else args.seeds
    workloads = [w for w in args.workloads.split(",") if w]
    from dprelease.datasets import load_adult

    scorer, scorer_desc = load_scorer()
    dataset = load_adult()
    notes = []
    if scorer is not None:
        for w in workloads:
            if set(map(tuple, scorer.workload(w, dataset.domain.to_dict()))) != set(workload_marginals(w, dataset.domain)):
                notes.append(f"WARNING: workload {w} differs from score.py's")
    specs = [{"system": mode, "workload": w, "epsilon": e, "seed": s, "params": params}
             for mode, params in MODES.items() for w in workloads for e in eps_list for s in range(seeds)]
    if args.small3:
        specs += [{"system": mode, "workload": "small3", "epsilon": 1.0, "seed": s, "params": params}
                  for mode, params in SMALL3_MODES.items() for s in range(seeds)]
    doc = {"benchmark": "adult_full", "scorer": scorer_desc, "machine": machine_info(), "code": code_info(),
           "config": {"eps": eps_list, "seeds": seeds, "workloads": workloads, "delta": DELTA, "modes": MODES,
                      "small3_modes": SMALL3_MODES, "peers": args.peers, "peer_eps": args.peer_eps},
           "runs": [], "peer_runs": [], "notes": notes}

    def save():
        doc["summary"] = summarize(doc)
        doc["total_seconds"] = time.perf_counter() - start
        doc["machine"]["loadavg_at_end"] = os.getloadavg()
        (out / "adult_full.json").write_text(json.dumps(doc, indent=1, default=str) + "\n")
        (out / "adult_full.md").write_text(render(doc))

    for i, spec in enumerate(specs, 1):
        r = run_child(spec, args.run_timeout)
        doc["runs"].append(r)
        m = r.get("modes", {})
        print(f"[{i}/{len(specs)}] {spec['system']} {spec['workload']} eps={spec['epsilon']:g} seed={spec['seed']}: "
              f"{r.get('status')} " + " ".join(f"{h}={v['avg_l1']:.4f}/{v['max_error']:.4f}/{v['seconds']:.1f}s"
                                               for h, v in m.items()) + f" MB={r.get('peak_rss_mb')}", flush=True)
        save()
    if args.peers:
        if not PEER_PY.exists():
            notes.append(f"peer venv {PEER_PY.parent.parent} not found: MST skipped")
        else:
            marginals = {w: workload_marginals(w, dataset.domain) for w in workloads}
            for eps in [float(e) for e in args.peer_eps.split(",") if e]:
                for seed in range(args.peer_seeds):
                    print(f"smartnoise-mst eps={eps:g} seed={seed} ...", flush=True)
                    r = run_mst(eps, seed, args.peer_time_limit, tmp, dataset, marginals, scorer)
                    doc["peer_runs"].append(r)
                    print(f"    {r.get('status')} {r.get('scores')} s={r.get('seconds')}", flush=True)
                    save()
            notes.append("MST: smartnoise-synth through benchmarks/peers/run_peer.py (public domain, rows=sample); "
                         "its DP noise comes from OpenDP's CSPRNG, so the run is not reproducible from the seed.")
    save()
    shutil.rmtree(SNAPSHOT[0], ignore_errors=True)
    print(f"wrote {out / 'adult_full.json'} and {out / 'adult_full.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
