"""The HyDR-MI paper's tables beside a run (Zafra, Pechenizkiy & Ventura, Sec. 5).

Its tables are not one dataset x method grid, so this module builds the report sections itself:

* :func:`relieff_sections` (experiment ``hydrmi_relieff``): Tables 2-5 (accuracy on the top
  10-60 % of the features under each bag distance), summarised per distance and subset size,
  and Table 6 (Friedman's test of the four distances over the (classifier, data set) blocks,
  without tie correction, with the Bonferroni-Dunn critical difference the paper draws at 10 %);
* :func:`wrapper_sections` (experiments ``hydrmi_bench`` / ``hydrmi_quick``): Tables 7-11
  (accuracy and subset size of HyDR-MI, ReliefF-MI and all features per classifier) and
  Tables 12-13 (the Wilcoxon rank-sum test over the classifiers, HyDR-MI against each baseline),
  and the genetic search's own numbers (best fitness, evaluations, cache hit rate).

A run's solvers are named ``<condition>_<classifier>`` (``hydrmi_``, ``relieff_``, ``full_`` and
the keys of ``conf/hydrmi_roster``); accuracy is pooled over folds and runs, as the paper's
correct / total.
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pandas as pd

from svmlab.reproduce.document import Paper, Protocol, Reproduction, Study
from svmlab.reproduce.engine import rank_correlation
from svmlab.stats.omnibus import friedman
from svmlab.stats.ranks import rank_table
from svmlab.stats.sections import Section
from svmlab.stats.wilcoxon import rank_sum, signed_rank

__all__ = [
    "CLASSIFIERS",
    "CONDITIONS",
    "DATASETS",
    "DOCUMENT",
    "relieff_sections",
    "wrapper_sections",
]

#: The paper's classifier names -> the keys of conf/hydrmi_roster (and of the solver names).
CLASSIFIERS = {
    "citationKNN": "citation_knn",
    "MDD": "mdd",
    "MIBoost (RepTree)": "miboost_reptree",
    "MIBoost (DecisionStump)": "miboost_stump",
    "MIDD": "midd",
    "MIEMDD": "miemdd",
    "MIRL": "milr",
    "MIOptimalBall": "mi_optimal_ball",
    "MISMO (RBF Kernel)": "mismo_rbf",
    "MISMO (Polynomial Kernel)": "mismo_poly",
    "MIWrapper (AdaBoost&PART)": "miwrapper_adaboost_part",
    "MIWrapper (Bagging&PART)": "miwrapper_bagging_part",
    "MIWrapper (PART)": "miwrapper_part",
    "MIWrapper (SMO)": "miwrapper_smo",
    "MIWrapper (Naive Bayes)": "miwrapper_nb",
    "MISimple (AdaBoost&PART)": "simplemi_adaboost_part",
    "MISimple (PART)": "simplemi_part",
}
#: The paper's columns -> the solver-name prefix of each condition.
CONDITIONS = {"HyDR-MI": "hydrmi", "ReliefF-MI": "relieff", "Full Features": "full"}
#: The paper's data sets -> the names a run may give them (experiment keys or registry names).
DATASETS = {
    "Musk1": ("musk1",),
    "Musk2": ("musk2", "musk2_csv"),
    "Elephant": ("elephant",),
    "Fox": ("fox",),
    "Tiger": ("tiger", "tiger_andrews"),
}
DISTANCES = ("min", "max", "avg", "adapted")
#: Bonferroni-Dunn's q at alpha = 0.05 for k = 4 (the paper's Fig. 4).
_Q_BD = 2.394


def _published(file: str) -> pd.DataFrame:
    with resources.files("svmlab.reproduce").joinpath("published", file).open() as fh:
        return pd.read_csv(fh)


def _paper_dataset(name: str) -> str | None:
    return next((p for p, names in DATASETS.items() if name in names), None)


def _parse(df: pd.DataFrame) -> pd.DataFrame:
    """The ok rows with ``paper_dataset``, ``condition``, ``algorithm``, ``n_features``."""
    ok = df[df["status"] == "ok"].copy()
    by_key = {v: k for k, v in CLASSIFIERS.items()}
    cond_of = {v: k for k, v in CONDITIONS.items()}

    def split(solver):
        prefix, _, key = str(solver).partition("_")
        return cond_of.get(prefix), by_key.get(key)

    parts = ok["solver"].map(split)
    ok["condition"] = parts.map(lambda p: p[0])
    ok["algorithm"] = parts.map(lambda p: p[1])
    ok["paper_dataset"] = ok["dataset"].map(_paper_dataset)
    info = ok["fit_info"].map(lambda s: json.loads(s) if isinstance(s, str) and s else {})
    ok["n_features"] = info.map(lambda i: i.get("n_features", np.nan)).astype(float)
    ok["_info"] = info
    return ok[ok["condition"].notna() & ok["algorithm"].notna() & ok["paper_dataset"].notna()]


def _pooled(rows: pd.DataFrame) -> float:
    """Correct / total over the rows (folds and runs)."""
    n = rows["n_test"].to_numpy(float)
    return float(np.sum(rows["accuracy"].to_numpy(float) * n) / np.sum(n))


def _mean(values) -> float:
    """Mean of the finite values (NaN when there are none, without a warning)."""
    a = np.asarray(values, dtype=float)
    a = a[np.isfinite(a)]
    return float(a.mean()) if len(a) else np.nan


def _cell(ours: float, paper: float, digits: int = 3) -> str:
    """ "ours (paper)", a dash for a missing side."""
    mine = "—" if np.isnan(ours) else f"{ours:.{digits}f}"
    theirs = "—" if np.isnan(paper) else f"{paper:.{digits}f}"
    return f"{mine} ({theirs})"


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
                "accuracy": _pooled(g),
                "n_features": g["n_features"].mean(),
            }
        )
    return pd.DataFrame(rows)


def wrapper_sections(df: pd.DataFrame) -> list[Section]:
    """Tables 7-13 of the paper beside the run (see the module docstring)."""
    ok = _parse(df)
    if ok.empty:
        return []
    measured = _wrapper_measured(ok).set_index(["dataset", "algorithm", "condition"])
    paper = _published("hydrmi_t7_t11_accuracy.csv").set_index(
        ["dataset", "algorithm", "condition"]
    )
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
                cells[f"{cond} acc"] = _cell(acc, p["accuracy"])
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
        frame.index.name = "classifier"
        number = {"Elephant": 7, "Tiger": 8, "Fox": 9, "Musk1": 10, "Musk2": 11}[ds]
        sections.append(
            Section(
                f"HyDR-MI paper, Table {number} ({ds}): accuracy and #features, this run (paper)",
                frame,
                None,
                "accuracy pooled over folds (and HyDR-MI's runs); #feat = mean subset size",
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
    paper = _published("hydrmi_t13_rank_sum.csv").set_index(["dataset", "comparison"])
    acc = measured["accuracy"].unstack("condition")
    rows = {}
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
                "classifiers": len(pair),
                "mean ranks HyDR-MI / other": (
                    f"{rs.mean_rank_a:.2f} / {rs.mean_rank_b:.2f} "
                    f"({p['mean_rank_hydrmi']:.2f} / {p['mean_rank_other']:.2f})"
                ),
                "W": f"{rs.W:.2f} ({p['W']:.2f})",
                "Z": f"{rs.z:.3f} ({p['z']:.3f})",
                "p (2-tailed)": f"{rs.p:.3f} ({p['p']:.3f})",
                "signed-rank p (paired)": f"{sr.p:.3g}",
            }
    if not rows:
        return None
    frame = pd.DataFrame.from_dict(rows, orient="index")
    frame.index.name = "comparison"
    return Section(
        "HyDR-MI paper, Table 13: Wilcoxon rank-sum over the classifiers, this run (paper)",
        frame,
        None,
        "the paper's unpaired rank-sum (normal approximation, tie-corrected, no continuity "
        "correction); the paired signed-rank test is shown beside it. With fewer than 17 "
        "classifiers W is not comparable with the paper's.",
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
            "best fitness (sens x spec)": _mean([i.get("ga_best_fitness", np.nan) for i in info]),
            "evaluations / fit": _mean(evals),
            "cache hit rate": np.nansum(hits) / max(np.nansum(hits + evals), 1.0),
            "constant features kept": _mean([i.get("n_constant_in_subset", np.nan) for i in info]),
            "GA seconds / fit": _mean([i.get("ga_seconds", np.nan) for i in info]),
        }
    frame = pd.DataFrame.from_dict(rows, orient="index").round(3)
    frame.index.name = "data set: classifier"
    return Section(
        "HyDR-MI's genetic search (this run)",
        frame,
        None,
        "fitness = sensitivity x specificity by inner CV on the outer training bags",
    )


# --- Tables 2-6 ------------------------------------------------------------------------------


def _relieff_measured(ok: pd.DataFrame) -> pd.DataFrame:
    """(distance, percent, dataset, algorithm) -> pooled accuracy of the filter-only rows."""
    rel = _relieff_rows(ok)
    rows = [
        {"distance": d, "percent": p, "dataset": ds, "algorithm": a, "accuracy": _pooled(g)}
        for (d, p, ds, a), g in rel.groupby(["distance", "percent", "paper_dataset", "algorithm"])
    ]
    return pd.DataFrame(rows)


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
        "cd": _Q_BD * np.sqrt(k * (k + 1) / (6.0 * n)),
    }


def relieff_sections(df: pd.DataFrame) -> list[Section]:
    """Tables 2-6 of the paper beside the run (see the module docstring)."""
    ok = _parse(df)
    measured = _relieff_measured(ok) if not ok.empty else pd.DataFrame()
    if measured.empty:
        return []
    paper = _published("hydrmi_t2_t5_relieff_accuracy.csv")
    # the paper's cells restricted to what the run evaluated, so that means compare like for like
    keys = ["distance", "percent", "dataset", "algorithm"]
    both = measured.merge(paper, on=keys, how="left", suffixes=("", "_paper"))
    summary = {}
    for (d, p), g in both.groupby(["distance", "percent"]):
        summary[f"{d} {p}%"] = {
            ds: _cell(h["accuracy"].mean(), h["accuracy_paper"].mean())
            for ds, h in g.groupby("dataset")
        }
    frame = pd.DataFrame.from_dict(summary, orient="index")
    frame.index.name = "distance, subset"
    sections = [
        Section(
            "HyDR-MI paper, Tables 2-5: ReliefF-MI accuracy, mean over the classifiers, "
            "this run (paper)",
            frame,
            None,
            f"{both['algorithm'].nunique()} classifier(s); mean |this run - paper| per cell "
            f"{np.nanmean(np.abs(both['accuracy'] - both['accuracy_paper'])):.3f}; the paper "
            "stops at 60 %",
        )
    ]
    published_t6 = _published("hydrmi_t6_friedman.csv").set_index("percent")
    rows = {}
    for p, g in both.groupby("percent"):
        ours = distance_friedman(g)
        theirs = distance_friedman(
            g.drop(columns="accuracy").rename(columns={"accuracy_paper": "accuracy"})
        )
        if not ours:
            continue
        row = {
            "blocks N": ours["N"],
            "chi2 this run": f"{ours['chi2']:.3f}",
            "chi2 paper cells": f"{theirs['chi2']:.3f}" if theirs else "—",
            "chi2 printed": (
                f"{published_t6.loc[p, 'chi2']:.3f}" if p in published_t6.index else "—"
            ),
            "p this run": f"{ours['p']:.3g}",
        }
        row |= {f"rank {d}": f"{r:.3f}" for d, r in ours["ranks"].items()}
        row["BD threshold"] = f"{ours['ranks'].min() + ours['cd']:.3f}"
        rows[f"{p}%"] = row
    if rows:
        frame = pd.DataFrame.from_dict(rows, orient="index")
        frame.index.name = "subset"
        sections.append(
            Section(
                "HyDR-MI paper, Table 6: Friedman test of the four distances (no tie correction)",
                frame,
                None,
                "blocks = (classifier, data set) pairs of this run; 'paper cells' recomputes the "
                "statistic from the published Tables 2-5 on the same blocks; critical chi2(3) at "
                "0.05 = 7.815; BD threshold = best mean rank + Bonferroni-Dunn CD (q = 2.394)",
            )
        )
    return sections


# --- the per-table summaries (svmlab.reproduce.engine.table_summaries) ----------------------

#: Tables 2-5: the bag distance of each.
_DISTANCE_TABLES = {"min": 2, "max": 3, "avg": 4, "adapted": 5}
#: Tables 7-11: the data set of each.
_WRAPPER_TABLES = {"Elephant": 7, "Tiger": 8, "Fox": 9, "Musk1": 10, "Musk2": 11}


def _fold_spread(ok: pd.DataFrame, keys: list[str]) -> pd.Series:
    """The standard deviation over the folds (and runs) of the accuracy, per ``keys``."""
    return ok.groupby(keys)["accuracy"].std(ddof=1)


def _summary(number, title, file, labels, pairs, spread, n_published) -> dict:
    """One summary entry from ``{column: [(ours, paper), ...]}`` over ``labels``."""
    return {
        "number": number,
        "title": title,
        "file": file,
        "metric": "accuracy",
        "n_published": n_published,
        "datasets": labels,
        "mean_abs_delta": {c: float(np.mean([abs(a - b) for a, b in p])) for c, p in pairs.items()},
        "rho": {c: rank_correlation(p) for c, p in pairs.items()},
        "spread_run": _mean(spread),
    }


def wrapper_summaries(df: pd.DataFrame) -> list[dict]:
    """Tables 7-11 (one per data set; the rows are the classifiers, the columns the three
    conditions) and Table 13 (the rank-sum test's verdicts at 5 %), summarised."""
    ok = _parse(df)
    if ok.empty:
        return []
    measured = _wrapper_measured(ok).set_index(["dataset", "algorithm", "condition"])
    paper = _published("hydrmi_t7_t11_accuracy.csv").set_index(
        ["dataset", "algorithm", "condition"]
    )
    spread = _fold_spread(ok, ["paper_dataset", "algorithm", "condition"])
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
            _summary(
                f"Table {number}",
                f"{ds}: accuracy of HyDR-MI, ReliefF-MI and all features per classifier",
                "hydrmi_t7_t11_accuracy.csv",
                labels,
                pairs,
                [spread.get(k, np.nan) for k in keys],
                len(CLASSIFIERS),
            )
        )
    table13 = _rank_sum_verdicts(measured)
    return out + ([table13] if table13 else [])


