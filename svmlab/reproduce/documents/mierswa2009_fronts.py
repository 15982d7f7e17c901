"""Mierswa (2009): the MO-EvoSVM fronts (Sec. 3.2.7) and the transductive study (Sec. 5.3.1).

Both studies are shown in the thesis as figures, and the thesis prints only a few numbers
beside them. What it prints is compared as published; what it only draws or says is compared
as *read off* (the headings say so):

**MO-EvoSVM, Figs. 3.2/3.3 with Table 3.5.** Table 3.5 prints, per data set, n, m, the RBF
parameter and the default error (always predicting the majority class). The text of
Sec. 3.2.7.1 says where every front begins and ends: at the default classifier (largest
margin, the top-left point) and at zero training error (the bottom-right point). So the run's
front is compared at both ends: the training error of its largest-margin member with Table
3.5's default error (printed), its smallest training error with zero (read off). The text's
remarks on single sets (Spiral's hold-out error leaves the training error early, Crabs' hardly
anywhere, Diabetes' front is flat then steep) are set beside the run's numbers in one table.

**Transductive SVM, Table 5.1 and Figs. 5.2-5.7.** Table 5.1 prints the sizes of the three
sets (labeled n, unlabeled n*, dimension m). The figures show the predictions of the inductive
SVM and of Evo-T-SVM on the unlabeled points, without error rates; what can be read off them
and the text is the error on the unlabeled points where it is determined: 4-Clusters, inductive
1 of 2 wrong (both unlabeled points negative, Fig. 5.2), Evo-T-SVM none; 3-Clusters, both SVMs
"perform equally well" on the given points (Fig. 5.4), read as none wrong; 2-Moons, Evo-T-SVM
"almost perfect" (Fig. 5.6), read as 0 %, the inductive SVM's error not readable (a small
positive spot around the labeled positives, most of the positive moon predicted negative).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from svmlab.reproduce.document import Protocol, PublishedTable, Reproduction, read_published
from svmlab.stats.sections import Section

__all__ = ["MOEVOSVM_FRONTS", "TSVM_FIGURES", "front_columns"]

#: The thesis's data sets of Table 3.5 -> registry names.
_T35_DATASETS = {
    "Spiral": "spiral",
    "Checkerboard": "checkerboard",
    "Sonar": "sonar_mlbench",
    "Diabetes": "pima_indians_diabetes",
    "Lupus": "lupus",
    "Crabs": "crabs",
}
#: The thesis's data sets of Table 5.1 -> registry names.
_T51_DATASETS = {
    "4-Clusters": "four_clusters",
    "3-Clusters": "three_clusters",
    "2-Moons": "moons_transductive",
}
#: The columns :func:`front_columns` derives (fractions), with their directions.
FRONT_COLUMNS = {"front_large_margin_error": "min", "front_min_train_error": "min"}


def fit_info_of(value) -> dict:
    """A result row's ``fit_info`` as a dict (stored as JSON text; {} when absent or
    unreadable)."""
    if isinstance(value, dict):
        return value
    try:
        return json.loads(value) if isinstance(value, str) and value else {}
    except ValueError:
        return {}


def _front(value) -> list[dict]:
    front = fit_info_of(value).get("front")
    return front if isinstance(front, list) else []


def _large_margin_error(front: list[dict]) -> float:
    """The training error of the front's large-margin end: the member with the largest
    objective I (the margin term; the thesis's top-left point)."""
    if not front:
        return np.nan
    top = max(front, key=lambda m: (m.get("obj_I", -np.inf), m.get("train_err", -np.inf)))
    return float(top.get("train_err", np.nan))


def front_columns(rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` with the training error at both ends of each row's MO-EvoSVM front.

    ``front_large_margin_error`` is the training error of the member with the largest
    margin term (objective I; the thesis's top-left point, Sec. 3.2.7.1),
    ``front_min_train_error`` the smallest training error of any member (the bottom-right
    point); NaN for rows without a front in ``fit_info``. Rows without ``fit_info`` are
    returned unchanged.
    """
    if "fit_info" not in rows.columns:
        return rows
    fronts = rows["fit_info"].map(_front)
    out = rows.copy()
    out["front_large_margin_error"] = fronts.map(_large_margin_error)
    out["front_min_train_error"] = fronts.map(
        lambda f: float(min(m.get("train_err", np.nan) for m in f)) if f else np.nan
    )
    return out


def _gamma(value) -> float:
    params = fit_info_of(value)
    return float(params["gamma"]) if "gamma" in params else np.nan


def _front_members(rows: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per registry dataset, the front members of its first row with a front, ordered from
    the large-margin end (highest training error) to the other."""
    out = {}
    ok = rows[rows["status"] == "ok"] if "status" in rows else rows
    for dataset, block in ok.groupby("dataset"):
        fronts = [f for f in block["fit_info"].map(_front) if f]
        if fronts:
            members = pd.DataFrame(fronts[0])
            out[dataset] = members.sort_values("train_err", ascending=False, kind="stable")
    return out


def _thirds_gap(members: pd.DataFrame) -> tuple[float, float]:
    """Mean hold-out minus training error (in %) over the first and the last third of a front
    ordered from its large-margin end."""
    if "holdout_err" not in members or members["holdout_err"].isna().all():
        return np.nan, np.nan
    gap = 100.0 * (members["holdout_err"].astype(float) - members["train_err"].astype(float))
    third = max(1, len(gap) // 3)
    return float(gap.iloc[:third].mean()), float(gap.iloc[-third:].mean())


#: Sec. 3.2.7.1's remarks on single data sets (the thesis's words, shortened).
_FRONT_REMARKS = {
    "Spiral": "hold-out error leaves the training error already in the large-margin part",
    "Crabs": "hold-out error hardly above the training error anywhere on the front",
    "Diabetes": "front flat at the large-margin end, almost vertical at the other",
}


def front_sections(rows: pd.DataFrame) -> list[Section]:
    """Table 3.5's data sets beside the run's, and the fronts' shape beside Sec. 3.2.7.1."""
    fronts = _front_members(rows)
    if not fronts:
        return []
    paper = read_published("moevosvm_t35_datasets.csv")
    sizes, shapes = {}, {}
    for name, ds in _T35_DATASETS.items():
        if ds not in fronts:
            continue
        first = rows[rows["dataset"] == ds].iloc[0]
        p = paper.loc[name]
        n = int(first["n_train"] + first["n_test"])
        gamma = _gamma(first.get("solver_params"))
        sizes[name] = {
            "n (paper)": f"{n} ({int(p['n'])})",
            "m (paper)": f"— ({int(p['m'])})",
            "RBF gamma (paper's sigma)": f"{gamma:g} ({p['sigma']:g})",
            "default error % (paper)": f"— ({p['default error']:.2f})",
        }
        members = fronts[ds]
        early, late = _thirds_gap(members)
        shapes[name] = {
            "front members": len(members),
            "training error % from .. to": (
                f"{100 * members['train_err'].max():.1f} .. {100 * members['train_err'].min():.1f}"
            ),
            "hold-out - training, first third": f"{early:+.1f}",
            "hold-out - training, last third": f"{late:+.1f}",
            "the thesis says (Sec. 3.2.7.1)": _FRONT_REMARKS.get(name, ""),
        }
    return [
        _section(
            "Mierswa 2009, Table 3.5: the data sets of the fronts, this run (paper)",
            sizes,
            "n = the run's training + test part; m is not stored in the rows; the default "
            "error is Table 3.5's, which the front's large-margin end is compared with above",
        ),
        _section(
            "Mierswa 2009, Figs. 3.2/3.3: the fronts' shape, this run beside the thesis's text "
            "(the figures print no numbers)",
            shapes,
            "members ordered from the large-margin end (highest training error); hold-out - "
            "training in percentage points, the thesis's right-hand plots",
        ),
    ]


def _section(title: str, rows: dict, note: str) -> Section:
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "dataset"
    return Section(title, table, None, note)


def front_summaries(rows: pd.DataFrame) -> list[dict]:
    """The summary (:func:`svmlab.reproduce.engine.table_summaries`) of Table 3.5's sizes."""
    fronts = _front_members(rows)
    paper = read_published("moevosvm_t35_datasets.csv")
    found = [(name, ds) for name, ds in _T35_DATASETS.items() if ds in fronts]
    if not found:
        return []
    deltas = []
    for name, ds in found:
        first = rows[rows["dataset"] == ds].iloc[0]
        deltas.append(abs(float(first["n_train"] + first["n_test"]) - paper.at[name, "n"]))
    return [
        {
            "number": "Table 3.5",
            "title": "data set sizes n of the fronts",
            "file": "moevosvm_t35_datasets.csv",
            "metric": "n",
            "n_published": len(paper),
            "datasets": [name for name, _ in found],
            "mean_abs_delta": {"n": float(np.mean(deltas))},
            "spread_run": 0.0,
        }
    ]


MOEVOSVM_FRONTS = Reproduction(
    name="moevosvm_fronts",
    source="Mierswa 2009, Sec. 3.2.7 (MO-EvoSVM Pareto fronts, Figs. 3.2/3.3; Table 3.5)",
    tables=(
        PublishedTable(
            "training error (%) of the front's largest-margin member vs the default error",
            "moevosvm_t35_default_error.csv",
            "front_large_margin_error",
            scale=100.0,
            number="Table 3.5 (default error)",
            note="the thesis: every front begins at the default classifier, which predicts the "
            "majority class (Sec. 3.2.7.1); Table 3.5 prints its error",
        ),
        PublishedTable(
            "training error (%) at the front's other end",
            "moevosvm_figs_3_2_3_3_zero_end.csv",
            "front_min_train_error",
            scale=100.0,
            number="Figs. 3.2/3.3",
            read_off="Figs. 3.2/3.3 and Sec. 3.2.7.1: every front ends at zero training error",
        ),
    ),
    datasets=_T35_DATASETS,
    methods={"MO-EvoSVM": "moevosvm"},
    note="training error on the part MO-EvoSVM fits (80 % of the training part; the rest is "
    "its hold-out, Sec. 3.2.6)",
    prepare=front_columns,
    derived=FRONT_COLUMNS,
    extra_sections=front_sections,
    summaries=front_summaries,
    protocol=Protocol(
        "one random 80/20 split, mu = 100, 1000 generations, NSGA-II", folds=None, repeats=1
    ),
    deviations=("moevosvm_fronts",),
)


def tsvm_sections(rows: pd.DataFrame) -> list[Section]:
    """Table 5.1's sizes beside the run's training (labeled) and test (unlabeled) parts."""
    paper = read_published("tsvm_t51_datasets.csv")
    table = {}
    for name, ds in _T51_DATASETS.items():
        block = rows[rows["dataset"] == ds]
        if block.empty:
            continue
        first, p = block.iloc[0], paper.loc[name]
        table[name] = {
            "n labeled (paper)": f"{int(first['n_train'])} ({int(p['n'])})",
            "n* unlabeled (paper)": f"{int(first['n_test'])} ({int(p['n*'])})",
            "m (paper)": f"2 ({int(p['m'])})",
        }
    if not table:
        return []
    return [
        _section(
            "Mierswa 2009, Table 5.1: the transductive data sets, this run (paper)",
            table,
            "the generators are svmlab's (the thesis gives none; docs/decisions/evo.md)",
        )
    ]


def tsvm_summaries(rows: pd.DataFrame) -> list[dict]:
    """The summary (:func:`svmlab.reproduce.engine.table_summaries`) of Table 5.1's sizes."""
    paper = read_published("tsvm_t51_datasets.csv")
    deltas, found = [], []
    for name, ds in _T51_DATASETS.items():
        block = rows[rows["dataset"] == ds]
        if block.empty:
            continue
        found.append(name)
        first = block.iloc[0]
        deltas += [abs(first["n_train"] - paper.at[name, "n"])]
        deltas += [abs(first["n_test"] - paper.at[name, "n*"])]
    if not found:
        return []
    return [
        {
            "number": "Table 5.1",
            "title": "labeled and unlabeled points per data set",
            "file": "tsvm_t51_datasets.csv",
            "metric": "n, n*",
            "n_published": len(paper),
            "datasets": found,
            "mean_abs_delta": {"n, n*": float(np.mean(deltas))},
            "spread_run": 0.0,
        }
    ]


TSVM_FIGURES = Reproduction(
    name="tsvm_figures_5_2_to_5_7",
    source="Mierswa 2009, Sec. 5.3.1 (inductive SVM vs Evo-T-SVM; Table 5.1, Figs. 5.2-5.7)",
    tables=(
        PublishedTable(
            "error on the unlabeled points (%)",
            "tsvm_figs_5_2_5_7_error.csv",
            "error_rate",
            scale=100.0,
            digits=1,
            number="Figs. 5.2-5.7",
            read_off="Figs. 5.2, 5.4 and 5.6 and the text of Sec. 5.3.1",
            note="read off: 4-Clusters, the inductive SVM puts both unlabeled points on the "
            "negative side (1 of 2 wrong), Evo-T-SVM separates upper from lower; 3-Clusters, "
            "'both SVMs perform equally well' on the given points (none wrong); 2-Moons, "
            "Evo-T-SVM 'almost perfect' (0), the inductive SVM's error not readable (a small "
            "positive spot, most of the positive moon predicted negative)",
        ),
    ),
    datasets=_T51_DATASETS,
    methods={"inductive SVM": "mysvm_like", "Evo-T-SVM": "tsvm_evo"},
    note="the inductive SVM is the thesis's JMySVM, emulated by LIBSVM on z-scored inputs "
    "(mysvm_like); libsvm_kernel on the raw inputs is svmlab's second comparator",
    extra_sections=tsvm_sections,
    summaries=tsvm_summaries,
    deviations=("tsvm_figures",),
    protocol=Protocol(
        "the labeled points train, the unlabeled points are predicted; one run", repeats=1
    ),
)
