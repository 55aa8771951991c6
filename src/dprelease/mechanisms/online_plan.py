"""The public plan of an online MW session: the book's (Thms 4.14 / 4.15) or a warm-started one (Thm 3.28).

Everything here is a function of public quantities (n, |X|, epsilon, delta, beta and the user's alpha
or stream length), fixed before any data is read. :mod:`~dprelease.mechanisms.online_mw` runs the
session and :mod:`~dprelease.mechanisms.online_state` saves it; both import the plan from here.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from fractions import Fraction

from dprelease.bounds import (
    numeric_sparse_alpha,
    online_mw_alpha_approx,
    online_mw_alpha_pure,
    online_mw_cutoff,
    online_mw_max_queries,
)
from dprelease.errors import InputError
from dprelease.privacy.noise import exact, float_at_most
from dprelease.privacy.sparse_vector import step_epsilons
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

    mode = "book"

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
        theorem = "Thm 4.14" if delta == 0 else "Thms 4.14-4.15"  # with a delta, the less noisy sizing's
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
        """Thm 4.15 where NumericSparse runs the delta > 0 sizing; Thm 4.14 without a delta, and with one where the
        delta = 0 sizing is the less noisy at this cut-off (:func:`~dprelease.privacy.sparse_vector.step_epsilons`:
        the bound and the noise are then Thm 4.14's)."""
        if self.delta == 0:
            return "Thm 4.14"
        booked = step_epsilons(epsilon=exact(self.epsilon), delta=exact(self.delta), cutoff=self.cutoff, numeric=True)
        return "Thm 4.15" if booked[2] else "Thm 4.14"

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


#: The modes of an online session: the book's Algorithm 6 exactly, or warm-started from an offline synopsis.
MODES = ("book", "warm")
#: Warm mode's defaults, measured on Adult (benchmarks/results/online.md; docs/decisions.md).
DEFAULT_WARM_SHARE = 0.5
DEFAULT_WARM_WORKLOAD = "1-3way"
#: The largest cut-off the warm planner considers (a bound on the search, far above any useful plan).
MAX_WARM_CUTOFF = 10**7


@dataclass(frozen=True, slots=True)
class WarmPlan:
    """Every public parameter of a warm-started session (``mode="warm"``), fixed before any data is read.

    The budget (epsilon, delta) is split exactly: ``warm_share`` of both buys the offline synopsis
    (MWEM on ``warm_workload``), the rest runs NumericSparse. The analyst asks for an ``accuracy`` a
    and a stream length |Q|; the planner takes the largest cut-off c that the online budget affords
    with NumericSparse's accuracy (Thm 3.28, k = 2|Q| questions of sensitivity 1/n)

        alpha_NS(c) <= a / 3,     then  T = a - alpha_NS(c),   alpha = T / 2  (the MW step eta = alpha / 2)

    so that, with probability >= 1 - beta, every answer given is within a: a measured answer within
    alpha_NS, a hypothesis answer (both comparisons below T) within T + alpha_NS = a. alpha >= alpha_NS
    is the condition of the book's potential argument (Thm 4.10 in the proof of Thm 4.14): each update
    lowers KL(x || x^t) by at least alpha^2 / 4, so there are at most 4 KL(x || x^0) / alpha^2 updates.
    That bound depends on how good the synopsis x^0 is (private), so c comes from the budget, not from
    it; after c updates every further query is refused.

    Build with :meth:`solve`. Amounts are exact fractions (:attr:`epsilon_offline` + :attr:`epsilon_online`
    is exactly epsilon).
    """

    epsilon: float
    delta: float
    beta: float
    accuracy: float
    max_queries: int
    cutoff: int
    threshold: float
    n: int
    universe_size: int
    warm_share: float
    warm_workload: str
    warm_rounds: int | None = None

    mode = "warm"
    given = "accuracy"

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")
        check_delta(self.delta)
        check_open_unit(self.beta, "beta")
        check_open_unit(self.accuracy, "accuracy")
        check_positive_int(self.max_queries, "max_queries")
        check_positive_int(self.cutoff, "cutoff")
        check_positive(self.threshold, "threshold")
        check_positive_int(self.n, "n")
        check_positive_int(self.universe_size, "universe_size")
        check_open_unit(self.warm_share, "warm_share")
        if not isinstance(self.warm_workload, str) or not self.warm_workload:
            raise InputError(f"warm_workload must be a workload spec such as '1-3way', got {self.warm_workload!r}")
        if self.warm_rounds is not None:
            check_positive_int(self.warm_rounds, "warm_rounds")

    # ------------------------------------------------------------ the budget split (exact)
    @property
    def epsilon_offline(self) -> Fraction:
        return exact(self.epsilon) * exact(self.warm_share)

    @property
    def epsilon_online(self) -> Fraction:
        return exact(self.epsilon) - self.epsilon_offline

    @property
    def delta_offline(self) -> Fraction:
        return exact(self.delta) * exact(self.warm_share)

    @property
    def delta_online(self) -> Fraction:
        return exact(self.delta) - self.delta_offline

    @classmethod
    def solve(cls, *, n: int, universe_size: int, epsilon: float, delta: float = 0.0, accuracy: float,
              max_queries: int, beta: float = 0.05, warm_share: float = DEFAULT_WARM_SHARE,
              warm_workload: str = DEFAULT_WARM_WORKLOAD, warm_rounds: int | None = None) -> WarmPlan:
        """The largest cut-off c with alpha_NS(c) <= accuracy / 3 (Thm 3.28 on the online share), and T."""
        check_positive(epsilon, "epsilon")
        check_delta(delta)
        check_open_unit(beta, "beta")
        check_positive_int(n, "n")
        check_positive_int(universe_size, "universe_size")
        check_open_unit(accuracy, "accuracy")
        check_positive_int(max_queries, "max_queries")
        check_open_unit(warm_share, "warm_share")
        probe = cls(float(epsilon), float(delta), float(beta), float(accuracy), int(max_queries), 1, 1.0, int(n),
                    int(universe_size), float(warm_share), warm_workload, warm_rounds)
        needed = probe.numeric_sparse_alpha_at
        if 3 * needed(1) > accuracy:
            # past 1 an accuracy promises nothing about a fraction: then only more budget or fewer queries help
            least = (f"accuracy >= {3 * needed(1):.4g}; ask for less accuracy, a shorter stream, more epsilon or a "
                     "smaller warm_share") if 3 * needed(1) < 1 else \
                (f"accuracy >= {3 * needed(1):.4g}, which promises nothing (a fraction's error is at most 1); ask for "
                 "more epsilon, a shorter stream or a smaller warm_share")
            raise InputError(
                f"accuracy={accuracy:g} is below what NumericSparse (Thm 3.28) promises for {max_queries} queries "
                f"with the online share epsilon={float(probe.epsilon_online):.4g} at n={n}: even one update needs "
                f"{least}")
        low, high = 1, 2  # the largest c with 3 alpha_NS(c) <= accuracy (alpha_NS grows with c)
        while high <= MAX_WARM_CUTOFF and 3 * needed(high) <= accuracy:
            low, high = high, 2 * high
        high = min(high, MAX_WARM_CUTOFF + 1)
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if 3 * needed(middle) <= accuracy else (low, middle)
        threshold = accuracy - needed(low)
        return cls(float(epsilon), float(delta), float(beta), float(accuracy), int(max_queries), low, threshold,
                   int(n), int(universe_size), float(warm_share), warm_workload, warm_rounds)

    def numeric_sparse_alpha_at(self, cutoff: int) -> float:
        """alpha_NS of Thm 3.28 for this plan's online share, k = 2|Q| questions of sensitivity 1/n."""
        return numeric_sparse_alpha(cutoff=cutoff, num_queries=2 * self.max_queries,
                                    epsilon=float_at_most(self.epsilon_online), delta=float_at_most(self.delta_online),
                                    beta=self.beta, sensitivity=1 / self.n)

    @property
    def numeric_sparse_alpha(self) -> float:
        """NumericSparse's accuracy alpha_NS at this plan's cut-off (<= accuracy / 3)."""
        return self.numeric_sparse_alpha_at(self.cutoff)

    @property
    def alpha(self) -> float:
        """T / 2, the book's alpha for the MW step (eta = alpha / 2); >= alpha_NS by construction."""
        return self.threshold / 2

    @property
    def halting(self) -> str:
        """When the stream stops, in words (public): the analyst's accuracy buys c updates, and a session whose c is
        small ends at its c-th miss however long the stream was asked to be; says what accuracy would buy twice c."""
        c = self.cutoff
        if c >= self.max_queries:
            return f"every one of the {self.max_queries} queries can be answered (the cut-off c={c} is not reached)"
        needed = 3 * self.numeric_sparse_alpha_at(2 * c)
        places = 2 - math.floor(math.log10(needed))  # three significant digits, rounded up so that it does buy 2c
        more = math.ceil(needed * 10**places) / 10**places
        return (f"at most {c} update{'' if c == 1 else 's'}: each query the hypothesis misses by more than the "
                f"threshold T={self.threshold:.4g} is measured and uses one, and after the last every query is "
                f"refused, however many of the {self.max_queries} are left; accuracy={more:g} would allow {2 * c} "
                "(or more epsilon, or a smaller warm_share)")

    @property
    def theorem(self) -> str:
        return "Thm 3.28 after an MWEM synopsis"

    @property
    def promised_accuracy(self) -> float:
        """a: w.p. >= 1 - beta every answer given is within it (refused queries get no answer)."""
        return self.accuracy

    @property
    def vacuous(self) -> bool:
        return False  # accuracy < 1 is checked; a refusal, not a vacuous answer, is what the budget cannot cover

    def to_json(self) -> dict[str, object]:
        return {**{name: getattr(self, name) for name in _WARM_FIELDS}, "mode": self.mode, "theorem": self.theorem,
                "promised_accuracy": self.promised_accuracy, "numeric_sparse_alpha": self.numeric_sparse_alpha,
                "alpha": self.alpha, "epsilon_offline": str(self.epsilon_offline),
                "epsilon_online": str(self.epsilon_online), "delta_offline": str(self.delta_offline),
                "delta_online": str(self.delta_online)}

    @classmethod
    def from_json(cls, record: dict[str, object]) -> WarmPlan:
        try:
            if record["mode"] != "warm":
                raise InputError(f"session plan is for mode {record['mode']!r}, not 'warm'")
            return cls(*(record[k] for k in _WARM_FIELDS))
        except (KeyError, TypeError) as exc:
            raise InputError(f"session plan is invalid: {type(exc).__name__}: {exc}") from None


_WARM_FIELDS = ("epsilon", "delta", "beta", "accuracy", "max_queries", "cutoff", "threshold", "n", "universe_size",
                "warm_share", "warm_workload", "warm_rounds")


def plan_from_json(record: dict[str, object]) -> OnlineMWPlan | WarmPlan:
    """A saved plan of either mode (a plan without ``mode`` is the book's)."""
    if isinstance(record, dict) and record.get("mode", "book") == "warm":
        return WarmPlan.from_json(record)
    return OnlineMWPlan.from_json(record)


#: The ledger labels and rule of a session's charges; :mod:`~dprelease.mechanisms.online_state` rebuilds the
#: ledger a plan implies from them, so a resumed state's ledger is compared with it exactly.
WARM_CHARGE_LABEL = "OnlineMW warm start: MWEM synopsis"
WARM_CHARGE_RULE = "MWEM synopsis, (epsilon, delta) as declared; basic composition (Thm 3.16)"
SPARSE_LABEL = "OnlineMW NumericSparse"


def sparse_budget(plan: OnlineMWPlan | WarmPlan) -> tuple[Fraction, Fraction]:
    """The (epsilon, delta) that NumericSparse runs at: the whole budget (book), or the online share (warm)."""
    if plan.mode == "warm":
        return plan.epsilon_online, Fraction(float_at_most(plan.delta_online))
    return exact(plan.epsilon), exact(plan.delta)


def rederive_plan(plan: OnlineMWPlan | WarmPlan) -> OnlineMWPlan | WarmPlan:
    """The plan that :meth:`OnlineMWPlan.solve` / :meth:`WarmPlan.solve` derive from ``plan``'s public inputs.

    A stored plan is trusted only if it equals this exactly: its cut-off, threshold, alpha and stream
    length are functions of (epsilon, delta, beta, the user's alpha / |Q| / accuracy, warm share and
    workload, n, |X|), never free values.
    """
    if plan.mode == "warm":
        return WarmPlan.solve(n=plan.n, universe_size=plan.universe_size, epsilon=plan.epsilon, delta=plan.delta,
                              accuracy=plan.accuracy, max_queries=plan.max_queries, beta=plan.beta,
                              warm_share=plan.warm_share, warm_workload=plan.warm_workload,
                              warm_rounds=plan.warm_rounds)
    target = {"alpha": plan.alpha} if plan.given == "alpha" else {"max_queries": plan.max_queries}
    return OnlineMWPlan.solve(n=plan.n, universe_size=plan.universe_size, epsilon=plan.epsilon, delta=plan.delta,
                              beta=plan.beta, **target)
