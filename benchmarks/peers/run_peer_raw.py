#!/usr/bin/env python
"""Run smartnoise-synth's MST or AIM on a raw table (text, numbers, blanks) with its own transformers.

Run it with the peer venv's interpreter (see setup_peers.sh); bench_raw_adult.py does:

    benchmarks/.venv-peers/bin/python benchmarks/peers/run_peer_raw.py --data adult.data --spec spec.json \
        --synth mst --epsilon 1 --delta 1e-9 --seed 0 --out /tmp/mst.csv --json /tmp/mst.json --time-limit 1200

The spec (JSON, written by the benchmark from dprelease's public schema, so both systems get the same public
knowledge) lists the columns in order, each either

* ``{"name", "kind": "categorical", "values": [...], "nullable": bool}``: a smartnoise ``LabelTransformer``
  fitted on the public values (no data seen), with a NULL category when nullable; or
* ``{"name", "kind": "continuous", "lower", "upper", "bins", "nullable", "integer"}``: a smartnoise
  ``BinTransformer`` with declared bounds (equal-width bins; values outside are clamped), decoded to the bin's
  midpoint (rounded for integer columns), with a NULL output when nullable.

Declared bounds and categories mean ``preprocessor_eps = 0``: smartnoise spends nothing on preprocessing
(``needs_epsilon`` is checked false), and the result JSON says so. The table is read with pandas
(``na_values`` = the spec's NULL tokens); the synthetic rows are written as CSV with a header, NULL as the first
NULL token. Rows come from the fitted graphical model by i.i.d. sampling (``run_peer.py``'s ``sample``).

The fit runs in a child process in its own process group; past ``--time-limit`` the group is killed and the
JSON says ``status: "timeout"``. Exit code: 0 ok, 1 error, 2 timeout.
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

HERE = os.path.dirname(os.path.abspath(__file__))


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data", required=True, help="raw CSV (no header; columns in the spec's order)")
    p.add_argument("--skip-rows", type=int, default=0)
    p.add_argument("--spec", required=True, help="public column spec (JSON), see the module docstring")
    p.add_argument("--synth", required=True, choices=("mst", "aim"))
    p.add_argument("--epsilon", type=float, required=True)
    p.add_argument("--delta", type=float, default=1e-9)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--aim-max-model-size", type=float, default=80.0, help="AIM max_model_size in MB (default 80)")
    p.add_argument("--aim-rounds", type=int, default=None, help="AIM rounds (default: smartnoise's)")
    p.add_argument("--out", required=True)
    p.add_argument("--json", required=True)
    p.add_argument("--time-limit", type=float, default=None)
    p.add_argument("--_worker", default=None, help=argparse.SUPPRESS)
    return p.parse_args(argv)


def _transformer(spec):
    from snsynth.transform import BinTransformer, LabelTransformer, TableTransformer

    columns = []
    for c in spec["columns"]:
        if c["kind"] == "categorical":
            t = LabelTransformer(nullable=c["nullable"])
            t.fit(list(c["values"]))  # public values; the NULL category is added when nullable
        else:
            t = BinTransformer(lower=c["lower"], upper=c["upper"], bins=c["bins"], nullable=c["nullable"])
            t.fit([c["lower"], c["upper"]])  # public bounds only (lower = 0 would otherwise leave it unfitted)
        columns.append(t)
    table = TableTransformer(columns)
    assert table.fit_complete and not table.needs_epsilon
    return table


def worker(args, partial_path):
    res = {}

    def dump():
        with open(partial_path, "w") as f:
            json.dump(res, f)

    try:
        import random

        import numpy as np
        import pandas as pd

        sys.path.insert(0, HERE)
        from run_peer import _sample_aim, _sample_mst, _versions

        random.seed(args.seed)
        np.random.seed(args.seed)
        with open(args.spec) as f:
            spec = json.load(f)
        names = [c["name"] for c in spec["columns"]]
        df = pd.read_csv(args.data, header=None, names=names, skipinitialspace=True, skiprows=args.skip_rows,
                         na_values=spec["null_tokens"], keep_default_na=False)
        df = df.astype(object).where(df.notna(), None)
        transformer = _transformer(spec)
        res.update(versions=_versions(), n_real=int(len(df)), preprocessor_eps=0.0,
                   transformers=[f"{type(t).__name__}" for t in transformer.transformers])
        from snsynth.aim import AIMSynthesizer
        from snsynth.mst import MSTSynthesizer

        if args.synth == "mst":
            synth = MSTSynthesizer(epsilon=args.epsilon, delta=args.delta)
        else:
            synth = AIMSynthesizer(epsilon=args.epsilon, delta=args.delta, rounds=args.aim_rounds,
                                   max_model_size=args.aim_max_model_size)
            res.update(rounds=args.aim_rounds, max_model_size=args.aim_max_model_size)
        dump()
        t0 = time.perf_counter()
        synth.fit(df, transformer=transformer, preprocessor_eps=0.0)
        t1 = time.perf_counter()
        res["seconds_fit"] = t1 - t0
        dump()
        rows = (_sample_mst if args.synth == "mst" else _sample_aim)(synth, len(df), "sample")
        t2 = time.perf_counter()
        out = pd.DataFrame(rows, columns=names)
        token = spec["null_tokens"][0]
        for c in spec["columns"]:
            values = out[c["name"]]
            if c["kind"] == "continuous" and c["integer"]:
                values = values.map(lambda v: token if v is None or v != v else str(int(round(v))))
            else:
                values = values.map(lambda v: token if v is None or (isinstance(v, float) and v != v) else str(v))
            out[c["name"]] = values
        tmp = args.out + ".tmp"
        out.to_csv(tmp, index=False)
        os.replace(tmp, args.out)
        res.update(seconds_sample=t2 - t1, seconds_fit_sample=t2 - t0, n_rows=int(len(out)), status="ok", error=None)
    except BaseException as e:  # noqa: BLE001 - report everything to the parent
        traceback.print_exc()
        res.update(status="error", error=f"{type(e).__name__}: {e}")
    res["child_peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    dump()
    return 0 if res.get("status") == "ok" else 1


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    if args._worker:
        return worker(args, args._worker)
    for path in (args.out, args.json):
        if os.path.exists(path):
            os.remove(path)
    fd, partial = tempfile.mkstemp(prefix="run_peer_raw_", suffix=".json")
    os.close(fd)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, os.path.abspath(__file__), *argv, "--_worker", partial],
                            start_new_session=True)
    status, error = None, None
    try:
        proc.wait(timeout=args.time_limit)
    except subprocess.TimeoutExpired:
        status, error = "timeout", f"killed after the time limit of {args.time_limit:g} s"
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
        error = child.get("error") or (None if status == "ok" else f"worker exited with code {proc.returncode}")
    if status != "ok" and os.path.exists(args.out):
        os.remove(args.out)
    result = {"system": f"smartnoise-{args.synth}", "epsilon": args.epsilon, "delta": args.delta, "seed": args.seed,
              "seconds_fit_sample": child.get("seconds_fit_sample") if status == "ok" else wall,
              "seconds_fit": child.get("seconds_fit"), "seconds_sample": child.get("seconds_sample"),
              "seconds_wall_process": wall,
              "peak_rss_mb": round(max(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0,
                                       child.get("child_peak_rss_mb", 0.0)), 1),
              "status": status, "error": error, "time_limit": args.time_limit}
    for k in ("n_real", "n_rows", "preprocessor_eps", "transformers", "rounds", "max_model_size", "versions"):
        if k in child:
            result[k] = child[k]
    with open(args.json, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    print(json.dumps({k: result[k] for k in ("system", "status", "seconds_fit_sample", "peak_rss_mb", "error")}))
    return {"ok": 0, "timeout": 2}.get(status, 1)


if __name__ == "__main__":
    sys.exit(main())
