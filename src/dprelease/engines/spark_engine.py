"""Spark: a private table in a Spark DataFrame, counted on whatever master its session has.

``pyspark`` is an optional extra (``pip install 'dprelease[spark]'``, and a Java runtime). The table
is a DataFrame of integer codes, or files read by a session::

    from pyspark.sql import SparkSession
    spark = SparkSession.builder.master("spark://host:7077").getOrCreate()   # or local_session()
    table = SparkTable.open("hdfs:///data/coded/", domain, spark=spark)       # or SparkTable(frame, domain)

The same two counting paths as DuckDB (:mod:`dprelease.engines.table`): one ``groupBy`` of every domain
column, collected to the driver when the distinct rows fit ``max_distinct_rows``; otherwise
``groupingSets`` over the requested marginals, a batch per Spark job, each set reduced to one flat
cell index on the cluster so that only (set, cell, count) triples come back. Checks run as one
aggregation when the table is opened, before any private read; errors name the column and the kind
of problem, never a value (Spark's own messages may quote one, so only its error class is kept).
"""

from __future__ import annotations

import math
import os
import shutil
import subprocess
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import reduce

import numpy as np

from dprelease.domain import Domain
from dprelease.engines.base import domain_or_schema
from dprelease.engines.counting import CHUNK_ROWS, DEFAULT_MEMORY_LIMIT, DistinctRows, parse_memory_limit
from dprelease.engines.csv_layout import (CsvLayout, check_read_options, check_rows, coded_layout, column_names,
                                          csv_layout)
from dprelease.engines.files import detect_format, resolve_files
from dprelease.engines.persons import PersonRows
from dprelease.engines.spark_raw import encode_frame, person_rows
from dprelease.engines.sql_text import SPARK
from dprelease.engines.table import DEFAULT_BATCH, CountingTable
from dprelease.errors import EngineError, InputError, InputTypeError
from dprelease.schema import Schema
from dprelease.schema.tables import header_text
from dprelease.validation import check_positive_int

#: Where this project's machines keep their JDK; used only when JAVA_HOME is unset and it exists.
DEFAULT_JAVA_HOME = "/usr/lib/jvm/java-17-openjdk-amd64"
#: Distinct rows collected to the driver at most (as Python rows: about 200 bytes each on the way).
SPARK_MAX_DISTINCT_ROWS = 1_000_000

_INTEGER_TYPES = ("ByteType", "ShortType", "IntegerType", "LongType")
_NUMBER_TYPES = ("FloatType", "DoubleType", "DecimalType")


def _pyspark():
    if "JAVA_HOME" not in os.environ and os.path.isdir(DEFAULT_JAVA_HOME):
        os.environ["JAVA_HOME"] = DEFAULT_JAVA_HOME
    try:
        from pyspark.sql import functions
    except ImportError:
        raise InputError("engine 'spark' needs pyspark: pip install 'dprelease[spark]' (and a Java runtime)") from None
    return functions


def _spark_failures() -> tuple[type[BaseException], ...]:
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    return PySparkException, Py4JError, ConnectionError, EOFError


def _failure_name(exc: BaseException) -> str:
    """The exception's class and Spark's error class (a public name such as PATH_NOT_FOUND), never its text."""
    condition = None
    for getter in ("getCondition", "getErrorClass"):
        try:
            condition = getattr(exc, getter)()
        except Exception:  # noqa: BLE001 - a dead JVM cannot answer either
            condition = None
        if condition:
            break
    return type(exc).__name__ + (f": {condition}" if condition else "")


def local_session(cores: int = 2, *, app_name: str = "dprelease", local_dir: str | None = None,
                  config: dict[str, str] | None = None):
    """A local Spark session (``local[cores]``), quiet and with few shuffle partitions; JAVA_HOME set if unset.

    ``local_dir`` is Spark's scratch folder (``spark.local.dir``; default the system's temporary folder);
    ``config`` more Spark settings (e.g. ``{"spark.driver.extraJavaOptions": "-XX:TieredStopAtLevel=1"}``).
    A JVM it starts writes nothing on this process's console (:func:`_start`).
    """
    _pyspark()
    cores = check_positive_int(cores, "cores")
    settings = {} if local_dir is None else {"spark.local.dir": local_dir}
    settings.update(config or {})
    settings.update({"spark.master": f"local[{cores}]", "spark.app.name": app_name, "spark.ui.enabled": "false",
                     "spark.ui.showConsoleProgress": "false", "spark.sql.shuffle.partitions": str(2 * cores),
                     "spark.driver.bindAddress": "127.0.0.1", "spark.driver.host": "127.0.0.1"})
    return _start(settings)


