"""A run's stored results: read the rows of a run or a sweep, and aggregate them.

:func:`load_results` gives the rows, :func:`aggregate` the tidy (dataset, method, value)
table a rank test needs; reports and reproductions are built on these two.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from svmlab.errors import ResultsError, SvmlabError, UnknownNameError
from svmlab.evaluation.metrics import (
    METRICS,
    column_direction,
    get_metric,
    is_result_column,
    is_task_independent,
    metrics_for_task,
    pool_confusion,
)
from svmlab.runner.store import RESULTS_FILE, RUN_FILE, TASKS_DIR, read_task_rows
from svmlab.solvers import SolverSpec


def run_dirs(path: str | Path) -> list[Path]:
    """The run directories at or below ``path`` (a run, or a sweep of runs)."""
    path = Path(path)
    if not path.exists():
        raise ResultsError(f"{path} does not exist")
    if (path / RUN_FILE).exists() or (path / TASKS_DIR).is_dir():
        return [path]
    found = sorted(  # not in hidden folders (e.g. a pack's copy being written)
        {
            p.parent
            for p in path.rglob(RUN_FILE)
            if not any(part.startswith(".") for part in p.relative_to(path).parts)
        }
    )
    if not found:
        raise ResultsError(f"{path} holds no svmlab run (no {RUN_FILE} or {TASKS_DIR}/ below it)")
    return found


def _read_consolidated(f: Path) -> pd.DataFrame | None:
    """A run's ``results.parquet``, or None (with a note on stderr) when it cannot be read,
    e.g. truncated by a full disk: the rows are then read from the run's task files."""
    try:
        return pd.read_parquet(f)
    except (OSError, ValueError) as exc:
        print(
            f"svmlab: note: {f} cannot be read ({type(exc).__name__}); reading the rows from "
            f"{f.parent / 'tasks'} instead",
            file=sys.stderr,
        )
        return None


def load_results(path: str | Path) -> pd.DataFrame:
    """All rows of a run or of every run of a sweep.

    ``results.parquet`` is read when it exists; otherwise (e.g. a run still going, or
    killed before it consolidated) the task files are read directly. Three columns are
    added: ``job``, the command-line overrides that tell a sweep's runs apart (empty for
    a single run), ``method``, the solver name with ``job`` in brackets when it is not
    empty, and ``run_dir``, the directory of the run each row comes from
    (:func:`run_configs`).
    """
    path = Path(path)
    if path.is_file():
        try:
            frames = [pd.read_parquet(path).assign(run_dir=str(path.parent))]
        except (OSError, ValueError) as exc:  # pyarrow's ArrowInvalid is a ValueError
            raise ResultsError(
                f"{path} is not a readable results Parquet file ({type(exc).__name__}); give a "
                "run directory or its results.parquet"
            ) from None
    else:
        frames = []
        for run in run_dirs(path):
            f = run / RESULTS_FILE
            rows = _read_consolidated(f) if f.exists() else None
            if rows is None:
                rows = read_task_rows(run)
            frames.append(rows.assign(run_dir=str(run)) if not rows.empty else rows)
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
    df["job"] = variant  # what tells this row's run apart from the others of a sweep
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


def declared_directions(df: pd.DataFrame) -> dict[str, str]:
    """``{column: "max" | "min"}`` of the extra row values the run's estimators declare.

    Read from the contract (:mod:`svmlab.contract`) of each solver class the rows record
    (``solver_params``' ``_target_``); a class that cannot be imported here adds nothing.
    """
    out = {}
    settings = df["solver_params"].dropna().unique() if "solver_params" in df else ()
    for target in {json.loads(s).get("_target_") for s in settings} - {None}:
        spec = SolverSpec(name=str(target), target=str(target))
        try:
            values = spec.contract.row_values
        except (ImportError, AttributeError, ValueError, TypeError):
            continue
        out.update({column: v.direction for column, v in values.items()})
    return out


