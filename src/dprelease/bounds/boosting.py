"""Boosting for queries in numbers: Thm 6.1, Lemma 6.4, Eq. (6.7), and the LP base generator's constants.

One function per statement, as in :mod:`dprelease.bounds.query_release`; :mod:`dprelease.bounds` re-exports
every name of both. Logs
are natural except a synopsis's bit length, m = rows * log2|X| (docs/theorems.md, "Conventions").
Where the book's constant does not follow from its own proof, the proof's is used:

* Eq. (6.7) composes the kT draws with kT x^2; Thm 3.20 exactly needs kT x (e^x - 1) (larger).
* The Laplace scale of both base generators is the proof's 2 sqrt(2 k ln(1/delta)) rho / eps
  (Cor. 3.21), not the statement's (2 sqrt 2 smaller).
* Thm 6.8 has only O(.) constants; :func:`thm_6_8_lp_base_generator` assembles explicit ones
  from the proofs of Thm 6.7 and Lemma 6.5.

Everything here is public arithmetic: no data is read.
"""

from __future__ import annotations

import math
from fractions import Fraction

from dprelease.errors import InputError
from dprelease.privacy.accountant import advanced_composition
from dprelease.privacy.noise import float_at_most
from dprelease.validation import check_open_unit, check_positive, check_positive_int, check_release_parameters


def thm_6_1_boosting_rounds(*, num_queries: int, eta: float = 1 / 3) -> int:
    """Thm 6.1: T = log|Q| / eta^2 rounds; the proof (Lemma 6.2) needs T > ln|Q| / eta^2: the smallest such integer."""
    check_positive_int(num_queries, "num_queries")
    if not 0 < check_positive(eta, "eta") < 0.5:
        raise InputError(f"eta must be a number in (0, 1/2), got {eta!r}")
    return math.floor(math.log(num_queries) / eta**2) + 1


def thm_6_1_alpha(*, eta: float = 1 / 3) -> float:
    """Fig. 6.1's reweighting rate (Claim 6.3): alpha = (1/2) ln((1 + 2 eta) / (1 - 2 eta)); (1/2) ln 5 at eta = 1/3."""
    if not 0 < check_positive(eta, "eta") < 0.5:
        raise InputError(f"eta must be a number in (0, 1/2), got {eta!r}")
    return 0.5 * math.log((1 + 2 * eta) / (1 - 2 * eta))


def lemma_6_4_epsilon_per_draw(*, alpha: float, rounds: int, sensitivity: float, mu: float) -> float:
    """Lemma 6.4: each query drawn from D_t is an (eps*, 0)-DP exponential-mechanism draw, eps* = 4 alpha T rho / mu.

    (Utility -g_t(q), g_t = sum_{j<=t} a_{j,q}, of sensitivity 2 T rho / mu; D_t is exp(-alpha g_t).)
    """
    for value, name in ((alpha, "alpha"), (sensitivity, "sensitivity"), (mu, "mu")):
        check_positive(value, name)
    return 4 * alpha * check_positive_int(rounds, "rounds") * sensitivity / mu


def eq_6_7_sampling_epsilon(*, epsilon_each: float, draws: int, delta_sample: float, as_printed: bool = False) -> float:
    """Eq. (6.7): the k T draws composed by Thm 3.20: sqrt(2 kT ln(1/delta_s)) x + kT x (e^x - 1), x = eps*.

    ``as_printed=True`` gives the book's kT x^2 (the Cor. 3.21 simplification; smaller than Thm 3.20
    by x(e^x - 1) - x^2 > 0, so not an upper bound: [BOOK ISSUE] in docs/theorems.md).
    """
    x = check_positive(epsilon_each, "epsilon_each")
    draws = check_positive_int(draws, "draws")
    check_open_unit(delta_sample, "delta_sample")
    tail = x * x if as_printed else x * math.expm1(x)
    return math.sqrt(2 * draws * math.log(1 / delta_sample)) * x + draws * tail


