#!/usr/bin/env python
"""Write a large integer-coded Parquet table drawn from a public model fitted to Adult's structure.

    .venv/bin/python benchmarks/gen_large_table.py --rows 1e8 --out benchmarks/data/adult_model [--seed 0]

The model is a Chow-Liu tree (the maximum-mutual-information spanning tree over the 14 attributes,
with the empirical conditional table of each attribute given its parent) fitted on the bundled Adult
table, which is public benchmark data (UCI, CC BY 4.0): no private data goes into it. Rows are drawn
in parts of ``--part-rows`` (default 10^6), each part from its own seeded generator
(``SeedSequence([seed, part])``), so the first k parts are the same whatever ``--rows`` is: a 10^7-row
table is a prefix (a glob of parts) of the 10^8-row one. Sampling is vectorised (one ``searchsorted``
per attribute per part); parts are written by DuckDB as Parquet (zstd, UTINYINT columns), with Adult's
column names and domain; the domain JSON and the fitted tree go beside them. Parts already present are
kept (the generator resumes). It checks the free disk space before writing.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
BYTES_PER_ROW = 8  # measured: about 5.5 bytes per row of zstd Parquet for this model; 8 leaves room


def chow_liu(records: np.ndarray, sizes: tuple[int, ...]) -> tuple[list[int], list[int | None]]:
    """(attributes in breadth-first order from the root, each attribute's parent): the max-MI spanning tree."""
    d, n = len(sizes), len(records)
    mi = np.zeros((d, d))
    for i in range(d):
        for j in range(i + 1, d):
            joint = np.bincount(records[:, i] * sizes[j] + records[:, j], minlength=sizes[i] * sizes[j])
            p = joint.reshape(sizes[i], sizes[j]) / n
            outer = p.sum(1, keepdims=True) * p.sum(0, keepdims=True)
            nz = p > 0
            mi[i, j] = mi[j, i] = float((p[nz] * np.log(p[nz] / outer[nz])).sum())
    root = int(mi.sum(1).argmax())
    parent: list[int | None] = [None] * d
    order, best, link = [root], mi[root].copy(), [root] * d  # Prim's algorithm on -MI
    best[root] = -np.inf
    while len(order) < d:
        candidates = [i for i in range(d) if i not in order]
        nxt = max(candidates, key=lambda i: best[i])
        parent[nxt] = link[nxt]
        order.append(nxt)
        for i in candidates:
            if i != nxt and mi[nxt, i] > best[i]:
                best[i], link[i] = mi[nxt, i], nxt
    return order, parent


def conditional_cdfs(records: np.ndarray, sizes: tuple[int, ...], parent: list[int | None]) -> list[np.ndarray]:
    """Per attribute: the cumulative P(x | parent value), one row per parent value (the marginal if unseen)."""
    cdfs = []
    for i, p in enumerate(parent):
        marginal = np.bincount(records[:, i], minlength=sizes[i]).astype(np.float64)
        if p is None:
            table = marginal[None, :]
        else:
            table = np.bincount(records[:, p] * sizes[i] + records[:, i],
                                minlength=sizes[p] * sizes[i]).reshape(sizes[p], sizes[i]).astype(np.float64)
            table[table.sum(1) == 0] = marginal
        cdf = np.cumsum(table / table.sum(1, keepdims=True), axis=1)
        cdf[:, -1] = 1.0
        cdfs.append(cdf)
    return cdfs


def sample_part(rng: np.random.Generator, rows: int, sizes, order, parent, cdfs) -> dict[int, np.ndarray]:
    """``rows`` draws from the tree: each attribute by inverse CDF given its parent (vectorised)."""
    out: dict[int, np.ndarray] = {}
    for i in order:
        u = rng.random(rows)
        cdf = cdfs[i]
        given = np.zeros(rows, dtype=np.int64) if parent[i] is None else out[parent[i]].astype(np.int64)
        # Row r's CDF shifted by r makes one increasing array: one searchsorted for every parent value.
        flat = (cdf + np.arange(cdf.shape[0])[:, None]).ravel()
        index = np.searchsorted(flat, given + u, side="right") - given * sizes[i]
        out[i] = np.minimum(index, sizes[i] - 1).astype(np.uint8)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=float, required=True, help="rows to write (e.g. 1e8)")
    parser.add_argument("--out", type=Path, required=True, help="folder for part-NNNNN.parquet")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--part-rows", type=float, default=1e6)
    args = parser.parse_args(argv)
    import duckdb

    from dprelease.datasets import load_adult

    rows, part_rows = int(args.rows), int(min(args.part_rows, args.rows))
    parts = -(-rows // part_rows)
    adult = load_adult()
    sizes = adult.domain.sizes
    assert max(sizes) <= 256, "UTINYINT columns"
    order, parent = chow_liu(adult.records, sizes)
    cdfs = conditional_cdfs(adult.records, sizes, parent)
    args.out.mkdir(parents=True, exist_ok=True)
    missing = [k for k in range(parts) if not (args.out / f"part-{k:05d}.parquet").exists()]
    need = len(missing) * part_rows * BYTES_PER_ROW
    free = shutil.disk_usage(args.out).free
    if need > free // 2:
        print(f"refusing: {need / 1e9:.1f} GB to write, {free / 1e9:.1f} GB free", file=sys.stderr)
        return 2
    names = list(adult.domain.attributes)
    (args.out / "domain.json").write_text(json.dumps(adult.domain.to_dict()))
    (args.out / "model.json").write_text(json.dumps({
        "model": "Chow-Liu tree fitted on the bundled Adult (public)", "seed": args.seed, "part_rows": part_rows,
        "edges": [[names[p], names[i]] for i, p in enumerate(parent) if p is not None], "root": names[order[0]]}))
    con = duckdb.connect()
    start = time.perf_counter()
    for k in missing:
        count = min(part_rows, rows - k * part_rows)
        rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([args.seed, k])))
        sampled = sample_part(rng, count, sizes, order, parent, cdfs)
        part = {names[i]: sampled[i] for i in range(len(names))}  # noqa: F841 - scanned by DuckDB by name
        target = args.out / f"part-{k:05d}.parquet"
        tmp = target.with_suffix(".tmp")
        con.execute(f"COPY (SELECT {', '.join(chr(34) + n + chr(34) for n in names)} FROM part) TO '{tmp}' "
                    "(FORMAT parquet, COMPRESSION zstd)")
        os.replace(tmp, target)
        if k % 10 == 0:
            print(f"part {k + 1}/{parts}: {time.perf_counter() - start:.1f} s", flush=True)
    print(f"{len(missing)} part(s) written to {args.out} in {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
