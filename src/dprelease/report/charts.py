"""Charts as PNG bytes, drawn with matplotlib (the optional ``report`` extra; docs/decisions.md).

Only the object-oriented API is used (a :class:`~matplotlib.figure.Figure` on an Agg canvas), never
pyplot, so drawing a report changes no global matplotlib state (a notebook's backend stays as it was).
"""

from __future__ import annotations

import io
import math

from dprelease.report.blocks import Chart, Panel

WIDTH_INCHES = 10.0
DPI = 80
COLOURS = ("#1f5fa8", "#d1603d", "#3c9d5d", "#8a5cb8", "#b8a23c", "#4aa8b8", "#b84a82", "#6b6b6b")


def available() -> bool:
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def render_png(chart: Chart) -> bytes:
    """The chart's panels in a grid, as PNG bytes (raises ImportError without matplotlib)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    columns = max(1, min(chart.columns, len(chart.panels)))
    rows = math.ceil(len(chart.panels) / columns)
    names = {tuple(s.name for s in panel.series) for panel in chart.panels}
    shared = len(chart.panels) > 1 and len(names) == 1 and len(next(iter(names))) > 1
    # Fixed margins in inches (a layout engine measured every tick label: most of the drawing time).
    top, bottom, left, right, between_rows, between_columns = 0.35 + 0.3 * shared, 0.5, 0.8, 0.2, 0.8, 0.9
    height = chart.panel_height * rows + top + bottom
    figure = Figure(figsize=(WIDTH_INCHES, height), dpi=DPI)
    FigureCanvasAgg(figure)
    axes_height = (height - top - bottom - between_rows * (rows - 1)) / rows
    axes_width = (WIDTH_INCHES - left - right - between_columns * (columns - 1)) / columns
    figure.subplots_adjust(left=left / WIDTH_INCHES, right=1 - right / WIDTH_INCHES, bottom=bottom / height,
                           top=1 - top / height, hspace=between_rows / axes_height, wspace=between_columns / axes_width)
    for i, panel in enumerate(chart.panels):
        draw(figure.add_subplot(rows, columns, i + 1), panel, legend=not shared)
    if shared:  # the same series in every panel: one legend for the figure, above the panels
        handles, labels = figure.axes[0].get_legend_handles_labels()
        figure.legend(handles, labels, loc="upper center", ncols=len(labels), fontsize=8, frameon=False)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=DPI, metadata={"Software": None})
    return buffer.getvalue()


def draw(axes, panel: Panel, *, legend: bool = True) -> None:
    axes.set_title(panel.title, fontsize=10)
    axes.tick_params(labelsize=8)
    many = len(panel.series) > 1
    if panel.kind == "bar":
        from matplotlib.ticker import MaxNLocator

        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        width = 0.8 / max(1, len(panel.series))
        for k, series in enumerate(panel.series):
            offset = (k - (len(panel.series) - 1) / 2) * width
            bars(axes, [x + offset for x in series.x], series.y, width, COLOURS[k % len(COLOURS)], series.name)
    elif panel.kind == "columns":
        for k, series in enumerate(panel.series):
            bars(axes, series.x, series.y, 0.9, COLOURS[k % len(COLOURS)], series.name)
        many = True
    elif panel.kind == "barh":
        (series,) = panel.series[:1]
        positions = list(range(len(series.x)))
        axes.barh(positions, series.y, color=[COLOURS[k % len(COLOURS)] for k in positions])
        axes.set_yticks(positions, [""] * len(positions))
        for position, name, value in zip(positions, series.x, series.y):  # names at the bars' ends: no margin
            axes.text(value, position, f" {str(name)[:40]}", va="center", ha="left", fontsize=8)
        axes.set_xlim(0, 1.7 * max(series.y, default=1.0) or 1.0)
        axes.invert_yaxis()
        many = False
    elif panel.kind == "scatter":
        for k, series in enumerate(panel.series):
            axes.scatter(series.x, series.y, s=6, alpha=0.5, color=COLOURS[k % len(COLOURS)], label=series.name,
                         rasterized=True)
    else:  # line
        for k, series in enumerate(panel.series):
            axes.plot(series.x, series.y, color=COLOURS[k % len(COLOURS)], label=series.name,
                      marker="o" if len(series.x) <= 60 else None, markersize=3, linewidth=1.4)
    if panel.diagonal:
        top = max([max(s.x + s.y, default=0.0) for s in panel.series], default=1.0) or 1.0
        axes.plot([0, top], [0, top], color="#999999", linewidth=1, linestyle="--")
    if panel.log_y:
        axes.set_yscale("log")
    axes.set_xlabel(panel.x_label, fontsize=9)
    axes.set_ylabel(panel.y_label, fontsize=9)
    axes.grid(alpha=0.3)
    if many and legend:
        axes.legend(fontsize=7)


def bars(axes, x, y, width: float, colour: str, label: str) -> None:
    """Bars of ``width`` centred on ``x`` (ascending), as ONE filled step artist.

    A hundred bar patches per series made a full-Adult report take seconds to lay out and draw; one
    :meth:`~matplotlib.axes.Axes.stairs` polygon (height 0 in the gaps between bars) draws the same picture.
    """
    if not len(x):
        return
    edges, values = [], []
    for i, (centre, height) in enumerate(zip(x, y)):
        if i:
            values.append(0.0)  # the gap since the previous bar
        edges += [centre - width / 2, centre + width / 2]
        values.append(height)
    axes.stairs(values, edges, fill=True, baseline=0, color=colour, label=label)
