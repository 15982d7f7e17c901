"""Post-hoc procedures after a Friedman test: 1xN against a control, and all pairs.

The z statistic of two methods' average ranks is z = (R_i − R_j) / sqrt(k(k+1)/(6N))
(Demšar 2006; García & Herrera 2008). The papers' "Nemenyi p-value" column is the
*unadjusted* two-sided p of this z, and their "Holm p-value" column holds Holm's
step-down *thresholds* α/i (Melki (2018), Tables 3.4-3.12 and 4.4-4.12; docs/decisions/stats.md,
"'Nemenyi' and 'Holm' columns of the 1xN tables"); both are reproduced here, together
with properly adjusted p-values: Bonferroni–Dunn, Holm, Hochberg, Hommel, Holland, Finner
and Li for 1xN (García et al. 2010), Nemenyi, Holm, Shaffer and Bergmann–Hommel for all
pairs (García & Herrera 2008). The same z-tests serve the Friedman aligned-ranks and Quade
tests (``svmlab.stats.omnibus``): pass their scores and standard error as ``se``.

Two all-pairs p-values are called "Nemenyi": the papers' (KEEL, García & Herrera 2008)
min(1, m·p) with m = k(k−1)/2, ``nemenyi_bonferroni``, the default ``nemenyi``; and the
studentized-range p of Demšar's critical difference (scikit-posthocs'
``posthoc_nemenyi_friedman``), ``nemenyi_tukey``.

The adjustments are written by hand: statsmodels' ``multipletests`` has Holm, Hochberg
and Hommel (the tests check agreement) but none of Finner, Holland, Li, Shaffer or
Bergmann–Hommel, and the papers' threshold columns need the ordering rule below.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

import numpy as np
import pandas as pd

from svmlab.stats import bergmann as _bergmann
from svmlab.stats.distributions import merge_ties, norm_ppf, norm_sf, studentized_range_ppf

ADJUSTMENTS = (
    "bonferroni",
    "holm",
    "hochberg",
    "hommel",
    "holland",
    "finner",
    "li",
    "shaffer",
    "bergmann",
)
NEMENYI_DEFAULT = "nemenyi_bonferroni"


def rank_se(n_methods: int, n_datasets: int) -> float:
    """Standard error of a difference of two average ranks: sqrt(k(k+1)/(6N))."""
    return float(np.sqrt(n_methods * (n_methods + 1) / (6.0 * n_datasets)))


def bonferroni_dunn_cd(n_methods: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Bonferroni–Dunn critical difference: q_α · sqrt(k(k+1)/(6N)), q_α = Φ⁻¹(1 − α/(2(k−1)))."""
    q = norm_ppf(1.0 - alpha / (2.0 * (n_methods - 1)))
    return float(q * rank_se(n_methods, n_datasets))


def nemenyi_cd(n_methods: int, n_datasets: int, alpha: float = 0.05) -> float:
    """Nemenyi critical difference: q_α · sqrt(k(k+1)/(6N)), q_α = studentized range(k, ∞) / √2."""
    q = studentized_range_ppf(1.0 - alpha, n_methods) / np.sqrt(2.0)
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


def _step_down(values: np.ndarray) -> np.ndarray:
    """Running maximum in ascending-p order (adjusted p-values may not decrease)."""
    return np.maximum.accumulate(values)


def _holm(ps: np.ndarray) -> np.ndarray:
    m = len(ps)
    return _step_down((m - np.arange(m)) * ps)


def _hochberg(ps: np.ndarray) -> np.ndarray:
    m = len(ps)
    return np.minimum.accumulate(((m - np.arange(m)) * ps)[::-1])[::-1]


def _hommel(ps: np.ndarray) -> np.ndarray:
    """Hommel (1988) by closed testing with Simes tests (García et al. 2010, §4).

    APV_i is the largest Simes p, min_j |I|·p_(j)/j, over the sets I of hypotheses that
    contain H_i. For a set size s the largest one joins H_i with the s − 1 largest other
    p-values (or, when H_i is among them, is the s largest p-values).
    """
    m = len(ps)
    adj = ps.copy()  # sets of size 1
    positions = np.arange(m)
    for size in range(2, m + 1):
        top = ps[m - size + 1 :]  # the size − 1 largest p-values
        rest = np.min(size * top / np.arange(2, size + 1))
        adj = np.maximum(adj, np.minimum(size * ps[np.minimum(positions, m - size)], rest))
    return adj


def _holland(ps: np.ndarray) -> np.ndarray:
    """Holland & Copenhaver (1987): 1 − (1 − p_(i))^(m−i+1), step-down."""
    m = len(ps)
    return _step_down(1.0 - (1.0 - ps) ** (m - np.arange(m)))


