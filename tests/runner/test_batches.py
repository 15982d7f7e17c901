"""Batched dispatch and group commit: sizes follow durations, rows are on disk before a task
is reported, a kill loses nothing reported and a resume runs only what is missing."""

import signal
import subprocess
import sys
import time

import pandas as pd
import psutil
import pytest

from svmlab.runner import execute as execute_module
from svmlab.runner import row_index, store
from svmlab.runner.batches import BatchSizer, batches, group_of
from svmlab.runner.execute import execute
from svmlab.runner.files import BATCH_PREFIX, task_file
from svmlab.runner.plan import build_plan
from svmlab.runner.store import prepare_run_dir
from svmlab.runner.task import run_batch

HANG_GUARD = 600  # seconds: a guard against a hang, not a measure of speed


def _plan(make_cfg, run_dir, n_repeats=40, **changes):
    cfg = make_cfg(
        protocol={"name": "h", "kind": "holdout", "test_size": 0.3, "n_repeats": n_repeats},
        tuning__mode="none",
        **changes,
    )
    plan = build_plan(cfg, str(run_dir), "r")
    prepare_run_dir(run_dir, plan.identity, "{}")
    return cfg, plan


def test_an_untimed_group_is_sent_one_task_at_a_time_then_batches_grow_gently():
    sizer = BatchSizer(n_workers=2, target=0.5)
    g = ("run", "iris", "knn")
    assert sizer.size(g, 1000) == 1
    sizer.observe(g, 0.001)  # 1 ms a task: 500 would fill the target
    sizer.last[g] = 1
    assert sizer.size(g, 1000) == 2  # at most twice the previous batch
    sizer.last[g] = 400
    assert sizer.size(g, 1000) == 250  # a quarter of what is left, for 2 workers
    assert sizer.size(g, 3) == 1


def test_long_tasks_are_sent_alone_whatever_the_other_groups_do():
    sizer = BatchSizer(n_workers=2, target=0.5)
    short, long = ("r", "iris", "fast"), ("r", "iris", "slow")
    for _ in range(10):
        sizer.observe(short, 0.001)
        sizer.observe(long, 5.0)
    sizer.last[short] = sizer.last[long] = 64
    assert sizer.size(long, 1000) == 1 and sizer.size(short, 1000) == 128
    sizer.observe(long, float("nan"))  # a crashed task changes no estimate
    assert sizer.size(long, 1000) == 1


def test_a_batch_never_mixes_groups(make_cfg, tmp_path):
    cfg, plan = _plan(make_cfg, tmp_path, n_repeats=5)
    other = build_plan(
        make_cfg(
            protocol={"name": "h", "kind": "holdout", "test_size": 0.3, "n_repeats": 5},
            tuning__mode="none",
            dataset={"name": "wine", "params": {}},
        ),
        str(tmp_path),
        "r",
    )
    tasks = plan.tasks + other.tasks
    sizer = BatchSizer(1)
    for t in tasks:
        sizer.observe(group_of(t), 0.0001)
        sizer.last[group_of(t)] = 100
    cut = list(batches(tasks, sizer))
    assert [t for b in cut for t in b] == tasks
    assert all(len({group_of(t) for t in b}) == 1 for b in cut) and len(cut) == 2


def test_a_batch_is_one_file_whose_rows_equal_separate_task_files(make_cfg, tmp_path):
    _, plan = _plan(make_cfg, tmp_path / "batched", n_repeats=6)
    outcomes = run_batch(plan.tasks)
    stems = {o.file for o in outcomes}
    assert len(stems) == 1 and next(iter(stems)).startswith(BATCH_PREFIX)
    _, alone = _plan(make_cfg, tmp_path / "alone", n_repeats=6)
    for spec in alone.tasks:
        run_batch([spec])
    drop = ["task_seconds", "started_at", "fit_time", "predict_time", "train_test_time"]
    drop += ["final_fit_time", "tune_time", "prov_hostname"]
    got = store.consolidate(tmp_path / "batched").drop(columns=drop, errors="ignore")
    want = store.consolidate(tmp_path / "alone").drop(columns=drop, errors="ignore")
    pd.testing.assert_frame_equal(got, want)


def test_every_reported_task_is_on_disk_when_reported(make_cfg, tmp_path, monkeypatch):
    cfg, plan = _plan(make_cfg, tmp_path, n_repeats=60)
    real = execute_module._surviving_crashes
    checked = []

    def spy(*args):
        for outcome in real(*args):
            table, _ = row_index._read_task_file(task_file(tmp_path, outcome.file))
            assert outcome.key in table["key"].to_pylist()
            checked.append(outcome.key)
            yield outcome

    monkeypatch.setattr(execute_module, "_surviving_crashes", spy)
    summary = execute(plan.tasks, cfg["runner"])
    assert summary.ok == 60 and len(checked) == 60
    files = list((tmp_path / "tasks").glob("*.parquet"))
    assert len(files) < 30  # committed in groups, not one file per task


