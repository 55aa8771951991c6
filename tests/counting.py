"""Counters the refusal tests share: what a run drew from the random sources before it was stopped."""

from __future__ import annotations


def count_random_draws(monkeypatch) -> list[int]:
    """Record every draw from any of the project's random sources (the only source of noise)."""
    from dprelease.privacy import rng as rng_module

    draws: list[int] = []
    for cls in (rng_module.SecureRandom, rng_module.SeededRandom):
        real = cls.raw_bits
        monkeypatch.setattr(cls, "raw_bits", lambda self, size, real=real: draws.append(size) or real(self, size))
    return draws