def _start(settings: dict[str, str]):
    """The session with ``settings`` (Spark configuration keys); a JVM started here has its console on /dev/null.

    Spark's JVM writes to the console it inherits: the JVM's warning for its incubator modules, log4j's
    startup, WARN lines, and for a failed task an ERROR that may quote the record it failed on, around the
    one line the command line owes. dprelease reads Spark's failures as exceptions and names their class
    only, so the console carries nothing it needs. A JVM already running (spark-submit's, or a session's
    before) is left as it is. PySpark's own warnings while it starts (its pandas version) are not shown.
    """
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway
    from pyspark.sql import SparkSession

    conf = SparkConf().setAll(list(settings.items()))
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", module="pyspark")
        if SparkContext._gateway is None and "PYSPARK_GATEWAY_PORT" not in os.environ:
            quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
            SparkContext(conf=conf, gateway=launch_gateway(conf, popen_kwargs=quiet))
        return SparkSession.builder.config(conf=conf).getOrCreate()


def session(master: str | None = None):
    """The Spark session the command line reads with: the active one; else one on ``master`` (``spark://..``,
    ``yarn``, ``local[4]``), or spark-submit's master, or local with every core. One line if it cannot start."""
    _pyspark()
    from pyspark.sql import SparkSession

    active = SparkSession.getActiveSession()
    if active is not None and master is None:
        return active
    java_home = os.environ.get("JAVA_HOME")
    java = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java")
    if not java or not os.access(java, os.X_OK):  # else Spark's launcher script fails with lines of its own
        raise InputError(f"engine 'spark' needs a Java runtime (17 or later): no {java or 'java on the PATH'}; "
                         "set JAVA_HOME")
    try:
        if master is None and "PYSPARK_GATEWAY_PORT" not in os.environ:  # not under spark-submit: local
            spark = local_session(os.cpu_count() or 1)
        else:
            settings = {"spark.app.name": "dprelease", "spark.ui.showConsoleProgress": "false"}
            spark = _start(settings if master is None else {**settings, "spark.master": master})
    except (*_spark_failures(), RuntimeError) as exc:  # e.g. no Java runtime: JAVA_GATEWAY_EXITED
        on = "" if master is None else f" on master {master!r}"
        raise InputError(f"engine 'spark' could not start a Spark session{on} ({_failure_name(exc)})") from None
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def is_spark_frame(source: object) -> bool:
    """Whether ``source`` is a Spark DataFrame (classic or Connect), without importing pyspark."""
    kind = type(source)
    return kind.__name__ == "DataFrame" and kind.__module__.startswith("pyspark.sql")


