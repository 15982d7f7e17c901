"""One task = one (dataset, solver, repetition, fold): evaluate it and store its row(s)."""

from __future__ import annotations

import json
import signal
import threading
import time
import traceback
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import lru_cache

import numpy as np

from svmlab.data.registry import load_dataset
from svmlab.evaluation.evaluate import Evaluation, fit_and_score
from svmlab.evaluation.prequential import prequential_evaluate
from svmlab.evaluation.protocols import make_splits, resolve_kind
from svmlab.evaluation.tuning import inner_search, model_key, point_seed, scoring_metric
from svmlab.runner import store
from svmlab.seeding import derive_seed
from svmlab.solvers import SolverSpec


class TaskTimeout(Exception):
    """Raised inside a task that exceeded ``runner.task_timeout``."""


@dataclass(frozen=True)
class TaskSpec:
    """Everything a worker needs to run one task (plain, picklable values)."""

    key: str
    experiment: str
    run_id: str
    run_dir: str
    dataset: str
    task_type: str
    dataset_params: dict
    solver: dict
    protocol: dict
    preprocessing: dict
    tuning: dict
    seed: int
    repeat: int
    fold: int
    variant: str = ""
    timeout: float | None = None
    limit_blas: bool = False
    provenance: dict = field(default_factory=dict)


@dataclass(frozen=True)
class TaskOutcome:
    """What a worker sends back to the parent (the rows themselves are on disk)."""

    key: str
    status: str
    seconds: float
    error: str = ""


@lru_cache(maxsize=64)
def _splits(dataset: str, params_json: str, protocol_json: str, seed: int):
    ds = load_dataset(dataset, json.loads(params_json))
    protocol = json.loads(protocol_json)
    return {
        (s.repeat, s.fold): s for s in make_splits(protocol, ds.task, ds.targets, seed, dataset)
    }


def _dataset_and_split(spec: TaskSpec):
    ds = load_dataset(spec.dataset, spec.dataset_params)
    splits = _splits(
        spec.dataset,
        json.dumps(spec.dataset_params, sort_keys=True),
        json.dumps(spec.protocol, sort_keys=True),
        spec.seed,
    )
    return ds, splits[(spec.repeat, spec.fold)]


def evaluate_task(spec: TaskSpec) -> list[dict]:
    """Run the task and return its result rows (without the bookkeeping columns)."""
    ds, split = _dataset_and_split(spec)
    solver = SolverSpec.from_config(spec.solver)
    classes = ds.classes if ds.is_classification else None
    rs = derive_seed(spec.seed, "solver", spec.dataset, spec.repeat, spec.fold)
    base = {
        "n_train": len(split.train),
        "n_test": len(split.test),
        "tuning_metric": scoring_metric(spec.tuning, ds.task),
    }

    if resolve_kind(spec.protocol, ds.task) == "prequential":
        ev, extra = prequential_evaluate(
            solver, ds, spec.protocol, preprocessing=spec.preprocessing, random_state=rs
        )
        return [_row(base | extra, {}, ev, 0.0)]

    train, test = ds.subset(split.train), ds.subset(split.test)
    mode = spec.tuning.get("mode", "nested") if solver.grid else "none"
    common = dict(preprocessing=spec.preprocessing, classes=classes, random_state=rs)
    if mode == "outer_best":
        rows, done = [], {}
        for i, point in enumerate(solver.grid_points()):
            key = model_key(solver, point)
            if key not in done:  # equivalent points (same model) are trained once
                done[key] = fit_and_score(
                    solver, point, train, test, **(common | {"random_state": point_seed(rs, key)})
                )
            rows.append(_row(base | {"grid_point": i}, point, done[key], 0.0))
        return rows
    chosen, tune_time, table = {}, 0.0, None
    if mode == "nested":
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
    if mode == "nested":  # the final model gets the seed its grid point was evaluated with
        common["random_state"] = point_seed(rs, model_key(solver, chosen))
    ev = fit_and_score(solver, chosen, train, test, **common)
    extra = {"grid_scores": json.dumps(table, default=_json_default)} if table else {}
    return [_row(base | extra, chosen, ev, tune_time)]


def _row(base: dict, chosen: dict, ev: Evaluation, tune_time: float) -> dict:
    row = dict(base)
    row["chosen_params"] = json.dumps(chosen, sort_keys=True, default=_json_default)
    row.update(ev.metrics)
    # estimators that tune themselves (e.g. per chain link) report that part as fit_info["tune_seconds"]:
    # it moves from the final model's fit time to the tuning time
    inner = ev.fit_info.get("tune_seconds", 0.0) if isinstance(ev.fit_info, dict) else 0.0
    inner = float(inner) if isinstance(inner, (int, float)) and np.isfinite(inner) else 0.0
    row.update(
        fit_time=ev.fit_time,
        predict_time=ev.predict_time,
        tune_time=tune_time + inner,
        final_fit_time=max(ev.fit_time - inner, 0.0),
        model_size=ev.model_size,
        train_test_time=ev.fit_time + ev.predict_time,
    )
    n_train = base.get("n_train") or 0
    # %SV as the OLLAWV study reports it: distinct support vectors / training-set size
    row["sv_percent"] = (
        100.0 * ev.model_size / n_train if n_train and np.isfinite(ev.model_size) else np.nan
    )
    # the dual objective the model reached, where the estimator reports one (EvoSVM's Table 3.2)
    objective = ev.fit_info.get("objective") if isinstance(ev.fit_info, dict) else None
    row["dual_objective"] = float(objective) if isinstance(objective, (int, float)) else np.nan
    row["fit_info"] = json.dumps(ev.fit_info, default=_json_default)
    row["warnings"] = "; ".join(ev.warnings)
    return row


