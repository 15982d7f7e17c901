"""One task = one (dataset, solver, repetition, fold): evaluate it and store its row(s)."""

from __future__ import annotations

import json
import os
import time
import traceback
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import lru_cache

import numpy as np

from svmlab.data.registry import load_dataset
from svmlab.evaluation.evaluate import Evaluation, fit_and_score
from svmlab.evaluation.prequential import prequential_evaluate
from svmlab.evaluation.protocols import Prequential, Protocol
from svmlab.evaluation.tuning import (
    Tuning,
    evaluate_point,
    inner_search,
    model_key,
    point_seed,
    seed_key,
)
from svmlab.runner import store
from svmlab.runner.blas import use_threads
from svmlab.runner.isolation import call_with_limit
from svmlab.seeding import derive_seed
from svmlab.solvers import SolverSpec

#: Status of a task that ran but whose rows could not be written (never stored in a row).
UNWRITTEN = "unwritten"
#: Seconds after which a batch's finished tasks are written even if the batch goes on.
FLUSH_EVERY = 1.0


@dataclass(frozen=True, slots=True)
class TaskSpec:
    """Everything a worker needs to run one task, as the typed objects planning built.

    Nothing here is re-derived in the worker: the protocol is already the concrete
    splitter for the dataset's task, ``tuning_mode`` is the mode this (solver, protocol)
    pair runs (decided once by :meth:`Tuning.mode_for`), and ``fixed_params`` holds the
    solver parameters fixed for this task (command-line overrides, a dataset entry's
    ``solver_params``), which the row records with the values the estimator used.

    A plan holds one per task (100,000 in a large run): planning gives the tasks of a
    (dataset, solver) pair the same dataset, solver, protocol, tuning and provenance
    objects, and ``slots`` leaves out a per-instance ``__dict__``, so a task costs its
    key and a few fields (about 300 bytes).
    """

    key: str
    experiment: str
    run_id: str
    run_dir: str
    dataset: str
    task_type: str
    dataset_params: dict
    solver: SolverSpec
    protocol: Protocol
    preprocessing: dict
    tuning: Tuning
    tuning_mode: str
    seed: int
    repeat: int
    fold: int
    fixed_params: dict = field(default_factory=dict)
    variant: str = ""
    timeout: float | None = None
    blas_threads: int | None = 1
    provenance: dict = field(default_factory=dict)


@dataclass(frozen=True)
class TaskOutcome:
    """What a worker sends back to the parent (the rows themselves are on disk)."""

    key: str
    status: str
    seconds: float
    error: str = ""
    file: str = ""  # the task file its rows went to (without .parquet)


@lru_cache(maxsize=64)
def _splits(dataset: str, params_json: str, protocol: Protocol, seed: int, repeat: int):
    """``{fold: split}`` of one repetition: a worker draws the repetitions of its tasks only,
    so neither its time nor its memory grows with the plan's number of repetitions."""
    ds = load_dataset(dataset, json.loads(params_json))
    splits = protocol.repeat_splits(
        ds.targets,
        repeat,
        seed=seed,
        dataset=dataset,
        task=ds.task,
        predefined=ds.meta.get("predefined_split"),
    )
    return {s.fold: s for s in splits}


def _dataset_and_split(spec: TaskSpec):
    ds = load_dataset(spec.dataset, spec.dataset_params)
    params = json.dumps(spec.dataset_params, sort_keys=True)
    splits = _splits(spec.dataset, params, spec.protocol, spec.seed, spec.repeat)
    return ds, splits[spec.fold]


def used_params(spec: TaskSpec, point: dict) -> dict:
    """The parameters the run chose or fixed for this task's estimator: every fixed parameter
    with the value the estimator was built with, and the grid point."""
    return {**spec.fixed_params, **point}


def evaluate_task(spec: TaskSpec) -> list[dict]:
    """Run the task and return its result rows (without the bookkeeping columns)."""
    ds, split = _dataset_and_split(spec)
    solver = spec.solver
    rs = derive_seed(spec.seed, "solver", spec.dataset, spec.repeat, spec.fold)
    base = {
        "n_train": len(split.train),
        "n_test": len(split.test),
        "tuning_metric": spec.tuning.metric(ds.task, solver),
        "tuning_rule": spec.tuning.rule_for(solver, spec.tuning_mode),
    }

    if isinstance(spec.protocol, Prequential):
        ev, extra = prequential_evaluate(
            solver, ds, spec.protocol, preprocessing=spec.preprocessing, random_state=rs
        )
        return [_row(base | extra, used_params(spec, {}), ev, 0.0)]

    train, test = ds.subset(split.train), ds.subset(split.test)
    if solver.runs == 1:
        return _evaluate_run(spec, solver, ds, train, test, base, rs)
    # independent runs of a stochastic solver on the same fold: run 0 keeps the task's seed
    return [
        row | {"run": r}
        for r in range(solver.runs)
        for row in _evaluate_run(
            spec, solver, ds, train, test, base, rs if r == 0 else derive_seed(rs, "run", r)
        )
    ]


