"""Omnibus tests over the rank table: Friedman and Iman–Davenport, Friedman aligned
ranks and Quade (García et al. 2010, §3, recommended when few methods are compared).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from svmlab.errors import StatsInputError
from svmlab.stats.distributions import chi2_sf, f_sf, rankdata
from svmlab.stats.ranks import DIRECTIONS, rank_table


@dataclass(frozen=True)
class Omnibus:
    """Friedman χ² and the Iman–Davenport F derived from it."""

    n_datasets: int
    n_methods: int
    chi2: float
    chi2_df: int
    chi2_p: float
    F: float
    F_df1: int
    F_df2: int
    F_p: float
    tie_correction: bool

    def line(self) -> str:
        """One-line summary in the papers' style."""
        return (
            f"Friedman chi2({self.chi2_df}) = {self.chi2:.4f}, p = {self.chi2_p:.3g}; "
            f"Iman-Davenport F({self.F_df1}, {self.F_df2}) = {self.F:.4f}, p = {self.F_p:.3g} "
            f"(N = {self.n_datasets} datasets, k = {self.n_methods} methods"
            f"{', tie-corrected' if self.tie_correction else ''})"
        )


def friedman(ranks: pd.DataFrame, *, tie_correction: bool = False) -> Omnibus:
    """Friedman's test and the Iman–Davenport correction from a rank table.

    χ²_F = 12N/(k(k+1)) · [Σ_j R_j² − k(k+1)²/4] (Demšar 2006; docs/decisions/stats.md,
    "Friedman statistic and Iman-Davenport"), optionally divided
    by the tie correction 1 − Σ(t³ − t)/(N(k³ − k)) (what ``scipy.stats.friedmanchisquare``
    always applies). The papers that print the statistic use the uncorrected form;
    ``F_ID = (N−1)χ²_F / (N(k−1) − χ²_F)`` ~ F(k−1, (k−1)(N−1)).

    Written by hand because scipy offers only the tie-corrected χ² and no Iman–Davenport.
    """
    N, k = ranks.shape
    R = ranks.mean(axis=0).to_numpy()
    chi2 = 12.0 * N / (k * (k + 1)) * (np.sum(R**2) - k * (k + 1) ** 2 / 4.0)
    if tie_correction:
        ties = 0.0
        for row in ranks.to_numpy():
            _, counts = np.unique(row, return_counts=True)
            ties += np.sum(counts**3 - counts)
        denom = 1.0 - ties / (N * (k**3 - k))
        chi2 = chi2 / denom if denom > 0 else np.nan
    df1, df2 = k - 1, (k - 1) * (N - 1)
    denom = N * (k - 1) - chi2
    F = (N - 1) * chi2 / denom if denom > 0 else np.inf
    return Omnibus(
        N,
        k,
        float(chi2),
        df1,
        float(chi2_sf(chi2, df1)),
        float(F),
        df1,
        df2,
        float(f_sf(F, df1, df2)) if np.isfinite(F) else 0.0,
        tie_correction,
    )


@dataclass(frozen=True, eq=False)
class RankTest:
    """An omnibus rank test of k methods over N datasets other than Friedman's.

    ``scores`` are the per-method statistics its post-hoc z-tests compare (lower is
    better): the average aligned ranks, or Quade's weighted average ranks T_j; ``se`` is
    the standard error of a difference of two scores, so that
    ``svmlab.stats.posthoc.pairwise_p(scores, se)`` and
    ``control_comparison(scores, N, control, se=se)`` give the post-hoc p-values
    (García et al. 2010, §5).
    """

    name: str
    n_datasets: int
    n_methods: int
    statistic: float
    distribution: str  # "chi2" or "F"
    df: tuple[int, ...]
    p: float
    scores: pd.Series
    se: float
    tie_correction: bool = False

    def line(self) -> str:
        """One-line summary in the papers' style."""
        df = ", ".join(str(d) for d in self.df)
        symbol = "chi2" if self.distribution == "chi2" else "F"
        return (
            f"{self.name} {symbol}({df}) = {self.statistic:.4f}, p = {self.p:.3g} "
            f"(N = {self.n_datasets} datasets, k = {self.n_methods} methods"
            f"{', tie-corrected' if self.tie_correction else ''})"
        )


def _values(table: pd.DataFrame, direction: str) -> np.ndarray:
    """The table as floats, refusing what no rank test can use."""
    if direction not in DIRECTIONS:
        raise StatsInputError(f"direction must be 'max' or 'min', got {direction!r}")
    values = table.to_numpy(dtype=float)
    if values.ndim != 2 or values.shape[0] < 2 or values.shape[1] < 2:
        raise StatsInputError(
            f"need at least 2 datasets and 2 methods, got a table of shape {values.shape}"
        )
    if not np.isfinite(values).all():
        raise StatsInputError("the table has missing or infinite cells; drop those datasets first")
    return values


