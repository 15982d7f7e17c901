"""Post-hoc procedures after a Friedman test: 1xN against a control, and all pairs.

The z statistic of two methods' average ranks is z = (R_i − R_j) / sqrt(k(k+1)/(6N))
(Demšar 2006; García & Herrera 2008). The papers' "Nemenyi p-value" column is the
*unadjusted* two-sided p of this z, and their "Holm p-value" column holds Holm's
step-down *thresholds* α/i (Melki (2018), Tables 3.4-3.12 and 4.4-4.12; docs/decisions/stats.md,
"'Nemenyi' and 'Holm' columns of the 1xN tables"); both are reproduced here, together
with properly adjusted p-values (Bonferroni–Dunn, Holm, Hochberg, Finner, Shaffer).

The adjustments are written by hand: statsmodels' ``multipletests`` has Holm and
Hochberg (the tests check agreement) but neither Finner nor Shaffer, and the papers'
threshold columns need the ordering rule below. Nemenyi all-pairs p-values come from
scikit-posthocs (studentized range distribution).
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

import numpy as np
import pandas as pd
from scipy.stats import norm, studentized_range, wilcoxon

ADJUSTMENTS = ("bonferroni", "holm", "hochberg", "finner", "shaffer")


def rank_se(n_methods: int, n_datasets: int) -> float:
    """Standard error of a difference of two average ranks: sqrt(k(k+1)/(6N))."""
    return float(np.sqrt(n_methods * (n_methods + 1) / (6.0 * n_datasets)))


def bonferroni_dunn_cd(n_methods: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Bonferroni–Dunn critical difference: q_α · sqrt(k(k+1)/(6N)), q_α = Φ⁻¹(1 − α/(2(k−1)))."""
    q = norm.ppf(1.0 - alpha / (2.0 * (n_methods - 1)))
    return float(q * rank_se(n_methods, n_datasets))