#: Columns the runner wrote before estimators declared their row values (a reproduction derives
#: them now): result files of earlier runs still carry them.
FORMER_ROW_COLUMNS = {"sv_percent": "min", "sparsity": "max"}


def direction_of(column: str, df: pd.DataFrame, derived: dict | None = None) -> str:
    """``"max"`` or ``"min"``: whether a higher or a lower value of ``column`` is better.

    A metric or a cost column (the metric registry), a row value the run's estimators declare
    (:func:`declared_directions`), or a column a reproduction derived (``derived``, from its
    target's ``derived``), or a column of earlier result files (:data:`FORMER_ROW_COLUMNS`).

    Raises
    ------
    UnknownNameError
        If ``column`` is none of them.
    """
    if is_result_column(column):
        return column_direction(column)
    known = {**FORMER_ROW_COLUMNS, **declared_directions(df), **(derived or {})}
    if column in known:
        return known[column]
    raise UnknownNameError("metric", column, [*METRICS, *known])


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
        best = means.idxmax() if column_direction(metric) == "max" else means.idxmin()
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
        declared = declared_directions(ok)
        known = sorted(c for c in ok.columns if is_result_column(c) or c in declared)
        raise SvmlabError(
            f"metric {metric!r} is not in these results; available: {', '.join(known)}"
        )
    # a metric only over the task types that carry it (runs may mix); costs and declared
    # or derived values over every row that has them
    if metric in METRICS and not is_task_independent(metric):
        ok = ok[ok["task_type"].map(lambda t: metric in metrics_for_task(t))]
        if ok.empty:
            raise SvmlabError(
                f"metric {metric!r} applies to none of the task types in these results "
                f"({', '.join(sorted(df['task_type'].dropna().unique()))})"
            )
    pooled = how == "pooled" and poolable(metric) and "confusion" in ok
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


def poolable(metric: str) -> bool:
    """Whether ``metric`` can be recomputed from the folds' summed confusion counts."""
    try:
        return get_metric(metric).poolable
    except KeyError:
        return False


def read_config(run_dir: str | Path) -> dict:
    """The resolved configuration stored in a run directory; {} if none is stored."""
    f = Path(run_dir) / "config.yaml"
    return (yaml.safe_load(f.read_text()) or {}) if f.exists() else {}


def run_configs(df: pd.DataFrame) -> dict[str, dict]:
    """``{run_dir: configuration}`` of every run (job of a sweep) the rows come from."""
    if "run_dir" not in df:
        return {}
    return {d: read_config(d) for d in sorted(df["run_dir"].dropna().unique())}


def run_config(path: str | Path) -> dict:
    """The resolved configuration of a run (of the first run of a sweep); {} if none is stored.

    Report defaults (``report.aggregate``, ``report.bd_alpha``) come from here; what differs
    between the jobs of a sweep (the reproduction target, say) is read per job with
    :func:`run_configs`.
    """
    path = Path(path)
    if path.is_file():  # a results.parquet: its run directory's configuration
        return read_config(path.parent)
    for run in run_dirs(path):
        f = run / "config.yaml"
        if f.exists():
            return read_config(run)
    return {}


def _expected_folds(config: dict, task: str, dataset: str) -> int | None:
    """Tasks per (dataset, method) under the run's protocol; None when it cannot be told."""
    from svmlab.evaluation.protocols import get_protocol

    try:
        protocol = get_protocol(config["protocol"]).check(task, dataset)
        return int(protocol.n_repeats * protocol.n_folds)
    except (SvmlabError, KeyError, TypeError, ValueError):
        return None


def _listed_solvers(config: dict, task: str) -> set[str]:
    """Names of the solvers a run's configuration lists for ``task`` (its ``solvers``
    entries, else its ``solver``); an empty set when the configuration does not say."""
    many = config.get("solvers") or {}
    entries = [e for e in (many.values() if isinstance(many, dict) else many) if e]
    entries = entries or [config.get("solver")]
    return {
        str(e.get("name"))
        for e in entries
        if isinstance(e, dict) and e.get("name") and task in (e.get("tasks") or [task])
    }


