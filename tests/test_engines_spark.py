"""Spark, a real local[2] session (one for this module): the three engines agree bit for bit; faults are one line.

Runs wherever pyspark and a Java runtime are present; ``make test`` installs the ``spark`` extra when it
finds Java and sets DPRELEASE_REQUIRE_SPARK=1, so there a missing pyspark fails instead of skipping.
The session's death is the module's last test: it kills the JVM this module started.
"""

from __future__ import annotations

import os
import shutil
import signal
import warnings

import numpy as np
import pytest

from dprelease.api import synthesize
from dprelease.engines.duckdb_engine import DuckDBTable
from dprelease.engines.registry import auto_engine, open_table
from dprelease.engines.spark_engine import DEFAULT_JAVA_HOME, SparkTable
from dprelease.errors import EngineError, InputError
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import SeededRandom
from tests.engine_tables import DOMAIN, ORDERS, dataset, records, same_bits, write_tables


def spark_missing() -> str | None:
    """Why Spark cannot run here, or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install 'dprelease[spark]')"
    java_home = os.environ.get("JAVA_HOME", DEFAULT_JAVA_HOME)
    if not os.path.exists(os.path.join(java_home, "bin", "java")) and shutil.which("java") is None:
        return "no Java runtime (set JAVA_HOME)"
    return None


REASON = spark_missing()
if REASON and os.environ.get("DPRELEASE_REQUIRE_SPARK") == "1":
    raise RuntimeError(f"DPRELEASE_REQUIRE_SPARK=1 but Spark cannot run: {REASON}")
pytestmark = pytest.mark.skipif(REASON is not None, reason=str(REASON))


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    from dprelease.engines.spark_engine import local_session

    # Spark's scratch files under pytest's temporary folder: the JVM killed below cannot clean them itself.
    session = local_session(2, app_name="dprelease-tests", local_dir=str(tmp_path_factory.mktemp("spark-local")))
    session.sparkContext.setLogLevel("ERROR")
    yield session
    try:
        session.stop()
    except Exception:  # noqa: BLE001 - the last test killed its JVM on purpose
        pass


@pytest.fixture(scope="module")
def rows() -> np.ndarray:
    return records(11)


@pytest.fixture(scope="module")
def files(tmp_path_factory, rows):
    return write_tables(tmp_path_factory.mktemp("spark-tables"), rows)


@pytest.fixture(scope="module")
def frame(spark, rows):
    return spark.createDataFrame([tuple(int(v) for v in r) for r in rows], list(DOMAIN.attributes))


def test_three_engines_give_identical_marginals_fingerprints_and_releases(spark, files, frame, rows):
    memory = dataset(rows)
    assert auto_engine(frame) == "spark"
    on_spark = open_table(frame, DOMAIN)  # auto: a Spark DataFrame goes to Spark
    with DuckDBTable.open(files["glob"], DOMAIN) as on_duckdb:
        tables = {"memory": memory, "duckdb": on_duckdb, "spark": on_spark}
        for name, table in tables.items():
            assert table.n == memory.n, name
            for attributes in ORDERS:
                assert same_bits(table.marginal_counts(attributes), memory.marginal_counts(attributes)), (name, attributes)
            assert table.fingerprint() == memory.fingerprint(), name
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            releases = {name: synthesize(table, "1-2way", epsilon=1.0, seed=0) for name, table in tables.items()}
    expected = releases.pop("memory")
    for name, got in releases.items():
        assert np.array_equal(got.rows, expected.rows), name
        assert all(same_bits(x, y) for x, y in zip(got.answers, expected.answers)), name
        assert got.privacy_ledger == expected.privacy_ledger and got.transcript == expected.transcript, name
    assert on_spark.path == "grouped"


def test_the_per_set_path_on_spark_reading_parquet_parts_gives_the_same_counts(spark, files, rows):
    memory = dataset(rows)
    table = open_table(files["glob"], DOMAIN, engine="spark", spark=spark, max_distinct_rows=0, batch_size=8)
    table.prefetch([("a", "b", "c"), ("c", "d"), ("a", "d"), ("b",)])  # one Spark job for the 3 maximal sets
    for attributes in [("d", "c"), ("c", "a", "b"), ("a",), ("d", "a"), ("b", "d")]:
        assert same_bits(table.marginal_counts(attributes), memory.marginal_counts(attributes)), attributes
    assert table.path == "per-set"
    assert table.fingerprint() == memory.fingerprint()  # streamed through toLocalIterator


def test_bad_spark_columns_and_paths_are_one_line_without_values(spark, tmp_path):
    bad = spark.createDataFrame([(0, 77, "1", 2.0), (1, 1, "x-secret", 2.5)], ["a", "b", "c", "d"])
    with pytest.raises(InputError) as exc:
        SparkTable(bad, DOMAIN)
    assert str(exc.value) == ("Spark DataFrame: column 'b' has values outside the codes 0..2; column 'c' has values "
                              "that are not numbers; column 'd' has values that are not whole numbers (codes are "
                              "integers)")
    typed = spark.createDataFrame([(0, True, 1, 1)], ["a", "b", "c", "d"])
    with pytest.raises(InputError, match=r"^Spark DataFrame: column 'b' has type BooleanType; expected integer codes$"):
        SparkTable(typed, DOMAIN)
    with pytest.raises(InputError, match="does not exist"):
        open_table(str(tmp_path / "missing.parquet"), DOMAIN, engine="spark", spark=spark)
    with pytest.raises(InputError, match=r"lacks column\(s\) \['d'\]"):
        SparkTable(typed.drop("d"), DOMAIN)


def test_a_spark_session_dying_mid_count_spends_nothing(spark, frame):
    """Last in the module: kills this module's JVM after the first of several counts."""
    table = SparkTable(frame, DOMAIN, max_distinct_rows=0, batch_size=1)
    count_sets = table._count_sets

    def count_then_die(sets):
        counts = count_sets(sets)
        os.kill(spark.sparkContext._gateway.proc.pid, signal.SIGKILL)  # the JVM this module started
        spark.sparkContext._gateway.proc.wait(timeout=30)
        return counts

    table._count_sets = count_then_die
    # pyspark's accumulator server prints a traceback when its JVM peer vanishes; that noise is expected here.
    spark.sparkContext._accumulatorServer.handle_error = lambda *args: None
    accountant = PrivacyAccountant(epsilon=1.0)
    measurer = PrivateMeasurer(table, accountant=accountant, rng=SeededRandom(0))
    estimates = [np.full((2, 3), 1 / 6), np.full((5,), 0.2), np.full((300,), 1 / 300)]
    with pytest.raises(EngineError) as exc:
        measurer.select_marginal([("a", "b"), ("c",), ("d",)], estimates, epsilon=0.5, label="select")
    message = str(exc.value)
    assert "\n" not in message and message.startswith("Spark DataFrame: Spark failed while counting 1 marginal(s) (")
    assert accountant.ledger == []
    with pytest.raises(EngineError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        synthesize(table, "1-2way", epsilon=1.0, seed=0)
