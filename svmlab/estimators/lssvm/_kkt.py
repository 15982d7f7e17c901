"""The LSSVM KKT system (Oliveira (2021), Eq. 2.5) solved without the indefinite
``(N+1) x (N+1)`` matrix, for one ``C`` or for a whole grid of ``C``.

Eq. 2.5 is ``[[0, 1^T], [1, H]] [b; alpha] = [0; y]`` with ``H = Omega + I/C`` (SPD). Its
block elimination (Suykens' trick, spec Sec. 1.2): solve ``H eta = 1`` and ``H nu = y``, then
``b = 1^T nu / 1^T eta`` and ``alpha = nu - b eta``.

* :func:`solve_kkt`: one Cholesky factorisation of ``H`` (``O(N^3/3)``); if ``H`` is not
  numerically positive definite, the dense Eq. 2.5 is solved by least squares instead (the
  caller warns and records it).
* :class:`EigenKKT`: ``Omega = U diag(lam) U^T`` once (``O(N^3)``); then for every ``C``,
  ``H^{-1} = U diag(1 / (lam + 1/C)) U^T`` gives ``eta`` and ``nu`` in ``O(N^2)``
  (spec Sec. 6.3) -- the whole C grid of the tuning for the price of one factorisation.

The N x N kernel is inherent to the full LSSVM; it is used here for N up to about 10,000
(800 MB); the sparse variants never build it.
"""

from __future__ import annotations

import numpy as np
from scipy import linalg

__all__ = ["solve_kkt", "dense_kkt_lstsq", "EigenKKT"]


def kkt_matrix(K: np.ndarray, C: float) -> np.ndarray:
    """The indefinite ``(N+1) x (N+1)`` matrix of Eq. 2.5, ``[[0, 1^T], [1, K + I/C]]``."""
    n = K.shape[0]
    A = np.empty((n + 1, n + 1))
    A[0, 0] = 0.0
    A[0, 1:] = 1.0
    A[1:, 0] = 1.0
    A[1:, 1:] = K
    A[np.arange(1, n + 1), np.arange(1, n + 1)] += 1.0 / C
    return A


def dense_kkt_lstsq(K: np.ndarray, y: np.ndarray, C: float) -> tuple[np.ndarray, float]:
    """Eq. 2.5 assembled densely and solved by least squares; ``(alpha, b)``."""
    u = linalg.lstsq(kkt_matrix(K, C), np.r_[0.0, y], check_finite=False)[0]
    return u[1:], float(u[0])


def solve_kkt(K: np.ndarray, y: np.ndarray, C: float) -> tuple[np.ndarray, float, str]:
    """``(alpha, b, method)`` of Eq. 2.5 for the kernel matrix ``K`` (``N x N``).

    ``method`` is ``"cholesky"``, or ``"lstsq"`` when ``K + I/C`` could not be factorised.
    ``K`` is not modified.
    """
    H = K + np.eye(K.shape[0]) / C
    try:
        factor = linalg.cho_factor(H, lower=True, overwrite_a=True, check_finite=False)
    except linalg.LinAlgError:
        alpha, b = dense_kkt_lstsq(K, y, C)
        return alpha, b, "lstsq"
    rhs = np.column_stack([np.ones(K.shape[0]), y])
    eta, nu = linalg.cho_solve(factor, rhs, check_finite=False).T
    b = nu.sum() / eta.sum()
    return nu - b * eta, float(b), "cholesky"


class EigenKKT:
    """Eq. 2.5 for many ``C`` from one eigendecomposition of the kernel matrix.

    Parameters
    ----------
    K : ndarray of shape (N, N)
        Symmetric kernel matrix ``Omega``.
    y : ndarray of shape (N,)
        Right-hand side (labels or targets).
    driver : {None, "evr", "evd", "ev", "evx"}, default=None
        LAPACK driver of :func:`scipy.linalg.eigh` (None: scipy's choice, ``evr``). ``"evd"``
        (divide and conquer) needs about ``2 N^2`` more doubles of workspace.
    """

    def __init__(self, K: np.ndarray, y: np.ndarray, driver: str | None = None):
        self.lam, self.U = linalg.eigh(K, driver=driver, check_finite=False)
        self.Ut1 = self.U.sum(axis=0)  # U^T 1
        self.Uty = self.U.T @ y

    def coefficients(self, C: float) -> tuple[np.ndarray, float]:
        """``(beta, b)`` with ``alpha = U beta`` (cost ``O(N)``): ``beta = d (U^T y - b U^T 1)``,
        ``d = 1 / (lam + 1/C)``."""
        d = 1.0 / (self.lam + 1.0 / C)
        eta_hat, nu_hat = d * self.Ut1, d * self.Uty  # U^T eta, U^T nu
        b = (self.Ut1 @ nu_hat) / (self.Ut1 @ eta_hat)  # 1^T nu / 1^T eta
        return nu_hat - b * eta_hat, float(b)

    def solve(self, C: float) -> tuple[np.ndarray, float]:
        """``(alpha, b)`` of Eq. 2.5 for ``C`` (cost ``O(N^2)``)."""
        beta, b = self.coefficients(C)
        return self.U @ beta, b
