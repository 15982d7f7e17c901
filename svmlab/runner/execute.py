"""Run a plan's tasks with joblib (loky processes, a dask cluster, or sequentially) or Ray."""

from __future__ import annotations

import os
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from joblib import Parallel, delayed, parallel_config

from svmlab.errors import ResultsError
from svmlab.runner import store
from svmlab.runner.batches import BatchSizer, batches, group_of
from svmlab.runner.blas import given_back
from svmlab.runner.isolation import exit_with_parent
from svmlab.runner.settings import check_runner, n_workers
from svmlab.runner.task import UNWRITTEN, TaskOutcome, TaskSpec, record_crash, run_batch

#: Consecutive tasks whose rows could not be written after which a run stops (disk full...).
MAX_UNWRITTEN = 3
#: Seconds between updates of the run's index of task rows while tasks finish.
INDEX_EVERY = 60.0
#: ... or after this many finished tasks, whichever comes first.
INDEX_TASKS = 20000


def _crash_errors(backend: str) -> tuple[type, ...]:
    """Exceptions by which a backend reports that a worker process died mid-task."""
    from joblib.externals.loky.process_executor import BrokenProcessPool, TerminatedWorkerError

    errors: tuple[type, ...] = (TerminatedWorkerError, BrokenProcessPool)
    if backend == "dask":  # importing distributed costs half a second: dask runs only
        from distributed.scheduler import KilledWorker

        errors += (KilledWorker,)
    return errors


@dataclass
class RunSummary:
    """Counts of one execution."""

    total: int
    skipped: int
    ok: int = 0
    failed: list[TaskOutcome] = field(default_factory=list)

    @property
    def n_failed(self) -> int:
        """Tasks that ended with status error or timeout."""
        return len(self.failed)


@contextmanager
def _dask_backend(runner: dict):
    from svmlab.runner.dask_cluster import dask_session  # quiet logs, no worker tracebacks

    with dask_session(runner), parallel_config(backend="dask"):
        yield


def execute(tasks: list[TaskSpec], runner: dict, *, progress: bool | None = None) -> RunSummary:
    """Run every task not already finished with status ok; rows go to each task's run dir.

    Tasks stored with status ok are skipped (resume); failed or timed-out tasks are
    run again. Each finished task is on disk before the next result is reported, so
    killing the run loses at most the tasks in flight.
    """
    runner = check_runner(runner)
    backend = runner.get("backend", "loky")
    done = {}
    for run_dir in {t.run_dir for t in tasks}:
        keys = {t.key for t in tasks if t.run_dir == run_dir}
        done.update(store.finished_keys(run_dir, keys=keys))
    pending = [t for t in tasks if done.get(t.key) != "ok"]
    del done  # a task's status is not needed again; 100,000 of them are not kept
    summary = RunSummary(total=len(tasks), skipped=len(tasks) - len(pending))
    show = runner.get("progress", True) if progress is None else progress
    bar = _progress(len(tasks), summary.skipped, show)
    unwritten, indexed = 0, time.monotonic()
    by_key = {t.key: t for t in pending}
    sizer = BatchSizer(n_workers(runner.get("n_jobs")) if backend != "sequential" else 1)
    recent: dict[str, set[str]] = {}  # run dir -> files written since the last refresh
    n_recent = 0
    try:
        for outcome in _surviving_crashes(pending, runner, backend, sizer):
            spec = by_key[outcome.key]
            sizer.observe(group_of(spec), outcome.seconds)
            if outcome.file:
                recent.setdefault(spec.run_dir, set()).add(outcome.file)
            n_recent += 1
            # the index gets the new rows only: a refresh costs at most INDEX_TASKS tasks' rows
            if n_recent >= INDEX_TASKS or time.monotonic() - indexed > INDEX_EVERY:
                for run_dir, files in recent.items():
                    store.refresh_index(run_dir, files)
                recent, n_recent, indexed = {}, 0, time.monotonic()
            if outcome.status == "ok":
                summary.ok += 1
            else:
                summary.failed.append(outcome)
                bar.write(f"  {outcome.status}: {outcome.key}: {outcome.error}", file=sys.stderr)
            unwritten = unwritten + 1 if outcome.status == UNWRITTEN else 0
            if unwritten >= MAX_UNWRITTEN:
                where = Path(spec.run_dir) / store.TASKS_DIR
                raise ResultsError(_cannot_write(outcome, where, summary, unwritten))
            bar.set_postfix(failed=summary.n_failed, refresh=False)
            bar.update(1)
    finally:
        bar.close()
    return summary


