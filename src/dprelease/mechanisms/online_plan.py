"""The public plan of an online MW session (Dwork & Roth Thms 4.14 / 4.15): alpha, |Q|, c and T.

Everything here is a function of public quantities (n, |X|, epsilon, delta, beta and the user's alpha
or stream length), fixed before any data is read. :mod:`~dprelease.mechanisms.online_mw` runs the
session and :mod:`~dprelease.mechanisms.online_state` saves it; both import the plan from here.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from dprelease.bounds import (
    numeric_sparse_alpha,
    online_mw_alpha_approx,
    online_mw_alpha_pure,
    online_mw_cutoff,
    online_mw_max_queries,
)
from dprelease.errors import InputError
from dprelease.validation import check_delta, check_open_unit, check_positive, check_positive_int


@dataclass(frozen=True, slots=True)
class OnlineMWPlan:
    """Every public parameter of a session, fixed before any data is read.

    Build with :meth:`solve`. ``given`` says which of alpha / max_queries the user chose.
    """

    epsilon: float
    delta: float
    beta: float
    alpha: float
    max_queries: int
    cutoff: int
    threshold: float
    n: int
    universe_size: int
    given: str

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")
        check_delta(self.delta)
        check_open_unit(self.beta, "beta")
        check_positive(self.alpha, "alpha")
        check_positive_int(self.max_queries, "max_queries")
        check_positive_int(self.cutoff, "cutoff")
        check_positive(self.threshold, "threshold")
        check_positive_int(self.n, "n")
        check_positive_int(self.universe_size, "universe_size")
        if self.given not in ("alpha", "max_queries"):
            raise InputError(f"given must be 'alpha' or 'max_queries', got {self.given!r}")

    @classmethod
    def solve(cls, *, n: int, universe_size: int, epsilon: float, delta: float = 0.0, alpha: float | None = None,
              max_queries: int | None = None, beta: float = 0.05) -> OnlineMWPlan:
        """alpha from |Q|, or |Q| from alpha, by Thm 4.14 (delta = 0) or Thm 4.15 (delta > 0)."""
        check_positive(epsilon, "epsilon")
        check_delta(delta)
        check_open_unit(beta, "beta")
        check_positive_int(n, "n")
        check_positive_int(universe_size, "universe_size")
        theorem = "Thm 4.14" if delta == 0 else "Thm 4.15"
        where = f"n={n}, |X|={universe_size}, epsilon={epsilon:g}" + (f", delta={delta:g}" if delta else "")
        if (alpha is None) == (max_queries is None):
            raise InputError("give exactly one of alpha and max_queries (the other is solved from the theorem)")
        if alpha is not None:
            check_positive(alpha, "alpha")
            if alpha > 1:
                raise InputError(f"alpha must be a number in (0, 1], got {alpha!r}")
            given, max_queries = "alpha", online_mw_max_queries(
                alpha=alpha, n=n, universe_size=universe_size, epsilon=epsilon, delta=delta, beta=beta)
            if max_queries < 1:
                smallest = _smallest_alpha(n, universe_size, 1, epsilon, delta, beta)
                best = f"{smallest:.4g}" if smallest is not None else "none <= 1"
                raise InputError(f"alpha={alpha:g} is below what {theorem} supports even for one query at {where} "
                                 f"(smallest alpha: {best})")
        else:
            check_positive_int(max_queries, "max_queries")
            given, alpha = "max_queries", _smallest_alpha(n, universe_size, max_queries, epsilon, delta, beta)
            if alpha is None:
                raise InputError(f"{theorem} guarantees no alpha <= 1 for {max_queries} queries at {where}: "
                                 "more rows, a larger epsilon or a shorter stream is needed")
        cutoff = online_mw_cutoff(alpha=alpha, universe_size=universe_size)
        return cls(float(epsilon), float(delta), float(beta), float(alpha), int(max_queries), cutoff,
                   2 * float(alpha), int(n), int(universe_size), given)

    @property
    def theorem(self) -> str:
        return "Thm 4.14" if self.delta == 0 else "Thm 4.15"

    @property
    def promised_accuracy(self) -> float:
        """3 alpha: w.p. >= 1 - beta every answer is within this of the truth (Thm 4.14 / 4.15)."""
        return 3 * self.alpha

    @property
    def vacuous(self) -> bool:
        """True when 3 alpha >= 1: any number in [0, 1] meets the promise."""
        return self.promised_accuracy >= 1

    @property
    def numeric_sparse_alpha(self) -> float:
        """NumericSparse's own accuracy over k = 2|Q| questions (Thm 3.28); at most alpha."""
        return numeric_sparse_alpha(cutoff=self.cutoff, num_queries=2 * self.max_queries, epsilon=self.epsilon,
                                    delta=self.delta, beta=self.beta, sensitivity=1 / self.n)

    def to_json(self) -> dict[str, object]:
        return {**asdict(self), "theorem": self.theorem, "promised_accuracy": self.promised_accuracy}

    @classmethod
    def from_json(cls, record: dict[str, object]) -> OnlineMWPlan:
        names = ("epsilon", "delta", "beta", "alpha", "max_queries", "cutoff", "threshold", "n", "universe_size",
                 "given")
        try:
            return cls(*(record[k] for k in names))
        except (KeyError, TypeError) as exc:
            raise InputError(f"session plan is invalid: {type(exc).__name__}: {exc}") from None


def _smallest_alpha(n: int, universe_size: int, queries: int, epsilon: float, delta: float,
                    beta: float) -> float | None:
    if delta == 0:
        return online_mw_alpha_pure(n=n, universe_size=universe_size, num_queries=queries, epsilon=epsilon, beta=beta)
    return online_mw_alpha_approx(n=n, universe_size=universe_size, num_queries=queries, epsilon=epsilon,
                                  delta=delta, beta=beta)
