import json
import os

import pandas as pd
import pytest

from svmlab.results import load_results, select_outer_best
from svmlab.runner.execute import execute
from svmlab.runner.plan import build_plan
from svmlab.runner.store import consolidate, prepare_run_dir

#: Seconds a sleeping or hung test solver would take on its own: a task that ends sooner was
#: killed at its limit (a bound no loaded machine reaches; it also guards against a hang).
SLEEPS_LONGER = 600.0


def solver(name, target, **params):
    return {"name": name, "_target_": target, "tasks": ["binary", "multiclass"], **params}


def _run(cfg, run_dir, **runner):
    plan = build_plan(cfg, str(run_dir), "r")
    prepare_run_dir(run_dir, plan.identity, "{}")
    summary = execute(plan.tasks, {**cfg["runner"], **runner})
    df = consolidate(run_dir, postprocess=select_outer_best)
    return plan, summary, df


def test_rows_have_the_contract_columns(make_cfg, tmp_path):
    plan, summary, df = _run(make_cfg(), tmp_path)
    assert summary.ok == 5 and summary.n_failed == 0
    assert len(df) == 5 and set(df["fold"]) == set(range(5))
    for col in (
        "experiment",
        "run_id",
        "dataset",
        "solver",
        "solver_params",
        "chosen_params",
        "protocol",
        "repeat",
        "fold",
        "seed",
        "accuracy",
        "kappa",
        "confusion",
        "fit_time",
        "predict_time",
        "tune_time",
        "model_size",
        "status",
        "error",
        "prov_svmlab",
        "prov_python",
        "prov_scikit_learn",
        "prov_host",
    ):
        assert col in df.columns, col
    assert (df["status"] == "ok").all() and (df["accuracy"] > 0.8).all()
    assert json.loads(df["chosen_params"][0])["n_neighbors"] in (1, 5)
    assert df["tune_time"].gt(0).all()
    # pooled confusion matrices cover every test sample once
    import numpy as np

    total = sum(np.array(json.loads(c)) for c in df["confusion"])
    assert total.sum() == 150


def test_resume_skips_finished_tasks_and_duplicates_nothing(make_cfg, tmp_path):
    cfg = make_cfg()
    _, first, df1 = _run(cfg, tmp_path)
    _, second, df2 = _run(cfg, tmp_path)
    assert first.ok == 5 and second.ok == 0 and second.skipped == 5
    assert len(df2) == 5
    pd.testing.assert_frame_equal(df1, df2)


def test_same_seed_same_numbers(make_cfg, tmp_path):
    cols = ["dataset", "fold", "accuracy", "chosen_params", "confusion"]
    _, _, a = _run(make_cfg(), tmp_path / "a")
    _, _, b = _run(make_cfg(), tmp_path / "b")
    pd.testing.assert_frame_equal(a[cols], b[cols])


def test_failures_become_rows_and_are_retried(make_cfg, tmp_path):
    bad = solver("bad", "svmlab.testing.FailingClassifier", message="boom")
    cfg = make_cfg(solvers={"k": make_cfg()["solver"], "b": bad})
    _, summary, df = _run(cfg, tmp_path)
    assert summary.ok == 5 and summary.n_failed == 5
    failed = df[df["solver"] == "bad"]
    assert (failed["status"] == "error").all()
    assert failed["error"].str.contains("RuntimeError: boom").all()
    _, again, _ = _run(cfg, tmp_path)
    assert again.skipped == 5 and again.n_failed == 5  # only the failed ones ran again


def test_timeout_becomes_a_timeout_row(make_cfg, tmp_path):
    slow = solver("slow", "svmlab.testing.SleepClassifier", seconds=SLEEPS_LONGER)
    cfg = make_cfg(
        solver=slow,
        protocol={"name": "h", "kind": "holdout", "test_size": 0.3, "n_repeats": 1},
        runner__task_timeout=0.5,
    )
    _, summary, df = _run(cfg, tmp_path)
    assert summary.n_failed == 1
    assert df["status"].tolist() == ["timeout"]
    assert "task_timeout=0.5" in df["error"][0]
    assert df["task_seconds"][0] < SLEEPS_LONGER  # killed at the limit, not ended by itself


