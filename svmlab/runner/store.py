"""The Parquet results store: one file per task, written atomically.

Layout of a run directory::

    RUN_DIR/
      run.json            experiment name, run id, config fingerprint (guards resumes)
      config.yaml         the resolved configuration
      tasks/<key>.parquet one file per finished task (one row; several for tuning.mode=outer_best)
      results.parquet     all task rows, consolidated after each run
      .svmlab.lock        pid and host of the run using the directory (:mod:`svmlab.runner.lock`)
      .tasks-index/       the task files' rows gathered, one file per row schema (and
                          parts <schema>+<n>.parquet added while a run goes on)

The task files are the source of truth. ``.tasks-index/`` only saves reading thousands of
small files on every resume and consolidation: each of its rows carries its task file's
key and signature (size, mtime, ctime, inode), and is used only while a task file with
that key and signature exists; anything else is read from ``tasks/`` again (one
``os.scandir`` finds what is new). Rows of different schemas (an error row, a multiclass
row...) are kept apart so that the consolidated table is exactly the one reading each
task file and concatenating them gives. While tasks finish, the runner adds their rows as
new parts (:func:`refresh_index`), so its memory and time per refresh follow the tasks
finished since the last one, not the run's size; a resume or consolidation folds the
parts into one file per schema.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from svmlab.errors import ResultsError
from svmlab.runner import lock

TASKS_DIR = "tasks"
RESULTS_FILE = "results.parquet"
RUN_FILE = "run.json"
INDEX_DIR = ".tasks-index"
_KEY, _SIG, _ROW = "__svmlab_key__", "__svmlab_file__", "__svmlab_row__"
_PART = "+"  # <schema id>+<n>.parquet: rows added to the index while a run goes on
_SUFFIX = ".parquet"


def _fsync_dir(directory: Path) -> None:
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


def _atomic_write(path: Path, write) -> None:
    """Call ``write(tmp_path)``, fsync, rename over ``path`` (same directory), fsync the
    directory."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        _fsync_dir(path.parent)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_task_rows(run_dir: str | Path, key: str, rows: list[dict]) -> Path:
    """Write one task's result rows to ``tasks/<key>.parquet`` atomically."""
    path = Path(run_dir) / TASKS_DIR / f"{key}{_SUFFIX}"
    table = pa.Table.from_pylist(rows)
    _atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    return path


def _note(message: str) -> None:
    print(f"svmlab: note: {message}", file=sys.stderr)


def _signature(st: os.stat_result) -> str:
    """What tells two versions of a task file apart (a rewrite is a new inode and ctime)."""
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


def _scan(run_dir: Path) -> dict[str, str]:
    """``{key: signature}`` of the task files (one ``os.scandir``; temporaries skipped)."""
    out = {}
    try:
        entries = os.scandir(run_dir / TASKS_DIR)
    except FileNotFoundError:
        return out
    with entries:
        for entry in entries:
            name = entry.name
            if name.startswith(".") or not name.endswith(_SUFFIX):
                continue
            try:
                if entry.is_file():
                    out[name[: -len(_SUFFIX)]] = _signature(entry.stat())
            except OSError:  # vanished meanwhile
                continue
    return out


def _schema_id(schema: pa.Schema) -> str:
    return hashlib.sha1(schema.serialize().to_pybytes()).hexdigest()[:16]


def _read_task_file(path: Path) -> tuple[pa.Table, str]:
    """A task file's rows and the signature of exactly the version read."""
    with open(path, "rb") as fh:
        data = fh.read()
        sig = _signature(os.fstat(fh.fileno()))
    # ParquetFile.read skips the dataset layer of pq.read_table: 3x faster on small files
    return pq.ParquetFile(pa.BufferReader(data)).read(use_threads=False), sig


def _read_task_files(run_dir: Path, keys: list[str]):
    """``(key, table, sig)`` of each task file, or ``(key, exception, None)``.

    One by one: the cost is each file's footer (~1-3 ms for a 60-column row); threads
    or a pyarrow dataset scan did not read faster on 2 cores, the index is what saves it.
    """
    for key in keys:
        try:
            yield (key, *_read_task_file(run_dir / TASKS_DIR / f"{key}{_SUFFIX}"))
        except Exception as exc:  # noqa: BLE001 - reported by the caller
            yield key, exc, None


