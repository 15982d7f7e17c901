"""Faults injected into a running run: failed writes, a full disk, SIGTERM, a killed parent."""

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest

from svmlab.errors import ResultsError
from svmlab.runner import store
from svmlab.runner.execute import execute
from svmlab.runner.plan import build_plan
from svmlab.runner.store import consolidate, prepare_run_dir

SLEEPY = (
    "name: sleepy\n_target_: svmlab.testing.SleepClassifier\ntasks: [multiclass]\nseconds: 0.4\n"
)
HOLDOUT = {"name": "h", "kind": "holdout", "test_size": 0.3, "n_repeats": 6}


def run_cli(*args, cwd, check=None):
    proc = subprocess.run(
        [sys.executable, "-m", "svmlab", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if check is not None:
        assert proc.returncode == check, proc.stderr
    return proc


@pytest.fixture
def test_conf(tmp_path):
    """A config dir (Hydra's --config-dir) with a solver whose fit sleeps 0.4 s."""
    (tmp_path / "conf" / "solver").mkdir(parents=True)
    (tmp_path / "conf" / "solver" / "sleepy.yaml").write_text(SLEEPY)
    return tmp_path / "conf"


def _plan(make_cfg, run_dir):
    cfg = make_cfg(protocol=HOLDOUT, tuning__mode="none")
    plan = build_plan(cfg, str(run_dir), "r")
    prepare_run_dir(run_dir, plan.identity, "{}")
    return cfg, plan


def _failing_writes(monkeypatch, fails):
    """Make ``store.write_task_rows`` raise ENOSPC when ``fails(n_calls, key)`` says so."""
    real = store.write_task_rows
    calls = {"n": 0}

    def write(run_dir, key, rows):
        calls["n"] += 1
        if fails(calls["n"], key):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(run_dir, key, rows)

    monkeypatch.setattr(store, "write_task_rows", write)


def test_a_failed_task_write_is_one_line_and_the_run_goes_on(
    make_cfg, tmp_path, monkeypatch, capsys
):
    cfg, plan = _plan(make_cfg, tmp_path)
    victim = plan.tasks[2].key
    _failing_writes(monkeypatch, lambda n, key: key == victim)
    summary = execute(plan.tasks, cfg["runner"])
    assert summary.ok == 5 and [o.status for o in summary.failed] == ["unwritten"]
    err = capsys.readouterr().err
    assert f"unwritten: {victim}: could not write" in err and "No space left on device" in err
    assert "Traceback" not in err
    monkeypatch.undo()  # space freed: the resume runs only the unwritten task
    again = execute(plan.tasks, cfg["runner"])
    assert again.skipped == 5 and again.ok == 1
    assert len(consolidate(tmp_path)) == 6


def test_writes_failing_in_a_row_stop_the_run_and_keep_finished_tasks(
    make_cfg, tmp_path, monkeypatch
):
    cfg, plan = _plan(make_cfg, tmp_path)
    _failing_writes(monkeypatch, lambda n, key: n > 2)  # the disk is full after two tasks
    with pytest.raises(ResultsError) as info:
        execute(plan.tasks, cfg["runner"])
    message = str(info.value)
    assert "\n" not in message
    assert "could not be written" in message and "No space left on device" in message
    assert "the 2 finished tasks are kept" in message and "resume" in message
    assert len(list((tmp_path / "tasks").glob("*.parquet"))) == 2
    monkeypatch.undo()
    again = execute(plan.tasks, cfg["runner"])
    assert again.skipped == 2 and again.ok == 4


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
    args += ["protocol=stratified10", "run_id=d"]
    full = run_cli(*args, f"results_dir={mnt}", cwd=tmp_path)
    assert full.returncode == 2, full.stderr
    assert "Traceback" not in full.stderr
    last = full.stderr.strip().splitlines()[-1]
    assert last.startswith("svmlab: error: stopped: the last 3 tasks' results could not be written")
    assert "No space left on device" in last and "resume" in last
    kept = {p.name for p in (mnt / "adhoc" / "d" / "tasks").glob("*.parquet")}
    assert 1 <= len(kept) < 10
    grow()
    resumed = run_cli(*args, f"results_dir={mnt}", cwd=tmp_path, check=0)
    assert f"{len(kept)} already done" in resumed.stderr
    reference = run_cli(*args, f"results_dir={tmp_path / 'ref'}", cwd=tmp_path, check=0)
    assert reference.returncode == 0
    got = pd.read_parquet(mnt / "adhoc" / "d" / "results.parquet")
    want = pd.read_parquet(tmp_path / "ref" / "adhoc" / "d" / "results.parquet")
    assert got["key"].tolist() == want["key"].tolist()
    assert got["accuracy"].tolist() == want["accuracy"].tolist()


def _start_run(tmp_path, test_conf, run_id):
    args = [sys.executable, "-m", "svmlab", "run", "--config-dir", str(test_conf)]
    args += ["dataset=iris", "solver=sleepy", "protocol=holdout", "protocol.n_repeats=12"]
    args += [f"results_dir={tmp_path}", f"run_id={run_id}", "runner=local", "runner.n_jobs=2"]
    args += ["runner.progress=false"]
    # pytest-xdist workers ignore SIGINT/SIGTERM settings of their own; start from the defaults
    restore = lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)  # noqa: E731
    proc = subprocess.Popen(
        args, cwd=tmp_path, stderr=subprocess.PIPE, text=True, preexec_fn=restore
    )
    tasks = Path(tmp_path) / "adhoc" / run_id / "tasks"
    deadline = time.time() + 90
    while time.time() < deadline and len(list(tasks.glob("*.parquet"))) < 2:
        time.sleep(0.05)
    workers = psutil.Process(proc.pid).children(recursive=True)
    assert workers, "the pool has no worker processes"
    return proc, tasks, workers


def _alive(processes) -> list[int]:
    alive = []
    for p in processes:
        try:
            if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                alive.append(p.pid)
        except psutil.NoSuchProcess:
            pass
    return alive


def _wait_gone(processes, seconds: float) -> list[int]:
    deadline = time.time() + seconds
    while _alive(processes) and time.time() < deadline:
        time.sleep(0.1)
    return _alive(processes)


@pytest.mark.slow
def test_sigterm_stops_the_pool_with_one_line_and_keeps_finished_tasks(tmp_path, test_conf):
    proc, tasks, workers = _start_run(tmp_path, test_conf, "t")
    proc.send_signal(signal.SIGTERM)  # what a scheduler or `docker stop` sends
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 143
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("svmlab: terminated; finished tasks are kept") and "resume" in last
    assert _wait_gone(workers, 5) == []
    finished = list(tasks.glob("*.parquet"))
    assert 2 <= len(finished) < 12
    assert all(pd.read_parquet(p)["status"].tolist() == ["ok"] for p in finished)


@pytest.mark.slow
def test_workers_exit_on_their_own_when_the_parent_is_killed(tmp_path, test_conf):
    proc, tasks, workers = _start_run(tmp_path, test_conf, "k")
    proc.kill()  # SIGKILL cannot be caught: the workers must notice by themselves
    proc.communicate(timeout=30)
    assert _wait_gone(workers, 5) == []
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
    real = store._read_task_file
    monkeypatch.setattr(store, "_read_task_file", lambda p: reads.append(p.name) or real(p))
    assert len(store.finished_keys(tmp_path)) == 6
    assert len(reads) <= 1  # at most the task that finished after the last index update (not 6)
