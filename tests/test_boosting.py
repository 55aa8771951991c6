"""Boosting for queries (Sec. 6.1, Thm 6.1) and its base synopsis generators (Thms 6.6-6.8): the LP's
constraints, the rounding, brute force with zero noise, exact accounting, the kernel's draws from D_t,
the accuracy theorem on seeded runs, bad inputs, and the API / CLI end to end."""

from __future__ import annotations

import json
import math
import warnings
from fractions import Fraction

import numpy as np
import pytest

from dprelease import Dataset, Domain, DomainTooLargeError, InputError, Workload, bounds
from dprelease.api import synthesize
from dprelease.boosting import BoostingForQueries, BruteForceGenerator, LPSynthesizer
from dprelease.boosting.base import BaseSynopsisGenerator, unique_sample
from dprelease.boosting.lp import query_matrix, round_down, solve_synthesis_lp
from dprelease.cli import main
from dprelease.errors import BudgetExceededError, InputTypeError
from dprelease.evaluate import workload_errors
from dprelease.mechanisms.baselines import uniform_model
from dprelease.mechanisms.iterative_construction import AccuracyNotGuaranteedWarning
from dprelease.privacy.accountant import PrivacyAccountant, advanced_composition
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import SeededRandom
from dprelease.queries import DenseQuery, QueryList
from dprelease.queries.callable import CallableQuery, CallableQuerySet
from tests.tripwire import Tripwire

DOMAIN = Domain(("a", "b", "c"), (2, 2, 2))  # |X| = 8
WORKLOAD = Workload.all_kway(DOMAIN, 2, smallest=1)  # |Q| = 6 + 12 = 18
TINY = Domain(("a", "b"), (2, 2))  # |X| = 4, for brute force


def skewed(n: int, seed: int, domain: Domain = DOMAIN) -> Dataset:
    rng = np.random.Generator(np.random.PCG64(seed))
    return Dataset.from_histogram(rng.multinomial(n, rng.dirichlet(np.full(domain.size, 0.5))), domain)


def mixed_queries(seed: int) -> QueryList:
    """Counting queries (0/1 vectors) and general [0, 1]-valued linear queries over DOMAIN."""
    rng = np.random.Generator(np.random.PCG64(seed))
    vectors = [rng.integers(0, 2, DOMAIN.size) for _ in range(6)] + [rng.random(DOMAIN.size) for _ in range(6)]
    return QueryList(DOMAIN, tuple(DenseQuery(DOMAIN, v.reshape(DOMAIN.shape), name=f"q{i}")
                                   for i, v in enumerate(vectors)))


# ------------------------------------------------------------------------ LP synthesizer (Thm 6.7)
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("with_target", [True, False])
def test_lp_output_satisfies_every_constraint_it_was_given(seed, with_target):
    rng = np.random.Generator(np.random.PCG64(seed))
    queries = mixed_queries(seed)
    matrix = query_matrix(queries, DOMAIN)
    truth = rng.dirichlet(np.ones(DOMAIN.size))
    sample = rng.integers(0, queries.num_queries, 40)  # k = 40 draws, with repeats
    tolerance = 0.05
    noisy = matrix[sample] @ truth + rng.laplace(0, 0.01, sample.size)
    index, lows, highs, medians, mult = unique_sample(sample, noisy)
    a = solve_synthesis_lp(matrix[index], highs - tolerance, lows + tolerance,
                           target=medians if with_target else None, weights=mult.astype(float))
    assert a is not None
    assert np.all(a >= 0) and a.sum() == pytest.approx(1, abs=1e-12)
    answers = matrix[sample] @ a
    assert np.all(answers >= noisy - tolerance - 1e-7) and np.all(answers <= noisy + tolerance + 1e-7)


def test_lp_infeasibility_is_a_clean_bottom():
    matrix = np.eye(2)
    # one query measured twice, 1.0 apart: the interval [max - t, min + t] is empty
    assert solve_synthesis_lp(matrix[[0]], np.array([0.6]), np.array([0.4])) is None
    # two cells each asked to hold >= 0.9 of a distribution: HiGHS reports infeasible
    assert solve_synthesis_lp(matrix, np.array([0.9, 0.9]), np.array([1.0, 1.0]), target=np.array([0.95, 0.95])) is None


