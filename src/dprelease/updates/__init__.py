"""Database-update algorithms (Def. 5.4): each with its T(alpha)."""

from dprelease.updates.base import DatabaseUpdate
from dprelease.updates.median import MedianMechanism, MedianModel, median_max_updates
from dprelease.updates.multiplicative_weights import MultiplicativeWeights, kl_potential, mw_max_updates
from dprelease.updates.perceptron import Perceptron, SignedHistogram, l2_potential, perceptron_max_updates

__all__ = [
    "DatabaseUpdate", "MedianMechanism", "MedianModel", "MultiplicativeWeights", "Perceptron", "SignedHistogram",
    "kl_potential", "l2_potential", "median_max_updates", "mw_max_updates", "perceptron_max_updates",
]
