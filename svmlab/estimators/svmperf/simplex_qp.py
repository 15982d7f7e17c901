"""A solver made for the working-set dual of the 1-slack structural SVM over the capped
simplex: a primal active-set method finished by pair steps, compiled with numba.

The dual over ``k`` working-set constraints (Wang et al., Eq. 17; Joachims, Finley & Yu 2009,
the 1-slack dual) is, written as a minimisation::

    min_alpha  1/2 alpha' H alpha - delta' alpha    s.t.  alpha >= 0,  sum(alpha) <= C

With the slack ``s = C - sum(alpha) >= 0`` as one more variable (gradient 0, no curvature) the
feasible set is the simplex ``{(alpha, s) >= 0, sum = C}``, and a point is optimal iff no
variable that can shrink has a larger gradient than any variable at all: with
``grad = H alpha - delta`` (and 0 for ``s``), the *pair gap*

    max_{l : alpha_l > 0 (or s > 0)} grad_l  -  min(0, min_l grad_l)

is 0 (Keerthi et al. 2001 call it the maximal violating pair; SVM-light's ``hideo`` solves the
same small dense problems with its own method). The gap bounds every term of the KKT residual
that :func:`~svmlab.estimators.svmperf.working_set_qp.kkt_residual` checks.

:func:`active_set` moves to the minimiser of the objective on the current face (the free
variables; Nocedal & Wright, Alg. 16.3), or as far towards it as the sign bounds allow, and
adds the most violating variable once on a face's minimiser; the face solves carry a ridge of
``1e-13`` of ``max diag(H)``, so a rank-deficient ``H`` (the linear kernel with fewer features
than constraints) stays solvable. :func:`pair_steps` then finishes with ``H`` itself: each step
moves mass between the variable with the largest shrinkable gradient and the partner of the
largest second-order gain ``b^2 / curvature`` (Fan, Chen & Lin 2005), updating the gradient in
``O(k)``, until the pair gap is below the tolerance. The previous working set's ``alpha``
padded with zeros stays feasible, so a warm start usually costs one or two face changes.
"""

from __future__ import annotations

import numpy as np
from numba import njit

#: Largest number of pair steps of one solve (each costs O(k)).
MAX_PAIR_STEPS = 1_000_000
#: Largest number of face changes of the active-set phase.
MAX_FACE_CHANGES = 500


@njit(cache=True, nogil=True)
def _gap(alpha, slack, grad):
    """The pair gap and the index of the largest shrinkable gradient (``k`` for the slack)."""
    k = alpha.size
    g_max = -np.inf
    i = -1
    if slack > 0.0:
        g_max = 0.0
        i = k
    g_min = 0.0
    for t in range(k):
        g = grad[t]
        if alpha[t] > 0.0 and g > g_max:
            g_max = g
            i = t
        if g < g_min:
            g_min = g
    if i < 0:
        return 0.0, -1
    return g_max - g_min, i


@njit(cache=True, nogil=True)
def _partner(H, grad, i, g_i):
    """The variable that gains from taking mass from ``i``: largest ``b^2 / curvature``."""
    k = grad.size
    h_ii = H[i, i] if i < k else 0.0
    best = -1.0
    j = -1
    for t in range(k + 1):
        if t == i:
            continue
        g_t = grad[t] if t < k else 0.0
        b = g_i - g_t
        if b <= 0.0:
            continue
        if t < k:
            quad = h_ii + H[t, t] - (2.0 * H[i, t] if i < k else 0.0)
        else:
            quad = h_ii
        gain = b * b / quad if quad > 1e-300 else np.inf
        if gain > best:
            best = gain
            j = t
    return j


