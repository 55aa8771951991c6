"""The only code that reads the private data: private measurement and selection.

A :class:`PrivateMeasurer` wraps a private table (any
:class:`~dprelease.engines.base.PrivateTable`: in memory, DuckDB, Spark). Mechanisms hand
it public objects (queries, marginals, their own public estimates) and get back
noisy answers or a privately selected index; every call is paid for *before* its
result is computed, from the accountant (basic composition), from a
:class:`~dprelease.privacy.accountant.Reservation` (advanced composition), or from a
:class:`~dprelease.privacy.zcdp.ZCDPAccountant` (zCDP: Gaussian measurements; pure-DP steps
converted, the exponential mechanism at eps^2/8 and Laplace at eps^2/2).
Everything a mechanism does with the results is post-processing.

Read, then pay, then release. Each call first reads the true counts it needs from the table,
then charges, and only then draws noise and returns. The order matters when the table lives
in an engine that can fail (a file vanishes, a Spark session dies): a read that raises returns
nothing, so the charge is never made and the ledger is unchanged, and no refund exists that
could be misused. This is sound because privacy is spent by what *leaves* the kernel, not by
reading: the counts read stay in this object (its caches) and are released only through a
later call that pays for its own output; a refused charge (BudgetExceededError) raises before
any noise is drawn, so it too releases nothing that depends on the data. Conversely, once a
charge is recorded nothing can undo it: it precedes the noise and the return, so a failure after
the read (in the noise, in the caller) leaves the charge standing, as it must, since a released
value may already depend on it. (tests/test_engine_faults.py checks both directions.) The failure
itself must not depend on the private values: engines validate the data when they open it,
before any charge, and their errors name files and columns, never values or counts.

Privacy unit. By default the book's: neighbouring datasets have the same public size n and differ in one
record (replace one). Hence, for answers normalized by n:
  * a counting / linear query with q in [0, 1]^X has sensitivity 1/n;
  * a whole marginal has L1 sensitivity 2/n (one record leaves a cell, one enters another)
    and L2 sensitivity sqrt(2)/n;
  * the score |f(x) - estimate| has sensitivity 1/n, and ||M(x) - estimate||_1 has 2/n
    (triangle inequality), whatever the public estimate;
  * a pair's dependence ||P_ab - P_a x P_b||_1 (its marginal's L1 distance from the product of its
    1-way marginals) has sensitivity 6/n, less any public level and maxed over pairs
    (:meth:`PrivateMeasurer.laplace_dependence`);
  * boosting's score g(q) = sum over at most T public synopses of a clipped piecewise-linear
    function of |q(x) - q(A_j)| with slope 2/mu has sensitivity 2 T rho / mu (Lemma 6.4).

With ``n_estimate`` the unit is add/remove (Dwork & Roth's Def. 2.3, ||x - y||_1 <= 1 on histograms: a neighbour
has one record more or fewer) and n is private: the marginals are normalized by the public noisy count
``n_estimate`` (:meth:`PrivateMeasurer.laplace_record_count`, paid before), C(x) / n_estimate, so
  * a whole marginal has L1 and L2 sensitivity 1/n_estimate (one record enters or leaves one cell);
  * the score ||M(x) - estimate||_1 has 1/n_estimate;
  * a pair's dependence, on counts normalized by max(n_estimate, n), has 6/n_estimate
    (:meth:`PrivateMeasurer.laplace_dependence`).
Query sets, whose declared sensitivities assume the book's unit, are refused under it. A run may later switch to a
better public estimate of n (:meth:`PrivateMeasurer.renormalize`: the count pooled with released totals); every
sensitivity above is then over that normalizer.

With ``rows_per_person`` = k > 1 (add/remove only) the table holds at most k rows of each person
(:mod:`dprelease.privacy.contributions`) and a neighbour has one *person* more or fewer, up to k records: every
add/remove sensitivity above is multiplied by k (a path of k one-record steps, triangle inequality), and so is the
record count's (k).
"""

from __future__ import annotations

import math
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
from dprelease.queries.compression import Grouping, compress
from dprelease.queries.workload import query_sensitivity


