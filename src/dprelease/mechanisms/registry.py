"""The one registry of mechanisms: every mechanism is one entry with one shape.

An entry (its shape: :class:`~dprelease.mechanisms.base.Mechanism`) is a frozen dataclass whose fields
are the options a *user* sets (each documented in its field's ``help`` metadata, which
``dprelease synth --help`` prints), with three methods:

* ``check(domain, workload, *, budget)``: the public checks that need no row count (a histogram
  over the cap, a model the workload cannot fit, an option the theorem cannot honour). The CLI runs
  it before it reads the data; :func:`~dprelease.api.synthesize` runs it too.
* ``fit(table, workload, *, budget, rng, progress) -> Fitted``: resolves the mechanism's public
  defaults (from n, the domain, the workload and the budget, before any private read), runs, and
  returns the model, the privacy ledger, the transcript and the guarantee sentence it writes for
  itself. ``table`` is any :class:`~dprelease.engines.base.PrivateTable`.
* ``name``, ``summary`` (one line for ``--help``), ``representations`` (the models it can keep:
  ``("histogram",)`` or ``("histogram", "factored")``) and ``default_delta`` (the delta a run gets when
  the user gives none: 0, pure DP, except where the suite measured a tiny delta to pay) are class
  attributes.

Constants chosen by ablation are not options: each mechanism names them, with the figure that chose
them, in its own module (e.g. :mod:`dprelease.mechanisms.mwem_tuning`).

Adding a mechanism is one file (its entry) and one line in :data:`ENTRIES` below; the CLI, the
Python API, the benchmarks and the service all look mechanisms up here (docs/architecture.md).
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass

from dprelease.errors import InputError, InputTypeError, warn_user
from dprelease.mechanisms.base import Budget, Fitted, Mechanism

#: Every mechanism, as ``module:entry class``, in the order ``--help`` lists them. One line per mechanism.
ENTRIES = (
    "dprelease.mechanisms.mwem:MWEMMechanism",
    "dprelease.mechanisms.ic_rules:ICMWMechanism",
    "dprelease.mechanisms.ic_rules:ICMedianMechanism",
    "dprelease.mechanisms.ic_rules:ICPerceptronMechanism",
    "dprelease.mechanisms.smalldb:SmallDBMechanism",
    "dprelease.boosting.mechanism:BoostingMechanism",
    "dprelease.mechanisms.online_release:OnlineMWMechanism",
    "dprelease.mechanisms.independent:IndependentMechanism",
)


def _load(path: str) -> type:
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


#: The entries by name, loaded when this module is (a broken entry fails at import, not mid-run).
REGISTRY: dict[str, type] = {entry.name: entry for entry in map(_load, ENTRIES)}

#: Options whose value makes no sense for a mechanism that does not take them: an error, not a warning.
STRICT_OPTIONS = ("base", "privacy_unit", "rows_per_person")


def names() -> tuple[str, ...]:
    return tuple(REGISTRY)


def lookup(name: object) -> type:
    """The entry class registered under ``name``; a one-line error naming the choices otherwise."""
    if not isinstance(name, str):
        raise InputTypeError(f"mechanism must be a string, got {type(name).__name__}")
    if name not in REGISTRY:
        close = name.strip().lower().replace("_", "-")  # MWEM, ic_mw: the name a user of another library types
        hint = f" (did you mean {close!r}?)" if close in REGISTRY else ""
        raise InputError(f"mechanism must be one of {list(REGISTRY)}, got {name!r}{hint}")
    return REGISTRY[name]


def default_delta(name: object) -> float:
    """The delta a run of mechanism ``name`` gets when the user gives none (the entry's ``default_delta``)."""
    return float(lookup(name).default_delta)


def user_options(entry: type) -> dict[str, dataclasses.Field]:
    """The entry's user options: its dataclass fields, by name."""
    return {f.name: f for f in dataclasses.fields(entry)}


def supporting(representation: str) -> list[str]:
    return [name for name, entry in REGISTRY.items() if representation in entry.representations]


def create(name: str, **given: object) -> Mechanism:
    """The mechanism ``name`` configured with the options given (``None`` means "not given").

    An option the mechanism does not take is refused when it cannot be meant for it (``base``), or
    when it asks for a model the mechanism cannot keep; otherwise it is ignored with a warning.
    """
    entry = lookup(name)
    accepted = user_options(entry)
    representation = given.get("representation")
    if representation not in (None, "auto") and representation not in entry.representations:
        others = " or ".join(repr(n) for n in supporting(representation)) or "no mechanism"
        raise InputError(f"representation={representation!r} runs with mechanism={others} only, got {name!r}: "
                         f"{name} works on the explicit histogram")
    chosen = {}
    for key, value in given.items():
        if value is None or key in accepted:
            if value is not None:
                chosen[key] = value
            continue
        if key in STRICT_OPTIONS:
            takers = " or ".join(repr(n) for n, e in REGISTRY.items() if key in user_options(e))
            raise InputError(f"{key}={value!r} is for mechanism={takers} only, got mechanism={name!r}")
        if key == "representation":  # "auto" or a representation the mechanism keeps: nothing to say
            continue
        warn_user(f"{key} is not used by mechanism {name!r}", UserWarning)
    return entry(**chosen)


@dataclass(frozen=True)
class CommandLineOption:
    """One ``synth`` flag built from the entries that take the option, with each one's help."""

    name: str
    kind: type
    choices: tuple[str, ...] | None
    help: str

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")


def command_line_options(skip: tuple[str, ...] = ("max_cells",)) -> list[CommandLineOption]:
    """The union of every entry's user options, each flag's help listing what it means per mechanism."""
    seen: dict[str, list[tuple[str, dataclasses.Field]]] = {}
    for name, entry in REGISTRY.items():
        for key, f in user_options(entry).items():
            if key not in skip:
                seen.setdefault(key, []).append((name, f))
    options = []
    for key, uses in seen.items():
        first = uses[0][1]
        kind = first.metadata.get("kind") or str
        choices = first.metadata.get("choices")
        groups: dict[str, list[str]] = {}
        for mechanism, f in uses:
            groups.setdefault(f.metadata.get("help", ""), []).append(mechanism)
        text = "; ".join(f"{', '.join(ms)}: {h}" for h, ms in groups.items())
        options.append(CommandLineOption(key, kind, choices, text))
    return options


def describe() -> list[tuple[str, str]]:
    """(name, summary) of every mechanism, for ``--help`` and the README's table."""
    return [(name, entry.summary) for name, entry in REGISTRY.items()]


__all__ = ["Budget", "Fitted", "Mechanism", "REGISTRY", "command_line_options", "create", "describe", "lookup",
           "names"]
