#!/usr/bin/env python
"""The tuning suite (issue 12): dprelease's defaults beside the baselines and the peers on tables of many shapes.

    .venv/bin/python benchmarks/bench_suite.py [--tables adult7,spread] [--eps 0.1,1,10] [--seeds 3] \
        [--systems dprelease,dprelease-pure,independent,uniform,mst,aim] [--quick] [--merge] \
        [--cached-peers-only | --refresh-peers] [--aim-time-limit 900] [--aim-seeds 1] [--jobs 2] [--out DIR]
    .venv/bin/python benchmarks/bench_suite.py --render-only        # rebuild suite.md from suite.json

Tables: benchmarks/suite_tables.py (real and generated, each with its workload). Protocol:
/work/shared/BENCHMARKS.md. For each table x eps x seed every system runs in a fresh subprocess (this
script with ``--one``), so its peak memory (ru_maxrss, read after fit + rows, before scoring) is that run's
own; seconds = time.perf_counter() around fit + rows inside that process (imports and table loading
excluded); the 1-minute load average is recorded before and after every run. ``--jobs N`` runs N such
children at once (each BLAS-limited to one thread), so the whole suite fits in one invocation on 2 cores.

Systems:

- ``dprelease``: ``dprelease.api.synthesize`` with every default (MWEM, delta = 1e-9); ``dprelease-pure``:
  the same with delta = 0 (pure DP; the default before issue 12's decision); ``dprelease-rounds`` (not run unless
  named): the default with its joint plan off (``MWEMPlan.joint_plan``), the ablation of the small-domain page;
  ``dprelease-addremove`` (not run unless named): the default under add/remove (``privacy_unit="add-remove"``), the
  peers' unit, checked against them at the nominal eps. Each is scored three ways: its released rows (the method ``rows="auto"``
  picked), i.i.d. rows from the same model (``rows="sample"``: the same seed re-run, which refits the
  identical model because the model is fitted before rows are drawn with the same seeded rng, checked by
  comparing the released answers; or drawn from ``release.model`` where a release carries one), and the
  model's own answers (``release.answers`` against the true marginals).
- ``independent``: ``IndependentMarginals`` (noisy 1-way marginals, their product) at the same eps, rows
  sampled. It is run on each 1-column projection at eps / d: the same mechanism (d Laplace measurements
  at eps / d, basic composition, the product of the clipped marginals), without materializing the
  |X|-cell product histogram, which does not fit for most suite tables. ``uniform``: uniform rows.
- ``mst``, ``aim``: smartnoise-synth through benchmarks/peers/run_peer.py in benchmarks/.venv-peers
  (``bash benchmarks/peers/setup_peers.sh``), delta = 1e-9, rows sampled from their model, scored the
  same way. AIM runs under ``--aim-time-limit`` (default 900 s) with ``--aim-max-model-size`` MB; on a
  table where it timed out at one eps, the larger eps are skipped (its time grows with eps: 173 / 322 /
  580 s at eps 0.1 / 1 / 10 on small3, BENCHMARKS.md) and recorded as such.
- ``mst-matched``, ``aim-matched`` (not run unless named): the same peers run at the epsilon that gives them
  dprelease's guarantee under dprelease's privacy unit. smartnoise calibrates to neighbours that add or remove a
  record; dprelease's replace one (n public), under which the peers' measurements spend 2x and their selections
  4x the rho they count (peer_guarantee.py derives MST's 8/3 and AIM's 2.19). The page compares the defaults
  with both: the nominal peer is what its user gets at the same number, the matched one is like for like.

Peer results are cached in benchmarks/results/suite-peers.json (whatever ``--out`` is; ``--peer-cache`` to change
it) by (table, fingerprint, eps, seed, peer, peer version, peer settings); a cached result is reused unless
``--refresh-peers``; ``--cached-peers-only`` never starts a peer (without the peer environment it keys the cache
by the versions its runs were measured with).

Scoring: the released synthetic ROWS against the real table over the table's workload with
``dprelease.evaluate.workload_errors`` (avg L1 = mean over marginals of the L1 distance between fraction
vectors; max error = the largest cell error). When adult7 is in the run and /work/shared/bench/score.py
exists, both scorers are compared once on adult7 (the only file read outside the repository).

Order: the cheap systems on every table first, then MST, then AIM, so partial results are useful;
OUT/suite.json and OUT/suite.md are rewritten after every run. ``--merge`` keeps the runs of an earlier
suite.json that this invocation does not redo (e.g. re-running only the dprelease systems on one table).
"""

from __future__ import annotations

import argparse
import concurrent.futures
import datetime as dt
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
import suite_report  # noqa: E402  (the markdown page)
import scoring  # noqa: E402  (where the protocol's score.py is, when the workspace has one)
import peer_guarantee  # noqa: E402  (the peers' epsilon at dprelease's guarantee)

PEER_PY = HERE / ".venv-peers" / "bin" / "python"
PEER_RUNNER = HERE / "peers" / "run_peer.py"
SCORE_PY = scoring.SCORE_PY  # the protocol's independent scorer, found as every benchmark finds it
DELTA = 1e-9
SYSTEMS = ("dprelease", "dprelease-pure", "independent", "uniform", "mst", "aim", "mst-matched", "aim-matched",
           "dprelease-rounds", "dprelease-addremove")
#: A peer run at the nominal epsilon under its own privacy unit (add or remove a record), and the same peer run at
#: the epsilon that gives dprelease's guarantee under dprelease's unit (replace a record; peer_guarantee.py).
PEERS = ("mst", "aim", "mst-matched", "aim-matched")
OPTIONAL_SYSTEMS = ("dprelease-rounds", "mst-matched", "aim-matched", "dprelease-addremove")  # run only when named
CHEAP_TABLE_ORDER = ("adult7", "spread", "small91", "adult-n1000", "adult-n5000", "binary16", "bn-1k", "clinic", "loans",
                     "adult14", "taxi", "wide", "bn-100k", "bn-1m")


