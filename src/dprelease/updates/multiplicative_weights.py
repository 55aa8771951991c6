"""The multiplicative weights update rule (Dwork & Roth Sec. 4.2.1, Algorithm 5).

    r_t = f_t            if f_t(x^t) > v_t
    r_t = 1 - f_t        otherwise
    x^{t+1}_i  proportional to  x^t_i * exp(-eta * r_t(i)),   eta = alpha / 2

Thm 4.10: starting from uniform x^1, if every update has |f_t(x) - f_t(x^t)| > alpha
and |f_t(x) - v_t| < alpha, there are at most 4 ln|X| / alpha^2 updates; the potential
KL(x || x^t) drops by at least alpha^2 / 4 at each (Lemma 4.12 with eta = alpha / 2).
So MW is a T(alpha)-database update algorithm with T(alpha) = 4 ln|X| / alpha^2.

In the log domain, exp(-eta (1 - f)) and exp(+eta f) differ by a constant factor,
which normalization removes: the update is log x += -/+ eta * f.

Representations. x^t is an explicit :class:`HistogramModel` (|X| cells), or a
:class:`FactoredModel`: for a product-form query q(x) = prod_{a in C} w_a[x_a] the update adds
-/+ eta * outer(w_a) to the potential on the query's attributes C, a function of x_C only, so
the factored model holds *exactly* the distribution the histogram would (normalization is
implicit in log Z). It is the same x^t, so Thm 4.10 and T(alpha) hold unchanged. Queries that
are not product-form (:class:`~dprelease.queries.dense.DenseQuery`, callables) have no such
form and are refused on the factored model. The model grows a potential per new attribute
set, so its size is capped (``max_model_cells``): :meth:`MultiplicativeWeights.for_queries`
checks, from the public query set, that the model over *every* attribute set the queries use
fits, before any budget is spent; it then starts from zero potentials on all of them, so no
update can change the model's structure or meet the cap mid-run.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from dprelease.domain import DEFAULT_MAX_CELLS, Domain
from dprelease.errors import DomainTooLargeError, InputError
from dprelease.queries.base import LinearQuery
from dprelease.queries.product import ProductQuery
from dprelease.queries.workload import QueryList, Workload
from dprelease.representations import REPRESENTATIONS, resolve_representation
from dprelease.representations.factored import DEFAULT_MAX_MODEL_CELLS, FactoredModel, model_size
from dprelease.representations.histogram import HistogramModel
from dprelease.representations.junction_tree import Clique, expand
from dprelease.validation import check_positive, check_positive_int



def mw_max_updates(*, alpha: float, universe_size: int) -> float:
    """T(alpha) = 4 ln|X| / alpha^2 (Thm 4.10)."""
    check_positive(alpha, "alpha")
    return 4 * math.log(universe_size) / alpha**2


def kl_potential(true_distribution: np.ndarray, model: HistogramModel) -> float:
    """Psi_t = KL(x || x^t) = sum_i x_i ln(x_i / x^t_i), x normalized (the proof of Thm 4.10)."""
    x = np.asarray(true_distribution, dtype=np.float64).reshape(model.log_probs.shape)
    x = x / x.sum()
    support = x > 0
    return float(np.sum(x[support] * (np.log(x[support]) - model.log_probs[support])))


def product_cliques(queries: object) -> list[Clique]:
    """The attribute sets (domain order) of a query set's product-form queries; refuses any other query.

    Public: it reads the query set only. A :class:`Workload`'s queries are its marginals' cells.
    """
    if isinstance(queries, Workload):
        return list(queries.marginals)
    if not isinstance(queries, QueryList):
        raise InputError(f"representation='factored' needs a Workload or a QueryList of ProductQuery, got "
                         f"{type(queries).__name__}; use representation='histogram'")
    found: dict[Clique, None] = {}
    for query in queries.queries:
        check_product_form(query)
        if query.attributes:
            found[queries.domain.canonical(query.attributes)] = None
    return list(found)


def check_product_form(query: object) -> None:
    """Refuse a query the factored model cannot apply: MW on it is exact only for product-form queries."""
    if not isinstance(query, ProductQuery):
        raise InputError(
            f"representation='factored' applies multiplicative weights to product-form queries only (ProductQuery, "
            f"a Workload's cells); query {getattr(query, 'name', '')!r} is a {type(query).__name__}, whose update "
            "touches every attribute at once: use representation='histogram'")


def factored_step(model: FactoredModel, query: ProductQuery, step: float) -> FactoredModel:
    """log p += step * q on a factored model: exact, as q is a function of ``query.attributes`` only.

    The outer product of the weights is added to the smallest potential whose clique holds the
    query's attributes, else to a new potential on exactly those attributes (which may meet the
    model's cap: :meth:`MultiplicativeWeights.check_query` checks that first). An empty query
    (q = 1) adds a constant, which normalization removes.
    """
    if not query.attributes:
        return model
    domain = model.domain
    clique = domain.canonical(query.attributes)
    order = [query.attributes.index(a) for a in clique]
    table = np.ones(())
    for w in (query.weights[i] for i in order):  # outer(w_a ...) in domain order
        table = np.multiply.outer(table, w)
    home = model.potential_holding(clique)
    if home is None:
        return model.with_potentials({clique: step * table})
    return model.with_potentials({home: model.potentials[home] + step * expand(clique, table, home)})


@dataclass(frozen=True)
class MultiplicativeWeights:
    """Algorithm 5 on an explicit :class:`HistogramModel` or a :class:`FactoredModel`; ``eta`` defaults to alpha / 2.

    Args:
        eta: the learning rate (default alpha / 2, Thm 4.10's choice).
        max_cells: cap on the explicit histogram's cells.
        representation: ``"histogram"`` (the default), ``"factored"`` (log-linear potentials on the
            queries' attribute sets; product-form queries only), or ``"auto"`` (the histogram when
            the domain fits ``max_cells``, else factored).
        max_model_cells: cap on the factored model's junction-tree cells.
        cliques: the factored model's starting potentials (zero), set by :meth:`for_queries`.

    >>> d = Domain(("a", "b", "c"), (2, 3, 2))
    >>> rule = MultiplicativeWeights(representation="factored")
    >>> q = ProductQuery.conjunction(d, {"a": 1, "b": 2})
    >>> model = rule.update(rule.initial(d), q, 0.5, alpha=0.5)
    >>> round(q.evaluate(model), 6) == round(q.evaluate(model.to_histogram()), 6)
    True
    """

    eta: float | None = None
    max_cells: int = DEFAULT_MAX_CELLS
    name: str = "multiplicative-weights"
    representation: str = "histogram"
    max_model_cells: int = DEFAULT_MAX_MODEL_CELLS
    cliques: tuple[Clique, ...] = ()

    def __post_init__(self) -> None:
        if self.eta is not None:
            check_positive(self.eta, "eta")
        if self.representation not in REPRESENTATIONS:
            raise InputError(f"representation must be one of {list(REPRESENTATIONS)}, got {self.representation!r}")
        check_positive_int(self.max_cells, "max_cells")
        check_positive_int(self.max_model_cells, "max_model_cells")
        object.__setattr__(self, "cliques", tuple(tuple(c) for c in self.cliques))

    # ------------------------------------------------------------ public checks
    def resolved_representation(self, domain: Domain) -> str:
        return resolve_representation(self.representation, domain, max_cells=self.max_cells)

    def check_queries(self, queries: object, domain: Domain) -> None:
        """Public checks of a whole query set, before any budget is spent (see :meth:`for_queries`)."""
        self.for_queries(queries, domain)

    def for_queries(self, queries: object, domain: Domain) -> MultiplicativeWeights:
        """This rule for a known query set (the iterative construction's Q), checked from public information.

        Histogram: |X| must fit ``max_cells``. Factored: every query must be product-form, and the
        model over *all* the queries' attribute sets must fit ``max_model_cells``
        (:class:`~dprelease.errors.DomainTooLargeError` otherwise); the returned rule starts from
        zero potentials on all of them. Any run may update on any query of Q, so this is the only
        check that keeps a run from meeting the cap after budget was spent in a data-dependent way.
        """
        if self.resolved_representation(domain) == "histogram":
            domain.check_fits(self.max_cells)
            return dataclasses.replace(self, representation="histogram")
        cliques = product_cliques(queries)
        maximal = [c for c in cliques if not any(set(c) < set(other) for other in cliques)]
        total, largest = model_size(domain, maximal) if maximal else (0, 0)
        if total > self.max_model_cells:
            raise DomainTooLargeError(
                f"the factored model for this query set needs a junction tree of {total:,} cells (largest clique "
                f"{largest:,}) over its {len(maximal)} attribute sets, above max_model_cells={self.max_model_cells:,}: "
                "multiplicative weights may update on any query, so the model over all of them must fit; use "
                "queries on fewer or smaller attribute sets, or raise max_model_cells")
        return dataclasses.replace(self, representation="factored", cliques=tuple(maximal))

    def check_query(self, model: object, query: object) -> None:
        """Refuse, before anything is spent on it, a query that ``model`` could not be updated on.

        Public: depends on the query's type and attributes and on the model's cliques (themselves
        fixed by which earlier queries caused updates, i.e. by released outputs).
        """
        if not isinstance(model, FactoredModel):
            return
        check_product_form(query)
        if not query.attributes:
            return
        clique = model.domain.canonical(query.attributes)
        if not model.fits([clique]):
            total, _ = model_size(model.domain, [*model.potentials, clique])
            raise DomainTooLargeError(
                f"query {query.name!r} on {list(clique)} would grow the factored model to {total:,} junction-tree "
                f"cells, above max_model_cells={model.max_model_cells:,}; it is refused before anything is spent "
                "on it: ask about fewer attributes at once, or raise max_model_cells")

    # ---------------------------------------------------------------- protocol
    def initial(self, domain: Domain) -> HistogramModel | FactoredModel:
        """x^1: the uniform distribution over X (factored: zero potentials on ``cliques``)."""
        if self.resolved_representation(domain) == "histogram":
            return HistogramModel.uniform(domain, max_cells=self.max_cells)
        return FactoredModel.uniform(domain, cliques=self.cliques, max_model_cells=self.max_model_cells)

    def answers(self, model: HistogramModel | FactoredModel, queries: object) -> np.ndarray:
        return queries.answers(model)

    def update(self, model: HistogramModel | FactoredModel, query: LinearQuery, noisy_answer: float, *,
               alpha: float) -> HistogramModel | FactoredModel:
        """x^{t+1} = MW(x^t, f_t, v_t) (Algorithm 5)."""
        eta = self.eta if self.eta is not None else alpha / 2
        direction = -1.0 if query.evaluate(model) > noisy_answer else 1.0
        if isinstance(model, FactoredModel):
            check_product_form(query)
            return factored_step(model, query, direction * eta)
        return HistogramModel.from_log_weights(model.domain, model.log_probs + direction * eta * query.factor())

    def max_updates(self, *, alpha: float, domain: Domain) -> float:
        return mw_max_updates(alpha=alpha, universe_size=domain.size)
