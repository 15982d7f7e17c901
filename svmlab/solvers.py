"""Solver configurations: a ``_target_`` estimator class, its parameters and a tuning grid.

A solver config (``conf/solver/NAME.yaml``) looks like::

    name: svc
    description: LIBSVM C-SVC through scikit-learn
    _target_: sklearn.svm.SVC
    tasks: [binary, multiclass]
    C: 1.0
    gamma: scale
    grid:
      C: [0.1, 1, 10, 100]
      gamma: [0.01, 0.1, 1]

Every key that is not reserved (``name``, ``description``, ``_target_``, ``tasks``,
``grid``, ``substitutes``, ``runs``, ``scoring``, ``rule``) is a constructor parameter.
``runs: 5`` fits a stochastic solver five times on every fold, each run with its own seed (one
row per run; reports average them), as studies that repeat a randomised method on fixed folds
do. ``scoring: f1_pos`` tunes this solver's grid by that metric instead of ``tuning.scoring``
(one model per measure, each selected by its own measure, as in the SVM^perf studies);
``rule: one_se`` likewise replaces ``tuning.rule`` for this solver. A parameter whose value is a
mapping with its own ``_target_`` is built recursively (e.g. the base estimator of a
multi-output wrapper); grid keys then use scikit-learn's ``estimator__C`` syntax. An experiment's
configuration is merged into the solver file's, grid included; ``grid: {margin: null}`` removes an
entry the file's grid has.
"""

from __future__ import annotations

import importlib
import inspect
from dataclasses import dataclass, field, replace
from functools import cached_property, lru_cache
from typing import Any

from sklearn.model_selection import ParameterGrid

from svmlab.contract import Contract, contract_of
from svmlab.data.dataset import TASKS
from svmlab.errors import ConfigError

RESERVED = (
    "name",
    "description",
    "_target_",
    "tasks",
    "grid",
    "substitutes",
    "runs",
    "scoring",
    "rule",
)


