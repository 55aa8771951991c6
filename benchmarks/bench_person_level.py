#!/usr/bin/env python
"""What a guarantee per person costs, and how the bound k (rows a person keeps) trades bias for noise.

    .venv/bin/python benchmarks/bench_person_level.py [--seeds 3] [--out benchmarks/results/person_level]

Generated visit tables with known structure: persons with static attributes (age band, region, insurance) and a
number of visits drawn from a mixture (few, some, and heavy users with 20-200 visits, more often in the north and
privately insured), each visit with its own attributes (ward by age, urgency by ward, month); two shapes
(``SHAPES``: heavy users 2 % of the patients and a fifth of the visits, or 5 % and three fifths). 2,000 and 20,000
persons. Every run is ``synthesize_table`` with a declared schema, workload all 1-2way marginals of the five
released columns, MWEM at its default delta, eps 1 and 10:
  * ``per record``: add/remove one record, no privacy id (protects a visit, not a patient: the reference);
  * ``k = 1, 2, 4, 8, 16, 64``: ``privacy_id="patient", rows_per_person=k`` (protects a patient).
Measured: avg L1 over the workload's marginals between the synthetic rows and the *whole* table (what a user wants),
the share of rows the bound keeps, the avg L1 of the bounded table itself against the whole (the bound's bias,
no noise), and the like-for-like baseline's avg L1 (``dprelease evaluate``'s: for ``per record`` the independent
noisy 1-way marginals at eps under add/remove, for k the per-person one, each person's rows bounded to k and the 1-way marginals at
the release's noise); median and range over the seeds; seconds per run.

Outputs: OUT/person_level.json (every run, the machine, the commit) and OUT/person_level.md (tables).
"""

from __future__ import annotations

import argparse
import itertools
import json
import platform
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from dprelease.api import synthesize_table  # noqa: E402
from dprelease.data import Dataset  # noqa: E402
from dprelease.engines.persons import PersonRows  # noqa: E402
from dprelease.evaluate.baselines import INDEPENDENT, PER_PERSON, baseline_tables  # noqa: E402
from dprelease.privacy.contributions import bounded_rows  # noqa: E402
from dprelease.privacy.rng import SeededRandom  # noqa: E402
from dprelease.queries.workload import Workload  # noqa: E402
from dprelease.schema import Schema, encode  # noqa: E402
from dprelease.schema.parse import FactorColumn  # noqa: E402
from dprelease.schema.tables import person_index  # noqa: E402

SCHEMA = Schema.from_dict({
    "age": {"type": "categorical", "values": ["18-29", "30-44", "45-59", "60-74", "75+"]},
    "region": {"type": "categorical", "values": ["north", "south", "east", "west"]},
    "insurance": {"type": "categorical", "values": ["public", "private", "none"]},
    "ward": {"type": "categorical", "values": ["A", "B", "C", "D", "E", "F"]},
    "urgent": {"type": "boolean"},
    "month": {"type": "integer", "bounds": [1, 12]},
})
CONFIGS = ("per record", 1, 2, 4, 8, 16, 64)
PERSONS = (2_000, 20_000)
EPSILONS = (1.0, 10.0)


#: The mix of patients (few visits, some, heavy users) and the heavy users' extra visits' geometric p: "moderate", 2 %
#: heavy users with about 40 visits (a fifth of the visits); "heavy-tailed", 5 % with about 87 (three fifths).
SHAPES = {"moderate": ((0.75, 0.23, 0.02), 0.05), "heavy-tailed": ((0.70, 0.25, 0.05), 0.015)}


