"""The OLLAWV training loops, compiled with numba: the binary classifier (Algorithm 5.1) and
the epsilon-insensitive regression variant (beyond the paper: Melki (2018), Ch. 8, item 1;
see docs/decisions/ollawv.md, "OLLAWV for regression").

One call trains one model. The loop is sequential by nature (each worst violator
depends on every previous update), so it runs single-threaded; parallelism belongs to the
runner. ``fastmath`` is off so that a given input always gives the same support-vector
sequence: the arg-min ties that decide it are sensitive to the last bit.

Cost per iteration t: one kernel row against the candidates still stored, i.e. about
O((n - t) d), computed block by block (:mod:`._kernel_rows`) and followed in the same block
by the output update (Eq. 5.9) and the arg-min (Eq. 5.4). The candidates are kept in
training order, feature-major; a selected sample is only masked at first, and the arrays are
compacted (order kept) once the masked ones reach an eighth of them, so removed samples cost
little and the first minimum found is the one with the lowest index.

:func:`worst_violator_path` follows one run for several stopping thresholds at once: the
updates never depend on the threshold, only the stop does, so the model of each threshold is
a prefix of the longest run (the same numbers as separate fits).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from svmlab.estimators.ollawv._kernel_rows import BLOCK, rbf_block

STOP_REASONS = ("margin", "max_iter", "exhausted")
_MARGIN, _MAX_ITER, _EXHAUSTED = 0, 1, 2
_MASKED = 1e300  # added to y*o of a selected sample: never the minimum again
_MIN_COMPACT = 64  # compact once this many, and an eighth of the stored, are masked


@njit(cache=True, nogil=True)
def _compact(XT, o, y, index, masked, m, keep):
    """Drop the masked columns (order kept); returns the new length and the new position of
    column ``keep``."""
    d = XT.shape[0]
    w = 0
    new_keep = -1
    for p in range(m):
        if masked[p] == 0.0:
            if p != w:
                for f in range(d):
                    XT[f, w] = XT[f, p]
                o[w] = o[p]
                y[w] = y[p]
                index[w] = index[p]
            if p == keep:
                new_keep = w
            w += 1
    masked[:w] = 0.0
    return w, new_keep


@njit(cache=True, nogil=True, inline="always")
def update_block(o, y, masked, kv, lo, nb, lam, B, yo):
    """Eq. 5.9 and the block's part of Eq. 5.4: ``o[lo + i] += lam * kv[i] + B``, then the
    smallest ``y * o`` of the block (masked samples excluded) and its first position.

    ``yo`` (length >= ``nb``) is scratch. Returns ``(minimum, position)``.
    """
    ob = o[lo : lo + nb]  # slices: indices known to be in range, so the loop vectorises
    yb = y[lo : lo + nb]
    mb = masked[lo : lo + nb]
    for i in range(nb):
        oj = ob[i] + (lam * kv[i] + B)
        ob[i] = oj
        yo[i] = yb[i] * oj + mb[i]
    low = yo[0]
    for i in range(1, nb):
        v = yo[i]
        low = v if v < low else low
    for i in range(nb):
        if yo[i] == low:
            return low, lo + i
    return low, lo


@njit(cache=True, nogil=True, inline="always")
def _resolve(stop, iterations, bias, record, thresholds, score, live, t, max_iter, b, value):
    """End the models whose stop came at iteration ``t``: every sample selected
    (``live == 0``), ``score >= thresholds[i]`` (the margin or tube test), or the cap, in
    that order. Each ended model keeps ``t`` iterations, the bias ``b`` and ``value`` in
    ``record``. Returns how many ended."""
    ended = 0
    for i in range(stop.shape[0]):
        if stop[i] >= 0:
            continue
        if live == 0:
            stop[i] = _EXHAUSTED
        elif score >= thresholds[i]:
            stop[i] = _MARGIN
        elif t >= max_iter:
            stop[i] = _MAX_ITER
        else:
            continue
        iterations[i] = t
        bias[i] = b
        record[i] = value
        ended += 1
    return ended


@njit(cache=True, nogil=True)
def worst_violator_path(X, y, first, C, gamma, Ms, max_iter, beta, inv_t, eta_scale):
    """Train one binary OLLAWV model for each stopping threshold in ``Ms``.

    Parameters
    ----------
    X : float64 array (n, d), rows in training order.
    y : float64 array (n,), labels in {-1, +1}.
    first : int, index of the initial worst violator (Alg. 5.1 line 3).
    C, gamma : float, penalty and RBF precision.
    Ms : float64 array (k,), stopping thresholds on y * o.
    max_iter : int >= 1, cap on the number of iterations (= support vectors).
    beta : float, 1.0 to learn a bias, 0.0 without.
    inv_t, eta_scale : bool, float; learning rate eta_t = eta_scale / t if ``inv_t``
        else eta_scale / sqrt(t).

    Returns
    -------
    sv : int64 array (T,), indices of the support vectors in selection order, for the
        threshold that ran longest; threshold ``i`` keeps the first ``iterations[i]``.
    alpha : float64 array (T,), their signed coefficients.
    iterations : int64 array (k,), support vectors of each threshold's model.
    b : float64 array (k,), bias of each threshold's model.
    stop : int64 array (k,), index into ``STOP_REASONS``.
    evaluations : int64 array (k,), kernel values computed until each threshold's stop
        (stored candidates summed over iterations, masked ones included).

    Kept whole: it is Algorithm 5.1 of Melki (2018) step by step (worst violator, update,
    output update of Eq. 5.9, arg-min of Eq. 5.4) as one numba-compiled loop whose state is
    updated in place; split, the compiled loop could change its speed and the last bits its
    arg-min ties depend on.
    """
    n, d = X.shape
    XT = np.ascontiguousarray(X.T)
    yv = y.copy()
    o = np.zeros(n)
    masked = np.zeros(n)
    index = np.arange(n)  # original index of each stored column
    m = n  # stored columns, masked ones included
    n_masked = 0
    k = Ms.shape[0]
    iterations = np.zeros(k, dtype=np.int64)
    bias = np.zeros(k)
    stop = np.full(k, -1, dtype=np.int64)
    evaluations = np.zeros(k, dtype=np.int64)
    open_ = k
    sv = np.empty(max_iter, dtype=np.int64)
    alpha = np.empty(max_iter)
    acc = np.empty((4, BLOCK))
    kv = np.empty(BLOCK)
    yo = np.empty(BLOCK)
    xw = np.empty(d)
    b = 0.0
    wp = first  # stored position of the worst violator
    t = 0
    rows = 0
    while True:
        t += 1
        eta = eta_scale / t if inv_t else eta_scale / math.sqrt(t)
        lam = eta * C * yv[wp]  # Eq. 5.7 with P = 0: alpha_wv starts at 0, updated once
        B = lam * beta / n  # Eq. 5.8, worst violator only
        sv[t - 1] = index[wp]
        alpha[t - 1] = lam
        b += B
        for f in range(d):
            xw[f] = XT[f, wp]
        masked[wp] = _MASKED
        n_masked += 1
        best = np.inf
        best_p = -1
        for lo in range(0, m, BLOCK):
            nb = min(BLOCK, m - lo)
            rbf_block(XT, lo, nb, xw, gamma, acc, kv)
            low, at = update_block(o, yv, masked, kv, lo, nb, lam, B, yo)
            if low < best:  # Eq. 5.4; strict: ties keep the lowest index
                best = low
                best_p = at
        rows += m
        open_ -= _resolve(
            stop, iterations, bias, evaluations, Ms, best, n - t, t, max_iter, b, rows
        )
        if open_ == 0:
            break
        if n_masked >= _MIN_COMPACT and 8 * n_masked >= m:
            m, best_p = _compact(XT, o, yv, index, masked, m, best_p)
            n_masked = 0
        wp = best_p
    return sv[:t].copy(), alpha[:t].copy(), iterations, bias, stop, evaluations


@njit(cache=True, nogil=True)
def worst_violator_regress(X, y, C, gamma, tols, max_iter, beta, inv_t, eta_scale):
    """Train one OLLAWV regression model on the epsilon-insensitive loss (beyond the paper), for
    each stopping tolerance in ``tols``.

    The updates do not depend on the tolerance, only the stop does: the model of a larger
    tolerance is a prefix of the model of a smaller one.

    Parameters
    ----------
    X : float64 array (n, d), rows in training order.
    y : float64 array (n,), targets.
    C, gamma : float, penalty and RBF precision.
    tols : float64 array (k,), ``epsilon + M`` each: training stops once every remaining
        ``|y_j - o_j| <= tol``.
    max_iter : int >= 1, cap on the number of iterations (= support vectors).
    beta : float, 1.0 to learn a bias, 0.0 without.
    inv_t, eta_scale : bool, float; eta_t = eta_scale / t if ``inv_t`` else eta_scale / sqrt(t).

    Returns
    -------
    sv : int64 array (T,), indices of the support vectors in selection order, for the
        tolerance that ran longest; tolerance ``i`` keeps the first ``iterations[i]``.
    alpha : float64 array (T,), their signed coefficients ``eta_t * C * sign(y - o)``.
    iterations : int64 array (k,), support vectors of each tolerance's model (may be 0).
    b : float64 array (k,), bias of each model.
    stop : int64 array (k,), index into ``STOP_REASONS``.
    worst : float64 array (k,), the largest ``|y_j - o_j|`` left among the candidates at
        each stop (0 if none).

    Kept whole: it is the loop of :func:`worst_violator_path` (Melki (2018), Algorithm 5.1)
    with the epsilon-insensitive loss, step by step, as one numba-compiled loop whose state is
    updated in place; split, the compiled loop could change its speed and the last bits its
    arg-min ties depend on.
    """
    n, d = X.shape
    k = tols.shape[0]
    sv = np.empty(max_iter, dtype=np.int64)
    alpha = np.empty(max_iter)
    iterations = np.zeros(k, dtype=np.int64)
    bias = np.zeros(k)
    stop = np.full(k, -1, dtype=np.int64)
    worst_at = np.zeros(k)
    b = 0.0
    # With o = 0 the worst violator is the largest |y_j|; strict '>' keeps the lowest index,
    # which is the classifier's "first sample" rule when every error ties.
    wp = 0
    worst = abs(y[0])
    for j in range(1, n):
        if abs(y[j]) > worst:
            worst = abs(y[j])
            wp = j
    open_ = k
    for i in range(k):
        if worst <= tols[i]:  # nothing outside this tube: the constant 0
            stop[i] = _MARGIN
            worst_at[i] = worst
            open_ -= 1
    if open_ == 0:
        return sv[:0].copy(), alpha[:0].copy(), iterations, bias, stop, worst_at
    XT = np.ascontiguousarray(X.T)
    yv = y.copy()
    o = np.zeros(n)
    masked = np.zeros(n)
    index = np.arange(n)
    m = n
    n_masked = 0
    acc = np.empty((4, BLOCK))
    kv = np.empty(BLOCK)
    err = np.empty(BLOCK)
    xw = np.empty(d)
    neg_tols = -tols
    t = 0
    while True:
        t += 1
        eta = eta_scale / t if inv_t else eta_scale / math.sqrt(t)
        r = yv[wp] - o[wp]
        lam = (
            eta * C if r > 0 else -eta * C
        )  # alpha_wv = eta_t C sign(r): sub-gradient of |r|_eps, P = 0
        B = lam * beta / n
        sv[t - 1] = index[wp]
        alpha[t - 1] = lam
        b += B
        for f in range(d):
            xw[f] = XT[f, wp]
        masked[wp] = _MASKED
        n_masked += 1
        worst = -1.0
        best_p = -1
        for lo in range(0, m, BLOCK):
            nb = min(BLOCK, m - lo)
            rbf_block(XT, lo, nb, xw, gamma, acc, kv)
            ob = o[lo : lo + nb]
            yb = yv[lo : lo + nb]
            mb = masked[lo : lo + nb]
            for i in range(nb):
                oj = ob[i] + (lam * kv[i] + B)  # as Eq. 5.9
                ob[i] = oj
                err[i] = abs(yb[i] - oj) - mb[i]
            high = err[0]
            for i in range(1, nb):
                v = err[i]
                high = v if v > high else high
            if high > worst:  # strict: ties keep the lowest index
                worst = high
                for i in range(nb):
                    if err[i] == high:
                        best_p = lo + i
                        break
        live = n - t
        open_ -= _resolve(  # worst <= tol, written as -worst >= -tol
            stop,
            iterations,
            bias,
            worst_at,
            neg_tols,
            -worst,
            live,
            t,
            max_iter,
            b,
            0.0 if live == 0 else worst,
        )
        if open_ == 0:
            break
        if n_masked >= _MIN_COMPACT and 8 * n_masked >= m:
            m, best_p = _compact(XT, o, yv, index, masked, m, best_p)
            n_masked = 0
        wp = best_p
    return sv[:t].copy(), alpha[:t].copy(), iterations, bias, stop, worst_at
