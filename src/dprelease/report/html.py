"""One self-contained HTML file: inline CSS, charts as inline base64 PNG, no external reference.

It opens offline in any browser. Every text comes through :func:`html.escape`. Without matplotlib
the charts are replaced by their tables, with a note saying so.
"""

from __future__ import annotations

import base64
from html import escape

from dprelease.report import charts
from dprelease.report.blocks import Chart, Paragraph, Report, Section, Table

STYLE = """
body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 0 auto; max-width: 60em;
       padding: 1em 2em; color: #1d1d1d; line-height: 1.4; background: #ffffff; }
p { overflow-wrap: anywhere; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 2px solid #1f5fa8; padding-bottom: 0.15em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.85em; }
th, td { border: 1px solid #c8c8c8; padding: 0.2em 0.5em; text-align: left; vertical-align: top; }
th { background: #eef2f7; }
caption { text-align: left; font-weight: bold; padding: 0.3em 0; }
img { max-width: 100%; display: block; margin: 0.5em 0; }
details { margin: 0.4em 0; }
summary { cursor: pointer; color: #1f5fa8; }
.banner { background: #b00020; color: #ffffff; padding: 0.8em 1em; font-weight: bold; font-size: 1.05em; }
.private { border: 3px solid #b00020; padding: 0 1em 1em 1em; margin-top: 1.5em; background: #fff7f7; }
.private h2 { color: #b00020; border-bottom-color: #b00020; }
.warning { background: #fff1d6; border-left: 4px solid #d18a00; padding: 0.4em 0.8em; }
.note { color: #555555; font-style: italic; }
.summary td:first-child { font-weight: bold; }
nav { font-size: 0.9em; }
"""


def render_html(report: Report) -> str:
    drawing = charts.available()
    parts = ["<!DOCTYPE html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             f"<title>{escape(report.title)}</title>", f"<style>{STYLE}</style>", "</head>", "<body>"]
    if report.banner:
        parts.append(f'<div class="banner" role="alert">{escape(report.banner)}</div>')
    parts.append(f"<h1>{escape(report.title)}</h1>")
    parts.append(table_html(Table(("", ""), report.summary), css="summary"))
    for note in report.notes:
        parts.append(f'<p class="note">{escape(note)}</p>')
    if not drawing:
        parts.append('<p class="warning">The charts need matplotlib (pip install "dprelease[report]"); '
                     "their numbers are given as tables instead.</p>")
    parts.append("<nav>Sections: " + " · ".join(f'<a href="#{escape(s.anchor)}">{escape(s.title)}</a>'
                                                 for s in report.sections) + "</nav>")
    for section in report.sections:
        parts.append(section_html(section, drawing))
    parts += ["</body>", "</html>", ""]
    return "\n".join(parts)


def section_html(section: Section, drawing: bool) -> str:
    inner = [f'<h2 id="{escape(section.anchor)}">{escape(section.title)}</h2>']
    for block in section.blocks:
        if isinstance(block, Paragraph):
            css = f' class="{block.kind}"' if block.kind != "text" else ""
            inner.append(f"<p{css}>{escape(block.text)}</p>")
        elif isinstance(block, Table):
            inner.append(table_html(block))
        elif isinstance(block, Chart):
            inner.append(chart_html(block, drawing))
    body = "\n".join(inner)
    return f'<section class="private">\n{body}\n</section>' if section.private else f"<section>\n{body}\n</section>"


def chart_html(chart: Chart, drawing: bool) -> str:
    if not drawing:
        return f"<h3>{escape(chart.title)}</h3>\n" + table_html(chart.table)
    png = base64.b64encode(charts.render_png(chart)).decode("ascii")
    numbers = Table(chart.table.header, chart.table.rows, caption=f"The numbers: {chart.table.caption or chart.title}",
                    collapsed=True)
    return (f"<h3>{escape(chart.title)}</h3>\n<img alt=\"{escape(chart.title)}\" src=\"data:image/png;base64,{png}\">\n"
            + table_html(numbers))


def table_html(table: Table, css: str = "") -> str:
    head = "" if not any(table.header) else \
        "<tr>" + "".join(f"<th>{escape(h)}</th>" for h in table.header) + "</tr>"
    rows = "\n".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row) + "</tr>" for row in table.rows)
    css_attr = f' class="{css}"' if css else ""
    if table.collapsed:
        label = table.caption or "table"
        return f"<details><summary>{escape(label)}</summary>\n<table{css_attr}>{head}\n{rows}\n</table>\n</details>"
    caption = f"<caption>{escape(table.caption)}</caption>" if table.caption else ""
    return f"<table{css_attr}>{caption}{head}\n{rows}\n</table>"
