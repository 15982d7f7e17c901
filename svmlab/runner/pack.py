"""A run directory packed for keeping: its finished tasks' rows in one file per row schema.

A long run writes one small file per task (or per group commit) into ``tasks/``: thousands
of files, each mostly Parquet metadata. :func:`pack` writes a copy of the run that holds the
same trusted rows in one ``batch-<digest>.parquet`` per row schema, next to the run's
``run.json`` and ``config.yaml``. The copy is itself a run directory: the trust check
accepts its batch files (their names are made from the task keys they hold), a report reads
it as it read the original, and the same experiment resumes from it. It is what a study
that has to go on in a later sitting, on another machine or from a fresh clone, keeps in
version control (``docs/reproductions/runs/``).

Layout of the copy::

    DEST/<experiment>/<run id>/
      run.json  config.yaml
      tasks/batch-<digest>.parquet    one per row schema
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from svmlab.errors import ResultsError
from svmlab.runner import lock, row_index
from svmlab.runner.files import (
    INDEX_DIR,
    RESULTS_FILE,
    RUN_FILE,
    SUFFIX,
    TASKS_DIR,
    atomic_write,
    batch_stem,
    task_file,
)

__all__ = ["pack", "packed_dir"]

#: The run's own files copied beside the packed task rows.
KEPT_FILES = (RUN_FILE, "config.yaml")


def packed_dir(run_dir: str | Path, into: str | Path) -> Path:
    """Where :func:`pack` puts ``run_dir`` under ``into``: ``into/<experiment>/<run id>``,
    the experiment read from the run's ``run.json`` and the run id being the directory's
    name."""
    run_dir = Path(run_dir)
    try:
        experiment = json.loads((run_dir / RUN_FILE).read_text())["experiment"]
    except FileNotFoundError:
        raise ResultsError(f"{run_dir} is not a run directory: it has no {RUN_FILE}") from None
    except (ValueError, KeyError, TypeError):
        raise ResultsError(f"{run_dir / RUN_FILE} does not name its experiment") from None
    return Path(into) / str(experiment) / run_dir.resolve().name


def pack(run_dir: str | Path, into: str | Path) -> tuple[Path, int, int]:
    """Write the packed copy of ``run_dir`` to :func:`packed_dir` under ``into``.

    Parameters
    ----------
    run_dir : path
        A run directory (with ``run.json``). A run may still be writing to it: the copy
        holds the tasks finished when it was read.
    into : path
        The folder of packed runs. A packed copy already there is replaced: its task files
        are rewritten and any other file in its ``tasks/`` is removed, as are a stale
        ``results.parquet`` and row index (a report or resume makes them again).

    Returns
    -------
    dest : Path
        The packed run directory.
    n_tasks : int
        Finished tasks (of any status) whose rows it holds.
    n_files : int
        Task files written (one per row schema).

    Raises
    ------
    ResultsError
        When ``run_dir`` is not a run directory, when the copy would be ``run_dir`` itself
        or lie inside it, or when a run is using the destination.
    """
    run_dir = Path(run_dir)
    dest = packed_dir(run_dir, into)
    src, out = run_dir.resolve(), dest.resolve()
    if out == src or src in out.parents:
        raise ResultsError(f"cannot pack {run_dir} into itself ({dest}): choose another folder")
    busy = lock.in_use(dest) if dest.is_dir() else None
    if busy:
        raise ResultsError(f"cannot pack into {dest}: {busy}")
    rows = row_index.collect(run_dir)
    for stem, reason in sorted({**rows.unreadable, **rows.untrusted}.items()):
        row_index.note(f"task file {task_file(run_dir, stem)} left out of the pack ({reason})")
    tables = _chosen_rows(rows)
    (dest / TASKS_DIR).mkdir(parents=True, exist_ok=True)
    written = set()
    n_tasks = 0
    for table in tables:
        keys = _distinct_in_order(table["key"])
        n_tasks += len(keys)
        stem = batch_stem(keys)
        atomic_write(task_file(dest, stem), lambda tmp, t=table: pq.write_table(t, tmp))
        written.add(stem + SUFFIX)
    for name in KEPT_FILES:
        if (run_dir / name).is_file():
            data = (run_dir / name).read_bytes()
            atomic_write(dest / name, lambda tmp, d=data: tmp.write_bytes(d))
    for old in (dest / TASKS_DIR).iterdir():
        if old.name not in written:
            old.unlink()
    (dest / RESULTS_FILE).unlink(missing_ok=True)
    shutil.rmtree(dest / INDEX_DIR, ignore_errors=True)
    return dest, n_tasks, len(written)


def _chosen_rows(rows: row_index.Rows) -> list[pa.Table]:
    """One table per row schema: the rows of each task's chosen version (the one a report
    reads), tasks in key order and each task's rows in file order, without the index's
    columns. Rows that carry no ``key`` column (written by hand) get their task's key."""
    versions, several = row_index.chosen_versions(rows)
    chosen = None
    if several:
        chosen = pc.binary_join_element_wise(
            versions[row_index._TASK], versions[row_index._FILE], "|"
        ).combine_chunks()
    out = []
    for table in rows.groups.values():
        if chosen is not None:
            ids = pc.binary_join_element_wise(table[row_index._TASK], table[row_index._FILE], "|")
            table = table.filter(pc.is_in(ids, value_set=chosen))
        if not table.num_rows:
            continue
        table = table.sort_by([(row_index._TASK, "ascending"), (row_index._ROW, "ascending")])
        if "key" not in table.column_names:
            table = table.append_column("key", table[row_index._TASK])
        out.append(table.drop_columns(list(row_index.TAGS)))
    return out


def _distinct_in_order(keys: pa.ChunkedArray) -> list[str]:
    return list(dict.fromkeys(keys.to_pylist()))
