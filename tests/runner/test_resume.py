"""Resuming and consolidating a run: identity, stray and damaged task files, the row index."""

import shutil
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from svmlab.errors import ResultsError
from svmlab.results import select_outer_best
from svmlab.runner import store
from svmlab.runner.execute import execute
from svmlab.runner.plan import build_plan


def _old_consolidated(run_dir: Path, postprocess=None) -> pd.DataFrame:
    """``store.read_task_rows`` + ``store.consolidate`` as they were before the row index
    (every task file read one by one): the reference the new code must match."""
    files = sorted(p for p in (run_dir / "tasks").glob("*.parquet") if not p.name.startswith("."))
    df = pd.concat([pq.read_table(p).to_pandas() for p in files], ignore_index=True)
    if postprocess is not None:
        df = postprocess(df)
    sort = [
        c
        for c in ("dataset", "solver", "variant", "repeat", "fold", "grid_point")
        if c in df.columns
    ]
    return df.sort_values(sort, kind="stable").reset_index(drop=True)


def _ok(i, **extra):
    return {
        "key": f"k{i}",
        "dataset": f"d{i % 3}",
        "solver": "s",
        "variant": "",
        "repeat": 0,
        "fold": i % 5,
        "status": "ok",
        "error": "",
        "accuracy": i / 100,
        "confusion": "[[1, 0], [0, 1]]",
        **extra,
    }


def _mixed_run(run_dir: Path, n: int = 40) -> None:
    """Task files of every shape a run produces: binary and multiclass rows, error and
    timeout rows with fewer columns, all-null columns, several rows per task (outer_best),
    keys whose file names sort differently from the keys ('a' < 'a-b' but 'a-b.' < 'a.')."""
    (run_dir / "tasks").mkdir(parents=True, exist_ok=True)
    for i in range(n):
        key = ["t", "t-x", "t_y", "T"][i % 4] + f"{i // 4}"
        if i % 7 == 1:
            rows = [{"key": key, "dataset": "d1", "solver": "s", "status": "error", "error": "x"}]
        elif i % 11 == 2:
            rows = [{"key": key, "status": "timeout", "fold": 1}]
        elif i % 5 == 3:
            rows = [_ok(i, key=key, f1_macro=0.5, chosen_params=None, warnings=None)]
        elif i % 6 == 0:
            rows = [
                _ok(i, key=key, tuning_mode="outer_best", tuning_metric="accuracy", grid_point=g)
                for g in (1, 0)
            ]
        else:
            rows = [_ok(i, key=key, flag=bool(i % 2), n_sv=i)]
        store.write_task_rows(run_dir, key, rows)
    store.write_task_rows(run_dir, "a", [_ok(100, key="a")])
    store.write_task_rows(run_dir, "a-b", [_ok(101, key="a-b", extra=1.5)])


def _assert_same(new: pd.DataFrame, old: pd.DataFrame, run_dir: Path) -> None:
    pd.testing.assert_frame_equal(new, old)
    written = pq.read_table(run_dir / "results.parquet")
    expected = pa.Table.from_pandas(old, preserve_index=False)
    assert written.schema.equals(expected.schema, check_metadata=True)
    assert written.equals(expected)


def test_consolidation_equals_reading_every_task_file(tmp_path):
    _mixed_run(tmp_path)
    old = _old_consolidated(tmp_path, select_outer_best)
    cold = store.consolidate(tmp_path, postprocess=select_outer_best)  # builds the index
    assert (tmp_path / store.INDEX_DIR).is_dir()
    _assert_same(cold, old, tmp_path)
    warm = store.consolidate(tmp_path, postprocess=select_outer_best)  # from the index
    _assert_same(warm, old, tmp_path)
    # a task rewritten (other schema) and a new task: the index is not trusted over the files
    store.write_task_rows(tmp_path, "t0", [{"key": "t0", "status": "error", "error": "again"}])
    store.write_task_rows(tmp_path, "zz", [_ok(7, key="zz")])
    old = _old_consolidated(tmp_path, select_outer_best)
    _assert_same(store.consolidate(tmp_path, postprocess=select_outer_best), old, tmp_path)
    assert store.finished_keys(tmp_path)["t0"] == "error"
    # a removed task file takes its rows out of the index too
    (tmp_path / "tasks" / "zz.parquet").unlink()
    assert "zz" not in set(store.consolidate(tmp_path)["key"])


def test_a_damaged_index_is_rebuilt_from_the_task_files(tmp_path, capsys):
    _mixed_run(tmp_path, n=12)
    store.consolidate(tmp_path)
    index_files = sorted((tmp_path / store.INDEX_DIR).glob("*.parquet"))
    assert index_files
    index_files[0].write_bytes(b"PAR1 truncated")
    capsys.readouterr()
    df = store.consolidate(tmp_path)
    assert f"{index_files[0]} cannot be read" in capsys.readouterr().err
    pd.testing.assert_frame_equal(df, _old_consolidated(tmp_path))
    pq.read_table(index_files[0])  # rewritten whole
    shutil.rmtree(tmp_path / store.INDEX_DIR)
    pd.testing.assert_frame_equal(store.read_task_rows(tmp_path), store.read_task_rows(tmp_path))
    assert not (tmp_path / store.INDEX_DIR).exists()  # reading alone never writes


