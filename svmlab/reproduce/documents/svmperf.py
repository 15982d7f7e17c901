"""The MKLPO paper's results beside a run (Wang, Wang, Zhou & McDonald, Sec. IV, Figs. 1-2).

The paper's only results are two figures of boxplots -- the five measures (AUC, PRBEP,
accuracy, F1, MCC) of MKLPO, CPSP, CAPO, FSPO and NDLO over the 10 folds, each model trained
for the measure it is evaluated on -- whose images are lost, and a handful of claims in the
text (R1-R6 below). Its data sets cannot be obtained, so a run on the public stand-ins can only
check the claims' direction. This module builds the report sections for such a run:

* the "diagonal" table: median and interquartile range over the folds of every
  (data set, measure) for each method, the model optimised for that measure;
* Wilcoxon signed-rank tests of MKLPO against each of the paper's four competitors on the
  paired fold values, Holm-adjusted over the four (the folds share training data, so the
  p-values are descriptive);
* Friedman / Iman-Davenport over the (data set x measure) blocks, ranking the paper's five
  methods by their fold means, with the Bonferroni-Dunn critical difference and Holm's
  step-down test with MKLPO as the control (docs/decisions/svmperf.md, "Statistics and figures"; the
  SVC baseline, one model tuned by accuracy, is shown in the median table and the figures only);
* the paper's claims, each with the run's evidence;
* MKLPO's learned kernel weights.

:func:`boxplot_figures` draws the figures (one per data set, one panel per measure).

A run's solvers are named ``<method>_<measure>`` (``mklpo_f1``, ``ndlo_auc``, ...); a solver
named ``svc`` is one model evaluated on every measure.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from svmlab.reproduce.document import Paper, Protocol, Reproduction, Study
from svmlab.stats.compare import compare
from svmlab.stats.sections import Section
from svmlab.stats.tables import comparison_sections
from svmlab.stats.wilcoxon import signed_rank

#: The paper's methods -> the solver-name prefixes of a run.
METHODS = {"MKLPO": "mklpo", "CPSP": "cpsp", "CAPO": "capo", "FSPO": "fspo", "NDLO": "ndlo"}
#: Plain LIBSVM (one model for every measure), shown beside them.
BASELINE = {"SVC": "svc"}
#: The measures in the paper's panel order (Fig. 1 (a)-(e)) -> loss name and result column.
MEASURES = {
    "AUC": ("auc", "roc_auc"),
    "PRBEP": ("prbep", "prbep"),
    "ACC": ("accuracy", "accuracy"),
    "F1": ("f1", "f1_pos"),
    "MCC": ("mcc", "mcc"),
}
#: The stand-ins of the paper's two data sets (docs/decisions/svmperf.md, "Stand-in datasets").
ALLERGEN_LIKE = ("synthetic_allergen", "splice_ei", "page_blocks0")
LSVT_LIKE = ("synthetic_lsvt", "wdbc_lsvt")


def diagonal(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (data set, method, measure, repeat, fold, run): the value of the measure
    the model was trained for (every measure for the SVC baseline).

    Columns: ``dataset``, ``method`` (the paper's name), ``measure``, ``fold``, ``value``,
    and ``tau`` (the learned kernel weights, a list, where the row has them).
    """
    ok = df[df["status"] == "ok"] if "status" in df else df
    solver = ok["solver"] if "solver" in ok else ok["method"]
    parts = []
    for method, prefix in {**METHODS, **BASELINE}.items():
        for measure, (loss, column) in MEASURES.items():
            if column not in ok:
                continue
            name = prefix if method in BASELINE else f"{prefix}_{loss}"
            rows = ok[solver == name]
            if rows.empty:
                continue
            part = pd.DataFrame(
                {
                    "dataset": rows["dataset"].to_numpy(),
                    "method": method,
                    "measure": measure,
                    "repeat": rows["repeat"].to_numpy() if "repeat" in rows else 0,
                    "fold": rows["fold"].to_numpy() if "fold" in rows else 0,
                    "value": rows[column].to_numpy(dtype=float),
                    "tau": [_tau(info) for info in rows["fit_info"]]
                    if "fit_info" in rows
                    else None,
                }
            )
            parts.append(part)
    if not parts:
        return pd.DataFrame(columns=["dataset", "method", "measure", "repeat", "fold", "value"])
    return pd.concat(parts, ignore_index=True)


def _tau(info):
    try:
        tau = json.loads(info).get("tau") if isinstance(info, str) else None
    except (ValueError, AttributeError):
        return None
    return tau if isinstance(tau, list) and len(tau) > 1 else None