@pytest.mark.parametrize("seed", range(20))
def test_rounding_moves_each_fraction_by_at_most_alpha_over_x(seed):
    rng = np.random.Generator(np.random.PCG64(seed))
    size = int(rng.integers(1, 300))
    a = rng.dirichlet(np.full(size, rng.uniform(0.05, 3)))
    if seed % 4 == 0:
        a[: size // 2] = 0
        a /= a.sum()
    alpha = float(rng.choice([0.5, 0.1, 1e-3, 1 / 3]))
    counts = round_down(a, alpha=alpha)
    rounded = counts * alpha / size
    assert np.all(np.abs(a - rounded) <= alpha / size + 1e-15)
    assert np.all(rounded <= a + 1e-12)  # rounded down
    assert counts.sum() <= size / alpha + 1e-9
    # the normalized database moves a [0, 1]-valued query by at most alpha / (1 - alpha)
    q = rng.random(size)
    if counts.sum() and alpha < 1:
        assert abs(q @ counts / counts.sum() - q @ a) <= alpha / (1 - alpha) + 1e-12
    # exact multiples stay put
    exact_multiples = np.full(4, 0.25)
    assert round_down(exact_multiples, alpha=0.5).tolist() == [2, 2, 2, 2]


def test_lp_generator_fits_every_sampled_query_within_lambda():
    data = skewed(10**8, 3)
    generator = LPSynthesizer()
    plan = generator.plan(n=data.n, domain=DOMAIN, queries=WORKLOAD, epsilon=0.05, delta=1e-8, beta=0.01)
    rng = SeededRandom(0)
    measurer = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=1.0, delta=1e-6), rng=rng)
    sample = np.resize(np.arange(WORKLOAD.num_queries), plan.k)
    synopsis = generator.generate(measurer, WORKLOAD, sample, plan=plan, rng=rng, label="t")
    assert synopsis is not None and synopsis.counts.sum() == plan.synopsis_rows
    error = np.abs(synopsis.answers(WORKLOAD, DOMAIN) - WORKLOAD.answers(data))
    assert plan.lambda_ < 1 and error.max() <= plan.lambda_


# ----------------------------------------------------------------------- brute force (Thm 6.6)
def test_bruteforce_finds_the_true_database_when_the_noise_is_zero(monkeypatch):
    monkeypatch.setattr("dprelease.privacy.measurer.snapped_laplace",
                        lambda values, **_: np.asarray(values, dtype=np.float64))
    data = Dataset.from_histogram([3, 0, 1, 2], TINY)
    queries = Workload.all_kway(TINY, 2)  # the 4 cells: they identify the database
    exact_fit = BruteForceGenerator(lambda_=1e-9)
    plan = exact_fit.plan(n=data.n, domain=TINY, queries=queries, epsilon=0.5, delta=1e-6, beta=0.05)
    assert plan.details["databases"] == math.comb(4 + 6 - 1, 6) and not plan.details["lambda_is_theorems"]
    measurer = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=1.0, delta=1e-5), rng=SeededRandom(0))
    sample = np.resize(np.arange(4), plan.k)
    synopsis = exact_fit.generate(measurer, queries, sample, plan=plan, rng=SeededRandom(0), label="t")
    assert synopsis is not None and synopsis.counts.tolist() == [3, 0, 1, 2]
    # With the theorem's (huge) lambda, zero noise: the lexicographically first database, which fits
    theorem = BruteForceGenerator()
    plan = theorem.plan(n=data.n, domain=TINY, queries=queries, epsilon=0.5, delta=1e-6, beta=0.05)
    synopsis = theorem.generate(measurer, queries, np.resize(np.arange(4), plan.k), plan=plan,
                                rng=SeededRandom(0), label="t")
    assert synopsis.counts.tolist() == [0, 0, 0, 6] and synopsis.info["database_index"] == 0