# ----------------------------------------------------------------------------- one run (child process)
class RowMarginals:
    """Marginals (fractions) of n x d code rows, each computed once: a MarginalSource for the scorer.

    The same definition as ``Dataset.marginal`` (counts over the cells in C order, divided by n), from
    column-contiguous copies of the codes: on 1,000,000 x 32 rows a 2-way marginal takes 8 ms here against
    70 ms through the strided columns of ``Dataset.records``, and a run scores up to three row sets on up to
    496 marginals. check_scorer compares the two on adult7.
    """

    def __init__(self, rows, domain):
        import numpy as np

        rows = np.asarray(rows)
        if rows.ndim != 2 or rows.shape[1] != len(domain):
            raise ValueError(f"rows must have shape (n, {len(domain)}), got {rows.shape}")
        self.columns = np.ascontiguousarray(rows.T, dtype=np.int64)
        for column, attribute, size in zip(self.columns, domain.attributes, domain.sizes):
            if len(column) and (column.min() < 0 or column.max() >= size):
                raise ValueError(f"rows: column {attribute!r} has codes outside 0..{size - 1}")
        self.domain, self.n, self.memo = domain, rows.shape[0], {}
        self.position = {a: i for i, a in enumerate(domain.attributes)}

    def marginal(self, attributes):
        import numpy as np

        key = tuple(attributes)
        if key not in self.memo:
            sizes = [self.domain.sizes[self.position[a]] for a in key]
            flat = np.zeros(self.n, dtype=np.int64)
            for attribute, size in zip(key, sizes):
                flat = flat * size + self.columns[self.position[attribute]]
            counts = np.bincount(flat, minlength=int(np.prod(sizes))).astype(np.float64)
            self.memo[key] = (counts / self.n).reshape(sizes)
        return self.memo[key]


class LazyRowMarginals:
    """RowMarginals of a dataset's rows, built on the first marginal asked for."""

    def __init__(self, dataset):
        self.dataset, self.rows = dataset, None

    def marginal(self, attributes):
        if self.rows is None:
            self.rows = RowMarginals(self.dataset.records, self.dataset.domain)
        return self.rows.marginal(attributes)


class ReleasedAnswers:
    """A release's own answers (the model's marginals) as a marginal source for the scorer."""

    def __init__(self, release):
        self.release = release

    def marginal(self, attributes):
        return self.release.marginal_array(tuple(attributes))  # axes in the order asked (marginal() labels them)


def score(real, synthetic, workload) -> dict:
    from dprelease.evaluate import workload_errors

    out = workload_errors(real, synthetic, workload)
    return {"avg_l1": out["avg_l1"], "max_error": out["max_error"], "max_l1": out["max_l1"],
            "worst_marginal": out["worst_marginal"]}


def score_rows(real, rows, dataset, workloads: dict) -> dict:
    """{workload name: scores} of synthetic rows (n x d codes, domain order)."""
    synthetic = RowMarginals(rows, dataset.domain)
    return {name: score(real, synthetic, w) for name, w in workloads.items()}


def plain_parameters(parameters: dict) -> dict:
    """The release's scalar parameters (rounds, shares, ...), the part worth keeping per run."""
    return {k: v for k, v in parameters.items() if isinstance(v, (int, float, str, bool)) or v is None}


