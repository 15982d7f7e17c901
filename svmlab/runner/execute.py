"""Run a plan's tasks with joblib (loky processes, a dask cluster, or sequentially)."""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass, field

from joblib import Parallel, delayed, parallel_config

from svmlab.errors import ConfigError
from svmlab.runner import store
from svmlab.runner.task import TaskOutcome, TaskSpec, run_task

BACKENDS = ("loky", "sequential", "dask")


@dataclass
class RunSummary:
    """Counts of one execution."""

    total: int
    skipped: int
    ok: int = 0
    failed: list[TaskOutcome] = field(default_factory=list)

    @property
    def n_failed(self) -> int:
        return len(self.failed)


@contextmanager
def _dask_backend(runner: dict):
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError("runner=dask needs the dask extra: pip install 'svmlab[dask]'") from None
    address = runner.get("address")
    if address:
        client, cluster = Client(address), None
    else:
        n = max(int(runner.get("n_jobs") or 2), 1)
        cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True, host="127.0.0.1",
                               dashboard_address=None, silence_logs=40)
        client = Client(cluster)
    try:
        with parallel_config(backend="dask"):
            yield
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def execute(tasks: list[TaskSpec], runner: dict, *, progress: bool | None = None) -> RunSummary:
    """Run every task not already finished with status ok; rows go to each task's run dir.

    Tasks stored with status ok are skipped (resume); failed or timed-out tasks are
    run again. Each finished task is on disk before the next result is reported, so
    killing the run loses at most the tasks in flight.
    """
    backend = runner.get("backend", "loky")
    if backend not in BACKENDS:
        raise ConfigError(f"runner.backend={backend!r} is not valid; choose one of {', '.join(BACKENDS)}")
    done = {}
    for run_dir in {t.run_dir for t in tasks}:
        done.update(store.finished_keys(run_dir))
    pending = [t for t in tasks if done.get(t.key) != "ok"]
    summary = RunSummary(total=len(tasks), skipped=len(tasks) - len(pending))
    show = runner.get("progress", True) if progress is None else progress
    bar = _progress(len(tasks), summary.skipped, show)
    try:
        for outcome in _outcomes(pending, runner, backend):
            if outcome.status == "ok":
                summary.ok += 1
            else:
                summary.failed.append(outcome)
                bar.write(f"  {outcome.status}: {outcome.key}: {outcome.error}", file=sys.stderr)
            bar.set_postfix(failed=summary.n_failed, refresh=False)
            bar.update(1)
    finally:
        bar.close()
    return summary


def _outcomes(pending, runner, backend):
    if not pending:
        return
    if backend == "sequential" or (backend == "loky" and runner.get("n_jobs", -1) == 1):
        for spec in pending:
            yield run_task(spec)
        return
    if backend == "dask":
        with _dask_backend(runner):
            yield from Parallel(return_as="generator_unordered")(delayed(run_task)(t) for t in pending)
        return
    yield from Parallel(n_jobs=runner.get("n_jobs", -1), backend="loky", return_as="generator_unordered")(
        delayed(run_task)(t) for t in pending
    )


def _progress(total: int, initial: int, show: bool):
    from tqdm.auto import tqdm

    interactive = sys.stderr.isatty()
    return tqdm(total=total, initial=initial, disable=not show, unit="task", desc="tasks", dynamic_ncols=True,
                file=sys.stderr, smoothing=0.1, mininterval=0.1 if interactive else 10.0)
