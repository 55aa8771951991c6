"""The privacy accountant: every charge recorded, budgets compared exactly.

Budgets and charges are :class:`fractions.Fraction` (floats convert exactly), so
``0.1 + 0.9 <= 1.0`` is decided on the true values of the floats given, never on
rounded sums. A charge that would exceed the budget raises
:class:`~dprelease.errors.BudgetExceededError` *before* anything is recorded or
released; a refused charge changes nothing.

Composition across charges is basic (Dwork & Roth Thm 3.16: epsilons and deltas
add). A block of k mechanisms can instead be charged once under advanced
composition (Thm 3.20) through :meth:`PrivacyAccountant.reserve`, which
returns a :class:`Reservation` that refuses any use beyond what was reserved.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from dprelease.errors import BudgetExceededError, InputError
from dprelease.privacy.noise import exact
from dprelease.validation import check_delta, check_open_unit, check_positive, check_positive_int

# Relative safety margin for float evaluation of exp/sqrt in Thm 3.20. A handful of
# float operations err by < 1e-15 relative; rounding up by 1e-12 makes the charged
# value a guaranteed upper bound of the exact one.
_ROUND_UP = 1 + 1e-12


def advanced_composition(*, epsilon: float, delta: float, k: int, delta_slack: float) -> tuple[Fraction, Fraction]:
    """Total (epsilon', k delta + delta') of k-fold adaptive composition (Dwork & Roth Thm 3.20).

    epsilon' = sqrt(2 k ln(1/delta')) epsilon + k epsilon (e^epsilon - 1), rounded up.

    >>> e, d = advanced_composition(epsilon=0.01, delta=0.0, k=100, delta_slack=1e-6)
    >>> round(float(e), 6), float(d)
    (0.535702, 1e-06)
    """
    eps = check_positive(epsilon, "epsilon")
    check_delta(delta, "delta")
    k = check_positive_int(k, "k")
    check_open_unit(delta_slack, "delta_slack")
    total = math.sqrt(2 * k * math.log(1 / delta_slack)) * eps + k * eps * math.expm1(eps)
    return Fraction(total * _ROUND_UP), k * exact(delta) + exact(delta_slack)


def block_charge(*, epsilon_each: Fraction | float, count: int,
                 delta_slack: float | None = None) -> tuple[Fraction, Fraction, str]:
    """What :meth:`PrivacyAccountant.reserve` charges for ``count`` (epsilon_each, 0)-DP steps: (epsilon, delta, rule).

    Without ``delta_slack``: basic composition, count * epsilon_each exactly (Thm 3.16). With it: the
    smaller of basic and advanced composition (Thm 3.20); both bounds hold, so the smaller does.

    >>> block_charge(epsilon_each=0.25, count=4)[:2]
    (Fraction(1, 1), Fraction(0, 1))
    """
    basic = count * exact(epsilon_each)
    basic_rule = f"basic composition of {count} steps at epsilon={float(epsilon_each):.6g} (Thm 3.16)"
    if delta_slack is None:
        return basic, Fraction(0), basic_rule
    eps_adv, delta_adv = advanced_composition(epsilon=float(exact(epsilon_each)), delta=0.0, k=count,
                                              delta_slack=delta_slack)
    if basic <= eps_adv:
        return basic, Fraction(0), basic_rule
    return eps_adv, delta_adv, (f"advanced composition of {count} steps at epsilon={float(epsilon_each):.6g}, "
                                f"delta'={delta_slack:.3g} (Thm 3.20)")


@dataclass(frozen=True, slots=True)
class Charge:
    """One entry of the privacy ledger."""

    label: str
    epsilon: Fraction
    delta: Fraction
    rule: str = "basic composition (Thm 3.16)"

    def to_json(self) -> dict[str, object]:
        return {
            "label": self.label,
            "epsilon": float(self.epsilon),
            "delta": float(self.delta),
            "epsilon_exact": str(self.epsilon),
            "delta_exact": str(self.delta),
            "rule": self.rule,
        }


class PrivacyAccountant:
    """An (epsilon, delta) budget and the ledger of charges against it.

    >>> acc = PrivacyAccountant(epsilon=1.0)
    >>> _ = acc.charge(epsilon=0.5, label="a")
    >>> acc.remaining_epsilon
    Fraction(1, 2)
    """

    def __init__(self, *, epsilon: float | Fraction, delta: float | Fraction = 0) -> None:
        if isinstance(epsilon, Fraction):
            if epsilon <= 0:
                raise InputError(f"epsilon must be a finite number > 0, got {epsilon}")
        else:
            check_positive(epsilon, "epsilon")
        if isinstance(delta, Fraction):
            if not 0 <= delta < 1:
                raise InputError(f"delta must be a number in [0, 1), got {delta}")
        else:
            check_delta(delta, "delta")
        self.epsilon: Fraction = exact(epsilon)
        self.delta: Fraction = exact(delta)
        self.ledger: list[Charge] = []
        self._spent_epsilon = Fraction(0)  # running totals: exact, and O(1) per charge
        self._spent_delta = Fraction(0)

    # ------------------------------------------------------------------ totals
    @property
    def spent_epsilon(self) -> Fraction:
        return self._spent_epsilon

    @property
    def spent_delta(self) -> Fraction:
        return self._spent_delta

    @property
    def remaining_epsilon(self) -> Fraction:
        return self.epsilon - self.spent_epsilon

    @property
    def remaining_delta(self) -> Fraction:
        return self.delta - self.spent_delta

    # ----------------------------------------------------------------- charges
    def can_afford(self, *, epsilon: Fraction | float, delta: Fraction | float = 0) -> bool:
        return (
            self.spent_epsilon + exact(epsilon) <= self.epsilon
            and self.spent_delta + exact(delta) <= self.delta
        )

    def charge(self, *, epsilon: Fraction | float, delta: Fraction | float = 0, label: str,
               rule: str = "basic composition (Thm 3.16)") -> Charge:
        """Record a charge, or raise :class:`BudgetExceededError` and record nothing."""
        eps, dlt = exact(epsilon), exact(delta)
        if eps < 0 or dlt < 0:
            raise ValueError(f"charges must be non-negative, got epsilon={epsilon!r}, delta={delta!r}")
        if not self.can_afford(epsilon=eps, delta=dlt):
            raise BudgetExceededError(
                f"charge {label!r} of (epsilon={float(eps):.6g}, delta={float(dlt):.3g}) exceeds the remaining "
                f"budget (epsilon={float(self.remaining_epsilon):.6g}, delta={float(self.remaining_delta):.3g}); "
                "nothing was charged or released"
            )
        entry = Charge(label, eps, dlt, rule)
        self.ledger.append(entry)
        self._spent_epsilon += eps
        self._spent_delta += dlt
        return entry

    def reserve(self, *, epsilon_each: Fraction | float, count: int, label: str,
                delta_slack: float | None = None) -> Reservation:
        """Charge ``count`` (epsilon_each, 0)-DP steps at once, before any of them runs.

        Without ``delta_slack``: basic composition, count * epsilon_each exactly (Thm 3.16).
        With it: min(basic, advanced composition (Thm 3.20)); both bounds hold, so the smaller does.
        Charging the whole block up front is what makes a data-dependent early stop safe:
        the guarantee is that of the full plan, whenever the mechanism stops.
        """
        eps, dlt, rule = block_charge(epsilon_each=epsilon_each, count=count, delta_slack=delta_slack)
        entry = self.charge(epsilon=eps, delta=dlt, label=label, rule=rule)
        return Reservation(exact(epsilon_each), count, entry)

    def to_json(self) -> dict[str, object]:
        return {
            "budget": {"epsilon": float(self.epsilon), "delta": float(self.delta)},
            "spent": {"epsilon": float(self.spent_epsilon), "delta": float(self.spent_delta),
                      "epsilon_exact": str(self.spent_epsilon), "delta_exact": str(self.spent_delta)},
            "charges": [c.to_json() for c in self.ledger],
        }


class StagedAccountant(PrivacyAccountant):
    """An (epsilon, delta) ledger where a charge may pay for a whole later stage that keeps its own ledger.

    A run that first spends part of its budget on a private test and then, by the test's noisy outcome, runs one of
    two sub-runs charges the chosen sub-run's whole (epsilon, delta) here before it starts (:meth:`charge_stage`),
    as an (epsilon, delta)-DP mechanism chosen adaptively, so the charges add by basic composition (Thm 3.16,
    which holds for adaptively chosen mechanisms). The sub-run spends within its own ledger (zCDP or (epsilon,
    delta)), which :meth:`to_json` shows under ``stages``. A zCDP sub-run of budget rho = rho(epsilon_s, delta) is
    (epsilon_s, delta)-DP by its conversion (CKS 2020), the amount charged here.
    """

    def __init__(self, *, epsilon: float | Fraction, delta: float | Fraction = 0) -> None:
        super().__init__(epsilon=epsilon, delta=delta)
        self.stages: dict[str, object] = {}

    def charge_stage(self, *, epsilon: Fraction | float, delta: Fraction | float, label: str, rule: str) -> Charge:
        """Charge a sub-run's whole budget before it starts, or raise and record nothing."""
        if label in self.stages:
            raise ValueError(f"stage {label!r} is already charged")
        entry = self.charge(epsilon=epsilon, delta=delta, label=label, rule=rule)
        self.stages[label] = None
        return entry

    def attach_stage(self, label: str, ledger: object) -> None:
        """The charged stage's own ledger (its accountant, with a ``to_json``), once it has run."""
        if self.stages.get(label, ...) is not None:
            raise ValueError(f"stage {label!r} was not charged, or has its ledger already")
        self.stages[label] = ledger

    def to_json(self) -> dict[str, object]:
        return {**super().to_json(), "stages": {label: None if ledger is None else ledger.to_json()
                                                for label, ledger in self.stages.items()}}


@dataclass
class Reservation:
    """``count`` pre-paid steps of at most ``epsilon_each`` each; refuses anything beyond."""

    epsilon_each: Fraction
    count: int
    charge: Charge
    used: int = 0

    def use(self, *, epsilon: Fraction | float, label: str, steps: int = 1) -> None:
        """Use ``steps`` reserved steps of at most ``epsilon`` each, or raise and use none."""
        if exact(epsilon) > self.epsilon_each:
            raise BudgetExceededError(
                f"step {label!r} asks for epsilon={float(exact(epsilon)):.6g}, above the reserved "
                f"{float(self.epsilon_each):.6g} per step"
            )
        if isinstance(steps, bool) or not isinstance(steps, int) or steps < 1:
            raise ValueError(f"steps must be an integer >= 1, got {steps!r}")
        if self.used + steps > self.count:
            raise BudgetExceededError(f"step {label!r} exceeds the {self.count} reserved steps "
                                      f"({self.used} used, {steps} asked)")
        self.used += steps
