"""Mierswa (2009), PhD thesis: evolutionary SVMs (Ch. 3-5) and multi-objective feature
selection (Ch. 6).

**EvoSVM (Tables 3.2-3.4 and 4.2).** Dataset x method grids of the error rate (and Table 3.2's
dual objective), with the thesis's per-dataset ANOVA beside the run's; mySVM is emulated by
LIBSVM (``svmlab/reproduce/deviations/evosvm_mysvm.md``).

**Multi-objective feature selection (Sec. 6.2 and Fig. 6.1).** The thesis evaluates its feature
selection through Pareto fronts, not through rank tests, and prints no numbers for Fig. 6.1,
only what the front looks like. So the report of an ``mo_feature_selection`` run is:

* **outer test error, chosen member vs all features**: per data set, the selector's chosen
  subset (inner-CV best) against the same learner on every feature, with the subset sizes;
* **the fronts, inner estimate vs outer test**: per data set and subset size, the mean inner-CV
  error of the front members of that size and their mean error on the outer test parts (the
  runner scores every member there), and the number of folds whose front reached that size --
  how optimistic the inner estimate is, and where the front turns vertical;
* **Fig. 6.1 checks** on the sum-of-15-features sets: the span of the front (the thesis: almost
  1..15), how often a smaller member's features are a subset of the next larger one's (the
  thesis: subsets nest, except a complete change between sizes 4 and 5), the inner RMSE against
  its population value ``sqrt((15 - k) / 12)`` for ``k`` of the 15 uniform features, and, with
  noise features, how many front members contain one (the "vertical" end);
* figures: the fronts of every data set (:func:`svmlab.stats.figures.pareto_fronts`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from svmlab.reproduce.document import Paper, Protocol, PublishedTable, Reproduction, Study
from svmlab.reproduce.documents.mierswa2009_fronts import (
    MOEVOSVM_FRONTS,
    TSVM_FIGURES,
    fit_info_of,
)
from svmlab.selection.mo_wrapper import error_of_score
from svmlab.stats.sections import Section

__all__ = ["DOCUMENT", "front_points", "mo_selection_sections", "front_figures"]

SELECTORS = ("mofs_svm", "mofs_linreg")
BASELINES = {"mofs_svm": "linear_svc", "mofs_linreg": "linear_regression"}
SUM15_FEATURES = 15


def _selector_rows(df: pd.DataFrame) -> pd.DataFrame:
    ok = df[(df["status"] == "ok") & df["solver"].isin(SELECTORS)]
    return ok[ok["fit_info"].map(lambda v: "front" in fit_info_of(v))]


def front_points(df: pd.DataFrame) -> pd.DataFrame:
    """One row per (task, front member): dataset, solver, fold, n_features, features,
    inner_error and test_error (NaN when the row has no outer-test scores)."""
    out = []
    for row in _selector_rows(df).itertuples(index=False):
        info = fit_info_of(row.fit_info)
        front, scoring = info["front"], info.get("scoring", "accuracy")
        test = info.get("front_test_error") or [np.nan] * len(front["n_features"])
        for k, (nf, score, feats, err) in enumerate(
            zip(front["n_features"], front["inner_score"], front["features"], test, strict=True)
        ):
            out.append(
                {
                    "dataset": row.dataset,
                    "solver": row.solver,
                    "fold": f"{row.repeat}/{row.fold}",
                    "member": k,
                    "n_features": int(nf),
                    "features": tuple(feats),
                    "inner_error": error_of_score(scoring, score),
                    "test_error": np.nan if err is None else float(err),
                    "chosen": k == info.get("chosen"),
                }
            )
    return pd.DataFrame(out)


def chosen_vs_all(df: pd.DataFrame, points: pd.DataFrame) -> Section:
    """Outer test error of the chosen member against the learner on every feature."""
    rows = {}
    ok = df[df["status"] == "ok"]
    for (dataset, solver), block in ok[ok["solver"].isin(SELECTORS)].groupby(["dataset", "solver"]):
        metric = "error_rate" if solver == "mofs_svm" else "rmse"
        base = ok[(ok["dataset"] == dataset) & (ok["solver"] == BASELINES[solver])]
        pts = points[(points["dataset"] == dataset) & (points["solver"] == solver)]
        chosen = pts[pts["chosen"]]
        sizes = pts.groupby("fold")["n_features"]
        span = f"{sizes.min().min()}..{sizes.max().max()}" if len(pts) else "—"
        rows[dataset] = {
            "measure": "error rate" if metric == "error_rate" else "RMSE",
            "all features": f"{base[metric].mean():.4f}" if len(base) else "—",
            "MO selection": f"{block[metric].mean():.4f}",
            "features chosen (mean)": f"{chosen['n_features'].mean():.1f}" if len(chosen) else "—",
            "front size (mean)": f"{sizes.size().mean():.1f}" if len(pts) else "—",
            "front spans (n features)": span,
            "folds": str(len(block)),
        }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "dataset"
    return Section(
        "MO feature selection (Sec. 6.2): outer test error of the chosen member vs all features",
        table,
        None,
        "chosen member: the highest inner-CV score, ties to fewer features; the search sees the "
        "outer training part only (nested); 'all features' is the same learner without selection",
    )


def fronts_table(points: pd.DataFrame) -> list[Section]:
    """Per data set: mean inner and outer-test error of the front members of each size."""
    out = []
    for (dataset, solver), block in points.groupby(["dataset", "solver"], sort=False):
        n_folds = block["fold"].nunique()
        agg = block.groupby("n_features").agg(
            inner=("inner_error", "mean"), test=("test_error", "mean"), folds=("fold", "nunique")
        )
        table = pd.DataFrame(
            {
                "inner CV error": agg["inner"].map(lambda v: f"{v:.4f}"),
                "outer test error": agg["test"].map(lambda v: "—" if np.isnan(v) else f"{v:.4f}"),
                "optimism": (agg["test"] - agg["inner"]).map(
                    lambda v: "" if np.isnan(v) else f"{v:+.4f}"
                ),
                "folds on front": [f"{v}/{n_folds}" for v in agg["folds"]],
            }
        )
        table.index.name = "n features"
        out.append(
            Section(
                f"Pareto front of {dataset} ({solver}): inner estimate vs outer test, per size",
                table,
                None,
                "errors are means over the folds whose front has a member of that size; "
                "optimism = outer test - inner CV",
            )
        )
    return out


def sum15_checks(points: pd.DataFrame) -> Section | None:
    """Fig. 6.1's qualitative claims, measured on the sum-of-15-features sets."""
    rows = {}
    sums = points[points["dataset"].str.startswith("mierswa_sum15")]
    for dataset, block in sums.groupby("dataset"):
        spans, nested, pairs, noisy, members = [], 0, 0, 0, 0
        for _, fold in block.groupby("fold"):
            fold = fold.sort_values("n_features")
            spans.append((fold["n_features"].min(), fold["n_features"].max()))
            feats = [set(f) for f in fold["features"]]
            for small, large in zip(feats, feats[1:]):
                pairs += 1
                nested += small <= large
            noisy += sum(any(j >= SUM15_FEATURES for j in f) for f in feats)
            members += len(feats)
        by_k = block[block["n_features"] <= SUM15_FEATURES].groupby("n_features")["inner_error"]
        theory = {k: np.sqrt((SUM15_FEATURES - k) / 12.0) for k in by_k.groups}
        dev = np.mean([abs(by_k.mean()[k] - theory[k]) for k in theory]) if theory else np.nan
        r = (
            np.corrcoef(list(by_k.mean().index), by_k.mean().to_numpy())[0, 1]
            if len(theory) > 2
            else np.nan
        )
        rows[dataset] = {
            "front spans (min..max n features, over folds)": (
                f"{min(s[0] for s in spans)}..{max(s[1] for s in spans)}"
            ),
            "nested consecutive members": f"{nested}/{pairs}",
            "members with a noise feature": f"{noisy}/{members}",
            "mean |inner RMSE - sqrt((15-k)/12)|": f"{dev:.4f}",
            "linearity r(k, RMSE)": f"{r:+.3f}",
        }
    if not rows:
        return None
    rows["thesis (Fig. 6.1)"] = {
        "front spans (min..max n features, over folds)": "almost 1..15",
        "nested consecutive members": "nested, except a complete change between sizes 4 and 5",
        "members with a noise feature": "(not run with noise; noise gives a vertical end)",
        "mean |inner RMSE - sqrt((15-k)/12)|": "(no numbers printed)",
        "linearity r(k, RMSE)": "roughly a straight line",
    }
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "dataset"
    return Section(
        "Fig. 6.1 (Mierswa 2009, Sec. 6.2.1): the front on 15 equally important features",
        table,
        None,
        "sqrt((15-k)/12) is the RMSE of the best linear model on k of the 15 U(0,1) features "
        "(the omitted ones are its residual); with equally important features every k-subset is "
        "equally good, so nesting is a property of the search, not of the data",
    )


