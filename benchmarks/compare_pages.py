"""Compare two runs of ``bench_suite.py`` (the code before a change and after it) case by case.

    .venv/bin/python benchmarks/compare_pages.py BEFORE/suite.json AFTER/suite.json [--out compare.md]

For every (table, eps) both runs hold: the default's median avg L1 before and after (the same seeds: cases whose plan
the change leaves alone come out identical), their ratio, the independent baseline's median (from the after run),
and the seconds. Then the count of cases lower and higher, and the median and geometric-mean ratio. Writes markdown.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
from pathlib import Path

SYSTEM, BASELINE = "dprelease", "independent"


def medians(runs: list[dict], system: str, key: str = "avg_l1") -> dict[tuple[str, float], float]:
    """{(table, eps): median over the seeds} of one system's ok runs."""
    found: dict[tuple[str, float], list[float]] = {}
    for run in runs:
        if run["system"] == system and run["status"] == "ok":
            value = run["scores"]["main"][key] if key == "avg_l1" else run[key]
            found.setdefault((run["table"], run["epsilon"]), []).append(value)
    return {case: statistics.median(values) for case, values in found.items()}


def compare(before: list[dict], after: list[dict]) -> list[str]:
    old, new, baseline = medians(before, SYSTEM), medians(after, SYSTEM), medians(after, BASELINE)
    old_s, new_s = medians(before, SYSTEM, "seconds"), medians(after, SYSTEM, "seconds")
    tables = list(dict.fromkeys(run["table"] for run in after))
    cases = sorted((case for case in new if case in old), key=lambda c: (tables.index(c[0]), c[1]))
    lines = ["| table | eps | before | after | after / before | independent baseline | seconds before / after |",
             "|---|---|---|---|---|---|---|"]
    ratios = []
    for case in cases:
        ratio = new[case] / old[case]
        ratios.append(ratio)
        above = " (above the baseline)" if case in baseline and new[case] > baseline[case] else ""
        lines.append(f"| {case[0]} | {case[1]:g} | {old[case]:.4f} | {new[case]:.4f}{above} | {ratio:.3f} | "
                     f"{baseline.get(case, float('nan')):.4f} | {old_s[case]:.1f} / {new_s[case]:.1f} |")
    if ratios:
        geometric = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        lines += ["", f"{len(ratios)} cases: lower after in {sum(r < 1 for r in ratios)}, higher in "
                      f"{sum(r > 1 for r in ratios)}, equal in {sum(r == 1 for r in ratios)}; median ratio "
                      f"{statistics.median(ratios):.3f}, geometric mean {geometric:.3f}."]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", help="the suite.json of the code before")
    parser.add_argument("after", help="the suite.json of the code after")
    parser.add_argument("--out", help="write the markdown here (default: print it)")
    args = parser.parse_args(argv)
    before, after = (json.loads(Path(p).read_text())["runs"] for p in (args.before, args.after))
    text = "\n".join([f"# {Path(args.after).parent.name}: before ({args.before}) and after ({args.after})", "",
                      *compare(before, after)]) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text, end="")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