def _json_default(obj):
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    return str(obj)


@contextmanager
def _deadline(seconds: float | None):
    """Raise :class:`TaskTimeout` in the running task after ``seconds``.

    In a process's main thread (sequential and loky workers) a SIGALRM timer raises it;
    in other threads (dask workers) a watchdog timer raises it asynchronously in the
    task's thread. Either way Python raises it between bytecodes, so a single long call
    into compiled code (one LIBSVM fit, one sleep) is interrupted when that call returns.
    """
    if not seconds:
        yield
        return

    def message():
        return f"task exceeded runner.task_timeout={seconds:g} s"

    if threading.current_thread() is threading.main_thread():

        def _raise(signum, frame):
            raise TaskTimeout(message())

        previous = signal.signal(signal.SIGALRM, _raise)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        return
    import ctypes

    target = threading.get_ident()
    fired = threading.Event()

    def _interrupt():
        fired.set()
        ctypes.pythonapi.PyThreadState_SetAsyncExc(
            ctypes.c_ulong(target), ctypes.py_object(TaskTimeout)
        )

    timer = threading.Timer(seconds, _interrupt)
    timer.daemon = True
    timer.start()
    try:
        yield
    except TaskTimeout:
        raise TaskTimeout(message()) from None
    finally:
        timer.cancel()
        if fired.is_set():  # the exception may still be pending if the task ended just then
            ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(target), None)


def _meta(
    spec: TaskSpec, status: str, error: str, tb: str, seconds: float, start: datetime
) -> dict:
    """The bookkeeping columns every row of a task carries, whatever its status."""
    return {
        "key": spec.key,
        "experiment": spec.experiment,
        "run_id": spec.run_id,
        "dataset": spec.dataset,
        "task_type": spec.task_type,
        "solver": spec.solver.get("name", ""),
        "variant": spec.variant,
        "solver_params": json.dumps(
            {k: v for k, v in spec.solver.items() if k not in ("name", "description")},
            sort_keys=True,
            default=_json_default,
        ),
        "protocol": spec.protocol.get("name", spec.protocol.get("kind", "")),
        "tuning_mode": "none"
        if spec.protocol.get("kind") == "prequential"
        else spec.tuning.get("mode", "nested"),
        "repeat": spec.repeat,
        "fold": spec.fold,
        "seed": spec.seed,
        "status": status,
        "error": error,
        "traceback": tb,
        "task_seconds": seconds,
        "started_at": start.isoformat(timespec="seconds"),
        **{f"prov_{k}": v for k, v in spec.provenance.items()},
    }


def run_task(spec: TaskSpec) -> TaskOutcome:
    """Evaluate a task, never raising: failures become rows with status error/timeout.

    The rows are written to the run's ``tasks/`` directory before this returns, so a
    task that finished is never lost, whatever happens to the parent process.
    """
    start = datetime.now(UTC)
    t0 = time.perf_counter()
    status, error, tb = "ok", "", ""
    try:
        with _blas_limit(spec.limit_blas), _deadline(spec.timeout):
            rows = evaluate_task(spec)
        if spec.timeout and time.perf_counter() - t0 > spec.timeout:
            raise TaskTimeout(f"task exceeded runner.task_timeout={spec.timeout:g} s")
    except TaskTimeout as exc:
        rows, status, error = [{}], "timeout", str(exc)
    except Exception as exc:  # any failure of a solver or a dataset becomes a row
        rows, status, error = [{}], "error", f"{type(exc).__name__}: {exc}"
        tb = traceback.format_exc(limit=-8)
    seconds = time.perf_counter() - t0
    meta = _meta(spec, status, error, tb, seconds, start)
    store.write_task_rows(spec.run_dir, spec.key, [meta | row for row in rows])
    return TaskOutcome(spec.key, status, seconds, error)


def record_crash(spec: TaskSpec, error: str) -> TaskOutcome:
    """Store an error row for a task whose worker process died (segfault, out of memory...)."""
    meta = _meta(spec, "error", error, "", float("nan"), datetime.now(UTC))
    store.write_task_rows(spec.run_dir, spec.key, [meta])
    return TaskOutcome(spec.key, "error", float("nan"), error)


_BLAS_LIMITED = False


@contextmanager
def _blas_limit(limit: bool):
    """One BLAS/OpenMP thread in this worker process when several tasks run at once.

    Set once per worker (inspecting the loaded libraries costs milliseconds) and left
    in place: worker processes only ever run tasks.
    """
    global _BLAS_LIMITED
    if limit and not _BLAS_LIMITED:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1)
        _BLAS_LIMITED = True
    yield
