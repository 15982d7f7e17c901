"""Expand a composed experiment configuration into validated, typed tasks.

Everything that can be checked without fitting is checked here, before any work
starts: dataset, solver and protocol names, solver parameters and grids, protocol /
task compatibility (including enough samples for the folds), metrics named for tuning
or the summary, runner settings, and missing values the solver cannot take.

Planning runs in three steps, each a function of its own: :func:`read_settings` (the
run-wide settings), :func:`plan_members` (the solvers and datasets, with the parameters
fixed for each) and :func:`expand` (datasets x solvers x repetitions x folds -> tasks,
each with a stable key). :func:`build_plan` chains them.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from svmlab.data.dataset import Dataset
from svmlab.data.registry import dataset_info, load_dataset
from svmlab.errors import ConfigError, DataError, SvmlabError
from svmlab.evaluation.evaluate import check_finite
from svmlab.evaluation.metrics import METRICS, get_metric, is_task_independent
from svmlab.evaluation.preprocessing import Preprocessor
from svmlab.evaluation.protocols import Predefined, Prequential, Protocol, get_protocol
from svmlab.evaluation.tuning import Tuning
from svmlab.runner.keys import digest as _digest
from svmlab.runner.keys import task_digests as _task_digests
from svmlab.runner.provenance import provenance
from svmlab.runner.settings import MAX_TASKS, blas_threads, check_backend, check_runner
from svmlab.runner.task import RUNNER_COLUMNS, TaskSpec
from svmlab.solvers import SolverSpec

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
    unavailable: list[tuple[str, str]] = field(default_factory=list)  # not obtainable here


@dataclass(frozen=True)
class RunSettings:
    """The run-wide settings of a configuration, validated."""

    experiment: str
    protocol: Protocol
    tuning: Tuning
    preprocessing: dict
    runner: dict
    seed: int
    allow_download: bool


@dataclass(frozen=True)
class SolverEntry:
    """One solver of the run and the parameters fixed for it on the command line."""

    spec: SolverSpec
    fixed: frozenset = frozenset()


@dataclass(frozen=True)
class DatasetEntry:
    """One dataset entry of the run: the data, its generator parameters, the solver
    parameters it fixes (``datasets.<key>.solver_params``) and the preprocessing keys it
    overrides (``datasets.<key>.preprocessing``, e.g. ``{X: none}`` for bag-of-words rows)."""

    data: Dataset
    params: dict
    solver_params: dict
    preprocessing: dict = field(default_factory=dict)


def _entries(cfg: dict, plural: str, singular: str) -> list[tuple[str | None, dict]]:
    """``(key, config)`` of every entry of ``datasets``/``solvers``; ``(None, primary)`` when empty.

    An entry set to null is left out, so a profile or the command line can drop members of
    an experiment (``datasets.wq=null``); dropping every entry is an error.
    """
    many = cfg.get(plural) or {}
    items = list(many.items()) if isinstance(many, dict) else [(None, v) for v in many]
    dropped = [str(key) for key, item in items if item is None]
    items = [(key, item) for key, item in items if item is not None]
    if not items and dropped:  # never fall back to the root default (iris / svc) silently
        raise ConfigError(
            f"every entry of {plural} is null ({', '.join(dropped)}): no {singular} is left to "
            f"run; keep at least one, or leave out the experiment and name one with "
            f"{singular}=NAME"
        )
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


def check_summary_metric(name, solvers=(), derived=()) -> None:
    """A summary metric is a registered metric, a cost column, a row value one of the run's
    solvers declares (its contract's ``row_values``) or a column the run's reproduction
    target derives (``derived``)."""
    if name is None or is_task_independent(str(name)) or name in derived:
        return
    if any(name in e.spec.contract.row_values for e in solvers):
        return
    get_metric(name)


def read_settings(cfg: dict) -> RunSettings:
    """Validate the run-wide settings of ``cfg`` (protocol, tuning, preprocessing, runner, seed)."""
    Preprocessor.from_config(cfg.get("preprocessing"))
    seed = cfg.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ConfigError(f"seed must be an integer, got {seed!r}")
    runner = check_runner(cfg.get("runner") or {})
    check_backend(runner)  # fails in seconds, not after dask's 30 s or Ray's minute
    return RunSettings(
        experiment=cfg.get("name") or "adhoc",
        protocol=get_protocol(cfg["protocol"]),
        tuning=Tuning.from_config(cfg.get("tuning")),
        preprocessing=dict(cfg.get("preprocessing") or {}),
        runner=runner,
        seed=seed,
        allow_download=bool((cfg.get("data") or {}).get("allow_download", False)),
    )


def _as_fixed(fixed_params) -> dict:
    """``{entry key or None (the primary solver): set of parameter names}``."""
    if fixed_params is None:
        return {}
    if isinstance(fixed_params, Mapping):
        return {k: set(v) for k, v in fixed_params.items()}
    return {None: set(fixed_params)}  # a plain list: the primary solver's


def validated_solvers(cfg: dict, fixed_params=None) -> list[SolverEntry]:
    """Validated solvers; parameters fixed by an override leave that solver's grid.

    ``fixed_params`` maps a ``solvers`` entry key to the parameters set for it on the
    command line (``solvers.<key>.C=1``), and ``None`` to those of the primary ``solver``
    node (``solver.C=1``, a sweep value). The primary's reach the run directly or through
    an entry that interpolates ``${solver}``; when no entry does, such an override would
    silently do nothing, so it is an error.
    """
    fixed = _as_fixed(fixed_params)
    entries = _entries(cfg, "solvers", "solver")
    primary = cfg.get("solver")
    uses_primary = {key for key, scfg in entries if key is None or scfg == primary}
    if fixed.get(None) and not uses_primary:
        keys = ", ".join(str(k) for k, _ in entries)
        name = sorted(fixed[None])[0]
        raise ConfigError(
            f"solver.{name}=... has no effect: this experiment lists its solvers under "
            f"`solvers` ({keys}) and none of them is the primary `solver`; override "
            f"solvers.<key>.{name}=... instead"
        )
    out = []
    for key, scfg in entries:
        mine = set(fixed.get(key, set()) if key is not None else set())
        if key in uses_primary:
            mine |= fixed.get(None, set())
        spec = SolverSpec.from_config(scfg).without_grid_keys(mine)
        spec.validate()
        _check_row_values(spec)
        out.append(SolverEntry(spec, frozenset(mine)))
    names = [e.spec.name for e in out]
    if len(set(names)) != len(names):
        raise ConfigError(f"two solvers share a name in {names}; give each a distinct `name`")
    return out


def _check_row_values(spec: SolverSpec) -> None:
    """The extra row values a solver's class declares must not take the name of a column the
    runner writes (a metric, a cost, the bookkeeping), which they would overwrite."""
    clash = [
        c
        for c in spec.contract.row_values
        if c in METRICS or is_task_independent(c) or c.startswith("prov_") or c in RUNNER_COLUMNS
    ]
    if clash:
        raise ConfigError(
            f"solver {spec.name!r}: its class declares the row value(s) {clash} (svmlab_contract), "
            "names of columns svmlab writes itself; rename them"
        )


def _with_dataset_params(entry: SolverEntry, fixed: dict, dataset: str) -> SolverEntry:
    """The solver with a dataset entry's ``solver_params`` set, where it has those parameters.

    Studies that fix a kernel width per dataset (e.g. the EvoSVM thesis's Table 3.1) list it
    under the dataset: ``datasets.liver: {name: bupa, solver_params: {gamma: 0.01}}``. Each
    parameter goes to every solver of the run that takes it (and leaves that solver's grid);
    solvers without it are unchanged.
    """
    if not fixed:
        return entry
    accepted = set(entry.spec.prototype.get_params(deep=False))
    mine = {k: v for k, v in fixed.items() if k in accepted}
    if not mine:
        return entry
    spec = entry.spec.fixing(mine)
    try:
        spec.validate()
    except ConfigError as exc:
        raise ConfigError(
            f"dataset {dataset!r}: solver_params {mine} do not suit solver "
            f"{entry.spec.name!r}: {exc}"
        ) from None
    return SolverEntry(spec, entry.fixed | set(mine))


def _unavailable(names: list[str]) -> list[tuple[str, str]]:
    """``(name, reason)`` of the study's datasets an experiment lists as not obtainable here."""
    out = []
    for name in names:
        reason = dataset_info(name).get("unavailable_reason")
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


def _check_splits(protocol: Protocol, ds, seed: int) -> tuple[Protocol, list]:
    """The concrete protocol for ``ds`` and the outer splits of its first repetition (none
    listed for a stream); it must be able to split it (enough samples, at least 2 chunks of
    a stream).

    Repetitions differ only by their seed, so the sizes of their parts, which decide
    whether a split can be drawn and how small a training part gets, are those of the
    first one; drawing only it keeps planning 100,000 repetitions instant.
    """
    concrete = protocol.check(ds.task, ds.name)
    if isinstance(concrete, Prequential):
        if len(concrete.chunks(ds.n_instances)) < 2:
            raise ConfigError(
                f"protocol {protocol.name!r}: chunk_size={concrete.chunk_size} leaves fewer "
                f"than 2 chunks of dataset {ds.name!r} ({ds.n_instances} samples); nothing "
                "would be tested"
            )
        return concrete, []
    predefined = ds.meta.get("predefined_split")
    if isinstance(concrete, Predefined) and not predefined:
        raise ConfigError(
            f"protocol {protocol.name!r} uses the dataset's predefined train/test split, and "
            f"dataset {ds.name!r} has none (joined two-file datasets have one: ripley, "
            "adult_fixed, ijcnn1_fixed, shuttle_fixed, usps_fixed, usps)"
        )
    try:
        splits = concrete.repeat_splits(
            ds.targets, 0, seed=seed, dataset=ds.name, task=ds.task, predefined=predefined
        )
    except (ValueError, ConfigError) as exc:
        raise ConfigError(
            f"protocol {protocol.name!r} cannot split dataset {ds.name!r}: {exc}"
        ) from None
    return concrete, splits


def _check_inner_folds(settings: RunSettings, ds, splits, solvers: list[SolverEntry]) -> None:
    """``tuning.inner_folds`` must fit the smallest outer training part of ``ds`` (the inner
    CV would otherwise be cut down to one sample per fold without saying so)."""
    protocol = settings.protocol.check(ds.task, ds.name)
    tuned = [e for e in solvers if settings.tuning.mode_for(e.spec, protocol) == "nested"]
    if not tuned or not splits:
        return
    smallest = min(len(s.train) for s in splits)
    k = settings.tuning.inner_folds
    if k > smallest:
        unit = "bags" if ds.task == "multi_instance" else "rows"
        raise ConfigError(
            f"tuning.inner_folds={k} is more than the {smallest} training {unit} of dataset "
            f"{ds.name!r} (its smallest outer training part under protocol "
            f"{settings.protocol.name!r}); use at most tuning.inner_folds={smallest}"
        )


def _datasets(cfg: dict, settings: RunSettings, solvers: list[SolverEntry]) -> list[DatasetEntry]:
    """Load and check every dataset entry against the protocol, the tuning and the solvers."""
    takers = {k for e in solvers for k in e.spec.prototype.get_params(deep=False)}
    out = []
    for _, dcfg in _entries(cfg, "datasets", "dataset"):
        params = dict(dcfg.get("params") or {})
        fixed = dict(dcfg.get("solver_params") or {})
        unused = sorted(set(fixed) - takers)
        if unused:
            raise ConfigError(
                f"dataset {dcfg['name']!r}: solver_params {unused} are parameters of none of "
                f"the run's solvers ({', '.join(e.spec.name for e in solvers)})"
            )
        prep = dict(dcfg.get("preprocessing") or {})
        if prep:
            try:
                Preprocessor.from_config({**settings.preprocessing, **prep})
            except ConfigError as exc:
                raise ConfigError(f"dataset {dcfg['name']!r}: preprocessing: {exc}") from None
        ds = _load(dcfg["name"], params, settings.allow_download)
        _, splits = _check_splits(settings.protocol, ds, settings.seed)
        _check_inner_folds(settings, ds, splits, solvers)
        settings.tuning.check_task(ds.task, ds.name, [e.spec for e in solvers])
        out.append(DatasetEntry(ds, params, fixed, prep))
    return out


def plan_members(cfg: dict, settings: RunSettings, fixed_params=None, derived=()):
    """The run's validated solvers and datasets (``derived``: the columns the run's
    reproduction target derives, which the summary may name)."""
    solvers = validated_solvers(cfg, fixed_params)
    check_summary_metric(cfg.get("summary_metric"), solvers, derived)
    _check_bag_weights(settings, solvers)
    return solvers, _datasets(cfg, settings, solvers)


def _check_bag_weights(settings: RunSettings, solvers: list[SolverEntry]) -> None:
    """With ``preprocessing.bag_weights=fit`` every solver's ``fit`` must take weights."""
    if settings.preprocessing.get("bag_weights", "ignore") != "fit":
        return
    refuse = [
        e.spec.name
        for e in solvers
        if "sample_weight" not in inspect.signature(e.spec.prototype.fit).parameters
    ]
    if refuse:
        raise ConfigError(
            f"preprocessing.bag_weights=fit: the fit of {', '.join(refuse)} takes no "
            "sample_weight; leave those solvers out or set preprocessing.bag_weights=ignore"
        )


#: Solver parameters that only say where work is cached (scikit-learn's ``memory``), never
#: what is computed: left out of a run's identity and its task keys, so a run resumes whether
#: or not they are set.
CACHE_ONLY_PARAMETERS = frozenset({"memory"})


def _identity_solver(spec: SolverSpec) -> dict:
    settings = {k: v for k, v in spec.settings().items() if k not in CACHE_ONLY_PARAMETERS}
    return {"name": spec.name, **settings}


def identity(settings: RunSettings, solvers, datasets) -> dict:
    """What a resumed run must share with the stored one (a fingerprint and its parts)."""
    parts = {
        "datasets": _digest(
            [(d.data.name, d.params) for d in datasets]
            + [d.solver_params for d in datasets if d.solver_params]
            + [("preprocessing", d.data.name, d.preprocessing) for d in datasets if d.preprocessing]
        ),
        "solvers": _digest([_identity_solver(e.spec) for e in solvers]),
        "protocol": _digest(settings.protocol.as_dict()),
        "preprocessing": _digest(settings.preprocessing),
        # inner_always only when set: the runs stored before it existed keep their identity
        "tuning": _digest(
            {k: v for k, v in settings.tuning.identity().items() if k != "inner_always" or v}
        ),
        "seed": _digest(settings.seed),
    }
    return {"experiment": settings.experiment, "fingerprint": _digest(parts), "parts": parts}


def _n_infinite(X) -> int:
    """Number of +-inf entries of an input matrix (dense or sparse; 0 for non-numeric)."""
    values = getattr(X, "data", X) if hasattr(X, "tocsr") else X
    try:
        return int(np.isinf(np.asarray(values, dtype=float)).sum())
    except (TypeError, ValueError):
        return 0


def _check_infinite(ds, n_inf: int, prep: dict, spec: SolverSpec, built) -> None:
    """Infinite inputs are refused with advice that can help: imputation fills only missing
    (NaN) values, so ``preprocessing.impute`` never removes them."""
    if not n_inf:
        return
    impute = prep.get("impute", "none")
    tags = getattr(built, "__sklearn_tags__", None)
    if impute == "none" and tags and tags().input_tags.allow_nan:
        return  # the solver takes non-finite values itself
    now = f" (it is {impute} here)" if impute != "none" else ""
    raise DataError(
        f"dataset {ds.name!r} has {n_inf} infinite input values, which solver {spec.name!r} "
        f"cannot take; preprocessing.impute fills only missing (NaN) values{now}, so replace "
        "them in the data file or leave the dataset out"
    )


def _check_plan_size(settings: RunSettings, solvers, datasets) -> None:
    """Refuse, before a task is made, a plan with more tasks than ``runner.max_tasks``."""
    limit = settings.runner.get("max_tasks", MAX_TASKS)
    n = 0
    for d in datasets:
        protocol = settings.protocol.check(d.data.task, d.data.name)
        n_classes = len(d.data.classes) if d.data.is_classification else None
        pairs = sum(accepts(e.spec, d.data.task, n_classes) for e in solvers)
        n += pairs * protocol.n_repeats * protocol.n_folds
    if n > limit:
        raise ConfigError(
            f"the plan has {n:,} tasks ({len(datasets)} dataset(s) x {len(solvers)} solver(s) x "
            f"{settings.protocol.n_repeats:,} repetition(s) x folds), more than "
            f"runner.max_tasks={limit:,}; a planned task costs "
            "about 0.5 KB of memory - lower protocol.n_repeats, or raise runner.max_tasks if "
            "the machine has the memory"
        )


def expand(
    settings: RunSettings,
    solvers: list[SolverEntry],
    datasets: list[DatasetEntry],
    *,
    run_dir: str,
    run_id: str,
    variant: str = "",
) -> tuple[list[TaskSpec], list[tuple[str, str, str]]]:
    """Every (dataset, solver, repeat, fold) task, and the pairs skipped as incompatible."""
    _check_plan_size(settings, solvers, datasets)
    prov = provenance()
    threads = blas_threads(settings.runner)
    tasks, skipped = [], []
    for d in datasets:
        ds = d.data
        prep = {**settings.preprocessing, **d.preprocessing}
        protocol = settings.protocol.check(ds.task, ds.name)
        n_classes = len(ds.classes) if ds.is_classification else None
        n_inf = _n_infinite(ds.X)
        for base in solvers:
            entry = _with_dataset_params(base, d.solver_params, ds.name)
            spec = entry.spec
            if not accepts(spec, ds.task, n_classes):
                why = f"{spec.name} handles {', '.join(spec.tasks)}, not {ds.task}"
                skipped.append((ds.name, spec.name, why))
                continue
            built = spec.prototype
            _check_infinite(ds, n_inf, prep, spec, built)
            if prep.get("impute", "none") == "none":
                check_finite(ds, spec, built)
            values = built.get_params(deep=True)
            fixed = {k: values[k] for k in sorted(entry.fixed) if k in values}
            # what every task of this (dataset, solver) pair shares: the same objects, not
            # copies, so a task costs its key and its own few fields
            shared = {
                "experiment": settings.experiment,
                "dataset": ds.name,
                "dataset_params": d.params,
                "solver": _identity_solver(spec),
                "protocol": settings.protocol.as_dict(),
                "preprocessing": prep,
                "tuning": settings.tuning.identity(
                    settings.tuning.rule_for(spec, settings.tuning.mode_for(spec, protocol))
                ),
                "seed": settings.seed,
            }
            common = dict(
                experiment=settings.experiment,
                run_id=run_id,
                run_dir=str(run_dir),
                dataset=ds.name,
                task_type=ds.task,
                dataset_params=d.params,
                solver=spec,
                protocol=protocol,
                preprocessing=prep,
                tuning=settings.tuning,
                tuning_mode=settings.tuning.mode_for(spec, protocol),
                seed=settings.seed,
                fixed_params=fixed,
                variant=variant,
                timeout=settings.runner.get("task_timeout"),
                blas_threads=threads,
                provenance=prov,
            )
            digest = _task_digests(shared)
            prefix = f"{ds.name}-{spec.name}"
            for repeat in range(protocol.n_repeats):
                for fold in range(protocol.n_folds):
                    key = f"{prefix}-r{repeat}f{fold}-{digest(repeat, fold)}"
                    tasks.append(TaskSpec(key=key, repeat=repeat, fold=fold, **common))
    return tasks, skipped


def _check_coverage(tasks, solvers, datasets) -> None:
    """Every solver runs on some dataset and every dataset gets some solver."""
    used_solvers = {t.solver.name for t in tasks}
    used_datasets = {t.dataset for t in tasks}
    names = [e.spec.name for e in solvers]
    for e in solvers:
        if e.spec.name not in used_solvers:
            chosen = ", ".join(d.data.name + ": " + d.data.task for d in datasets)
            raise ConfigError(
                f"solver {e.spec.name!r} handles {', '.join(e.spec.tasks)} datasets, and none "
                f"of the chosen datasets ({chosen}) is one"
            )
    for d in datasets:
        if d.data.name not in used_datasets:
            raise ConfigError(
                f"no chosen solver handles dataset {d.data.name!r} ({d.data.task}); "
                f"solvers: {', '.join(names)}"
            )


def _ordered(tasks: list, order: str, solver_names: list[str]) -> list:
    """``tasks`` (dataset-major, in the configuration's order) in ``runner.order``: as they are
    (``"datasets"``); split 1 of every dataset and solver, then split 2, ... (``"folds"``); or
    one solver after another in ``solver_names``' order (the experiment's), each in fold order
    (``"solvers"``). The sorts are stable, so the configuration's order holds within."""
    if order == "folds":
        return sorted(tasks, key=lambda t: (t.repeat, t.fold))
    if order == "solvers":
        rank = {name: i for i, name in enumerate(solver_names)}
        return sorted(tasks, key=lambda t: (rank[t.solver.name], t.repeat, t.fold))
    return tasks


def build_plan(
    cfg: dict,
    run_dir: str,
    run_id: str,
    *,
    variant: str = "",
    fixed_params: Mapping[str | None, Iterable[str]] | Iterable[str] | None = None,
    derived: Iterable[str] = (),
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
    fixed_params : mapping or list of str, optional
        Solver parameters set by command-line overrides: ``{None: [...]}`` for the primary
        ``solver`` node (``solver.C=10``), ``{"<key>": [...]}`` for ``solvers.<key>.C=10``;
        a plain list means the primary's. They are taken out of those solvers' grids, so
        the given value is used, and every row records them in ``chosen_params``.
    derived : iterable of str
        The columns the run's reproduction target derives from its rows when it is reported
        (``Reproduction.derived``): ``summary_metric`` may name one.
    """
    settings = read_settings(cfg)
    solvers, datasets = plan_members(cfg, settings, fixed_params, tuple(derived))
    unavailable = _unavailable(cfg.get("unavailable_datasets") or [])
    tasks, skipped = expand(
        settings, solvers, datasets, run_dir=run_dir, run_id=run_id, variant=variant
    )
    _check_coverage(tasks, solvers, datasets)
    tasks = _ordered(
        tasks, settings.runner.get("order", "datasets"), [e.spec.name for e in solvers]
    )
    return Plan(
        settings.experiment,
        str(run_dir),
        tasks,
        identity(settings, solvers, datasets),
        skipped,
        {d.data.name: d.data.task for d in datasets},
        [e.spec.name for e in solvers],
        unavailable,
    )