def test_bruteforce_answers_nonlinear_queries_and_refuses_large_nets_before_reading():
    queries = CallableQuerySet(TINY, [CallableQuery(TINY, lambda h: float(h.max()), name="max"),
                                      CallableQuery(TINY, lambda h: float(h[0, 0]), name="cell")])
    data = Dataset.from_histogram([2, 1, 0, 1], TINY)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = BoostingForQueries(epsilon=1.0, delta=1e-6, base=BruteForceGenerator()).run(
            data, queries, rng=SeededRandom(1))
    assert result.model.answers(queries).shape == (2,)
    with pytest.raises(InputError, match="linear queries only"):
        BoostingForQueries(epsilon=1.0, delta=1e-6).run(data, queries, rng=SeededRandom(1))

    class Untouchable(Dataset):
        def marginal_counts(self, attributes):
            raise AssertionError("private data read before the public check")

    big = Untouchable(TINY, None, np.array([5, 5, 5, 5]), 2000)
    with pytest.raises(DomainTooLargeError, match=r"brute-force base generator \(Thm 6.6\)"):
        BoostingForQueries(epsilon=1.0, delta=1e-6, base=BruteForceGenerator()).run(big, WORKLOAD_TINY,
                                                                                      rng=SeededRandom(0))


WORKLOAD_TINY = Workload.all_kway(TINY, 2, smallest=1)


# ------------------------------------------------------------------------ accounting (Thm 6.1)
@pytest.mark.parametrize("base,n,domain,workload", [
    (LPSynthesizer(), 10**6, DOMAIN, WORKLOAD), (BruteForceGenerator(), 5, TINY, WORKLOAD_TINY)])
def test_accounting_equals_the_theorem_exactly(base, n, domain, workload):
    epsilon, delta = 0.8, 1e-6
    data = skewed(n, 0, domain)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = BoostingForQueries(epsilon=epsilon, delta=delta, base=base).run(data, workload, rng=SeededRandom(0))
    p = result.parameters
    q = workload.num_queries
    rounds = math.floor(9 * math.log(q)) + 1  # smallest T > ln|Q| / eta^2, eta = 1/3
    assert p["rounds"] == rounds == len(result.transcript)
    assert p["reweighting_alpha"] == pytest.approx(0.5 * math.log(5), rel=1e-15)
    k, x = p["k"], Fraction(p["epsilon_per_draw"])
    sampling, *base_charges = result.accountant.ledger
    # SAMPLING: kT exponential-mechanism draws of eps* each, composed by Thm 3.20 with delta_sample
    assert (sampling.epsilon, sampling.delta) == advanced_composition(epsilon=float(x), delta=0.0, k=k * rounds,
                                                                      delta_slack=delta / 2)
    assert Fraction(epsilon / 2) * (1 - Fraction(1, 10**8)) <= sampling.epsilon <= Fraction(epsilon / 2)
    assert sampling.delta == Fraction(delta / 2)
    # Lemma 6.4: eps* = 4 alpha T rho / mu, rho = 1/n
    assert p["mu"] == pytest.approx(4 * p["reweighting_alpha"] * rounds / n / float(x), rel=1e-12)
    # BASE: per round one block of k Laplace measurements at eps_base / (2 sqrt(2k ln(1/delta_base))) (Cor. 3.21),
    # charged by Thm 3.20 with delta' = delta_base
    eps_base, delta_base = p["epsilon_base"], p["delta_base"]
    assert eps_base == pytest.approx(epsilon / 2 / rounds, rel=1e-15) and Fraction(eps_base) * rounds <= Fraction(
        epsilon / 2)
    each = eps_base / (2 * math.sqrt(2 * k * math.log(1 / delta_base)))
    assert p["base"]["epsilon_per_measurement"] == pytest.approx(each, rel=1e-15)
    block = advanced_composition(epsilon=p["base"]["epsilon_per_measurement"], delta=0.0, k=k, delta_slack=delta_base)
    assert len(base_charges) == rounds
    assert all((c.epsilon, c.delta) == block for c in base_charges)
    assert block[0] <= Fraction(eps_base) and block[1] == Fraction(delta_base)
    # the total: (eps_sample + T eps_base, delta_sample + T delta_base) at most, exactly in the ledger
    assert result.accountant.spent_epsilon == sampling.epsilon + rounds * block[0] <= Fraction(epsilon)
    assert result.accountant.spent_delta == sampling.delta + rounds * block[1] <= Fraction(delta)
    # every one of the kT draws was made
    assert sum(c for record in result.transcript for _, c in record["sampled"]) == k * rounds


