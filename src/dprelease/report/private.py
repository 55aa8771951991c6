"""The NOT PRIVATE part of a report: the release measured against the real table.

Built only when the curator passes the real data. Everything here is computed from the private
table (errors, the real marginals drawn, and the baselines drawn from it with a seeded generator)
and is not differentially private: the section, and the file that holds it, are for the curator's
eyes only.
"""

from __future__ import annotations

import numpy as np

from dprelease.data import Dataset
from dprelease.engines.persons import PersonRows
from dprelease.evaluate import per_marginal_errors, summarize
from dprelease.evaluate.baselines import baseline_tables, run_epsilon
from dprelease.evaluate.comparison import PersonUnit, is_add_remove
from dprelease.release import Release
from dprelease.release.labels import CodeLabels, checked_labels
from dprelease.report.blocks import Chart, Panel, Paragraph, Section, Series, Table
from dprelease.report.public import fmt, rows_table

BANNER = ("This file contains NON-PRIVATE information computed from the real data (section \"NOT PRIVATE\"). "
          "It is for the curator's eyes only: do not publish or share it.")
SYNTHETIC = "synthetic rows"
ANSWERS = "released answers"
#: Scatter plots keep at most this many cells (the largest |real - synthetic| first).
MAX_POINTS = 20_000


class Answers:
    """The released answers as a marginal source (for the error tables)."""

    def __init__(self, release: Release) -> None:
        self.domain = release.domain
        self._release = release

    def marginal(self, attributes):
        return self._release.marginal_array(tuple(attributes))


def release_epsilon(release: Release) -> float:
    """The run's epsilon (the baseline's; :func:`~dprelease.evaluate.baselines.run_epsilon`), else 1."""
    return run_epsilon(release.privacy_ledger) or 1.0


def worst_cells(real: np.ndarray, synthetic: np.ndarray, count: int) -> np.ndarray:
    """Flat indices of the ``count`` cells with the largest |real - synthetic|, largest first."""
    diff = np.abs(real - synthetic).reshape(-1)
    count = min(count, diff.size)
    top = np.argpartition(-diff, count - 1)[:count]
    return top[np.argsort(-diff[top], kind="stable")]


def private_section(release: Release, real: Dataset | PersonRows, *, seed: int = 0, worst: int = 4,
                    listed: int = 15) -> Section:
    """Errors per marginal against ``real`` for the rows, the answers and the baselines; the worst drawn. ``real``
    with its persons (a person-level release's real table) adds the per-person baseline."""
    synthetic = rows_table(release)
    persons = real if isinstance(real, PersonRows) else None
    real = real.table if persons is not None else real
    n_rows = len(release.rows) if synthetic is not None else real.n
    epsilon = release_epsilon(release)
    unit = PersonUnit.of(release.parameters)
    baselines = baseline_tables(real if persons is None else persons, epsilon=epsilon, n_rows=n_rows, seed=seed,
                                rows_per_person=None if persons is None or unit is None else unit.rows_per_person,
                                add_remove=is_add_remove(release.parameters))
    tables = {**({SYNTHETIC: synthetic} if synthetic is not None else {}), ANSWERS: Answers(release),
              **baselines.tables}
    workload = release.workload
    errors = per_marginal_errors(real, tables, workload)
    names = list(tables)
    blocks: list[object] = [Paragraph(
        "NOT PRIVATE: everything in this section is computed from the real table passed with --data and is not "
        "differentially private. It tells the curator how good the release is; it must not be published.",
        "warning"),
        Paragraph(f"Baselines: {baselines.describe()} (the run's epsilon: a schema draft's spend is left out, since "
                  f"the baselines need the same schema), {n_rows:,} rows each. "
                  "L1 is the sum over a marginal's cells of |real - table| (fractions); max error the largest cell.")]
    summaries = {name: summarize(errors, name) for name in names}
    blocks.append(Table(("table", "average L1", "max L1", "max error", "worst marginal (max error)"), tuple(
        (name, fmt(s["avg_l1"]), fmt(s["max_l1"]), fmt(s["max_error"]), ", ".join(s["worst_marginal"] or []))
        for name, s in summaries.items()), caption="Workload error against the real table"))
    ranked = tuple(Series(name, tuple(range(1, len(errors) + 1)),
                          tuple(sorted((e.l1[name] for e in errors), reverse=True))) for name in names)
    key = SYNTHETIC if SYNTHETIC in names else ANSWERS
    order = sorted(range(len(errors)), key=lambda i: -errors[i].l1[key])
    header = ("marginal", "cells", *[f"L1 {n}" for n in names])
    rows = tuple((", ".join(errors[i].marginal), f"{errors[i].cells:,}", *[fmt(errors[i].l1[n]) for n in names])
                 for i in order)
    blocks.append(Chart("Error per marginal, largest first", (
        Panel("L1 error of each marginal, sorted", "line", ranked, x_label="marginal (rank)", y_label="L1",
              log_y=True),), Table(header, rows, caption="L1 error per marginal, largest first"), columns=1,
        panel_height=3.2))
    blocks.append(Table(header, rows[:listed], caption=f"The {min(listed, len(rows))} worst marginals ({key})"))
    if synthetic is not None:
        blocks.append(worst_marginals_chart(release, real, synthetic, [errors[i].marginal for i in order[:worst]]))
    return Section("not-private", "NOT PRIVATE: the release against the real data (curator only)", tuple(blocks),
                   private=True)


def worst_marginals_chart(release: Release, real: Dataset, synthetic: Dataset, marginals: list[tuple[str, ...]]) -> Chart:
    """Real against synthetic, cell by cell, for the worst marginals; the table lists their worst cells."""
    panels, rows = [], []
    hook = release.labels if release.labels is not None else CodeLabels(release.domain)
    for marginal in marginals:
        truth, ours = real.marginal(marginal), synthetic.marginal(marginal)
        occupied = np.flatnonzero((truth.reshape(-1) > 0) | (ours.reshape(-1) > 0))
        if occupied.size > MAX_POINTS:
            keep = worst_cells(truth.reshape(-1)[occupied], ours.reshape(-1)[occupied], MAX_POINTS)
            occupied = occupied[keep]
        panels.append(Panel(", ".join(marginal), "scatter", (
            Series("cells", tuple(truth.reshape(-1)[occupied].tolist()), tuple(ours.reshape(-1)[occupied].tolist())),),
            x_label="real fraction", y_label="synthetic fraction", diagonal=True))
        labels = [checked_labels(hook, release.domain, a) for a in marginal]
        for flat in worst_cells(truth, ours, 5):
            index = np.unravel_index(flat, truth.shape)
            cell = ", ".join(f"{a}={labels[k][i]}" for k, (a, i) in enumerate(zip(marginal, index)))
            rows.append((", ".join(marginal), cell, fmt(float(truth[index])), fmt(float(ours[index])),
                         fmt(float(ours[index] - truth[index]))))
    table = Table(("marginal", "cell", "real", "synthetic", "synthetic - real"), tuple(rows),
                  caption="The 5 cells furthest from the real table in each of the worst marginals")
    return Chart("The worst marginals, real against synthetic (each point a cell; on the diagonal, exact)",
                 tuple(panels), table, columns=2, panel_height=3.0)
