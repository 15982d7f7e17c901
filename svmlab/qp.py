"""The dual of the L1 (hinge-loss) SVM, solved fast: OSQP with warm starts, or SMO.

Every estimator that needs the standard soft-margin SVM dual on a precomputed kernel
solves it here::

    min_alpha  1/2 alpha^T Q alpha - 1^T alpha,      Q = (y y^T) * K
    s.t.       y^T alpha = 0,   0 <= alpha_i <= C_i

(the dissertation's Eq. 2.x / 4.10, written as a minimisation). The decision function is
``f(x) = sum_i alpha_i y_i K(x_i, x) + b``.

Two methods, one stopping rule:

* ``"osqp"``: the operator-splitting QP solver OSQP with solution polishing, warm-started
  from a previous solution's primal and dual variables when one is given. A general QP
  solver, the closest analogue of the MATLAB ``quadprog`` the papers used.
* ``"smo"``: sequential minimal optimisation with second-order working-set selection
  (Fan, Chen & Lin, JMLR 6, 2005), compiled with numba, on the dense kernel. Warm starts
  are free: the previous ``alpha`` stays feasible whenever ``y`` and ``C`` are unchanged.

Both stop on the same optimality measure, the *maximal violating pair gap* (Keerthi et al.
2001; LIBSVM's ``eps``): with gradient ``G = Q alpha - 1``,
``gap = max_{i in I_up} -y_i G_i - min_{j in I_low} -y_j G_j`` where ``I_up`` / ``I_low`` are
the indices whose alpha may still grow / shrink along ``y``. ``gap <= tol`` is the KKT
condition to within ``tol``. When OSQP's answer misses it (OSQP's own residual test is a
different, looser one), ``refine=True`` finishes with SMO from OSQP's point, which then
needs only a few pair updates.

The intercept returned is LIBSVM's: the mean of ``-y_i G_i`` over free variables
(``0 < alpha_i < C_i``), or the midpoint of the feasible interval when none is free.
Callers with their own bias rule (e.g. MIRSVM's Eq. 4.13) recompute it from ``alpha``.

Memory: the caller holds ``K`` (n x n); OSQP additionally builds its upper triangle as a
sparse matrix and factors a KKT system of size 2n + 1, which costs O(n^3) time once per call
(dense ``K``), so for n beyond a few thousand ``"smo"`` is the faster choice
(``method="auto"`` switches at :data:`AUTO_SMO_ABOVE`).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from numba import njit

__all__ = [
    "DualSolution",
    "solve_svm_dual",
    "kkt_gap",
    "dual_objective",
    "svm_intercept",
    "AUTO_SMO_ABOVE",
]

METHODS = ("auto", "osqp", "smo")
# method="auto" uses OSQP up to this many variables and SMO above. OSQP factors a dense
# (2n+1)-square KKT system (O(n^3)); SMO's pair update costs O(n). Measured on RBF problems
# (tol 1e-8, one core): n=200 OSQP 0.03 s / SMO 0.004 s; n=500 0.2 / 0.008; n=2000 3.2 / 0.27.
AUTO_SMO_ABOVE = 500


@dataclass
class DualSolution:
    """The solution of one SVM dual and how it was obtained.

    Attributes
    ----------
    alpha : ndarray of shape (n,)
        Dual variables, exactly inside ``[0, C_i]`` (values at a bound are exactly 0 or C_i).
    intercept : float
        LIBSVM's bias ``b`` (see the module notes).
    objective : float
        ``1/2 alpha^T Q alpha - sum(alpha)`` (the minimised form; the papers maximise its
        negative).
    gap : float
        Maximal violating pair gap at ``alpha`` (0 when no pair violates).
    n_iter : int
        OSQP iterations plus SMO pair updates.
    converged : bool
        ``gap <= tol``.
    method : str
        What ran: ``"osqp"``, ``"osqp+smo"`` (refined) or ``"smo"``.
    seconds : float
        Wall time of the call.
    osqp_dual : ndarray or None
        OSQP's constraint multipliers, reused by a later warm start.
    info : dict
        Solver details (OSQP status, polish status, ...).
    """

    alpha: np.ndarray
    intercept: float
    objective: float
    gap: float
    n_iter: int
    converged: bool
    method: str
    seconds: float = 0.0
    osqp_dual: np.ndarray | None = None
    info: dict = field(default_factory=dict)


# --------------------------------------------------------------------------------------
# optimality measures
# --------------------------------------------------------------------------------------


def _gradient(K, y, alpha):
    """``G = Q alpha - 1`` with ``Q = y y^T * K``."""
    return y * (K @ (alpha * y)) - 1.0


def dual_objective(K, y, alpha) -> float:
    """``1/2 alpha^T Q alpha - sum(alpha)`` for ``Q = y y^T * K``."""
    v = alpha * y
    return float(0.5 * v @ (K @ v) - alpha.sum())


def _up_low(y, alpha, C):
    up = ((y > 0) & (alpha < C)) | ((y < 0) & (alpha > 0))
    low = ((y > 0) & (alpha > 0)) | ((y < 0) & (alpha < C))
    return up, low


def _gap_from_gradient(y, alpha, C, G) -> float:
    up, low = _up_low(y, alpha, C)
    if not up.any() or not low.any():
        return 0.0
    v = -y * G
    return max(0.0, float(v[up].max() - v[low].min()))


def kkt_gap(K, y, C, alpha) -> float:
    """Maximal violating pair gap of ``alpha`` (0 at an exact optimum).

    Parameters
    ----------
    K : ndarray of shape (n, n)
        Kernel matrix.
    y : ndarray of shape (n,)
        Labels in {-1, +1}.
    C : float or ndarray of shape (n,)
        Upper bounds.
    alpha : ndarray of shape (n,)
        A feasible point.
    """
    y = np.asarray(y, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    C = np.broadcast_to(np.asarray(C, dtype=np.float64), alpha.shape)
    return _gap_from_gradient(y, alpha, C, _gradient(np.asarray(K, dtype=np.float64), y, alpha))


def _intercept_from_gradient(y, alpha, C, G) -> float:
    # LIBSVM's calculate_rho, with b = -rho.
    yG = y * G
    free = (alpha > 0) & (alpha < C)
    if free.any():
        return float(-yG[free].mean())
    at_upper = alpha >= C
    # rho's upper bound comes from (y=+1 at 0) or (y=-1 at C), its lower bound from the rest
    ub_set = ((y > 0) & ~at_upper) | ((y < 0) & at_upper)
    lb_set = ~ub_set
    ub = yG[ub_set].min() if ub_set.any() else np.inf
    lb = yG[lb_set].max() if lb_set.any() else -np.inf
    if np.isinf(ub) or np.isinf(lb):
        rho = lb if np.isinf(ub) else ub
        rho = 0.0 if np.isinf(rho) else rho
    else:
        rho = 0.5 * (ub + lb)
    return float(-rho)


def svm_intercept(K, y, C, alpha) -> float:
    """LIBSVM's bias for ``alpha``: mean over free variables of ``y_i - sum_j alpha_j y_j K_ij``."""
    y = np.asarray(y, dtype=np.float64)
    alpha = np.asarray(alpha, dtype=np.float64)
    C = np.broadcast_to(np.asarray(C, dtype=np.float64), alpha.shape)
    return _intercept_from_gradient(
        y, alpha, C, _gradient(np.asarray(K, dtype=np.float64), y, alpha)
    )


