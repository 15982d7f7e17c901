"""Compiled passes over the instances for the diverse-density objectives (MIDD, MIEMDD, MDD).

Each objective evaluation needs the weighted squared distance of every instance to the target
point, then two weighted sums over the instances for the gradient. Done with NumPy that is five
passes over the instance matrix and two temporaries of its size, per evaluation, thousands of
times per fit; here it is two passes and no temporaries. The distance follows Weka's loop (features
one after the other, Weka's factors); the gradient's moments are summed over all instances at once,
not per bag as Weka does, so rounding still differs there. Divisions follow IEEE 754 (a zero width
gives an infinite distance, as in Java and NumPy).
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["OVER_SQUARE", "TIMES_SQUARE", "weighted_moments", "weighted_sq_dist"]


#: How :func:`weighted_sq_dist` weighs a squared difference ``r * r`` by ``w_k``, in Weka's own
#: arithmetic: MIDD and MIEMDD multiply by the scale twice (``r * r * s * s``), MDD divides by
#: the squared width (``r * r / (sigma * sigma)``).
TIMES_SQUARE, OVER_SQUARE = 0, 1


@njit(cache=True, error_model="numpy")
def weighted_sq_dist(X, t, w, how):  # pragma: no cover - compiled
    """``sum_k (X_ik - t_k)^2 w_k^2`` (``how=TIMES_SQUARE``) or ``sum_k (X_ik - t_k)^2 / w_k^2``
    (``OVER_SQUARE``) for every row ``i`` of ``X``."""
    n, d = X.shape
    out = np.empty(n)
    for i in range(n):
        acc = 0.0
        for k in range(d):
            r = X[i, k] - t[k]
            if how == TIMES_SQUARE:
                acc += r * r * w[k] * w[k]
            else:
                acc += r * r / (w[k] * w[k])
        out[i] = acc
    return out


@njit(cache=True, error_model="numpy")
def weighted_moments(X, t, coef):  # pragma: no cover - compiled
    """``(sum_i coef_i (X_i - t), sum_i coef_i (X_i - t)^2)``, per feature."""
    n, d = X.shape
    m1 = np.zeros(d)
    m2 = np.zeros(d)
    for i in range(n):
        c = coef[i]
        for k in range(d):
            r = X[i, k] - t[k]
            cr = c * r
            m1[k] += cr
            m2[k] += cr * r
    return m1, m2
