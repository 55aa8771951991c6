"""Queries: product-form and dense linear queries, marginal workloads, query lists."""

from dprelease.queries.base import LinearQuery, MarginalSource
from dprelease.queries.dense import DenseQuery
from dprelease.queries.product import ProductQuery
from dprelease.queries.workload import QueryList, Workload

__all__ = ["DenseQuery", "LinearQuery", "MarginalSource", "ProductQuery", "QueryList", "Workload"]
