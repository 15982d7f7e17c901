"""Packing a run directory (:mod:`svmlab.runner.pack`): same rows, one file per schema, and
a copy that reports read and runs resume from."""

import errno
import json
import os
import shutil
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
    assert sorted(p.name for p in dest.iterdir()) == [
        "config.yaml",
        "packed.json",
        "run.json",
        "tasks",
    ]
    record = json.loads((dest / "packed.json").read_text())
    assert record["tasks"] == 10 and sorted(record["files"]) == files
    before, after = store.read_task_rows(run), store.read_task_rows(dest)
    pd.testing.assert_frame_equal(after, before)
    assert after.set_index("key").loc["again", "status"] == "ok"  # the chosen version only
    assert store.finished_keys(dest) == store.finished_keys(run)
    # the copy of a task that failed first holds it once
    assert (
        sum(pq.read_table(dest / "tasks" / f)["key"].to_pylist().count("again") for f in files) == 1
    )


def test_packing_again_replaces_the_copy_whole(tmp_path):
    run = tmp_path / "exp" / "r1"
    _run_with_every_shape(run)
    dest, *_ = pack(run, tmp_path / "packs")
    store.consolidate(dest)  # a report made from the copy leaves derived files there
    (dest / "report").mkdir()
    store.write_task_rows(run, "late", [_row("late", 2)])
    dest, n_tasks, n_files = pack(run, tmp_path / "packs")
    assert n_tasks == 11
    listed = json.loads((dest / "packed.json").read_text())["files"]
    assert sorted(p.name for p in (dest / "tasks").iterdir()) == sorted(listed)
    assert len(listed) == n_files
    assert sorted(p.name for p in dest.iterdir()) == [
        "config.yaml",
        "packed.json",
        "run.json",
        "tasks",
    ]
    assert [p.name for p in dest.parent.iterdir()] == ["r1"]  # no temporary left beside it
    pd.testing.assert_frame_equal(store.read_task_rows(dest), store.read_task_rows(run))


def test_a_destination_holding_a_run_is_never_replaced(tmp_path):
    """Packing into a run's own folder, or into a packed copy a run has resumed in, would
    delete finished tasks: refused, and nothing there changes."""
    run = tmp_path / "old" / "exp" / "r1"
    _run_with_every_shape(run)
    live = tmp_path / "results" / "exp" / "r1"
    _run_with_every_shape(live)
    store.write_task_rows(live, "only-here", [_row("only-here", 1)])
    before = sorted(p.name for p in (live / "tasks").iterdir())
    with pytest.raises(ResultsError, match="not a packed copy"):
        pack(run, tmp_path / "results")
    assert sorted(p.name for p in (live / "tasks").iterdir()) == before
    dest, *_ = pack(run, tmp_path / "kept")
    store.write_task_rows(dest, "resumed", [_row("resumed", 1)])  # a run went on in the copy
    with pytest.raises(ResultsError, match=r"a run has written to this packed copy .*resumed"):
        pack(run, tmp_path / "kept")
    assert (dest / "tasks" / "resumed.parquet").exists()
    (tmp_path / "kept" / "exp" / "r2").parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / "kept" / "exp" / "r2").write_text("")
    _run_with_every_shape(tmp_path / "old" / "exp" / "r2")
    with pytest.raises(ResultsError, match="it is a file"):
        pack(tmp_path / "old" / "exp" / "r2", tmp_path / "kept")


def test_a_kept_copy_is_not_replaced_by_a_run_that_lacks_its_tasks(tmp_path):
    """A fresh run of the same study packed over the kept one (a clone that did not resume
    from it) is refused; --replace drops the kept tasks on purpose."""
    run = tmp_path / "old" / "exp" / "reproduce"
    _run_with_every_shape(run)
    dest, *_ = pack(run, tmp_path / "kept")
    fresh = tmp_path / "new" / "exp" / "reproduce"
    (fresh / "tasks").mkdir(parents=True)
    (fresh / "run.json").write_text((run / "run.json").read_text())
    store.write_task_rows(fresh, "t0", [_row("t0", 0)])
    with pytest.raises(ResultsError, match=r"holds 9 task\(s\) this run has not finished"):
        pack(fresh, tmp_path / "kept")
    assert store.finished_keys(dest) == store.finished_keys(run)  # untouched
    _, n_tasks, _ = pack(fresh, tmp_path / "kept", replace=True)
    assert n_tasks == 1 and set(store.finished_keys(dest)) == {"t0"}


def test_a_rewritten_task_file_in_the_copy_is_seen(tmp_path):
    run = tmp_path / "exp" / "r1"
    _run_with_every_shape(run)
    store.write_task_rows(run, "byhand", [{"status": "ok", "accuracy": 0.5}])
    dest, *_ = pack(run, tmp_path / "kept")
    store.write_task_rows(dest, "byhand", [{"status": "ok", "accuracy": 0.9}])  # same name
    with pytest.raises(ResultsError, match="a run has written to this packed copy"):
        pack(run, tmp_path / "kept")