class PrivateMeasurer:
    """Laplace measurements and exponential-mechanism selections on one private dataset."""

    def __init__(self, dataset: Dataset, *, accountant: PrivacyAccountant | ZCDPAccountant, rng: RandomSource,
                 reservation: Reservation | None = None, n_estimate: int | None = None,
                 rows_per_person: int = 1) -> None:
        self._dataset = dataset
        self._accountant = accountant
        self._reservation = reservation
        self._rng = rng
        self._marginals: dict[tuple[str, ...], np.ndarray] = {}
        self._query_sets: dict[int, tuple[object, np.ndarray]] = {}
        self._queries: dict[int, tuple[LinearQuery, float]] = {}
        if n_estimate is not None and (isinstance(n_estimate, bool) or not isinstance(n_estimate, int)
                                       or n_estimate < 1):
            raise ValueError(f"n_estimate must be an integer >= 1 (a released noisy count), got {n_estimate!r}")
        #: add/remove (n private, ``n_estimate`` public) or the book's replace one (n public)
        self.add_remove = n_estimate is not None
        if isinstance(rows_per_person, bool) or not isinstance(rows_per_person, int) or rows_per_person < 1:
            raise ValueError(f"rows_per_person must be an integer >= 1, got {rows_per_person!r}")
        if rows_per_person > 1 and not self.add_remove:
            raise ValueError("rows_per_person > 1 is a person-level run: it needs the add/remove unit (n_estimate)")
        #: k, the public bound on a person's rows: a neighbour moves up to k records, every sensitivity k times
        self.rows_per_person = rows_per_person
        self.n = dataset.n if n_estimate is None else n_estimate  # the public normalizer: n, or the noisy count
        self.domain = dataset.domain

    def renormalize(self, n_estimate: int) -> None:
        """Normalize every later read by ``n_estimate``, a public estimate of n better than the first (add/remove
        only; the noisy count pooled with released measurements' totals, post-processing). Each later step's
        sensitivity is stated over the new normalizer, so its charge holds as before; nothing read is released."""
        if not self.add_remove:
            raise TypeError("renormalize is for the add/remove unit (n private, a public estimate of it)")
        if isinstance(n_estimate, bool) or not isinstance(n_estimate, int) or n_estimate < 1:
            raise ValueError(f"n_estimate must be an integer >= 1, got {n_estimate!r}")
        self.n = n_estimate
        self._marginals.clear()  # the cached fractions were over the old normalizer

    # ------------------------------------------------------------- sensitivities
    @property
    def query_sensitivity(self) -> Fraction:
        """Sensitivity of a normalized linear query: 1/n (the book's unit; query sets are refused under add/remove)."""
        return Fraction(1, self.n)

    @property
    def record_sensitivity(self) -> Fraction:
        """How far one neighbour moves a count of records: 1, or k (a person's rows) in a person-level run."""
        return Fraction(self.rows_per_person)

    @property
    def changed_cells(self) -> int:
        """How many cells of a marginal a neighbour moves, each by 1/n: 2 (replace one), 1 (add/remove)."""
        return 1 if self.add_remove else 2

    @property
    def marginal_sensitivity(self) -> Fraction:
        """L1 sensitivity of a normalized marginal: 2/n (replace one), k/n_estimate (add/remove; k = 1 per record)."""
        return Fraction(self.changed_cells, self.n) * self.record_sensitivity

    @property
    def marginal_l2_sensitivity_squared(self) -> Fraction:
        """Squared L2 sensitivity of a normalized marginal: (1/n)^2 + (1/n)^2 = 2/n^2, or (k/n_estimate)^2 (a person's
        k rows may all fall in one cell)."""
        return Fraction(self.changed_cells, self.n**2) * self.record_sensitivity**2

    def _book_unit(self, what: str) -> None:
        if self.add_remove:
            raise TypeError(f"{what} assumes the book's privacy unit (n public): not under add/remove")

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
        """C(x) / n (replace one), or C(x) / n_estimate (add/remove: the true n never divides)."""
        if attributes not in self._marginals:
            self._marginals[attributes] = self._dataset.marginal(attributes) if not self.add_remove \
                else self._dataset.marginal_counts(attributes) / self.n
        return self._marginals[attributes]

    def laplace_record_count(self, *, epsilon: Fraction | float, label: str) -> int:
        """The number of records plus Laplace(k / epsilon), rounded to an integer >= 1: (epsilon, 0)-DP (Thm 3.6).

        A neighbour under add/remove has one record more or fewer (k in a person-level run, k = 1 otherwise), so the
        count's sensitivity is k (under the
        book's unit n is public and this is post-processing of nothing private). Float-safe, as every measurement
        here; the rounding is post-processing. This is the public n_estimate of an add/remove run.
        """
        true = float(self._dataset.n)  # READ: the table knows its rows already; no engine query
        self._pay(epsilon, label)
        noisy = snapped_laplace(np.array(true), sensitivity=self.record_sensitivity, epsilon=exact(epsilon),
                                rng=self._rng)
        return max(1, int(np.rint(float(noisy))))

    def _true_answer(self, query: LinearQuery) -> float:
        self._book_unit("a linear query's sensitivity(n)")
        # Keyed by id and holding the query, so the id cannot be reused by another object.
        cached = self._queries.get(id(query))
        if cached is None or cached[0] is not query:
            cached = (query, query.evaluate(self._dataset))
            self._queries[id(query)] = cached
        return cached[1]

    def _true_answers(self, queries: object) -> np.ndarray:
        self._book_unit("a query set's sensitivity(n)")
        cached = self._query_sets.get(id(queries))
        if cached is None or cached[0] is not queries:
            cached = (queries, np.asarray(queries.answers(self._dataset), dtype=np.float64))
            self._query_sets[id(queries)] = cached
        return cached[1]

    # ------------------------------------------------------------ measurements
    def _true_compressed(self, attributes: tuple[str, ...], grouping: Grouping | None) -> np.ndarray:
        true = self._true_marginal(attributes)
        if grouping is None:
            return true
        if len(grouping) != len(attributes):
            raise ValueError("a grouping names one entry per attribute")
        return compress(true, grouping)

    def laplace_marginal(self, attributes: Sequence[str], *, epsilon: Fraction | float, label: str,
                         grouping: Grouping | None = None) -> np.ndarray:
        """The marginal's fractions plus Laplace(2 / (n epsilon)) per cell: (epsilon, 0)-DP (Thm 3.6).

        With a public ``grouping`` (:mod:`~dprelease.queries.compression`) the marginal is measured on the
        compressed domain: still a partition of the records, so the same L1 sensitivity 2/n.
        Float-safe: snapped to a grid with integer noise (:func:`~dprelease.privacy.noise.snapped_laplace`).
        """
        true = self._true_compressed(tuple(attributes), grouping)  # READ (a failed read charges nothing)
        self._pay(epsilon, label)
        return snapped_laplace(true, sensitivity=self.marginal_sensitivity, epsilon=exact(epsilon), rng=self._rng)

    @property
    def dependence_sensitivity(self) -> Fraction:
        """Sensitivity of a pair's L1 distance from the product of its 1-way marginals: 6/n, or 6k/n_estimate
        (:meth:`laplace_dependence`; k = 1 per record)."""
        return Fraction(6, self.n) * self.record_sensitivity

    def _dependence_over_level(self, pair: tuple[str, str], level: float) -> Fraction:
        """||P_ab - P_a x P_b||_1 - ``level``, exactly: sum |N c_ab - c_a c_b| / N^2 over the integer counts, N = n
        (replace one) or max(n_estimate, n) (add/remove)."""
        counts = np.rint(self._dataset.marginal_counts(pair))
        scale = self._dependence_scale(int(counts.sum()))
        if scale > 2**31:  # N c_ab and c_a c_b reach N^2 (N >= the counts' total): past what int64 holds
            counts = counts.astype(object)
        else:
            counts = counts.astype(np.int64)
        gap = scale * counts - np.outer(counts.sum(axis=1), counts.sum(axis=0))
        return Fraction(int(np.abs(gap).sum()), scale**2) - exact(level)

    def _dependence_scale(self, total: int) -> int:
        """N, the dependence's normalizer: n (replace one; the counts' total), or max(n_estimate, total)
        (add/remove: every fraction vector then sums to at most 1, :meth:`laplace_dependence`)."""
        return max(self.n, total) if self.add_remove else self.n

    def laplace_dependence(self, pairs: Sequence[tuple[str, str]], levels: Sequence[float], *,
                           epsilon: Fraction | float, label: str) -> float:
        """max over ``pairs`` of (the pair's dependence - its public level), plus Laplace(6 / (n epsilon)):
        (epsilon, 0)-DP (Thm 3.6), float-safe (:func:`~dprelease.privacy.noise.snapped_laplace`).

        A pair (a, b)'s dependence is D = ||P_ab - P_a x P_b||_1 over the fractions of rows: 0 where the two columns
        are independent in the table, up to 2. Sensitivity 6/n: a neighbour (one record replaced) moves P_ab by u
        with ||u||_1 <= 2/n, and P_a, P_b by v, w with ||v||_1, ||w||_1 <= 2/n; P'_a x P'_b - P_a x P_b =
        v x P'_b + P_a x w, whose L1 norm is at most ||v||_1 + ||w||_1 <= 4/n (each 1-way marginal sums to 1), so D
        moves by at most 6/n (triangle inequality). A public level subtracted keeps that, and so does the max over
        pairs (each term moves by at most 6/n, so the largest does). Computed exactly from the integer counts and
        rounded to a float once, as every measurement here is.

        Under add/remove (n private) the fractions are the counts over N = max(n_estimate, n), so each sums to at
        most 1, and one record more (n to n + 1; fewer is the same pair read backwards) moves each of P_ab, P_a,
        P_b by at most 2/n_estimate in L1: by e/n_estimate while n + 1 <= n_estimate, and by
        ||(c + e)/(n + 1) - c/n||_1 = 2 (n - c_i) / (n (n + 1)) <= 2/(n + 1) <= 2/n_estimate once n >= n_estimate
        (N is n_estimate on the one side and n on the other only when n_estimate = n + 1, the first case). As
        above D moves by at most 2/n_estimate + 2 * 2/n_estimate = 6/n_estimate, the sensitivity used.
        """
        pairs = [tuple(p) for p in pairs]
        if not pairs or len(pairs) != len(levels) or any(len(p) != 2 for p in pairs):
            raise ValueError("laplace_dependence needs one public level per pair of two attributes")
        value = max(self._dependence_over_level(p, level) for p, level in zip(pairs, levels))  # READ
        self._pay(epsilon, label)
        noisy = snapped_laplace(np.array(float(value)), sensitivity=self.dependence_sensitivity,
                                epsilon=exact(epsilon), rng=self._rng)
        return float(noisy)

    def gaussian_marginal(self, attributes: Sequence[str], *, rho: Fraction | float, label: str,
                          grouping: Grouping | None = None) -> np.ndarray:
        """The marginal's fractions plus Gaussian noise per cell: rho-zCDP (needs a :class:`ZCDPAccountant`).

        The Gaussian mechanism (Bun & Steinke 2016, Prop. 1.6) on the whole marginal, whose L2
        sensitivity is sqrt(2)/n (a neighbour moves 1/n out of one cell into another; 1/n_estimate under
        add/remove, one cell moved), in its
        float-safe form: values snapped to a power-of-two grid plus discrete Gaussian noise
        (:func:`~dprelease.privacy.zcdp.snapped_gaussian`, which accounts for the grid). The noise's
        standard deviation is at most :meth:`gaussian_marginal_std`. A public ``grouping`` measures it on a
        compressed domain (:mod:`~dprelease.queries.compression`; a partition too, the same sensitivity).
        """
        if not isinstance(self._accountant, ZCDPAccountant) or self._reservation is not None:
            raise TypeError("gaussian_marginal needs a measurer built on a ZCDPAccountant")
        true = self._true_compressed(tuple(attributes), grouping)  # READ (a failed read charges nothing)
        self._accountant.charge(rho=rho, label=label, rule=f"Gaussian mechanism at rho={float(exact(rho)):.6g} "
                                                          "(BS Prop. 1.6), zCDP composition (BS Lemma 2.3)")
        return snapped_gaussian(true, sensitivity=self._cell_sensitivity, changed=self.changed_cells, rho=rho,
                                rng=self._rng)

    @property
    def _cell_sensitivity(self) -> Fraction:
        """How far one neighbour moves one cell of a normalized marginal: 1/n, or k/n_estimate (a person's k rows may
        all fall in one cell)."""
        return Fraction(1, self.n) * self.record_sensitivity

    def gaussian_marginal_std(self, *, rho: Fraction | float) -> float:
        """Upper bound on the noise's standard deviation in :meth:`gaussian_marginal` (public)."""
        step, sigma_z = snapped_gaussian_scale(sensitivity=self._cell_sensitivity, changed=self.changed_cells, rho=rho)
        return float(step) * sigma_z

    def laplace_query(self, query: LinearQuery, *, epsilon: Fraction | float, label: str) -> float:
        """f(x) plus Laplace(Delta / epsilon): (epsilon, 0)-DP (Thm 3.6).

        Delta is the query's declared ``sensitivity(n)``, or 1/n for a normalized linear query.
        Float-safe: snapped to a grid with integer noise.
        """
        true = self._true_answer(query)  # READ (a failed read charges nothing)
        self._pay(epsilon, label)
        noisy = snapped_laplace(true, sensitivity=query_sensitivity(query, self.n),
                                epsilon=exact(epsilon), rng=self._rng)
        return float(noisy)

    def laplace_queries(self, queries: object, indices: Sequence[int] | np.ndarray, *, epsilon_each: Fraction | float,
                        label: str, delta_slack: float | None = None) -> np.ndarray:
        """q_i(x) + Laplace(Delta / epsilon_each) for every index i of ``indices`` (a repeat is measured afresh).

        ``queries`` is a query set; Delta is its ``sensitivity(n)`` (1/n for linear queries, the declared
        c/n for callables), the book's rho. Float-safe: snapped to a grid with integer noise.

        Privacy: each answer is (epsilon_each, 0)-DP (Thm 3.6). The k = len(indices) measurements are
        paid as one block before any is computed: through the measurer's reservation (k steps), or
        reserved from the accountant, by basic composition (Thm 3.16) or, with ``delta_slack``, by
        min(basic, Thm 3.20): (k eps (e^eps - 1) + sqrt(2 k ln(1/delta')) eps, delta')-DP. With
        epsilon_each = eps_base / (2 sqrt(2 k ln(1/delta'))) this is Cor. 3.21's (eps_base, delta')
        block, the Laplace step of the base generators of Thms 6.6-6.8.
        """
        index = np.asarray(indices)
        if index.ndim != 1 or index.size == 0 or not np.issubdtype(index.dtype, np.integer):
            raise ValueError(f"indices must be a non-empty 1-d array of integers, got shape {index.shape}")
        if index.min() < 0 or index.max() >= queries.num_queries:
            raise ValueError(f"indices must lie in 0..{queries.num_queries - 1}")
        count = int(index.size)
        true = self._true_answers(queries)[index]  # READ (a failed read charges nothing)
        if self._reservation is not None:
            self._reservation.use(epsilon=epsilon_each, label=label, steps=count)
        elif isinstance(self._accountant, ZCDPAccountant):
            raise TypeError("laplace_queries needs a PrivacyAccountant (or a measurer built on a reservation)")
        else:
            block = self._accountant.reserve(epsilon_each=epsilon_each, count=count, label=label,
                                             delta_slack=delta_slack)
            block.use(epsilon=epsilon_each, label=label, steps=count)
        sensitivity = queries.sensitivity(self.n) if hasattr(queries, "sensitivity") else self.query_sensitivity
        return snapped_laplace(true, sensitivity=sensitivity, epsilon=exact(epsilon_each), rng=self._rng)

    # --------------------------------------------------------------- selections
    def select_query(self, queries: object, estimates: np.ndarray, *, epsilon: Fraction | float, label: str) -> int:
        """Exponential mechanism with score |f(x) - estimate_f|: (epsilon, 0)-DP (Thm 3.10).

        ``queries`` is a query set (``answers(source)``, e.g. a Workload); its true answers are cached.
        The score's sensitivity is the set's ``sensitivity(n)`` (1/n for linear queries): the estimate
        is public, so |f(x) - e| moves by at most f's sensitivity.
        """
        scores = np.abs(self._true_answers(queries) - np.asarray(estimates, dtype=np.float64))  # READ
        self._pay(epsilon, label, exponential=True)
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
        utility = -np.abs(answers - self._true_answers(queries)[None, :]).max(axis=1)  # READ
        self._pay(epsilon, label)
        sensitivity = queries.sensitivity(self.n) if hasattr(queries, "sensitivity") else self.query_sensitivity
        return exponential_mechanism(utility, epsilon=epsilon, sensitivity=sensitivity, rng=self._rng)

    def select_marginal(self, marginals: Sequence[tuple[str, ...]], estimates: Sequence[np.ndarray], *,
                        epsilon: Fraction | float, label: str, penalties: np.ndarray | None = None,
                        weights: Sequence[Fraction | int] | None = None) -> int:
        """Exponential mechanism with score w_M (||M(x) - estimate||_1 - penalty_M): (epsilon, 0)-DP (Thm 3.10).

        ``penalties`` are public (they depend on marginal sizes, not data), so subtracting
        them leaves the sensitivity unchanged. ``weights`` (public, >= 0; AIM's workload
        overlap) scale each score, so the sensitivity is max_M w_M * 2/n, computed exactly.
        """
        sensitivity = self.marginal_sensitivity
        if weights is not None:
            exact_weights = [exact(w) for w in weights]
            if len(exact_weights) != len(marginals) or min(exact_weights) < 0 or max(exact_weights) == 0:
                raise ValueError("weights must be one number >= 0 per marginal, not all 0")
            sensitivity = sensitivity * max(exact_weights)
        scores = np.array([np.abs(self._true_marginal(tuple(m)) - e).sum() for m, e in zip(marginals, estimates)])
        self._pay(epsilon, label, exponential=True)  # after the READ: a failed read charges nothing
        if penalties is not None:
            scores = scores - np.asarray(penalties, dtype=np.float64)
        if weights is not None:
            scores = scores * np.array([float(w) for w in exact_weights])
        return exponential_mechanism(scores, epsilon=epsilon, sensitivity=sensitivity, rng=self._rng)

    def boosting_draws(self, queries: object, synopsis_answers: np.ndarray, *, lambda_: float, mu: float, rounds: int,
                       count: int, epsilon_each: Fraction | float, reservation: Reservation, label: str) -> np.ndarray:
        """``count`` i.i.d. draws from boosting's distribution D_{t+1} over Q (Fig. 6.1), by the exponential mechanism.

        ``synopsis_answers`` is a public ``(t, |Q|)`` matrix, row j the answers of synopsis A_j (t <= rounds;
        t = 0 gives D_1, uniform). With d = |q(x) - q(A_j)|, the book's

            a_{j,q} = 1 if d <= lambda;  -1 if d > lambda + mu;  1 - 2 (d - lambda) / mu otherwise
            g(q) = sum_j a_{j,q};   D_{t+1}[q] proportional to exp(-alpha g(q)),

        and each draw is the exponential mechanism with utility -g of sensitivity
        Delta = 2 rounds rho / mu (each a_{j,q} moves by at most 2 rho / mu when q(x) moves by rho, the
        set's ``sensitivity(n)``; at most ``rounds`` terms). That is D_{t+1} with alpha = eps / (2 Delta).

        Privacy: each draw is (epsilon_each, 0)-DP (Thm 3.10; Lemma 6.4: eps* = 4 alpha T rho / mu);
        the ``count`` draws are paid from ``reservation`` (the boosting's kT draws, reserved up front
        under Thm 3.20, Eq. 6.7) before anything is computed. Only the drawn indices leave the kernel.
        """
        self._book_unit("boosting's score (Lemma 6.4)")
        answers = np.asarray(synopsis_answers, dtype=np.float64)
        if answers.ndim != 2 or answers.shape[1] != queries.num_queries or answers.shape[0] > rounds:
            raise ValueError(f"synopsis_answers must have shape (t <= {rounds}, {queries.num_queries}), "
                             f"got {answers.shape}")
        if not np.all(np.isfinite(answers)):
            raise ValueError("synopsis_answers must be finite")
        if not (math.isfinite(lambda_) and lambda_ >= 0 and math.isfinite(mu) and mu > 0):
            raise ValueError(f"lambda_ must be finite >= 0 and mu finite > 0, got {lambda_!r}, {mu!r}")
        if isinstance(count, bool) or not isinstance(count, int) or count < 1:
            raise ValueError(f"count must be an integer >= 1, got {count!r}")
        truth = self._true_answers(queries) if answers.shape[0] else None  # READ (a failure charges nothing)
        reservation.use(epsilon=epsilon_each, label=label, steps=count)
        rho = queries.sensitivity(self.n) if hasattr(queries, "sensitivity") else self.query_sensitivity
        sensitivity = Fraction(2 * rounds) * exact(rho) / exact(mu)
        if truth is not None:
            distance = np.abs(truth[None, :] - answers)
            g = np.clip(1 - 2 * (distance - lambda_) / mu, -1.0, 1.0).sum(axis=0)
        else:
            g = np.zeros(queries.num_queries)
        chunk = max(1, (1 << 22) // queries.num_queries)  # bound the Gumbel matrix to ~4M floats
        draws = [exponential_mechanism(-g, epsilon=epsilon_each, sensitivity=sensitivity, rng=self._rng,
                                       size=min(chunk, count - start)) for start in range(0, count, chunk)]
        return np.concatenate(draws).astype(np.intp)
