"""The distributions and ranks the rank tests need, without importing ``scipy.stats``.

``scipy.stats`` costs about a second of CPU to import, several times what a comparison of a
small table computes; ``svmlab stats TABLE --figures none`` is mostly start-up. The tail
probabilities here are the ``scipy.special`` functions that ``scipy.stats`` itself calls
(``chi2.sf`` is ``chdtrc``, ``f.sf`` is ``fdtrc``, ``norm.cdf``/``sf``/``ppf`` are ``ndtr`` /
``ndtr(-x)`` / ``ndtri``), so the values are the same to the last bit. :func:`rankdata` is
scipy's average-rank algorithm on numpy; :func:`merge_ties` makes the values of one dataset
that agree but for floating-point noise equal before they are ranked or paired. The
studentized range quantile for infinitely many degrees of freedom (Nemenyi's critical
difference) is integrated here; ``scipy.stats`` is still imported where a procedure needs
more (the studentized-range p-value table, the Wilcoxon signed-rank test with Pratt's zeros,
the Mann-Whitney test), when that procedure is asked for.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.special import chdtrc, fdtrc, ndtr, ndtri

__all__ = [
    "TIE_RTOL",
    "chi2_sf",
    "f_sf",
    "merge_ties",
    "norm_cdf",
    "norm_ppf",
    "norm_sf",
    "rankdata",
    "studentized_range_ppf",
    "studentized_range_sf",
]


def chi2_sf(x, df):
    """P(χ²(df) > x), as ``scipy.stats.chi2.sf`` (1 below the support, where chdtrc is NaN)."""
    return chdtrc(df, np.maximum(x, 0.0))


def f_sf(x, dfn, dfd):
    """P(F(dfn, dfd) > x), as ``scipy.stats.f.sf`` (1 below the support, where fdtrc is NaN)."""
    return fdtrc(dfn, dfd, np.maximum(x, 0.0))


def norm_cdf(x):
    """Standard normal P(Z <= x), as ``scipy.stats.norm.cdf``."""
    return ndtr(x)


def norm_sf(x):
    """Standard normal P(Z > x), as ``scipy.stats.norm.sf``."""
    return ndtr(-np.asarray(x, dtype=float))


def norm_ppf(q):
    """Standard normal quantile, as ``scipy.stats.norm.ppf``."""
    return ndtri(q)


#: Values that agree to this relative precision are equal for the rank tests that compare the
#: methods of one dataset (:func:`merge_ties`). A method's mean over the same fold scores,
#: summed in another order (rows read back from another file), differs in its last bits; that
#: noise must not order two methods that tie.
TIE_RTOL = 1e-12


def _tie_starts(ordered: np.ndarray, rtol: float) -> np.ndarray:
    """True where a sorted value starts a new tie group (it exceeds its predecessor by more
    than ``rtol`` of the larger magnitude); NaN and infinities start their own."""
    low, high = ordered[:-1], ordered[1:]
    with np.errstate(invalid="ignore"):
        near = high - low <= rtol * np.maximum(np.abs(low), np.abs(high))
    same = (high == low) | (near & np.isfinite(low) & np.isfinite(high))
    return np.r_[True, ~same]


def _merge_1d(x: np.ndarray) -> np.ndarray:
    sorter = np.argsort(x, kind="mergesort")
    ordered = x[sorter]
    starts = _tie_starts(ordered, TIE_RTOL)
    out = np.empty(len(x))
    out[sorter] = ordered[np.flatnonzero(starts)][np.cumsum(starts) - 1]
    return out


def merge_ties(x, axis: int | None = None) -> np.ndarray:
    """``x`` with every group of values that agree to :data:`TIE_RTOL` set to its smallest.

    Chains count as one group (each member within the tolerance of its sorted neighbour).
    Applied to one dataset's values before ranking or pairing them, so that methods equal
    but for floating-point noise tie; arithmetic on the merged values (the differences of a
    signed-rank test) stays exact, as in KEEL.

    Parameters
    ----------
    x : array-like
    axis : int, optional
        Merge within each slice along this axis (each dataset's row of methods); None merges
        the flattened array.
    """
    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return x.copy()
    if axis is None:
        return _merge_1d(x.ravel()).reshape(x.shape)
    return np.apply_along_axis(_merge_1d, axis, x)


def _rank_1d(x: np.ndarray) -> np.ndarray:
    """Average ranks of a 1-D array (ties get the mean of the ranks they span)."""
    if np.isnan(x).any():
        return np.full(x.shape, np.nan)
    sorter = np.argsort(x, kind="mergesort")
    ordered = x[sorter]
    new = np.r_[True, ordered[1:] != ordered[:-1]]
    dense = np.cumsum(new)
    bounds = np.r_[np.flatnonzero(new), len(x)]
    out = np.empty(len(x))
    out[sorter] = 0.5 * (bounds[dense] + bounds[dense - 1] + 1)
    return out


def rankdata(a, axis: int | None = None) -> np.ndarray:
    """Average ranks (1 = smallest), as ``scipy.stats.rankdata(a, method="average", axis=axis)``.

    Parameters
    ----------
    a : array-like
    axis : int, optional
        Rank along this axis; None ranks the flattened array.

    Returns
    -------
    ndarray of float
        Ranks of the shape of ``a`` (flattened when ``axis`` is None); a slice holding a NaN
        is all NaN (scipy's ``nan_policy="propagate"``).
    """
    a = np.asarray(a, dtype=float)
    if axis is None:
        return _rank_1d(a.ravel())
    moved = np.moveaxis(a, axis, -1)
    flat = moved.reshape(-1, moved.shape[-1]) if moved.size else moved.reshape(0, 0)
    ranked = np.array([_rank_1d(row) for row in flat]).reshape(moved.shape)
    return np.moveaxis(ranked, -1, axis)


# --- the studentized range with infinitely many degrees of freedom -----------------------------

#: Gauss-Legendre panels over z in [-Z_MAX, Z_MAX]; the integrands are smooth and below 1e-18
#: outside, so the integrals are exact to rounding.
Z_MAX = 9.0
N_PANELS = 72
N_NODES = 16


@lru_cache(maxsize=1)
def _nodes() -> tuple[np.ndarray, np.ndarray]:
    """Quadrature nodes and weights of the composite Gauss-Legendre rule over [-Z_MAX, Z_MAX]."""
    x, w = np.polynomial.legendre.leggauss(N_NODES)
    edges = np.linspace(-Z_MAX, Z_MAX, N_PANELS + 1)
    half = (edges[1:] - edges[:-1])[:, None] / 2.0
    mid = (edges[1:] + edges[:-1])[:, None] / 2.0
    return (mid + half * x).ravel(), (half * w).ravel()


def studentized_range_sf(q: float, k: int) -> float:
    """P(Q > q) for the range Q of k independent standard normals (df = ∞).

    With the smallest of the k values at z: P(Q <= q) = k ∫ φ(z) [Φ(z+q) − Φ(z)]^(k−1) dz, and
    since k ∫ φ(z) (1 − Φ(z))^(k−1) dz = 1, P(Q > q) = k ∫ φ(z) (a^(k−1) − b^(k−1)) dz with
    a = 1 − Φ(z), b = Φ(z+q) − Φ(z). The difference is taken as (a − b) Σ a^i b^(k−2−i) with
    a − b = 1 − Φ(z+q), so that small tail probabilities keep their relative precision.
    """
    if k < 2:
        raise ValueError(f"the studentized range needs k >= 2 values, got {k}")
    if not q > 0:
        return 1.0
    z, w = _nodes()
    a = ndtr(-z)
    tail = ndtr(-(z + q))  # a - b
    b = np.where(z < 0, ndtr(z + q) - ndtr(z), a - tail)
    total, a_power = np.ones_like(z), np.ones_like(z)  # Σ_{i<=n} a^i b^(n-i), from n = 0
    for _ in range(k - 2):
        a_power = a_power * a
        total = b * total + a_power
    density = np.exp(-0.5 * z * z) / np.sqrt(2.0 * np.pi)
    return float(min(1.0, k * np.sum(w * density * tail * total)))


def studentized_range_ppf(p: float, k: int) -> float:
    """The q with P(Q <= q) = p for the range of k standard normals (df = ∞).

    Found by bisection on :func:`studentized_range_sf` to the precision of a double; agrees
    with ``scipy.stats.studentized_range.ppf(p, k, numpy.inf)`` to about 1e-10 (scipy
    integrates with an absolute tolerance of 1e-11).
    """
    if not 0.0 < p < 1.0:
        raise ValueError(f"the quantile needs 0 < p < 1, got {p}")
    alpha = 1.0 - p
    lo, hi = 0.0, 1.0
    while studentized_range_sf(hi, k) > alpha:
        lo, hi = hi, 2.0 * hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if studentized_range_sf(mid, k) > alpha:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)