def visits(persons: int, seed: int, shape: str = "moderate") -> pd.DataFrame:
    """A visit table with the structure the module docstring describes."""
    g = np.random.default_rng(seed)
    mix, heavy_p = SHAPES[shape]
    group = g.choice(3, persons, p=list(mix))
    visits_each = np.where(group == 0, g.geometric(0.5, persons),
                           np.where(group == 1, g.geometric(0.15, persons), 20 + g.geometric(heavy_p, persons)))
    visits_each = np.minimum(visits_each, 200)
    heavy = group == 2
    age = g.choice(5, persons, p=[0.2, 0.25, 0.25, 0.2, 0.1])
    age = np.where(heavy, np.maximum(age, g.choice(5, persons, p=[0, 0, 0.2, 0.4, 0.4])), age)
    region = np.where(heavy & (g.random(persons) < 0.6), 0, g.choice(4, persons))
    insurance = np.where(heavy & (g.random(persons) < 0.5), 1, g.choice(3, persons, p=[0.7, 0.2, 0.1]))
    person = np.repeat(np.arange(persons), visits_each)
    n = len(person)
    ward = (age[person] + g.choice(3, n, p=[0.6, 0.3, 0.1])) % 6
    urgent = g.random(n) < np.array([0.1, 0.2, 0.5, 0.3, 0.15, 0.05])[ward]
    month = g.choice(12, n) + 1
    frame = pd.DataFrame({
        "patient": [f"P{i:06d}" for i in person],
        "age": np.array(SCHEMA.columns[0].values, dtype=object)[age[person]],
        "region": np.array(SCHEMA.columns[1].values, dtype=object)[region[person]],
        "insurance": np.array(SCHEMA.columns[2].values, dtype=object)[insurance[person]],
        "ward": np.array(SCHEMA.columns[3].values, dtype=object)[ward],
        "urgent": np.where(urgent, "yes", "no"),
        "month": month,
    })
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)  # visits in no particular order


def avg_l1(real: np.ndarray, synthetic: np.ndarray, workload: Workload) -> float:
    """Mean over the workload's marginals of the L1 distance between the two tables' normalized marginals."""
    sizes = workload.domain.sizes
    index = {a: i for i, a in enumerate(workload.domain.attributes)}
    errors = []
    for marginal in workload.marginals:
        columns = [index[a] for a in marginal]
        shape = [sizes[c] for c in columns]
        cells = np.prod(shape)

        def histogram(codes: np.ndarray) -> np.ndarray:
            flat = np.ravel_multi_index(tuple(codes[:, c] for c in columns), shape)
            return np.bincount(flat, minlength=cells) / len(codes)

        errors.append(float(np.abs(histogram(real) - histogram(synthetic)).sum()))
    return float(np.mean(errors))


def run(seeds: int) -> list[dict]:
    out = []
    workload = Workload.from_spec("1-2way", SCHEMA.domain)
    for shape, persons, epsilon in itertools.product(SHAPES, PERSONS, EPSILONS):
        for seed in range(seeds):
            frame = visits(persons, seed, shape)
            real = encode(frame, SCHEMA)
            per_person = frame.groupby("patient").size().to_numpy()
            persons_index = person_index(FactorColumn.from_values(frame["patient"].to_numpy(object)))
            real_rows = PersonRows(Dataset.from_records(real, SCHEMA.domain), persons_index, "patient")
            for config in CONFIGS:
                options = {} if config == "per record" else {"privacy_id": "patient", "rows_per_person": config}
                started = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    release = synthesize_table(frame, SCHEMA, workload, epsilon=epsilon, privacy_unit="add-remove",
                                               seed=1_000 + seed, **options)
                seconds = time.perf_counter() - started
                kept = 1.0 if config == "per record" else float(np.minimum(per_person, config).sum() / len(frame))
                bias = 0.0 if config == "per record" else avg_l1(real, real[bounded_rows(
                    persons_index, rows_per_person=config, rng=SeededRandom(seed))], workload)
                # the baseline evaluate prints beside this release (seeded, for comparison only)
                baselines = baseline_tables(
                    real_rows.table if config == "per record" else real_rows, epsilon=epsilon,
                    n_rows=len(release.rows), seed=seed, rows_per_person=None if config == "per record" else config,
                    add_remove=True)  # every run here is add/remove: its baselines too
                baseline = baselines.tables[INDEPENDENT if config == "per record" else PER_PERSON].records
                out.append({"shape": shape, "persons": persons, "rows": len(frame), "epsilon": epsilon, "seed": seed,
                            "config": str(config), "avg_l1": avg_l1(real, release.rows, workload),
                            "rows_kept": kept, "bounded_table_l1": bias,
                            "baseline_l1": avg_l1(real, baseline, workload),
                            "seconds": seconds,
                            "rows_per_person_quantiles": {q: float(np.quantile(per_person, q / 100))
                                                          for q in (50, 90, 99)}})
                print(f"{shape:>12} {persons:>6} persons eps {epsilon:>4} seed {seed} {str(config):>10}: "
                      f"avg L1 {out[-1]['avg_l1']:.4f}, kept {kept:.2f}, {seconds:.1f} s", flush=True)
    return out


