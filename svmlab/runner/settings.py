"""The ``runner`` configuration group: where and how a plan's tasks run."""

from __future__ import annotations

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


def runs_in_parallel(runner: dict) -> bool:
    """Whether several tasks run at once (then each worker uses one BLAS thread)."""
    return runner.get("backend", "loky") != "sequential" and runner.get("n_jobs", 1) != 1
