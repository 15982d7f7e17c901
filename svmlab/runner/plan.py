"""Expand a composed experiment configuration into validated tasks.

Everything that can be checked without fitting is checked here, before any work
starts: dataset, solver and protocol names, solver parameters and grids, protocol /
task compatibility, missing values the solver cannot take, the results directory.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from svmlab.data.registry import load_dataset
from svmlab.errors import ConfigError
from svmlab.evaluation.evaluate import check_finite
from svmlab.evaluation.preprocessing import Preprocessor
from svmlab.evaluation.protocols import check_protocol, n_folds
from svmlab.evaluation.tuning import check_tuning
from svmlab.runner.provenance import provenance
from svmlab.runner.task import TaskSpec
from svmlab.solvers import SolverSpec


@dataclass
class Plan:
    """The validated tasks of one run, and what was left out."""

    experiment: str
    run_dir: str
    tasks: list[TaskSpec]
    identity: dict
    skipped_pairs: list[tuple[str, str, str]] = field(default_factory=list)
    datasets: dict = field(default_factory=dict)  # name -> task type
    solvers: list[str] = field(default_factory=list)


def _digest(obj) -> str:
    return hashlib.sha1(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _entries(cfg: dict, plural: str, singular: str) -> list[dict]:
    many = cfg.get(plural) or {}
    items = list(many.values()) if isinstance(many, dict) else list(many)
    if not items:
        items = [cfg.get(singular)]
    out = []
    for item in items:
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict) or not item.get("name") and plural == "datasets":
            raise ConfigError(f"{plural}: every entry needs a name, got {item!r}")
        out.append(dict(item))
    return out


def accepts(solver: SolverSpec, task: str, n_classes: int | None) -> bool:
    """Whether ``solver`` handles a dataset of ``task`` (streams count as classification)."""
    if task in solver.tasks:
        return True
    if task == "stream":
        return ("binary" if n_classes == 2 else "multiclass") in solver.tasks
    return False


def build_plan(cfg: dict, run_dir: str, run_id: str, *, variant: str = "", fixed_params: dict | None = None) -> Plan:
    """Validate ``cfg`` (a resolved plain-dict configuration) and list its tasks.

    Parameters
    ----------
    cfg : dict
        The composed configuration (``conf/config.yaml`` + overrides), resolved.
    run_dir, run_id : str
        Where the rows go, and the run's name within the experiment.
    variant : str
        Label of a sweep job (its command-line overrides), stored with each row.
    fixed_params : dict, optional
        ``{solver name or "*": [param, ...]}``: parameters set explicitly on the command
        line; they are removed from the solver's tuning grid so the sweep value is used.
    """
    experiment = cfg.get("name") or "adhoc"
    protocol = dict(cfg["protocol"])
    tuning = dict(cfg.get("tuning") or {})
    preprocessing = dict(cfg.get("preprocessing") or {})
    Preprocessor.from_config(preprocessing)
    check_tuning(tuning)
    runner = dict(cfg.get("runner") or {})
    timeout = runner.get("task_timeout")
    if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
        raise ConfigError(f"runner.task_timeout must be a positive number of seconds or null, got {timeout!r}")
    seed = cfg.get("seed", 0)
    if not isinstance(seed, int):
        raise ConfigError(f"seed must be an integer, got {seed!r}")

    solvers = []
    for scfg in _entries(cfg, "solvers", "solver"):
        for key in (fixed_params or {}).get(scfg.get("name"), []) + (fixed_params or {}).get("*", []):
            if key in (scfg.get("grid") or {}):
                scfg["grid"] = {k: v for k, v in scfg["grid"].items() if k != key}
        spec = SolverSpec.from_config(scfg)
        spec.validate()
        solvers.append((spec, scfg))
    names = [s.name for s, _ in solvers]
    if len(set(names)) != len(names):
        raise ConfigError(f"two solvers share a name in {names}; give each a distinct `name`")

    datasets = []
    for dcfg in _entries(cfg, "datasets", "dataset"):
        params = dict(dcfg.get("params") or {})
        ds = load_dataset(dcfg["name"], params)
        check_protocol(protocol, ds.task, ds.name)
        datasets.append((ds, params))

    parts = {
        "datasets": _digest([(d.name, p) for d, p in datasets]),
        "solvers": _digest([c for _, c in solvers]),
        "protocol": _digest(protocol),
        "preprocessing": _digest(preprocessing),
        "tuning": _digest(tuning),
        "seed": _digest(seed),
    }
    identity = {"experiment": experiment, "fingerprint": _digest(parts), "parts": parts}
    prov = provenance()
    limit_blas = runner.get("backend", "loky") != "sequential" and runner.get("n_jobs", 1) != 1
    tasks, skipped = [], []
    used_solvers, used_datasets = set(), set()
    for ds, params in datasets:
        n_classes = len(ds.classes) if ds.is_classification else None
        for spec, scfg in solvers:
            if not accepts(spec, ds.task, n_classes):
                skipped.append((ds.name, spec.name, f"{spec.name} handles {', '.join(spec.tasks)}, not {ds.task}"))
                continue
            if preprocessing.get("impute", "none") == "none":
                check_finite(ds, spec, spec.build())
            used_solvers.add(spec.name)
            used_datasets.add(ds.name)
            for repeat in range(int(protocol.get("n_repeats", 1))):
                for fold in range(n_folds(protocol, ds.task)):
                    content = {
                        "experiment": experiment, "dataset": ds.name, "dataset_params": params, "solver": scfg,
                        "protocol": protocol, "preprocessing": preprocessing, "tuning": tuning, "seed": seed,
                        "repeat": repeat, "fold": fold,
                    }
                    key = f"{ds.name}-{spec.name}-r{repeat}f{fold}-{_digest(content)}"
                    tasks.append(TaskSpec(
                        key=key, experiment=experiment, run_id=run_id, run_dir=str(run_dir), dataset=ds.name, task_type=ds.task,
                        dataset_params=params, solver=scfg, protocol=protocol, preprocessing=preprocessing,
                        tuning=tuning, seed=seed, repeat=repeat, fold=fold, variant=variant, timeout=timeout,
                        limit_blas=limit_blas, provenance=prov,
                    ))
    for spec, _ in solvers:
        if spec.name not in used_solvers:
            raise ConfigError(
                f"solver {spec.name!r} handles {', '.join(spec.tasks)} datasets, and none of the chosen datasets "
                f"({', '.join(d.name + ': ' + d.task for d, _ in datasets)}) is one"
            )
    for ds, _ in datasets:
        if ds.name not in used_datasets:
            raise ConfigError(f"no chosen solver handles dataset {ds.name!r} ({ds.task}); solvers: {', '.join(names)}")
    return Plan(experiment, str(run_dir), tasks, identity, skipped, {d.name: d.task for d, _ in datasets}, names)
