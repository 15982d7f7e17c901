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


@njit(cache=True)
def _dot(X, a, Z, b):
    s = 0.0
    for k in range(X.shape[1]):
        s += X[a, k] * Z[b, k]
    return s


@njit(cache=True)
def _self_dots(X):
    out = np.empty(X.shape[0])
    for a in range(X.shape[0]):
        out[a] = _dot(X, a, X, a)
    return out


@njit(cache=True)
def _kernel(X, starts_X, Z, starts_Z, gamma, rbf):
    """``out[i, j]`` = Weka's ``evaluate(i, j)`` (``rbf`` False: exponent-1 polynomial)."""
    ends_X = np.append(starts_X[1:], X.shape[0])
    ends_Z = np.append(starts_Z[1:], Z.shape[0])
    px, pz = _self_dots(X), _self_dots(Z)
    out = np.empty((len(starts_X), len(starts_Z)))
    for i in range(len(starts_X)):
        for j in range(len(starts_Z)):
            res = 0.0
            for a in range(starts_X[i], ends_X[i]):
                for b in range(starts_Z[j], ends_Z[j]):
                    d = _dot(X, a, Z, b)
                    if rbf:
                        res += np.exp(gamma * (2.0 * d - px[a] - pz[b]))
                    else:
                        res += d
            out[i, j] = res
    return out


@njit(cache=True)
def _both(X, starts, gamma, rbf):
    """Both orientations of the kernel of a set with itself, each block of instance pairs
    computed once: a dot product is symmetric bit for bit, and a Gaussian term is shared
    when its two argument roundings agree (most pairs); the sums keep Weka's orders."""
    ends = np.append(starts[1:], X.shape[0])
    p = _self_dots(X)
    n = len(starts)
    out = np.empty((n, n))
    for i in range(n):
        for j in range(i, n):
            E = np.empty((ends[i] - starts[i], ends[j] - starts[j]))  # evaluate(i, j) terms
            F = np.empty_like(E)  # evaluate(j, i) terms
            for a in range(starts[i], ends[i]):
                for b in range(starts[j], ends[j]):
                    d = _dot(X, a, X, b)
                    if rbf:
                        u = gamma * (2.0 * d - p[a] - p[b])
                        v = gamma * (2.0 * d - p[b] - p[a])
                        e = np.exp(u)
                        E[a - starts[i], b - starts[j]] = e
                        F[a - starts[i], b - starts[j]] = e if v == u else np.exp(v)
                    else:
                        E[a - starts[i], b - starts[j]] = d
                        F[a - starts[i], b - starts[j]] = d
            row = 0.0
            for a in range(E.shape[0]):
                for b in range(E.shape[1]):
                    row += E[a, b]
            col = 0.0
            for b in range(F.shape[1]):
                for a in range(F.shape[0]):
                    col += F[a, b]
            out[j, i] = col
            out[i, j] = row  # on the diagonal, Weka's evaluate(i, i) is the row order
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
    if X is Z and starts is starts_Z:
        return _both(
            np.ascontiguousarray(X, dtype=np.float64),
            np.asarray(starts, dtype=np.int64),
            float(gamma),
            kernel == "rbf",
        )
    return _kernel(
        np.ascontiguousarray(X, dtype=np.float64),
        np.asarray(starts, dtype=np.int64),
        np.ascontiguousarray(Z, dtype=np.float64),
        np.asarray(starts_Z, dtype=np.int64),
        float(gamma),
        kernel == "rbf",
    )