def test_a_long_batch_is_committed_every_flush_interval(make_cfg, tmp_path, monkeypatch):
    import svmlab.runner.task as task_module

    _, plan = _plan(make_cfg, tmp_path, n_repeats=5)
    monkeypatch.setattr(task_module, "FLUSH_EVERY", 0.0)  # every task overdue
    outcomes = run_batch(plan.tasks)
    assert [o.file for o in outcomes] == [t.key for t in plan.tasks]  # one commit each


@pytest.mark.slow
def test_a_killed_run_loses_nothing_committed_and_the_resume_runs_only_the_rest(tmp_path):
    n = 3000
    cmd = [sys.executable, "-m", "svmlab", "run", "+experiment=scale_100k"]
    cmd += [f"protocol.n_repeats={n}", "runner=local", "runner.n_jobs=2", "run_id=k"]
    cmd += [f"results_dir={tmp_path}", "runner.progress=false"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stderr=subprocess.PIPE, text=True)
    tasks = tmp_path / "scale_100k" / "k" / "tasks"
    deadline = time.monotonic() + HANG_GUARD
    while len(list(tasks.glob(f"{BATCH_PREFIX}*.parquet"))) < 3:
        assert proc.poll() is None, proc.stderr.read()
        assert time.monotonic() < deadline
        time.sleep(0.05)
    workers = psutil.Process(proc.pid).children(recursive=True)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=HANG_GUARD)
    psutil.wait_procs(workers, timeout=HANG_GUARD)  # they may commit the batch in hand first
    done = store.finished_keys(tasks.parent)
    assert 0 < len(done) < n and set(done.values()) == {"ok"}
    resumed = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=HANG_GUARD)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{n - len(done)} ok now, {len(done)} already done" in resumed.stderr
    results = pd.read_parquet(tasks.parent / "results.parquet")
    assert len(results) == n and results["key"].is_unique


@pytest.mark.parametrize("kind", ["task file", "batch file"])
def test_a_task_file_replaced_by_another_tasks_file_is_not_trusted(
    make_cfg, tmp_path, capsys, kind
):
    cfg, plan = _plan(make_cfg, tmp_path, n_repeats=4)
    keys = [t.key for t in plan.tasks]
    if kind == "task file":
        for spec in plan.tasks:
            run_batch([spec])
        victim, source = task_file(tmp_path, keys[0]), task_file(tmp_path, keys[1])
        rerun = {keys[0]}
    else:
        run_batch(plan.tasks[:2])
        run_batch(plan.tasks[2:])
        first, second = sorted((tmp_path / "tasks").glob("*.parquet"))
        victim, source = first, second
        rerun = set(row_index._read_task_file(first)[0]["key"].to_pylist())
    victim.write_bytes(source.read_bytes())  # a copy, a bad sync
    capsys.readouterr()
    summary = execute(plan.tasks, cfg["runner"])
    err = capsys.readouterr().err
    assert f"task file {victim} is not trusted" in err and "run again" in err
    assert summary.ok == len(rerun) and summary.skipped == 4 - len(rerun)
    df = store.consolidate(tmp_path)
    assert sorted(df["key"]) == sorted(keys)  # every task once
    assert victim.with_name(victim.name + store.SET_ASIDE).exists()
    capsys.readouterr()
    assert execute(plan.tasks, cfg["runner"]).skipped == 4
    assert "not trusted" not in capsys.readouterr().err  # set aside: named once


def test_a_task_rerun_after_failing_is_taken_from_its_newest_file(make_cfg, tmp_path):
    _, plan = _plan(make_cfg, tmp_path, n_repeats=3)
    first = plan.tasks[0]
    run_batch(plan.tasks)  # one batch file with all three
    rows = [{"key": first.key, "status": "error", "error": "x"}]
    store.write_task_rows(tmp_path, first.key, rows)  # an older failure's own file...
    status = store.finished_keys(tmp_path)
    assert status[first.key] == "ok"  # ... the ok version wins
    df = store.read_task_rows(tmp_path)
    assert len(df) == 3 and (df["status"] == "ok").all()


def test_a_task_file_written_with_pandas_is_trusted(tmp_path):
    """pandas writes string columns as large_string: the key inside still counts."""
    (tmp_path / "tasks").mkdir()
    pd.DataFrame([{"key": "k1", "status": "ok"}]).to_parquet(task_file(tmp_path, "k1"))
    assert store.finished_keys(tmp_path) == {"k1": "ok"}
