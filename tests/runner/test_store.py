import pandas as pd
import pytest

from svmlab.errors import ResultsError
from svmlab.runner import row_index, store


def test_task_rows_are_written_atomically_and_read_back(tmp_path):
    (tmp_path / "tasks").mkdir()
    store.write_task_rows(tmp_path, "k1", [{"status": "ok", "dataset": "a", "accuracy": 0.5}])
    store.write_task_rows(tmp_path, "k2", [{"status": "error", "dataset": "b", "error": "x"}])
    (tmp_path / "tasks" / ".k3.parquet.123.tmp").write_bytes(b"half a file")
    assert store.finished_keys(tmp_path) == {"k1": "ok", "k2": "error"}
    df = store.consolidate(tmp_path)
    assert len(df) == 2 and set(df.columns) >= {"accuracy", "error"}
    assert pd.read_parquet(tmp_path / "results.parquet").shape == df.shape


def test_rewriting_a_task_replaces_it(tmp_path):
    (tmp_path / "tasks").mkdir()
    store.write_task_rows(tmp_path, "k", [{"status": "error"}])
    store.write_task_rows(tmp_path, "k", [{"status": "ok"}])
    assert store.finished_keys(tmp_path) == {"k": "ok"}
    assert len(store.read_task_rows(tmp_path)) == 1


def test_run_dir_identity_guards_resume(tmp_path):
    ident = {"experiment": "e", "fingerprint": "f1", "parts": {"solvers": "a", "seed": "b"}}
    assert store.prepare_run_dir(tmp_path / "r", ident, "x: 1") is False
    (tmp_path / "r" / "tasks" / ".k.parquet.9.tmp").write_bytes(b"")
    assert store.prepare_run_dir(tmp_path / "r", ident, "x: 1") is True
    assert not list((tmp_path / "r" / "tasks").glob(".*.tmp"))  # stale temporaries removed
    with pytest.raises(ResultsError, match="belongs to experiment 'e', not 'other'"):
        store.prepare_run_dir(tmp_path / "r", {**ident, "experiment": "other"}, "")
    changed = {"experiment": "e", "fingerprint": "f2", "parts": {"solvers": "CHANGED", "seed": "b"}}
    with pytest.raises(ResultsError, match=r"different configuration \(changed: solvers\)"):
        store.prepare_run_dir(tmp_path / "r", changed, "")


def test_unwritable_results_dir(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(ResultsError, match="is not writable"):
        store.prepare_run_dir(blocker / "run", {"experiment": "e", "fingerprint": "f"}, "")


def test_the_directory_is_fsynced_after_the_rename(tmp_path, monkeypatch):
    import os
    import stat

    synced = []
    real = os.fsync

    def spy(fd):
        synced.append(stat.S_ISDIR(os.fstat(fd).st_mode))
        return real(fd)

    monkeypatch.setattr(store.os, "fsync", spy)
    (tmp_path / "tasks").mkdir()
    store.write_task_rows(tmp_path, "k", [{"status": "ok"}])
    assert synced == [False, True]  # the file, then its directory (after os.replace)


def test_resume_and_consolidation_read_only_new_task_files(tmp_path, monkeypatch):
    (tmp_path / "tasks").mkdir()
    for i in range(30):
        store.write_task_rows(tmp_path, f"k{i:02d}", [{"status": "ok", "fold": i}])
    reads = []
    real = row_index._read_task_file
    monkeypatch.setattr(row_index, "_read_task_file", lambda p: reads.append(p.name) or real(p))
    assert len(store.finished_keys(tmp_path)) == 30 and len(reads) == 30  # first time
    reads.clear()
    assert len(store.finished_keys(tmp_path)) == 30 and reads == []  # index: no file read
    store.write_task_rows(tmp_path, "k99", [{"status": "error"}])
    df = store.consolidate(tmp_path)
    assert reads == ["k99.parquet"] and len(df) == 31
    reads.clear()
    assert store.finished_keys(tmp_path)["k99"] == "error" and reads == []