def test_bounds_mirror_the_plan_and_eq_6_7_as_printed_is_smaller():
    kw = dict(n=10**7, universe_size=8, num_queries=18, epsilon=1.0, delta=1e-6, beta=0.05)
    plan = BoostingForQueries(epsilon=1.0, delta=1e-6).plan(n=10**7, domain=DOMAIN, queries=WORKLOAD)
    assert bounds.boosting_error(**kw)["error"] == plan["error_bound"]
    assert bounds.boosting_error(**kw, base="bruteforce")["base_k"] == math.floor(6 * (10**7 * 3 + math.log(
        2 / (0.05 / plan["rounds"])))) + 1
    exact_value = bounds.eq_6_7_sampling_epsilon(epsilon_each=0.01, draws=1000, delta_sample=1e-6)
    assert exact_value == pytest.approx(math.sqrt(2000 * math.log(1e6)) * 0.01 + 1000 * 0.01 * math.expm1(0.01))
    printed = bounds.eq_6_7_sampling_epsilon(epsilon_each=0.01, draws=1000, delta_sample=1e-6, as_printed=True)
    assert printed < exact_value
    assert bounds.thm_6_1_boosting_rounds(num_queries=1) == 1
    from dprelease.bounds import thm_6_8_lp_base_generator  # the re-export works as a from-import too

    lp = thm_6_8_lp_base_generator(n=10**8, universe_size=8, rho=1e-8, epsilon_base=0.01, delta_base=1e-8, beta=0.01)
    assert lp["k"] > 6 * (lp["synopsis_rows"] * 3 + math.log(3 / 0.01))  # Lemma 6.5 with eta = 1/3


# ----------------------------------------------------------------------- the kernel's draws (Lemma 6.4)
def test_boosting_draws_sample_d_t_exactly():
    data = skewed(1000, 5)
    true = WORKLOAD.answers(data)
    rng = np.random.Generator(np.random.PCG64(9))
    synopses = np.clip(true[None, :] + rng.normal(0, 0.05, (3, true.size)), 0, 1)
    lam, mu, rounds, alpha = 0.02, 0.1, 5, 0.5 * math.log(5)
    epsilon_each = Fraction(4 * alpha * rounds / data.n / mu)  # Lemma 6.4
    accountant = PrivacyAccountant(epsilon=10_000.0)
    reservation = accountant.reserve(epsilon_each=epsilon_each, count=40_000, label="draws")
    measurer = PrivateMeasurer(data, accountant=accountant, rng=SeededRandom(3))
    draws = measurer.boosting_draws(WORKLOAD, synopses, lambda_=lam, mu=mu, rounds=rounds, count=40_000,
                                    epsilon_each=epsilon_each, reservation=reservation, label="t")
    d = np.abs(true[None, :] - synopses)
    a = np.where(d <= lam, 1.0, np.where(d > lam + mu, -1.0, 1 - 2 * (d - lam) / mu))  # Fig. 6.1, piecewise
    expected = np.exp(-alpha * a.sum(axis=0))
    expected /= expected.sum()
    seen = np.bincount(draws, minlength=WORKLOAD.num_queries)
    sd = np.sqrt(40_000 * expected * (1 - expected))
    assert np.all(np.abs(seen - 40_000 * expected) <= 5 * sd + 1)  # false alarm < 1e-5 over 18 cells
    assert reservation.used == 40_000
    with pytest.raises(BudgetExceededError):  # the reservation is spent: refused before anything is drawn
        measurer.boosting_draws(WORKLOAD, synopses, lambda_=lam, mu=mu, rounds=rounds, count=1,
                                epsilon_each=epsilon_each, reservation=reservation, label="t")
    with pytest.raises(ValueError, match="shape"):  # more synopses than rounds: the sensitivity would be wrong
        measurer.boosting_draws(WORKLOAD, synopses, lambda_=lam, mu=mu, rounds=2, count=1,
                                epsilon_each=epsilon_each, reservation=reservation, label="t")


