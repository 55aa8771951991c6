"""Spark, a real local[2] session (one for this module): the three engines agree bit for bit; faults are one line.

For the same table and seed, memory, DuckDB and Spark give bit-identical marginals, fingerprints, ledgers and
releases, for tables of codes and for raw tables encoded by a schema (in numpy, in DuckDB's SQL, in Spark's),
down to the sha256 of every file ``dprelease synth`` writes.

Runs wherever pyspark and a Java runtime are present; ``make test`` installs the ``spark`` extra when it
finds Java and sets DPRELEASE_REQUIRE_SPARK=1, so there a missing pyspark fails instead of skipping.
Tables are tiny and jobs few (a Spark job costs ~0.3-1 s here, the session ~10 s). The session's death is
the module's last test: it kills the JVM this module started.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import warnings

import numpy as np
import pytest

from dprelease import Dataset
from dprelease.api import synthesize
from dprelease.cli import main
from dprelease.engines.duckdb_engine import DuckDBTable
from dprelease.engines.registry import auto_engine, open_table
from dprelease.engines.spark_engine import DEFAULT_JAVA_HOME, SparkTable
from dprelease.errors import InputError
from dprelease.privacy import accountant as accounting
from dprelease.schema import encode
from tests import odd_csv
from tests.counting import count_random_draws
from tests.engine_tables import DOMAIN, ORDERS, dataset, records, same_bits, write_tables
from tests.raw_tables import text_rows, text_schema, typed_schema, write_text_csv, write_typed_parquet


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


#: A short-lived JVM: the C1 compiler only, and the serial collector. The module's jobs are many small
#: first-time plans, where C2's compilations cost more CPU than they save: 31 s against 54-58 s here (load 3-4.5),
#: half the CPU. A session for real tables keeps the JVM's defaults (local_session() without config).
JVM_CONFIG = {"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"}


@pytest.fixture(scope="module")
def spark(tmp_path_factory):
    from dprelease.engines.spark_engine import local_session

    # Spark's scratch files under pytest's temporary folder: the JVM killed below cannot clean them itself.
    session = local_session(2, app_name="dprelease-tests", local_dir=str(tmp_path_factory.mktemp("spark-local")),
                            config=JVM_CONFIG)
    session.sparkContext.setLogLevel("ERROR")
    session.conf.set("spark.sql.shuffle.partitions", "2")  # tiny tables: fewer tasks per job
    yield session
    try:
        session.stop()
    except Exception:  # noqa: BLE001 - the last test killed its JVM on purpose
        pass


@pytest.fixture(scope="module")
def rows() -> np.ndarray:
    return records(11, n=1500)


@pytest.fixture(scope="module")
def files(tmp_path_factory, rows):
    return write_tables(tmp_path_factory.mktemp("spark-tables"), rows)


@pytest.fixture(scope="module")
def raw(tmp_path_factory):
    folder = tmp_path_factory.mktemp("spark-raw")
    text = write_text_csv(folder / "text.csv")
    schema = text_schema(buckets="both", rows=len(text_rows()))
    schema.to_json(folder / "schema.json")
    return {"csv": text, "schema": schema, "schema_file": folder / "schema.json", "folder": folder,
            "typed": write_typed_parquet(folder / "typed.parquet", 60)}


def quiet_synthesize(table, workload, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return synthesize(table, workload, epsilon=1.0, seed=0, **options)


def test_three_engines_give_identical_marginals_fingerprints_and_releases(spark, files, rows):
    memory = dataset(rows)
    frame = spark.read.parquet(files["parquet"])
    assert auto_engine(frame) == "spark"
    on_spark = open_table(frame, DOMAIN)  # auto: a Spark DataFrame goes to Spark
    with DuckDBTable.open(files["glob"], DOMAIN) as on_duckdb:
        tables = {"memory": memory, "duckdb": on_duckdb, "spark": on_spark}
        for name, table in tables.items():
            assert table.n == memory.n, name
            for attributes in ORDERS:
                assert same_bits(table.marginal_counts(attributes), memory.marginal_counts(attributes)), (name, attributes)
            assert table.fingerprint() == memory.fingerprint(), name
        releases = {name: quiet_synthesize(table, "1-2way") for name, table in tables.items()}
    releases["spark-frame"] = quiet_synthesize(frame, "1-2way", domain=DOMAIN)  # synthesize opens the frame itself
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


#: One text column of each kind (tests/test_schema_sql.py runs every column through DuckDB; a Spark job over
#: them all costs ~10 s more on a cold JVM).
KINDS = ["row", "age", "income", "code", "joined", "login", "member", "sex"]
#: One typed Parquet column per raw Spark type and the kinds whose SQL differs for it.
TYPED = ["row", "i_int", "u_int", "f_num", "f_int", "f_codes", "f_cat", "f_bool", "dec_num", "b_bool", "b_cat",
         "d_date", "d_dt", "ts_dt", "ts_date", "tstz_dt", "s_cat"]


def test_raw_tables_encode_identically_in_spark(spark, raw):
    """The text table's tricky values and every typed Parquet column, encoded in Spark SQL: the in-memory codes."""
    for source, schema in [(raw["csv"], raw["schema"].select(KINDS)), (raw["typed"], typed_schema(60).select(TYPED))]:
        codes = encode(source, schema)
        expected = Dataset(schema.domain, codes, None, len(codes))
        table = open_table(str(source), schema=schema, engine="spark", spark=spark)
        assert table.fingerprint() == expected.fingerprint(), source  # every distinct row and its count
    strict = text_schema(buckets="none", rows=len(text_rows())).select(KINDS)
    with pytest.raises(InputError) as exc:
        encode(raw["csv"], strict)
    with pytest.raises(InputError) as got:
        open_table(str(raw["csv"]), schema=strict, engine="spark", spark=spark)
    assert str(got.value) == str(exc.value)