def markdown(rows: list[dict], meta: dict) -> str:
    lines = ["# Person-level privacy: the cost of protecting a patient, and the bound k", "",
             f"Commit {meta['commit']}, {meta['machine']}, {meta['seeds']} seeds, {meta['seconds']:.0f} s in all. "
             "Generated visit tables (benchmarks/bench_person_level.py): MWEM, all 1-2way marginals of 6 columns, "
             "default delta (1e-9). avg L1 against the whole table (not the bounded one); median (min-max) over the "
             "seeds. `per record` protects one visit only, the rest one patient with at most k visits kept. baseline: what "
             "`dprelease evaluate` prints beside the release, median over the seeds (per record: independent noisy "
             "1-way marginals; k: the per-person one, each patient's visits bounded to k, then 1-way marginals at the "
             "release's noise).", ""]
    for shape, persons in itertools.product(SHAPES, PERSONS):
        sample = next(r for r in rows if r["persons"] == persons and r["shape"] == shape)
        q = sample["rows_per_person_quantiles"]
        lines += [f"## {shape}: {persons:,} patients, about {sample['rows']:,} visits (visits a patient: median "
                  f"{q[50]:.0f}, 90th percentile {q[90]:.0f}, 99th {q[99]:.0f})", "",
                  "| unit | rows kept | bounded table (no noise) | "
                  + " | ".join(f"avg L1, eps {e:g} | baseline, eps {e:g}" for e in EPSILONS)
                  + " | seconds |", "|---|---|---|" + "---|---|" * len(EPSILONS) + "---|"]
        for config in CONFIGS:
            cells = []
            for epsilon in EPSILONS:
                values = [r["avg_l1"] for r in rows if r["persons"] == persons and r["epsilon"] == epsilon
                          and r["config"] == str(config) and r["shape"] == shape]
                cells.append(f"{np.median(values):.4f} ({min(values):.4f}-{max(values):.4f})")
                base = [r["baseline_l1"] for r in rows if r["persons"] == persons and r["epsilon"] == epsilon
                        and r["config"] == str(config) and r["shape"] == shape]
                cells.append(f"{np.median(base):.4f}")
            chosen = [r for r in rows if r["persons"] == persons and r["config"] == str(config) and r["shape"] == shape]
            kept = np.median([r["rows_kept"] for r in chosen])
            seconds = np.median([r["seconds"] for r in chosen])
            name = "per record" if config == "per record" else f"k = {config}"
            bias = np.median([r["bounded_table_l1"] for r in chosen])
            lines.append(f"| {name} | {kept:.0%} | {bias:.4f} | " + " | ".join(cells) + f" | {seconds:.1f} |")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "person_level")
    args = parser.parse_args()
    started = time.perf_counter()
    rows = run(args.seeds)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    meta = {"commit": commit, "machine": f"{platform.processor() or platform.machine()}, {platform.python_version()}",
            "seeds": args.seeds, "seconds": time.perf_counter() - started}
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "person_level.json").write_text(json.dumps({"meta": meta, "runs": rows}, indent=1))
    (args.out / "person_level.md").write_text(markdown(rows, meta))
    print(markdown(rows, meta))


if __name__ == "__main__":
    main()