def thm_6_1_epsilon_per_draw(*, epsilon_sample: float, draws: int, delta_sample: float) -> float:
    """The largest per-draw eps* whose ``draws`` draws cost at most ``epsilon_sample`` as the ledger charges them.

    The accountant charges min(basic, Thm 3.20) of a reserved block (``PrivacyAccountant.reserve``),
    Thm 3.20 rounded up by 1e-12 relative; this solves that exact charge <= epsilon_sample
    (bisection on Eq. 6.7's exact form), so the sampling never charges more than its share.
    """
    check_positive(epsilon_sample, "epsilon_sample")
    draws = check_positive_int(draws, "draws")
    check_open_unit(delta_sample, "delta_sample")
    target = Fraction(epsilon_sample)
    basic = float_at_most(target / draws)

    def fits(x: float) -> bool:
        return advanced_composition(epsilon=x, delta=0.0, k=draws, delta_slack=delta_sample)[0] <= target

    low, high = 0.0, epsilon_sample / math.sqrt(2 * draws * math.log(1 / delta_sample))
    for _ in range(200):
        mid = (low + high) / 2
        if mid <= low or mid >= high:
            break
        low, high = (mid, high) if fits(mid) else (low, mid)
    return max(basic, low)


def thm_6_1_boosting(*, num_queries: int, rho: float, epsilon_sample: float, delta_sample: float, k: int,
                     lambda_: float, beta_base: float, eta: float = 1 / 3,
                     rounds: int | None = None) -> dict[str, float]:
    """Thm 6.1 with a (k, lambda, eta, beta_base)-base synopsis generator, every constant from the proof.

    T = the smallest integer > ln|Q| / eta^2 (or ``rounds``); alpha = (1/2) ln((1+2 eta)/(1-2 eta));
    eps* = the largest per-draw epsilon whose kT draws the ledger charges at most eps_sample
    (:func:`thm_6_1_epsilon_per_draw`, Eq. 6.7 exactly); mu = 4 alpha T rho / eps* (Lemma 6.4 solved
    for mu). Accuracy: every query within ``error`` = lambda + mu with probability >= 1 - T beta_base
    (Lemma 6.2, Claim 6.3), when T is the theorem's.
    """
    check_positive(rho, "rho")
    check_positive_int(k, "k")
    if not math.isfinite(lambda_) or lambda_ < 0:
        raise InputError(f"lambda_ must be a finite number >= 0, got {lambda_!r}")
    check_open_unit(beta_base, "beta_base")
    theorem_rounds = thm_6_1_boosting_rounds(num_queries=num_queries, eta=eta)
    rounds = theorem_rounds if rounds is None else check_positive_int(rounds, "rounds")
    alpha = thm_6_1_alpha(eta=eta)
    draws = k * rounds
    epsilon_each = thm_6_1_epsilon_per_draw(epsilon_sample=epsilon_sample, draws=draws, delta_sample=delta_sample)
    mu = 4 * alpha * rounds * rho / epsilon_each
    return {"rounds": rounds, "theorem_rounds": theorem_rounds, "alpha": alpha, "eta": eta, "k": k, "draws": draws,
            "epsilon_per_draw": epsilon_each, "mu": mu, "lambda": lambda_, "error": lambda_ + mu,
            "failure_probability": rounds * beta_base}


