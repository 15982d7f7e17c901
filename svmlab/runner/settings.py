"""The ``runner`` configuration group: where and how a plan's tasks run."""

from __future__ import annotations

import importlib.util
import os
import socket
from urllib.parse import urlsplit

from svmlab.errors import ConfigError

BACKENDS = ("loky", "sequential", "dask", "ray")
KEYS = (
    "name", "description", "backend", "n_jobs", "task_timeout", "progress", "address", "max_tasks",
    "order", "blas_threads",
)  # fmt: skip
#: ``runner.order``: finish one dataset after another, run every dataset's first fold first, or
#: finish one solver after another (each in fold order).
ORDERS = ("datasets", "folds", "solvers")
#: Most tasks a plan may have unless ``runner.max_tasks`` says otherwise: a planned task
#: costs about 0.5 KB of the main process's memory while the run goes on.
MAX_TASKS = 2_000_000


def check_runner(runner: dict) -> dict:
    """Validate the runner settings (backend, n_jobs, progress, task_timeout, order,
    blas_threads) and return them.

    Raises
    ------
    ConfigError
        Naming the key and its valid values.
    """
    runner = dict(runner or {})
    unknown = sorted(set(runner) - set(KEYS))
    if unknown:
        raise ConfigError(f"runner has no key {unknown[0]!r}; valid keys: {', '.join(KEYS)}")
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
    progress = runner.get("progress", True)
    if not isinstance(progress, bool):
        raise ConfigError(f"runner.progress={progress!r} is not a boolean; give true or false")
    max_tasks = runner.get("max_tasks", MAX_TASKS)
    if not isinstance(max_tasks, int) or isinstance(max_tasks, bool) or max_tasks < 1:
        raise ConfigError(f"runner.max_tasks must be a positive integer, got {max_tasks!r}")
    order = runner.get("order", "datasets")
    if order not in ORDERS:
        raise ConfigError(f"runner.order={order!r} is not valid; choose one of {', '.join(ORDERS)}")
    timeout = runner.get("task_timeout")
    if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
        raise ConfigError(
            f"runner.task_timeout must be a positive number of seconds or null, got {timeout!r}"
        )
    blas = blas_threads(runner)
    if blas is not None and (not isinstance(blas, int) or isinstance(blas, bool) or blas < 1):
        raise ConfigError(
            f"runner.blas_threads must be a positive integer or null (the libraries' own "
            f"default), got {blas!r}"
        )
    return runner


#: Seconds to wait for a cluster's head (dask scheduler, Ray GCS or client server) to accept
#: a connection before the run is refused.
CONNECT_TIMEOUT = 3.0
#: dask's default scheduler port, used when an address names none.
DASK_DEFAULT_PORT = 8786
#: Ray's default ports: the head's GCS (``ray start --head``) and the Ray Client server.
RAY_DEFAULT_PORT, RAY_CLIENT_PORT = 6379, 10001
#: Ray addresses that name no host: found from this machine's running instance by Ray itself.
RAY_LOOKUP = ("auto", "local")


def _host_port(address: str, schemes: dict[str, int], example: str) -> tuple[str, int] | None:
    """``(host, port)`` of ``address`` whose scheme is one of ``schemes`` (scheme -> default
    port; the first is assumed when none is given), or None for another scheme."""
    text = str(address).strip()
    if "://" not in text:
        text = f"{next(iter(schemes))}://{text}"
    parts = urlsplit(text)
    if parts.scheme not in schemes:
        return None
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(
            f"runner.address={address!r}: the port is not a number; use e.g. {example}"
        ) from None
    if not parts.hostname:
        raise ConfigError(f"runner.address={address!r} names no host; use e.g. {example}")
    return parts.hostname, port or schemes[parts.scheme]


