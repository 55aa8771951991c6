"""Rows with their persons: a raw table's codes and each row's privacy id, before contributions are bounded."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dprelease.data import Dataset
from dprelease.domain import Domain


@dataclass(frozen=True, eq=False)
class PersonRows:
    """A private table of codes with each row's person (private, :func:`~dprelease.schema.tables.person_index`).

    Deliberately not a :class:`~dprelease.engines.base.PrivateTable`: no mechanism can read it until
    :func:`dprelease.privacy.contributions.bound` has kept at most k rows a person.
    """

    table: Dataset
    persons: np.ndarray
    #: the privacy-id column's name (public: a header name, recorded in the release)
    privacy_id: str

    @property
    def domain(self) -> Domain:
        """The public domain of the codes."""
        return self.table.domain
