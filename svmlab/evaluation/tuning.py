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

``tuning.rule`` chooses which scored point ``nested`` keeps (:func:`select_point`):

``best``
    The point with the best mean inner score (the first one on ties).
``one_se``
    The one-standard-error rule (Hastie, Tibshirani and Friedman, *The Elements of Statistical
    Learning*, 2nd ed., Sec. 7.10): the simplest point whose mean inner score is within one
    standard error (:func:`fold_standard_error`) of the best one's. "Simplest" follows the
    solver's path parameter (the first one the grid varies, for a joint path) towards the end
    its estimator's contract declares simpler (``Contract.path_simpler``), along the best
    point's own path (its other parameters fixed: the path orders only those points); an
    estimator that declares none is refused.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import product

import numpy as np

from svmlab.data.dataset import Dataset
from svmlab.errors import ConfigError
from svmlab.evaluation.evaluate import fit_and_score, fit_and_score_path
from svmlab.evaluation.metrics import default_metric, direction, metrics_for_task
from svmlab.evaluation.protocols import AutoKFold, Prequential, Protocol
from svmlab.seeding import derive_seed
from svmlab.solvers import SolverSpec

MODES = ("nested", "outer_best", "none")
#: The ways ``nested`` picks a point from the scored grid (see the module docstring).
RULES = ("best", "one_se")


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
    rule : {"best", "one_se"}
        Which scored point ``nested`` keeps (see the module docstring).
    """

    mode: str = "nested"
    inner_folds: int = 3
    scoring: str | None = None
    inner_always: bool = False
    rule: str = "best"

    @classmethod
    def from_config(cls, config: dict | None) -> Tuning:
        """Validate a ``tuning`` mapping (:class:`ConfigError` naming the key and valid values)."""
        config = dict(config or {})
        keys = ("inner_always", "inner_folds", "mode", "rule", "scoring")
        unknown = sorted(set(config) - set(keys))
        if unknown:
            raise ConfigError(f"tuning has no key {unknown[0]!r}; valid keys: {', '.join(keys)}")
        tuning = cls(**config)
        if tuning.mode not in MODES:
            raise ConfigError(
                f"tuning.mode={tuning.mode!r} is not valid; choose one of {', '.join(MODES)}"
            )
        if tuning.rule not in RULES:
            raise ConfigError(
                f"tuning.rule={tuning.rule!r} is not valid; choose one of {', '.join(RULES)}"
            )
        if tuning.rule == "one_se" and tuning.mode == "outer_best":
            raise ConfigError(
                "tuning.rule=one_se picks within the inner search of tuning.mode=nested; "
                "outer_best keeps the best mean outer score"
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
        task, and each solver's rule must suit it (:meth:`check_rule`), when anything is
        tuned."""
        valid = metrics_for_task(task)
        for solver in solvers:
            if solver.scoring is not None:
                direction(solver.scoring)  # an unknown metric name is an error even without tuning
            self.check_rule(solver)
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

    def rule_of(self, solver: SolverSpec) -> str:
        """The rule configured for ``solver``: its own ``rule`` if it has one, else
        ``tuning.rule``."""
        return solver.rule or self.rule

    def check_rule(self, solver: SolverSpec) -> None:
        """A solver's own ``rule`` must be a rule, and ``one_se`` needs a direction of
        simplicity: a solver with a grid whose estimator declares none
        (``Contract.path_simpler``) is refused in one line, unless nothing is tuned."""
        if solver.rule is not None and solver.rule not in RULES:
            raise ConfigError(
                f"solver {solver.name!r}: rule={solver.rule!r} is not valid; choose one of "
                f"{', '.join(RULES)}"
            )
        if self.rule_of(solver) != "one_se" or self.mode == "none" or not solver.grid:
            return
        along = next(iter(grid_path(solver)), None)  # the parameter one_se moves along
        names = (along,) if along else solver.contract.path_names
        if any(solver.contract.simpler_end(n) for n in names):
            return
        where = "its rule" if solver.rule else "tuning.rule"
        raise ConfigError(
            f"{where}=one_se: solver {solver.name!r} declares no simpler end of a path parameter "
            f"(its estimator's Contract.path_simpler) to move towards; use {where}=best"
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

    def rule_for(self, solver: SolverSpec, mode: str) -> str:
        """The rule a solver's tuning actually follows under the effective ``mode``
        (:meth:`mode_for`): ``one_se`` only for ``nested`` along a path of more than one
        value (:func:`grid_path`), since without one every point is equally simple and the
        rule keeps the best point; ``best`` otherwise. Rows record it (``tuning_rule``)."""
        if mode != "nested" or not grid_path(solver):
            return "best"
        return self.rule_of(solver)

    def identity(self, rule: str | None = None) -> dict:
        """The settings that name a run's results, or with the ``rule`` a task follows
        (:meth:`rule_for`) a task's: every field, the rule only when it is not ``best``, so
        that the keys of runs stored before the rule existed stay the same."""
        fields = {k: v for k, v in self.__dict__.items() if k != "rule"}
        rule = self.rule if rule is None else rule
        return fields if rule == "best" else fields | {"rule": rule}


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
    solver's path parameters (:func:`grid_path`), so the models of one path, fitted
    together, share a seed."""
    path = grid_path(solver)
    return model_key(solver, {k: v for k, v in point.items() if k not in path})


def grid_path(solver: SolverSpec) -> tuple[str, ...]:
    """The grid parameters the solver fits as a whole path at once (the estimator's
    contract's ``path_parameter``, in its order), those of them the grid gives more than one
    value; empty when there are none."""
    if not solver.grid:
        return ()
    return tuple(n for n in solver.contract.path_names if len(solver.grid.get(n, ())) > 1)


def evaluate_point(solver: SolverSpec, point: dict, train, test, **common) -> dict:
    """:func:`fit_and_score` of the grid point ``point``, by model key (:func:`model_key`); for
    a solver with a path parameter (:func:`grid_path`), of every point of its path, from one
    ``fit_path``: the values of a single parameter, or every combination of the grid values
    of a joint path (a list of dicts). ``common`` is passed on (preprocessing, classes,
    random_state)."""
    path = grid_path(solver)
    if not path:
        return {model_key(solver, point): fit_and_score(solver, point, train, test, **common)}
    rest = {k: v for k, v in point.items() if k not in path}
    members = [dict(zip(path, combo)) for combo in product(*(solver.grid[n] for n in path))]
    if solver.contract.joint_path:
        values = members
    else:
        values = [member[path[0]] for member in members]
    evaluations = fit_and_score_path(solver, rest, (path, values), train, test, **common)
    return {model_key(solver, rest | m): ev for m, ev in zip(members, evaluations)}


def point_seed(random_state: int | None, key: str) -> int | None:
    """The ``random_state`` of one grid point: per (dataset, fold, grid point), as the MIL
    study seeds its random initialisations; equivalent points share it."""
    return None if random_state is None else derive_seed(random_state, key)


def fold_standard_error(scores) -> float:
    """Standard error of a grid point's mean inner score: the sample standard deviation
    (``ddof=1``) of its finite per-fold scores over the square root of their number (ESL
    Sec. 7.10); 0.0 with fewer than two finite scores (the rule then keeps the points tied
    with the best)."""
    finite = np.asarray(scores, dtype=float)
    finite = finite[np.isfinite(finite)]
    return float(finite.std(ddof=1) / np.sqrt(finite.size)) if finite.size > 1 else 0.0


def proportion_standard_error(p: float, n: int) -> float:
    """Standard error ``sqrt(p (1 - p) / n)`` of a proportion ``p`` (an accuracy, as a
    fraction) measured on ``n`` samples: the one-standard-error rule's error when a single
    held-out part scores the points (scripts/bench/ollawv_vs_libsvm.py)."""
    return float(np.sqrt(p * (1.0 - p) / n))


def select_point(
    scores,
    *,
    rule="best",
    higher_is_better=True,
    errors=None,
    path_values=None,
    simpler="min",
    groups=None,
) -> int:
    """The index of the grid point a rule keeps.

    Parameters
    ----------
    scores : sequence of float
        Each point's mean validation score; NaN for a point that could not be scored.
    rule : {"best", "one_se"}
        ``best``: the best score, the first point on ties. ``one_se``: among the points of
        the best point ``b``'s group whose score is within ``errors[b]`` of ``b``'s, the one
        whose path value lies furthest towards ``simpler``; ties to the better score, then
        the first.
    higher_is_better : bool
        The metric's direction.
    errors : sequence of float, optional
        Each point's standard error (``one_se`` only).
    path_values : sequence of float or None, optional
        Each point's value of the path parameter (``one_se`` only); None is the largest value
        (scikit-learn's "no limit": every training point as a reference point, say).
    simpler : {"min", "max"}
        Which end of the path values is simpler (``Contract.path_simpler``).
    groups : sequence, optional
        Each point's values of the other parameters (``one_se`` only): the path orders
        only points that share them, so the rule moves along the best point's own path;
        None: every point is on one path.

    Returns
    -------
    int
        The index; 0 when no score is finite.
    """
    sign = 1.0 if higher_is_better else -1.0
    signed = [sign * float(v) for v in scores]
    finite = [i for i, v in enumerate(signed) if np.isfinite(v)]
    if not finite:
        return 0
    best = max(finite, key=lambda i: (signed[i], -i))
    if rule == "best":
        return best
    if simpler not in ("min", "max"):
        raise ValueError(f"one_se needs simpler='min' or 'max', got {simpler!r}")
    reach = signed[best] - float(errors[best])
    toward = -1.0 if simpler == "min" else 1.0
    path = [i for i in finite if groups is None or groups[i] == groups[best]]
    within = [i for i in path if signed[i] >= reach]

    def value(i):
        return np.inf if path_values[i] is None else float(path_values[i])

    return max(within, key=lambda i: (toward * value(i), signed[i], -i))


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
    chosen : dict
        The grid point the solver's rule keeps (:meth:`Tuning.rule_for`,
        :func:`select_point`): with ``best`` the best mean inner score, the first on ties.
    table : list of dict
        ``{"params": point, "score": mean inner score}`` for every point, with ``"se"``, its
        :func:`fold_standard_error`, when the rule is ``one_se``.
    """
    if not isinstance(tuning, Tuning):
        tuning = Tuning.from_config(tuning)
    tuning.check_rule(solver)
    metric = tuning.metric(train.task, solver)
    n_splits = max(min(tuning.inner_folds, train.n_samples), 2)
    inner = AutoKFold("inner", n_splits=n_splits).for_task(train.task)
    splits = inner.split(
        train.targets, seed=derive_seed(seed, "inner"), dataset=train.name, task=train.task
    )
    parts = [(train.subset(s.train), train.subset(s.test)) for s in splits]
    # one_se moves along the first path parameter the grid varies, among points that share
    # the others
    along = next(iter(grid_path(solver)), None)
    rule = tuning.rule_for(solver, "nested")
    table, done = [], {}
    for point in solver.grid_points():
        key = model_key(solver, point)
        if key not in done:  # equivalent points (same model) are trained once
            common = dict(
                preprocessing=preprocessing,
                classes=classes,
                random_state=point_seed(random_state, seed_key(solver, point)),
            )
            per_fold = [evaluate_point(solver, point, a, b, **common) for a, b in parts]
            for member in per_fold[0]:
                scores = [fold[member].metrics[metric] for fold in per_fold]
                mean = float(np.nanmean(scores)) if np.any(np.isfinite(scores)) else np.nan
                done.setdefault(member, (mean, fold_standard_error(scores)))
        mean, error = done[key]
        table.append({"params": point, "score": mean} | ({"se": error} if rule == "one_se" else {}))
    chosen = select_point(
        [row["score"] for row in table],
        rule=rule,
        higher_is_better=direction(metric) == "max",
        errors=[done[model_key(solver, row["params"])][1] for row in table],
        path_values=[row["params"].get(along) for row in table],
        simpler=solver.contract.simpler_end(along) if along else None,
        groups=[  # the point less the parameter one_se moves along
            model_key(solver, {k: v for k, v in row["params"].items() if k != along})
            for row in table
        ],
    )
    return table[chosen]["params"], table