class _Rows:
    """The rows of a run's readable task files, grouped by row schema.

    Attributes
    ----------
    groups : dict
        ``{schema id: table}``; each table holds the task rows with their schema plus the
        columns ``_KEY``, ``_SIG`` and ``_ROW`` (row number within its task file).
    unreadable : dict
        ``{key: reason}`` of task files that could not be read.
    changed : set
        Schema ids whose table differs from the one stored in the index.
    files : dict
        ``{key: signature}`` of the task files found.
    """

    def __init__(self) -> None:
        self.groups: dict[str, pa.Table] = {}
        self.unreadable: dict[str, str] = {}
        self.changed: set[str] = set()
        self.files: dict[str, str] = {}
        self.parts: set[str] = set()


def _read_index_file(path: Path, columns) -> pa.Table:
    """An index file's rows: all columns, or those of ``columns`` it has."""
    if columns is None:
        return pq.read_table(path)
    pf = pq.ParquetFile(path)
    return pf.read(columns=[c for c in columns if c in pf.schema_arrow.names], use_threads=False)


def _index_files(index: Path) -> list[tuple[str, Path]]:
    """``(schema id, path)`` of the index files: each schema's compacted file first, then
    the parts added while a run went on (``<sid>+<n>.parquet``, in the order written)."""
    out = []
    for path in index.glob(f"*{_SUFFIX}"):
        if path.name.startswith("."):
            continue
        sid, part, n = path.name[: -len(_SUFFIX)].partition(_PART)
        out.append((bool(part), n.zfill(20), sid, path))
    return [(sid, path) for *_, sid, path in sorted(out)]


def _load_index(run_dir: Path, files: dict[str, str], rows: _Rows, columns=None) -> set[str]:
    """Put the index's still valid rows (their ``columns`` only, if given) into ``rows``; the
    keys they cover.

    A row is valid while the task file it was read from (its key and signature) is there.
    A part whose rows the compacted file also holds (a compaction interrupted before it
    removed the parts) gives each task's rows once.
    """
    index = run_dir / INDEX_DIR
    if not index.is_dir():
        return set()
    wanted = pa.array([f"{k}|{s}" for k, s in files.items()], pa.string())
    covered: set[str] = set()
    parts: dict[str, list[pa.Table]] = {}
    for sid, path in _index_files(index):
        if _PART in path.name:
            rows.parts.add(sid)
        try:
            table = _read_index_file(path, columns)
            ids = pc.binary_join_element_wise(table[_KEY], table[_SIG], "|")
        except Exception as exc:  # noqa: BLE001 - any damage: rebuild from the task files
            _note(
                f"{path} cannot be read ({type(exc).__name__}); its rows are read from "
                f"{run_dir / TASKS_DIR} again"
            )
            rows.changed.add(sid)
            continue
        valid = pc.is_in(ids, value_set=wanted)
        if sid in parts:  # a part: rows the schema's earlier files hold are not taken twice
            seen = pa.chunked_array([t[_KEY] for t in parts[sid]]).combine_chunks()
            valid = pc.and_(valid, pc.invert(pc.is_in(table[_KEY], value_set=seen)))
        if not pc.all(valid).as_py():
            table = table.filter(valid)
            rows.changed.add(sid)
        if table.num_rows:
            parts.setdefault(sid, []).append(table)
            covered.update(pc.unique(table[_KEY]).to_pylist())
    for sid, tables in parts.items():
        rows.groups[sid] = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
    return covered


def _collect(run_dir: Path, keys=None, *, index: bool = True) -> _Rows:
    """The rows of every readable task file: index rows still valid, plus the task files
    that are new or changed since the index was written (read one by one)."""
    files = _scan(run_dir)
    rows = _Rows()
    rows.files = files
    covered = _load_index(run_dir, files, rows) if index else set()
    return _add_fresh(run_dir, files, covered, rows, keys)


def _collect_from_index(run_dir: Path, columns: list[str]) -> _Rows | None:
    """The ``columns`` of every task file's rows when the index is up to date (no task file
    new, rewritten or removed since it was saved), else None.

    What a resume needs (keys and statuses) is a few of the rows' columns: reading only
    those keeps a resume of 100,000 finished tasks at seconds and tens of megabytes.
    """
    files = _scan(run_dir)
    rows = _Rows()
    rows.files = files
    covered = _load_index(run_dir, files, rows, columns)
    if rows.changed or len(covered) != len(files):
        return None
    return rows