def dask_host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a TCP-like dask scheduler address, or None for other transports.

    >>> dask_host_port("tcp://127.0.0.1:8786"), dask_host_port("scheduler")
    (('127.0.0.1', 8786), ('scheduler', 8786))
    >>> dask_host_port("[::1]:9")
    ('::1', 9)
    >>> dask_host_port("inproc://x") is None
    True
    """
    schemes = dict.fromkeys(("tcp", "tls", "ws", "wss"), DASK_DEFAULT_PORT)
    return _host_port(address, schemes, "tcp://HOST:8786")


def ray_host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a Ray cluster address: the head's GCS (``HOST:6379``) or a Ray
    Client server (``ray://HOST:10001``); None for ``auto`` / ``local``.

    >>> ray_host_port("10.0.0.5"), ray_host_port("ray://head:10001")
    (('10.0.0.5', 6379), ('head', 10001))
    >>> ray_host_port("auto") is None
    True
    """
    if str(address).strip() in RAY_LOOKUP:
        return None
    schemes = {"gcs": RAY_DEFAULT_PORT, "ray": RAY_CLIENT_PORT}
    target = _host_port(address, schemes, "HOST:6379 or ray://HOST:10001")
    if target is None:
        raise ConfigError(
            f"runner.address={address!r} is not a Ray address; use HOST:6379 (the head "
            "started by ray start --head), ray://HOST:10001 (Ray Client) or auto"
        )
    return target


def _probe(target: tuple[str, int], timeout: float) -> str | None:
    """Why a TCP connection to ``target`` fails within ``timeout`` s, or None if it opens."""
    try:
        socket.create_connection(target, timeout=timeout).close()
    except TimeoutError:
        return f"no answer within {timeout:g} s"
    except OSError as exc:
        return exc.strerror or type(exc).__name__
    return None


#: Per cluster backend: how its address is read, what answers there, how to start one and
#: what ``runner.address=null`` gives instead.
CLUSTERS = {
    "dask": (dask_host_port, "a dask scheduler", "dask scheduler", "a local cluster"),
    "ray": (ray_host_port, "a Ray cluster", "ray start --head", "a local Ray instance"),
}


def check_cluster_address(backend: str, address: str, timeout: float = CONNECT_TIMEOUT) -> None:
    """Fail within ``timeout`` seconds when nothing listens at a dask or Ray ``address``.

    A plain TCP connection is tried (dask's own client waits 30 s, Ray's ``ray.init`` about a
    minute); addresses the backend resolves itself (dask's ``inproc://``, ``ucx://``; Ray's
    ``auto``) are left to it.

    Raises
    ------
    ConfigError
        One line naming the address, what went wrong and what to do.
    """
    host_port, what, start, local = CLUSTERS[backend]
    target = host_port(address)
    why = None if target is None else _probe(target, timeout)
    if why is not None:
        raise ConfigError(
            f"runner.address={address!r}: cannot connect to {what} at "
            f"{target[0]}:{target[1]} ({why}); start one ({start}) or set "
            f"runner.address=null for {local}"
        )


#: The package each backend needs beyond svmlab's own requirements, and how to get it.
BACKEND_PACKAGES = {
    "dask": ("distributed", "runner=dask needs the dask extra: pip install 'svmlab[dask]'"),
    "ray": ("ray", "runner=ray needs Ray: pip install 'svmlab[ray]'"),
}


def check_backend(runner: dict) -> None:
    """Fail before any compute when the backend's package is missing or its cluster
    (``runner.address``) does not answer within seconds.

    Raises
    ------
    ConfigError
        One line naming the package to install, or the address and what to do.
    """
    package, hint = BACKEND_PACKAGES.get(runner.get("backend"), (None, ""))
    if package is not None:
        try:
            found = importlib.util.find_spec(package) is not None
        except (ImportError, ValueError):  # a parent package missing, or a broken entry
            found = False
        if not found:
            raise ConfigError(hint)
    address = runner.get("address")
    if address and runner.get("backend") in CLUSTERS:
        check_cluster_address(runner["backend"], address)


def n_workers(n_jobs: int | None, default: int = 2) -> int:
    """Worker processes for ``runner.n_jobs`` the way joblib counts them (-1: one per core,
    -2: all cores but one...).

    >>> n_workers(3), n_workers(None), n_workers(-1) == (os.cpu_count() or 1)
    (3, 2, True)
    """
    n = int(n_jobs or default)
    return n if n > 0 else max((os.cpu_count() or 1) + 1 + n, 1)


def blas_threads(runner: dict) -> int | None:
    """The BLAS/OpenMP threads each task runs with: ``runner.blas_threads``, 1 unless set.

    One thread is the default whether tasks run one at a time or several at once: a BLAS
    library splits a matrix product differently for another thread count, so its last digits,
    and through them a solver's iterates, could change with ``n_jobs`` or the machine's cores.
    None leaves the libraries' own default (faster for one large task alone on the machine).
    """
    return runner.get("blas_threads", 1)
