"""Bad tables and failing engines: one line naming the problem, no private value, nothing spent, nothing written.

The kernel reads before it pays (privacy/measurer.py): a read that fails charges nothing, and a charge,
once made, stands whatever fails after it. Both directions are checked on every measurer method.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np
import pytest

from dprelease import Domain, ProductQuery
from dprelease.api import synthesize
from dprelease.engines.duckdb_engine import DuckDBTable
from dprelease.engines.registry import open_table
from dprelease.errors import EngineError, InputError
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import RandomSource, SeededRandom
from dprelease.privacy.zcdp import ZCDPAccountant
from dprelease.queries.workload import Workload
from tests.engine_tables import DOMAIN, records, write_tables

SMALL = Domain(("a", "b"), (2, 3))


def write_parquet(path: Path, select_sql: str) -> str:
    import duckdb

    duckdb.connect().execute(f"COPY ({select_sql}) TO '{path}' (FORMAT parquet)")
    return str(path)


def one_line(exc: pytest.ExceptionInfo) -> str:
    message = str(exc.value)
    assert "\n" not in message and message
    return message


# ----------------------------------------------------------------------------- bad tables (DuckDB)
BAD_COLUMNS = [  # (SQL for a two-column table with one bad column, the exact problem, private text never shown)
    ("SELECT 1 AS a, 97 AS b", "column 'b' has values outside the codes 0..2", "97"),
    ("SELECT 1 AS a, -4 AS b", "column 'b' has values outside the codes 0..2", "-4"),
    ("SELECT 1 AS a, 1.5 AS b", "column 'b' has values that are not whole numbers (codes are integers)", "1.5"),
    ("SELECT 1 AS a, NULL::INT AS b", "column 'b' has empty or missing cells", None),
    ("SELECT 1 AS a, 'secret-7' AS b", "column 'b' has values that are not numbers", "secret-7"),
    ("SELECT 1 AS a, 'nan'::DOUBLE AS b", "column 'b' has missing (NaN) or infinite values", None),
    ("SELECT 1 AS a, DATE '2024-01-02' AS b", "column 'b' has type DATE; expected integer codes", "2024"),
    ("SELECT 1 AS a, true AS b", "column 'b' has type BOOLEAN; expected integer codes", None),
]


@pytest.mark.parametrize("select_sql, problem, private", BAD_COLUMNS)
def test_a_bad_column_is_named_with_its_problem_and_no_value(tmp_path, select_sql, problem, private):
    path = write_parquet(tmp_path / "t.parquet", select_sql)
    with pytest.raises(InputError) as exc:
        DuckDBTable.open(path, SMALL)
    assert one_line(exc) == f"data file {path!r}: {problem}"
    assert private is None or private not in str(exc.value).replace(path, "")


def test_csv_text_and_ragged_lines_are_named_without_their_content(tmp_path):
    text = tmp_path / "text.csv"
    text.write_text("a,b\n0,1\n1,password123\n")
    with pytest.raises(InputError) as exc:
        DuckDBTable.open(str(text), SMALL)
    assert one_line(exc) == f"data file {str(text)!r}: column 'b' has values that are not numbers"
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b\n0,1\n1,2,secret99\n")
    with pytest.raises(InputError) as exc:
        DuckDBTable.open(str(ragged), SMALL)
    assert one_line(exc) == (f"data file {str(ragged)!r} cannot be read as CSV "
                             "(a line has more or fewer fields than the header)")
    assert "secret99" not in str(exc.value)


def test_missing_files_globs_and_columns_are_named(tmp_path):
    with pytest.raises(InputError) as exc:
        open_table(str(tmp_path / "nope.parquet"), SMALL)
    assert one_line(exc) == f"data file {str(tmp_path / 'nope.parquet')!r} does not exist"
    with pytest.raises(InputError) as exc:
        open_table(str(tmp_path / "part-*.parquet"), SMALL)
    assert one_line(exc) == f"no data file matches {str(tmp_path / 'part-*.parquet')!r}"
    path = write_parquet(tmp_path / "t.parquet", "SELECT 1 AS a, 2 AS other")
    with pytest.raises(InputError) as exc:
        open_table(path, SMALL)
    assert one_line(exc) == f"data file {path!r} lacks column(s) ['b'] of the domain; it has ['a'] and 1 other column not declared (not quoted)"
    empty = write_parquet(tmp_path / "empty.parquet", "SELECT 1 AS a, 1 AS b WHERE false")
    with pytest.raises(InputError, match="has no rows"):
        open_table(empty, SMALL)


@pytest.mark.parametrize("content", [b"this is not a parquet file at all", "truncated"])
def test_a_corrupt_parquet_file_is_named(tmp_path, content):
    good = write_parquet(tmp_path / "good.parquet", "SELECT range % 2 AS a, range % 3 AS b FROM range(1000)")
    bad = tmp_path / "bad.parquet"
    data = Path(good).read_bytes()
    bad.write_bytes(data[: len(data) // 2] if content == "truncated" else content)
    with pytest.raises(InputError) as exc:
        open_table([good, str(bad)], SMALL)
    assert one_line(exc).startswith(f"data file {str(bad)!r} cannot be read as Parquet (")


# ------------------------------------------------------------------------- a failing engine read
class FailingTable:
    """A PrivateTable whose every private read fails the way an engine does (a dead session)."""

    domain = SMALL
    n = 10

    def marginal_counts(self, attributes):
        raise EngineError("Spark DataFrame: Spark failed while counting 1 marginal(s) (Py4JNetworkError); "
                          "nothing was read from the table")

    def marginal(self, attributes):
        return self.marginal_counts(attributes) / self.n

    def fingerprint(self):
        raise EngineError("the session died")


class BrokenRandom(RandomSource):
    """A noise source that fails on its first draw: a failure *after* the read."""

    def raw_bits(self, size):
        raise RuntimeError("the noise source failed")


WORKLOAD = Workload.all_kway(SMALL, 2, smallest=1)
QUERY = ProductQuery.conjunction(SMALL, {"a": 1})
ESTIMATES = [np.full((2,), 0.5), np.full((2, 3), 1 / 6)]

#: Every measurer method: (name, accountant kind, call).
CALLS = [
    ("laplace_marginal", "pure", lambda m: m.laplace_marginal(("a", "b"), epsilon=0.5, label="x")),
    ("gaussian_marginal", "zcdp", lambda m: m.gaussian_marginal(("a",), rho=0.01, label="x")),
    ("laplace_query", "pure", lambda m: m.laplace_query(QUERY, epsilon=0.5, label="x")),
    ("laplace_queries", "pure", lambda m: m.laplace_queries(WORKLOAD, [0, 3], epsilon_each=0.1, label="x")),
    ("select_query", "pure", lambda m: m.select_query(WORKLOAD, np.zeros(WORKLOAD.num_queries), epsilon=0.5,
                                                      label="x")),
    ("select_database", "pure", lambda m: m.select_database(WORKLOAD, np.zeros((3, WORKLOAD.num_queries)),
                                                            epsilon=0.5, label="x")),
    ("select_marginal", "pure", lambda m: m.select_marginal([("a",), ("a", "b")], ESTIMATES, epsilon=0.5,
                                                            label="x")),
    ("select_marginal (zCDP)", "zcdp", lambda m: m.select_marginal([("a",), ("a", "b")], ESTIMATES, epsilon=0.2,
                                                                   label="x")),
    ("laplace_marginal (reservation)", "reserved", lambda m: m.laplace_marginal(("a",), epsilon=0.1, label="x")),
]


def measurer_on(table, kind: str, rng: RandomSource):
    if kind == "zcdp":
        accountant = ZCDPAccountant(epsilon=1.0, delta=1e-6)
        return PrivateMeasurer(table, accountant=accountant, rng=rng), lambda: list(accountant.ledger)
    accountant = PrivacyAccountant(epsilon=1.0)
    if kind == "reserved":
        reservation = accountant.reserve(epsilon_each=0.1, count=5, label="plan")
        measurer = PrivateMeasurer(table, accountant=accountant, rng=rng, reservation=reservation)
        return measurer, lambda: (list(accountant.ledger), reservation.used)
    return PrivateMeasurer(table, accountant=accountant, rng=rng), lambda: list(accountant.ledger)


@pytest.mark.parametrize("name, kind, call", CALLS, ids=[c[0] for c in CALLS])
def test_a_failed_read_charges_nothing(name, kind, call):
    measurer, ledger = measurer_on(FailingTable(), kind, SeededRandom(0))
    before = ledger()
    with pytest.raises(EngineError):
        call(measurer)
    assert ledger() == before


@pytest.mark.parametrize("name, kind, call", CALLS, ids=[c[0] for c in CALLS])
def test_a_charge_after_a_successful_read_is_never_undone(name, kind, call):
    from tests.engine_tables import dataset

    table = dataset(np.array([[i % 2, i % 3] for i in range(10)]), SMALL)
    measurer, ledger = measurer_on(table, kind, BrokenRandom())
    before = ledger()
    with pytest.raises(RuntimeError, match="the noise source failed"):
        call(measurer)  # read succeeded, charge made, then the noise failed: nothing released, charge stands
    assert ledger() != before


def test_boosting_draws_charge_nothing_when_the_read_fails():
    accountant = PrivacyAccountant(epsilon=1.0, delta=1e-6)
    reservation = accountant.reserve(epsilon_each=0.01, count=10, label="draws")
    measurer = PrivateMeasurer(FailingTable(), accountant=accountant, rng=SeededRandom(0))
    with pytest.raises(EngineError):
        measurer.boosting_draws(WORKLOAD, np.zeros((1, WORKLOAD.num_queries)), lambda_=0.1, mu=0.1, rounds=2,
                                count=3, epsilon_each=0.01, reservation=reservation, label="x")
    assert reservation.used == 0


# ------------------------------------------------------------------ a real engine failing mid-run
def test_a_file_vanishing_mid_run_spends_nothing_and_writes_nothing(tmp_path, monkeypatch):
    files = write_tables(tmp_path / "data", records(3))
    monkeypatch.chdir(tmp_path)
    before = sorted(os.listdir(tmp_path))
    table = DuckDBTable.open(files["glob"], DOMAIN, max_distinct_rows=0)  # opened and checked: all fine
    os.remove(Path(files["folder"]) / "part-1.parquet")  # then a part vanishes before any count
    accountant = PrivacyAccountant(epsilon=1.0)
    measurer = PrivateMeasurer(table, accountant=accountant, rng=SeededRandom(0))
    with pytest.raises(EngineError) as exc:
        measurer.laplace_marginal(("a", "c"), epsilon=0.5, label="x")
    assert one_line(exc) == (f"data files {files['glob']!r}: DuckDB failed while counting 1 marginal(s) "
                             "(IOException); nothing was read from the table")
    assert accountant.ledger == []
    with pytest.raises(EngineError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthesize(table, "1-2way", epsilon=1.0, seed=0)
    table.close()
    assert sorted(os.listdir(tmp_path)) == before  # no spill folder, no stray file


def test_spill_folder_is_removed_on_close(tmp_path):
    files = write_tables(tmp_path, records(4))
    table = DuckDBTable.open(files["parquet"], DOMAIN, memory_limit="64MiB")
    table.marginal_counts(("a", "d"))
    spill = table._spill_folder
    table.close()
    assert spill is not None and not os.path.exists(spill)


def test_spark_without_a_java_runtime_is_one_line_and_writes_nothing(tmp_path, monkeypatch, capsys):
    """``--engine spark`` where no Java runtime is found: the launcher is never started (it would print lines of
    its own); where pyspark is missing, the line says so instead."""
    from dprelease.cli import main

    try:
        from pyspark.sql import SparkSession
    except ImportError:
        pass
    else:
        if SparkSession.getActiveSession() is not None:
            pytest.skip("a Spark session is already running in this process")
    files = write_tables(tmp_path / "data", records(5, n=50))
    (tmp_path / "domain.json").write_text('{"a": 2, "b": 3, "c": 5, "d": 300}')
    monkeypatch.setenv("JAVA_HOME", str(tmp_path / "no-jdk"))
    out = tmp_path / "out"
    code = main(["synth", files["parquet"], "--domain", str(tmp_path / "domain.json"), "--workload", "1way",
                 "--epsilon", "1", "--out", str(out / "rows.csv"), "--quiet", "--engine", "spark"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert ("needs a Java runtime" in err and "no-jdk" in err) or "needs pyspark" in err, err
    assert not out.exists()