def _add_fresh(run_dir: Path, files: dict, covered: set, rows: _Rows, keys) -> _Rows:
    """Read the task files the index does not cover into ``rows``."""
    fresh: dict[str, list[pa.Table]] = {}
    for key, table, sig in _read_task_files(run_dir, sorted(set(files) - covered)):
        if isinstance(table, FileNotFoundError):  # removed meanwhile
            continue
        if isinstance(table, Exception):  # a damaged file is redone, not fatal
            if keys is None or key in keys:
                why = str(table).splitlines()[0][:120] if str(table) else ""
                rows.unreadable[key] = f"{type(table).__name__}: {why}".rstrip(": ")
            continue
        if not table.num_rows:
            continue
        fresh.setdefault(_schema_id(table.schema), []).append(_tagged(table, key, sig))
    for sid, tables in fresh.items():
        old = [rows.groups[sid]] if sid in rows.groups else []
        rows.groups[sid] = pa.concat_tables(old + tables).combine_chunks()
        rows.changed.add(sid)
    return rows


def _save_index(run_dir: Path, rows: _Rows) -> None:
    """Write the index files of the groups that changed, each as one compacted file (its
    parts removed after it is written); best effort: it is only a cache."""
    if not rows.changed and not rows.parts:
        return
    index = run_dir / INDEX_DIR
    try:
        index.mkdir(exist_ok=True)
        for sid in rows.changed | rows.parts:
            path = index / f"{sid}{_SUFFIX}"
            if sid in rows.groups:
                table = rows.groups[sid]
                _atomic_write(path, lambda tmp, t=table: pq.write_table(t, tmp))
            else:
                path.unlink(missing_ok=True)
            for part in index.glob(f"{sid}{_PART}*{_SUFFIX}"):
                part.unlink(missing_ok=True)
    except OSError as exc:
        _note(f"the index {index} could not be updated ({exc.strerror or exc})")


def refresh_index(run_dir: str | Path, keys=None) -> None:
    """Add task files to the index, so a killed run's resume reads only the files written
    since the last refresh (the runner calls this every
    :data:`svmlab.runner.execute.INDEX_EVERY` seconds).

    With ``keys`` (the tasks finished since the last refresh) only their files are read,
    and written as one new part per row schema: a refresh costs the new rows, not the
    run's. Without, the whole index is brought up to date and compacted.
    """
    run_dir = Path(run_dir)
    if keys is None:
        _save_index(run_dir, _collect(run_dir))
        return
    groups: dict[str, list[pa.Table]] = {}
    for key, table, sig in _read_task_files(run_dir, sorted(set(keys))):
        if not isinstance(table, Exception) and table.num_rows:
            groups.setdefault(_schema_id(table.schema), []).append(_tagged(table, key, sig))
    index = run_dir / INDEX_DIR
    try:
        index.mkdir(exist_ok=True)
        for sid, tables in groups.items():
            table = pa.concat_tables(tables).combine_chunks()
            path = index / f"{sid}{_PART}{time.time_ns()}{_SUFFIX}"
            _atomic_write(path, lambda tmp, t=table: pq.write_table(t, tmp))
    except OSError as exc:
        _note(f"the index {index} could not be updated ({exc.strerror or exc})")


def _tagged(table: pa.Table, key: str, sig: str) -> pa.Table:
    """A task file's rows with the index's columns: its key, signature and row numbers."""
    n = table.num_rows
    return (
        table.append_column(_KEY, pa.array([key] * n, pa.string()))
        .append_column(_SIG, pa.array([sig] * n, pa.string()))
        .append_column(_ROW, pa.array(np.arange(n, dtype=np.int32)))
    )


def _report_unreadable(run_dir: Path, rows: _Rows, consequence: str) -> None:
    for key, reason in sorted(rows.unreadable.items()):
        path = run_dir / TASKS_DIR / f"{key}{_SUFFIX}"
        _note(f"task file {path} cannot be read ({reason}); {consequence}")


def finished_keys(run_dir: str | Path, keys=None) -> dict[str, str]:
    """``{key: status}`` of every readable task file of the run (of ``keys`` only, if given).

    The status is ``ok`` when all of the file's rows are ok, else its first row's status.
    A task file that cannot be read is named on stderr and left out, so its task is run
    again. Temporary files are ignored.
    """
    run_dir = Path(run_dir)
    keys = None if keys is None else set(keys)
    rows = _collect_from_index(run_dir, [_KEY, _SIG, "status"])
    if rows is None:  # task files the index does not cover yet: read them, then save it
        rows = _collect(run_dir, keys)
        _save_index(run_dir, rows)
        _report_unreadable(run_dir, rows, "the task will be run again")
    first: dict[str, str] = {}
    all_ok: dict[str, bool] = {}
    for table in rows.groups.values():  # a file's rows are contiguous, in file order
        names = table[_KEY].to_pylist()
        statuses = (
            table["status"].to_pylist() if "status" in table.column_names else [None] * len(names)
        )
        for key, status in zip(names, statuses, strict=True):
            if key not in first:
                first[key] = status or "error"
                all_ok[key] = status == "ok"
            elif status != "ok":
                all_ok[key] = False
    return {
        key: "ok" if all_ok[key] else status
        for key, status in first.items()
        if keys is None or key in keys
    }


