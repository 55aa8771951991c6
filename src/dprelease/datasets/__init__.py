"""Data that ships with dprelease (no network at run time).

``adult``: the UCI Adult table (48,842 rows, 14 attributes) as discretized by
private-pgm; see ``adult/README.md`` for provenance and licence (CC BY 4.0).
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path

from dprelease.data import Dataset
from dprelease.domain import Domain

#: The 7 low-cardinality Adult columns of the benchmark's "small3" workload (120,960 cells).
ADULT_SMALL_COLUMNS = ("workclass", "education-num", "marital-status", "relationship", "race", "sex", "income>50K")


def adult_paths() -> tuple[Path, Path]:
    """Paths of the bundled ``adult.csv`` and ``adult-domain.json``."""
    folder = resources.files("dprelease.datasets") / "adult"
    return Path(str(folder / "adult.csv")), Path(str(folder / "adult-domain.json"))


def load_adult(columns: Sequence[str] | None = None) -> Dataset:
    """The bundled Adult table, optionally restricted to ``columns``."""
    data, domain = adult_paths()
    return Dataset.from_csv(data, Domain.from_json(domain), columns=columns)
