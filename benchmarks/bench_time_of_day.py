#!/usr/bin/env python
"""How faithfully a privately drafted date-time column keeps its times of day (``draft._times_of_day``).

    .venv/bin/python benchmarks/bench_time_of_day.py [--reps 200] [--out benchmarks/results/time_of_day]

Seven clocks (uniform over the day; lab draws 07-11; commute peaks at 08 and 17 over a uniform floor; office hours
08-18; office hours closed 12-13; a night shift 22-06; a diurnal sine), 1,000 / 3,000 / 12,000 / 50,000 rows, and
the hours' epsilon 1/128 (a draft at eps 0.5 over 12 columns), 1/32 and 0.1. Each repetition draws the rows'
hours, the column's noisy row count as the profile would (five classes' discrete Laplace at 4/3 of the hours'
epsilon: the profile's quarter against the clock's quarter of three quarters), and runs the real function through
a seeded ``PrivateColumnReader``. Measured: the total variation distance between the drafted weights (None: even)
and the rows' real hours, and the hours with no rows that get weight, means over the repetitions, for each rule:

- off: the hours that pass keep their noisy counts, the others get 0 (before session 65);
- even: as off, and the rows the kept hours miss are spread evenly over the others where that estimate passes 1
  deviation of its noise (session 65; both are recomputed here from the same noisy counts);
- posterior: the function as it is (session 80: posterior means, ``_hours_posterior``), at
  ``MISSED_HOURS_DEVIATIONS`` 0, 1 and 2 and ``EMPTY_HOUR_POSTERIOR`` 0.3, 0.5 and 0.7.

Outputs: OUT/time_of_day.json (every mean, the machine, the commit) and OUT/time_of_day.md (tables).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from dprelease.privacy.accountant import PrivacyAccountant  # noqa: E402
from dprelease.privacy.column_reader import PrivateColumnReader  # noqa: E402
from dprelease.privacy.key_selection import noisy_counts  # noqa: E402
from dprelease.privacy.rng import SeededRandom  # noqa: E402
from dprelease.schema import draft  # noqa: E402

HOURS = np.arange(24)
CLOCKS = {
    "uniform": np.ones(24),
    "lab 07-11": np.array([0] * 7 + [1, 3, 3, 2, 1] + [0] * 12, float),
    "commute": 0.3 * np.exp(-(HOURS - 8) ** 2 / 4.5) + 0.3 * np.exp(-(HOURS - 17) ** 2 / 4.5) + 0.4 * 3.76 / 24,
    "office 08-18": np.array([0] * 8 + [1] * 10 + [0] * 6, float),
    "lunch closed": np.array([0] * 8 + [1] * 4 + [0] + [1] * 5 + [0] * 6, float),
    "night 22-06": np.array([1] * 6 + [0] * 16 + [1] * 2, float),
    "diurnal": 1 + 0.8 * np.sin((HOURS - 9) / 24 * 2 * np.pi),
}
SIZES = (1_000, 3_000, 12_000, 50_000)
EPSILONS = (Fraction(1, 128), Fraction(1, 32), Fraction(1, 10))
#: A rule: (MISSED_HOURS_DEVIATIONS, EMPTY_HOUR_POSTERIOR); "off" and "even" are recomputed from the counts.
RULES = {"off": None, "even": None, "post d1": (1.0, 0.5), "post d0": (0.0, 0.5), "post d2": (2.0, 0.5),
         "post c0.3": (1.0, 0.3), "post c0.7": (1.0, 0.7)}
DEFAULT_RULE = "post d1"
PROFILE_CLASSES = 5  # an ISO date-time column's conforming classes: a date and the four date-time spellings


class RecordingReader(PrivateColumnReader):
    """The real reader, keeping its last noisy histogram for the earlier rules."""

    def histogram(self, *args, **kwargs):
        self.counts = np.asarray(super().histogram(*args, **kwargs), dtype=np.float64)
        return self.counts


def earlier_rule(noisy: np.ndarray, epsilon: Fraction, row_count: float, row_variance: float, spread: bool):
    """The weights before session 80 from the same noisy counts: the hours that pass keep their counts; with
    ``spread`` (session 65) the others share evenly the rows those miss, where that estimate passes 1 deviation (the
    caller sets ``MISSED_HOURS_DEVIATIONS`` to 1 for these rules)."""
    scale = draft._scale(epsilon)
    passed = noisy > scale * np.log(1 / draft.TIME_OF_DAY_FALSE)
    kept = np.where(passed, noisy, 0.0)
    if kept.sum() <= 0:
        return None
    if spread and not passed.all():
        missed = draft._missed_rows(noisy, passed, scale, (row_count, row_variance))
        if missed > 0:
            kept = np.where(passed, kept, missed / np.count_nonzero(~passed))
    return kept / kept.sum()


def distance(weights, real: np.ndarray) -> float:
    drafted = np.full(24, 1 / 24) if weights is None else np.asarray(weights, dtype=np.float64)
    return 0.5 * float(np.abs(drafted / drafted.sum() - real).sum())


def run(reps: int) -> list[dict]:
    rows = []
    defaults = (draft.MISSED_HOURS_DEVIATIONS, draft.EMPTY_HOUR_POSTERIOR)
    for c, (clock, shape) in enumerate(CLOCKS.items()):
        shares = shape / shape.sum()
        for n in SIZES:
            for e, epsilon in enumerate(EPSILONS):
                totals = dict.fromkeys(RULES, 0.0)
                strays = dict.fromkeys(RULES, 0.0)
                for rep in range(reps):
                    seed = ((c * 10 + SIZES.index(n)) * 10 + e) * 100_000 + rep
                    data_rng = np.random.Generator(np.random.PCG64(seed))
                    counts = data_rng.multinomial(n, shares)
                    seconds = np.repeat(HOURS * 3600, counts)
                    profile = epsilon * Fraction(4, 3)
                    noise = draft._scale(profile)
                    row_count = float(noisy_counts(np.array([n] + [0] * (PROFILE_CLASSES - 1)), epsilon=profile,
                                                   rng=SeededRandom(seed)).sum())
                    for rule, setting in RULES.items():
                        draft.MISSED_HOURS_DEVIATIONS, draft.EMPTY_HOUR_POSTERIOR = setting or (1.0, defaults[1])
                        reader = RecordingReader(accountant=PrivacyAccountant(epsilon=1.0, delta=0.0),
                                                 rng=SeededRandom(seed + 1))  # the same noise under every rule
                        weights = draft._times_of_day("t", seconds, reader, epsilon,
                                                      (row_count, 2 * noise ** 2 * PROFILE_CLASSES))
                        if setting is None:
                            weights = earlier_rule(reader.counts, epsilon, row_count,
                                                   2 * noise ** 2 * PROFILE_CLASSES, spread=rule == "even")
                        totals[rule] += distance(weights, counts / n)
                        strays[rule] += 0 if weights is None else int(np.count_nonzero(
                            (np.asarray(weights) > 0) & (counts == 0)))
                    draft.MISSED_HOURS_DEVIATIONS, draft.EMPTY_HOUR_POSTERIOR = defaults
                rows.append({"clock": clock, "rows": n, "epsilon": str(epsilon),
                             **{f"tv_{rule}": round(total / reps, 4) for rule, total in totals.items()},
                             **{f"empty_{rule}": round(total / reps, 2) for rule, total in strays.items()}})
    return rows


def markdown(rows: list[dict], reps: int, commit: str) -> str:
    names = list(RULES)
    lines = [f"# Times of day in a drafted date-time column ({reps} repetitions a cell; commit {commit})", "",
             "Mean total variation distance of the drafted `time_of_day` weights from the rows' real hours, and in",
             "brackets the mean number of hours with no rows that get weight, by rule (the module docstring names",
             f"them; `{DEFAULT_RULE}` is the default). Made by `benchmarks/bench_time_of_day.py`.", "",
             "| clock | rows | hours' eps | " + " | ".join(names) + " |",
             "|---|---:|---:|" + "---:|" * len(names)]
    for row in rows:
        lines.append(f"| {row['clock']} | {row['rows']:,} | {row['epsilon']} | "
                     + " | ".join(f"{row[f'tv_{k}']:.3f} ({row[f'empty_{k}']:.1f})" for k in names) + " |")
    table = np.array([[row[f"tv_{k}"] for k in names] for row in rows])
    empty = np.array([[row[f"empty_{k}"] for k in names] for row in rows])
    best = table.min(axis=1, keepdims=True)
    even = table[:, names.index("even")]
    lines += ["", "| rule | mean distance | worst ratio to the cell's best | largest loss to even | "
              "mean empty hours with weight |", "|---|---:|---:|---:|---:|"]
    for j, k in enumerate(names):
        lines.append(f"| {k} | {table[:, j].mean():.4f} | {np.max(table[:, j] / best[:, 0]):.2f} | "
                     f"{np.max(table[:, j] - even):+.3f} | {empty[:, j].mean():.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "time_of_day")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    rows = run(args.reps)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "time_of_day.json").write_text(json.dumps(
        {"commit": commit, "machine": platform.platform(), "reps": args.reps, "cells": rows}, indent=1) + "\n")
    (args.out / "time_of_day.md").write_text(markdown(rows, args.reps, commit))
    print((args.out / "time_of_day.md").read_text())


if __name__ == "__main__":
    main()