def test_a_duration_encodes_in_spark_as_in_memory(spark, tmp_path):
    """A day-time interval column is read as its seconds in Spark SQL, as a Parquet INTERVAL in memory (numpy's
    timedelta64) and DuckDB, and a DataFrame's timedelta column: the same codes, NULLs and fractions of a second
    included."""
    import duckdb

    from dprelease.schema import Schema

    rng = np.random.Generator(np.random.PCG64(12))
    micros = (rng.exponential(600, 400) * 1e6).astype(np.int64)
    micros[::17] = -1  # NULL
    path = tmp_path / "durations.parquet"
    connection = duckdb.connect()
    connection.execute("CREATE TABLE t (us BIGINT)")
    connection.executemany("INSERT INTO t VALUES (?)", [[None if m < 0 else int(m)] for m in micros])
    connection.execute(f"COPY (SELECT to_microseconds(us) AS session FROM t) TO '{path}' (FORMAT parquet)")
    connection.close()
    schema = Schema.from_dict({"format": "dprelease-schema/1", "columns": {
        "session": {"type": "numeric", "bounds": [0, 3000], "bins": 12, "clip": True, "null": True}}})
    expected = Dataset(schema.domain, codes := encode(str(path), schema), None, len(codes))
    assert len(set(codes[:, 0].tolist())) > 5
    import pandas as pd

    timedeltas = pd.to_timedelta(np.where(micros < 0, np.nan, micros), unit="us")  # a DataFrame's: the same codes
    assert np.array_equal(encode(pd.DataFrame({"session": timedeltas}), schema), codes)
    assert open_table(str(path), schema=schema, engine="duckdb").fingerprint() == expected.fingerprint()
    frame = spark.createDataFrame([(None if m < 0 else int(m),) for m in micros], "us long").selectExpr(
        "make_dt_interval(0, 0, 0, CAST(us AS DECIMAL(18, 0)) / 1000000) AS session")
    assert type(frame.schema["session"].dataType).__name__ == "DayTimeIntervalType"
    assert open_table(frame, schema=schema, engine="spark").fingerprint() == expected.fingerprint()
    mapped = spark.createDataFrame([({"a": 1},)], "session map<string, int>")  # no engine's SQL encodes a map
    with pytest.raises(InputError, match=r"^Spark DataFrame: column 'session' has type MapType, which engine 'spark' "
                                         r"does not encode as a numeric column \(engine 'memory' reads such a column "
                                         r"of a file as its text; a Spark DataFrame's can be cast to a string first\)$"):
        open_table(mapped, schema=schema, engine="spark")


