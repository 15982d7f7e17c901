"""Exact most-violated-constraint oracles of the 1-slack structural SVM for multivariate
performance measures (SVM^perf).

The training set is one structured example ``(X, y)``; a constraint is a labelling ``ybar``
of the whole tuple. Under margin rescaling the cutting-plane algorithm needs the
loss-augmented argmax

    ybar* = argmax_ybar  Delta(y, ybar) + w' Psi(X, ybar),

Joachims (2005), "A support vector method for multivariate performance measures", ICML,
Alg. 2 (contingency-table measures) and Alg. 3 (ROC area); it is Eq. (19) of Wang, Wang,
Zhou & McDonald, "Multiple kernel multivariate performance learning using cutting plane
algorithm" (MKLPO), read as an unrestricted argmax (docs/decisions/svmperf.md, "The oracles and
their ties"). With the scores ``f_i = w' phi(x_i)`` the objective is

* contingency measures (accuracy, F1, PRBEP, MCC):  ``V(ybar) = Delta(y, ybar) + s sum_i
  ybar_i f_i`` over ``ybar in {-1, +1}^n`` (PRBEP: only labellings with exactly n+ predicted
  positives);
* ROC area: ``V(Ybar) = u #{(i, j): Ybar_ij = -1} + s_auc sum_{i in P, j in N} Ybar_ij (f_i -
  f_j)`` over the pairwise labellings ``Ybar`` of (positive, negative) pairs.

Two scalings (docs/decisions/svmperf.md, "The structural problem and its scale"): ``"svmperf"``
(default) has ``Delta = 100 (1 - M)``, ``s = 50/n`` and ``s_auc = 50/(n+ n-)``,
``u = 100/(n+ n-)`` (the label rescaling of SVM^perf, so that C is on its ``-c`` scale);
``"paper"`` has ``Delta = 1 - M``, ``s = s_auc =
1`` and ``u = 1/(n+ n-)``. Every oracle returns a :class:`Constraint` ``(g, delta)`` whose
violation at scores ``f`` is ``delta - f @ g``; the true labelling has ``g = 0``,
``delta = 0``.

Tie-breaking is deterministic: examples are ordered by (score descending, index
ascending), and among (a, b) = (true positives, false positives) with equal objective the
first one found with ``a`` ascending (outer) and ``b`` descending from n- to 0 (inner) wins.
Accuracy follows Joachims' separable rule instead (flip ``i`` iff ``y_i f_i``
is strictly below the margin), and ROC area counts a tied pair as violated.

Written from the papers; no SVM^perf source is used.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from scipy.stats import rankdata

from svmlab.estimators.svmperf.oracle_loops import accuracy_labelling, roc_area_constraint
from svmlab.estimators.svmperf.oracles_at_k import (
    ARGMAX,
    AT_K_MEASURES,
    delta_at_k,
    feasible,
    k_of,
    measure_at_k,
)

MEASURES = ("accuracy", "f1", "prbep", "mcc", "auc", *AT_K_MEASURES)
SCALINGS = ("svmperf", "paper")

#: elements of one (a, b) block of the O(n+ n-) enumerations (MCC and the F1 reference);
#: a block has ``max(1, _BLOCK_ELEMENTS // (n- + 1))`` rows, so memory stays O(n).
_BLOCK_ELEMENTS = 1 << 16


@dataclass(frozen=True, eq=False)
class Constraint:
    """One cutting plane of the 1-slack structural SVM.

    Attributes
    ----------
    g : ndarray of float64, shape (n,)
        ``Psi(X, y) - Psi(X, ybar)`` in the coefficients of the training points:
        ``s (y - ybar)`` for contingency measures, ``c(Y) - c(Ybar)`` for ROC area, where
        ``Psi(X, Ybar) = sum_i c_i phi(x_i)`` (Joachims 2005, Sec. 4.2). Read-only.
    delta : float
        ``Delta(y, ybar)`` in the loss units of the scaling.
    key : bytes
        Identity of the constraint, for the working-set duplicate test: the packed bits of
        ``ybar > 0`` (contingency), a 32-byte BLAKE2b digest of the per-example violated-pair
        counts (ROC area; these determine ``g`` and ``delta`` and vice versa).
    ybar : ndarray of int8, shape (n,), or None
        The labelling (contingency measures); None for ROC area. Read-only.
    """

    g: np.ndarray
    delta: float
    key: bytes
    ybar: np.ndarray | None

    def violation(self, f) -> float:
        """``delta - f @ g``: how much the constraint is violated at scores ``f``."""
        return float(self.delta - np.asarray(f, dtype=np.float64) @ self.g)


# ----------------------------------------------------------------------------------------
# validation and scaling


def _check_measure(measure):
    if measure not in MEASURES:
        raise ValueError(f"measure must be one of {', '.join(MEASURES)}; got {measure!r}")
    return measure


def _check_scaling(scaling):
    if scaling not in SCALINGS:
        raise ValueError(f"scaling must be one of {', '.join(SCALINGS)}; got {scaling!r}")
    return scaling


def _check_y(y):
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be a 1-D array of +1/-1 labels, got shape {y.shape}")
    if y.dtype.kind not in "iuf" or not ((y == 1) | (y == -1)).all():
        bad = np.unique(y[~np.isin(y, (-1, 1))])[:5] if y.dtype.kind in "iuf" else y.dtype
        raise ValueError(f"y must contain only the labels +1 and -1, got {bad}")
    y = y.astype(np.int8)
    n_pos = int(np.count_nonzero(y > 0))
    if n_pos == 0 or n_pos == y.size:
        raise ValueError("y must contain both classes +1 and -1")
    return y


def _check_scores(f, n):
    f = np.asarray(f, dtype=np.float64)
    if f.ndim != 1 or f.size != n:
        raise ValueError(
            f"f must be a 1-D array of {n} scores (one per label), got shape {f.shape}"
        )
    if not np.isfinite(f).all():
        raise ValueError("f must be finite (no NaN or inf scores)")
    return f


def _units(scaling, n):
    """``(L, s)``: loss units (Delta = L (1 - M)) and label scale of contingency measures."""
    return (100.0, 50.0 / n) if scaling == "svmperf" else (1.0, 1.0)


def _readonly(a):
    a.setflags(write=False)
    return a


# ----------------------------------------------------------------------------------------
# contingency-table losses as functions of a = TP and b = FP


def _delta_ab(measure, a, b, n_pos, n_neg, L):
    """Vectorised ``Delta(a, b)`` (float arrays ``a``, ``b``); MCC without the exact +-1 check."""
    if measure in AT_K_MEASURES:
        return delta_at_k(measure, a, b, n_pos, L)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    n = n_pos + n_neg
    if measure == "accuracy":
        return L * (n_pos - a + b) / n
    if measure == "f1":  # 1 - 2a/(a + b + n+): M = 0 when a = 0 (a + b + n+ >= n+ > 0)
        return L * (b + n_pos - a) / (a + b + n_pos)
    if measure == "prbep":  # on a + b = n+: precision = recall = a / n+
        return L * (n_pos - a) / n_pos
    # mcc = (a d - b c)/sqrt((a+b)(a+c)(b+d)(c+d)) = (a n- - b n+)/sqrt(n+ n- k (n - k)), k = a+b
    k = a + b
    den = np.sqrt(float(n_pos) * float(n_neg) * k * (n - k))
    mcc = np.divide(a * n_neg - b * n_pos, den, out=np.zeros_like(den), where=den > 0)
    return L * (1.0 - np.clip(mcc, -1.0, 1.0))


def _delta_scalar(measure, a, b, n_pos, n_neg, L):
    """``Delta(a, b)`` of one table; MCC = +-1 exactly when the Cauchy-Schwarz bound is tight."""
    if measure == "mcc":
        k, n = a + b, n_pos + n_neg
        num, den2 = a * n_neg - b * n_pos, n_pos * n_neg * k * (n - k)  # exact Python ints
        if den2 == 0:
            mcc = 0.0  # a + b in {0, n}: a marginal of the table is 0
        elif num * num == den2:
            mcc = 1.0 if num > 0 else -1.0
        else:
            mcc = min(1.0, max(-1.0, num / math.sqrt(den2)))
        return float(L * (1.0 - mcc))
    return float(_delta_ab(measure, a, b, n_pos, n_neg, L))


def _counts(y, ybar):
    """``(a, b)`` = (true positives, false positives) of labelling ``ybar``."""
    pred = ybar > 0
    a = int(np.count_nonzero(pred & (y > 0)))
    return a, int(np.count_nonzero(pred)) - a


# ----------------------------------------------------------------------------------------
# contingency-table oracles (Joachims 2005, Alg. 2)


def _desc_order(v):
    """Indices sorting ``v`` by (value descending, index ascending).

    Equals ``np.argsort(-v, kind="stable")``; the unstable (and usually several times
    faster) default sort is used and the few runs of equal values are put in index order
    afterwards, unless ties are common, where the stable sort is the faster one.
    """
    order = np.argsort(-v)
    w = v[order]
    tie = w[1:] == w[:-1]
    n_tie = int(np.count_nonzero(tie))
    if n_tie == 0:
        return order
    if n_tie > v.size // 64:
        return np.argsort(-v, kind="stable")
    in_run = np.zeros(v.size, dtype=bool)
    in_run[1:] |= tie
    in_run[:-1] |= tie
    at = np.flatnonzero(in_run)
    run = np.cumsum(np.concatenate(([True], ~tie)))[at]  # run number of each tied position
    sub = order[at]
    order[at] = sub[np.lexsort((sub, run))]
    return order


class _Sorted:
    """Positives and negatives each ordered by (score descending, index ascending), with the
    prefix sums ``SP(a)``, ``SQ(b)`` of the sorted scores (``SP(0) = SQ(0) = 0``)."""

    def __init__(self, y, f):
        pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
        self.pos = pos[_desc_order(f[pos])]
        self.neg = neg[_desc_order(f[neg])]
        self.p, self.q = f[self.pos], f[self.neg]
        self.SP = np.concatenate(([0.0], np.cumsum(self.p)))
        self.SQ = np.concatenate(([0.0], np.cumsum(self.q)))
        self.n_pos, self.n_neg = pos.size, neg.size

    def score_part(self, a, b, s):
        """``s sum_i ybar_i f_i`` of the (a, b) labelling (vectorised)."""
        return s * (2.0 * self.SP[a] - self.SP[-1] + 2.0 * self.SQ[b] - self.SQ[-1])

    def labelling(self, a, b, n):
        ybar = np.full(n, -1, dtype=np.int8)
        ybar[self.pos[:a]] = 1
        ybar[self.neg[:b]] = 1
        return ybar


def _grid_argmax(n_pos, n_neg, block_delta, row_add, col_add):
    """Exact argmax of ``Delta(a, b) + row_add[a] + col_add[b]`` over the whole (n+ + 1) x
    (n- + 1) grid, in row blocks of ``a``; ``block_delta(a0, a1)`` returns a fresh float
    array of ``Delta`` for ``a0 <= a < a1`` with columns ordered ``b = n-, ..., 0``.

    Ties: the flattened ``argmax`` of a block returns the first maximum in (a ascending,
    b descending) order, and a later block replaces the best only if strictly larger.
    """
    cols = n_neg + 1
    rows_per = max(1, _BLOCK_ELEMENTS // cols)
    col_desc = np.ascontiguousarray(col_add[::-1])
    best_v, best_a, best_b = -np.inf, 0, 0
    for a0 in range(0, n_pos + 1, rows_per):
        a1 = min(n_pos + 1, a0 + rows_per)
        blk = block_delta(a0, a1)
        blk += col_desc
        j = blk.argmax(axis=1)  # per row the first maximum = the largest b
        v = blk[np.arange(a1 - a0), j] + row_add[a0:a1]
        r = int(v.argmax())  # the first maximum = the smallest a
        if v[r] > best_v:
            best_v, best_a, best_b = float(v[r]), a0 + r, n_neg - int(j[r])
    return best_a, best_b


def _enumerate(measure, srt, s, L):
    """Exact O(n+ n-) enumeration of all (a, b) for any contingency ``measure``."""
    n_pos, n_neg = srt.n_pos, srt.n_neg
    b_desc = np.arange(n_neg, -1, -1, dtype=np.float64)[None, :]

    def block_delta(a0, a1):
        a = np.arange(a0, a1, dtype=np.float64)[:, None]
        return _delta_ab(measure, a, b_desc, n_pos, n_neg, L)

    row_add = s * (2.0 * srt.SP - srt.SP[-1])
    col_add = s * (2.0 * srt.SQ - srt.SQ[-1])
    return _grid_argmax(n_pos, n_neg, block_delta, row_add, col_add)


def _mcc_argmax(srt, s, L):
    """MCC by exact enumeration with ``Delta(a, b) = L - (a n- - b n+) h[a + b]``, where
    ``h[k] = L / sqrt(n+ n- k (n - k))`` (0 for k in {0, n}): one row of the grid reads a
    contiguous window of ``h``, so a block costs four vectorised passes and no gather."""
    n_pos, n_neg = srt.n_pos, srt.n_neg
    n = n_pos + n_neg
    k = np.arange(n + 1, dtype=np.float64)
    kk = k * (n - k)
    h = np.zeros(n + 1)
    h[1:n] = L / np.sqrt(float(n_pos) * float(n_neg) * kk[1:n])
    # row a, column j (b = n- - j) reads h[a + n- - j] = h[::-1][n+ - a + j]
    window = sliding_window_view(h[::-1], n_neg + 1)  # row r = h[::-1][r : r + n- + 1]
    bp_desc = (np.arange(n_neg, -1, -1, dtype=np.float64) * n_pos)[None, :]

    def block_delta(a0, a1):
        a_neg = (np.arange(a0, a1, dtype=np.float64) * n_neg)[:, None]
        blk = bp_desc - a_neg  # b n+ - a n-
        blk *= window[n_pos - a1 + 1 : n_pos - a0 + 1][::-1]
        return blk  # Delta - L; L is added to the columns below

    row_add = s * (2.0 * srt.SP - srt.SP[-1])
    col_add = s * (2.0 * srt.SQ - srt.SQ[-1]) + L
    return _grid_argmax(n_pos, n_neg, block_delta, row_add, col_add)


def _f1_argmax(srt, s, L):
    """F1 in O(n log n): for fixed a, ``V(a, .)`` is concave in b, because the loss
    increments ``2 a L / ((a + b + n+)(a + b + n+ + 1))`` decrease and the score increments
    ``2 s q_(b+1)`` do not increase. The best b is the number of non-negative forward
    differences (the largest maximiser, as the tie rule asks), found by a bisection that is
    vectorised over all a at once (about log2 n- passes of O(n+))."""
    n_pos, n_neg = srt.n_pos, srt.n_neg
    a = np.arange(n_pos + 1)
    af = a.astype(np.float64)
    lo = np.zeros(n_pos + 1, dtype=np.int64)
    hi = np.full(n_pos + 1, n_neg, dtype=np.int64)
    active = lo < hi
    while active.any():
        idx = np.flatnonzero(active)
        mid = (lo[idx] + hi[idx]) // 2  # < hi <= n-, so q[mid] exists
        t = af[idx] + mid + n_pos
        diff = 2.0 * L * af[idx] / (t * (t + 1.0)) + 2.0 * s * srt.q[mid]
        neg = diff < 0.0
        hi[idx[neg]] = mid[neg]
        lo[idx[~neg]] = mid[~neg] + 1
        active[idx] = lo[idx] < hi[idx]
    b = lo
    v = _delta_ab("f1", a, b, n_pos, n_neg, L) + srt.score_part(a, b, s)
    a_star = int(v.argmax())
    return a_star, int(b[a_star])


def _f1_reference(y, f, *, scaling="svmperf"):
    """F1 oracle by the O(n+ n-) brute force over all (a, b) (tests only)."""
    y, scaling = _check_y(y), _check_scaling(scaling)
    f = _check_scores(f, y.size)
    L, s = _units(scaling, y.size)
    srt = _Sorted(y, f)
    a, b = _enumerate("f1", srt, s, L)
    return _contingency_constraint("f1", y, srt, a, b, s, L)


def _prbep_argmax(srt, s, L):
    """PRBEP on the restricted set a + b = n+ (Joachims 2005, Sec. 4.1): a 1-D search over
    a in [max(0, n+ - n-), n+] after the sort."""
    n_pos, n_neg = srt.n_pos, srt.n_neg
    a = np.arange(max(0, n_pos - n_neg), n_pos + 1)
    b = n_pos - a
    v = _delta_ab("prbep", a, b, n_pos, n_neg, L) + srt.score_part(a, b, s)
    i = int(v.argmax())
    return int(a[i]), int(b[i])


def _contingency_constraint(measure, y, srt, a, b, s, L):
    ybar = srt.labelling(a, b, y.size)
    delta = _delta_scalar(measure, a, b, srt.n_pos, srt.n_neg, L)
    return _make(y, ybar, delta, s)


def _make(y, ybar, delta, s):
    g = s * (y.astype(np.float64) - ybar)
    key = np.packbits(ybar > 0).tobytes()
    return Constraint(_readonly(g), float(delta), key, _readonly(ybar))


def _accuracy(y, f, scaling):
    """Error rate: ``V`` separates over examples; flip ``ybar_i = -y_i`` iff ``L/n - 2 s y_i
    f_i > 0``, i.e. iff ``y_i f_i < 1`` under the svmperf scaling (``< 1/(2n)`` under the
    paper scaling). O(n), no sort; one compiled pass
    (:func:`~svmlab.estimators.svmperf.oracle_loops.accuracy_labelling`)."""
    n = y.size
    L, s = _units(scaling, n)
    margin = 1.0 if scaling == "svmperf" else 0.5 / n
    ybar, g, a, b = accuracy_labelling(y, f, margin, s)
    n_pos = int(np.count_nonzero(y > 0))
    delta = _delta_scalar("accuracy", a, b, n_pos, n - n_pos, L)
    key = np.packbits(ybar > 0).tobytes()
    return Constraint(_readonly(g), float(delta), key, _readonly(ybar))


# ----------------------------------------------------------------------------------------
# ROC area (Joachims 2005, Alg. 3)


def _auc(y, f, scaling):
    """ROC area in O(n log n): the pair (i, j) is violated iff ``f_i - f_j <= theta`` with
    ``theta = u / (2 s_auc)`` (1 under the svmperf scaling; ties count as violated). With
    ``p_i = f_i - theta/2`` and ``q_j = f_j + theta/2``, ``A_i = #{j: q_j >= p_i}`` and
    ``B_j = #{i: p_i <= q_j}`` come from ``np.searchsorted``; then ``Delta = u sum_i A_i``,
    ``g_i = 2 s_auc A_i`` on positives and ``g_j = -2 s_auc B_j`` on negatives, i.e.
    ``g = c(Y) - c(Ybar)`` with ``c_i = s_auc (n- - 2 A_i)``, ``c_j = -s_auc (n+ - 2 B_j)``."""
    pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
    n_pos, n_neg = pos.size, neg.size
    if scaling == "svmperf":
        s_auc, u, half = 50.0 / (n_pos * n_neg), 100.0 / (n_pos * n_neg), 0.5
    else:
        s_auc, u, half = 1.0, 1.0 / (n_pos * n_neg), 0.25 / (n_pos * n_neg)
    p = f[pos] - half
    q = f[neg] + half
    # the orders by NumPy's sort, the counts by one merge (oracle_loops)
    g, A, B = roc_area_constraint(p, q, np.argsort(p), np.argsort(q), pos, neg, 2.0 * s_auc)
    counts = np.concatenate((A, B)).astype(_count_dtype(max(n_pos, n_neg)))
    key = hashlib.blake2b(counts.tobytes(), digest_size=32).digest()
    return Constraint(_readonly(g), float(u * int(A.sum())), key, None)


def _count_dtype(largest):
    """The smallest little-endian unsigned integer type that holds ``largest``."""
    for dtype in ("<u2", "<u4"):
        if largest <= np.iinfo(dtype).max:
            return dtype
    return "<u8"


# ----------------------------------------------------------------------------------------
# public API


def most_violated(measure, y, f, *, scaling="svmperf", k_fraction=None) -> Constraint:
    """Most violated constraint (exact loss-augmented argmax) of the 1-slack structural SVM.

    Joachims (2005), ICML, Alg. 2 (contingency measures) and Alg. 3 (ROC area); Eq. (19) of
    Wang et al. (MKLPO) read as an argmax over all labellings (docs/decisions/svmperf.md).

    Parameters
    ----------
    measure : {"accuracy", "f1", "prbep", "mcc", "auc", "prec_at_k", "rec_at_k"}
        The performance measure M of ``Delta = L (1 - M)``. Costs: accuracy O(n), F1
        O(n log n) (concavity in the false positives + bisection), PRBEP O(n) after a sort
        (argmax over labellings with exactly n+ predicted positives), MCC O(n+ n-) (exact
        enumeration, no concavity; memory O(n)), ROC area O(n log n) (``np.searchsorted``).
    y : array-like of shape (n,)
        True labels in {+1, -1}, both classes present.
    f : array-like of shape (n,)
        Finite scores ``f_i = w' phi(x_i)`` (all zero before the first cutting plane).
    scaling : {"svmperf", "paper"}, default="svmperf"
        ``"svmperf"``: ``Delta`` in percent, labels scaled by ``s = 50/n`` (ROC area:
        ``50/(n+ n-)``); ``"paper"``: ``Delta`` in [0, 1] (MCC: [0, 2]), unit labels.
    k_fraction : float or None, default=None
        Prec@k / Rec@k only: ``k = max(1, int(k_fraction n+))``; None is SVM^perf's default
        (1/2 for Prec@k, 2 for Rec@k; :mod:`~svmlab.estimators.svmperf.oracles_at_k`, O(n)
        after the sort).

    Returns
    -------
    Constraint
        ``(g, delta, key, ybar)`` of the maximiser of ``Delta(y, ybar) + s sum_i ybar_i f_i``
        (pairwise form for ROC area); its violation at ``f`` is ``delta - f @ g``.

    Examples
    --------
    >>> c = most_violated("accuracy", [1, -1, 1, -1], [2.0, -0.5, 0.3, -3.0])
    >>> c.ybar.tolist(), c.delta, c.g.tolist()
    ([1, 1, -1, -1], 50.0, [0.0, -25.0, 25.0, 0.0])
    >>> most_violated("f1", [1, -1, 1, -1], [0.0, 0.0, 0.0, 0.0]).ybar.tolist()
    [-1, 1, -1, 1]
    """
    measure, scaling = _check_measure(measure), _check_scaling(scaling)
    y = _check_y(y)
    f = _check_scores(f, y.size)
    if measure == "accuracy":
        return _accuracy(y, f, scaling)
    if measure == "auc":
        return _auc(y, f, scaling)
    L, s = _units(scaling, y.size)
    srt = _Sorted(y, f)
    if measure in AT_K_MEASURES:
        a, b = ARGMAX[measure](srt, s, L, k_of(measure, srt.n_pos, k_fraction))
        return _contingency_constraint(measure, y, srt, a, b, s, L)
    search = {"f1": _f1_argmax, "prbep": _prbep_argmax, "mcc": _mcc_argmax}[measure]
    a, b = search(srt, s, L)
    return _contingency_constraint(measure, y, srt, a, b, s, L)


def loss(measure, y, ybar, *, scaling="svmperf", k_fraction=None) -> float:
    """``Delta(y, ybar) = L (1 - M(y, ybar))`` of one labelling (L = 100 for ``"svmperf"``,
    1 for ``"paper"``).

    Contingency measures take ``ybar`` in {+1, -1}^n; accuracy ``(a + d)/n``, F1
    ``2a/(2a + b + c)`` (0 when a = 0), MCC ``(ad - bc)/sqrt((a+b)(a+c)(b+d)(c+d))`` (0 when
    a factor is 0), PRBEP ``a/n+`` and only for labellings with exactly n+ predicted positives
    (Joachims 2005, Sec. 4.1), Prec@k ``a/(a+b)`` for labellings with at least k and Rec@k ``a/n+``
    for labellings with at most k predicted positives (``k_fraction`` as in
    :func:`most_violated`). ROC area takes the pairwise labelling as an (n+, n-) array of
    +-1 (positives and negatives each in index order) and returns ``u #{Ybar_ij = -1}``.

    Examples
    --------
    >>> loss("f1", [1, 1, -1, -1], [1, -1, 1, -1])
    50.0
    >>> loss("mcc", [1, 1, -1, -1], [-1, -1, 1, 1], scaling="paper")
    2.0
    """
    measure, scaling = _check_measure(measure), _check_scaling(scaling)
    y = _check_y(y)
    n_pos = int(np.count_nonzero(y > 0))
    n_neg = y.size - n_pos
    ybar = np.asarray(ybar)
    if measure == "auc":
        if ybar.shape != (n_pos, n_neg) or not np.isin(ybar, (-1, 1)).all():
            raise ValueError(f"ybar for auc must be an ({n_pos}, {n_neg}) array of +1/-1")
        unit = 100.0 if scaling == "svmperf" else 1.0
        return unit * int(np.count_nonzero(ybar < 0)) / (n_pos * n_neg)
    if ybar.shape != y.shape or not np.isin(ybar, (-1, 1)).all():
        raise ValueError(f"ybar must be a 1-D array of {y.size} labels in +1/-1")
    a, b = _counts(y, ybar)
    if measure == "prbep" and a + b != n_pos:
        raise ValueError(f"ybar for prbep must predict exactly n+ = {n_pos} positives, got {a + b}")
    if measure in AT_K_MEASURES and not feasible(measure, a + b, k_of(measure, n_pos, k_fraction)):
        side = "at least" if measure == "prec_at_k" else "at most"
        k = k_of(measure, n_pos, k_fraction)
        raise ValueError(f"ybar for {measure} must predict {side} k = {k} positives, got {a + b}")
    L, _ = _units(scaling, y.size)
    return _delta_scalar(measure, a, b, n_pos, n_neg, L)


def measure_value(measure, y, f, *, k_fraction=None) -> float:
    """The measure in [0, 1] (MCC: [-1, 1]) of scores ``f`` on labels ``y``.

    Accuracy, F1 and MCC predict ``+1`` iff ``f > 0`` (threshold 0, no bias; Wang et al., Eq. 3).
    ROC area is the Mann-Whitney statistic with ties counted 1/2. PRBEP is the precision of
    the n+ top-scored examples, ties at the cut broken pessimistically (negatives first);
    Prec@k and Rec@k are the precision and recall of the k top-scored examples, the same way,
    with ``k = max(1, int(k_fraction n+))`` from the ``n+`` of ``y``.

    Examples
    --------
    >>> measure_value("auc", [1, -1, 1, -1], [0.9, 0.9, 0.5, 0.1])
    0.625
    >>> measure_value("prbep", [1, -1, 1, -1], [0.9, 0.9, 0.5, 0.1])
    0.5
    """
    measure = _check_measure(measure)
    y = _check_y(y)
    f = _check_scores(f, y.size)
    is_pos = y > 0
    n_pos = int(np.count_nonzero(is_pos))
    n_neg = y.size - n_pos
    if measure == "auc":
        ranks = rankdata(f)  # average ranks: a tie counts 1/2
        return float((ranks[is_pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))
    if measure in AT_K_MEASURES:
        return measure_at_k(measure, is_pos, f, k_of(measure, n_pos, k_fraction))
    if measure == "prbep":
        order = np.lexsort((is_pos, -f))  # score descending, negatives first among ties
        return float(np.count_nonzero(is_pos[order[:n_pos]]) / n_pos)
    a, b = _counts(y, np.where(f > 0, 1, -1))
    return 1.0 - _delta_scalar(measure, a, b, n_pos, n_neg, 1.0)
