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

    INTO/<experiment>/<run directory's name>/
      run.json  config.yaml
      packed.json                     what was packed, from where, when; the files written
      tasks/batch-<digest>.parquet    one per row schema

A run of a Hydra sweep (a numbered folder beside the sweep's ``multirun.yaml``) keeps its
place in the sweep: ``INTO/<experiment>/<sweep folder's name>/<n>/``, with the
``multirun.yaml`` beside it, so that the kept sweep reads and resumes as the original did.
:func:`runs_in` turns a sweep folder into its runs.

A copy holds every trusted task of the run directory. Tasks that belong to no task of the
run's current plan (a configuration changed since) are in it too, where the original's
``results.parquet`` leaves them out; a resume or ``svmlab reproduce`` consolidates with the
plan's keys and leaves them out again.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import shutil
import uuid
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq

from svmlab.errors import ResultsError
from svmlab.runner import lock, row_index
from svmlab.runner.files import (
    BATCH_PREFIX,
    CONFIG_FILE,
    RUN_FILE,
    SUFFIX,
    TASKS_DIR,
    atomic_write,
    batch_stem,
    fsync_dir,
    task_file,
)

__all__ = ["PACKED_FILE", "check_destinations", "pack", "packed_dir", "runs_in"]

#: The file that marks a directory as a packed copy (and lists the task files written).
PACKED_FILE = "packed.json"
#: Hydra's record of a sweep, in the folder that holds the sweep's runs (``0/``, ``1/``, ...).
SWEEP_FILE = "multirun.yaml"
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]*")


def runs_in(path: str | Path) -> list[Path]:
    """The runs a RUN_DIR argument names: the run itself, or each run of the sweep folder
    ``path`` (a folder with Hydra's ``multirun.yaml`` and no ``run.json``), in job order."""
    path = Path(path)
    if (path / RUN_FILE).exists() or not (path / SWEEP_FILE).is_file():
        return [path]
    members = [p.parent for p in path.glob(f"*/{RUN_FILE}")]
    return sorted(members, key=lambda p: (len(p.name), p.name)) or [path]


def _sweep_of(run_dir: Path) -> Path | None:
    """The sweep folder ``run_dir`` is a run of, or None."""
    parent = run_dir.resolve().parent
    return parent if (parent / SWEEP_FILE).is_file() else None


def packed_dir(run_dir: str | Path, into: str | Path) -> Path:
    """Where :func:`pack` puts ``run_dir``: ``into/<experiment>/<name of run_dir>``, or
    ``into/<experiment>/<sweep folder's name>/<name of run_dir>`` for a run of a sweep.

    Parameters
    ----------
    run_dir : path
        A run directory; its experiment is read from its ``run.json``.
    into : path
        The folder of packed runs.

    Returns
    -------
    Path

    Raises
    ------
    ResultsError
        When ``run_dir`` is no run directory, or its ``run.json`` names no experiment that
        can be a folder name.
    """
    run_dir = Path(run_dir)
    if not run_dir.is_dir():
        raise ResultsError(f"{run_dir} is not a run directory: no such directory")
    try:
        identity = json.loads((run_dir / RUN_FILE).read_text())
    except FileNotFoundError:
        raise ResultsError(f"{run_dir} is not a run directory: it has no {RUN_FILE}") from None
    except OSError as exc:
        raise ResultsError(f"cannot read {run_dir / RUN_FILE}: {exc.strerror or exc}") from None
    except ValueError:
        raise ResultsError(f"{run_dir / RUN_FILE} is not JSON") from None
    experiment = identity.get("experiment") if isinstance(identity, dict) else None
    if not isinstance(experiment, str) or not _NAME.fullmatch(experiment):
        raise ResultsError(
            f"{run_dir / RUN_FILE} names no usable experiment ({experiment!r}); expected a "
            "name of letters, digits, '_', '.' and '-'"
        )
    sweep = _sweep_of(run_dir)
    place = Path(sweep.name) / run_dir.resolve().name if sweep else run_dir.resolve().name
    return Path(into) / experiment / place


def check_destinations(run_dirs, into: str | Path, *, replace: bool = False) -> list[Path]:
    """The destination of each of ``run_dirs`` under ``into``, after every refusal of
    :func:`pack`, so that a command packing several runs writes nothing when one of them
    cannot be packed. With ``replace`` false, a kept copy holding tasks its run lacks is
    refused too (this reads the run's rows; :func:`pack` checks again while it writes).

    Raises
    ------
    ResultsError
        One line: a run is not a run directory, two runs would share a destination, a
        destination lies inside its run (or is it), a destination is not a packed copy
        that may be replaced (:func:`_check_replaceable`), or (without ``replace``) its
        copy holds tasks the run lacks.
    """
    seen: dict[Path, Path] = {}
    out = []
    for run_dir in run_dirs:
        run_dir = Path(run_dir)
        dest = packed_dir(run_dir, into)
        src, target = run_dir.resolve(), dest.resolve()
        if target == src or src in target.parents or target in src.parents:
            raise ResultsError(
                f"cannot pack {run_dir} into itself or a folder holding it ({dest}): choose "
                "another folder"
            )
        if target in seen:
            raise ResultsError(
                f"{seen[target]} and {run_dir} would both be packed to {dest}: pack them "
                "into different folders"
            )
        seen[target] = run_dir
        _check_replaceable(dest)
        if not replace and (dest / PACKED_FILE).is_file():
            _check_nothing_lost(run_dir, dest, _run_keys(run_dir))
        out.append(dest)
    return out


