"""MWEM's per-round budgets: T equal rounds, or annealed as AIM does (McKenna et al. 2022, Alg. 1).

The rounds share a fixed total (epsilon under pure DP, rho under zCDP), exact Fractions:

* **equal** (the default, HLM 2012): T rounds of total / T each.
* **annealed**: the rounds start at total / T each; whenever a round's noisy measurement differs from the
  model's answer on the measured marginal by less than the noise's expected L1 size (the model
  already knew what the measurement said), the next rounds' budget doubles: under pure DP the Laplace
  scale halves, under zCDP the Gaussian sigma falls by sqrt 2 (AIM halves sigma, x4 in rho; the gentler step
  is measured in docs/decisions.md: the test is a coin flip where the model is right, and x4 steps made a
  run's budget hinge on when the first flips came). When less than two rounds' worth is left, the last round
  takes all of it. So there are at most T + 1 rounds, and the schedule hands out the total exactly
(under zCDP a selection then spends the largest float eps with eps^2 / 8 within its share, a hair less).

Privacy of annealing: the per-round budget is chosen from public outputs (the model, the noise
scale), so the budgets are adaptively chosen, and their sum never exceeds the total. That is a
privacy filter: adaptively chosen rho_t-zCDP steps with sum rho_t <= rho are rho-zCDP (Feldman &
Zrnic 2021, "Individual Privacy Accounting via a Renyi Filter", for Renyi DP of every order,
hence zCDP; Whitehouse, Ramdas, Rogers & Wu 2023, "Fully-Adaptive Composition in Differential
Privacy"), and adaptively chosen eps_t-DP steps with sum eps_t <= eps are eps-DP (the basic
composition filter, Rogers, Roth, Ullman & Vadhan 2016, Thm 3.4). AIM's privacy proof rests on
the same results. The accountant still records every step's exact charge, so the ledger shows
the schedule that ran.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

#: Factor on the rounds' budget when a round anneals, in either currency: b ~ 1/eps halves; sigma ~ 1/sqrt(rho)
#: falls by sqrt 2.
SHARPEN = Fraction(2)
CURRENCIES = ("rho", "epsilon")


@dataclass
class RoundBudget:
    """The rounds' budget schedule; ``next_round()`` returns (selection, measurement) shares, exactly.

    >>> b = RoundBudget(total=Fraction(1), rounds=4, selection_share=Fraction(1, 4), currency="epsilon",
    ...                 annealing=True)
    >>> b.next_round()  # 1/4 of the total, a quarter of it to selection
    (Fraction(1, 16), Fraction(3, 16))
    >>> b.rounds_ahead  # 3/4 left at 1/4 a round
    3
    >>> b.sharpen()  # budget doubled: 1/2 a round now; 3/4 left is < 2 rounds, so the last takes it all
    >>> b.rounds_ahead
    1
    >>> b.next_round()
    (Fraction(3, 16), Fraction(9, 16))
    >>> b.next_round() is None, b.spent == 1, b.rounds_ahead
    (True, True, 0)
    """

    total: Fraction
    rounds: int
    selection_share: Fraction
    currency: str
    annealing: bool = False
    spent: Fraction = field(default=Fraction(0), init=False)
    per_round: Fraction = field(init=False)
    rounds_run: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.currency not in CURRENCIES:
            raise ValueError(f"currency must be one of {list(CURRENCIES)}, got {self.currency!r}")
        self.per_round = self.total / self.rounds

    @property
    def remaining(self) -> Fraction:
        return self.total - self.spent

    @property
    def rounds_ahead(self) -> int:
        """The rounds still to run if no round sharpens the budget again: what a progress line counts to. With
        annealing the planned T is only where the schedule starts (a run that anneals ends far sooner), so a
        count to T would promise hours where minutes are left. Post-processing of the rounds' public outputs."""
        if not self.annealing:
            return max(self.rounds - self.rounds_run, 0)
        if self.remaining <= 0:
            return 0
        return max(1, math.floor(self.remaining / self.per_round))

    def next_round(self) -> tuple[Fraction, Fraction] | None:
        """The next round's (selection, measurement) budget, or None when the rounds are over."""
        if self.remaining <= 0 or (not self.annealing and self.rounds_run >= self.rounds):
            return None
        budget = self.per_round
        if self.annealing and self.remaining < 2 * budget:
            budget = self.remaining  # the last round takes what is left
        self.spent += budget
        self.rounds_run += 1
        select = budget * self.selection_share
        return select, budget - select

    def sharpen(self) -> None:
        """Double the coming rounds' budget (annealing only)."""
        if self.annealing:
            self.per_round *= SHARPEN


