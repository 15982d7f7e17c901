"""Packing a run directory (:mod:`svmlab.runner.pack`): same rows, one file per schema, and
a copy that reports read and runs resume from."""

import json
import subprocess
import sys

import pandas as pd
import pyarrow.parquet as pq
import pytest

from svmlab.errors import ResultsError
from svmlab.runner import store
from svmlab.runner.execute import execute
from svmlab.runner.pack import pack, packed_dir
from svmlab.runner.plan import build_plan


def _row(key, i, **extra):
    return {
        "key": key,
        "dataset": f"d{i % 3}",
        "solver": "s",
        "fold": i,
        "status": "ok",
        "accuracy": i / 10,
        **extra,
    }


def _run_with_every_shape(run_dir):
    """Single-task files, a group commit, an error row (another schema), a task with two
    rows, and a task that failed first and was run again in a later file."""
    (run_dir / "tasks").mkdir(parents=True)
    (run_dir / "run.json").write_text(json.dumps({"experiment": "exp", "fingerprint": "f"}))
    (run_dir / "config.yaml").write_text("name: exp\n")
    for i in range(4):
        store.write_task_rows(run_dir, f"t{i}", [_row(f"t{i}", i)])
    store.write_batch(run_dir, [(f"b{i}", [_row(f"b{i}", i)]) for i in range(3)])
    store.write_task_rows(run_dir, "two", [_row("two", 1, grid_point=g) for g in (0, 1)])
    store.write_batch(
        run_dir,
        [
            ("again", [{"key": "again", "status": "error", "error": "boom"}]),
            ("bad", [{"key": "bad", "status": "error", "error": "x"}]),
        ],
    )
    store.write_task_rows(run_dir, "again", [_row("again", 5)])  # the rerun, all ok


def test_the_packed_copy_reads_as_the_run_with_one_file_per_schema(tmp_path):
    run = tmp_path / "results" / "exp" / "r1"
    _run_with_every_shape(run)
    (run / "results.parquet").write_bytes(b"")  # derived files are not copied
    dest, n_tasks, n_files = pack(run, tmp_path / "packs")
    assert dest == tmp_path / "packs" / "exp" / "r1" == packed_dir(run, tmp_path / "packs")
    assert n_tasks == 10
    files = sorted(p.name for p in (dest / "tasks").iterdir())
    # ok rows with and without grid_point, error rows: one file each
    assert n_files == len(files) == 3 and all(f.startswith("batch-") for f in files)
    assert sorted(p.name for p in dest.iterdir()) == ["config.yaml", "run.json", "tasks"]
    before, after = store.read_task_rows(run), store.read_task_rows(dest)
    pd.testing.assert_frame_equal(after, before)
    assert after.set_index("key").loc["again", "status"] == "ok"  # the chosen version only
    assert store.finished_keys(dest) == store.finished_keys(run)
    # the copy of a task that failed first holds it once
    assert (
        sum(pq.read_table(dest / "tasks" / f)["key"].to_pylist().count("again") for f in files) == 1
    )


def test_packing_again_replaces_the_copy(tmp_path):
    run = tmp_path / "exp" / "r1"
    _run_with_every_shape(run)
    dest, *_ = pack(run, tmp_path / "packs")
    store.consolidate(dest)  # a report made from the copy leaves derived files there
    old = {p.name for p in (dest / "tasks").iterdir()}
    store.write_task_rows(run, "late", [_row("late", 2)])
    dest, n_tasks, _ = pack(run, tmp_path / "packs")
    assert n_tasks == 11 and not (dest / "results.parquet").exists()
    assert not (dest / store.INDEX_DIR).exists()
    assert {p.name for p in (dest / "tasks").iterdir()} != old
    pd.testing.assert_frame_equal(store.read_task_rows(dest), store.read_task_rows(run))


def test_a_run_resumes_from_its_packed_copy(make_cfg, tmp_path):
    cfg = make_cfg(protocol__n_splits=3, tuning__mode="none")
    run = tmp_path / "results" / "r"
    plan = build_plan(cfg, str(run), "r")
    store.prepare_run_dir(run, plan.identity, "{}")
    (run / "run.json").write_text(json.dumps({**plan.identity, "experiment": "t"}))
    assert execute(plan.tasks, cfg["runner"]).ok == 3
    dest, n_tasks, _ = pack(run, tmp_path / "kept")
    assert n_tasks == 3
    again = build_plan(cfg, str(dest), "r")
    assert store.prepare_run_dir(dest, {**again.identity, "experiment": "t"}, "{}") is True
    summary = execute(again.tasks, cfg["runner"])
    assert (summary.ok, summary.skipped) == (0, 3)  # nothing is computed again


def test_bad_destinations_are_refused_in_one_line(tmp_path):
    run = tmp_path / "exp" / "r1"
    _run_with_every_shape(run)
    with pytest.raises(ResultsError, match="into itself"):
        pack(run, run)
    with pytest.raises(ResultsError, match="no run.json"):
        pack(tmp_path / "exp", tmp_path / "packs")
    r = subprocess.run(
        [sys.executable, "-m", "svmlab", "pack", str(tmp_path), "--into", str(tmp_path / "p")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"svmlab: error: {tmp_path} is not a run directory: it has no run.json\n"
    assert not (tmp_path / "p").exists()  # refused before anything is written


def test_the_command_packs_several_runs(tmp_path):
    for name in ("r1", "r2"):
        _run_with_every_shape(tmp_path / "exp" / name)
    r = subprocess.run(
        [
            sys.executable,
            "-m",
            "svmlab",
            "pack",
            str(tmp_path / "exp" / "r1"),
            str(tmp_path / "exp" / "r2"),
            "--into",
            str(tmp_path / "kept"),
        ],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("svmlab: packed") == 2 and "10 task(s) in 3 file(s)" in r.stderr
    assert {p.name for p in (tmp_path / "kept" / "exp").iterdir()} == {"r1", "r2"}