def complete_datasets(diag: pd.DataFrame) -> list[str]:
    """The data sets on which every (method, measure) of the run has all its folds: the
    others belong to an unfinished run, and comparing the methods that happen to be done
    there would crown whichever ran first."""
    counts = diag.groupby(["dataset", "method", "measure"]).size().unstack("dataset")
    full = counts.max(axis=1)
    return [d for d in counts.columns if counts[d].eq(full).all()]


def _methods_in(diag: pd.DataFrame) -> list[str]:
    order = [*METHODS, *BASELINE]
    return [m for m in order if m in set(diag["method"])]


def median_table(diag: pd.DataFrame, digits: int = 3) -> Section:
    """Median [Q1, Q3] over the folds per (data set, measure) and method, best median bold."""
    methods = _methods_in(diag)
    stats = diag.groupby(["dataset", "measure", "method"])["value"].describe()
    table, best = {}, {}
    for (dataset, measure), block in stats.groupby(level=[0, 1]):
        key = f"{dataset} / {measure}"
        block = block.droplevel([0, 1])
        table[key] = {
            m: f"{block.at[m, '50%']:.{digits}f} [{block.at[m, '25%']:.{digits}f}, "
            f"{block.at[m, '75%']:.{digits}f}]"
            for m in methods
            if m in block.index
        }
        medians = block["50%"].dropna()
        if len(medians):
            best[key] = [m for m, v in medians.items() if np.isclose(v, medians.max())]
    order = [f"{d} / {m}" for d in sorted(set(diag["dataset"])) for m in MEASURES]
    frame = pd.DataFrame.from_dict(table, orient="index").reindex([k for k in order if k in table])[
        methods
    ]
    return Section(
        "MKLPO study, Figs. 1-2 on the stand-ins: median [Q1, Q3] over the folds, each model "
        "evaluated on the measure it was trained for",
        frame.fillna("—"),
        best,
        "The paper's figure images are lost; no published numbers exist except MKLPO's median "
        "MCC > 0.900 on the allergen data (not available here).",
    )


def wilcoxon_table(diag: pd.DataFrame) -> Section:
    """Two-sided Wilcoxon signed-rank p-values of MKLPO against each competitor per block,
    Holm-adjusted over the competitors; the sign says who has the larger median difference."""
    from svmlab.stats.posthoc import adjust

    methods = [m for m in _methods_in(diag) if m in METHODS and m != "MKLPO"]
    rows = {}
    for (dataset, measure), block in diag.groupby(["dataset", "measure"]):
        wide = block.pivot_table(index=["repeat", "fold"], columns="method", values="value")
        if "MKLPO" not in wide:
            continue
        ps, signs = [], []
        for m in methods:
            if m not in wide:
                ps.append(np.nan)
                signs.append("")
                continue
            pair = wide[["MKLPO", m]].dropna()
            diff = pair["MKLPO"] - pair[m]
            if len(pair) < 2 or np.allclose(diff, 0):
                ps.append(1.0)
                signs.append("=")
                continue
            res = signed_rank(pair["MKLPO"], pair[m], "max", zero_method="wilcox")
            ps.append(res.p)
            signs.append("+" if res.r_plus >= res.r_minus else "-")
        finite = np.isfinite(ps)
        adj = np.full(len(ps), np.nan)
        if finite.any():
            adj[finite] = adjust(np.asarray(ps)[finite], "holm")
        rows[f"{dataset} / {measure}"] = {
            m: (f"{s}{p:.3f}" if np.isfinite(p) else "—") for m, s, p in zip(methods, signs, adj)
        }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    return Section(
        "MKLPO vs each competitor: Wilcoxon signed-rank on the paired folds, Holm-adjusted "
        "p-values (+: MKLPO ahead, -: behind)",
        frame,
        None,
        "The folds share training data, so these p-values are descriptive (Dietterich 1998).",
    )


def block_matrix(diag: pd.DataFrame) -> pd.DataFrame:
    """(data set / measure) x method matrix of the fold means: the blocks of the rank tests."""
    means = diag.groupby(["dataset", "measure", "method"])["value"].mean().unstack("method")
    means.index = [f"{d} / {m}" for d, m in means.index]
    return means[[m for m in _methods_in(diag) if m in METHODS]]


