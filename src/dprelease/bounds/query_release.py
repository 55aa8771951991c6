"""The theorems' formulas, one function per theorem, and the alpha solver.

Logs are natural (the book's ``log`` in Ch. 3-6; see docs/theorems.md).
Where alpha appears on both sides of an accuracy condition, the smallest alpha in
(0, 1] that satisfies it is found numerically by bisection (the condition is
monotone in alpha: its right-hand side falls as alpha grows); ``None`` means the
theorem gives no guarantee with alpha <= 1.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

from dprelease.distinguishers import exponential_distinguisher_error
from dprelease.errors import InputError
from dprelease.privacy.noise import exact
from dprelease.privacy.sparse_vector import step_epsilons
from dprelease.representations.nets import count_databases, log2_count_databases, smalldb_size
from dprelease.updates.median import median_max_updates, smallest_net
from dprelease.updates.multiplicative_weights import mw_max_updates
from dprelease.updates.perceptron import perceptron_max_updates
from dprelease.validation import check_delta, check_open_unit, check_positive, check_positive_int, check_release_parameters


def ic_rounds(update_bound: Callable[[float], float], alpha: float) -> int:
    """The number of IC rounds, ceil(T(alpha / 2)) (Algorithm 8)."""
    return max(1, math.ceil(update_bound(alpha / 2)))


def ic_epsilon0(*, epsilon: float, delta: float, rounds: int) -> float:
    """Per-step epsilon of IC (Thm 5.3): eps / (2 T) for (eps, 0); eps / (4 sqrt(T ln(1/delta))) for (eps, delta).

    ``rounds`` is T(alpha/2), or the user's cap on rounds: a whole number of rounds actually run.
    """
    return thm_5_3_ic_epsilon0(epsilon=epsilon, delta=delta, rounds=check_positive_int(rounds, "rounds"))


def ic_accuracy_holds(*, alpha: float, epsilon0: float, n: int, beta: float, rounds: int,
                      distinguisher_error: float) -> bool:
    """Thm 5.4: alpha >= max(8 ln(2 T(alpha/2) / beta) / (eps0 n), 8 F(eps0)), with gamma = beta / (2 T(alpha/2))."""
    return alpha >= max(8 * math.log(2 * rounds / beta) / (epsilon0 * n), 8 * distinguisher_error)


def ic_mw_alpha(*, n: int, universe_size: int, num_queries: int, epsilon: float, delta: float = 0.0,
                beta: float = 0.05) -> float | None:
    """Smallest alpha for which IC with MW and the exponential distinguisher is (alpha, beta)-accurate.

    Thms 5.3 + 5.4 + 5.5 with T = T_MW(alpha / 2) = 16 ln|X| / alpha^2 (Thm 4.10) and
    gamma = beta / (2 T). ``None`` when no alpha <= 1 qualifies.
    """
    check_positive_int(n, "n")
    check_open_unit(beta, "beta")

    def holds(alpha: float) -> bool:
        rounds = ic_rounds(lambda a: mw_max_updates(alpha=a, universe_size=universe_size), alpha)
        eps0 = ic_epsilon0(epsilon=epsilon, delta=delta, rounds=rounds)
        gamma = beta / (2 * rounds)
        f = exponential_distinguisher_error(epsilon=eps0, gamma=gamma, n=n, num_queries=num_queries)
        return ic_accuracy_holds(alpha=alpha, epsilon0=eps0, n=n, beta=beta, rounds=rounds, distinguisher_error=f)

    return smallest_alpha(holds)


def smallest_alpha(holds: Callable[[float], bool], *, tolerance: float = 1e-6) -> float | None:
    """Bisection for the smallest alpha in (0, 1] with ``holds(alpha)`` (assumed monotone)."""
    if not holds(1.0):
        return None
    low, high = 0.0, 1.0
    while high - low > tolerance:
        mid = (low + high) / 2
        if holds(mid):
            high = mid
        else:
            low = mid
    return high


# ------------------------------------------------------------------ online MW (Sec. 4.2.2)
#: Cap on a stream length solved from alpha: beyond this the log term no longer matters.
ONLINE_MW_MAX_STREAM = 10**15
_SQRT512_PLUS_1 = math.sqrt(512) + 1  # = 1 + 16 sqrt(2); 2 (sqrt(512) + 1) = 2 + 32 sqrt(2) (Thm 4.15)


def online_mw_cutoff(*, alpha: float, universe_size: int) -> int:
    """c = ceil(4 ln|X| / alpha^2): the MW update bound of Thm 4.10 as the NumericSparse cut-off (Alg. 6)."""
    check_positive(alpha, "alpha")
    check_positive_int(universe_size, "universe_size")
    return max(1, math.ceil(mw_max_updates(alpha=alpha, universe_size=max(universe_size, 2))))


def numeric_sparse_alpha(*, cutoff: float, num_queries: int, epsilon: float, delta: float = 0.0, beta: float,
                         sensitivity: float = 1.0) -> float:
    """Thm 3.28: NumericSparse over k queries with cut-off c is (alpha, beta)-accurate for

        delta = 0:  alpha = 9 c (ln k + ln(4c / beta)) / eps
        delta > 0:  alpha = (ln k + ln(4c / beta)) sqrt(c ln(2 / delta)) (sqrt(512) + 1) / eps

    times the queries' sensitivity (1/n for normalized linear queries). ``cutoff`` may be
    fractional, to evaluate the theorems' closed forms. With delta > 0, where NumericSparse falls
    back to the delta = 0 sizing (a large eps: :func:`dprelease.privacy.sparse_vector.step_epsilons`,
    decided for ceil(c)), the delta = 0 bound is the one that holds, and is returned.
    """
    check_positive(cutoff, "cutoff")
    check_positive_int(num_queries, "num_queries")
    check_positive(epsilon, "epsilon")
    check_delta(delta)
    check_open_unit(beta, "beta")
    log_term = math.log(num_queries) + math.log(4 * cutoff / beta)
    uses_delta = delta > 0 and step_epsilons(epsilon=exact(epsilon), delta=exact(delta), cutoff=math.ceil(cutoff),
                                             numeric=True)[2]
    if not uses_delta:
        return sensitivity * 9 * cutoff * log_term / epsilon
    return sensitivity * log_term * math.sqrt(cutoff * math.log(2 / delta)) * _SQRT512_PLUS_1 / epsilon


def online_mw_accuracy_holds(*, alpha: float, n: int, universe_size: int, num_queries: int, epsilon: float,
                             delta: float = 0.0, beta: float) -> bool:
    """Thms 4.14 / 4.15: OnlineMW over |Q| queries is 3 alpha-accurate (w.p. 1 - beta) when alpha is at
    least NumericSparse's accuracy (Thm 3.28) with c = ceil(4 ln|X| / alpha^2), k = 2|Q| and sensitivity 1/n.

    With c not rounded up this is exactly Thm 4.14's condition with the corrected constant 36
    (the printed 32 does not follow from Thm 3.28; docs/theorems.md), resp. Thm 4.15's.
    """
    cutoff = online_mw_cutoff(alpha=alpha, universe_size=universe_size)
    needed = numeric_sparse_alpha(cutoff=cutoff, num_queries=2 * num_queries, epsilon=epsilon, delta=delta,
                                  beta=beta, sensitivity=1 / n)
    return alpha >= needed


def online_mw_alpha_pure(*, n: int, universe_size: int, num_queries: int, epsilon: float,
                         beta: float = 0.05) -> float | None:
    """Smallest alpha for which OnlineMW via NumericSparse (delta = 0) is 3 alpha-accurate (Thm 4.14).

    Thm 4.14 with the corrected constant (36, not the printed 32):
    alpha >= 36 ln|X| (ln|Q| + ln(32 ln|X| / (alpha^2 beta))) / (eps alpha^2 n), evaluated with the integer
    cut-off c = ceil(4 ln|X| / alpha^2) the algorithm runs with. ``None`` when no alpha <= 1 qualifies.
    """
    check_positive_int(n, "n")
    check_positive_int(num_queries, "num_queries")
    return smallest_alpha(lambda a: online_mw_accuracy_holds(
        alpha=a, n=n, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon, beta=beta))


def online_mw_alpha_approx(*, n: int, universe_size: int, num_queries: int, epsilon: float, delta: float,
                           beta: float = 0.05) -> float | None:
    """Smallest alpha for which OnlineMW via NumericSparse (delta > 0) is 3 alpha-accurate (Thm 4.15).

    alpha >= (2 + 32 sqrt 2) sqrt(ln|X| ln(2/delta)) (ln|Q| + ln(32 ln|X| / (alpha^2 beta))) / (alpha eps n),
    evaluated with the integer cut-off c = ceil(4 ln|X| / alpha^2). ``None`` when no alpha <= 1 qualifies.
    """
    check_positive_int(n, "n")
    check_positive_int(num_queries, "num_queries")
    check_open_unit(delta, "delta")
    return smallest_alpha(lambda a: online_mw_accuracy_holds(
        alpha=a, n=n, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon, delta=delta,
        beta=beta))


def online_mw_max_queries(*, alpha: float, n: int, universe_size: int, epsilon: float, delta: float = 0.0,
                          beta: float = 0.05) -> int:
    """The longest stream |Q| for which Thm 4.14 (delta = 0) / 4.15 (delta > 0) promises 3 alpha; 0 if none.

    Solves Thm 3.28's condition for ln(2|Q|) (it is linear in it), capped at :data:`ONLINE_MW_MAX_STREAM`.
    """
    check_positive(alpha, "alpha")
    check_positive_int(n, "n")
    cutoff = online_mw_cutoff(alpha=alpha, universe_size=universe_size)
    # Thm 3.28's alpha is (ln k + ln(4c/beta)) * rate; solve alpha >= that for k = 2|Q|.
    rate = numeric_sparse_alpha(cutoff=cutoff, num_queries=1, epsilon=epsilon, delta=delta, beta=beta,
                                sensitivity=1 / n) / math.log(4 * cutoff / beta)
    log_k = alpha / rate - math.log(4 * cutoff / beta)
    if log_k < math.log(2):
        return 0
    queries = ONLINE_MW_MAX_STREAM if log_k > math.log(2 * ONLINE_MW_MAX_STREAM) else math.floor(math.exp(log_k) / 2)
    holds = lambda q: online_mw_accuracy_holds(alpha=alpha, n=n, universe_size=universe_size, num_queries=q,
                                               epsilon=epsilon, delta=delta, beta=beta)
    while queries > 0 and not holds(queries):  # float rounding at the boundary: step down
        queries = min(queries - 1, math.floor(queries * (1 - 1e-9)))
    return queries


# =====================================================================================================
# One function per theorem (issue 5), named after it. Each is the book's formula; where the book's
# printed constant does not follow from its own proof, the corrected constant is used and
# ``as_printed=True`` gives the printed one (docs/theorems.md, [BOOK ISSUE] notes). Where alpha
# appears on both sides, the smallest alpha in (0, 1] is found numerically (``smallest_alpha``,
# bisection on a condition monotone in alpha) and ``None`` means the theorem is vacuous (no alpha <= 1).
# The ``ic_*_alpha`` solvers mirror IterativeConstruction.plan exactly (integer rounds ceil(T(alpha/2))).
# Logs are natural except Thm 5.8's log2 (halving) and Thm 6.6's bit length m = n log2|X|.
# =====================================================================================================


_TWO_PLUS_32_SQRT2 = 2 + 32 * math.sqrt(2)  # 2 (sqrt(512) + 1), Thm 4.15



# ------------------------------------------------------------------------ Sec. 4.1 SmallDB
# The SmallDB net has m = floor(ln(2|Q|) / (2 alpha^2)) + 1 rows (nets.smalldb_size), not the book's
# ln|Q| / alpha^2, which is no alpha-net for |Q| <= 2 (0 rows for |Q| = 1): [BOOK ISSUE] in docs/theorems.md.
# Prop. 4.4 and Thm 4.5 below are the book's arguments redone with that m; ``as_printed=True`` gives the
# book's formulas. The range is counted as the book counts it, |R| <= |X|^m.
def prop_4_4_smalldb_error(*, alpha: float, n: int, universe_size: int, num_queries: int, epsilon: float,
                           beta: float = 0.05, as_printed: bool = False) -> float:
    """Prop. 4.4: SmallDB(x, Q, eps, alpha) errs by at most alpha + 2 (m ln|X| + ln(1/beta)) / (eps n), w.p. 1 - beta.

    m = floor(ln(2|Q|) / (2 alpha^2)) + 1, the integer net size the code runs (Thm 4.2 corrected), and
    ln|R| <= m ln|X|. ``as_printed=True``: the book's m ln|X| = ln|X| ln|Q| / alpha^2.
    """
    check_positive(alpha, "alpha")
    check_release_parameters(n=n, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon, beta=beta)
    if as_printed:
        log_range = math.log(universe_size) * math.log(num_queries) / alpha**2
    else:
        log_range = smalldb_size(alpha=alpha, num_queries=num_queries) * math.log(universe_size)
    return alpha + 2 * (log_range + math.log(1 / beta)) / (epsilon * n)


def _thm_4_5_numerator(*, universe_size: int, num_queries: int, beta: float, as_printed: bool) -> float:
    ln_x, ln_b = math.log(universe_size), math.log(1 / beta)
    if as_printed:
        return 16 * ln_x * math.log(num_queries) + 4 * ln_b
    return 8 * ln_x * math.log(2 * num_queries) + 4 * ln_x + 4 * ln_b


def thm_4_5_smalldb_alpha(*, n: int, universe_size: int, num_queries: int, epsilon: float,
                          beta: float = 0.05, as_printed: bool = False) -> float:
    """Thm 4.5 (4.2), corrected closed form: SmallDB(x, Q, eps, alpha/2) errs by at most alpha w.p. 1 - beta for

        alpha = ((8 ln|X| ln(2|Q|) + 4 ln|X| + 4 ln(1/beta)) / (eps n))^(1/3).

    Derivation (the book's, with the corrected net): at alpha/2 the net has
    m = floor(2 ln(2|Q|) / alpha^2) + 1 <= 2 ln(2|Q|) / alpha^2 + 1 rows, so by Prop. 4.4 it suffices that
    4 (m ln|X| + ln(1/beta)) <= alpha eps n, i.e. 8 ln|X| ln(2|Q|) + 4 alpha^2 (ln|X| + ln(1/beta)) <= alpha^3 eps n,
    which alpha <= 1 and the formula above imply. (The 4 ln|X| pays for the integer m.) The book prints
    ((16 ln|X| ln|Q| + 4 ln(1/beta)) / (eps n))^(1/3) (``as_printed=True``), from m = 4 ln|Q| / alpha^2, which is
    no net for |Q| <= 2. A value above 1 is vacuous (the proof assumes alpha <= 1).
    """
    check_release_parameters(n=n, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon, beta=beta)
    numerator = _thm_4_5_numerator(universe_size=universe_size, num_queries=num_queries, beta=beta,
                                   as_printed=as_printed)
    return (numerator / (epsilon * n)) ** (1 / 3)


def thm_4_5_smalldb_min_n(*, alpha: float, universe_size: int, num_queries: int, epsilon: float,
                          beta: float = 0.05, as_printed: bool = False) -> float:
    """Thm 4.5 (4.3), corrected closed form: n >= (8 ln|X| ln(2|Q|) + 4 ln|X| + 4 ln(1/beta)) / (eps alpha^3)
    rows suffice for error alpha (alpha <= 1), with the corrected net (see :func:`thm_4_5_smalldb_alpha`).

    ``as_printed=True``: the book's (16 ln|X| ln|Q| + 4 ln(1/beta)) / (eps alpha^3).
    """
    check_positive(alpha, "alpha")
    check_release_parameters(n=1, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon, beta=beta)
    numerator = _thm_4_5_numerator(universe_size=universe_size, num_queries=num_queries, beta=beta,
                                   as_printed=as_printed)
    return numerator / (epsilon * alpha**3)


# -------------------------------------------------------------- Sec. 4.2 multiplicative weights
def thm_4_10_mw_updates(*, alpha: float, universe_size: int) -> float:
    """Thm 4.10: MW is a T(alpha)-database update algorithm with T(alpha) = 4 ln|X| / alpha^2."""
    return mw_max_updates(alpha=alpha, universe_size=universe_size)


def thm_4_14_online_mw_alpha(*, n: int, universe_size: int, num_queries: int, epsilon: float,
                             beta: float = 0.05, as_printed: bool = False) -> float | None:
    """Thm 4.14 (delta = 0): smallest alpha with OnlineMW 3 alpha-accurate, solved numerically from

        alpha >= C ln|X| (ln|Q| + ln(32 ln|X| / (alpha^2 beta))) / (eps alpha^2 n),

    C = 36, which Thm 3.28 with c = 4 ln|X| / alpha^2 and k = 2|Q| gives (the book prints 32:
    ``as_printed=True``). The guaranteed error is 3 alpha. See ``online_mw_alpha_pure`` for the
    version with the integer cut-off the algorithm runs with.
    """
    check_release_parameters(n=n, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon, beta=beta)
    c, ln_x = (32 if as_printed else 36), math.log(universe_size)

    def holds(alpha: float) -> bool:
        log_term = math.log(num_queries) + math.log(32 * ln_x / (alpha**2 * beta)) if ln_x > 0 else 0.0
        return alpha >= c * ln_x * log_term / (epsilon * alpha**2 * n)

    return smallest_alpha(holds)


def thm_4_15_online_mw_alpha(*, n: int, universe_size: int, num_queries: int, epsilon: float, delta: float,
                             beta: float = 0.05) -> float | None:
    """Thm 4.15 (delta > 0): smallest alpha with OnlineMW 3 alpha-accurate, solved numerically from

        alpha >= (2 + 32 sqrt 2) sqrt(ln|X| ln(2/delta)) (ln|Q| + ln(32 ln|X| / (alpha^2 beta))) / (alpha eps n).
    """
    check_release_parameters(n=n, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon, delta=delta,
                   beta=beta)
    check_open_unit(delta, "delta")
    ln_x = math.log(universe_size)

    def holds(alpha: float) -> bool:
        log_term = math.log(num_queries) + math.log(32 * ln_x / (alpha**2 * beta)) if ln_x > 0 else 0.0
        return alpha >= _TWO_PLUS_32_SQRT2 * math.sqrt(ln_x * math.log(2 / delta)) * log_term / (alpha * epsilon * n)

    return smallest_alpha(holds)


# ------------------------------------------------------------ Sec. 5.2 iterative construction
def thm_5_3_ic_epsilon0(*, epsilon: float, delta: float, rounds: float) -> float:
    """Thm 5.3: eps0 = eps / (2 T) for (eps, 0); eps / (4 sqrt(T ln(1/delta))) for (eps, delta); T = T(alpha/2).

    Unlike :func:`ic_epsilon0`, ``rounds`` may be fractional (the theorems' closed forms).
    """
    check_positive(epsilon, "epsilon")
    check_delta(delta)
    check_positive(rounds, "rounds")
    if delta == 0:
        return epsilon / (2 * rounds)
    return epsilon / (4 * math.sqrt(rounds * math.log(1 / delta)))


def thm_5_4_ic_alpha(*, epsilon0: float, n: int, beta: float, rounds: float, distinguisher_error: float) -> float:
    """Thm 5.4: the smallest alpha IC guarantees: max(8 ln(2 T / beta) / (eps0 n), 8 F(eps0)), T = T(alpha/2).

    Needs gamma <= beta / (2 T). (When T depends on alpha, the caller solves alpha >= this.)
    """
    check_positive(epsilon0, "epsilon0")
    check_positive_int(n, "n")
    check_open_unit(beta, "beta")
    check_positive(rounds, "rounds")
    return max(8 * math.log(2 * rounds / beta) / (epsilon0 * n), 8 * distinguisher_error)


def thm_5_5_em_distinguisher_error(*, epsilon: float, gamma: float, n: int, num_queries: int,
                                   sensitivity: Fraction | float | None = None) -> float:
    """Thm 5.5: F(eps) = 2 ln(|Q| / gamma) / (n eps), or 2 Delta ln(|Q| / gamma) / eps for sensitivity Delta."""
    return exponential_distinguisher_error(epsilon=epsilon, gamma=gamma, n=n, num_queries=num_queries,
                                           sensitivity=sensitivity)


def thm_5_6_ic_em_alpha(*, epsilon0: float, n: int, beta: float, rounds: float, num_queries: int) -> float:
    """Thm 5.6: max(8 ln(2 T / beta) / (eps0 n), 16 ln(|Q| / gamma) / (n eps0)) with gamma = beta / (2 T)."""
    check_positive(rounds, "rounds")
    gamma = beta / (2 * rounds)
    f = thm_5_5_em_distinguisher_error(epsilon=epsilon0, gamma=gamma, n=n, num_queries=num_queries)
    return thm_5_4_ic_alpha(epsilon0=epsilon0, n=n, beta=beta, rounds=rounds, distinguisher_error=f)


def thm_5_7_ic_em_alpha(*, epsilon: float, delta: float, n: int, beta: float, rounds: float, num_queries: int,
                        as_printed: bool = False) -> float:
    """Thm 5.7: IC with the exponential distinguisher, eps0 from Thm 5.3 substituted into Thm 5.6.

    Corrected (default): max of Thm 5.6's terms; its second term dominates, giving
    32 T ln(|Q|/gamma) / (n eps) for (eps, 0) and 64 sqrt(T ln(1/delta)) ln(|Q|/gamma) / (n eps) for
    (eps, delta), gamma = beta / (2T). The book prints 8 and 16 (``as_printed=True``): [BOOK ISSUE], a
    factor 4 too small for the theorems it cites.
    """
    check_positive(rounds, "rounds")
    if not as_printed:
        eps0 = thm_5_3_ic_epsilon0(epsilon=epsilon, delta=delta, rounds=rounds)
        return thm_5_6_ic_em_alpha(epsilon0=eps0, n=n, beta=beta, rounds=rounds, num_queries=num_queries)
    check_release_parameters(n=n, universe_size=1, num_queries=num_queries, epsilon=epsilon, delta=delta, beta=beta)
    log_term = math.log(num_queries * 2 * rounds / beta)
    if delta == 0:
        return 8 * rounds * log_term / (n * epsilon)
    return 16 * math.sqrt(rounds * math.log(1 / delta)) * log_term / (n * epsilon)


def thm_5_8_median_updates(*, net_size: int | float) -> float:
    """Thm 5.8: the median mechanism is a T(alpha)-database update algorithm, T(alpha) = log2 |N_alpha(Q)|.

    The net's size is the caller's: Thm 5.9's C(|X| + n - 1, n), or the SmallDB net's C(|X| + m - 1, m) with
    the corrected m = floor(ln(2|Q|) / (2 alpha^2)) + 1 (:func:`remark_5_2_median_updates`).
    """
    if isinstance(net_size, int):
        return median_max_updates(net_size=net_size)
    check_positive(net_size, "net_size")
    return math.log2(net_size)


def remark_5_2_median_updates(*, alpha: float, universe_size: int, num_queries: int,
                              as_printed: bool = False) -> float:
    """Remark 5.2: Thm 5.8 on the SmallDB net of linear queries, T(alpha) = log2 |X|^m = m log2|X|.

    m = floor(ln(2|Q|) / (2 alpha^2)) + 1, the corrected Thm 4.2 net (an alpha-net for every |Q|), counted as
    the book counts it (|X|^m databases); the code counts the C(|X| + m - 1, m) it enumerates
    (:func:`median_updates_for`). ``as_printed=True``: the book's ln|Q| log2|X| / alpha^2, from m = ln|Q| / alpha^2
    (0 for |Q| = 1: no net).
    """
    check_positive(alpha, "alpha")
    check_positive_int(universe_size, "universe_size")
    if as_printed:
        return math.log(check_positive_int(num_queries, "num_queries")) * math.log2(universe_size) / alpha**2
    return smalldb_size(alpha=alpha, num_queries=num_queries) * math.log2(universe_size)


def thm_5_9_net_size(*, universe_size: int, n: int) -> int:
    """Thm 5.9: all databases of n rows form an alpha-net (every alpha, every Q) of size <= |X|^n.

    The exact number of such databases (multisets) is smaller: C(|X| + n - 1, n)
    (:func:`~dprelease.representations.nets.count_databases`), which is what the code enumerates.
    """
    return check_positive_int(universe_size, "universe_size") ** check_positive_int(n, "n")


def thm_5_10_median_ic_alpha(*, n: int, universe_size: int, num_queries: int, epsilon: float, delta: float,
                             beta: float = 0.05, as_printed: bool = False) -> float:
    """Thm 5.10: median mechanism (Thm 5.9's net, T = n log2|X|) + exponential distinguisher in IC.

    Thm 5.9's net is every database of n rows (it holds x), so the corrected SmallDB sizing does not enter here;
    the code's :func:`ic_median_alpha` takes the smaller of the two nets.

    alpha = C sqrt(n log2|X| ln(1/delta)) ln(2 |Q| n log2|X| / beta) / (n eps), C = 64 (corrected Thm 5.7;
    the book prints 16: ``as_printed=True``) for any sensitivity-1/n queries. For delta = 0 (not stated in
    the book) the same substitution uses Thm 5.7's pure branch: 32 T ln(|Q|/gamma) / (n eps).
    """
    check_release_parameters(n=n, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon, delta=delta,
                   beta=beta)
    if universe_size < 2:
        raise InputError(f"universe_size must be >= 2 for Thm 5.10, got {universe_size}")
    rounds = n * math.log2(universe_size)
    return thm_5_7_ic_em_alpha(epsilon=epsilon, delta=delta, n=n, beta=beta, rounds=rounds,
                               num_queries=num_queries, as_printed=as_printed)


def thm_5_11_perceptron_updates(*, alpha: float, universe_size: int, norm_ratio: float = 1.0) -> float:
    """Thm 5.11: T(alpha) = r^2 |X| / alpha^2 with r = ||x||_2 / ||x||_1 (or a public bound on it)."""
    return perceptron_max_updates(alpha=alpha, universe_size=universe_size, norm_ratio_bound=norm_ratio)


def thm_5_12_perceptron_ic_alpha(*, n: int, universe_size: int, num_queries: int, epsilon: float, delta: float,
                                 beta: float = 0.05, norm_ratio: float = 1.0,
                                 as_printed: bool = False) -> float | None:
    """Thm 5.12: perceptron + exponential distinguisher in IC, solved numerically for the smallest alpha.

    Re-derived (the printed statement is garbled, docs/theorems.md) as Thm 5.7 with
    T(alpha/2) = 4 r^2 |X| / alpha^2: for delta > 0,
    alpha >= C sqrt(r) (4 |X| ln(1/delta))^(1/4) sqrt(ln(|Q| / gamma)) / sqrt(n eps), gamma = beta / (2 T(alpha/2)),
    C = 8 (corrected Thm 5.7) or 4 (``as_printed``, from the printed 16). delta = 0 uses Thm 5.7's pure branch.
    """
    check_release_parameters(n=n, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon, delta=delta,
                   beta=beta)

    def holds(alpha: float) -> bool:
        rounds = thm_5_11_perceptron_updates(alpha=alpha / 2, universe_size=universe_size, norm_ratio=norm_ratio)
        return alpha >= thm_5_7_ic_em_alpha(epsilon=epsilon, delta=delta, n=n, beta=beta, rounds=rounds,
                                            num_queries=num_queries, as_printed=as_printed)

    return smallest_alpha(holds)


# ---------------------------------------------- solvers that mirror IterativeConstruction.plan
def ic_alpha(*, n: int, num_queries: int, epsilon: float, delta: float = 0.0, beta: float = 0.05,
             updates: Callable[[float], float], unit_sensitivity: Fraction | float = 1) -> float | None:
    """Smallest alpha with IC (exponential distinguisher, update bound ``updates``) (alpha, beta)-accurate.

    Thms 5.3 + 5.4 + 5.5 exactly as the code runs them: rounds = ceil(T(alpha/2)),
    gamma = beta / (2 rounds), F with sensitivity unit_sensitivity / n. Solved numerically; ``None``
    when no alpha <= 1 qualifies.
    """
    check_release_parameters(n=n, universe_size=1, num_queries=num_queries, epsilon=epsilon, delta=delta, beta=beta)
    sensitivity = None if unit_sensitivity == 1 else Fraction(unit_sensitivity) / n

    def holds(alpha: float) -> bool:
        rounds = ic_rounds(updates, alpha)
        eps0 = ic_epsilon0(epsilon=epsilon, delta=delta, rounds=rounds)
        gamma = beta / (2 * rounds)
        f = exponential_distinguisher_error(epsilon=eps0, gamma=gamma, n=n, num_queries=num_queries,
                                            sensitivity=sensitivity)
        return ic_accuracy_holds(alpha=alpha, epsilon0=eps0, n=n, beta=beta, rounds=rounds, distinguisher_error=f)

    return smallest_alpha(holds)


def log2_net_size(universe_size: int, size: int) -> float:
    """log2 C(|X| + m - 1, m): exact (through the integer) when it is small enough to form, else by lgamma."""
    if log2_count_databases(universe_size, size) < 4096:
        return math.log2(count_databases(universe_size, size))
    return log2_count_databases(universe_size, size)


def median_updates_for(*, n: int, universe_size: int, num_queries: int,
                       linear: bool = True) -> Callable[[float], float]:
    """alpha -> T(alpha) = log2 |net| of the smaller valid alpha-net (Thm 5.8 on Thm 5.9 or Remark 5.2).

    Numerical, with the integer net sizes the code enumerates: Thm 5.9's C(|X| + n - 1, n), or the SmallDB net's
    C(|X| + m - 1, m) with m = floor(ln(2|Q|) / (2 alpha^2)) + 1 (Thm 4.2 corrected: a net for every |Q|).
    """

    def updates(alpha: float) -> float:
        _, size = smallest_net(n=n, alpha=alpha, num_queries=num_queries, linear=linear)
        return log2_net_size(universe_size, size)

    return updates


def ic_median_alpha(*, n: int, universe_size: int, num_queries: int, epsilon: float, delta: float = 0.0,
                    beta: float = 0.05, linear: bool = True) -> float | None:
    """Smallest alpha for IC with the median mechanism on the smaller valid net (see :func:`ic_alpha`).

    Solved numerically (bisection) with the integer net of :func:`median_updates_for` at alpha/2: Thm 5.9's
    n rows, or the corrected SmallDB net's floor(2 ln(2|Q|) / alpha^2) + 1 rows, whichever is smaller.
    """
    return ic_alpha(n=n, num_queries=num_queries, epsilon=epsilon, delta=delta, beta=beta,
                    updates=median_updates_for(n=n, universe_size=universe_size, num_queries=num_queries,
                                               linear=linear))


def ic_perceptron_alpha(*, n: int, universe_size: int, num_queries: int, epsilon: float, delta: float = 0.0,
                        beta: float = 0.05, norm_ratio_bound: float = 1.0) -> float | None:
    """Smallest alpha for IC with the perceptron and a public bound r on ||x||_2/||x||_1 (see :func:`ic_alpha`)."""
    return ic_alpha(n=n, num_queries=num_queries, epsilon=epsilon, delta=delta, beta=beta,
                    updates=lambda a: perceptron_max_updates(alpha=a, universe_size=universe_size,
                                                             norm_ratio_bound=norm_ratio_bound))


__all__ = [
    "ONLINE_MW_MAX_STREAM",
    "ic_accuracy_holds",
    "ic_alpha",
    "ic_epsilon0",
    "ic_median_alpha",
    "ic_mw_alpha",
    "ic_perceptron_alpha",
    "ic_rounds",
    "log2_net_size",
    "median_updates_for",
    "numeric_sparse_alpha",
    "online_mw_accuracy_holds",
    "online_mw_alpha_approx",
    "online_mw_alpha_pure",
    "online_mw_cutoff",
    "online_mw_max_queries",
    "prop_4_4_smalldb_error",
    "remark_5_2_median_updates",
    "smallest_alpha",
    "thm_4_10_mw_updates",
    "thm_4_14_online_mw_alpha",
    "thm_4_15_online_mw_alpha",
    "thm_4_5_smalldb_alpha",
    "thm_4_5_smalldb_min_n",
    "thm_5_10_median_ic_alpha",
    "thm_5_11_perceptron_updates",
    "thm_5_12_perceptron_ic_alpha",
    "thm_5_3_ic_epsilon0",
    "thm_5_4_ic_alpha",
    "thm_5_5_em_distinguisher_error",
    "thm_5_6_ic_em_alpha",
    "thm_5_7_ic_em_alpha",
    "thm_5_8_median_updates",
    "thm_5_9_net_size",
]
