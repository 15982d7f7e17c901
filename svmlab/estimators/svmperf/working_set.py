"""The state of the 1-slack cutting plane: its working set and what a fit returns.

Shared by :func:`~svmlab.estimators.svmperf.cutting_plane.cutting_plane` and
:func:`~svmlab.estimators.svmperf.shrinking.error_rate_shrinking`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np


@dataclass
class CuttingPlaneResult:
    """What :func:`cutting_plane` returns.

    Attributes
    ----------
    alpha : ndarray of shape (k,)
        Dual variables of the working-set constraints.
    mu : ndarray of shape (M,)
        Effective kernel weights ``tau**2``.
    G : ConstraintVectors of shape (n, k)
        The working-set constraint vectors (scaled label differences): ``G.shape``,
        ``G @ alpha``; ``np.asarray(G)`` stores them as an array.
    delta : ndarray of shape (k,)
        Their losses.
    n_iter : int
    stop_reason : {"converged", "max_iter"}
    primal, dual : float
        Final true primal (with the exact hinge) and working-set dual.
    trace : list of dict
        One entry per iteration (see the module docstring).
    qp_fallbacks : int
        Working-set QPs whose first solver's answer failed the KKT check.
    qp_iterations : int
        Iterations of the working-set QP solvers, summed over the fit.
    """

    alpha: np.ndarray
    mu: np.ndarray
    G: np.ndarray
    delta: np.ndarray
    n_iter: int
    stop_reason: str
    primal: float
    dual: float
    trace: list = field(default_factory=list)
    qp_fallbacks: int = 0
    qp_iterations: int = 0


class WorkingSet:
    """The constraints of ``W``: vectors ``g_l`` (kept as a list, so dropping one copies
    nothing of size ``n``), losses, keys, idle counters and the Gram matrices
    ``Q_m = G' K_m G``."""

    def __init__(self, n_kernels):
        self.cols: list = []
        self.delta = np.zeros(0)
        self.keys: list = []
        self.key_set: set = set()
        self.idle = np.zeros(0, dtype=np.int64)
        self.Q = [np.zeros((0, 0)) for _ in range(n_kernels)]

    @property
    def k(self) -> int:
        return len(self.cols)

    def add(self, con, q_cols) -> None:
        """Append constraint ``con``; ``q_cols[m]`` is the new column of ``Q_m``."""
        k = self.k
        self.cols.append(con.g)
        self.delta = np.append(self.delta, float(con.delta))
        self.keys.append(con.key)
        self.key_set.add(con.key)
        self.idle = np.append(self.idle, 0)
        for i, col in enumerate(q_cols):
            grown = np.empty((k + 1, k + 1))
            grown[:k, :k] = self.Q[i]
            grown[:, k] = grown[k, :] = col
            self.Q[i] = grown

    def keep(self, mask) -> None:
        """Keep the constraints where ``mask`` is true."""
        idx = np.flatnonzero(mask)
        self.cols = [self.cols[i] for i in idx]
        self.keys = [self.keys[i] for i in idx]
        self.key_set = set(self.keys)
        self.delta = self.delta[idx]
        self.idle = self.idle[idx]
        self.Q = [q[np.ix_(idx, idx)] for q in self.Q]

    def H(self, mu) -> np.ndarray:
        """``sum_m mu_m Q_m``."""
        if len(self.Q) == 1:
            return mu[0] * self.Q[0]
        return sum(m * q for m, q in zip(mu, self.Q))

    def G(self, n) -> ConstraintVectors:
        """The constraint vectors as an ``(n, k)`` matrix."""
        return ConstraintVectors(self.cols, n)


class ConstraintVectors:
    """The working set's vectors ``g_l`` as the columns of an ``(n, k)`` matrix that is
    stored whole only on request (``np.asarray``): what a fit needs of it is its shape and
    ``G @ alpha``, a sum over the constraints with ``alpha_l != 0``."""

    ndim = 2

    def __init__(self, cols, n):
        self._cols = list(cols)
        self.shape = (n, len(self._cols))

    def __matmul__(self, v) -> np.ndarray:
        v = np.asarray(v, dtype=np.float64)
        if v.shape != (self.shape[1],):
            raise ValueError(f"G @ v needs v of shape ({self.shape[1]},); got {v.shape}")
        out = np.zeros(self.shape[0])
        for a, g in zip(v, self._cols):
            if a != 0.0:
                out += a * g
        return out

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        # rows are contiguous copies; the transpose is a view (column_stack writes strided)
        G = np.vstack(self._cols).T if self._cols else np.zeros(self.shape)
        return G if dtype is None else G.astype(dtype)


def trace_entry(t, W, alpha, H, H_star, xi, C, tau, res, t0, **extra) -> dict:
    """One iteration's record for ``trace_``: violation, slack, primal, dual and gap at
    ``alpha`` over the working set ``W`` with Gram matrix ``H``, the kernel weights ``tau``,
    the QP ``res`` that produced ``alpha`` (None when no QP ran) and any ``extra`` fields."""
    w2 = float(alpha @ H @ alpha)
    primal = 0.5 * w2 + C * max(0.0, H_star)
    dual = float(W.delta @ alpha) - 0.5 * w2
    return {
        "iteration": t,
        "n_constraints": W.k,
        "violation": H_star,
        "xi": xi,
        "primal": primal,
        "dual": dual,
        "gap": primal - dual,
        "tau": tau,
        **extra,
        "qp_solver": None if res is None else res.solver,
        "qp_iterations": 0 if res is None else res.iterations,
        "seconds": time.perf_counter() - t0,
    }
