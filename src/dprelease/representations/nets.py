"""Nets of small databases: every histogram of m rows over X, enumerated lazily and vectorised.

Two alpha-nets from Dwork & Roth (Def. 5.2) are used by the median mechanism and SmallDB:

* **Thm 5.9**: all databases of size n. The true database is one of them, so this is an
  alpha-net for *every* query class and every alpha >= 0 (error 0).
* **Thm 4.2 / Remark 5.2** (the SmallDB net): all databases of size
  m = floor(ln(2|Q|) / (2 alpha^2)) + 1. For *linear* queries some such database answers every
  query in Q within alpha: m rows drawn i.i.d. from x miss one query by alpha or more with
  probability at most 2 exp(-2 m alpha^2) (Hoeffding), so the union over Q, 2|Q| exp(-2 m alpha^2),
  is < 1 exactly when m > ln(2|Q|) / (2 alpha^2), and m is the smallest such integer. The book's
  m = ln|Q| / alpha^2 satisfies this only for |Q| > 2 (and is 0 rows for |Q| = 1): a correction of
  Thm 4.2's sizing, see docs/theorems.md.

A database of m rows over X is a multiset, i.e. a histogram of non-negative integers summing to
m; there are exactly C(|X| + m - 1, m) of them ("stars and bars"), far fewer than the |X|^m
sequences that Thm 5.9's bound counts. That count is computed *before* anything is enumerated,
from public quantities only, and an enumeration above a public cap is refused with a
:class:`~dprelease.errors.DomainTooLargeError`.

Enumeration walks the (|X| - 1)-subsets of bar positions with :func:`itertools.combinations`
(C speed, lexicographic order), a chunk at a time, and turns each chunk of bar positions into
counts with one ``np.diff``. Everything here is public: no private data is read.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import numpy as np

from dprelease.domain import Domain
from dprelease.errors import DomainTooLargeError
from dprelease.queries.array_eval import answer_column
from dprelease.validation import check_positive, check_positive_int

#: Default cap on the number of databases a net may hold.
DEFAULT_MAX_DATABASES = 1_000_000
#: Default cap on the floats held for a net at once: databases x max(|X|, |Q|) (160 MB of float64).
DEFAULT_MAX_NET_CELLS = 20_000_000
#: Databases handled per vectorised chunk.
CHUNK = 1 << 15


# ----------------------------------------------------------------------- sizes
def count_databases(universe_size: int, size: int) -> int:
    """The number of databases of ``size`` rows over X: C(|X| + m - 1, m), exactly.

    >>> count_databases(4, 3)   # 20 multisets of 3 rows over 4 cells
    20
    """
    check_positive_int(universe_size, "universe_size")
    check_positive_int(size, "size", minimum=0)
    return math.comb(universe_size + size - 1, size)


def log2_count_databases(universe_size: int, size: int) -> float:
    """log2 C(|X| + m - 1, m), by lgamma (no huge integers); exact to float precision."""
    check_positive_int(universe_size, "universe_size")
    check_positive_int(size, "size", minimum=0)
    if size == 0 or universe_size == 1:
        return 0.0
    nats = math.lgamma(universe_size + size) - math.lgamma(size + 1) - math.lgamma(universe_size)
    return max(0.0, nats / math.log(2))


def smalldb_size(*, alpha: float, num_queries: int) -> int:
    """m = floor(ln(2|Q|) / (2 alpha^2)) + 1: the rows of the SmallDB net (Alg. 4, Thm 4.2 corrected, Remark 5.2).

    The smallest m with 2|Q| exp(-2 m alpha^2) < 1, i.e. m > ln(2|Q|) / (2 alpha^2): then Hoeffding and a
    union bound over Q leave some database of m rows within alpha of x on every linear query, for every
    |Q| >= 1 (the book's ln|Q| / alpha^2 fails for |Q| <= 2; docs/theorems.md). The quotient is scaled up
    by 1e-12 before the floor, so float rounding can only add a row, never drop the strict inequality.

    >>> smalldb_size(alpha=0.3, num_queries=1), smalldb_size(alpha=0.3, num_queries=8)
    (4, 16)
    """
    check_positive(alpha, "alpha")
    check_positive_int(num_queries, "num_queries")
    return math.floor(math.log(2 * num_queries) / (2 * alpha**2) * (1 + 1e-12)) + 1


def check_net(universe_size: int, size: int, *, num_queries: int | None = None,
              max_databases: int = DEFAULT_MAX_DATABASES, max_cells: int = DEFAULT_MAX_NET_CELLS,
              what: str = "the net") -> int:
    """The net's exact size, or :class:`DomainTooLargeError` when it exceeds a public cap.

    Caps: at most ``max_databases`` databases, and databases x max(|X|, |Q|) <= ``max_cells``.
    """
    check_positive_int(max_databases, "max_databases")
    check_positive_int(max_cells, "max_cells")
    width = max(universe_size, num_queries or 0)
    log2_count = log2_count_databases(universe_size, size)
    # C(|X| + m - 1, m) can have millions of digits: formed exactly only when its log is moderate.
    if log2_count > 4096:
        count_text = f"about 2^{log2_count:.1f}"
    else:
        count = count_databases(universe_size, size)
        if count <= max_databases and count * width <= max_cells:
            return count
        count_text = f"{count:,}" if log2_count < 64 else f"about 2^{log2_count:.1f}"
    raise DomainTooLargeError(
        f"{what} holds every database of m={size} rows over |X|={universe_size} cells: C(|X|+m-1, m) = "
        f"{count_text} databases, above the cap (max_databases={max_databases:,}, and databases x "
        f"max(|X|, |Q|) <= max_cells={max_cells:,}); use fewer columns or values, a larger alpha (--alpha), "
        "or raise the caps (max_databases, max_cells: Python options)"
    )


# ----------------------------------------------------------------- enumeration
def _count_dtype(size: int) -> type:
    return np.uint8 if size < 2**8 else np.uint16 if size < 2**16 else np.uint32 if size < 2**32 else np.uint64


def iter_databases(universe_size: int, size: int, *, chunk: int = CHUNK) -> Iterator[np.ndarray]:
    """Every database of ``size`` rows over X, as ``(k, |X|)`` count arrays of at most ``chunk`` rows.

    Lexicographic order of the bar positions; nothing is materialised beyond one chunk.

    >>> np.concatenate(list(iter_databases(3, 2))).tolist()
    [[0, 0, 2], [0, 1, 1], [0, 2, 0], [1, 0, 1], [1, 1, 0], [2, 0, 0]]
    """
    check_positive_int(universe_size, "universe_size")
    check_positive_int(size, "size", minimum=0)
    check_positive_int(chunk, "chunk")
    dtype = _count_dtype(size)
    if universe_size == 1:
        yield np.full((1, 1), size, dtype=dtype)
        return
    bars = universe_size - 1
    combos = itertools.combinations(range(size + bars), bars)
    edges_low = np.full((1, 1), -1, dtype=np.int64)
    edges_high = np.full((1, 1), size + bars, dtype=np.int64)
    while True:
        flat = np.fromiter(itertools.chain.from_iterable(itertools.islice(combos, chunk)), dtype=np.int64)
        if flat.size == 0:
            return
        positions = flat.reshape(-1, bars)
        k = positions.shape[0]
        padded = np.concatenate([np.repeat(edges_low, k, 0), positions, np.repeat(edges_high, k, 0)], axis=1)
        yield (np.diff(padded, axis=1) - 1).astype(dtype)
        if k < chunk:
            return


def all_databases(universe_size: int, size: int, *, max_databases: int = DEFAULT_MAX_DATABASES,
                  max_cells: int = DEFAULT_MAX_NET_CELLS) -> np.ndarray:
    """The whole net as one read-only ``(C(|X|+m-1, m), |X|)`` count array (checked against the caps first)."""
    count = check_net(universe_size, size, max_databases=max_databases, max_cells=max_cells)
    counts = np.concatenate(list(iter_databases(universe_size, size)))
    assert counts.shape == (count, universe_size)
    counts.setflags(write=False)
    return counts


# --------------------------------------------------------------------- answers
def normalized(counts: np.ndarray, domain: Domain, size: int) -> np.ndarray:
    """Counts of m-row databases as a ``(k, *domain.shape)`` stack of fractions."""
    return (counts.astype(np.float64) / size).reshape((-1, *domain.shape))


def answer_matrix(queries: object, counts: np.ndarray, domain: Domain, size: int, *,
                  chunk: int = CHUNK) -> np.ndarray:
    """``(k, num_queries)``: every query of the set on every database (normalized by its size m).

    A :class:`~dprelease.queries.workload.Workload` is answered by summing each candidate's
    histogram over the axes outside each marginal; a set with ``answers_many`` uses it;
    anything else column by column through ``queries.query(i)``.
    """
    from dprelease.queries.workload import Workload

    if counts.shape[0] == 0:
        return np.zeros((0, queries.num_queries))
    parts = []
    for start in range(0, counts.shape[0], chunk):
        stack = normalized(counts[start:start + chunk], domain, size)
        if isinstance(queries, Workload):
            blocks = []
            for marginal in queries.marginals:
                axes = domain.axes(marginal)
                other = tuple(1 + i for i in range(len(domain)) if i not in axes)
                summed = stack.sum(axis=other)
                kept = sorted(axes)
                blocks.append(np.transpose(summed, [0] + [1 + kept.index(a) for a in axes]).reshape(len(stack), -1))
            parts.append(np.concatenate(blocks, axis=1))
        elif hasattr(queries, "answers_many"):
            parts.append(np.asarray(queries.answers_many(stack), dtype=np.float64))
        else:
            parts.append(np.stack([answer_column(queries.query(i), stack) for i in range(queries.num_queries)], axis=1))
    return np.concatenate(parts)


def is_linear_query_set(queries: object) -> bool:
    """Whether Thm 4.2 (hence the SmallDB net) applies: a Workload, or every query linear."""
    from dprelease.queries.workload import Workload

    if isinstance(queries, Workload):
        return True
    if hasattr(queries, "is_linear"):
        return bool(queries.is_linear)
    members = getattr(queries, "queries", None)
    return members is not None and all(hasattr(q, "factor") for q in members)
