"""Weka 3.6's multi-instance kernels ``MIPolyKernel`` (exponent 1) and ``MIRBFKernel``,
computed in Weka's floating-point order.

Weka's ``evaluate(i, j)`` sums an instance kernel over the instances of bag ``i`` (outer
loop) and bag ``j`` (inner loop), one pair at a time. The instance kernel is built from
``Kernel.dotProd``, a sequential sum over the features in index order that skips the
attribute at the class index of the *bag* data set (bag id, bag, class), i.e. the third
feature: the callers pass the instances with that column set to 0, which adds exact zeros.

* ``MIPolyKernel -E 1``: ``sum_a sum_b <x_a, z_b>``.
* ``MIRBFKernel -G g``: ``sum_a sum_b exp(g * (2 <x_a, z_b> - <x_a, x_a> - <z_b, z_b>))``.

The two orientations ``evaluate(i, j)`` and ``evaluate(j, i)`` round differently, so
:func:`weka_bag_kernel` returns the matrix of one orientation (rows outer); Weka's kernel
cache keeps whichever orientation its SMO asks for first
(:func:`svmlab.estimators.weka.kernel_smo.weka_kernel_smo` does the same). Reading: the
exponential is NumPy's (glibc); Java's ``Math.exp`` may differ from it in the last bit.

Speed: the dot products are taken 8 instances at a time (8 sequential sums side by side: the
same sums bit for bit, about twice the throughput of one at a time) over blocks of about 512
instances, never an instance-level kernel matrix.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from svmlab.estimators.weka.rep_tree import weka_sort_order

__all__ = ["weka_bag_kernel", "weka_bag_rows"]


def weka_bag_rows(sizes, one_set: bool = True) -> np.ndarray:
    """The instance order inside the bags after MISMO's round trip through instances.

    ``PropositionalToMultiInstance`` sorts the instances by bag id with Weka's unstable
    quicksort before regrouping them, which keeps the bags in order but permutes the
    instances inside each bag; the kernel sums then add in that order.

    Parameters
    ----------
    sizes : array-like of int
        Instances per bag, bags stacked in order.
    one_set : bool, default=True
        True: the bags are filtered together (training); False: one at a time (MISMO
        filters every test bag alone).

    Returns
    -------
    ndarray of int
        ``rows[k]``: the stacked row Weka holds at position ``k``.
    """
    sizes = np.asarray(sizes, dtype=np.int64)
    if one_set:
        return weka_sort_order(np.repeat(np.arange(len(sizes)), sizes).astype(np.float64))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    orders = {int(m): weka_sort_order(np.zeros(int(m))) for m in np.unique(sizes)}
    return np.concatenate([s + orders[int(m)] for s, m in zip(starts, sizes)] or [[]]).astype(
        np.intp
    )


#: Instances per panel: the dot products of one instance with 8 others run side by side
#: (8 independent sequential sums, so the CPU overlaps them; each sum is still Weka's).
_LANES = 8
#: Columns (instances of the other set) whose dot products one block holds per instance.
_CHUNK = 512


@njit(cache=True)
def _self_dots(X):
    out = np.empty(X.shape[0])
    for a in range(X.shape[0]):
        s = 0.0
        for k in range(X.shape[1]):
            s += X[a, k] * X[a, k]
        out[a] = s
    return out


@njit(cache=True)
def _panels(Z):
    """``P[p, k, l] = Z[8 p + l, k]`` (zero rows pad the last panel)."""
    n, d = Z.shape
    P = np.zeros(((n + _LANES - 1) // _LANES, d, _LANES))
    for r in range(n):
        for k in range(d):
            P[r // _LANES, k, r % _LANES] = Z[r, k]
    return P


@njit(cache=True)
def _panel_dots(X, a0, a1, P, p0, p1, D):
    """``D[a - a0, 8 (p - p0) + l]`` = Weka's ``dotProd`` of ``X[a]`` and the instance at
    panel ``p``, lane ``l``: ``s += x_k z_k`` for ``k`` in order, one sum per lane."""
    for p in range(p0, p1):
        c = (p - p0) * _LANES
        for a in range(a0, a1):
            s0 = s1 = s2 = s3 = s4 = s5 = s6 = s7 = 0.0
            for k in range(X.shape[1]):
                x = X[a, k]
                s0 += x * P[p, k, 0]
                s1 += x * P[p, k, 1]
                s2 += x * P[p, k, 2]
                s3 += x * P[p, k, 3]
                s4 += x * P[p, k, 4]
                s5 += x * P[p, k, 5]
                s6 += x * P[p, k, 6]
                s7 += x * P[p, k, 7]
            r = a - a0
            D[r, c], D[r, c + 1], D[r, c + 2], D[r, c + 3] = s0, s1, s2, s3
            D[r, c + 4], D[r, c + 5], D[r, c + 6], D[r, c + 7] = s4, s5, s6, s7


@njit(cache=True)
def _pair_sums(D, si, ei, sj, ej, base, px, pz, gamma, rbf, both):
    """Weka's ``evaluate(i, j)`` (row: bag ``i`` outer) and, if ``both``, ``evaluate(j, i)``
    (col: bag ``j`` outer) of one bag pair from its dot products ``D[a - si, b - base]``.

    A Gaussian term is computed once when its two argument roundings agree (most pairs);
    ``D`` is overwritten with the col orientation's terms.
    """
    row = 0.0
    for a in range(si, ei):
        for b in range(sj, ej):
            d = D[a - si, b - base]
            if rbf:
                u = gamma * (2.0 * d - px[a] - pz[b])
                e = np.exp(u)
                row += e
                if both:
                    v = gamma * (2.0 * d - pz[b] - px[a])
                    D[a - si, b - base] = e if v == u else np.exp(v)
            else:
                row += d
    col = 0.0
    if both:
        for b in range(sj, ej):
            for a in range(si, ei):
                col += D[a - si, b - base]
    return row, col


@njit(cache=True)
def _max_size(starts, n_rows):
    ends = np.append(starts[1:], n_rows)
    m = 0
    for i in range(len(starts)):
        m = max(m, ends[i] - starts[i])
    return m


@njit(cache=True)
def _kernel(X, starts_X, Z, starts_Z, gamma, rbf, both):
    """``out[i, j]`` = Weka's ``evaluate(i, j)`` (``rbf`` False: exponent-1 polynomial).

    ``both`` (``Z`` is ``X``): each bag pair once, ``j >= i``, filling both orientations
    (a dot product is symmetric bit for bit). The dot products of bag ``i``'s instances with
    a run of ``Z``'s bags (about ``_CHUNK`` instances) are taken together, then summed per
    bag pair in Weka's order.
    """
    ends_X = np.append(starts_X[1:], X.shape[0])
    ends_Z = np.append(starts_Z[1:], Z.shape[0])
    n_X, n_Z = len(starts_X), len(starts_Z)
    px, pz = _self_dots(X), _self_dots(Z)
    P = _panels(Z)
    width = max(_CHUNK, _max_size(starts_Z, Z.shape[0])) + 2 * _LANES
    D = np.empty((_max_size(starts_X, X.shape[0]), width))
    out = np.empty((n_X, n_Z))
    for i in range(n_X):
        j0 = i if both else 0
        while j0 < n_Z:
            j1 = j0 + 1
            while j1 < n_Z and ends_Z[j1] - starts_Z[j0] <= _CHUNK:
                j1 += 1
            p0 = starts_Z[j0] // _LANES
            p1 = (ends_Z[j1 - 1] + _LANES - 1) // _LANES
            _panel_dots(X, starts_X[i], ends_X[i], P, p0, p1, D)
            for j in range(j0, j1):
                row, col = _pair_sums(
                    D, starts_X[i], ends_X[i], starts_Z[j], ends_Z[j], p0 * _LANES,
                    px, pz, gamma, rbf, both,
                )  # fmt: skip
                if both:
                    out[j, i] = col
                out[i, j] = row  # on the diagonal, Weka's evaluate(i, i) is the row order
            j0 = j1
    return out


def weka_bag_kernel(X, starts, Z, starts_Z, kernel: str, gamma: float = 0.0) -> np.ndarray:
    """Weka's ``evaluate(i, j)`` for every bag ``i`` of ``X`` and bag ``j`` of ``Z``.

    Parameters
    ----------
    X, Z : ndarray of shape (n_instances, d)
        Instances stacked bag after bag, already rescaled as Weka's filter does, with the
        column Weka's ``dotProd`` skips set to 0.
    starts, starts_Z : ndarray of int
        First row of each bag.
    kernel : {"linear", "rbf"}
    gamma : float
        ``MIRBFKernel``'s ``-G`` (``kernel="rbf"`` only).

    Returns
    -------
    ndarray of shape (n_bags_X, n_bags_Z)
        Not symmetric in general even when ``X is Z``: row ``i`` is the outer loop.
    """
    both = X is Z and starts is starts_Z
    X = np.ascontiguousarray(X, dtype=np.float64)
    return _kernel(
        X,
        np.asarray(starts, dtype=np.int64),
        X if both else np.ascontiguousarray(Z, dtype=np.float64),
        np.asarray(starts_Z, dtype=np.int64),
        float(gamma),
        kernel == "rbf",
        both,
    )
