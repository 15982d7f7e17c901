"""``svmlab report``'s sections: the summary per metric, the failed tasks, and the
published tables beside each run of the results (one set per job of a sweep)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from svmlab.evaluation.metrics import default_metric
from svmlab.results import aggregate, direction_of, poolable, run_configs
from svmlab.stats.sections import Section


def summary_section(
    df: pd.DataFrame, metric: str, how: str = "mean", digits: int = 4, derived=None
) -> Section:
    """Datasets x methods table of ``mean ± std`` (or pooled value), best per dataset marked
    (``derived``: the directions of the columns the runs' reproductions derived)."""
    agg = aggregate(df, metric, how)
    best_is_max = direction_of(metric, df, derived) == "max"
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
    label = "pooled over folds" if how == "pooled" and poolable(metric) else "mean ± std over folds"
    return Section(f"{metric} ({label}; {arrow} is better)", table, best)


def status_section(df: pd.DataFrame) -> Section | None:
    """Failed / timed-out tasks, if any."""
    bad = df[df["status"] != "ok"]
    if bad.empty:
        return None
    table = bad[["dataset", "method", "repeat", "fold", "status", "error"]].reset_index(drop=True)
    return Section(f"{len(bad)} task(s) did not finish", table)


def reproduction_sections(df: pd.DataFrame, configs: dict[str, dict]) -> list[Section]:
    """The published tables beside each run's values, run by run.

    Each job of a sweep is compared with the reproduction target of its own configuration
    (``evosvm_table_3_4_C${evo.C}``, say) using its own rows only, and its sections are
    labelled with the job's overrides; rows of other jobs never enter its tables or tests.
    """
    out = []
    several = len(configs) > 1
    for run_dir, config in configs.items():
        target = config.get("reproduce")
        if not target:
            continue
        rows = df[df["run_dir"] == run_dir]
        if rows.empty:
            continue
        from svmlab.reproduce import sections as reproduce_sections  # only runs with a target

        label = _job_label(rows)
        for section in reproduce_sections(target, rows):
            if several:
                section.title = f"[{label}] {section.title}"
                if section.key:
                    section.key = (section.key[0], f"[{label}] {section.key[1]}")
            out.append(section)
    return out


def derived_columns(df: pd.DataFrame, configs: dict[str, dict]) -> pd.DataFrame:
    """Each run's rows with the columns its reproduction target derives (e.g. the MLM studies'
    scaled norms), so that they can be summarised and tested like any metric."""
    parts = []
    for run_dir, rows in df.groupby("run_dir", sort=False) if "run_dir" in df else []:
        target = (configs.get(run_dir) or {}).get("reproduce")
        if target:
            from svmlab.reproduce import derive_columns  # only runs with a target

            rows = derive_columns(target, rows)
        parts.append(rows)
    return pd.concat(parts) if parts else df


def derived_directions(configs: dict[str, dict]) -> dict[str, str]:
    """``{column: "max" | "min"}`` of the columns the runs' reproduction targets derive."""
    targets = {c.get("reproduce") for c in configs.values() if c} - {None}
    if not targets:
        return {}
    from svmlab.reproduce import get_reproduction

    return {k: v for t in sorted(targets) for k, v in get_reproduction(t).derived.items()}


def _job_label(rows: pd.DataFrame) -> str:
    labels = rows["job"].dropna().unique() if "job" in rows else []
    return str(labels[0]) if len(labels) and labels[0] else "default"


def build_report(
    df: pd.DataFrame,
    metrics: list[str] | None = None,
    how: str = "mean",
    *,
    configs: dict[str, dict] | None = None,
) -> list[Section]:
    """The sections of ``svmlab report``: one summary per metric, the failed tasks, and
    the published tables side by side for each run that names a reproduction target.

    Parameters
    ----------
    df : DataFrame
        Result rows (:func:`svmlab.results.load_results`).
    metrics : list of str, optional
        Without them each task type gets its default metric
        (:func:`svmlab.evaluation.metrics.default_metric`); task types sharing a metric
        share a table.
    how : {"mean", "pooled"}
    configs : dict, optional
        ``{run_dir: configuration}``; by default each run's stored ``config.yaml``
        (:func:`svmlab.results.run_configs`). Each run is compared with its own target.
    """
    configs = run_configs(df) if configs is None else configs
    return derived_report(derived_columns(df, configs), metrics, how, configs=configs)


def derived_report(
    df: pd.DataFrame, metrics: list[str] | None, how: str, *, configs: dict[str, dict]
) -> list[Section]:
    """:func:`build_report` of rows that carry their targets' columns already
    (:func:`derived_columns`, which runs each target's derivation once)."""
    ok = df[df["status"] == "ok"]
    sections = []
    if not ok.empty:
        derived = derived_directions(configs)
        if metrics:
            sections = [summary_section(ok, m, how, derived=derived) for m in metrics]
        else:
            default = ok["task_type"].map(default_metric)
            sections = [
                summary_section(ok[default == m], m, how, derived=derived)
                for m in sorted(default.dropna().unique())
            ]
        sections += reproduction_sections(df, configs)
    status = status_section(df)
    return sections + ([status] if status is not None else [])
