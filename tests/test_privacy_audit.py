"""Statistical privacy audits of the kernel on neighbouring inputs, each with a planted bug.

False-alarm rate: each audit below has false-alarm probability <= 1e-6 (see
tests/audit.py); with the 4 audits run on correct code here this file's false-alarm
rate is <= 4e-6 (and the sparse-vector audits in test_sparse_vector.py add 2e-6). All runs are seeded, so the suite is deterministic; the stated
rate bounds the chance that a seed was "unlucky" for correct code.

Each audit is run twice: on the code as shipped (must find no violation) and with
a planted bug injected into the real code path by monkeypatch (must find one).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dprelease.data import Dataset
from dprelease.domain import Domain
from dprelease.privacy import measurer as measurer_module
from dprelease.privacy import selection as selection_module
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.rng import SeededRandom
from dprelease.privacy.selection import exponential_mechanism
from dprelease.queries import ProductQuery
from tests.audit import violations

EPSILON = 1.0
FALSE_ALARM = 1e-6

# Neighbouring tables of the same size n = 10: one record moves from a=0 to a=1,
# so the counting query "a == 1" moves by exactly its sensitivity 1/n.
DOMAIN = Domain(("a", "b"), (2, 2))
X = Dataset.from_records([[0, 0]] * 6 + [[1, 1]] * 4, DOMAIN)
X_PRIME = Dataset.from_records([[0, 0]] * 5 + [[1, 1]] * 5, DOMAIN)
QUERY = ProductQuery.conjunction(DOMAIN, {"a": 1})


def laplace_outputs(dataset: Dataset, samples: int, seed: int) -> np.ndarray:
    measurer = PrivateMeasurer(dataset, accountant=PrivacyAccountant(epsilon=samples * EPSILON),
                               rng=SeededRandom(seed))
    return np.array([measurer.laplace_query(QUERY, epsilon=EPSILON, label="audit") for _ in range(samples)])


def laplace_events() -> list:
    scale = 1 / (X.n * EPSILON)
    centre = QUERY.evaluate(X)
    return [(f"out <= f(x) + {t} b", lambda o, t=t: o <= centre + t * scale) for t in (-3, -2, -1, 0, 1, 2)] + \
           [(f"out >= f(x) + {t} b", lambda o, t=t: o >= centre + t * scale) for t in (-1, 0, 1, 2, 3, 4)]


def run_laplace_audit() -> list[str]:
    return violations(laplace_outputs(X, 30_000, 1), laplace_outputs(X_PRIME, 30_000, 2), laplace_events(),
                      epsilon=EPSILON, alpha=FALSE_ALARM)


def test_laplace_measurement_passes_the_audit():
    assert run_laplace_audit() == []


def plant(monkeypatch, factor) -> None:
    """Planted bug in the real code path: the measurer's Laplace scale multiplied by ``factor``."""
    real = measurer_module.snapped_laplace
    monkeypatch.setattr(measurer_module, "snapped_laplace",
                        lambda values, *, sensitivity, epsilon, rng: real(
                            values, sensitivity=sensitivity * Fraction(factor), epsilon=epsilon, rng=rng))


def test_laplace_audit_catches_half_the_noise(monkeypatch):
    plant(monkeypatch, Fraction(1, 2))
    assert run_laplace_audit() != []


def test_laplace_audit_catches_sensitivity_20_percent_too_small(monkeypatch):
    plant(monkeypatch, Fraction(4, 5))
    # A 20% smaller scale is (1.25 eps)-DP; it takes more samples to see.
    found = violations(laplace_outputs(X, 150_000, 3), laplace_outputs(X_PRIME, 150_000, 4), laplace_events(),
                       epsilon=EPSILON, alpha=FALSE_ALARM)
    assert found != []


# Exponential mechanism: candidate 0 gains the sensitivity, the 49 others lose it,
# the case in which exp(eps u / 2 Delta) comes closest to its e^eps bound.
CANDIDATES = 50
SCORES_X = np.zeros(CANDIDATES)
SCORES_X_PRIME = np.r_[1.0, -np.ones(CANDIDATES - 1)]