def test_a_stopped_pack_leaves_the_kept_copy_or_says_where_it_is(tmp_path, monkeypatch):
    import svmlab.runner.pack as pack_module

    run = tmp_path / "exp" / "r1"
    _run_with_every_shape(run)
    dest, *_ = pack(run, tmp_path / "kept")
    expected = store.read_task_rows(dest)
    store.write_task_rows(run, "late", [_row("late", 2)])

    def stop(*args):  # Ctrl-C while the new copy is written
        raise KeyboardInterrupt

    monkeypatch.setattr(pack_module, "_write_tasks", stop)
    with pytest.raises(KeyboardInterrupt):
        pack(run, tmp_path / "kept")
    monkeypatch.undo()
    assert [p.name for p in dest.parent.iterdir()] == ["r1"]  # no half-written copy beside
    pd.testing.assert_frame_equal(store.read_task_rows(dest), expected)
    real_replace, calls = os.replace, []

    def second_rename_fails(src, dst):
        calls.append(src)
        if len(calls) == 2:
            raise OSError(errno.EXDEV, os.strerror(errno.EXDEV), str(src))
        return real_replace(src, dst)

    monkeypatch.setattr(pack_module.os, "replace", second_rename_fails)
    with pytest.raises(ResultsError, match="cannot pack .* Invalid cross-device link"):
        pack(run, tmp_path / "kept")
    monkeypatch.undo()
    assert [p.name for p in dest.parent.iterdir()] == ["r1"]  # the old copy put back
    pd.testing.assert_frame_equal(store.read_task_rows(dest), expected)
    # a pack killed between its two renames: the kept copy lies aside, and is not lost
    aside = dest.parent / ".r1.replaced-0000"
    os.replace(dest, aside)
    with pytest.raises(ResultsError, match=f"left at {aside} .*rename it back"):
        pack(run, tmp_path / "kept")
    assert aside.is_dir() and not dest.exists()
    os.replace(aside, dest)
    (dest.parent / ".r1.packing-0000").mkdir()  # a killed pack's unfinished copy
    _, n_tasks, _ = pack(run, tmp_path / "kept")
    assert n_tasks == 11 and [p.name for p in dest.parent.iterdir()] == ["r1"]


def test_hidden_folders_are_not_runs(tmp_path):
    from svmlab.results import run_dirs

    run = tmp_path / "exp" / "r1"
    _run_with_every_shape(run)
    pack(run, tmp_path / "kept")
    (tmp_path / "kept" / "exp" / ".r1.packing-0000").mkdir()
    (tmp_path / "kept" / "exp" / ".r1.packing-0000" / "run.json").write_text("{}")
    assert run_dirs(tmp_path / "kept") == [tmp_path / "kept" / "exp" / "r1"]