@njit(cache=True, nogil=True)
def pair_steps(H, delta, C, alpha, tol, max_steps):
    """Pair steps from the feasible ``alpha`` (changed in place) until the gap is ``<= tol``.

    Parameters
    ----------
    H : ndarray of shape (k, k)
        Symmetric positive semi-definite.
    delta : ndarray of shape (k,)
    C : float
        Bound of ``sum(alpha)``.
    alpha : ndarray of shape (k,)
        Feasible start (``alpha >= 0``, ``sum(alpha) <= C``); holds the answer on return.
    tol : float
        Pair-gap tolerance.
    max_steps : int

    Returns
    -------
    steps : int
    gap : float
        The pair gap at the answer, from a freshly computed gradient.
    """
    k = alpha.size
    grad = H @ alpha - delta
    slack = max(C - alpha.sum(), 0.0)
    steps = 0
    for _ in range(4):  # a fresh gradient after the steps: rounding never ends a solve early
        while steps < max_steps:
            gap, i = _gap(alpha, slack, grad)
            if gap <= tol:
                break
            g_i = grad[i] if i < k else 0.0
            j = _partner(H, grad, i, g_i)
            if j < 0:
                break
            g_j = grad[j] if j < k else 0.0
            if j < k:
                quad = (H[i, i] if i < k else 0.0) + H[j, j] - (2.0 * H[i, j] if i < k else 0.0)
            else:
                quad = H[i, i]
            room = alpha[i] if i < k else slack
            step = (g_i - g_j) / quad if quad > 1e-300 else np.inf
            if step >= room:
                step = room
            if i < k:
                alpha[i] = alpha[i] - step if step < room else 0.0
                for t in range(k):
                    grad[t] -= step * H[t, i]
            else:
                slack = slack - step if step < room else 0.0
            if j < k:
                alpha[j] += step
                for t in range(k):
                    grad[t] += step * H[t, j]
            else:
                slack += step
            steps += 1
        grad = H @ alpha - delta
        slack = max(C - alpha.sum(), 0.0)
        gap, i = _gap(alpha, slack, grad)
        if gap <= tol or steps >= max_steps:
            return steps, gap
    return steps, gap


@njit(cache=True, nogil=True)
def _face_minimiser(H, delta, C, free, slack_free, ridge):
    """Minimiser of the objective on the face where only ``free`` (and the slack, if
    ``slack_free``) may be positive, ignoring the sign bounds; ``ridge`` keeps a singular
    ``H_SS`` solvable (a direction of zero curvature then comes out very long, and the ratio
    test of the caller stops at the bound it reaches first)."""
    m = free.size
    k = delta.size
    out = np.zeros(k)
    if m == 0:
        return out
    if slack_free:
        A = np.empty((m, m))
        b = np.empty(m)
        for r in range(m):
            b[r] = delta[free[r]]
            for c in range(m):
                A[r, c] = H[free[r], free[c]]
            A[r, r] += ridge
    else:
        A = np.zeros((m + 1, m + 1))
        b = np.empty(m + 1)
        for r in range(m):
            b[r] = delta[free[r]]
            for c in range(m):
                A[r, c] = H[free[r], free[c]]
            A[r, r] += ridge
            A[r, m] = 1.0
            A[m, r] = 1.0
        b[m] = C
    sol = np.linalg.solve(A, b)
    for r in range(m):
        out[free[r]] = sol[r]
    return out


@njit(cache=True, nogil=True)
def _entering(H, delta, alpha, is_free, free, slack_free, tol):
    """On a face's minimiser: the variable violating optimality most (``-1`` the slack,
    ``-2`` none by more than ``tol``). The multiplier of ``sum = C`` is the gradient common
    to the free variables (0 when the slack is free)."""
    k = alpha.size
    grad = H @ alpha - delta
    nu = 0.0
    if not slack_free and free.size:
        for t in free:
            nu += grad[t]
        nu /= free.size
    worst = -tol
    enter = -2
    for t in range(k):
        if not is_free[t] and grad[t] - nu < worst:
            worst = grad[t] - nu
            enter = t
    if not slack_free and -nu < worst:
        enter = -1
    return enter


