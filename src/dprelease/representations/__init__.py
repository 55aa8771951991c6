"""Representations of the synthetic distribution D (the book's class of data structures)."""

from dprelease.domain import Domain
from dprelease.errors import InputError
from dprelease.representations.histogram import HistogramModel

#: An explicit histogram, a factored (log-linear) model, or ``auto``: the histogram when the public
#: domain fits ``max_cells``, else the factored model. MWEM, IC-MW and online MW all choose this way.
REPRESENTATIONS = ("auto", "histogram", "factored")


def resolve_representation(representation: str, domain: Domain, *, max_cells: int) -> str:
    """``histogram`` or ``factored``; ``auto`` decides from the public domain size."""
    if representation not in REPRESENTATIONS:
        raise InputError(f"representation must be one of {list(REPRESENTATIONS)}, got {representation!r}")
    if representation != "auto":
        return representation
    return "histogram" if domain.size <= max_cells else "factored"


__all__ = ["HistogramModel", "REPRESENTATIONS", "resolve_representation"]
