"""The BLAS/OpenMP threads of a process that runs tasks (``runner.blas_threads``).

A worker process only ever runs tasks, so its limit is set once, when its first task
asks for one, and changed only when a task asks for another (a pool reused by a later run);
inspecting the loaded libraries costs milliseconds, not to be paid per task. A run
that evaluates its tasks in the calling process wraps them in :func:`given_back`, which gives
the caller its own limits back afterwards.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager

#: threadpoolctl's limiter in force in this process (None: the libraries' own defaults).
_LIMITER = None
#: The thread count asked of this process's libraries (None: their own default).
_ASKED: int | None = None
#: The BLAS threads in use, measured when the limit last changed (None: measure again).
_IN_USE: int | None = None
#: Threads of one worker process (an external dask worker's) change the limit one at a time.
_LOCK = threading.Lock()


def use_threads(threads: int | None) -> int:
    """Give this process's BLAS/OpenMP libraries ``threads`` threads each (None: their own
    default), and return how many threads BLAS now uses (what a task's row records)."""
    global _LIMITER, _ASKED, _IN_USE
    with _LOCK:
        if threads == _ASKED and _IN_USE is not None:
            return _IN_USE
        from threadpoolctl import threadpool_info, threadpool_limits

        if _LIMITER is not None:
            _LIMITER.restore_original_limits()
            _LIMITER = None
        if threads is not None:
            _LIMITER = threadpool_limits(limits=threads)
        blas = [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]
        _ASKED, _IN_USE = threads, max(blas, default=threads or 1)
        return _IN_USE


@contextmanager
def given_back():
    """Run tasks in this process, then give it back the BLAS/OpenMP limits it had before (and
    measure them again at the next task: the caller may change them meanwhile)."""
    global _IN_USE
    try:
        yield
    finally:
        if _ASKED is not None:
            use_threads(None)
        _IN_USE = None