def test_a_column_between_two_dates_encodes_in_spark_as_in_memory(spark, tmp_path):
    """A stay computed between two date columns (blanks, clipped ends, a second date before the first, a table
    column of the stay's name that is not read): Spark SQL's codes are the in-memory encoder's, and a stay out of
    bounds is the same error."""
    from tests.test_between_columns import DATES, schema_of, stays_table

    path = tmp_path / "stays.csv"
    stays_table().to_csv(path, index=False)
    schema = schema_of(DATES)
    codes = encode(str(path), schema)
    expected = Dataset(schema.domain, codes, None, len(codes))
    assert open_table(str(path), schema=schema, engine="spark", spark=spark).fingerprint() == expected.fingerprint()
    strict = schema_of({**DATES, "stay": {**DATES["stay"], "clip": False}})
    with pytest.raises(InputError) as memory:
        encode(str(path), strict)
    with pytest.raises(InputError) as got:
        open_table(str(path), schema=strict, engine="spark", spark=spark)
    assert str(got.value) == str(memory.value)


def test_durations_written_as_text_encode_in_spark_as_in_memory(spark, tmp_path):
    """h:mm:ss and m:ss durations (hours past 23, a sign, spaces, wrong minutes, too many digits, blanks): Spark
    SQL's codes are the in-memory encoder's, and a table they cannot all be read from is the same error."""
    import pandas as pd

    from tests.test_durations_text import TRICKY, schema

    path = tmp_path / "durations.csv"
    pd.DataFrame({"d": TRICKY}).to_csv(path, index=False)
    codes = encode(str(path), schema(other=True))
    expected = Dataset(schema(other=True).domain, codes, None, len(codes))
    table = open_table(str(path), schema=schema(other=True), engine="spark", spark=spark)
    assert table.fingerprint() == expected.fingerprint()
    with pytest.raises(InputError) as memory:
        encode(str(path), schema())
    with pytest.raises(InputError) as got:
        open_table(str(path), schema=schema(), engine="spark", spark=spark)
    assert str(got.value) == str(memory.value)


def test_a_column_between_two_integer_columns_encodes_in_spark_as_in_memory(spark, tmp_path):
    """An age between a birth year and a survey year (a blank, infinite, fractional and huge years, text, years out
    of bounds, a survey before the birth): Spark SQL's codes are the in-memory encoder's."""
    from tests.test_between_columns import AGES, ages_table, schema_of

    path = tmp_path / "ages.csv"
    ages_table().to_csv(path, index=False)
    schema = schema_of(AGES)
    codes = encode(str(path), schema)
    expected = Dataset(schema.domain, codes, None, len(codes))
    assert open_table(str(path), schema=schema, engine="spark", spark=spark).fingerprint() == expected.fingerprint()
    typed = spark.createDataFrame([(1950, 2020), (None, 2021), (1990, 2000), (2005, 2001), (1921, 2030)],
                                  "born bigint, year bigint")
    rows = np.array([[5, 4, 7], [11, 4, 10], [9, 0, 1], [10, 0, 0], [2, 4, 9]])
    assert open_table(typed, schema=schema, engine="spark").fingerprint() == \
        Dataset(schema.domain, rows, None, len(rows)).fingerprint()


