"""The wheel builds without a single warning, and carries every file the package reads.

A build backend's deprecation is easy to miss (``pip install --quiet`` hides it) and comes with a date: the
``license = {text = ...}`` table printed a 30-line wall saying it stops building after 2027-02-18 (session 29).
Building with warnings as errors turns the next one into a red test while there is time to mend it. The wheel
is also what a user who runs ``pip install dprelease`` gets, where the editable install the tests run on reads
the source tree: a data file missing from ``package-data`` would pass every other test and break ``dprelease
demo`` for them.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Build the wheel from a copy of the project files (the source tree gets no build/ or egg-info)."""
    source = tmp_path_factory.mktemp("project")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(REPO / "src", source / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    out = tmp_path_factory.mktemp("wheel")
    build = ("from setuptools import build_meta; import sys; "
             "print(build_meta.build_wheel(sys.argv[1]))")
    done = subprocess.run([sys.executable, "-W", "error", "-c", build, str(out)], cwd=source,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"the wheel does not build with warnings as errors:\n{done.stderr[-3000:]}"
    return out / done.stdout.strip().splitlines()[-1]


def test_wheel_builds_without_warnings(wheel):
    assert wheel.name.startswith("dprelease-") and wheel.suffix == ".whl"


def test_wheel_carries_every_package_file(wheel):
    """Every file under src/dprelease (data files included) is in the wheel at its package path."""
    inside = set(zipfile.ZipFile(wheel).namelist())
    package = REPO / "src"
    files = [p.relative_to(package).as_posix() for p in (package / "dprelease").rglob("*")
             if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"]
    assert any(f.endswith("adult.csv") for f in files)  # the scan sees the data files it is checking for
    missing = sorted(f for f in files if f not in inside)
    assert not missing, f"not in the wheel (add them to [tool.setuptools.package-data]): {missing}"


def test_wheel_states_its_license(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    metadata = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    assert "License-Expression: MIT" in metadata.splitlines()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
