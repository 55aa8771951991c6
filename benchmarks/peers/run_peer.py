#!/usr/bin/env python
"""Run one smartnoise-synth peer (MWEM, MST or AIM) on an integer-coded table.

Run it with the peer venv's interpreter (see setup_peers.sh):

    benchmarks/.venv-peers/bin/python benchmarks/peers/run_peer.py \
        --data adult.csv --domain adult-domain.json \
        --columns workclass,education-num,marital-status,relationship,race,sex,income>50K \
        --synth mst --epsilon 1 --seed 0 --out /tmp/mst.csv --json /tmp/mst.json

The public domain ({column: size}, values 0..size-1) is handed to smartnoise
as a TableTransformer of LabelTransformers already fitted on range(size), so
the synthesizer spends no budget on preprocessing and knows every category,
including ones absent from the data.

The fit runs in a child process (its own process group); the parent enforces
--time-limit by killing that group, and always writes the result JSON with
status "ok", "timeout" or "error".  Exit code: 0 ok, 1 error, 2 timeout.

Timing: seconds_fit_sample is the wall time of fit + sample inside the child
(data loading and imports excluded).  peak_rss_mb is the child's peak RSS
(imports of jax/opendp/pandas included).

Sampling: for MST and AIM, --sampling sample (default) draws rows i.i.d.
from the fitted graphical model (mbi's synthetic_data(method="sample"));
--sampling round uses smartnoise's as-installed behaviour (mbi's default
randomized rounding).  MWEM has a single mode: i.i.d. draws from its
synthetic histogram (its own sample()).

Randomness: --seed seeds numpy and random (query selection, sampling), but
smartnoise draws its Laplace/Gaussian noise from OpenDP's CSPRNG, which cannot
be seeded, so runs with the same seed still differ.
"""

import argparse
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import traceback

