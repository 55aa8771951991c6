"""The privacy kernel: the only package that adds noise or reads true answers.

Audit the guarantee here: rng (secure randomness), noise (Laplace and exact
calibration), selection (exponential mechanism), accountant (composition and the
ledger), measurer (the private data's only reader).
"""

from dprelease.privacy.accountant import Charge, PrivacyAccountant, Reservation, advanced_composition
from dprelease.privacy.measurer import PrivateMeasurer
from dprelease.privacy.noise import laplace, laplace_scale
from dprelease.privacy.rng import RandomSource, SecureRandom, SeededRandom, make_rng
from dprelease.privacy.selection import exponential_mechanism

__all__ = [
    "Charge", "PrivacyAccountant", "PrivateMeasurer", "RandomSource", "Reservation", "SecureRandom",
    "SeededRandom", "advanced_composition", "exponential_mechanism", "laplace", "laplace_scale", "make_rng",
]
