"""Reading a run's task files: the trust check, the row index, one version per task.

The task files in ``tasks/`` are the source of truth (:mod:`svmlab.runner.files` names
them). ``.tasks-index/`` only saves reading thousands of files on every resume and
consolidation: each of its rows carries the name and signature (size, mtime, ctime,
inode) of the task file it was read from, and is used only while that file, in that
version, is there; anything else is read from ``tasks/`` again (one ``os.scandir`` finds
what is new). Rows of different schemas (an error row, a multiclass row...) are kept
apart, so that the consolidated table is exactly the one reading each task's rows and
concatenating them gives. While tasks finish, the runner adds their files' rows as new
parts (``<schema>+<n>.parquet``); a resume or consolidation folds the parts into one file
per schema.

**Trust.** A task file counts only when its rows are those its name promises: every row
of ``<key>.parquet`` carries that key, and the keys of ``batch-<digest>.parquet`` give
that digest. A file replaced by another task's file (a copy, a bad sync) fails the check:
its rows are left out and its tasks run again.

**One version per task.** A task that failed and ran again may have rows in two files
(the old error row in a batch file that also holds other tasks). Its rows are taken from
one file: one whose rows are all ``ok`` if there is one, else the most recently written.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from svmlab.runner.files import (
    BATCH_PREFIX,
    INDEX_DIR,
    SUFFIX,
    TASKS_DIR,
    atomic_write,
    batch_stem,
    task_file,
)

#: Columns the index adds to a task file's rows: the task's key, the file's name (without
#: ``.parquet``) and signature, and the row's number within its file.
_TASK, _FILE, _SIG, _ROW = (
    "__svmlab_task__",
    "__svmlab_source__",
    "__svmlab_sig__",
    "__svmlab_row__",
)
TAGS = (_TASK, _FILE, _SIG, _ROW)
#: The tag columns a reader of :func:`chosen_tables` may sort by: the task key, the row number.
TASK, ROW = _TASK, _ROW
_PART = "+"  # <schema id>+<n>.parquet: rows added to the index while a run goes on


def note(message: str) -> None:
    """One line on stderr about something svmlab worked around."""
    print(f"svmlab: note: {message}", file=sys.stderr)


def _signature(st: os.stat_result) -> str:
    """What tells two versions of a task file apart (a rewrite is a new inode and ctime)."""
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ctime_ns}:{st.st_ino}"


def scan(run_dir: Path) -> dict[str, str]:
    """``{file stem: signature}`` of the task files (one ``os.scandir``; temporaries and
    files set aside skipped)."""
    out = {}
    try:
        entries = os.scandir(run_dir / TASKS_DIR)
    except FileNotFoundError:
        return out
    with entries:
        for entry in entries:
            name = entry.name
            if name.startswith(".") or not name.endswith(SUFFIX):
                continue
            try:
                if entry.is_file():
                    out[name[: -len(SUFFIX)]] = _signature(entry.stat())
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


def task_keys(stem: str, table: pa.Table) -> tuple[pa.Array | None, str]:
    """The task key of each row of the file ``stem``, or ``(None, why)`` when the rows are
    not those the file's name promises.

    Rows without a ``key`` column (written by hand, not by the runner) belong to the task
    the file is named after.
    """
    n = table.num_rows
    if "key" not in table.column_names:
        if stem.startswith(BATCH_PREFIX):
            return None, "its rows carry no task key"
        return pa.array([stem] * n, pa.string()), ""
    keys = table["key"].combine_chunks()
    if pa.types.is_large_string(keys.type):  # e.g. a file written with pandas
        keys = keys.cast(pa.string())
    if keys.null_count or not pa.types.is_string(keys.type):
        return None, "some of its rows carry no task key"
    if stem.startswith(BATCH_PREFIX):
        if batch_stem(distinct_in_order(keys.to_pylist())) != stem:
            return None, "its task keys are not the ones its name was made from"
        return keys, ""
    other = pc.filter(keys, pc.not_equal(keys, stem))
    if len(other):
        return None, f"it holds the rows of task {other[0].as_py()}, not of {stem}"
    return keys, ""


class Rows:
    """The rows of a run's trusted task files, grouped by row schema.

    Attributes
    ----------
    groups : dict
        ``{schema id: table}``; each table holds the task rows with their schema plus the
        columns of :data:`TAGS`.
    unreadable : dict
        ``{file stem: reason}`` of task files that could not be read.
    untrusted : dict
        ``{file stem: reason}`` of task files whose rows are not those their name promises.
    changed : set
        Schema ids whose table differs from the one stored in the index.
    files : dict
        ``{file stem: signature}`` of the task files found.
    """

    def __init__(self) -> None:
        self.groups: dict[str, pa.Table] = {}
        self.unreadable: dict[str, str] = {}
        self.untrusted: dict[str, str] = {}
        self.changed: set[str] = set()
        self.files: dict[str, str] = {}
        self.parts: set[str] = set()
        self._versions: pa.Table | None = None

    def versions(self) -> pa.Table:
        """One row per (task, file) of :attr:`groups` (:func:`_versions`), computed once."""
        if self._versions is None:
            self._versions = _versions(self)
        return self._versions


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
    for path in index.glob(f"*{SUFFIX}"):
        if path.name.startswith("."):
            continue
        sid, part, n = path.name[: -len(SUFFIX)].partition(_PART)
        out.append((bool(part), n.zfill(20), sid, path))
    return [(sid, path) for *_, sid, path in sorted(out)]


def _load_index(run_dir: Path, files: dict[str, str], rows: Rows, columns=None) -> set[str]:
    """Put the index's still valid rows (their ``columns`` only, if given) into ``rows``; the
    file stems they cover.

    A row is valid while the task file it was read from (its name and signature) is there.
    A part whose rows the compacted file also holds (a compaction interrupted before it
    removed the parts) gives each file's rows once. An index written by an older svmlab
    (without these columns) is rebuilt.
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
            if not set(TAGS[:3]) <= set(table.column_names):
                rows.changed.add(sid)  # an older layout: rebuilt from the task files
                continue
            ids = pc.binary_join_element_wise(table[_FILE], table[_SIG], "|")
        except Exception as exc:  # noqa: BLE001 - any damage: rebuild from the task files
            note(
                f"{path} cannot be read ({type(exc).__name__}); its rows are read from "
                f"{run_dir / TASKS_DIR} again"
            )
            rows.changed.add(sid)
            continue
        valid = pc.is_in(ids, value_set=wanted)
        if sid in parts:  # a part: rows the schema's earlier files hold are not taken twice
            seen = pa.chunked_array([t[_FILE] for t in parts[sid]]).combine_chunks()
            valid = pc.and_(valid, pc.invert(pc.is_in(table[_FILE], value_set=seen)))
        if not pc.all(valid).as_py():
            table = table.filter(valid)
            rows.changed.add(sid)
        if table.num_rows:
            parts.setdefault(sid, []).append(table)
            covered.update(pc.unique(table[_FILE]).to_pylist())
    for sid, tables in parts.items():
        rows.groups[sid] = tables[0] if len(tables) == 1 else pa.concat_tables(tables)
    return covered