# --------------------------------------------------------------------------------------
# feasibility
# --------------------------------------------------------------------------------------


def _make_feasible(alpha, y, C, snap):
    """Clip into the box, snap values within ``snap * C`` of a bound onto it, and restore
    ``y^T alpha = 0``: first by an equal shift of the free variables (a no-op for an OSQP
    answer that is already feasible to rounding), else by scaling the heavier class down.
    """
    a = np.clip(np.asarray(alpha, dtype=np.float64), 0.0, C)
    a[a <= snap * C] = 0.0
    a[a >= C - snap * C] = C[a >= C - snap * C]
    r = float(y @ a)
    if abs(r) <= 1e-13 * max(1.0, float(a.sum())):
        return a
    free = (a > 0) & (a < C)
    if free.any():
        shifted = a.copy()
        shifted[free] -= y[free] * (r / free.sum())
        if np.all(shifted[free] >= 0) and np.all(shifted[free] <= C[free]):
            return shifted
    pos, neg = a[y > 0].sum(), a[y < 0].sum()
    target = min(pos, neg)
    if pos > target:
        a[y > 0] *= target / pos
    if neg > target:
        a[y < 0] *= target / neg
    return a


# --------------------------------------------------------------------------------------
# SMO (numba)
# --------------------------------------------------------------------------------------