def _rank_sum_verdicts(measured: pd.DataFrame) -> dict | None:
    """Table 13's summary: |z| against the printed one, and the verdicts at 5 % that differ."""
    paper = _published("hydrmi_t13_rank_sum.csv").set_index(["dataset", "comparison"])
    acc = measured["accuracy"].unstack("condition")
    pairs, differ, where = [], 0, []
    for (ds, other), p in paper.iterrows():
        if ds not in acc.index.get_level_values(0) or "HyDR-MI" not in acc or other not in acc:
            continue
        pair = acc.loc[ds][["HyDR-MI", other]].dropna()
        if len(pair) < 2:
            continue
        rs = rank_sum(pair["HyDR-MI"], pair[other])
        pairs.append((ds, rs.z, p["z"]))
        if (rs.p <= 0.05) != (p["p"] <= 0.05):
            differ += 1
            where.append(f"{ds} vs {other}")
    if not pairs:
        return None
    return {
        "number": "Table 13",
        "title": "Wilcoxon rank-sum, HyDR-MI against each baseline over the classifiers",
        "file": "hydrmi_t13_rank_sum.csv",
        "metric": "z",
        "n_published": len(paper),
        "datasets": sorted({ds for ds, _, _ in pairs}),
        "n_compared": len(pairs),
        "mean_abs_delta": {"z": float(np.mean([abs(a - b) for _, a, b in pairs]))},
        "rho": {"z": rank_correlation([(a, b) for _, a, b in pairs])},
        "verdicts_differ": differ,
        "verdicts_compared": len(pairs),
        "verdicts_where": ", ".join(where),
    }


