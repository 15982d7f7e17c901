"""The kernel-weight step of MKLPO (Wang et al., Eq. 18) and its well-defined readings.

Wang et al. combine M kernels as ``K_tau = sum_m tau_m^2 K_m`` (Eq. 1) with ``sum tau = 1``,
``tau >= 0`` (Eq. 11). Writing ``mu = tau^2`` for the effective weights, that constraint is
``||mu||_p = 1`` with ``p = 1/2``. Eq. 18 as printed minimises a concave function of ``tau``
over the simplex, whose minimiser is a vertex; svmlab's default replaces it by the exact
block-coordinate minimiser of the primal over the weights (the l_p-MKL closed form of Kloft
et al., JMLR 2011), which keeps the effective predictor fixed and so never increases the
working-set objective. docs/decisions/svmperf.md, "The kernel-weight step".

Updates (``update``):

* ``closed_form``: ``mu_m <- ||u_m||^(2/(p+1)) / (sum_k ||u_k||^(2p/(p+1)))^(1/p)`` with the
  block norms ``||u_m|| = mu_m sqrt(a_m)``, ``a_m = alpha' Q_m alpha``;
* ``literal_vertex``: Eq. 18 solved literally, ``tau = e_m*`` with ``m* = argmax_m a_m``
  (ties to the lowest ``m``);
* ``fixed``: the weights stay at their initial value (the uniform-combination baseline).
"""

from __future__ import annotations

import numpy as np

UPDATES = ("closed_form", "literal_vertex", "fixed")


def uniform_weights(M: int, p: float) -> np.ndarray:
    """Equal effective weights ``mu`` on ``{mu >= 0, ||mu||_p = 1}``: ``M^(-1/p)`` each.

    ``p = 0.5`` gives ``tau = 1/M`` (Wang et al.'s simplex), ``p = 1`` gives ``mu = 1/M``.
    """
    return np.full(M, float(M) ** (-1.0 / p))


def normalise(mu: np.ndarray, p: float) -> np.ndarray:
    """``mu / ||mu||_p`` (``mu`` non-negative, not all zero)."""
    return mu / (np.sum(mu**p) ** (1.0 / p))


def update_weights(mu, a, *, update: str, p: float, smoothing: float = 0.0) -> np.ndarray:
    """One kernel-weight step.

    Parameters
    ----------
    mu : ndarray of shape (M,)
        Current effective weights (``tau**2``).
    a : ndarray of shape (M,)
        ``alpha' Q_m alpha`` for each kernel at the current dual solution.
    update : {"closed_form", "literal_vertex", "fixed"}
    p : float
        The norm of the constraint on ``mu`` (0.5 is Wang et al.'s ``sum tau = 1``).
    smoothing : float in [0, 1)
        Mix ``(1 - smoothing) mu + smoothing * uniform`` after the update, then renormalise.

    Returns
    -------
    ndarray of shape (M,)
        The new effective weights; unchanged when every ``a_m`` is 0 (no constraint yet).
    """
    mu = np.asarray(mu, dtype=np.float64)
    a = np.maximum(np.asarray(a, dtype=np.float64), 0.0)
    if update == "fixed" or not np.any(a > 0):
        return mu.copy()
    if update == "literal_vertex":
        new = np.zeros_like(mu)
        new[int(np.argmax(a))] = 1.0
        return new
    if update != "closed_form":
        raise ValueError(f"mkl_update must be one of {', '.join(UPDATES)}; got {update!r}")
    norms = mu * np.sqrt(a)
    new = norms ** (2.0 / (p + 1.0)) / np.sum(norms ** (2.0 * p / (p + 1.0))) ** (1.0 / p)
    if smoothing > 0:
        new = normalise((1.0 - smoothing) * new + smoothing * uniform_weights(len(mu), p), p)
    return new