# ------------------------------------------------------------------------------------ noise per cell
#: E|Z| / sigma for Z ~ N(0, sigma^2).
GAUSSIAN_MEAN_ABS = math.sqrt(2 / math.pi)


def unit_cell_noise(*, gaussian: bool) -> float:
    """n times one marginal cell's expected absolute noise at unit budget (rho = 1, or eps = 1): E|Z| scales as
    1 / (n sqrt rho) or 1 / (n eps) times this. Laplace: b = 2 / (n eps) (L1 sensitivity 2/n), E|Z| = b. Gaussian:
    sigma = 1 / (n sqrt rho) (L2 sensitivity sqrt(2)/n), E|Z| = sqrt(2/pi) sigma."""
    return GAUSSIAN_MEAN_ABS if gaussian else 2.0


def budget_for_cell_noise(cell_noise: float, *, n: int, gaussian: bool) -> float:
    """The budget (rho, or epsilon) at which one marginal cell's expected absolute noise is ``cell_noise``
    (:func:`unit_cell_noise`). Public quantities only."""
    if gaussian:
        return (unit_cell_noise(gaussian=True) / (n * cell_noise)) ** 2
    return unit_cell_noise(gaussian=False) / (n * cell_noise)


def cell_noise(budget: float, *, n: int, gaussian: bool) -> float:
    """One marginal cell's expected absolute noise when measured with ``budget`` (rho, or epsilon): the inverse of
    :func:`budget_for_cell_noise`. Public quantities only."""
    return unit_cell_noise(gaussian=gaussian) / (n * (math.sqrt(budget) if gaussian else budget))


def summed_cell_noise(per_cell: float, *, cells: int, gaussian: bool) -> float:
    """The expected absolute noise of a sum of ``cells`` independent noisy cells, each of expected absolute noise
    ``per_cell`` (public): sqrt(cells) x per_cell for Gaussian noise, exactly; for Laplace noise (E|Z| = b, standard
    deviation sqrt(2) b) b for one cell and past it the normal approximation sqrt(4 cells / pi) b (two cells: 1.60 b
    against the exact 1.5 b)."""
    if gaussian or cells == 1:
        return math.sqrt(cells) * per_cell
    return math.sqrt(4 * cells / math.pi) * per_cell


def rounds_for_noise(*, cells: float, n: int, measure: float, gaussian: bool, tau: float) -> int:
    """The most rounds T at which measuring a marginal of ``cells`` cells with ``measure`` / T adds expected L1
    noise <= ``tau`` (public): cells x E|Z| <= tau, E|Z| as in :func:`budget_for_cell_noise`."""
    return math.floor(measure / budget_for_cell_noise(tau / cells, n=n, gaussian=gaussian))


# ------------------------------------------------------------------------------------ INIT's allocation
#: The least share of its equal part a 1-way marginal keeps under :func:`init_allocation`. A column whose cells look
#: unmeasurable to the error model may still have one large cell that any measurement finds (Adult's capital-gain,
#: 100 values, most rows in one): 1,000-row Adult at eps 0.1 lost 8 % with a quarter kept, 2 % with half.
INIT_FLOOR = 0.5
#: Where the error model of :func:`init_allocation` saturates, in L1 units: a 1-way estimate's error stops following
#: its noise once that noise is this many times the distance from a uniform guess (about 1). 1 starved the wide
#: columns that later rounds never re-measure (the 1,300-row table at eps 1: 0.678 against 0.668 with 3, 5 seeds);
#: 10 spent on columns no share could resolve (the 1,000-row Bayesian network at eps 0.1: 0.998 against 0.944).
INIT_SATURATION = 3.0


