"""SmallDB (Alg. 4, Prop. 4.1, Thm 4.5): the exact exponential-mechanism distribution over the
enumerated range, exact accounting, the accuracy theorem, the public caps, and the API/CLI."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from dprelease import Dataset, Domain, DomainTooLargeError, InputError, Workload
from dprelease.api import synthesize
from dprelease.bounds import thm_4_5_smalldb_alpha
from dprelease.cli import main
from dprelease.evaluate import workload_errors
from dprelease.mechanisms.smalldb import SmallDB
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import SeededRandom
from dprelease.queries.callable import CallableQuery, CallableQuerySet
from dprelease.representations.nets import all_databases, answer_matrix

DOMAIN = Domain(("a", "b"), (2, 2))  # |X| = 4
WORKLOAD = Workload.all_kway(DOMAIN, 2, smallest=1)  # |Q| = 2 + 2 + 4 = 8


def test_select_database_samples_the_exponential_mechanism_exactly():
    # Every database of 2 rows over 4 cells: C(5, 2) = 10 candidates; probabilities in closed form.
    data = Dataset.from_histogram([6, 2, 1, 1], DOMAIN)
    counts = all_databases(4, 2)
    answers = answer_matrix(WORKLOAD, counts, DOMAIN, 2)
    epsilon, draws = 2.0, 6000
    utility = -np.abs(answers - WORKLOAD.answers(data)).max(axis=1)
    expected = np.exp(epsilon * utility / (2 * (1 / data.n)))
    expected /= expected.sum()
    measurer = PrivateMeasurer(data, accountant=PrivacyAccountant(epsilon=draws * epsilon), rng=SeededRandom(11))
    picks = np.bincount([measurer.select_database(WORKLOAD, answers, epsilon=epsilon, label="d")
                         for _ in range(draws)], minlength=len(counts))
    # Each frequency within 5 binomial standard deviations (false-alarm rate < 1e-5 over 10 cells).
    sd = np.sqrt(draws * expected * (1 - expected))
    assert (np.abs(picks - draws * expected) <= 5 * sd + 1).all()
    assert measurer._accountant.spent_epsilon == draws * Fraction(epsilon)
    with pytest.raises(ValueError, match="shape"):
        measurer.select_database(WORKLOAD, answers[:, :3], epsilon=epsilon, label="bad")


def test_accounting_is_exactly_one_charge_of_epsilon():
    data = Dataset.from_histogram([50, 10, 30, 10], DOMAIN)
    result = SmallDB(epsilon=0.7, alpha=0.6).run(data, WORKLOAD, rng=SeededRandom(0))
    (charge,) = result.accountant.ledger
    assert charge.epsilon == Fraction(0.7) and charge.delta == 0
    m = math.ceil(math.log(8) / 0.3**2)  # Thm 4.5 runs Alg. 4 at alpha/2
    assert result.parameters["database_size"] == m == 24
    assert result.parameters["candidates"] == math.comb(4 + m - 1, m)
    assert result.counts.sum() == m
    assert result.model.probabilities.sum() == pytest.approx(1)


@pytest.mark.parametrize("seed", range(5))
def test_theorem_4_5_accuracy(seed):
    n, eps, beta, alpha = 20_000, 1.0, 0.05, 0.5
    rng = np.random.Generator(np.random.PCG64(seed))
    data = Dataset.from_histogram(rng.multinomial(n, rng.dirichlet(np.full(4, 0.5))), DOMAIN)
    assert thm_4_5_smalldb_alpha(n=n, universe_size=4, num_queries=8, epsilon=eps, beta=beta) <= alpha
    result = SmallDB(epsilon=eps, alpha=alpha, beta=beta).run(data, WORKLOAD, rng=SeededRandom(seed))
    assert result.parameters["accuracy_guaranteed"]
    assert workload_errors(data, result.model, WORKLOAD)["max_error"] <= alpha


def test_range_too_large_is_a_clear_error_before_any_data_is_read():
    class Untouchable(Dataset):
        def marginal(self, attributes):  # would be the first private read
            raise AssertionError("private data read before the public check")

    data = Untouchable(DOMAIN, None, np.array([5, 5, 5, 5]), 20)
    with pytest.raises(DomainTooLargeError, match="SmallDB's range R.*m=208"):
        SmallDB(epsilon=1.0, alpha=0.2).run(data, WORKLOAD, rng=SeededRandom(0))
    with pytest.raises(InputError, match="Thm 4.5 guarantees no alpha"):
        SmallDB(epsilon=1.0).run(data, WORKLOAD, rng=SeededRandom(0))


def test_nonlinear_queries_run_with_their_declared_sensitivity():
    data = Dataset.from_histogram([8, 1, 1, 0], DOMAIN)
    queries = CallableQuerySet(DOMAIN, [CallableQuery(DOMAIN, lambda h: float(h.max()), name="max cell")])
    result = SmallDB(epsilon=50.0, database_size=5).run(data, queries, rng=SeededRandom(1))
    assert result.counts.max() >= 4  # the chosen small database also has one dominant cell
    assert result.parameters["accuracy_guaranteed"] is False  # Thm 4.5 is for linear queries at alpha/2


@pytest.mark.parametrize("bad, error", [
    (dict(epsilon=0.0), ValueError), (dict(epsilon=1.0, alpha=1.5), ValueError),
    (dict(epsilon=1.0, beta=1.0), ValueError), (dict(epsilon=1.0, database_size=0), ValueError),
    (dict(epsilon=1.0, database_size=2.0), TypeError), (dict(epsilon="1"), TypeError),
])
def test_bad_parameters(bad, error):
    with pytest.raises(error):
        SmallDB(**bad)


def test_synthesize_smalldb_and_ic_median_on_a_tiny_domain():
    data = Dataset.from_histogram([500, 100, 300, 100], DOMAIN)
    release = synthesize(data, "1-2way", mechanism="smalldb", epsilon=1.0, alpha=0.6, seed=0)
    assert release.guarantee.startswith("(epsilon=1, delta=0)") and "SmallDB" in release.guarantee
    assert release.rows.shape == (1000, 2) and release.privacy_ledger["spent"]["epsilon"] == 1.0
    with pytest.warns(UserWarning, match="delta is not used"):
        synthesize(data, "1way", mechanism="smalldb", epsilon=1.0, delta=1e-6, alpha=0.6, seed=0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        median = synthesize(data, "1-2way", mechanism="ic-median", epsilon=1.0, alpha=0.4, seed=0)
    assert median.parameters["update"] == "median-mechanism"
    assert median.rows.shape == (1000, 2) and median.privacy_ledger["spent"]["epsilon"] == 1.0
    with pytest.raises(DomainTooLargeError):
        synthesize(data, "1-2way", mechanism="ic-median", epsilon=1.0, alpha=0.05, seed=0)


def test_cli_synth_new_mechanisms(tmp_path, capsys):
    domain = tmp_path / "domain.json"
    domain.write_text('{"a": 2, "b": 2}')
    data = tmp_path / "data.csv"
    data.write_text("a,b\n" + "".join(f"{i % 2},{(i // 3) % 2}\n" for i in range(40)))
    for mechanism in ("smalldb", "ic-median", "ic-perceptron"):
        out = tmp_path / f"{mechanism}.csv"
        code = main(["synth", str(data), "--domain", str(domain), "--workload", "1way", "--epsilon", "1",
                     "--mechanism", mechanism, "--alpha", "0.6", "--seed", "1", "--out", str(out), "--quiet"])
        captured = capsys.readouterr()
        assert code == 0, captured.err
        assert out.read_text().startswith("a,b\n") and len(out.read_text().splitlines()) == 41
    # Too large for the enumeration: one clear line, exit 2, nothing written.
    out = tmp_path / "big.csv"
    code = main(["synth", str(data), "--domain", str(domain), "--workload", "1-2way", "--epsilon", "1",
                 "--mechanism", "smalldb", "--alpha", "0.1", "--out", str(out), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and err.startswith("dprelease: error: SmallDB's range R") and err.count("\n") == 1
    assert not out.exists()


def test_privacy_parameters_are_keyword_only():
    with pytest.raises(TypeError):
        SmallDB(1.0)  # type: ignore[misc]
    with pytest.raises(TypeError):
        CallableQuery(DOMAIN, lambda h: 0.0, 2)  # type: ignore[misc]