def _run_keys(run_dir: Path) -> set[str]:
    """The keys of the tasks whose rows a pack of ``run_dir`` would hold."""
    try:
        return set(row_index.statuses(row_index.collect(run_dir)))
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise ResultsError(f"cannot pack {run_dir}{where}: {exc.strerror or exc}") from None


def _check_nothing_lost(run_dir: Path, dest: Path, keys: set[str]) -> None:
    """Refuse to replace a packed copy at ``dest`` that holds tasks missing from ``keys``."""
    lost = _kept_keys(dest) - keys
    if lost:
        raise ResultsError(
            f"cannot pack {run_dir} into {dest}: the packed copy there holds "
            f"{len(lost)} task(s) this run has not finished (e.g. {min(lost)}); resume "
            "the run from a copy of it first, or pass --replace to drop them"
        )


def _check_replaceable(dest: Path) -> None:
    """Refuse a destination that exists and is not a packed copy left as it was written: a
    run's own directory, or a packed copy a run has since resumed in (task files it does not
    list, or listed files rewritten), would lose finished tasks. A destination missing while
    an earlier copy lies renamed beside it (a pack stopped mid-swap) is refused too."""
    try:
        if not dest.exists():
            aside = (
                sorted(dest.parent.glob(f".{dest.name}.replaced-*")) if dest.parent.is_dir() else []
            )
            if aside:
                raise ResultsError(
                    f"cannot pack into {dest}: an earlier packed copy was left at {aside[0]} by "
                    f"a pack that stopped; rename it back to {dest.name} first"
                )
            return
        if not dest.is_dir():
            raise ResultsError(f"cannot pack into {dest}: it is a file")
        busy = lock.in_use(dest)
        if busy:
            raise ResultsError(f"cannot pack into {dest}: {busy}")
        entries = [p.name for p in dest.iterdir() if p.name != lock.LOCK_FILE]
        if not entries:
            return
        listed = _listed_files(dest)
        tasks = dest / TASKS_DIR
        present = {
            p.name: p
            for p in (tasks.iterdir() if tasks.is_dir() else ())
            if p.name.endswith(SUFFIX) and not p.name.startswith(".")
        }
    except OSError as exc:
        raise ResultsError(f"cannot pack into {dest}: {exc.strerror or exc}") from None
    changed = sorted(name for name, path in present.items() if listed.get(name) != _sha256(path))
    if changed:
        raise ResultsError(
            f"cannot pack into {dest}: a run has written to this packed copy since it was "
            f"packed ({len(changed)} task file(s), e.g. {changed[0]}); pack that run into "
            "another folder, or remove it first"
        )


def _listed_files(dest: Path) -> dict[str, str]:
    """``{task file name: sha256}`` that the packed copy ``dest`` was written with."""
    try:
        files = json.loads((dest / PACKED_FILE).read_text())["files"]
        if not isinstance(files, dict):
            raise TypeError
        return files
    except (OSError, ValueError, KeyError, TypeError):
        raise ResultsError(
            f"cannot pack into {dest}: it is not a packed copy (no readable {PACKED_FILE}), and "
            "replacing it could lose a run's tasks; pack into another folder"
        ) from None