def _evaluate_run(spec: TaskSpec, solver, ds, train, test, base: dict, rs: int) -> list[dict]:
    """The rows of one fit of the task's solver (several with ``tuning.mode=outer_best``)."""
    classes = ds.classes if ds.is_classification else None
    common = dict(preprocessing=spec.preprocessing, classes=classes, random_state=rs)
    if spec.tuning_mode == "outer_best":
        rows, done = [], {}
        for i, point in enumerate(solver.grid_points()):
            key = model_key(solver, point)
            if key not in done:  # equivalent points (same model) are trained once, a path's
                # values together (evaluate_point: one fit_path)
                seeded = common | {"random_state": point_seed(rs, seed_key(solver, point))}
                for member, ev in evaluate_point(solver, point, train, test, **seeded).items():
                    done.setdefault(member, ev)
            rows.append(_row(base | {"grid_point": i}, used_params(spec, point), done[key], 0.0))
        return rows
    chosen, tune_time, table = {}, 0.0, None
    if spec.tuning_mode == "nested":
        t0 = time.perf_counter()
        chosen, table = inner_search(
            solver,
            train,
            tuning=spec.tuning,
            preprocessing=spec.preprocessing,
            classes=classes,
            seed=derive_seed(spec.seed, spec.dataset, spec.repeat, spec.fold),
            random_state=rs,
        )
        tune_time = time.perf_counter() - t0
        # the final model gets the seed its grid point was evaluated with
        common["random_state"] = point_seed(rs, seed_key(solver, chosen))
    ev = fit_and_score(solver, chosen, train, test, **common)
    extra = {"grid_scores": json.dumps(table, default=_json_default)} if table else {}
    return [_row(base | extra, used_params(spec, chosen), ev, tune_time)]


#: Columns the runner writes itself (besides the metrics and costs): an estimator's declared
#: row values may not take these names (checked at planning).
RUNNER_COLUMNS = frozenset(
    "key experiment run_id dataset task_type solver variant solver_params protocol tuning_mode "
    "repeat fold seed status error traceback task_seconds started_at n_train n_test run "
    "tuning_metric tuning_rule grid_scores grid_point chosen_params fit_info warnings confusion "
    "classes n_chunks chunk_accuracy update selected method job run_dir".split()
)


def _row(base: dict, chosen: dict, ev: Evaluation, tune_time: float) -> dict:
    """One result row: the task's base columns, the metrics, the costs, and the extra values
    the estimator's contract declares."""
    row = dict(base)
    row["chosen_params"] = json.dumps(chosen, sort_keys=True, default=_json_default)
    row.update(ev.metrics)
    # the seconds an estimator spent tuning itself (Contract.tune_seconds) move from the
    # final model's fit time to the tuning time
    row.update(
        fit_time=ev.fit_time,
        predict_time=ev.predict_time,
        tune_time=tune_time + ev.self_tune_time,
        final_fit_time=max(ev.fit_time - ev.self_tune_time, 0.0),
        model_size=ev.model_size,
        train_test_time=ev.fit_time + ev.predict_time,
    )
    row.update(ev.declared)
    row["fit_info"] = json.dumps(ev.fit_info, default=_json_default)
    row["warnings"] = "; ".join(ev.warnings)
    return row


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


def _meta(
    spec: TaskSpec,
    status: str,
    error: str,
    tb: str,
    seconds: float,
    start: datetime,
    threads: int | None = None,
) -> dict:
    """The bookkeeping columns every row of a task carries, whatever its status; ``threads``:
    the BLAS threads the task ran with (None: what it asked for, its worker having died)."""
    return {
        "key": spec.key,
        "experiment": spec.experiment,
        "run_id": spec.run_id,
        "dataset": spec.dataset,
        "task_type": spec.task_type,
        "solver": spec.solver.name,
        "variant": spec.variant,
        "solver_params": json.dumps(spec.solver.settings(), sort_keys=True, default=_json_default),
        "protocol": spec.protocol.name,
        "tuning_mode": spec.tuning_mode,
        "repeat": spec.repeat,
        "fold": spec.fold,
        "seed": spec.seed,
        "status": status,
        "error": error,
        "traceback": tb,
        "task_seconds": seconds,
        "started_at": start.isoformat(timespec="seconds"),
        **{f"prov_{k}": v for k, v in spec.provenance.items()},
        "prov_blas_threads": spec.blas_threads if threads is None else threads,
    }


def run_task(spec: TaskSpec) -> TaskOutcome:
    """Evaluate a task and store its row(s), never raising: failures become rows with
    status error/timeout.

    The rows are written to the run's ``tasks/`` directory before this returns, so a
    task that finished is never lost, whatever happens to the parent process. With
    ``runner.task_timeout`` the task runs in a child process that is killed when the
    limit passes (:func:`svmlab.runner.isolation.call_with_limit`), so even a long call
    into compiled code ends on time. A task whose rows cannot be written (disk full,
    read-only directory) comes back with status ``unwritten`` and the reason.
    """
    return run_batch([spec])[0]


