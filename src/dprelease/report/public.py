"""The public part of a report, computed from the release alone (post-processing of DP output).

Three sections: the guarantee and the privacy ledger (where the budget went, per step and per
kind of step), the mechanism's rounds from its transcript (what it selected and every numeric
per-round field it recorded, e.g. the noisy error estimate it saw), and the synthetic table's
marginals beside the released answers.
"""

from __future__ import annotations

import re
from collections import Counter

import numpy as np

from dprelease.data import Dataset
from dprelease.release import Release
from dprelease.release.core import ran_add_remove
from dprelease.report.blocks import Chart, Panel, Paragraph, Section, Series, Table

#: What the numeric per-round fields of the transcripts mean (others are shown by name).
FIELD_NOTES = {
    "gap_l1": "L1 distance between the noisy measurement and the model's estimate before the update "
              "(the noisy error estimate the mechanism saw)",
    "noisy_gap": "|noisy answer - model answer| on the selected query (the noisy error estimate it saw)",
    "surprise_l1": "L1 distance between the measurement and the model's earlier answer (annealing)",
    "laplace_scale": "Laplace noise scale b per cell of the measurement, as measured (an add/remove run's "
                     "renormalization later rescales it by n_estimate / pooled_count)",
    "gaussian_sigma": "standard deviation of the Gaussian noise per cell, as measured (likewise)",
    "epsilon": "epsilon spent in the round",
    "rho": "zCDP rho spent on the measurement",
    "select_epsilon": "epsilon of the exponential mechanism's selection",
    "noisy_answer": "the noisy answer to the selected query",
    "model_answer": "the model's answer to it before the update",
    "next_round_budget": "the per-round budget after annealing",
    "noisy_dependence_over_level": "MWEM's gate: the largest pair dependence ||P_ab - P_a x P_b||_1 less that pair's "
                                   "level, plus Laplace noise (at or above 0 the rounds ran, else INIT alone)",
    "gate_laplace_scale": "the Laplace scale of the gate's test (6/n over its epsilon; 6/n_estimate under add/remove)",
    "count_laplace_scale": "the Laplace scale of the noisy count of the records (1 over its epsilon; add/remove)",
    "n_estimate": "the noisy count of the records an add/remove run plans with (and normalizes by until the pooled "
                  "count below replaces it)",
    "pooled_count": "that count pooled with the measurements' totals after INIT (add/remove): every measurement is "
                    "rescaled to it, every later one normalized by it, and the rows drawn with it",
    "pairs_tested": "the pairs whose largest dependence the gate tested",
}
#: Per-round fields that are spends: a round of several measurements (INIT, the direct plan's round 0) spent their sum.
SPENT_FIELDS = ("epsilon", "rho")
#: Keys naming what a round selected, in order of preference.
SELECTION_KEYS = ("marginal", "query", "marginals", "attributes")
MAX_BAR_CATEGORIES = 100


def fmt(value: object) -> str:
    """A number to 4 significant digits (ints in full), anything else as text."""
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(fmt(v) for v in value) if all(not isinstance(v, (list, tuple)) for v in value) \
            else "; ".join(fmt(v) for v in value)
    return str(value)


# ---------------------------------------------------------------- guarantee
def rows_line(release: Release) -> str:
    """How many rows and how they were made (and kept in a declared order, :mod:`dprelease.schema.orders`, and
    agreeing with columns between two dates, :mod:`dprelease.schema.between`); for a
    service's release read without its rows.csv, that they are not in the file (its JSON counts them)."""
    counted = release.extra.get("synthetic_rows_released")
    if len(release.rows) == 0 and counted:
        return f"{counted:,} ({release.rows_method}; not in this file: pass the release's rows.csv with --rows)"
    ordered = release.extra.get("ordered")
    kept = "" if not isinstance(ordered, dict) else (
        "; in the schema's declared order " + ", ".join(" <= ".join(map(str, chain)) for chain in ordered["chains"])
        + f" ({ordered['rows_redrawn']:,} drawn again from the model"
        + (f", {ordered['rows_left_unordered']:,} left out of order)" if ordered["rows_left_unordered"] else ")"))
    between = release.extra.get("between")
    if isinstance(between, dict):
        kept += ("; with " + ", ".join(f"{name} between {first} and {second}"
                                       for name, (first, second) in between["columns"].items())
                 + f" ({between['rows_redrawn']:,} drawn again from the model"
                 + (f", {between['rows_mended']:,} mended" if between.get("rows_mended") else "")
                 + (f", {between['rows_left_unfit']:,} left unfit)" if between["rows_left_unfit"] else ")"))
    return f"{len(release.rows):,} ({release.rows_method}{kept})"