def thm_6_8_lp_base_generator(*, n: int, universe_size: int, rho: float, epsilon_base: float, delta_base: float,
                              beta: float = 0.05, subsample_alpha: float | None = None,
                              synopsis_rows: int | None = None) -> dict[str, float]:
    """The LP base generator for linear queries (Thms 6.7, 6.8) with every constant taken from the proofs.

    Thm 6.8 states only O(.) bounds; this assembles the proof's steps, each failing w.p. beta/3:

    * synopsis: n' = ceil(ln k ln(1/beta) / a_s^2) rows (the book's subsampling; a_s = ``subsample_alpha``),
      m = n' log2|X| bits; k = the smallest integer > 6 (m + ln(3/beta)) (Lemma 6.5, eta = 1/3,
      gamma = beta/3), found as the least fixed point (n' depends on ln k);
    * Laplace: b = 2 sqrt(2 k ln(1/delta_base)) rho / eps_base (Cor. 3.21, as in Thm 6.6's proof); every
      sampled answer within t = b ln(3k/beta) (union bound);
    * LP (Thm 6.7): tolerance t, so x is feasible and any solution is within 2t on the sample;
      rounding each a_i down to a multiple of a_r/|X|, a_r = min(t, 1/2), moves a normalized answer by
      at most a_r / (1 - a_r);
    * subsampling n' rows: within s = sqrt(ln(6k/beta) / (2 n')) on the k sampled queries (Hoeffding);

    so lambda = 2t + a_r/(1 - a_r) + s. ``synopsis_rows`` fixes n' instead (k then follows from it).
    With neither, a_s is picked on a public grid to minimise lambda (public arithmetic only).
    """
    check_release_parameters(n=n, universe_size=universe_size, num_queries=1, epsilon=epsilon_base, beta=beta)
    check_positive(rho, "rho")
    check_open_unit(delta_base, "delta_base")
    if subsample_alpha is not None and synopsis_rows is not None:
        raise InputError("give subsample_alpha or synopsis_rows, not both")
    if subsample_alpha is None and synopsis_rows is None:
        grid = [10 ** (-3 + 3 * i / 120) for i in range(121)]
        plans = [thm_6_8_lp_base_generator(n=n, universe_size=universe_size, rho=rho, epsilon_base=epsilon_base,
                                           delta_base=delta_base, beta=beta, subsample_alpha=a) for a in grid]
        return min(plans, key=lambda p: (p["lambda"], -p["subsample_alpha"]))
    bits_per_row = math.log2(universe_size) if universe_size > 1 else 0.0
    ln_b = math.log(1 / beta)

    def k_for(rows: int) -> int:
        return math.floor(6 * (rows * bits_per_row + math.log(3 / beta))) + 1

    if synopsis_rows is not None:
        rows = check_positive_int(synopsis_rows, "synopsis_rows")
        k = k_for(rows)
        a_s = math.sqrt(math.log(k) * ln_b / rows)  # the a_s for which the book's formula gives about n'
    else:
        a_s = check_positive(subsample_alpha, "subsample_alpha")

        def rows_for(k: int) -> int:
            return max(1, math.ceil(math.log(k) * ln_b / a_s**2))

        k = 2
        while True:  # f(k) = k_for(rows_for(k)) is increasing in k: the iteration climbs to the least fixed point
            following = k_for(rows_for(k))
            if following <= k:
                break
            k = following
        rows = rows_for(k)
    scale = 2 * math.sqrt(2 * k * math.log(1 / delta_base)) * rho / epsilon_base
    tolerance = scale * math.log(3 * k / beta)
    rounding_alpha = min(tolerance, 0.5)
    subsample_error = math.sqrt(math.log(6 * k / beta) / (2 * rows))
    lambda_ = 2 * tolerance + rounding_alpha / (1 - rounding_alpha) + subsample_error
    return {"k": k, "bits": rows * bits_per_row, "synopsis_rows": rows, "subsample_alpha": a_s,
            "laplace_scale": scale, "tolerance": tolerance, "rounding_alpha": rounding_alpha,
            "subsample_error": subsample_error, "lambda": lambda_, "eta": 1 / 3}


BOOSTING_BASES = ("lp", "bruteforce")


def boosting_budget_split(*, epsilon: float, delta: float, rounds: int,
                          sample_share: float = 0.5) -> dict[str, float]:
    """Sec. 6.2.3's split: eps_sample = share * eps, T eps_base = the rest (likewise delta), rounded down exactly.

    The parts are floats no larger than their exact shares, so eps_sample + T eps_base <= eps and
    delta_sample + T delta_base <= delta hold exactly (the book takes share = 1/2).
    """
    check_positive(epsilon, "epsilon")
    check_open_unit(delta, "delta")
    rounds = check_positive_int(rounds, "rounds")
    if not 0 < check_positive(sample_share, "sample_share") < 1:
        raise InputError(f"sample_share must be a number in (0, 1), got {sample_share!r}")
    eps, dlt, share = Fraction(epsilon), Fraction(delta), Fraction(sample_share)
    eps_sample, delta_sample = float_at_most(eps * share), float_at_most(dlt * share)
    return {"epsilon_sample": eps_sample, "delta_sample": delta_sample,
            "epsilon_base": float_at_most((eps - Fraction(eps_sample)) / rounds),
            "delta_base": float_at_most((dlt - Fraction(delta_sample)) / rounds)}


