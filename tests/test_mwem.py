"""MWEM: exact accounting, the kernel boundary, and accuracy beyond the baselines."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from dprelease.data import Dataset
from dprelease.datasets import ADULT_SMALL_COLUMNS, load_adult
from dprelease.domain import Domain
from dprelease.errors import InputError, InputTypeError
from dprelease.evaluate import workload_errors
from dprelease.mechanisms.baselines import IndependentMarginals, uniform_model
from dprelease.mechanisms.mwem import MWEM
from dprelease.mechanisms.mwem_tuning import MWEMTuning
from dprelease.privacy.rng import SeededRandom
from dprelease.queries import Workload

DOMAIN = Domain(("a", "b", "c", "d"), (3, 4, 2, 5))


def small_dataset(n: int = 5_000, seed: int = 0) -> Dataset:
    rng = np.random.Generator(np.random.PCG64(seed))
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(0, 2, n)) % 4  # correlated with a
    c = (b > 1).astype(int) ^ (rng.random(n) < 0.1)
    d = rng.integers(0, 5, n)
    return Dataset.from_records(np.stack([a, b, c, d], axis=1), DOMAIN)


@pytest.mark.parametrize("epsilon,rounds,init_share,selection_share", [
    (1.0, 10, 0.1, 0.25), (0.3, 7, 0.0, 0.5), (0.1, 3, 0.3, 0.1), (2.5, 13, 0.2, 0.3)])
def test_budget_split_sums_to_epsilon_exactly(epsilon, rounds, init_share, selection_share):
    data = small_dataset()
    workload = Workload.all_kway(DOMAIN, 2, smallest=1)
    mwem = MWEM(epsilon=epsilon, rounds=rounds,
                tuning=MWEMTuning(init_share=init_share, selection_share=selection_share, final_iterations=5))
    result = mwem.run(data, workload, rng=SeededRandom(0))
    ledger = result.accountant.ledger
    expected_init = len(DOMAIN) if init_share > 0 else 0
    assert len(ledger) == expected_init + 2 * rounds
    assert result.accountant.spent_epsilon == Fraction(epsilon)
    assert result.accountant.spent_delta == 0
    split = mwem.budget_split(expected_init)
    assert [c.epsilon for c in ledger[expected_init:]] == [split["select"], split["measure"]] * rounds


def test_mwem_beats_both_baselines_on_adult():
    data = load_adult(ADULT_SMALL_COLUMNS)
    workload = Workload.all_kway(data.domain, 3, smallest=1)
    result = MWEM(epsilon=1.0).run(data, workload, rng=SeededRandom(0))
    ours = workload_errors(data, result.model, workload)["avg_l1"]
    independent, _ = IndependentMarginals(epsilon=1.0).run(data, rng=SeededRandom(1))
    assert ours < 0.5 * workload_errors(data, independent, workload)["avg_l1"]
    assert ours < 0.1 * workload_errors(data, uniform_model(data.domain), workload)["avg_l1"]
    assert ours < 0.08


@pytest.mark.parametrize("kwargs,error", [
    ({"epsilon": 0.0}, InputError), ({"epsilon": float("nan")}, InputError), ({"epsilon": "1"}, InputTypeError),
    ({"epsilon": 1.0, "rounds": 0}, InputError), ({"epsilon": 1.0, "rounds": 2.5}, InputTypeError),
    ({"epsilon": True}, InputTypeError), ({"epsilon": 1.0, "tuning": {"rounds": 3}}, InputTypeError),
])
def test_bad_parameters_are_rejected_before_running(kwargs, error):
    with pytest.raises(error):
        MWEM(**kwargs)


@pytest.mark.parametrize("kwargs", [{"selection_share": 0.0}, {"init_share": 1.0}, {"size_penalty": -1.0},
                                    {"step_growth": 0.5}, {"candidates": "all"}, {"rounds": 0}])
def test_bad_tuning_constants_are_rejected(kwargs):
    with pytest.raises(InputError):
        MWEMTuning(**kwargs)