def relieff_summaries(df: pd.DataFrame) -> list[dict]:
    """Tables 2-5 (one per bag distance: the mean over the classifiers per data set and subset
    size) and Table 6 (Friedman's verdict at 5 % per subset size), summarised."""
    ok = _parse(df)
    measured = _relieff_measured(ok) if not ok.empty else pd.DataFrame()
    if measured.empty:
        return []
    paper = _published("hydrmi_t2_t5_relieff_accuracy.csv")
    keys = ["distance", "percent", "dataset", "algorithm"]
    both = measured.merge(paper, on=keys, how="inner", suffixes=("", "_paper"))
    spread = _fold_spread(_relieff_rows(ok), ["distance", "percent", "paper_dataset", "algorithm"])
    out = []
    for distance, number in _DISTANCE_TABLES.items():
        block = both[both["distance"] == distance]
        if block.empty:
            continue
        cells = block.groupby(["dataset", "percent"])[["accuracy", "accuracy_paper"]].mean()
        pairs = {f"{p}%": [] for p in sorted(block["percent"].unique())}
        for (_, p), row in cells.iterrows():
            pairs[f"{p}%"].append((row["accuracy"], row["accuracy_paper"]))
        published = paper[paper["distance"] == distance]
        out.append(
            _summary(
                f"Table {number}",
                f"ReliefF-MI ({distance} distance): accuracy on the top 10-60 % of the features",
                "hydrmi_t2_t5_relieff_accuracy.csv",
                sorted(block["dataset"].unique()),
                pairs,
                [spread.get(tuple(k), np.nan) for k in block[keys].to_numpy()],
                int(published["dataset"].nunique()),
            )
        )
    table6 = _friedman_verdicts(both)
    return out + ([table6] if table6 else [])


def _friedman_verdicts(both: pd.DataFrame) -> dict | None:
    """Table 6's summary: chi2 against the printed one, and the verdicts at 5 % that differ."""
    printed = _published("hydrmi_t6_friedman.csv").set_index("percent")
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
