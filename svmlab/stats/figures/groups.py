"""Which methods the figures group together or set apart.

:func:`compute_cliques` finds the Nemenyi-style groups joined by a bar in the
critical-difference diagram; :func:`classify_against_control` sorts the methods into
the Bonferroni–Dunn categories coloured by the rank-bar chart. For an all-pairs
procedure (Holm, Shaffer, Bergmann–Hommel, ...) :func:`cliques_from_pvalues` and
:func:`classify_by_pvalues` do the same from its adjusted p-values.
"""

from __future__ import annotations

from collections.abc import Mapping

from svmlab.stats.figures._canvas import sorted_by_rank
from svmlab.stats.figures._inputs import (
    FigureInputError,
    check_alpha,
    check_cd,
    check_control,
    check_ranks,
)

#: Category names returned by :func:`classify_against_control` and used as the
#: ``gid`` prefix of the bars drawn by :func:`rank_bars`.
CATEGORIES = ("control", "not_significant", "worse", "better")


def compute_cliques(avg_ranks: Mapping[str, float], cd: float) -> list[list[str]]:
    """Maximal groups of methods whose average ranks span at most ``cd``.

    This is the Nemenyi-style grouping drawn as thick bars in a critical-difference
    diagram: all methods of a group are pairwise not significantly different, because
    the largest rank difference inside it is at most the critical difference. Only
    groups of two or more methods are returned (a lone method needs no bar), and a group
    contained in another one is dropped.

    Parameters
    ----------
    avg_ranks : mapping of str to float
        Average rank of each method (lower is better).
    cd : float
        Critical difference, ``>= 0``.

    Returns
    -------
    cliques : list of list of str
        The groups ordered by their lowest rank; the methods inside each group are
        ordered by rank, ties in input order. A span equal to ``cd`` (up to 1e-12
        for floating-point noise) still counts as not significant.

    Raises
    ------
    FigureInputError
        (a ``ValueError``) if ``avg_ranks`` is empty or holds a non-finite rank, or if
        ``cd`` is negative or not finite.

    Examples
    --------
    >>> compute_cliques({"A": 1.0, "B": 1.5, "C": 2.4, "D": 3.8}, cd=1.0)
    [['A', 'B'], ['B', 'C']]
    """
    ranks = check_ranks(avg_ranks)
    cd = check_cd(cd)
    ordered = sorted_by_rank(ranks)
    tol = 1e-12 * max(1.0, cd)
    cliques: list[list[str]] = []
    last_end = -1
    n = len(ordered)
    for start in range(n):
        end = start
        while end + 1 < n and ordered[end + 1][1] - ordered[start][1] <= cd + tol:
            end += 1
        # A group starting later is contained in the previous one unless it reaches further.
        if end > last_end and end > start:
            cliques.append([name for name, _ in ordered[start : end + 1]])
        last_end = max(last_end, end)
    return cliques


def classify_against_control(
    avg_ranks: Mapping[str, float], control: str, cd: float
) -> dict[str, str]:
    """Label each method relative to the control, Bonferroni–Dunn style.

    Parameters
    ----------
    avg_ranks : mapping of str to float
        Average rank of each method (lower is better).
    control : str
        The control method, one of the keys of ``avg_ranks``.
    cd : float
        Critical difference, ``>= 0``.

    Returns
    -------
    categories : dict of str to str
        In input order, one of ``"control"``; ``"worse"`` when the rank is strictly
        greater than ``rank(control) + cd`` (beyond the grey band of the papers'
        figures); ``"better"`` when it is strictly less than ``rank(control) - cd``
        (possible only when the control is not the best method); otherwise
        ``"not_significant"``. A difference equal to ``cd`` up to floating-point
        rounding (1e-12) is not significant.

    Raises
    ------
    FigureInputError
        (a ``ValueError``) on empty or non-finite ranks, a negative ``cd`` or a
        ``control`` that is not ranked.
    """
    ranks = check_ranks(avg_ranks)
    cd = check_cd(cd)
    control = check_control(control, ranks)
    c = ranks[control]
    tol = 1e-12 * max(1.0, cd)  # a difference equal to cd up to rounding is not significant
    out: dict[str, str] = {}
    for name, r in ranks.items():
        if name == control:
            out[name] = "control"
        elif r - c > cd + tol:
            out[name] = "worse"
        elif c - r > cd + tol:
            out[name] = "better"
        else:
            out[name] = "not_significant"
    return out


def _pvalue(pvalues, a: str, b: str) -> float:
    """The p-value of the pair (a, b) from a k x k table (``pvalues[a][b]``)."""
    try:
        value = float(pvalues[a][b])
    except (KeyError, IndexError, TypeError, ValueError):
        raise FigureInputError(
            f"the p-value table has no number for the pair ({a!r}, {b!r}); give a k x k "
            "table (a DataFrame or a dict of dicts) over the ranked methods"
        ) from None
    if not 0.0 <= value <= 1.0:
        raise FigureInputError(f"the p-value of ({a!r}, {b!r}) is {value}, not in [0, 1]")
    return value


def cliques_from_pvalues(avg_ranks: Mapping[str, float], pvalues, alpha: float) -> list[list[str]]:
    """Groups of methods that an all-pairs procedure does not tell apart, for the CD diagram.

    As scmamp's ranking plots draw them: the methods are sorted by rank and a group is a
    maximal run of consecutive methods every pair of which has an (adjusted) p-value
    greater than ``alpha``; groups of one method and groups inside another are dropped.

    Parameters
    ----------
    avg_ranks : mapping of str to float
        Average rank (or score) of each method, lower is better.
    pvalues : DataFrame or mapping of mappings
        Symmetric k x k table of the procedure's p-values, ``pvalues[a][b]``.
    alpha : float
        Significance level in (0, 1).

    Examples
    --------
    >>> p = {"A": {"B": 0.3, "C": 0.01}, "B": {"A": 0.3, "C": 0.2}, "C": {"A": 0.01, "B": 0.2}}
    >>> cliques_from_pvalues({"A": 1.0, "B": 2.0, "C": 3.0}, p, 0.05)
    [['A', 'B'], ['B', 'C']]
    """
    ranks = check_ranks(avg_ranks)
    alpha = check_alpha(alpha)
    names = [n for n, _ in sorted_by_rank(ranks)]
    cliques: list[list[str]] = []
    last_end = -1
    for start in range(len(names)):
        end = start
        while end + 1 < len(names) and all(
            _pvalue(pvalues, names[i], names[end + 1]) > alpha for i in range(start, end + 1)
        ):
            end += 1
        if end > last_end and end > start:
            cliques.append(names[start : end + 1])
        last_end = max(last_end, end)
    return cliques


def classify_by_pvalues(
    avg_ranks: Mapping[str, float], control: str, pvalues, alpha: float
) -> dict[str, str]:
    """Label each method against the control from an all-pairs procedure's p-values.

    ``"worse"`` / ``"better"`` when the p-value of (control, method) is <= ``alpha`` and
    the method's rank is higher / lower than the control's, else ``"not_significant"``;
    the control is ``"control"`` (the categories of :func:`classify_against_control`).
    """
    ranks = check_ranks(avg_ranks)
    control = check_control(control, ranks)
    alpha = check_alpha(alpha)
    out: dict[str, str] = {}
    for name, r in ranks.items():
        if name == control:
            out[name] = "control"
        elif _pvalue(pvalues, control, name) > alpha or r == ranks[control]:
            out[name] = "not_significant"
        else:
            out[name] = "worse" if r > ranks[control] else "better"
    return out
