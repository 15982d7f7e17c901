"""The Parquet results store: task files written atomically, read back with trust.

Layout of a run directory::

    RUN_DIR/
      run.json            experiment name, run id, config fingerprint (guards resumes)
      config.yaml         the resolved configuration
      tasks/              the finished tasks' rows: <key>.parquet (one task) or
                          batch-<digest>.parquet (several tasks committed together)
      results.parquet     all task rows, consolidated after each run
      .svmlab.lock        pid and host of the run using the directory (:mod:`svmlab.runner.lock`)
      .tasks-index/       the task files' rows gathered (:mod:`svmlab.runner.row_index`)

**Group commit.** A worker running a batch of short tasks writes their rows as one file
(:func:`write_batch`) at the end of the batch, and at least every
:data:`svmlab.runner.batches.FLUSH_EVERY` seconds within it; the runner reports a task
finished only after its file is on disk. A crash therefore loses at most the tasks of the
batches in flight that were not yet written - never a task reported as done.

The task files are the source of truth; :mod:`svmlab.runner.row_index` reads them (with
the trust check and one version per task) and keeps the index that saves reading them all
on every resume and consolidation.
"""

from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from svmlab.errors import ResultsError
from svmlab.runner import lock, row_index
from svmlab.runner.files import (
    BATCH_PREFIX,
    CONFIG_FILE,
    INDEX_DIR,
    RESULTS_FILE,
    RUN_FILE,
    SUFFIX,
    TASKS_DIR,
    atomic_write,
    batch_stem,
    task_file,
)

__all__ = [
    "INDEX_DIR",
    "RESULTS_FILE",
    "RUN_FILE",
    "TASKS_DIR",
    "consolidate",
    "finished_keys",
    "prepare_run_dir",
    "read_task_rows",
    "refresh_index",
    "results_current",
    "write_batch",
    "write_task_rows",
]

#: Suffix given to a task file that cannot be read or trusted when a run sets it aside.
SET_ASIDE = ".set-aside"


def write_task_rows(run_dir: str | Path, key: str, rows: list[dict]) -> Path:
    """Write one task's result rows to ``tasks/<key>.parquet`` atomically."""
    path = task_file(run_dir, key)
    table = pa.Table.from_pylist(rows)
    atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    return path


def write_batch(run_dir: str | Path, tasks: list[tuple[str, list[dict]]]) -> list[str]:
    """Write the rows of several finished tasks, ``[(key, rows), ...]``; the file stems
    written, one per task in order.

    One task goes to ``tasks/<key>.parquet``. Several go to ``batch-<digest>.parquet``, one
    file per row schema (an error row's columns differ from a result row's), so that a
    batch file reads back exactly as the tasks' own files would: tasks are grouped by their
    rows' columns and the Python types of the values, which decide the inferred schema.
    """
    if len(tasks) == 1:
        key, rows = tasks[0]
        write_task_rows(run_dir, key, rows)
        return [key]
    # tasks whose rows have the same columns with values of the same Python types get the
    # same inferred schema: they are converted together, which is what makes a batch cheap
    groups: dict[tuple, list[tuple[str, list[dict]]]] = {}
    for key, rows in tasks:
        kinds = tuple(tuple((k, type(v)) for k, v in row.items()) for row in rows)
        groups.setdefault(kinds, []).append((key, rows))
    stem_of: dict[str, str] = {}
    for members in groups.values():
        if len(members) == 1:
            key, rows = members[0]
            write_task_rows(run_dir, key, rows)
            stem_of[key] = key
            continue
        table = pa.Table.from_pylist([row for _, rows in members for row in rows])
        # the keys as the batch file's key column lists them (rows without one: the task's)
        keys = (row.get("key", key) for key, rows in members for row in rows)
        stem = batch_stem(row_index.distinct_in_order(keys))
        atomic_write(task_file(run_dir, stem), lambda tmp, t=table: pq.write_table(t, tmp))
        stem_of.update((key, stem) for key, _ in members)
    return [stem_of[key] for key, _ in tasks]


def _unreadable(rows: row_index.Rows, keys=None) -> list[str]:
    """The unreadable task files that concern the run: all, or with the plan's ``keys`` those
    named after one of its tasks and the batch files (whose tasks cannot be known)."""
    return sorted(
        stem
        for stem in rows.unreadable
        if keys is None or stem in keys or stem.startswith(BATCH_PREFIX)
    )


def _report(run_dir: Path, rows: row_index.Rows, consequence: str, keys=None) -> None:
    """Name the task files that cannot be read (:func:`_unreadable`) and those that are not
    trusted."""
    for stem in _unreadable(rows, keys):
        row_index.note(
            f"task file {task_file(run_dir, stem)} cannot be read ({rows.unreadable[stem]}); "
            f"{consequence}"
        )
    for stem, reason in sorted(rows.untrusted.items()):
        row_index.note(
            f"task file {task_file(run_dir, stem)} is not trusted ({reason}); {consequence}"
        )


