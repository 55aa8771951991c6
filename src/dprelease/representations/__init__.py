"""Representations of the synthetic distribution D (the book's class of data structures)."""

from dprelease.domain import Domain
from dprelease.errors import InputError
from dprelease.representations.histogram import HistogramModel

#: An explicit histogram, a factored (log-linear) model, or ``auto``: the histogram when the public
#: domain fits ``max_cells``, else the factored model. IC-MW and online MW choose this way (MW over all of X,
#: the book's rule, wherever it fits); MWEM also keeps the domain under :data:`MWEM_HISTOGRAM_CELLS`.
REPRESENTATIONS = ("auto", "histogram", "factored")


#: The largest domain MWEM's ``auto`` keeps as an explicit histogram (8 MB per float64 copy). Above it the
#: histogram costs minutes and buys nothing: 1.8 M cells (the suite's spread table) took 53-353 s and 1.5 GB
#: against 0.3-25 s for the factored model at the same error, 8.1 M cells (a loan log) 315 s against 1 s
#: (docs/decisions.md, "MWEM's representation="auto" keeps the histogram only up to 1,000,000 cells").
MWEM_HISTOGRAM_CELLS = 1_000_000


def resolve_representation(representation: str, domain: Domain, *, max_cells: int,
                           auto_cells: int | None = None) -> str:
    """``histogram`` or ``factored``; ``auto`` decides from the public domain size: the histogram when the
    domain has at most ``max_cells`` cells (and at most ``auto_cells``, when given), else factored."""
    if representation not in REPRESENTATIONS:
        raise InputError(f"representation must be one of {list(REPRESENTATIONS)}, got {representation!r}")
    if representation != "auto":
        return representation
    limit = max_cells if auto_cells is None else min(max_cells, auto_cells)
    return "histogram" if domain.size <= limit else "factored"


__all__ = ["HistogramModel", "MWEM_HISTOGRAM_CELLS", "REPRESENTATIONS", "resolve_representation"]