@pytest.mark.slow
def test_parallel_loky_matches_sequential(make_cfg, tmp_path):
    cols = ["fold", "accuracy", "chosen_params"]
    _, _, seq = _run(make_cfg(), tmp_path / "seq")
    _, summary, par = _run(
        make_cfg(runner={"backend": "loky", "n_jobs": 2, "progress": False}), tmp_path / "par"
    )
    assert summary.ok == 5
    pd.testing.assert_frame_equal(seq[cols], par[cols])
    assert par["prov_host"].nunique() == 1


@pytest.mark.slow
def test_dask_local_cluster(make_cfg, tmp_path):
    pytest.importorskip("dask.distributed")
    cfg = make_cfg(runner={"backend": "dask", "address": None, "n_jobs": 2, "progress": False})
    _, summary, df = _run(cfg, tmp_path)
    assert summary.ok == 5 and (df["status"] == "ok").all()
    _, _, seq = _run(make_cfg(), tmp_path / "seq")
    assert df["accuracy"].tolist() == seq["accuracy"].tolist()


def test_outer_best_keeps_the_best_mean_grid_point(make_cfg, tmp_path):
    _, _, df = _run(make_cfg(tuning={"mode": "outer_best", "inner_folds": 3}), tmp_path)
    assert len(df) == 10 and df["grid_point"].nunique() == 2
    sel = df[df["selected"]]
    assert len(sel) == 5 and sel["grid_point"].nunique() == 1
    means = df.groupby("grid_point")["accuracy"].mean()
    assert sel["grid_point"].iloc[0] == means.idxmax()
    assert len(load_results(tmp_path)) == 10


