"""Tables written to disk for the engine tests: the same seeded records as CSV, Parquet and Parquet parts."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from dprelease import Dataset, Domain

#: Four columns, one with 300 codes (two bytes per code in the engines), and one the tables never use.
DOMAIN = Domain(("a", "b", "c", "d"), (2, 3, 5, 300))
N = 3000


def records(seed: int = 7, n: int = N) -> np.ndarray:
    """Seeded, skewed records (so that many rows repeat and some cells stay empty)."""
    rng = np.random.Generator(np.random.PCG64(seed))
    a = rng.integers(0, 2, n)
    b = (a + rng.integers(0, 2, n)) % 3
    c = np.minimum(rng.geometric(0.5, n) - 1, 4)
    d = np.where(rng.random(n) < 0.7, rng.integers(0, 5, n), rng.integers(0, 300, n))
    return np.stack([a, b, c, d], axis=1).astype(np.int64)


def write_tables(folder: Path, rows: np.ndarray, domain: Domain = DOMAIN) -> dict[str, object]:
    """The records as one CSV (with an extra text column), one Parquet file, and three Parquet parts."""
    import duckdb

    folder.mkdir(parents=True, exist_ok=True)
    columns = {a: rows[:, i] for i, a in enumerate(domain.attributes)}
    columns["note"] = np.array(["x"] * len(rows))  # a column outside the domain: ignored
    con = duckdb.connect()
    con.execute(f"COPY (SELECT * FROM columns) TO '{folder / 'table.parquet'}' (FORMAT parquet)")
    con.execute(f"COPY (SELECT * FROM columns) TO '{folder / 'table.csv'}' (FORMAT csv, HEADER true)")
    (folder / "parts").mkdir(exist_ok=True)
    for k, chunk in enumerate(np.array_split(np.arange(len(rows)), 3)):
        part = {a: v[chunk] for a, v in columns.items()}
        con.execute(f"COPY (SELECT * FROM part) TO '{folder / 'parts' / f'part-{k}.parquet'}' (FORMAT parquet)")
    con.close()
    return {"parquet": str(folder / "table.parquet"), "csv": str(folder / "table.csv"),
            "glob": str(folder / "parts" / "part-*.parquet"), "folder": str(folder / "parts")}


def dataset(rows: np.ndarray, domain: Domain = DOMAIN) -> Dataset:
    return Dataset.from_records(rows, domain)


#: Attribute lists in several orders (and the empty marginal, n), read from every engine.
ORDERS = [(), ("a",), ("d",), ("b", "a"), ("a", "b"), ("d", "a", "c"), ("c", "d", "a"), ("a", "b", "c", "d"),
          ("d", "c", "b", "a")]


def same_bits(x: np.ndarray, y: np.ndarray) -> bool:
    """Bit-identical float64 arrays of the same shape."""
    x, y = np.asarray(x), np.asarray(y)
    return x.dtype == y.dtype == np.float64 and x.shape == y.shape and x.tobytes() == y.tobytes()
