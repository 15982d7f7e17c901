"""The 1-slack cutting-plane algorithm of SVM^perf with MKLPO's kernel-weight step.

Wang et al., Alg. 1 (with Joachims 2005, Alg. 1, for the stopping test): starting from an
empty working set ``W`` and ``alpha = []``, each iteration

1. computes the training scores ``f = sum_m mu_m K_m G alpha``;
2. asks the measure's exact oracle (Eq. 19) for the most violated labelling and its
   constraint ``(g*, Delta*)``; its violation is ``H* = Delta* - f' g*``;
3. stops the cutting plane when ``H* <= xi + epsilon`` (``xi`` the slack of ``W``), or when
   the labelling is already in ``W``, else adds it (Eq. 20);
4. solves the working-set dual (Eq. 17) for ``alpha`` and updates the kernel weights
   (Eq. 18, :mod:`~svmlab.estimators.svmperf.kernel_weights`).

It stops when the cutting plane has converged and the weights moved by at most ``tol_tau``,
or after ``max_iter`` iterations, and records which. Every iteration logs the true primal
``1/2 alpha' H alpha + C max(0, H*)`` (the oracle is exact, so ``max(0, H*)`` is the exact
structural hinge), the working-set dual and their gap.
"""

from __future__ import annotations

import time

import numpy as np

from svmlab.estimators.svmperf.blocks import FeatureBlock
from svmlab.estimators.svmperf.kernel_weights import uniform_weights, update_weights
from svmlab.estimators.svmperf.oracles import most_violated
from svmlab.estimators.svmperf.shrinking import error_rate_shrinking
from svmlab.estimators.svmperf.working_set import CuttingPlaneResult, WorkingSet, trace_entry
from svmlab.estimators.svmperf.working_set_qp import dual_value, solve_working_set_qp


