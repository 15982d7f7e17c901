"""A run of very many tiny tasks: planning and workers draw one repetition per task, the
index grows by parts, a resume reads only what it needs, the progress bar shows the rate
and the time left, and scripts/bench/many_tasks.py measures all of it (issue 20)."""

from __future__ import annotations

import re
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest

from svmlab.evaluation import protocols
from svmlab.evaluation.protocols import get_protocol
from svmlab.runner import execute as execute_module
from svmlab.runner import row_index, store
from svmlab.runner.plan import build_plan
from svmlab.runner.task import run_task

ROOT = Path(__file__).resolve().parents[2]
MAJORITY = {
    "name": "majority",
    "_target_": "svmlab.testing.MajorityClassifier",
    "tasks": ["binary", "multiclass"],
    "grid": {},
}


def _tiny(make_cfg, n_repeats: int) -> dict:
    """iris x a majority classifier x ``n_repeats`` hold-out splits, no tuning, no scaling."""
    return make_cfg(
        solver=dict(MAJORITY),
        protocol={"name": "h", "kind": "holdout", "test_size": 0.3, "n_repeats": n_repeats},
        preprocessing={"X": "none"},
        tuning={"mode": "none"},
    )


@pytest.mark.parametrize(
    "cfg",
    [
        {"name": "h", "kind": "holdout", "n_repeats": 4},
        {"name": "h", "kind": "holdout", "n_repeats": 3, "resample": False},
        {"name": "h", "kind": "holdout", "test_size": None, "train_size": {"toy": 30}},
        {"name": "s", "kind": "stratified_kfold", "n_splits": 3, "n_repeats": 3},
        {"name": "k", "kind": "kfold", "n_splits": 3, "n_repeats": 2},
        {"name": "p", "kind": "predefined", "n_repeats": 2},
    ],
)
def test_one_repetitions_splits_are_those_split_gives(cfg):
    y = np.repeat([0, 1, 2], 20)
    predefined = {"train": list(range(40)), "test": list(range(40, 60))}
    protocol = get_protocol(cfg).check("multiclass", "toy")
    where = dict(seed=3, dataset="toy", task="multiclass", predefined=predefined)
    every = list(protocol.split(y, **where))
    alone = [s for r in range(protocol.n_repeats) for s in protocol.repeat_splits(y, r, **where)]
    assert [(s.repeat, s.fold) for s in alone] == [(s.repeat, s.fold) for s in every]
    for a, b in zip(alone, every, strict=True):
        assert np.array_equal(a.train, b.train) and np.array_equal(a.test, b.test)


def test_planning_and_a_task_draw_one_repetition_not_all(make_cfg, tmp_path, monkeypatch):
    """20,000 repetitions: planning draws the first one's split, a task its own (drawing
    them all took 1 ms each, in the parent and again in every worker)."""
    drawn = []
    real = protocols.train_test_split
    monkeypatch.setattr(
        protocols, "train_test_split", lambda *a, **k: drawn.append(1) or real(*a, **k)
    )
    plan = build_plan(_tiny(make_cfg, 20_000), str(tmp_path), "r")
    assert len(plan.tasks) == 20_000 and len(drawn) == 1
    store.prepare_run_dir(tmp_path, plan.identity, "")
    outcome = run_task(plan.tasks[17_234])
    assert outcome.status == "ok" and len(drawn) == 2
    row = pq.read_table(tmp_path / "tasks" / f"{plan.tasks[17_234].key}.parquet").to_pylist()[0]
    assert (row["repeat"], row["n_train"], row["n_test"]) == (17_234, 105, 45)


def test_a_planned_task_costs_a_few_hundred_bytes(make_cfg, tmp_path):
    """The tasks of a (dataset, solver) pair share their objects; what remains per task is
    the TaskSpec (slots) and its key: about 300 bytes."""
    cfg = _tiny(make_cfg, 3_000)
    build_plan(cfg, str(tmp_path), "r")  # imports, caches and free lists, once per process
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        plan = build_plan(cfg, str(tmp_path), "r")
        per_task = (tracemalloc.get_traced_memory()[0] - before) / len(plan.tasks)
    finally:
        tracemalloc.stop()
    assert per_task < 400, f"{per_task:.0f} bytes per planned task"
    first, last = plan.tasks[0], plan.tasks[-1]
    assert first.solver is last.solver and first.provenance is last.provenance


def _rows(i: int) -> list[dict]:
    if i % 9 == 4:
        return [{"key": f"t{i}", "status": "error", "error": "x"}]
    return [{"key": f"t{i}", "status": "ok", "fold": i, "accuracy": i / 100}]