def _cannot_write(outcome: TaskOutcome, where: Path, summary: RunSummary, n: int) -> str:
    reason = outcome.error.rsplit(": ", 1)[-1]  # the OS's reason ends the task's message
    kept = summary.skipped + summary.ok
    return (
        f"stopped: the last {n} tasks' results could not be written to {where} ({reason}); "
        f"the {kept} finished tasks are kept - free space (or make it writable) and run the "
        "same command again to resume"
    )


def _surviving_crashes(pending, runner, backend, sizer):
    """Outcomes of all tasks, even when a worker process dies (segfault, OOM kill).

    A dead worker takes its pool's tasks in flight with it. The unfinished tasks are
    then run again in a fresh pool; after a second crash each remaining task runs on
    its own, so the one that kills its worker is pinned down and stored as an error
    row while every other task still runs.
    """
    crash_errors = _crash_errors(backend)
    remaining = {t.key: t for t in pending}
    crashes = 0
    while remaining and crashes < 2:
        try:
            for outcome in _outcomes(list(remaining.values()), runner, backend, sizer):
                remaining.pop(outcome.key, None)
                yield outcome
        except crash_errors as exc:
            crashes += 1
            print(
                f"svmlab: a worker process died ({type(exc).__name__}); "
                f"{'retrying' if crashes < 2 else 'isolating'} the {len(remaining)} unfinished "
                "task(s)",
                file=sys.stderr,
            )
    alone = BatchSizer(1, max_size=1)
    for spec in list(remaining.values()):
        try:
            outcome = next(iter(_outcomes([spec], runner, backend, alone)))
        except crash_errors as exc:
            outcome = record_crash(
                spec,
                f"worker process died while running this task ({type(exc).__name__}: "
                f"{str(exc).splitlines()[0][:200]})",
            )
        yield outcome


def _outcomes(pending, runner, backend, sizer):
    """Outcomes of ``pending``, run in batches (:mod:`svmlab.runner.batches`) on the
    backend, in the order they finish."""
    if not pending:
        return
    work = batches(pending, sizer)
    # one loky worker (n_jobs=1, or -2 on two cores): joblib would run it here anyway
    if backend == "sequential" or (backend == "loky" and n_workers(runner.get("n_jobs", -1)) == 1):
        with given_back():
            for batch in work:
                yield from run_batch(batch)
        return
    if backend == "ray":
        from svmlab.runner.ray_backend import ray_outcomes

        yield from ray_outcomes(work, runner)
        return
    if backend == "dask":
        with _dask_backend(runner):
            for done in Parallel(return_as="generator_unordered", batch_size=1)(
                delayed(run_batch)(b) for b in work
            ):
                yield from done
        return
    # workers exit on their own within a second when this process is killed
    with parallel_config(backend="loky", initializer=exit_with_parent, initargs=(os.getpid(),)):
        for done in Parallel(
            n_jobs=runner.get("n_jobs", -1), return_as="generator_unordered", batch_size=1
        )(delayed(run_batch)(b) for b in work):
            yield from done


def _progress(total: int, initial: int, show: bool):
    from tqdm.auto import tqdm

    interactive = sys.stderr.isatty()
    return tqdm(
        total=total,
        initial=initial,
        disable=not show,
        unit="task",
        desc="tasks",
        dynamic_ncols=True,
        file=sys.stderr,
        smoothing=0.1,
        mininterval=0.1 if interactive else 10.0,
    )
