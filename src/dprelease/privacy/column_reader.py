"""The kernel's reader of raw columns, for a differentially private schema draft.

:class:`PrivateColumnReader` is to a schema draft what :class:`~dprelease.privacy.measurer.PrivateMeasurer`
is to a mechanism: the only code that counts the private values, and it pays the accountant before it
counts. Its inputs are one column's values, already parsed (post-processing of nothing: parsing
releases nothing); its outputs are noisy counts, selected quantiles, or selected keys.

Privacy unit: neighbouring tables have the same n and differ in one record (a value may be replaced by
NULL or by another value). Each method states its guarantee and the sensitivity it assumes.

Under add/remove (one record more or fewer), the unit of a release made with ``privacy_unit="add-remove"``, each
method keeps its guarantee at the same charge, so a draft's ledger composes with such a release as it stands: a
histogram's L1 sensitivity is 1 there (one record enters one cell; 2 is what it is calibrated to), the quantiles'
rank utility moves by at most max(p, 1 - p) <= 1 (tests/test_add_remove.py), and the stability histogram's keys
change as under replace one or less (one key's count by 1; a new key, as there, holds one record).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from dprelease.errors import InputError
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.key_selection import noisy_counts, stable_keys
from dprelease.privacy.quantiles import exponential_quantiles
from dprelease.privacy.rng import RandomSource


class PrivateColumnReader:
    """Noisy statistics of raw columns; every call charged first to ``accountant``."""

    def __init__(self, *, accountant: PrivacyAccountant, rng: RandomSource) -> None:
        self.accountant = accountant
        self.rng = rng

    def histogram(self, cells: np.ndarray, num_cells: int, *, epsilon: Fraction, label: str) -> np.ndarray:
        """Noisy count of rows in each of ``num_cells`` public cells (value classes, or public ranges).

        ``cells``: per row, its cell in 0..num_cells-1. Privacy: (epsilon, 0)-DP; the histogram has L1
        sensitivity 2 (one record moves between two cells); discrete Laplace of scale 2 / epsilon (the
        geometric mechanism, the discrete analogue of Thm 3.6).
        """
        self.accountant.charge(epsilon=epsilon, label=label,
                               rule="discrete Laplace histogram over public cells, L1 sensitivity 2 (Thm 3.6)")
        counts = np.bincount(np.asarray(cells, dtype=np.int64), minlength=num_cells)
        return noisy_counts(counts, epsilon=epsilon, rng=self.rng)

    def quantiles(self, values: np.ndarray, probabilities: np.ndarray, candidates: np.ndarray, *,
                  epsilon: Fraction, label: str) -> np.ndarray:
        """One public candidate per probability, each by the exponential mechanism at epsilon / k.

        Privacy: (epsilon, 0)-DP: k selections of (epsilon / k, 0) each (rank utility of sensitivity 1,
        Thm 3.10; Smith 2011), basic composition (Thm 3.16). ``values`` are the column's non-NULL values.
        """
        k = len(probabilities)
        if k == 0:
            raise InputError("quantiles needs at least one probability")
        self.accountant.charge(epsilon=epsilon, label=label,
                               rule=f"{k} exponential-mechanism quantiles at epsilon/{k} each, rank sensitivity 1 "
                                    "(Thm 3.10, Smith 2011); basic composition (Thm 3.16)")
        return exponential_quantiles(values, probabilities=np.asarray(probabilities, dtype=np.float64),
                                     candidates=candidates, epsilon_each=Fraction(epsilon) / k, rng=self.rng)

    def keys(self, index: np.ndarray, num_keys: int, *, epsilon: Fraction, delta: Fraction, max_keys: int,
             label: str, with_counts: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
        """Positions (into the column's distinct values) of the keys a stability histogram releases, at most
        ``max_keys``, largest noisy count first; ``with_counts``: and the noisy counts of those keys.

        ``index``: per non-NULL row, the position of its value among the ``num_keys`` distinct values.
        Privacy: (epsilon, delta)-DP, the stability-based histogram (Vadhan 2017, Prop. 3.5;
        :mod:`~dprelease.privacy.key_selection`), whose released keys' noisy counts it may release too.
        """
        if delta <= 0:
            raise InputError("selecting categories privately needs delta > 0 (a value held by one record "
                             "must not be seen); give --delta or declare the categories")
        self.accountant.charge(epsilon=epsilon, delta=delta, label=label,
                               rule="stability-based histogram, discrete Laplace of scale 2/epsilon, threshold "
                                    "1 + (2/epsilon) ln(2/delta) (Vadhan 2017 Prop. 3.5)")
        counts = np.bincount(np.asarray(index, dtype=np.int64), minlength=num_keys)
        return stable_keys(counts, epsilon=epsilon, delta=float(delta), max_keys=max_keys, rng=self.rng,
                           with_counts=with_counts)