def run_one(spec: dict) -> dict:
    """Fit + rows for one (table, system, eps, seed) in this fresh process; score; report peak RSS."""
    import numpy as np

    from dprelease.errors import SeededRunWarning

    warnings.filterwarnings("ignore", category=SeededRunWarning)
    dataset, workloads = load_table(spec["table"])
    real = LazyRowMarginals(dataset)  # built after the peak-memory reading, so the scorer's copy is not in it
    rss_loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    system, eps, seed = spec["system"], float(spec["epsilon"]), int(spec["seed"])
    out = {**spec, "status": "ok", "rss_after_load_mb": round(rss_loaded, 1)}
    load_before = os.getloadavg()[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", category=SeededRunWarning)
        if system in ("dprelease", "dprelease-pure", "dprelease-rounds", "dprelease-addremove"):
            from dprelease.api import synthesize

            delta = 0.0 if system == "dprelease-pure" else None  # None: the default
            if system == "dprelease-rounds":  # the ablation: the default without its joint plan (this process only)
                from dataclasses import replace

                from dprelease.mechanisms import mwem_tuning

                mwem_tuning.ADAPTIVE = replace(mwem_tuning.ADAPTIVE, joint_noise=None)
            t0 = time.perf_counter()
            unit = "add-remove" if system == "dprelease-addremove" else None  # the peers' unit, at the nominal eps
            release = synthesize(dataset, workloads["main"], epsilon=eps, delta=delta, seed=seed, privacy_unit=unit)
            out["seconds"] = time.perf_counter() - t0
            out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
            out["loadavg1_before_after"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
            out["rows_method"] = release.rows_method
            out["parameters"] = plain_parameters(release.parameters)
            out["scores"] = score_rows(real, release.rows, dataset, workloads)
            out["model_scores"] = {"main": score(real, ReleasedAnswers(release), workloads["main"])}
            # i.i.d. rows from the same model
            t0 = time.perf_counter()
            if release.rows_method == "sample":
                sample_rows, how = release.rows, "the released rows (auto picked sample)"
            elif getattr(release, "model", None) is not None and hasattr(release.model, "sample"):
                from dprelease.privacy.rng import make_rng

                sample_rows = release.model.sample(dataset.n, make_rng(seed + 1_000_003, warn=False))
                how = "drawn from release.model"
            else:
                again = synthesize(dataset, workloads["main"], epsilon=eps, delta=delta, seed=seed, rows="sample",
                                   privacy_unit=unit)
                same = len(again.answers) == len(release.answers) and all(
                    np.array_equal(a, b) for a, b in zip(again.answers, release.answers))
                sample_rows, how = again.rows, "the same seed re-run with rows='sample'"
                out["sample_same_model"] = bool(same)
            out["sample_seconds"] = time.perf_counter() - t0
            out["sample_how"] = how
            out["sample_scores"] = score_rows(real, sample_rows, dataset, workloads)
        elif system in ("independent", "uniform"):
            t0 = time.perf_counter()
            rows = baseline_rows(dataset, system, eps, seed)
            out["seconds"] = time.perf_counter() - t0
            out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
            out["loadavg1_before_after"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
            out["rows_method"] = "sample"
            out["scores"] = score_rows(real, rows, dataset, workloads)
        else:
            raise ValueError(f"unknown system {system!r}")
    out["warnings"] = sorted({f"{w.category.__name__}: {w.message}"[:300] for w in caught})
    return out


def baseline_rows(dataset, system: str, eps: float, seed: int):
    """n rows of a baseline: ``independent`` (IndependentMarginals at eps on every 1-column projection, eps / d
    each: the same d Laplace measurements and product, without the |X|-cell histogram; see the docstring) or
    ``uniform``, drawn with ``make_rng(seed)``."""
    import numpy as np

    from dprelease.mechanisms.baselines import IndependentMarginals, uniform_model
    from dprelease.privacy.rng import make_rng

    rng = make_rng(seed, warn=False)
    columns = []
    for attribute in dataset.domain.attributes:
        column = dataset.select([attribute])
        if system == "independent":
            model, _ = IndependentMarginals(epsilon=eps / len(dataset.domain)).run(column, rng=rng)
        else:
            model = uniform_model(column.domain)
        columns.append(model.sample(dataset.n, rng)[:, 0])
    return np.stack(columns, axis=1)


def write_peer_files(dataset, csv: Path, domain: Path) -> None:
    """``dataset`` as the integer CSV (header of column names) and domain JSON that run_peer.py reads."""
    import numpy as np

    csv.parent.mkdir(parents=True, exist_ok=True)
    tmp = csv.with_suffix(".csv.tmp")
    np.savetxt(tmp, dataset.records, fmt="%d", delimiter=",", header=",".join(dataset.domain.attributes), comments="")
    os.replace(tmp, csv)
    domain.write_text(json.dumps(dataset.domain.to_dict()))


def read_peer_rows(csv: Path, domain):
    """A peer's synthetic rows (integer CSV with a header) as codes in ``domain``'s column order."""
    import numpy as np

    with open(csv) as f:
        header = f.readline().strip().split(",")
    rows = np.loadtxt(csv, delimiter=",", skiprows=1, dtype=np.int64, ndmin=2)
    return rows[:, [header.index(c) for c in domain.attributes]]


# ----------------------------------------------------------------------------- the parent
#: With --jobs > 1 each child keeps its BLAS to one thread, so N children use N cores, not N x cores.
ONE_THREAD = {name: "1" for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}


def run_child(spec: dict, timeout: float, *, one_thread: bool = False) -> dict:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", json.dumps(spec)]
    env = {**os.environ, **ONE_THREAD} if one_thread else None
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO, env=env)
    except subprocess.TimeoutExpired:
        return {**spec, "status": "timeout", "error": f"killed after {timeout:g} s",
                "loadavg1_process_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)]}
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        out = {**spec, "status": "error", "error": (proc.stderr or proc.stdout)[-2000:]}
    else:
        out = json.loads(lines[-1])
    out["seconds_process_wall"] = round(time.perf_counter() - t0, 2)
    out["parent_maxrss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0, 1)
    out["loadavg1_process_before_after"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]
    return out


def run_helper(mode: str, payload: dict, timeout: float = 3600.0) -> dict:
    """Run a helper step (``--child MODE``) in a fresh process and return its JSON.

    The parent never loads a table itself: on Linux a child's ru_maxrss starts from its parent's peak RSS
    (subprocess execs through vfork, and exec keeps the old image's high-water mark), so a parent holding the
    1,000,000-row table would put a floor of 1 GB under every run's peak memory.
    """
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", mode, "--one", json.dumps(payload)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=REPO)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        raise RuntimeError(f"helper {mode} {payload} failed: {(proc.stderr or proc.stdout)[-2000:]}")
    return json.loads(lines[-1])


#: Set by --workload for this process and its children: the main workload of every table, in place of its own.
WORKLOAD_ENV = "DPRELEASE_SUITE_WORKLOAD"


#: --workload's cross-table specs (beside the library's 'Kway' and 'J-Kway'): a few tables over the columns in order,
#: the shape of a release of chosen cross-tabulations rather than of all k-way marginals.
CROSS_TABLES = {"adjacent-pairs": (2, 1), "disjoint-pairs": (2, 2), "disjoint-triples": (3, 3)}


def workload_for(spec: str, domain):
    """A workload spec on ``domain``: the library's, or a :data:`CROSS_TABLES` one (width w, stride s: the columns
    i..i+w-1 for i = 0, s, 2s, ... while they fit)."""
    from dprelease.queries.workload import Workload

    if spec not in CROSS_TABLES:
        return Workload.from_spec(spec, domain)
    width, stride = CROSS_TABLES[spec]
    names = domain.attributes
    return Workload(domain, tuple(tuple(names[i:i + width]) for i in range(0, len(names) - width + 1, stride)))


def load_table(name: str):
    """(dataset, {workload name: Workload}) of a suite table (in a child)."""
    import suite_tables
    from dprelease.queries.workload import Workload

    dataset, spec, _ = suite_tables.load(name)
    spec = os.environ.get(WORKLOAD_ENV) or spec  # --workload: one spec for every table
    workloads = {"main": workload_for(spec, dataset.domain)}
    if not os.environ.get(WORKLOAD_ENV):  # a table's extra workloads go with its own
        workloads.update({w: Workload.from_spec(w, dataset.domain) for w in suite_tables.TABLES[name].extra_workloads})
    return dataset, workloads


def helper(mode: str, payload: dict) -> dict:
    """The helper steps, run in a child: table info, the peers' input files, scoring a peer's rows, the scorer check."""
    if mode == "info":
        dataset, _ = load_table(payload["table"])
        return table_info(payload["table"], dataset)
    if mode == "peer-files":  # the table as an integer CSV and its domain JSON, for run_peer.py
        dataset, _ = load_table(payload["table"])
        write_peer_files(dataset, Path(payload["csv"]), Path(payload["domain"]))
        return {"csv": payload["csv"], "domain": payload["domain"]}
    if mode == "peer-score":
        dataset, workloads = load_table(payload["table"])
        real = RowMarginals(dataset.records, dataset.domain)
        return {"scores": score_rows(real, read_peer_rows(payload["csv"], dataset.domain), dataset, workloads)}
    if mode == "check-scorer":
        return check_scorer()
    raise ValueError(f"unknown helper mode {mode!r}")


class Tables:
    """The parent's view of the tables: their info and the peers' input files, each made once, in children."""

    def __init__(self, tmp: Path):
        self.tmp, self.info, self.made = tmp, {}, {}

    def get(self, name: str) -> dict:
        if name not in self.info:
            self.info[name] = run_helper("info", {"table": name})
        return self.info[name]

    def files(self, name: str) -> tuple[Path, Path]:
        """The table as an integer CSV and its domain JSON, written once per invocation, for run_peer.py."""
        if name not in self.made:
            folder = self.tmp / "data"
            paths = {"csv": str(folder / f"{name}.csv"), "domain": str(folder / f"{name}-domain.json")}
            run_helper("peer-files", {"table": name, **paths})
            self.made[name] = (Path(paths["csv"]), Path(paths["domain"]))
        return self.made[name]


def table_info(name: str, dataset) -> dict:
    import math

    import suite_tables

    t = suite_tables.TABLES[name]
    return {"n": dataset.n, "columns": len(dataset.domain), "cells": float(math.prod(dataset.domain.sizes)),
            "workload": os.environ.get(WORKLOAD_ENV) or t.workload,
            "extra_workloads": [] if os.environ.get(WORKLOAD_ENV) else list(t.extra_workloads),
            "description": t.description,
            "fingerprint": dataset.fingerprint()[:16]}


def peer_versions() -> dict | None:
    if not PEER_PY.exists():
        return None
    code = ("import json, importlib.metadata as m; print(json.dumps({p: m.version(p) for p in "
            "('smartnoise-synth', 'mbi', 'jax', 'opendp')}))")
    proc = subprocess.run([str(PEER_PY), "-c", code], capture_output=True, text=True)
    return json.loads(proc.stdout) if proc.returncode == 0 else None


def versions_in_cache(cache: dict) -> dict | None:
    """The peers' versions the cached runs were measured with, when they all share one (else None)."""
    found = {json.dumps(entry.get("versions"), sort_keys=True) for entry in cache.get("entries", {}).values()}
    return json.loads(found.pop()) if len(found) == 1 else None


peer_program = peer_guarantee.program  # 'mst' for 'mst' and 'mst-matched'


def peer_settings(peer: str, args, columns: int | None = None) -> dict:
    """What a peer run depends on besides the table, eps and seed (its cache key; unchanged for the nominal peers)."""
    if peer_program(peer) == "aim":
        settings = {"time_limit": args.aim_time_limit, "max_model_size": args.aim_max_model_size,
                    "rounds": args.aim_rounds, "delta": DELTA, "sampling": "sample"}
    else:
        settings = {"time_limit": args.mst_time_limit, "delta": DELTA, "sampling": "sample"}
    if peer_guarantee.is_matched(peer):
        factor = peer_guarantee.replace_one_factor(peer_program(peer), columns=columns, rounds=settings.get("rounds"))
        settings.update(guarantee="dprelease's (replace one record)", rho_factor=str(factor))
    return settings


def peer_key(table: str, fingerprint: str, eps: float, seed: int, peer: str, versions: dict, settings: dict) -> str:
    return json.dumps([table, fingerprint, f"{eps:g}", seed, peer, versions.get("smartnoise-synth"),
                       versions.get("mbi"), settings], sort_keys=True)


def run_peer(peer: str, table: str, eps: float, seed: int, args, tables: Tables, tmp: Path) -> dict:
    csv, domain = tables.files(table)
    stem = tmp / f"peer-{table}-{peer}-eps{eps:g}-seed{seed}"
    columns = tables.get(table)["columns"]
    settings = peer_settings(peer, args, columns)
    eps_run = peer_guarantee.run_epsilon(peer, eps, DELTA, columns=columns, rounds=args.aim_rounds)
    cmd = [str(PEER_PY), str(PEER_RUNNER), "--data", str(csv), "--domain", str(domain), "--synth", peer_program(peer),
           "--epsilon", f"{eps:g}" if eps_run == eps else repr(eps_run), "--delta", f"{DELTA:g}", "--seed", str(seed),
           "--time-limit", f"{settings['time_limit']:g}", "--out", f"{stem}.csv", "--json", f"{stem}.json"]
    if peer_program(peer) == "aim":
        cmd += ["--aim-max-model-size", f"{args.aim_max_model_size:g}"]
        if args.aim_rounds:
            cmd += ["--iterations", str(args.aim_rounds)]
    spec = {"table": table, "system": peer, "epsilon": eps, "seed": seed}
    load_before = os.getloadavg()[0]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=settings["time_limit"] + 300, cwd=REPO)
    except subprocess.TimeoutExpired:
        return {**spec, "status": "error", "error": "run_peer.py itself did not return"}
    load_after = os.getloadavg()[0]
    try:
        res = json.loads(Path(f"{stem}.json").read_text())
    except (OSError, ValueError):
        return {**spec, "status": "error", "error": (proc.stderr or proc.stdout)[-2000:]}
    out = {**spec, "status": res.get("status"), "error": res.get("error"), "seconds": res.get("seconds_fit_sample"),
           "seconds_fit": res.get("seconds_fit"), "peak_rss_mb": res.get("peak_rss_mb"),
           "seconds_process_wall": round(time.perf_counter() - t0, 2),
           "loadavg1_before_after": [round(load_before, 2), round(load_after, 2)], "rows_method": "sample",
           "settings": settings, "versions": res.get("versions"), "epsilon_run": eps_run,
           "measured_at": dt.datetime.now().astimezone().isoformat(timespec="seconds")}
    if out["status"] == "ok":
        out["scores"] = run_helper("peer-score", {"table": table, "csv": f"{stem}.csv"})["scores"]
        Path(f"{stem}.csv").unlink(missing_ok=True)
    return out


def check_scorer() -> dict:
    """Score the same rows three ways on adult7 (score.py; evaluate on Datasets; the suite's sources): all must agree."""
    if not SCORE_PY.exists():
        return {"status": "skipped", "reason": f"{SCORE_PY} not found"}
    import importlib.util

    from dprelease import Dataset
    from dprelease.evaluate import workload_errors
    from dprelease.mechanisms.baselines import uniform_model
    from dprelease.privacy.rng import make_rng

    module_spec = importlib.util.spec_from_file_location("bench_score", SCORE_PY)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    os.environ.pop(WORKLOAD_ENV, None)  # the check is of the protocol's workload (small3), whatever --workload says
    dataset, workloads = load_table("adult7")
    real = RowMarginals(dataset.records, dataset.domain)
    rng = make_rng(0, warn=False)
    perturbed = dataset.records.copy()
    flip = rng.uniform_open(dataset.n) < 0.2
    perturbed[flip] = uniform_model(dataset.domain).sample(int(flip.sum()), rng)
    marginals = [tuple(m) for m in workloads["main"].marginals]
    attrs = list(dataset.domain.attributes)
    worst = 0.0
    for rows in (perturbed, uniform_model(dataset.domain).sample(dataset.n, rng)):
        ours = score_rows(real, rows, dataset, {"main": workloads["main"]})["main"]
        theirs = module.score({a: dataset.records[:, i] for i, a in enumerate(attrs)},
                              {a: rows[:, i] for i, a in enumerate(attrs)}, dataset.domain.to_dict(), marginals)
        plain = workload_errors(dataset, Dataset.from_records(rows, dataset.domain), workloads["main"])
        worst = max(worst, *(abs(ours[k] - other[k]) for other in (theirs, plain) for k in ("avg_l1", "max_error")))
    same = set(marginals) == set(map(tuple, module.workload("small3", dataset.domain.to_dict())))
    return {"status": "agree" if worst < 1e-12 and same else "DISAGREE", "max_abs_difference": worst,
            "workload_same_as_small3": same, "score_py_sha256": hashlib.sha256(SCORE_PY.read_bytes()).hexdigest()[:12],
            "row_sets": "adult7 with 20% of rows replaced by uniform draws; uniform rows (seed 0)",
            "compared": "score.py's score(); dprelease.evaluate.workload_errors on Dataset sources; the suite's "
                        "workload_errors on RowMarginals sources"}


# ----------------------------------------------------------------------------- summaries
def variants(run: dict) -> list[tuple[str, dict, dict]]:
    """(system label, the run's fields for it, scores per workload) for every way a run is scored."""
    if run.get("status") != "ok":
        return []
    base = {"seconds": run.get("seconds"), "peak_rss_mb": run.get("peak_rss_mb"), "rows_method": run.get("rows_method")}
    out = [(run["system"], base, run.get("scores", {}))]
    if "sample_scores" in run:
        out.append((f"{run['system']} [sample]", {**base, "seconds": run.get("sample_seconds"), "rows_method": "sample"},
                    run["sample_scores"]))
    if "model_scores" in run:
        out.append((f"{run['system']} [model]", {**base, "rows_method": "model answers"}, run["model_scores"]))
    return out


def stat(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values), "n": len(values)}


def summarize(runs: list[dict]) -> list[dict]:
    groups: dict[tuple, list] = {}
    statuses: dict[tuple, list] = {}
    for r in runs:
        statuses.setdefault((r["table"], r["system"], float(r["epsilon"])), []).append(r.get("status"))
        for label, fields, scores in variants(r):
            for workload, sc in scores.items():
                groups.setdefault((r["table"], label, workload, float(r["epsilon"])), []).append((r, fields, sc))
    out = []
    for (table, label, workload, eps), items in groups.items():
        system = label.split(" ")[0]
        out.append({"table": table, "system": label, "workload": workload, "epsilon": eps, "ok": len(items),
                    "statuses": sorted(set(filter(None, statuses.get((table, system, eps), [])))),
                    "avg_l1": stat([sc["avg_l1"] for _, _, sc in items]),
                    "max_error": stat([sc["max_error"] for _, _, sc in items]),
                    "seconds": stat([f["seconds"] for _, f, _ in items]),
                    "peak_rss_mb": stat([f["peak_rss_mb"] for _, f, _ in items]),
                    "rows_methods": sorted({str(f["rows_method"]) for _, f, _ in items}),
                    "cached": sorted({bool(r.get("cached")) for r, _, _ in items}),
                    "measured_at": sorted({r["measured_at"] for r, _, _ in items if r.get("measured_at")})})
    return out


# ----------------------------------------------------------------------------- snapshot of src/
def tree_sha(root: Path) -> str:
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def snapshot_src(tmp: Path) -> dict:
    """Freeze src/dprelease into tmp/src-snapshot and import it here and in every child.

    The library may change (a merge, an edit) while a long run goes on; the snapshot keeps every run of one
    invocation on one version, which the JSON names (commit, diff hash, tree hash).
    """
    root = tmp / "src-snapshot"
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(REPO / "src" / "dprelease", root / "dprelease", ignore=shutil.ignore_patterns("__pycache__"))
    diff = subprocess.run(["git", "diff", "HEAD", "--", "src"], capture_output=True, text=True, cwd=REPO).stdout
    sys.path.insert(0, str(root))
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")]))
    return {"tree_sha256": tree_sha(root / "dprelease"), "diff_vs_head_sha256": hashlib.sha256(diff.encode()).hexdigest()[:16],
            "diff_vs_head_lines": len(diff.splitlines())}


# ----------------------------------------------------------------------------- main
def parse_args(argv):
    # suite_tables is not imported here: it imports dprelease, which must come from the snapshot of src/.
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tables", default=",".join(CHEAP_TABLE_ORDER), help="comma-separated, run in this order")
    p.add_argument("--eps", default="0.1,1,10")
    p.add_argument("--seeds", type=int, default=3, help="seeds 0..S-1 for every system")
    p.add_argument("--systems", default=",".join(s for s in SYSTEMS if s not in OPTIONAL_SYSTEMS))
    p.add_argument("--quick", action="store_true", help="one seed, eps = 1 only (for iteration while tuning)")
    p.add_argument("--table-seeds", default="", help="per-table seed counts that override --seeds for every "
                   "system, e.g. 'wide=1,bn-1m=1' (for tables too slow to repeat within the run's time)")
    p.add_argument("--table-eps", default="", help="per-table eps lists that override --eps, e.g. 'bn-1m=1' or "
                   "'bn-1m=0.1+1' (+ separates the values)")
    p.add_argument("--mst-seeds", type=int, default=None, help="MST seeds (default: --seeds)")
    p.add_argument("--aim-seeds", type=int, default=None, help="AIM seeds (default: --seeds)")
    p.add_argument("--aim-budget", type=float, default=None, help="seconds of AIM in all; past it the remaining "
                   "AIM runs are recorded as not run")
    p.add_argument("--aim-tables", default=None, help="tables AIM is tried on (default: all selected)")
    p.add_argument("--aim-time-limit", type=float, default=900.0)
    p.add_argument("--aim-max-model-size", type=float, default=80.0, help="MB (smartnoise's default 80)")
    p.add_argument("--aim-rounds", type=int, default=None, help="default smartnoise's 16 x columns")
    p.add_argument("--mst-time-limit", type=float, default=1800.0)
    p.add_argument("--jobs", type=int, default=1,
                   help="dprelease and baseline runs at once, each its own process (peers run one at a time)")
    p.add_argument("--run-timeout", type=float, default=1800.0, help="seconds per dprelease/baseline run")
    p.add_argument("--refresh-peers", action="store_true", help="rerun peers even when cached")
    p.add_argument("--cached-peers-only", action="store_true", help="never start a peer; use the cache")
    p.add_argument("--merge", action="store_true", help="keep the earlier suite.json's runs of the (table, system) "
                   "pairs this one does not run")
    p.add_argument("--resume", action="store_true", help="as --merge, and also keep (not redo) the earlier runs "
                   "made by the same src/ tree: continue a cut run, or add seeds")
    p.add_argument("--no-snapshot", action="store_true", help="import src/ directly instead of a frozen copy")
    p.add_argument("--render-only", action="store_true", help="rebuild suite.md from suite.json")
    p.add_argument("--workload", default=None, help="one workload spec for every table (e.g. '1way'), in place of "
                   "each table's own; the peers' cache is keyed on the tables' own, so no MST or AIM with it")
    p.add_argument("--note", action="append", default=[], help="a line for the markdown's notes (repeatable)")
    p.add_argument("--title", help="the page's heading (default: the tuning suite's; e.g. for the held-out tables)")
    p.add_argument("--out", default=str(HERE / "results"))
    p.add_argument("--peer-cache", default=str(HERE / "results" / "suite-peers.json"),
                   help="the peer-result cache (the same file whatever --out is)")
    p.add_argument("--one", default=None, help=argparse.SUPPRESS)
    p.add_argument("--child", default="run", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.jobs < 1:
        raise SystemExit(f"bench_suite.py: error: --jobs must be at least 1, got {args.jobs}")
    if args.one is not None:
        payload = json.loads(args.one)
        print(json.dumps(run_one(payload) if args.child == "run" else helper(args.child, payload), default=str),
              flush=True)
        return 0
    out = Path(args.out)
    json_path, md_path, cache_path = out / "suite.json", out / "suite.md", Path(args.peer_cache)
    if args.render_only:
        doc = json.loads(json_path.read_text())
        doc.setdefault("notes", []).extend(args.note)
        if args.title:
            doc["title"] = args.title
        if args.title or args.note:  # kept in the JSON, so a later re-render keeps them
            json_path.write_text(json.dumps(doc, indent=1, default=str) + "\n")
        md_path.write_text(suite_report.render(doc))
        print(f"wrote {md_path}")
        return 0
    start = time.perf_counter()
    tmp = out / "tmp" / f"suite-{os.getpid()}"
    tmp.mkdir(parents=True, exist_ok=True)
    code = provenance.code_info()
    if not args.no_snapshot:
        code["src_snapshot"] = snapshot_src(tmp)
    import dprelease

    code["dprelease_version"], code["dprelease_imported_from"] = dprelease.__version__, dprelease.__file__
    import suite_tables

    tables_list = [t for t in args.tables.split(",") if t]
    unknown = [t for t in tables_list if t not in suite_tables.TABLES]
    if unknown:
        raise SystemExit(f"bench_suite.py: error: unknown tables {unknown}; choose from {list(suite_tables.TABLES)}")
    eps_list = [1.0] if args.quick else [float(e) for e in args.eps.split(",") if e]
    seeds = 1 if args.quick else args.seeds
    aim_seeds = seeds if args.aim_seeds is None else min(args.aim_seeds, seeds)
    aim_tables = tables_list if args.aim_tables is None else [t for t in args.aim_tables.split(",") if t]
    systems = [s for s in args.systems.split(",") if s]
    unknown = [s for s in systems if s not in SYSTEMS]
    if unknown:
        raise SystemExit(f"bench_suite.py: error: unknown systems {unknown}; choose from {list(SYSTEMS)}")
    if args.workload:
        if any(s in PEERS for s in systems):
            raise SystemExit("bench_suite.py: error: --workload runs no peer (their cache holds the tables' own "
                             "workloads); drop mst and aim from --systems")
        os.environ[WORKLOAD_ENV] = args.workload  # the children inherit it
    else:
        os.environ.pop(WORKLOAD_ENV, None)  # a stray one in the shell must not change the tables' workloads
    tables = Tables(tmp)
    versions = peer_versions()
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {"entries": {}}
    if versions is None and args.cached_peers_only:
        versions = versions_in_cache(cache)  # the cache alone needs no peer environment
    doc = {"benchmark": "suite", "machine": provenance.machine_info(), "code": code,
           "config": {"tables": tables_list, "eps": eps_list, "seeds": seeds, "systems": systems, "delta": DELTA,
                      "aim_seeds": aim_seeds, "aim_tables": aim_tables, "aim_time_limit": args.aim_time_limit,
                      "aim_max_model_size": args.aim_max_model_size, "aim_rounds": args.aim_rounds,
                      "mst_time_limit": args.mst_time_limit, "quick": args.quick, "jobs": args.jobs,
                      "argv": sys.argv[1:], "workload": args.workload},
           "peer_versions": versions, "tables": {}, "runs": [], "notes": list(args.note)}
    if args.title:
        doc["title"] = args.title
    table_seeds = {t: seeds for t in tables_list}
    for item in filter(None, args.table_seeds.split(",")):
        name, count = item.split("=")
        table_seeds[name] = 1 if args.quick else int(count)
    table_eps = {t: eps_list for t in tables_list}
    for item in filter(None, args.table_eps.split(",")):
        name, values = item.split("=")
        table_eps[name] = eps_list if args.quick else [float(e) for e in values.split("+")]
    mst_seeds = seeds if args.mst_seeds is None else min(args.mst_seeds, seeds)
    doc["config"].update(table_seeds=table_seeds, table_eps=table_eps, mst_seeds=mst_seeds)
    redo = {(t, s, e, seed) for t in tables_list for s in systems for e in table_eps[t] for seed in range(table_seeds[t])
            if seed < {"mst": mst_seeds, "aim": aim_seeds}.get(peer_program(s), seeds)}
    kept, done = [], set()
    src_tree = code["src_snapshot"]["tree_sha256"] if "src_snapshot" in code else tree_sha(REPO / "src" / "dprelease")
    if (args.merge or args.resume) and json_path.exists():
        old = json.loads(json_path.read_text())
        # Every earlier run of a (table, system) this invocation runs is dropped, not only the same (eps, seed),
        # so a median never mixes two versions of the library; --resume keeps (and does not redo) the runs
        # made by the same src/ tree. Peer runs come back from the peer cache.
        pairs = {(t, s) for t, s, _, _ in redo}
        for r in old["runs"]:
            key = (r["table"], r["system"], float(r["epsilon"]), int(r["seed"]))
            if (r["table"], r["system"]) not in pairs:
                kept.append(r)
            elif (args.resume and r["system"] not in PEERS and key in redo and r.get("status") == "ok"
                  and r.get("src_tree") == src_tree):
                kept.append(r)
                done.add(key)
        doc["tables"].update({k: v for k, v in old.get("tables", {}).items() if k not in tables_list})
        # The page describes every table whose runs it keeps: the earlier invocations' tables, seeds and eps
        # stay in the config (this invocation's override theirs), and so do their notes.
        before = old["config"]
        config = doc["config"]
        config["tables"] = list(before["tables"]) + [t for t in tables_list if t not in before["tables"]]
        config["systems"] = list(before["systems"]) + [s for s in systems if s not in before["systems"]]
        config["table_seeds"] = {**before.get("table_seeds", {}), **table_seeds}
        config["table_eps"] = {**before.get("table_eps", {}), **table_eps}
        # A peer this invocation does not run keeps the settings its kept runs were made with (a --merge of the
        # dprelease systems alone wrote its own default AIM tables and time limit over the page's).
        for peer, keys in (("aim", [k for k in before if k.startswith("aim_")]), ("mst", ["mst_seeds"])):
            if not any(peer_program(s) == peer for s in systems):
                config.update({k: before[k] for k in keys if k in before})
        # AIM's kept runs are on the earlier invocations' AIM tables: the page lists them beside this one's
        config["aim_tables"] = list(before.get("aim_tables", [])) + [
            t for t in config.get("aim_tables", []) if t not in before.get("aim_tables", [])]
        doc["notes"] = [n for n in old.get("notes", []) if n not in doc["notes"]] + doc["notes"]
        doc["notes"].append(f"{len(kept)} runs kept from the suite.json of {old['machine']['date']} "
                            f"({'--resume' if args.resume else '--merge'}), commit {provenance.commit_label(old['code'])}")
        doc["total_seconds_before"] = old.get("total_seconds", 0.0) + old.get("total_seconds_before", 0.0) \
            if args.resume else 0.0

    src_version = {"commit": code.get("git_commit"), "src_tree": src_tree}

    def save():
        runs = kept + doc["runs"]
        doc["tables"].update(tables.info)
        doc["summary"] = summarize(runs)
        doc["total_seconds"] = time.perf_counter() - start
        doc["machine"]["loadavg_at_end"] = os.getloadavg()
        saved = {**doc, "runs": runs}
        tmp_json = json_path.with_suffix(".json.tmp")
        tmp_json.write_text(json.dumps(saved, indent=1, default=str) + "\n")
        os.replace(tmp_json, json_path)
        md_path.write_text(suite_report.render(saved))

    def log(run: dict, i: int, total: int):
        sc = run.get("scores", {}).get("main", {})
        extra = ""
        if "sample_scores" in run:
            extra = (f" sample={run['sample_scores']['main']['avg_l1']:.4f} model="
                     f"{run['model_scores']['main']['avg_l1']:.4f} rows={run.get('rows_method')}")
        print(f"[{i}/{total}] {run['table']} {run['system']} eps={run['epsilon']:g} seed={run['seed']}: "
              f"{run.get('status')} avgL1={sc.get('avg_l1', float('nan')):.4f}{extra} "
              f"s={run.get('seconds') or 0:.1f} MB={run.get('peak_rss_mb')} "
              f"load={run.get('loadavg1_before_after')}{' (cached)' if run.get('cached') else ''}", flush=True)

    if "adult7" in tables_list:
        doc["scorer_check"] = run_helper("check-scorer", {})
        print(f"scorer check: {doc['scorer_check']}", flush=True)
    for name in tables_list:
        tables.get(name)
    save()

    # Phase 1: dprelease and the baselines on every table (cheap), seed by seed, so that a cut run still
    # covers every table; phase 2: MST; phase 3: AIM, eps = 1 (the headline) on every table first,
    # then 0.1, then 10.
    cheap = [s for s in systems if s not in PEERS]
    specs = [{"table": t, "system": s, "epsilon": e, "seed": seed}
             for seed in range(seeds) for t in tables_list if seed < table_seeds[t] for e in table_eps[t] for s in cheap
             if (t, s, e, seed) not in done]
    peer_specs = [(mst, t, e, seed) for mst in ("mst", "mst-matched") if mst in systems for seed in range(mst_seeds)
                  for t in tables_list if seed < table_seeds[t] for e in table_eps[t]]
    aim_eps = sorted(eps_list, key=lambda e: (e != 1.0, e))
    peer_specs += [(aim, t, e, seed) for aim in ("aim", "aim-matched") if aim in systems for seed in range(aim_seeds)
                   for e in aim_eps for t in tables_list if t in aim_tables and seed < table_seeds[t] and e in table_eps[t]]
    total = len(specs) + len(peer_specs)
    # --jobs N runs N children at once (each a fresh process, so its seconds and peak memory stay its own,
    # measured beside N - 1 others: the load average records it). The page keeps the runs in spec order
    # whichever child finishes first, and is rewritten after every run as before.
    done_runs: dict[int, dict] = {}
    runs_before = list(doc["runs"])
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        futures = {pool.submit(run_child, spec, args.run_timeout, one_thread=args.jobs > 1): i
                   for i, spec in enumerate(specs)}
        for finished, future in enumerate(concurrent.futures.as_completed(futures), 1):
            run = {**future.result(), **src_version}
            done_runs[futures[future]] = run
            doc["runs"] = runs_before + [done_runs[i] for i in sorted(done_runs)]
            log(run, finished, total)
            save()
    if peer_specs and versions is None:
        doc["notes"].append(f"peer venv {PEER_PY.parent.parent} not found: MST and AIM not run "
                            "(bash benchmarks/peers/setup_peers.sh)")
        peer_specs = []
    # Re-read the cache: a peer run started beside this one (another invocation) may have added entries while
    # phase 1 ran; entries are only ever added, and each is keyed by its table's fingerprint and settings.
    if cache_path.exists():
        cache = json.loads(cache_path.read_text())
    aim_timed_out: dict[tuple[str, str], float] = {}
    aim_seconds = 0.0
    for i, (peer, table, eps, seed) in enumerate(peer_specs, len(specs) + 1):
        fingerprint = tables.get(table)["fingerprint"]
        key = peer_key(table, fingerprint, eps, seed, peer, versions, peer_settings(peer, args, tables.get(table)["columns"]))
        spec = {"table": table, "system": peer, "epsilon": eps, "seed": seed}
        if key in cache["entries"] and not args.refresh_peers:
            run = {**cache["entries"][key], "cached": True}
        elif (peer, table) in aim_timed_out and eps > aim_timed_out[peer, table]:
            run = {**spec, "status": "skipped", "error": f"AIM timed out at eps = {aim_timed_out[peer, table]:g} on this "
                   f"table under {args.aim_time_limit:g} s; larger eps take longer"}
        elif peer_program(peer) == "aim" and args.aim_budget is not None and aim_seconds >= args.aim_budget:
            run = {**spec, "status": "not run", "error": f"the run's AIM time budget ({args.aim_budget:g} s) was spent"}
        elif args.cached_peers_only:
            run = {**spec, "status": "not run", "error": "not in the peer cache (--cached-peers-only)"}
        else:
            print(f"[{i}/{total}] {table} {peer} eps={eps:g} seed={seed} ...", flush=True)
            run = run_peer(peer, table, eps, seed, args, tables, tmp)
            if peer_program(peer) == "aim":
                aim_seconds += run.get("seconds_process_wall") or 0.0
            if run["status"] in ("ok", "timeout"):
                cache["entries"][key] = run
                # Merge with the file as it is now, so that two peer runs at once never drop each other's entries.
                on_disk = json.loads(cache_path.read_text()) if cache_path.exists() else {"entries": {}}
                cache["entries"] = {**on_disk["entries"], **cache["entries"]}
                tmp_cache = cache_path.with_suffix(f".json.{os.getpid()}.tmp")
                tmp_cache.write_text(json.dumps(cache, indent=1, default=str) + "\n")
                os.replace(tmp_cache, cache_path)
            run = {**run, "cached": False}
        if peer_program(peer) == "aim" and run.get("status") == "timeout":
            aim_timed_out[peer, table] = min(eps, aim_timed_out.get((peer, table), eps))
        doc["runs"].append(run)
        log(run, i, total)
        save()
    save()
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"wrote {json_path} and {md_path} in {(time.perf_counter() - start) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
