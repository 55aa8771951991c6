"""The peers at dprelease's guarantee: the epsilon to run smartnoise's MST and AIM at so that, under dprelease's
privacy unit, they promise what dprelease promises at the nominal (epsilon, delta).

Why: the two units differ. dprelease's neighbours have the same public n and differ in one record (replace one);
smartnoise-synth 1.0.8 (over mbi 1.1.0) calibrates to neighbours that differ by one added or removed record:

- a marginal's count vector has L2 sensitivity 1 there (``snsynth/mst/mst.py``: ``sigma = sqrt(3 / (2 rho))`` over
  weights of unit norm; ``snsynth/aim/aim.py``: ``rho_used += 0.5 / sigma**2``), and sqrt 2 under replace one, so
  each Gaussian measurement spends 2x its rho under dprelease's unit (zCDP: Delta^2 / (2 sigma^2), BS Prop. 1.6);
- a selection's score (an L1 distance between counts) has sensitivity 1 there (MST's ``exponential_mechanism(...,
  sensitivity=1.0)``; AIM's ``max_sensitivity`` = the largest workload weight, 1 here) and 2 under replace one, so
  each exponential mechanism is 2 eps-DP and spends 4x its eps^2 / 8 in zCDP (Cesar & Rogers 2021).

So a peer run at rho_run has replace-one zCDP rho = factor x rho_run, with the factor from its budget schedule:

- MST: a third on 1-way measurements (2x), a third on the tree's selections (4x), a third on the pairs (2x):
  factor = (2 + 4 + 2) / 3 = 8 / 3.
- AIM (rounds R, d 1-way marginals measured first at 0.9 rho / R each, then every round 0.9 on its measurement
  and 0.1 on its selection, the last round's remainder split the same way): the selections spend
  S = 0.1 (1 - 0.9 d / R) rho_run, the measurements the rest, so factor = 2 + 2 S / rho_run
  = 2 + 0.2 (1 - 0.9 d / R); with smartnoise's default R = 16 d, 2.18875.

Running the peer at rho_run = rho / factor, where rho is what dprelease spends at (epsilon, delta), gives it the same
replace-one rho-zCDP, hence the same (epsilon, delta): a like-for-like comparison. The conversion is the same in both
(OpenDP's binary search in smartnoise's ``cdp_rho``, dprelease's exact ``rho_for``; equal to 1e-10 at the suite's
eps). The nominal run (the peer at epsilon under its own unit) stays on the page beside it: it is what a user of
the peer gets when typing the same number, and it gives the peer the weaker guarantee.
"""

from __future__ import annotations

from fractions import Fraction

#: AIM's selection share of each round's budget, and the share of a round's budget its 1-way measurements take
#: (smartnoise 1.0.8 ``aim.py``: ``epsilon = sqrt(8 * 0.1 * rho / rounds)``, ``sigma = sqrt(rounds / (2 * 0.9 * rho))``).
AIM_SELECTION_SHARE = Fraction(1, 10)
AIM_MEASUREMENT_SHARE = Fraction(9, 10)
MEASUREMENT_FACTOR = 2   # Delta_2^2: 2 under replace one, 1 under add/remove
SELECTION_FACTOR = 4     # (2 Delta)^2 / Delta^2 for the exponential mechanism's eps^2 / 8
#: A peer system's suffix for the peer run at dprelease's guarantee: 'mst-matched' is MST at matched_epsilon.
MATCHED = "-matched"


def program(peer: str) -> str:
    """The smartnoise synthesizer behind a peer system: 'mst' for 'mst' and 'mst-matched'."""
    return peer.removesuffix(MATCHED)


def is_matched(peer: str) -> bool:
    return peer.endswith(MATCHED)


def replace_one_factor(peer: str, *, columns: int, rounds: int | None = None) -> Fraction:
    """rho under dprelease's unit per unit of the rho the peer is run at (see the module docstring)."""
    if peer == "mst":
        return Fraction(MEASUREMENT_FACTOR + SELECTION_FACTOR + MEASUREMENT_FACTOR, 3)
    if peer == "aim":
        rounds = 16 * columns if rounds is None else rounds
        if rounds < 1 or columns < 1:
            raise ValueError(f"AIM needs rounds >= 1 and columns >= 1, got rounds={rounds!r}, columns={columns!r}")
        one_ways = AIM_MEASUREMENT_SHARE * columns / rounds  # the 1-way measurements' part of rho_run
        if one_ways > 1:
            raise ValueError(f"AIM's 1-way marginals would spend more than its budget with rounds={rounds!r}")
        selections = AIM_SELECTION_SHARE * (1 - one_ways)
        return MEASUREMENT_FACTOR * (1 - selections) + SELECTION_FACTOR * selections
    raise ValueError(f"no budget schedule known for peer {peer!r}; choose 'mst' or 'aim'")


def matched_epsilon(peer: str, epsilon: float, delta: float, *, columns: int, rounds: int | None = None) -> float:
    """The epsilon to hand the peer so that it is (epsilon, delta)-DP under dprelease's unit (replace one record).

    The peer turns the epsilon it is given into rho_run = cdp_rho(epsilon_run, delta); this returns the epsilon_run
    whose rho_run is dprelease's rho_for(epsilon, delta) / factor (the two conversions agree to 1e-10 in rho)."""
    from dprelease.privacy.zcdp import epsilon_for, rho_for

    rho = rho_for(epsilon=epsilon, delta=delta) / replace_one_factor(peer, columns=columns, rounds=rounds)
    return epsilon_for(rho=rho, delta=delta)


def run_epsilon(peer: str, epsilon: float, delta: float, *, columns: int, rounds: int | None = None) -> float:
    """The epsilon a peer system is run at: ``epsilon`` itself for a nominal peer ('mst'), :func:`matched_epsilon`
    for a matched one ('mst-matched'). ``rounds`` is AIM's (MST's factor has none)."""
    if not is_matched(peer):
        return epsilon
    return matched_epsilon(program(peer), epsilon, delta, columns=columns, rounds=rounds)