def cutting_plane(
    blocks,
    y,
    measure: str,
    *,
    C: float,
    epsilon: float = 0.1,
    max_iter: int = 500,
    scaling: str = "svmperf",
    mkl_update: str = "closed_form",
    mkl_p: float = 0.5,
    mu_init=None,
    tol_tau: float = 1e-4,
    inner_alternations: int = 1,
    smoothing: float = 0.0,
    final_alpha_resolve: bool = True,
    qp_solver: str = "active_set",
    qp_eps: float = 1e-9,
    inactive_after: int | None = 50,
    oracle_options: dict | None = None,
    shrinking: bool = False,
) -> CuttingPlaneResult:
    """Train the 1-slack structural SVM (and its kernel weights) on one training set.

    Parameters
    ----------
    blocks : list of GramBlock or FeatureBlock
        One per kernel (:mod:`~svmlab.estimators.svmperf.blocks`).
    y : ndarray of shape (n,)
        Labels in {+1, -1}.
    measure : str
        The oracle (:data:`~svmlab.estimators.svmperf.oracles.MEASURES`).
    C : float
        Upper bound of ``sum(alpha)`` (on SVM^perf's ``-c`` scale with ``scaling="svmperf"``).
    epsilon : float
        Stopping tolerance in percent-loss units (SVM^perf's ``-e``); divided by 100 under
        ``scaling="paper"``, whose losses are fractions.
    max_iter, tol_tau, inner_alternations, smoothing, final_alpha_resolve :
        See :class:`~svmlab.estimators.svmperf.MKLPOClassifier`.
    mkl_update, mkl_p, mu_init :
        Kernel-weight step (:func:`~svmlab.estimators.svmperf.kernel_weights.update_weights`)
        and the initial effective weights (default uniform on ``||mu||_p = 1``).
    inactive_after : int or None
        Drop a working-set constraint whose ``alpha`` stayed 0 for this many consecutive
        iterations (as SVM^struct's implementations do); the oracle may find it again. Keeps
        the QP at the size of its support (``None``: keep every constraint).
    oracle_options : dict or None
        Extra keywords of the oracle (:func:`~svmlab.estimators.svmperf.oracles.most_violated`),
        e.g. ``{"k_fraction": 0.5}`` for Prec@k.
    shrinking : bool
        For the error rate with one linear kernel: re-examine only the examples whose label
        may still change in most iterations
        (:func:`~svmlab.estimators.svmperf.shrinking.error_rate_shrinking`).

    Returns
    -------
    CuttingPlaneResult

    Notes
    -----
    Kept whole: the loop is Wang et al.'s Alg. 1 step by step (module docstring, steps 1-4),
    with the working-set bookkeeping (adding a constraint, dropping inactive ones) and the
    per-iteration log between the steps; its state (working set, Gram blocks, ``alpha``,
    kernel weights) changes at every step, so it stays in one piece, to be read beside the
    algorithm.
    """
    if shrinking:
        if measure != "accuracy" or len(blocks) != 1 or not isinstance(blocks[0], FeatureBlock):
            raise ValueError("shrinking needs the accuracy loss and the linear kernel")
        return error_rate_shrinking(
            blocks[0],
            y,
            C=C,
            epsilon=epsilon,
            max_iter=max_iter,
            scaling=scaling,
            qp_solver=qp_solver,
            qp_eps=qp_eps,
            inactive_after=inactive_after,
        )
    y = np.asarray(y)
    n = len(y)
    M = len(blocks)
    eps = float(epsilon) / (100.0 if scaling == "paper" else 1.0)
    mu = uniform_weights(M, mkl_p) if mu_init is None else np.asarray(mu_init, dtype=float)
    learn_weights = M > 1 and mkl_update != "fixed"
    W = WorkingSet(M)
    alpha = np.zeros(0)
    trace = []
    qp_stats = {"fallbacks": 0, "iterations": 0}
    tau_done = not learn_weights
    stop_reason = "max_iter"
    H_star = 0.0
    t = 0
    t0 = time.perf_counter()

    def scores(alpha):
        if alpha.size == 0:
            return np.zeros(n)
        if M == 1 and mu[0] == 1.0:
            return blocks[0].scores(alpha)
        return sum((m * b.scores(alpha) for m, b in zip(mu, blocks) if m > 0), np.zeros(n))

    def solve(alpha_prev):
        warm = np.concatenate([alpha_prev, np.zeros(W.k - alpha_prev.size)])
        res = solve_working_set_qp(W.H(mu), W.delta, C, alpha0=warm, eps=qp_eps, solver=qp_solver)
        qp_stats["fallbacks"] += res.solver != qp_solver
        qp_stats["iterations"] += res.iterations
        return res

    for t in range(1, max_iter + 1):
        f = scores(alpha)
        con = most_violated(measure, y, f, scaling=scaling, **(oracle_options or {}))
        H_star = float(con.delta - f @ con.g)
        # the working set's slack: G' f = H alpha (f = sum_m mu_m K_m G alpha)
        xi = max(0.0, float(np.max(W.delta - W.H(mu) @ alpha))) if W.k else 0.0
        cp_done = H_star <= xi + eps or con.key in W.key_set or con.delta == 0
        if cp_done and tau_done:
            stop_reason = "converged"
            break
        if not cp_done:
            W.add(con, [b.add(con.g) for b in blocks])
        res = None
        for _ in range(max(1, inner_alternations)):
            res = solve(alpha)
            alpha = res.alpha
            mu_old = mu
            a = np.array([alpha @ q @ alpha for q in W.Q])
            if learn_weights:
                mu = update_weights(mu, a, update=mkl_update, p=mkl_p, smoothing=smoothing)
        moved = float(np.max(np.abs(np.sqrt(mu) - np.sqrt(mu_old))))
        tau_done = not learn_weights or moved <= tol_tau
        if inactive_after:
            W.idle = np.where(alpha > 1e-10 * C, 0, W.idle + 1)
            keep = W.idle < inactive_after
            if not keep.all():
                W.keep(keep)
                for b in blocks:
                    b.keep(keep)
                alpha = alpha[keep]
        H = W.H(mu)
        trace.append(
            trace_entry(t, W, alpha, H, H_star, xi, C, np.sqrt(mu).round(6).tolist(), res, t0)
        )
    else:
        t = max_iter
    if final_alpha_resolve and W.k and learn_weights:
        alpha = solve(alpha).alpha
    H = W.H(mu)
    f = scores(alpha)
    if W.k:
        con = most_violated(measure, y, f, scaling=scaling, **(oracle_options or {}))
        H_star = float(con.delta - f @ con.g)
    primal = 0.5 * float(alpha @ H @ alpha) + C * max(0.0, H_star)
    dual = dual_value(H, W.delta, alpha) if W.k else 0.0
    return CuttingPlaneResult(
        alpha=alpha,
        mu=mu,
        G=W.G(n),
        delta=W.delta.copy(),
        n_iter=t,
        stop_reason=stop_reason,
        primal=primal,
        dual=dual,
        trace=trace,
        qp_fallbacks=qp_stats["fallbacks"],
        qp_iterations=qp_stats["iterations"],
    )
