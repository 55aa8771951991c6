#!/usr/bin/env python
"""What a column between two dates (or two integers) buys (``"between"``, ``schema/between.py``): the same tables released with the two
dates declared in order alone, and with the time between them as a column too.

    .venv/bin/python benchmarks/bench_between.py [--seeds 3] [--out benchmarks/results/between]

Six generated tables with known structure, none tuned on: hospital admissions (8,000 rows; date-times by month,
stays of 0-20 days that depend on the ward), the same with five more columns (sex, insurer, readmission and cost
that follow the stay, a diagnosis by ward), service calls (20,000 rows; date-times by month, hours open log-normal
by category over 2 hours to 10 days, 8 % still open with a blank close), loans (5,000 rows; dates by month, repaid
15-100 days after issue by term), and staff between two integer columns (6,000 rows; years hired and left by 5
years, 30 % still employed, 0-30 years employed by department), blank for those still employed or, in
`staff-to-date`, counted to 2024 (``"until"``). Each at eps 0.3, 1 and 3, MWEM's default (delta 1e-9), 1-3-way marginals.

Measured on each synthetic table (NOT PRIVATE: it reads the real table, as ``dprelease evaluate``):
- avg L1 on the workload of the schema *with* the column (the time between computed from each table's dates, so
  both variants are read alike), and on the workload of the schema without it (the table's own columns: what the
  column's budget share costs them);
- the KS distance of the time between (real against synthetic, in the column's unit) and its median's error;
- seconds for synth.

Outputs: OUT/between.json (every run, the machine, the commit) and OUT/between.md (medians over the seeds).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import ks_2samp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from dprelease.api import synthesize_table  # noqa: E402
from dprelease.evaluate import compare  # noqa: E402
from dprelease.evaluate.baselines import INDEPENDENT  # noqa: E402
from dprelease.privacy.rng import SeededRandom  # noqa: E402
from dprelease.schema import Schema, decode  # noqa: E402

FORMAT = "dprelease-schema/1"
YEAR_TIMES = ["2024-01-01T00:00:00", "2024-12-31T23:59:59"]
EPSILONS = (0.3, 1.0, 3.0)


def admissions(rng: np.random.Generator):
    n = 8_000
    ward = rng.choice(["medical", "surgical", "maternity"], n, p=[0.5, 0.3, 0.2])
    mean_days = np.select([ward == "medical", ward == "surgical"], [4.0, 6.0], 1.5)
    stay = np.minimum(rng.gamma(2.0, mean_days / 2.0), 20) * 86_400
    admitted = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 340 * 86_400, n), unit="s")
    frame = pd.DataFrame({"ward": ward, "age": rng.integers(18, 95, n), "admitted": admitted,
                          "discharged": admitted + pd.to_timedelta(stay.round(), unit="s")})
    columns = {"ward": {"type": "categorical", "values": ["medical", "surgical", "maternity"]},
               "age": {"type": "integer", "bounds": [18, 94], "width": 10},
               "admitted": {"type": "datetime", "bounds": YEAR_TIMES, "unit": "month"},
               "discharged": {"type": "datetime", "bounds": YEAR_TIMES, "unit": "month", "clip": True}}
    gap = {"type": "integer", "between": ["admitted", "discharged"], "unit": "day", "bounds": [0, 30], "clip": True}
    return frame, columns, "admitted", "discharged", "stay_days", gap


def admissions_wide(rng: np.random.Generator):
    """The admissions with five more columns (sex, insurer, readmitted, a cost that grows with the stay, a
    diagnosis group by ward): 9 own columns, whose joint table no plan measures whole."""
    frame, columns, first, second, name, gap = admissions(rng)
    n = len(frame)
    days = (frame["discharged"] - frame["admitted"]).dt.total_seconds().to_numpy() / 86_400
    frame["sex"] = rng.choice(["F", "M"], n)
    frame["insurer"] = rng.choice(["public", "private", "none"], n, p=[0.6, 0.3, 0.1])
    frame["readmitted"] = rng.random(n) < np.where(days > 7, 0.25, 0.08)
    frame["cost"] = np.round(800 * (1 + days) * rng.lognormal(0, 0.3, n), 2)
    frame["diagnosis"] = np.where(frame["ward"] == "maternity", "birth",
                                  rng.choice(["cardiac", "respiratory", "injury", "other"], n))
    columns = {**columns, "sex": {"type": "categorical", "values": ["F", "M"]},
               "insurer": {"type": "categorical", "values": ["public", "private", "none"]},
               "readmitted": {"type": "boolean"},
               "cost": {"type": "numeric", "bounds": [0, 60000], "edges": [0, 1000, 2000, 4000, 8000, 16000, 60000],
                        "clip": True},
               "diagnosis": {"type": "categorical", "values": ["birth", "cardiac", "respiratory", "injury", "other"]}}
    return frame, columns, first, second, name, gap


def calls(rng: np.random.Generator):
    n = 20_000
    category = rng.choice(8, n, p=np.array([8, 6, 5, 4, 3, 2, 1, 1]) / 30)
    median_hours = np.exp(np.linspace(np.log(2), np.log(240), 8))[category]
    hours = np.exp(np.log(median_hours) + rng.normal(0, 1.0, n))
    created = pd.Timestamp("2024-01-01") + pd.to_timedelta(rng.integers(0, 330 * 86_400, n), unit="s")
    closed = (created + pd.to_timedelta((hours * 3600).round(), unit="s")).to_series(index=range(n))
    closed[rng.random(n) < 0.08] = pd.NaT
    frame = pd.DataFrame({"category": np.array(list("ABCDEFGH"))[category], "created": created, "closed": closed,
                          "ward": rng.integers(1, 51, n)})
    columns = {"category": {"type": "categorical", "values": list("ABCDEFGH")},
               "created": {"type": "datetime", "bounds": YEAR_TIMES, "unit": "month"},
               "closed": {"type": "datetime", "bounds": YEAR_TIMES, "unit": "month", "clip": True, "null": True},
               "ward": {"type": "integer", "bounds": [1, 50], "width": 5}}
    gap = {"type": "integer", "between": ["created", "closed"], "unit": "hour",
           "edges": [0, 1, 2, 4, 8, 12, 24, 48, 96, 168, 336, 720], "clip": True, "null": True}
    return frame, columns, "created", "closed", "hours_open", gap


def loans(rng: np.random.Generator):
    n = 5_000
    term = rng.choice([30, 60, 90], n, p=[0.5, 0.3, 0.2])
    days = np.clip(term + rng.normal(0, 6, n).round() - rng.integers(0, 15, n), 15, 100).astype(int)
    issued = np.datetime64("2024-01-01") + rng.integers(0, 250, n)
    frame = pd.DataFrame({"term": term, "amount": rng.choice([500, 1000, 2000, 5000], n), "issued": issued,
                          "repaid": issued + days})
    columns = {"term": {"type": "categorical", "values": [30, 60, 90]},
               "amount": {"type": "categorical", "values": [500, 1000, 2000, 5000]},
               "issued": {"type": "date", "bounds": ["2024-01-01", "2024-12-31"], "unit": "month"},
               "repaid": {"type": "date", "bounds": ["2024-01-01", "2024-12-31"], "unit": "month", "clip": True}}
    gap = {"type": "integer", "between": ["issued", "repaid"], "bounds": [0, 119], "width": 7, "clip": True}
    return frame, columns, "issued", "repaid", "days_to_repay", gap


def staff(rng: np.random.Generator):
    """Two integer columns: the year hired and the year left (by 5 years; 30 % still employed, blank), the years
    between them (exponential by department, means 2-8 years), and the department."""
    n = 6_000
    department = rng.choice(["sales", "support", "engineering", "finance"], n, p=[0.35, 0.3, 0.2, 0.15])
    mean_years = np.select([department == "sales", department == "support", department == "engineering"],
                           [2.0, 3.0, 6.0], 8.0)
    years = np.minimum(np.floor(rng.exponential(mean_years)), 30).astype(int)
    hired = rng.integers(1985, 2025 - years)
    left = pd.array(hired + years, dtype="Int64")
    left[rng.random(n) < 0.3] = pd.NA
    frame = pd.DataFrame({"department": department, "hired": hired, "left": left})
    columns = {"department": {"type": "categorical", "values": ["sales", "support", "engineering", "finance"]},
               "hired": {"type": "integer", "bounds": [1985, 2024], "width": 5},
               "left": {"type": "integer", "bounds": [1985, 2024], "width": 5, "null": True}}
    gap = {"type": "integer", "between": ["hired", "left"], "edges": [0, 1, 2, 3, 4, 6, 8, 12, 20, 40], "clip": True,
           "null": True}
    return frame, columns, "hired", "left", "years_employed", gap


def staff_to_date(rng: np.random.Generator):
    """The staff with the years employed counted to 2024 for those still employed (a blank year left):
    ``"until": 2024``."""
    frame, columns, first, second, name, gap = staff(rng)
    return frame, columns, first, second, name, {**{k: v for k, v in gap.items() if k != "null"}, "until": 2024}


TABLES = {"admissions": admissions, "admissions-wide": admissions_wide, "calls": calls, "loans": loans,
          "staff": staff, "staff-to-date": staff_to_date}


def gaps(frame: pd.DataFrame, first: str, second: str, per: int, until: int | None = None) -> np.ndarray:
    if pd.api.types.is_numeric_dtype(frame[first]):  # integers: their difference (to ``until`` where second is blank)
        ends = frame[second].astype("Float64")
        if until is not None:
            ends = ends.fillna(until)
        both = (frame[first].notna() & ends.notna()).to_numpy()
        return (ends.to_numpy(dtype=np.float64, na_value=np.nan) - frame[first].to_numpy(dtype=np.float64))[both]
    a = pd.to_datetime(frame[first]).to_numpy().astype("datetime64[s]").astype(np.int64)
    b = pd.to_datetime(frame[second])
    seconds = b.to_numpy().astype("datetime64[s]").astype(np.int64) - a
    return np.floor(seconds[b.notna().to_numpy()] / per)


def run(seeds: int, tables: list[str], epsilons: list[float]) -> list[dict]:
    out = []
    for t, (table, make) in enumerate(TABLES.items()):
        if table not in tables:
            continue
        frame, columns, first, second, name, gap = make(np.random.default_rng(1_000 + t))
        ordered = {"format": FORMAT, "columns": columns, "ordered": [[first, second]]}
        with_gap = {"format": FORMAT, "columns": {**columns, name: gap}, "ordered": [[first, second]]}
        per = 86_400 if gap.get("unit", "day") == "day" else {"hour": 3600}[gap["unit"]]
        real_gaps = gaps(frame, first, second, per, gap.get("until"))
        for epsilon in epsilons:
            for seed in range(seeds):
                for variant, schema in (("ordered", ordered), ("between", with_gap)):
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        start = time.perf_counter()
                        release = synthesize_table(frame, schema, "1-3way", epsilon=epsilon, seed=seed)
                        seconds = time.perf_counter() - start
                        rows = decode(release.rows, Schema.from_dict(schema), rng=SeededRandom(seed)).to_dataframe()
                        on_gap = compare(frame, rows, schema=with_gap, workload="1-3way", seed=seed)
                        on_own = compare(frame, rows, schema=ordered, workload="1-3way", seed=seed)
                    synthetic_gaps = gaps(rows, first, second, per, gap.get("until"))
                    out.append({"table": table, "epsilon": epsilon, "seed": seed, "variant": variant,
                                "avg_l1_with_column": round(on_gap.avg_l1, 4),
                                "avg_l1_own_columns": round(on_own.avg_l1, 4),
                                "independent_with_column": round(on_gap.baselines[INDEPENDENT], 4),
                                "independent_own_columns": round(on_own.baselines[INDEPENDENT], 4),
                                "ks_between": round(float(ks_2samp(real_gaps, synthetic_gaps).statistic), 4),
                                "median_between": float(np.median(synthetic_gaps)),
                                "real_median_between": float(np.median(real_gaps)),
                                "seconds": round(seconds, 2)})
                    print(out[-1], flush=True)
    return out


def markdown(rows: list[dict], seeds: int, commit: str) -> str:
    lines = [f"# A column between two dates ({seeds} seeds a cell; commit {commit})", "",
             "Each table released with its two dates declared in order (*ordered*), and with the time between them",
             "as a column too (*between*); MWEM's default, 1-3-way marginals. Medians over the seeds. avg L1 *with",
             "column*: on the workload of the schema with the column, the time between computed from each table's",
             "dates; *own columns*: on the workload without it. KS: the time between, real against synthetic. Made by",
             "`benchmarks/bench_between.py` (NOT PRIVATE figures: they read the real tables).", "",
             "| table | eps | variant | avg L1 with column | avg L1 own columns | KS of the time between | median (real) "
             "| seconds |", "|---|---:|---|---:|---:|---:|---:|---:|"]
    keys = sorted({(r["table"], r["epsilon"], r["variant"]) for r in rows},
                  key=lambda k: (list(TABLES).index(k[0]), k[1], k[2] != "ordered"))
    for table, epsilon, variant in keys:
        cell = [r for r in rows if (r["table"], r["epsilon"], r["variant"]) == (table, epsilon, variant)]

        def med(key: str) -> float:
            return float(np.median([r[key] for r in cell]))

        lines.append(f"| {table} | {epsilon:g} | {variant} | {med('avg_l1_with_column'):.3f} | "
                     f"{med('avg_l1_own_columns'):.3f} | {med('ks_between'):.3f} | {med('median_between'):g} "
                     f"({cell[0]['real_median_between']:g}) | {med('seconds'):.1f} |")
    base = {}
    for r in rows:
        base.setdefault((r["table"], r["epsilon"]), (r["independent_with_column"], r["independent_own_columns"]))
    lines += ["", "Independent 1-way baseline (seed 0's draw): " + "; ".join(
        f"{t} eps {e:g} {w:.3f} / {o:.3f}" for (t, e), (w, o) in base.items())]
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--tables", default=",".join(TABLES))
    parser.add_argument("--eps", default=",".join(f"{e:g}" for e in EPSILONS))
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "between")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    rows = run(args.seeds, args.tables.split(","), [float(e) for e in args.eps.split(",")])
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "between.json").write_text(json.dumps(
        {"commit": commit, "machine": platform.platform(), "seeds": args.seeds, "runs": rows}, indent=1) + "\n")
    (args.out / "between.md").write_text(markdown(rows, args.seeds, commit))
    print((args.out / "between.md").read_text())


if __name__ == "__main__":
    main()