SYSTEMS = ("mwem", "mst", "aim")
MWEM_DEFAULT_ITERATIONS = 10


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="integer-coded CSV")
    p.add_argument("--domain", required=True, help="domain JSON {column: size}")
    p.add_argument("--columns", default=None,
                   help="comma-separated columns to use (default: all in the domain)")
    p.add_argument("--synth", required=True, choices=SYSTEMS)
    p.add_argument("--epsilon", type=float, required=True)
    p.add_argument("--delta", type=float, default=1e-9,
                   help="delta for MST/AIM (ignored by MWEM, which is pure eps-DP)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--iterations", type=int, default=None,
                   help=f"MWEM iterations (default {MWEM_DEFAULT_ITERATIONS}); "
                        "AIM rounds (default: smartnoise's 16 * #columns); ignored by MST")
    p.add_argument("--aim-max-model-size", type=float, default=80.0,
                   help="AIM max_model_size in MB (smartnoise default 80)")
    p.add_argument("--sampling", choices=("sample", "round"), default="sample",
                   help="MST/AIM row generation from the fitted model (default sample)")
    p.add_argument("--rows", type=int, default=None,
                   help="number of synthetic rows (default: number of real rows)")
    p.add_argument("--out", required=True, help="synthetic CSV to write")
    p.add_argument("--json", required=True, help="result JSON to write")
    p.add_argument("--time-limit", type=float, default=None,
                   help="seconds; past it the run is killed and status is 'timeout'")
    p.add_argument("--_worker", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


# --------------------------------------------------------------------------
# child: load, fit, sample, write CSV
# --------------------------------------------------------------------------

def _versions():
    from importlib.metadata import version, PackageNotFoundError
    out = {}
    for pkg in ("smartnoise-synth", "mbi", "jax", "opendp", "numpy", "pandas"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    return out


def _public_transformer(columns, domain):
    """TableTransformer whose columns are pre-fitted on the public domain."""
    from snsynth.transform import LabelTransformer, TableTransformer
    cols = []
    for c in columns:
        t = LabelTransformer(nullable=False)
        t.fit(list(range(domain[c])))  # public values 0..size-1, no data seen
        cols.append(t)
    tt = TableTransformer(cols)
    assert tt.fit_complete and not tt.needs_epsilon
    assert tt.cardinality == [domain[c] for c in columns]
    return tt


def _sample_mst(synth, n, method):
    # snsynth.mst.MSTSynthesizer.sample, with the mbi sampling method exposed
    data = synth.synthesizer.synthetic_data(rows=n, method=method)
    decompressed = synth.undo_compress_fn(data)
    rows = [tuple(t[1:]) for t in decompressed.df.itertuples()]
    return synth._transformer.inverse_transform(rows)


def _sample_aim(synth, n, method):
    # snsynth.aim.AIMSynthesizer.sample, with the mbi sampling method exposed
    data = synth.synthesizer.synthetic_data(rows=n, method=method)
    colnames = ["col" + str(i) for i in range(synth._transformer.output_width)]
    rows = [tuple(t[1:]) for t in data.df[colnames].itertuples()]
    return synth._transformer.inverse_transform(rows)


def worker(args, partial_path):
    res = {}

    def dump():
        with open(partial_path, "w") as f:
            json.dump(res, f)

    try:
        import random
        import numpy as np
        import pandas as pd

        random.seed(args.seed)
        np.random.seed(args.seed)

        with open(args.domain) as f:
            domain = {k: int(v) for k, v in json.load(f).items()}
        columns = args.columns.split(",") if args.columns else list(domain)
        missing = [c for c in columns if c not in domain]
        if missing:
            raise ValueError(f"columns not in the domain: {missing}")
        df = pd.read_csv(args.data, usecols=columns)[columns]
        for c in columns:
            x = df[c].to_numpy()
            if not np.issubdtype(x.dtype, np.integer):
                raise ValueError(f"column {c!r} is not integer-coded ({x.dtype})")
            if x.min() < 0 or x.max() >= domain[c]:
                raise ValueError(f"column {c!r} has values outside 0..{domain[c] - 1}")
        n = args.rows if args.rows is not None else len(df)

        from snsynth.mwem import MWEMSynthesizer
        from snsynth.mst import MSTSynthesizer
        from snsynth.aim import AIMSynthesizer

        res.update(versions=_versions(), columns=columns, n_real=int(len(df)))
        if args.synth == "mwem":
            iters = args.iterations or MWEM_DEFAULT_ITERATIONS
            synth = MWEMSynthesizer(epsilon=args.epsilon, iterations=iters)
            res.update(iterations=iters, sampling="sample (MWEM's own i.i.d. sampling)")
        elif args.synth == "mst":
            synth = MSTSynthesizer(epsilon=args.epsilon, delta=args.delta)
            res.update(sampling=args.sampling)
        else:
            synth = AIMSynthesizer(epsilon=args.epsilon, delta=args.delta,
                                   rounds=args.iterations,
                                   max_model_size=args.aim_max_model_size)
            res.update(rounds=args.iterations, max_model_size=args.aim_max_model_size,
                       sampling=args.sampling)
        transformer = _public_transformer(columns, domain)
        dump()

        t0 = time.perf_counter()
        synth.fit(df, transformer=transformer, preprocessor_eps=0.0)
        t1 = time.perf_counter()
        res["seconds_fit"] = t1 - t0
        dump()
        if args.synth == "mst":
            out = _sample_mst(synth, n, args.sampling)
        elif args.synth == "aim":
            out = _sample_aim(synth, n, args.sampling)
        else:
            out = synth.sample(n)
        t2 = time.perf_counter()

        out = pd.DataFrame(out)
        out.columns = columns
        out = out.astype(np.int64)
        tmp = args.out + ".tmp"
        out.to_csv(tmp, index=False)
        os.replace(tmp, args.out)
        res.update(seconds_sample=t2 - t1, seconds_fit_sample=t2 - t0,
                   n_rows=int(len(out)), status="ok", error=None)
    except BaseException as e:  # noqa: BLE001 - report everything to the parent
        traceback.print_exc()
        res.update(status="error", error=f"{type(e).__name__}: {e}")
    res["child_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    dump()
    return 0 if res.get("status") == "ok" else 1


# --------------------------------------------------------------------------
# parent: run the child under the time limit, write the result JSON
# --------------------------------------------------------------------------

def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args._worker:
        return worker(args, args._worker)

    for path in (args.out, args.json):  # never leave a stale result behind
        if os.path.exists(path):
            os.remove(path)

    fd, partial = tempfile.mkstemp(prefix="run_peer_", suffix=".json")
    os.close(fd)
    cmd = [sys.executable, os.path.abspath(__file__), *argv, "--_worker", partial]
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, start_new_session=True)
    status, error = None, None
    try:
        proc.wait(timeout=args.time_limit)
    except subprocess.TimeoutExpired:
        status = "timeout"
        error = f"killed after the time limit of {args.time_limit:g} s"
    except KeyboardInterrupt:
        status, error = "error", "interrupted"
    finally:
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            proc.wait()
    wall = time.perf_counter() - start

    try:
        with open(partial) as f:
            child = json.load(f)
    except (OSError, ValueError):
        child = {}
    finally:
        os.remove(partial)

    if status is None:
        status = child.get("status") or "error"
        error = child.get("error")
        if status != "ok" and error is None:
            error = f"worker exited with code {proc.returncode}"
    if status != "ok" and os.path.exists(args.out):
        os.remove(args.out)

    peak_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    result = {
        "system": f"smartnoise-{args.synth}",
        "epsilon": args.epsilon,
        "delta": None if args.synth == "mwem" else args.delta,
        "seed": args.seed,
        # ok: fit + sample inside the child; timeout: wall time until the kill
        "seconds_fit_sample": {"ok": child.get("seconds_fit_sample"),
                               "timeout": wall}.get(status),
        "seconds_fit": child.get("seconds_fit"),
        "seconds_sample": child.get("seconds_sample"),
        "seconds_wall_process": wall,
        "peak_rss_mb": round(max(peak_children, child.get("child_peak_rss_mb", 0.0)), 1),
        "n_rows": child.get("n_rows") if status == "ok" else None,
        "status": status,
        "error": error,
        "time_limit": args.time_limit,
    }
    for k in ("iterations", "rounds", "max_model_size", "sampling", "columns",
              "n_real", "versions"):
        if k in child:
            result[k] = child[k]
    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(json.dumps({k: result[k] for k in ("system", "status", "seconds_fit_sample",
                                              "peak_rss_mb", "n_rows", "error")}))
    return {"ok": 0, "timeout": 2}.get(status, 1)


if __name__ == "__main__":
    sys.exit(main())