def nemenyi_cd(n_methods: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference: q_α · sqrt(k(k+1)/(6N)), q_α = studentized range(k, ∞) / √2."""
    q = studentized_range.ppf(1.0 - alpha, n_methods, np.inf) / np.sqrt(2.0)
    return float(q * rank_se(n_methods, n_datasets))


def _order(p: np.ndarray) -> np.ndarray:
    """Ascending p; ties keep the input (column) order, the papers' tie rule."""
    return np.argsort(p, kind="stable")


def holm_thresholds(p, alpha: float = 0.05) -> np.ndarray:
    """Holm's step-down thresholds α/(m−i+1) assigned to the hypotheses in ascending-p order."""
    p = np.asarray(p, dtype=float)
    m = len(p)
    out = np.empty(m)
    out[_order(p)] = alpha / (m - np.arange(m))
    return out


def holm_rejections(p, alpha: float = 0.05) -> np.ndarray:
    """Step-down Holm: reject in ascending-p order while p_(i) ≤ α/(m−i+1)."""
    p = np.asarray(p, dtype=float)
    order = _order(p)
    m = len(p)
    reject = np.zeros(m, dtype=bool)
    for i, j in enumerate(order):
        if p[j] > alpha / (m - i):
            break
        reject[j] = True
    return reject


@lru_cache(maxsize=64)
def _shaffer_sets(k: int) -> frozenset:
    """Possible numbers of simultaneously true pairwise hypotheses among k methods."""
    if k <= 1:
        return frozenset({0})
    out = set()
    for j in range(1, k + 1):
        out |= {comb(j, 2) + x for x in _shaffer_sets(k - j)}
    return frozenset(out)


def adjust(p, method: str, *, n_methods: int | None = None) -> np.ndarray:
    """Adjusted p-values (capped at 1) for a family of hypotheses.

    Parameters
    ----------
    p : array-like
        Unadjusted p-values.
    method : {"bonferroni", "holm", "hochberg", "finner", "shaffer"}
    n_methods : int, optional
        Number of methods k; required by ``shaffer`` (all-pairs families only).
    """
    p = np.asarray(p, dtype=float)
    m = len(p)
    if method not in ADJUSTMENTS:
        raise ValueError(f"unknown adjustment {method!r}; valid: {', '.join(ADJUSTMENTS)}")
    if m == 0:
        return p
    order = _order(p)
    ps = p[order]
    i = np.arange(1, m + 1)
    if method == "bonferroni":
        adj = ps * m
    elif method == "holm":
        adj = np.maximum.accumulate((m - i + 1) * ps)
    elif method == "hochberg":
        adj = np.minimum.accumulate(((m - i + 1) * ps)[::-1])[::-1]
    elif method == "finner":
        adj = np.maximum.accumulate(1.0 - (1.0 - ps) ** (m / i))
    else:
        if n_methods is None or comb(n_methods, 2) != m:
            raise ValueError("shaffer needs n_methods with m = k(k-1)/2 hypotheses (all pairs)")
        sets = np.array(sorted(_shaffer_sets(n_methods)))
        t = np.array([sets[sets <= m - r + 1].max() for r in i])
        adj = np.maximum.accumulate(t * ps)
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def control_comparison(
    avg_ranks: pd.Series, n_datasets: int, control: str, alpha: float = 0.05
) -> pd.DataFrame:
    """1xN comparison of every method with ``control`` from their average ranks.

    Returns
    -------
    DataFrame indexed by method (input order, control excluded) with columns
    ``rank``, ``z`` (positive: the method ranks worse than the control), ``p``
    (unadjusted two-sided; the papers' "Nemenyi p-value"), ``bonferroni_dunn``,
    ``holm_threshold`` (the papers' "Holm p-value" column), ``holm``, ``hochberg``,
    ``finner`` (adjusted p), and ``holm_reject`` (step-down at ``alpha``).
    """
    k = len(avg_ranks)
    others = avg_ranks.drop(index=control)
    z = (others - avg_ranks[control]) / rank_se(k, n_datasets)
    p = 2.0 * norm.sf(np.abs(z.to_numpy()))
    out = pd.DataFrame({"rank": others, "z": z, "p": p}, index=others.index)
    out["bonferroni_dunn"] = adjust(p, "bonferroni")
    out["holm_threshold"] = holm_thresholds(p, alpha)
    out["holm"] = adjust(p, "holm")
    out["hochberg"] = adjust(p, "hochberg")
    out["finner"] = adjust(p, "finner")
    out["holm_reject"] = holm_rejections(p, alpha)
    return out


def pairwise_comparison(table: pd.DataFrame, avg_ranks: pd.Series) -> dict[str, pd.DataFrame]:
    """NxN comparisons: unadjusted z-test p, Nemenyi, Holm and Shaffer adjusted p.

    Parameters
    ----------
    table : DataFrame (N datasets x k methods)
        The values (only used for scikit-posthocs' Nemenyi test, which ranks them itself;
        the Nemenyi p-values do not depend on the direction of the metric).
    avg_ranks : Series
        Average ranks of the k methods.

    Returns
    -------
    dict of k x k DataFrames: ``p`` (unadjusted), ``nemenyi``, ``holm``, ``shaffer`` and
    ``wilcoxon_holm``: two-sided Wilcoxon signed-rank p of every pair over the datasets
    (``zero_method="pratt"``), Holm-adjusted over the k(k-1)/2 pairs, the all-pairs test behind
    the critical-difference diagrams of Oliveira (2021), Ch. 5 (Ismail Fawaz et al.'s recipe).
    """
    import scikit_posthocs as sp

    methods = list(avg_ranks.index)
    N, k = table.shape
    R = avg_ranks.to_numpy()
    iu = np.triu_indices(k, 1)
    z = (R[iu[0]] - R[iu[1]]) / rank_se(k, N)
    p = 2.0 * norm.sf(np.abs(z))

    def square(values, diag=1.0):
        M = np.full((k, k), diag)
        M[iu] = values
        M[(iu[1], iu[0])] = values
        return pd.DataFrame(M, index=methods, columns=methods)

    values = table[methods].to_numpy(dtype=float)
    with np.errstate(all="ignore"):
        pw = np.array(
            [
                1.0
                if np.allclose(values[:, i], values[:, j])
                else wilcoxon(values[:, i], values[:, j], zero_method="pratt").pvalue
                for i, j in zip(*iu, strict=True)
            ]
        )
    nemenyi = sp.posthoc_nemenyi_friedman(table[methods].to_numpy())
    nemenyi.index = nemenyi.columns = methods
    return {
        "p": square(p),
        "nemenyi": nemenyi.astype(float),
        "holm": square(adjust(p, "holm")),
        "shaffer": square(adjust(p, "shaffer", n_methods=k)),
        "wilcoxon_holm": square(adjust(pw, "holm")),
    }
