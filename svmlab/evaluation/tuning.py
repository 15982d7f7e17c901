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
from dataclasses import dataclass

import numpy as np

from svmlab.data.dataset import Dataset
from svmlab.errors import ConfigError
from svmlab.evaluation.evaluate import fit_and_score, fit_and_score_path
from svmlab.evaluation.metrics import default_metric, direction, metrics_for_task
from svmlab.evaluation.protocols import AutoKFold, Prequential, Protocol
from svmlab.seeding import derive_seed
from svmlab.solvers import SolverSpec

MODES = ("nested", "outer_best", "none")


@dataclass(frozen=True)
class Tuning:
    """The validated ``tuning`` configuration of a run.

    Parameters
    ----------
    mode : {"nested", "outer_best", "none"}
        How grid points are chosen (see the module docstring).
    inner_folds : int
        Folds of the inner CV of ``nested``.
    scoring : str or None
        The metric optimised; None: the task's default
        (:func:`svmlab.evaluation.metrics.default_metric`).
    inner_always : bool
        With ``nested``, also run the inner CV of a solver without a grid (its one
        configuration), so that every row records an inner-CV score; ``svmlab run`` sets it
        for ``hydra/sweeper=optuna``, which optimises that score.
    """

    mode: str = "nested"
    inner_folds: int = 3
    scoring: str | None = None
    inner_always: bool = False

    @classmethod
    def from_config(cls, config: dict | None) -> Tuning:
        """Validate a ``tuning`` mapping (:class:`ConfigError` naming the key and valid values)."""
        config = dict(config or {})
        unknown = sorted(set(config) - {"mode", "inner_folds", "scoring", "inner_always"})
        if unknown:
            raise ConfigError(
                f"tuning has no key {unknown[0]!r}; valid keys: inner_always, inner_folds, mode, "
                "scoring"
            )
        tuning = cls(**config)
        if tuning.mode not in MODES:
            raise ConfigError(
                f"tuning.mode={tuning.mode!r} is not valid; choose one of {', '.join(MODES)}"
            )
        k = tuning.inner_folds
        if not isinstance(k, int) or isinstance(k, bool) or k < 2:
            raise ConfigError(f"tuning.inner_folds must be an integer >= 2, got {k!r}")
        if tuning.scoring is not None:
            direction(tuning.scoring)  # raises UnknownNameError for unknown metrics
        return tuning

    def metric(self, task: str, solver: SolverSpec | None = None) -> str:
        """The metric the grid search optimises on a ``task`` dataset: the solver's own
        ``scoring`` if it has one, else ``tuning.scoring``, else the task's default."""
        own = solver.scoring if solver is not None else None
        return own or self.scoring or default_metric(task)

    def check_task(self, task: str, dataset: str, solvers=()) -> None:
        """The scoring metrics (the run's and each solver's own) must exist for the dataset's
        task (when anything is tuned)."""
        valid = metrics_for_task(task)
        for solver in solvers:
            if solver.scoring is not None:
                direction(solver.scoring)  # an unknown metric name is an error even without tuning
        if self.mode == "none":
            return
        metric = self.metric(task)
        if metric not in valid:
            raise ConfigError(
                f"tuning.scoring={metric!r} does not apply to dataset {dataset!r} ({task}); "
                f"valid: {', '.join(valid)}"
            )
        for solver in solvers:
            own = solver.scoring
            if own is not None and own not in valid:
                raise ConfigError(
                    f"solver {solver.name!r}: scoring={own!r} does not apply to dataset "
                    f"{dataset!r} ({task}); valid: {', '.join(valid)}"
                )

    def mode_for(self, solver: SolverSpec, protocol: Protocol) -> str:
        """The mode a (solver, protocol) pair actually runs: ``none`` without a grid or on a
        stream (prequential evaluation has no grid search), the configured mode otherwise.

        This is the one place the effective mode is decided; rows and reports record it.
        """
        if isinstance(protocol, Prequential):
            return "none"
        if not solver.grid and not (self.inner_always and self.mode == "nested"):
            return "none"
        return self.mode


