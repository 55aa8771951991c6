"""benchmarks/peer_guarantee.py: the epsilon that gives smartnoise's MST and AIM dprelease's guarantee."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import pytest

from dprelease.privacy.zcdp import rho_for
from tests.benchmark_modules import load_benchmark


@pytest.fixture(scope="module")
def guarantee():
    return load_benchmark("peer_guarantee")


def aim_replace_one_rho(rho: float, columns: int, rounds: int, anneal: set[int]) -> float:
    """AIM's budget loop as smartnoise 1.0.8 runs it (aim.py), each spend charged under replace one.

    A measurement at sigma spends 0.5 / sigma^2 under add/remove and 1 / sigma^2 under replace one (L2 sensitivity
    sqrt 2); a selection at epsilon spends epsilon^2 / 8, and (2 epsilon)^2 / 8 under replace one (sensitivity 2).
    Rounds in ``anneal`` halve sigma and double epsilon, as AIM does when a measurement told it nothing."""
    sigma = math.sqrt(rounds / (2 * 0.9 * rho))
    epsilon = math.sqrt(8 * 0.1 * rho / rounds)
    used = columns * 0.5 / sigma**2
    replace_one = columns * 1 / sigma**2
    t = 0
    while used < rho:
        t += 1
        if rho - used < 2 * (0.5 / sigma**2 + epsilon**2 / 8):  # the last round takes what is left
            remaining = rho - used
            sigma = math.sqrt(1 / (2 * 0.9 * remaining))
            epsilon = math.sqrt(8 * 0.1 * remaining)
            used = rho
        else:
            used += epsilon**2 / 8 + 0.5 / sigma**2
        replace_one += (2 * epsilon) ** 2 / 8 + 1 / sigma**2
        if t in anneal:
            sigma, epsilon = sigma / 2, epsilon * 2
    return replace_one


def test_mst_spends_eight_thirds_under_replace_one(guarantee):
    # a third each on 1-ways (x2), the tree's selections (x4) and its pairs (x2)
    assert guarantee.replace_one_factor("mst", columns=16) == Fraction(8, 3)


@pytest.mark.parametrize("columns, rounds", [(16, None), (9, None), (32, 40), (5, 5)])
def test_aims_factor_is_what_its_budget_loop_spends_under_replace_one(guarantee, columns, rounds):
    factor = guarantee.replace_one_factor("aim", columns=columns, rounds=rounds)
    rounds = 16 * columns if rounds is None else rounds
    rng = random.Random(columns)
    for anneal in (set(), {3}, set(rng.sample(range(1, 40), 6))):
        rho = 0.0137
        assert aim_replace_one_rho(rho, columns, rounds, anneal) / rho == pytest.approx(float(factor), rel=1e-9)
    if rounds == 16 * columns:
        assert factor == Fraction(1751, 800)  # 2 + 0.2 (1 - 0.9 / 16) = 2.18875


@pytest.mark.parametrize("peer", ["mst", "aim"])
@pytest.mark.parametrize("epsilon", [0.1, 1.0, 10.0])
def test_the_matched_epsilon_gives_the_peer_dpreleases_rho(guarantee, peer, epsilon):
    eps_run = guarantee.matched_epsilon(peer, epsilon, 1e-9, columns=16)
    factor = guarantee.replace_one_factor(peer, columns=16)
    assert eps_run < epsilon
    assert float(rho_for(epsilon=eps_run, delta=1e-9) * factor) == pytest.approx(
        float(rho_for(epsilon=epsilon, delta=1e-9)), rel=1e-9)


def test_an_unknown_peer_or_an_impossible_schedule_is_refused_by_name(guarantee):
    with pytest.raises(ValueError, match="'privbayes'"):
        guarantee.replace_one_factor("privbayes", columns=4)
    with pytest.raises(ValueError, match="rounds=2"):
        guarantee.replace_one_factor("aim", columns=4, rounds=2)


def test_a_peer_systems_name_says_its_program_and_epsilon(guarantee):
    """'mst' runs MST at the nominal epsilon; 'mst-matched' runs MST at the matched one (AIM's rounds matter, MST's
    factor ignores them), so the suite and the raw-Adult benchmark read one naming."""
    assert [guarantee.program(p) for p in ("mst", "mst-matched", "aim", "aim-matched")] == ["mst", "mst", "aim", "aim"]
    assert guarantee.run_epsilon("aim", 1.0, 1e-9, columns=15, rounds=56) == 1.0
    assert guarantee.run_epsilon("mst-matched", 1.0, 1e-9, columns=15, rounds=56) == \
        guarantee.matched_epsilon("mst", 1.0, 1e-9, columns=15)
    assert guarantee.run_epsilon("aim-matched", 1.0, 1e-9, columns=15, rounds=56) == \
        guarantee.matched_epsilon("aim", 1.0, 1e-9, columns=15, rounds=56) > \
        guarantee.run_epsilon("aim-matched", 1.0, 1e-9, columns=15)  # fewer rounds: less on selections (4x)
