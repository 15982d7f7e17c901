"""Faults injected into a running run: failed writes, a full disk, SIGTERM, a killed parent."""

import errno
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest

from svmlab.errors import ResultsError
from svmlab.runner import row_index, store
from svmlab.runner.execute import execute
from svmlab.runner.plan import build_plan
from svmlab.runner.store import consolidate, prepare_run_dir

HOLDOUT = {"name": "h", "kind": "holdout", "test_size": 0.3, "n_repeats": 6}
#: Seconds a test waits for processes to end: a guard against a hang, not a measure of speed.
HANG_GUARD = 600


def run_cli(*args, cwd, check=None):
    proc = subprocess.run(
        [sys.executable, "-m", "svmlab", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=HANG_GUARD,
    )
    if check is not None:
        assert proc.returncode == check, proc.stderr
    return proc


def _plan(make_cfg, run_dir):
    cfg = make_cfg(protocol=HOLDOUT, tuning__mode="none")
    plan = build_plan(cfg, str(run_dir), "r")
    prepare_run_dir(run_dir, plan.identity, "{}")
    return cfg, plan


def _failing_writes(monkeypatch, fails):
    """Make the task writes (``store.write_batch``: one or several tasks committed together)
    raise ENOSPC when ``fails(n_tasks_so_far, keys)`` says so."""
    real = store.write_batch
    calls = {"n": 0}

    def write(run_dir, tasks):
        calls["n"] += len(tasks)
        if fails(calls["n"], [key for key, _ in tasks]):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(run_dir, tasks)

    monkeypatch.setattr(store, "write_batch", write)


def test_a_failed_task_write_is_one_line_and_the_run_goes_on(
    make_cfg, tmp_path, monkeypatch, capsys
):
    cfg, plan = _plan(make_cfg, tmp_path)
    victim = plan.tasks[2].key
    _failing_writes(monkeypatch, lambda n, keys: victim in keys)
    summary = execute(plan.tasks, cfg["runner"])
    lost = [o.key for o in summary.failed]
    assert victim in lost and {o.status for o in summary.failed} == {"unwritten"}
    assert summary.ok + len(lost) == 6  # the tasks committed with the victim, and no other
    err = capsys.readouterr().err
    assert f"unwritten: {victim}: could not write" in err and "No space left on device" in err
    assert "Traceback" not in err
    monkeypatch.undo()  # space freed: the resume runs only the unwritten tasks
    again = execute(plan.tasks, cfg["runner"])
    assert again.skipped == summary.ok and again.ok == len(lost)
    assert len(consolidate(tmp_path)) == 6


def test_writes_failing_in_a_row_stop_the_run_and_keep_finished_tasks(
    make_cfg, tmp_path, monkeypatch
):
    cfg, plan = _plan(make_cfg, tmp_path)
    _failing_writes(monkeypatch, lambda n, keys: n > 2)  # the disk is full after two tasks
    with pytest.raises(ResultsError) as info:
        execute(plan.tasks, cfg["runner"])
    message = str(info.value)
    assert "\n" not in message
    assert "could not be written" in message and "No space left on device" in message
    kept = int(re.search(r"the (\d+) finished tasks are kept", message).group(1))
    assert 1 <= kept <= 2 and "resume" in message
    assert len(store.finished_keys(tmp_path)) == kept  # on disk: exactly those reported
    monkeypatch.undo()
    again = execute(plan.tasks, cfg["runner"])
    assert again.skipped == kept and again.ok == 6 - kept


@pytest.fixture
def small_disk(tmp_path):
    """A 120 KiB tmpfs (root only): full after a few task files; ``grow()`` frees space."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=120k", "tmpfs", str(mnt)]).returncode:
        pytest.skip("cannot mount a tmpfs here")

    def grow():
        subprocess.run(["mount", "-o", "remount,size=8m", str(mnt)], check=True)

    yield mnt, grow
    subprocess.run(["umount", "-l", str(mnt)])


def test_a_full_disk_stops_with_one_line_and_a_resume_after_freeing_space_completes(
    tmp_path, small_disk
):
    mnt, grow = small_disk
    args = ["run", "dataset=iris", "solver=knn", "tuning.mode=none", "runner=sequential"]
    args += ["protocol=stratified10", "protocol.n_repeats=20", "run_id=d"]  # 200 tasks
    full = run_cli(*args, f"results_dir={mnt}", cwd=tmp_path)
    assert full.returncode == 2, full.stderr
    assert "Traceback" not in full.stderr
    last = full.stderr.strip().splitlines()[-1]
    assert last.startswith("svmlab: error: stopped: the last 3 tasks' results could not be written")
    assert "No space left on device" in last and "resume" in last
    kept = store.finished_keys(mnt / "adhoc" / "d")  # tasks committed before the disk filled
    assert 1 <= len(kept) < 200 and set(kept.values()) == {"ok"}
    grow()
    resumed = run_cli(*args, f"results_dir={mnt}", cwd=tmp_path, check=0)
    assert f"{len(kept)} already done" in resumed.stderr
    reference = run_cli(*args, f"results_dir={tmp_path / 'ref'}", cwd=tmp_path, check=0)
    assert reference.returncode == 0
    got = pd.read_parquet(mnt / "adhoc" / "d" / "results.parquet")
    want = pd.read_parquet(tmp_path / "ref" / "adhoc" / "d" / "results.parquet")
    assert got["key"].tolist() == want["key"].tolist()
    assert got["accuracy"].tolist() == want["accuracy"].tolist()


def _alive(processes) -> list[int]:
    alive = []
    for p in processes:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                alive.append(p.pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def _wait_gone(processes) -> list[int]:
    """The processes still alive after they had HANG_GUARD seconds to exit (a hang guard)."""
    deadline = time.monotonic() + HANG_GUARD
    while _alive(processes) and time.monotonic() < deadline:
        time.sleep(0.1)
    return _alive(processes)


def _workers(proc) -> list:
    workers = psutil.Process(proc.pid).children(recursive=True)
    assert workers, "the pool has no worker processes"
    return workers


@pytest.mark.slow
def test_sigterm_stops_the_pool_with_one_line_and_keeps_finished_tasks(start_sleepy_run):
    proc, tasks = start_sleepy_run("t", "runner=local", "runner.n_jobs=2")
    workers = _workers(proc)
    proc.send_signal(signal.SIGTERM)  # what a scheduler or `docker stop` sends
    _, err = proc.communicate(timeout=HANG_GUARD)
    assert proc.returncode == 143
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("svmlab: terminated; finished tasks are kept") and "resume" in last
    assert _wait_gone(workers) == []
    finished = list(tasks.glob("*.parquet"))
    assert 2 <= len(finished) < 12
    assert all(pd.read_parquet(p)["status"].tolist() == ["ok"] for p in finished)


@pytest.mark.slow
def test_workers_exit_on_their_own_when_the_parent_is_killed(start_sleepy_run):
    proc, tasks = start_sleepy_run("k", "runner=local", "runner.n_jobs=2")
    workers = _workers(proc)
    proc.kill()  # SIGKILL cannot be caught: the workers must notice by themselves
    proc.communicate(timeout=HANG_GUARD)
    assert _wait_gone(workers) == []
    assert all(pd.read_parquet(p)["status"].tolist() == ["ok"] for p in tasks.glob("*.parquet"))


def test_a_full_disk_at_consolidation_is_one_line_and_keeps_every_task(
    tmp_path, monkeypatch, capsys
):
    from svmlab.cli import main

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(store, "consolidate", full)
    args = ["run", "dataset=iris", "solver=knn", "tuning.mode=none", "runner=sequential"]
    args += ["runner.progress=false", "protocol=holdout", f"results_dir={tmp_path}", "run_id=c"]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("svmlab: error: could not write") and "No space left on device" in last
    assert len(list((tmp_path / "adhoc" / "c" / "tasks").glob("*.parquet"))) == 1
    monkeypatch.undo()
    assert main(args) == 0
    assert (tmp_path / "adhoc" / "c" / "results.parquet").is_file()


def test_the_index_follows_a_running_run_so_a_killed_runs_resume_reads_few_files(
    make_cfg, tmp_path, monkeypatch
):
    """While tasks finish, the runner adds them to the index (every INDEX_EVERY seconds):
    after a kill (no consolidation), the resume check reads only the newest task files."""
    import svmlab.runner.execute as execute_module

    cfg, plan = _plan(make_cfg, tmp_path)
    monkeypatch.setattr(execute_module, "INDEX_EVERY", 0.0)
    execute(plan.tasks, cfg["runner"])  # and then "killed": results.parquet never written
    assert not (tmp_path / "results.parquet").exists()
    reads = []
    real = row_index._read_task_file
    monkeypatch.setattr(row_index, "_read_task_file", lambda p: reads.append(p.name) or real(p))
    assert len(store.finished_keys(tmp_path)) == 6
    assert len(reads) <= 1  # at most the file written after the last index update (not all)


# --- a disk already full when the run starts ------------------------------------------------

IDENTITY = {"experiment": "e", "fingerprint": "f"}


def _failing_file_write(monkeypatch, name):
    """Make writing the file named ``name`` (``run.json``, ``config.yaml`` or the lock file)
    fail with ENOSPC, whatever else is written."""
    if name == ".svmlab.lock":
        real_write = os.write

        def write(fd, data):
            if os.readlink(f"/proc/self/fd/{fd}").endswith(name):
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            return real_write(fd, data)

        monkeypatch.setattr(os, "write", write)
        return
    real_text = Path.write_text

    def write_text(self, *args, **kwargs):
        if self.name.startswith(f".{name}."):  # the temporary renamed over NAME when complete
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_text(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", write_text)


@pytest.mark.parametrize("full_at", ["run.json", "config.yaml", ".svmlab.lock"])
def test_a_disk_full_when_the_run_starts_is_one_line_and_leaves_nothing(
    tmp_path, monkeypatch, full_at
):
    run_dir = tmp_path / "r"
    _failing_file_write(monkeypatch, full_at)
    with pytest.raises(ResultsError) as info:
        store.prepare_run_dir(run_dir, IDENTITY, "x: 1")
    monkeypatch.undo()
    message = str(info.value)
    assert "\n" not in message and str(run_dir) in message
    assert "No space left on device" in message
    assert list(run_dir.iterdir()) == []  # no run.json, config.yaml, tasks/ or lock left
    assert store.prepare_run_dir(run_dir, IDENTITY, "x: 1") is False  # space freed: a new run


def _fill(mnt: Path, free_kib: int) -> None:
    """Fill the tmpfs at ``mnt`` with 4 KiB files until it is full, then free ``free_kib``."""
    pages = []
    while True:
        page = mnt / f"filler-{len(pages)}"
        try:
            page.write_bytes(b"\0" * 4096)
        except OSError as exc:
            assert exc.errno == errno.ENOSPC
            page.unlink(missing_ok=True)
            break
        pages.append(page)
    for page in pages[: free_kib // 4]:
        page.unlink()


@pytest.mark.slow
@pytest.mark.parametrize("free_kib", [0, 4, 8])
def test_a_disk_full_at_start_ends_the_command_with_one_line_and_writes_nothing(
    tmp_path, small_disk, free_kib
):
    """Room for nothing, for the lock file only, for the lock and run.json only: one line,
    exit 2, and no run directory left on the disk."""
    mnt, _ = small_disk
    _fill(mnt, free_kib)
    args = ["run", "dataset=iris", "solver=knn", "protocol=holdout", "runner=sequential"]
    proc = run_cli(*args, "runner.progress=false", f"results_dir={mnt}", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if not line.startswith("svmlab: note")]
    assert len(errors) == 1 and errors[0].startswith("svmlab: error: "), proc.stderr
    assert "No space left on device" in errors[0] and str(mnt) in errors[0]
    assert [p for p in mnt.rglob("*") if not p.name.startswith("filler-")] == []


# --- runner=dask: quiet, and Ctrl-C is svmlab's one line --------------------------------------


def test_distributed_logs_errors_only_while_a_cluster_is_used(caplog):
    import logging

    from svmlab.runner.dask_cluster import quiet_distributed_logs

    scheduler = logging.getLogger("distributed.scheduler")
    before = logging.getLogger("distributed").level
    with caplog.at_level(logging.DEBUG), quiet_distributed_logs():
        scheduler.info("Register worker")
        logging.getLogger("distributed.nanny").warning("Restarting worker")
        scheduler.error("Task failed on every worker")
    assert [r.getMessage() for r in caplog.records] == ["Task failed on every worker"]
    assert logging.getLogger("distributed").level == before  # restored afterwards


def test_a_run_stopped_by_an_exception_leaves_the_teardown_loggers_silent():
    """Ctrl-C, SIGTERM or an error mid-run: svmlab says why in one line; what distributed,
    tornado and asyncio log while the cluster is torn down with tasks in flight is not shown."""
    import logging

    from svmlab.runner.dask_cluster import TEARDOWN_LOGGERS, quiet_distributed_logs

    names = [*TEARDOWN_LOGGERS, "tornado.application", "distributed.client"]
    before = {n: logging.getLogger(n).level for n in names}
    try:
        with pytest.raises(KeyboardInterrupt), quiet_distributed_logs():
            raise KeyboardInterrupt
        assert not any(logging.getLogger(n).isEnabledFor(logging.CRITICAL) for n in names)
    finally:
        for name, level in before.items():
            logging.getLogger(name).setLevel(level)


def test_a_dask_worker_does_not_report_its_client_s_closed_loop_at_exit():
    from types import SimpleNamespace

    from svmlab.runner.dask_cluster import _unraisable_but_closed_loops

    Client = pytest.importorskip("dask.distributed").Client
    reported = []
    hook = _unraisable_but_closed_loops(reported.append)
    closed = SimpleNamespace(exc_value=RuntimeError("IOLoop is closed"), object=Client.__del__)
    other = SimpleNamespace(exc_value=RuntimeError("something else"), object=Client.__del__)
    hook(closed)
    hook(other)
    assert reported == [other]


@pytest.mark.slow
def test_a_dask_run_prints_svmlab_s_lines_only(tmp_path):
    pytest.importorskip("dask.distributed")
    args = ["run", "dataset=iris", "solver=knn", "protocol=holdout", "runner=dask"]
    proc = run_cli(*args, "runner.progress=false", f"results_dir={tmp_path}", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "distributed" not in proc.stdout and "distributed" not in proc.stderr
    assert all(line.startswith("svmlab: ") for line in proc.stderr.splitlines()), proc.stderr


@pytest.mark.slow
def test_ctrl_c_under_dask_is_svmlab_s_one_line_and_130(start_sleepy_run):
    pytest.importorskip("dask.distributed")
    proc, tasks = start_sleepy_run("c", "runner=dask", "runner.n_jobs=2")
    os.killpg(proc.pid, signal.SIGINT)  # a terminal's Ctrl-C: every process of the group
    out, err = proc.communicate(timeout=HANG_GUARD)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert "distributed" not in out and "distributed" not in err
    assert all(line.startswith("svmlab: ") for line in err.splitlines()), err
    last = err.strip().splitlines()[-1]
    assert last.startswith("svmlab: interrupted; finished tasks are kept") and "resume" in last
    assert all(pd.read_parquet(p)["status"].tolist() == ["ok"] for p in tasks.glob("*.parquet"))