def claims_table(diag: pd.DataFrame) -> Section:
    """The paper's claims R1-R6 (Wang et al., Sec. IV) with the run's evidence on the stand-ins."""
    med = diag.groupby(["dataset", "measure", "method"])["value"].median()
    datasets = sorted(set(diag["dataset"]))
    paper = list(METHODS)

    def best_count(sets):
        blocks = [(d, m) for d in sets for m in MEASURES if (d, m, "MKLPO") in med.index]
        wins = 0
        for d, m in blocks:
            vals = med.loc[(d, m)].reindex(paper).dropna()
            wins += np.isclose(vals.get("MKLPO", np.nan), vals.max())
        return wins, len(blocks)

    allergen = [d for d in datasets if d in ALLERGEN_LIKE]
    lsvt = [d for d in datasets if d in LSVT_LIKE]
    rows = []
    w, n = best_count(allergen)
    rows.append(
        ("R1", "allergen: MKLPO best on every measure", allergen, f"best median in {w}/{n}"),
    )
    mcc = [
        f"{d}: MKLPO {med.get((d, 'MCC', 'MKLPO'), np.nan):.3f}, best other "
        f"{med.loc[(d, 'MCC')].reindex(paper[1:]).max():.3f}"
        for d in allergen
        if (d, "MCC", "MKLPO") in med.index
    ]
    rows.append(("R2", "allergen: only MKLPO has median MCC > 0.900", allergen, "; ".join(mcc)))
    kernel = [
        f"{d}/{m}: CPSP {med.get((d, m, 'CPSP'), np.nan):.3f}, CAPO "
        f"{med.get((d, m, 'CAPO'), np.nan):.3f} vs FSPO {med.get((d, m, 'FSPO'), np.nan):.3f}, "
        f"NDLO {med.get((d, m, 'NDLO'), np.nan):.3f}"
        for d in allergen
        for m in ("F1",)
    ]
    rows.append(
        (
            "R3",
            "allergen: single-kernel CPSP/CAPO comparable to linear FSPO/NDLO",
            allergen,
            "; ".join(kernel),
        )
    )
    w, n = best_count(lsvt)
    rows.append(("R4", "speech: MKLPO best in most cases", lsvt, f"best median in {w}/{n}"))
    gaps = []
    for d in lsvt:
        by = {
            m: med.get((d, m, "MKLPO"), np.nan) - med.loc[(d, m)].reindex(paper[1:]).max()
            for m in MEASURES
            if (d, m, "MKLPO") in med.index
        }
        if by:
            top = max(by, key=lambda k: by[k])
            gaps.append(f"{d}: largest MKLPO lead on {top} ({by[top]:+.3f})")
    rows.append(("R5", "speech: the gap is largest for MCC", lsvt, "; ".join(gaps)))
    second = []
    for d in lsvt:
        ranks = [
            med.loc[(d, m)].reindex(paper[1:]).rank(ascending=False)
            for m in MEASURES
            if (d, m, "MKLPO") in med.index
        ]
        if ranks:
            mean_rank = pd.concat(ranks, axis=1).mean(axis=1).sort_values()
            second.append(f"{d}: best competitor by mean rank {mean_rank.index[0]}")
    rows.append(("R6", "speech: CAPO second in most cases", lsvt, "; ".join(second)))
    frame = pd.DataFrame(
        [(c, text, ", ".join(sets) or "(not in this run)", ev) for c, text, sets, ev in rows],
        columns=["claim", "paper (Sec. IV)", "stand-ins", "this run"],
    ).set_index("claim")
    return Section(
        "MKLPO study, the paper's claims checked in direction on the stand-ins",
        frame,
        None,
        "The paper's data are unobtainable; a claim holds here only in direction, on other data.",
    )


def weights_table(diag: pd.DataFrame) -> Section | None:
    """Mean and spread of MKLPO's learned kernel weights per data set."""
    rows = diag[(diag["method"] == "MKLPO") & diag["tau"].notna()] if "tau" in diag else []
    if len(rows) == 0:
        return None
    out = {}
    for dataset, block in rows.groupby("dataset"):
        taus = np.array(list(block["tau"]))
        mean = taus.mean(axis=0)
        out[dataset] = {
            **{f"tau_{i + 1}": f"{v:.2f}" for i, v in enumerate(mean)},
            "kernels used": f"{np.mean((taus > 1e-3).sum(axis=1)):.1f}",
        }
    frame = pd.DataFrame.from_dict(out, orient="index")
    width = max(int(c.split("_")[1]) for c in frame.columns if c.startswith("tau_"))
    frame = frame.reindex(columns=[f"tau_{i}" for i in range(1, width + 1)] + ["kernels used"])
    return Section(
        "MKLPO's learned kernel weights tau, mean over folds and measures (bank order: dense = "
        "Gaussian gamma0 * 2^-3..2^3, then polynomial of degree 1-3; text = linear, polynomial "
        "2-3, Gaussian gamma 0.25-4)",
        frame.fillna(""),
        None,
        "kernels used: mean number of kernels with tau > 0.001 in one fitted model.",
    )


