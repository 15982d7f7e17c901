"""Names and durable writes of a run directory's files.

A finished task's rows are in ``tasks/`` in one of two forms:

* ``<key>.parquet``: the rows of one task, ``key`` being the task's key;
* ``batch-<digest>.parquet``: the rows of several tasks written together (a group commit:
  :func:`svmlab.runner.store.write_batch`); ``digest`` is :func:`batch_digest` of the task
  keys in the order their rows appear, so a file's name says which tasks it holds.

Either name is checked against the keys in the rows before a resume trusts the file
(:mod:`svmlab.runner.row_index`).
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Iterable
from pathlib import Path

TASKS_DIR = "tasks"
RESULTS_FILE = "results.parquet"
RUN_FILE = "run.json"
CONFIG_FILE = "config.yaml"
INDEX_DIR = ".tasks-index"
SUFFIX = ".parquet"
BATCH_PREFIX = "batch-"


def batch_digest(keys: Iterable[str]) -> str:
    """The name part of a batch file holding the rows of ``keys`` (in row order)."""
    return hashlib.sha1("\n".join(keys).encode()).hexdigest()[:20]


def batch_stem(keys: Iterable[str]) -> str:
    """File name, without ``.parquet``, of the batch file of ``keys`` (in row order)."""
    return BATCH_PREFIX + batch_digest(keys)


def task_file(run_dir: str | Path, stem: str) -> Path:
    """Path of the task file named ``stem`` (a task key or a batch stem)."""
    return Path(run_dir) / TASKS_DIR / f"{stem}{SUFFIX}"


def fsync_dir(directory: Path) -> None:
    """Make a rename in ``directory`` durable (where the file system allows it)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:  # some file systems cannot fsync a directory
        pass
    finally:
        os.close(fd)


def atomic_write(path: Path, write) -> None:
    """Call ``write(tmp_path)``, fsync, rename over ``path`` (same directory), fsync the
    directory: a reader sees the old file or the whole new one, and after a crash the new
    one is there once this returned."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        fsync_dir(path.parent)
    finally:
        if tmp.exists():
            tmp.unlink()
