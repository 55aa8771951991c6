"""The median mechanism's database update (Dwork & Roth Sec. 5.2.1, Def. 5.6, Alg. 9, Thms 5.8-5.10).

Median data structure (Def. 5.6): a set D of candidate databases; a query is answered by the
median of its answers over the candidates, f(D) = Median{f(y) : y in D}.

Update MM_{alpha,Q}(D_t, f_t, v_t) (Algorithm 9):

    D_0 = N_alpha(Q)                                        # an alpha-net of databases
    if v_t < f_t(D_t):  D_{t+1} = D_t minus {y : f_t(y) >= f_t(D_t)}
    else:               D_{t+1} = D_t minus {y : f_t(y) <= f_t(D_t)}

Every update removes at least half of D_t (everything on one side of the median, the median
included), and under Def. 5.3's conditions a net point y within alpha of x is never removed.
So (Thm 5.8) no database update sequence is longer than T(alpha) = log2 |N_alpha(Q)|: the base
is 2 because of the halving (see docs/theorems.md).

Nets (Def. 5.2), see :mod:`dprelease.representations.nets`:

* :meth:`MedianMechanism.all_databases` (Thm 5.9): every database of n rows. It contains x,
  so it is a net for *any* query class (linear or not) and any alpha.
* :meth:`MedianMechanism.smalldb_net` (Remark 5.2, Thm 4.2): every database of
  m = floor(ln(2|Q|) / (2 alpha^2)) + 1 rows; an alpha-net for *linear* queries only, for every
  |Q| >= 1 (Hoeffding; the book's m = ln|Q| / alpha^2 is not a net for |Q| <= 2, docs/theorems.md).

Inside the iterative construction the transcript is a database update sequence at alpha/2
(updates happen when |v - f(D)| >= 3 alpha/4 and, w.h.p., |v - f(x)| < alpha/8: Thm 5.4's
8 ln(2T/beta) / (eps0 n) <= alpha), so the net must be an (alpha/2)-net: its point y within alpha/2
of x has |f(y) - v| < 5 alpha/8 < 3 alpha/4, so it lies on v's side of the median and is never
removed. :meth:`MedianMechanism.max_updates` refuses an alpha its net does not cover. The net's
size is public (it depends on |X| and m only), so T is public.

The median mechanism answers non-linear queries (:class:`~dprelease.queries.callable.CallableQuery`)
as well as linear ones: it only ever *evaluates* queries on candidate databases.

Everything here is post-processing of public noisy answers; no private data is read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dprelease.domain import Domain
from dprelease.errors import InputError
from dprelease.representations.histogram import HistogramModel
from dprelease.representations.nets import (
    DEFAULT_MAX_DATABASES,
    DEFAULT_MAX_NET_CELLS,
    all_databases,
    answer_column,
    answer_matrix,
    check_net,
    is_linear_query_set,
    normalized,
    smalldb_size,
)
from dprelease.validation import check_positive, check_positive_int


def median_max_updates(*, net_size: int) -> float:
    """T(alpha) = log2 |N_alpha(Q)| (Thm 5.8): each update at least halves the candidate set."""
    check_positive_int(net_size, "net_size")
    return math.log2(net_size)


@dataclass(frozen=True, eq=False)
class MedianModel:
    """A median data structure (Def. 5.6): candidate databases of ``database_size`` rows each.

    ``counts`` is a read-only ``(k, |X|)`` integer array; row i is candidate i's histogram.
    Answers are medians over the candidates (numpy's median: the mean of the two middle values
    when k is even, so at least half of the candidates lie on each side, inclusive).
    """

    domain: Domain
    database_size: int
    counts: np.ndarray
    net_size: int

    def __len__(self) -> int:
        return int(self.counts.shape[0])

    def answers(self, queries: object) -> np.ndarray:
        """f(D) = Median{f(y) : y in D} for every query of the set."""
        return np.median(answer_matrix(queries, self.counts, self.domain, self.database_size), axis=0)

    def marginal(self, attributes: Sequence[str]) -> np.ndarray:
        """Each cell of the marginal, as the median over candidates of that cell (a counting query).

        This is the structure's answer to every counting query of the marginal; the cells need not
        sum to 1 (a median of fractions is not a distribution).
        """
        attributes = tuple(attributes)
        axes = self.domain.axes(attributes)
        other = tuple(1 + i for i in range(len(self.domain)) if i not in axes)
        summed = normalized(self.counts, self.domain, self.database_size).sum(axis=other)
        kept = sorted(axes)
        per_candidate = np.transpose(summed, [0] + [1 + kept.index(a) for a in axes])
        return np.median(per_candidate, axis=0)

    def representative(self, queries: object) -> HistogramModel:
        """One surviving candidate to publish as rows: the one closest (max error) to the medians on ``queries``.

        Post-processing of the public structure. The theorems bound the *median* answers; the
        representative's own answers are within the medians' error plus its distance to them.
        """
        matrix = answer_matrix(queries, self.counts, self.domain, self.database_size)
        medians = np.median(matrix, axis=0)
        best = int(np.argmin(np.abs(matrix - medians).max(axis=1)))
        return database_model(self.domain, self.counts[best], self.database_size)


def database_model(domain: Domain, counts: np.ndarray, size: int) -> HistogramModel:
    """A database of ``size`` rows as a HistogramModel (empty cells get log 0 = -inf)."""
    with np.errstate(divide="ignore"):
        log_probs = np.log(np.asarray(counts, dtype=np.float64) / size).reshape(domain.shape)
    return HistogramModel(domain, log_probs)


@dataclass(frozen=True)
class MedianMechanism:
    """Algorithm 9 over a net of all databases of ``database_size`` rows.

    Build with :meth:`all_databases` (Thm 5.9, any queries) or :meth:`smalldb_net`
    (Remark 5.2, linear queries). The net's size is checked against public caps before
    anything is enumerated.

    Args:
        database_size: m, the number of rows of every candidate database.
        net_alpha: ``None`` for Thm 5.9's net (m = n: exact, any query class); otherwise the alpha
            for which the SmallDB net is an alpha-net of linear queries (Thm 4.2).
        max_databases, max_cells: public caps on the net (see :func:`~dprelease.representations.nets.check_net`).

    Privacy: none needed. A database update algorithm only post-processes public noisy answers;
    the iterative construction that calls it is (eps, delta)-DP by Thm 5.3 with T = log2 |net|.
    """

    database_size: int
    net_alpha: float | None = None
    max_databases: int = DEFAULT_MAX_DATABASES
    max_cells: int = DEFAULT_MAX_NET_CELLS
    name: str = "median-mechanism"

    def __post_init__(self) -> None:
        check_positive_int(self.database_size, "database_size")
        if self.net_alpha is not None:
            check_positive(self.net_alpha, "net_alpha")
        check_positive_int(self.max_databases, "max_databases")
        check_positive_int(self.max_cells, "max_cells")

    # ----------------------------------------------------------------- builders
    @classmethod
    def all_databases(cls, *, n: int, max_databases: int = DEFAULT_MAX_DATABASES,
                      max_cells: int = DEFAULT_MAX_NET_CELLS) -> MedianMechanism:
        """Thm 5.9: the net of every database of n rows (n is public). Exact; any query class."""
        return cls(check_positive_int(n, "n"), None, max_databases, max_cells)

    @classmethod
    def smalldb_net(cls, *, alpha: float, num_queries: int, max_databases: int = DEFAULT_MAX_DATABASES,
                    max_cells: int = DEFAULT_MAX_NET_CELLS) -> MedianMechanism:
        """Remark 5.2: every database of m = floor(ln(2|Q|) / (2 alpha^2)) + 1 rows, an alpha-net for linear queries.

        m is :func:`~dprelease.representations.nets.smalldb_size`: the fewest rows for which Thm 4.2's
        Hoeffding argument holds for every |Q| (2|Q| exp(-2 m alpha^2) < 1).

        For the iterative construction with target accuracy alpha, pass ``alpha / 2`` here.
        """
        return cls(smalldb_size(alpha=alpha, num_queries=num_queries), alpha, max_databases, max_cells)

    # ------------------------------------------------------------------ checks
    def net_size(self, domain: Domain, *, num_queries: int | None = None) -> int:
        """|D_0|: the exact number of databases in the net, or DomainTooLargeError above the caps."""
        return check_net(domain.size, self.database_size, num_queries=num_queries,
                         max_databases=self.max_databases, max_cells=self.max_cells,
                         what="the median mechanism's net")

    def check_queries(self, queries: object, domain: Domain) -> None:
        """Public checks of a query set against this net (size caps; linearity for a SmallDB net)."""
        self.net_size(domain, num_queries=queries.num_queries)
        if self.net_alpha is not None and not is_linear_query_set(queries):
            raise InputError("the SmallDB net is an alpha-net for linear queries only (Thm 4.2); for non-linear "
                             "queries use MedianMechanism.all_databases(n=...) (Thm 5.9)")

    # ---------------------------------------------------------------- protocol
    def initial(self, domain: Domain) -> MedianModel:
        """D_0 = N_alpha(Q): every database of m rows over X."""
        counts = all_databases(domain.size, self.database_size, max_databases=self.max_databases,
                               max_cells=self.max_cells)
        return MedianModel(domain, self.database_size, counts, int(counts.shape[0]))

    def answers(self, model: MedianModel, queries: object) -> np.ndarray:
        """Median answers of the structure (Def. 5.6)."""
        self.check_queries(queries, model.domain)
        return model.answers(queries)

    def update(self, model: MedianModel, query: object, noisy_answer: float, *, alpha: float) -> MedianModel:
        """D_{t+1} = MM(D_t, f_t, v_t) (Algorithm 9); ``model`` is not modified.

        If the removal would leave no candidate (possible only outside Def. 5.3's conditions,
        e.g. after an unlucky noise draw, since the net point near x is never removed under
        them), D_t is kept: the set stays a valid median structure, and this is post-processing.
        """
        values = answer_column(query, normalized(model.counts, model.domain, model.database_size))
        median = float(np.median(values))
        # UPDATE (MM, Alg. 9): drop the candidates on the median's wrong side, the median included.
        keep = values < median if noisy_answer < median else values > median
        if not keep.any():
            return model
        counts = model.counts[keep]
        counts.setflags(write=False)
        return MedianModel(model.domain, model.database_size, counts, model.net_size)

    def max_updates(self, *, alpha: float, domain: Domain) -> float:
        """T(alpha) = log2 |net| (Thm 5.8), for the alphas this net covers."""
        check_positive(alpha, "alpha")
        if self.net_alpha is not None and alpha < self.net_alpha * (1 - 1e-12):
            raise InputError(
                f"this SmallDB net (m={self.database_size}) is a {self.net_alpha:g}-net; Thm 5.8's T(alpha) needs "
                f"alpha >= {self.net_alpha:g}, got {alpha:g} (in the iterative construction build the net for alpha/2)"
            )
        return median_max_updates(net_size=self.net_size(domain))


def smallest_net(*, n: int, alpha: float, num_queries: int, linear: bool) -> tuple[str, int]:
    """The smaller valid alpha-net for databases of n rows: ("all-databases", n) or ("smalldb", m).

    Thm 5.9's net (m = n) is valid for any queries; the SmallDB net (Remark 5.2,
    m = floor(ln(2|Q|) / (2 alpha^2)) + 1, :func:`~dprelease.representations.nets.smalldb_size`) for linear
    ones only. C(|X| + m - 1, m) grows with m, so the net with fewer rows is the smaller one. Public
    arithmetic only.
    """
    check_positive_int(n, "n")
    m = smalldb_size(alpha=alpha, num_queries=num_queries)
    if linear and m < n:
        return "smalldb", m
    return "all-databases", n
