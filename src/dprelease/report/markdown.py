"""The report as Markdown text: the same sections, every chart given as its table (no matplotlib needed)."""

from __future__ import annotations

from dprelease.report.blocks import Chart, Paragraph, Report, Section, Table


def render_markdown(report: Report) -> str:
    lines: list[str] = []
    if report.banner:
        lines += [f"> **{escape(report.banner)}**", ""]
    lines += [f"# {escape(report.title)}", ""]
    lines += table_lines(Table(("", ""), report.summary))
    lines += [f"*{escape(note)}*\n" for note in report.notes]
    for section in report.sections:
        lines += section_lines(section)
    return "\n".join(lines).rstrip() + "\n"


def section_lines(section: Section) -> list[str]:
    lines = [f"## {escape(section.title)}", ""]
    if section.private:
        lines += ["> **NOT PRIVATE: for the curator's eyes only.**", ""]
    for block in section.blocks:
        if isinstance(block, Paragraph):
            text = escape(block.text)
            lines += [f"> **{text}**" if block.kind == "warning" else f"*{text}*" if block.kind == "note" else text, ""]
        elif isinstance(block, Table):
            lines += table_lines(block)
        elif isinstance(block, Chart):
            lines += [f"### {escape(block.title)}", ""] + table_lines(block.table)
    return lines


def table_lines(table: Table) -> list[str]:
    lines = [f"**{escape(table.caption)}**", ""] if table.caption else []
    header = [escape(h) or " " for h in table.header]
    lines.append("| " + " | ".join(header) + " |")
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(escape(c) for c in row) + " |" for row in table.rows]
    return lines + [""]


def escape(text: str) -> str:
    """Text safe inside a Markdown table cell or paragraph (pipes and line breaks)."""
    return str(text).replace("|", "\\|").replace("\n", " ")
