"""The 1-slack cutting plane for the error rate with shrinking (``SVMPerfClassifier(loss=
"accuracy", shrinking=True)``): most iterations re-examine only the examples whose label may
still change.

The error rate's most violated labelling separates over the examples (Joachims 2005, Alg. 2:
flip ``i`` iff ``y_i f_i`` is below the margin), so a labelling in which only some examples
were re-labelled at the current ``w`` and the others keep their last label is still a
labelling, and its constraint is a valid cutting plane of the same 1-slack problem. This
variant, in the spirit of SVM^perf's own algorithm for the error rate (its ``-w 9``), does:

* a *full round* (every example scored and labelled, the exact most violated constraint) in
  the first five iterations, after a shrunken round that found no constraint violated by more
  than ``epsilon``, and after one whose violation fell below a quarter of the last full
  round's (the shrunken estimate is then likely stale);
* otherwise a *shrunken round* over the examples not settled, where an example is settled
  when its distance to the margin, ``|y_i f_i - margin|``, exceeds ``kappa`` times a running
  average of how much that distance moved between its last checks.

The constraint vector's features ``z = Phi' g`` are updated by the examples whose label
changed only. The fit stops only in a full round, with the default's test (violation at most
``xi + epsilon``, a labelling already in the working set, or zero loss), so it ends at an
``epsilon``-optimal point of the same problem; the path and hence the model differ within
that tolerance (docs/decisions/svmperf.md, "Shrinking for the error rate").
"""

from __future__ import annotations

import time

import numpy as np
from numba import njit

from svmlab.estimators.svmperf.blocks import FeatureBlock
from svmlab.estimators.svmperf.oracles import most_violated
from svmlab.estimators.svmperf.working_set import CuttingPlaneResult, WorkingSet, trace_entry
from svmlab.estimators.svmperf.working_set_qp import dual_value, solve_working_set_qp

#: Settled: distance to the margin above ``KAPPA`` times its average movement between checks.
KAPPA = 2.0
#: Full rounds in the first iterations (the movement averages need a few checks).
FIRST_FULL_ROUNDS = 5
#: A shrunken round whose violation is below this fraction of the last full round's asks
#: for a full round next.
STALE_FRACTION = 0.25


@njit(cache=True, nogil=True)
def _checked_label(i, f, y, margin, state, settled):
    """Record the check of example ``i`` at score ``f``; return its label there.

    ``state[0, i]`` holds ``y_i f_i - margin`` at the last check (NaN before the first),
    ``state[1, i]`` the running average of its movement between checks (inf before the
    second check); the example is settled when its distance exceeds ``KAPPA`` times that.
    """
    yi = y[i]
    prod = yi * f
    dist = prod - margin
    last = state[0, i]
    if not np.isnan(last):
        moved = abs(dist - last)
        avg = state[1, i]
        state[1, i] = moved if np.isinf(avg) else 0.5 * avg + 0.5 * moved
    state[0, i] = dist
    settled[i] = abs(dist) > KAPPA * state[1, i]
    return -yi if prod < margin else yi


@njit(cache=True, nogil=True)
def _relabel_csr(indptr, indices, data, full, w, y, margin, s, state, ybar, settled, z):
    """Check every example (``full``) or the unsettled ones of CSR features; update their
    labels and ``z = Phi' s (y - ybar)``; return the change of the number of errors."""
    d_errors = 0
    for i in range(y.size):
        if not full and settled[i]:
            continue
        f = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            f += data[p] * w[indices[p]]
        new = _checked_label(i, f, y, margin, state, settled)
        old = ybar[i]
        if new != old:
            c = s * (old - new)  # g = s (y - ybar) changes by s (old - new) at row i
            for p in range(indptr[i], indptr[i + 1]):
                z[indices[p]] += c * data[p]
            d_errors += (1 if new != y[i] else 0) - (1 if old != y[i] else 0)
            ybar[i] = new
    return d_errors


@njit(cache=True, nogil=True)
def _relabel_dense(Phi, full, w, y, margin, s, state, ybar, settled, z):
    """:func:`_relabel_csr` for dense features."""
    d_errors = 0
    r = Phi.shape[1]
    for i in range(y.size):
        if not full and settled[i]:
            continue
        f = 0.0
        for j in range(r):
            f += Phi[i, j] * w[j]
        new = _checked_label(i, f, y, margin, state, settled)
        old = ybar[i]
        if new != old:
            c = s * (old - new)
            for j in range(r):
                z[j] += c * Phi[i, j]
            d_errors += (1 if new != y[i] else 0) - (1 if old != y[i] else 0)
            ybar[i] = new
    return d_errors


def _relabel(block, full, w, y, margin, s, state, ybar, settled, z):
    """One round's relabelling on the block's CSR or dense features."""
    if block._csr is not None:
        c = block._csr
        return _relabel_csr(
            c.indptr, c.indices, c.data, full, w, y, margin, s, state, ybar, settled, z
        )
    return _relabel_dense(block.Phi, full, w, y, margin, s, state, ybar, settled, z)


