"""The command line's engine options: ``--engine``, ``--memory-limit``, ``--spark-master`` (issue 15).

``--engine auto`` (the default) counts files with DuckDB, embedded (CSV or Parquet; a path, a glob or a
folder of part files); ``memory`` loads the table into numpy; ``spark`` reads the files with a Spark
session: the one ``spark-submit`` configured, else ``--spark-master`` (``spark://host:7077``, ``yarn``,
``local[4]``), else a local session on every core. Every engine gives the same counts, so the same seed
gives the same release.
"""

from __future__ import annotations

import argparse

from dprelease.engines.counting import parse_memory_limit
from dprelease.engines.registry import ENGINES, engine_name
from dprelease.errors import InputError


def add_engine_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("where the data lives")
    group.add_argument("--engine", choices=("auto", *ENGINES), default="auto",
                       help="auto (default): DuckDB for files (CSV, Parquet, globs, folders of parts), counted where "
                            "they lie; memory: loaded into numpy; spark: read and counted by a Spark session")
    group.add_argument("--memory-limit", metavar="SIZE",
                       help="DuckDB's memory budget (e.g. 2GB, 512MB; it spills to a temporary folder beyond it) or "
                            "what Spark brings back to the driver; default 2GiB")
    group.add_argument("--spark-master", metavar="URL",
                       help="with --engine spark: the master (spark://host:7077, yarn, local[4]); default: "
                            "spark-submit's, else local with every core")


def engine_options(args: argparse.Namespace, data: object) -> dict[str, object]:
    """The engine and its options for ``data`` (public checks only: nothing is read or started)."""
    name = engine_name(args.engine, data)
    options: dict[str, object] = {"engine": name}
    if args.memory_limit is not None:
        if name == "memory":
            raise InputError("--memory-limit is the DuckDB and Spark engines' budget; --engine memory has none")
        options["memory_limit"] = parse_memory_limit(args.memory_limit, "--memory-limit")
    if args.spark_master is not None and name != "spark":
        raise InputError("--spark-master needs --engine spark")
    return options


def start_engine(options: dict[str, object], args: argparse.Namespace) -> dict[str, object]:
    """The options with a Spark session started for ``--engine spark`` (after every public check)."""
    if options["engine"] != "spark":
        return options
    from dprelease.engines.spark_engine import session

    return {**options, "spark": session(args.spark_master)}
