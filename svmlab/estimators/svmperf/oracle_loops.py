"""Compiled loops of the accuracy and ROC-area oracles (numba).

:mod:`~svmlab.estimators.svmperf.oracles` calls these once per cutting-plane iteration; each
replaces several full passes of NumPy over the ``n`` training scores by one or two (Joachims
2005, Alg. 2 for the error rate, Alg. 3 for ROC area). The results are the same numbers the
NumPy expressions in the docstrings give.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def accuracy_labelling(y, f, margin, s):
    """The error rate's most violated labelling in one pass.

    ``ybar_i = -y_i`` iff ``y_i f_i < margin``; ``g = s (y - ybar)``; ``(a, b)`` the true and
    false positives of ``ybar``.

    Returns
    -------
    ybar : ndarray of int8, g : ndarray of float64, a : int, b : int
    """
    n = y.size
    ybar = np.empty(n, dtype=np.int8)
    g = np.zeros(n)
    two_s = s * 2.0
    a = 0
    b = 0
    for i in range(n):
        yi = y[i]
        if yi * f[i] < margin:
            ybar[i] = -yi
            g[i] = two_s if yi > 0 else -two_s
        else:
            ybar[i] = yi
        if ybar[i] > 0:
            if yi > 0:
                a += 1
            else:
                b += 1
    return ybar, g, a, b


@njit(cache=True, nogil=True)
def violated_pair_counts(p_sorted, q_sorted):
    """Per positive and per negative, how many pairs are violated, by one merge.

    ``A[r] = #{j : q_j >= p_sorted[r]}`` and ``B[r] = #{i : p_i <= q_sorted[r]}`` for the
    ascending ``p_sorted`` (shifted positive scores) and ``q_sorted`` (shifted negative
    scores); equal to ``n- - searchsorted(q_sorted, p_sorted, "left")`` and
    ``searchsorted(p_sorted, q_sorted, "right")``.
    """
    n_pos = p_sorted.size
    n_neg = q_sorted.size
    A = np.empty(n_pos, dtype=np.int64)
    j = 0
    for r in range(n_pos):
        while j < n_neg and q_sorted[j] < p_sorted[r]:
            j += 1
        A[r] = n_neg - j
    B = np.empty(n_neg, dtype=np.int64)
    i = 0
    for r in range(n_neg):
        while i < n_pos and p_sorted[i] <= q_sorted[r]:
            i += 1
        B[r] = i
    return A, B


@njit(cache=True, nogil=True)
def roc_area_constraint(p, q, p_order, q_order, pos, neg, two_s):
    """ROC area's most violated constraint from the shifted scores ``p`` (positives) and
    ``q`` (negatives), a pair being violated iff ``p_i <= q_j``, and their ascending orders.

    Returns ``g`` (``g[pos] = two_s A``, ``g[neg] = -two_s B``) and the counts ``A`` (in the
    order of ``pos``) and ``B`` (in the order of ``neg``).

    Returns
    -------
    g : ndarray of float64, A : ndarray of int64, B : ndarray of int64
    """
    A_sorted, B_sorted = violated_pair_counts(p[p_order], q[q_order])
    A = np.empty(pos.size, dtype=np.int64)
    B = np.empty(neg.size, dtype=np.int64)
    g = np.empty(pos.size + neg.size)
    for r in range(pos.size):
        A[p_order[r]] = A_sorted[r]
    for r in range(neg.size):
        B[q_order[r]] = B_sorted[r]
    for r in range(pos.size):
        g[pos[r]] = two_s * A[r]
    for r in range(neg.size):
        g[neg[r]] = -two_s * B[r]
    return g, A, B
