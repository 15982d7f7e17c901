"""The lock of a run directory: one ``svmlab run`` at a time, stale locks taken over."""

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from svmlab.errors import ResultsError
from svmlab.runner import lock, store

IDENT = {"experiment": "adhoc", "fingerprint": "f"}


def _write_lock(run_dir: Path, **info) -> Path:
    run_dir.mkdir(parents=True, exist_ok=True)
    info = {"host": socket.gethostname(), "started": "2026-01-01T00:00:00+00:00", **info}
    path = run_dir / lock.LOCK_FILE
    path.write_text(json.dumps(info))
    return path


@pytest.fixture
def other_process():
    """A live process that is not this one (killed at the end)."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
    yield proc
    proc.kill()
    proc.wait()


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@pytest.mark.slow
def test_a_run_in_use_is_refused_and_its_files_left_alone(tmp_path, other_process):
    """A second `svmlab run` with the same run_id: exit 2, one line, nothing of the first
    run's touched (its in-flight temporary file survives)."""
    run = tmp_path / "adhoc" / "busy"
    (run / "tasks").mkdir(parents=True)
    in_flight = run / "tasks" / ".iris-knn-r0f0-1.parquet.0123.tmp"
    in_flight.write_bytes(b"being written")
    held = _write_lock(run, pid=other_process.pid)
    before = held.read_text()
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "svmlab",
            "run",
            "dataset=iris",
            "solver=knn",
            "protocol=holdout",
            "runner=sequential",
            "runner.progress=false",
            f"results_dir={tmp_path}",
            "run_id=busy",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard
    )
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error" in line]
    assert errors == [
        f"svmlab: error: run directory {run} is in use by pid {other_process.pid} on host "
        f"{socket.gethostname()} since 2026-01-01T00:00:00+00:00; wait for it or choose "
        "another run_id"
    ]
    assert in_flight.read_bytes() == b"being written"
    assert held.read_text() == before
    assert sorted(p.name for p in (run / "tasks").iterdir()) == [in_flight.name]
    assert not (run / "run.json").exists()
    # refused before Hydra starts: no log, no .hydra/ written into the busy directory
    assert sorted(p.name for p in run.iterdir()) == [".svmlab.lock", "tasks"]


def test_a_lock_of_a_live_process_started_by_svmlab(tmp_path):
    """The lock taken by a real process (with its start time) keeps others out until that
    process dies; then it is stale and taken over."""
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from svmlab.runner import lock; lock.acquire(sys.argv[1]); "
            "print('held', flush=True); time.sleep(600)",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ResultsError, match=f"is in use by pid {holder.pid} on host"):
            lock.acquire(tmp_path)
    finally:
        holder.send_signal(signal.SIGKILL)  # no chance to release: a stale lock is left
        holder.wait()
    assert json.loads((tmp_path / lock.LOCK_FILE).read_text())["pid"] == holder.pid
    assert lock.acquire(tmp_path) is True
    lock.release(tmp_path)
    assert not (tmp_path / lock.LOCK_FILE).exists()


def test_a_stale_lock_is_taken_over_with_a_note(tmp_path, capsys):
    run = tmp_path / "run"
    (run / "tasks").mkdir(parents=True)
    leftover = run / "tasks" / ".k.parquet.99.tmp"
    leftover.write_bytes(b"")
    dead = _dead_pid()
    _write_lock(run, pid=dead)
    assert store.prepare_run_dir(run, IDENT, "") is False
    err = capsys.readouterr().err
    assert f"note: taking over the stale lock of {run} (its pid {dead}" in err
    info = json.loads((run / lock.LOCK_FILE).read_text())
    assert info["pid"] == os.getpid() and info["host"] == socket.gethostname()
    assert not leftover.exists()  # removed only now that the directory is ours
    lock.release(run)
    assert not (run / lock.LOCK_FILE).exists()


def test_a_reused_pid_does_not_keep_a_lock(tmp_path, other_process):
    """A live pid that was started after the lock was taken is another process."""
    _write_lock(tmp_path, pid=other_process.pid, pid_started=1_000_000.0)
    assert lock.acquire(tmp_path) is True
    lock.release(tmp_path)


def test_a_lock_of_another_host_is_refused(tmp_path):
    path = _write_lock(tmp_path, pid=1, host="elsewhere.example")
    with pytest.raises(ResultsError, match=r"locked by pid 1 on host elsewhere.example") as err:
        lock.acquire(tmp_path)
    assert f"delete {path} and run again" in str(err.value)
    assert path.exists()


def test_lock_is_reentrant_and_release_only_removes_our_own(tmp_path, other_process):
    with lock.run_lock(tmp_path):
        assert lock.holds(tmp_path)
        assert store.prepare_run_dir(tmp_path, IDENT, "") is False  # same process: fine
    assert not (tmp_path / lock.LOCK_FILE).exists()
    theirs = _write_lock(tmp_path, pid=other_process.pid)
    lock.release(tmp_path)
    assert theirs.exists()
