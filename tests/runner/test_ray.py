"""runner=ray: a local Ray instance and a Ray cluster on 127.0.0.1 (a head and one worker node)."""

import importlib.util
import signal
import socket
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import psutil
import pytest

from svmlab.app import run
from svmlab.errors import ConfigError
from svmlab.runner import store
from svmlab.runner.execute import execute
from svmlab.runner.plan import build_plan
from svmlab.runner.store import consolidate, prepare_run_dir
from svmlab.testing import local_ray_cluster, ray_cluster_processes

#: Seconds a test waits for a run to end: a guard against a hang, not a measure of speed.
HANG_GUARD = 600

needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None, reason="Ray is not installed"
)


@pytest.fixture(scope="module")
def ray_cluster():
    """``ray start --head`` plus a second node (``ray start --address``) on 127.0.0.1."""
    with local_ray_cluster((1, 1)) as (address, temp_dir):
        yield address, temp_dir


def _plan(make_cfg, run_dir, solver, n_tasks, runner):
    cfg = make_cfg(
        solver=solver,
        protocol={"name": "h", "kind": "holdout", "test_size": 0.3, "n_repeats": n_tasks},
        tuning__mode="none",
        runner=runner,
    )
    plan = build_plan(cfg, str(run_dir), "r")
    prepare_run_dir(run_dir, plan.identity, "{}")
    return plan


def _signature(path: Path) -> tuple[int, int]:
    st = path.stat()
    return st.st_ino, st.st_mtime_ns


def _kill_running_tasks_once(temp_dir: str, tasks_dir: Path, seen: dict, killed: list) -> None:
    """When two tasks are on disk, SIGKILL every worker process running a task."""
    deadline = time.monotonic() + HANG_GUARD  # a hang guard
    while time.monotonic() < deadline:
        files = list(tasks_dir.glob("*.parquet")) if tasks_dir.exists() else []
        if len(files) >= 2:
            for f in files:
                seen[f.name] = _signature(f)
            for proc in ray_cluster_processes(temp_dir):
                try:
                    # a task runs alone or in a batch of tasks
                    if " ".join(proc.cmdline()).startswith(("ray::run_task", "ray::run_batch")):
                        proc.kill()
                        killed.append(proc.pid)
                except psutil.NoSuchProcess:
                    pass
            if killed:
                return
        time.sleep(0.02)


@pytest.mark.slow
@needs_ray
def test_ray_cluster_killed_workers_lose_no_finished_task(ray_cluster, make_cfg, tmp_path):
    address, temp_dir = ray_cluster
    runner = {"backend": "ray", "address": address, "progress": False}
    sleepy = {
        "name": "sleepy",
        "_target_": "svmlab.testing.SleepClassifier",
        "tasks": ["multiclass"],
        "seconds": 0.6,
    }
    plan = _plan(make_cfg, tmp_path, sleepy, 6, runner)
    seen, killed = {}, []
    killer = threading.Thread(
        target=_kill_running_tasks_once, args=(temp_dir, tmp_path / store.TASKS_DIR, seen, killed)
    )
    killer.start()
    summary = execute(plan.tasks, runner)
    killer.join()
    assert killed, "no task was running on the cluster when two had finished"
    assert summary.ok == 6 and summary.n_failed == 0, summary.failed  # killed tasks ran again
    # on disk before the kill: kept, except that a task killed between writing its file and
    # returning runs again and replaces its file (atomically, with an equal row)
    tasks_dir = tmp_path / store.TASKS_DIR
    rewritten = [name for name, sig in seen.items() if _signature(tasks_dir / name) != sig]
    assert len(rewritten) <= len(killed), rewritten
    df = consolidate(tmp_path)
    assert len(df) == 6 and (df["status"] == "ok").all()
    assert set(df["prov_host"]) == {socket.gethostname()}

    # a task that kills its worker every time is an error row; the others still run
    crash = {"name": "crash", "_target_": "svmlab.testing.CrashClassifier", "tasks": ["multiclass"]}
    plan = _plan(make_cfg, tmp_path / "crash", crash, 1, runner)
    summary = execute(plan.tasks, runner)
    assert summary.ok == 0 and summary.n_failed == 1
    assert all(
        "worker process died while running this task, 2 times" in o.error for o in summary.failed
    )


# the quick-start experiment cut down to iris x svc (tuned by inner CV), ten folds
QUICK = (
    "+experiment=quickstart",
    "~datasets.breast_cancer",
    "~datasets.moons",
    "~datasets.wine",
    "~solvers.linear_svc",
    "~solvers.knn",
    "runner.progress=false",
)
COLUMNS = ["key", "dataset", "solver", "fold", "chosen_params", "accuracy", "kappa"]


