"""The trials of a Hydra Optuna sweep (``svmlab run -m hydra/sweeper=optuna ...``).

The sweeper writes ``optimization_results.yaml`` (best parameters and value) into the sweep
directory, one run directory per trial (``0/``, ``1/``, ...). :func:`trials_section` puts
each trial's overrides and its inner-CV objective (:func:`inner_objective`, what
the sweeper maximised) in one table of ``svmlab report SWEEP_DIR``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from svmlab.stats.sections import Section

RESULTS_FILE = "optimization_results.yaml"


def inner_objective(df) -> float:
    """The run's mean inner-CV score: for every result row tuned with ``tuning.mode=nested``,
    the best mean inner score of its grid (``grid_scores``, the point the run chose), oriented
    so that higher is better (``-rmse`` for an error metric); averaged over the rows. No test
    fold enters it. NaN when no row has inner scores (``tuning.mode`` other than nested).

    >>> import pandas as pd
    >>> g = '[{"params": {"C": 1}, "score": 0.8}, {"params": {"C": 10}, "score": 0.9}]'
    >>> inner_objective(pd.DataFrame({"grid_scores": [g], "tuning_metric": ["accuracy"]}))
    0.9
    >>> inner_objective(pd.DataFrame({"grid_scores": [g], "tuning_metric": ["rmse"]}))
    -0.8
    """
    import json
    import math

    from svmlab.evaluation.metrics.registry import direction

    if "grid_scores" not in df.columns or "tuning_metric" not in df.columns:
        return math.nan
    best = []
    for table, metric in zip(df["grid_scores"], df["tuning_metric"], strict=True):
        if not isinstance(table, str) or not table or not isinstance(metric, str):
            continue
        sign = 1.0 if direction(metric) == "max" else -1.0
        scores = [sign * float(p["score"]) for p in json.loads(table) if p.get("score") is not None]
        scores = [v for v in scores if math.isfinite(v)]
        if scores:
            best.append(max(scores))
    return sum(best) / len(best) if best else math.nan


def _varying(labels: list[str]) -> list[str]:
    """Each ``;``-joined override list without the overrides every trial shares.

    >>> _varying(["protocol=holdout;solver.C=1", "protocol=holdout;solver.C=2"])
    ['solver.C=1', 'solver.C=2']
    """
    parts = [label.split(";") if label else [] for label in labels]
    common = set.intersection(*(set(p) for p in parts)) if len(parts) > 1 else set()
    return [" ".join(o for o in p if o not in common) for p in parts]


def trial_table(sweep_dir: str | Path) -> pd.DataFrame:
    """One row per trial (job number): its overrides and inner-CV objective, sorted by job.

    A trial without results (failed before writing any) has a NaN objective.
    """
    sweep = Path(sweep_dir)
    jobs = sorted((int(p.name), p) for p in sweep.iterdir() if p.is_dir() and p.name.isdigit())
    rows = []
    for num, job_dir in jobs:
        results = job_dir / "results.parquet"
        df = pd.read_parquet(results) if results.is_file() else pd.DataFrame()
        variant = str(df["variant"].dropna().iloc[0]) if "variant" in df and len(df) else ""
        rows.append({"trial": num, "overrides": variant, "inner_cv": inner_objective(df)})
    table = pd.DataFrame(rows, columns=["trial", "overrides", "inner_cv"])
    table["overrides"] = _varying(list(table["overrides"]))
    return table.set_index("trial")


def trials_section(sweep_dir: str | Path) -> Section | None:
    """The report section of an Optuna sweep directory; None for any other directory."""
    import yaml

    sweep = Path(sweep_dir)
    path = sweep / RESULTS_FILE
    if not path.is_file():
        return None
    best = yaml.safe_load(path.read_text()) or {}
    table = trial_table(sweep)
    if table.empty:
        return None
    best_trial = table["inner_cv"].idxmax() if table["inner_cv"].notna().any() else None
    table["best"] = ["yes" if t == best_trial else "" for t in table.index]
    table["inner_cv"] = table["inner_cv"].map(lambda v: f"{v:.4f}")
    params = " ".join(f"{k}={v}" for k, v in (best.get("best_params") or {}).items())
    note = (
        f"Optuna maximised each trial's mean inner-CV score (tuning.mode=nested; -rmse for an "
        f"error metric), never a test fold; best: {params} (inner-CV {best.get('best_value')})"
    )
    return Section(title=f"Optuna trials ({len(table)})", table=table, note=note)