def unit_line(parameters: dict[str, object]) -> str:
    """The privacy unit in a few words (public: the run's parameters)."""
    if not ran_add_remove(parameters):
        return "one record; neighbouring tables have the same public number of rows"
    if parameters.get("privacy_id") is not None:
        k = parameters.get("rows_per_person", 1)
        return (f"one person (column {parameters['privacy_id']!r}) added or removed, at most {k} row"
                f"{'s' if k != 1 else ''} each; the number of rows is private (a noisy count was released)")
    return "one record added or removed; the number of rows is private (a noisy count was released)"


def guarantee_section(release: Release) -> Section:
    spent = release.privacy_ledger.get("spent", {})
    rows = [("mechanism", release.mechanism), ("guarantee", release.guarantee),
            ("privacy unit", unit_line(release.parameters)),
            ("randomness", "SEEDED: reproducible, NOT fit for a real release" if release.seeded
             else "operating-system CSPRNG"),
            ("synthetic rows", rows_line(release)),
            ("columns", f"{len(release.domain)}: " + ", ".join(release.domain.attributes)),
            ("workload", f"{len(release.workload.marginals):,} marginals, {release.workload.num_queries:,} cells")]
    rows += [(f"spent {k}", fmt(v)) for k, v in spent.items() if not k.endswith("_exact")]
    blocks: list[object] = [Table(("", ""), tuple((k, str(v)) for k, v in rows))]
    if release.seeded:
        blocks.insert(0, Paragraph("This release was made with a seeded generator: its noise can be "
                                   "reproduced, so it is not fit for a real release.", "warning"))
    parameters = tuple((f"{k}.{kk}", fmt(vv)) if isinstance(v, dict) else (str(k), fmt(v))
                       for k, v in release.parameters.items()
                       for kk, vv in (v.items() if isinstance(v, dict) else [(None, None)]))
    if parameters:
        blocks.append(Table(("parameter", "value"), parameters, caption="Parameters of the run", collapsed=True))
    return Section("guarantee", "Guarantee", tuple(blocks))


# ------------------------------------------------------------------- ledger
def charge_kind(label: str) -> str:
    """``round 3: measure`` -> ``measure``; ``init: age`` -> ``init``; anything else as it is."""
    match = re.match(r"round \d+: (.+)$", label)
    if match:
        return match.group(1)
    return label.split(":")[0] if ":" in label else label


def ledger_section(release: Release) -> Section:
    ledger = release.privacy_ledger
    charges = [c for c in ledger.get("charges", []) if isinstance(c, dict)]
    unit = "rho" if any("rho" in c for c in charges) else "epsilon"
    amounts = [float(c.get(unit, 0.0)) for c in charges]
    budget, spent = ledger.get("budget", {}), ledger.get("spent", {})
    measures = [k for k in ("epsilon", "delta", "rho") if k in budget or k in spent]
    blocks: list[object] = []
    if "accounting" in ledger:
        blocks.append(Paragraph(f"Accounting: {ledger['accounting']}."))
    blocks.append(Table(("", *measures), (("budget", *[fmt(budget.get(k, "")) for k in measures]),
                                          ("spent", *[fmt(spent.get(k, "")) for k in measures]))))
    exact = [f"{k[:-6]} = {v}" for k, v in spent.items() if k.endswith("_exact")]
    if exact:
        blocks.append(Paragraph("Spent, exactly (fractions): " + "; ".join(exact) + "."))
    if not charges:
        blocks.append(Paragraph("The ledger records no charges.", "note"))
        return Section("ledger", "Privacy ledger", tuple(blocks))
    kinds = [charge_kind(str(c.get("label", ""))) for c in charges]
    per_kind = {k: sum(a for kk, a in zip(kinds, amounts) if kk == k) for k in dict.fromkeys(kinds)}
    total = sum(amounts) or 1.0
    steps = tuple(Series(kind, tuple(i + 1 for i, k in enumerate(kinds) if k == kind),
                         tuple(a for k, a in zip(kinds, amounts) if k == kind)) for kind in per_kind)
    table = Table(("kind of step", "steps", unit, "share of the total"),
                  tuple((k, str(kinds.count(k)), fmt(v), f"{100 * v / total:.1f}%") for k, v in per_kind.items()))
    blocks.append(Chart("Where the budget went", (
        Panel(f"{unit} per step, in the order charged", "columns", steps, x_label="step", y_label=unit),
        Panel(f"{unit} per kind of step", "barh", (Series(unit, tuple(per_kind), tuple(per_kind.values())),),
              x_label=unit)), table))
    blocks.append(charges_table(charges, unit, f"Every charge ({len(charges)})"))
    blocks.extend(nested_ledgers(ledger))
    return Section("ledger", "Privacy ledger", tuple(blocks))