def test_a_destination_in_use_by_a_run_is_refused(tmp_path):
    run = tmp_path / "exp" / "r1"
    _run_with_every_shape(run)
    dest, *_ = pack(run, tmp_path / "kept")
    holder = subprocess.Popen(  # another process runs in the copy
        [
            sys.executable,
            "-c",
            "import sys, time\nfrom svmlab.runner import lock\n"
            "lock.acquire(sys.argv[1]); print('held', flush=True); time.sleep(600)",
            str(dest),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(ResultsError, match=f"cannot pack into {dest}: .*in use"):
            pack(run, tmp_path / "kept")
    finally:
        holder.kill()
        holder.wait()


def test_rows_without_a_key_read_back_exactly(tmp_path):
    run = tmp_path / "exp" / "r1"
    _run_with_every_shape(run)
    for name in ("byhand", "byhand2"):  # no key column, the same schema
        store.write_task_rows(run, name, [{"status": "ok", "accuracy": len(name) / 10}])
    dest, *_ = pack(run, tmp_path / "kept")
    assert (dest / "tasks" / "byhand.parquet").exists()
    assert pq.read_table(dest / "tasks" / "byhand2.parquet").num_rows == 1
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
    nested = tmp_path / "kept" / "exp" / "r1" / "old" / "r1"  # a run inside the copy's place
    _run_with_every_shape(nested)
    with pytest.raises(ResultsError, match="into itself or a folder holding it"):
        pack(nested, tmp_path / "kept")
    (tmp_path / "exp" / "r2" / "tasks").mkdir(parents=True)
    (tmp_path / "exp" / "r2" / "run.json").write_text('{"experiment": "exp"}')
    (tmp_path / "exp" / "r2" / "tasks" / "k.parquet").mkdir()  # not a file: left out
    store.write_task_rows(tmp_path / "exp" / "r2", "j", [_row("j", 1)])
    assert pack(tmp_path / "exp" / "r2", tmp_path / "packs")[1] == 1
    (tmp_path / "exp" / "r3").mkdir()
    (tmp_path / "exp" / "r3" / "run.json").write_text('{"experiment": "exp"}')
    (tmp_path / "exp" / "r3" / "tasks").write_text("")  # a file where tasks/ should be
    with pytest.raises(ResultsError, match=r"cannot pack .*r3.*tasks\): Not a directory"):
        pack(tmp_path / "exp" / "r3", tmp_path / "packs")
    assert not (tmp_path / "packs" / "exp" / "r3").exists()
    shutil.rmtree(tmp_path / "packs")
    with pytest.raises(ResultsError, match="no run.json"):
        pack(tmp_path / "exp", tmp_path / "packs")
    with pytest.raises(ResultsError, match="no such directory"):
        pack(tmp_path / "missing", tmp_path / "packs")
    (run / "run.json").write_text(json.dumps({"experiment": "../../escaped"}))
    with pytest.raises(ResultsError, match="names no usable experiment"):
        pack(run, tmp_path / "packs")
    assert not (tmp_path / "packs").exists() and not (tmp_path.parent / "escaped").exists()
    r = subprocess.run(
        [sys.executable, "-m", "svmlab", "pack", str(tmp_path), "--into", str(tmp_path / "p")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == f"svmlab: error: {tmp_path} is not a run directory: it has no run.json\n"
    assert not (tmp_path / "p").exists()  # refused before anything is written


def test_the_command_checks_every_run_before_writing_any(tmp_path):
    for name in ("r1", "r2"):
        _run_with_every_shape(tmp_path / "a" / "exp" / name)
    _run_with_every_shape(tmp_path / "b" / "exp" / "r1")
    runs = [str(tmp_path / "a" / "exp" / "r1"), str(tmp_path / "b" / "exp" / "r1")]
    r = subprocess.run(
        [sys.executable, "-m", "svmlab", "pack", *runs, "--into", str(tmp_path / "kept")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "would both be packed to" in r.stderr and not (tmp_path / "kept").exists()
    (tmp_path / "kept" / "exp" / "r2").mkdir(parents=True)
    (tmp_path / "kept" / "exp" / "r2" / "x").write_text("")  # not a packed copy: refused
    runs = [str(tmp_path / "a" / "exp" / "r1"), str(tmp_path / "a" / "exp" / "r2")]
    r = subprocess.run(
        [sys.executable, "-m", "svmlab", "pack", *runs, "--into", str(tmp_path / "kept")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 2 and "not a packed copy" in r.stderr
    assert not (tmp_path / "kept" / "exp" / "r1").exists()  # the first run was not packed either


def test_the_command_refuses_a_lost_kept_task_before_writing_any(tmp_path):
    """Of two runs, the second would drop tasks of its kept copy: the first is not packed
    either, and --replace packs both."""
    _run_with_every_shape(tmp_path / "a" / "exp" / "r1")
    kept_run = tmp_path / "b" / "exp" / "r2"
    _run_with_every_shape(kept_run)
    pack(kept_run, tmp_path / "kept")
    fresh = tmp_path / "a" / "exp" / "r2"
    (fresh / "tasks").mkdir(parents=True)
    (fresh / "run.json").write_text((kept_run / "run.json").read_text())
    store.write_task_rows(fresh, "t0", [_row("t0", 0)])
    command = [sys.executable, "-m", "svmlab", "pack", str(tmp_path / "a" / "exp" / "r1")]
    command += [str(fresh), "--into", str(tmp_path / "kept")]
    r = subprocess.run(command, capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "holds 9 task(s) this run has not finished" in r.stderr
    assert not (tmp_path / "kept" / "exp" / "r1").exists()
    assert set(store.finished_keys(tmp_path / "kept" / "exp" / "r2")) == set(
        store.finished_keys(kept_run)
    )
    r = subprocess.run([*command, "--replace"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert set(store.finished_keys(tmp_path / "kept" / "exp" / "r2")) == {"t0"}


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


def test_a_sweep_folder_packs_each_run_in_its_place(tmp_path):
    sweep = tmp_path / "results" / "exp" / "reproduce"
    for job in ("0", "1", "10"):
        _run_with_every_shape(sweep / job)
    (sweep / "multirun.yaml").write_text("hydra: {}\n")
    r = subprocess.run(
        [sys.executable, "-m", "svmlab", "pack", str(sweep), "--into", str(tmp_path / "kept")],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("svmlab: packed") == 3
    kept = tmp_path / "kept" / "exp" / "reproduce"
    assert sorted(p.name for p in kept.iterdir()) == ["0", "1", "10", "multirun.yaml"]
    assert packed_dir(sweep / "1", tmp_path / "kept") == kept / "1"
    # the kept sweep reads as the original, and packing one of its runs again keeps its place
    pd.testing.assert_frame_equal(
        store.read_task_rows(kept / "10"), store.read_task_rows(sweep / "10")
    )
    assert (
        packed_dir(kept / "0", tmp_path / "again") == tmp_path / "again" / "exp" / "reproduce" / "0"
    )