def _set_aside(run_dir: Path, rows: row_index.Rows, keys=None) -> None:
    """Rename the untrusted task files and the unreadable ones (:func:`_unreadable`) to
    ``<name>.set-aside``: kept for inspection, no longer read, so their tasks run again once
    and the note is not repeated."""
    for stem in set(rows.untrusted) | set(_unreadable(rows, keys)):
        path = task_file(run_dir, stem)
        try:
            os.replace(path, path.with_name(path.name + SET_ASIDE))
        except OSError:
            pass


def finished_keys(run_dir: str | Path, keys=None) -> dict[str, str]:
    """``{key: status}`` of every task with trusted rows in the run (of ``keys`` only, if
    given).

    The status is ``ok`` when all of the task's rows are ok, else its first row's status
    (:func:`svmlab.runner.row_index.statuses`). A task file that cannot be read, or whose
    rows are not those its name promises, is named on stderr, left out and set aside as
    ``<name>.set-aside``, so its tasks run again. Temporary files are ignored.
    """
    run_dir = Path(run_dir)
    keys = None if keys is None else set(keys)
    rows = row_index.collect_from_index(
        run_dir, [row_index._TASK, row_index._FILE, row_index._SIG, "status"]
    )
    if rows is None:  # task files the index does not cover yet: read them, then save it
        rows = row_index.collect(run_dir)
        row_index.save_index(run_dir, rows)
        _report(run_dir, rows, "its task(s) will be run again", keys)
        _set_aside(run_dir, rows, keys)
    return row_index.statuses(rows, keys)


def read_task_rows(run_dir: str | Path, keys=None):
    """All rows of all trusted task files of a run (of ``keys`` only, if given); columns
    are unioned. Nothing is written: the index is used where valid. Unreadable or
    untrusted task files are named on stderr and left out."""
    run_dir = Path(run_dir)
    keys = None if keys is None else set(keys)
    rows = row_index.collect(run_dir)
    _report(run_dir, rows, "its rows are left out")
    return row_index.frame(rows, keys)


def consolidate(run_dir: str | Path, postprocess=None, keys=None):
    """Rebuild ``results.parquet`` from the task files (of the plan's ``keys`` only, if
    given: rows of other tasks in ``tasks/`` are left out with a note); returns the table."""
    run_dir = Path(run_dir)
    keys = None if keys is None else set(keys)
    rows = row_index.collect(run_dir)
    row_index.save_index(run_dir, rows)
    _report(run_dir, rows, f"its rows are left out of {RESULTS_FILE}")
    if keys is not None:
        stray = _stray_files(rows, keys)
        if stray:
            row_index.note(
                f"{len(stray)} file(s) in {run_dir / TASKS_DIR} hold no task of this run "
                f"(e.g. {stray[0]}{SUFFIX}); left out of {RESULTS_FILE}"
            )
    df = row_index.frame(rows, keys)
    if postprocess is not None and not df.empty:
        df = postprocess(df)
    if not df.empty:
        sort = [
            c
            for c in ("dataset", "solver", "variant", "repeat", "fold", "grid_point")
            if c in df.columns
        ]
        df = df.sort_values(sort, kind="stable").reset_index(drop=True)
        path = run_dir / RESULTS_FILE
        table = pa.Table.from_pandas(df, preserve_index=False)
        atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    return df


def results_current(run_dir: str | Path) -> bool:
    """Whether ``results.parquet`` was written after every task file there is (a resume that
    ran nothing need not consolidate again)."""
    run_dir = Path(run_dir)
    try:
        written = (run_dir / RESULTS_FILE).stat().st_mtime_ns
    except OSError:
        return False
    newest = max((int(sig.split(":")[1]) for sig in row_index.scan(run_dir).values()), default=0)
    return written >= newest


def _stray_files(rows: row_index.Rows, keys: set) -> list[str]:
    """Stems of the task files none of whose tasks is one of ``keys``."""
    pairs = row_index.task_files(rows)
    mine = {stem for key, stem in pairs if key in keys}
    stray = {stem for _, stem in pairs} - mine
    stray |= {stem for stem in rows.unreadable if stem not in keys}
    return sorted(stray)


def refresh_index(run_dir: str | Path, stems=None) -> None:
    """Add task files to the index, so a killed run's resume reads only the files written
    since the last refresh (the runner calls this every
    :data:`svmlab.runner.execute.INDEX_EVERY` seconds).

    With ``stems`` (the files written since the last refresh) only those are read, and
    written as one new part per row schema: a refresh costs the new rows, not the run's.
    Without, the whole index is brought up to date and compacted.
    """
    run_dir = Path(run_dir)
    if stems is None:
        row_index.save_index(run_dir, row_index.collect(run_dir))
        return
    row_index.add_parts(run_dir, stems, time.time_ns())