def charges_table(charges: list[dict], unit: str, caption: str) -> Table:
    """One row per charge: its step, label, amount in ``unit`` and rule."""
    return Table(("step", "label", unit, "rule"),
                 tuple((str(i + 1), str(c.get("label", "")), fmt(float(c.get(unit, 0.0))), str(c.get("rule", "")))
                       for i, c in enumerate(charges)),
                 caption=caption, collapsed=len(charges) > 12)


def nested_ledgers(ledger: dict) -> list[object]:
    """The charges of a ledger that one charge above stands for: a run composed with its schema draft (``run``), or a
    stage of a staged run (``stages``: MWEM's gate, then the plan it chose), each in its own unit."""
    nested = {**({"the run": ledger["run"]} if isinstance(ledger.get("run"), dict) else {}),
              **{f"the stage '{k}'": v for k, v in (ledger.get("stages") or {}).items() if isinstance(v, dict)}}
    blocks: list[object] = []
    for name, inner in nested.items():
        charges = [c for c in inner.get("charges", []) if isinstance(c, dict)]
        unit = "rho" if any("rho" in c for c in charges) else "epsilon"
        spent = inner.get("spent", {})
        blocks.append(Paragraph(f"Inside {name}: {len(charges)} charges in {unit}, "
                                f"{fmt(spent.get(unit, ''))} spent in all"
                                + (f" ({inner['accounting']})" if "accounting" in inner else "") + "."))
        if charges:
            blocks.append(charges_table(charges, unit, f"The charges inside {name} ({len(charges)})"))
    return blocks


# ------------------------------------------------------------------- rounds
def selected(entry: dict) -> str:
    for key in SELECTION_KEYS:
        if key in entry:
            return fmt(entry[key])
    return ""


def numeric_fields(entries: list[dict]) -> list[str]:
    """The numeric per-round fields (not ``round``), in the order first seen."""
    fields: dict[str, None] = {}
    for entry in entries:
        for key, value in entry.items():
            if key != "round" and isinstance(value, (int, float)) and not isinstance(value, bool):
                fields.setdefault(key, None)
    return list(fields)


def round_value(values: list, field: str) -> str:
    """One round's value of a numeric field, for the per-round table: a spend summed over the round's entries (a round
    of several measurements spent them all), any other field as its one value or its range."""
    if not values:
        return ""
    if field in SPENT_FIELDS:
        return fmt(sum(values))
    low, high = min(values), max(values)
    return fmt(low) if low == high else f"{fmt(low)}-{fmt(high)}"


def rounds_section(release: Release) -> Section:
    entries = [dict(e) for e in release.transcript if isinstance(e, dict)]
    for entry in entries:  # IC's noisy error estimate, when the transcript has both sides of it
        if isinstance(entry.get("noisy_answer"), (int, float)) and isinstance(entry.get("model_answer"), (int, float)):
            entry["noisy_gap"] = abs(entry["noisy_answer"] - entry["model_answer"])
    rounds = [e for e in entries if isinstance(e.get("round"), int)]
    blocks: list[object] = []
    stop = release.parameters.get("stop_reason")
    if stop:
        blocks.append(Paragraph(f"Stop: {stop}."))
    if not rounds:
        blocks.append(Paragraph("The transcript records no rounds"
                                + (f" ({len(entries)} entries, shown below)." if entries else "."), "note"))
        if entries:
            keys = list(dict.fromkeys(k for e in entries for k in e))
            blocks.append(Table(tuple(keys), tuple(tuple(fmt(e.get(k, "")) for k in keys) for e in entries)))
        return Section("rounds", "The mechanism's rounds", tuple(blocks))
    fields = numeric_fields(rounds)
    seen = [f for f in fields if f in FIELD_NOTES]
    if seen:
        blocks.append(Paragraph("Per-round fields: " + "; ".join(f"{f}: {FIELD_NOTES[f]}" for f in seen) + "."))
    if not any(f in fields for f in ("gap_l1", "noisy_gap", "surprise_l1")):
        blocks.append(Paragraph("This transcript records no noisy error estimate per round.", "note"))
    plotted = [f for f in fields if len({e[f] for e in rounds if f in e}) > 1]
    if plotted:
        panels = tuple(Panel(f, "line", (Series(f, tuple(e["round"] for e in rounds if f in e),
                                                tuple(float(e[f]) for e in rounds if f in e)),),
                             x_label="round", y_label=f) for f in plotted)
        table = Table(("round", *plotted), tuple(
            (str(r), *[round_value([e[f] for e in rounds if e["round"] == r and f in e], f) for f in plotted])
            for r in dict.fromkeys(e["round"] for e in rounds)))
        blocks.append(Chart("Per-round numbers", panels, table, columns=min(3, len(panels))))
    picks = Counter(selected(e) for e in rounds if e.get("round", 0) > 0 and selected(e))
    if picks:
        blocks.append(Table(("selected", "times"), tuple((k, str(v)) for k, v in picks.most_common()),
                            caption=f"What the rounds selected ({sum(picks.values())} selections)",
                            collapsed=len(picks) > 15))
    actions = [f for f in ("action",) if any(f in e for e in rounds)]
    blocks.append(Table(("round", *actions, "selected", *fields),
                        tuple((str(e["round"]), *[str(e.get(a, "")) for a in actions], selected(e),
                               *[fmt(e.get(f, "")) for f in fields]) for e in rounds),
                        caption=f"The transcript, round by round ({len(rounds)} entries)", collapsed=len(rounds) > 20))
    return Section("rounds", "The mechanism's rounds", tuple(blocks))