@njit(cache=True, nogil=True)
def active_set(H, delta, C, alpha, tol, max_changes):
    """Primal active-set method from the feasible ``alpha`` (changed in place).

    The free set starts as the support of ``alpha``; each round moves to the minimiser on
    the current face, or as far towards it as the bounds allow (the blocking variable leaves
    the free set), and when the face is optimal adds the variable whose gradient violates
    the optimality conditions most (Nocedal & Wright, Numerical Optimization, Alg. 16.3).
    Returns the number of face changes; the caller finishes with :func:`pair_steps`.
    """
    k = alpha.size
    scale = 0.0
    for t in range(k):
        scale = max(scale, H[t, t])
    ridge = 1e-13 * scale if scale > 0.0 else 1.0
    is_free = alpha > 0.0
    slack = max(C - alpha.sum(), 0.0)
    slack_free = slack > 0.0
    changes = 0
    while changes < max_changes:
        free = np.flatnonzero(is_free)
        target = _face_minimiser(H, delta, C, free, slack_free, ridge)
        if not np.all(np.isfinite(target)):
            break  # the pair steps finish from the current (feasible) point
        # ratio test along p = target - alpha (slack moves by -sum p)
        step = 1.0
        block = -2
        p_sum = 0.0
        for t in free:
            p = target[t] - alpha[t]
            p_sum += p
            if p < 0.0 and alpha[t] + p < 0.0:
                r = alpha[t] / -p
                if r < step:
                    step = r
                    block = t
        if slack_free and p_sum > 0.0 and slack - p_sum < 0.0:
            r = slack / p_sum
            if r < step:
                step = r
                block = -1
        moved = 0.0
        for t in free:
            d = step * (target[t] - alpha[t])
            alpha[t] += d
            moved = max(moved, abs(d))
        if block >= 0:
            alpha[block] = 0.0
            is_free[block] = False
        elif block == -1:
            slack_free = False
        total = alpha.sum()
        if total > C:
            alpha *= C / total
        slack = max(C - alpha.sum(), 0.0) if slack_free else 0.0
        changes += 1
        if block != -2:
            continue
        enter = _entering(H, delta, alpha, is_free, free, slack_free, tol)
        if enter == -2:
            break
        if enter >= 0:
            is_free[enter] = True
        else:
            slack_free = True
    return changes


def pair_gap(H, delta, C, alpha) -> float:
    """The pair gap of ``alpha`` (0 at the optimum; see the module docstring)."""
    if alpha.size == 0:
        return 0.0
    grad = H @ alpha - delta
    return float(_gap(alpha, max(C - alpha.sum(), 0.0), grad)[0])


def solve_simplex_qp(H, delta, C, alpha0=None, tol=1e-10, max_steps=MAX_PAIR_STEPS):
    """Solve ``min 1/2 a'Ha - delta'a`` over ``a >= 0, sum(a) <= C`` to pair gap ``tol``:
    :func:`active_set`, then :func:`pair_steps` from its point.

    Parameters
    ----------
    H : ndarray of shape (k, k)
        Symmetric positive semi-definite.
    delta : ndarray of shape (k,)
    C : float
    alpha0 : ndarray of shape (k,), optional
        Warm start; clipped onto the feasible set (zeros when missing).
    tol : float
        Pair-gap tolerance (absolute; the caller scales it).
    max_steps : int
        Limit of pair steps.

    Returns
    -------
    alpha : ndarray of shape (k,)
    steps : int
        Face changes plus pair steps.
    gap : float
        Pair gap at ``alpha``.
    """
    H = np.ascontiguousarray(H, dtype=np.float64)
    delta = np.ascontiguousarray(delta, dtype=np.float64)
    k = delta.size
    if alpha0 is None:
        alpha = np.zeros(k)
    else:
        alpha = np.maximum(np.asarray(alpha0, dtype=np.float64), 0.0)
        total = alpha.sum()
        if total > C:
            alpha *= C / total
    changes = active_set(H, delta, float(C), alpha, float(tol), MAX_FACE_CHANGES)
    steps, gap = pair_steps(H, delta, float(C), alpha, float(tol), int(max_steps))
    return alpha, int(steps) + int(changes), float(gap)