def _trace_entry(t, W, alpha, H_star, xi, C, full, res, t0):
    return trace_entry(t, W, alpha, W.Q[0], H_star, xi, C, [1.0], res, t0, full_round=full)


def error_rate_shrinking(
    block,
    y,
    *,
    C: float,
    epsilon: float = 0.1,
    max_iter: int = 500,
    scaling: str = "svmperf",
    qp_solver: str = "active_set",
    qp_eps: float = 1e-9,
    inactive_after: int | None = 50,
) -> CuttingPlaneResult:
    """Train the linear 1-slack structural SVM for the error rate with shrinking.

    Parameters
    ----------
    block : FeatureBlock
        The linear kernel's features (one kernel of weight 1).
    y : ndarray of shape (n,)
        Labels in {+1, -1}.
    C, epsilon, max_iter, scaling, qp_solver, qp_eps, inactive_after :
        As in :func:`~svmlab.estimators.svmperf.cutting_plane.cutting_plane`; ``max_iter``
        counts full and shrunken rounds.

    Returns
    -------
    CuttingPlaneResult
        Its trace entries say whether the round was full (``"full_round"``).

    Notes
    -----
    Kept whole: one round is the cutting plane's step by step (relabel, constraint, stopping
    test, working set, QP, dropping idle constraints, log), with the shrinking bookkeeping
    between the steps, to be read beside the module docstring.
    """
    if not isinstance(block, FeatureBlock):
        raise TypeError("error_rate_shrinking needs the linear kernel's FeatureBlock")
    y = np.asarray(y).astype(np.int8)
    y_float = y.astype(np.float64)
    n = y.size
    L, s = (100.0, 50.0 / n) if scaling == "svmperf" else (1.0, 1.0)  # oracles' units
    margin = 1.0 if scaling == "svmperf" else 0.5 / n
    eps = float(epsilon) / (100.0 if scaling == "paper" else 1.0)
    state = np.empty((2, n))
    state[0], state[1] = np.nan, np.inf
    ybar, settled = y.copy(), np.zeros(n, dtype=bool)
    z = np.zeros(block.Phi.shape[1])
    w = np.zeros_like(z)
    errors = 0
    W = WorkingSet(1)
    alpha = np.zeros(0)
    trace, qp = [], {"fallbacks": 0, "iterations": 0}
    stop_reason, need_full, last_full = "max_iter", True, np.inf
    t0 = time.perf_counter()
    t = 0
    for t in range(1, max_iter + 1):
        full = need_full or t <= FIRST_FULL_ROUNDS
        errors += _relabel(block, full, w, y, margin, s, state, ybar, settled, z)
        delta = L * errors / n
        H_star = float(delta - w @ z)
        xi = max(0.0, float(np.max(W.delta - W.Q[0] @ alpha))) if W.k else 0.0
        key = np.packbits(ybar > 0).tobytes()
        done = H_star <= xi + eps or key in W.key_set or delta == 0
        need_full = done or (not full and H_star - xi < STALE_FRACTION * last_full)
        if full:
            last_full = H_star - xi
            if done:
                stop_reason = "converged"
                break
        if done:
            trace.append(_trace_entry(t, W, alpha, H_star, xi, C, full, None, t0))
            continue
        g = s * (y_float - ybar)
        W.add(_Labelling(g, delta, key), [block.add(g, z.copy())])
        warm = np.append(alpha, 0.0)
        res = solve_working_set_qp(W.Q[0], W.delta, C, alpha0=warm, eps=qp_eps, solver=qp_solver)
        qp["fallbacks"] += res.solver != qp_solver
        qp["iterations"] += res.iterations
        alpha = res.alpha
        if inactive_after:
            W.idle = np.where(alpha > 1e-10 * C, 0, W.idle + 1)
            keep = W.idle < inactive_after
            if not keep.all():
                W.keep(keep)
                block.keep(keep)
                alpha = alpha[keep]
        w = block.coefficients(None, alpha)
        trace.append(_trace_entry(t, W, alpha, H_star, xi, C, full, res, t0))
    f = block.scores(alpha) if W.k else np.zeros(n)
    con = most_violated("accuracy", y, f, scaling=scaling)
    H_star = float(con.delta - f @ con.g) if W.k else H_star
    primal = 0.5 * float(alpha @ W.Q[0] @ alpha) + C * max(0.0, H_star)
    return CuttingPlaneResult(
        alpha=alpha,
        mu=np.ones(1),
        G=W.G(n),
        delta=W.delta.copy(),
        n_iter=t,
        stop_reason=stop_reason,
        primal=primal,
        dual=dual_value(W.Q[0], W.delta, alpha) if W.k else 0.0,
        trace=trace,
        qp_fallbacks=qp["fallbacks"],
        qp_iterations=qp["iterations"],
    )


class _Labelling:
    """The constraint of a (partly re-examined) labelling, as the working set stores it."""

    __slots__ = ("g", "delta", "key")

    def __init__(self, g, delta, key):
        self.g, self.delta, self.key = g, delta, key
