"""How much noise each measurement carries, in the units a reader can judge: the report's noise section.

Public: post-processing of the release's transcript (each measurement's noise scale, already in fractions of the
rows) and its domain. A marginal of C cells measured with noise of expected absolute value E|Z| per cell carries
expected L1 noise C E|Z|; two distributions differ by at most 2 in L1, so at 1 or more the noise outweighs most of
what the measurement could tell apart, and the released distribution of that marginal says little about the data.
At small epsilon and small tables this is where a release ends up (the random-shapes page,
benchmarks/results/shapes/shapes.md, has releases there below a uniform table's accuracy), and the per-round sigmas
of the rounds section do not say it in words.
"""

from __future__ import annotations

import math

from dprelease.release import Release
from dprelease.release.core import unmeasured_columns
from dprelease.report.blocks import Paragraph, Section, Table

#: From this expected L1 noise on, a measurement is "mostly noise" (half the largest L1 distance of two distributions).
MOSTLY_NOISE = 1.0
#: Expected L1 noise bands and how the report reads them (lower bound, words).
READINGS = ((MOSTLY_NOISE, "mostly noise"), (0.1, "noisy"), (0.0, "sharp"))
#: E|Z| / sigma for a Gaussian; mechanisms/mwem_budget.py has its twin (the report never imports mechanisms/).
GAUSSIAN_MEAN_ABS = math.sqrt(2.0 / math.pi)


def reading(expected_l1: float) -> str:
    return next(words for low, words in READINGS if expected_l1 >= low)


def measured_noise(release: Release) -> dict[tuple[str, ...], dict]:
    """Per measured marginal (in first-measured order): cells, times measured, and the expected L1 noise of all its
    measurements averaged with inverse-variance weights (exact E|Z| for one measurement; for several, a Gaussian's
    at the combined variance). An add/remove run that renormalized (a ``renormalize`` entry: the count pooled with
    the measurements' totals) rescaled every measurement before it by n_estimate / pooled_count, their noise too; the
    transcript keeps the scales as measured, so they are rescaled here."""
    sizes = dict(zip(release.domain.attributes, release.domain.sizes))
    found: dict[tuple[str, ...], dict] = {}
    entries = [entry for entry in release.transcript if isinstance(entry, dict)]
    later = [1.0] * (len(entries) + 1)  # later[i]: the product of the renormalizations after entry i
    for i in range(len(entries) - 1, -1, -1):
        entry = entries[i]
        ratio = (float(entry["n_estimate"]) / float(entry["pooled_count"])
                 if entry.get("action") == "renormalize" and entry.get("pooled_count") else 1.0)
        later[i] = later[i + 1] * ratio
    for entry, rescale in zip(entries, later):
        if not isinstance(entry.get("marginal"), list):
            continue
        attributes = tuple(entry["marginal"])
        if "gaussian_sigma" in entry:
            sigma = float(entry["gaussian_sigma"]) * rescale
            mean_abs, variance = GAUSSIAN_MEAN_ABS * sigma, sigma ** 2
        elif "laplace_scale" in entry:
            scale = float(entry["laplace_scale"]) * rescale
            mean_abs, variance = scale, 2.0 * scale ** 2
        else:
            continue
        if not all(a in sizes for a in attributes) or variance <= 0:
            continue
        cells = int(entry.get("compressed_cells") or math.prod(sizes[a] for a in attributes))
        item = found.setdefault(attributes, {"cells": cells, "times": 0, "precision": 0.0, "mean_abs": mean_abs})
        item["times"] += 1
        item["precision"] += 1.0 / variance
    for item in found.values():
        per_cell = item["mean_abs"] if item["times"] == 1 else GAUSSIAN_MEAN_ABS / math.sqrt(item["precision"])
        item["expected_l1"] = item["cells"] * per_cell
    return found


def drowned_columns(found: dict[tuple[str, ...], dict]) -> tuple[list[str], int]:
    """From :func:`measured_noise`: (the columns whose 1-way measurement is mostly noise, how many columns were
    measured on their own)."""
    one_way = [(m, v) for m, v in found.items() if len(m) == 1]
    return [m[0] for m, v in one_way if v["expected_l1"] >= MOSTLY_NOISE], len(one_way)


