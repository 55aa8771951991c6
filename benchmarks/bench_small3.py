#!/usr/bin/env python
"""small3 benchmark: dprelease (MWEM, IC-MW, baselines) against smartnoise peers, one machine, one run.

    .venv/bin/python benchmarks/bench_small3.py [--eps 0.1,1,10] [--seeds 5] \
        [--peers mwem,mst] [--peer-seeds 1] [--peer-eps 1] [--peer-time-limit 600] \
        [--ic-configs 0.1:500,0.2:200] [--out benchmarks/results]

Protocol: /work/shared/BENCHMARKS.md. Data: the bundled Adult restricted to its 7
low-cardinality columns (dprelease.datasets.ADULT_SMALL_COLUMNS, 48,842 rows,
120,960 cells); workload "1-3way" = all 63 1-, 2- and 3-way marginals (the scorer's
small3). Every (system, eps, seed) runs in a fresh subprocess of this script
(``--one``), so its peak RSS (ru_maxrss) is that run's own; wall seconds are
time.perf_counter() around fit + sample inside that process (imports and CSV
loading excluded). Released synthetic ROWS are scored with
/work/shared/bench/score.py's ``score`` (or dprelease.evaluate.workload_errors
when that file is absent; the JSON says which). Peers (smartnoise-synth MWEM with
10 iterations, MST) run through benchmarks/peers/run_peer.py in their own venv
and are scored the same way.

dprelease's SeededRunWarning (runs here are seeded for reproducibility) is
suppressed with a warnings filter; every other warning is recorded per run.

Outputs: OUT/small3.json (every run, per-system/eps summaries, machine info,
commit and MWEM defaults) and OUT/small3.md (tables). Peer CSVs go to
OUT/tmp/ (git-ignored).
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
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
import provenance  # noqa: E402  (one machine and commit description for all benchmarks)
from scoring import load_scorer, score_rows  # noqa: E402  (one scoring path for all benchmarks)
PEER_PY = REPO / "benchmarks" / ".venv-peers" / "bin" / "python"
PEER_RUNNER = HERE / "peers" / "run_peer.py"
SRC = REPO / "src"

IC_DELTA = 1e-9  # BENCHMARKS.md: delta = 1e-9 where a mechanism needs one
#: MWEM as `synthesize` runs it: every default (delta = 1e-9, rows "auto"), the same model's i.i.d. rows,
#: and pure DP (delta = 0, the `--delta 0` path). synthesize's keyword arguments per system.
MWEM_SYSTEMS = {
    "dprelease-mwem": {},
    "dprelease-mwem-sample": {"rows": "sample"},
    "dprelease-mwem-pure": {"delta": 0.0},
}
PEER_DELTA = 1e-9
PEER_MWEM_ITERATIONS = 10

# Reference figures, copied from /work/shared/BENCHMARKS.md ("small3 (7 columns)", measured on a
# 2-core machine of this kind, one seed): (avg L1, max error, seconds) per eps; None = not given.
REFERENCE = {
    "AIM (smartnoise, sample)": {0.1: (0.107, 0.023, 173), 1.0: (0.033, 0.005, 322), 10.0: (0.023, 0.004, 580)},
    "AIM (smartnoise, round)": {0.1: (0.428, 0.175, 175), 1.0: (0.026, 0.003, 328), 10.0: (0.011, 0.001, 586)},
    "MST (private-pgm)": {0.1: (0.128, 0.023, 32), 1.0: (0.082, 0.021, 29), 10.0: (0.078, 0.021, 27)},
    "MST (smartnoise, sample)": {0.1: (0.125, 0.023, 22), 1.0: (0.085, 0.024, 24), 10.0: (0.082, 0.024, 23)},
    "MWEM+PGM (private-pgm mwem+pgm.py)": {1.0: (0.035, 0.008, 129)},
    "MWEM (smartnoise, 10 iterations)": {0.1: (0.410, 0.338, 180), 1.0: (0.247, 0.152, 207), 10.0: (0.328, 0.258, 189)},
    "independent noisy 1-way marginals": {0.1: (0.321, 0.280, 0.01), 1.0: (0.320, 0.280, 0.01), 10.0: (0.320, 0.280, 0.01)},
    "uniform": {0.1: (1.303, 0.657, None)},
}
# Which reference row each peer system corresponds to.
PEER_REFERENCE = {"smartnoise-mwem": "MWEM (smartnoise, 10 iterations)", "smartnoise-mst": "MST (smartnoise, sample)"}


# ----------------------------------------------------------------------------- scoring
def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def mwem_sha() -> str:
    import dprelease.mechanisms.mwem as m

    return sha256(Path(m.__file__))[:16]


def tree_sha(root: Path) -> str:
    """sha256 over the relative paths and bytes of every .py file under root."""
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def snapshot_src(tmp: Path) -> dict:
    """Freeze src/dprelease into tmp/src-snapshot, and import dprelease from there (here and in every child).

    The library may be edited while the benchmark runs; the snapshot keeps every run on one version.
    """
    root = tmp / "src-snapshot"
    if root.exists():
        shutil.rmtree(root)
    shutil.copytree(SRC / "dprelease", root / "dprelease", ignore=shutil.ignore_patterns("__pycache__"))
    diff = subprocess.run(["git", "diff", "HEAD", "--", "src"], capture_output=True, text=True, cwd=REPO).stdout
    (tmp / "src-snapshot.diff").write_text(diff)
    sys.path.insert(0, str(root))
    os.environ["PYTHONPATH"] = str(root) + (os.pathsep + os.environ["PYTHONPATH"]
                                            if os.environ.get("PYTHONPATH") else "")
    return {"path": str(root), "tree_sha256": tree_sha(root / "dprelease"),
            "diff_vs_head_sha256": hashlib.sha256(diff.encode()).hexdigest()[:16],
            "diff_vs_head_lines": len(diff.splitlines())}


# ----------------------------------------------------------------------------- one run (child)
def load_problem():
    from dprelease.datasets import ADULT_SMALL_COLUMNS, load_adult
    from dprelease.queries.workload import Workload

    dataset = load_adult(ADULT_SMALL_COLUMNS)
    workload = Workload.from_spec("1-3way", dataset.domain)
    return dataset, workload


def run_one(spec: dict) -> dict:
    """Fit + sample one system in this (fresh) process; score; report peak RSS."""
    from dprelease.errors import SeededRunWarning

    warnings.filterwarnings("ignore", category=SeededRunWarning)
    scorer, _ = load_scorer()
    import dprelease

    dataset, workload = load_problem()
    rss_loaded_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    system, eps, seed = spec["system"], float(spec["epsilon"]), int(spec["seed"])
    parameters: dict = {}
    load_before = os.getloadavg()[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=SeededRunWarning)
        if system in MWEM_SYSTEMS:
            from dprelease.api import synthesize

            t0 = time.perf_counter()
            release = synthesize(dataset, workload, mechanism="mwem", epsilon=eps, seed=seed, **MWEM_SYSTEMS[system])
            seconds = time.perf_counter() - t0
            rows = release.rows
            parameters = {k: v for k, v in release.parameters.items() if k != "epsilon_per_step"}
            parameters["rows_method"] = release.rows_method
        elif system.startswith("dprelease-ic-mw"):
            from dprelease.api import synthesize

            t0 = time.perf_counter()
            release = synthesize(dataset, workload, mechanism="ic-mw", epsilon=eps, delta=spec["delta"],
                                 alpha=spec["alpha"], rounds=spec["rounds"], seed=seed, rows="sample")
            seconds = time.perf_counter() - t0
            rows = release.rows
            p = release.parameters
            parameters = {k: p.get(k) for k in ("alpha", "rounds", "theorem_rounds", "epsilon0", "delta",
                                                 "accuracy_guaranteed", "stop_reason", "composition")}
            parameters["rounds_run"] = len(release.transcript)
        elif system == "independent-1way":
            from dprelease.mechanisms.baselines import IndependentMarginals
            from dprelease.privacy.rng import make_rng

            t0 = time.perf_counter()
            rng = make_rng(seed, warn=False)
            model, _ = IndependentMarginals(epsilon=eps).run(dataset, rng=rng)
            rows = model.sample(dataset.n, rng)
            seconds = time.perf_counter() - t0
            parameters = {"epsilon": eps, "rows": "sample"}
        elif system == "uniform":
            from dprelease.mechanisms.baselines import uniform_model
            from dprelease.privacy.rng import make_rng

            t0 = time.perf_counter()
            rng = make_rng(seed, warn=False)
            rows = uniform_model(dataset.domain).sample(dataset.n, rng)
            seconds = time.perf_counter() - t0
            parameters = {"epsilon": None, "rows": "sample", "note": "no data, no budget; eps is ignored"}
        else:
            raise ValueError(f"unknown system {system!r}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # before scoring
    load_after = os.getloadavg()[0]
    scores = score_rows(rows, dataset, workload.marginals, scorer)
    return {**spec, "status": "ok", "seconds_fit_sample": seconds, "peak_rss_mb": round(peak_mb, 1),
            "rss_after_load_mb": round(rss_loaded_mb, 1), **scores, "parameters": parameters,
            "mwem_py_sha256": mwem_sha(), "dprelease_file": dprelease.__file__,
            "loadavg1_before_after": [round(load_before, 2), round(load_after, 2)],
            "warnings": sorted({f"{w.category.__name__}: {w.message}" for w in caught})}


# ----------------------------------------------------------------------------- orchestration (parent)
def run_child(spec: dict, timeout: float) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", json.dumps(spec)]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {**spec, "status": "timeout", "error": f"killed after {timeout:g} s"}
    wall = time.perf_counter() - t0
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        return {**spec, "status": "error", "error": (proc.stderr or proc.stdout)[-2000:]}
    out = json.loads(lines[-1])
    out["seconds_process_wall"] = round(wall, 2)
    return out


def run_peer(synth: str, eps: float, seed: int, time_limit: float, tmp: Path, dataset, workload, scorer) -> dict:
    from dprelease.datasets import ADULT_SMALL_COLUMNS, adult_paths

    data_csv, domain_json = adult_paths()
    csv_out = tmp / f"peer-{synth}-eps{eps:g}-seed{seed}.csv"
    json_out = tmp / f"peer-{synth}-eps{eps:g}-seed{seed}.json"
    cmd = [str(PEER_PY), str(PEER_RUNNER), "--data", str(data_csv), "--domain", str(domain_json),
           "--columns", ",".join(ADULT_SMALL_COLUMNS), "--synth", synth, "--epsilon", f"{eps:g}",
           "--delta", f"{PEER_DELTA:g}", "--seed", str(seed), "--time-limit", f"{time_limit:g}",
           "--out", str(csv_out), "--json", str(json_out)]
    if synth == "mwem":
        cmd += ["--iterations", str(PEER_MWEM_ITERATIONS)]
    spec = {"system": f"smartnoise-{synth}", "epsilon": eps, "seed": seed, "peer": True}
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=time_limit + 120, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {**spec, "status": "timeout", "error": "run_peer.py itself did not return"}
    wall = time.perf_counter() - t0
    try:
        res = json.loads(json_out.read_text())
    except (OSError, ValueError):
        return {**spec, "status": "error", "error": (proc.stderr or proc.stdout)[-2000:]}
    out = {**spec, "status": res.get("status"), "error": res.get("error"),
           "seconds_fit_sample": res.get("seconds_fit_sample"), "seconds_fit": res.get("seconds_fit"),
           "seconds_sample": res.get("seconds_sample"), "peak_rss_mb": res.get("peak_rss_mb"),
           "seconds_process_wall": round(wall, 2),
           "parameters": {k: res.get(k) for k in ("delta", "iterations", "sampling", "time_limit") if k in res},
           "versions": res.get("versions")}
    if out["status"] == "ok":
        out.update(score_rows(load_csv_rows(csv_out, list(dataset.domain.attributes)), dataset, workload.marginals, scorer))
    return out


def load_csv_rows(path: Path, columns: list[str]):
    import numpy as np

    with open(path) as f:
        header = f.readline().strip().split(",")
    data = np.loadtxt(path, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    return data[:, [header.index(c) for c in columns]]


def summarize(runs: list[dict]) -> list[dict]:
    groups: dict[tuple, list[dict]] = {}
    for r in runs:
        groups.setdefault((r["system"], float(r["epsilon"])), []).append(r)
    out = []
    for (system, eps), rs in groups.items():
        ok = [r for r in rs if r.get("status") == "ok"]
        row = {"system": system, "epsilon": eps, "runs": len(rs), "ok": len(ok),
               "statuses": sorted({r.get("status") for r in rs})}
        for key in ("avg_l1", "max_error", "seconds_fit_sample", "peak_rss_mb"):
            vals = [r[key] for r in ok if r.get(key) is not None]
            row[key] = ({"median": statistics.median(vals), "min": min(vals), "max": max(vals)} if vals else None)
        out.append(row)
    return out


def code_info() -> dict:
    import dprelease
    from dprelease.mechanisms import mwem_tuning
    from dprelease.mechanisms.mwem import MWEM

    defaults = {f.name: f.default for f in dataclasses.fields(MWEM) if f.default is not dataclasses.MISSING}
    preset = dataclasses.asdict(mwem_tuning.tuning_for(representation="histogram", noise="gaussian"))
    return {"dprelease_version": dprelease.__version__, **provenance.code_info(),
            "dprelease_imported_from": dprelease.__file__,
            "mwem_py_sha256": mwem_sha(), "mwem_defaults": defaults, "mwem_tuning": preset}


# ----------------------------------------------------------------------------- markdown
def fmt(stat, digits=3, width=None):
    if stat is None:
        return "–"
    f = (lambda v: f"{v:.{digits}f}") if digits is not None else (lambda v: f"{v:.0f}")
    if stat["min"] == stat["max"]:
        return f(stat["median"])
    return f"{f(stat['median'])} [{f(stat['min'])}–{f(stat['max'])}]"


def fmt_seconds(stat):
    if stat is None:
        return "–"
    digits = 2 if stat["median"] < 10 else 1 if stat["median"] < 100 else 0
    return fmt(stat, digits)


def render_markdown(doc: dict) -> str:
    summ = doc["summary"]
    eps_list = sorted({s["epsilon"] for s in summ})
    systems = []
    for s in summ:
        if s["system"] not in systems:
            systems.append(s["system"])
    by = {(s["system"], s["epsilon"]): s for s in summ}
    info, code = doc["machine"], doc["code"]
    L = []
    L.append("# small3 benchmark: dprelease vs smartnoise peers (same machine, one run)")
    L.append("")
    L.append(f"Generated by `benchmarks/bench_small3.py` on {info['date']}; {info['cpu_count']} CPUs "
             f"({info['cpu_model']}), Python {info['python']}, numpy {info['numpy']}; "
             f"total wall time {doc['total_seconds'] / 60:.1f} min.")
    L.append(f"dprelease {code['dprelease_version']} at commit `{(code['git_commit'] or '?')[:10]}`"
             + (" with uncommitted changes in src/ (" + ", ".join(x.strip() for x in code["git_status_src"]) + ")"
                if code["git_status_src"] else "") + f"; mwem.py sha256 `{code['mwem_py_sha256']}`.")
    L.append("MWEM as `synthesize` runs it (delta = 1e-9 unless given, rows auto); its preset for a table that "
             "fits a histogram (mechanisms/mwem_tuning.py): "
             + ", ".join(f"{k}={v}" for k, v in code["mwem_tuning"].items()) + ".")
    rounds = {}
    for r in doc["runs"]:
        if r.get("system") == "dprelease-mwem" and r.get("status") == "ok" and r.get("parameters"):
            rounds.setdefault(r["epsilon"], []).append((r["parameters"].get("rounds"), r["parameters"].get("rounds_run")))
    if rounds:
        L.append("Rounds of the default (planned from public quantities, then annealing; planned / run per seed): "
                 + "; ".join(f"eps {e:g}: " + ", ".join(f"{a}/{b}" for a, b in v) for e, v in sorted(rounds.items())) + ".")
    snap = code.get("src_snapshot")
    if snap:
        L.append(f"Every run imported dprelease from a frozen copy of src/ taken at the start (tree sha256 "
                 f"`{snap['tree_sha256']}`; {snap['diff_vs_head_lines']} lines of `git diff HEAD -- src`, sha256 "
                 f"`{snap['diff_vs_head_sha256']}`).")
    loads = [r["loadavg1_before_after"][1] for r in doc["runs"] if r.get("loadavg1_before_after")]
    if loads:
        L.append(f"1-min load average at the end of each dprelease run: median {statistics.median(loads):.2f}, "
                 f"max {max(loads):.2f} on {info['cpu_count']} CPUs"
                 + (" (**other work was running: timings are inflated and noisy**)."
                    if statistics.median(loads) > (info["cpu_count"] or 1) else "."))
    if doc.get("mwem_source_changed_during_run"):
        L.append("**Warning: mwem.py changed during the run** (runs record different hashes; see small3.json).")
    L.append("")
    L.append("Data: bundled Adult, 7 columns (48,842 rows, 120,960 cells); workload 1-3way = 63 marginals "
             f"(small3). Scored on the released synthetic rows with {doc['scorer']}. Seeds "
             f"{doc['config']['seeds']} per dprelease system, {doc['config']['peer_seeds']} per peer. "
             "Each run is a fresh subprocess: seconds = fit + sample in-process (perf_counter), "
             "peak MB = that process's ru_maxrss (includes imports and data loading). "
             "dprelease's SeededRunWarning is suppressed (runs are seeded for reproducibility). "
             f"IC-MW uses delta = {IC_DELTA:g}; MWEM uses its default delta = 1e-9 except the pure-DP row (delta = 0). "
             "Cells: median [min–max].")
    L.append("")
    L.append("## Results (measured here)")
    L.append("")
    L.append("| system | eps | avg L1 | max error | seconds | peak MB | runs |")
    L.append("|---|---|---|---|---|---|---|")
    for sysname in systems:
        for eps in eps_list:
            s = by.get((sysname, eps))
            if s is None:
                continue
            runs = f"{s['ok']}/{s['runs']}" + ("" if s["ok"] == s["runs"] else " (" + ",".join(s["statuses"]) + ")")
            L.append(f"| {label(sysname, doc)} | {eps:g} | {fmt(s['avg_l1'])} | {fmt(s['max_error'])} | "
                     f"{fmt_seconds(s['seconds_fit_sample'])} | {fmt(s['peak_rss_mb'], None)} | {runs} |")
    L.append("")

    peers = [p for p in systems if p.startswith("smartnoise-")]
    ours = [p for p in systems if not p.startswith("smartnoise-")]
    L.append("## Ratios to the peers at eps = 1 (ours / peer, medians; both measured in this run)")
    L.append("")
    if not peers:
        L.append("No peer ran (see notes).")
    else:
        L.append("| ours | ours here: avg L1 / max / s | peer | peer here: avg L1 / max / s | seconds ratio | "
                 "avg L1 ratio | peer reference, BENCHMARKS.md: avg L1 / max / s |")
        L.append("|---|---|---|---|---|---|---|")
        for p in peers:
            ps = by.get((p, 1.0))
            if ps is None or ps["ok"] == 0:
                L.append(f"| – | {label(p, doc)} | did not finish at eps 1 | – | – | – |")
                continue
            ref = REFERENCE.get(PEER_REFERENCE.get(p, ""), {}).get(1.0)
            ref_s = " / ".join("–" if v is None else f"{v:g}" for v in ref) if ref else "–"
            peer_here = (f"{ps['avg_l1']['median']:.3f} / {ps['max_error']['median']:.3f} / "
                         f"{ps['seconds_fit_sample']['median']:.1f}")
            for o in ours:
                os_ = by.get((o, 1.0))
                if os_ is None or os_["ok"] == 0 or o == "uniform":
                    continue
                tr = os_["seconds_fit_sample"]["median"] / ps["seconds_fit_sample"]["median"]
                lr = os_["avg_l1"]["median"] / ps["avg_l1"]["median"]
                ours_here = (f"{os_['avg_l1']['median']:.3f} / {os_['max_error']['median']:.3f} / "
                             f"{os_['seconds_fit_sample']['median']:.2f}")
                L.append(f"| {label(o, doc)} | {ours_here} | {label(p, doc)} | {peer_here} | {tr:.3g} | {lr:.3g} "
                         f"| {ref_s} |")
    L.append("")
    L.append("## Reference figures (reference, BENCHMARKS.md; measured elsewhere on a 2-core machine of this "
             "kind, one seed): avg L1 / max error / seconds")
    L.append("")
    L.append("| system | eps = 0.1 | eps = 1 | eps = 10 |")
    L.append("|---|---|---|---|")
    for name, per in REFERENCE.items():
        cells = []
        for eps in (0.1, 1.0, 10.0):
            v = per.get(eps)
            cells.append(" / ".join("–" if x is None else f"{x:g}" for x in v) if v else "")
        L.append(f"| {name} | " + " | ".join(cells) + " |")
    L.append("")
    if doc.get("notes"):
        L.append("## Notes")
        L.append("")
        for n in doc["notes"]:
            L.append(f"- {n}")
        L.append("")
    return "\n".join(L)


def label(system: str, doc: dict) -> str:
    if system == "dprelease-mwem":
        picked = sorted({r["parameters"].get("rows_method") for r in doc["runs"] if r.get("system") == system
                         and r.get("parameters", {}).get("rows_method")})
        return f"dprelease MWEM (every default: delta = 1e-9, rows auto -> {'/'.join(picked) or '?'})"
    if system == "dprelease-mwem-sample":
        return "dprelease MWEM (defaults, i.i.d. rows from the same model)"
    if system == "dprelease-mwem-pure":
        return "dprelease MWEM (defaults with delta = 0: pure eps-DP)"
    if system.startswith("dprelease-ic-mw"):
        a, r = system.split("alpha")[1].split("-rounds")
        return f"dprelease IC-MW (alpha={a}, rounds≤{r}, delta={IC_DELTA:g}, sample)"
    if system == "independent-1way":
        return "independent noisy 1-way marginals (dprelease baseline, sample)"
    if system == "uniform":
        return "uniform (sample; no budget)"
    if system == "smartnoise-mwem":
        return f"smartnoise MWEM ({PEER_MWEM_ITERATIONS} iterations)"
    if system == "smartnoise-mst":
        return "smartnoise MST (sample)"
    return system


# ----------------------------------------------------------------------------- main
def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--eps", default="0.1,1,10", help="comma-separated epsilons (default 0.1,1,10)")
    p.add_argument("--seeds", type=int, default=5, help="seeds 0..S-1 for dprelease systems (default 5)")
    p.add_argument("--peers", default="mwem,mst", help="comma-separated smartnoise peers (mwem, mst, aim); '' for none")
    p.add_argument("--peer-seeds", type=int, default=1, help="seeds per peer (default 1)")
    p.add_argument("--peer-eps", default="1", help="epsilons for the peers (default 1)")
    p.add_argument("--peer-time-limit", type=float, default=600.0, help="seconds per peer run (default 600)")
    p.add_argument("--ic-configs", default="0.1:500,0.2:200",
                   help="IC-MW alpha:rounds pairs (default 0.1:500,0.2:200)")
    p.add_argument("--systems", default="mwem,mwem-sample,mwem-pure,ic,independent,uniform",
                   help="dprelease systems to run (default all)")
    p.add_argument("--run-timeout", type=float, default=600.0, help="seconds per dprelease run (default 600)")
    p.add_argument("--out", default=str(REPO / "benchmarks" / "results"), help="output folder")
    p.add_argument("--no-snapshot", dest="snapshot", action="store_false",
                   help="import dprelease from src/ as installed instead of a frozen copy in OUT/tmp/src-snapshot")
    p.add_argument("--render-only", action="store_true",
                   help="rewrite OUT/small3.md from OUT/small3.json (adding any --note) without running anything")
    p.add_argument("--note", action="append", default=[], help="extra note for the markdown (with --render-only)")
    p.add_argument("--one", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.one is not None:
        print(json.dumps(run_one(json.loads(args.one))), flush=True)
        return 0

    if args.render_only:
        path = Path(args.out) / "small3.json"
        doc = json.loads(path.read_text())
        doc["notes"] = doc.get("notes", []) + [n for n in args.note if n not in doc.get("notes", [])]
        path.write_text(json.dumps(doc, indent=2, default=str) + "\n")
        (Path(args.out) / "small3.md").write_text(render_markdown(doc))
        return 0
    start = time.perf_counter()
    out = Path(args.out)
    tmp = out / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    eps_list = [float(e) for e in args.eps.split(",") if e]
    peer_eps = [float(e) for e in args.peer_eps.split(",") if e]
    peers = [p for p in args.peers.split(",") if p]
    wanted = set(args.systems.split(","))
    ic_configs = [(float(a), int(r)) for a, r in (c.split(":") for c in args.ic_configs.split(",") if c)]

    snapshot = snapshot_src(tmp) if args.snapshot else None  # before any dprelease import
    from dprelease.errors import SeededRunWarning

    warnings.filterwarnings("ignore", category=SeededRunWarning)
    scorer, scorer_desc = load_scorer()
    dataset, workload = load_problem()
    notes = []
    if scorer is not None:
        ref = set(map(tuple, scorer.workload("small3", dataset.domain.to_dict())))
        ours = set(tuple(m) for m in workload.marginals)
        if ref != ours:
            notes.append(f"WARNING: Workload 1-3way ({len(ours)}) differs from score.py small3 ({len(ref)}).")

    specs = []
    for eps in eps_list:
        for seed in range(args.seeds):
            for system in MWEM_SYSTEMS:
                if system.removeprefix("dprelease-") in wanted:
                    specs.append({"system": system, "epsilon": eps, "seed": seed})
            if "ic" in wanted:
                for a, r in ic_configs:
                    specs.append({"system": f"dprelease-ic-mw-alpha{a:g}-rounds{r}", "epsilon": eps, "seed": seed,
                                  "alpha": a, "rounds": r, "delta": IC_DELTA})
            if "independent" in wanted:
                specs.append({"system": "independent-1way", "epsilon": eps, "seed": seed})
            if "uniform" in wanted:
                specs.append({"system": "uniform", "epsilon": eps, "seed": seed})

    code = code_info()
    if snapshot:
        code["src_snapshot"] = snapshot
    doc = {"benchmark": "small3", "scorer": scorer_desc, "machine": provenance.machine_info(), "code": code,
           "config": {"eps": eps_list, "seeds": args.seeds, "peers": peers, "peer_seeds": args.peer_seeds,
                      "peer_eps": peer_eps, "peer_time_limit": args.peer_time_limit,
                      "ic_configs": ic_configs, "ic_delta": IC_DELTA, "peer_delta": PEER_DELTA,
                      "peer_mwem_iterations": PEER_MWEM_ITERATIONS,
                      "data": "bundled Adult, ADULT_SMALL_COLUMNS (7 columns)", "workload": "1-3way (63 marginals)",
                      "n": dataset.n, "cells": dataset.domain.size,
                      "seeded_run_warning": "suppressed with warnings.filterwarnings"},
           "runs": [], "notes": notes}

    def save():
        doc["summary"] = summarize(doc["runs"])
        doc["total_seconds"] = time.perf_counter() - start
        doc["machine"]["loadavg_at_end"] = os.getloadavg()
        hashes = {r.get("mwem_py_sha256") for r in doc["runs"] if r.get("mwem_py_sha256")}
        doc["mwem_source_changed_during_run"] = len(hashes | {doc["code"]["mwem_py_sha256"]}) > 1
        (out / "small3.json").write_text(json.dumps(doc, indent=2, default=str) + "\n")
        (out / "small3.md").write_text(render_markdown(doc))

    total = len(specs) + len(peers) * len(peer_eps) * args.peer_seeds
    done = 0
    for spec in specs:
        done += 1
        r = run_child(spec, args.run_timeout)
        doc["runs"].append(r)
        print(f"[{done}/{total}] {spec['system']} eps={spec['epsilon']:g} seed={spec['seed']}: {r.get('status')} "
              f"avg_l1={r.get('avg_l1', float('nan')):.4f} max={r.get('max_error', float('nan')):.4f} "
              f"s={r.get('seconds_fit_sample') or float('nan'):.2f} MB={r.get('peak_rss_mb')}", flush=True)
        save()

    if peers and not PEER_PY.exists():
        msg = (f"peer venv {PEER_PY.parent.parent} not found (run `bash benchmarks/peers/setup_peers.sh`); "
               "peers skipped")
        print("NOTE:", msg, flush=True)
        notes.append(msg)
        peers = []
    for synth in peers:
        for eps in peer_eps:
            for seed in range(args.peer_seeds):
                done += 1
                print(f"[{done}/{total}] smartnoise-{synth} eps={eps:g} seed={seed} (limit "
                      f"{args.peer_time_limit:g} s) ...", flush=True)
                r = run_peer(synth, eps, seed, args.peer_time_limit, tmp, dataset, workload, scorer)
                doc["runs"].append(r)
                print(f"    {r.get('status')} avg_l1={r.get('avg_l1', float('nan')):.4f} "
                      f"max={r.get('max_error', float('nan')):.4f} s={r.get('seconds_fit_sample') or float('nan'):.1f} "
                      f"MB={r.get('peak_rss_mb')}", flush=True)
                save()
    if peers:
        notes.append("smartnoise draws its DP noise from OpenDP's CSPRNG, so peer runs are not reproducible "
                     "from the seed; peer seconds are run_peer.py's seconds_fit_sample (fit + sample in its "
                     "child, imports and CSV loading excluded) and peak MB its child's ru_maxrss (jax included).")
    save()
    print(f"wrote {out / 'small3.json'} and {out / 'small3.md'} in {(time.perf_counter() - start) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