def mo_selection_sections(df: pd.DataFrame) -> list[Section]:
    """Every report section of an ``mo_feature_selection`` run."""
    points = front_points(df)
    if points.empty:
        return []
    out = [chosen_vs_all(df, points)]
    checks = sum15_checks(points)
    if checks is not None:
        out.append(checks)
    out.extend(fronts_table(points))
    return out


def front_figures(df: pd.DataFrame, out_dir, formats=("png",)) -> list:
    """The fronts of every data set (inner CV and outer test error per fold), in plain and in
    the thesis's axes. Returns the written paths."""
    from svmlab.stats.figures.pareto_fronts import pareto_fronts
    from svmlab.stats.figures.saving import save_figure

    points = front_points(df)
    if points.empty:
        return []
    long = pd.concat(
        [
            points.assign(series="inner CV", error=points["inner_error"]),
            points.assign(series="outer test", error=points["test_error"]),
        ]
    )
    paths = []
    for solver, block in long.groupby("solver"):
        label = "error rate" if solver == "mofs_svm" else "RMSE"
        for thesis, suffix in ((False, ""), (True, "_thesis_axes")):
            fig = pareto_fronts(
                block,
                value_label=label,
                thesis_axes=thesis,
                title=f"MO feature selection ({solver}): Pareto fronts per outer fold",
            )
            paths += save_figure(fig, f"{out_dir}/mo_fronts_{solver}{suffix}", formats)
    return paths