def _listed_datasets(config: dict) -> list[str]:
    """Registry names of the datasets a run's configuration lists (its ``datasets`` entries,
    else its ``dataset``); [] when the configuration does not say."""
    from svmlab.data.registry import registry_entry

    many = config.get("datasets") or {}
    entries = [e for e in (many.values() if isinstance(many, dict) else many) if e is not None]
    entries = entries or [config.get("dataset")]
    names = []
    for entry in entries:
        name = entry.get("name") if isinstance(entry, dict) else entry
        try:
            names.append(registry_entry(str(name))["name"])
        except (SvmlabError, KeyError, TypeError):
            continue
    return names


def _run_gaps(rows: pd.DataFrame, config: dict) -> dict[str, str]:
    """``{dataset: what is missing}`` for one run (one job of a sweep): datasets it lists
    without any row, and datasets where a method has fewer finished folds than the protocol
    gives (or than another method has), or none while it ran on others of the same task."""
    gaps = {name: "no rows yet" for name in _listed_datasets(config)}
    done = rows.drop_duplicates(["dataset", "method", "repeat", "fold"])
    counts = done.groupby(["dataset", "method"]).size()
    methods_by_task = done.groupby("task_type")["method"].agg(lambda m: sorted(set(m)))
    for dataset, group in done.groupby("dataset"):
        gaps.pop(dataset, None)
        task = group["task_type"].iloc[0]
        expected = _expected_folds(config, task, dataset) or counts[dataset].max()
        short = [
            f"{m} {counts.get((dataset, m), 0)} of {expected} folds"
            for m in methods_by_task.get(task, [])
            if counts.get((dataset, m), 0) < expected
        ]
        if short:
            gaps[dataset] = ", ".join(short)
    return gaps


def unstarted_solvers(df: pd.DataFrame) -> list[str]:
    """The solvers a run's (or sweep's) configuration lists that have no row at all yet: a
    killed study that never reached them. They are no method of the run's tables, so, unlike
    :func:`incomplete_datasets`, they leave every dataset in the rank tests."""
    if df.empty or "run_dir" not in df:
        return []
    missing: set[str] = set()
    for run_dir, config in run_configs(df).items():
        rows = df[df["run_dir"] == run_dir]
        ran = set(rows["solver"].dropna()) if "solver" in rows else set()
        for task in rows["task_type"].dropna().unique() if "task_type" in rows else []:
            missing |= _listed_solvers(config, task) - ran
    return sorted(missing)


def sparse_methods(df: pd.DataFrame) -> dict[str, str]:
    """The methods of an unfinished run (or sweep block) that its rank tests had better set
    aside than the datasets they have not reached.

    A paired comparison needs every method on every dataset. When a method has rows on only
    some of the datasets the others have, either those datasets or that method must go;
    :func:`common_folds` drops the datasets. Per task, this returns the methods to drop
    first when that keeps more (dataset, method) cells with at least 2 datasets and 2
    methods: a study run in solver order, whose last-started method has one fold of one
    dataset, is then still tested on all its datasets, without that method.

    Returns
    -------
    dict
        ``{method: "rows on k of n datasets"}``, empty when dropping datasets keeps as much.
    """
    if df.empty or not {"dataset", "method", "task_type"} <= set(df.columns):
        return {}
    aside: dict[str, str] = {}
    pairs = df[["task_type", "dataset", "method"]].drop_duplicates()
    for _, rows in pairs.groupby("task_type"):
        has = pd.crosstab(rows["dataset"], rows["method"]).astype(bool)
        n_datasets, n_methods = has.shape
        whole_datasets = int(has.all(axis=1).sum())
        whole_methods = has.columns[has.all(axis=0)]
        cells_dropping_datasets = whole_datasets * n_methods if whole_datasets >= 2 else 0
        cells_dropping_methods = n_datasets * len(whole_methods) if len(whole_methods) >= 2 else 0
        if n_datasets >= 2 and cells_dropping_methods > cells_dropping_datasets:
            for method in has.columns.difference(whole_methods):
                aside[method] = f"rows on {int(has[method].sum())} of {n_datasets} datasets"
    return dict(sorted(aside.items()))


