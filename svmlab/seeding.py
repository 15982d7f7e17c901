"""Deterministic seeds derived from the master seed and names (folds, solvers, data)."""

from __future__ import annotations

import zlib

import numpy as np


def derive_seed(seed: int, *parts) -> int:
    """A 31-bit seed that depends only on ``seed`` and the string form of ``parts``.

    The same (seed, dataset, repeat) always gives the same folds, whatever the solver,
    the machine or the process; Python's salted ``hash`` is deliberately not used.
    """
    words = [int(seed) & 0xFFFFFFFF] + [zlib.crc32(str(p).encode()) for p in parts]
    return int(np.random.SeedSequence(words).generate_state(1)[0] & 0x7FFFFFFF)
