"""How the real table's values fare under a schema and in the synthetic table: the curator's check, NOT PRIVATE.

The workload error (:mod:`.metrics`) compares the two tables after both are encoded by the schema, so a value the
schema clips to its bounds, or sends to ``other``, counts as the bin it lands in: a draft that bounded ages 18-97 to
40..79 clipped a quarter of them, and the workload error could not show it. Here, per column, the share of the real
rows the schema clips or sends to ``other``, and for numbers and dates the Kolmogorov-Smirnov distance between the
synthetic values and the real ones (the largest gap between their cumulative shares: free of scale, and it sees both
the clipping and the bins' coarseness). It reads every real value: for the curator's eyes, never for a release.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import ks_2samp

from dprelease.schema import Schema
from dprelease.schema.between import per_unit, time_between, until_units
from dprelease.schema.binned import _Binned
from dprelease.schema.columns import CategoricalColumn
from dprelease.schema.draft import read_source
from dprelease.schema.encode import ABOVE, BELOW, NULL, OK, parsed_values, placed
from dprelease.schema.parse import FactorColumn

VALUES_NOTE = "NOT PRIVATE: the real table's values against the schema and the synthetic table, for the curator only"


@dataclass(frozen=True)
class ColumnValues:
    """One column: the shares of the real rows the schema clips (to its bounds) and sends to ``other`` (outside the
    bounds, not in the list, or not a value of the column's kind), among the rows that are not NULL; and the
    Kolmogorov-Smirnov distance of the synthetic values to the real ones (numbers and dates; None for categories and
    booleans, whose shares the 1-way marginals already compare)."""

    name: str
    kind: str
    clipped: float
    other: float
    ks: float | None
    #: with ``show_values``: the real values most often sent to ``other`` and each one's share of the column's rows
    #: (private values: quoted only where the curator asks)
    other_values: tuple[tuple[str, float], ...] = ()

    def to_json(self) -> dict:
        out = {"column": self.name, "kind": self.kind, "clipped": self.clipped, "other": self.other, "ks": self.ks}
        if self.other_values:
            out["other_values"] = [{"value": value, "share": share} for value, share in self.other_values]
        return out


@dataclass(frozen=True)
class OrderValues:
    """A pair of columns the schema declares in order (``ordered``): the share of the real rows, among those with
    both values, whose first value is above the second (a declaration the data does not keep, or rows in error),
    and the synthetic table's share (None where its values are not read: a table of bin labels)."""

    first: str
    second: str
    real: float
    synthetic: float | None

    def to_json(self) -> dict:
        return {"first": self.first, "second": self.second, "real_out_of_order": self.real,
                "synthetic_out_of_order": self.synthetic}


#: How many of the values sent to ``other`` a column lists (with ``show_values``), most frequent first.
OTHER_VALUES_SHOWN = 3


def most_common(raw: object, mask: np.ndarray, count: int) -> list[tuple[str, int]]:
    """The ``count`` most frequent raw values (as text) among the rows of ``mask``, with their numbers of rows."""
    if not mask.any():
        return []
    if hasattr(raw, "uniques"):  # a factor column: its distinct values and each row's index
        counts = np.bincount(raw.index[mask], minlength=len(raw.uniques))
        top = np.argsort(-counts, kind="stable")[:count]
        return [(str(raw.uniques[i]), int(counts[i])) for i in top if counts[i] > 0]
    values, counts = np.unique(np.asarray(raw.values)[mask].astype(str), return_counts=True)
    top = np.argsort(-counts, kind="stable")[:count]
    return [(str(values[i]), int(counts[i])) for i in top]


def value_report(real: object, synthetic: object | None, schema: Schema, *, names: Sequence[str] | None = None,
                 show_values: bool = False, orders: list[OrderValues] | None = None,
                 **options) -> list[ColumnValues]:
    """Per column of ``schema`` (or ``names``): :class:`ColumnValues` of the ``real`` table (a file, part files, a
    DataFrame) against the ``synthetic`` one, both read raw as ``synth`` reads them (``options``: delimiter, header,
    skip_rows); without ``synthetic`` (a table of bin labels), the shares alone. ``show_values``: each column also
    names the real values it sends to ``other`` most often (the categories a schema might list). ``orders``: a list
    that gets an :class:`OrderValues` for each pair of neighbours in the schema's ``ordered`` chains."""
    schema = Schema.coerce(schema)
    names = list(schema.names if names is None else names)
    read = dict(strip=schema.strip, layout=schema.file_names, **options)
    # A column computed between two dates is computed from them in both tables (the real one has no such column).
    computed = {c.name: c for c in schema.columns if getattr(c, "between", None) is not None}
    wanted = list(dict.fromkeys(n for name in names for n in (computed[name].between if name in computed else (name,))))
    real_table = read_source(real, wanted, **read)
    synthetic_table = None if synthetic is None else read_source(synthetic, wanted, **read)
    tables = {"real": real_table, "synthetic": synthetic_table}
    parsed: dict[tuple[str, str], np.ndarray] = {}

    def values_of(table: str, name: str) -> np.ndarray:
        """A number or date column's parsed values (NaN where none), read once for the distance and the order; a
        between column's from its dates."""
        if (table, name) not in parsed:
            if name in computed:
                first, second = computed[name].between
                until = until_units(computed[name], schema.column(second))
                ends = values_of(table, second)
                if until is not None:  # a blank second stands for until
                    _, status, _ = placed(schema.column(second), tables[table].columns[second], schema)
                    ends = np.where(status == NULL, until, ends)
                parsed[table, name] = time_between(values_of(table, first), ends, per_unit(schema, computed[name]))
            else:
                parsed[table, name] = parsed_values(schema.column(name), tables[table].columns[name], schema)
        return parsed[table, name]

    out = []
    for name in names:
        column = schema.column(name)
        if name in computed:
            gap, (low, high) = values_of("real", name), column.bounds
            status = np.where(np.isnan(gap), NULL, np.where(gap < low, BELOW, np.where(gap > high, ABOVE, OK)))
            raw = FactorColumn.from_values(np.array([None if g != g else int(g) for g in gap], dtype=object))
        else:
            raw = real_table.columns[name]
            _, status, _ = placed(column, raw, schema)
        present = status != NULL
        count = max(int(present.sum()), 1)
        outside = (status == BELOW) | (status == ABOVE)
        clip = isinstance(column, _Binned) and column.clip
        clipped = float((outside & clip).sum()) / count
        to_other = present & (status != OK) & ~(outside & clip)
        other = float(to_other.sum()) / count
        shown = tuple((value, rows / count) for value, rows in most_common(raw, to_other, OTHER_VALUES_SHOWN)) \
            if show_values else ()
        ks = None
        if isinstance(column, _Binned) and synthetic_table is not None:
            real_values, synthetic_values = (v[np.isfinite(v)] for v in (values_of("real", name),
                                                                          values_of("synthetic", name)))
            if len(real_values) and len(synthetic_values):
                ks = float(ks_2samp(real_values, synthetic_values).statistic)
        kind = "categorical" if isinstance(column, CategoricalColumn) else column.kind
        out.append(ColumnValues(name, kind, clipped, other, ks, shown))
    if orders is not None:
        for chain in schema.ordered:
            for first, second in zip(chain, chain[1:]):
                if first in names and second in names:
                    orders.append(OrderValues(
                        first, second, _out_of_order(values_of("real", first), values_of("real", second)),
                        None if synthetic_table is None else
                        _out_of_order(values_of("synthetic", first), values_of("synthetic", second))))
    return out


def _out_of_order(a: np.ndarray, b: np.ndarray) -> float:
    """The share of the rows holding both values (not NaN) whose value in ``a`` is above the one in ``b``."""
    both = np.isfinite(a) & np.isfinite(b)
    return float((a[both] > b[both]).sum()) / max(int(both.sum()), 1)


def render_values(report: Sequence[ColumnValues]) -> list[str]:
    """The text lines ``dprelease evaluate`` prints: one row a column, worst first (by the larger of its shares
    moved and its distance)."""
    lines = [f"values ({VALUES_NOTE}):",
             "| column | kind | real values clipped | real values to other | KS distance, synthetic to real |",
             "|---|---|---:|---:|---:|"]
    shown = any(c.other_values for c in report)
    if shown:  # the values themselves, where the curator asked (--show-values)
        lines[1] += " most often to other |"
        lines[2] += "---|"
    for c in sorted(report, key=lambda c: -max(c.clipped + c.other, c.ks or 0.0)):
        ks = "-" if c.ks is None else f"{c.ks:.3f}"
        values = ", ".join(f"{value!r} {share:.1%}" for value, share in c.other_values) or "-"
        lines.append(f"| {c.name} | {c.kind} | {c.clipped:.1%} | {c.other:.1%} | {ks} |" + (f" {values} |" if shown
                                                                                             else ""))
    return lines


def render_orders(orders: Sequence[OrderValues]) -> list[str]:
    """The lines ``dprelease evaluate`` prints for the schema's declared order: each pair's rows out of it."""
    lines = [f"declared order ({VALUES_NOTE}): rows whose first value is above the second"]
    for o in orders:
        synthetic = "-" if o.synthetic is None else f"{o.synthetic:.1%}"
        lines.append(f"  {o.first} <= {o.second}: real {o.real:.1%}, synthetic {synthetic}")
    return lines
