import copy
import os
import signal
import subprocess
import sys
import time

import pytest

BASE = {
    "name": "t",
    "seed": 0,
    "dataset": {"name": "iris", "params": {}},
    "solver": {
        "name": "knn",
        "_target_": "sklearn.neighbors.KNeighborsClassifier",
        "tasks": ["binary", "multiclass"],
        "n_neighbors": 5,
        "grid": {"n_neighbors": [1, 5]},
    },
    "datasets": {},
    "solvers": {},
    "protocol": {"name": "cv5", "kind": "auto_kfold", "n_splits": 5, "n_repeats": 1},
    "runner": {"backend": "sequential", "n_jobs": 1, "task_timeout": None, "progress": False},
    "preprocessing": {"X": "zscore", "Y": "none"},
    "tuning": {"mode": "nested", "inner_folds": 3, "scoring": None},
}


@pytest.fixture
def make_cfg():
    def make(**changes):
        cfg = copy.deepcopy(BASE)
        for key, value in changes.items():
            node = cfg
            *path, last = key.split("__")
            for p in path:
                node = node[p]
            node[last] = value
        return cfg

    return make


SLEEPY = (
    "name: sleepy\n_target_: svmlab.testing.SleepClassifier\ntasks: [multiclass]\nseconds: 0.4\n"
)
#: Seconds a signal test waits for a run before it fails: a guard against a hang, not a
#: measure of speed (a loaded machine may take minutes to start a cluster).
HANG_GUARD = 600


def _as_from_a_terminal():
    """In the child before exec: SIGINT and SIGTERM act as in a shell's command (a pytest-xdist
    worker may ignore or block them)."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})


@pytest.fixture
def start_sleepy_run(tmp_path):
    """``start(run_id, *overrides)`` starts ``svmlab run`` of 12 iris tasks whose fits sleep
    0.4 s, in a subprocess, and returns ``(proc, tasks_dir)`` once two tasks are on disk.

    The run is the leader of its own process group, like a command started in a terminal:
    ``os.killpg(proc.pid, signal.SIGINT)`` is the terminal's Ctrl-C (every process of the
    group gets it). ``proc`` has text pipes for stdout and stderr; runs still going at the
    end of the test are killed with their group.
    """
    started = []
    conf = tmp_path / "conf"
    (conf / "solver").mkdir(parents=True)
    (conf / "solver" / "sleepy.yaml").write_text(SLEEPY)

    def start(run_id, *overrides):
        args = [sys.executable, "-m", "svmlab", "run", "--config-dir", str(conf)]
        args += ["dataset=iris", "solver=sleepy", "protocol=holdout", "protocol.n_repeats=12"]
        args += [f"results_dir={tmp_path}", f"run_id={run_id}", "runner.progress=false"]
        proc = subprocess.Popen(
            [*args, *overrides],
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=_as_from_a_terminal,
        )
        started.append(proc)
        tasks = tmp_path / "adhoc" / run_id / "tasks"
        deadline = time.monotonic() + HANG_GUARD
        while len(list(tasks.glob("*.parquet"))) < 2:
            if proc.poll() is not None:
                pytest.fail(f"the run ended before two tasks were on disk:\n{proc.stderr.read()}")
            if time.monotonic() > deadline:
                pytest.fail(f"no two tasks on disk after {HANG_GUARD} s (a hang)")
            time.sleep(0.05)
        return proc, tasks

    yield start
    for proc in started:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