_TAU = 1e-12


@njit(cache=True, nogil=True)
def _smo(K, y, C, alpha, G, tol, max_iter):
    """Pairwise SMO with second-order working-set selection; updates alpha and G in place.

    Returns (iterations, final gap). Direction: alpha_i += y_i t, alpha_j -= y_j t (t > 0),
    which keeps y^T alpha fixed; along it the objective changes by
    -t (v_i - v_j) + t^2/2 (K_ii + K_jj - 2 K_ij) with v = -y * G.
    """
    n = K.shape[0]
    it = 0
    gap = 0.0
    while True:
        # i: the maximiser of v over I_up
        vmax = -np.inf
        i = -1
        for t in range(n):
            if (y[t] > 0 and alpha[t] < C[t]) or (y[t] < 0 and alpha[t] > 0):
                v = -y[t] * G[t]
                if v > vmax:
                    vmax = v
                    i = t
        # j: over I_low, the largest second-order decrease among pairs violating with i;
        # vmin tracks min v over I_low for the stopping gap
        vmin = np.inf
        j = -1
        best = np.inf
        for t in range(n):
            if (y[t] > 0 and alpha[t] > 0) or (y[t] < 0 and alpha[t] < C[t]):
                v = -y[t] * G[t]
                if v < vmin:
                    vmin = v
                if i >= 0 and v < vmax:
                    b = vmax - v
                    a = K[i, i] + K[t, t] - 2.0 * K[i, t]
                    if a <= 0.0:
                        a = _TAU
                    score = -b * b / a
                    if score < best:
                        best = score
                        j = t
        gap = vmax - vmin if (i >= 0 and vmin < np.inf) else 0.0
        if gap <= tol or j < 0 or it >= max_iter:
            break
        it += 1
        a = K[i, i] + K[j, j] - 2.0 * K[i, j]
        if a <= 0.0:
            a = _TAU
        step = (vmax - (-y[j] * G[j])) / a
        lim_i = C[i] - alpha[i] if y[i] > 0 else alpha[i]
        lim_j = alpha[j] if y[j] > 0 else C[j] - alpha[j]
        if step >= lim_i:
            step = lim_i
        if step >= lim_j:
            step = lim_j
        alpha[i] += y[i] * step
        alpha[j] -= y[j] * step
        # land exactly on a bound that the step reached
        if step == lim_i:
            alpha[i] = C[i] if y[i] > 0 else 0.0
        if step == lim_j:
            alpha[j] = 0.0 if y[j] > 0 else C[j]
        for k in range(n):
            G[k] += y[k] * step * (K[k, i] - K[k, j])
    return it, gap


def _run_smo(K, y, C, alpha, tol, max_iter):
    G = _gradient(K, y, alpha)
    n_iter, _ = _smo(K, y, C, alpha, G, float(tol), int(max_iter))
    # recompute the gradient exactly (the running one accumulates rounding)
    G = _gradient(K, y, alpha)
    return n_iter, G


