"""Read a run's (or a sweep's) results and summarise them per dataset x method.

This module is the seam the statistics module plugs into: :func:`load_results` gives
the rows, :func:`aggregate` the tidy (dataset, method, value) table a rank test needs,
and :func:`build_report` the list of report sections that ``svmlab report`` renders.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from svmlab.errors import ResultsError, SvmlabError
from svmlab.evaluation.metrics import direction, get_metric, metrics_for_task, pool_confusion
from svmlab.runner.store import RESULTS_FILE, RUN_FILE, TASKS_DIR, read_task_rows

#: The metric summarised when none is named, per task type.
DEFAULT_METRIC = {
    "binary": "accuracy",
    "multiclass": "accuracy",
    "multi_instance": "accuracy",
    "stream": "accuracy",
    "regression": "rmse",
    "multitarget": "arrmse",
}
FORMATS = ("markdown", "csv", "latex")


def run_dirs(path: str | Path) -> list[Path]:
    """The run directories at or below ``path`` (a run, or a sweep of runs)."""
    path = Path(path)
    if not path.exists():
        raise ResultsError(f"{path} does not exist")
    if (path / RUN_FILE).exists() or (path / TASKS_DIR).is_dir():
        return [path]
    found = sorted({p.parent for p in path.rglob(RUN_FILE)})
    if not found:
        raise ResultsError(f"{path} holds no svmlab run (no {RUN_FILE} or {TASKS_DIR}/ below it)")
    return found


def load_results(path: str | Path) -> pd.DataFrame:
    """All rows of a run or of every run of a sweep.

    ``results.parquet`` is read when it exists; otherwise (e.g. a run still going, or
    killed before it consolidated) the task files are read directly. A ``method``
    column is added: the solver name, with the sweep variant in brackets when runs
    differ by their command-line overrides.
    """
    path = Path(path)
    if path.is_file():
        frames = [pd.read_parquet(path)]
    else:
        frames = []
        for run in run_dirs(path):
            f = run / RESULTS_FILE
            frames.append(pd.read_parquet(f) if f.exists() else read_task_rows(run))
    df = (
        pd.concat([f for f in frames if not f.empty], ignore_index=True)
        if any(not f.empty for f in frames)
        else pd.DataFrame()
    )
    if df.empty:
        raise ResultsError(f"{path} holds no result rows yet")
    variant = _distinguishing(
        df["variant"].fillna("") if "variant" in df else pd.Series("", index=df.index)
    )
    df["method"] = np.where(variant == "", df["solver"], df["solver"] + " [" + variant + "]")
    if "tuning_mode" in df:  # optimistic selection is labelled wherever the method is shown
        df["method"] = np.where(
            df["tuning_mode"] == "outer_best", df["method"] + " (outer-best)", df["method"]
        )
    return select_outer_best(df)


def _distinguishing(variants: pd.Series) -> pd.Series:
    """Drop the overrides every run shares, keeping what tells a sweep's runs apart."""
    items = variants.map(lambda v: [o for o in v.split(";") if o])
    common = set.intersection(*(set(i) for i in items)) if len(items) else set()
    return items.map(lambda i: ", ".join(o for o in i if o not in common))


def select_outer_best(df: pd.DataFrame) -> pd.DataFrame:
    """Mark, for ``tuning.mode=outer_best`` rows, the grid point with the best mean outer score.

    Adds a boolean ``selected`` column: True for every row of other tuning modes, and
    for outer_best rows only for the winning grid point of each (dataset, solver, variant).
    """
    df = df.copy()
    df["selected"] = True
    if "grid_point" not in df or "tuning_metric" not in df:
        return df
    ob = (df["tuning_mode"] == "outer_best") & df["grid_point"].notna() & (df["status"] == "ok")
    for _, group in df[ob].groupby(["dataset", "solver", "variant"], dropna=False):
        metric = group["tuning_metric"].iloc[0]
        means = group.groupby("grid_point")[metric].mean()
        best = means.idxmax() if direction(metric) == "max" else means.idxmin()
        df.loc[group.index, "selected"] = group["grid_point"] == best
    return df