def common_folds(df: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str], dict[str, str]]:
    """The rows of a killed or running run (or sweep) cut, per dataset, to the folds every
    method has finished: what a paired comparison of the methods may use.

    A run stopped early (``runner.order=folds`` covers every dataset on its first folds) leaves
    datasets where the methods have finished different folds; the folds they share still give
    a fair comparison. Methods are those ``df`` has rows of for the dataset's task, over every
    run in it (a sweep compared as one block pairs its runs' methods on the same folds); a
    failed task counts as finished.

    Returns
    -------
    rows : DataFrame
        ``df`` without the rows of folds some method of the dataset lacks.
    cut : dict
        ``{dataset: "k of n folds"}`` for the datasets compared on fewer folds than the
        protocol gives (n: the protocol's count, else the most any method has).
    left_out : dict
        ``{dataset: why}`` for the datasets without a fold every method has finished (or
        without any row yet, of those the run's configuration lists).
    """
    if df.empty or "run_dir" not in df or not {"repeat", "fold"} <= set(df.columns):
        return df, {}, {}
    configs = run_configs(df)
    left_out: dict[str, str] = {}
    for run_dir, rows in df.groupby("run_dir", sort=True):  # listed, never reached
        for name in _listed_datasets(configs.get(run_dir) or {}):
            if name not in set(rows["dataset"]):
                left_out[name] = "no rows yet"
    # the methods of the block (every run of a sweep compared together), per task
    methods_by_task = df.groupby("task_type")["method"].agg(lambda m: set(m))
    keep = pd.Series(False, index=df.index)
    cut: dict[str, str] = {}
    for dataset, group in df.groupby("dataset"):
        left_out.pop(dataset, None)
        methods = methods_by_task.get(group["task_type"].iloc[0], set())
        folds = {m: set(zip(g["repeat"], g["fold"])) for m, g in group.groupby("method")}
        shared = set.intersection(*(folds.get(m, set()) for m in methods)) if methods else set()
        if not shared:
            missing = sorted(m for m in methods if m not in folds)
            left_out[dataset] = (
                f"no rows of {', '.join(missing)}" if missing else "no fold every method has"
            )
            continue
        pairs = pd.Series(list(zip(group["repeat"], group["fold"])), index=group.index)
        keep[group.index[pairs.isin(shared).to_numpy()]] = True
        task = group["task_type"].iloc[0]
        run_dir = group["run_dir"].iloc[0]
        expected = _expected_folds(configs.get(run_dir) or {}, task, dataset)
        expected = expected or max(len(f) for f in folds.values())
        if len(shared) < expected:
            cut[dataset] = f"{len(shared)} of {expected} folds"
    return df[keep], dict(sorted(cut.items())), dict(sorted(left_out.items()))


def incomplete_datasets(df: pd.DataFrame) -> dict[str, str]:
    """``{dataset: what is missing}`` of a killed or still running run (or sweep): the
    datasets that do not yet have every method's folds. A failed task counts as finished.

    The summary tables show what these datasets have; rank tests compare them on the folds
    every method has finished (:func:`common_folds`).
    """
    if df.empty or "run_dir" not in df or not {"repeat", "fold"} <= set(df.columns):
        return {}
    configs = run_configs(df)
    gaps: dict[str, list[str]] = {}
    for run_dir, rows in df.groupby("run_dir", sort=True):
        for dataset, why in _run_gaps(rows, configs.get(run_dir) or {}).items():
            gaps.setdefault(dataset, []).append(why)
    return {d: "; ".join(dict.fromkeys(whys)) for d, whys in sorted(gaps.items())}
