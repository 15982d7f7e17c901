"""Population operators of EvoSVM (Mierswa (2009), Sec. 3.1.2.2): selection, crossover,
mutation, 1/5 rule. Readings: docs/decisions/evo.md.

All random numbers come from one ``numpy.random.RandomState`` in a fixed order, so a seed
fixes the whole run. Individuals are rows of a ``(P, n)`` array.
"""

from __future__ import annotations

import math
from collections import deque

import numpy as np

from svmlab.nsga2 import uniform_crossover

__all__ = [
    "tournament_size",
    "tournament_select",
    "uniform_crossover",
    "gaussian_mutation",
    "sparse_mutation_draws",
    "OneFifthRule",
]


def tournament_size(pool_size: int, frac: float) -> int:
    """``max(1, round(frac * pool_size))`` with halves rounded up (Java's ``Math.round``)."""
    return max(1, int(math.floor(frac * pool_size + 0.5)))


def tournament_select(F: np.ndarray, n_select: int, frac: float, rng) -> np.ndarray:
    """Indices of ``n_select`` tournament winners.

    Every tournament draws ``tournament_size(len(F), frac)`` members of the pool uniformly
    **with replacement** and keeps the fittest (the first drawn on ties).
    """
    k = tournament_size(F.size, frac)
    idx = rng.randint(F.size, size=(n_select, k))
    return idx[np.arange(n_select), np.argmax(F[idx], axis=1)]


def gaussian_mutation(A: np.ndarray, sigma: float, C: float, rng) -> np.ndarray:
    """EvoSVM-G: ``alpha_i + N(0, sigma^2)`` for **every** gene, clipped to ``[0, C]`` (a new
    array)."""
    out = A + sigma * rng.standard_normal(A.shape)
    return np.clip(out, 0.0, C, out=out)


def sparse_mutation_draws(P: int, n: int, rng) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Which genes a switching / hybrid mutation touches, for ``P`` individuals of ``n`` genes.

    Each gene is selected independently with probability ``1/n``. Returns ``(rows, genes,
    u)``: the selected (row, gene) pairs in row-major order and one uniform [0, 1) number per
    pair (the hybrid mutation's ``random(0, C) = u * C``).
    """
    rows, genes = np.nonzero(rng.random_sample((P, n)) < 1.0 / n)
    return rows, genes, rng.random_sample(rows.size)


class OneFifthRule:
    """Rechenberg's 1/5 success rule for the Gaussian step ``sigma`` (docs/decisions/evo.md,
    "1/5 success rule constants").

    A generation is a *success* when the best-ever fitness improved within the last ``lag``
    generations. Every ``interval`` generations (from generation ``start`` on) the success
    rate over the last ``window`` generations is measured and ``sigma`` adapted.

    ``mode="thesis"`` (default reading of the thesis text, §3.1.2.2): ``interval = window =
    start = 100``, ``lag = 1``; ``sigma *= 2`` if the rate is > 1/5, ``sigma /= 2`` if < 1/5,
    unchanged at exactly 1/5.

    ``mode="rm2007"`` (RapidMiner's ``VarianceAdaption``): ``interval = n`` (genome length),
    ``window = start = 2n``, ``lag = 2``; ``sigma *= 0.85`` if the rate is < 1/5, else
    ``sigma /= 0.85``.
    """

    def __init__(self, mode: str, n: int):
        if mode == "thesis":
            self.interval, self.window, self.start, self.lag = 100, 100, 100, 1
        elif mode == "rm2007":
            self.interval, self.window, self.start, self.lag = n, 2 * n, 2 * n, 2
        else:
            raise ValueError(f"unknown 1/5 rule mode {mode!r}; valid: thesis, rm2007")
        self.mode = mode
        self.successes: deque[bool] = deque(maxlen=self.window)
        self.adaptations = 0

    def update(self, sigma: float, generation: int, generations_without_improvement: int) -> float:
        """Record this generation's success and return the (possibly adapted) ``sigma``."""
        self.successes.append(generations_without_improvement < self.lag)
        if generation < self.start or generation % self.interval:
            return sigma
        rate = float(np.mean(self.successes))
        self.adaptations += 1
        if self.mode == "thesis":
            if rate > 0.2:
                return sigma * 2.0
            if rate < 0.2:
                return sigma / 2.0
            return sigma
        return sigma * 0.85 if rate < 0.2 else sigma / 0.85