class SparkTable(CountingTable):
    """A :class:`~dprelease.engines.base.PrivateTable` over a Spark DataFrame of integer codes.

    ``SparkTable(frame, domain)`` checks the frame (one Spark job) and keeps its coded columns;
    :meth:`open` reads files first. ``memory_limit`` bounds what comes back to the driver (distinct rows,
    cached marginals); the cluster's own memory is Spark's configuration. ``header_names``: the header of the CSV
    :meth:`open` read (its columns outside the schema come as placeholders), for the words on a missing column.
    """

    def __init__(self, frame: object, domain: Domain | None = None, *, schema: Schema | None = None,
                 columns: Sequence[str] | None = None, memory_limit: int | str = DEFAULT_MEMORY_LIMIT,
                 max_distinct_rows: int | None = None, batch_size: int = DEFAULT_BATCH,
                 label: str = "Spark DataFrame", show_values: bool = False, csv: bool = False,
                 header_names: Sequence[str] = ()) -> None:
        functions = _pyspark()
        if not is_spark_frame(frame):
            raise InputTypeError(f"frame must be a Spark DataFrame, got {type(frame).__name__}")
        domain, schema = domain_or_schema(domain, schema, columns)
        if schema is None and show_values:
            raise InputError("show_values reads a raw table: give schema=, not domain=")
        budget = parse_memory_limit(memory_limit)
        if max_distinct_rows is None:
            max_distinct_rows = SPARK_MAX_DISTINCT_ROWS
        self.label = label
        with self._reading("checking the table", opening=True):
            if schema is None:
                coded, n = _check_and_code(frame, domain, functions, label)
            else:
                coded, n = encode_frame(frame, schema, functions, label, csv=csv, show_values=show_values,
                                        header_names=header_names)
        super().__init__(domain, n, memory_limit=budget, max_distinct_rows=max_distinct_rows, batch_size=batch_size)
        self._frame = coded
        self._functions = functions

    @classmethod
    def open(cls, source: object, domain: Domain | None = None, *, schema: Schema | None = None,
             spark: object = None, format: str | None = None, delimiter: str | None = None,
             header: bool | str = "auto", skip_rows: int = 0, privacy_id: str | None = None,
             **options: object) -> SparkTable | PersonRows:
        """Read ``source`` with ``spark`` (default: the active session) and check it over ``domain``, or encode
        it by ``schema``.

        ``source`` is a path, a glob, a folder or a list; local paths are checked here (a missing file or a
        glob matching nothing is an InputError), paths with a scheme (``hdfs://``, ``s3a://``) go to Spark.
        A raw CSV is laid out as the in-memory reader lays it out (``delimiter``, ``header``; remote files
        take a header row and a comma unless told); ``skip_rows`` is not read by Spark. A local CSV is first
        read through as the in-memory reader reads it (:func:`~dprelease.engines.csv_layout.check_rows`), so a
        file it refuses is refused in its words. ``options`` are those of the constructor.
        """
        _pyspark()
        from pyspark.sql import SparkSession

        session = spark if spark is not None else SparkSession.getActiveSession()
        if session is None:
            raise InputError("engine 'spark' reading files needs a SparkSession: pass spark=SparkSession.builder"
                             "....getOrCreate() (README, 'Where your data lives')")
        raw = [os.fspath(source)] if isinstance(source, (str, os.PathLike)) else [os.fspath(s) for s in source]
        remote = [p for p in raw if "://" in p]
        if remote:
            files, label = raw, f"data {raw[0]!r}" + (f" (and {len(raw) - 1} more)" if len(raw) > 1 else "")
            kind = format or ("csv" if raw[0].lower().endswith((".csv", ".csv.gz")) else "parquet")
        else:
            files, label = resolve_files(source)
            kind = detect_format(files, format)
        layout = None
        if schema is not None and kind == "csv":
            check_read_options(delimiter, header, skip_rows)
            if skip_rows:
                raise InputError("engine 'spark' does not skip lines of a CSV (skip_rows); use engine 'duckdb'")
            keep = schema.names if options.get("columns") is None else options["columns"]
            keep = [name for name in keep if name in schema.read_names]  # a between column is computed, not read
            keep = list(keep) if privacy_id is None else [*keep, privacy_id]
            if remote:  # Spark reads the files: a header row unless told otherwise, a comma unless told
                layout = CsvLayout(delimiter or ",", header is not False,
                                   () if header is not False else tuple(schema.file_names))
            else:
                layout = csv_layout(files, keep, delimiter=delimiter, header=header, fields=schema.file_names)
        elif (delimiter, header, skip_rows) != (None, "auto", 0):
            raise InputError("delimiter, header and skip_rows read a raw CSV: give schema=, and a CSV")
        elif kind == "csv":  # codes: a comma and a header row, the names the in-memory reader gives (stripped)
            keep = domain.attributes if domain is not None else ()
            layout = CsvLayout(",", True, ()) if remote else coded_layout(files, label, keep)
        strip = schema is not None and schema.strip
        if layout is not None and not remote:  # what Spark would misread or pass over, refused as memory refuses it
            check_rows(files, layout, strip=strip)
        with cls._reading_static(label, "reading the files", opening=True):
            if kind == "parquet":
                frame = session.read.parquet(*files)
            else:
                frame = _read_csv(session.read, files, layout, keep, strip=strip, checked=not remote)
        header_names = layout.names if layout is not None and layout.header else ()  # its other columns: placeholders
        if privacy_id is not None:
            return spark_person_rows(frame, schema, privacy_id, label=label, csv=layout is not None,
                                     header_names=header_names, **options)
        return cls(frame, domain, schema=schema, label=label, csv=layout is not None, header_names=header_names,
                   **options)

    # -------------------------------------------------------------------- hooks
    def _group_rows(self, cap: int) -> DistinctRows | None:
        F = self._functions
        names = [f"c{i}" for i in range(len(self.domain))]
        with self._reading("grouping the table into distinct rows"):
            grouped = self._frame.groupBy(*names).agg(F.count(F.lit(1)).alias("w"))
            rows = grouped.limit(cap + 1).collect()
        if len(rows) > cap:
            return None
        table = np.array(rows, dtype=np.int64).reshape(len(rows), len(names) + 1)
        return DistinctRows.from_columns(self.domain, [table[:, i] for i in range(len(names))], table[:, -1])

    def _estimate_distinct(self) -> float | None:
        F = self._functions
        with self._reading("estimating the distinct rows"):
            names = [F.col(f"c{i}") for i in range(len(self.domain))]
            return float(self._frame.agg(F.approx_count_distinct(F.xxhash64(*names))).collect()[0][0])

    def _count_sets(self, sets: list[tuple[str, ...]]) -> list[np.ndarray]:
        F = self._functions
        used = [a for a in self.domain.attributes if any(a in s for s in sets)]
        cells = [math.prod(self.domain.size_of(a) for a in s) for s in sets]
        # grouping_id: bit (len(used) - 1 - i) is set when used[i] is not grouped in that set.
        gids = [sum(1 << (len(used) - 1 - i) for i, a in enumerate(used) if a not in s) for s in sets]
        with self._reading(f"counting {len(sets)} marginal(s)"):  # building columns already talks to the JVM
            columns = [F.col(f"c{self.domain.axis(a)}") for a in used]
            g = F.col("g")
            sid = reduce(lambda acc, j: acc.when(g == gids[j], j), range(1, len(sets)), F.when(g == gids[0], 0))
            key = reduce(lambda acc, j: acc.when(g == gids[j], self._flat_key(sets[j])), range(1, len(sets)),
                         F.when(g == gids[0], self._flat_key(sets[0])))
            grouped = self._frame.groupingSets([[F.col(f"c{self.domain.axis(a)}") for a in s] for s in sets],
                                               *columns)
            counted = grouped.agg(F.count(F.lit(1)).alias("w"), F.grouping_id(*columns).alias("g"))
            rows = counted.select(sid.alias("sid"), key.alias("k"), F.col("w")).collect()
        table = np.array(rows, dtype=np.int64).reshape(len(rows), 3)
        sids, keys, weights = table[:, 0], table[:, 1], table[:, 2].astype(np.float64)
        return [np.bincount(keys[sids == j], weights=weights[sids == j], minlength=c) for j, c in enumerate(cells)]

    def _stream_distinct(self) -> tuple[Iterator[np.ndarray], Iterator[np.ndarray]]:
        F = self._functions
        names = [f"c{i}" for i in range(len(self.domain))]
        with self._reading("ordering the distinct rows"):
            ordered = self._frame.groupBy(*names).agg(F.count(F.lit(1)).alias("w")).orderBy(*names)

        def chunks(width: slice) -> Iterator[np.ndarray]:
            with self._reading("reading the distinct rows"):
                buffer = []
                for row in ordered.toLocalIterator():
                    buffer.append(tuple(row)[width])
                    if len(buffer) == CHUNK_ROWS:
                        yield np.array(buffer, dtype=np.int64)
                        buffer = []
                if buffer:
                    yield np.array(buffer, dtype=np.int64)

        counts = (c[:, 0] for c in chunks(slice(len(names), None)))
        return chunks(slice(0, len(names))), counts

    # ------------------------------------------------------------------ helpers
    def _flat_key(self, canonical: tuple[str, ...]):
        """The cell's C-order index in the marginal on ``canonical``, as a Spark long column."""
        F = self._functions
        key, stride = F.lit(0).cast("long"), 1
        for attribute in reversed(canonical):
            key = key + F.col(f"c{self.domain.axis(attribute)}").cast("long") * F.lit(stride)
            stride *= self.domain.size_of(attribute)
        return key

    @contextmanager
    def _reading(self, what: str, *, opening: bool = False) -> Iterator[None]:
        with self._reading_static(self.label, what, opening=opening):
            yield

    @staticmethod
    @contextmanager
    def _reading_static(label: str, what: str, *, opening: bool = False) -> Iterator[None]:
        """Spark's failures as one line: an InputError while opening, an EngineError during a private read."""
        try:
            with _query_logs_off():
                yield
        except _spark_failures() as exc:
            if opening:
                raise InputError(f"{label}: Spark failed while {what} ({_failure_name(exc)})") from None
            raise EngineError(f"{label}: Spark failed while {what} ({_failure_name(exc)}); "
                              "nothing was read from the table") from None