def _sha256(path: Path) -> str:
    """The sha256 hex digest of a file's bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _kept_keys(dest: Path) -> set[str]:
    """The task keys of the packed copy at ``dest`` (none when there is no copy)."""
    if not (dest / PACKED_FILE).is_file():
        return set()
    keys: set[str] = set()
    for name in _listed_files(dest):
        path = task_file(dest, name[: -len(SUFFIX)])
        if name.startswith(BATCH_PREFIX):
            keys.update(pq.read_table(path, columns=["key"])["key"].to_pylist())
        else:
            keys.add(name[: -len(SUFFIX)])
    return keys


def pack(run_dir: str | Path, into: str | Path, *, replace: bool = False) -> tuple[Path, int, int]:
    """Write the packed copy of ``run_dir`` to :func:`packed_dir` under ``into``.

    Parameters
    ----------
    run_dir : path
        A run directory (with ``run.json``), perhaps one run of a sweep
        (:func:`packed_dir`). A run may still be writing to it: the copy holds the tasks
        finished when it was read.
    into : path
        The folder of packed runs. An earlier packed copy there is replaced whole (the new
        copy is written beside it and swapped in, under the destination's run lock); any
        other existing directory is refused.
    replace : bool
        Replace an earlier packed copy even when it holds tasks the run has not finished
        (a copy of another run of the experiment); by default that is refused, so a fresh
        run packed by mistake over a kept one loses nothing.

    Returns
    -------
    dest : Path
        The packed run directory.
    n_tasks : int
        Finished tasks (of any status) whose rows it holds.
    n_files : int
        Task files written: one per row schema, plus one per task whose rows carry no
        ``key`` column (rows written by hand keep their ``<key>.parquet`` name).

    Raises
    ------
    ResultsError
        The refusals of :func:`check_destinations`, an earlier copy with tasks the run lacks
        (without ``replace``), or a file that cannot be read or written (one line naming it
        and the system's reason).
    """
    # the lost-task refusal is made once, below, on the rows as written under the lock
    (dest,) = check_destinations([run_dir], into, replace=True)
    run_dir = Path(run_dir)
    new = dest.parent / f".{dest.name}.packing-{uuid.uuid4().hex[:8]}"
    try:
        dest.mkdir(parents=True, exist_ok=True)  # a place to lock, so no run starts in it
        with lock.run_lock(dest):
            _check_replaceable(dest)  # again, under the lock
            for stale in dest.parent.glob(f".{dest.name}.*"):  # a stopped pack's leftovers
                shutil.rmtree(stale, ignore_errors=True)
            rows = row_index.collect(run_dir)
            for stem, reason in sorted({**rows.unreadable, **rows.untrusted}.items()):
                row_index.note(
                    f"task file {task_file(run_dir, stem)} left out of the pack ({reason})"
                )
            (new / TASKS_DIR).mkdir(parents=True)
            written, keys = _write_tasks(new, rows)
            if not replace:  # again, as written under the lock
                _check_nothing_lost(run_dir, dest, keys)
            _write_run_files(run_dir, new, written, keys)
            _swap_in(new, dest)
            sweep = _sweep_of(run_dir)
            if sweep is not None:  # the kept sweep is a sweep folder too
                data = (sweep / SWEEP_FILE).read_bytes()
                atomic_write(dest.parent / SWEEP_FILE, lambda tmp: tmp.write_bytes(data))
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        raise ResultsError(
            f"cannot pack {run_dir} into {dest}{where}: {exc.strerror or exc}"
        ) from None
    finally:  # an incomplete copy never stays (a stop signal included)
        shutil.rmtree(new, ignore_errors=True)
        try:
            dest.rmdir()  # only if the pack made it and wrote nothing into it
        except OSError:
            pass
    return dest, len(keys), len(written)


def _write_tasks(dest: Path, rows: row_index.Rows) -> tuple[list[str], set[str]]:
    """Write the chosen rows (:func:`svmlab.runner.row_index.chosen_tables`) into
    ``dest/tasks``: one batch file per row schema, tasks in key order and each task's rows
    in file order; returns the file names and the task keys."""
    written, all_keys = [], set()
    for table in row_index.chosen_tables(rows):
        table = table.sort_by([(row_index.TASK, "ascending"), (row_index.ROW, "ascending")])
        task = table[row_index.TASK]
        table = table.drop_columns(list(row_index.TAGS))
        if "key" in table.column_names:
            keys = row_index.distinct_in_order(table["key"].to_pylist())
            files = [(batch_stem(keys), table)]
        else:  # rows written by hand: each task keeps its own file, read back as before
            keys = row_index.distinct_in_order(task.to_pylist())
            files = [(key, table.filter(pc.equal(task, key))) for key in keys]
        all_keys.update(keys)
        for stem, part in files:
            atomic_write(task_file(dest, stem), lambda tmp, t=part: pq.write_table(t, tmp))
            written.append(stem + SUFFIX)
    return written, all_keys


def _write_run_files(run_dir: Path, new: Path, written: list[str], keys: set[str]) -> None:
    """Copy the run's ``run.json`` and ``config.yaml`` into the new copy and write its
    ``packed.json``: where from, when, how many tasks, the task files and their sha256."""
    for name in (RUN_FILE, CONFIG_FILE):
        if (run_dir / name).is_file():
            data = (run_dir / name).read_bytes()
            atomic_write(new / name, lambda tmp, d=data: tmp.write_bytes(d))
    record = {
        "packed_from": str(run_dir.resolve()),
        "packed_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "tasks": len(keys),
        "files": {name: _sha256(new / TASKS_DIR / name) for name in sorted(written)},
    }
    atomic_write(new / PACKED_FILE, lambda tmp: tmp.write_text(json.dumps(record, indent=2)))


def _swap_in(new: Path, dest: Path) -> None:
    """Put the directory ``new`` in the place of ``dest`` (an earlier packed copy, or the
    empty directory locked for the pack): the old one is renamed aside first, put back if
    the new one cannot take its place, and removed once it has."""
    old = dest.parent / f".{dest.name}.replaced-{uuid.uuid4().hex[:8]}"
    os.replace(dest, old)
    try:
        os.replace(new, dest)
    except BaseException:
        os.replace(old, dest)
        raise
    fsync_dir(dest.parent)
    shutil.rmtree(old, ignore_errors=True)
