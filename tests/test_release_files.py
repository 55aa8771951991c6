"""Release files (JSON + npz side file) and labelled answers: round trip, size, integrity, axis order."""

from __future__ import annotations

import json
import sys
import warnings

import numpy as np
import pytest

import dprelease
from dprelease.api import synthesize
from dprelease.errors import InputError
from dprelease.release import Release
from dprelease.release import files as release_files


@pytest.fixture
def small_release() -> Release:
    """A real MWEM release (Gaussian, so its transcript and measurements are all there) on a small table."""
    domain = dprelease.Domain(("a", "b", "c", "d"), (3, 4, 2, 40))
    rng = np.random.Generator(np.random.PCG64(7))
    records = np.stack([rng.integers(0, s, 400) for s in domain.sizes], axis=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return synthesize(dprelease.Dataset.from_records(records, domain), "1-3way", epsilon=1.0, delta=1e-6,
                          rounds=4, seed=1)


def wide_release(cells_per_attribute: int) -> Release:
    """A release with one 3-way marginal of ``cells_per_attribute ** 3`` cells and long measurement lists."""
    domain = dprelease.Domain(("x", "y", "z"), (cells_per_attribute,) * 3)
    workload = dprelease.Workload(domain, (("x", "y", "z"),))
    rng = np.random.Generator(np.random.PCG64(cells_per_attribute))
    answer = rng.dirichlet(np.ones(domain.size)).reshape(domain.shape)
    noisy = (answer + rng.normal(0, 1e-3, answer.shape)).reshape(-1).tolist()
    return Release(
        mechanism="mwem", domain=domain, workload=workload, guarantee="(epsilon=1, delta=0)-DP (test)",
        parameters={"epsilon": 1.0}, privacy_ledger={"spent": {"epsilon": 1.0, "delta": 0.0}, "charges": []},
        transcript=[{"round": 1, "marginal": ["x", "y", "z"]}], answers=[answer],
        rows=rng.integers(0, cells_per_attribute, size=(500, 3)), rows_method="round", seeded=True,
        extra={"measurements": [{"attributes": ["x", "y", "z"], "values": noisy}]},
    )


def assert_same_release(a: Release, b: Release) -> None:
    assert b.domain == a.domain and b.workload == a.workload
    assert len(a.answers) == len(b.answers)
    for x, y in zip(a.answers, b.answers):
        assert x.dtype == y.dtype == np.float64 and np.array_equal(x, y)  # bit for bit
    assert b.rows.dtype == a.rows.dtype and np.array_equal(a.rows, b.rows)
    assert (b.mechanism, b.guarantee, b.rows_method, b.seeded) == (a.mechanism, a.guarantee, a.rows_method, a.seeded)
    assert b.parameters == json.loads(json.dumps(a.parameters))
    assert b.privacy_ledger == a.privacy_ledger and b.transcript == json.loads(json.dumps(a.transcript))
    assert b.extra == json.loads(json.dumps(a.extra))
    assert b.to_json() == a.to_json()


# ----------------------------------------------------------------- round trip
def test_save_load_round_trips_exactly(tmp_path, small_release):
    small_release.save(tmp_path / "rows.csv", tmp_path / "rel.json")
    loaded = Release.load(tmp_path / "rel.json")
    assert_same_release(small_release, loaded)
    assert loaded.location == tmp_path / "rel.json"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rel.answers.npz", "rel.json", "rows.csv"]


def test_long_lists_move_to_the_side_file_and_come_back(tmp_path):
    release = wide_release(12)  # 1,728 cells: the measurement list is long enough to move
    release.save(tmp_path / "r.csv", tmp_path / "r.json")
    document = json.loads((tmp_path / "r.json").read_text())
    (measurement,) = document["measurements"]
    assert set(measurement["values"]) == {"$side_array", "as"}
    assert_same_release(release, Release.load(tmp_path / "r.json"))


def test_json_size_does_not_grow_with_the_answers(tmp_path):
    small, large = wide_release(10), wide_release(60)  # 1,000 vs 216,000 cells (and measurement values)
    small.save(tmp_path / "s.csv", tmp_path / "s.json")
    large.save(tmp_path / "l.csv", tmp_path / "l.json")
    small_json, large_json = (tmp_path / "s.json").stat().st_size, (tmp_path / "l.json").stat().st_size
    assert large_json < 4096 and abs(large_json - small_json) < 64
    assert (tmp_path / "l.answers.npz").stat().st_size > 216_000 * 8  # the answers are in the side file


def test_same_release_gives_same_bytes(tmp_path, small_release):
    small_release.save(tmp_path / "1.csv", tmp_path / "1.json")
    small_release.save(tmp_path / "2.csv", tmp_path / "2.json")
    one, two = (json.loads((tmp_path / f"{i}.json").read_text())["side_file"] for i in (1, 2))
    assert one["sha256"] == two["sha256"] and one["bytes"] == two["bytes"]


def test_the_pair_moves_together(tmp_path, small_release):
    small_release.save(tmp_path / "rows.csv", tmp_path / "a" / "rel.json")
    moved = tmp_path / "b"
    (tmp_path / "a").rename(moved)
    assert_same_release(small_release, Release.load(moved / "rel.json"))


# ------------------------------------------------------------------ integrity
def test_missing_side_file_is_one_clear_error(tmp_path, small_release):
    small_release.save(tmp_path / "rows.csv", tmp_path / "rel.json")
    (tmp_path / "rel.answers.npz").unlink()
    with pytest.raises(InputError, match=r"side file 'rel.answers.npz' .* missing"):
        Release.load(tmp_path / "rel.json")


def test_altered_side_file_is_one_clear_error(tmp_path, small_release):
    small_release.save(tmp_path / "rows.csv", tmp_path / "rel.json")
    side = tmp_path / "rel.answers.npz"
    data = bytearray(side.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit
    side.write_bytes(bytes(data))
    with pytest.raises(InputError, match="does not match the SHA-256"):
        Release.load(tmp_path / "rel.json")


@pytest.mark.parametrize(("content", "message"), [
    (None, "cannot be read"), ("{not json", "not valid JSON"), ('{"a": 1}', "not a dprelease release"),
    ('{"mechanism": "mwem", "privacy_ledger": {}, "workload_answers": []}', "lacks an entry of a release"),
    ('{"format": "dprelease-release/9", "mechanism": "mwem", "privacy_ledger": {}}', "has format 'dprelease-release/9'"),
])
def test_bad_release_json_is_one_clear_error(tmp_path, content, message):
    path = tmp_path / "r.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(InputError, match=message):
        Release.load(path)


def test_failed_side_file_write_leaves_nothing(tmp_path, small_release, monkeypatch):
    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(np.lib.format, "write_array", fail)
    with pytest.raises(OSError):
        small_release.save(tmp_path / "rows.csv", tmp_path / "rel.json")
    # The rows were written first; no JSON (it comes last), no side file, no temporary file.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.csv"]


def test_repr_is_short_and_says_where(tmp_path, small_release):
    text = repr(small_release)
    assert len(text.splitlines()) <= 4 and len(text) < 400
    assert "mwem" in text and "400 synthetic rows" in text and "14 workload marginals" in text
    assert "SEEDED" in text and "not saved" in text
    small_release.save(tmp_path / "rows.csv", tmp_path / "rel.json")
    assert str(tmp_path / "rel.json") in repr(small_release)


# ----------------------------------------------------------- labelled answers
def test_marginal_array_follows_the_order_asked(small_release):
    released = small_release.answers[small_release.workload.marginals.index(("a", "b", "d"))]
    assert np.array_equal(small_release.marginal_array(("a", "b", "d")), released)
    assert np.array_equal(small_release.marginal_array(("d", "a", "b")), released.transpose(2, 0, 1))
    assert small_release.marginal_array(["b", "a"]).shape == (4, 3)


def test_marginal_inside_a_released_one_is_summed(tmp_path):
    release = wide_release(5)  # only the 3-way marginal is released
    assert np.allclose(release.marginal_array(("z", "x")), release.answers[0].sum(axis=1).T)
    with pytest.raises(KeyError, match="not in the released workload"):
        small = Release(**{**release.__dict__, "workload": dprelease.Workload(release.domain, (("x", "y"),)),
                           "answers": [release.answers[0].sum(axis=2)]})
        small.marginal_array(("z",))


def test_marginal_is_labelled_in_the_order_asked(small_release):
    pandas = pytest.importorskip("pandas")
    series = small_release.marginal(("b", "a"))
    assert isinstance(series, pandas.Series) and list(series.index.names) == ["b", "a"]
    assert series.loc[(3, 1)] == small_release.marginal_array(("a", "b"))[1, 3]
    table = series.unstack()
    assert table.shape == (4, 3) and list(table.columns) == [0, 1, 2]
    one = small_release.marginal("c")
    assert one.index.name == "c" and list(one.index) == [0, 1]


def test_marginal_labels_come_from_the_hook(small_release):
    pytest.importorskip("pandas")

    class Names:
        def labels(self, attribute):
            return [f"{attribute}{i}" for i in range(small_release.domain.size_of(attribute))]

    labelled = Release(**{**small_release.__dict__, "labels": Names()})
    series = labelled.marginal(("c", "a"))
    assert series.loc[("c1", "a2")] == small_release.marginal_array(("c", "a"))[1, 2]

    class Bins:  # labels whose sorted order is not the codes' order, as bins' labels are ("21..25" < "6..10")
        def labels(self, attribute):
            return [f"{10 - i}..{10 - i}" for i in range(small_release.domain.size_of(attribute))]

    table = Release(**{**small_release.__dict__, "labels": Bins()}).marginal(("a", "b")).unstack()
    assert list(table.index) == ["10..10", "9..9", "8..8"] and list(table.columns) == ["10..10", "9..9", "8..8", "7..7"]
    assert np.allclose(table.to_numpy(), small_release.marginal_array(("a", "b")))  # code order, not sorted labels

    class Short:
        def labels(self, attribute):
            return ["only one"]

    with pytest.raises(InputError, match="labels of attribute 'c' must name its 2 values, got 1"):
        Release(**{**small_release.__dict__, "labels": Short()}).marginal(("c",))


def test_marginal_without_pandas_is_the_array(small_release, monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now raises ImportError
    got = small_release.marginal(("d", "a"))
    assert isinstance(got, np.ndarray) and np.array_equal(got, small_release.marginal_array(("d", "a")))


def test_rows_are_stored_in_the_smallest_type():
    assert release_files.rows_dtype((2, 256)) == np.uint8
    assert release_files.rows_dtype((257,)) == np.uint16
    assert release_files.rows_dtype((70_000,)) == np.uint32


def test_to_json_is_still_one_whole_document(small_release):
    """The service keeps a release as one JSON document: to_json keeps the answers inline."""
    document = small_release.to_json()
    assert [a["marginal"] for a in document["workload_answers"]] == [list(m) for m in small_release.workload.marginals]
    for entry, answer in zip(document["workload_answers"], small_release.answers):
        assert entry["fractions"] == answer.reshape(-1).tolist()
    assert "side_file" not in document and json.loads(json.dumps(document)) == document


def test_a_release_with_its_answers_inline_loads_with_or_without_its_rows(small_release, tmp_path):
    """What dprelease serve returns (to_json: answers inline, rows counted) reads back: the answers exactly, the rows
    from the service's rows.csv when given (their count checked), none without it; and format 1, the same document
    with no format field, reads the same way."""
    document = small_release.to_json()
    assert document["format"] == release_files.INLINE_FORMAT
    path, rows = tmp_path / "service.json", tmp_path / "rows.csv"
    path.write_text(json.dumps(document))
    rows.write_text(small_release.rows_csv())
    bare = Release.load(path)
    assert all(np.array_equal(a, b) for a, b in zip(bare.answers, small_release.answers))
    assert bare.workload.marginals == small_release.workload.marginals and bare.guarantee == small_release.guarantee
    assert bare.rows.shape == (0, 4) and bare.extra["synthetic_rows_released"] == len(small_release.rows)
    whole = Release.load(path, rows=rows)
    assert np.array_equal(whole.rows, small_release.rows) and "synthetic_rows_released" not in whole.extra
    assert whole.privacy_ledger == small_release.privacy_ledger and whole.rows_method == small_release.rows_method
    legacy = dict(document)
    del legacy["format"]
    path.write_text(json.dumps(legacy))
    assert all(np.array_equal(a, b) for a, b in zip(Release.load(path).answers, small_release.answers))
    rows.write_text("\n".join(small_release.rows_csv().splitlines()[:-1]) + "\n")  # one row short
    with pytest.raises(InputError, match="rows file .* has 399 rows; release file .* released 400: it belongs to "
                                         "another release"):
        Release.load(path, rows=rows)
    small_release.save(tmp_path / "r.csv", tmp_path / "r.json")
    with pytest.raises(InputError, match="keeps its rows in its side file"):
        Release.load(tmp_path / "r.json", rows=rows)