@contextmanager
def _query_logs_off() -> Iterator[None]:
    """PySpark logs a failed query's message on stderr when it raises it (its "query context" loggers), and the
    message may quote a value (``CAST_INVALID_INPUT``, or a column named by a record); silenced while dprelease
    reads, which names the failure's class only."""
    from pyspark.logger import PySparkLogger

    loggers = [PySparkLogger.getLogger(name) for name in ("DataFrameQueryContextLogger", "SQLQueryContextLogger")]
    before = [logger.disabled for logger in loggers]
    for logger in loggers:
        logger.disabled = True
    try:
        yield
    finally:
        for logger, disabled in zip(loggers, before):
            logger.disabled = disabled


def _read_csv(reader: object, files: list[str], layout: CsvLayout, keep: Sequence[str], *, strip: bool,
              checked: bool) -> object:
    """CSV files as the in-memory reader reads them, every cell as text: ``""`` inside quotes is a quote, a quoted
    cell may span lines, columns outside ``keep`` under placeholder names (:func:`column_names`).

    Files ``checked`` by :func:`check_rows` (local ones) have lines of the header's length or longer by empty fields
    only, which Spark's PERMISSIVE mode drops. Others (remote) are read FAILFAST, every column parsed: a line of
    another length is refused, one ending in an extra delimiter too (the other engines drop its empty field).
    ``strip`` skips spaces after a delimiter, as the reader's ``skipinitialspace``; not in a file of one column,
    where Spark would then skip a line of spaces (a row to the other engines) as empty.
    """
    strip = strip and len(layout.names) != 1
    options = {"header": layout.header, "sep": layout.delimiter, "inferSchema": False, "quote": '"', "escape": '"',
               "multiLine": True, "ignoreLeadingWhiteSpace": strip, "ignoreTrailingWhiteSpace": False,
               "encoding": "UTF-8", "unescapedQuoteHandling": "RAISE_ERROR"}
    if not checked:
        options.update(mode="FAILFAST", columnPruning=False)
    frame = reader.options(**options).csv(files)
    return frame.toDF(*column_names(layout.names, keep)) if layout.names else frame


