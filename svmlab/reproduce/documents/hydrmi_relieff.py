"""The HyDR-MI paper's Tables 2-6 beside a run of ``hydrmi_relieff`` (Zafra, Pechenizkiy &
Ventura, Sec. 5): Tables 2-5 (accuracy on the top 10-60 % of the features under each bag
distance), summarised per distance and subset size, and Table 6 (Friedman's test of the four
distances over the (classifier, data set) blocks, without tie correction, with the
Bonferroni-Dunn critical difference the paper draws at 10 %); :func:`relieff_summaries` sums
each table up for an index of the reproductions.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from svmlab.reproduce.documents.hydrmi_common import (
    DISTANCES,
    Q_BD,
    cell,
    fold_spread,
    parse_rows,
    pooled,
    published,
    summary_entry,
    summary_rows,
)
from svmlab.reproduce.engine import DATASETS_ROW, rank_correlation
from svmlab.reproduce.published_tests import DIFFERS, VERDICTS_ROW
from svmlab.stats.omnibus import friedman
from svmlab.stats.ranks import rank_table
from svmlab.stats.sections import Section

__all__ = ["distance_friedman", "relieff_cells", "relieff_sections", "relieff_summaries"]

#: Tables 2-5: the bag distance of each.
_DISTANCE_TABLES = {"min": 2, "max": 3, "avg": 4, "adapted": 5}


def relieff_cells(df: pd.DataFrame) -> pd.DataFrame:
    """The cells of Tables 2-5 that a run's rows give.

    Parameters
    ----------
    df : DataFrame
        A run's result rows (:func:`svmlab.results.load_results`); only the ok rows of the
        ReliefF-MI condition count.

    Returns
    -------
    DataFrame
        One row per cell: distance, percent (of the features kept), dataset (the paper's
        name), algorithm (the paper's name) and accuracy, pooled over the cell's folds.
    """
    return _relieff_measured(parse_rows(df))


def _relieff_measured(ok: pd.DataFrame) -> pd.DataFrame:
    """(distance, percent, dataset, algorithm) -> pooled accuracy of the filter-only rows of
    the parsed rows ``ok`` (no rows: an empty table with those columns)."""
    rows = []
    if not ok.empty:
        rel = _relieff_rows(ok)
        rows = [
            {"distance": d, "percent": p, "dataset": ds, "algorithm": a, "accuracy": pooled(g)}
            for (d, p, ds, a), g in rel.groupby(
                ["distance", "percent", "paper_dataset", "algorithm"]
            )
        ]
    return pd.DataFrame(rows, columns=[*_CELL_KEYS, "accuracy"])


def _relieff_rows(ok: pd.DataFrame) -> pd.DataFrame:
    """The filter-only rows with their ``distance`` and ``percent`` (of the features kept)."""
    rel = ok[ok["condition"] == "ReliefF-MI"].copy()
    params = rel["chosen_params"].map(lambda s: json.loads(s) if isinstance(s, str) and s else {})
    rel["distance"] = params.map(lambda p: p.get("distance"))
    rel["percent"] = params.map(lambda p: p.get("filter_fraction")).map(
        lambda f: int(round(100 * f)) if f is not None else None
    )
    return rel[rel["distance"].notna() & rel["percent"].notna()]


def distance_friedman(table: pd.DataFrame) -> dict:
    """Friedman's test (no tie correction) of the four distances over the (classifier, data set)
    blocks of one subset size: ``table`` has columns distance, dataset, algorithm, accuracy.
    Returns chi2, the mean ranks, N and the Bonferroni-Dunn critical difference."""
    wide = table.pivot_table(
        index=["algorithm", "dataset"], columns="distance", values="accuracy"
    ).dropna()
    wide = wide[[d for d in DISTANCES if d in wide.columns]]
    if wide.shape[1] < 2 or len(wide) < 2:
        return {}
    ranks = rank_table(wide, "max")
    test = friedman(ranks, tie_correction=False)
    k, n = wide.shape[1], len(wide)
    return {
        "chi2": test.chi2,
        "p": test.chi2_p,
        "N": n,
        "ranks": ranks.mean(axis=0),
        "cd": Q_BD * np.sqrt(k * (k + 1) / (6.0 * n)),
    }


#: What identifies one cell of Tables 2-5.
_CELL_KEYS = ["distance", "percent", "dataset", "algorithm"]


def _beside_paper(df: pd.DataFrame, how: str):
    """``(ok, paper, both)``: the run's parsed rows, the published Tables 2-5 and the run's
    ReliefF-MI cells merged with them on (distance, percent, dataset, algorithm) (``how`` as
    in :meth:`pandas.DataFrame.merge`, the paper's columns suffixed ``_paper``); None when the
    run has no ReliefF-MI cell."""
    ok = parse_rows(df)
    measured = _relieff_measured(ok)
    if measured.empty:
        return None
    paper = published("hydrmi_t2_t5_relieff_accuracy.csv")
    return ok, paper, measured.merge(paper, on=_CELL_KEYS, how=how, suffixes=("", "_paper"))


def relieff_sections(df: pd.DataFrame) -> list[Section]:
    """Tables 2-6 of the paper beside the run (see the module docstring)."""
    # the paper's cells restricted to what the run evaluated, so that means compare like for like
    matched = _beside_paper(df, how="left")
    if matched is None:
        return []
    both = matched[2]
    summary = {}
    for (d, p), g in both.groupby(["distance", "percent"]):
        summary[f"{d} {p}%"] = {
            ds: cell(h["accuracy"].mean(), h["accuracy_paper"].mean())
            for ds, h in g.groupby("dataset")
        }
    frame = pd.DataFrame.from_dict(summary, orient="index")
    cells = both.groupby(["dataset", "distance", "percent"])[["accuracy", "accuracy_paper"]].mean()
    closing = summary_rows(
        summary_entry(
            "Tables 2-5",
            "",
            "",
            [],
            {
                ds: list(zip(g["accuracy"], g["accuracy_paper"]))
                for ds, g in cells.dropna().groupby(level="dataset")
            },
            [],
            0,
        ),
        lambda c: c,
    ).drop(index=DATASETS_ROW)
    frame = pd.concat([frame, closing]).fillna("")
    frame.index.name = "distance, subset"
    sections = [
        Section(
            "HyDR-MI paper, Tables 2-5: ReliefF-MI accuracy, mean over the classifiers, "
            "this run (paper)",
            frame,
            None,
            f"{both['algorithm'].nunique()} classifier(s); mean |this run - paper| per cell "
            f"{np.nanmean(np.abs(both['accuracy'] - both['accuracy_paper'])):.3f}; the paper "
            "stops at 60 %; mean abs. Δ and ρ per data set over its (distance, subset) cells",
            key=("paper", "Tables 2-5: ReliefF-MI accuracy, mean over the classifiers"),
        )
    ]
    table6 = _friedman_section(both)
    return sections + ([table6] if table6 is not None else [])


def _friedman_section(both: pd.DataFrame) -> Section | None:
    """Table 6 beside the run: Friedman's test of the four distances per subset size, on the
    run's values and on the paper's cells of the same blocks, with the verdict at 5 %."""
    published_t6 = published("hydrmi_t6_friedman.csv").set_index("percent")
    rows = {}
    for p, g in both.groupby("percent"):
        ours = distance_friedman(g)
        theirs = distance_friedman(
            g.drop(columns="accuracy").rename(columns={"accuracy_paper": "accuracy"})
        )
        if not ours:
            continue
        row = {
            "blocks N": str(ours["N"]),
            "chi2 this run": f"{ours['chi2']:.3f}",
            "chi2 paper cells": f"{theirs['chi2']:.3f}" if theirs else "—",
            "chi2 printed": (
                f"{published_t6.loc[p, 'chi2']:.3f}" if p in published_t6.index else "—"
            ),
            "p this run": f"{ours['p']:.3g}",
        }
        row |= {f"rank {d}": f"{r:.3f}" for d, r in ours["ranks"].items()}
        row["BD threshold"] = f"{ours['ranks'].min() + ours['cd']:.3f}"
        if p in published_t6.index:
            printed = published_t6.loc[p, "conclusion"] == "reject"
            differs = (ours["chi2"] > published_t6.loc[p, "critical"]) != printed
            row[DIFFERS] = "Friedman at 5 %" if differs else ""
        rows[f"{p}%"] = row
    if not rows:
        return None
    verdicts = [r[DIFFERS] for r in rows.values() if DIFFERS in r]
    if verdicts:
        rows[VERDICTS_ROW] = {DIFFERS: f"{sum(map(bool, verdicts))} of {len(verdicts)}"}
    frame = pd.DataFrame.from_dict(rows, orient="index").astype(object).fillna("")
    frame.index.name = "subset"
    return Section(
        "HyDR-MI paper, Table 6: Friedman test of the four distances (no tie correction)",
        frame,
        None,
        "blocks = (classifier, data set) pairs of this run; 'paper cells' recomputes the "
        "statistic from the published Tables 2-5 on the same blocks; critical chi2(3) at "
        "0.05 = 7.815; BD threshold = best mean rank + Bonferroni-Dunn CD (q = 2.394)",
        key=("tests", "Table 6: Friedman test of the four distances"),
    )


def relieff_summaries(df: pd.DataFrame) -> list[dict]:
    """Tables 2-5 (one per bag distance: the mean over the classifiers per data set and subset
    size) and Table 6 (Friedman's verdict at 5 % per subset size), summarised."""
    matched = _beside_paper(df, how="inner")
    if matched is None:
        return []
    ok, paper, both = matched
    spread = fold_spread(_relieff_rows(ok), ["distance", "percent", "paper_dataset", "algorithm"])
    out = []
    for distance, number in _DISTANCE_TABLES.items():
        block = both[both["distance"] == distance]
        if block.empty:
            continue
        cells = block.groupby(["dataset", "percent"])[["accuracy", "accuracy_paper"]].mean()
        pairs = {f"{p}%": [] for p in sorted(block["percent"].unique())}
        for (_, p), row in cells.iterrows():
            pairs[f"{p}%"].append((row["accuracy"], row["accuracy_paper"]))
        printed = paper[paper["distance"] == distance]
        out.append(
            summary_entry(
                f"Table {number}",
                f"ReliefF-MI ({distance} distance): accuracy on the top 10-60 % of the features",
                "hydrmi_t2_t5_relieff_accuracy.csv",
                sorted(block["dataset"].unique()),
                pairs,
                [spread.get(tuple(k), np.nan) for k in block[_CELL_KEYS].to_numpy()],
                int(printed["dataset"].nunique()),
            )
        )
    table6 = _friedman_verdicts(both)
    return out + ([table6] if table6 else [])


def _friedman_verdicts(both: pd.DataFrame) -> dict | None:
    """Table 6's summary: chi2 against the printed one, and the verdicts at 5 % that differ."""
    printed = published("hydrmi_t6_friedman.csv").set_index("percent")
    pairs, labels, differ, where = [], [], 0, []
    for p, g in both.groupby("percent"):
        ours = distance_friedman(g)
        if not ours or p not in printed.index:
            continue
        theirs = printed.loc[p]
        pairs.append((ours["chi2"], theirs["chi2"]))
        labels.append(f"{p}%")
        if (ours["chi2"] > theirs["critical"]) != (theirs["conclusion"] == "reject"):
            differ += 1
            where.append(f"{p}%")
    if not pairs:
        return None
    return {
        "number": "Table 6",
        "title": "Friedman test of the four bag distances per subset size",
        "file": "hydrmi_t6_friedman.csv",
        "metric": "chi2",
        "n_published": len(printed),
        "datasets": labels,
        "mean_abs_delta": {"chi2": float(np.mean([abs(a - b) for a, b in pairs]))},
        "rho": {"chi2": rank_correlation(pairs)},
        "verdicts_differ": differ,
        "verdicts_compared": len(pairs),
        "verdicts_where": ", ".join(where),
    }