@dataclass(frozen=True)
class SolverSpec:
    """A validated solver configuration."""

    name: str
    target: str
    params: dict[str, Any] = field(default_factory=dict)
    grid: dict[str, list] = field(default_factory=dict)
    tasks: tuple[str, ...] = TASKS
    description: str = ""
    #: Reserved keys the configuration itself gave (``grid``, ``tasks``, ``substitutes``), as
    #: given: rows record, and task keys hash, the configuration as written.
    declared: dict[str, Any] = field(default_factory=dict)
    #: Independent runs per fold, each with its own seed (``runs`` in the configuration).
    runs: int = 1
    #: The metric this solver's grid search optimises (``scoring``), overriding
    #: ``tuning.scoring``: e.g. one SVM^perf model per measure, each tuned by its own measure.
    scoring: str | None = None
    #: The rule this solver's grid search keeps a point by (``rule``), overriding
    #: ``tuning.rule`` (checked by :class:`svmlab.evaluation.tuning.Tuning`). Rows record the
    #: rule a task followed (``tuning_rule``) rather than this setting.
    rule: str | None = None

    @classmethod
    def from_config(cls, cfg: dict) -> SolverSpec:
        """Split a plain-dict solver config into parameters, grid and metadata."""
        if "_target_" not in cfg:
            raise ConfigError(
                f"solver {cfg.get('name', '?')!r} has no _target_ (the estimator class to build)"
            )
        name = cfg.get("name") or cfg["_target_"].rsplit(".", 1)[-1].lower()
        # null removes an entry: an experiment merges into the solver file's grid and drops a
        # parameter it fixes with `grid: {name: null}`
        grid = {k: v for k, v in (cfg.get("grid") or {}).items() if v is not None}
        for key, values in grid.items():
            if not isinstance(values, (list, tuple)) or not values:
                raise ConfigError(
                    f"solver {name!r}: grid entry {key!r} must be a non-empty list, got {values!r}"
                )
        tasks = tuple(cfg.get("tasks") or TASKS)
        bad = [t for t in tasks if t not in TASKS]
        if bad:
            raise ConfigError(
                f"solver {name!r}: unknown task(s) {bad}; valid tasks: {', '.join(TASKS)}"
            )
        runs = cfg.get("runs", 1)
        if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
            raise ConfigError(f"solver {name!r}: runs must be a positive integer, got {runs!r}")
        scoring = cfg.get("scoring")
        if scoring is not None and not isinstance(scoring, str):
            raise ConfigError(f"solver {name!r}: scoring must be a metric name, got {scoring!r}")
        rule = cfg.get("rule")
        if rule is not None and not isinstance(rule, str):
            raise ConfigError(f"solver {name!r}: rule must be a rule's name, got {rule!r}")
        params = {k: v for k, v in cfg.items() if k not in RESERVED}
        declared = {
            k: cfg[k] for k in ("grid", "tasks", "substitutes", "runs", "scoring") if k in cfg
        }
        return cls(
            name,
            cfg["_target_"],
            params,
            grid,
            tasks,
            cfg.get("description", ""),
            declared,
            runs,
            scoring,
            rule,
        )

    def __getstate__(self) -> dict:
        # what is cached from the class (contract, prototype) is rebuilt where it is needed
        return {k: v for k, v in self.__dict__.items() if k not in ("contract", "prototype")}

    @cached_property
    def contract(self) -> Contract:
        """What the estimator class declares to svmlab (:mod:`svmlab.contract`), read from
        the class without building it."""
        return contract_of(_import(self.target))

    @cached_property
    def prototype(self):
        """The estimator as configured, built once and never fitted: what planning reads its
        parameters and scikit-learn tags from (fit always gets a fresh :meth:`build`)."""
        return self.build()

    def parameters(self, point: dict | None = None) -> dict:
        """The estimator's parameters at a grid ``point`` without building it: its
        constructor's defaults, updated by the configured parameters, then by ``point``."""
        return {**_init_defaults(_import(self.target)), **self.params, **(point or {})}

    def settings(self) -> dict:
        """The configuration as a result row records it: the keys it was written with (less
        ``name`` and ``description``), its grid as left after fixed parameters were taken
        out."""
        out = {"_target_": self.target, **self.params, **self.declared}
        if "grid" in self.declared or self.grid:
            out["grid"] = self.grid
        return out

    def fixing(self, params: dict) -> SolverSpec:
        """This solver with ``params`` set and taken out of its grid (they are not tuned)."""
        grid = {k: v for k, v in self.grid.items() if k not in params}
        return replace(self, params={**self.params, **params}, grid=grid)

    def without_grid_keys(self, keys) -> SolverSpec:
        """This solver with the grid entries ``keys`` removed (parameters fixed elsewhere)."""
        return replace(self, grid={k: v for k, v in self.grid.items() if k not in set(keys)})

    def grid_points(self) -> list[dict]:
        """Every combination of the grid (one empty dict when there is no grid)."""
        return list(ParameterGrid(self.grid)) if self.grid else [{}]

    def build(self, overrides: dict | None = None, random_state: int | None = None):
        """Instantiate the estimator with its parameters, then ``overrides``.

        ``random_state`` is applied when the estimator has that parameter and the
        configuration leaves it unset, so runs are reproducible by default. A wrapper without
        a ``random_state`` of its own (a ``TransformedTargetRegressor``, say) cannot seed what
        it wraps, so then every unset nested ``..__random_state`` gets it instead; an
        estimator with its own ``random_state`` seeds its inner estimators itself.
        """
        est = _instantiate({"_target_": self.target, **self.params})
        if overrides:
            est.set_params(**overrides)
        if random_state is None:
            return est
        own = est.get_params(deep=False)
        if "random_state" in own:
            if own["random_state"] is None:
                est.set_params(random_state=random_state)
            return est
        nested = {
            k: random_state
            for k, v in est.get_params(deep=True).items()
            if k.endswith("__random_state") and v is None
        }
        return est.set_params(**nested) if nested else est

    def _check_contract(self, cls) -> None:
        """The class keeps its contract's promises, and the solver's ``tasks`` suit the input
        it declares: bag estimators take multi-instance data only, and only they take it; a
        multi-target estimator takes multi-target data only."""
        try:
            contract = self.contract
        except TypeError as exc:  # a malformed declaration
            raise ConfigError(f"solver {self.name!r}: {exc}") from None
        missing = contract.missing_methods(cls)
        if missing:
            raise ConfigError(
                f"solver {self.name!r}: {cls.__name__} declares a contract that needs "
                f"{', '.join(missing)}, which it does not have"
            )
        kind, tasks = contract.input, set(self.tasks)
        bags = kind == "bags"
        if bags != (tasks == {"multi_instance"}) or (
            kind == "multitarget" and tasks != {"multitarget"}
        ):
            takes = {"bags": "bags (multi-instance data only)", "vector": "vectors"}.get(kind)
            raise ConfigError(
                f"solver {self.name!r}: {cls.__name__} takes {takes or kind + ' input'} (its "
                f"svmlab_contract), but the solver lists tasks {sorted(tasks)}"
            )

    def validate(self) -> None:
        """Check, without fitting, that the class imports and every parameter and grid value is
        valid.

        Raises
        ------
        ConfigError
            Naming the solver, the parameter and the valid choices.
        """
        try:
            cls = _import(self.target)
        except Exception as exc:  # ImportError, AttributeError, ValueError from Hydra
            raise ConfigError(
                f"solver {self.name!r}: cannot import _target_ {self.target!r} ({exc})"
            ) from None
        accepted = _init_parameters(cls)
        unknown = [p for p in self.params if accepted is not None and p not in accepted]
        if unknown:
            raise ConfigError(
                f"solver {self.name!r}: {cls.__name__} has no parameter {unknown[0]!r}; "
                f"valid parameters: {', '.join(sorted(accepted))}"
            )
        self._check_contract(cls)
        try:
            est = self.prototype
        except Exception as exc:
            raise ConfigError(f"solver {self.name!r}: cannot build {cls.__name__}: {exc}") from None
        valid = est.get_params(deep=True)
        bad = [k for k in self.grid if k not in valid]
        if bad:
            raise ConfigError(
                f"solver {self.name!r}: the grid names {bad[0]!r}, which {cls.__name__} does not "
                "have; "
                f"valid parameters: {', '.join(sorted(valid))}"
            )
        _check_types(self.name, est, {})
        if self.grid:  # each point on the prototype, then its configured values back
            configured = est.get_params(deep=True)
            try:
                for point in self.grid_points():
                    _check_types(self.name, est, point)
            finally:
                est.set_params(**{k: configured[k] for k in self.grid})


