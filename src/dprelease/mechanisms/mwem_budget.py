"""MWEM's per-round budgets: T equal rounds, or annealed as AIM does (McKenna et al. 2022, Alg. 1).

The rounds share a fixed total (epsilon under pure DP, rho under zCDP), exact Fractions:

* **equal** (the default, HLM 2012): T rounds of total / T each.
* **annealed**: the rounds start at total / T each; whenever a round's noisy measurement differs from the
  model's answer on the measured marginal by less than the noise's expected L1 size (the model
  already knew what the measurement said), the next rounds get more budget: the noise scale
  halves (x4 in rho, x2 in epsilon). When less than two rounds' worth is left, the last round
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

from dataclasses import dataclass, field
from fractions import Fraction

#: Factor on a round's budget when the noise scale halves: sigma ~ 1/sqrt(rho), b ~ 1/eps.
SHARPEN = {"rho": Fraction(4), "epsilon": Fraction(2)}


@dataclass
class RoundBudget:
    """The rounds' budget schedule; ``next_round()`` returns (selection, measurement) shares, exactly.

    >>> b = RoundBudget(total=Fraction(1), rounds=4, selection_share=Fraction(1, 4), currency="epsilon",
    ...                 annealing=True)
    >>> b.next_round()  # 1/4 of the total, a quarter of it to selection
    (Fraction(1, 16), Fraction(3, 16))
    >>> b.sharpen()  # noise scale halved: 1/2 a round now; 3/4 left is < 2 rounds, so the last takes it all
    >>> b.next_round()
    (Fraction(3, 16), Fraction(9, 16))
    >>> b.next_round() is None, b.spent == 1
    (True, True)
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
        if self.currency not in SHARPEN:
            raise ValueError(f"currency must be one of {list(SHARPEN)}, got {self.currency!r}")
        self.per_round = self.total / self.rounds

    @property
    def remaining(self) -> Fraction:
        return self.total - self.spent

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
        """Halve the noise scale of the coming rounds (annealing only)."""
        if self.annealing:
            self.per_round *= SHARPEN[self.currency]
