"""The project's exceptions.

Every user mistake raises a subclass of :class:`DPReleaseError`; it is also a
``ValueError`` or ``TypeError`` so ordinary Python code can catch it the usual
way. The CLI turns exactly these into one line on stderr and exit code 2.
"""

from __future__ import annotations

import sys
import warnings


def warn_user(message: str, category: type[Warning] = UserWarning) -> None:
    """``warnings.warn``, shown at the first line outside dprelease that led here: the user's own call (their
    ``fit_sample``, not the library's ``synthesize`` inside it), however deep the path in between. A frame is the
    library's when its module is ``dprelease`` or below it (by name: no file paths to resolve)."""
    level, frame = 2, sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").partition(".")[0] == "dprelease":
        level, frame = level + 1, frame.f_back
    warnings.warn(message, category, stacklevel=level)


class DPReleaseError(Exception):
    """Base class of every error dprelease raises on purpose."""


class InputError(DPReleaseError, ValueError):
    """A parameter, file or table has a bad value."""


class InputTypeError(DPReleaseError, TypeError):
    """A parameter has the wrong type."""


class DomainTooLargeError(InputError):
    """A representation over the domain would exceed the memory cap."""


class BudgetExceededError(DPReleaseError):
    """A privacy charge would exceed the budget; nothing was charged or released."""


class SeededRunWarning(UserWarning):
    """A run used a seeded (reproducible, predictable) generator: not fit for a real release."""


class WeakPrivacyWarning(UserWarning):
    """A privacy parameter so large that the guarantee protects little (epsilon above 10): the run goes on
    as asked, and says so."""


class BudgetExhaustedError(BudgetExceededError):
    """An interactive mechanism has used up its plan (its cut-off of updates or its declared
    number of queries) and refuses every further query; the answers it already gave stay valid."""


class EngineError(DPReleaseError):
    """An engine failed while reading the private table (a file vanished, a Spark session died, the engine ran
    out of memory). The message names the table and the failure, never a private value or a count of private
    rows; the privacy kernel charges nothing for a read that failed (privacy/measurer.py)."""