def _blas_threads_now():
    from threadpoolctl import threadpool_info

    return max((p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"), default=1)


@pytest.mark.slow
def test_use_threads_sets_and_gives_back_the_libraries_threads():
    import subprocess
    import sys

    if (os.cpu_count() or 1) < 2:
        pytest.skip("needs a machine with several cores to tell 1 thread from the default")
    code = (
        "from svmlab.runner.blas import use_threads\n"
        "from svmlab.testing import BlasProbeClassifier\n"
        "def probe():\n"
        "    return BlasProbeClassifier().fit([[0], [1]], [0, 1]).fit_info_['max_threads']\n"
        "print(probe(), use_threads(1), probe(), use_threads(None), probe())"
    )
    env = {k: v for k, v in os.environ.items() if not k.endswith("_NUM_THREADS")}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout.split()
    default, one, limited, back, restored = map(int, out)
    assert default > 1 and (one, limited) == (1, 1)
    assert back == default and restored == default


@pytest.mark.parametrize("runner", [{}, {"backend": "loky", "n_jobs": -(os.cpu_count() or 1)}])
def test_a_run_in_this_process_uses_one_blas_thread_and_gives_the_callers_back(
    make_cfg, tmp_path, runner
):
    """The sequential runner, and loky with one worker (``n_jobs=-cores``: joblib runs it in
    this process too), leave this process's own limits as they were."""
    before = _blas_threads_now()
    if before < 2:
        pytest.skip("BLAS has one thread here anyway: nothing tells the limit from the default")
    probe = solver("probe", "svmlab.testing.BlasProbeClassifier")
    cfg = make_cfg(solver=probe)
    cfg["runner"].update(runner)
    _, summary, df = _run(cfg, tmp_path)
    assert summary.ok == 5
    assert [json.loads(f)["max_threads"] for f in df["fit_info"]] == [1] * 5
    assert (df["prov_blas_threads"] == 1).all()
    assert _blas_threads_now() == before


def test_blas_threads_null_leaves_the_libraries_default_and_the_row_says_so(make_cfg, tmp_path):
    from threadpoolctl import threadpool_limits

    if _blas_threads_now() < 2:
        pytest.skip("BLAS has one thread here anyway: nothing tells null from 1")
    probe = solver("probe", "svmlab.testing.BlasProbeClassifier")
    _, _, df = _run(make_cfg(solver=probe, runner__blas_threads=None), tmp_path / "a")
    assert (df["prov_blas_threads"] == _blas_threads_now()).all()
    assert (df["prov_blas_threads"] > 1).all()
    # the caller limits its libraries between two runs: the second run's rows say so
    with threadpool_limits(limits=1):
        _, _, df = _run(make_cfg(solver=probe, runner__blas_threads=None), tmp_path / "b")
    assert [json.loads(f)["max_threads"] for f in df["fit_info"]] == [1] * 5
    assert (df["prov_blas_threads"] == 1).all()


@pytest.mark.slow
def test_parallel_workers_use_the_asked_blas_threads(make_cfg, tmp_path):
    """One thread each by default, every core when asked; a later run with
    ``blas_threads=null`` on the same (reused) worker processes gets the pool's default back
    (joblib gives each of ``n_jobs`` workers ``cores // n_jobs`` threads), and every row says
    what its task used."""
    from joblib import cpu_count

    probe = solver("probe", "svmlab.testing.BlasProbeClassifier")
    cfg = make_cfg(solver=probe, runner={"backend": "loky", "n_jobs": 2, "progress": False})
    if cpu_count() < 2:
        pytest.skip("needs several cores to tell the asked threads from the pool's default")
    asked = ((1, 1), (cpu_count(), cpu_count()), (None, max(cpu_count() // 2, 1)))
    for threads, expected in asked:
        cfg["runner"]["blas_threads"] = threads
        _, summary, df = _run(cfg, tmp_path / str(threads))
        assert summary.ok == 5
        assert [json.loads(f)["max_threads"] for f in df["fit_info"]] == [expected] * 5
        assert (df["prov_blas_threads"] == expected).all()


@pytest.mark.slow
def test_a_dying_worker_becomes_an_error_row_and_the_rest_runs(make_cfg, tmp_path):
    crash = solver("crash", "svmlab.testing.CrashClassifier")
    cfg = make_cfg(
        solvers={"k": make_cfg()["solver"], "c": crash},
        runner={"backend": "loky", "n_jobs": 2, "progress": False},
    )
    _, summary, df = _run(cfg, tmp_path)
    assert summary.ok == 5 and summary.n_failed == 5
    crashed = df[df["solver"] == "crash"]
    assert (crashed["status"] == "error").all()
    assert (crashed["prov_blas_threads"] == 1).all()  # what the task asked for
    assert crashed["error"].str.contains("worker process died").all()
    assert (df[df["solver"] == "knn"]["status"] == "ok").all()


@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sequential", "loky", "dask"])
def test_timeouts_kill_a_task_stuck_in_compiled_code(make_cfg, tmp_path, backend):
    """A task blocked in one C call (signals blocked) still ends at the limit: its process is
    killed, the row says timeout, and the pool runs the next tasks."""
    if backend == "dask":
        pytest.importorskip("dask.distributed")
    hung = solver("hung", "svmlab.testing.HungClassifier", seconds=SLEEPS_LONGER)
    cfg = make_cfg(
        solvers={"hung": hung, "knn": make_cfg()["solver"]},
        protocol={"name": "h", "kind": "holdout", "test_size": 0.3, "n_repeats": 2},
        tuning__mode="none",
        # the limit applies to the knn tasks too: generous, so a loaded machine finishes them
        runner={"backend": backend, "n_jobs": 2, "progress": False, "task_timeout": 5.0},
    )
    _, summary, df = _run(cfg, tmp_path)
    assert summary.n_failed == 2 and summary.ok == 2
    hung_rows = df[df["solver"] == "hung"]
    assert hung_rows["status"].tolist() == ["timeout", "timeout"]
    assert hung_rows["error"].str.contains("task_timeout=5 s").all()
    assert (hung_rows["task_seconds"] < SLEEPS_LONGER).all()  # killed, not ended by itself
    assert (df[df["solver"] == "knn"]["status"] == "ok").all()


def test_a_task_process_that_dies_under_a_timeout_gives_an_error_row(make_cfg, tmp_path):
    crash = solver("crash", "svmlab.testing.CrashClassifier")
    cfg = make_cfg(
        solver=crash,
        protocol={"name": "h", "kind": "holdout", "test_size": 0.3, "n_repeats": 1},
        runner__task_timeout=SLEEPS_LONGER,  # the crash, not the limit, ends the task
    )
    _, summary, df = _run(cfg, tmp_path)
    assert df["status"].tolist() == ["error"]
    assert "died (killed by signal SIGKILL)" in df["error"][0]


def test_runs_fit_a_stochastic_solver_several_times_per_fold(make_cfg, tmp_path):
    forest = solver(
        "forest", "sklearn.ensemble.RandomForestClassifier", n_estimators=3, max_depth=2, runs=3
    )
    cfg = make_cfg(solver=forest, tuning__mode="none")
    _, summary, df = _run(cfg, tmp_path)
    assert summary.ok == 5 and len(df) == 15
    assert sorted(df.groupby("fold")["run"].apply(list).iloc[0]) == [0, 1, 2]
    again = _run(cfg, tmp_path / "again")[2]
    pd.testing.assert_frame_equal(
        df[["fold", "run", "accuracy"]].reset_index(drop=True),
        again[["fold", "run", "accuracy"]].reset_index(drop=True),
    )
    one = _run(make_cfg(solver={**forest, "runs": 1}, tuning__mode="none"), tmp_path / "one")[2]
    assert "run" not in one or one["run"].isna().all()
    merged = df[df["run"] == 0].set_index("fold")["accuracy"]
    assert (merged == one.set_index("fold")["accuracy"]).all()  # run 0 keeps the task's seed


def test_outer_best_fits_a_path_once_with_the_rows_of_separate_fits(
    make_cfg, tmp_path, monkeypatch
):
    """miGraph's C path: one bag kernel per sigma gives the rows one fit per point gives."""
    migraph = solver(
        "migraph",
        "svmlab.estimators.mil.MiGraphClassifier",
        tasks=["multi_instance"],
        grid={"C": [0.1, 10.0], "sigma": [1.0, 2.0]},
    )
    cfg = make_cfg(
        dataset={"name": "mi_bags", "params": {}},
        solver=migraph,
        preprocessing={"X": "none", "Y": "none"},
        tuning={"mode": "outer_best", "inner_folds": 3},
    )
    calls = []
    from svmlab.estimators.mil import MiGraphClassifier

    real = MiGraphClassifier._fit_kernel
    monkeypatch.setattr(
        MiGraphClassifier, "_fit_kernel", lambda self, *a: calls.append(1) or real(self, *a)
    )
    _, _, path = _run(cfg, tmp_path / "path")
    assert len(calls) == 5 * 2  # per fold, one kernel per sigma
    monkeypatch.setattr("svmlab.evaluation.tuning.grid_path", lambda solver: ())
    _, _, alone = _run(cfg, tmp_path / "alone")
    assert len(calls) == 5 * 2 + 5 * 4  # per fold, one per grid point
    key = ["fold", "grid_point"]
    path, alone = path.sort_values(key), alone.sort_values(key)
    assert path["chosen_params"].tolist() == alone["chosen_params"].tolist()
    assert path["accuracy"].tolist() == alone["accuracy"].tolist()
    assert path["selected"].tolist() == alone["selected"].tolist()