def init_allocation(cells: list[int], uses: list[int], *, n: int, total: Fraction, gaussian: bool) -> list[Fraction]:
    """INIT's budget over the 1-way marginals: the split that minimizes their expected workload L1 error.

    A 1-way marginal of k cells measured with rho (Gaussian, sigma = 1/(n sqrt rho) per cell) or epsilon (Laplace,
    b = 2/(n eps)) has expected L1 noise L = sqrt(2/pi) k / (n sqrt rho), or 2k / (n eps). Its estimate's error grows
    like L while L is small, and stops growing once no cell can be told from the noise: we take L / (1 + L / S), S =
    :data:`INIT_SATURATION` (public; the data's own distance from uniform is not). Each attribute weighs as many
    times as the workload has marginals holding it (``uses``: an error in its 1-way marginal enters each), and the
    split minimizes sum uses * L / (1 + L / S) at the given total (Lagrange: a convex objective, one multiplier found
    by bisection). Where no marginal saturates this is rho ∝ (uses k)^(2/3), eps ∝ (uses k)^(1/2): a column of many
    small cells needs more budget for the same L1 error than a binary one, and an equal split gives it the same.
    Where a column's cells cannot be resolved at any share the budget affords, it gets less, down to
    :data:`INIT_FLOOR` of its equal share. Public inputs only: the domain's sizes, the workload, n and the budget.
    The parts sum to ``total`` exactly.
    """
    m = len(cells)
    if m == 0:
        return []
    budget = float(total)
    # u: the noise's reciprocal scale, u = sqrt(rho) or eps, the budget spending u^2 or u; L / S = c / u with c below.
    # Plain Python floats and math.fsum: numpy's SIMD sums and cube roots differ in the last bit between CPUs, and a
    # seeded release should charge the same split everywhere.
    c = [unit_cell_noise(gaussian=gaussian) * k / n / INIT_SATURATION for k in cells]
    weights = [float(w) for w in uses]
    floor = math.sqrt(INIT_FLOOR * budget / m) if gaussian else INIT_FLOOR * budget / m

    def spend(u: float) -> float:
        return u * u if gaussian else u

    def best_u(lam: float) -> list[float]:
        """Each marginal's u where its gain w c / (u + c)^2 equals lam times the budget's slope (at least the floor)."""
        out = []
        for w, ci in zip(weights, c):
            if not gaussian:  # w c / (u + c)^2 = lam
                u = math.sqrt(w * ci / lam) - ci
            else:  # w c / (u + c)^2 = 2 lam u: u (u + c)^2 = w c / (2 lam), one positive root (Newton from above)
                target = w * ci / (2 * lam)
                u = math.cbrt(target)  # >= the root (u (u + c)^2 >= u^3); the cubic is convex there: Newton descends
                for _ in range(100):
                    step = (u * (u + ci) ** 2 - target) / ((u + ci) * (3 * u + ci))
                    u -= step
                    if step <= 1e-15 * u:
                        break
            out.append(max(u, floor))
        return out

    lo, hi = 1e-300, 1e300  # lam: a larger lam buys less; bisection on log lam until the parts spend the budget
    for _ in range(110):
        lam = math.sqrt(lo * hi)
        if math.fsum(spend(u) for u in best_u(lam)) > budget:
            lo = lam
        else:
            hi = lam
    parts = [Fraction(spend(u)) for u in best_u(hi)]
    norm = sum(parts)
    return [total * p / norm for p in parts]
