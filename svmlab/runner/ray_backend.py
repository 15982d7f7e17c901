"""Run a plan's tasks as Ray tasks, on a local Ray instance or an existing Ray cluster.

Each batch of tasks (:mod:`svmlab.runner.batches`) is one Ray task calling
:func:`svmlab.runner.task.run_batch`, which writes the tasks' rows to the run directory
before it returns - exactly as on loky and dask, so a finished task is on disk whatever
happens to the driver or the cluster afterwards. At most ``IN_FLIGHT_PER_CPU`` batches per
cluster CPU are submitted at once, so the driver's memory does not grow with the number of
tasks.

A worker process that dies mid-task (killed, out of memory, a segfault in compiled code)
takes only its own task with it: Ray runs that task once more (``max_retries=1``) and, if
it dies again, the task is stored as an error row naming the cause while every other task
goes on. A cluster that goes away mid-run stops the run with one line; the finished tasks
are kept and the same command resumes.
"""

from __future__ import annotations

import logging
import os
import signal
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from svmlab.errors import ConfigError, ResultsError
from svmlab.runner.settings import BACKEND_PACKAGES, n_workers
from svmlab.runner.task import TaskOutcome, TaskSpec, record_crash, run_batch

#: Tasks submitted per CPU of the cluster before the driver waits for one to finish.
IN_FLIGHT_PER_CPU = 2
#: Prefix of the environment variables handed to the Ray workers (SVMLAB_DATA_DIR...): a
#: cluster's workers were started elsewhere and do not share the driver's environment.
FORWARDED_ENV = "SVMLAB_"
#: Bytes of the local instance's object store: only task descriptions and outcomes (never
#: data sets) pass through it, so Ray's default (30% of memory, in /dev/shm) is not needed.
LOCAL_OBJECT_STORE = 256 * 2**20
#: Times Ray reruns a task whose worker process died before it is recorded as an error.
WORKER_RETRIES = 1


def _import_ray():
    try:
        import ray
    except ImportError:
        raise ConfigError(BACKEND_PACKAGES["ray"][1]) from None
    return ray


@contextmanager
def ray_session(runner: dict):
    """Connect to ``runner.address`` (or start a local Ray instance) for the block.

    With ``address: null`` a new local instance with ``n_jobs`` CPUs is started on
    127.0.0.1 (never an instance some other program started: ``address="local"``) and
    shut down afterwards; with an address the driver connects and leaves the cluster
    running. Inside a Ray task (a sweep job of ``hydra/launcher=ray``), or when this process
    is already connected and no address is given, that connection is used and left open.

    Raises
    ------
    ConfigError
        One line when Ray refuses to start or to connect (authentication, versions...).
    """
    ray = _import_ray()
    if ray.is_initialized():
        from ray._private.worker import WORKER_MODE, global_worker

        if global_worker.mode == WORKER_MODE or not runner.get("address"):
            yield ray  # a Ray task's connection, or this program's own: used, left open
            return
        ray.shutdown()  # connected elsewhere (a launcher's local instance): join the address
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    address = runner.get("address")
    env = {k: v for k, v in os.environ.items() if k.startswith(FORWARDED_ENV)}
    options = {
        "runtime_env": {"env_vars": env} if env else None,
        "logging_level": logging.ERROR,
        "log_to_driver": False,
        "include_dashboard": False,
    }
    if address:
        options["address"] = address
    else:
        options.update(
            address="local",
            num_cpus=n_workers(runner.get("n_jobs")),
            object_store_memory=LOCAL_OBJECT_STORE,
            _node_ip_address="127.0.0.1",
            # a task Ray's memory monitor kills is retried like any other (not without end)
            _system_config={"task_oom_retries": WORKER_RETRIES},
        )
    try:
        with _own_sigterm_handler():
            ray.init(**options)
    except Exception as exc:  # Ray's own errors vary by version; each becomes one line
        where = f"the Ray cluster at {address}" if address else "a local Ray instance"
        raise ConfigError(f"runner=ray: cannot start or join {where} ({_describe(exc)})") from None
    try:
        yield ray
    finally:
        ray.shutdown()


@contextmanager
def _own_sigterm_handler() -> Iterator[None]:
    """Keep this program's SIGTERM handler through ``ray.init``.

    ``ray.init`` replaces the handler with its own (``sys.exit(15)``) and the driver's core
    worker adds a crash handler that prints a stack dump on SIGTERM: a scheduler's stop would
    end in Ray's dump and exit 15 (or 134) instead of svmlab's one line and 143. The handler
    found before (``svmlab run``'s, which ends the run and shuts Ray down) is put back; a
    SIGTERM during ``ray.init`` is handed to it. Without a handler of its own (the default
    action), Ray's is kept: it shuts the local instance down on the way out.
    """
    main = threading.current_thread() is threading.main_thread()
    previous = signal.getsignal(signal.SIGTERM) if main else None
    keep = callable(previous) or previous == signal.SIG_IGN
    try:
        yield
    except SystemExit as exc:  # Ray's handler ran while ray.init was under way
        if keep and exc.code == signal.SIGTERM:
            signal.signal(signal.SIGTERM, previous)
            if callable(previous):
                previous(signal.SIGTERM, None)
            return
        raise
    if keep:
        signal.signal(signal.SIGTERM, previous)  # also takes the signal back from Ray's dump


def _describe(exc: BaseException) -> str:
    first = (str(exc).strip().splitlines() or [""])[0][:200]
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def ray_outcomes(batches: Iterable[list[TaskSpec]], runner: dict) -> Iterator[TaskOutcome]:
    """Outcomes of the tasks of ``batches`` (:mod:`svmlab.runner.batches`), each batch one
    Ray task, in the order they finish."""
    queue = iter(batches)
    first = next(queue, None)
    if first is None:
        return
    with ray_session(runner) as ray:
        from ray.exceptions import GetTimeoutError, RayTaskError

        remote = ray.remote(num_cpus=1, max_retries=WORKER_RETRIES)(run_batch)
        cpus = max(int(ray.cluster_resources().get("CPU", 1)), 1)
        limit = IN_FLIGHT_PER_CPU * cpus
        running: dict = {remote.remote(first): first}
        alone: list[list[TaskSpec]] = []  # the tasks of a batch that crashed, one by one
        while True:
            while len(running) < limit:
                batch = alone.pop() if alone else next(queue, None)
                if batch is None:
                    break
                running[remote.remote(batch)] = batch
            if not running:
                return
            ready, _ = ray.wait(list(running), num_returns=1)
            batch = running.pop(ready[0])
            try:
                yield from ray.get(ready[0])
            except (
                RayTaskError,
                GetTimeoutError,
                ray.exceptions.WorkerCrashedError,
                ray.exceptions.OutOfMemoryError,
            ) as exc:
                if len(batch) > 1:  # run each task alone: only the one that crashes fails
                    alone.extend([spec] for spec in reversed(batch))
                    continue
                yield record_crash(batch[0], _crash_message(ray, exc))
            except ray.exceptions.RayError as exc:
                raise ResultsError(
                    f"the Ray cluster failed mid-run ({_describe(exc)}); the finished tasks are "
                    "kept - run the same command again to resume"
                ) from None


def _crash_message(ray, exc: BaseException) -> str:
    """The error of a task that failed in Ray on its own."""
    if isinstance(exc, (ray.exceptions.WorkerCrashedError, ray.exceptions.OutOfMemoryError)):
        return (
            f"worker process died while running this task, {WORKER_RETRIES + 1} times "
            f"({_describe(exc)})"
        )
    return f"the task failed in Ray ({_describe(exc)})"  # run_batch itself never raises
