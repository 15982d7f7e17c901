"""Per-dataset ranks of methods, the first step of every Friedman-type comparison."""

from __future__ import annotations

import pandas as pd

from svmlab.stats.distributions import merge_ties, rankdata

DIRECTIONS = ("max", "min")


def rank_table(table: pd.DataFrame, direction: str) -> pd.DataFrame:
    """Rank the methods (columns) on each dataset (row): rank 1 is the best.

    Ties get the average of the ranks they span (e.g. three methods tied for ranks
    9-11 all get 10), as in every table of the reproduced papers; values of a dataset
    that agree to ``TIE_RTOL`` tie (:func:`~svmlab.stats.distributions.merge_ties`).

    Parameters
    ----------
    table : DataFrame of shape (N datasets, k methods)
        Complete numeric table (no missing cells).
    direction : {"max", "min"}
        Whether higher ("max") or lower ("min") values are better.

    Returns
    -------
    DataFrame of the same shape holding ranks in [1, k].
    """
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be 'max' or 'min', got {direction!r}")
    values = merge_ties(table.to_numpy(dtype=float), axis=1)
    signed = -values if direction == "max" else values
    return pd.DataFrame(rankdata(signed, axis=1), index=table.index, columns=table.columns)


def average_ranks(ranks: pd.DataFrame) -> pd.Series:
    """Mean rank of each method over the datasets (the papers' "Ranks" row)."""
    return ranks.mean(axis=0)


def meta_rank(average_ranks_by_metric: pd.DataFrame) -> pd.DataFrame:
    """Rank aggregation across several metrics (the MIL study's Table 4.14).

    Parameters
    ----------
    average_ranks_by_metric : DataFrame of shape (n metrics, k methods)
        The average-rank row of each metric's comparison.

    Returns
    -------
    DataFrame with rows ``average`` (the mean of the metrics' average ranks) and
    ``rank`` (the meta-rank: each metric's average ranks are ranked again, 1 = best,
    ties averaged, and these positions are averaged over the metrics).
    """
    positions = rank_table(average_ranks_by_metric, "min")
    return pd.DataFrame(
        {"average": average_ranks_by_metric.mean(axis=0), "rank": positions.mean(axis=0)}
    ).T