# --------------------------------------------------------------------------------------
# OSQP
# --------------------------------------------------------------------------------------


def _run_osqp(K, y, C, alpha0, dual0, tol, max_iter):
    import osqp

    n = len(y)
    Q = (y[:, None] * K) * y[None, :]
    P = sp.triu(sp.csc_matrix(Q), format="csc")
    A = sp.vstack([sp.csr_matrix(y[None, :]), sp.identity(n, format="csr")], format="csc")
    lower = np.zeros(n + 1)
    upper = np.concatenate([[0.0], C])
    qp = osqp.OSQP()
    eps = min(1e-6, float(tol))
    qp.setup(
        P,
        -np.ones(n),
        A,
        lower,
        upper,
        verbose=False,
        polishing=True,
        eps_abs=eps,
        eps_rel=eps,
        max_iter=int(max_iter),
        polish_refine_iter=5,
    )
    if alpha0 is not None:
        qp.warm_start(x=alpha0, y=dual0 if dual0 is not None and len(dual0) == n + 1 else None)
    res = qp.solve(raise_error=False)
    info = {
        "osqp_status": str(res.info.status),
        "osqp_polished": int(res.info.status_polish) == 1,
        "osqp_iter": int(res.info.iter),
    }
    x = res.x
    if x is None or not np.all(np.isfinite(x)):
        return None, None, info
    return np.asarray(x, dtype=np.float64), np.asarray(res.y, dtype=np.float64), info


# --------------------------------------------------------------------------------------
# public entry point
# --------------------------------------------------------------------------------------


def _checked_problem(K, y, C):
    """``K``, ``y`` and the per-sample box ``C`` as contiguous float64 arrays, validated."""
    K = np.ascontiguousarray(K, dtype=np.float64)
    y = np.ascontiguousarray(y, dtype=np.float64).ravel()
    n = len(y)
    if K.shape != (n, n):
        raise ValueError(f"K must be ({n}, {n}) for {n} labels, got {K.shape}")
    if not np.all(np.abs(y) == 1):
        raise ValueError("y must contain only -1 and +1")
    if not ((y > 0).any() and (y < 0).any()):
        raise ValueError("y must contain both classes (-1 and +1)")
    C = np.ascontiguousarray(np.broadcast_to(np.asarray(C, dtype=np.float64), (n,)))
    if not np.all(C > 0):
        raise ValueError("C must be > 0")
    return K, y, C


def _warm_start_point(warm_start, y, C):
    """``(alpha0, osqp_dual0)`` from a warm start (array or :class:`DualSolution`), ``alpha0``
    made feasible; ``(None, None)`` without one."""
    n = len(y)
    dual0 = None
    if isinstance(warm_start, DualSolution):
        dual0, warm_start = warm_start.osqp_dual, warm_start.alpha
    alpha0 = None
    if warm_start is not None:
        alpha0 = np.asarray(warm_start, dtype=np.float64).ravel()
        if alpha0.shape != (n,):
            raise ValueError(f"warm_start must have {n} entries, got {alpha0.shape}")
        alpha0 = _make_feasible(alpha0, y, C, snap=0.0)
    return alpha0, dual0


def _osqp_stage(K, y, C, alpha0, dual0, tol, max_iter, refine):
    """OSQP from the warm start: ``(alpha or None, OSQP's dual, info)``; a failure is an error
    without ``refine``, else a warning (SMO then solves from the warm start)."""
    x, osqp_dual, info = _run_osqp(
        K, y, C, alpha0, dual0, tol, 20_000 if max_iter is None else max_iter
    )
    if x is not None:
        return _make_feasible(x, y, C, snap=1e-9), osqp_dual, info
    if not refine:
        raise RuntimeError(f"OSQP failed ({info['osqp_status']}) and refine=False")
    warnings.warn(  # noqa: B028 (about this solve, not the caller's line)
        f"OSQP failed ({info['osqp_status']}); solving with SMO instead", RuntimeWarning
    )
    return None, osqp_dual, info