# ---------------------------------------------------------------------- checking
def _check_and_code(frame: object, domain: Domain, F: object, label: str) -> tuple[object, int]:
    """One aggregation checking every domain column; the frame of coded columns c0..c{d-1}, and n."""
    types = {field.name: type(field.dataType).__name__ for field in frame.schema.fields}
    missing = [a for a in domain.attributes if a not in types]
    if missing:
        raise InputError(f"{label} {'lack' if label.startswith('data files') else 'lacks'} column(s) {missing} "
                         f"of the domain; {header_text(list(types), domain.attributes)}")
    checks, codes, type_problems = [], [], []
    for i, (attribute, size) in enumerate(zip(domain.attributes, domain.sizes)):
        column = F.col(f"`{attribute.replace('`', '``')}`")
        value, column_checks = _column_checks(column, types[attribute], size, F, SPARK.quote(attribute))
        if column_checks is None:
            type_problems.append(f"column {attribute!r} has type {types[attribute]}; expected integer codes")
            continue
        checks.extend((attribute, problem, condition) for problem, condition in column_checks)
        codes.append(value.cast("int" if size <= 2**31 else "long").alias(f"c{i}"))
    if type_problems:
        raise InputError(f"{label}: " + "; ".join(type_problems))
    flags = [F.max(F.when(condition, 1).otherwise(0)).alias(f"f{j}") for j, (_, _, condition) in enumerate(checks)]
    row = frame.agg(F.count(F.lit(1)).alias("n"), *flags).collect()[0]
    n = int(row["n"])
    if n == 0:
        raise InputError(f"{label} has no rows; a release needs at least one row")
    problems: dict[str, str] = {}
    for j, (attribute, problem, _) in enumerate(checks):
        if row[f"f{j}"] and attribute not in problems:
            problems[attribute] = problem
    if problems:
        raise InputError(f"{label}: " + "; ".join(f"column {a!r} has {p}" for a, p in problems.items()))
    return frame.select(*codes), n


