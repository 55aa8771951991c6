"""A release: the object a run returns (:mod:`.core`), its files (:mod:`.files`), its labelled answers (:mod:`.labels`)."""

from dprelease.release.core import PRIVACY_UNIT, Release
from dprelease.release.files import SIDE_SUFFIX, write_atomic
from dprelease.release.labels import CodeLabels, ValueLabels

__all__ = ["PRIVACY_UNIT", "SIDE_SUFFIX", "CodeLabels", "Release", "ValueLabels", "write_atomic"]
