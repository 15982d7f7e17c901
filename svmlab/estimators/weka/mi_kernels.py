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

Speed: the dot products are taken for blocks of about 64 x 512 instances at a time, 4 rows
against a run of columns feature by feature (independent sequential sums side by side: the
same sums bit for bit, 2-4x the throughput of one at a time); never an instance-level kernel
matrix.
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


#: Instances of ``X`` (whole bags) and of ``Z`` whose dot products one block holds.
_ROWS = 64
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
def _four_rows(X, a, Zt, c0, w, acc):
    """``acc[r, c]`` = dot product of ``X[a + r]`` and ``Z[c0 + c]`` for ``r < 4``."""
    acc[:, :w] = 0.0
    r0, r1, r2, r3 = acc[0], acc[1], acc[2], acc[3]
    for k in range(X.shape[1]):
        x0, x1, x2, x3 = X[a, k], X[a + 1, k], X[a + 2, k], X[a + 3, k]
        z = Zt[k, c0 : c0 + w]
        for c in range(w):
            zc = z[c]
            r0[c] += x0 * zc
            r1[c] += x1 * zc
            r2[c] += x2 * zc
            r3[c] += x3 * zc


@njit(cache=True)
def _block_dots(X, a0, a1, Zt, c0, c1, D, acc):
    """``D[a - a0, b - c0]`` = Weka's ``dotProd`` of ``X[a]`` and ``Z[b]`` (``Zt = Z.T``):
    ``s += x_k z_k`` for ``k`` in order, every sum on its own.

    The sums of 4 rows against ``c1 - c0`` columns advance together feature by feature
    (the CPU runs them side by side in vector registers: the same sums, 2-4x the throughput of
    one dot product at a time).
    """
    w = c1 - c0
    a = a0
    while a + 4 <= a1:
        _four_rows(X, a, Zt, c0, w, acc)
        D[a - a0 : a - a0 + 4, :w] = acc[:, :w]
        a += 4
    while a < a1:
        row = acc[0]
        row[:w] = 0.0
        for k in range(X.shape[1]):
            x = X[a, k]
            z = Zt[k, c0 : c0 + w]
            for c in range(w):
                row[c] += x * z[c]
        D[a - a0, :w] = row[:w]
        a += 1


@njit(cache=True)
def _run_end(starts, ends, j0, limit):
    """The end (exclusive) of the run of consecutive bags from ``j0`` that holds at most
    ``limit`` instances (a larger bag is a run of its own)."""
    j1 = j0 + 1
    while j1 < len(starts) and ends[j1] - starts[j0] <= limit:
        j1 += 1
    return j1


@njit(cache=True)
def _pair_sums(D, si, ei, sj, ej, a0, c0, px, pz, gamma, rbf, both):
    """Weka's ``evaluate(i, j)`` (row: bag ``i`` outer) and, if ``both``, ``evaluate(j, i)``
    (col: bag ``j`` outer) of one bag pair from its dot products ``D[a - a0, b - c0]``.

    A Gaussian term is computed once when its two argument roundings agree (most pairs);
    ``D`` is overwritten with the col orientation's terms.
    """
    row = 0.0
    for a in range(si, ei):
        for b in range(sj, ej):
            d = D[a - a0, b - c0]
            if rbf:
                u = gamma * (2.0 * d - px[a] - pz[b])
                e = np.exp(u)
                row += e
                if both:
                    v = gamma * (2.0 * d - pz[b] - px[a])
                    D[a - a0, b - c0] = e if v == u else np.exp(v)
            else:
                row += d
    col = 0.0
    if both:
        for b in range(sj, ej):
            for a in range(si, ei):
                col += D[a - a0, b - c0]
    return row, col


@njit(cache=True)
def _kernel(X, starts_X, Z, starts_Z, gamma, rbf, both):
    """``out[i, j]`` = Weka's ``evaluate(i, j)`` (``rbf`` False: exponent-1 polynomial).

    ``both`` (``Z`` is ``X``): each bag pair once, ``j >= i``, filling both orientations
    (a dot product is symmetric bit for bit). The dot products of a run of ``X``'s bags
    (about ``_ROWS`` instances) with a run of ``Z``'s bags (about ``_CHUNK``) are taken
    together, then summed per bag pair in Weka's order.
    """
    ends_X = np.append(starts_X[1:], X.shape[0])
    ends_Z = np.append(starts_Z[1:], Z.shape[0])
    px, pz = _self_dots(X), _self_dots(Z)
    Zt = np.ascontiguousarray(Z.T)
    height = max(_ROWS, np.max(ends_X - starts_X))
    width = max(_CHUNK, np.max(ends_Z - starts_Z))
    # rows of D 8 values longer than a power of two: its column walks then spread over the
    # CPU cache's sets (a 4096-byte row stride made the Gaussian sums ~40 % slower)
    D, acc = np.empty((height, width + 8)), np.empty((4, width))
    out = np.empty((len(starts_X), len(starts_Z)))
    i0 = 0
    while i0 < len(starts_X):
        i1 = _run_end(starts_X, ends_X, i0, _ROWS)
        a0 = starts_X[i0]
        j0 = i0 if both else 0  # both: the pairs j >= i only
        while j0 < len(starts_Z):
            j1 = _run_end(starts_Z, ends_Z, j0, _CHUNK)
            c0 = starts_Z[j0]
            _block_dots(X, a0, ends_X[i1 - 1], Zt, c0, ends_Z[j1 - 1], D, acc)
            for i in range(i0, i1):
                for j in range(max(j0, i) if both else j0, j1):
                    row, col = _pair_sums(
                        D, starts_X[i], ends_X[i], starts_Z[j], ends_Z[j], a0, c0,
                        px, pz, gamma, rbf, both,
                    )  # fmt: skip
                    if both:
                        out[j, i] = col
                    out[i, j] = row  # on the diagonal, Weka's evaluate(i, i) is the row order
            j0 = j1
        i0 = i1
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
    if len(starts) == 0 or len(starts_Z) == 0:
        return np.zeros((len(starts), len(starts_Z)))
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
