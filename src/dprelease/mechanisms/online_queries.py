"""The query forms an online session is asked in, shared by ``dprelease online`` (one JSON line per query)
and ``dprelease serve`` (one request body per query), so that both accept exactly the same queries:

* ``{"where": {"sex": 1, "race": [0, 2]}}``: the fraction of rows matching a conjunction (a value, or a
  list of values, per attribute);
* ``{"weights": {"age": [0, 0.5, 1, 1]}}``: a product-form query, weights in [0, 1];
* ``{"marginal": ["sex", "race"]}``: every cell of the marginal, in C order, each one counting query of the
  session's stream (at most :data:`MAX_MARGINAL_CELLS` cells).

On a table of raw values read through a schema, ``labels`` gives each attribute's label per code (the schema's, as
a labelled marginal shows them): a ``where`` value may then be a label (a string: ``"Private"``, the bin
``"21..25"``, ``"NULL"``, ``"<other>"``) or JSON ``null`` for the NULL bucket, besides a code (an integer), and a
marginal's answer lists its attributes' labels.

Everything here is public: parsing reads the analyst's query and the public domain, the checks read the
session's public counters and model, and the answers are the session's own (post-processing).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from dprelease.domain import Domain
from dprelease.errors import BudgetExhaustedError, DomainTooLargeError, InputError
from dprelease.mechanisms.online_mw import OnlinePrivateMW
from dprelease.queries.product import ProductQuery

#: The most cells one marginal may ask (each is one query of the session's stream).
MAX_MARGINAL_CELLS = 65_536
FORMS = ("where", "weights", "marginal")


def parse_queries(record: dict[str, object], domain: Domain, *, own_fields: Sequence[str] = (),
                  name: str = "", labels: Mapping[str, Sequence[str]] | None = None,
                  ) -> tuple[list[ProductQuery], dict[str, object]]:
    """The queries ``record`` asks, and what to echo with their answers (a marginal's attributes and shape).

    ``own_fields`` are the caller's own keys allowed beside the query (``"id"``, ``"request_id"``); ``name``
    names a ``where`` or ``weights`` query; ``labels`` (a schema table's, see the module doc) lets ``where`` name
    values by label. Raises :class:`InputError` naming what is wrong.
    """
    unknown = sorted(set(record) - {*own_fields, *FORMS})
    if unknown:
        also = f" (and {', '.join(map(repr, own_fields))})" if own_fields else ""
        raise InputError(f"unknown field(s) {unknown}; a query has one of 'where', 'weights' or 'marginal'{also}")
    if sum(form in record for form in FORMS) != 1:
        raise InputError("a query needs exactly one of 'where', 'weights' and 'marginal'")
    if "where" in record:
        return [ProductQuery.conjunction(domain, record["where"], name=name, labels=labels)], {}
    if "weights" in record:
        return [ProductQuery.from_weights(domain, record["weights"], name=name)], {}
    attributes = record["marginal"]
    if not isinstance(attributes, list) or not attributes or not all(isinstance(a, str) for a in attributes) \
            or len(set(attributes)) != len(attributes):
        raise InputError(f"marginal must be a list of distinct attribute names, got {attributes!r}")
    shape = [domain.size_of(a) for a in attributes]
    if math.prod(shape) > MAX_MARGINAL_CELLS:
        raise InputError(f"marginal {attributes} has {math.prod(shape):,} cells; at most {MAX_MARGINAL_CELLS:,} per "
                         "query (each cell is one query of the session)")
    cells = [dict(zip(attributes, map(int, index))) for index in np.ndindex(*shape)]
    extra: dict[str, object] = {"marginal": attributes, "shape": shape}
    if labels is not None:
        extra["labels"] = [list(labels[a]) for a in attributes]
    return [ProductQuery.conjunction(domain, where) for where in cells], extra


def check_together(session: OnlinePrivateMW, queries: list[ProductQuery]) -> None:
    """The public checks before any of ``queries`` (one, or a marginal's cells) is asked; nothing is drawn.

    Raises :class:`BudgetExhaustedError` when the session is used up or has fewer queries left of its
    declared stream than asked, and :class:`InputError` (``DomainTooLargeError``) when the first cannot be
    asked (a marginal's cells share their attributes, so one check covers them all).
    """
    refusal = session.refusal()
    if refusal is None and len(queries) > session.remaining_queries:
        refusal = (f"{len(queries)} queries asked together (a marginal's cells) and the session has "
                   f"{session.remaining_queries} left of its declared stream; none is asked")
    if refusal is not None:
        raise BudgetExhaustedError(refusal)
    session.check(queries[0])


def answer_record(session: OnlinePrivateMW, query: ProductQuery) -> dict[str, object]:
    """One answer as JSON: ``value``, ``source``, ``query`` (its index in the stream) and ``updates``; or
    ``{"refused": true, "reason": ...}`` when the session refuses it before anything is drawn for it (its
    cut-off reached by an earlier cell of the same marginal)."""
    try:
        answer = session.ask(query)
    except (BudgetExhaustedError, DomainTooLargeError) as exc:
        return {"refused": True, "reason": str(exc)}
    return {"value": answer.value, "source": answer.source, "query": answer.index, "updates": answer.updates}