def model_key(solver: SolverSpec, point: dict) -> str:
    """Identity of the model a grid point trains: the point without the parameters the
    estimator's contract declares irrelevant there (``Contract.tuning_ignores``, e.g.
    OLLAWV's ``C`` under the scaled margin). Grid points with the same key are trained once."""
    skip = set(solver.contract.tuning_ignores(solver.parameters(point)))
    return json.dumps(
        {k: v for k, v in point.items() if k not in skip}, sort_keys=True, default=str
    )


def seed_key(solver: SolverSpec, point: dict) -> str:
    """The key a grid point's ``random_state`` derives from: its :func:`model_key` without the
    solver's path parameter (:func:`grid_path`), so the models of one path, fitted
    together, share a seed."""
    path = grid_path(solver)
    return model_key(solver, {k: v for k, v in point.items() if k != path})


def grid_path(solver: SolverSpec) -> str | None:
    """The grid parameter the solver fits as a whole path at once (the estimator's
    contract's ``path_parameter``), when the grid has more than one value of it; else None."""
    if not solver.grid:
        return None
    name = solver.contract.path_parameter
    return name if name is not None and len(solver.grid.get(name, ())) > 1 else None


def point_seed(random_state: int | None, key: str) -> int | None:
    """The ``random_state`` of one grid point: per (dataset, fold, grid point), as the MIL
    study seeds its random initialisations; equivalent points share it."""
    return None if random_state is None else derive_seed(random_state, key)


def inner_search(
    solver: SolverSpec,
    train: Dataset,
    *,
    tuning: Tuning | dict,
    preprocessing: dict | None,
    classes,
    seed: int,
    random_state: int | None,
) -> tuple[dict, list[dict]]:
    """Grid search with an inner CV on ``train``.

    ``tuning`` is a :class:`Tuning` or its configuration mapping (``inner_folds``,
    ``scoring``).

    Returns
    -------
    best : dict
        The grid point with the best mean inner score (the first one on ties).
    table : list of dict
        ``{"params": point, "score": mean inner score}`` for every point.
    """
    if not isinstance(tuning, Tuning):
        tuning = Tuning.from_config(tuning)
    metric = tuning.metric(train.task, solver)
    sign = 1.0 if direction(metric) == "max" else -1.0
    n_splits = max(min(tuning.inner_folds, train.n_samples), 2)
    inner = AutoKFold("inner", n_splits=n_splits).for_task(train.task)
    splits = inner.split(
        train.targets, seed=derive_seed(seed, "inner"), dataset=train.name, task=train.task
    )
    parts = [(train.subset(s.train), train.subset(s.test)) for s in splits]
    path = grid_path(solver)
    table, done = [], {}
    for point in solver.grid_points():
        key = model_key(solver, point)
        if key not in done:  # equivalent points (same model) are trained once
            rest = {k: v for k, v in point.items() if k != path}
            values = list(solver.grid[path]) if path else [None]
            common = dict(
                preprocessing=preprocessing,
                classes=classes,
                random_state=point_seed(random_state, seed_key(solver, point)),
            )
            evaluations = [
                # a path: every value of it from one fit per inner fold
                fit_and_score_path(solver, rest, (path, values), a, b, **common)
                if path
                else [fit_and_score(solver, point, a, b, **common)]
                for a, b in parts
            ]
            for j, value in enumerate(values):
                scores = [fold[j].metrics[metric] for fold in evaluations]
                member = model_key(solver, rest | {path: value}) if path else key
                done[member] = float(np.nanmean(scores)) if np.any(np.isfinite(scores)) else np.nan
        table.append({"params": point, "score": done[key]})
    finite = [(i, sign * row["score"]) for i, row in enumerate(table) if np.isfinite(row["score"])]
    best = max(finite, key=lambda t: (t[1], -t[0]))[0] if finite else 0
    return table[best]["params"], table