def _osqp_then_smo(K, y, C, alpha0, dual0, *, method, tol, max_iter, refine):
    """The stages of :func:`solve_svm_dual` for ``method`` "osqp" or "smo": OSQP first
    (``"osqp"``), then SMO (``"smo"``, or to refine OSQP's answer or take over when it fails).

    Returns ``(alpha, G, n_iter, method used, OSQP's dual variables or None, info)``.
    """
    n = len(y)
    smo_cap = max(10_000_000, 100 * n) if max_iter is None else int(max_iter)
    info: dict = {}
    used = method
    n_iter = 0
    osqp_dual = None
    alpha = None
    if method == "osqp":
        alpha, osqp_dual, info = _osqp_stage(K, y, C, alpha0, dual0, tol, max_iter, refine)
        n_iter += info["osqp_iter"]
    if alpha is None:
        alpha = alpha0.copy() if alpha0 is not None else np.zeros(n)
        G = None
    else:
        G = _gradient(K, y, alpha)
    if method == "smo" or (refine and (G is None or _gap_from_gradient(y, alpha, C, G) > tol)):
        k, G = _run_smo(K, y, C, alpha, tol, smo_cap)
        n_iter += k
        info["smo_iter"] = k
        used = "smo" if method == "smo" else "osqp+smo"
    return alpha, G, n_iter, used, osqp_dual, info


def solve_svm_dual(
    K,
    y,
    C,
    *,
    warm_start=None,
    tol: float = 1e-5,
    method: str = "auto",
    max_iter: int | None = None,
    refine: bool = True,
) -> DualSolution:
    """Solve the soft-margin SVM dual on a precomputed kernel.

    Parameters
    ----------
    K : array-like of shape (n, n)
        Symmetric positive semi-definite kernel matrix.
    y : array-like of shape (n,)
        Labels in {-1, +1}; both must occur.
    C : float or array-like of shape (n,)
        Box upper bound(s), > 0.
    warm_start : ndarray of shape (n,) or DualSolution, optional
        A starting point (e.g. the previous solution when ``K`` changed a little). It is
        clipped and made feasible first. A :class:`DualSolution` also passes OSQP's dual
        variables.
    tol : float, default=1e-5
        Stop when the maximal violating pair gap is at most ``tol`` (LIBSVM's ``eps``,
        whose default is 1e-3).
    method : {"auto", "osqp", "smo"}, default="auto"
        ``"auto"``: OSQP for ``n <= AUTO_SMO_ABOVE``, SMO above.
    max_iter : int, optional
        Iteration cap: OSQP iterations (default 20,000) and SMO pair updates
        (default ``max(10^7, 100 n)``).
    refine : bool, default=True
        After OSQP, run SMO from its answer when the gap is still above ``tol`` (and as a
        fallback when OSQP fails).

    Returns
    -------
    DualSolution
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if not tol > 0:
        raise ValueError(f"tol must be > 0, got {tol!r}")
    t0 = time.perf_counter()
    K, y, C = _checked_problem(K, y, C)
    n = len(y)
    alpha0, dual0 = _warm_start_point(warm_start, y, C)

    if method == "auto":
        method = "osqp" if n <= AUTO_SMO_ABOVE else "smo"
    alpha, G, n_iter, used, osqp_dual, info = _osqp_then_smo(
        K, y, C, alpha0, dual0, method=method, tol=tol, max_iter=max_iter, refine=refine
    )
    gap = _gap_from_gradient(y, alpha, C, G)
    return DualSolution(
        alpha=alpha,
        intercept=_intercept_from_gradient(y, alpha, C, G),
        objective=float(0.5 * alpha @ (G - 1.0)),
        gap=gap,
        n_iter=int(n_iter),
        converged=bool(gap <= tol),
        method=used,
        seconds=time.perf_counter() - t0,
        osqp_dual=osqp_dual,
        info=info,
    )