def drowned_note(release: Release) -> str | None:
    """One line for the command line when some columns' 1-way measurement is mostly noise; else None."""
    drowned, measured = drowned_columns(measured_noise(release))
    if not drowned:
        return None
    names = ", ".join(drowned[:8]) + (", ..." if len(drowned) > 8 else "")
    parameters = getattr(release, "parameters", None) or {}
    k, rows = parameters.get("rows_per_person"), parameters.get("normalizer") or parameters.get("n_estimate")
    person = (f"; a person-level run at {k} rows a person over about {int(rows):,} rows has the noise of a table of "
              f"about {max(int(rows) // int(k), 1):,} rows (a smaller --rows-per-person, or a larger epsilon, sharpens it)"
              if isinstance(k, int) and k > 1 and isinstance(rows, (int, float)) else "")
    return (f"note: at this budget the 1-way measurement of {len(drowned)} of {measured} columns is mostly noise "
            f"({names}): see the noise section of `dprelease report`{person}")


def noise_section(release: Release) -> Section | None:
    """The measurements' expected L1 noise, the 1-way marginals' first; None when the transcript records no noise
    scale (mechanisms whose transcripts carry none, e.g. the independent baseline's)."""
    found = measured_noise(release)
    if not found:
        return None
    one_way = [(m, v) for m, v in found.items() if len(m) == 1]
    larger = [(m, v) for m, v in found.items() if len(m) > 1]
    blocks: list[object] = [Paragraph(
        "Expected L1 noise of a measurement: its cells times the expected absolute noise per cell (fractions of the "
        f"rows), repeated measurements of a marginal averaged. Two distributions differ by at most 2 in L1: at "
        f"{MOSTLY_NOISE:g} or more the noise outweighs most of what the measurement can tell apart (mostly noise), under "
        f"{READINGS[1][0]:g} it is sharp.")]
    if one_way:
        drowned, _ = drowned_columns(found)
        if drowned:
            blocks.append(Paragraph(
                f"{len(drowned)} of the {len(one_way)} measured columns are mostly noise in their 1-way measurement "
                f"({', '.join(drowned[:12])}{', ...' if len(drowned) > 12 else ''}): their released distributions say "
                "little about the data, and a table of uniform columns may match the data as well there. A larger "
                "epsilon sharpens them, as do fewer values per column (merge rare values in the schema).", "warning"))
        else:
            blocks.append(Paragraph(f"All {len(one_way)} measured columns' 1-way measurements carry expected L1 noise "
                                    f"under {MOSTLY_NOISE:g}."))
    unmeasured = unmeasured_columns(release.transcript, release.domain)
    if unmeasured:
        blocks.append(Paragraph(
            f"{len(unmeasured)} column(s) are in no measurement ({', '.join(unmeasured[:12])}"
            f"{', ...' if len(unmeasured) > 12 else ''}): the workload leaves them out, so their released values "
            "carry nothing of the data (uniform draws).", "warning"))
    rows = [(", ".join(m), f"{v['cells']:,}", str(v["times"]), f"{v['expected_l1']:.3g}", reading(v["expected_l1"]))
            for m, v in one_way + larger]
    header = ("marginal", "cells", "times measured", "expected L1 noise", "reading")
    if one_way:
        blocks.append(Table(header, tuple(rows[:len(one_way)]), caption="1-way measurements",
                            collapsed=len(one_way) > 20))
    elif larger:
        blocks.append(Paragraph("No 1-way marginal was measured on its own: the released ones are sums of the cells "
                                "of the larger measurements below."))
    if larger:
        values = sorted(v["expected_l1"] for _, v in larger)
        spread = (f"{values[0]:.3g}" if len(values) == 1 else
                  f"{values[0]:.3g} to {values[-1]:.3g} (median {values[len(values) // 2]:.3g})")
        drowned = sum(x >= MOSTLY_NOISE for x in values)
        blocks.append(Paragraph(
            f"{len(larger)} larger marginal{'s' if len(larger) > 1 else ''} measured: expected L1 noise {spread}"
            + (f"; {drowned} of them mostly noise." if drowned else ".")))
        blocks.append(Table(header, tuple(rows[len(one_way):]), caption="Larger measurements", collapsed=True))
    return Section("noise", "How much noise each measurement carries", tuple(blocks))
