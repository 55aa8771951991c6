"""What a report is made of, independent of its format: sections of paragraphs, tables and charts.

The HTML renderer draws each :class:`Chart` as an inline PNG (matplotlib, the ``report`` extra) and
the Markdown renderer writes the chart's own :attr:`Chart.table` instead, so both formats carry the
same numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Paragraph:
    """A paragraph of plain text; ``kind`` is ``"text"``, ``"note"`` or ``"warning"``."""

    text: str
    kind: str = "text"


@dataclass(frozen=True)
class Table:
    """Rows of already formatted cells under a header. ``collapsed``: folded away in HTML until opened."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    caption: str = ""
    collapsed: bool = False


@dataclass(frozen=True)
class Series:
    """One named line, set of bars or cloud of points."""

    name: str
    x: tuple
    y: tuple


@dataclass(frozen=True)
class Panel:
    """One plot: ``kind`` is ``"bar"`` (categories on x), ``"barh"``, ``"line"`` or ``"scatter"``.

    ``diagonal`` draws y = x (a scatter of real against synthetic); ``log_y`` a logarithmic y axis.
    """

    title: str
    kind: str
    series: tuple[Series, ...]
    x_label: str = ""
    y_label: str = ""
    diagonal: bool = False
    log_y: bool = False


@dataclass(frozen=True)
class Chart:
    """Panels drawn side by side, ``columns`` to a row; ``table`` holds the same data for a text report."""

    title: str
    panels: tuple[Panel, ...]
    table: Table
    columns: int = 2
    panel_height: float = 2.6


@dataclass(frozen=True)
class Section:
    """A titled part of the report. ``private``: computed from the real data (the NOT PRIVATE part)."""

    anchor: str
    title: str
    blocks: tuple[object, ...]
    private: bool = False


@dataclass(frozen=True)
class Report:
    """The whole report. ``private`` is true when any section is: the file must stay with the curator."""

    title: str
    summary: tuple[tuple[str, str], ...]
    sections: tuple[Section, ...]
    banner: str = ""
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def private(self) -> bool:
        return any(s.private for s in self.sections)
