"""Blocked RBF kernel rows for the worst-violator loops, compiled with numba.

One OLLAWV iteration needs ``K(x_j, x_wv) = exp(-gamma ||x_j - x_wv||^2)`` for every remaining
candidate ``j``. The candidates are stored feature-major (``XT``, shape ``(d, n)``), so a block
of consecutive candidates is processed one feature at a time with unit-stride loads: the loops
vectorise across candidates instead of running a short scalar loop over the ``d`` features of
each one.

Determinism. Every candidate's value is computed by the same sequence of IEEE operations,
whatever its position in a block (no fused multiply-add, no reassociation): duplicated rows
get bit-identical kernel values, which the arg-min ties of the loops rely on. The squared
distance keeps four partial sums (features ``f = 0, 4, 8, ...`` in the first, ``1, 5, ...``
in the second, and so on; the last ``d mod 4`` features join the first) added as
``(s0 + s1) + (s2 + s3)``.

The exponential is :func:`exp_nonpos`, a branch-free argument reduction and polynomial that
the compiler vectorises; it is within one unit in the last place of the C library's ``exp``
(on about one value in ten it differs from it in that last bit).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

BLOCK = 512  # candidates per block: the block's scratch (6 x 4 KB) stays in L1

_LOG2E = 1.4426950408889634
# ln 2 split so that k * _LN2_HI is exact for |k| < 2**11 (Cody-Waite reduction).
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_UNDERFLOW = -745.0  # exp(x) rounds to 0 below about -745.13
_POW2 = np.ldexp(1.0, np.arange(-1075, 1))  # 2**k for k = -1075 .. 0, indexed by k + 1075
# 1/i! for the degree-13 Taylor polynomial of exp on |r| <= ln(2)/2 (truncation < 1e-17).
_C2, _C3, _C4, _C5, _C6, _C7, _C8, _C9, _C10, _C11, _C12, _C13 = (
    1.0 / math.factorial(i) for i in range(2, 14)
)


@njit(cache=True, inline="always")
def exp_nonpos(x):
    """``exp(x)`` for ``x <= 0`` (kernel arguments), without branches.

    ``x = k ln 2 + r`` with ``k`` the nearest integer to ``x / ln 2`` and ``|r| <= ln(2)/2``;
    ``exp(r) = 1 + (r + r^2 P(r))`` with the degree-11 polynomial ``P`` evaluated by Estrin's
    scheme (a short dependency chain), times ``2**k`` from a table. Arguments below about
    -744.8 give 0 (the C library returns the smallest subnormals down to -745.13).
    """
    xc = max(x, _UNDERFLOW)
    kf = math.floor(xc * _LOG2E + 0.5)
    r = (xc - kf * _LN2_HI) - kf * _LN2_LO
    r2 = r * r
    r4 = r2 * r2
    r8 = r4 * r4
    b0 = (_C2 + _C3 * r) + (_C4 + _C5 * r) * r2
    b1 = (_C6 + _C7 * r) + (_C8 + _C9 * r) * r2
    b2 = (_C10 + _C11 * r) + (_C12 + _C13 * r) * r2
    p = 1.0 + (r + r2 * ((b0 + b1 * r4) + b2 * r8))
    value = p * _POW2[int(kf) + 1075]
    return 0.0 if x < _UNDERFLOW else value


@njit(cache=True, nogil=True)
def rbf_block(XT, lo, nb, xw, gamma, acc, out):
    """``out[i] = exp(-gamma ||XT[:, lo + i] - xw||^2)`` for ``i < nb``.

    Parameters
    ----------
    XT : float64 array (d, n), C-contiguous: the candidates, feature-major.
    lo, nb : int, first column and block length (``nb <= BLOCK``).
    xw : float64 array (d,), the worst violator.
    gamma : float, RBF precision.
    acc : float64 array (4, BLOCK), scratch for the partial sums.
    out : float64 array (BLOCK,), receives the kernel values.

    Kept whole: it is the blocked computation of the module docstring (four partial sums per
    candidate, feature by feature, then :func:`exp_nonpos`) as one numba-compiled loop, whose
    fixed sequence of IEEE operations the arg-min ties of the worst-violator loops rely on;
    split, the compiled loop (its vectorisation and its last bits) could change.
    """
    d = xw.shape[0]
    s0 = acc[0]
    s1 = acc[1]
    s2 = acc[2]
    s3 = acc[3]
    for i in range(nb):
        s0[i] = 0.0
        s1[i] = 0.0
        s2[i] = 0.0
        s3[i] = 0.0
    f = 0
    while f + 8 <= d:  # two groups of four per pass: the same sums, half the scratch traffic
        r0 = XT[f, lo : lo + nb]
        r1 = XT[f + 1, lo : lo + nb]
        r2 = XT[f + 2, lo : lo + nb]
        r3 = XT[f + 3, lo : lo + nb]
        r4 = XT[f + 4, lo : lo + nb]
        r5 = XT[f + 5, lo : lo + nb]
        r6 = XT[f + 6, lo : lo + nb]
        r7 = XT[f + 7, lo : lo + nb]
        w0 = xw[f]
        w1 = xw[f + 1]
        w2 = xw[f + 2]
        w3 = xw[f + 3]
        w4 = xw[f + 4]
        w5 = xw[f + 5]
        w6 = xw[f + 6]
        w7 = xw[f + 7]
        for i in range(nb):
            e0 = r0[i] - w0
            e1 = r1[i] - w1
            e2 = r2[i] - w2
            e3 = r3[i] - w3
            e4 = r4[i] - w4
            e5 = r5[i] - w5
            e6 = r6[i] - w6
            e7 = r7[i] - w7
            s0[i] = (s0[i] + e0 * e0) + e4 * e4
            s1[i] = (s1[i] + e1 * e1) + e5 * e5
            s2[i] = (s2[i] + e2 * e2) + e6 * e6
            s3[i] = (s3[i] + e3 * e3) + e7 * e7
        f += 8
    while f + 4 <= d:
        r0 = XT[f, lo : lo + nb]
        r1 = XT[f + 1, lo : lo + nb]
        r2 = XT[f + 2, lo : lo + nb]
        r3 = XT[f + 3, lo : lo + nb]
        w0 = xw[f]
        w1 = xw[f + 1]
        w2 = xw[f + 2]
        w3 = xw[f + 3]
        for i in range(nb):
            e0 = r0[i] - w0
            e1 = r1[i] - w1
            e2 = r2[i] - w2
            e3 = r3[i] - w3
            s0[i] += e0 * e0
            s1[i] += e1 * e1
            s2[i] += e2 * e2
            s3[i] += e3 * e3
        f += 4
    while f < d:
        r0 = XT[f, lo : lo + nb]
        w0 = xw[f]
        for i in range(nb):
            e0 = r0[i] - w0
            s0[i] += e0 * e0
        f += 1
    g = -gamma
    for i in range(nb):
        out[i] = exp_nonpos(g * ((s0[i] + s1[i]) + (s2[i] + s3[i])))
