"""Omnibus tests over the rank table: Friedman and Iman–Davenport."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import chi2 as chi2_dist
from scipy.stats import f as f_dist


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
        float(chi2_dist.sf(chi2, df1)),
        float(F),
        df1,
        df2,
        float(f_dist.sf(F, df1, df2)) if np.isfinite(F) else 0.0,
        tie_correction,
    )