def test_a_between_column_until_an_extraction_date_encodes_in_spark_as_in_memory(spark, tmp_path):
    """Stays still running (a blank discharge) counted to the schema's until, beside a discharge that is not a date
    and one past the bounds: Spark SQL's codes are the in-memory encoder's."""
    from tests.test_between_columns import RUNNING, running_table, schema_of

    path = tmp_path / "running.csv"
    running_table().to_csv(path, index=False)
    schema = schema_of(RUNNING)
    codes = encode(str(path), schema)
    expected = Dataset(schema.domain, codes, None, len(codes))
    assert open_table(str(path), schema=schema, engine="spark", spark=spark).fingerprint() == expected.fingerprint()


def sha256(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.mark.parametrize("kind", ["schema", "domain"])
def test_every_engine_writes_the_same_release_files(spark, raw, files, kind, capsys):
    """``dprelease synth --engine X``: the same bytes in the rows, the release JSON and its side file."""
    if kind == "schema":
        data, source = str(raw["csv"]), ["--schema", str(raw["schema_file"]), "--columns", "age,income,sex,joined"]
    else:
        domain = raw["folder"] / "domain.json"
        domain.write_text(json.dumps(DOMAIN.to_dict()))
        data, source = files["csv"], ["--domain", str(domain)]
    digests = {}
    for engine in ("memory", "duckdb", "spark"):
        folder = raw["folder"] / kind / engine  # the same names in each (the release JSON names its side file)
        folder.mkdir(parents=True)
        out, release = folder / "rows.csv", folder / "release.json"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = main(["synth", data, *source, "--workload", "1-2way", "--epsilon", "1", "--seed", "3",
                         "--out", str(out), "--release", str(release), "--quiet", "--engine", engine])
        assert code == 0, capsys.readouterr().err
        files_written = sorted(p.name for p in folder.iterdir())
        assert files_written == ["release.answers.npz", "release.json", "rows.csv"], files_written
        digests[engine] = [sha256(folder / name) for name in files_written]
    assert digests["duckdb"] == digests["memory"] and digests["spark"] == digests["memory"]


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


@pytest.mark.parametrize("mode", ["coded", "raw"])
def test_odd_csv_files_read_in_spark_as_in_memory(spark, tmp_path, mode):
    """tests/odd_csv.py's files. Spark read lines of another length (extra fields dropped, missing ones NULL),
    ``"1"x`` as text, a quote never closed as a cell to the end of the file, and LF and CRLF in one file as
    other rows; a local file is now read by the in-memory reader first, which refuses them in its words."""
    for k, (name, text, _) in enumerate(odd_csv.CASES):
        path = odd_csv.write(tmp_path, f"odd-{k}.csv", text)
        assert odd_csv.read(path, "spark", mode, spark=spark) == odd_csv.read(path, "memory", mode), name
    text, expected = odd_csv.STRAY_QUOTE
    assert odd_csv.read(odd_csv.write(tmp_path, "stray.csv", text), "spark", "raw", spark=spark) == expected
    spaces = odd_csv.write(tmp_path, "spaces.csv", "a\n0\n   \n1\n")  # one column: a line of spaces is a row
    one = odd_csv.SCHEMA.select(["a"])
    counts = open_table(spaces, schema=one, engine="spark", spark=spark).marginal_counts(["a"]).tolist()
    assert counts == open_table(spaces, schema=one, engine="memory").marginal_counts(["a"]).tolist() == [1, 1, 1, 0]


def test_a_header_in_another_case_is_said_to_be_so_in_spark_as_in_memory(spark, tmp_path):
    for k, (text, _) in enumerate(odd_csv.LOOSE_HEADERS):
        path = odd_csv.write(tmp_path, f"loose-{k}.csv", text)
        assert odd_csv.read(path, "spark", "raw", spark=spark) == odd_csv.read(path, "memory", "raw"), text


def test_a_file_without_a_header_row_is_refused_in_the_same_words_without_its_record(spark, tmp_path, capfd):
    path = odd_csv.write(tmp_path, "bare.csv", "1,SECRET\n0,2\n")
    messages = {engine: odd_csv.read(path, engine, "coded", **({"spark": spark} if engine == "spark" else {}))
                for engine in ("memory", "duckdb", "spark")}
    assert set(messages.values()) == {f"data file {path!r} lacks column(s) ['a', 'b'] of the domain; its header has 2 "
                                      "cells, none of them a declared column (not quoted, as they may be a record: "
                                      "does the file have a header row?)"}, messages
    assert "SECRET" not in capfd.readouterr().err


def test_some_columns_of_a_file_without_a_header_are_found_by_their_place_in_spark(spark, tmp_path):
    """As in memory and DuckDB (tests/test_engines_csv_headers.py): a schema of some columns reads a headerless file
    by the whole schema's places."""
    whole = odd_csv.HEADERLESS_SCHEMA
    path = tmp_path / "bare.csv"
    path.write_text(odd_csv.HEADERLESS)
    some = whole.select(["b", "a"])
    codes = encode(path, some)
    assert np.array_equal(codes, encode(path, whole)[:, [2, 0]])
    table = open_table(str(path), schema=some, engine="spark", spark=spark)
    assert table.fingerprint() == Dataset(some.domain, codes, None, len(codes)).fingerprint()


def _encodes_in_spark_as_in_memory(spark, path, schema) -> bool:
    """Whether Spark's encoding of the CSV at ``path`` has the in-memory encoder's fingerprint."""
    codes = encode(path, schema)
    table = open_table(str(path), schema=schema, engine="spark", spark=spark)
    return table.fingerprint() == Dataset(schema.domain, codes, None, len(codes)).fingerprint()


def test_numbers_written_with_a_decimal_comma_encode_in_spark_as_in_memory(spark, tmp_path):
    """As in memory and DuckDB (tests/test_engines_csv_headers.py): 1.234,5 is 1234.5 under "decimal": ","."""
    path = tmp_path / "eu.csv"
    path.write_text(odd_csv.DECIMAL, encoding="utf-8")
    assert _encodes_in_spark_as_in_memory(spark, path, odd_csv.DECIMAL_SCHEMA)


def test_numbers_with_thousands_separators_and_signs_encode_in_spark_as_in_memory(spark, tmp_path):
    """As in memory and DuckDB (tests/test_engines_csv_headers.py): $1,234.50, 12 % and 1 234,5 read alike."""
    path = tmp_path / "us.csv"
    path.write_text(odd_csv.SIGNS, encoding="utf-8")
    assert _encodes_in_spark_as_in_memory(spark, path, odd_csv.SIGNS_SCHEMA)


def test_dates_written_in_a_declared_format_encode_in_spark_as_in_memory(spark, tmp_path):
    """As in memory and DuckDB (tests/test_engines_csv_headers.py): a date column's ``format`` reads 10/3/2019 and
    Jan 05, 2020 12:00:00 AM by the same regular expression and checks, in Java's regex dialect, to the same codes;
    on the fuzzed values too, most of them wrong in some field."""
    path = tmp_path / "dates.csv"
    path.write_text(odd_csv.DATES, encoding="utf-8")
    assert _encodes_in_spark_as_in_memory(spark, path, odd_csv.DATES_SCHEMA)
    assert _encodes_in_spark_as_in_memory(spark, *odd_csv.fuzzed_dates_table(tmp_path))


def test_a_gzipped_csv_encodes_in_spark_as_in_memory(spark, tmp_path):
    """As in memory and DuckDB (tests/test_engines_csv_headers.py): a ``.csv.gz`` file reads to the same codes."""
    import gzip

    with gzip.open(tmp_path / "dates.csv.gz", "wt", encoding="utf-8", newline="") as handle:
        handle.write(odd_csv.DATES)
    assert _encodes_in_spark_as_in_memory(spark, tmp_path / "dates.csv.gz", odd_csv.DATES_SCHEMA)


def test_a_failed_spark_query_is_not_logged_with_its_message(spark):
    """PySpark logs a failed query's message (which may quote a value or a record) on stderr as it raises it."""
    import io
    import logging

    from pyspark.logger import PySparkLogger

    logger = PySparkLogger.getLogger("DataFrameQueryContextLogger")
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger.addHandler(handler)
    frame = spark.createDataFrame([(1,)], ["a"])
    try:
        with pytest.raises(InputError, match=r"^Spark DataFrame: Spark failed while checking the table \("):
            with SparkTable._reading_static("Spark DataFrame", "checking the table", opening=True):
                frame.select("SECRET").collect()
    finally:
        logger.removeHandler(handler)
    assert stream.getvalue() == ""


# ---------------------------------------------------------------------------------------- person-level runs
def test_spark_reads_rows_with_their_persons_and_the_release_is_memorys(spark, tmp_path):
    """A person-level run read by Spark (a CSV file, and a Spark DataFrame) keeps the same rows and releases the same
    as the memory engine for a seed: the ids ranked alike, the rows bounded in the kernel's canonical order."""
    import warnings

    import numpy as np

    from dprelease.api import synthesize_table
    from tests.test_person_level import VISITS_SCHEMA, visits

    frame = visits(persons=300)
    path = tmp_path / "visits.csv"
    frame.to_csv(path, index=False)

    def release(source, engine):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return synthesize_table(source, VISITS_SCHEMA, "1-2way", epsilon=1.0, privacy_id="patient",
                                    rows_per_person=2, seed=4, engine=engine)  # spark: the fixture's active session

    reference = release(path, "memory")
    from_file = release(path, "spark")
    from_frame = release(spark.createDataFrame(list(frame.itertuples(index=False)), list(frame.columns)), "spark")
    for other in (from_file, from_frame):
        assert np.array_equal(other.rows, reference.rows) and other.parameters == reference.parameters
    with pytest.raises(InputError, match="has no privacy_id column 'nobody'"):
        synthesize_table(path, VISITS_SCHEMA, "1-2way", epsilon=1.0, privacy_id="nobody", rows_per_person=2,
                         seed=4, engine="spark")


def test_a_spark_session_dying_mid_count_spends_nothing_and_writes_nothing(spark, raw, monkeypatch, capsys):
    """Last in the module: ``dprelease synth --engine spark`` loses its JVM during the first count."""
    grouped = SparkTable._group_rows

    def die_then_group(self, cap):
        os.kill(spark.sparkContext._gateway.proc.pid, signal.SIGKILL)  # the JVM this module started
        spark.sparkContext._gateway.proc.wait(timeout=30)
        return grouped(self, cap)

    monkeypatch.setattr(SparkTable, "_group_rows", die_then_group)
    accountants = []
    made = accounting.PrivacyAccountant.__init__

    def remember(self, *args, **kwargs):
        made(self, *args, **kwargs)
        accountants.append(self)

    monkeypatch.setattr(accounting.PrivacyAccountant, "__init__", remember)
    # pyspark's accumulator server prints a traceback when its JVM peer vanishes; that noise is expected here.
    spark.sparkContext._accumulatorServer.handle_error = lambda *args: None
    draws = count_random_draws(monkeypatch)
    out = raw["folder"] / "dead"
    out.mkdir()
    code = main(["synth", str(raw["csv"]), "--schema", str(raw["schema_file"]), "--columns", "age,sex",
                 "--workload", "1-2way", "--epsilon", "1", "--out", str(out / "rows.csv"),
                 "--release", str(out / "release.json"), "--quiet", "--engine", "spark"])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith(f"dprelease: error: data file {str(raw['csv'])!r}: Spark failed while grouping the "
                          "table into distinct rows ("), err
    assert err.rstrip().endswith("nothing was read from the table")
    assert list(out.iterdir()) == []  # nothing written
    assert accountants and all(a.ledger == [] for a in accountants)  # nothing spent
    assert draws == []  # no noise drawn


