"""Rows drawn from a model: i.i.d. sampling, or the model's counts rounded to n rows (post-processing).

Both read only the released model and public randomness (Dwork & Roth Prop. 2.1).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from dprelease.domain import Domain
from dprelease.privacy.rng import RandomSource


def sample_rows(model: object, count: int, rng: RandomSource, *, domain: Domain,
                targets: Sequence[tuple[tuple[str, ...], np.ndarray]], on_step: object = None) -> np.ndarray:
    """``count`` i.i.d. draws from the model."""
    return model.sample(count, rng)


def round_rows(model: object, count: int, rng: RandomSource, *, domain: Domain,
               targets: Sequence[tuple[tuple[str, ...], np.ndarray]], on_step: object = None) -> np.ndarray:
    """The model's cell counts ``count * p`` rounded to whole rows, down or up without bias (the model's ``round``,
    :mod:`dprelease.representations.rounding`)."""
    return model.round(count, rng)
