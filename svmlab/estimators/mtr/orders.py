"""Chain orders: all permutations, random ones, and the maximum-correlation order of SVRCC."""

from __future__ import annotations

import itertools
import math

import numpy as np

__all__ = ["correlation_order", "random_chain_orders", "target_correlation"]


def target_correlation(Y: np.ndarray) -> np.ndarray:
    """Pearson correlation matrix of the columns of ``Y`` (Eqs. 3.1-3.2, MATLAB ``corrcoef``).

    Missing values (NaN) are handled pairwise: each coefficient uses the rows where both
    targets are observed. A coefficient that is undefined (a constant target, fewer than two
    common rows) is taken as 0; the diagonal is 1.
    """
    Y = np.asarray(Y, dtype=np.float64)
    m = Y.shape[1]
    P = np.eye(m)
    observed = ~np.isnan(Y)
    for i, j in itertools.combinations(range(m), 2):
        rows = observed[:, i] & observed[:, j]
        if rows.sum() < 2:
            continue
        a = Y[rows, i] - Y[rows, i].mean()
        b = Y[rows, j] - Y[rows, j].mean()
        denom = np.sqrt((a @ a) * (b @ b))
        if denom > 0:
            P[i, j] = P[j, i] = float(np.clip((a @ b) / denom, -1.0, 1.0))
    return P


def correlation_order(Y: np.ndarray, corr: str = "signed") -> np.ndarray:
    """SVRCC's chain (Alg. 3.4): targets by decreasing column sum of the correlation matrix.

    Parameters
    ----------
    Y : ndarray of shape (n, m)
        Training targets (NaN = missing, see :func:`target_correlation`).
    corr : {"signed", "abs"}
        Sum the signed coefficients (the paper, as written) or their absolute values
        (docs/decisions/mtr.md, "Correlation order (SVRCC)").

    Returns
    -------
    ndarray of shape (m,)
        Target indices, the one with the largest sum first. The sort is stable (lower
        index first on ties, as MATLAB's ``sort``); the sums are rounded to 12 decimals
        first so rounding noise does not break exact ties.
    """
    P = target_correlation(Y)
    if corr == "abs":
        P = np.abs(P)
    sums = np.round(P.sum(axis=0), 12)
    return np.argsort(-sums, kind="stable")


def random_chain_orders(m: int, n_chains: int, rng, *, distinct: bool) -> np.ndarray:
    """``n_chains`` chain orders over ``m`` targets.

    Parameters
    ----------
    m : int
        Number of targets.
    n_chains : int
        Chains wanted.
    rng : numpy.random.RandomState
    distinct : bool
        ``True`` (SVRRC, Alg. 3.3): every one of the ``m!`` permutations, in
        lexicographic order, when ``m! <= n_chains``; otherwise ``n_chains`` distinct random
        permutations. ``False`` (Mulan's ERC): ``n_chains`` independent random permutations,
        which may repeat when ``m!`` is small.

    Returns
    -------
    ndarray of shape (n_orders, m)
    """
    if distinct:
        if math.factorial(m) <= n_chains:
            return np.array(list(itertools.permutations(range(m))), dtype=np.int64)
        orders, seen = [], set()
        while len(orders) < n_chains:
            perm = rng.permutation(m)
            if tuple(perm) not in seen:
                seen.add(tuple(perm))
                orders.append(perm)
        return np.array(orders, dtype=np.int64)
    return np.array([rng.permutation(m) for _ in range(n_chains)], dtype=np.int64)