def replace_retargeted(composed: dict, base: dict, given: dict | None) -> dict:
    """``composed`` with every nested estimator whose ``_target_`` differs from ``base``'s
    rebuilt from what replaced it, instead of merged into the estimator it replaces.

    Hydra merges an experiment's (or an override's) mapping into the solver file's, key by
    key, so ``estimator: {_target_: ZeroR}`` over the file's ``estimator: {_target_: Stump,
    criterion: entropy}`` would give ZeroR the stump's ``criterion``. svmlab's rule, for every
    nested estimator of every solver: a mapping that names a different ``_target_`` than the
    solver file's at the same place replaces it, so it keeps only its ``_target_`` and the
    keys the replacing layers wrote (the experiment, the command line: ``given``), whatever
    their values; what it would inherit from the file's estimator is dropped
    (docs/decisions/runner.md, "A nested estimator is replaced, not merged"). A mapping with
    the file's ``_target_`` (or none) is merged as usual, its nested mappings by the same rule.
    A value a layer wrote whole (an interpolation such as ``${hydrmi_roster.citation_knn}``,
    which Hydra puts in place of the file's mapping) and lists (Hydra replaces a list whole)
    inherit nothing and are left as composed, as is a place no layer wrote.

    Parameters
    ----------
    composed : dict
        One solver's configuration as Hydra composed it (plain containers).
    base : dict
        The same solver's configuration file alone.
    given : dict or None
        What the layers above the file wrote for this solver, as nested mappings (only the
        keys matter): the experiment's entry merged with the command line's overrides; None
        when they wrote nothing for it.

    Returns
    -------
    dict
        ``composed``, with replaced estimators stripped of inherited keys (a new mapping;
        the arguments are not changed).

    Examples
    --------
    >>> file = {"estimator": {"_target_": "Stump", "criterion": "entropy", "max_depth": 1}}
    >>> composed = {"estimator": {"_target_": "Tree", "criterion": "entropy", "max_depth": 1}}
    >>> replace_retargeted(composed, file, {"estimator": {"_target_": "Tree", "max_depth": 1}})
    {'estimator': {'_target_': 'Tree', 'max_depth': 1}}
    """
    if not isinstance(base, dict) or not isinstance(given, dict):
        return composed
    # the solver's own _target_ is not subject to the rule (another solver file changes it)
    return {k: _retargeted(v, base.get(k), given.get(k)) for k, v in composed.items()}


