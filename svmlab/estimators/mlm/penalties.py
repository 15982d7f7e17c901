"""Per-reference-point penalties ``p`` of the lightweight MLM (Oliveira (2021), Sec. 4.1.2).

* LW-MLM-1: :func:`normal_penalty`, ``p_i ~ N(0, 1)``;
* LW-MLM-2/3: :func:`ks_penalty`, the thresholded p-values of the two-sample
  Kolmogorov-Smirnov test between the z-scored k-NN distance profiles of ``x_i`` and ``y_i``
  (Eqs. 4.4-4.6), with a fixed threshold (LW-MLM-2) or Otsu's (LW-MLM-3,
  :func:`otsu_threshold`).
"""

from __future__ import annotations

import numpy as np
from scipy.stats import ks_2samp
from sklearn.neighbors import NearestNeighbors

__all__ = [
    "K_RULES",
    "ks_p_values",
    "ks_penalty",
    "neighbour_count",
    "normal_penalty",
    "otsu_threshold",
    "thresholded_penalty",
]

#: rules for the KS neighbourhood size k (spec A10)
K_RULES = ("log10_5N", "5log10N")


def neighbour_count(n: int, rule: str = "log10_5N") -> int:
    """``k`` of Table 10: ``max(2, round(log10(5 N)))`` as printed ("log10_5N"), or the
    author's other selector's ``max(2, round(5 log10 N))`` ("5log10N"); at most ``n - 1``."""
    if rule == "log10_5N":
        k = round(np.log10(5 * n))
    elif rule == "5log10N":
        k = round(5 * np.log10(max(n, 1)))
    else:
        raise ValueError(f"k_rule must be one of {', '.join(K_RULES)}; got {rule!r}")
    return int(max(0, min(max(2, k), n - 1)))


def normal_penalty(n: int, random_state: np.random.RandomState) -> np.ndarray:
    """LW-MLM-1 (Table 10): ``p_i ~ N(0, 1)`` i.i.d.; only ``p_i^2`` enters ``B``."""
    return random_state.standard_normal(n)


def _zscore(v: np.ndarray) -> np.ndarray:
    sd = v.std(axis=1, keepdims=True)
    safe = np.where(sd > 0, sd, 1.0)
    return np.where(sd > 0, (v - v.mean(axis=1, keepdims=True)) / safe, v)


def ks_p_values(X, Y, k: int, *, y_neighbours: str = "same") -> np.ndarray:
    """``Pi(x_i, y_i)`` of Eq. 4.5 for every training sample.

    ``phi_k(x_i)``: distances from ``x_i`` to its ``k`` nearest other inputs, ascending
    (Eq. 4.4). ``psi_k(y_i)``: distances from ``y_i`` to the outputs of the **same** neighbours
    (``y_neighbours="same"``, spec A11) or to its own ``k`` nearest other outputs
    (``"output"``). Both are z-scored (a constant vector is left as is) and compared by
    :func:`scipy.stats.ks_2samp`; its p-value is high where ``f`` is locally linear.
    With ``k = 0`` (one sample) every p-value is 1.
    """
    X = np.asarray(X, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64).reshape(len(X), -1)
    n = len(X)
    if k < 1:
        return np.ones(n)
    phi, idx = NearestNeighbors(n_neighbors=k).fit(X).kneighbors()
    if y_neighbours == "same":
        psi = np.linalg.norm(Y[idx] - Y[:, None, :], axis=2)
    elif y_neighbours == "output":
        psi = NearestNeighbors(n_neighbors=k).fit(Y).kneighbors()[0]
    else:
        raise ValueError(f"y_neighbours must be one of same, output; got {y_neighbours!r}")
    phi, psi = _zscore(phi), _zscore(psi)
    # The two-sample KS p-value (exact method for these sizes) depends on the samples only
    # through the statistic D = max_v |F_phi(v) - F_psi(v)|, here an integer count difference
    # over k: compute it for every row at once, then call ks_2samp once per distinct D on a
    # row that has it. Same numbers as one ks_2samp per row, without N calls.
    pooled = np.concatenate([phi, psi], axis=1)
    count_phi = (phi[:, :, None] <= pooled[:, None, :]).sum(axis=1)
    count_psi = (psi[:, :, None] <= pooled[:, None, :]).sum(axis=1)
    stat = np.abs(count_phi - count_psi).max(axis=1)
    out = np.empty(n)
    for value in np.unique(stat):
        rows = np.flatnonzero(stat == value)
        out[rows] = ks_2samp(phi[rows[0]], psi[rows[0]]).pvalue
    return out


def otsu_threshold(values, n_bins: int = 256) -> float:
    """Otsu's threshold on a ``n_bins``-bin histogram of ``values`` (as
    ``skimage.filters.threshold_otsu``): the bin centre maximising the between-class
    variance; values ``<=`` it form the lower class. Constant input returns that value."""
    values = np.asarray(values, dtype=np.float64).ravel()
    lo, hi = values.min(), values.max()
    if not hi > lo:
        return float(lo)
    hist, edges = np.histogram(values, bins=n_bins, range=(lo, hi))
    centres = (edges[:-1] + edges[1:]) / 2.0
    hist = hist.astype(np.float64)
    w1 = np.cumsum(hist)
    w2 = np.cumsum(hist[::-1])[::-1]
    m1 = np.cumsum(hist * centres) / np.where(w1 > 0, w1, 1.0)
    m2 = (np.cumsum((hist * centres)[::-1]) / np.where(w2[::-1] > 0, w2[::-1], 1.0))[::-1]
    between = w1[:-1] * w2[1:] * (m1[:-1] - m2[1:]) ** 2
    return float(centres[np.argmax(between)])


def thresholded_penalty(pvalues, threshold: float, delta: float = 1.0) -> np.ndarray:
    """``KS^t_delta`` of Eq. 4.6: ``Pi + delta`` where ``Pi < t`` (non-linear part), else ``Pi``."""
    pvalues = np.asarray(pvalues, dtype=np.float64)
    return np.where(pvalues < threshold, pvalues + delta, pvalues)


def ks_penalty(X, Y, *, k, threshold="otsu", delta=1.0, y_neighbours="same"):
    """LW-MLM-2 (``threshold`` a number, spec A9) or LW-MLM-3 (``threshold="otsu"``).

    Returns ``(p, pvalues, t)``: the penalties, the KS p-values and the threshold used."""
    pvalues = ks_p_values(X, Y, k, y_neighbours=y_neighbours)
    t = otsu_threshold(pvalues) if threshold == "otsu" else float(threshold)
    return thresholded_penalty(pvalues, t, delta), pvalues, t