def boosting_error(*, n: int, universe_size: int, num_queries: int, epsilon: float, delta: float,
                   beta: float = 0.05, base: str = "lp", sample_share: float = 0.5, rounds: int | None = None,
                   unit_sensitivity: float = 1.0) -> dict[str, float]:
    """The error boosting for queries guarantees w.p. >= 1 - beta, exactly as ``BoostingForQueries.plan`` runs it.

    T from Thm 6.1 (or ``rounds``); the budget split of :func:`boosting_budget_split`; the base generator
    at (eps_base, delta_base, beta / T): Thm 6.6 (``"bruteforce"``) or :func:`thm_6_8_lp_base_generator`
    (``"lp"``); then :func:`thm_6_1_boosting`. ``error`` = lambda + mu; above 1 it is vacuous for
    [0, 1]-valued queries.
    """
    check_release_parameters(n=n, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon, delta=delta,
                   beta=beta)
    if base not in BOOSTING_BASES:
        raise InputError(f"base must be one of {list(BOOSTING_BASES)}, got {base!r}")
    eta = 1 / 3
    theorem_rounds = thm_6_1_boosting_rounds(num_queries=num_queries, eta=eta)
    rounds = theorem_rounds if rounds is None else check_positive_int(rounds, "rounds")
    split = boosting_budget_split(epsilon=epsilon, delta=delta, rounds=rounds, sample_share=sample_share)
    rho = check_positive(unit_sensitivity, "unit_sensitivity") / n
    base_kw = {"n": n, "universe_size": universe_size, "rho": rho, "epsilon_base": split["epsilon_base"],
               "delta_base": split["delta_base"], "beta": beta / rounds}
    base_plan = thm_6_8_lp_base_generator(**base_kw) if base == "lp" else thm_6_6_base_generator(**base_kw)
    result = thm_6_1_boosting(num_queries=num_queries, rho=rho, epsilon_sample=split["epsilon_sample"],
                              delta_sample=split["delta_sample"], k=base_plan["k"], lambda_=base_plan["lambda"],
                              beta_base=beta / rounds, eta=eta, rounds=rounds)
    return {**split, **{f"base_{key}": value for key, value in base_plan.items()}, **result}


# ------------------------------------------------------------------ Sec. 6 base synopsis generators
def thm_6_6_base_generator(*, n: int, universe_size: int, rho: float, epsilon_base: float, delta_base: float,
                           beta: float = 0.05, as_printed: bool = False) -> dict[str, float]:
    """Thm 6.6: an (eps_base, delta_base)-DP (k, lambda, 1/3, beta)-base synopsis generator for arbitrary queries.

    m = n log2|X| (a synopsis in bits); k = the smallest integer > 6 (m + ln(2/beta)); Laplace scale
    b = 2 sqrt(2 k ln(1/delta_base)) rho / eps_base (the proof's, via Cor. 3.21; the statement prints
    rho sqrt(k ln(1/delta_base)) / eps_base, 2 sqrt 2 smaller: [BOOK ISSUE], ``as_printed=True``);
    lambda = 2 b (ln k + ln(2/beta)) (any larger lambda also works).
    """
    check_release_parameters(n=n, universe_size=universe_size, num_queries=1, epsilon=epsilon_base, beta=beta)
    check_positive(rho, "rho")
    check_open_unit(delta_base, "delta_base")
    bits = n * math.log2(universe_size)
    k = math.floor(6 * (bits + math.log(2 / beta))) + 1
    root = math.sqrt(k * math.log(1 / delta_base))
    scale = rho * root / epsilon_base if as_printed else 2 * math.sqrt(2) * root * rho / epsilon_base
    return {"bits": bits, "k": k, "laplace_scale": scale, "lambda": 2 * scale * (math.log(k) + math.log(2 / beta)),
            "eta": 1 / 3}


def thm_6_8_base_generator_scaling(*, n: int, universe_size: int, num_queries: int, epsilon_base: float,
                                   beta: float = 0.05) -> dict[str, float]:
    """Thm 6.8 (fractional linear queries), with every O(.) constant set to 1: the book gives none.

    k ~ n ln|X| ln(1/beta) / ln|Q|;  lambda ~ (ln(1/beta) / sqrt(n)) (sqrt(ln|Q|) + sqrt(ln|X| / ln|Q|) / eps_base).
    For scaling comparisons only: not a guarantee.
    """
    check_release_parameters(n=n, universe_size=universe_size, num_queries=num_queries, epsilon=epsilon_base, beta=beta)
    if num_queries < 2:
        raise InputError(f"num_queries must be >= 2 for Thm 6.8 (ln|Q| divides), got {num_queries}")
    ln_q, ln_x, ln_b = math.log(num_queries), math.log(universe_size), math.log(1 / beta)
    return {"k": n * ln_x * ln_b / ln_q,
            "lambda": ln_b / math.sqrt(n) * (math.sqrt(ln_q) + math.sqrt(ln_x / ln_q) / epsilon_base)}


__all__ = [
    "BOOSTING_BASES",
    "boosting_budget_split",
    "boosting_error",
    "eq_6_7_sampling_epsilon",
    "lemma_6_4_epsilon_per_draw",
    "thm_6_1_alpha",
    "thm_6_1_boosting",
    "thm_6_1_boosting_rounds",
    "thm_6_1_epsilon_per_draw",
    "thm_6_6_base_generator",
    "thm_6_8_base_generator_scaling",
    "thm_6_8_lp_base_generator",
]
