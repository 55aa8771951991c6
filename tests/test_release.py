"""Releases: content, atomic saving, rows drawn or rounded from the model."""

from __future__ import annotations

import csv
import json
import warnings

import numpy as np
import pytest

import dprelease
from dprelease.api import synthesize
from dprelease.release import Release, write_atomic


@pytest.fixture
def release():
    domain = dprelease.Domain(("a", "b", "c"), (2, 3, 2))
    rng = np.random.Generator(np.random.PCG64(0))
    records = np.stack([rng.integers(0, s, 500) for s in domain.sizes], axis=1)
    data = dprelease.Dataset.from_records(records, domain)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return synthesize(data, "1-2way", epsilon=1.0, rounds=3, seed=0)


def test_release_json_has_everything(tmp_path, release):
    release.save(tmp_path / "rows.csv", tmp_path / "release.json")
    payload = json.loads((tmp_path / "release.json").read_text())
    assert payload["privacy_ledger"]["spent"]["epsilon"] == 1.0
    assert payload["privacy_ledger"]["spent"]["epsilon_exact"] == "1"
    assert "same public number of rows" in payload["privacy_unit"]
    assert len(payload["transcript"]) == 3 + 3  # 3 init measurements + 3 rounds
    assert [a["marginal"] for a in payload["workload_answers"]] == [list(m) for m in release.workload.marginals]
    assert payload["side_file"]["name"] == "release.answers.npz"
    for answer in Release.load(tmp_path / "release.json").answers:
        assert answer.sum() == pytest.approx(1.0)
    with open(tmp_path / "rows.csv", newline="") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == ["a", "b", "c"] and len(rows) == 501
    # no temp files left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release.answers.npz", "release.json", "rows.csv"]


def test_round_rows_match_model_counts():
    domain = dprelease.Domain(("a",), (4,))
    from dprelease.representations import HistogramModel

    model = HistogramModel(domain, np.log(np.array([0.5, 0.25, 0.125, 0.125])))
    rows = model.round(8, dprelease.privacy.SeededRandom(0))
    assert np.bincount(rows[:, 0], minlength=4).tolist() == [4, 2, 1, 1]
    rows = model.round(3, dprelease.privacy.SeededRandom(0))
    assert len(rows) == 3


def test_atomic_write_leaves_nothing_on_failure(tmp_path):
    target = tmp_path / "out.csv"
    with pytest.raises(TypeError):
        write_atomic(target, 12345)  # not text: the write fails
    assert list(tmp_path.iterdir()) == []
    write_atomic(target, "x\n")
    assert target.read_text() == "x\n" and len(list(tmp_path.iterdir())) == 1
