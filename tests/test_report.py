"""``dprelease report``: self-contained HTML (rendered by a real headless Chromium), Markdown, NOT PRIVATE iff --data."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import warnings
from html import unescape
from pathlib import Path

import numpy as np
import pytest

from dprelease import Dataset, Domain
from dprelease.api import synthesize
from dprelease.cli import main
from dprelease.release import Release
from dprelease.report import BANNER, build_report, render_markdown
from dprelease.report.public import charge_kind

SECTIONS = ("Guarantee", "Privacy ledger", "The mechanism&#x27;s rounds", "Released answers and the synthetic table")
NOT_PRIVATE = "NOT PRIVATE: the release against the real data"
#: Any reference that leaves the file: a URL, protocol-relative or absolute, in src= or href= (quoted or not).
EXTERNAL = re.compile(r"""(?:src|href)\s*=\s*["']?\s*(?:[a-z][a-z0-9+.-]*:)?//""", re.IGNORECASE)


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[str, Path]:
    """A real MWEM release (Gaussian: zCDP ledger) of a small skewed table, and the table as CSV."""
    folder = tmp_path_factory.mktemp("report")
    domain = Domain(("age", "sex", "race", "hours"), (12, 2, 5, 30))
    rng = np.random.Generator(np.random.PCG64(3))
    age = rng.integers(0, 12, 1500)
    records = np.stack([age, rng.integers(0, 2, 1500), np.minimum(rng.geometric(0.6, 1500) - 1, 4),
                        np.clip(age * 2 + rng.integers(0, 6, 1500), 0, 29)], axis=1)
    data = Dataset.from_records(records, domain)
    (folder / "real.csv").write_text(",".join(domain.attributes) + "\n"
                                     + "\n".join(",".join(map(str, r)) for r in records.tolist()) + "\n")
    (folder / "domain.json").write_text('{"age": 12, "sex": 2, "race": 5, "hours": 30}')
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(data, "1-2way", epsilon=1.0, delta=1e-6, rounds=6, seed=2)
    release.save(folder / "synth.csv", folder / "release.json")
    return {"folder": folder, "release": folder / "release.json", "real": folder / "real.csv",
            "domain": folder / "domain.json"}


@pytest.fixture(scope="module")
def pages(made) -> dict[str, Path]:
    """The HTML report drawn once without and once with --data (charts take seconds): shared by the tests."""
    public, private = made["folder"] / "public.html", made["folder"] / "private.html"
    assert main(["report", str(made["release"]), "--out", str(public)]) == 0
    assert main(["report", str(made["release"]), "--out", str(private), "--data", str(made["real"]),
                 "--domain", str(made["domain"])]) == 0
    return {"public": public, "private": private}


def report(capsys, made, out: Path, *extra: str) -> str:
    code = main(["report", str(made["release"]), "--out", str(out), *extra])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return out.read_text(encoding="utf-8")


def test_html_is_self_contained_with_guarantee_and_ledger(made, pages):
    html = pages["public"].read_text(encoding="utf-8")
    release = Release.load(made["release"])
    assert EXTERNAL.search(html) is None and "http://" not in html and "https://" not in html
    images = re.findall(r'<img alt="[^"]*" src="data:image/png;base64,[A-Za-z0-9+/=]+">', html)
    assert len(images) >= 3  # the ledger, the rounds, the 1-way marginals
    for title in SECTIONS:
        assert f">{title}</h2>" in html
    assert "(epsilon=1, delta=1e-06)-differential privacy: MWEM with Gaussian" in html
    for charge in release.privacy_ledger["charges"]:
        assert f"<td>{charge['label']}</td>" in html  # every charge of the ledger is listed
    assert NOT_PRIVATE not in html and BANNER not in unescape(html)


def test_not_private_section_appears_only_with_data(pages):
    html = pages["private"].read_text(encoding="utf-8")
    assert EXTERNAL.search(html) is None
    assert BANNER in unescape(html) and html.index('class="banner"') < html.index("<h1>")
    assert NOT_PRIVATE in html and '<section class="private">' in html
    assert "independent noisy 1-way marginals" in html and "uniform (no data)" in html
    assert "The worst marginals, real against synthetic" in html
    plain = pages["public"].read_text(encoding="utf-8")
    assert '<section class="private">' not in plain and 'class="banner"' not in plain