@pytest.mark.slow
@needs_ray
def test_runner_ray_gives_the_local_runners_metrics(tmp_path):
    results = {}
    for runner in ("local", "ray"):
        assert run([*QUICK, f"runner={runner}", f"results_dir={tmp_path}", f"run_id={runner}"]) == 0
        df = pd.read_parquet(tmp_path / "quickstart" / runner / "results.parquet")
        results[runner] = df[COLUMNS].sort_values("key").reset_index(drop=True)
    assert len(results["ray"]) == 10
    pd.testing.assert_frame_equal(results["local"], results["ray"])


@needs_ray
def test_an_unreachable_ray_address_is_one_line_at_planning(make_cfg, tmp_path):
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nobody listens once it is closed
    runner = {"name": "ray", "backend": "ray", "address": f"127.0.0.1:{port}"}
    with pytest.raises(ConfigError) as err:
        build_plan(make_cfg(runner=runner), str(tmp_path), "r")
    assert str(err.value) == (
        f"runner.address='127.0.0.1:{port}': cannot connect to a Ray cluster at 127.0.0.1:{port} "
        "(Connection refused); start one (ray start --head) or set runner.address=null for a "
        "local Ray instance"
    )
    with pytest.raises(ConfigError, match="is not a Ray address; use HOST:6379"):
        build_plan(make_cfg(runner={**runner, "address": "tcp://127.0.0.1:1"}), str(tmp_path), "r")


def test_runner_ray_without_ray_names_the_package(make_cfg, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails
    assert run(["runner=ray", "dataset=iris", "solver=svc", f"results_dir={tmp_path}"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "svmlab: error: runner=ray needs Ray: pip install 'svmlab[ray]'"


@needs_ray
def test_ray_refusing_to_start_is_one_line(monkeypatch):
    """What Ray raises when it will not start or join (authentication, versions) is one line."""
    import ray

    from svmlab.runner.ray_backend import ray_session

    def refuse(**kwargs):
        raise ConnectionError("RPC error: InvalidAuthToken\ndetails on the next line")

    monkeypatch.setattr(ray, "init", refuse)
    with pytest.raises(ConfigError) as err, ray_session({"address": "127.0.0.1:6379"}):
        pass
    assert str(err.value) == (
        "runner=ray: cannot start or join the Ray cluster at 127.0.0.1:6379 "
        "(ConnectionError: RPC error: InvalidAuthToken)"
    )


class _Stop(Exception):
    pass


def _svmlab_handler(signum, frame):
    raise _Stop(signum)


def test_ray_init_leaves_the_sigterm_handler_it_found():
    """ray.init installs its own SIGTERM handler (sys.exit(15)); svmlab's is put back, and a
    SIGTERM while ray.init runs goes to svmlab's handler."""
    from svmlab.runner.ray_backend import _own_sigterm_handler

    def rays(signum, frame):
        sys.exit(signum)

    previous = signal.signal(signal.SIGTERM, _svmlab_handler)
    try:
        with _own_sigterm_handler():
            signal.signal(signal.SIGTERM, rays)  # what ray.init does
        assert signal.getsignal(signal.SIGTERM) is _svmlab_handler
        with pytest.raises(_Stop), _own_sigterm_handler():
            signal.signal(signal.SIGTERM, rays)
            rays(signal.SIGTERM, None)  # the signal arrives during ray.init
        assert signal.getsignal(signal.SIGTERM) is _svmlab_handler
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        with _own_sigterm_handler():  # no handler of svmlab's: Ray's is kept (it cleans up)
            signal.signal(signal.SIGTERM, rays)
        assert signal.getsignal(signal.SIGTERM) is rays
    finally:
        signal.signal(signal.SIGTERM, previous)


@pytest.mark.slow
@needs_ray
def test_sigterm_under_ray_is_svmlab_s_one_line_and_143(start_sleepy_run):
    """Regression: Ray's handler printed a stack dump and the run exited with 15 or 134."""
    proc, tasks = start_sleepy_run("t", "runner=ray", "runner.n_jobs=2")
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=HANG_GUARD)
    assert proc.returncode == 143, err
    assert "SIGTERM received" not in err and "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("svmlab: terminated; finished tasks are kept") and "resume" in last
    assert all(pd.read_parquet(p)["status"].tolist() == ["ok"] for p in tasks.glob("*.parquet"))
