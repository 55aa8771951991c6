"""Representations of the synthetic distribution D (the book's class of data structures)."""

from dprelease.representations.histogram import HistogramModel

__all__ = ["HistogramModel"]