def test_markdown_needs_no_matplotlib_and_has_the_same_content(capsys, made, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib now raises ImportError
    text = report(capsys, made, tmp_path / "r.md", "--data", str(made["real"]))
    assert text.startswith("> **This file contains NON-PRIVATE information")
    for title in ("Guarantee", "Privacy ledger", "The mechanism's rounds", "Released answers and the synthetic table",
                  NOT_PRIVATE):
        assert f"## {title}" in text
    assert "| kind of step | steps | rho | share of the total |" in text
    assert "| round | rho | gaussian_sigma |" in text  # the per-round chart, as its table
    assert "<img" not in text and "data:image" not in text
    public = report(capsys, made, tmp_path / "public.txt", "--format", "md")
    assert NOT_PRIVATE not in public and "NON-PRIVATE" not in public
    # Without matplotlib the HTML still renders: tables in place of the charts, and a note.
    html = report(capsys, made, tmp_path / "r.html")
    assert "<img" not in html and "The charts need matplotlib" in html and "kind of step" in html


def test_rounds_render_whatever_numeric_fields_are_present(made):
    release = Release.load(made["release"])
    transcript = [{"round": t, "action": "select+measure", "marginal": ["age", "sex"], "gap_l1": 1.0 / t,
                   "note": "text is kept out of the charts"} for t in range(1, 5)] + ["not a dict", {"no": "round"}]
    changed = Release(**{**release.__dict__, "transcript": transcript})
    text = render_markdown(build_report(changed))
    assert "| round | gap_l1 |" in text and "noisy measurement and the model's estimate" in text
    assert "| age, sex | 4 |" in text  # what the rounds selected, counted
    empty = render_markdown(build_report(Release(**{**release.__dict__, "transcript": []})))
    assert "The transcript records no rounds." in empty


def test_a_round_of_several_measurements_shows_their_spend_summed_and_their_scales_as_a_range(made):
    """INIT's round 0 and the direct plan's measure several marginals in one round: the per-round table must not show
    the first of them as the round's spend."""
    release = Release.load(made["release"])
    transcript = [{"round": 0, "action": "measure", "marginal": [a], "epsilon": e, "laplace_scale": b}
                  for a, e, b in (("age", 0.25, 0.004), ("sex", 0.125, 0.008))]
    transcript += [{"round": 1, "action": "select+measure", "marginal": ["age", "sex"], "epsilon": 0.625,
                    "laplace_scale": 0.002}]
    text = render_markdown(build_report(Release(**{**release.__dict__, "transcript": transcript})))
    assert "| 0 | 0.375 | 0.004-0.008 |" in text and "| 1 | 0.625 | 0.002 |" in text


def test_charge_kinds():
    assert charge_kind("round 12: measure") == "measure"
    assert charge_kind("init: age") == "init"
    assert charge_kind("IC: 40 rounds") == "IC"
    assert charge_kind("select") == "select"


# ------------------------------------------------------------ headless Chromium
def chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        found = shutil.which(name)
        if found:
            return found
    return None


def screenshot(browser: str, page: Path, png: Path, profile: Path) -> np.ndarray:
    done = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--no-first-run", f"--user-data-dir={profile}", "--window-size=1000,1400",
                           f"--screenshot={png}", page.as_uri()], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and png.exists(), done.stderr[-2000:]
    from matplotlib.image import imread

    return imread(png)[..., :3]  # floats in [0, 1]


@pytest.mark.skipif(chromium() is None, reason="no chromium binary installed (Debian: apt-get install chromium)")
def test_chromium_renders_the_report_not_blank(pages, tmp_path):
    pixels = screenshot(chromium(), pages["private"], tmp_path / "shot.png", tmp_path / "profile")
    assert pixels.shape[:2] == (1400, 1000)
    non_white = (pixels < 0.94).any(axis=2)
    assert non_white.mean() > 0.05 and pixels.std() > 0.1  # text, tables and charts, not an empty page
    banner_red = (np.abs(pixels - np.array([0xb0, 0x00, 0x20]) / 255).max(axis=2) < 0.08)
    assert banner_red[:150].mean() > 0.05  # the NOT PRIVATE banner is drawn at the top
    # The charts' second colour (#d1603d) appears nowhere in the page's CSS: seeing it means the inline
    # PNGs were decoded and drawn.
    chart_orange = (np.abs(pixels - np.array([0xd1, 0x60, 0x3d]) / 255).max(axis=2) < 0.08)
    assert chart_orange.sum() > 500


def test_a_folder_given_as_the_release_is_one_line(capsys, tmp_path, monkeypatch):
    """`dprelease report .` died in a traceback (a folder has no name to put the side file's beside)."""
    monkeypatch.chdir(tmp_path)
    for folder in (".", str(tmp_path)):
        assert main(["report", folder, "--out", "report.html"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert err == [f"dprelease: error: release {folder!r} is a folder; give the release's JSON file"]
    assert list(tmp_path.iterdir()) == []


def test_the_curator_report_of_a_release_made_through_a_schema_reads_the_raw_table(tmp_path, capsys):
    """--data for a release made through a schema is the raw table (text, blanks), encoded by the release's own
    schema; before, it was read as codes and refused. The comparison is written, 0600, and says NOT PRIVATE."""
    import pandas as pd

    from dprelease.synthesizer import Synthesizer

    rng = np.random.Generator(np.random.PCG64(5))
    frame = pd.DataFrame({"job": rng.choice(["clerk", "smith", ""], 600), "age": rng.integers(18, 80, 600).astype(str)})
    schema = {"format": "dprelease-schema/1", "columns": {
        "job": {"type": "categorical", "values": ["clerk", "smith"], "null": True},
        "age": {"type": "integer", "bounds": [18, 79], "width": 20}}}
    data = tmp_path / "people.csv"
    frame.to_csv(data, index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synth = Synthesizer("mwem", epsilon=1.0, workload="1-2way", seed=0)
        synth.fit(data, schema=schema)
    synth.release.save(tmp_path / "rows.csv", tmp_path / "release.json")
    out = tmp_path / "curator.md"
    assert main(["report", str(tmp_path / "release.json"), "--data", str(data), "--out", str(out), "--quiet"]) == 0
    text = out.read_text()
    assert "NOT PRIVATE: the release against the real data" in text and "| job, age |" in text.replace("`", "")
    assert out.stat().st_mode & 0o777 == 0o600
