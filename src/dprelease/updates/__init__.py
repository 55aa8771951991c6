"""Database-update algorithms (Def. 5.4): each with its T(alpha)."""

from dprelease.updates.base import DatabaseUpdate
from dprelease.updates.multiplicative_weights import MultiplicativeWeights, kl_potential, mw_max_updates

__all__ = ["DatabaseUpdate", "MultiplicativeWeights", "kl_potential", "mw_max_updates"]
