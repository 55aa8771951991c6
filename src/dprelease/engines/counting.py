"""Counts computed from an engine's answers, exactly as :class:`~dprelease.data.Dataset` computes them.

Every engine ends a private read with numpy: either the table grouped into weighted distinct rows
(:class:`DistinctRows`, from which any marginal is one weighted ``bincount``), or one flat array of
counts per marginal (``GROUP BY`` in the engine). Counts are whole numbers below 2^53, so float64
sums of them are exact in any order: the marginals are bit-identical to the in-memory engine's,
whatever engine, path or batch produced them. The fingerprint is the same SHA-256 as
:meth:`Dataset.fingerprint <dprelease.data.Dataset.fingerprint>`, fed in chunks so that a table
with more distinct rows than memory holds can be hashed from a stream.

Nothing here adds noise or decides anything from the counts: it is plumbing under the kernel.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from dprelease.domain import Domain
from dprelease.errors import InputError, InputTypeError

#: The memory an engine may use for its counting when none is given: 2 GiB.
DEFAULT_MEMORY_LIMIT = 2 * 1024**3
#: Rows per chunk when hashing or moving distinct rows (64 Ki rows of d int64 codes).
CHUNK_ROWS = 1 << 16

_UNITS = {"": 1, "b": 1, "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
          "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40, "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40}


def parse_memory_limit(value: object, name: str = "memory_limit") -> int:
    """Bytes from ``value``: an int (bytes) or a string such as ``"2GB"``, ``"512MiB"``, ``"1.5G"`` (>= 16 MiB).

    >>> parse_memory_limit("2GB"), parse_memory_limit("1GiB"), parse_memory_limit(2**26)
    (2000000000, 1073741824, 67108864)
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise InputTypeError(f"{name} must be a number of bytes or a string like '2GB', got {type(value).__name__}")
    if isinstance(value, int):
        size = value
    else:
        match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([a-zA-Z]*)\s*", value)
        unit = match.group(2).lower() if match else None
        if match is None or unit not in _UNITS:
            raise InputError(f"{name} must be a size such as '2GB', '512MB' or '1GiB', got {value!r}")
        size = int(float(match.group(1)) * _UNITS[unit])
    if size < 16 * 2**20:
        raise InputError(f"{name} must be at least 16 MiB, got {value!r}")
    return size


def code_dtype(size: int) -> np.dtype:
    """The smallest unsigned integer type holding codes ``0 .. size-1``."""
    for dtype in (np.uint8, np.uint16, np.uint32):
        if size <= np.iinfo(dtype).max + 1:
            return np.dtype(dtype)
    return np.dtype(np.uint64)


def row_bytes(domain: Domain) -> int:
    """Bytes that one distinct row costs in memory while marginals are computed from it.

    Its codes, its int64 count, the count as float64 (the bincount weights) and one int64 flat index
    (the bincount's input), so the cap on distinct rows follows from a memory budget.
    """
    return sum(code_dtype(s).itemsize for s in domain.sizes) + 24


