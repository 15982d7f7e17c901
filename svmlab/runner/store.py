"""The Parquet results store: one file per task, written atomically.

Layout of a run directory::

    RUN_DIR/
      run.json            experiment name, run id, config fingerprint (guards resumes)
      config.yaml         the resolved configuration
      tasks/<key>.parquet one file per finished task (one row; several for tuning.mode=outer_best)
      results.parquet     all task rows, consolidated after each run
"""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from svmlab.errors import ResultsError

TASKS_DIR = "tasks"
RESULTS_FILE = "results.parquet"
RUN_FILE = "run.json"


def _atomic_write(path: Path, write) -> None:
    """Call ``write(tmp_path)``, fsync, then rename over ``path`` (same directory)."""
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    try:
        write(tmp)
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_task_rows(run_dir: str | Path, key: str, rows: list[dict]) -> Path:
    """Write one task's result rows to ``tasks/<key>.parquet`` atomically."""
    path = Path(run_dir) / TASKS_DIR / f"{key}.parquet"
    table = pa.Table.from_pylist(rows)
    _atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    return path


def finished_keys(run_dir: str | Path) -> dict[str, str]:
    """``{key: status}`` of every task file in the run (temporary files are ignored)."""
    out = {}
    for path in (Path(run_dir) / TASKS_DIR).glob("*.parquet"):
        if path.name.startswith("."):
            continue
        try:
            status = pq.read_table(path, columns=["status"]).column("status").to_pylist()
        except Exception:  # unreadable: treat as not finished, it will be redone
            continue
        out[path.stem] = (
            "ok"
            if status and all(s == "ok" for s in status)
            else (status[0] if status else "error")
        )
    return out


def read_task_rows(run_dir: str | Path) -> pd.DataFrame:
    """All rows of all task files of a run (unsorted columns are unioned)."""
    files = sorted(
        p for p in (Path(run_dir) / TASKS_DIR).glob("*.parquet") if not p.name.startswith(".")
    )
    if not files:
        return pd.DataFrame()
    return pd.concat([pq.read_table(p).to_pandas() for p in files], ignore_index=True)


def consolidate(run_dir: str | Path, postprocess=None) -> pd.DataFrame:
    """Rebuild ``results.parquet`` from the task files; returns the table."""
    df = read_task_rows(run_dir)
    if postprocess is not None and not df.empty:
        df = postprocess(df)
    if not df.empty:
        sort = [
            c
            for c in ("dataset", "solver", "variant", "repeat", "fold", "grid_point")
            if c in df.columns
        ]
        df = df.sort_values(sort, kind="stable").reset_index(drop=True)
        path = Path(run_dir) / RESULTS_FILE
        table = pa.Table.from_pandas(df, preserve_index=False)
        _atomic_write(path, lambda tmp: pq.write_table(table, tmp))
    return df


def prepare_run_dir(run_dir: str | Path, identity: dict, config_yaml: str) -> bool:
    """Create (or reopen for resuming) a run directory; returns True when resuming.

    Raises
    ------
    ResultsError
        When the directory is not writable, or holds a run of a different experiment
        or configuration (its ``run.json`` identity differs).
    """
    run_dir = Path(run_dir)
    try:
        (run_dir / TASKS_DIR).mkdir(parents=True, exist_ok=True)
        probe = run_dir / f".write-test-{uuid.uuid4().hex}"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        raise ResultsError(
            f"results directory {run_dir} is not writable ({exc.strerror or exc}); set "
            "results_dir=... to another place"
        ) from None
    for stale in [
        *(run_dir / TASKS_DIR).glob(".*.tmp"),
        *run_dir.glob(".*.tmp"),
    ]:  # left by a killed writer
        stale.unlink(missing_ok=True)
    run_file = run_dir / RUN_FILE
    if run_file.exists():
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
                "different "
                f"configuration (changed: {', '.join(changed) or 'unknown'}); resuming it would "
                "mix results - "
                "choose another run_id"
            )
        return True
    _atomic_write(
        run_file, lambda tmp: tmp.write_text(json.dumps(identity, indent=2, sort_keys=True))
    )
    config_file = run_dir / "config.yaml"
    _atomic_write(config_file, lambda tmp: tmp.write_text(config_yaml))
    return False