def run_batch(specs: list[TaskSpec]) -> list[TaskOutcome]:
    """Run tasks one after the other and commit their rows together; their outcomes.

    The rows of the tasks finished so far are written as one file
    (:func:`svmlab.runner.store.write_batch`) when the batch ends, and whenever
    :data:`FLUSH_EVERY` seconds have passed since the last write: a group commit, which
    spares each short task its own file and fsync. Nothing is returned before every
    task's rows are on disk, so the runner never reports a task that a crash could lose;
    a crash loses at most the unwritten tasks of the batches in flight.
    """
    outcomes: list[TaskOutcome] = []
    waiting: list[tuple[TaskSpec, list[dict], TaskOutcome]] = []
    written = time.monotonic()
    for spec in specs:
        waiting.append(_run(spec))
        if time.monotonic() - written >= FLUSH_EVERY:
            outcomes += _commit(waiting)
            waiting, written = [], time.monotonic()
    return outcomes + _commit(waiting)


def _run(spec: TaskSpec) -> tuple[TaskSpec, list[dict], TaskOutcome]:
    """The task evaluated: its rows (with the bookkeeping columns) and its outcome."""
    start = datetime.now(UTC)
    t0 = time.perf_counter()
    threads = use_threads(spec.blas_threads)
    if spec.timeout:
        rows, status, error, tb = _evaluate_with_limit(spec)
    else:
        rows, status, error, tb = _evaluate_guarded(spec)
    seconds = time.perf_counter() - t0
    meta = _meta(spec, status, error, tb, seconds, start, threads)
    return spec, [meta | row for row in rows], TaskOutcome(spec.key, status, seconds, error)


def _evaluate_guarded(spec: TaskSpec) -> tuple[list[dict], str, str, str]:
    """``(rows, status, error, traceback)`` of the task; an exception becomes an error row."""
    try:
        return evaluate_task(spec), "ok", "", ""
    except Exception as exc:  # any failure of a solver or a dataset becomes a row
        return [{}], "error", f"{type(exc).__name__}: {exc}", traceback.format_exc(limit=-8)


def _evaluate_alone(spec: TaskSpec) -> tuple[list[dict], str, str, str]:
    """:func:`_evaluate_guarded` in a forked child: joblib calls inside run sequentially.

    The worker's joblib backend (dask's, inside a dask task) talks to threads that a
    forked child does not have, so nested parallelism would wait forever.
    """
    from joblib import parallel_config

    with parallel_config(backend="sequential"):
        return _evaluate_guarded(spec)


def _evaluate_with_limit(spec: TaskSpec) -> tuple[list[dict], str, str, str]:
    """:func:`_evaluate_guarded` in a child process killed after ``spec.timeout`` seconds."""
    try:  # load the data here, so the worker's cache serves this task's child and the next
        _dataset_and_split(spec)
    except Exception:  # the child meets the same failure and records it
        pass
    done = call_with_limit(_evaluate_alone, spec, spec.timeout)
    if done.status == "ok":
        return done.value
    if done.status == "timeout":
        return [{}], "timeout", f"task exceeded runner.task_timeout={spec.timeout:g} s (killed)", ""
    return [{}], "error", f"the task's process died ({done.detail})", ""


def _commit(waiting: list[tuple[TaskSpec, list[dict], TaskOutcome]]) -> list[TaskOutcome]:
    """Write the rows of finished tasks (one file per run directory and row schema); their
    outcomes, naming the file each went to. A failed write turns them into status
    ``unwritten``, with the reason."""
    out = []
    by_dir: dict[str, list] = {}
    for item in waiting:
        by_dir.setdefault(item[0].run_dir, []).append(item)
    for run_dir, items in by_dir.items():
        try:
            stems = store.write_batch(run_dir, [(spec.key, rows) for spec, rows, _ in items])
        except OSError as exc:
            reason = os.strerror(exc.errno) if exc.errno else str(exc)
            where = f"{run_dir}/{store.TASKS_DIR}"
            out += [
                TaskOutcome(o.key, UNWRITTEN, o.seconds, f"could not write to {where}: {reason}")
                for _, _, o in items
            ]
            continue
        out += [replace(o, file=stem) for (_, _, o), stem in zip(items, stems, strict=True)]
    return out


def record_crash(spec: TaskSpec, error: str) -> TaskOutcome:
    """Store an error row for a task whose worker process died (segfault, out of memory...)."""
    meta = _meta(spec, "error", error, "", float("nan"), datetime.now(UTC))
    return _commit([(spec, [meta], TaskOutcome(spec.key, "error", float("nan"), error))])[0]
