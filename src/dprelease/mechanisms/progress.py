"""Progress of a mechanism's rounds: :class:`dprelease.progress.Progress` (kept here for the mechanisms' imports)."""

from dprelease.progress import Progress, ProgressCallback

__all__ = ["Progress", "ProgressCallback"]
