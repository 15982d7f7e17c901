"""The ``runner`` configuration group: where and how a plan's tasks run."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit

from svmlab.errors import ConfigError

BACKENDS = ("loky", "sequential", "dask")
KEYS = ("name", "description", "backend", "n_jobs", "task_timeout", "progress", "address")


def check_runner(runner: dict) -> dict:
    """Validate the runner settings (backend, n_jobs, task_timeout) and return them.

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
    timeout = runner.get("task_timeout")
    if timeout is not None and (not isinstance(timeout, (int, float)) or timeout <= 0):
        raise ConfigError(
            f"runner.task_timeout must be a positive number of seconds or null, got {timeout!r}"
        )
    return runner


#: Seconds to wait for a dask scheduler to accept a connection before the run is refused.
DASK_CONNECT_TIMEOUT = 3.0
#: dask's default scheduler port, used when an address names none.
DASK_DEFAULT_PORT = 8786


def dask_host_port(address: str) -> tuple[str, int] | None:
    """``(host, port)`` of a TCP-like dask scheduler address, or None for other transports.

    >>> dask_host_port("tcp://127.0.0.1:8786"), dask_host_port("scheduler")
    (('127.0.0.1', 8786), ('scheduler', 8786))
    >>> dask_host_port("[::1]:9")
    ('::1', 9)
    >>> dask_host_port("inproc://x") is None
    True
    """
    text = str(address).strip()
    if "://" not in text:
        text = "tcp://" + text
    parts = urlsplit(text)
    if parts.scheme not in ("tcp", "tls", "ws", "wss"):
        return None
    try:
        port = parts.port
    except ValueError:
        raise ConfigError(
            f"runner.address={address!r}: the port is not a number; use e.g. tcp://HOST:8786"
        ) from None
    if not parts.hostname:
        raise ConfigError(f"runner.address={address!r} names no host; use e.g. tcp://HOST:8786")
    return parts.hostname, port or DASK_DEFAULT_PORT


def check_dask_address(address: str, timeout: float = DASK_CONNECT_TIMEOUT) -> None:
    """Fail within ``timeout`` seconds when no dask scheduler listens at ``address``.

    A plain TCP connection is tried (dask's own client waits 30 s by default); transports
    other than TCP (``inproc://``, ``ucx://``) are left to dask.

    Raises
    ------
    ConfigError
        One line naming the address, what went wrong and what to do.
    """
    target = dask_host_port(address)
    if target is None:
        return
    try:
        socket.create_connection(target, timeout=timeout).close()
    except TimeoutError:
        why = f"no answer within {timeout:g} s"
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
    else:
        return
    raise ConfigError(
        f"runner.address={address!r}: cannot connect to a dask scheduler at "
        f"{target[0]}:{target[1]} ({why}); start one (dask scheduler) or set "
        "runner.address=null for a local cluster"
    )


def runs_in_parallel(runner: dict) -> bool:
    """Whether several tasks run at once (then each worker uses one BLAS thread)."""
    return runner.get("backend", "loky") != "sequential" and runner.get("n_jobs", 1) != 1
