"""A release a person can read: one self-contained HTML file (or Markdown) per release.

>>> from dprelease.release import Release                                 # doctest: +SKIP
>>> from dprelease.report import build_report, render_html
>>> text = render_html(build_report(Release.load("release.json")))      # doctest: +SKIP

Public sections (post-processing of the release alone): the guarantee and the privacy ledger,
the mechanism's rounds, how much noise each measurement carries, the synthetic table beside the released answers. With ``real`` (the
curator's own table) a NOT PRIVATE section is added, and a banner at the top says so: errors per
marginal against the real table beside two seeded baselines, and the worst marginals drawn.

Layers: this package reads releases (:mod:`dprelease.release`) and, for the NOT PRIVATE part,
the evaluation (:mod:`dprelease.evaluate`); it never imports the privacy kernel or a mechanism.
"""

from __future__ import annotations

from dprelease.data import Dataset
from dprelease.engines.persons import PersonRows
from dprelease.errors import InputError
from dprelease.release import Release
from dprelease.report.blocks import Report
from dprelease.report.html import render_html
from dprelease.report.markdown import render_markdown
from dprelease.report.noise import noise_section
from dprelease.report.private import BANNER, private_section
from dprelease.report.public import answers_section, guarantee_section, ledger_section, rounds_section

FORMATS = ("html", "md")


def build_report(release: Release, *, real: Dataset | PersonRows | None = None, seed: int = 0) -> Report:
    """The report's content; ``real`` (the real table, over the release's domain; with its persons for a
    person-level release) adds the NOT PRIVATE part."""
    noise = noise_section(release)
    sections = [guarantee_section(release), ledger_section(release), rounds_section(release),
                *([noise] if noise is not None else []), answers_section(release)]
    if real is not None:
        sections.append(private_section(release, real, seed=seed))
    spent = release.privacy_ledger.get("spent", {})
    summary = (("mechanism", release.mechanism), ("guarantee", release.guarantee),
               ("spent", ", ".join(f"{k}={spent[k]:g}" for k in ("epsilon", "delta", "rho")
                                   if isinstance(spent.get(k), (int, float)))),
               ("release file", str(release.location) if release.location is not None else "(not saved)"))
    notes = () if real is not None else ("Public: computed from the release alone. Pass the real data (--data) for "
                                         "a NOT PRIVATE comparison, for the curator's eyes only.",)
    return Report(title=f"dprelease report: {release.mechanism} release", summary=summary, sections=tuple(sections),
                  banner=BANNER if real is not None else "", notes=notes)


def render(report: Report, fmt: str) -> str:
    """``"html"`` or ``"md"``."""
    if fmt == "html":
        return render_html(report)
    if fmt == "md":
        return render_markdown(report)
    raise InputError(f"format must be one of {list(FORMATS)}, got {fmt!r}")


__all__ = ["BANNER", "FORMATS", "Report", "build_report", "render", "render_html", "render_markdown"]