def test_stray_and_unreadable_task_files(make_cfg, tmp_path, capsys):
    """An unreadable task file is named and its task redone; a file that is no task of the
    plan is left out of results.parquet; no finished task is lost or run again."""
    cfg = make_cfg(protocol__n_splits=3, tuning__mode="none")
    plan = build_plan(cfg, str(tmp_path), "r")
    keys = {t.key for t in plan.tasks}
    store.prepare_run_dir(tmp_path, plan.identity, "{}")
    assert execute(plan.tasks, cfg["runner"]).ok == 3
    store.consolidate(tmp_path, keys=keys)
    # the file holding the second task's rows (its own, or a batch shared with others)
    damaged = next(
        p
        for p in sorted((tmp_path / "tasks").glob("*.parquet"))
        if plan.tasks[1].key in pq.read_table(p)["key"].to_pylist()
    )
    lost = set(pq.read_table(damaged)["key"].to_pylist())
    damaged.write_bytes(b"PAR1 not really")  # e.g. a disk error
    store.write_task_rows(tmp_path, "other-run-task", [{"key": "other-run-task", "status": "ok"}])
    stray = tmp_path / "tasks" / "other-run-task.parquet"
    (tmp_path / "tasks" / "junk.parquet").write_text("not parquet")  # stray and unreadable
    capsys.readouterr()
    assert set(store.finished_keys(tmp_path, keys)) == keys - lost
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"task file {damaged} cannot be read" in err
    assert "will be run again" in err and "junk" not in err
    summary = execute(plan.tasks, cfg["runner"])
    assert (summary.ok, summary.skipped, summary.n_failed) == (len(lost), 3 - len(lost), 0)
    df = store.consolidate(tmp_path, postprocess=select_outer_best, keys=keys)
    err = capsys.readouterr().err
    assert "2 file(s) in" in err and "hold no task of this run" in err
    assert sorted(df["key"]) == sorted(keys) and (df["status"] == "ok").all()
    assert stray.exists()  # left alone, only not consolidated


def test_a_directory_with_results_but_no_run_json_is_refused(tmp_path):
    ident = {"experiment": "e", "fingerprint": "f"}
    run = tmp_path / "r"
    (run / "tasks").mkdir(parents=True)
    store.write_task_rows(run, "k", [{"status": "ok"}])
    with pytest.raises(ResultsError, match="holds results but no run.json") as err:
        store.prepare_run_dir(run, ident, "")
    assert "\n" not in str(err.value) and "choose another run_id" in str(err.value)
    assert not (run / "run.json").exists() and (run / "tasks" / "k.parquet").exists()
    assert not (run / ".svmlab.lock").exists()  # the refused attempt leaves no lock behind
    # a directory with only what Hydra puts there (logs) is a new run
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    (fresh / "app.log").write_text("")
    assert store.prepare_run_dir(fresh, ident, "") is False


def svmlab_run(results_dir: Path, *args: str) -> subprocess.CompletedProcess:
    """``svmlab run`` of one small ad-hoc run (iris, knn, hold-out) in a subprocess."""
    return subprocess.run(
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
            f"results_dir={results_dir}",
            *args,
        ],
        cwd=results_dir,
        capture_output=True,
        text=True,
        timeout=600,  # a hang guard
    )


@pytest.mark.slow
def test_cli_refuses_to_resume_into_a_directory_without_run_json(tmp_path):
    run = tmp_path / "adhoc" / "old"
    (run / "tasks").mkdir(parents=True)
    store.write_task_rows(run, "iris-knn-r0f0-0", [{"status": "ok", "seed": 7}])
    proc = svmlab_run(tmp_path, "run_id=old", "seed=3")
    assert proc.returncode == 2, proc.stderr
    errors = [line for line in proc.stderr.splitlines() if "error" in line]
    assert len(errors) == 1 and "holds results but no run.json" in errors[0]
    assert "Traceback" not in proc.stderr
    assert [p.name for p in (run / "tasks").iterdir()] == ["iris-knn-r0f0-0.parquet"]
    assert not (run / "run.json").exists() and not (run / "results.parquet").exists()


@pytest.mark.slow
def test_a_resume_with_nothing_to_do_leaves_results_parquet_as_it_is(tmp_path):
    """A finished run's results are current: the resume reports, but does not consolidate
    (rewrite) them again; after a task file changes it does."""
    first = svmlab_run(tmp_path, "run_id=same", "tuning.mode=none")
    assert first.returncode == 0, first.stderr
    run = tmp_path / "adhoc" / "same"
    results = run / "results.parquet"
    written = results.stat().st_mtime_ns
    again = svmlab_run(tmp_path, "run_id=same", "tuning.mode=none")
    assert again.returncode == 0 and "0 ok now" in again.stderr, again.stderr
    assert results.stat().st_mtime_ns == written and store.results_current(run)
    task = next((run / "tasks").glob("*.parquet"))
    task.write_bytes(task.read_bytes())  # rewritten: newer than results.parquet
    assert not store.results_current(run)
