"""The working-set dual of the 1-slack structural SVM (Wang et al., Eq. 17).

Over the constraints found so far (the working set, ``k`` of them)::

    max_alpha  delta' alpha - 1/2 alpha' H alpha    s.t.  alpha >= 0,  sum(alpha) <= C

with ``H = sum_m mu_m Q_m`` positive semi-definite. ``k`` grows by one per cutting-plane
iteration and stays at a few hundred at most, so the problem is small and dense. By default
svmlab's own solver for it (:mod:`~svmlab.estimators.svmperf.simplex_qp`, warm-started from
the previous solution padded with a zero) answers; Clarabel's interior-point method and OSQP
(warm-started, then polished on its active set) are the alternatives. Every answer is checked
against the KKT conditions and, when they fail, solved again by the next solver; the caller
counts these fallbacks. Every caller recomputes the objective from the returned ``alpha``,
never from the solver's reported value.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from svmlab.estimators.svmperf.simplex_qp import solve_simplex_qp

#: Absolute tolerance of the KKT check on the returned point (scaled by max(1, C, |delta|)).
KKT_TOL = 1e-6


@dataclass
class QPResult:
    """Solution of one working-set QP.

    Attributes
    ----------
    alpha : ndarray of shape (k,)
        The dual variables, clipped to the feasible set.
    dual : float
        ``delta' alpha - 1/2 alpha' H alpha`` at ``alpha``.
    solver : str
        The solver whose answer this is (``"active_set"``, ``"clarabel"`` or ``"osqp"``).
    iterations : int
        Iterations of the solver that produced ``alpha`` (for ``"active_set"``: face
        changes plus pair steps).
    kkt_residual : float
        Largest violation of the optimality conditions at ``alpha``.
    """

    alpha: np.ndarray
    dual: float
    solver: str
    iterations: int
    kkt_residual: float


def dual_value(H, delta, alpha) -> float:
    """``delta' alpha - 1/2 alpha' H alpha``."""
    return float(delta @ alpha - 0.5 * alpha @ (H @ alpha))


def kkt_residual(H, delta, C, alpha) -> float:
    """Largest violation of the KKT conditions of Eq. 17 at ``alpha``.

    With gradient ``r = delta - H alpha`` and the multiplier ``lam >= 0`` of
    ``sum(alpha) <= C`` estimated as ``max(0, max_l r_l)``, optimality needs ``r_l = lam`` where
    ``alpha_l > 0``, ``r_l <= lam`` everywhere, and ``lam (C - sum alpha) = 0``.
    """
    if alpha.size == 0:
        return 0.0
    r = delta - H @ alpha
    lam = max(0.0, float(r.max()))
    support = alpha > 1e-9 * max(1.0, C)
    slack = C - alpha.sum()
    res = [
        float(np.max(np.maximum(r - lam, 0.0))),
        float(np.max(np.abs(r[support] - lam))) if support.any() else 0.0,
        lam * max(slack, 0.0) / max(1.0, C),
        float(max(-alpha.min(), alpha.sum() - C, 0.0)),
    ]
    return max(res)


def _clip(alpha, C):
    alpha = np.maximum(alpha, 0.0)
    total = alpha.sum()
    if total > C:
        alpha *= C / total
    return alpha


def _osqp(H, delta, C, alpha0, eps, max_iter):
    import osqp

    k = len(delta)
    P = sp.triu(sp.csc_matrix(H), format="csc")
    A = sp.vstack([sp.identity(k, format="csr"), sp.csr_matrix(np.ones((1, k)))], format="csc")
    lower = np.concatenate([np.zeros(k), [-np.inf]])
    upper = np.concatenate([np.full(k, np.inf), [C]])
    qp = osqp.OSQP()
    setup = dict(
        P=P,
        q=-delta,
        A=A,
        l=lower,
        u=upper,
        verbose=False,
        polishing=False,  # OSQP 1.x prints to stdout when it polishes; :func:`_polish` instead
        eps_abs=eps,
        eps_rel=eps,
        max_iter=int(max_iter),
    )
    try:
        qp.setup(**setup)
        if alpha0 is not None:
            qp.warm_start(x=alpha0)
        res = qp.solve(raise_error=False)
    except Exception:  # OSQP refuses e.g. a numerically indefinite H: try the other solver
        return None, 0
    x = res.x
    if x is None or not np.all(np.isfinite(x)):
        return None, int(res.info.iter)
    return np.asarray(x, dtype=np.float64), int(res.info.iter)


def _polish(H, delta, C, alpha):
    """Solve the equality-constrained QP on the active set guessed from ``alpha``.

    The support ``S = {alpha_l > 0}`` and whether ``sum(alpha) = C`` is active are read off
    the approximate solution; the KKT system on them is then solved exactly. Returns ``None``
    when the result leaves the feasible set (the guess was wrong).
    """
    tol = 1e-7 * max(1.0, C)
    S = np.flatnonzero(alpha > tol)
    if S.size == 0:
        return None
    H_S = H[np.ix_(S, S)]
    at_bound = alpha.sum() > C - 1e-6 * max(1.0, C)
    try:
        if at_bound:
            k = S.size
            A = np.zeros((k + 1, k + 1))
            A[:k, :k] = H_S
            A[:k, k] = A[k, :k] = 1.0
            sol = np.linalg.solve(A, np.concatenate([delta[S], [C]]))[:k]
        else:
            sol = np.linalg.solve(H_S, delta[S])
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(sol)) or sol.min() < -tol or sol.sum() > C + tol:
        return None
    out = np.zeros_like(alpha)
    out[S] = np.maximum(sol, 0.0)
    return out


def _clarabel(H, delta, C):
    import clarabel

    k = len(delta)
    P = sp.triu(sp.csc_matrix(H), format="csc")
    # A x + s = b, s >= 0:  -alpha + s = 0 and 1'alpha + s = C
    A = sp.vstack([-sp.identity(k, format="csr"), sp.csr_matrix(np.ones((1, k)))], format="csc")
    b = np.concatenate([np.zeros(k), [C]])
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = 1e-10
    settings.tol_feas = 1e-10
    solver = clarabel.DefaultSolver(P, -delta, A, b, [clarabel.NonnegativeConeT(k + 1)], settings)
    sol = solver.solve()
    if str(sol.status) not in ("Solved", "AlmostSolved"):
        return None, int(sol.iterations)
    return np.asarray(sol.x, dtype=np.float64), int(sol.iterations)


#: The solvers of :func:`solve_working_set_qp`; the first is the default.
QP_SOLVERS = ("active_set", "clarabel", "osqp")

#: Pair-gap tolerance of the active-set solver (scaled like :data:`KKT_TOL`).
ACTIVE_SET_TOL = 1e-10


def _fallback_order(solver):
    if solver not in QP_SOLVERS:
        raise ValueError(f"qp_solver must be one of {', '.join(QP_SOLVERS)}; got {solver!r}")
    if solver == "active_set":
        return ["active_set", "clarabel", "osqp"]
    return [solver, "clarabel" if solver == "osqp" else "osqp"]


def solve_working_set_qp(
    H, delta, C, *, alpha0=None, eps=1e-9, max_iter=20000, solver="active_set"
) -> QPResult:
    """Solve Eq. 17 over the current working set.

    Parameters
    ----------
    H : ndarray of shape (k, k)
        ``sum_m mu_m G' K_m G``, symmetric positive semi-definite.
    delta : ndarray of shape (k,)
        Losses of the working-set labellings.
    C : float
        Upper bound of ``sum(alpha)``.
    alpha0 : ndarray of shape (k,), optional
        Warm start (the previous solution padded with zeros).
    eps : float
        OSQP's absolute and relative tolerance.
    max_iter : int
        OSQP's iteration limit.
    solver : {"active_set", "clarabel", "osqp"}
        The solver tried first. ``"active_set"`` (default) is svmlab's own method for this
        problem (:mod:`~svmlab.estimators.svmperf.simplex_qp`: a primal active-set method
        finished by pair steps, warm-started, to a pair gap of ``1e-10`` scaled); Clarabel
        (interior point) and OSQP are the general-purpose alternatives. Whenever an answer
        fails the KKT check the next one is tried (``active_set`` -> Clarabel -> OSQP; Clarabel
        and OSQP fall back on each other), and :attr:`QPResult.solver` names the one that
        answered (docs/decisions/svmperf.md, "The working-set QP").

    Returns
    -------
    QPResult
    """
    order = _fallback_order(solver)
    H = np.asarray(H, dtype=np.float64)
    delta = np.asarray(delta, dtype=np.float64)
    k = len(delta)
    if k == 0:
        return QPResult(np.zeros(0), 0.0, solver, 0, 0.0)
    H = 0.5 * (H + H.T)
    scale = max(1.0, C, float(np.abs(delta).max()))
    H_reg = None
    tried = []
    best = None
    for name in order:
        if name == "active_set":
            alpha, iters, _ = solve_simplex_qp(H, delta, C, alpha0, tol=ACTIVE_SET_TOL * scale)
        else:
            if H_reg is None:
                ridge = 1e-12 * max(float(np.trace(H)) / k, 1e-300)
                H_reg = H + ridge * np.eye(k)
            alpha, iters = _general_solve(name, H_reg, delta, C, alpha0, eps, max_iter)
        if alpha is None:
            tried.append(name)
            continue
        alpha = _clip(alpha, C)
        res = kkt_residual(H, delta, C, alpha)
        if name != "active_set":
            polished = _polish(H_reg, delta, C, alpha) if res > 1e-12 * scale else None
            if polished is not None:
                pres = kkt_residual(H, delta, C, polished)
                if pres <= res:
                    alpha, res = polished, pres
        candidate = QPResult(alpha, dual_value(H, delta, alpha), name, iters, res)
        if best is None or candidate.dual > best.dual + 1e-12 * scale:
            best = candidate
        if res <= KKT_TOL * scale:
            return best
    if best is None:
        raise RuntimeError(f"working-set QP: no solver returned a solution ({', '.join(tried)})")
    return best


def _general_solve(name, H_reg, delta, C, alpha0, eps, max_iter):
    """Clarabel or OSQP (warm-started from ``alpha0``) on the regularised problem."""
    if name == "osqp":
        x0 = None if alpha0 is None else _clip(np.asarray(alpha0, dtype=np.float64), C)
        return _osqp(H_reg, delta, C, x0, eps, max_iter)
    return _clarabel(H_reg, delta, C)