def _column_checks(column: object, spark_type: str, size: int, F: object, name: str):
    """(the column as a number, [(problem, condition true on a bad row)]) or (column, None) for a bad type.

    Text is stripped of Python's whitespace and parsed by Python's ``float()`` grammar (sql_text.py), as
    :meth:`Dataset.from_csv <dprelease.data.Dataset.from_csv>` parses it."""
    out_of_range = f"values outside the codes 0..{size - 1}"
    if spark_type in _INTEGER_TYPES:
        return column, [("empty or missing cells", column.isNull()),
                        (out_of_range, (column < 0) | (column >= size))]
    if spark_type in _NUMBER_TYPES or spark_type == "StringType":
        if spark_type == "StringType":
            stripped = SPARK.strip(name)
            number = F.expr(SPARK.python_float(stripped))
            first = [("empty or missing cells", column.isNull() | (F.expr(stripped) == "")),
                     ("values that are not numbers", number.isNull())]
        else:
            number = column.cast("double")
            first = [("empty or missing cells", column.isNull())]
        return number, first + [
            ("missing (NaN) or infinite values", F.isnan(number) | (F.abs(number) == float("inf"))),
            ("values that are not whole numbers (codes are integers)", number % 1 != 0),
            (out_of_range, (number < 0) | (number >= size)),
        ]
    return column, None


def open_spark(source: object, domain: Domain | None = None, *, schema: Schema | None = None,
               columns: Sequence[str] | None = None, spark: object = None, format: str | None = None,
               memory_limit: int | str = DEFAULT_MEMORY_LIMIT, max_distinct_rows: int | None = None,
               batch_size: int = DEFAULT_BATCH, delimiter: str | None = None, header: bool | str = "auto",
               skip_rows: int = 0, show_values: bool = False, privacy_id: str | None = None) -> SparkTable | PersonRows:
    """The registry's opener: a Spark DataFrame as it is, or files read by ``spark`` (default: the active session).
    With ``privacy_id`` (a raw table's column outside ``schema``): the rows encoded by Spark and brought to the
    driver with their persons (:func:`spark_person_rows`)."""
    options = {"schema": schema, "columns": columns, "memory_limit": memory_limit,
               "max_distinct_rows": max_distinct_rows, "batch_size": batch_size, "show_values": show_values}
    if privacy_id is not None and schema is None:
        raise InputError("privacy_id names a column of a raw table: give schema=, not domain=")
    if is_spark_frame(source):
        if (delimiter, header, skip_rows) != (None, "auto", 0):
            raise InputError("delimiter, header and skip_rows read a CSV file, not a Spark DataFrame")
        if privacy_id is not None:
            return spark_person_rows(source, schema, privacy_id, **{k: v for k, v in options.items() if k != "schema"})
        return SparkTable(source, domain, **options)
    return SparkTable.open(source, domain, spark=spark, format=format, delimiter=delimiter, header=header,
                           skip_rows=skip_rows, privacy_id=privacy_id, **options)


def spark_person_rows(frame: object, schema: Schema, privacy_id: str, *, columns: Sequence[str] | None = None,
                      label: str = "Spark DataFrame", csv: bool = False, header_names: Sequence[str] = (),
                      show_values: bool = False, **_counting: object) -> PersonRows:
    """A raw frame encoded by ``schema`` in Spark (checked as :class:`SparkTable` checks it), then its codes and each
    row's person collected to the driver as :class:`~dprelease.engines.persons.PersonRows`: the kernel bounds each
    person's rows and counts them in memory (n x d int64 codes; the counting options do not apply)."""
    functions = _pyspark()
    if not is_spark_frame(frame):
        raise InputTypeError(f"frame must be a Spark DataFrame, got {type(frame).__name__}")
    _, schema = domain_or_schema(None, schema, columns)
    with SparkTable._reading_static(label, "checking the table", opening=True):
        coded, n = encode_frame(frame, schema, functions, label, csv=csv, show_values=show_values,
                                header_names=header_names, privacy_id=privacy_id)
    with SparkTable._reading_static(label, "collecting the rows with their persons", opening=True):
        return person_rows(coded, len(schema.domain), n, schema.domain, privacy_id)
