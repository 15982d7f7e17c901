"""``svmlab run -m`` with Hydra's own launchers (joblib, submitit) and the Optuna sweeper."""

import importlib.util

import pandas as pd
import pytest

from svmlab.app import run
from svmlab.runner.trials import inner_objective, trial_table, trials_section

# the quick-start experiment cut down to iris x SVC, one holdout split
TINY = (
    "+experiment=quickstart",
    "~datasets.wine",
    "~datasets.breast_cancer",
    "~datasets.moons",
    "~solvers.linear_svc",
    "~solvers.knn",
    "protocol=holdout",
    "runner=sequential",
    "runner.progress=false",
)
COLUMNS = ["dataset", "solver", "fold", "variant", "chosen_params", "accuracy", "kappa"]


def _sweep(tmp_path, run_id: str, *extra: str) -> list[pd.DataFrame]:
    args = ["-m", *TINY, "solver.C=1,10", f"results_dir={tmp_path}", f"run_id={run_id}", *extra]
    assert run(args) == 0
    sweep = tmp_path / "quickstart" / run_id
    return [pd.read_parquet(sweep / str(j) / "results.parquet")[COLUMNS] for j in (0, 1)]


@pytest.mark.slow
def test_launchers_give_the_default_launchers_metrics(tmp_path):
    pytest.importorskip("hydra_plugins.hydra_joblib_launcher")
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    expected = _sweep(tmp_path, "basic")
    assert expected[0]["chosen_params"].iloc[0] != expected[1]["chosen_params"].iloc[0]
    launchers = {"joblib": (), "submitit_local": ()}
    if importlib.util.find_spec("hydra_plugins.hydra_ray_launcher"):  # make install adds it
        launchers["ray"] = ("hydra.launcher.ray.init.address=local",)  # never a running cluster
    for launcher, extra in launchers.items():
        got = _sweep(tmp_path, launcher, f"hydra/launcher={launcher}", *extra)
        if launcher == "ray":  # the plugin leaves its local instance connected to this process
            import ray

            ray.shutdown()
        for job, (a, b) in enumerate(zip(expected, got, strict=True)):
            pd.testing.assert_frame_equal(a, b, obj=f"job {job} with {launcher}")


@pytest.mark.slow
def test_optuna_maximises_the_inner_cv_score(tmp_path):
    pytest.importorskip("hydra_plugins.hydra_optuna_sweeper")
    # moons (120 training points) with a fixed gamma: C matters and nothing else is tuned
    base = [
        *TINY[:3],
        "~datasets.iris",
        *TINY[4:],
        "datasets.moons.params.n_samples=120",
        "~solver.grid",
        f"results_dir={tmp_path}",
    ]
    assert run([*base, "+tuning.inner_always=true", "run_id=default"]) == 0
    default = inner_objective(pd.read_parquet(tmp_path / "quickstart/default/results.parquet"))
    args = ["-m", "hydra/sweeper=optuna", "solver.C=tag(log,interval(0.01,1000))"]
    assert run([*args, *base, "hydra.sweeper.n_trials=10", "run_id=opt"]) == 0
    sweep = tmp_path / "quickstart" / "opt"
    trials = trial_table(sweep)
    assert len(trials) == 10 and trials["inner_cv"].notna().all()
    assert trials["overrides"].str.match(r"solver\.C=[0-9.e-]+$").all()
    assert trials["inner_cv"].max() > default
    # the objective is the inner-CV score, not the test split's accuracy
    rows = pd.read_parquet(sweep / str(trials["inner_cv"].idxmax()) / "results.parquet")
    assert rows["grid_scores"].notna().all() and rows["tuning_mode"].eq("nested").all()
    section = trials_section(sweep)
    assert section is not None and section.title == "Optuna trials (10)"
    assert (section.table["best"] == "yes").sum() == 1


def test_optuna_refuses_tuning_without_inner_cv(capsys):
    assert run(["-m", "hydra/sweeper=optuna", *TINY, "tuning.mode=outer_best"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "svmlab: error: hydra/sweeper=optuna optimises the runs' inner-CV score, which "
        "tuning.mode=outer_best does not compute (outer_best would select on the test folds); "
        "use tuning.mode=nested"
    ]


@pytest.mark.parametrize(
    ("choice", "package"),
    [("hydra/launcher=rq", "hydra-rq-launcher"), ("hydra/sweeper=ax", "hydra-ax-sweeper")],
)
def test_missing_plugin_is_one_line_naming_the_package(capsys, choice, package):
    module = "hydra_plugins.hydra_" + package.removeprefix("hydra-").replace("-", "_")
    try:
        pytest.importorskip(module)
    except pytest.skip.Exception:
        pass
    else:
        pytest.skip(f"{package} is installed here")
    assert run(["-m", *TINY, choice]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("svmlab: error: ")
    assert err[0].endswith(f"pip install {package}")


def test_unknown_launcher_lists_the_installed_ones(capsys):
    assert run(["-m", *TINY, "hydra/launcher=nosuch"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert "unknown launcher hydra/launcher=nosuch; installed: basic" in err[0]
    assert err[0].endswith("pip install hydra-nosuch-launcher)")


@pytest.mark.slow
def test_a_job_failing_in_a_launchers_process_fails_the_sweep(tmp_path, capsys):
    """Regression: with joblib (or submitit) a failed job left `svmlab run -m` at exit 0."""
    pytest.importorskip("hydra_plugins.hydra_joblib_launcher")
    args = ["-m", *TINY, "solver.C=1,-1", f"results_dir={tmp_path}", "hydra/launcher=joblib"]
    assert run([*args, "run_id=bad"]) == 2
    assert (
        run(
            [
                "-m",
                *TINY,
                "solver.C=1,10",
                f"results_dir={tmp_path}",
                "run_id=good",
                "hydra/launcher=joblib",
            ]
        )
        == 0
    )
    assert [p.name for p in tmp_path.iterdir()] == ["quickstart"]  # the status files are gone


def test_the_documented_slurm_launcher_settings_compose(capsys):
    """No Slurm here: docs/running.md's submitit_slurm overrides are checked against the plugin's
    schema (a misspelt key would fail), and the job keeps the runner's cores."""
    pytest.importorskip("hydra_plugins.hydra_submitit_launcher")
    slurm = ["hydra/launcher=submitit_slurm", "hydra.launcher.partition=short"]
    slurm += ["hydra.launcher.timeout_min=120", "hydra.launcher.cpus_per_task=8", "runner.n_jobs=8"]
    assert run(["--cfg", "all", *slurm]) == 0
    out = capsys.readouterr().out
    assert "SlurmLauncher" in out and "partition: short" in out and "cpus_per_task: 8" in out
    assert "n_jobs: 8" in out


def test_multirun_with_cfg_is_one_line(capsys):
    assert run(["--cfg", "job", "-m", "solver.C=1,10"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        "svmlab: error: --cfg and --multirun cannot be combined: Hydra does one at a time "
        "(--cfg job without -m prints one run's configuration)"
    )


def test_svmlabs_own_overrides_join_the_command_lines_wherever_options_stand(tmp_path):
    """Regression: an option after the overrides (`... solver.C=1,10 -m`) split the overrides
    once svmlab appended its own (the default experiment, the sweep status directory)."""
    args = [*TINY[1:], "solver.C=1,10", f"results_dir={tmp_path}", "run_id=s", "-m"]
    assert run(args) == 0
    assert sorted(p.name for p in (tmp_path / "quickstart" / "s").iterdir() if p.is_dir()) == [
        "0",
        "1",
    ]