def prepare_run_dir(run_dir: str | Path, identity: dict, config_yaml: str) -> bool:
    """Create (or reopen for resuming) a run directory and lock it; True when resuming.

    The lock (:func:`svmlab.runner.lock.acquire`) is taken before anything in the
    directory is touched, and stays with this process (release it with
    :func:`svmlab.runner.lock.release`); temporaries left by a killed writer are removed
    only under it.

    Raises
    ------
    ResultsError
        When the directory is not writable, is in use by another run, holds results but
        no ``run.json`` (it cannot be told to be a run of this experiment), or holds a run
        of a different experiment or configuration (its ``run.json`` identity differs).
    """
    run_dir = Path(run_dir)
    try:
        run_dir.mkdir(parents=True, exist_ok=True)  # tasks/ is made under the lock
        probe = run_dir / f".write-test-{uuid.uuid4().hex}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ResultsError(
            f"results directory {run_dir} is not writable ({exc.strerror or exc}); set "
            "results_dir=... to another place"
        ) from None
    taken = lock.acquire(run_dir)
    try:
        resumed = _check_identity(run_dir, identity)
    except ResultsError:
        if taken:
            lock.release(run_dir)
        raise
    for stale in [  # left by a killed writer; no other run writes here (we hold the lock)
        *(run_dir / TASKS_DIR).glob(".*.tmp"),
        *(run_dir / INDEX_DIR).glob(".*.tmp"),
        *run_dir.glob(".*.tmp"),
    ]:
        stale.unlink(missing_ok=True)
    try:
        (run_dir / TASKS_DIR).mkdir(exist_ok=True)
        if not resumed:
            atomic_write(
                run_dir / RUN_FILE,
                lambda tmp: tmp.write_text(json.dumps(identity, indent=2, sort_keys=True)),
            )
            atomic_write(run_dir / CONFIG_FILE, lambda tmp: tmp.write_text(config_yaml))
    except OSError as exc:  # e.g. a disk already full: a new run leaves nothing behind
        _cannot_start(run_dir, exc, new_run=not resumed, taken=taken)
    return resumed


def _cannot_start(run_dir: Path, exc: OSError, *, new_run: bool, taken: bool) -> None:
    """Remove what a new run wrote into ``run_dir`` (run.json, config.yaml, an empty tasks/),
    release its lock, and raise one line naming the directory and the OS's reason."""
    if new_run:
        for name in (RUN_FILE, CONFIG_FILE):
            (run_dir / name).unlink(missing_ok=True)
        try:
            (run_dir / TASKS_DIR).rmdir()
        except OSError:  # absent, or not empty
            pass
    if taken:
        lock.release(run_dir)
    reason = os.strerror(exc.errno) if exc.errno else str(exc)
    raise ResultsError(
        f"cannot start the run in results directory {run_dir} ({reason}); free space (or set "
        "results_dir=... to another place) and run again"
    ) from None


def _check_identity(run_dir: Path, identity: dict) -> bool:
    """Whether ``run_dir`` holds a run to resume; raises when it holds another one."""
    run_file = run_dir / RUN_FILE
    if not run_file.exists():
        if (run_dir / RESULTS_FILE).exists() or row_index.scan(run_dir):
            raise ResultsError(
                f"results directory {run_dir} holds results but no {RUN_FILE}, so whether they "
                f"come from experiment {identity.get('experiment')!r} with this configuration "
                "cannot be checked (resuming could mix results); choose another run_id"
            )
        return False
    try:
        stored = json.loads(run_file.read_text())
    except ValueError:
        raise ResultsError(
            f"{run_file} is corrupted; remove the directory or choose another run_id"
        ) from None
    if stored.get("experiment") != identity.get("experiment"):
        raise ResultsError(
            f"results directory {run_dir} belongs to experiment {stored.get('experiment')!r}, "
            f"not {identity.get('experiment')!r}; choose another run_id"
        )
    if stored.get("fingerprint") != identity.get("fingerprint"):
        changed = sorted(
            k
            for k in set(stored.get("parts", {})) | set(identity.get("parts", {}))
            if stored.get("parts", {}).get(k) != identity.get("parts", {}).get(k)
        )
        raise ResultsError(
            f"results directory {run_dir} holds a run of {identity.get('experiment')!r} with a "
            f"different configuration (changed: {', '.join(changed) or 'unknown'}); resuming it "
            "would mix results - choose another run_id"
        )
    return True