def collect(run_dir: Path, *, index: bool = True) -> Rows:
    """The rows of every trusted task file: index rows still valid, plus the task files
    that are new or changed since the index was written (read one by one)."""
    files = scan(run_dir)
    rows = Rows()
    rows.files = files
    covered = _load_index(run_dir, files, rows) if index else set()
    return _add_fresh(run_dir, sorted(set(files) - covered), rows)


def collect_from_index(run_dir: Path, columns: list[str]) -> Rows | None:
    """The ``columns`` of every task file's rows when the index is up to date (no task file
    new, rewritten or removed since it was saved), else None.

    What a resume needs (keys and statuses) is a few of the rows' columns: reading only
    those keeps a resume of 100,000 finished tasks at seconds and tens of megabytes.
    """
    files = scan(run_dir)
    rows = Rows()
    rows.files = files
    covered = _load_index(run_dir, files, rows, columns)
    if rows.changed or len(covered) != len(files):
        return None
    return rows


def read_tagged(run_dir: Path, stems, rows: Rows) -> dict[str, list[pa.Table]]:
    """``{schema id: [tagged tables]}`` of the task files ``stems``; the files that cannot
    be read or trusted go to ``rows.unreadable`` / ``rows.untrusted``."""
    fresh: dict[str, list[pa.Table]] = {}
    for stem in stems:
        try:
            table, sig = _read_task_file(task_file(run_dir, stem))
        except FileNotFoundError:  # removed meanwhile
            continue
        except Exception as exc:  # noqa: BLE001 - a damaged file is redone, not fatal
            why = str(exc).splitlines()[0][:120] if str(exc) else ""
            rows.unreadable[stem] = f"{type(exc).__name__}: {why}".rstrip(": ")
            continue
        if not table.num_rows:
            continue
        keys, why = task_keys(stem, table)
        if keys is None:
            rows.untrusted[stem] = why
            continue
        # a batch file holds rows of one schema (the writer splits a batch by schema)
        fresh.setdefault(_schema_id(table.schema), []).append(_tagged(table, keys, stem, sig))
    return fresh