def _retargeted(value, base, given):
    """One configuration mapping under :func:`replace_retargeted`'s rule."""
    if not isinstance(value, dict) or not isinstance(base, dict) or not isinstance(given, dict):
        # not a mapping; or written whole by a layer (an interpolation such as
        # ${hydrmi_roster.citation_knn} replaces the file's mapping, nothing is merged); or
        # written by no layer read here: left as composed
        return value
    if "_target_" in base and value.get("_target_", base["_target_"]) != base["_target_"]:
        return {k: v for k, v in value.items() if k == "_target_" or k in given}
    return {k: _retargeted(v, base.get(k), given.get(k)) for k, v in value.items()}


@lru_cache(maxsize=256)
def _import(path: str):
    """The class (or callable) named by a dotted path such as ``sklearn.svm.SVC``."""
    module, _, attr = path.rpartition(".")
    if not module:
        raise ImportError(f"{path!r} is not a dotted path module.Class")
    return getattr(importlib.import_module(module), attr)


def _instantiate(value):
    """Build ``{"_target_": ..., **params}`` mappings recursively (Hydra's convention)."""
    if isinstance(value, dict):
        built = {k: _instantiate(v) for k, v in value.items() if k != "_target_"}
        return _import(value["_target_"])(**built) if "_target_" in value else built
    if isinstance(value, list):
        return [_instantiate(v) for v in value]
    return value


@lru_cache(maxsize=256)
def _init_defaults(cls) -> dict:
    """``{name: default}`` of a class's constructor parameters that have a default."""
    sig = inspect.signature(cls.__init__)
    return {n: p.default for n, p in sig.parameters.items() if p.default is not p.empty}


def _init_parameters(cls) -> set[str] | None:
    sig = inspect.signature(cls.__init__)
    if any(p.kind is p.VAR_KEYWORD for p in sig.parameters.values()):
        return None
    return {n for n in sig.parameters if n != "self"}


def _check_types(name: str, est, point: dict) -> None:
    """Use scikit-learn's declared parameter constraints, when the estimator has them."""
    try:
        if point:
            est.set_params(**point)
        _validate_recursively(est)
    except (TypeError, ValueError) as exc:
        where = f" at grid point {point}" if point else ""
        raise ConfigError(f"solver {name!r}{where}: {exc}") from None


def _validate_recursively(est) -> None:
    validate = getattr(est, "_validate_params", None)
    if callable(validate) and getattr(est, "_parameter_constraints", None):
        validate()
    for value in est.get_params(deep=False).values():
        if hasattr(value, "get_params") and not isinstance(value, type):
            _validate_recursively(value)
