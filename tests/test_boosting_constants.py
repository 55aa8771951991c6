"""What the base synopsis generators' constants promise, pinned (issue 12, item 7): brute force's lambda/2
acceptance radius (Thm 6.6), the LP generator's synopsis rows n' and subsample alpha (Thms 6.7, 6.8, as
assembled by ``bounds.thm_6_8_lp_base_generator``), and Lemma 6.5's generalization property with eta = 1/3,
on which both generators' k rests."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.stats import binom

from dprelease import Dataset, Domain, Workload, bounds
from dprelease.boosting import BruteForceGenerator, LPSynthesizer
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import SeededRandom
from dprelease.representations.nets import all_databases

TINY = Domain(("a", "b"), (2, 2))  # |X| = 4
DOMAIN = Domain(("a", "b", "c"), (2, 2, 2))  # |X| = 8
WORKLOAD = Workload.all_kway(DOMAIN, 2, smallest=1)  # |Q| = 18


# ------------------------------------------------------------------- brute force: the lambda/2 radius
def test_bruteforce_accepts_exactly_the_databases_within_lambda_over_2_of_every_noisy_answer(monkeypatch):
    """Thm 6.6's search: the lexicographically first database y of n rows with |q(y) - v| <= lambda/2 for every
    noisy answer v of the sample (a query sampled twice must fit both), else ⊥. lambda/2 is what makes the proof
    work: x itself fits when every noise is below lambda/2, and a fitting y is then within lambda of x on S.
    The noise is replaced by fixed offsets, and lambda/2 put midway between the distances that occur, so a
    radius of lambda, lambda/4 or anything but lambda/2 picks another database or another count."""
    n, rng = 3, np.random.Generator(np.random.PCG64(66))
    data = Dataset.from_histogram([2, 0, 1, 0], TINY)
    queries = Workload.all_kway(TINY, 2)  # the 4 cells
    plan = BruteForceGenerator().plan(n=n, domain=TINY, queries=queries, epsilon=0.5, delta=1e-6, beta=0.05)
    sample = np.resize(np.arange(4), plan.k)  # every cell, each measured k/4 times
    offsets = rng.uniform(-0.12, 0.12, plan.k)
    noisy = queries.answers(data)[sample] + offsets
    monkeypatch.setattr("dprelease.privacy.measurer.snapped_laplace",
                        lambda values, **_: np.asarray(values, dtype=np.float64) + offsets)
    # Every database of n rows, in lexicographic order of its counts (enumerated here, not by the code under test)
    databases = sorted(c for c in itertools.product(range(n + 1), repeat=4) if sum(c) == n)
    distance = np.array([np.abs(np.array(c, dtype=float)[sample] / n - noisy).max() for c in databases])
    levels = np.unique(distance)
    radii = [(low + high) / 2 for low, high in zip(levels[:-1], levels[1:])]
    assert len(radii) >= 6
    tried = 0
    for radius in [levels[0] / 2, *radii]:
        generator = BruteForceGenerator(lambda_=2 * radius)
        plan = generator.plan(n=n, domain=TINY, queries=queries, epsilon=0.5, delta=1e-6, beta=0.05)
        measurer = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=1.0, delta=1e-5), rng=SeededRandom(0))
        synopsis = generator.generate(measurer, queries, sample, plan=plan, rng=SeededRandom(0), label="t")
        accepted = np.flatnonzero(distance <= radius)
        if accepted.size == 0:
            assert synopsis is None  # ⊥
            continue
        tried += 1
        assert synopsis.counts.tolist() == list(databases[accepted[0]])
        assert synopsis.info["passing"] == accepted.size
    assert tried >= 6


# ------------------------------------------------------------------- LP: synopsis rows and subsample alpha
def _least_fixed_point(*, universe: int, beta: float, subsample_alpha: float) -> tuple[int, int]:
    """(k, n'): the smallest k with k > 6 (n'(k) log2|X| + ln(3/beta)), n'(k) = ceil(ln k ln(1/beta) / a_s^2),
    found by scanning k upwards (independent of the code's iteration)."""
    k = 2
    while True:
        rows = math.ceil(math.log(k) * math.log(1 / beta) / subsample_alpha**2)
        if k > 6 * (rows * math.log2(universe) + math.log(3 / beta)):  # Lemma 6.5: k > 6 (m + ln(1/gamma))
            return k, rows
        k += 1


def test_lp_generator_synopsis_rows_and_subsample_alpha():
    """The book's subsampling (Sec. 6.2.2): n' = ceil(ln k ln(1/beta) / a_s^2) rows, m = n' log2|X| bits, and k the
    smallest integer > 6 (m + ln(3/beta)) (Lemma 6.5, eta = 1/3, gamma = beta/3): k and n' depend on each
    other, and the code takes the least fixed point. Given n' instead, a_s = sqrt(ln k ln(1/beta) / n'); the
    subsample's own error is Hoeffding's s = sqrt(ln(6k/beta) / (2 n'))."""
    kw = dict(n=10**6, universe_size=8, rho=1e-6, epsilon_base=0.5, delta_base=1e-8, beta=0.05)
    # a_s = 0.25: n' = ceil(ln 7765 ln 20 / 0.0625) = 430; k = floor(6 (430 * 3 + ln 60)) + 1 = 7765
    theory = bounds.thm_6_8_lp_base_generator(**kw, subsample_alpha=0.25)
    assert (theory["k"], theory["synopsis_rows"], theory["bits"]) == (7765, 430, 1290)
    assert theory["subsample_alpha"] == 0.25
    assert theory["subsample_error"] == pytest.approx(math.sqrt(math.log(6 * 7765 / 0.05) / 860), rel=1e-12)
    for a_s in (0.1, 0.25, 0.5, 0.9):
        for universe, beta in ((2, 0.05), (8, 0.01), (64, 0.2)):
            theory = bounds.thm_6_8_lp_base_generator(**{**kw, "universe_size": universe, "beta": beta},
                                                      subsample_alpha=a_s)
            assert (theory["k"], theory["synopsis_rows"]) == _least_fixed_point(universe=universe, beta=beta,
                                                                                 subsample_alpha=a_s)
    # n' = 40 given: k = floor(6 (120 + ln 60)) + 1 = 745, a_s = sqrt(ln 745 ln 20 / 40)
    theory = bounds.thm_6_8_lp_base_generator(**kw, synopsis_rows=40)
    assert (theory["k"], theory["synopsis_rows"]) == (745, 40)
    assert theory["subsample_alpha"] == pytest.approx(math.sqrt(math.log(745) * math.log(20) / 40), rel=1e-12)
    assert math.ceil(math.log(745) * math.log(20) / theory["subsample_alpha"] ** 2 - 1e-9) == 40  # round trip
    assert theory["subsample_error"] == pytest.approx(math.sqrt(math.log(6 * 745 / 0.05) / 80), rel=1e-12)
    # Neither given: the a_s of the public grid 10^(-3 + 3i/120) with the smallest lambda
    grid = [10 ** (-3 + 3 * i / 120) for i in range(121)]
    default = bounds.thm_6_8_lp_base_generator(**kw)
    assert default["subsample_alpha"] in grid
    assert default["lambda"] == min(bounds.thm_6_8_lp_base_generator(**kw, subsample_alpha=a)["lambda"] for a in grid)

    # The generator runs with exactly these: its plan, and a synopsis of n' rows.
    data = Dataset.from_histogram(np.random.Generator(np.random.PCG64(8)).multinomial(10**6, np.full(8, 1 / 8)),
                                  DOMAIN)
    for generator, rows in ((LPSynthesizer(subsample_alpha=0.25), 430), (LPSynthesizer(synopsis_rows=40), 40)):
        plan = generator.plan(n=data.n, domain=DOMAIN, queries=WORKLOAD, epsilon=0.5, delta=1e-8, beta=0.05)
        assert plan.synopsis_rows == rows and plan.k == {430: 7765, 40: 745}[rows]
        assert plan.details["subsample_alpha"] == pytest.approx(
            0.25 if rows == 430 else math.sqrt(math.log(745) * math.log(20) / 40), rel=1e-12)
        measurer = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=1.0, delta=1e-6), rng=SeededRandom(0))
        synopsis = generator.generate(measurer, WORKLOAD, np.resize(np.arange(WORKLOAD.num_queries), plan.k),
                                      plan=plan, rng=SeededRandom(0), label="t")
        assert synopsis is not None and synopsis.rows == rows and synopsis.counts.sum() == rows