def check_marginal(domain: Domain, attributes: Iterable[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the attributes as asked, the same in domain order), or an InputError naming the bad attribute."""
    if isinstance(attributes, str):
        raise InputTypeError(f"attributes must be a list of attribute names, got the string {attributes!r}")
    asked = tuple(attributes)
    unknown = [a for a in asked if a not in domain]
    if unknown:
        raise InputError(f"attributes {unknown} are not in the domain {list(domain.attributes)}")
    return asked, domain.canonical(asked)


def in_order(domain: Domain, canonical: tuple[str, ...], counts: np.ndarray, asked: tuple[str, ...]) -> np.ndarray:
    """``counts`` (axes in domain order) as a fresh C-ordered array with its axes in the order asked."""
    shape = tuple(domain.size_of(a) for a in canonical)
    cube = counts.reshape(shape)
    return np.array(np.transpose(cube, [canonical.index(a) for a in asked]), dtype=np.float64, order="C")


def fingerprint_digest(domain: Domain, n: int, row_chunks: Iterable[np.ndarray],
                       count_chunks: Iterable[np.ndarray]) -> str:
    """:meth:`Dataset.fingerprint <dprelease.data.Dataset.fingerprint>` from streamed chunks.

    ``row_chunks`` yields (m, d) code arrays, the distinct rows in lexicographic order; then
    ``count_chunks`` yields their counts in the same order. SHA-256 of the domain's JSON, n, every row
    as little-endian int64, then every count as little-endian int64 (private).
    """
    digest = hashlib.sha256(json.dumps(domain.to_dict(), sort_keys=True).encode())
    digest.update(str(n).encode())
    for rows in row_chunks:
        digest.update(np.ascontiguousarray(rows, dtype="<i8").tobytes())
    for counts in count_chunks:
        digest.update(np.ascontiguousarray(counts, dtype="<i8").tobytes())
    return digest.hexdigest()


@dataclass(frozen=True, eq=False)
class DistinctRows:
    """The table grouped into weighted distinct rows, in lexicographic order (private).

    ``columns[i]`` holds attribute i's codes (smallest unsigned type), ``counts`` each row's count.
    Build with :meth:`from_columns`, which sorts; the constructor trusts its arguments.
    """

    domain: Domain
    columns: tuple[np.ndarray, ...]
    counts: np.ndarray

    @classmethod
    def from_columns(cls, domain: Domain, columns: Sequence[np.ndarray], counts: np.ndarray) -> DistinctRows:
        """Sort the grouped rows lexicographically (the fingerprint's order) and store them compactly."""
        coded = [np.asarray(c).astype(code_dtype(s), copy=False) for c, s in zip(columns, domain.sizes)]
        order = np.lexsort(coded[::-1]) if coded and len(coded[0]) else np.arange(0)
        return cls(domain, tuple(c[order] for c in coded), np.asarray(counts, dtype=np.int64)[order])

    @property
    def size(self) -> int:
        """The number of distinct rows."""
        return int(self.counts.size)

    def marginal_counts(self, canonical: tuple[str, ...]) -> np.ndarray:
        """Flat float64 counts of the marginal on ``canonical`` (domain order): one weighted bincount."""
        axes = self.domain.axes(canonical)
        shape = tuple(self.domain.sizes[a] for a in axes)
        if not axes:
            return np.array([float(self.counts.sum())])
        flat = np.ravel_multi_index(tuple(self.columns[a] for a in axes), shape)
        return np.bincount(flat, weights=self.counts.astype(np.float64), minlength=math.prod(shape))

    def fingerprint(self, n: int) -> str:
        """The table's fingerprint (same bytes as ``Dataset.fingerprint``), hashed a chunk of rows at a time."""
        def rows():
            for start in range(0, self.size, CHUNK_ROWS):
                yield np.stack([c[start:start + CHUNK_ROWS] for c in self.columns], axis=1)

        return fingerprint_digest(self.domain, n, rows(), [self.counts])


class MarginalCache:
    """Flat counts by attribute set (domain order), at most ``max_cells`` in all; a subset sums a superset.

    A marginal whose counts are missing is derived from the smallest cached superset by summing the
    other axes: whole numbers, so exact and bit-identical to counting it directly.
    """

    def __init__(self, domain: Domain, max_cells: int) -> None:
        self.domain = domain
        self.max_cells = max_cells
        self._counts: dict[tuple[str, ...], np.ndarray] = {}
        self._cells = 0
        # Each attribute's cached sets, in the order cached: a superset holds every wanted attribute, so one list
        # is all it searches (scanning the whole cache on each miss made asking 19,900 pairs quadratic: 48 s).
        self._holding: dict[str, list[tuple[str, ...]]] = {}

    def __contains__(self, canonical: tuple[str, ...]) -> bool:
        return canonical in self._counts

    def covered(self, canonical: tuple[str, ...]) -> bool:
        """Whether the counts are cached or follow from a cached superset."""
        return canonical in self._counts or self._superset(canonical) is not None

    def get(self, canonical: tuple[str, ...]) -> np.ndarray | None:
        counts = self._counts.get(canonical)
        if counts is not None:
            return counts
        superset = self._superset(canonical)
        if superset is None:
            return None
        shape = tuple(self.domain.size_of(a) for a in superset)
        other = tuple(i for i, a in enumerate(superset) if a not in canonical)
        counts = self._counts[superset].reshape(shape).sum(axis=other).reshape(-1)
        self.put(canonical, counts)
        return counts

    def put(self, canonical: tuple[str, ...], counts: np.ndarray) -> None:
        """Keep ``counts`` if they fit; a full cache keeps what it has (prefetched sets outlive later reads)."""
        if canonical in self._counts or self._cells + counts.size > self.max_cells:
            return
        self._counts[canonical] = counts
        self._cells += counts.size
        for attribute in canonical:
            self._holding.setdefault(attribute, []).append(canonical)

    def _superset(self, canonical: tuple[str, ...]) -> tuple[str, ...] | None:
        """The smallest cached superset, the first cached among equals (the same as scanning the whole cache)."""
        wanted = set(canonical)
        pool = self._holding.get(canonical[0], []) if canonical else self._counts
        best = None
        for key in pool:
            if wanted <= set(key) and (best is None or self._counts[key].size < self._counts[best].size):
                best = key
        return best
