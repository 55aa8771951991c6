"""The public data universe X: ordered attributes, each with a finite number of values.

A record is a tuple of integer codes, attribute ``a`` taking values ``0 .. size(a)-1``.
The domain is public information: every check that depends on it may run before
any private data is touched.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from dprelease.errors import DomainTooLargeError, InputError, InputTypeError

#: Default cap on the number of cells of an explicit histogram over X. A float64
#: histogram of 5e7 cells takes 400 MB, and MW keeps a few such arrays alive.
DEFAULT_MAX_CELLS = 50_000_000


@dataclass(frozen=True, slots=True)
class Domain:
    """Ordered attributes and their sizes.

    >>> d = Domain(("sex", "race"), (2, 5))
    >>> d.size, d.shape, d.project(["race"]).attributes
    (10, (2, 5), ('race',))
    """

    attributes: tuple[str, ...]
    sizes: tuple[int, ...]
    # Each attribute's position: a wide table's model work asks millions of times (tuple.index was O(d) each).
    _position: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        attributes, sizes = tuple(self.attributes), tuple(self.sizes)
        object.__setattr__(self, "attributes", attributes)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "_position", {name: i for i, name in enumerate(attributes)})
        if len(attributes) == 0:
            raise InputError("domain must have at least one attribute, got none")
        if len(attributes) != len(sizes):
            raise InputError(f"domain has {len(attributes)} attributes but {len(sizes)} sizes")
        seen: set[str] = set()
        for name, size in zip(attributes, sizes):
            if not isinstance(name, str) or not name:
                raise InputTypeError(f"domain attribute names must be non-empty strings, got {name!r}")
            if name in seen:
                raise InputError(f"domain attribute {name!r} appears more than once")
            seen.add(name)
            if isinstance(size, bool) or not isinstance(size, int) or size < 1:
                raise InputError(f"domain size of attribute {name!r} must be an integer >= 1, got {size!r}")

    # ----------------------------------------------------------------- building
    @classmethod
    def from_dict(cls, sizes: Mapping[str, int]) -> Domain:
        """Build from ``{attribute: number_of_values}`` in the mapping's order."""
        if not isinstance(sizes, Mapping):
            raise InputTypeError(f"domain must be a mapping attribute -> size, got {type(sizes).__name__}")
        return cls(tuple(sizes), tuple(sizes.values()))

    @classmethod
    def from_json(cls, path: str | Path) -> Domain:
        """Read a JSON file ``{"attribute": size, ...}``; duplicate keys are refused."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise InputError(f"domain file {str(path)!r} cannot be read: {exc.strerror or exc}") from None

        def no_duplicates(pairs: list[tuple[str, object]]) -> dict[str, object]:
            keys = [k for k, _ in pairs]
            for k in keys:
                if keys.count(k) > 1:
                    raise InputError(f"domain file {str(path)!r}: attribute {k!r} appears more than once")
            return dict(pairs)

        try:
            raw = json.loads(text, object_pairs_hook=no_duplicates)
        except json.JSONDecodeError as exc:
            raise InputError(f"domain file {str(path)!r} is not valid JSON: {exc.msg} at line {exc.lineno}") from None
        if not isinstance(raw, dict):
            raise InputError(f"domain file {str(path)!r} must hold a JSON object {{attribute: size}}, got {type(raw).__name__}")
        for name, size in raw.items():
            if isinstance(size, bool) or not isinstance(size, int):
                raise InputError(f"domain file {str(path)!r}: size of attribute {name!r} must be an integer >= 1, got {size!r}")
        return cls(tuple(raw), tuple(raw.values()))

    def to_dict(self) -> dict[str, int]:
        return dict(zip(self.attributes, self.sizes))

    # ---------------------------------------------------------------- arithmetic
    @property
    def size(self) -> int:
        """|X|, the number of cells, as an exact Python int (may exceed 2**63)."""
        return math.prod(self.sizes)

    @property
    def shape(self) -> tuple[int, ...]:
        return self.sizes

    def __len__(self) -> int:
        return len(self.attributes)

    def __contains__(self, attribute: object) -> bool:
        return attribute in self.attributes

    def size_of(self, attribute: str) -> int:
        return self.sizes[self.axis(attribute)]

    def axis(self, attribute: str) -> int:
        """Position of ``attribute``; a clear error names an unknown one."""
        try:
            return self._position[attribute]
        except (KeyError, TypeError):  # TypeError: an unhashable name, which is no attribute either
            raise InputError(
                f"unknown attribute {attribute!r}; the domain has {list(self.attributes)}"
            ) from None

    def axes(self, attributes: Iterable[str]) -> tuple[int, ...]:
        return tuple(self.axis(a) for a in attributes)

    def project(self, attributes: Iterable[str]) -> Domain:
        """The sub-domain on ``attributes``, in the order given."""
        attributes = tuple(attributes)
        return Domain(attributes, tuple(self.size_of(a) for a in attributes))

    def select(self, columns: Iterable[str] | None, *, name: str = "columns") -> Domain:
        """The sub-domain on the user's ``columns`` (all where None), checked: each known and named once (public;
        ``name`` names the parameter in the error: ``--columns`` on the command line)."""
        if columns is None:
            return self
        columns = list(columns)
        unknown = [c for c in columns if c not in self]
        if unknown:
            raise InputError(f"{name} {unknown} are not in the domain {list(self.attributes)}")
        if len(set(columns)) != len(columns):
            raise InputError(f"{name} names a column twice: {columns}")
        return self.project(columns)

    def canonical(self, attributes: Iterable[str]) -> tuple[str, ...]:
        """``attributes`` sorted into domain order, checked and de-duplicated."""
        attributes = tuple(attributes)
        if len(set(attributes)) != len(attributes):
            raise InputError(f"attribute list {list(attributes)} names an attribute twice")
        return tuple(sorted(attributes, key=self.axis))

    def check_fits(self, max_cells: int, *, what: str = "an explicit histogram") -> None:
        """Raise :class:`DomainTooLargeError` when |X| exceeds ``max_cells`` (public check)."""
        if self.size > max_cells:
            raise DomainTooLargeError(
                f"{what} over this domain needs {self.size:.3g} cells, above the cap of "
                f"max_cells={max_cells:,} (about {8 * max_cells / 2**30:.1f} GiB per float64 copy); "
                "select fewer columns or raise max_cells"
            )