def _finner(ps: np.ndarray) -> np.ndarray:
    """Finner (1993): 1 − (1 − p_(i))^(m/i), step-down."""
    m = len(ps)
    return _step_down(1.0 - (1.0 - ps) ** (m / np.arange(1, m + 1)))


def _li(ps: np.ndarray) -> np.ndarray:
    """Li (2008): p_(i) / (p_(i) + 1 − p_(m)); the largest hypothesis keeps p_(m).

    Conservative when p_(m) is near 1: with p_(m) = 1 every adjusted p is 1.
    """
    denom = ps + 1.0 - ps[-1]
    with np.errstate(invalid="ignore", divide="ignore"):
        adj = np.where(denom > 0, ps / denom, 1.0)
    adj[-1] = ps[-1]
    return adj


def _shaffer(ps: np.ndarray, n_methods: int) -> np.ndarray:
    """Shaffer's static procedure: t_i = most hypotheses that can be true with i − 1 false."""
    m = len(ps)
    sets = np.array(sorted(_shaffer_sets(n_methods)))
    t = np.array([sets[sets <= m - r].max() for r in range(m)])
    return _step_down(t * ps)


_SORTED = {
    "bonferroni": lambda ps: ps * len(ps),
    "holm": _holm,
    "hochberg": _hochberg,
    "hommel": _hommel,
    "holland": _holland,
    "finner": _finner,
    "li": _li,
}


def adjust(
    p, method: str, *, n_methods: int | None = None, bergmann_hommel: str = "exhaustive"
) -> np.ndarray:
    """Adjusted p-values (capped at 1) for a family of hypotheses.

    Parameters
    ----------
    p : array-like
        Unadjusted p-values. For ``shaffer`` and ``bergmann`` they are the k(k−1)/2
        pairwise p-values of k methods; ``bergmann`` needs them in
        ``numpy.triu_indices(k, 1)`` order: (0, 1), (0, 2), ..., (k−2, k−1).
    method : {"bonferroni", "holm", "hochberg", "hommel", "holland", "finner", "li",
              "shaffer", "bergmann"}
        Bonferroni(–Dunn), Holm, Hochberg, Hommel, Holland, Finner and Li apply to any
        family (García et al. 2010); Shaffer (static) and Bergmann–Hommel only to all
        pairwise comparisons (García & Herrera 2008). Bergmann–Hommel is exact for
        k <= 9 methods and refused beyond (``svmlab.stats.bergmann``).
    n_methods : int, optional
        Number of methods k; required by ``shaffer`` and ``bergmann``.
    bergmann_hommel : {"exhaustive", "monotone"}, default="exhaustive"
        The definition of the Bergmann–Hommel adjusted p (``svmlab.stats.bergmann``):
        García & Herrera's (2008) maximum over the exhaustive sets, or that maximum made
        non-decreasing in ``p`` (scmamp).

    Returns
    -------
    ndarray in the order of ``p``. Ties of ``p`` keep the input order.

    Raises
    ------
    ValueError
        Unknown method, missing or inconsistent ``n_methods``, ``bergmann`` with k > 9, or an
        unknown ``bergmann_hommel``.
    """
    p = np.asarray(p, dtype=float)
    m = len(p)
    if method not in ADJUSTMENTS:
        raise ValueError(f"unknown adjustment {method!r}; valid: {', '.join(ADJUSTMENTS)}")
    if method in ("shaffer", "bergmann") and (n_methods is None or comb(n_methods, 2) != m):
        raise ValueError(f"{method} needs n_methods with m = k(k-1)/2 hypotheses (all pairs)")
    if m == 0:
        return p
    if method == "bergmann":
        return _bergmann.bergmann_hommel(p, n_methods, bergmann_hommel)
    order = _order(p)
    ps = p[order]
    adj = _shaffer(ps, n_methods) if method == "shaffer" else _SORTED[method](ps)
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def z_test_p(difference, se: float) -> np.ndarray:
    """Two-sided normal p of score differences (rank, aligned rank or Quade T) over ``se``."""
    return 2.0 * norm_sf(np.abs(np.asarray(difference, dtype=float)) / se)


