"""The report's noise section: each measurement's expected L1 noise, and the columns whose 1-way one is mostly noise."""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np
import pytest

from dprelease import Dataset, Domain
from dprelease.api import synthesize
from dprelease.report import build_report, render_markdown
from dprelease.report.noise import measured_noise, noise_section, reading

TITLE = "How much noise each measurement carries"


@dataclass
class FakeRelease:
    """What the section reads: the domain and the transcript."""

    domain: Domain
    transcript: list = field(default_factory=list)


def test_one_measurement_carries_its_cells_times_its_mean_absolute_noise():
    domain = Domain(("a", "b"), (4, 3))
    found = measured_noise(FakeRelease(domain, [
        {"round": 0, "action": "measure", "marginal": ["a"], "laplace_scale": 0.05},
        {"round": 1, "action": "select+measure", "marginal": ["a", "b"], "gaussian_sigma": 0.01}]))
    assert found[("a",)]["expected_l1"] == pytest.approx(4 * 0.05)  # Laplace: E|Z| = b
    assert found[("a", "b")]["expected_l1"] == pytest.approx(12 * 0.01 * math.sqrt(2 / math.pi))


def test_repeated_measurements_average_with_inverse_variance_weights():
    domain = Domain(("a",), (10,))
    found = measured_noise(FakeRelease(domain, [{"marginal": ["a"], "gaussian_sigma": 0.3},
                                                {"marginal": ["a"], "gaussian_sigma": 0.4}]))
    combined = 1 / math.sqrt(1 / 0.3 ** 2 + 1 / 0.4 ** 2)  # 0.24: sharper than either
    assert found[("a",)]["times"] == 2
    assert found[("a",)]["expected_l1"] == pytest.approx(10 * combined * math.sqrt(2 / math.pi))


def test_measurements_before_a_renormalization_carry_its_ratio():
    """An add/remove run pools its noisy count with INIT's totals and rescales what it measured by n_estimate /
    pooled_count, noise included; the transcript keeps the scales as measured. A person-level draw with a noisy count
    of 14,452 for 7,582 rows (pooled 8,053) read its 1-way noise 1.8x too small, and named 1 column mostly noise, not
    2."""
    domain = Domain(("a", "b"), (4, 3))
    found = measured_noise(FakeRelease(domain, [
        {"round": 0, "action": "count", "n_estimate": 2_000},
        {"round": 0, "action": "measure", "marginal": ["a"], "laplace_scale": 0.05},
        {"round": 0, "action": "renormalize", "n_estimate": 2_000, "pooled_count": 1_000},
        {"round": 1, "action": "select+measure", "marginal": ["a", "b"], "gaussian_sigma": 0.01}]))
    assert found[("a",)]["expected_l1"] == pytest.approx(4 * 0.05 * 2)
    assert found[("a", "b")]["expected_l1"] == pytest.approx(12 * 0.01 * math.sqrt(2 / math.pi))  # measured after


