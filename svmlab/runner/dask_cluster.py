"""A dask cluster for ``runner=dask`` that stays quiet: no logs of its own, no tracebacks on Ctrl-C.

``distributed`` logs every start, connection and shutdown at INFO (about fifty lines for one
run, on stdout through Hydra's console handler and into the run's log). While svmlab uses a
cluster, its loggers pass errors only (:func:`quiet_distributed_logs`); warnings and INFO come
back afterwards.

Ctrl-C in a terminal sends SIGINT to every process of the foreground group: the worker
processes of a local cluster would each raise KeyboardInterrupt and print a traceback
(about sixty lines) before svmlab's own line. :func:`local_cluster` starts the cluster with
SIGINT blocked in the threads that start worker processes, so the workers (and those a nanny
restarts later) never see Ctrl-C: svmlab's process receives it, stops, and closes the
cluster, which ends the workers. The workers' own ``distributed`` logs pass critical records
only (:func:`dask_setup`, run in each worker), and when a run stops by an exception the
teardown of a cluster with tasks in flight is not narrated (:func:`_silence_teardown`).
"""

from __future__ import annotations

import logging
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from svmlab.errors import ConfigError
from svmlab.runner.settings import BACKEND_PACKAGES, n_workers

#: Level below which records of ``distributed`` (and its sub-loggers) are dropped while a
#: cluster is in use: errors still reach the console and the run's log.
CLUSTER_LOG_LEVEL = logging.ERROR
#: A level above every record's: the logger shows nothing.
SILENT = logging.CRITICAL + 1


def _raise_levels(level: int, root: str = "distributed") -> dict[str, int]:
    """Raise every logger named ``root`` or ``root.*`` that has a level of its own below
    ``level`` (``distributed`` configures INFO and WARNING ones at import) to ``level``;
    loggers without a level follow ``root`` itself. Returns the old levels."""
    manager = logging.root.manager
    names = [root] + [n for n in list(manager.loggerDict) if n.startswith(f"{root}.")]
    saved = {}
    for name in names:
        logger = logging.getLogger(name)
        own_level = name == root or logger.level != logging.NOTSET
        if own_level and logger.level < level:
            saved[name] = logger.level
            logger.setLevel(level)
    return saved


@contextmanager
def quiet_distributed_logs(level: int = CLUSTER_LOG_LEVEL) -> Iterator[None]:
    """Raise ``distributed``'s loggers to at least ``level`` for the block, then restore them;
    when the block ends by an exception they stay silent (:func:`_silence_teardown`)."""
    saved = _raise_levels(level)
    try:
        yield
    except BaseException:
        _silence_teardown()
        saved = {}
        raise
    finally:
        for name, old in saved.items():
            logging.getLogger(name).setLevel(old)


def dask_setup(worker) -> None:
    """Run by each worker process of :func:`local_cluster` when it starts (dask's ``preload``
    hook): its ``distributed`` loggers pass critical records only.

    What a worker process logs at ERROR is about its connections (a heartbeat that finds the
    scheduler gone while svmlab closes the cluster after Ctrl-C, with a traceback); a task's
    own error returns to svmlab as the task's outcome, and a worker that dies is reported by
    the nanny and the scheduler, which run in svmlab's process. A client the worker made for
    itself and did not close before it exits cannot close then (its event loop is gone):
    Python's report of that is not shown (:func:`_unraisable_but_closed_loops`).
    """
    _raise_levels(logging.CRITICAL)
    sys.unraisablehook = _unraisable_but_closed_loops(sys.unraisablehook)


def _unraisable_but_closed_loops(report):
    """``report`` (a ``sys.unraisablehook``) for everything but a ``distributed`` client's
    finaliser failing because its event loop is closed (an exiting worker process)."""

    from dask.distributed import Client

    def hook(unraisable):
        error = unraisable.exc_value
        closed_loop = isinstance(error, RuntimeError) and "IOLoop is closed" in str(error)
        if not (closed_loop and unraisable.object is Client.__del__):
            report(unraisable)

    return hook