# ------------------------------------------------------------------- Lemma 6.5 (eta = 1/3)
def _generalization_fails(rng: np.random.Generator, generator: str, beta: float) -> bool:
    """One random instance of Lemma 6.5: does some synopsis that lambda-fits x on S ~ D^k miss D's 5/6?

    The synopses are every database of `rows` rows over X (at most |X|^rows = 2^m of them, m bits: the
    lemma's class); k is the code's: Thm 6.6's for brute force (m = n log2|X|, gamma = beta/2), the LP's for
    its n' rows (gamma = beta/3). Half the instances take lambda just below the smallest lambda at which some
    synopsis fits 5/6 of D (every fitting synopsis is then a failure: the harshest case), half a random one."""
    universe = int(rng.choice([4, 8]))
    rows = int(rng.integers(1, 4))
    synopses = all_databases(universe, rows).astype(np.float64) / rows
    x = rng.dirichlet(np.full(universe, float(rng.choice([0.3, 1.0]))))
    vectors = rng.random((30, universe))
    vectors[:15] = vectors[:15] < 0.5
    errors = np.abs(synopses @ vectors.T - vectors @ x)  # (synopses, queries)
    d = rng.dirichlet(np.full(30, 0.5))  # the distribution D on Q
    if rng.random() < 0.5:
        lam = float(np.quantile(errors, rng.uniform(0.3, 0.7)))
    else:  # per synopsis, the smallest lambda that fits 5/6 of D; stay just below the least of them
        order = np.argsort(errors, axis=1)
        reach = np.cumsum(d[order], axis=1) >= 5 / 6 - 1e-12
        lam = float(np.take_along_axis(errors, order, axis=1)[np.arange(len(errors)), reach.argmax(axis=1)].min())
        lam *= 1 - 1e-9
    within = errors <= lam
    mass = within @ d
    kw = dict(n=rows, universe_size=universe, rho=1.0 / rows, epsilon_base=0.5, delta_base=1e-6, beta=beta)
    k = int(bounds.thm_6_6_base_generator(**kw)["k"] if generator == "bruteforce"
            else bounds.thm_6_8_lp_base_generator(**kw, synopsis_rows=rows)["k"])
    sample = rng.choice(30, size=k, p=d)
    fits = within[:, sample].all(axis=1)
    return bool((fits & (mass < 1 / 2 + 1 / 3)).any())