def svmperf_sections(df: pd.DataFrame) -> list[Section]:
    """Every report section of an MKLPO-study run (see the module docstring)."""
    diag = diagonal(df)
    if diag.empty:
        return []
    done = complete_datasets(diag)
    unfinished = sorted(set(diag["dataset"]) - set(done))
    diag = diag[diag["dataset"].isin(done)]
    if diag.empty:
        return []
    medians = median_table(diag)
    if unfinished:
        medians.note += (
            f" Left out until the run finishes them (not every method's folds yet): "
            f"{', '.join(unfinished)}."
        )
    out = [medians, wilcoxon_table(diag)]
    matrix = block_matrix(diag).dropna()
    if matrix.shape[0] >= 2 and matrix.shape[1] >= 2 and "MKLPO" in matrix:
        cmp = compare(matrix, "max", control="MKLPO", metric="fold-mean measure")
        for s in comparison_sections(cmp, pairwise=()):
            s.title = f"MKLPO study, (data set x measure) blocks: {s.title}"
            out.append(s)
    out.append(claims_table(diag))
    weights = weights_table(diag)
    if weights is not None:
        out.append(weights)
    return out


def boxplot_figures(df: pd.DataFrame, out_dir, formats=("png",)) -> list:
    """The paper's Figs. 1-2 for each data set of the run: one panel per measure, one box per
    method over the folds. Returns the written paths."""
    from svmlab.stats.figures.boxplots import measure_boxplots
    from svmlab.stats.figures.saving import save_figure

    diag = diagonal(df)
    if diag.empty:
        return []
    diag = diag[diag["dataset"].isin(complete_datasets(diag))]
    paths = []
    for dataset, block in diag.groupby("dataset"):
        fig = measure_boxplots(
            block,
            panels=[m for m in MEASURES if m in set(block["measure"])],
            methods=_methods_in(block),
            title=f"{dataset}: each measure of the model optimised for it, 10-fold CV",
        )
        paths += save_figure(fig, f"{out_dir}/svmperf_boxplots_{dataset}", formats)
    return paths


def figure_summaries(df: pd.DataFrame) -> list[dict]:
    """Figs. 1-2 for :func:`svmlab.reproduce.engine.table_summaries`: the paper prints no
    numbers (its figures' images are lost) and its data sets cannot be obtained, so each
    figure is listed with no published value and the stand-ins the run used."""
    diag = diagonal(df)
    started = set(diag["dataset"]) if not diag.empty else set()
    ran = set(complete_datasets(diag)) if not diag.empty else set()
    out = []
    for number, (paper_set, stand_ins) in {
        "Fig. 1": ("allergen", ALLERGEN_LIKE),
        "Fig. 2": ("speech (LSVT)", LSVT_LIKE),
    }.items():
        used = [d for d in stand_ins if d in ran]
        begun = [d for d in stand_ins if d in started]
        if used:
            note = (
                f"the run uses the stand-ins {', '.join(used)} and checks the direction of "
                "the paper's claims (R1-R6)"
            )
        elif begun:
            note = (
                f"not finished: no stand-in has every method's folds yet (begun: "
                f"{', '.join(begun)}; the same command resumes the run)"
            )
        else:
            continue
        out.append(
            {
                "number": number,
                "title": f"{paper_set}: boxplots of the five measures over the folds",
                "metric": "AUC, PRBEP, accuracy, F1, MCC",
                "n_published": 0,
                "datasets": [],
                "note": "no published numbers (the figure's image is lost) and the paper's data "
                f"set cannot be obtained; {note}",
            }
        )
    return out


DOCUMENT = Paper(
    "svmperf",
    "SVM-perf style multivariate losses: MKLPO and the other solvers (Figs. 1-2)",
    (Study("Figs. 1-2, boxplots", "svmperf_bench", "svmperf_quick"),),
    (
        Reproduction(
            name="svmperf_figures_1_2",
            source="Wang, Wang, Zhou & McDonald (MKLPO), Figs. 1-2 (boxplots of AUC, PRBEP, "
            "accuracy, F1 and MCC, one model per measure) on public stand-ins",
            tables=(),
            extra_sections=svmperf_sections,
            summaries=figure_summaries,
            protocol=Protocol("10-fold CV", folds=10),
            figures=boxplot_figures,
            rank_tests=False,  # its own tests rank over (data set, measure) blocks
        ),
    ),
)