def aggregate(df: pd.DataFrame, metric: str, how: str = "mean") -> pd.DataFrame:
    """One value per (dataset, method): the mean over folds (with std), or pooled counts.

    Parameters
    ----------
    df : DataFrame
        Result rows (:func:`load_results`).
    metric : str
        A metric name (see ``svmlab.evaluation.metrics.METRICS``) or a timing column.
    how : {"mean", "pooled"}
        ``pooled`` recomputes a confusion-matrix metric from the folds' summed counts
        (the MIL paper's convention); other metrics fall back to the mean.

    Returns
    -------
    DataFrame with columns dataset, method, value, std, n.
    """
    if how not in ("mean", "pooled"):
        raise SvmlabError(f"aggregate must be 'mean' or 'pooled', got {how!r}")
    ok = df[(df["status"] == "ok") & df["selected"].astype(bool)]
    if metric not in ok.columns:
        known = sorted(c for c in ok.columns if _is_metric(c))
        raise SvmlabError(
            f"metric {metric!r} is not in these results; available: {', '.join(known)}"
        )
    if not _is_task_independent(
        metric
    ):  # only the task types that carry the metric (runs may mix tasks)
        ok = ok[ok["task_type"].map(lambda t: metric in metrics_for_task(t))]
        if ok.empty:
            raise SvmlabError(
                f"metric {metric!r} applies to none of the task types in these results "
                f"({', '.join(sorted(df['task_type'].dropna().unique()))})"
            )
    pooled = how == "pooled" and _poolable(metric) and "confusion" in ok
    rows = []
    for (dataset, method), g in ok.groupby(["dataset", "method"], sort=True):
        values = g[metric].astype(float)
        value = values.mean()
        if pooled:
            classes = json.loads(g["classes"].iloc[0])
            value = pool_confusion(g["task_type"].iloc[0], list(g["confusion"]), classes)[metric]
        rows.append(
            {
                "dataset": dataset,
                "method": method,
                "value": value,
                "std": values.std(ddof=1) if len(g) > 1 else 0.0,
                "n": len(g),
            }
        )
    return pd.DataFrame(rows, columns=["dataset", "method", "value", "std", "n"])


def _poolable(metric: str) -> bool:
    try:
        return get_metric(metric).poolable
    except KeyError:
        return False


COST_COLUMNS = ("model_size", "sv_percent", "task_seconds")
MODEL_COLUMNS = {
    "dual_objective": "max"
}  # what the fitted model reports about itself, any task type


def _is_cost(column: str) -> bool:
    """Timings and model size: columns of every task type, lower is better."""
    return column.endswith("_time") or column in COST_COLUMNS


def _is_task_independent(column: str) -> bool:
    return _is_cost(column) or column in MODEL_COLUMNS


def _is_metric(column: str) -> bool:
    if _is_task_independent(column):
        return True
    try:
        get_metric(column)
        return True
    except KeyError:
        return False


def metric_direction(metric: str) -> str:
    """``max`` or ``min``; timings and model size are lower-is-better."""
    if _is_cost(metric):
        return "min"
    if metric in MODEL_COLUMNS:
        return MODEL_COLUMNS[metric]
    return direction(metric)


@dataclass
class Section:
    """One titled table of a report."""

    title: str
    table: pd.DataFrame
    best: dict | None = None  # dataset -> best method(s) (bold in Markdown/LaTeX)
    note: str = ""


def summary_section(df: pd.DataFrame, metric: str, how: str = "mean", digits: int = 4) -> Section:
    """Datasets x methods table of ``mean ± std`` (or pooled value), best per dataset marked."""
    agg = aggregate(df, metric, how)
    best_is_max = metric_direction(metric) == "max"
    cells = agg.assign(
        cell=[
            f"{v:.{digits}f} ± {s:.{digits}f}"
            if how == "mean" and n > 1 and np.isfinite(s)
            else f"{v:.{digits}f}"
            for v, s, n in zip(agg["value"], agg["std"], agg["n"])
        ]
    )
    table = cells.pivot(index="dataset", columns="method", values="cell").fillna("—")
    values = agg.pivot(index="dataset", columns="method", values="value")
    best = {}
    for dataset, row in values.iterrows():
        if row.notna().any():
            target = row.max() if best_is_max else row.min()
            best[dataset] = [
                m for m, v in row.items() if np.isclose(v, target, rtol=0, atol=10 ** -(digits + 2))
            ]
    mean_row = values.mean(axis=0)
    table.loc["average"] = [
        f"{mean_row[c]:.{digits}f}" if c in mean_row else "" for c in table.columns
    ]
    arrow = "higher" if best_is_max else "lower"
    label = (
        "pooled over folds" if how == "pooled" and _poolable(metric) else "mean ± std over folds"
    )
    return Section(f"{metric} ({label}; {arrow} is better)", table, best)