# ---------------------------------------------------------------------- accuracy (Thm 6.1)
@pytest.mark.parametrize("seed", range(3))
def test_theorem_6_1_accuracy_on_seeded_runs(seed):
    # At n = 10^8 the bound (lambda + mu, about 0.14) is below the uniform baseline's error (about 0.3);
    # at n <= 10^6 it is vacuous (> 1), and brute force is vacuous at every size it can enumerate.
    data = skewed(10**8, seed)
    result = BoostingForQueries(epsilon=1.0, delta=1e-6).run(data, WORKLOAD, rng=SeededRandom(seed))
    bound = result.parameters["error_bound"]
    assert result.parameters["accuracy_guaranteed"] and bound < 0.2
    error = workload_errors(data, result.model, WORKLOAD)["max_error"]
    uniform = workload_errors(data, uniform_model(DOMAIN), WORKLOAD)["max_error"]
    assert error <= bound < uniform
    assert bounds.boosting_error(n=10**6, universe_size=8, num_queries=18, epsilon=1.0, delta=1e-6)["error"] > 1


def test_a_vacuous_bound_is_not_called_a_guarantee():
    """At n = 10^6 the theorem's rounds run, but lambda + mu > 1 says nothing about answers in [0, 1]: the plan
    must not say guaranteed (a new user's release said so with an error bound of 1198), and the run warns."""
    plan = BoostingForQueries(epsilon=1.0, delta=1e-6).plan(n=10**6, domain=DOMAIN, queries=WORKLOAD)
    assert plan["rounds"] >= plan["theorem_rounds"] and plan["error_bound"] > 1
    assert plan["bound_vacuous"] and not plan["accuracy_guaranteed"]
    with pytest.warns(AccuracyNotGuaranteedWarning, match="guarantees nothing about answers in"):
        BoostingForQueries(epsilon=1.0, delta=1e-6, rounds=1).run(skewed(2_000, 0), WORKLOAD, rng=SeededRandom(0))


@pytest.mark.filterwarnings("ignore::dprelease.mechanisms.iterative_construction.AccuracyNotGuaranteedWarning")
def test_mechanism_reads_private_data_only_through_the_kernel():
    data = skewed(10**6, 1)
    wired = Tripwire(data.domain, None, data.counts, data.n)
    with pytest.raises(AssertionError):
        wired.marginal(("a",))
    BoostingForQueries(epsilon=1.0, delta=1e-6, rounds=3).run(wired, WORKLOAD, rng=SeededRandom(0))
    assert isinstance(LPSynthesizer(), BaseSynopsisGenerator) and isinstance(BruteForceGenerator(),
                                                                              BaseSynopsisGenerator)


@pytest.mark.parametrize("counts", [[1, 0, 0, 0, 0, 0, 0, 0], [0] * 7 + [10**9], [500, 0, 0, 0, 0, 0, 0, 500]])
def test_extreme_tables_release_finite_results(counts):
    data = Dataset.from_histogram(counts, DOMAIN)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        release = synthesize(data, "1-3way", mechanism="boosting", epsilon=1.0, delta=1e-6, seed=0, n_rows=20)
    assert all(np.all(np.isfinite(a)) and np.all((a >= 0) & (a <= 1)) for a in release.answers)
    assert release.rows.shape == (20, 3)


# ----------------------------------------------------------------------------------- bad inputs
@pytest.mark.parametrize("kwargs,error", [
    ({"epsilon": 1.0, "delta": 0.0}, InputError), ({"epsilon": 1.0, "delta": 1.5}, InputError),
    ({"epsilon": 0.0, "delta": 1e-6}, InputError), ({"epsilon": "1", "delta": 1e-6}, InputTypeError),
    ({"epsilon": 1.0, "delta": 1e-6, "base": "lp"}, InputTypeError),
    ({"epsilon": 1.0, "delta": 1e-6, "rounds": 0}, InputError),
    ({"epsilon": 1.0, "delta": 1e-6, "rounds": 2.0}, InputTypeError),
    ({"epsilon": 1.0, "delta": 1e-6, "sample_share": 1.0}, InputError),
    ({"epsilon": 1.0, "delta": 1e-6, "beta": 0.0}, InputError),
])
def test_bad_boosting_parameters(kwargs, error):
    with pytest.raises(error):
        BoostingForQueries(**kwargs)