def run_exponential_audit() -> list[str]:
    draws = 60_000
    out_x = exponential_mechanism(SCORES_X, epsilon=EPSILON, sensitivity=1.0, rng=SeededRandom(5), size=draws)
    out_y = exponential_mechanism(SCORES_X_PRIME, epsilon=EPSILON, sensitivity=1.0, rng=SeededRandom(6), size=draws)
    events = [("selects candidate 0", lambda o: o == 0), ("selects candidate 1", lambda o: o == 1),
              ("selects one of 0..4", lambda o: o < 5)]
    return violations(out_x, out_y, events, epsilon=EPSILON, alpha=FALSE_ALARM)


def test_exponential_mechanism_passes_the_audit():
    assert run_exponential_audit() == []


def test_exponential_audit_catches_twice_the_epsilon(monkeypatch):
    # Planted bug: the exponent's factor eps / (2 Delta) doubled (= Gumbel noise halved).
    real = selection_module.float_at_most
    monkeypatch.setattr(selection_module, "float_at_most", lambda v: 2 * real(v))
    assert run_exponential_audit() != []


def test_measurer_charges_before_it_answers():
    accountant = PrivacyAccountant(epsilon=1.0)
    measurer = PrivateMeasurer(X, accountant=accountant, rng=SeededRandom(0))
    measurer.laplace_query(QUERY, epsilon=0.75, label="first")
    from dprelease.errors import BudgetExceededError

    with pytest.raises(BudgetExceededError):
        measurer.laplace_query(QUERY, epsilon=0.5, label="second")
    assert [c.label for c in accountant.ledger] == ["first"]


def test_laplace_calibration_is_exactly_sensitivity_over_epsilon():
    # Same seed, same draws: a measurement equals the kernel's snapped Laplace with
    # sensitivity 1/n (a query) or 2/n (a marginal) at the epsilon charged.
    from dprelease.privacy.noise import snapped_laplace

    eps = Fraction(37, 100)
    measurer = PrivateMeasurer(X, accountant=PrivacyAccountant(epsilon=1.0), rng=SeededRandom(11))
    noisy = measurer.laplace_query(QUERY, epsilon=eps, label="x")
    expected = snapped_laplace(QUERY.evaluate(X), sensitivity=Fraction(1, X.n), epsilon=eps, rng=SeededRandom(11))
    assert noisy == float(expected)
    marginal = PrivateMeasurer(X, accountant=PrivacyAccountant(epsilon=1.0), rng=SeededRandom(12)) \
        .laplace_marginal(("a",), epsilon=eps, label="m")
    expected = snapped_laplace(X.marginal(("a",)), sensitivity=Fraction(2, X.n), epsilon=eps, rng=SeededRandom(12))
    assert np.array_equal(marginal, expected)


# One MWEM round (SELECT by the exponential mechanism over marginals, MEASURE by Laplace),
# through the real MWEM code path, on neighbouring tables. Its output is the pair
# (marginal chosen, noisy first and last cells): one record moves 1/n from the last cell to
# the first, so joint events on both cells see the marginal's whole L1 sensitivity 2/n.
MWEM_DOMAIN = Domain(("a", "b"), (2, 3))
MWEM_X = Dataset.from_records([[0, 0]] * 3 + [[1, 2]] * 2, MWEM_DOMAIN)
MWEM_X_PRIME = Dataset.from_records([[0, 0]] * 2 + [[1, 2]] * 3, MWEM_DOMAIN)


