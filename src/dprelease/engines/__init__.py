"""Engines: where the private table lives and how it is counted (the seam of every private read).

A mechanism never sees rows. It sees a :class:`~dprelease.engines.base.PrivateTable`: the public
``domain`` and ``n``, and counts (marginal contingency tables) computed wherever the data lives.
:class:`dprelease.data.Dataset` is the in-memory implementation.
"""

from dprelease.engines.base import PrivateTable

__all__ = ["PrivateTable"]