def _frame(rows: _Rows, keys=None) -> pd.DataFrame:
    """The task rows as one table, exactly as concatenating the task files (read in file
    name order, each converted to pandas) would give it.

    ``rows`` is emptied on the way, so the Arrow and the pandas copies of 100,000 rows are
    not all held at once.
    """
    parts = []
    while rows.groups:
        _, table = rows.groups.popitem()
        if keys is not None:
            table = table.filter(pc.is_in(table[_KEY], value_set=pa.array(sorted(keys))))
        if table.num_rows:
            parts.append(table)
    if not parts:
        return pd.DataFrame()
    names = sorted({k + _SUFFIX for t in parts for k in pc.unique(t[_KEY]).to_pylist()})
    order = pa.array([n[: -len(_SUFFIX)] for n in names], pa.string())
    ranked = []
    for table in parts:
        rank = pc.index_in(table[_KEY], value_set=order).to_numpy()
        row = table[_ROW].to_numpy()
        ranked.append((int(rank.min()), rank, row, table.drop_columns([_KEY, _SIG, _ROW])))
    ranked.sort(key=lambda item: item[0])  # columns are unioned in order of first appearance
    rank = np.concatenate([r for _, r, _, _ in ranked])
    row = np.concatenate([w for _, _, w, _ in ranked])
    tables = [t for *_, t in ranked]
    del parts, ranked
    df = pd.concat([tables.pop(0).to_pandas() for _ in range(len(tables))], ignore_index=True)
    order = np.lexsort((row, rank))
    if np.array_equal(order, np.arange(len(order))):  # already in file order: no copy
        return df
    return df.take(order).reset_index(drop=True)


def read_task_rows(run_dir: str | Path, keys=None) -> pd.DataFrame:
    """All rows of all task files of a run (of ``keys`` only, if given); columns are
    unioned. Nothing is written: the index is used where valid. Unreadable task files
    are named on stderr and left out."""
    run_dir = Path(run_dir)
    keys = None if keys is None else set(keys)
    rows = _collect(run_dir, keys)
    _report_unreadable(run_dir, rows, "its rows are left out")
    return _frame(rows, keys)


def consolidate(run_dir: str | Path, postprocess=None, keys=None) -> pd.DataFrame:
    """Rebuild ``results.parquet`` from the task files (of the plan's ``keys`` only, if
    given: other files in ``tasks/`` are left out with a note); returns the table."""
    run_dir = Path(run_dir)
    keys = None if keys is None else set(keys)
    rows = _collect(run_dir, keys)
    _save_index(run_dir, rows)
    _report_unreadable(run_dir, rows, "its rows are left out of results.parquet")
    if keys is not None:
        stray = sorted(set(rows.files) - keys)
        if stray:
            _note(
                f"{len(stray)} file(s) in {run_dir / TASKS_DIR} are not tasks of this run "
                f"(e.g. {stray[0]}{_SUFFIX}); left out of {RESULTS_FILE}"
            )
    df = _frame(rows, keys)
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
        _atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    return df


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
            _atomic_write(
                run_dir / RUN_FILE,
                lambda tmp: tmp.write_text(json.dumps(identity, indent=2, sort_keys=True)),
            )
            _atomic_write(run_dir / "config.yaml", lambda tmp: tmp.write_text(config_yaml))
    except OSError as exc:  # e.g. a disk already full: a new run leaves nothing behind
        _cannot_start(run_dir, exc, new_run=not resumed, taken=taken)
    return resumed


def _cannot_start(run_dir: Path, exc: OSError, *, new_run: bool, taken: bool) -> None:
    """Remove what a new run wrote into ``run_dir`` (run.json, config.yaml, an empty tasks/),
    release its lock, and raise one line naming the directory and the OS's reason."""
    if new_run:
        for name in (RUN_FILE, "config.yaml"):
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
        if (run_dir / RESULTS_FILE).exists() or _scan(run_dir):
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
