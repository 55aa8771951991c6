"""Value labels for released marginals: the codes by default, a schema's values when there is one.

A released marginal is an array of fractions indexed by integer codes. :func:`labelled` turns it into
a pandas Series whose (Multi)Index names each axis after its attribute and each cell after its
values, taken from a :class:`ValueLabels` hook: :class:`CodeLabels` (the codes themselves) unless
the release carries another (a public schema's ``labels(attribute)``, issue 13). Without pandas the
array itself is returned. Everything here is post-processing of public output.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from dprelease.domain import Domain
from dprelease.errors import InputError


@runtime_checkable
class ValueLabels(Protocol):
    """Anything that names the values of an attribute: ``labels(attribute)`` gives one label per code."""

    def labels(self, attribute: str) -> Sequence[object]:
        """The label of each code ``0 .. size-1`` of ``attribute``, in code order."""
        ...


class CodeLabels:
    """The default labels: each value is its integer code."""

    def __init__(self, domain: Domain) -> None:
        self.domain = domain

    def labels(self, attribute: str) -> Sequence[object]:
        return range(self.domain.size_of(attribute))


def checked_labels(hook: ValueLabels, domain: Domain, attribute: str) -> list[object]:
    """``hook.labels(attribute)`` as a list, with an error naming the attribute when its length is wrong."""
    values = list(hook.labels(attribute))
    size = domain.size_of(attribute)
    if len(values) != size:
        raise InputError(f"labels of attribute {attribute!r} must name its {size} values, got {len(values)}")
    return values


def pandas_or_none():
    """The pandas module, or None when it is not installed (labelled answers are then plain arrays)."""
    try:
        import pandas
    except ImportError:
        return None
    return pandas


def labelled(values: np.ndarray, attributes: tuple[str, ...], domain: Domain, hook: ValueLabels | None) -> object:
    """``values`` (axes in the order of ``attributes``) as a pandas Series, or the array without pandas.

    The Series is flat, C order, indexed by a MultiIndex (an Index for one attribute) whose level
    names are the attributes and whose entries are the value labels, each level in code order (ordered categories);
    ``series.unstack()`` makes a table with rows and columns in that order.
    """
    pandas = pandas_or_none()
    if pandas is None:
        return values
    hook = hook if hook is not None else CodeLabels(domain)
    levels = [checked_labels(hook, domain, a) for a in attributes]
    if len(attributes) == 1:
        index = pandas.Index(levels[0], name=attributes[0])
    else:  # ordered categories: unstack() keeps the codes' order, not the labels' sorted one ("21..25" before "6..10")
        index = pandas.MultiIndex.from_product(
            [pandas.CategoricalIndex(level, categories=level, ordered=True) for level in levels], names=list(attributes))
    return pandas.Series(values.reshape(-1), index=index, name="fraction")