def test_an_add_remove_release_records_its_renormalization_for_the_report():
    """The entry the report reads is there, with the two counts, in a real add/remove run that pools."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(small_table(2_000), "1-2way", epsilon=0.5, privacy_unit="add-remove", seed=2)
    renormalized = [e for e in release.transcript if isinstance(e, dict) and e.get("action") == "renormalize"]
    assert len(renormalized) == 1 and renormalized[0]["pooled_count"] != renormalized[0]["n_estimate"]
    ratio = renormalized[0]["n_estimate"] / renormalized[0]["pooled_count"]
    first = next(e for e in release.transcript if isinstance(e, dict) and e.get("marginal") == ["code"])
    noise = first.get("laplace_scale") or first["gaussian_sigma"] * math.sqrt(2 / math.pi)
    assert measured_noise(release)[("code",)]["mean_abs"] == pytest.approx(noise * ratio)  # its first measurement


def test_the_drowned_note_of_a_person_level_run_names_the_table_its_noise_is_that_of():
    from dprelease.report.noise import drowned_note
    domain = Domain(("a", "b"), (12, 3))
    transcript = [{"marginal": ["a"], "laplace_scale": 0.1}, {"marginal": ["b"], "laplace_scale": 0.01}]
    person = FakeRelease(domain, transcript)
    person.parameters = {"rows_per_person": 256, "normalizer": 8_053}
    assert drowned_note(person).endswith("a person-level run at 256 rows a person over about 8,053 rows has the noise "
                                         "of a table of about 31 rows (a smaller --rows-per-person, or a larger "
                                         "epsilon, sharpens it)")
    assert "(a)" in drowned_note(FakeRelease(domain, transcript))
    assert "person" not in drowned_note(FakeRelease(domain, transcript))


def test_a_compressed_measurement_counts_its_compressed_cells():
    domain = Domain(("a", "b"), (40, 40))
    found = measured_noise(FakeRelease(domain, [{"marginal": ["a", "b"], "gaussian_sigma": 0.01,
                                                 "compressed_cells": 100}]))
    assert found[("a", "b")]["cells"] == 100


def test_readings_follow_the_bands():
    assert [reading(x) for x in (0.0, 0.099, 0.1, 0.99, 1.0, 30.0)] == \
        ["sharp", "sharp", "noisy", "noisy", "mostly noise", "mostly noise"]


def test_a_joint_measurement_says_the_one_way_marginals_are_its_sums():
    domain = Domain(("a", "b"), (3, 4))
    section = noise_section(FakeRelease(domain, [{"marginal": ["a", "b"], "laplace_scale": 0.001}]))
    texts = [b.text for b in section.blocks if hasattr(b, "text")]
    assert any(t.startswith("No 1-way marginal was measured on its own") for t in texts)
    assert "1 larger marginal measured: expected L1 noise 0.012." in texts


def test_no_noise_scale_no_section():
    domain = Domain(("a",), (3,))
    assert noise_section(FakeRelease(domain, [{"marginal": ["a"], "epsilon": 0.1}])) is None


def small_table(n: int) -> Dataset:
    """5 columns, 7,200 cells: too many for the joint plan, so INIT measures each column on its own."""
    rng = np.random.Generator(np.random.PCG64(11))
    sizes = (2, 60, 4, 3, 5)
    return Dataset.from_records(np.stack([rng.integers(0, s, n) for s in sizes], axis=1),
                                Domain(("flag", "code", "group", "shift", "site"), sizes))


def markdown_of(data: Dataset, epsilon: float) -> str:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(data, "1-2way", epsilon=epsilon, seed=4)
    return render_markdown(build_report(release))


def test_a_small_budget_flags_the_wide_column_and_not_the_binary_one():
    page = markdown_of(small_table(300), 0.1)
    assert f"## {TITLE}" in page
    warning = next(line for line in page.splitlines() if "mostly noise in their 1-way measurement" in line)
    assert "(code" in warning and "flag" not in warning
    row = next(line for line in page.splitlines() if line.startswith("| flag |"))
    assert not row.endswith("| mostly noise |")


def test_a_large_budget_flags_nothing():
    page = markdown_of(small_table(20_000), 10.0)
    assert f"## {TITLE}" in page
    assert "mostly noise in their 1-way measurement" not in page
    assert "measured columns' 1-way measurements carry expected L1 noise under 1" in page


def test_synth_on_the_command_line_names_the_drowned_columns(capsys, tmp_path):
    from dprelease.cli import main

    def run(n: int, epsilon: str, *quiet: str) -> str:
        data = small_table(n)
        path = tmp_path / f"data{n}.csv"
        path.write_text(",".join(data.domain.attributes) + "\n"
                        + "\n".join(",".join(map(str, r)) for r in data.records.tolist()) + "\n")
        domain = tmp_path / "domain.json"
        domain.write_text('{"flag": 2, "code": 60, "group": 4, "shift": 3, "site": 5}')
        assert main(["synth", str(path), "--domain", str(domain), "--epsilon", epsilon, "--workload", "1-2way",
                     "--out", str(tmp_path / f"out{n}.csv"), "--seed", "4", *quiet]) == 0
        captured = capsys.readouterr()
        assert len(captured.out.splitlines()) == 2  # stdout keeps its two result lines for scripts
        return captured.err

    lines = [line for line in run(300, "0.1").splitlines() if line.startswith("note:")]
    assert len(lines) == 1 and lines[0].startswith("note: at this budget the 1-way measurement of ")
    assert "(code" in lines[0] and "flag" not in lines[0]
    assert "note:" not in run(20_000, "10")
    assert "note:" not in run(300, "0.1", "--quiet")  # quiet: no progress line and no note