def test_bad_generator_and_api_inputs():
    with pytest.raises(TypeError):
        BoostingForQueries(1.0, 1e-6)  # type: ignore[misc]  # privacy parameters are keyword-only
    with pytest.raises(InputError):
        LPSynthesizer(subsample_alpha=-1.0)
    with pytest.raises(InputError, match="not both"):
        LPSynthesizer(subsample_alpha=0.1, synopsis_rows=10)
    with pytest.raises(InputError):
        BruteForceGenerator(lambda_=0.0)
    with pytest.raises(InputError, match="Cor. 3.21"):  # eps_base >= 1: the Laplace block would cost more
        LPSynthesizer().plan(n=100, domain=DOMAIN, queries=WORKLOAD, epsilon=50.0, delta=1e-6, beta=0.05)
    data = skewed(1000, 0)
    with pytest.raises(InputError, match="mechanism='boosting' only"):
        synthesize(data, "1way", mechanism="mwem", epsilon=1.0, base="lp")
    with pytest.raises(InputError, match="base must be one of"):
        synthesize(data, "1way", mechanism="boosting", epsilon=1.0, delta=1e-6, base="simplex")
    with pytest.raises(InputError, match="delta > 0"):
        synthesize(data, "1way", mechanism="boosting", epsilon=1.0)
    measurer = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=1.0, delta=1e-6), rng=SeededRandom(0))
    with pytest.raises(ValueError, match="indices"):
        measurer.laplace_queries(WORKLOAD, [0, 99], epsilon_each=0.01, label="bad")
    with pytest.raises(BudgetExceededError):  # refused before anything is measured
        measurer.laplace_queries(WORKLOAD, np.zeros(200, dtype=int), epsilon_each=0.01, label="too much")
    assert measurer._accountant.ledger == []


def test_rounds_below_the_theorem_warn_and_stay_private():
    data = skewed(10**6, 2)
    with pytest.warns(AccuracyNotGuaranteedWarning):
        result = BoostingForQueries(epsilon=1.0, delta=1e-6, rounds=2).run(data, WORKLOAD, rng=SeededRandom(0))
    assert len(result.transcript) == 2 and result.accountant.spent_epsilon <= 1


# ------------------------------------------------------------------------------------- CLI
def test_cli_end_to_end(tmp_path, capsys):
    domain = tmp_path / "domain.json"
    domain.write_text('{"a": 2, "b": 2}')
    data = tmp_path / "data.csv"
    data.write_text("a,b\n" + "".join(f"{i % 2},{(i // 3) % 2}\n" for i in range(6)))
    for base in ("lp", "bruteforce"):
        out, release = tmp_path / f"{base}.csv", tmp_path / f"{base}.json"
        code = main(["synth", str(data), "--domain", str(domain), "--workload", "1-2way", "--epsilon", "1",
                     "--delta", "1e-6", "--mechanism", "boosting", "--base", base, "--seed", "1", "--out", str(out),
                     "--release", str(release), "--quiet"])
        captured = capsys.readouterr()
        assert code == 0, captured.err
        assert out.read_text().startswith("a,b\n") and len(out.read_text().splitlines()) == 7
        saved = json.loads(release.read_text())
        assert saved["mechanism"] == "boosting" and saved["parameters"]["base"]["generator"] == base
        assert len(saved["transcript"]) == saved["parameters"]["rounds"] == 19
        assert saved["privacy_ledger"]["spent"]["epsilon"] <= 1 and saved["privacy_ledger"]["spent"]["delta"] <= 1e-6
        assert {"round", "sampled", "base"} <= set(saved["transcript"][0])
    for extra, message in ((["--delta", "0", "--mechanism", "boosting"], "delta > 0"),
                           (["--delta", "1e-6", "--mechanism", "mwem", "--base", "lp"], "mechanism='boosting' only")):
        out = tmp_path / "bad.csv"
        code = main(["synth", str(data), "--domain", str(domain), "--workload", "1way", "--epsilon", "1",
                     *extra, "--out", str(out), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and err.startswith("dprelease: error:") and message in err and err.count("\n") == 1
        assert not out.exists()
