"""One-vs-one decomposition shared by the SVM families (OLLAWV, the L2-SVM baselines).

The convention is the OLLAWV study's (Melki (2018), Sec. 5.3.1, as settled by the author's
code; see docs/decisions/ollawv.md, "One-vs-one pair order and vote ties"): classes are ordered by
size, largest first (ties to the lower class index), and in every pair (a, b) the earlier,
larger class a is the +1 side. Each binary model votes for a when its output o(x) > 0 and
for b otherwise; the prediction is the class with most votes, ties going to the class with
the larger sum of signed outputs in its favour, then to the lowest class index.
"""

from __future__ import annotations

import numpy as np


def ovo_pairs(class_counts) -> list[tuple[int, int]]:
    """Pairs ``(a, b)`` of class indices, larger class first, in the study's order."""
    by_size = np.argsort(-np.asarray(class_counts), kind="stable")
    return [
        (int(by_size[i]), int(by_size[j]))
        for i in range(len(by_size))
        for j in range(i + 1, len(by_size))
    ]


def ovo_votes(outputs: np.ndarray, pairs, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """Votes and evidence (summed signed outputs in favour of each class).

    Parameters
    ----------
    outputs : ndarray of shape (n_samples, n_pairs)
        o(x) of each pairwise model; positive favours the pair's first class.
    pairs : sequence of (a, b)
    n_classes : int
    """
    votes = np.zeros((outputs.shape[0], n_classes))
    evidence = np.zeros_like(votes)
    for k, (a, b) in enumerate(pairs):
        pos = outputs[:, k] > 0
        votes[:, a] += pos
        votes[:, b] += ~pos
        evidence[:, a] += outputs[:, k]
        evidence[:, b] -= outputs[:, k]
    return votes, evidence


def ovo_scores(votes: np.ndarray, evidence: np.ndarray) -> np.ndarray:
    """``votes + s / (3 (|s| + 1))``: a decision score whose arg-max is the voting rule
    up to the last tie (lowest class index), the evidence squashed into (-1/3, 1/3)."""
    return votes + evidence / (3.0 * (np.abs(evidence) + 1.0))


def ovo_winner(votes: np.ndarray, evidence: np.ndarray) -> np.ndarray:
    """Class index of the voting winner per sample (most votes, then evidence, then lowest
    index)."""
    tied = votes == votes.max(axis=1, keepdims=True)
    return np.argmax(np.where(tied, evidence, -np.inf), axis=1)  # first maximum: lowest index