def _add_fresh(run_dir: Path, stems, rows: Rows) -> Rows:
    """Read the task files ``stems`` (those the index does not cover) into ``rows``."""
    for sid, tables in read_tagged(run_dir, stems, rows).items():
        old = [rows.groups[sid]] if sid in rows.groups else []
        rows.groups[sid] = pa.concat_tables(old + tables).combine_chunks()
        rows._versions = None
        rows.changed.add(sid)
    return rows


def save_index(run_dir: Path, rows: Rows) -> None:
    """Write the index files of the groups that changed, each as one compacted file (its
    parts removed after it is written); best effort: it is only a cache."""
    if not rows.changed and not rows.parts:
        return
    index = run_dir / INDEX_DIR
    try:
        index.mkdir(exist_ok=True)
        for sid in rows.changed | rows.parts:
            path = index / f"{sid}{SUFFIX}"
            if sid in rows.groups:
                table = rows.groups[sid]
                atomic_write(path, lambda tmp, t=table: pq.write_table(t, tmp))
            else:
                path.unlink(missing_ok=True)
            for part in index.glob(f"{sid}{_PART}*{SUFFIX}"):
                part.unlink(missing_ok=True)
    except OSError as exc:
        note(f"the index {index} could not be updated ({exc.strerror or exc})")


def add_parts(run_dir: Path, stems, stamp: int) -> None:
    """Add the rows of the task files ``stems`` to the index as new parts (one per row
    schema): a refresh costs the new rows, not the run's."""
    rows = Rows()
    groups = read_tagged(run_dir, sorted(set(stems)), rows)
    index = run_dir / INDEX_DIR
    try:
        index.mkdir(exist_ok=True)
        for sid, tables in groups.items():
            table = pa.concat_tables(tables).combine_chunks()
            path = index / f"{sid}{_PART}{stamp}{SUFFIX}"
            atomic_write(path, lambda tmp, t=table: pq.write_table(t, tmp))
    except OSError as exc:
        note(f"the index {index} could not be updated ({exc.strerror or exc})")


def _tagged(table: pa.Table, keys: pa.Array, stem: str, sig: str) -> pa.Table:
    """A task file's rows with the index's columns: task key, file name and signature, and
    row numbers."""
    n = table.num_rows
    return (
        table.append_column(_TASK, keys)
        .append_column(_FILE, pa.array([stem] * n, pa.string()))
        .append_column(_SIG, pa.array([sig] * n, pa.string()))
        .append_column(_ROW, pa.array(np.arange(n, dtype=np.int32)))
    )


def _versions(rows: Rows) -> pa.Table:
    """One row per (task, file): the task's key, the file, whether all its rows there are
    ``ok``, the first row's status, and when the file was written (ns)."""
    parts = []
    for t in rows.groups.values():
        n = t.num_rows
        status = (
            t["status"].cast(pa.string())
            if "status" in t.column_names
            else pa.nulls(n, pa.string())
        )
        parts.append(pa.table({_TASK: t[_TASK], _FILE: t[_FILE], _SIG: t[_SIG], "status": status}))
    if not parts:
        empty = pa.array([], pa.string())
        return pa.table(
            {
                _TASK: empty,
                _FILE: empty,
                _SIG: empty,
                "ok_all": pa.array([], pa.bool_()),
                "status_first": empty,
            }
        )
    t = pa.concat_tables(parts)
    t = t.append_column("ok", pc.fill_null(pc.equal(t["status"], "ok"), False))
    # single-threaded grouping keeps the rows' order: "first" is a file's first row
    return t.group_by([_TASK, _FILE, _SIG], use_threads=False).aggregate(
        [("ok", "all"), ("status", "first")]
    )


