"""ReliefF-MI written formula by formula (HyDR-MI paper, Sec. 3.2, Listing 1), for checking.

One bag pair and one feature at a time, exactly as the paper states ``diff_instance``, the four
Hausdorff distances and ``diff_bag``: slow, but every line reads as an equation. The fast
:func:`svmlab.selection.relieff_mi.relieff_mi_weights` must give the same weights (tests) and
``scripts/bench/relieff_mi_speed.py`` times one against the other.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from svmlab.bags import check_bag_labels, check_bags

__all__ = ["relieff_mi_weights_reference"]


def relieff_mi_weights_reference(
    bags, y, *, distance: str = "adapted", k: int = 80, m: int = 180, instance_metric="cityblock"
):
    """ReliefF-MI weights by the paper's formulas (every training bag the reference once).

    Parameters are those of :func:`svmlab.selection.relieff_mi.relieff_mi_weights`
    (``sampling="all"``).
    """
    X, starts, sizes = check_bags(bags)
    _, y_idx = check_bag_labels(y, len(sizes), "ReliefF-MI")
    lo, span = X.min(axis=0), np.ptp(X, axis=0)
    d = X.shape[1]
    # range-normalised instances; a constant feature has diff_instance 0 everywhere
    Z = np.where(span > 0, (X - lo) / np.where(span > 0, span, 1.0), 0.0)
    B = [Z[s : s + n] for s, n in zip(starts, sizes)]
    n_bags = len(B)

    def inst_dist(P, Q):  # d(p, q) = sum_A diff_instance(A, p, q), for all rows of P and Q
        return cdist(P, Q, metric=instance_metric)

    def h(P, Q):  # directed Hausdorff: max over p of min over q
        return inst_dist(P, Q).min(axis=1).max()

    def bag_dist(i, j, kind):
        D = inst_dist(B[i], B[j])
        if kind == "min":
            return D.min()
        if kind == "max":
            return max(h(B[i], B[j]), h(B[j], B[i]))
        return (D.min(axis=1).sum() + D.min(axis=0).sum()) / (len(B[i]) + len(B[j]))

    def kind_of(i, j):
        if distance != "adapted":
            return distance
        if y_idx[i] == y_idx[j]:
            return "min" if y_idx[i] == 1 else "avg"
        return "max"

    def diff_bag(A, i, j, kind):
        R, H = B[i], B[j]
        D = inst_dist(R, H)
        if kind == "min":
            r, q = np.unravel_index(np.argmin(D), D.shape)
            return abs(R[r, A] - H[q, A])
        if kind == "max":
            if D.min(axis=1).max() >= D.min(axis=0).max():
                r = np.argmax(D.min(axis=1))
                q = np.argmin(D[r])
            else:
                q = np.argmax(D.min(axis=0))
                r = np.argmin(D[:, q])
            return abs(R[r, A] - H[q, A])
        total = sum(abs(R[r, A] - H[np.argmin(D[r]), A]) for r in range(len(R)))
        total += sum(abs(H[q, A] - R[np.argmin(D[:, q]), A]) for q in range(len(H)))
        return total / (len(R) + len(H))

    W = np.zeros(d)
    for i in range(n_bags):
        dist = [bag_dist(i, j, kind_of(i, j)) if j != i else np.inf for j in range(n_bags)]
        order = sorted((j for j in range(n_bags) if j != i), key=lambda j: (dist[j], j))
        hits = [j for j in order if y_idx[j] == y_idx[i]][:k]
        misses = [j for j in order if y_idx[j] != y_idx[i]][:k]
        for A in range(d):
            if hits:
                W[A] -= sum(diff_bag(A, i, j, kind_of(i, j)) for j in hits) / (m * len(hits))
            if misses:
                W[A] += sum(diff_bag(A, i, j, kind_of(i, j)) for j in misses) / (m * len(misses))
    return W
