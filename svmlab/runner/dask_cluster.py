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
cluster, which ends the workers.
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


@contextmanager
def quiet_distributed_logs(level: int = CLUSTER_LOG_LEVEL) -> Iterator[None]:
    """Raise ``distributed``'s loggers to at least ``level`` for the block, then restore them.

    Every logger named ``distributed`` or ``distributed.*`` that has a level of its own below
    ``level`` (``distributed`` configures INFO and WARNING ones at import) is raised; loggers
    without a level follow ``distributed`` itself.
    """
    manager = logging.root.manager
    names = ["distributed"] + [n for n in list(manager.loggerDict) if n.startswith("distributed.")]
    saved = {}
    for name in names:
        logger = logging.getLogger(name)
        own_level = name == "distributed" or logger.level != logging.NOTSET
        if own_level and logger.level < level:
            saved[name] = logger.level
            logger.setLevel(level)
    try:
        yield
    finally:
        for name, old in saved.items():
            logging.getLogger(name).setLevel(old)


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
            silence_logs=CLUSTER_LOG_LEVEL,
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
    with quiet_distributed_logs():
        address = runner.get("address")
        cluster = None if address else local_cluster(runner.get("n_jobs"))
        client = None
        try:
            client = Client(address or cluster)
            yield
        finally:
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()
