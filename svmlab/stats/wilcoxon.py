"""Paired and unpaired two-method tests over datasets: Wilcoxon signed-rank, rank-sum.

The signed-rank test is what the reproduced papers call "Wilcoxon" in their 1xN tables
(Melki (2018), Tables 3.4-3.12 and 4.4-4.12; see docs/decisions/stats.md, "Wilcoxon
signed-rank: zero differences"): differences oriented so that a positive one favours the control,
zero differences ranked and split half/half between R+ and R−, one of them ignored when
their number is odd (Demšar 2006, as the KEEL software the papers used does: this
reproduces all 45 MTR and 55 MIL rows, including the four MIL rows with n = 14 that a
plain ``zsplit`` misses), differences taken unrounded in float64, and an exact
two-sided p from the null distribution of T = min(R+, R−) over n pairs, with
p = ½[p(⌊t⌋) + p(⌈t⌉)] when tied ranks make t a half-integer. scipy's ``wilcoxon``
computes the statistic but its exact p refuses zsplit and non-integer T, so the exact
null distribution is computed here by dynamic programming (for n ≤ ``exact_max_n``;
a normal approximation with tie correction above).

The rank-sum (Mann–Whitney) variant used by the HyDR-MI paper (Zafra, Pechenizkiy & Ventura,
Sec. 4.2.2, Tables 12-13) is
scipy's ``mannwhitneyu`` with the asymptotic p, tie correction and no continuity
correction by default.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from svmlab.stats.distributions import merge_ties, norm_cdf, rankdata

ZERO_METHODS = ("demsar", "zsplit", "wilcox")


@dataclass(frozen=True)
class SignedRank:
    """Result of a Wilcoxon signed-rank test of the control against one method."""

    r_plus: float  # sum of ranks where the control is better
    r_minus: float  # sum of ranks where the other method is better
    n: int  # pairs ranked
    p: float
    exact: bool
    dropped: int = 0  # pairs with a missing value


@lru_cache(maxsize=128)
def _null_counts(n: int) -> np.ndarray:
    """Number of subsets of {1..n} with each rank sum 0 .. n(n+1)/2."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    for r in range(1, n + 1):
        counts[r:] = counts[r:] + counts[:-r].copy()
    return counts


def exact_p(t: float, n: int) -> float:
    """Exact two-sided p = 2·P(T ≤ t) of the signed-rank statistic (half-integers interpolated)."""
    if n == 0:
        return 1.0
    counts = _null_counts(n)
    cdf = np.cumsum(counts) / 2.0**n

    def at(integer_t: int) -> float:
        return min(1.0, 2.0 * cdf[min(max(integer_t, 0), len(cdf) - 1)])

    lo, hi = int(np.floor(t)), int(np.ceil(t))
    return at(lo) if lo == hi else 0.5 * (at(lo) + at(hi))


def signed_rank(
    control, other, direction: str = "max", *, zero_method: str = "demsar", exact_max_n: int = 50
) -> SignedRank:
    """Wilcoxon signed-rank test of ``control`` against ``other`` over paired datasets.

    Parameters
    ----------
    control, other : array-like of shape (N,)
        Per-dataset values of the two methods (NaN pairs are dropped and counted). A
        difference below ``TIE_RTOL`` of the pair's larger magnitude is a zero: the two
        values are equal but for floating-point noise.
    direction : {"max", "min"}
        Whether higher values are better; d > 0 means the control is better.
    zero_method : {"demsar", "zsplit", "wilcox"}
        ``demsar`` (the papers, via KEEL) ranks zero differences and splits their ranks
        evenly between R+ and R−, ignoring one of them when their number is odd;
        ``zsplit`` splits them all; ``wilcox`` drops them.
    exact_max_n : int
        Largest n for the exact null distribution; above it, the normal approximation.
    """
    if zero_method not in ZERO_METHODS:
        raise ValueError(f"zero_method must be one of {ZERO_METHODS}, got {zero_method!r}")
    # a pair equal but for floating-point noise is one value: its difference is an exact zero
    pairs = merge_ties(
        np.column_stack([np.asarray(control, dtype=float), np.asarray(other, dtype=float)]), axis=1
    )
    a, b = pairs[:, 0], pairs[:, 1]
    keep = np.isfinite(a) & np.isfinite(b)
    d = ((a - b) if direction == "max" else (b - a))[keep]
    zeros = np.flatnonzero(d == 0)
    if zero_method == "wilcox":
        d = d[d != 0]
    elif zero_method == "demsar" and len(zeros) % 2 == 1:
        d = np.delete(d, zeros[0])
    n = len(d)
    if n == 0:
        return SignedRank(0.0, 0.0, 0, 1.0, True, int((~keep).sum()))
    ranks = rankdata(np.abs(d))
    r_plus = ranks[d > 0].sum() + 0.5 * ranks[d == 0].sum()
    r_minus = ranks[d < 0].sum() + 0.5 * ranks[d == 0].sum()
    t = min(r_plus, r_minus)
    if n <= exact_max_n:
        p, exact = exact_p(t, n), True
    else:
        _, counts = np.unique(ranks, return_counts=True)
        var = n * (n + 1) * (2 * n + 1) / 24.0 - np.sum(counts**3 - counts) / 48.0
        p, exact = float(min(1.0, 2.0 * norm_cdf((t - n * (n + 1) / 4.0) / np.sqrt(var)))), False
    return SignedRank(float(r_plus), float(r_minus), n, float(p), exact, int((~keep).sum()))


@dataclass(frozen=True)
class RankSum:
    """Result of a Wilcoxon rank-sum (Mann–Whitney) test, in SPSS's terms."""

    U: float
    W: float  # Wilcoxon W: the smaller of the two rank sums, as SPSS prints it
    z: float
    p: float
    mean_rank_a: float
    mean_rank_b: float


def rank_sum(a, b, *, continuity: bool = False, method: str = "asymptotic") -> RankSum:
    """Unpaired Wilcoxon rank-sum / Mann–Whitney U test (HyDR-MI's "Wilcoxon", Tables 12-13).

    Uses ``scipy.stats.mannwhitneyu`` (two-sided) on the values with near ties merged
    (:func:`~svmlab.stats.distributions.merge_ties`); also reports the mean ranks, the
    Wilcoxon W (the smaller of the two rank sums, as SPSS prints it) and the z score.
    """
    from scipy.stats import mannwhitneyu  # here: only the rank-sum variant needs scipy.stats

    both = merge_ties(np.concatenate([np.asarray(a, dtype=float), np.asarray(b, dtype=float)]))
    a, b = both[: len(a)], both[len(a) :]
    res = mannwhitneyu(a, b, alternative="two-sided", method=method, use_continuity=continuity)
    ranks = rankdata(np.concatenate([a, b]))
    ra, rb = ranks[: len(a)], ranks[len(a) :]
    n1, n2 = len(a), len(b)
    _, counts = np.unique(ranks, return_counts=True)
    N = n1 + n2
    var = n1 * n2 / 12.0 * ((N + 1) - np.sum(counts**3 - counts) / (N * (N - 1)))
    U = res.statistic
    z = (U - n1 * n2 / 2.0) / np.sqrt(var) if var > 0 else 0.0
    return RankSum(
        float(U),
        float(min(ra.sum(), rb.sum())),
        float(-abs(z)),
        float(res.pvalue),
        float(ra.mean()),
        float(rb.mean()),
    )