def mwem_round_outputs(dataset: Dataset, runs: int, seed: int) -> np.ndarray:
    from dprelease.mechanisms.mwem import MWEM
    from dprelease.mechanisms.mwem_tuning import MWEMTuning
    from dprelease.queries import Workload

    workload = Workload(MWEM_DOMAIN, (("a",), ("b",)))
    mwem = MWEM(epsilon=EPSILON, rounds=1,
                tuning=MWEMTuning(init_share=0.0, size_penalty=0.0, round_iterations=0, final_iterations=0))
    rng = SeededRandom(seed)
    out = np.empty((runs, 3))
    for i in range(runs):
        result = mwem.run(dataset, workload, rng=rng)
        (measurement,) = result.measurements
        cells = measurement.values.reshape(-1)
        out[i] = (0 if measurement.attributes == ("a",) else 1, cells[0], cells[-1])
    return out


def run_mwem_audit() -> list[str]:
    runs = 20_000
    out_x, out_y = mwem_round_outputs(MWEM_X, runs, 21), mwem_round_outputs(MWEM_X_PRIME, runs, 22)
    events = []
    for chosen in (0, 1):
        for low, high in ((0.4, 0.6), (0.3, 0.7), (0.5, 0.5)):
            events.append((f"chose {chosen}, first <= {low}, last >= {high}",
                           lambda o, c=chosen, lo=low, hi=high: (o[:, 0] == c) & (o[:, 1] <= lo) & (o[:, 2] >= hi)))
    return violations(out_x, out_y, events, epsilon=EPSILON, alpha=FALSE_ALARM)


def test_one_mwem_round_passes_the_audit():
    assert run_mwem_audit() == []


def test_mwem_audit_catches_a_marginal_sensitivity_half_too_small(monkeypatch):
    # Planted bug: the kernel believes a marginal's L1 sensitivity is 1/n, not 2/n.
    monkeypatch.setattr(PrivateMeasurer, "marginal_sensitivity", property(lambda self: Fraction(1, self.n)))
    assert run_mwem_audit() != []


# A short online-PMW transcript (two queries) through the real session code on neighbouring
# histograms: one record moves from a=1 to a=0. n is large enough for Thm 4.14 to give a
# non-vacuous plan, so the first query is answered by a measurement.
ONLINE_DOMAIN = Domain(("a",), (2,))
ONLINE_X = Dataset.from_histogram([700_000, 300_000], ONLINE_DOMAIN)
ONLINE_X_PRIME = Dataset.from_histogram([700_001, 299_999], ONLINE_DOMAIN)


def online_transcripts(dataset: Dataset, runs: int, seed: int) -> np.ndarray:
    import warnings

    from dprelease.mechanisms.online_mw import OnlinePrivateMW

    queries = [ProductQuery.conjunction(ONLINE_DOMAIN, {"a": 0}), ProductQuery.conjunction(ONLINE_DOMAIN, {"a": 1})]
    rng = SeededRandom(seed)
    out = np.empty((runs, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i in range(runs):
            session = OnlinePrivateMW(dataset, epsilon=EPSILON, max_queries=2, rng=rng)
            out[i] = [session.answer(q) for q in queries]
    return out


def run_online_audit() -> list[str]:
    runs = 3_000
    out_x, out_y = online_transcripts(ONLINE_X, runs, 31), online_transcripts(ONLINE_X_PRIME, runs, 32)
    centre = 0.7
    events = [(f"first answer <= 0.7 + {t:g}", lambda o, t=t: o[:, 0] <= centre + t) for t in (-0.01, 0, 1e-6, 0.01)]
    events += [(f"second answer >= 0.3 + {t:g}", lambda o, t=t: o[:, 1] >= 0.3 + t) for t in (-0.01, 0, 0.01)]
    return violations(out_x, out_y, events, epsilon=EPSILON, alpha=FALSE_ALARM)


def test_online_pmw_transcript_passes_the_audit():
    assert run_online_audit() == []


def test_online_audit_catches_a_measurement_released_without_noise(monkeypatch):
    from dprelease.privacy import sparse_vector

    monkeypatch.setattr(sparse_vector._SparseVector, "_numeric_answer", lambda self, value: value)
    assert run_online_audit() != []
