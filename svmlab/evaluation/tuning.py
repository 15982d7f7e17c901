"""Hyper-parameter selection over a solver's grid.

``tuning.mode`` chooses how (see ``conf/config.yaml``):

``nested``
    For each outer training part, every grid point is scored by an inner
    stratified / bag-level / plain k-fold CV on that part only; the best point is
    refitted on the whole training part and evaluated once on the test part.
``outer_best``
    Every grid point is evaluated on every outer fold; the runner later keeps, per
    dataset and solver, the point with the best *mean outer* score. Optimistically
    biased, but it is how several of the reproduced papers selected parameters.
``none``
    The grid is ignored; the solver's configured parameters are used.
"""

from __future__ import annotations

import json

import numpy as np

from svmlab.data.dataset import Dataset
from svmlab.errors import ConfigError
from svmlab.evaluation.evaluate import fit_and_score
from svmlab.evaluation.metrics import direction
from svmlab.evaluation.protocols import make_splits
from svmlab.seeding import derive_seed
from svmlab.solvers import SolverSpec

MODES = ("nested", "outer_best", "none")
DEFAULT_SCORING = {"multitarget": "armse", "regression": "rmse"}


def scoring_metric(tuning: dict, task: str) -> str:
    """The metric the grid search optimises on a ``task`` dataset."""
    return tuning.get("scoring") or DEFAULT_SCORING.get(task, "accuracy")


def check_tuning(tuning: dict) -> None:
    """Validate ``tuning.mode``, ``tuning.inner_folds`` and ``tuning.scoring`` (ConfigError)."""
    mode = tuning.get("mode", "nested")
    if mode not in MODES:
        raise ConfigError(f"tuning.mode={mode!r} is not valid; choose one of {', '.join(MODES)}")
    k = tuning.get("inner_folds", 3)
    if not isinstance(k, int) or k < 2:
        raise ConfigError(f"tuning.inner_folds must be an integer >= 2, got {k!r}")
    if tuning.get("scoring") is not None:
        direction(tuning["scoring"])  # raises UnknownNameError for unknown metrics


def model_key(solver: SolverSpec, point: dict) -> str:
    """Identity of the model a grid point trains: the point without the parameters the
    estimator declares irrelevant there (its ``tuning_ignores()``, e.g. OLLAWV's ``C``
    under the scaled margin). Grid points with the same key are trained once."""
    ignores = getattr(solver.build(point), "tuning_ignores", None)
    skip = set(ignores()) if callable(ignores) else set()
    return json.dumps(
        {k: v for k, v in point.items() if k not in skip}, sort_keys=True, default=str
    )


def point_seed(random_state: int | None, key: str) -> int | None:
    """The ``random_state`` of one grid point: per (dataset, fold, grid point), as the MIL
    study seeds its random initialisations; equivalent points share it."""
    return None if random_state is None else derive_seed(random_state, key)


def inner_search(
    solver: SolverSpec,
    train: Dataset,
    *,
    tuning: dict,
    preprocessing: dict | None,
    classes,
    seed: int,
    random_state: int | None,
) -> tuple[dict, list[dict]]:
    """Grid search with an inner CV on ``train``.

    Returns
    -------
    best : dict
        The grid point with the best mean inner score (the first one on ties).
    table : list of dict
        ``{"params": point, "score": mean inner score}`` for every point.
    """
    metric = scoring_metric(tuning, train.task)
    sign = 1.0 if direction(metric) == "max" else -1.0
    inner = {"kind": "auto_kfold", "n_splits": int(tuning.get("inner_folds", 3)), "n_repeats": 1}
    n_splits = min(inner["n_splits"], train.n_samples)
    inner["n_splits"] = max(n_splits, 2)
    splits = make_splits(inner, train.task, train.targets, derive_seed(seed, "inner"), train.name)
    parts = [(train.subset(s.train), train.subset(s.test)) for s in splits]
    table, done = [], {}
    for point in solver.grid_points():
        key = model_key(solver, point)
        if key not in done:  # equivalent points (same model) are trained once
            scores = [
                fit_and_score(
                    solver,
                    point,
                    a,
                    b,
                    preprocessing=preprocessing,
                    classes=classes,
                    random_state=point_seed(random_state, key),
                ).metrics[metric]
                for a, b in parts
            ]
            done[key] = float(np.nanmean(scores)) if np.any(np.isfinite(scores)) else np.nan
        table.append({"params": point, "score": done[key]})
    finite = [(i, sign * row["score"]) for i, row in enumerate(table) if np.isfinite(row["score"])]
    best = max(finite, key=lambda t: (t[1], -t[0]))[0] if finite else 0
    return table[best]["params"], table
