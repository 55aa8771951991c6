"""``dprelease synth --engine spark`` run as a user runs it, in a process of its own: Spark says nothing on stderr.

The JVM a local session starts inherited the command's stderr and wrote about nine lines there (its incubator
modules warning, log4j's default profile twice, WARN lines), and PySpark warned about pandas, around the one
error line, and on a successful ``--quiet`` run too. Each run starts a JVM (~10-25 s here); skipped where Spark
cannot run, as tests/test_engines_spark.py is.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.test_engines_spark import REASON

pytestmark = pytest.mark.skipif(REASON is not None, reason=str(REASON))


def synth(tmp_path, data: str, *options: str) -> subprocess.CompletedProcess:
    (tmp_path / "domain.json").write_text(json.dumps({"a": 2, "b": 3}))
    (tmp_path / "data.csv").write_text(data)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYSPARK_")}  # a local session, not a test's
    command = [sys.executable, "-c", "import sys; from dprelease.cli import main; sys.exit(main())", "synth",
               str(tmp_path / "data.csv"), "--domain", str(tmp_path / "domain.json"), "--workload", "1-2way",
               "--epsilon", "1", "--engine", "spark", "--out", str(tmp_path / "out.csv"), *options]
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=300)


def test_a_table_spark_refuses_is_one_line_on_stderr(tmp_path):
    done = synth(tmp_path, "a,b\n0,1\n1,7\n")  # a local session on every core
    assert done.returncode == 2, done.stderr
    assert done.stderr == (f"dprelease: error: data file {str(tmp_path / 'data.csv')!r}: column 'b' has values outside "
                           "the codes 0..2\n")
    assert not (tmp_path / "out.csv").exists()


def test_a_quiet_run_on_spark_prints_nothing_on_stderr(tmp_path):
    done = synth(tmp_path, "a,b\n0,1\n1,2\n1,0\n0,0\n", "--quiet", "--spark-master", "local[1]")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert (tmp_path / "out.csv").exists()
