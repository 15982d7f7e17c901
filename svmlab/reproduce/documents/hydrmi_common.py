"""What the HyDR-MI study's report sections share (Zafra, Pechenizkiy & Ventura, Sec. 5):
the paper's names of classifiers, conditions and data sets, the published tables, and the
result rows parsed into them (:func:`parse_rows`).

A run's solvers are named ``<condition>_<classifier>`` (``hydrmi_``, ``relieff_``, ``full_`` and
the keys of ``conf/hydrmi_roster``); accuracy is pooled over folds and runs, as the paper's
correct / total (:func:`pooled`).
"""

from __future__ import annotations

import json
from importlib import resources

import numpy as np
import pandas as pd

from svmlab.reproduce.engine import DATASETS_ROW, MEAN_DELTA, RANK_CORR, rank_correlation

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
Q_BD = 2.394


def published(file: str) -> pd.DataFrame:
    """A published table of the paper (``svmlab/reproduce/published/``), not indexed."""
    with resources.files("svmlab.reproduce").joinpath("published", file).open() as fh:
        return pd.read_csv(fh)


def paper_dataset(name: str) -> str | None:
    """The paper's name of a run's data set (None: not one of the paper's)."""
    return next((p for p, names in DATASETS.items() if name in names), None)


def parse_rows(df: pd.DataFrame) -> pd.DataFrame:
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
    ok["paper_dataset"] = ok["dataset"].map(paper_dataset)
    info = ok["fit_info"].map(lambda s: json.loads(s) if isinstance(s, str) and s else {})
    ok["n_features"] = info.map(lambda i: i.get("n_features", np.nan)).astype(float)
    ok["_info"] = info
    return ok[ok["condition"].notna() & ok["algorithm"].notna() & ok["paper_dataset"].notna()]


def pooled(rows: pd.DataFrame) -> float:
    """Correct / total over the rows (folds and runs)."""
    n = rows["n_test"].to_numpy(float)
    return float(np.sum(rows["accuracy"].to_numpy(float) * n) / np.sum(n))


def finite_mean(values) -> float:
    """Mean of the finite values (NaN when there are none, without a warning)."""
    a = np.asarray(values, dtype=float)
    a = a[np.isfinite(a)]
    return float(a.mean()) if len(a) else np.nan


def cell(ours: float, paper: float, digits: int = 3) -> str:
    """ "ours (paper)", a dash for a missing side."""
    mine = "—" if np.isnan(ours) else f"{ours:.{digits}f}"
    theirs = "—" if np.isnan(paper) else f"{paper:.{digits}f}"
    return f"{mine} ({theirs})"


def fold_spread(ok: pd.DataFrame, keys: list[str]) -> pd.Series:
    """The standard deviation over the folds (and runs) of the accuracy, per ``keys``."""
    return ok.groupby(keys)["accuracy"].std(ddof=1)


def summary_entry(number, title, file, labels, pairs, spread, n_published) -> dict:
    """One summary entry from ``{column: [(ours, paper), ...]}`` over ``labels``."""
    return {
        "number": number,
        "title": title,
        "file": file,
        "metric": "accuracy",
        "digits": 3,
        "n_published": n_published,
        "datasets": labels,
        "mean_abs_delta": {c: float(np.mean([abs(a - b) for a, b in p])) for c, p in pairs.items()},
        "rho": {c: rank_correlation(p) for c, p in pairs.items()},
        "spread_run": finite_mean(spread),
    }


def summary_rows(entry: dict, column_of, digits: int = 3) -> pd.DataFrame:
    """The closing rows of a section from its summary entry (:func:`summary_entry`):
    mean abs. Δ, rank corr. ρ and "datasets compared" per compared column, each in the
    section's column ``column_of(name)``."""
    n = len(entry["datasets"])
    rows = {
        MEAN_DELTA: {column_of(c): f"{v:.{digits}f}" for c, v in entry["mean_abs_delta"].items()},
        RANK_CORR: {
            column_of(c): "—" if not np.isfinite(r) else f"{r:+.2f}"
            for c, r in entry["rho"].items()
        },
        DATASETS_ROW: {column_of(c): f"{n} of {entry['n_published']}" for c in entry["rho"]},
    }
    return pd.DataFrame.from_dict(rows, orient="index")
