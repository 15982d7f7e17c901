"""Expand a composed experiment configuration into validated tasks.

Everything that can be checked without fitting is checked here, before any work
starts: dataset, solver and protocol names, solver parameters and grids, protocol /
task compatibility (including enough samples for the folds), metrics named for tuning
or the summary, runner settings, and missing values the solver cannot take.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from svmlab.data.registry import load_dataset
from svmlab.errors import ConfigError, SvmlabError
from svmlab.evaluation.evaluate import check_finite
from svmlab.evaluation.metrics import get_metric, metrics_for_task
from svmlab.evaluation.preprocessing import Preprocessor
from svmlab.evaluation.protocols import (
    check_protocol,
    make_splits,
    n_folds,
    resolve_kind,
    stream_chunks,
)
from svmlab.evaluation.tuning import check_tuning, scoring_metric
from svmlab.runner.provenance import provenance
from svmlab.runner.task import TaskSpec
from svmlab.solvers import SolverSpec

BACKENDS = ("loky", "sequential", "dask")
#: Solver keys that describe rather than configure; edits to them do not block a resume.
COSMETIC = ("description",)


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
    unavailable: list[tuple[str, str]] = field(
        default_factory=list
    )  # study datasets that cannot be run here


def _digest(obj) -> str:
    return hashlib.sha1(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _entries(cfg: dict, plural: str, singular: str) -> list[tuple[str | None, dict]]:
    """``(key, config)`` of every entry of ``datasets``/``solvers``; ``(None, primary)`` when empty.

    An entry set to null is left out, so a profile or the command line can drop members of
    an experiment (``datasets.wq=null``).
    """
    many = cfg.get(plural) or {}
    items = list(many.items()) if isinstance(many, dict) else [(None, v) for v in many]
    items = [(key, item) for key, item in items if item is not None]
    if not items:
        items = [(None, cfg.get(singular))]
    out = []
    for key, item in items:
        if isinstance(item, str):
            item = {"name": item}
        if not isinstance(item, dict) or (plural == "datasets" and not item.get("name")):
            raise ConfigError(f"{plural}: every entry needs a name, got {item!r}")
        out.append((key, dict(item)))
    return out


def accepts(solver: SolverSpec, task: str, n_classes: int | None) -> bool:
    """Whether ``solver`` handles a dataset of ``task`` (streams count as classification)."""
    if task in solver.tasks:
        return True
    if task == "stream":
        return ("binary" if n_classes == 2 else "multiclass") in solver.tasks
    return False


def check_runner(runner: dict) -> None:
    """Validate the runner settings (backend, n_jobs, task_timeout)."""
    backend = runner.get("backend", "loky")
    if backend not in BACKENDS:
        raise ConfigError(
            f"runner.backend={backend!r} is not valid; choose one of {', '.join(BACKENDS)}"
        )
    n_jobs = runner.get("n_jobs", -1)
    if not isinstance(n_jobs, int) or isinstance(n_jobs, bool) or n_jobs == 0:
        raise ConfigError(
            f"runner.n_jobs must be a non-zero integer (-1: one per core), got {n_jobs!r}"
        )
    timeout = runner.get("task_timeout")
    if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
        raise ConfigError(
            f"runner.task_timeout must be a positive number of seconds or null, got {timeout!r}"
        )


def check_summary_metric(name) -> None:
    if name is None or str(name).endswith("_time") or name == "model_size":
        return
    get_metric(name)


def _solvers(cfg: dict, fixed: list[str]) -> list[tuple[SolverSpec, dict]]:
    """Validated solvers; parameters ``fixed`` on the command line leave the primary's grid.

    ``fixed`` are the ``solver.X=...`` overrides. They reach the run only through the
    primary ``solver`` node: directly, or through an experiment's ``solvers`` entry that
    interpolates ``${solver}``. When no entry does, such an override would silently do
    nothing, so it is an error.
    """
    entries = _entries(cfg, "solvers", "solver")
    primary = cfg.get("solver")
    uses_primary = [key for key, scfg in entries if key is None or scfg == primary]
    if fixed and not uses_primary:
        keys = ", ".join(k for k, _ in entries)
        raise ConfigError(
            f"solver.{fixed[0]}=... has no effect: this experiment lists its solvers under `solvers` ({keys}) and "
            f"none of them is the primary `solver`; override solvers.<key>.{fixed[0]}=... instead"
        )
    out = []
    for key, scfg in entries:
        if key in uses_primary and scfg.get("grid"):
            scfg["grid"] = {k: v for k, v in scfg["grid"].items() if k not in fixed}
        spec = SolverSpec.from_config(scfg)
        spec.validate()
        out.append((spec, scfg))
    names = [s.name for s, _ in out]
    if len(set(names)) != len(names):
        raise ConfigError(f"two solvers share a name in {names}; give each a distinct `name`")
    return out


def _with_dataset_params(
    spec: SolverSpec, scfg: dict, fixed: dict, dataset: str
) -> tuple[SolverSpec, dict]:
    """The solver with a dataset entry's ``solver_params`` set, where it has those parameters.

    Studies that fix a kernel width per dataset (e.g. the EvoSVM thesis's Table 3.1) list it
    under the dataset: ``datasets.liver: {name: bupa, solver_params: {gamma: 0.01}}``. Each
    parameter goes to every solver of the run that takes it (and leaves that solver's grid);
    solvers without it are unchanged.
    """
    if not fixed:
        return spec, scfg
    accepted = set(spec.build().get_params(deep=False))
    mine = {k: v for k, v in fixed.items() if k in accepted}
    if not mine:
        return spec, scfg
    scfg = {**scfg, **mine}
    if scfg.get("grid"):
        scfg["grid"] = {k: v for k, v in scfg["grid"].items() if k not in mine}
    out = SolverSpec.from_config(scfg)
    try:
        out.validate()
    except ConfigError as exc:
        raise ConfigError(
            f"dataset {dataset!r}: solver_params {mine} do not suit solver {spec.name!r}: {exc}"
        ) from None
    return out, scfg


def _unavailable(names: list[str]) -> list[tuple[str, str]]:
    """``(name, reason)`` of the study's datasets an experiment lists as not obtainable here."""
    from svmlab.data.registry import dataset_info

    out = []
    for name in names:
        info = dataset_info(name)
        reason = info.get("unavailable_reason")
        if not reason:
            raise ConfigError(
                f"unavailable_datasets lists {name!r}, but the registry has it available; "
                "move it to datasets"
            )
        out.append((name, reason))
    return out


def _load(name: str, params: dict, allow_download: bool):
    try:
        return load_dataset(name, params, allow_download=allow_download)
    except SvmlabError:
        raise
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"dataset {name!r}: invalid params {params}: {exc}") from None


def _check_splits(protocol: dict, ds, seed: int) -> None:
    """The protocol must be able to split this dataset (enough samples, at least 2 chunks)."""
    if resolve_kind(protocol, ds.task) == "prequential":
        if len(stream_chunks(ds.n_instances, protocol)) < 2:
            raise ConfigError(
                f"protocol {protocol.get('name')!r}: chunk_size={protocol['chunk_size']} leaves fewer than "
                f"2 chunks of dataset {ds.name!r} ({ds.n_instances} samples); nothing would be tested"
            )
        return
    try:
        make_splits(protocol, ds.task, ds.targets, seed, ds.name)
    except (ValueError, ConfigError) as exc:
        raise ConfigError(
            f"protocol {protocol.get('name')!r} cannot split dataset {ds.name!r}: {exc}"
        ) from None


def build_plan(
    cfg: dict,
    run_dir: str,
    run_id: str,
    *,
    variant: str = "",
    fixed_params: list[str] | None = None,
) -> Plan:
    """Validate ``cfg`` (a resolved plain-dict configuration) and list its tasks.

    Parameters
    ----------
    cfg : dict
        The composed configuration (``conf/config.yaml`` + overrides), resolved.
    run_dir, run_id : str
        Where the rows go, and the run's name within the experiment.
    variant : str
        Label of a sweep job (its command-line overrides), stored with each row.
    fixed_params : list of str, optional
        Parameters of the primary solver set on the command line (``solver.C=10``);
        they are taken out of its tuning grid so the given value is used.
    """
    experiment = cfg.get("name") or "adhoc"
    protocol = dict(cfg["protocol"])
    tuning = dict(cfg.get("tuning") or {})
    preprocessing = dict(cfg.get("preprocessing") or {})
    Preprocessor.from_config(preprocessing)
    check_tuning(tuning)
    runner = dict(cfg.get("runner") or {})
    check_runner(runner)
    check_summary_metric(cfg.get("summary_metric"))
    seed = cfg.get("seed", 0)
    if not isinstance(seed, int):
        raise ConfigError(f"seed must be an integer, got {seed!r}")
    allow_download = bool((cfg.get("data") or {}).get("allow_download", False))

    solvers = _solvers(cfg, list(fixed_params or []))
    unavailable = _unavailable(cfg.get("unavailable_datasets") or [])
    if cfg.get("reproduce"):
        from svmlab.reproduce import get_reproduction

        get_reproduction(cfg["reproduce"])
    datasets, solver_params = (
        [],
        [],
    )  # solver_params[i]: the i-th dataset entry's fixed solver parameters
    for _, dcfg in _entries(cfg, "datasets", "dataset"):
        params = dict(dcfg.get("params") or {})
        fixed = dict(dcfg.get("solver_params") or {})
        if fixed:
            takers = {k for spec, _ in solvers for k in spec.build().get_params(deep=False)}
            unused = sorted(set(fixed) - takers)
            if unused:
                raise ConfigError(
                    f"dataset {dcfg['name']!r}: solver_params {unused} are parameters of none of the "
                    f"run's solvers ({', '.join(s.name for s, _ in solvers)})"
                )
        ds = _load(dcfg["name"], params, allow_download)
        check_protocol(protocol, ds.task, ds.name)
        _check_splits(protocol, ds, seed)
        metric = scoring_metric(tuning, ds.task)
        if tuning.get("mode", "nested") != "none" and metric not in metrics_for_task(ds.task):
            raise ConfigError(
                f"tuning.scoring={metric!r} does not apply to dataset {ds.name!r} ({ds.task}); "
                f"valid: {', '.join(metrics_for_task(ds.task))}"
            )
        datasets.append((ds, params))
        solver_params.append(fixed)

    def identity_solver(scfg):
        return {k: v for k, v in scfg.items() if k not in COSMETIC}

    parts = {
        "datasets": _digest([(d.name, p) for d, p in datasets] + [f for f in solver_params if f]),
        "solvers": _digest([identity_solver(c) for _, c in solvers]),
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
    for (ds, params), fixed in zip(datasets, solver_params):
        n_classes = len(ds.classes) if ds.is_classification else None
        for base_spec, base_cfg in solvers:
            spec, scfg = _with_dataset_params(base_spec, base_cfg, fixed, ds.name)
            if not accepts(spec, ds.task, n_classes):
                skipped.append(
                    (
                        ds.name,
                        spec.name,
                        f"{spec.name} handles {', '.join(spec.tasks)}, not {ds.task}",
                    )
                )
                continue
            if preprocessing.get("impute", "none") == "none":
                check_finite(ds, spec, spec.build())
            used_solvers.add(spec.name)
            used_datasets.add(ds.name)
            for repeat in range(int(protocol.get("n_repeats", 1))):
                for fold in range(n_folds(protocol, ds.task)):
                    content = {
                        "experiment": experiment,
                        "dataset": ds.name,
                        "dataset_params": params,
                        "solver": identity_solver(scfg),
                        "protocol": protocol,
                        "preprocessing": preprocessing,
                        "tuning": tuning,
                        "seed": seed,
                        "repeat": repeat,
                        "fold": fold,
                    }
                    key = f"{ds.name}-{spec.name}-r{repeat}f{fold}-{_digest(content)}"
                    tasks.append(
                        TaskSpec(
                            key=key,
                            experiment=experiment,
                            run_id=run_id,
                            run_dir=str(run_dir),
                            dataset=ds.name,
                            task_type=ds.task,
                            dataset_params=params,
                            solver=scfg,
                            protocol=protocol,
                            preprocessing=preprocessing,
                            tuning=tuning,
                            seed=seed,
                            repeat=repeat,
                            fold=fold,
                            variant=variant,
                            timeout=runner.get("task_timeout"),
                            limit_blas=limit_blas,
                            provenance=prov,
                        )
                    )
    names = [s.name for s, _ in solvers]
    for spec, _ in solvers:
        if spec.name not in used_solvers:
            raise ConfigError(
                f"solver {spec.name!r} handles {', '.join(spec.tasks)} datasets, and none of the chosen datasets "
                f"({', '.join(d.name + ': ' + d.task for d, _ in datasets)}) is one"
            )
    for ds, _ in datasets:
        if ds.name not in used_datasets:
            raise ConfigError(
                f"no chosen solver handles dataset {ds.name!r} ({ds.task}); solvers: {', '.join(names)}"
            )
    return Plan(
        experiment,
        str(run_dir),
        tasks,
        identity,
        skipped,
        {d.name: d.task for d, _ in datasets},
        names,
        unavailable,
    )
