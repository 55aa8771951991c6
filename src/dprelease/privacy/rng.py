"""Randomness for every noise draw in dprelease.

Default: :class:`SecureRandom`, which reads the operating system's CSPRNG
(``os.urandom``) for every draw, so noise cannot be predicted from earlier outputs
or from a guessed seed. On request, :class:`SeededRandom` gives reproducible runs
for research and tests, and warns (:class:`~dprelease.errors.SeededRunWarning`)
that such a run is not fit for a real release.

Both expose the same small interface built on one primitive, ``uniform_open``:
uniforms on the 53-bit grid strictly inside (0, 1), so ``log(u)`` never sees 0.
Nothing in dprelease draws from numpy's global state or the ``random`` module.
"""

from __future__ import annotations

import os

import numpy as np

from dprelease.errors import InputError, SeededRunWarning, warn_user
from dprelease.validation import check_positive_int

_TWO_53 = float(2**53)


class RandomSource:
    """Derived draws, all built from :meth:`uniform_open` and :meth:`raw_bits`."""

    is_secure: bool = False

    def raw_bits(self, size: int) -> np.ndarray:  # pragma: no cover - abstract
        """``size`` independent uniform uint64 words."""
        raise NotImplementedError

    def uniform_open(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Uniform draws strictly inside (0, 1): (k + 1/2) / 2**53 for k uniform on 0..2**53-1."""
        shape = (size,) if isinstance(size, int) else tuple(size)
        count = int(np.prod(shape))
        k = self.raw_bits(count) >> np.uint64(11)
        return ((k.astype(np.float64) + 0.5) / _TWO_53).reshape(shape)

    def signs(self, size: int | tuple[int, ...]) -> np.ndarray:
        """Independent fair +/-1 draws."""
        shape = (size,) if isinstance(size, int) else tuple(size)
        bits = self.raw_bits(int(np.prod(shape))) >> np.uint64(63)
        return (1.0 - 2.0 * bits.astype(np.float64)).reshape(shape)

    def standard_exponential(self, size: int | tuple[int, ...]) -> np.ndarray:
        return -np.log(self.uniform_open(size))

    def standard_gumbel(self, size: int | tuple[int, ...]) -> np.ndarray:
        return -np.log(-np.log(self.uniform_open(size)))

    def choice(self, probabilities: np.ndarray, size: int) -> np.ndarray:
        """Indices drawn i.i.d. from ``probabilities`` (post-processing only)."""
        cumulative = np.cumsum(probabilities, dtype=np.float64)
        draws = self.uniform_open(size) * cumulative[-1]
        return np.minimum(np.searchsorted(cumulative, draws, side="right"), len(cumulative) - 1)

    def permutation(self, n: int) -> np.ndarray:
        return np.argsort(self.uniform_open(n), kind="stable")


class SecureRandom(RandomSource):
    """Draws from the operating system's cryptographically secure generator."""

    is_secure = True

    def raw_bits(self, size: int) -> np.ndarray:
        return np.frombuffer(os.urandom(8 * size), dtype=np.uint64).copy()

    def __repr__(self) -> str:
        return "SecureRandom()"


class SeededRandom(RandomSource):
    """Reproducible draws from numpy's PCG64 with a fixed seed. Not for real releases."""

    def __init__(self, seed: int) -> None:
        self.seed = check_positive_int(seed, "seed", minimum=0)
        self._generator = np.random.Generator(np.random.PCG64(self.seed))

    def raw_bits(self, size: int) -> np.ndarray:
        return self._generator.integers(0, 2**64, size=size, dtype=np.uint64, endpoint=False)

    def state(self) -> dict[str, object]:
        """The seed and the generator's exact position (JSON-ready), so a saved run can resume its stream."""
        return {"seed": self.seed, "bit_generator": self._generator.bit_generator.state}

    @classmethod
    def from_state(cls, state: dict[str, object]) -> SeededRandom:
        """The generator :meth:`state` described, continuing exactly where it stopped."""
        if not isinstance(state, dict) or "seed" not in state or "bit_generator" not in state:
            raise InputError(f"seeded generator state must hold 'seed' and 'bit_generator', got {state!r:.200}")
        rng = cls(state["seed"])
        try:
            rng._generator.bit_generator.state = state["bit_generator"]
        except (TypeError, ValueError, KeyError) as exc:
            raise InputError(f"seeded generator state is not a PCG64 state: {exc}") from None
        return rng

    def __repr__(self) -> str:
        return f"SeededRandom(seed={self.seed})"


def make_rng(seed: int | None = None, *, warn: bool = True) -> RandomSource:
    """The secure generator, or a seeded one (with a :class:`SeededRunWarning`) when ``seed`` is given."""
    if seed is None:
        return SecureRandom()
    rng = SeededRandom(seed)
    if warn:
        warn_user(f"seed={seed} makes this run reproducible and its noise predictable: "
                  "it is not fit for a real release", SeededRunWarning)
    return rng