# --- EvoSVM, Tables 3.2-3.4 and 4.2 --------------------------------------------------------------


def _evosvm_datasets() -> dict:
    return {
        "Spiral": "spiral",
        "Checkerboard": "checkerboard",
        "Liver": "bupa",
        "Sonar": "sonar_mlbench",
        "Diabetes": "pima_indians_diabetes",
        "Ionosphere": "ionosphere_mlbench",
        "Lawsuit": "lawsuit",
        "Lupus": "lupus",
        "Crabs": "crabs",
    }


_EVOSVM_METHODS = {
    "EvoSVM": "evosvm",
    "EvoSVM-G": "evosvm",
    "EvoSVM-S": "evosvm_s",
    "EvoSVM-H": "evosvm_h",
    "PsoSVM": "psosvm",
    "mySVM": "mysvm_like",
    "LibSVM": "libsvm_kernel",
    "RVM": "rvm",
}
_QP = ("mySVM", "LibSVM")
_VARIANTS = ("EvoSVM-G", "EvoSVM-S", "EvoSVM-H", "PsoSVM", *_QP)


def _evosvm(name, source, number, stem, columns, protocol, note="", extra=(), **kw):
    """An EvoSVM target: the error table ``<stem>.csv`` (and its printed standard deviations,
    ``<stem>_std.csv``) with the run's per-dataset ANOVA beside the thesis's."""
    return Reproduction(
        name=name,
        source=source,
        tables=(
            PublishedTable(
                "error (%, mean of the fold error rates)",
                f"{stem}.csv",
                "error_rate",
                scale=100.0,
                anova=True,
                number=number,
                std_file=f"{stem}_std.csv",
            ),
            *extra,
        ),
        datasets=_evosvm_datasets(),
        methods={m: _EVOSVM_METHODS[m] for m in columns},  # the published table's columns
        deviations=kw.pop("deviations", ("evosvm_mysvm",)),
        note="; ".join(
            filter(None, ("mySVM is emulated by LIBSVM (see the known deviations below)", note))
        ),
        protocol=protocol,
        row_notes={"Lawsuit": "the Lawsuit rows are suspect (docs/decisions/evo.md)"},
        **kw,
    )


