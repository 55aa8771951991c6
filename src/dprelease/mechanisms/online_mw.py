"""Online private multiplicative weights via NumericSparse (Dwork & Roth Sec. 4.2.2, Algorithm 6).

An analyst sends linear queries one at a time, possibly chosen after seeing earlier
answers; each is answered at once::

    c = ceil(4 ln|X| / alpha^2),  T = 2 alpha          # Thm 4.14 / 4.15 parameters
    NumericSparse(x, T, c, eps, delta) on the stream f'_1, f'_2, ...
    x^0 = uniform on X
    for each query f_i:
        f'_{2i-1} = f_i - f_i(x^t);  f'_{2i} = f_i(x^t) - f_i          # f_i(x^t) is public
        both BOT            -> a_i = f_i(x^t)                   (answered from the hypothesis)
        E_{2i-1} numeric    -> a_i = f_i(x^t) + E_{2i-1}         (answered from a measurement)
        E_{2i} numeric      -> a_i = f_i(x^t) - E_{2i}
        after a measurement: x^{t+1} = MW(x^t, f_i, a_i), eta = alpha / 2   (Alg. 5)

f'_{2i} is not asked when E_{2i-1} is already numeric: the book would ask it and
ignore its answer, which can only spend a count of the cut-off without an update.
NumericSparse is private for adaptively chosen streams, so asking fewer is allowed,
and k <= 2|Q| still bounds the number of questions in Thm 3.28.

Everything outside :class:`~dprelease.privacy.sparse_vector.NumericSparse` is
post-processing of its outputs: x^t, the answers and the counters are public.
A reported answer is clipped to [0, 1], the range of every normalized linear
query; that is post-processing and can only bring it closer to the truth.

Parameters (:class:`OnlineMWPlan`): the user gives epsilon (and delta) and either
alpha or the stream length |Q|; the other is solved from Thm 4.14 (delta = 0; with the
corrected constant 36, not the printed 32) or Thm 4.15 (delta > 0), with beta = 0.05
by default. With probability at least 1 - beta every answer is within 3 alpha of the
truth and there are at most c updates. After c updates, or after |Q| queries, every
further query is refused with :class:`~dprelease.errors.BudgetExhaustedError`.

Representations: the hypothesis x^t is an explicit histogram over X, or a factored (log-linear)
model (``representation="factored"``; ``"auto"`` picks by the public domain size, as MWEM does)
whose potentials live on the attribute sets of the queries that caused updates. It is the same
distribution (the MW step on a product-form query adds a function of its attributes only), so
the answers, the plan and the guarantee are the same; only product-form queries can be asked.
The model's size is capped (``max_model_cells``). A stream cannot be checked up front, so each
query is checked as it arrives, before anything is spent or drawn for it: a query whose
attribute set would push the model over the cap is refused with
:class:`~dprelease.errors.DomainTooLargeError`, and the session goes on. The check reads the
query's attributes and the model's cliques; those cliques are a function of which earlier
queries caused updates, which the session releases (each answer's source, and the hypothesis
itself), so the refusal is post-processing of released outputs and costs no privacy.

Modes: ``mode="book"`` (the default) is Algorithm 6 exactly, with the parameters of Thm 4.14 /
4.15. At real table sizes their promise 3 alpha is often vacuous (>= 1: on Adult, n = 48,842, for
every stream length), and the threshold T = 2 alpha is so high that every answer comes from the
uniform prior. ``mode="warm"`` keeps the same engine (NumericSparse, MW steps) and changes two
things, both fixed before any data is read (:class:`~dprelease.mechanisms.online_plan.WarmPlan`):

* x^0 is an MWEM synopsis (:mod:`~dprelease.mechanisms.online_warm`) bought with a declared share
  of (epsilon, delta), instead of the uniform distribution;
* the cut-off c and the threshold T come from the accuracy a that the analyst asks for and the
  budget left: the largest c with alpha_NS(c) <= a / 3 (Thm 3.28 on the online share, k = 2|Q|,
  sensitivity 1/n), T = a - alpha_NS(c), and alpha = T / 2 for the MW step.

Privacy: (epsilon, delta)-DP. Book mode (Thm 4.13): x is touched only through NumericSparse
(Thm 3.27) with queries of sensitivity 1/n, and its whole plan is charged to the accountant
when the session starts, before the first query. Warm mode: the synopsis is (eps_off, delta_off)
= share * (epsilon, delta) DP, NumericSparse (epsilon - eps_off, delta - delta_off) DP, and
they compose by basic composition (Thm 3.16); see :class:`OnlinePrivateMW`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from dprelease.data import Dataset
from dprelease.domain import DEFAULT_MAX_CELLS
from dprelease.engines.base import PrivateTable
from dprelease.errors import BudgetExhaustedError, InputError, InputTypeError, SeededRunWarning, warn_user
from dprelease.mechanisms.online_plan import (
    DEFAULT_WARM_SHARE,
    DEFAULT_WARM_WORKLOAD,
    MODES,
    SPARSE_LABEL,
    WARM_CHARGE_LABEL,
    WARM_CHARGE_RULE,
    OnlineMWPlan,
    WarmPlan,
    sparse_budget,
)
from dprelease.mechanisms.online_state import load_session, save_session
from dprelease.mechanisms.online_warm import check_warm_workload, warm_synopsis
from dprelease.privacy.accountant import PrivacyAccountant
from dprelease.privacy.rng import RandomSource, make_rng
from dprelease.privacy.sparse_vector import NumericSparse, ShiftedQuery
from dprelease.queries.array_eval import evaluate_on_array
from dprelease.queries.base import LinearQuery
from dprelease.representations import MWEM_HISTOGRAM_CELLS, resolve_representation
from dprelease.representations.factored import DEFAULT_MAX_MODEL_CELLS, FactoredModel
from dprelease.representations.histogram import HistogramModel
from dprelease.updates.multiplicative_weights import MultiplicativeWeights
from dprelease.validation import check_positive_int

HYPOTHESIS = "hypothesis"
MEASUREMENT = "measurement"


def session_rule(domain, *, representation: str = "auto", max_cells: int = DEFAULT_MAX_CELLS,
                 max_model_cells: int = DEFAULT_MAX_MODEL_CELLS) -> MultiplicativeWeights:
    """The MW rule of a session on ``domain`` (public: the options and the domain's size).

    ``auto`` keeps an explicit histogram up to MWEM's 1,000,000 cells (:data:`MWEM_HISTOGRAM_CELLS`) and a factored
    model past them. For a product-form query (every query the CLI and the service take) the MW step adds a function
    of the query's attributes only, so the factored model is the same distribution and gives the same answers; where
    the histogram would have fitted ``max_cells`` its cap is raised to ``max_cells``, so a query on many attributes
    that the histogram would have taken is still taken. On a 32.6-million-cell table 20 queries saved with ``--state``
    took 89 s, 2 GB and a 348 MB state file on the histogram; factored, 2.6 s, 0.13 GB and 87 KB, the same answers
    to 1e-13. A ``DenseQuery`` or a callable needs ``representation="histogram"``.
    """
    resolved = resolve_representation(representation, domain, max_cells=max_cells, auto_cells=MWEM_HISTOGRAM_CELLS)
    if representation == "auto" and resolved == "factored" and domain.size <= max_cells:
        max_model_cells = max(max_model_cells, max_cells)
    return MultiplicativeWeights(max_cells=max_cells, max_model_cells=max_model_cells, representation=resolved)


@dataclass(frozen=True, slots=True)
class OnlineAnswer:
    """One answer: its value, where it came from, its 1-based position and the updates used after it."""

    value: float
    source: str
    index: int
    updates: int


class OnlinePrivateMW:
    """An interactive session answering linear queries as they arrive (Algorithm 6).

    >>> from dprelease import Dataset, Domain, ProductQuery
    >>> d = Domain(("a", "b"), (2, 2))
    >>> data = Dataset.from_histogram([400_000, 300_000, 200_000, 100_000], d)
    >>> session = OnlinePrivateMW(data, epsilon=1.0, max_queries=50, seed=0)  # doctest: +SKIP
    >>> session.answer(ProductQuery.conjunction(d, {"a": 0}))  # doctest: +SKIP
    0.7...

    Args:
        dataset: the private table (its size n is public).
        epsilon, delta: the privacy budget; delta = 0 gives pure DP (Thm 4.14), delta > 0 Thm 4.15.
        alpha / max_queries: exactly one; the other is solved from the theorem.
        beta: failure probability of the accuracy promise.
        seed: reproducible noise (warns: not fit for a real release); default: the OS CSPRNG.
        rng: an explicit random source (overrides ``seed``).
        max_cells: cap on the explicit histogram's cells.
        representation: the hypothesis: ``"histogram"``, ``"factored"`` (product-form queries only;
            any domain size) or ``"auto"`` (the histogram when the domain fits ``max_cells``).
        max_model_cells: cap on the factored model's junction-tree cells; a query that would push
            the model over it is refused before anything is spent on it.

        mode: ``"book"`` (default: Algorithm 6 with Thm 4.14 / 4.15's parameters) or ``"warm"``.
        accuracy: warm mode: the accuracy a every answer should have (w.p. >= 1 - beta); with
            ``max_queries`` it sets the cut-off and the threshold. Warm mode needs both, not ``alpha``.
        warm_share: warm mode: the share of (epsilon, delta) spent on the synopsis (default 0.5).
        warm_workload: warm mode: the synopsis's marginals, a workload spec (default ``"1-3way"``).
        warm_rounds: warm mode: MWEM's rounds for the synopsis (default: MWEM's own).

    Privacy:
        (epsilon, delta)-DP for any adaptively chosen stream of normalized linear queries
        (sensitivity 1/n, same-size neighbours differing in one record).

        * ``mode="book"``: Thm 4.13. The data is read only by NumericSparse (Thm 3.27), whose
          whole plan is charged when the session starts.
        * ``mode="warm"``: the MWEM synopsis is (eps_off, delta_off)-DP with (eps_off, delta_off) =
          warm_share * (epsilon, delta) exactly (MWEM: Laplace and the exponential mechanism composed
          by Thm 3.16; with delta > 0, zCDP converted to (eps, delta) by Canonne-Kamath-Steinke), and
          NumericSparse on the queries f_i - f_i(x^t) is (epsilon - eps_off, delta - delta_off)-DP
          (Thm 3.27; x^t is a function of the synopsis and of earlier outputs, so the queries are
          adaptively chosen, which Thm 3.27 allows). The two compose by basic composition (Thm 3.16:
          epsilons and deltas add, also under adaptive composition, Sec. 3.5.2), which is exactly
          (epsilon, delta). The synopsis's share is charged before MWEM runs and NumericSparse's plan
          before the first query; the ledger's charges sum to at most (epsilon, delta), exactly (Fractions).

        No answer, refusal or stop changes the ledger afterwards. A query the factored hypothesis
        cannot take (not product-form, or over ``max_model_cells``) is refused before anything is
        drawn for it, from the query and the released hypothesis's cliques only (post-processing).

    Accuracy:
        * ``mode="book"``: w.p. >= 1 - beta every answer is within 3 alpha (Thm 4.14 / 4.15),
          vacuous when 3 alpha >= 1 (:attr:`OnlineMWPlan.vacuous`).
        * ``mode="warm"``: w.p. >= 1 - beta over NumericSparse's noise, for any adaptively chosen
          stream of at most |Q| queries, every query *answered* is within ``accuracy`` (Thm 3.28 with
          k = 2|Q|, the plan's c and the online share: a measured answer within alpha_NS, an answer
          from the hypothesis, both comparisons below T, within T + alpha_NS = accuracy). After c
          updates, or |Q| queries, every query is refused (:class:`BudgetExhaustedError`). How many
          updates a stream needs depends on the synopsis: at most 4 KL(x || x^0) / alpha^2 (Thm 4.10's
          potential argument from x^0 instead of the uniform prior; alpha = T / 2 >= alpha_NS), a private
          quantity, so c is set by the budget and a refusal says why.
    """

    def __init__(self, dataset: Dataset, *, epsilon: float, delta: float = 0.0, alpha: float | None = None,
                 max_queries: int | None = None, beta: float = 0.05, seed: int | None = None,
                 rng: RandomSource | None = None, max_cells: int = DEFAULT_MAX_CELLS, representation: str = "auto",
                 max_model_cells: int = DEFAULT_MAX_MODEL_CELLS, mode: str = "book", accuracy: float | None = None,
                 warm_share: float | None = None, warm_workload: str | None = None,
                 warm_rounds: int | None = None) -> None:
        if not isinstance(dataset, PrivateTable):
            raise InputTypeError(f"dataset must be a dprelease.Dataset or another PrivateTable, "
                                 f"got {type(dataset).__name__}")
        warm = {"accuracy": accuracy, "warm_share": warm_share, "warm_workload": warm_workload,
                "warm_rounds": warm_rounds}
        if mode not in MODES:
            raise InputError(f"mode must be one of {list(MODES)}, got {mode!r}")
        if mode == "warm":
            self._start_warm(dataset, epsilon=epsilon, delta=delta, alpha=alpha, max_queries=max_queries, beta=beta,
                             seed=seed, rng=rng, max_cells=max_cells, representation=representation,
                             max_model_cells=max_model_cells, **warm)
            return
        given = sorted(name for name, value in warm.items() if value is not None)
        if given:
            raise InputError(f"{', '.join(given)} apply to mode='warm' only; the book's mode (mode='book') takes "
                             "alpha or max_queries")
        update = session_rule(dataset.domain, representation=representation, max_cells=max_cells,
                              max_model_cells=max_model_cells)
        if update.resolved_representation(dataset.domain) == "histogram":
            dataset.domain.check_fits(max_cells)
        plan = OnlineMWPlan.solve(n=dataset.n, universe_size=dataset.domain.size, epsilon=epsilon, delta=delta,
                                  alpha=alpha, max_queries=max_queries, beta=beta)
        if rng is None:
            rng = make_rng(seed, warn=False)
            if seed is not None:
                warn_user(f"seed={seed} makes this session reproducible and its noise predictable: "
                          "it is not fit for a real release", SeededRunWarning)
        model = update.initial(dataset.domain)  # x^0, before anything is spent
        accountant = PrivacyAccountant(epsilon=epsilon, delta=delta)
        # Thm 4.13: the only access to x; its c runs and c answers are charged here, up front.
        sparse = NumericSparse(dataset, threshold=plan.threshold, cutoff=plan.cutoff, epsilon=epsilon, delta=delta,
                               accountant=accountant, rng=rng, label=SPARSE_LABEL)
        self._start(dataset, plan, accountant, sparse, rng, model)

    def _start_warm(self, dataset: PrivateTable, *, epsilon: float, delta: float, alpha: float | None,
                    max_queries: int | None, beta: float, seed: int | None, rng: RandomSource | None, max_cells: int,
                    representation: str, max_model_cells: int, accuracy: float | None, warm_share: float | None,
                    warm_workload: str | None, warm_rounds: int | None) -> None:
        """mode="warm": an MWEM synopsis on a declared share, then NumericSparse on the rest (see the class doc)."""
        if alpha is not None:
            raise InputError("mode='warm' takes accuracy= (every answer's target) and max_queries=, not alpha= "
                             "(its threshold is solved from the accuracy and the budget left)")
        if accuracy is None or max_queries is None:
            raise InputError("mode='warm' needs accuracy= (every answer's target, e.g. 0.05) and max_queries= "
                             "(the stream length)")
        update = session_rule(dataset.domain, representation=representation, max_cells=max_cells,
                              max_model_cells=max_model_cells)
        resolved = update.resolved_representation(dataset.domain)
        if resolved == "histogram":
            dataset.domain.check_fits(max_cells)
        plan = WarmPlan.solve(n=dataset.n, universe_size=dataset.domain.size, epsilon=epsilon, delta=delta,
                              accuracy=accuracy, max_queries=max_queries, beta=beta,
                              warm_share=DEFAULT_WARM_SHARE if warm_share is None else warm_share,
                              warm_workload=DEFAULT_WARM_WORKLOAD if warm_workload is None else warm_workload,
                              warm_rounds=warm_rounds)
        check_warm_workload(plan.warm_workload, dataset)  # public, before anything is spent
        rng = self._random_source(seed, rng)
        accountant = PrivacyAccountant(epsilon=epsilon, delta=delta)
        # The synopsis's whole share, charged before it reads anything; it composes with NumericSparse
        # by basic composition (Thm 3.16, which holds for adaptively chosen mechanisms).
        accountant.charge(epsilon=plan.epsilon_offline, delta=plan.delta_offline, label=WARM_CHARGE_LABEL,
                          rule=WARM_CHARGE_RULE)
        model, synopsis = warm_synopsis(dataset, plan, rng=rng, representation=resolved, max_cells=max_cells,
                                        max_model_cells=max_model_cells)  # x^0: MWEM's output, public
        if isinstance(model, FactoredModel) and model.max_model_cells != update.max_model_cells:
            model = FactoredModel(model.domain, model.potentials, update.max_model_cells)  # the session's cap
        # Thm 3.27: the only further access to x; its c runs and c answers are charged here, up front.
        sparse_epsilon, sparse_delta = sparse_budget(plan)  # the online share (the state file checks the same)
        sparse = NumericSparse(dataset, threshold=plan.threshold, cutoff=plan.cutoff, epsilon=sparse_epsilon,
                               delta=sparse_delta, accountant=accountant, rng=rng, label=SPARSE_LABEL)
        self._start(dataset, plan, accountant, sparse, rng, model, synopsis=synopsis)

    @staticmethod
    def _random_source(seed: int | None, rng: RandomSource | None) -> RandomSource:
        if rng is not None:
            return rng
        if seed is not None:
            warn_user(f"seed={seed} makes this session reproducible and its noise predictable: "
                      "it is not fit for a real release", SeededRunWarning)
        return make_rng(seed, warn=False)

    def _start(self, dataset: Dataset, plan: OnlineMWPlan | WarmPlan, accountant: PrivacyAccountant,
               sparse: NumericSparse, rng: RandomSource, model: HistogramModel | FactoredModel, queries_seen: int = 0,
               from_hypothesis: int = 0, synopsis: dict | None = None) -> None:
        self.synopsis = synopsis
        self._dataset = dataset
        self.plan = plan
        self.accountant = accountant
        self._sparse = sparse
        self._rng = rng
        self._update = MultiplicativeWeights(representation=representation_of(model))
        self._set_model(model)
        self.queries_seen = queries_seen
        self.from_hypothesis = from_hypothesis
        self._fingerprint: str | None = None
        self._encoded: tuple[HistogramModel | FactoredModel, object] | None = None

    def _set_model(self, model: HistogramModel | FactoredModel) -> None:
        self.model = model
        self._probabilities = model.probabilities if isinstance(model, HistogramModel) else None

    def _estimate(self, query: LinearQuery) -> float:
        """f_i(x^t), public: indexed on the histogram's array, or by inference on the factored model."""
        if self._probabilities is not None:
            return evaluate_on_array(query, self._probabilities)
        return query.evaluate(self.model)

    # ------------------------------------------------------------- properties
    @property
    def mode(self) -> str:
        """``"book"`` (Algorithm 6 exactly) or ``"warm"`` (warm-started from an MWEM synopsis)."""
        return self.plan.mode

    @property
    def alpha(self) -> float:
        """The book's alpha: T / 2, and eta = alpha / 2 in each MW step (both modes)."""
        return self.plan.alpha

    @property
    def promised_accuracy(self) -> float:
        """3 alpha (Thm 4.14 / 4.15); in warm mode the accuracy asked for (Thm 3.28)."""
        return self.plan.promised_accuracy

    @property
    def cutoff(self) -> int:
        """c: the most MW updates (above-threshold answers) the session will make."""
        return self.plan.cutoff

    @property
    def max_queries(self) -> int:
        return self.plan.max_queries

    @property
    def updates_used(self) -> int:
        return self._sparse.count

    @property
    def remaining_queries(self) -> int:
        return 0 if self.exhausted else self.plan.max_queries - self.queries_seen

    @property
    def exhausted(self) -> bool:
        """True once c updates or max_queries queries are used up: every further query is refused."""
        return self._sparse.halted or self.queries_seen >= self.plan.max_queries

    @property
    def epsilon_spent(self) -> Fraction:
        return self.accountant.spent_epsilon

    @property
    def delta_spent(self) -> Fraction:
        return self.accountant.spent_delta

    @property
    def representation(self) -> str:
        """``"histogram"`` or ``"factored"``: what the hypothesis x^t is."""
        return representation_of(self.model)

    @property
    def seeded(self) -> bool:
        return not self._rng.is_secure

    # -------------------------------------------------------------- answering
    def answer(self, query: LinearQuery) -> float:
        """The answer to one query (raises :class:`BudgetExhaustedError` once the session is used up)."""
        return self.ask(query).value

    def refusal(self) -> str | None:
        """Why every further query is refused, or None while the session answers (public)."""
        if not self.exhausted:
            return None
        why = (f"all {self.cutoff} updates (the cut-off c) are used" if self._sparse.halted
               else f"the declared stream of {self.plan.max_queries} queries is used up")
        return f"online MW session is exhausted: {why}; no further query is answered (the answers already given " \
               "stay valid)"

    def check(self, query: object) -> None:
        """The public checks :meth:`ask` makes before anything is drawn (type, domain, sensitivity, model cap)."""
        self._check_query(query)
        # Public, before anything is spent or drawn for this query: can x^t be updated on it (the
        # factored model: product-form, and its attribute set under the cap given the cliques so far)?
        self._update.check_query(self.model, query)

    def ask(self, query: LinearQuery) -> OnlineAnswer:
        """Like :meth:`answer`, with where the answer came from."""
        refusal = self.refusal()
        if refusal is not None:
            raise BudgetExhaustedError(refusal)
        self.check(query)
        estimate = self._estimate(query)  # f_i(x^t): public
        # NumericSparse on f'_{2i-1} = f_i - f_i(x^t), then on f'_{2i} = f_i(x^t) - f_i (Alg. 6)
        above = self._sparse.ask(ShiftedQuery(query, estimate, +1))
        noisy = None if above is None else estimate + above
        if noisy is None:
            below = self._sparse.ask(ShiftedQuery(query, estimate, -1))
            noisy = None if below is None else estimate - below
        self.queries_seen += 1
        if noisy is None:
            self.from_hypothesis += 1
            return OnlineAnswer(_clip(estimate), HYPOTHESIS, self.queries_seen, self.updates_used)
        # UPDATE (MW, Alg. 5, eta = alpha / 2) with the noisy answer: post-processing
        self._set_model(self._update.update(self.model, query, noisy, alpha=self.plan.alpha))
        return OnlineAnswer(_clip(noisy), MEASUREMENT, self.queries_seen, self.updates_used)

    def forfeit(self, queries: int = 1) -> int:
        """Count ``queries`` queries whose answers were lost after they may have been compared; returns how many.

        Each is counted as asked (one of |Q|) and as an above-threshold answer that was never released:
        NumericSparse ends its current run (:meth:`~dprelease.privacy.sparse_vector.NumericSparse.end_run`:
        one of the c updates, a fresh threshold); the hypothesis does not change. Conservative, for a
        curator who cannot tell what a crash revealed (the service calls it after a restart); it spends
        nothing beyond the plan already charged. Stops early once the session is exhausted.
        """
        done = 0
        for _ in range(check_positive_int(queries, "queries", minimum=0)):
            if self.exhausted:
                break
            self._sparse.end_run()
            self.queries_seen += 1
            done += 1
        return done

    def _check_query(self, query: object) -> None:
        if not isinstance(query, LinearQuery):
            raise InputTypeError(f"query must be a linear query (e.g. ProductQuery), got {type(query).__name__}")
        if query.domain != self._dataset.domain:
            raise InputError(f"query {query.name!r} is not over the session's domain")
        declared = getattr(query, "sensitivity", None)
        if declared is not None and declared(self.plan.n) > Fraction(1, self.plan.n):
            raise InputError(f"query {query.name!r} declares sensitivity above 1/n; online MW answers "
                             "normalized linear queries only")

    # ------------------------------------------------------------------ state
    def save(self, path: str | Path) -> None:
        """Write the whole session to ``path`` atomically (see :mod:`dprelease.mechanisms.online_state`).

        The file is PRIVATE to the curator: it holds the sparse vector's noisy threshold, a
        fingerprint of the data and, for a seeded session, the generator's state.
        """
        save_session(self, Path(path))

    @classmethod
    def load(cls, path: str | Path, dataset: Dataset, *, max_cells: int = DEFAULT_MAX_CELLS,
             epsilon: float | None = None, delta: float | None = None, beta: float | None = None,
             alpha: float | None = None, max_queries: int | None = None, mode: str | None = None,
             accuracy: float | None = None, warm_share: float | None = None, warm_workload: str | None = None,
             representation: str | None = None, seed: int | None = None) -> OnlinePrivateMW:
        """Resume a saved session on the same table; nothing is charged again and nothing is reset.

        A seeded session continues its generator exactly; a secure one continues with fresh
        secure randomness. A damaged or foreign file raises :class:`~dprelease.errors.InputError`.

        The other keywords are the constructor's: each one given must equal the saved session's exactly
        (``representation="auto"``: any), else :class:`~dprelease.errors.InputError` names it, before the
        data is read. A session keeps its parameters; this refuses a state file whose budget or plan is
        not the one the caller means to resume (``dprelease online --state`` makes the same check).
        """
        expected = {"epsilon": epsilon, "delta": delta, "beta": beta, "alpha": alpha, "max_queries": max_queries,
                    "mode": mode, "accuracy": accuracy, "warm_share": warm_share, "warm_workload": warm_workload,
                    "representation": representation, "seed": seed}
        return load_session(cls, Path(path), dataset, max_cells=max_cells, expected=expected)

    def describe(self) -> dict[str, object]:
        """Public summary: plan, counters and ledger (no secret state)."""
        summary = {"plan": self.plan.to_json(), "queries_seen": self.queries_seen, "updates_used": self.updates_used,
                   "from_hypothesis": self.from_hypothesis, "exhausted": self.exhausted,
                   "privacy_ledger": self.accountant.to_json(), "seeded": self.seeded,
                   "representation": self.representation}
        if self.mode != "book":  # the book's summary is unchanged (tests/test_identical_releases.py)
            summary |= {"mode": self.mode, "synopsis": self.synopsis, "halting": self.plan.halting}
        return summary


def representation_of(model: object) -> str:
    return "factored" if isinstance(model, FactoredModel) else "histogram"


def _clip(value: float) -> float:
    return min(1.0, max(0.0, float(value)))


__all__ = ["HYPOTHESIS", "MEASUREMENT", "MODES", "WARM_CHARGE_LABEL", "OnlineAnswer", "OnlineMWPlan",
           "OnlinePrivateMW", "WarmPlan"]