@pytest.mark.parametrize("generator, gamma_share", [("bruteforce", 2), ("lp", 3)])
def test_lemma_6_5_a_fit_on_the_sample_generalizes_to_five_sixths_of_d(generator, gamma_share):
    """Lemma 6.5 with eta = 1/3: w.p. >= 1 - gamma over S ~ D^k, every synopsis of <= m bits that lambda-fits x on S
    lambda-fits x on at least 1/2 + eta = 5/6 of D's mass (it misses at most 1/6), for k > 6 (m + ln(1/gamma)).
    On 250 seeded random instances the failures are Binomial(250, p <= gamma); the test allows up to c with
    P[Bin(250, gamma) > c] < 1e-6 (false-alarm rate < 1e-6 if the lemma holds; gamma = beta/2 = 0.025 for brute
    force, c = 21; beta/3 = 0.0167 for the LP, c = 17). The union bound is loose, so the code's k sees none."""
    beta, trials = 0.05, 250
    gamma = beta / gamma_share
    allowed = int(binom.isf(1e-6, trials, gamma))
    rng = np.random.Generator(np.random.PCG64(6500 + gamma_share))
    failures = sum(_generalization_fails(rng, generator, beta) for _ in range(trials))
    assert failures <= allowed, f"{failures} of {trials} instances failed (allowed {allowed})"
