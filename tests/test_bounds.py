"""One function per theorem (dprelease.bounds), each against a hand-computed value; the solvers
against the code's own plan; the planner and its CLI (``dprelease bounds``)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from dprelease import Domain, bounds
from dprelease.cli import main
from dprelease.mechanisms.iterative_construction import IterativeConstruction
from dprelease.planner import plan_mechanisms
from dprelease.updates.median import MedianMechanism, smallest_net
from dprelease.updates.multiplicative_weights import mw_max_updates
from dprelease.updates.perceptron import Perceptron

LN_1E6 = 13.815510557964274  # ln(10^6)


# ------------------------------------------------------------------ Sec. 4
def test_thm_4_10_mw_updates():
    assert bounds.thm_4_10_mw_updates(alpha=0.1, universe_size=120) == pytest.approx(1914.9966971128, rel=1e-12)


def test_prop_4_4_and_thm_4_5_smalldb():
    # The corrected net at alpha = 0.25, |Q| = 10: m = floor(ln 20 / (2 * 0.0625)) + 1 = 24 rows (Thm 4.2, Hoeffding)
    # 0.25 + 2 (24 ln 16 + ln 20) / (0.5 * 1000)
    assert bounds.prop_4_4_smalldb_error(alpha=0.25, n=1000, universe_size=16, num_queries=10, epsilon=0.5,
                                         beta=0.05) == pytest.approx(0.528151446429235, rel=1e-12)
    # the book's m = ln|Q| / alpha^2: 0.25 + 2 (ln 16 ln 10 / 0.0625 + ln 20) / (0.5 * 1000)
    assert bounds.prop_4_4_smalldb_error(alpha=0.25, n=1000, universe_size=16, num_queries=10, epsilon=0.5,
                                         beta=0.05, as_printed=True) == pytest.approx(0.6705667025875, rel=1e-12)
    # Corrected (4.2): ((8 ln 16 ln 100 + 4 ln 16 + 4 ln 20) / 10^6)^(1/3)
    alpha = bounds.thm_4_5_smalldb_alpha(n=10**6, universe_size=16, num_queries=50, epsilon=1.0, beta=0.05)
    assert alpha == pytest.approx(0.05002921324260484, rel=1e-11)
    # the book's ((16 ln 16 ln 50 + 4 ln 20) / 10^6)^(1/3)
    printed = bounds.thm_4_5_smalldb_alpha(n=10**6, universe_size=16, num_queries=50, epsilon=1.0, as_printed=True)
    assert printed == pytest.approx(0.0570341257586, rel=1e-11)
    # (4.3) is (4.2) solved for n, both ways
    n = bounds.thm_4_5_smalldb_min_n(alpha=alpha, universe_size=16, num_queries=50, epsilon=1.0, beta=0.05)
    assert n == pytest.approx(10**6, rel=1e-12)
    n = bounds.thm_4_5_smalldb_min_n(alpha=printed, universe_size=16, num_queries=50, epsilon=1.0, as_printed=True)
    assert n == pytest.approx(10**6, rel=1e-12)
    assert bounds.thm_4_5_smalldb_alpha(n=10, universe_size=16, num_queries=50, epsilon=1.0) > 1  # vacuous
    # |Q| = 1: the book's form loses its first term (ln 1 = 0; its net has 0 rows); the corrected one keeps it
    one = dict(n=10**6, universe_size=16, num_queries=1, epsilon=1.0)
    assert bounds.thm_4_5_smalldb_alpha(**one) == pytest.approx(0.033751293720081815, rel=1e-11)
    assert bounds.thm_4_5_smalldb_alpha(**one, as_printed=True) == pytest.approx(0.02288342341626464, rel=1e-11)


def test_thm_4_5_closed_form_is_what_prop_4_4_gives_with_the_integer_net():
    """The corrected closed form is sufficient: at its alpha, Prop. 4.4 at alpha/2 with the integer m is <= alpha."""
    rng = np.random.Generator(np.random.PCG64(45))
    for _ in range(300):
        kw = dict(n=int(10 ** rng.uniform(2, 9)), universe_size=int(rng.integers(2, 10**4)),
                  num_queries=int(rng.integers(1, 10**4)), epsilon=float(10 ** rng.uniform(-2, 1)),
                  beta=float(rng.uniform(0.001, 0.3)))
        alpha = bounds.thm_4_5_smalldb_alpha(**kw)
        if alpha <= 1:
            assert bounds.prop_4_4_smalldb_error(alpha=alpha / 2, **kw) <= alpha * (1 + 1e-12)


def _online_condition(alpha, *, n, x, q, eps, beta, c=36):
    return c * math.log(x) * (math.log(q) + math.log(32 * math.log(x) / (alpha**2 * beta))) / (eps * alpha**2 * n)


def test_thm_4_14_online_mw_is_solved_for_the_smallest_alpha():
    kw = dict(n=10**6, universe_size=16, num_queries=50, epsilon=1.0, beta=0.05)
    alpha = bounds.thm_4_14_online_mw_alpha(**kw)
    assert alpha == pytest.approx(0.11615, abs=2e-5)
    cond = dict(n=10**6, x=16, q=50, eps=1.0, beta=0.05)
    assert alpha >= _online_condition(alpha, **cond)
    assert alpha * (1 - 1e-4) < _online_condition(alpha * (1 - 1e-4), **cond)
    printed = bounds.thm_4_14_online_mw_alpha(**kw, as_printed=True)  # 32 instead of 36: smaller
    assert printed < alpha and printed >= _online_condition(printed, **cond, c=32)
    assert bounds.thm_4_14_online_mw_alpha(**{**kw, "n": 100}) is None


def test_thm_4_15_online_mw_delta():
    kw = dict(n=10**6, universe_size=16, num_queries=50, epsilon=1.0, beta=0.05)
    alpha = bounds.thm_4_15_online_mw_alpha(**kw, delta=1e-6)
    rhs = lambda a: ((2 + 32 * math.sqrt(2)) * math.sqrt(math.log(16) * math.log(2e6))  # noqa: E731
                     * (math.log(50) + math.log(32 * math.log(16) / (a**2 * 0.05))) / (a * 1.0 * 10**6))
    assert alpha >= rhs(alpha) and alpha * (1 - 1e-4) < rhs(alpha * (1 - 1e-4))
    assert alpha == pytest.approx(0.070729, abs=2e-5)
    with pytest.raises(ValueError):
        bounds.thm_4_15_online_mw_alpha(**kw, delta=0.0)


# ------------------------------------------------------------------ Sec. 5
def test_thm_5_3_epsilon0():
    assert bounds.thm_5_3_ic_epsilon0(epsilon=1.0, delta=0.0, rounds=100) == 0.005
    # 1 / (4 sqrt(100 ln 10^6))
    assert bounds.thm_5_3_ic_epsilon0(epsilon=1.0, delta=1e-6, rounds=100) == pytest.approx(0.0067259949845, rel=1e-10)
    assert bounds.thm_5_3_ic_epsilon0(epsilon=1.0, delta=0.0, rounds=100) == bounds.ic_epsilon0(
        epsilon=1.0, delta=0.0, rounds=100)


def test_thm_5_4_5_5_5_6():
    # max(8 ln(2 * 50 / 0.05) / (0.01 * 1000), 8 * 0.02)
    assert bounds.thm_5_4_ic_alpha(epsilon0=0.01, n=1000, beta=0.05, rounds=50,
                                   distinguisher_error=0.02) == pytest.approx(6.0807219676, rel=1e-10)
    assert bounds.thm_5_4_ic_alpha(epsilon0=10.0, n=1000, beta=0.05, rounds=50, distinguisher_error=0.5) == 4.0
    # 2 ln(20 / 0.01) / (100 * 0.5)
    assert bounds.thm_5_5_em_distinguisher_error(epsilon=0.5, gamma=0.01, n=100,
                                                 num_queries=20) == pytest.approx(0.3040360984, rel=1e-10)
    assert bounds.thm_5_5_em_distinguisher_error(epsilon=0.5, gamma=0.01, n=100, num_queries=20,
                                                 sensitivity=0.03) == pytest.approx(3 * 0.3040360984, rel=1e-10)
    # gamma = 0.1 / 20 = 0.005; max(8 ln 200 / 500, 16 ln 20000 / 500) = the second
    assert bounds.thm_5_6_ic_em_alpha(epsilon0=0.05, n=10**4, beta=0.1, rounds=10,
                                      num_queries=100) == pytest.approx(0.3169116017, rel=1e-9)


def test_thm_5_7_corrected_is_four_times_the_printed():
    kw = dict(n=10**4, beta=0.1, rounds=10, num_queries=100, epsilon=1.0)
    # pure: 32 T ln(|Q| / gamma) / (n eps) = 320 ln(20000) / 10^4;  printed 8 instead of 32
    assert bounds.thm_5_7_ic_em_alpha(**kw, delta=0.0) == pytest.approx(0.3169116017, rel=1e-9)
    assert bounds.thm_5_7_ic_em_alpha(**kw, delta=0.0, as_printed=True) == pytest.approx(0.0792279004, rel=1e-9)
    # (eps, delta): 64 sqrt(T ln(1/delta)) ln(|Q| / gamma) / (n eps);  printed 16
    assert bounds.thm_5_7_ic_em_alpha(**kw, delta=1e-6) == pytest.approx(0.7449919904, rel=1e-9)
    assert bounds.thm_5_7_ic_em_alpha(**kw, delta=1e-6, as_printed=True) == pytest.approx(0.1862479976, rel=1e-9)


def test_thm_5_8_5_9_median():
    assert bounds.thm_5_8_median_updates(net_size=1024) == 10
    assert bounds.thm_5_8_median_updates(net_size=1000.0) == pytest.approx(9.9657842847, rel=1e-10)
    assert bounds.thm_5_9_net_size(universe_size=6, n=5) == 7776
    assert bounds.log2_net_size(6, 5) == math.log2(252)  # the exact count C(10, 5) the code enumerates


def test_thm_5_10_median_ic():
    # T = n log2|X| = 4000, gamma = beta / (2T): 64 sqrt(4000 ln 10^6) ln(100 * 8000 / 0.05) / (1000 * 1)
    kw = dict(n=1000, universe_size=16, num_queries=100, epsilon=1.0, delta=1e-6, beta=0.05)
    assert bounds.thm_5_10_median_ic_alpha(**kw) == pytest.approx(249.5686703272, rel=1e-9)
    assert bounds.thm_5_10_median_ic_alpha(**kw, as_printed=True) == pytest.approx(62.3921675818, rel=1e-9)
    # Pure DP: 32 T ln(|Q| / gamma) / (n eps) = 32 log2|X| ln(...) / eps: no gain from n
    pure = bounds.thm_5_10_median_ic_alpha(**{**kw, "delta": 0.0})
    assert pure == pytest.approx(32 * 4 * math.log(100 * 8000 / 0.05), rel=1e-12)


def test_thm_5_11_5_12_perceptron():
    assert bounds.thm_5_11_perceptron_updates(alpha=0.1, universe_size=24, norm_ratio=0.5) == pytest.approx(600)
    kw = dict(n=10**6, universe_size=16, num_queries=50, epsilon=1.0, delta=1e-6, beta=0.05)
    alpha = bounds.thm_5_12_perceptron_ic_alpha(**kw)

    def closed_form(a, c):  # C sqrt(r) (4|X| ln(1/delta))^(1/4) sqrt(ln(|Q|/gamma)) / sqrt(n eps), r = 1
        gamma = 0.05 / (2 * 4 * 16 / a**2)
        return c * (4 * 16 * LN_1E6) ** 0.25 * math.sqrt(math.log(50 / gamma)) / math.sqrt(10**6)

    assert alpha >= closed_form(alpha, 8) and alpha * (1 - 1e-4) < closed_form(alpha * (1 - 1e-4), 8)
    assert alpha == pytest.approx(0.170617, abs=2e-5)
    printed = bounds.thm_5_12_perceptron_ic_alpha(**kw, as_printed=True)
    assert printed >= closed_form(printed, 4) and printed < alpha
    # A smaller public bound on ||x||_2/||x||_1 gives a smaller alpha (sqrt(r) up to the log)
    assert bounds.thm_5_12_perceptron_ic_alpha(**kw, norm_ratio=0.25) < alpha


# ------------------------------------------------- solvers mirror the code's own plan
def _guaranteed(update, alpha, *, n, domain, q, eps, delta):
    plan = IterativeConstruction(epsilon=eps, delta=delta, alpha=alpha, update=update).plan(
        n=n, domain=domain, num_queries=q)
    return plan["accuracy_guaranteed"]


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_ic_solvers_agree_with_iterative_construction_plan(delta):
    domain, n, q, eps = Domain(("a", "b"), (2, 2)), 10**6, 8, 1.0
    kw = dict(n=n, universe_size=4, num_queries=q, epsilon=eps, delta=delta, beta=0.05)
    mw = lambda a: mw_max_updates(alpha=a, universe_size=4)  # noqa: E731
    assert bounds.ic_alpha(n=n, num_queries=q, epsilon=eps, delta=delta, updates=mw) == bounds.ic_mw_alpha(**kw)

    alpha = bounds.ic_perceptron_alpha(**kw, norm_ratio_bound=0.6)
    rule = Perceptron(norm_ratio_bound=0.6)
    assert _guaranteed(rule, alpha, n=n, domain=domain, q=q, eps=eps, delta=delta)
    assert not _guaranteed(rule, alpha * (1 - 1e-4), n=n, domain=domain, q=q, eps=eps, delta=delta)

    alpha = bounds.ic_median_alpha(**kw)
    huge = dict(max_databases=10**30, max_cells=10**32)  # the plan only counts; nothing is enumerated

    def median_rule(a):
        kind, size = smallest_net(n=n, alpha=a / 2, num_queries=q, linear=True)
        assert kind == "smalldb"
        return MedianMechanism.smalldb_net(alpha=a / 2, num_queries=q, **huge)

    assert _guaranteed(median_rule(alpha), alpha, n=n, domain=domain, q=q, eps=eps, delta=delta)
    below = alpha * (1 - 1e-4)
    assert not _guaranteed(median_rule(below), below, n=n, domain=domain, q=q, eps=eps, delta=delta)


# ------------------------------------------------------------------ Sec. 6
def test_thm_6_6_base_generator_uses_the_proofs_laplace_scale():
    g = bounds.thm_6_6_base_generator(n=100, universe_size=16, rho=0.01, epsilon_base=0.5, delta_base=1e-6, beta=0.05)
    # m = 100 log2 16 = 400 bits; k = smallest integer > 6 (400 + ln 40) = 2423
    assert g["bits"] == 400 and g["k"] == 2423
    # b = 2 sqrt(2 k ln(1/delta)) rho / eps; lambda = 2 b (ln k + ln(2/beta))
    assert g["laplace_scale"] == pytest.approx(10.3498764564, rel=1e-10)
    assert g["lambda"] == pytest.approx(237.6671353539, rel=1e-10)
    printed = bounds.thm_6_6_base_generator(n=100, universe_size=16, rho=0.01, epsilon_base=0.5, delta_base=1e-6,
                                            beta=0.05, as_printed=True)
    assert g["laplace_scale"] / printed["laplace_scale"] == pytest.approx(2 * math.sqrt(2))


def test_thm_6_8_scaling_only():
    s = bounds.thm_6_8_base_generator_scaling(n=100, universe_size=16, num_queries=50, epsilon_base=0.5, beta=0.05)
    assert s["k"] == pytest.approx(100 * math.log(16) * math.log(20) / math.log(50))
    ln_b, ln_q, ln_x = math.log(20), math.log(50), math.log(16)
    assert s["lambda"] == pytest.approx(ln_b / 10 * (math.sqrt(ln_q) + math.sqrt(ln_x / ln_q) / 0.5))
    with pytest.raises(ValueError):
        bounds.thm_6_8_base_generator_scaling(n=100, universe_size=16, num_queries=1, epsilon_base=0.5)


@pytest.mark.parametrize("call", [
    lambda: bounds.thm_4_5_smalldb_alpha(n=0, universe_size=4, num_queries=3, epsilon=1.0),
    lambda: bounds.thm_4_5_smalldb_alpha(n=10, universe_size=4, num_queries=3, epsilon=-1.0),
    lambda: bounds.thm_5_3_ic_epsilon0(epsilon=1.0, delta=1.0, rounds=3),
    lambda: bounds.thm_5_4_ic_alpha(epsilon0=0.1, n=10, beta=1.5, rounds=3, distinguisher_error=0.1),
    lambda: bounds.thm_5_10_median_ic_alpha(n=10, universe_size=1, num_queries=3, epsilon=1.0, delta=1e-6),
    lambda: bounds.thm_5_11_perceptron_updates(alpha=0.1, universe_size=16, norm_ratio=2.0),
    lambda: bounds.thm_5_11_perceptron_updates(alpha=0.1, universe_size=16, norm_ratio=0.1),
    lambda: bounds.thm_6_6_base_generator(n=10, universe_size=4, rho=0.1, epsilon_base=1.0, delta_base=0.0),
    lambda: bounds.ic_median_alpha(n=10, universe_size=4, num_queries=0, epsilon=1.0),
])
def test_bad_inputs_are_value_errors(call):
    with pytest.raises(ValueError):
        call()


# ------------------------------------------------------------------ planner
def test_planner_rows_match_the_solvers_and_are_sorted_best_first():
    kw = dict(n=10**6, universe_size=16, num_queries=50, epsilon=1.0, beta=0.05)
    rows = plan_mechanisms(**kw)
    names = [r.mechanism for r in rows]
    assert set(names) == {"smalldb", "ic-mw", "ic-median", "ic-perceptron", "online-mw", "mwem"}
    alphas = [r.alpha for r in rows if r.alpha is not None]
    assert alphas == sorted(alphas) and rows[-1].alpha is None  # no-guarantee rows last
    by = {r.mechanism: r for r in rows}
    mw_alpha = bounds.ic_mw_alpha(**kw)
    assert by["ic-mw"].alpha == mw_alpha
    assert by["ic-mw"].rounds == math.ceil(16 * math.log(16) / mw_alpha**2)  # T(alpha/2) = 4 ln|X| / (alpha/2)^2
    assert by["ic-mw"].epsilon0 == 1.0 / (2 * by["ic-mw"].rounds)
    assert by["smalldb"].alpha == bounds.thm_4_5_smalldb_alpha(**kw) and by["smalldb"].rounds == 1
    assert by["online-mw"].alpha == pytest.approx(3 * bounds.online_mw_alpha_pure(**kw))
    assert by["ic-perceptron"].alpha == bounds.ic_perceptron_alpha(**kw)


def test_cli_bounds_json_and_table(capsys):
    code = main(["bounds", "--n", "1000000", "--universe", "16", "--queries", "50", "--epsilon", "1", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["n"] == 10**6
    assert [m["mechanism"] for m in out["mechanisms"]] == [r.mechanism for r in plan_mechanisms(
        n=10**6, universe_size=16, num_queries=50, epsilon=1.0)]
    code = main(["bounds", "--n", "300", "--universe", "64", "--queries", "100", "--epsilon", "1",
                 "--delta", "1e-6", "--beta", "0.1"])
    text = capsys.readouterr().out
    assert code == 0 and "no guarantee" in text and "ic-perceptron" in text and "w.p. >= 0.9" in text


@pytest.mark.parametrize("argv, fragment", [
    # each names its flag, not the theorem's argument (num_queries, universe_size: a new user's trial)
    (["--n", "0", "--universe", "4", "--queries", "3", "--epsilon", "1"], "--n must be an integer >= 1"),
    (["--n", "10", "--universe", "0", "--queries", "3", "--epsilon", "1"], "--universe must be an integer >= 1"),
    (["--n", "10", "--universe", "4", "--queries", "0", "--epsilon", "1"], "--queries must be an integer >= 1"),
    (["--n", "10", "--universe", "4", "--queries", "3", "--epsilon", "x"], "--epsilon must be a number"),
    (["--n", "10", "--universe", "4", "--queries", "3", "--epsilon", "0"], "--epsilon must be a finite number > 0"),
    (["--n", "10", "--universe", "4", "--queries", "3", "--epsilon", "1", "--beta", "2"], "--beta must be"),
    (["--n", "10", "--universe", "4", "--queries", "3", "--epsilon", "1", "--delta", "1"], "--delta must be"),
    (["--n", "10", "--universe", "4", "--queries", "3"], "--epsilon"),
    (["--n", "10", "--universe", "4", "--queries", "3", "--epsilon", "1", "--norm-ratio-bound", "3"],
     "--norm-ratio-bound must be a number in (0, 1]"),
])
def test_cli_bounds_bad_inputs(capsys, argv, fragment):
    try:
        code = main(["bounds", *argv])
    except SystemExit as exc:  # argparse's own errors
        code = exc.code
    err = capsys.readouterr().err
    assert code == 2 and fragment in err and err.startswith("dprelease: error:") and "Traceback" not in err