_TABLE_3_2 = PublishedTable(
    "dual objective W per training fold",
    "evosvm_t32_objective.csv",
    "dual_objective",
    digits=3,
    note="EvoSVM drops the equality constraint; the thesis's QP rows are not "
    "dual values (negative: RapidMiner's signed-alpha formula), ours are "
    "(docs/decisions/evo.md)",
    number="Table 3.2",
    std_file="evosvm_t32_objective_std.csv",
)
#: Table 3.4's protocol (Sec. 3.1.3.3: "a 10-fold cross validation").
_TEN_FOLD = Protocol("RBF, 10-fold CV", folds=10)


def _table_3_4(c: str, stem: str) -> Reproduction:
    return _evosvm(
        f"evosvm_table_3_4_C{c}",
        f"Mierswa 2009, Table 3.4, C = {c} (EvoSVM variants, PsoSVM, QP SVMs)",
        f"Table 3.4 (C = {c})",
        stem,
        _VARIANTS,
        _TEN_FOLD,
    )


REPRODUCTIONS = (
    _evosvm(
        "evosvm_table_3_3",
        "Mierswa 2009, Tables 3.2 and 3.3 (EvoSVM vs QP SVMs)",
        "Table 3.3",
        "evosvm_t33_error",
        ("EvoSVM", *_QP),
        Protocol("RBF, C = 1, 20-fold CV", folds=20),
        deviations=("evosvm_spiral", "evosvm_mysvm", "evosvm_objective"),
        extra=(_TABLE_3_2,),
    ),
    _table_3_4("1", "evosvm_t34_c1_error"),
    _table_3_4("0.1", "evosvm_t34_c01_error"),
    _table_3_4("0.01", "evosvm_t34_c001_error"),
    _evosvm(
        "evosvm_table_4_2",
        "Mierswa 2009, Table 4.2 (non-PSD kernel: EvoSVM vs QP SVMs vs RVM)",
        "Table 4.2",
        "evosvm_t42_error",
        ("EvoSVM", *_QP, "RVM"),
        Protocol(
            "Epanechnikov kernel, C = 1; 10-fold CV (the caption says 20; docs/decisions/evo.md)",
            folds=10,
        ),
        "modern LIBSVM handles indefinite kernels better than the thesis's",
        deviations=("evosvm_spiral", "evosvm_mysvm"),
    ),
    MOEVOSVM_FRONTS,
    TSVM_FIGURES,
    Reproduction(
        name="mo_feature_selection_fronts",
        source="Mierswa (2009), Sec. 6.2 and Fig. 6.1 (multi-objective wrapper feature "
        "selection: Pareto fronts of inner-CV error vs number of features)",
        tables=(),
        extra_sections=mo_selection_sections,
        figures=front_figures,
    ),
)

DOCUMENT = Paper(
    "mierswa2009",
    "Mierswa (2009), PhD thesis: evolutionary SVMs and multi-objective feature selection",
    (
        Study("Table 3.3, EvoSVM vs QP solvers", "evosvm_bench", "evosvm_quick"),
        Study(
            "Table 3.4, EvoSVM variants (a sweep over C)",
            "evosvm_variants",
            "evosvm_variants_quick",
            overrides=("-m", "evo.C=1,0.1,0.01"),
        ),
        Study("Table 4.2, non-PSD kernels", "evosvm_nonpsd", "evosvm_nonpsd_quick"),
        Study(
            "Figs. 3.2/3.3 (figures only) and Table 3.5, MO-EvoSVM Pareto fronts",
            "moevosvm_fronts",
            "moevosvm_fronts_quick",
        ),
        Study(
            "Ch. 5, transductive SVM vs inductive SVM (Table 5.1; Figs. 5.2-5.7, figures only)",
            "tsvm_bench",
            "tsvm_quick",
        ),
        Study(
            "Sec. 6.2, multi-objective feature selection",
            "mo_feature_selection",
            "mo_feature_selection_quick",
        ),
    ),
    REPRODUCTIONS,
)
