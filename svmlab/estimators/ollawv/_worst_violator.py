"""The OLLAWV training loops, compiled with numba: the binary classifier (Algorithm 5.1) and
the epsilon-insensitive regression variant (beyond the paper: Melki (2018), Ch. 8, item 1;
see docs/decisions/ollawv.md, "OLLAWV for regression").

One call trains one model. The loop is sequential by nature (each worst violator
depends on every previous update), so it runs single-threaded; parallelism belongs to the
runner. ``fastmath`` is off so that a given input always gives the same support-vector
sequence: the arg-min ties that decide it are sensitive to the last bit.

Cost per iteration t: one kernel row against the n - t remaining candidates, i.e.
O((n - t) d), fused with the output update and the arg-min in a single pass. The candidate
set is kept as a compacted array of indices in training order, so removed samples cost
nothing and the first minimum found is the one with the lowest index.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

STOP_REASONS = ("margin", "max_iter", "exhausted")
_MARGIN, _MAX_ITER, _EXHAUSTED = 0, 1, 2


@njit(cache=True, fastmath=False, nogil=True)
def _sq_dist(X, j, xw):
    # Four independent partial sums: a fixed summation order (deterministic) that the
    # compiler can still keep in vector registers.
    d = xw.shape[0]
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    f = 0
    while f + 4 <= d:
        e0 = X[j, f] - xw[f]
        e1 = X[j, f + 1] - xw[f + 1]
        e2 = X[j, f + 2] - xw[f + 2]
        e3 = X[j, f + 3] - xw[f + 3]
        a0 += e0 * e0
        a1 += e1 * e1
        a2 += e2 * e2
        a3 += e3 * e3
        f += 4
    while f < d:
        e0 = X[j, f] - xw[f]
        a0 += e0 * e0
        f += 1
    return (a0 + a1) + (a2 + a3)


@njit(cache=True, fastmath=False, nogil=True)
def worst_violator_fit(X, y, first, C, gamma, M, max_iter, beta, inv_t, eta_scale):
    """Train one binary OLLAWV model.

    Parameters
    ----------
    X : float64 array (n, d), C-contiguous, rows in training order.
    y : float64 array (n,), labels in {-1, +1}.
    first : int, index of the initial worst violator (Alg. 5.1 line 3).
    C, gamma : float, penalty and RBF precision.
    M : float, stopping threshold on y * o.
    max_iter : int >= 1, cap on the number of iterations (= support vectors).
    beta : float, 1.0 to learn a bias, 0.0 without.
    inv_t, eta_scale : bool, float; learning rate eta_t = eta_scale / t if ``inv_t``
        else eta_scale / sqrt(t).

    Returns
    -------
    sv : int64 array (T,), indices of the support vectors in selection order.
    alpha : float64 array (T,), their signed coefficients.
    b : float, bias.
    stop : int, index into ``STOP_REASONS``.
    """
    n = X.shape[0]
    o = np.zeros(n)
    cand = np.arange(n)  # the not-yet-selected samples (not S), ascending
    m = n
    sv = np.empty(max_iter, dtype=np.int64)
    alpha = np.empty(max_iter)
    b = 0.0
    wv = first
    t = 0
    while True:
        t += 1
        eta = eta_scale / t if inv_t else eta_scale / math.sqrt(t)
        lam = eta * C * y[wv]  # Eq. 5.7 with P = 0: alpha_wv starts at 0, updated once
        B = lam * beta / n  # Eq. 5.8, worst violator only
        sv[t - 1] = wv
        alpha[t - 1] = lam
        b += B
        xw = X[wv]
        best = np.inf
        best_j = -1
        w = 0
        for k in range(m):
            j = cand[k]
            if j == wv:
                continue
            oj = o[j] + (lam * math.exp(-gamma * _sq_dist(X, j, xw)) + B)  # Eq. 5.9
            o[j] = oj
            cand[w] = j
            w += 1
            yo = y[j] * oj
            if yo < best:  # Eq. 5.4; strict: ties keep the lowest index
                best = yo
                best_j = j
        m = w
        if m == 0:
            stop = _EXHAUSTED
            break
        if best >= M:
            stop = _MARGIN
            break
        if t >= max_iter:
            stop = _MAX_ITER
            break
        wv = best_j
    return sv[:t].copy(), alpha[:t].copy(), b, stop


@njit(cache=True, fastmath=False, nogil=True)
def worst_violator_regress(X, y, C, gamma, tol, max_iter, beta, inv_t, eta_scale):
    """Train one OLLAWV regression model on the epsilon-insensitive loss (beyond the paper).

    Parameters
    ----------
    X : float64 array (n, d), C-contiguous, rows in training order.
    y : float64 array (n,), targets.
    C, gamma : float, penalty and RBF precision.
    tol : float, ``epsilon + M``: training stops once every remaining ``|y_j - o_j| <= tol``.
    max_iter : int >= 1, cap on the number of iterations (= support vectors).
    beta : float, 1.0 to learn a bias, 0.0 without.
    inv_t, eta_scale : bool, float; eta_t = eta_scale / t if ``inv_t`` else eta_scale / sqrt(t).

    Returns
    -------
    sv : int64 array (T,), indices of the support vectors in selection order (T may be 0).
    alpha : float64 array (T,), their signed coefficients ``eta_t * C * sign(y - o)``.
    b : float, bias.
    stop : int, index into ``STOP_REASONS``.
    worst : float, the largest ``|y_j - o_j|`` left among the candidates (0 if none).
    """
    n = X.shape[0]
    o = np.zeros(n)
    cand = np.arange(n)
    m = n
    sv = np.empty(max_iter, dtype=np.int64)
    alpha = np.empty(max_iter)
    b = 0.0
    # With o = 0 the worst violator is the largest |y_j|; strict '>' keeps the lowest index,
    # which is the classifier's "first sample" rule when every error ties.
    wv = 0
    worst = abs(y[0])
    for j in range(1, n):
        if abs(y[j]) > worst:
            worst = abs(y[j])
            wv = j
    if worst <= tol:
        return sv[:0].copy(), alpha[:0].copy(), b, _MARGIN, worst
    t = 0
    while True:
        t += 1
        eta = eta_scale / t if inv_t else eta_scale / math.sqrt(t)
        r = y[wv] - o[wv]
        lam = (
            eta * C if r > 0 else -eta * C
        )  # alpha_wv = eta_t C sign(r): sub-gradient of |r|_eps, P = 0
        B = lam * beta / n
        sv[t - 1] = wv
        alpha[t - 1] = lam
        b += B
        xw = X[wv]
        worst = -1.0
        best_j = -1
        w = 0
        for k in range(m):
            j = cand[k]
            if j == wv:
                continue
            oj = o[j] + (lam * math.exp(-gamma * _sq_dist(X, j, xw)) + B)  # as Eq. 5.9
            o[j] = oj
            cand[w] = j
            w += 1
            e = abs(y[j] - oj)
            if e > worst:  # strict: ties keep the lowest index
                worst = e
                best_j = j
        m = w
        if m == 0:
            stop = _EXHAUSTED
            worst = 0.0
            break
        if worst <= tol:
            stop = _MARGIN
            break
        if t >= max_iter:
            stop = _MAX_ITER
            break
        wv = best_j
    return sv[:t].copy(), alpha[:t].copy(), b, stop, worst
