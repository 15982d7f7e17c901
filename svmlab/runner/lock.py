"""The lock of a run directory: one ``svmlab run`` at a time writes into it.

``RUN_DIR/.svmlab.lock`` holds ``{"pid", "host", "started", "pid_started", "token"}`` of
the process that uses the directory. It is created exclusively (``O_CREAT | O_EXCL``)
while the directory itself is ``flock``-ed, so two processes never both take it. A lock
whose process is gone (same host, pid not running or reused by a younger process) is
stale and taken over with a note; a lock of a live process, or of another host (whose
processes cannot be checked), makes the run refuse with one line.

Locks are released by :func:`release` (``svmlab run`` does so in a ``finally``), and
for safety at interpreter exit.
"""

from __future__ import annotations

import atexit
import errno
import json
import os
import socket
import sys
import uuid
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from svmlab.errors import ResultsError

LOCK_FILE = ".svmlab.lock"

#: ``{resolved run dir: token}`` of the locks this process holds.
_HELD: dict[str, str] = {}
_OWNER_PID = os.getpid()


def _process_started(pid: int) -> float | None:
    """Creation time of process ``pid`` (seconds since the epoch), None if unknown."""
    try:
        import psutil

        return psutil.Process(pid).create_time()
    except Exception:  # psutil missing, process gone, or no access
        return None


def _alive(pid: int, pid_started: float | None) -> bool:
    """Whether ``pid`` runs on this host and is the process that took the lock.

    A running pid whose process was created after ``pid_started`` is a reused pid: the
    lock's owner is gone.
    """
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by another user
        pass
    if pid_started is None:
        return True
    started = _process_started(pid)
    return started is None or abs(started - float(pid_started)) < 1.0


@contextmanager
def _dir_guard(run_dir: Path):
    """Hold an exclusive ``flock`` on the directory (a short critical section).

    Where directories cannot be locked (some network file systems) the section runs
    unguarded; the lock file's ``O_EXCL`` creation still keeps two new runs apart.
    """
    import fcntl

    fd = os.open(run_dir, os.O_RDONLY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError:
            pass
        yield
    finally:
        os.close(fd)  # closing releases the flock


def _read(path: Path) -> dict | None:
    """The lock file's content; None when it does not exist."""
    try:
        info = json.loads(path.read_text())
    except FileNotFoundError:
        return None
    except (OSError, ValueError):
        info = {}
    return info if isinstance(info, dict) else {}


def _create(path: Path, token: str) -> None:
    """Create the lock file exclusively with this process's identity."""
    info = {
        "pid": os.getpid(),
        "host": socket.gethostname(),
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "pid_started": _process_started(os.getpid()),
        "token": token,
    }
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        try:
            os.write(fd, json.dumps(info).encode())
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError:  # e.g. a full disk: an empty lock file would read as unreadable
        path.unlink(missing_ok=True)
        raise


def _refusal(run_dir: Path, info: dict) -> str | None:
    """Why the lock ``info`` keeps this process out of ``run_dir``; None when it is stale."""
    path = run_dir / LOCK_FILE
    pid, host, since = info.get("pid"), info.get("host"), info.get("started", "?")
    if not isinstance(pid, int) or not host:
        return (
            f"run directory {run_dir} has an unreadable lock file {path}; delete it if no "
            "svmlab run is using that directory, then run again"
        )
    if host != socket.gethostname():
        return (
            f"run directory {run_dir} is locked by pid {pid} on host {host} since {since}; "
            f"wait for it, or if that run is known to have stopped delete {path} and run again"
        )
    if pid != os.getpid() and _alive(pid, info.get("pid_started")):
        return (
            f"run directory {run_dir} is in use by pid {pid} on host {host} since {since}; "
            "wait for it or choose another run_id"
        )
    return None


def in_use(run_dir: str | Path) -> str | None:
    """Why ``run_dir`` is in use by another run (the one-line refusal), or None when it is
    free or its lock is stale; a look without taking the lock, for checks made before
    anything is written into the directory."""
    run_dir = Path(run_dir)
    info = _read(run_dir / LOCK_FILE)
    return None if info is None else _refusal(run_dir, info)


def acquire(run_dir: str | Path) -> bool:
    """Lock ``run_dir`` for this process; True if taken now, False if already held.

    Raises
    ------
    ResultsError
        When another live process (or a process on another host) holds the lock.
    """
    run_dir = Path(run_dir)
    name = str(run_dir.resolve())
    path = run_dir / LOCK_FILE
    if name in _HELD and (_read(path) or {}).get("token") == _HELD[name]:
        return False
    token = uuid.uuid4().hex
    with _dir_guard(run_dir):
        info = _read(path)
        if info is not None:
            why = _refusal(run_dir, info)
            if why:
                raise ResultsError(why)
            print(
                f"svmlab: note: taking over the stale lock of {run_dir} (its pid {info['pid']} "
                f"on this host, since {info.get('started', '?')}, no longer runs that run)",
                file=sys.stderr,
            )
            path.unlink(missing_ok=True)
        try:
            _create(path, token)
        except FileExistsError:  # an unguarded file system and a faster process
            raise ResultsError(
                f"run directory {run_dir} was locked by another run just now; wait for it or "
                "choose another run_id"
            ) from None
        except OSError as exc:
            raise ResultsError(
                f"cannot create the lock file {path} ({os.strerror(exc.errno or errno.EIO)}); "
                "free space, or set results_dir=... to a writable place"
            ) from None
    _HELD[name] = token
    return True


def release(run_dir: str | Path) -> None:
    """Remove this process's lock of ``run_dir`` (nothing happens if it holds none)."""
    if os.getpid() != _OWNER_PID:  # a forked child never releases its parent's lock
        return
    run_dir = Path(run_dir)
    token = _HELD.pop(str(run_dir.resolve()), None)
    path = run_dir / LOCK_FILE
    if token is not None and (_read(path) or {}).get("token") == token:
        path.unlink(missing_ok=True)


def holds(run_dir: str | Path) -> bool:
    """Whether this process holds the lock of ``run_dir``."""
    name = str(Path(run_dir).resolve())
    return name in _HELD and (_read(Path(run_dir) / LOCK_FILE) or {}).get("token") == _HELD[name]


@contextmanager
def run_lock(run_dir: str | Path):
    """Hold the lock of ``run_dir`` for the ``with`` block (re-entrant within a process)."""
    taken = acquire(run_dir)
    try:
        yield
    finally:
        if taken:
            release(run_dir)


@atexit.register
def _release_all() -> None:
    for name in list(_HELD):
        release(name)
