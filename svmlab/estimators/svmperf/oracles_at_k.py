"""Prec@k and Rec@k: the two top-k measures of SVM^perf, their losses and exact oracles.

Joachims (2005), "A support vector method for multivariate performance measures", ICML,
Sec. 4 (the contingency-table measures and Alg. 2) names precision and recall at k among the
measures whose loss-augmented argmax runs on the sorted scores. With ``a`` true positives and
``b`` false positives of a labelling ``ybar`` (``a + b`` predicted positives):

* Prec@k: ``Delta = L (1 - a / (a + b))`` over the labellings with ``a + b >= k``;
* Rec@k: ``Delta = L (1 - a / n+)`` over the labellings with ``a + b <= k``;

(``L = 100`` under the svmperf scaling). The restriction to at least (at most) k predicted
positives is the one the released SVM^perf V3.00 searches; on a labelling with exactly k
predicted positives both are the textbook measures. Unlike the other measures, both have
zero-loss labellings besides ``y`` (Prec@k: no false positive; Rec@k: every positive found);
as SVM^perf, the oracles search only labellings of positive loss, and return ``y`` itself
when none scores above it, so the constraints are ``y`` and the positive-loss labellings.
``k = max(1, int(fraction * n+))`` with SVM^perf's default fractions 1/2 (Prec@k) and 2
(Rec@k); docs/decisions/svmperf.md, "Prec@k and Rec@k".

Both argmaxes are exact and cost O(n) after the sort of :class:`~svmlab.estimators.svmperf.
oracles._Sorted` (given here as ``srt``, with ``V(a, b) = Delta(a, b) + s [2 SP(a) - SP(n+)
+ 2 SQ(b) - SQ(n-)]``):

* Rec@k (``a < n+``): ``Delta`` does not depend on ``b``, so for each ``a`` the best ``b``
  takes every negative with a non-negative score, capped at ``k - a``;
* Prec@k (``b >= 1``): for fixed ``a`` the loss increments ``L a / ((a + b)(a + b + 1))``
  decrease in ``b`` and the score increments ``2 s q_(b+1)`` do not increase, so ``V(a, .)``
  is concave: the largest maximiser on ``b >= max(1, k - a)`` is found by a bisection
  vectorised over all ``a`` (as F1's oracle does).

Ties follow the module rule of :mod:`~svmlab.estimators.svmperf.oracles`: the largest ``b``
for each ``a``, then the smallest ``a``; ``y`` wins a tie with the best of them.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

AT_K_MEASURES = ("prec_at_k", "rec_at_k")
#: SVM^perf's ``--p 0``: k is this fraction of the training positives.
DEFAULT_K_FRACTION = {"prec_at_k": 0.5, "rec_at_k": 2.0}


def check_k_fraction(measure, k_fraction):
    """The fraction of ``n+`` that gives k (None: SVM^perf's default for ``measure``).

    Prec@k takes a fraction in (0, 1], Rec@k one of at least 1 (as SVM^perf's ``--p``), so that
    the true labelling (``n+`` predicted positives) is among the searched ones.
    """
    if k_fraction is None:
        return DEFAULT_K_FRACTION[measure]
    if isinstance(k_fraction, bool) or not isinstance(k_fraction, Real):
        raise ValueError(f"k_fraction must be a number or None; got {k_fraction!r}")
    k_fraction = float(k_fraction)
    if measure == "prec_at_k" and not 0.0 < k_fraction <= 1.0:
        raise ValueError(f"k_fraction for prec_at_k must lie in (0, 1]; got {k_fraction!r}")
    if measure == "rec_at_k" and not (np.isfinite(k_fraction) and k_fraction >= 1.0):
        raise ValueError(
            f"k_fraction for rec_at_k must be a finite number >= 1; got {k_fraction!r}"
        )
    return k_fraction


def k_of(measure, n_pos, k_fraction=None) -> int:
    """``k = max(1, int(fraction * n+))`` (SVM^perf's rule)."""
    return max(1, int(n_pos * check_k_fraction(measure, k_fraction)))


def delta_at_k(measure, a, b, n_pos, L):
    """Vectorised ``Delta(a, b)``; Prec@k of a labelling with no predicted positive is 0."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    if measure == "rec_at_k":
        return L * (n_pos - a) / n_pos
    m = a + b
    precision = np.divide(a, m, out=np.zeros_like(m), where=m > 0)
    return L * (1.0 - precision)


def feasible(measure, n_predicted, k) -> bool:
    """Whether a labelling with ``n_predicted`` positives is searched by the measure's oracle."""
    return n_predicted >= k if measure == "prec_at_k" else n_predicted <= k


def _or_true_labelling(srt, s, a, b, v):
    """The best positive-loss ``(a, b)``, unless the true labelling ``(n+, 0)`` scores at least
    as high (then no constraint is violated and the oracle returns ``y`` itself)."""
    i = int(v.argmax())
    if v[i] > srt.score_part(srt.n_pos, 0, s):
        return int(a[i]), int(b[i])
    return srt.n_pos, 0


def rec_at_k_argmax(srt, s, L, k):
    """Exact ``(a, b)`` of Rec@k over ``a + b <= k``, ``a < n+`` (positive loss):
    ``b(a) = min(#{q >= 0}, k - a)``."""
    n_pos, n_neg = srt.n_pos, srt.n_neg
    a = np.arange(min(n_pos - 1, k) + 1)
    n_nonneg = int(np.count_nonzero(srt.q >= 0.0))
    b = np.minimum(min(n_nonneg, n_neg), k - a)
    v = delta_at_k("rec_at_k", a, b, n_pos, L) + srt.score_part(a, b, s)
    return _or_true_labelling(srt, s, a, b, v)


def prec_at_k_argmax(srt, s, L, k):
    """Exact ``(a, b)`` of Prec@k over ``a + b >= k``, ``b >= 1`` (positive loss); concave in
    ``b`` for fixed ``a``."""
    n_pos, n_neg = srt.n_pos, srt.n_neg
    a = np.arange(max(0, k - n_neg), n_pos + 1)  # rows with a + n- >= k
    af = a.astype(np.float64)
    lo = np.maximum(1, k - a).astype(np.int64)
    hi = np.full(a.size, n_neg, dtype=np.int64)
    active = lo < hi
    while active.any():
        idx = np.flatnonzero(active)
        mid = (lo[idx] + hi[idx]) // 2  # < hi <= n-, so q[mid] exists; a + mid >= k >= 1
        t = af[idx] + mid
        diff = L * af[idx] / (t * (t + 1.0)) + 2.0 * s * srt.q[mid]
        neg = diff < 0.0
        hi[idx[neg]] = mid[neg]
        lo[idx[~neg]] = mid[~neg] + 1
        active[idx] = lo[idx] < hi[idx]
    b = lo
    v = delta_at_k("prec_at_k", a, b, n_pos, L) + srt.score_part(a, b, s)
    return _or_true_labelling(srt, s, a, b, v)


ARGMAX = {"prec_at_k": prec_at_k_argmax, "rec_at_k": rec_at_k_argmax}


def measure_at_k(measure, is_pos, f, k) -> float:
    """Precision (Prec@k) or recall (Rec@k) of the ``k`` top-scored examples, ties at the cut
    broken pessimistically (negatives first), as PRBEP's measure is."""
    order = np.lexsort((is_pos, -f))
    hits = int(np.count_nonzero(is_pos[order[: min(k, f.size)]]))
    return hits / k if measure == "prec_at_k" else hits / int(np.count_nonzero(is_pos))
