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


# ------------------------------------------------------------------- raw Adult
#: The columns of the raw UCI Adult files, in the order of ``adult.names`` (the label named ``income``).
ADULT_RAW_COLUMNS = ("age", "workclass", "fnlwgt", "education", "education-num", "marital-status", "occupation",
                     "relationship", "race", "sex", "capital-gain", "capital-loss", "hours-per-week",
                     "native-country", "income")
ADULT_RAW_SPLITS = {"train": ("adult.data", 0), "test": ("adult.test", 1)}  # file, comment lines at the top


def adult_raw_paths() -> dict[str, Path]:
    """Paths of the bundled raw Adult files: ``train``, ``test``, ``names`` and ``schema``."""
    folder = resources.files("dprelease.datasets") / "adult_raw"
    names = {"train": "adult.data", "test": "adult.test", "names": "adult.names", "schema": "adult-raw-schema.json"}
    return {key: Path(str(folder / name)) for key, name in names.items()}


def adult_raw_schema():
    """The bundled public schema of raw Adult (written from ``adult.names``; see ``adult_raw/README.md``)."""
    from dprelease.schema import Schema

    return Schema.from_json(adult_raw_paths()["schema"])


def _check_split(split: str) -> tuple[Path, int]:
    from dprelease.errors import InputError

    if split not in ADULT_RAW_SPLITS:
        raise InputError(f"split must be one of {list(ADULT_RAW_SPLITS)}, got {split!r}")
    name, skip = ADULT_RAW_SPLITS[split]
    return adult_raw_paths()["train" if split == "train" else "test"], skip


def load_adult_raw_codes(split: str = "train") -> Dataset:
    """Raw Adult (``train``: 32,561 rows; ``test``: 16,281) encoded by the bundled schema; no pandas needed."""
    import numpy as np

    from dprelease.schema.encode import encode_table
    from dprelease.schema.parse import FactorColumn
    from dprelease.schema.tables import read_csv

    path, skip = _check_split(split)
    schema = adult_raw_schema()
    table = read_csv(path, schema.names, delimiter=",", header=False, skip_rows=skip)
    label = table.columns["income"]  # the test file's labels end with '.'
    table.columns["income"] = FactorColumn(np.array([str(v).strip().rstrip(".") for v in label.uniques],
                                                    dtype=object), label.index)
    codes = encode_table(table, schema)
    return Dataset(schema.domain, codes, None, len(codes))


def load_adult_raw(split: str = "train"):
    """Raw Adult as a pandas DataFrame: the columns of ``adult.names``, ``?`` as NULL (NA), integers as
    int64, labels without the test file's trailing period (the ``pandas`` extra)."""
    from dprelease.schema.tables import need

    pd = need("pandas", "pandas", "load_adult_raw")
    path, skip = _check_split(split)
    frame = pd.read_csv(path, header=None, names=list(ADULT_RAW_COLUMNS), skipinitialspace=True, skiprows=skip,
                        na_values=["?"], keep_default_na=False)
    frame["income"] = frame["income"].str.rstrip(".")
    return frame