def _exact_ties(x: np.ndarray, scale: float) -> np.ndarray:
    """``x`` rounded to 1e-9 of ``scale``, so that values equal but for floating-point noise tie.

    A dataset mean or range of values printed to a few decimals carries rounding noise
    (0.803 − 0.692 ≠ 0.903 − 0.792 in binary floating point); ranked as they are, such
    equal values would be ordered by that noise. Differences below 1e-9 of the largest
    absolute value in the table are treated as ties.
    """
    tol = 1e-9 * scale if scale > 0 else 1.0
    return np.round(x / tol)


def friedman_aligned_ranks(table: pd.DataFrame, direction: str = "max") -> RankTest:
    """Friedman's aligned-ranks test (Hodges & Lehmann 1962; García et al. 2010, §3.1).

    Each value is aligned by subtracting its dataset's mean over the methods; the kN
    aligned values are ranked together (1 = best, ties averaged, equal values tie even
    when floating-point noise separates them: see :func:`_exact_ties`) and

        T = (k−1)[Σ_j R̂_j² − (kN²/4)(kN+1)²] / ([kN(kN+1)(2kN+1)/6] − (1/k) Σ_i R̂_i²)

    with R̂_j, R̂_i the rank totals of method j and dataset i is compared with χ²(k−1).
    Post hoc: average aligned ranks, se = sqrt(k(Nk+1)/6).

    Parameters
    ----------
    table : DataFrame (N datasets x k methods)
    direction : {"max", "min"}
        Whether higher or lower values are better (the statistic does not depend on it,
        the scores do).
    """
    values = _values(table, direction)
    N, k = values.shape
    aligned = _exact_ties(values - values.mean(axis=1, keepdims=True), np.abs(values).max())
    signed = -aligned if direction == "max" else aligned
    ranks = rankdata(signed.ravel()).reshape(N, k)
    Rj, Ri = ranks.sum(axis=0), ranks.sum(axis=1)
    kN = k * N
    num = (k - 1) * (np.sum(Rj**2) - (kN * N / 4.0) * (kN + 1) ** 2)
    den = kN * (kN + 1) * (2 * kN + 1) / 6.0 - np.sum(Ri**2) / k
    T = num / den if den > 0 else np.inf
    return RankTest(
        "Friedman aligned ranks",
        N,
        k,
        float(T),
        "chi2",
        (k - 1,),
        float(chi2_sf(T, k - 1)),
        pd.Series(Rj / N, index=table.columns),
        float(np.sqrt(k * (kN + 1) / 6.0)),
    )


def quade(table: pd.DataFrame, direction: str = "max", *, tie_correction: bool = False) -> RankTest:
    """Quade's test (Quade 1979; García et al. 2010, §3.2).

    Datasets are weighted by the rank Q_i of their range (max − min over the methods,
    1 = smallest, ties averaged); with r_ij the rank of method j on dataset i (1 = best),
    S_ij = Q_i (r_ij − (k+1)/2), S_j = Σ_i S_ij, B = Σ_j S_j² / N and
    A = N(N+1)(2N+1)k(k+1)(k−1)/72 (the papers' form, exact without ties), or
    A = Σ_ij S_ij² with ``tie_correction``,

        F = (N−1)B / (A − B) ~ F(k−1, (k−1)(N−1)).

    Post hoc: T_j = Σ_i Q_i r_ij / (N(N+1)/2), se = sqrt(k(k+1)(2N+1)(k−1) / (18N(N+1))).

    Parameters
    ----------
    table : DataFrame (N datasets x k methods)
    direction : {"max", "min"}
        Whether higher or lower values are better (the statistic does not depend on it,
        the scores do).
    tie_correction : bool
        Use the sum of squared scores for A (Quade; Conover 1999) instead of its no-ties value.
    """
    values = _values(table, direction)
    N, k = values.shape
    r = rank_table(table, direction).to_numpy(dtype=float)
    ranges = _exact_ties(values.max(axis=1) - values.min(axis=1), np.abs(values).max())
    Q = rankdata(ranges)
    S = Q[:, None] * (r - (k + 1) / 2.0)
    Sj = S.sum(axis=0)
    B = np.sum(Sj**2) / N
    if tie_correction:
        A = float(np.sum(S**2))
    else:
        A = N * (N + 1) * (2 * N + 1) * k * (k + 1) * (k - 1) / 72.0
    F = (N - 1) * B / (A - B) if A > B else np.inf
    df = (k - 1, (k - 1) * (N - 1))
    return RankTest(
        "Quade",
        N,
        k,
        float(F),
        "F",
        df,
        float(f_sf(F, *df)) if np.isfinite(F) else 0.0,
        pd.Series((Q[:, None] * r).sum(axis=0) / (N * (N + 1) / 2.0), index=table.columns),
        float(np.sqrt(k * (k + 1) * (2 * N + 1) * (k - 1) / (18.0 * N * (N + 1)))),
        tie_correction,
    )