# ------------------------------------------------------- answers and rows
def rows_table(release: Release) -> Dataset | None:
    """The synthetic rows as a table to count marginals on (None when there are none)."""
    if len(release.rows) == 0:
        return None
    return Dataset.from_records(np.asarray(release.rows, dtype=np.int64), release.domain, source="synthetic rows")


def one_way_panels(attributes: list[str], sources: dict[str, object], release: Release) -> tuple[Panel, ...]:
    """One bar panel per attribute: each source's 1-way marginal (fractions), codes on x."""
    panels = []
    for attribute in attributes:
        size = release.domain.size_of(attribute)
        series = tuple(Series(name, tuple(range(size)), tuple(float(v) for v in source(attribute)))
                       for name, source in sources.items())
        panels.append(Panel(attribute, "bar", series, x_label="code", y_label="fraction"))
    return tuple(panels)


def answers_section(release: Release, *, listed: int = 10) -> Section:
    synthetic = rows_table(release)
    blocks: list[object] = []
    if synthetic is None:
        blocks.append(Paragraph("The release holds no synthetic rows.", "note"))
        return Section("answers", "Released answers and the synthetic table", tuple(blocks))
    blocks.append(Paragraph(
        "The released answers come from the mechanism's model; the synthetic rows are drawn, rounded or fitted "
        "from it. Both are public. L1 is the sum over a marginal's cells of |rows - answers| (fractions)."))
    l1 = [float(np.abs(synthetic.marginal(m) - a).sum()) for m, a in zip(release.workload.marginals, release.answers)]
    blocks.append(Table(("", "mean L1", "max L1"), (("synthetic rows vs released answers", fmt(float(np.mean(l1))),
                                                     fmt(float(np.max(l1)))),)))
    attributes = [a for a in release.domain.attributes
                  if any(a in m for m in release.workload.marginals) and release.domain.size_of(a) <= MAX_BAR_CATEGORIES]
    if attributes:
        sources = {"released answers": lambda a: release.marginal_array((a,)),
                   "synthetic rows": lambda a: synthetic.marginal((a,))}
        table = Table(("attribute", "code", "released answers", "synthetic rows"), tuple(
            (a, str(i), fmt(float(r)), fmt(float(s)))
            for a in attributes for i, (r, s) in enumerate(zip(release.marginal_array((a,)), synthetic.marginal((a,))))))
        blocks.append(Chart("1-way marginals: released answers and synthetic rows",
                            one_way_panels(attributes, sources, release), table, columns=3, panel_height=2.2))
    order = sorted(range(len(l1)), key=lambda i: -l1[i])
    rows = tuple((", ".join(release.workload.marginals[i]), f"{release.workload.cells(release.workload.marginals[i]):,}",
                  fmt(l1[i])) for i in order)
    blocks.append(Table(("marginal", "cells", "L1 rows vs answers"), rows[:listed],
                        caption=f"The {min(listed, len(rows))} marginals where the rows stray furthest from the answers"))
    if len(rows) > listed:
        blocks.append(Table(("marginal", "cells", "L1 rows vs answers"), rows,
                            caption=f"Every workload marginal ({len(rows)})", collapsed=True))
    return Section("answers", "Released answers and the synthetic table", tuple(blocks))
