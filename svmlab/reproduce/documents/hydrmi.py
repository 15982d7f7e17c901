"""The HyDR-MI paper's tables beside a run (Zafra, Pechenizkiy & Ventura, Sec. 5).

Its tables are not one dataset x method grid, so the document builds the report sections
itself, and sums each table up for an index of the reproductions:

* :func:`~svmlab.reproduce.documents.hydrmi_relieff.relieff_sections` (experiment
  ``hydrmi_relieff``): Tables 2-6, in :mod:`~svmlab.reproduce.documents.hydrmi_relieff`;
* :func:`wrapper_sections` (experiments ``hydrmi_bench`` / ``hydrmi_quick``): Tables 7-11
  (accuracy and subset size of HyDR-MI, ReliefF-MI and all features per classifier) and
  Tables 12-13 (the Wilcoxon rank-sum test over the classifiers, HyDR-MI against each baseline),
  and the genetic search's own numbers (best fitness, evaluations, cache hit rate);
  :func:`wrapper_summaries` sums up Tables 7-11 and 13.

What the sections share (names, published tables, parsed rows) is in
:mod:`~svmlab.reproduce.documents.hydrmi_common`.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from svmlab.reproduce.document import Paper, Protocol, Reproduction, Study
from svmlab.reproduce.documents.hydrmi_common import (
    CLASSIFIERS,
    CONDITIONS,
    DATASETS,
    cell,
    finite_mean,
    fold_spread,
    parse_rows,
    pooled,
    published,
    summary_entry,
    summary_rows,
)
from svmlab.reproduce.documents.hydrmi_relieff import (
    distance_friedman,
    relieff_sections,
    relieff_summaries,
)
from svmlab.reproduce.engine import rank_correlation
from svmlab.reproduce.published_tests import DIFFERS, VERDICTS_ROW
from svmlab.stats.sections import Section
from svmlab.stats.wilcoxon import rank_sum, signed_rank

__all__ = [
    "CLASSIFIERS",
    "CONDITIONS",
    "DATASETS",
    "DOCUMENT",
    "distance_friedman",
    "relieff_sections",
    "relieff_summaries",
    "wrapper_sections",
    "wrapper_summaries",
]

#: Tables 7-11: the data set of each.
_WRAPPER_TABLES = {"Elephant": 7, "Tiger": 8, "Fox": 9, "Musk1": 10, "Musk2": 11}

# --- Tables 7-13 -----------------------------------------------------------------------------


def _wrapper_measured(ok: pd.DataFrame) -> pd.DataFrame:
    """(paper_dataset, algorithm, condition) -> pooled accuracy and mean subset size."""
    rows = []
    for (ds, alg, cond), g in ok.groupby(["paper_dataset", "algorithm", "condition"]):
        rows.append(
            {
                "dataset": ds,
                "algorithm": alg,
                "condition": cond,
                "accuracy": pooled(g),
                "n_features": g["n_features"].mean(),
            }
        )
    return pd.DataFrame(rows)


def wrapper_sections(df: pd.DataFrame) -> list[Section]:
    """Tables 7-13 of the paper beside the run (see the module docstring)."""
    ok = parse_rows(df)
    if ok.empty:
        return []
    measured = _wrapper_measured(ok).set_index(["dataset", "algorithm", "condition"])
    paper = published("hydrmi_t7_t11_accuracy.csv").set_index(["dataset", "algorithm", "condition"])
    summaries = {s["number"]: s for s in wrapper_summaries(df)}
    sections = []
    deltas = []
    for ds in DATASETS:
        if ds not in measured.index.get_level_values(0):
            continue
        table = {}
        for alg in CLASSIFIERS:
            cells = {}
            for cond in CONDITIONS:
                p = paper.loc[(ds, alg, cond)]
                key = (ds, alg, cond)
                got = measured.loc[key] if key in measured.index else None
                acc = np.nan if got is None else got["accuracy"]
                nf = np.nan if got is None else got["n_features"]
                cells[f"{cond} acc"] = cell(acc, p["accuracy"])
                cells[f"{cond} #feat"] = (
                    f"— ({p['n_features']:.0f})"
                    if np.isnan(nf)
                    else f"{nf:.0f} ({p['n_features']:.0f})"
                )
                if not np.isnan(acc):
                    deltas.append((ds, cond, acc - p["accuracy"]))
            if any(not c.startswith("—") for c in cells.values()):
                table[alg] = cells
        frame = pd.DataFrame.from_dict(table, orient="index")
        number = _WRAPPER_TABLES[ds]
        entry = summaries.get(f"Table {number}")
        if entry is not None:
            closing = summary_rows(entry, lambda c: f"{c} acc")
            frame = pd.concat([frame, closing]).fillna("")
        frame.index.name = "classifier"
        sections.append(
            Section(
                f"HyDR-MI paper, Table {number} ({ds}): accuracy and #features, this run (paper)",
                frame,
                None,
                "accuracy pooled over folds (and HyDR-MI's runs); #feat = mean subset size",
                key=("paper", f"Table {number}: {ds}, accuracy per classifier"),
            )
        )
    if deltas:
        d = pd.DataFrame(deltas, columns=["dataset", "condition", "delta"])
        summary = d.pivot_table(
            index="dataset",
            columns="condition",
            values="delta",
            aggfunc=lambda v: np.mean(np.abs(v)),
        ).round(3)
        sections.append(
            Section(
                "HyDR-MI paper, Tables 7-11: mean |this run - paper| accuracy per data set",
                summary,
                None,
                "over the classifiers this run evaluated",
            )
        )
    sections.append(_rank_sum_section(measured))
    sections.append(_search_section(ok))
    return [s for s in sections if s is not None]


def _rank_sum_section(measured: pd.DataFrame) -> Section | None:
    """Table 13: HyDR-MI against each baseline over the classifiers, per data set."""
    paper = published("hydrmi_t13_rank_sum.csv").set_index(["dataset", "comparison"])
    acc = measured["accuracy"].unstack("condition")
    rows, differ = {}, 0
    for ds in DATASETS:
        if ds not in acc.index.get_level_values(0):
            continue
        sub = acc.loc[ds]
        for other in ("ReliefF-MI", "Full Features"):
            if "HyDR-MI" not in sub or other not in sub:
                continue
            pair = sub[["HyDR-MI", other]].dropna()
            if len(pair) < 2:
                continue
            rs = rank_sum(pair["HyDR-MI"], pair[other])
            sr = signed_rank(pair["HyDR-MI"], pair[other])
            p = paper.loc[(ds, other)]
            rows[f"{ds}: HyDR-MI vs {other}"] = {
                "classifiers": str(len(pair)),
                "mean ranks HyDR-MI / other": (
                    f"{rs.mean_rank_a:.2f} / {rs.mean_rank_b:.2f} "
                    f"({p['mean_rank_hydrmi']:.2f} / {p['mean_rank_other']:.2f})"
                ),
                "W": f"{rs.W:.2f} ({p['W']:.2f})",
                "Z": f"{rs.z:.3f} ({p['z']:.3f})",
                "p (2-tailed)": f"{rs.p:.3f} ({p['p']:.3f})",
                "signed-rank p (paired)": f"{sr.p:.3g}",
                DIFFERS: "rank-sum at 5 %" if (rs.p <= 0.05) != (p["p"] <= 0.05) else "",
            }
            differ += bool(rows[f"{ds}: HyDR-MI vs {other}"][DIFFERS])
    if not rows:
        return None
    compared = len(rows)
    rows[VERDICTS_ROW] = {DIFFERS: f"{differ} of {compared}"}
    frame = pd.DataFrame.from_dict(rows, orient="index").astype(object).fillna("")
    frame.index.name = "comparison"
    return Section(
        "HyDR-MI paper, Table 13: Wilcoxon rank-sum over the classifiers, this run (paper)",
        frame,
        None,
        "the paper's unpaired rank-sum (normal approximation, tie-corrected, no continuity "
        "correction); the paired signed-rank test is shown beside it. With fewer than 17 "
        "classifiers W is not comparable with the paper's.",
        key=("tests", "Table 13: Wilcoxon rank-sum, HyDR-MI against each baseline"),
    )


def _search_section(ok: pd.DataFrame) -> Section | None:
    """The genetic search per (data set, classifier): fitness, evaluations, cache hits."""
    ga = ok[ok["condition"] == "HyDR-MI"]
    if ga.empty:
        return None
    rows = {}
    for (ds, alg), g in ga.groupby(["paper_dataset", "algorithm"]):
        info = list(g["_info"])
        evals = np.array([i.get("ga_evaluations", np.nan) for i in info], float)
        hits = np.array([i.get("ga_cache_hits", np.nan) for i in info], float)
        rows[f"{ds}: {alg}"] = {
            "best fitness (sens x spec)": finite_mean(
                [i.get("ga_best_fitness", np.nan) for i in info]
            ),
            "evaluations / fit": finite_mean(evals),
            "cache hit rate": np.nansum(hits) / max(np.nansum(hits + evals), 1.0),
            "constant features kept": finite_mean(
                [i.get("n_constant_in_subset", np.nan) for i in info]
            ),
            "GA seconds / fit": finite_mean([i.get("ga_seconds", np.nan) for i in info]),
        }
    frame = pd.DataFrame.from_dict(rows, orient="index").round(3)
    frame.index.name = "data set: classifier"
    return Section(
        "HyDR-MI's genetic search (this run)",
        frame,
        None,
        "fitness = sensitivity x specificity by inner CV on the outer training bags",
    )


def wrapper_summaries(df: pd.DataFrame) -> list[dict]:
    """Tables 7-11 (one per data set; the rows are the classifiers, the columns the three
    conditions), Table 12 (the mean ranks) and Table 13 (the rank-sum test's verdicts at 5 %),
    summarised."""
    ok = parse_rows(df)
    if ok.empty:
        return []
    measured = _wrapper_measured(ok).set_index(["dataset", "algorithm", "condition"])
    paper = published("hydrmi_t7_t11_accuracy.csv").set_index(["dataset", "algorithm", "condition"])
    spread = fold_spread(ok, ["paper_dataset", "algorithm", "condition"])
    out = []
    for ds, number in _WRAPPER_TABLES.items():
        keys = [k for k in measured.index if k[0] == ds and k in paper.index]
        if not keys:
            continue
        pairs = {}
        for key in keys:
            pairs.setdefault(key[2], []).append(
                (measured.at[key, "accuracy"], paper.at[key, "accuracy"])
            )
        labels = [a for a in CLASSIFIERS if any(k[1] == a for k in keys)]
        out.append(
            summary_entry(
                f"Table {number}",
                f"{ds}: accuracy of HyDR-MI, ReliefF-MI and all features per classifier",
                "hydrmi_t7_t11_accuracy.csv",
                labels,
                pairs,
                [spread.get(k, np.nan) for k in keys],
                len(CLASSIFIERS),
            )
        )
    return out + _rank_sum_summaries(measured)


def _rank_sum_summaries(measured: pd.DataFrame) -> list[dict]:
    """Table 12 (the mean ranks of HyDR-MI and of each baseline) and Table 13 (|z| against
    the printed one, and the verdicts at 5 % that differ), summarised."""
    paper = published("hydrmi_t13_rank_sum.csv").set_index(["dataset", "comparison"])
    acc = measured["accuracy"].unstack("condition")
    z, ranks, differ, where, n_classifiers = [], {}, 0, [], []
    for (ds, other), p in paper.iterrows():
        if ds not in acc.index.get_level_values(0) or "HyDR-MI" not in acc or other not in acc:
            continue
        pair = acc.loc[ds][["HyDR-MI", other]].dropna()
        if len(pair) < 2:
            continue
        rs = rank_sum(pair["HyDR-MI"], pair[other])
        n_classifiers.append(len(pair))
        z.append((ds, rs.z, p["z"]))
        ranks.setdefault("HyDR-MI", []).append((rs.mean_rank_a, p["mean_rank_hydrmi"]))
        ranks.setdefault("baseline", []).append((rs.mean_rank_b, p["mean_rank_other"]))
        if (rs.p <= 0.05) != (p["p"] <= 0.05):
            differ += 1
            where.append(f"{ds} vs {other}")
    table12 = {
        "number": "Table 12",
        "title": "mean ranks of HyDR-MI and of each baseline over the classifiers",
        "metric": "mean rank",
    }
    table13 = {
        "number": "Table 13",
        "title": "Wilcoxon rank-sum, HyDR-MI against each baseline over the classifiers",
        "metric": "z",
    }
    common = {"file": "hydrmi_t13_rank_sum.csv", "n_published": len(paper)}
    if not z:  # listed all the same, so that the index names both tables
        common |= {
            "datasets": [],
            "n_compared": 0,
            "note": "no dataset has HyDR-MI and a baseline for two or more classifiers yet "
            "(the test runs over the classifiers)",
        }
        return [common | table12, common | table13]
    # the test runs over the classifiers: its verdicts compare only when all 17 are in
    whole = min(n_classifiers) == len(CLASSIFIERS)
    note = "mean ranks and z grow with the number of classifiers: comparable with the paper's"
    note += " only when the run has all 17"
    if not whole:
        counts = "-".join(map(str, sorted({min(n_classifiers), max(n_classifiers)})))
        note += f" (this run: {counts}; {differ} of {len(z)} verdicts at 5 % differ, not counted)"
    common |= {"datasets": sorted({ds for ds, _, _ in z}), "n_compared": len(z), "note": note}
    table12 |= {
        "mean_abs_delta": {k: float(np.mean([abs(a - b) for a, b in v])) for k, v in ranks.items()},
        "rho": {k: rank_correlation(v) for k, v in ranks.items()},
    }
    table13 |= {
        "mean_abs_delta": {"z": float(np.mean([abs(a - b) for _, a, b in z]))},
        "rho": {"z": rank_correlation([(a, b) for _, a, b in z])},
        "verdicts_differ": differ if whole else None,
        "verdicts_compared": len(z) if whole else None,
        "verdicts_where": ", ".join(where) if whole else "",
    }
    return [common | table12, common | table13]


DOCUMENT = Paper(
    "hydrmi",
    "HyDR-MI: hybrid dimensionality reduction for multiple-instance learning",
    (
        Study("Tables 7-13, wrapper", "hydrmi_bench", "hydrmi_quick"),
        Study("Tables 2-6, ReliefF filter", "hydrmi_relieff", "hydrmi_relieff_quick"),
        Study(
            "Tables 7 and 10 at the paper's genetic budget, 4 classifiers on musk1 and elephant",
            "hydrmi_full",
            "hydrmi_full_quick",
        ),
    ),
    (
        Reproduction(
            name="hydrmi_tables_2_to_6",
            source="Zafra, Pechenizkiy & Ventura (HyDR-MI), Tables 2-6 (ReliefF-MI with four bag "
            "distances, top 10-60 % of the features)",
            tables=(),
            protocol=Protocol("10-fold CV", folds=10),
            extra_sections=relieff_sections,
            summaries=relieff_summaries,
            deviations=("hydrmi_adapted_diff",),
        ),
        Reproduction(
            name="hydrmi_tables_7_to_13",
            source="Zafra, Pechenizkiy & Ventura (HyDR-MI), Tables 7-13 (HyDR-MI vs ReliefF-MI vs "
            "all features)",
            tables=(),
            protocol=Protocol("10-fold CV, HyDR-MI averaged over 5 runs", folds=10),
            extra_sections=wrapper_sections,
            summaries=wrapper_summaries,
        ),
    ),
)