def control_comparison(
    avg_ranks: pd.Series,
    n_datasets: int,
    control: str,
    alpha: float = 0.05,
    *,
    bd_alpha: float | None = None,
    se: float | None = None,
) -> pd.DataFrame:
    """1xN comparison of every method with ``control`` from their average ranks.

    Parameters
    ----------
    avg_ranks : Series
        Average Friedman ranks (lower = better); or the scores of another rank test
        (average aligned ranks, Quade's T_j) together with their ``se``.
    n_datasets : int
    control : str
    alpha : float
        Level of Holm's step-down columns.
    bd_alpha : float, optional
        Level of the Bonferroni–Dunn test (default ``alpha``).
    se : float, optional
        Standard error of a score difference; default sqrt(k(k+1)/(6N)) (Friedman ranks).

    Returns
    -------
    DataFrame indexed by method (input order, control excluded) with columns
    ``rank``, ``z`` (positive: the method ranks worse than the control), ``p``
    (unadjusted two-sided; the papers' "Nemenyi p-value"), ``bonferroni_dunn``,
    ``holm_threshold`` (the papers' "Holm p-value" column), ``holm``, ``hochberg``,
    ``hommel``, ``holland``, ``finner``, ``li`` (adjusted p), ``holm_reject`` (step-down at
    ``alpha``), ``direction`` ("better" or "worse" than the control, "tie" for z = 0) and
    ``bonferroni_dunn_reject``: the average ranks differ by more than the Bonferroni–Dunn
    critical difference at ``bd_alpha``, in either direction (a method significantly
    better than a control that is not the best is flagged too).
    """
    k = len(avg_ranks)
    se = rank_se(k, n_datasets) if se is None else se
    bd_alpha = alpha if bd_alpha is None else bd_alpha
    others = avg_ranks.drop(index=control)
    diff = others - avg_ranks[control]
    z = diff / se
    p = z_test_p(diff.to_numpy(), se)
    out = pd.DataFrame({"rank": others, "z": z, "p": p}, index=others.index)
    out["bonferroni_dunn"] = adjust(p, "bonferroni")
    out["holm_threshold"] = holm_thresholds(p, alpha)
    for method in ("holm", "hochberg", "hommel", "holland", "finner", "li"):
        out[method] = adjust(p, method)
    out["holm_reject"] = holm_rejections(p, alpha)
    out["direction"] = np.where(z > 0, "worse", np.where(z < 0, "better", "tie"))
    cd = norm_ppf(1.0 - bd_alpha / (2.0 * (k - 1))) * se
    out["bonferroni_dunn_reject"] = np.abs(diff.to_numpy()) > cd
    return out


def _square(values, methods: list[str], diag: float = 1.0) -> pd.DataFrame:
    """A symmetric k x k DataFrame from values in ``numpy.triu_indices(k, 1)`` order."""
    k = len(methods)
    iu = np.triu_indices(k, 1)
    M = np.full((k, k), diag)
    M[iu] = values
    M[(iu[1], iu[0])] = values
    return pd.DataFrame(M, index=methods, columns=methods)


def _upper(matrix: pd.DataFrame) -> np.ndarray:
    """The upper triangle of a k x k matrix in ``numpy.triu_indices(k, 1)`` order."""
    return matrix.to_numpy(dtype=float)[np.triu_indices(len(matrix), 1)]


def pairwise_p(scores: pd.Series, se: float) -> pd.DataFrame:
    """Unadjusted two-sided z-test p of every pair of methods (k x k, diagonal 1).

    ``scores`` are average ranks with ``se = rank_se(k, N)``, or the average aligned ranks /
    Quade T_j with the ``se`` of ``svmlab.stats.omnibus.friedman_aligned_ranks`` / ``quade``.
    """
    R = scores.to_numpy(dtype=float)
    iu = np.triu_indices(len(R), 1)
    return _square(z_test_p(R[iu[0]] - R[iu[1]], se), list(scores.index))


def adjust_pairwise(
    p_matrix: pd.DataFrame, method: str, *, bergmann_hommel: str = "exhaustive"
) -> pd.DataFrame:
    """Adjust a k x k matrix of pairwise p-values over its k(k−1)/2 pairs (see :func:`adjust`)."""
    k = len(p_matrix)
    adjusted = adjust(_upper(p_matrix), method, n_methods=k, bergmann_hommel=bergmann_hommel)
    return _square(adjusted, list(p_matrix.index))


def nemenyi_tukey(
    avg_ranks: pd.Series, n_datasets: int, *, se: float | None = None
) -> pd.DataFrame:
    """All-pairs Nemenyi p from the studentized range distribution (Demšar 2006).

    P(Q_{k,∞} ≥ √2·|R_i − R_j| / sqrt(k(k+1)/(6N))): the p-value behind Demšar's critical
    difference (:func:`nemenyi_cd`), and scikit-posthocs' ``posthoc_nemenyi_friedman``.
    With ``se``, the scores of another rank test (aligned ranks, Quade's T_j) and the
    standard error of their difference. ``scipy.stats`` is imported here, when the table
    is asked for.
    """
    from scipy.stats import studentized_range

    R = avg_ranks.to_numpy(dtype=float)
    k = len(R)
    iu = np.triu_indices(k, 1)
    se = rank_se(k, n_datasets) if se is None else se
    q = np.abs(R[iu[0]] - R[iu[1]]) / se * np.sqrt(2.0)
    return _square(studentized_range.sf(q, k, np.inf), list(avg_ranks.index))


