"""Shared fixtures. Names are specific (tiny_*, adult_small, write_file) so more can be added beside them."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from dprelease import Dataset, Domain

TINY_SEED = 20240611
TINY_N = 200


def tiny_records(domain: Domain, n: int, seed: int) -> np.ndarray:
    """Seeded (n, d) integer codes over ``domain`` (numpy Generator, never the global state)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    return rng.integers(0, np.array(domain.sizes), size=(n, len(domain)), dtype=np.int64)


def csv_text(header: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A CSV document: the header line and one line per row (no quoting; test data are plain)."""
    lines = [",".join(header)] + [",".join(str(v) for v in row) for row in rows]
    return "\n".join(lines) + "\n"


@pytest.fixture
def tiny_domain() -> Domain:
    return Domain(("a", "b", "c"), (2, 3, 4))


@pytest.fixture
def tiny_records_array(tiny_domain: Domain) -> np.ndarray:
    return tiny_records(tiny_domain, TINY_N, TINY_SEED)


@pytest.fixture
def tiny_dataset(tiny_domain: Domain, tiny_records_array: np.ndarray) -> Dataset:
    return Dataset.from_records(tiny_records_array, tiny_domain)


@pytest.fixture(scope="session")
def adult_small() -> Dataset:
    from dprelease.datasets import ADULT_SMALL_COLUMNS, load_adult

    return load_adult(ADULT_SMALL_COLUMNS)


@pytest.fixture
def write_file(tmp_path: Path) -> Callable[[str, object], Path]:
    """``write_file(name, content)``: str is written as is, anything else as JSON; returns the path."""

    def write(name: str, content: object) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return path

    return write


@pytest.fixture
def write_csv(write_file) -> Callable[[str, Sequence[str], Sequence[Sequence[object]]], Path]:
    """``write_csv(name, header, rows)``: a plain CSV (header line, one line per row) in tmp_path."""

    def write(name: str, header: Sequence[str], rows: Sequence[Sequence[object]]) -> Path:
        return write_file(name, csv_text(header, rows))

    return write


@pytest.fixture
def tiny_files(tiny_domain: Domain, tiny_records_array: np.ndarray, write_file) -> dict[str, Path]:
    """The tiny table as ``data.csv`` and its domain as ``domain.json`` in tmp_path."""
    return {
        "data": write_file("data.csv", csv_text(tiny_domain.attributes, tiny_records_array.tolist())),
        "domain": write_file("domain.json", tiny_domain.to_dict()),
    }
