"""The shape every registered mechanism has: its budget, its result and its user options.

The registry (:mod:`dprelease.mechanisms.registry`) lists the entries; each entry's module imports
its shape from here. See the registry's docstring for the protocol.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from dprelease.domain import Domain
from dprelease.engines.base import PrivateTable
from dprelease.mechanisms.progress import Progress
from dprelease.privacy.rng import RandomSource
from dprelease.queries.workload import Workload
from dprelease.validation import check_delta, check_positive


@dataclass(frozen=True, slots=True)
class Budget:
    """The privacy budget of one run: (epsilon, delta)-DP, delta = 0 for pure DP."""

    epsilon: float
    delta: float = 0.0

    def __post_init__(self) -> None:
        check_positive(self.epsilon, "epsilon")
        check_delta(self.delta)


@dataclass
class Fitted:
    """What a mechanism's ``fit`` returns: everything the release is built from.

    ``model`` answers the workload and ``row_model`` is what synthetic rows are drawn from (the same
    object for most mechanisms; see :func:`dprelease.mechanisms.ic_rules.release_models`). ``rows`` is the
    row method ``rows="auto"`` resolves to for this run, and ``rows_reason`` says why.
    """

    model: object
    row_model: object
    accountant: object
    transcript: list[dict[str, object]]
    parameters: dict[str, object]
    guarantee: str
    extra: dict[str, object] = field(default_factory=dict)
    rows: str = "round"
    rows_reason: str = ("unbiased rounding of the model's counts (each n p down or up, up with probability its "
                        "remainder), the row method measured for this mechanism")
    #: the rows to release when the user names none: None for the table's n (public under the book's unit); an
    #: add/remove run's public noisy count, since its n is private
    n_rows: int | None = None


class Mechanism(Protocol):
    """One registered mechanism, configured with its user options (see the module docstring)."""

    name: ClassVar[str]
    summary: ClassVar[str]
    representations: ClassVar[tuple[str, ...]]
    default_delta: ClassVar[float]

    def check(self, domain: Domain, workload: Workload, *, budget: Budget) -> None: ...

    def fit(self, table: PrivateTable, workload: Workload, *, budget: Budget, rng: RandomSource,
            progress: Progress) -> Fitted: ...


def option(default: object, help: str, *, kind: type | None = None, choices: tuple[str, ...] | None = None):
    """A user option of a mechanism entry: a dataclass field whose metadata feeds ``--help`` and the CLI."""
    return field(default=default, metadata={"help": help, "kind": kind, "choices": choices})


def histogram_check(domain: Domain, max_cells: int) -> None:
    """The shared public check of mechanisms that keep an explicit histogram over X."""
    domain.check_fits(max_cells)
