"""INIT's split of its budget over the 1-way marginals (mwem_budget.init_allocation, issue 12).

* the parts are public, positive, at least the floor, and sum to INIT's total exactly;
* where no marginal saturates they follow the L1 optimum: rho ∝ (uses k)^(2/3), epsilon ∝ (uses k)^(1/2);
* a column that no affordable share could resolve gets less than its equal share, never below the floor;
* the split minimizes the objective it states (random feasible splits never do better);
* an MWEM run charges each INIT measurement exactly its part, and the whole budget exactly as before, and its
  parameters report each part (not their mean).
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

import numpy as np
import pytest

from dprelease import Dataset, Domain
from dprelease.errors import InputError
from dprelease.mechanisms.mwem import MWEM
from dprelease.mechanisms.mwem_budget import INIT_FLOOR, INIT_SATURATION, init_allocation
from dprelease.mechanisms.mwem_tuning import ADAPTIVE, MWEMTuning
from dprelease.privacy.noise import exact
from dprelease.privacy.rng import SeededRandom
from dprelease.privacy.zcdp import rho_for
from dprelease.queries.workload import Workload

CELLS = [85, 9, 16, 7, 6, 15, 5, 2, 2]


def objective(parts: list[float], cells, uses, n: int, gaussian: bool) -> float:
    """sum uses * L / (1 + L / S): the expected-error model init_allocation minimizes."""
    k, w, x = np.asarray(cells, float), np.asarray(uses, float), np.asarray(parts, float)
    loss = (math.sqrt(2 / math.pi) * k / (n * np.sqrt(x))) if gaussian else 2 * k / (n * x)
    return float((w * loss / (1 + loss / INIT_SATURATION)).sum())


@pytest.mark.parametrize("gaussian", [True, False])
@pytest.mark.parametrize("n,total", [(1_300, Fraction(12, 1000)), (1_300, Fraction(1, 10**4)), (10**6, Fraction(3, 7))])
def test_parts_are_positive_at_least_the_floor_and_sum_to_the_total_exactly(gaussian, n, total):
    parts = init_allocation(CELLS, [28] * len(CELLS), n=n, total=total, gaussian=gaussian)
    assert sum(parts) == total and all(isinstance(p, Fraction) for p in parts)
    equal = total / len(CELLS)
    assert all(p >= equal * Fraction(INIT_FLOOR) * Fraction(999, 1000) for p in parts)


@pytest.mark.parametrize("gaussian,power", [(True, 2 / 3), (False, 1 / 2)])
def test_unsaturated_parts_follow_the_l1_optimum(gaussian, power):
    """Many rows, so every L is small: rho_i ∝ (uses_i k_i)^(2/3) under zCDP, eps_i ∝ (uses_i k_i)^(1/2) under pure DP."""
    cells, uses = [20, 10, 8, 12], [3, 3, 3, 2]
    parts = init_allocation(cells, uses, n=10**9, total=Fraction(1, 2), gaussian=gaussian)
    expected = np.array([(w * k) ** power for w, k in zip(uses, cells)])
    expected = expected / expected.sum() / 2
    assert np.allclose([float(p) for p in parts], expected, rtol=1e-4)


def test_a_column_no_share_could_resolve_gets_less_but_at_least_the_floor():
    """1,000 rows at a tiny budget: the 500-value column stays unresolved at any share; the binary ones are the
    columns a share buys anything for."""
    total = Fraction(1, 10**6)
    parts = init_allocation([500, 2, 2, 2], [3, 3, 3, 3], n=1_000, total=total, gaussian=True)
    equal = total / 4
    assert parts[0] < equal and parts[0] >= equal * Fraction(INIT_FLOOR)
    assert all(p > equal for p in parts[1:])


@pytest.mark.parametrize("gaussian", [True, False])
@pytest.mark.parametrize("n,total", [(1_300, 0.012), (1_300, 1e-4), (50_000, 0.5)])
def test_the_split_minimizes_its_objective(gaussian, n, total):
    """Random feasible splits (same total, each part at least the floor) never have a smaller objective."""
    uses = [28, 28, 10, 28, 5, 28, 28, 1, 28]
    parts = [float(p) for p in init_allocation(CELLS, uses, n=n, total=exact(total), gaussian=gaussian)]
    best = objective(parts, CELLS, uses, n, gaussian)
    floor = INIT_FLOOR * total / len(CELLS)
    g = np.random.Generator(np.random.PCG64(7))
    for _ in range(2_000):
        other = floor + g.dirichlet(np.ones(len(CELLS)) * 0.7) * (total - floor * len(CELLS))
        assert objective(list(other), CELLS, uses, n, gaussian) >= best * (1 - 1e-9)
    equal = [total / len(CELLS)] * len(CELLS)
    assert objective(equal, CELLS, uses, n, gaussian) > best


DOMAIN = Domain(("age", "sex", "job", "city"), (40, 2, 12, 6))


def table(n: int) -> Dataset:
    generator = np.random.Generator(np.random.PCG64(3))
    return Dataset.from_records(generator.integers(0, DOMAIN.sizes, size=(n, 4)), DOMAIN)


@pytest.mark.parametrize("delta", [0.0, 1e-9])
def test_an_mwem_run_charges_each_init_measurement_its_part_exactly(delta):
    n, epsilon = 3_000, 1.0
    tuning = replace(ADAPTIVE, final_iterations=5)
    assert tuning.init_allocation == "l1"  # the default preset's split
    data, workload = table(n), Workload.all_kway(DOMAIN, 2)
    mwem = MWEM(epsilon=epsilon, delta=delta, tuning=tuning)
    result = mwem.run(data, workload, rng=SeededRandom(4))
    gaussian = result.parameters["noise"] == "gaussian"
    total = rho_for(epsilon=epsilon, delta=delta) if gaussian else exact(epsilon)
    one_way = [(a,) for a in workload.attributes]
    split = mwem.rho_split(4, result.parameters["rounds"], mwem.init_cap(4, n=n, gaussian=True)) if gaussian else \
        mwem.budget_split(4, result.parameters["rounds"], mwem.init_cap(4, n=n, gaussian=False))
    parts = init_allocation([workload.cells(a) for a in one_way], [3] * 4, n=n, total=split["init_each"] * 4,
                            gaussian=gaussian)
    charges = [c.rho if gaussian else c.epsilon for c in result.accountant.ledger]
    assert charges[:4] == parts and len(set(parts)) > 1  # unequal, exact
    assert result.parameters["init_allocation"] == "l1"
    # the release's parameters say what each INIT measurement spent, not an equal part it never spent
    per_step = result.parameters["rho_per_step" if gaussian else "epsilon_per_step"]
    assert "init_each" not in per_step
    assert [per_step[f"init: {a}"] for a in DOMAIN.attributes] == [float(p) for p in parts]
    if gaussian:
        spent = sum(charges)  # selections cost a hair under their share (zcdp.exponential_epsilon)
        assert spent <= total and (total - spent) / total < Fraction(1, 10**12)
    else:
        assert sum(charges) == total


@pytest.mark.parametrize("gaussian", [True, False])
def test_one_marginal_takes_the_whole_total_and_none_take_nothing(gaussian):
    total = Fraction(3, 7)
    assert init_allocation([85], [2], n=1000, total=total, gaussian=gaussian) == [total]
    assert init_allocation([], [], n=1000, total=total, gaussian=gaussian) == []


def test_an_unknown_allocation_is_refused_by_name():
    with pytest.raises(InputError, match=r"init_allocation must be one of \['equal', 'l1'\], got 'size'"):
        MWEMTuning(init_allocation="size")