def status_section(df: pd.DataFrame) -> Section | None:
    """Failed / timed-out tasks, if any."""
    bad = df[df["status"] != "ok"]
    if bad.empty:
        return None
    table = bad[["dataset", "method", "repeat", "fold", "status", "error"]].reset_index(drop=True)
    return Section(f"{len(bad)} task(s) did not finish", table)


def run_config(path: str | Path) -> dict:
    """The resolved configuration of a run (of the first run of a sweep); {} if none is stored."""
    import yaml

    for run in run_dirs(path) if Path(path).is_dir() else []:
        f = run / "config.yaml"
        if f.exists():
            return yaml.safe_load(f.read_text()) or {}
    return {}


def build_report(
    df: pd.DataFrame,
    metrics: list[str] | None = None,
    how: str = "mean",
    *,
    reproduce: str | None = None,
) -> list[Section]:
    """The sections of ``svmlab report``: one summary per metric, the failed tasks, and
    the published tables side by side when the experiment names a reproduction target.

    Without ``metrics``, each task type gets its default metric (:data:`DEFAULT_METRIC`);
    task types sharing a metric share a table.
    """
    ok = df[df["status"] == "ok"]
    sections = []
    if not ok.empty:
        if metrics:
            sections = [summary_section(ok, m, how) for m in metrics]
        else:
            default = ok["task_type"].map(DEFAULT_METRIC)
            sections = [
                summary_section(ok[default == m], m, how) for m in sorted(default.dropna().unique())
            ]
    if reproduce and not ok.empty:
        from svmlab.reproduce import sections as reproduction_sections

        sections += reproduction_sections(reproduce, df)
    status = status_section(df)
    return sections + ([status] if status is not None else [])


def render(sections: list[Section], fmt: str = "markdown") -> str:
    """Render report sections as Markdown, CSV or LaTeX (booktabs) text."""
    if fmt not in FORMATS:
        raise SvmlabError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    parts = []
    for s in sections:
        table = s.table.copy()
        if fmt == "csv":
            parts.append(f"# {s.title}\n{table.to_csv()}" + (f"# {s.note}\n" if s.note else ""))
            continue
        if s.best:
            for dataset, methods in s.best.items():
                for method in methods:
                    if dataset in table.index and method in table.columns:
                        cell = table.at[dataset, method]
                        table.at[dataset, method] = (
                            f"**{cell}**" if fmt == "markdown" else f"\\textbf{{{cell}}}"
                        )
        if fmt == "markdown":
            parts.append(
                f"## {s.title}\n\n{_markdown(table)}" + (f"\n\n_{s.note}_" if s.note else "")
            )
        else:
            parts.append(f"% {s.title}\n{_latex(table)}" + (f"\n% {s.note}" if s.note else ""))
    return "\n\n".join(parts) + "\n"


def _markdown(table: pd.DataFrame) -> str:
    index_name = table.index.name or ""
    header = [index_name] + [str(c) for c in table.columns]
    rows = [
        [str(i)] + [str(v) for v in r] for i, r in zip(table.index, table.itertuples(index=False))
    ]
    widths = [
        max(len(h), *(len(r[j]) for r in rows)) if rows else len(h) for j, h in enumerate(header)
    ]
    fmt = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"
    sep = "|" + "|".join("-" * (w + 2) for w in widths) + "|"
    return "\n".join([fmt(header), sep] + [fmt(r) for r in rows])


def _latex(table: pd.DataFrame) -> str:
    esc = lambda s: str(s).replace("_", r"\_").replace("±", r"$\pm$").replace("%", r"\%")
    cols = "l" + "r" * len(table.columns)
    lines = [
        rf"\begin{{tabular}}{{{cols}}}",
        r"\toprule",
        " & ".join([esc(table.index.name or "")] + [esc(c) for c in table.columns]) + r" \\",
        r"\midrule",
    ]
    for idx, row in table.iterrows():
        if idx == "average":
            lines.append(r"\midrule")
        lines.append(" & ".join([esc(idx)] + [esc(v) for v in row]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    return "\n".join(lines)
