"""The Gaussian (RBF) and linear kernels: ``exp(-gamma ||x - y||^2)`` and ``<x, y>``.

``gamma`` is always the precision, ``sigma`` the width of ``exp(-||x - y||^2 / (2 sigma^2))``,
``gamma = 1 / (2 sigma^2)`` (:func:`gamma_from_sigma`, :func:`sigma_from_gamma`;
docs/decisions/naming.md). :func:`rbf_blocks` and :func:`rbf_expansion` bound memory by
working over blocks of rows. The conventions of every kernel are in :mod:`svmlab.kernels`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator

import numpy as np
from sklearn.utils.extmath import row_norms, safe_sparse_dot


def gamma_from_sigma(sigma: float) -> float:
    """``gamma = 1 / (2 sigma^2)``: the RBF precision for a kernel width ``sigma``."""
    if not sigma > 0:
        raise ValueError(f"sigma must be > 0, got {sigma!r}")
    return 1.0 / (2.0 * sigma * sigma)


def sigma_from_gamma(gamma: float) -> float:
    """``sigma = sqrt(1 / (2 gamma))``: the RBF width for a precision ``gamma``."""
    if not gamma > 0:
        raise ValueError(f"gamma must be > 0, got {gamma!r}")
    return math.sqrt(1.0 / (2.0 * gamma))


def squared_euclidean(X, Y=None, *, X_sq=None, Y_sq=None) -> np.ndarray:
    """Pairwise squared Euclidean distances ``||x_i - y_j||^2``, shape ``(n_X, n_Y)``.

    Uses ``||x||^2 + ||y||^2 - 2 x.y`` (one matrix product) and clips the small negative
    values that cancellation can produce. ``X_sq`` / ``Y_sq`` are precomputed squared row
    norms, to avoid recomputing them when the same ``Y`` is used block after block.
    """
    if Y is None:
        Y, Y_sq = X, X_sq
    if X_sq is None:
        X_sq = row_norms(X, squared=True)
    if Y_sq is None:
        Y_sq = row_norms(Y, squared=True)
    D = np.asarray(safe_sparse_dot(X, Y.T, dense_output=True), dtype=np.float64)
    D *= -2.0
    D += np.asarray(X_sq, dtype=np.float64)[:, None]
    D += np.asarray(Y_sq, dtype=np.float64)[None, :]
    np.maximum(D, 0.0, out=D)
    return D


def linear(X, Y=None) -> np.ndarray:
    """Linear kernel ``K(x, y) = x . y``, shape ``(n_X, n_Y)``."""
    Y = X if Y is None else Y
    return np.asarray(safe_sparse_dot(X, Y.T, dense_output=True), dtype=np.float64)


def rbf(X, Y=None, gamma: float = 1.0, *, X_sq=None, Y_sq=None) -> np.ndarray:
    """Gaussian kernel ``K(x, y) = exp(-gamma ||x - y||^2)``, shape ``(n_X, n_Y)``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_X, d)
    Y : array-like or sparse matrix of shape (n_Y, d), default=None
        ``None`` means ``Y = X``.
    gamma : float, default=1.0
        Precision, ``gamma = 1 / (2 sigma^2)``; must be > 0.
    X_sq, Y_sq : ndarray, optional
        Precomputed squared row norms of ``X`` / ``Y``.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y), float64
        Computed in place in the distance array: no second ``n_X x n_Y`` temporary.
    """
    if not gamma > 0:
        raise ValueError(f"gamma must be > 0, got {gamma!r}")
    K = squared_euclidean(X, Y, X_sq=X_sq, Y_sq=Y_sq)
    K *= -gamma
    np.exp(K, out=K)
    return K


def rbf_blocks(
    X, Y, gamma: float, *, max_bytes: int = 64 * 2**20
) -> Iterator[tuple[slice, np.ndarray]]:
    """Yield ``(rows, K)`` with ``K = rbf(X[rows], Y, gamma)`` over blocks of rows of ``X``.

    Each block holds at most about ``max_bytes`` of kernel values, so a prediction over
    many test points against many support vectors never builds the whole matrix. The
    squared norms of ``Y`` are computed once for all blocks.
    """
    n, m = X.shape[0], Y.shape[0]
    Y_sq = row_norms(Y, squared=True)
    step = max(1, int(max_bytes // (8 * max(m, 1))))
    for start in range(0, n, step):
        rows = slice(start, min(n, start + step))
        yield rows, rbf(X[rows], Y, gamma, Y_sq=Y_sq)


def rbf_expansion(X, sv, coef, intercept: float, gamma: float) -> np.ndarray:
    """``f(x) = sum_j coef_j exp(-gamma ||x - sv_j||^2) + intercept`` for every row of ``X``.

    Computed over blocks of rows (:func:`rbf_blocks`), so no test-by-SV matrix larger than
    a block is held; with no support vectors every output is ``intercept``.
    """
    out = np.full(X.shape[0], float(intercept))
    if len(coef):
        for rows, K in rbf_blocks(X, sv, gamma):
            out[rows] += K @ coef
    return out
