"""ReliefF-MI written formula by formula (HyDR-MI paper, Sec. 3.2, Listing 1), for checking.

One bag pair and one feature at a time, exactly as the paper states ``diff_instance``, the four
Hausdorff distances and ``diff_bag`` (the instance distances of a bag pair are computed once and
shared by its features): slow, but every line reads as an equation. The fast
:func:`svmlab.selection.relieff_mi.relieff_mi_weights` must give the same weights (tests) and
``scripts/bench/relieff_mi_speed.py`` times one against the other.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.distance import cdist

from svmlab.bags import check_bag_labels, check_bags
from svmlab.selection.relieff_mi import _check_params

__all__ = ["relieff_mi_weights_reference"]


def relieff_mi_weights_reference(
    bags,
    y,
    *,
    distance: str = "adapted",
    k: int = 80,
    m: int = 180,
    instance_metric="cityblock",
    diff_pairs: str = "distance",
    max_witness: str = "larger",
):
    """ReliefF-MI weights by the paper's formulas (every training bag the reference once),
    with the parameters of :func:`svmlab.selection.relieff_mi.relieff_mi_weights` (all bags)."""
    _check_params(distance, k, m, instance_metric, "all", diff_pairs, max_witness)
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

    def h(D):  # directed Hausdorff h(R, H) from D[r, q] = d(r, q): max over r of min over q
        return D.min(axis=1).max()

    def bag_dist(D, kind):
        if kind == "min":
            return D.min()
        if kind == "max":
            return max(h(D), h(D.T))
        return (D.min(axis=1).sum() + D.min(axis=0).sum()) / (D.shape[0] + D.shape[1])

    def kind_of(i, j):
        if distance != "adapted":
            return distance
        if y_idx[i] == y_idx[j]:
            return "min" if y_idx[i] == 1 else "avg"
        return "max"

    def diff_bag(A, R, H, D, kind):
        """diff_bag(A, R, H) of the paper for one feature A (D = instance distances R x H)."""
        if diff_pairs != "distance":
            kind = diff_pairs
        if kind == "min":
            r, q = np.unravel_index(np.argmin(D), D.shape)
            return abs(R[r, A] - H[q, A])
        if kind == "max":
            if max_witness == "reference" or h(D) >= h(D.T):  # h(R, H)'s pair
                r = np.argmax(D.min(axis=1))
                q = np.argmin(D[r])
            else:
                q = np.argmax(D.min(axis=0))
                r = np.argmin(D[:, q])
            return abs(R[r, A] - H[q, A])
        to_h = np.abs(R[:, A] - H[D.argmin(axis=1), A]).sum()
        to_r = np.abs(H[:, A] - R[D.argmin(axis=0), A]).sum()
        return (to_h + to_r) / (len(R) + len(H))

    W = np.zeros(d)
    for i in range(n_bags):
        D = {j: inst_dist(B[i], B[j]) for j in range(n_bags) if j != i}
        dist = {j: bag_dist(D[j], kind_of(i, j)) for j in D}
        order = sorted(D, key=lambda j: (dist[j], j))
        hits = [j for j in order if y_idx[j] == y_idx[i]][:k]
        misses = [j for j in order if y_idx[j] != y_idx[i]][:k]
        for A in range(d):
            for js, sign in ((hits, -1.0), (misses, 1.0)):  # W -= hit terms, W += miss terms
                if js:
                    total = sum(diff_bag(A, B[i], B[j], D[j], kind_of(i, j)) for j in js)
                    W[A] += sign * total / (m * len(js))
    return W