def _reference(run_dir: Path) -> pd.DataFrame:
    """Every task file read and concatenated (what consolidation must equal)."""
    files = sorted((run_dir / "tasks").glob("*.parquet"))
    df = pd.concat([pq.read_table(p).to_pandas() for p in files], ignore_index=True)
    return df.sort_values(["fold"], kind="stable").reset_index(drop=True)


def test_index_parts_added_while_running_give_each_row_once(tmp_path, monkeypatch):
    (tmp_path / "tasks").mkdir()
    for i in range(30):
        store.write_task_rows(tmp_path, f"t{i}", _rows(i))
    store.refresh_index(tmp_path, [f"t{i}" for i in range(0, 12)])
    store.refresh_index(tmp_path, [f"t{i}" for i in range(12, 30)])
    index = tmp_path / store.INDEX_DIR
    assert len(list(index.glob("*+*.parquet"))) >= 2  # parts, the old rows not rewritten
    reads = []
    real = row_index._read_task_file
    monkeypatch.setattr(row_index, "_read_task_file", lambda p: reads.append(p.name) or real(p))
    status = store.finished_keys(tmp_path)
    assert reads == [] and len(status) == 30 and status["t4"] == "error"
    # a compaction interrupted after writing the compacted file, before removing the parts
    saved = {p.name: p.read_bytes() for p in index.glob("*+*.parquet")}
    store.consolidate(tmp_path)
    assert not list(index.glob("*+*.parquet"))  # folded into one file per schema
    for name, data in saved.items():
        (index / name).write_bytes(data)
    df = store.read_task_rows(tmp_path)
    assert reads == [] and len(df) == 30 and df["key"].is_unique
    pd.testing.assert_frame_equal(
        store.consolidate(tmp_path).sort_values(["fold"], kind="stable").reset_index(drop=True),
        _reference(tmp_path),
    )


def test_a_resume_with_an_up_to_date_index_reads_only_keys_and_statuses(tmp_path, monkeypatch):
    (tmp_path / "tasks").mkdir()
    for i in range(20):
        store.write_task_rows(tmp_path, f"t{i}", _rows(i))
    store.consolidate(tmp_path)
    columns = []
    real = row_index._read_index_file
    monkeypatch.setattr(row_index, "_read_index_file", lambda p, c: columns.append(c) or real(p, c))
    assert store.finished_keys(tmp_path)["t13"] == "error"
    assert columns and all(c is not None and "accuracy" not in c for c in columns)
    store.write_task_rows(tmp_path, "t20", _rows(20))  # a file the index lacks: full rows
    columns.clear()
    assert store.finished_keys(tmp_path)["t20"] == "ok" and None in columns


def test_progress_shows_rate_and_time_left_when_stderr_is_not_a_terminal(capsys):
    bar = execute_module._progress(total=1000, initial=100, show=True)
    try:
        assert bar.mininterval == 10.0  # a log file gets a line every 10 s, not every task
        time.sleep(0.05)
        bar.update(300)
        line = str(bar)
    finally:
        bar.close()
    # e.g. "tasks:  40%|####      | 400/1000 [00:00<00:00, 5970.61task/s]"
    assert re.search(r"400/1000 \[\d\d:\d\d<\d\d:\d\d, +[\d.]+task/s", line), line
    assert "task/s" in capsys.readouterr().err


@pytest.mark.slow
def test_many_tasks_benchmark_runs_resumes_and_reports_peak_memory(tmp_path):
    """scripts/bench/many_tasks.py through `svmlab run`: every task ok, the second run
    resumes with nothing to do, faster than the run, and the report names peak RSS.

    Cut down to stay within the test budget: 150 tasks on one worker (no pool to start),
    the run and the resume only; the benchmark itself runs 10,000 and 100,000 on 2.
    """
    n = 150
    out = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "bench" / "many_tasks.py"), "--tasks", str(n)]
        + ["--n-jobs", "1", "--quiet", "--phases", "run,resume", "--dir", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard
        cwd=tmp_path,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    report = out.stdout
    assert f"'result rows': {n}" in report and f"'statuses': {{'ok': {n}}}" in report
    assert f"resume said: svmlab: {n} tasks ok (0 ok now, {n} already done)" in report
    assert re.search(r"^peak RSS: \d+ MB \(any process\)", report, re.M), report
    assert re.search(r"^(run|resume) +[\d.]+ ", report, re.M), report  # timings: printed only
    results = pq.read_table(tmp_path / "scale_100k" / "bench" / "results.parquet")
    assert results.num_rows == n and set(results["status"].to_pylist()) == {"ok"}