#: The all-pairs p-value matrices :func:`pairwise_comparison` computes, in its order.
PAIRWISE_PROCEDURES = (
    "p",
    "nemenyi_bonferroni",
    "nemenyi_tukey",
    "holm",
    "shaffer",
    "nemenyi",
    "bergmann",
    "wilcoxon_holm",
)


def pairwise_comparison(
    table: pd.DataFrame,
    avg_ranks: pd.Series,
    procedures=None,
    *,
    se: float | None = None,
    bergmann_hommel: str = "exhaustive",
) -> dict[str, pd.DataFrame]:
    """NxN comparisons: unadjusted z-test p, Nemenyi, Holm, Shaffer, Bergmann–Hommel p.

    Parameters
    ----------
    table : DataFrame (N datasets x k methods)
        The values (used by the Wilcoxon tests).
    avg_ranks : Series
        Average ranks of the k methods; or the scores of another rank test (average
        aligned ranks, Quade's T_j) together with their ``se``.
    procedures : sequence of str, optional
        The matrices to compute (keys below; ``p`` is always there, a name not known is
        left out); default: all of them. ``nemenyi_tukey`` and ``wilcoxon_holm`` import
        ``scipy.stats``, so ask only for what is shown.
    se : float, optional
        Standard error of a score difference; default sqrt(k(k+1)/(6N)) (Friedman ranks).
    bergmann_hommel : {"exhaustive", "monotone"}, default="exhaustive"
        The definition of the Bergmann–Hommel adjusted p (see :func:`adjust`).

    Returns
    -------
    dict of k x k DataFrames:

    * ``p``: unadjusted two-sided p of the rank z-test;
    * ``nemenyi_bonferroni``: min(1, m·p) with m = k(k−1)/2, the "Nemenyi" of KEEL and
      García & Herrera (2008);
    * ``nemenyi_tukey``: the studentized-range p (Demšar 2006, scikit-posthocs);
    * ``nemenyi``: the default Nemenyi, ``nemenyi_bonferroni`` (:data:`NEMENYI_DEFAULT`);
    * ``holm``, ``shaffer``: adjusted p (Shaffer's static procedure);
    * ``bergmann``: Bergmann–Hommel adjusted p, present only for k <= 9 methods (the
      exhaustive sets are enumerated exactly up to that size);
    * ``wilcoxon_holm``: two-sided Wilcoxon signed-rank p of every pair over the datasets
      (``zero_method="pratt"``), Holm-adjusted over the k(k-1)/2 pairs, the all-pairs test
      behind the critical-difference diagrams of Oliveira (2021), Ch. 5 (Ismail Fawaz et
      al.'s recipe).
    """
    methods = list(avg_ranks.index)
    N, k = table.shape
    se = rank_se(k, N) if se is None else se
    wanted = set(PAIRWISE_PROCEDURES if procedures is None else procedures)
    if "nemenyi" in wanted:
        wanted.add(NEMENYI_DEFAULT)
    p = pairwise_p(avg_ranks, se)
    compute = {
        "nemenyi_bonferroni": lambda: adjust_pairwise(p, "bonferroni"),
        "nemenyi_tukey": lambda: nemenyi_tukey(avg_ranks, N, se=se),
        "holm": lambda: adjust_pairwise(p, "holm"),
        "shaffer": lambda: adjust_pairwise(p, "shaffer"),
        "nemenyi": lambda: out[NEMENYI_DEFAULT],
        "bergmann": lambda: adjust_pairwise(p, "bergmann", bergmann_hommel=bergmann_hommel),
        "wilcoxon_holm": lambda: _square(adjust(_wilcoxon_pairs(table[methods]), "holm"), methods),
    }
    out = {"p": p}
    for name in PAIRWISE_PROCEDURES[1:]:
        if name in wanted and (name != "bergmann" or k <= _bergmann.MAX_K):
            out[name] = compute[name]()
    return out


def _wilcoxon_pairs(table: pd.DataFrame) -> np.ndarray:
    """Two-sided Wilcoxon signed-rank p (pratt) of every pair, ``triu_indices`` order."""
    from scipy.stats import wilcoxon  # here: only this table needs scipy.stats

    # a dataset's values equal but for floating-point noise give a zero difference
    values = merge_ties(table.to_numpy(dtype=float), axis=1)
    iu = np.triu_indices(values.shape[1], 1)
    with np.errstate(all="ignore"):
        return np.array(
            [
                1.0
                if np.allclose(values[:, i], values[:, j])
                else wilcoxon(values[:, i], values[:, j], zero_method="pratt").pvalue
                for i, j in zip(*iu, strict=True)
            ]
        )
