"""Multilateration: the output whose distances to the reference outputs best match the
estimated ones (Oliveira (2021), Eq. 2.12 and Eq. 5.5).

* :func:`cubic_multilateration`: one output, the exact minimiser of
  ``J(y) = sum_k ((y - t_k)^2 - delta_k^2)^2`` through the roots of ``dJ/dy = 0``
  (the cubic of C-MLM, Mesquita et al. 2017), vectorised over the test points;
* :func:`lm_multilateration`: any number of outputs, Levenberg-Marquardt on the residuals
  ``r_k(y) = ||y - t_k||^2 - delta_k^2`` from the mean of the ``t_k`` (the original MLM);
* :func:`class_code_argmin`: classification, the one-hot code whose distance profile is the
  nearest to the estimated one (Eq. 5.5);
* :func:`nearest_reference`: NN-MLM, the reference output with the smallest estimated
  distance.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import least_squares

from svmlab.estimators.mlm.distances import distance_matrix

__all__ = [
    "class_code_argmin",
    "cubic_multilateration",
    "lm_multilateration",
    "multilateration_cost",
    "nearest_reference",
]

#: at most this many floats in one (points x candidates x references) block of J
_COST_BLOCK = 4_000_000


def multilateration_cost(y_candidates: np.ndarray, delta: np.ndarray, t: np.ndarray):
    """``J`` of candidate scalar outputs: ``J[i, j] = sum_k ((y[i, j] - t_k)^2 - delta[i, k]^2)^2``.

    ``y_candidates`` is (n, m), ``delta`` (n, K), ``t`` (K,); evaluated directly (no expanded
    quartic, which cancels badly) in row blocks of bounded memory.
    """
    n, m = y_candidates.shape
    out = np.empty((n, m))
    step = max(1, _COST_BLOCK // max(1, m * len(t)))
    d2 = delta**2
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        r = (y_candidates[lo:hi, :, None] - t[None, None, :]) ** 2 - d2[lo:hi, None, :]
        out[lo:hi] = np.einsum("ijk,ijk->ij", r, r)
    return out


def cubic_multilateration(delta: np.ndarray, t: np.ndarray) -> np.ndarray:
    """Exact one-output multilateration (Oliveira (2021), Sec. 2.1.3, C-MLM).

    Setting ``dJ/dy = 0`` gives ``K y^3 - 3 (sum t_k) y^2 + sum(3 t_k^2 - delta_k^2) y
    + sum(delta_k^2 t_k - t_k^3) = 0``. Its three roots come from the eigenvalues of the
    companion matrices (one batched ``eigvals`` for all test points). ``J`` is a quartic with a
    positive leading coefficient, so its global minimum is a real stationary point; evaluating
    ``J`` at the real parts of all three roots and taking the smallest therefore returns the
    real root of least cost (the real part of a complex root cannot beat the global minimum).

    Parameters
    ----------
    delta : ndarray of shape (n, K)
        Estimated output distances to the reference outputs (their sign is irrelevant).
    t : ndarray of shape (K,)
        The reference outputs.

    Returns
    -------
    ndarray of shape (n,)
    """
    delta = np.asarray(delta, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64).ravel()
    n, K = delta.shape
    d2 = delta**2
    # monic coefficients y^3 + a y^2 + b y + c
    a = np.full(n, -3.0 * t.sum() / K)
    b = (3.0 * np.sum(t**2) - d2.sum(axis=1)) / K
    c = (d2 @ t - np.sum(t**3)) / K
    companion = np.zeros((n, 3, 3))
    companion[:, 0, 0], companion[:, 0, 1], companion[:, 0, 2] = -a, -b, -c
    companion[:, 1, 0] = companion[:, 2, 1] = 1.0
    roots = np.linalg.eigvals(companion).real
    cost = multilateration_cost(roots, delta, t)
    return roots[np.arange(n), np.argmin(cost, axis=1)]


def lm_multilateration(delta: np.ndarray, T: np.ndarray, *, max_nfev=None) -> np.ndarray:
    """Levenberg-Marquardt multilateration for any number of outputs (Oliveira (2021),
    Alg. 6): ``min_y sum_k (||y - t_k||^2 - delta_k^2)^2`` from ``y0 = mean(t_k)``, with
    :func:`scipy.optimize.least_squares` (``method="lm"``) and the analytic Jacobian
    ``2 (y - t_k)``. One solve per test point.

    Parameters
    ----------
    delta : ndarray of shape (n, K)
    T : ndarray of shape (K, S)
        Reference outputs; MINPACK's LM needs ``K >= S``.

    Returns
    -------
    ndarray of shape (n, S)
    """
    delta = np.asarray(delta, dtype=np.float64)
    T = np.asarray(T, dtype=np.float64)
    if T.ndim == 1:
        T = T[:, None]
    K, S = T.shape
    if K < S:
        raise ValueError(
            f"Levenberg-Marquardt multilateration needs at least as many reference points as "
            f"outputs; got {K} reference points for {S} outputs"
        )
    y0 = T.mean(axis=0)
    out = np.empty((len(delta), S))
    for i, d in enumerate(delta):
        d2 = d**2

        def residual(y, d2=d2):
            return np.sum((y[None, :] - T) ** 2, axis=1) - d2

        def jacobian(y):
            return 2.0 * (y[None, :] - T)

        res = least_squares(residual, y0, jac=jacobian, method="lm", max_nfev=max_nfev)
        out[i] = res.x
    return out


def class_code_argmin(delta: np.ndarray, code_distances: np.ndarray) -> np.ndarray:
    """Index of the class whose code is nearest (Oliveira (2021), Eq. 5.5):
    ``argmin_c ||Psi(y^(c)) - delta||_2``.

    Parameters
    ----------
    delta : ndarray of shape (n, K)
    code_distances : ndarray of shape (n_classes, K)
        ``Psi(y^(c))``: distances of every class code to the reference outputs.
    """
    return np.argmin(distance_matrix(delta, code_distances), axis=1)


def nearest_reference(delta: np.ndarray) -> np.ndarray:
    """NN-MLM (Mesquita et al. 2017): the position of the smallest estimated distance."""
    return np.argmin(np.asarray(delta), axis=1)
