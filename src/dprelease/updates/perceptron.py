"""The perceptron database update (Dwork & Roth Sec. 5.2.1, Algorithm 10, Thm 5.11).

    x^1 = 0
    x^{t+1} = x^t - (alpha' / |X|) f_t    if f_t(x^t) > v_t
    x^{t+1} = x^t + (alpha' / |X|) f_t    otherwise,          alpha' = alpha ||x||_1

(f_t in [0, 1]^X a linear query seen as a vector.) The proof of Thm 5.11 tracks the potential
||x - x^t||_2^2: it starts at ||x||_2^2 and, under Def. 5.3's conditions, drops by at least
alpha'^2 / |X| per update (a drop of 2 alpha'^2/|X| from the inner product, minus at most
alpha'^2/|X| from ||f_t||_2^2 <= |X|). So T(alpha) = (||x||_2 / ||x||_1)^2 |X| / alpha^2.

**Normalized units.** We work with z = x / n, so ||z||_1 = 1 publicly (n is public) and the
book's un-normalized alpha' = alpha ||x||_1 becomes a step of alpha / |X|. The potential is
||z - z^t||_2^2, starting at ||z||_2^2 = (||x||_2 / ||x||_1)^2 and dropping by >= alpha^2 / |X|.

**A public bound on ||x||_2 / ||x||_1.** That ratio depends on the private data, but the
number of IC rounds must be public. The rule therefore takes a *declared* bound r:
T(alpha) = r^2 |X| / alpha^2. ``r = 1`` always holds (||x||_2 <= ||x||_1), giving |X| / alpha^2.
Smaller r needs public knowledge: :func:`norm_ratio_bound_distinct_rows` (no cell holds two
records, e.g. a graph's edge set: r = 1/sqrt(n)) or :func:`norm_ratio_bound_max_cell_share`
(no cell holds more than a share s of the records: r = sqrt(s)). A wrong declaration never
affects *privacy* (the rounds are fixed and paid for in advance); it voids the accuracy theorem.

**A usable release.** x^t may have negative entries and need not sum to 1. The iterative
construction answers with the raw vector (that is the theorem's y); a synthetic table is made from
its Euclidean projection onto the probability simplex (:func:`project_to_simplex`), which is
post-processing of a public vector.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.errors import InputError, InputTypeError
from dprelease.representations.histogram import HistogramModel, marginalize
from dprelease.validation import check_positive, check_positive_int


def perceptron_max_updates(*, alpha: float, universe_size: int, norm_ratio_bound: float = 1.0) -> float:
    """T(alpha) = r^2 |X| / alpha^2, r a public bound on ||x||_2 / ||x||_1 (Thm 5.11)."""
    check_positive(alpha, "alpha")
    check_positive_int(universe_size, "universe_size")
    _check_ratio(norm_ratio_bound, universe_size)
    return norm_ratio_bound**2 * universe_size / alpha**2


def _check_ratio(r: float, universe_size: int | None = None) -> float:
    check_positive(r, "norm_ratio_bound")
    if r > 1:
        raise InputError(f"norm_ratio_bound must be a number in (0, 1] (||x||_2 <= ||x||_1 always), got {r!r}")
    if universe_size is not None and r * math.sqrt(universe_size) < 1 - 1e-12:
        raise InputError(f"norm_ratio_bound={r!r} is below 1/sqrt(|X|) = {1 / math.sqrt(universe_size):.4g}, "
                         "which no database can meet (||x||_2 >= ||x||_1 / sqrt(|X|))")
    return r


def norm_ratio_bound_distinct_rows(n: int) -> float:
    """r = 1/sqrt(n) when no cell of X holds two records (e.g. a graph's edge set): ||x||_2 = sqrt(n)."""
    return 1 / math.sqrt(check_positive_int(n, "n"))


def norm_ratio_bound_max_cell_share(share: float) -> float:
    """r = sqrt(s) when no cell holds more than a share s of the n records: ||x||_2^2 <= max_i x_i ||x||_1."""
    s = check_positive(share, "share")
    if s > 1:
        raise InputError(f"share must be a number in (0, 1], got {share!r}")
    return math.sqrt(s)


def project_to_simplex(values: np.ndarray) -> np.ndarray:
    """The Euclidean projection of a vector onto the probability simplex {p >= 0, sum p = 1}.

    The sort-based algorithm (Held, Wolfe & Crowder 1974; Duchi et al. 2008): p = max(v - theta, 0)
    with the threshold theta that makes p sum to 1. Same shape as ``values``.

    >>> project_to_simplex(np.array([0.5, 0.5, -0.2])).tolist()
    [0.5, 0.5, 0.0]
    """
    v = np.asarray(values, dtype=np.float64)
    flat = v.reshape(-1)
    u = np.sort(flat)[::-1]
    cumulative = np.cumsum(u) - 1.0
    index = np.arange(1, flat.size + 1)
    rho = int(np.flatnonzero(u - cumulative / index > 0)[-1]) + 1
    theta = cumulative[rho - 1] / rho
    return np.maximum(flat - theta, 0.0).reshape(v.shape)


@dataclass(frozen=True, eq=False)
class SignedHistogram:
    """The perceptron's x^t / n: a real vector over X (entries may be negative), shaped like the domain."""

    domain: Domain
    values: np.ndarray

    def marginal(self, attributes: Sequence[str]) -> np.ndarray:
        """The raw (possibly negative) marginal: what the iterative construction answers with."""
        return marginalize(self.domain, self.values, tuple(attributes))

    def projected(self) -> HistogramModel:
        """The Euclidean projection onto the probability simplex, as a releasable distribution (post-processing)."""
        p = project_to_simplex(self.values)
        with np.errstate(divide="ignore"):
            return HistogramModel(self.domain, np.log(p))


def l2_potential(true_distribution: np.ndarray, model: SignedHistogram) -> float:
    """Psi_t = ||z - z^t||_2^2 with z = x / n (the proof of Thm 5.11, normalized units)."""
    z = np.asarray(true_distribution, dtype=np.float64).reshape(model.values.shape)
    z = z / z.sum()
    return float(np.sum((z - model.values) ** 2))


@dataclass(frozen=True)
class Perceptron:
    """Algorithm 10 in normalized units, with a public bound on ||x||_2 / ||x||_1.

    Args:
        norm_ratio_bound: r in [1/sqrt(|X|), 1] with ||x||_2 / ||x||_1 <= r known from public
            information; the default 1 always holds. Sets T(alpha) = r^2 |X| / alpha^2.
        max_cells: cap on |X| (the vector is explicit).

    Privacy: none needed. The rule only post-processes public noisy answers; the iterative
    construction that calls it is (eps, delta)-DP by Thm 5.3 with T = r^2 |X| / alpha^2, a
    public number whatever the data (a wrong r can void the accuracy theorem, never privacy).
    """

    norm_ratio_bound: float = 1.0
    max_cells: int = DEFAULT_MAX_CELLS
    name: str = "perceptron"

    def __post_init__(self) -> None:
        _check_ratio(self.norm_ratio_bound)
        check_positive_int(self.max_cells, "max_cells")

    def initial(self, domain: Domain) -> SignedHistogram:
        """x^1 = 0 (Algorithm 10)."""
        domain.check_fits(self.max_cells, what="the perceptron's vector")
        _check_ratio(self.norm_ratio_bound, domain.size)
        values = np.zeros(domain.shape)
        values.setflags(write=False)
        return SignedHistogram(domain, values)

    def answers(self, model: SignedHistogram, queries: object) -> np.ndarray:
        """f(x^t) from the raw vector (not the projection): the theorem's y."""
        return queries.answers(model)

    def update(self, model: SignedHistogram, query: object, noisy_answer: float, *, alpha: float) -> SignedHistogram:
        """x^{t+1} = x^t -/+ (alpha / |X|) f_t in normalized units (Algorithm 10); ``model`` is not modified."""
        check_positive(alpha, "alpha")
        if not hasattr(query, "factor"):
            raise InputTypeError(f"the perceptron needs linear queries (with factor()); got {type(query).__name__}")
        q = np.broadcast_to(query.factor(), model.domain.shape)
        # UPDATE (perceptron, Alg. 10): step against the sign of f_t(x^t) - v_t.
        direction = -1.0 if query.evaluate(model) > noisy_answer else 1.0
        values = model.values + direction * (alpha / model.domain.size) * q
        values.setflags(write=False)
        return SignedHistogram(model.domain, values)

    def max_updates(self, *, alpha: float, domain: Domain) -> float:
        return perceptron_max_updates(alpha=alpha, universe_size=domain.size, norm_ratio_bound=self.norm_ratio_bound)
