"""Queries: product-form and dense linear queries, marginal workloads, query lists, callable (non-linear) queries."""

from dprelease.queries.base import LinearQuery, MarginalSource
from dprelease.queries.callable import CallableQuery, CallableQuerySet
from dprelease.queries.dense import DenseQuery
from dprelease.queries.product import ProductQuery
from dprelease.queries.workload import QueryList, Workload

__all__ = [
    "CallableQuery", "CallableQuerySet", "DenseQuery", "LinearQuery", "MarginalSource", "ProductQuery", "QueryList",
    "Workload",
]