def task_files(rows: Rows) -> set[tuple[str, str]]:
    """``{(task key, file stem)}`` of every trusted row."""
    v = rows.versions()
    return set(zip(v[_TASK].to_pylist(), v[_FILE].to_pylist(), strict=True))


def chosen_versions(rows: Rows) -> tuple[pa.Table, bool]:
    """``(versions, several)``: one row per task - the file its rows are taken from (one
    whose rows are all ok if any, else the most recently written), with columns
    ``ok_all`` and ``status_first`` - and whether some task had rows in several files."""
    v = rows.versions()
    if v.num_rows == pc.count_distinct(v[_TASK]).as_py():
        return v, False
    written = pc.cast(pc.list_element(pc.split_pattern(v[_SIG], ":"), 1), pa.int64())
    v = v.append_column("written", written).sort_by(
        [
            (_TASK, "ascending"),
            ("ok_all", "descending"),
            ("written", "descending"),
            (_FILE, "descending"),
        ]
    )
    first = v.group_by(_TASK, use_threads=False).aggregate(
        [(_FILE, "first"), (_SIG, "first"), ("ok_all", "first"), ("status_first", "first")]
    )
    return _tidy(first), True


def _tidy(first: pa.Table) -> pa.Table:
    names = {
        f"{_FILE}_first": _FILE,
        f"{_SIG}_first": _SIG,
        "ok_all_first": "ok_all",
        "status_first_first": "status_first",
    }
    return first.rename_columns([names.get(c, c) for c in first.column_names])


def statuses(rows: Rows, keys=None) -> dict[str, str]:
    """``{task key: status}``: ``ok`` when all the chosen file's rows of the task are ok,
    else the status of its first row there (``error`` when it has none)."""
    v, _ = chosen_versions(rows)
    tasks = v[_TASK].to_pylist()
    status = pc.if_else(
        v["ok_all"], pa.scalar("ok"), pc.fill_null(v["status_first"], "error")
    ).to_pylist()
    if keys is None:
        return dict(zip(tasks, status, strict=True))
    return {k: s for k, s in zip(tasks, status, strict=True) if k in keys}


def chosen_tables(rows: Rows, keys=None):
    """Yield, per row schema, the rows of each task's chosen version (:func:`chosen_versions`;
    of ``keys`` only, if given), with the columns of :data:`TAGS`; schemas left without rows
    are skipped. ``rows`` is emptied on the way (each table is handed over, not copied)."""
    v, several = chosen_versions(rows)
    chosen = (
        pc.binary_join_element_wise(v[_TASK], v[_FILE], "|").combine_chunks() if several else None
    )
    wanted = pa.array(sorted(keys), pa.string()) if keys is not None else None
    while rows.groups:
        _, table = rows.groups.popitem()
        if wanted is not None:
            table = table.filter(pc.is_in(table[_TASK], value_set=wanted))
        if chosen is not None:
            ids = pc.binary_join_element_wise(table[_TASK], table[_FILE], "|")
            table = table.filter(pc.is_in(ids, value_set=chosen))
        if table.num_rows:
            yield table


def distinct_in_order(keys) -> list[str]:
    """The distinct values of ``keys`` (an iterable of str; an Arrow array or column through
    its ``to_pylist()``) in order of first appearance: the order a batch file's name is made
    from (:func:`svmlab.runner.files.batch_stem`)."""
    return list(dict.fromkeys(keys))


def frame(rows: Rows, keys=None):
    """The task rows as one pandas table, exactly as reading each task's rows (tasks in
    order of ``<key>.parquet``, rows in file order) and concatenating them would give it.

    ``rows`` is emptied on the way, so the Arrow and the pandas copies of 100,000 rows are
    not all held at once.
    """
    import pandas as pd

    parts = list(chosen_tables(rows, keys))
    if not parts:
        return pd.DataFrame()
    names = sorted({k + SUFFIX for t in parts for k in pc.unique(t[_TASK]).to_pylist()})
    order = pa.array([n[: -len(SUFFIX)] for n in names], pa.string())
    ranked = []
    for table in parts:
        rank = pc.index_in(table[_TASK], value_set=order).to_numpy()
        row = table[_ROW].to_numpy()
        ranked.append((int(rank.min()), rank, row, table.drop_columns(list(TAGS))))
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
