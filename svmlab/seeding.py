"""Deterministic seeds derived from the master seed and names (folds, solvers, data)."""

from __future__ import annotations

import zlib

import numpy as np

from svmlab.errors import ConfigError

#: The largest seed: numpy's and scikit-learn's ``random_state`` take 0 .. 2**32 - 1, and
#: :func:`derive_seed` uses all 32 bits, so every seed of this range gives its own folds.
MAX_SEED = 2**32 - 1


def check_seed(value, key: str = "seed", *, nullable: bool = False):
    """``value`` when it is a seed every component accepts: an integer 0 .. 2**32 - 1
    (or None when ``nullable``).

    Raises
    ------
    ConfigError
        One line naming ``key``, the value and the accepted range.

    >>> check_seed(7), check_seed(None, "random_state", nullable=True)
    (7, None)
    """
    if value is None and nullable:
        return None
    accepted = f"{'null or ' if nullable else ''}an integer from 0 to {MAX_SEED} (2^32 - 1)"
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ConfigError(f"{key}={_shown(value)} is not a seed; give {accepted}")
    if not 0 <= value <= MAX_SEED:
        raise ConfigError(f"{key}={value} is out of range; a seed is {accepted}")
    return int(value)


def _shown(value) -> str:
    return "null" if value is None else repr(value) if isinstance(value, str) else str(value)


def derive_seed(seed: int, *parts) -> int:
    """A 31-bit seed that depends only on ``seed`` and the string form of ``parts``.

    The same (seed, dataset, repeat) always gives the same folds, whatever the solver,
    the machine or the process; Python's salted ``hash`` is deliberately not used.
    ``seed`` must be in 0 .. :data:`MAX_SEED` (a larger one would silently give the
    folds of another seed).
    """
    if not 0 <= int(seed) <= MAX_SEED:
        raise ValueError(f"seed must be an integer from 0 to {MAX_SEED}, got {seed}")
    words = [int(seed)] + [zlib.crc32(str(p).encode()) for p in parts]
    return int(np.random.SeedSequence(words).generate_state(1)[0] & 0x7FFFFFFF)