@contextmanager
def _sigint_blocked_in_new_threads() -> Iterator[None]:
    """Block SIGINT in this thread for the block: threads started meanwhile (the cluster's
    event loop and process watchers) keep it blocked, and so do the processes they spawn,
    now or later (a signal mask survives ``fork`` and ``exec``). A Ctrl-C meanwhile still
    reaches this process (another thread takes it, or it waits until the block ends)."""
    main = threading.current_thread() is threading.main_thread()
    if not main or sys.platform == "win32":  # no signal masks there
        yield
        return
    # multiprocessing's resource tracker, started with a process's first worker, unblocks
    # SIGINT in the thread that starts it: started here first, it is running already then
    from multiprocessing import resource_tracker

    resource_tracker.ensure_running()
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def local_cluster(n_jobs):
    """A ``LocalCluster`` of ``n_workers(n_jobs)`` single-threaded worker processes on
    127.0.0.1, without a dashboard, whose workers ignore the terminal's Ctrl-C."""
    from dask.distributed import LocalCluster

    with _sigint_blocked_in_new_threads():
        return LocalCluster(
            n_workers=n_workers(n_jobs),
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
            # the scheduler's HTTP server (health, metrics) on a free port: 8787 may be taken
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            silence_logs=CLUSTER_LOG_LEVEL,
            preload=[__name__],  # dask_setup: the workers' own logs pass critical records only
        )


@contextmanager
def dask_session(runner: dict) -> Iterator[None]:
    """A dask client for the block: connected to ``runner.address``, or to a new local cluster
    of ``runner.n_jobs`` workers that is closed afterwards; ``distributed`` logs errors only.

    Raises
    ------
    ConfigError
        When dask's ``distributed`` package is not installed.
    """
    try:
        from dask.distributed import Client
    except ImportError:
        raise ConfigError(BACKEND_PACKAGES["dask"][1]) from None
    with quiet_distributed_logs(), _silent_once_interrupted():
        address = runner.get("address")
        cluster = None if address else local_cluster(runner.get("n_jobs"))
        client = None
        try:
            client = Client(address or cluster)
            yield
        except BaseException:  # Ctrl-C, SIGTERM, a run stopped by an error: before the teardown
            _silence_teardown()
            raise
        finally:
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()


#: Loggers that report a cluster torn down with tasks in flight: connections closed under a
#: gather, tasks whose exception nobody retrieves (logged when they are collected, later).
TEARDOWN_LOGGERS = ("distributed", "tornado", "asyncio")


def _silence_teardown() -> None:
    """Silence what dask and asyncio log about a cluster torn down mid-run, now or when the
    abandoned tasks are collected at exit: svmlab has said in one line why the run stopped
    (Ctrl-C, SIGTERM, a full disk...), and the process ends."""
    for name in TEARDOWN_LOGGERS:
        _raise_levels(SILENT, root=name)


@contextmanager
def _silent_once_interrupted() -> Iterator[None]:
    """For the block, SIGINT and SIGTERM first silence the teardown's loggers, then do what
    they did (raise KeyboardInterrupt, svmlab's "terminated"): wherever the interruption
    surfaces, and whenever the cluster is closed after it (at the latest by ``distributed``'s
    own exit handler), nothing about the teardown is shown."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    wrapped = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        handler = signal.getsignal(sig)
        if callable(handler):
            wrapped[sig] = (handler, _silencing(handler))
            signal.signal(sig, wrapped[sig][1])
    try:
        yield
    finally:
        for sig, (handler, wrapper) in wrapped.items():
            if signal.getsignal(sig) is wrapper:  # unless changed meanwhile (svmlab stopping)
                signal.signal(sig, handler)


def _silencing(handler):
    def silence_then_handle(signum, frame):
        _silence_teardown()
        return handler(signum, frame)

    return silence_then_handle
