"""Process-level guards of a task: a hard wall-clock limit and exit with the parent.

A task under ``runner.task_timeout`` runs in a child process forked from its worker; when
the limit passes, the child (and every process it started) is killed with SIGKILL, so a
long call into compiled code (one LIBSVM fit, a numba loop) or a hung subprocess cannot
outlive it. The worker itself is never touched, so a pool goes on with its next task.

Worker processes of a local pool watch the process that started them and exit on their
own when it is gone (a ``kill -9`` of ``svmlab run``, a scheduler stopping a job).
"""

from __future__ import annotations

import ctypes
import os
import pickle
import select
import signal
import threading
import time
from dataclasses import dataclass
from typing import Any

_PR_SET_PDEATHSIG = 1
#: How often a worker checks that the process that started it still runs (seconds).
WATCH_INTERVAL = 0.5


@dataclass(frozen=True)
class ChildResult:
    """How a call run by :func:`call_with_limit` ended.

    ``status`` is ``"ok"`` (``value`` holds the call's return value), ``"timeout"`` (killed
    at the limit) or ``"died"`` (the child ended without an answer; ``detail`` says how).
    """

    status: str
    value: Any = None
    detail: str = ""


def _die_with_parent() -> None:
    """Ask Linux to SIGKILL this process when the thread that forked it ends."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the parent's kill on its way out remains
        pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_until(fd: int, deadline: float | None) -> tuple[bytes, bool]:
    """Everything the child writes until it closes the pipe; ``(data, finished)`` where
    ``finished`` is False when the deadline passed first."""
    chunks = []
    while True:
        wait = None if deadline is None else max(deadline - time.monotonic(), 0.0)
        ready, _, _ = select.select([fd], [], [], wait)
        if not ready:
            return b"".join(chunks), False
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            return b"".join(chunks), True
        chunks.append(chunk)


def _kill_group(pid: int) -> None:
    for kill in (os.killpg, os.kill):
        try:
            kill(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = str(sig)
        return f"killed by signal {name}"
    return f"exited with status {os.WEXITSTATUS(status)} without a result"


def call_with_limit(fn, arg, seconds: float) -> ChildResult:
    """Run ``fn(arg)`` in a forked child process and kill it after ``seconds`` of wall clock.

    The child runs in its own process group, so processes it starts (a Java peer, a shell)
    are killed with it. The return value travels back pickled; an exception raised by
    ``fn`` is re-raised here. If this process is interrupted while waiting (Ctrl-C,
    SIGTERM), the child is killed before the interruption goes on.

    Parameters
    ----------
    fn : callable
        A module-level function (the child inherits it through ``fork``).
    arg : object
        Its argument.
    seconds : float
        Wall-clock limit, counted from the fork.

    Returns
    -------
    ChildResult
    """
    read_fd, write_fd = os.pipe()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # the child: never returns
        code = 0
        try:
            os.close(read_fd)
            os.setpgid(0, 0)
            _die_with_parent()
            if os.getppid() != parent:  # the parent died before the request took effect
                os._exit(1)
            try:
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
            except ValueError:  # forked from a thread Python does not treat as main
                pass
            try:
                payload = ("ok", fn(arg))
            except Exception as exc:  # travels back to be re-raised in the parent
                payload = ("raised", exc)
            try:
                data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
            except Exception as exc:
                data = pickle.dumps(("raised", RuntimeError(f"unpicklable result: {exc}")))
            _write_all(write_fd, data)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    os.close(write_fd)
    try:
        os.setpgid(pid, pid)  # also here: no race with a kill before the child set it
    except OSError:
        pass
    finished = False
    try:
        data, finished = _read_until(read_fd, time.monotonic() + seconds)
    finally:
        os.close(read_fd)
        if not finished:
            _kill_group(pid)
        _, status = os.waitpid(pid, 0)
    if not finished:
        return ChildResult("timeout", detail=f"killed after {seconds:g} s")
    if not data:
        return ChildResult("died", detail=_describe(status))
    kind, value = pickle.loads(data)
    if kind == "raised":
        raise value
    return ChildResult("ok", value)


_WATCHING = {"pid": None}


def exit_with_parent(parent_pid: int | None = None) -> None:
    """Start (once per process) a daemon thread that ends this process when its parent is gone.

    Used as the initializer of local pool workers: their parent is ``svmlab run``; when it
    is killed (SIGKILL cannot be caught), the workers are re-parented and exit within
    :data:`WATCH_INTERVAL` seconds instead of idling for minutes.
    """
    parent_pid = os.getppid() if parent_pid is None else parent_pid
    if _WATCHING["pid"] == parent_pid:
        return
    _WATCHING["pid"] = parent_pid

    def watch():
        while os.getppid() == parent_pid:
            time.sleep(WATCH_INTERVAL)
        os._exit(1)

    threading.Thread(target=watch, name="svmlab-exit-with-parent", daemon=True).start()
