"""Exit status of a sweep's jobs wherever a Hydra launcher ran them.

A job run by Hydra's basic launcher runs in the ``svmlab run`` process; the joblib, submitit
and Ray launchers run it in another process, possibly on another host, and Hydra keeps only
its return value (the Optuna objective). So each job records its exit status as a file in a
directory that ``svmlab run -m`` creates under the results directory (shared by every job, as
their results are) and names in each job's environment through Hydra's
``hydra.job.env_set`` (set by Hydra in the job's own process when the job starts, so a
reused worker process of a launcher sees the current sweep's directory).
After the sweep the worst status is the command's; a job that started but recorded nothing
(its process was killed) counts as failed.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from pathlib import Path

#: Environment variable naming the directory of a sweep's job statuses.
ENV = "SVMLAB_SWEEP_STATUS"
_STARTED = ".started"


def open_status_dir(results_dir: str | Path) -> Path:
    """Create the status directory under ``results_dir``; :func:`env_override` names it."""
    root = Path(results_dir).expanduser().absolute()
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=".sweep-status-", dir=root))


def env_override(path: Path) -> str:
    """The Hydra override that sets :data:`ENV` to ``path`` in every job's process.

    >>> env_override(Path("/r/.sweep-status-x"))
    "++hydra.job.env_set.SVMLAB_SWEEP_STATUS='/r/.sweep-status-x'"
    """
    return f"++hydra.job.env_set.{ENV}='{path}'"


def job_started() -> Path | None:
    """Mark a job as started; the path to pass to :func:`job_finished` (None outside a sweep)."""
    where = os.environ.get(ENV)
    if not where or not Path(where).is_dir():
        return None
    mark = Path(where) / f"{uuid.uuid4().hex}{_STARTED}"
    mark.write_text("")
    return mark


def job_finished(mark: Path | None, code: int) -> None:
    """Record the job's exit status ``code`` in place of its start mark."""
    if mark is None:
        return
    final = mark.with_name(mark.name.removesuffix(_STARTED))
    final.write_text(str(int(code)))
    mark.unlink(missing_ok=True)


def close_status_dir(path: Path) -> tuple[int, int]:
    """``(worst exit status, jobs that recorded none)`` of the sweep; removes the directory.

    >>> d = open_status_dir(tempfile.mkdtemp()); os.environ[ENV] = str(d)  # as Hydra sets it
    >>> job_finished(job_started(), 0); job_finished(job_started(), 1); _ = job_started()
    >>> close_status_dir(d)
    (1, 1)
    """
    os.environ.pop(ENV, None)
    worst, silent = 0, 0
    for f in path.iterdir():
        if f.name.endswith(_STARTED):
            silent += 1
            continue
        try:
            worst = max(worst, int(f.read_text() or 0))
        except ValueError:
            silent += 1
    shutil.rmtree(path, ignore_errors=True)
    return worst, silent
