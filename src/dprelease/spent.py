"""The (epsilon, delta) total that Synthesizer.spent and a schema draft's spent return.

Outside the privacy package on purpose: it is a value, not a mechanism, and the schema
package (which the privacy kernel's measurer imports) needs it.
"""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple


class Spent(NamedTuple):
    """An exact (epsilon, delta) total: two Fractions that unpack and compare as the pair.

    It prints in decimals (``Spent(epsilon=1, delta=1e-09)``): the Fraction of the float 1e-9 is
    ``4835703278458517/4835703278458516698824704``, exact but unreadable. The fields stay exact.
    """

    epsilon: Fraction
    delta: Fraction

    def __repr__(self) -> str:
        return f"Spent(epsilon={float(self.epsilon):.6g}, delta={float(self.delta):.6g})"
