"""The only code that reads the private data: private measurement and selection.

A :class:`PrivateMeasurer` wraps a :class:`~dprelease.data.Dataset`. Mechanisms hand
it public objects (queries, marginals, their own public estimates) and get back
noisy answers or a privately selected index; every call is paid for *before* its
result is computed, from the accountant (basic composition), from a
:class:`~dprelease.privacy.accountant.Reservation` (advanced composition), or from a
:class:`~dprelease.privacy.zcdp.ZCDPAccountant` (zCDP: Gaussian measurements; pure-DP steps
converted, the exponential mechanism at eps^2/8 and Laplace at eps^2/2).
Everything a mechanism does with the results is post-processing.

Privacy unit (the book's setting): neighbouring datasets have the same public size
n and differ in one record. Hence, for answers normalized by n:
  * a counting / linear query with q in [0, 1]^X has sensitivity 1/n;
  * a whole marginal has L1 sensitivity 2/n (one record leaves a cell, one enters another)
    and L2 sensitivity sqrt(2)/n;
  * the score |f(x) - estimate| has sensitivity 1/n, and ||M(x) - estimate||_1 has 2/n
    (triangle inequality), whatever the public estimate.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np

from dprelease.data import Dataset
from dprelease.privacy.accountant import PrivacyAccountant, Reservation
from dprelease.privacy.noise import exact, snapped_laplace
from dprelease.privacy.rng import RandomSource
from dprelease.privacy.selection import exponential_mechanism
from dprelease.privacy.zcdp import ZCDPAccountant, snapped_gaussian, snapped_gaussian_scale
from dprelease.queries.base import LinearQuery
from dprelease.queries.workload import query_sensitivity


class PrivateMeasurer:
    """Laplace measurements and exponential-mechanism selections on one private dataset."""

    def __init__(self, dataset: Dataset, *, accountant: PrivacyAccountant | ZCDPAccountant, rng: RandomSource,
                 reservation: Reservation | None = None) -> None:
        self._dataset = dataset
        self._accountant = accountant
        self._reservation = reservation
        self._rng = rng
        self._marginals: dict[tuple[str, ...], np.ndarray] = {}
        self._query_sets: dict[int, tuple[object, np.ndarray]] = {}
        self._queries: dict[int, tuple[LinearQuery, float]] = {}
        self.n = dataset.n  # public under the privacy unit
        self.domain = dataset.domain

    # ------------------------------------------------------------- sensitivities
    @property
    def query_sensitivity(self) -> Fraction:
        """Sensitivity of a normalized linear query: 1/n."""
        return Fraction(1, self.n)

    @property
    def marginal_sensitivity(self) -> Fraction:
        """L1 sensitivity of a normalized marginal: 2/n."""
        return Fraction(2, self.n)

    @property
    def marginal_l2_sensitivity_squared(self) -> Fraction:
        """Squared L2 sensitivity of a normalized marginal: (1/n)^2 + (1/n)^2 = 2/n^2."""
        return Fraction(2, self.n**2)

    # ------------------------------------------------------------------ private
    def _pay(self, epsilon: Fraction | float, label: str, *, exponential: bool = False) -> None:
        if self._reservation is not None:
            self._reservation.use(epsilon=epsilon, label=label)
        elif isinstance(self._accountant, ZCDPAccountant):
            if exponential:
                self._accountant.charge_exponential(epsilon=epsilon, label=label)
            else:
                self._accountant.charge_pure(epsilon=epsilon, label=label)
        else:
            self._accountant.charge(epsilon=epsilon, label=label)

    def _true_marginal(self, attributes: tuple[str, ...]) -> np.ndarray:
        if attributes not in self._marginals:
            self._marginals[attributes] = self._dataset.marginal(attributes)
        return self._marginals[attributes]

    def _true_answer(self, query: LinearQuery) -> float:
        # Keyed by id and holding the query, so the id cannot be reused by another object.
        cached = self._queries.get(id(query))
        if cached is None or cached[0] is not query:
            cached = (query, query.evaluate(self._dataset))
            self._queries[id(query)] = cached
        return cached[1]

    def _true_answers(self, queries: object) -> np.ndarray:
        cached = self._query_sets.get(id(queries))
        if cached is None or cached[0] is not queries:
            cached = (queries, np.asarray(queries.answers(self._dataset), dtype=np.float64))
            self._query_sets[id(queries)] = cached
        return cached[1]

    # ------------------------------------------------------------ measurements
    def laplace_marginal(self, attributes: Sequence[str], *, epsilon: Fraction | float, label: str) -> np.ndarray:
        """The marginal's fractions plus Laplace(2 / (n epsilon)) per cell: (epsilon, 0)-DP (Thm 3.6).

        Float-safe: snapped to a grid with integer noise (:func:`~dprelease.privacy.noise.snapped_laplace`).
        """
        self._pay(epsilon, label)
        true = self._true_marginal(tuple(attributes))
        return snapped_laplace(true, sensitivity=self.marginal_sensitivity, epsilon=exact(epsilon), rng=self._rng)

    def gaussian_marginal(self, attributes: Sequence[str], *, rho: Fraction | float, label: str) -> np.ndarray:
        """The marginal's fractions plus Gaussian noise per cell: rho-zCDP (needs a :class:`ZCDPAccountant`).

        The Gaussian mechanism (Bun & Steinke 2016, Prop. 1.6) on the whole marginal, whose L2
        sensitivity is sqrt(2)/n (a neighbour moves 1/n out of one cell into another), in its
        float-safe form: values snapped to a power-of-two grid plus discrete Gaussian noise
        (:func:`~dprelease.privacy.zcdp.snapped_gaussian`, which accounts for the grid). The noise's
        standard deviation is at most :meth:`gaussian_marginal_std`.
        """
        if not isinstance(self._accountant, ZCDPAccountant) or self._reservation is not None:
            raise TypeError("gaussian_marginal needs a measurer built on a ZCDPAccountant")
        self._accountant.charge(rho=rho, label=label, rule=f"Gaussian mechanism at rho={float(exact(rho)):.6g} "
                                                          "(BS Prop. 1.6), zCDP composition (BS Lemma 2.3)")
        true = self._true_marginal(tuple(attributes))
        return snapped_gaussian(true, sensitivity=Fraction(1, self.n), changed=2, rho=rho, rng=self._rng)

    def gaussian_marginal_std(self, *, rho: Fraction | float) -> float:
        """Upper bound on the noise's standard deviation in :meth:`gaussian_marginal` (public)."""
        step, sigma_z = snapped_gaussian_scale(sensitivity=Fraction(1, self.n), changed=2, rho=rho)
        return float(step) * sigma_z

    def laplace_query(self, query: LinearQuery, *, epsilon: Fraction | float, label: str) -> float:
        """f(x) plus Laplace(Delta / epsilon): (epsilon, 0)-DP (Thm 3.6).

        Delta is the query's declared ``sensitivity(n)``, or 1/n for a normalized linear query.
        Float-safe: snapped to a grid with integer noise.
        """
        self._pay(epsilon, label)
        noisy = snapped_laplace(self._true_answer(query), sensitivity=query_sensitivity(query, self.n),
                                epsilon=exact(epsilon), rng=self._rng)
        return float(noisy)

    # --------------------------------------------------------------- selections
    def select_query(self, queries: object, estimates: np.ndarray, *, epsilon: Fraction | float, label: str) -> int:
        """Exponential mechanism with score |f(x) - estimate_f|: (epsilon, 0)-DP (Thm 3.10).

        ``queries`` is a query set (``answers(source)``, e.g. a Workload); its true answers are cached.
        The score's sensitivity is the set's ``sensitivity(n)`` (1/n for linear queries): the estimate
        is public, so |f(x) - e| moves by at most f's sensitivity.
        """
        self._pay(epsilon, label, exponential=True)
        scores = np.abs(self._true_answers(queries) - np.asarray(estimates, dtype=np.float64))
        sensitivity = queries.sensitivity(self.n) if hasattr(queries, "sensitivity") else self.query_sensitivity
        return exponential_mechanism(scores, epsilon=epsilon, sensitivity=sensitivity, rng=self._rng)

    def select_database(self, queries: object, candidate_answers: np.ndarray, *, epsilon: Fraction | float,
                        label: str) -> int:
        """Exponential mechanism over public candidate databases y with utility -max_f |f(x) - f(y)|.

        ``candidate_answers`` is a public ``(k, num_queries)`` matrix: row i is candidate i's answers
        to the set. SmallDB (Alg. 4) is this call over all databases of a fixed small size.
        Privacy: (epsilon, 0)-DP (Thm 3.10; Prop. 4.1). The utility's sensitivity is the set's
        ``sensitivity(n)`` (1/n for linear queries): every f(x) moves by at most that much, and so
        does a maximum of |f(x) - f(y)| over f with y fixed.
        """
        answers = np.asarray(candidate_answers, dtype=np.float64)
        if answers.ndim != 2 or answers.shape[1] != queries.num_queries or answers.shape[0] == 0:
            raise ValueError(f"candidate_answers must have shape (k >= 1, {queries.num_queries}), got {answers.shape}")
        self._pay(epsilon, label)
        utility = -np.abs(answers - self._true_answers(queries)[None, :]).max(axis=1)
        sensitivity = queries.sensitivity(self.n) if hasattr(queries, "sensitivity") else self.query_sensitivity
        return exponential_mechanism(utility, epsilon=epsilon, sensitivity=sensitivity, rng=self._rng)

    def select_marginal(self, marginals: Sequence[tuple[str, ...]], estimates: Sequence[np.ndarray], *,
                        epsilon: Fraction | float, label: str, penalties: np.ndarray | None = None) -> int:
        """Exponential mechanism with score ||M(x) - estimate||_1 - penalty (sensitivity 2/n): (epsilon, 0)-DP.

        ``penalties`` are public (they depend on marginal sizes, not data), so subtracting
        them leaves the sensitivity unchanged.
        """
        self._pay(epsilon, label, exponential=True)
        scores = np.array([np.abs(self._true_marginal(tuple(m)) - e).sum() for m, e in zip(marginals, estimates)])
        if penalties is not None:
            scores = scores - np.asarray(penalties, dtype=np.float64)
        return exponential_mechanism(scores, epsilon=epsilon, sensitivity=self.marginal_sensitivity, rng=self._rng)
