"""The command line, end to end, in subprocesses."""

import json
import os
import signal
import subprocess
import sys
import time

import pandas as pd
import pytest


def test_top_level_help_lists_commands(run_cli):
    out = run_cli("--help", check=0).stdout
    for word in ("run", "report", "list", "data", "SVMLAB_DATA_DIR", "svmlab run -m"):
        assert word in out


def test_run_help_shows_groups_and_examples(run_cli):
    out = run_cli("run", "--help", check=0).stdout
    for word in ("solver:", "protocol:", "svc", "stratified10", "+experiment=quickstart", "run_id"):
        assert word in out, word


@pytest.mark.parametrize(
    "what, expect",
    [
        ("solvers", "svc"),
        ("protocols", "bag_stratified10"),
        ("experiments", "quickstart"),
        ("datasets", "iris"),
        ("metrics", "auc_bal"),
    ],
)
def test_list(run_cli, what, expect):
    assert expect in run_cli("list", what, check=0).stdout


def test_subcommand_help(run_cli):
    assert "--aggregate" in run_cli("report", "--help", check=0).stdout
    assert "verify" in run_cli("data", "--help", check=0).stdout


def test_quickstart_runs_and_reports(run_cli, tmp_path):
    proc = run_cli(
        "run", f"results_dir={tmp_path}", "run_id=q", "runner.n_jobs=2", cwd=tmp_path, check=0
    )
    run_dir = tmp_path / "quickstart" / "q"
    df = pd.read_parquet(run_dir / "results.parquet")
    assert set(df["solver"]) == {"svc", "linear_svc", "knn"}
    assert len(df) == 4 * 3 * 10 and (df["status"] == "ok").all()
    assert "accuracy (mean ± std over folds; higher is better)" in proc.stdout
    assert "breast_cancer" in proc.stdout and "120 tasks ok" in proc.stderr
    report = run_cli(
        "report", str(run_dir), "--metric", "kappa", "--format", "latex", check=0
    ).stdout
    assert "\\toprule" in report and "\\textbf" in report
    # the results file itself can be reported too (figures go beside it)
    from_file = run_cli("report", str(run_dir / "results.parquet"), check=0)
    assert "Friedman" in from_file.stdout and (run_dir / "report").is_dir()
    # a second run of the same run_id resumes: nothing to do
    again = run_cli("run", f"results_dir={tmp_path}", "run_id=q", cwd=tmp_path, check=0)
    assert "120 already done" in again.stderr


def test_sweep_writes_one_run_per_configuration(run_cli, tmp_path):
    run_cli(
        "run",
        "-m",
        "dataset=wine",
        "solver=svc,linear_svc",
        "solver.C=1,10",
        "protocol.n_splits=3",
        f"results_dir={tmp_path}",
        "run_id=sw",
        "runner=sequential",
        "runner.progress=false",
        cwd=tmp_path,
        check=0,
    )
    runs = sorted(p.parent for p in (tmp_path / "adhoc" / "sw").rglob("run.json"))
    assert len(runs) == 4
    out = run_cli("report", str(tmp_path / "adhoc" / "sw"), check=0).stdout
    for label in (
        "svc [solver.C=1]",
        "svc [solver.C=10]",
        "linear_svc [solver.C=1]",
        "linear_svc [solver.C=10]",
    ):
        assert label in out
    # the swept parameter is fixed, not tuned, and the rows record the value used
    for run in runs:
        df = pd.read_parquet(run / "results.parquet")
        swept = float(df["variant"][0].split("solver.C=")[1].split(";")[0])
        assert {json.loads(p)["C"] for p in df["chosen_params"]} == {swept}
        assert "C" not in json.loads(df["solver_params"][0])["grid"]


QUICK = [
    "+experiment=quickstart",
    "datasets.wine=null",
    "datasets.breast_cancer=null",
    "datasets.moons=null",
    "protocol.n_splits=3",
    "runner=sequential",
    "runner.progress=false",
]


def test_override_of_an_experiment_entry_is_what_the_model_used(run_cli, tmp_path):
    """Regression: `solvers.linear_svc.C=1000` lost to linear_svc's grid (C=10 was fitted)."""
    run_cli(
        "run", *QUICK, "solvers.linear_svc.C=1000", f"results_dir={tmp_path}", "run_id=o", check=0
    )
    df = pd.read_parquet(tmp_path / "quickstart" / "o" / "results.parquet")
    lin = df[df["solver"] == "linear_svc"]
    assert {json.loads(p)["C"] for p in lin["chosen_params"]} == {1000}
    assert {json.loads(p)["C"] for p in lin["solver_params"]} == {1000}
    other = df[df["solver"] == "svc"]  # the other solvers keep tuning C
    assert {json.loads(p)["C"] for p in other["chosen_params"]} <= {0.1, 1, 10, 100}


def test_solver_without_grid_is_not_labelled_outer_best(run_cli, tmp_path):
    """Regression: naive_bayes under tuning.mode=outer_best was reported as '(outer-best)'."""
    run_cli(
        "run",
        "dataset=iris",
        "solver=naive_bayes",
        "tuning.mode=outer_best",
        "protocol.n_splits=3",
        "runner=sequential",
        "runner.progress=false",
        f"results_dir={tmp_path}",
        "run_id=nb",
        check=0,
    )
    run_dir = tmp_path / "adhoc" / "nb"
    df = pd.read_parquet(run_dir / "results.parquet")
    assert set(df["tuning_mode"]) == {"none"}
    out = run_cli("report", str(run_dir), "--no-stats", check=0).stdout
    assert "naive_bayes" in out and "outer-best" not in out


@pytest.mark.parametrize(
    "args, message",
    [
        (["solver=nosuch"], "nosuch"),
        (["dataset=nosuch"], "nosuch"),
        (["+experiment=nosuch"], "nosuch"),
        (["dataset=iris", "solver.C=abc"], "'C' parameter of SVC"),
        (["dataset=iris", "+solver.bogus=1"], "has no parameter 'bogus'"),
        (["dataset=diabetes", "solver=svr", "protocol=stratified10"], "stratifies on class labels"),
        (["dataset=diabetes"], "solver 'svc' handles binary, multiclass datasets"),
        (["dataset=iris", "tuning.mode=sometimes"], "tuning.mode='sometimes' is not valid"),
    ],
)
def test_bad_input_one_clear_error(run_cli, tmp_path, args, message):
    proc = run_cli("run", f"results_dir={tmp_path}", *args, cwd=tmp_path)
    assert proc.returncode != 0
    assert message in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not list(tmp_path.rglob("*.parquet"))  # failed before any compute


def test_results_dir_checks(run_cli, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    proc = run_cli("run", f"results_dir={blocker}", "dataset=iris", cwd=tmp_path)
    assert proc.returncode != 0 and "Traceback" not in proc.stderr
    run_cli(
        "run",
        f"results_dir={tmp_path}",
        "dataset=iris",
        "solver=knn",
        "run_id=x",
        "runner=sequential",
        "hydra.run.dir=" + str(tmp_path / "shared"),
        cwd=tmp_path,
        check=0,
    )
    proc = run_cli(
        "run",
        f"results_dir={tmp_path}",
        "+experiment=quickstart",
        "run_id=x",
        "hydra.run.dir=" + str(tmp_path / "shared"),
        cwd=tmp_path,
    )
    assert proc.returncode == 2 and "belongs to experiment 'adhoc', not 'quickstart'" in proc.stderr


def test_failed_tasks_exit_nonzero_and_say_how_many(run_cli, tmp_path, test_conf):
    proc = run_cli(
        "run",
        "--config-dir",
        str(test_conf),
        "dataset=iris",
        "solver=failing",
        "protocol.n_splits=3",
        f"results_dir={tmp_path}",
        "runner=sequential",
        cwd=tmp_path,
    )
    assert proc.returncode == 1
    assert "3 of 3 tasks failed" in proc.stderr and "kaputt" in proc.stderr


@pytest.mark.slow
def test_sigkill_loses_no_finished_task_and_resumes(tmp_path, test_conf):
    args = [
        sys.executable,
        "-m",
        "svmlab",
        "run",
        "--config-dir",
        str(test_conf),
        "dataset=iris",
        "solver=sleepy",
        "protocol=holdout",
        "protocol.n_repeats=16",
        f"results_dir={tmp_path}",
        "run_id=k",
        "runner.n_jobs=2",
        "runner.progress=false",
    ]
    proc = subprocess.Popen(
        args,
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    tasks = tmp_path / "adhoc" / "k" / "tasks"
    deadline = time.monotonic() + 600  # a hang guard: a loaded machine may start slowly
    while len(list(tasks.glob("*.parquet"))) < 4:
        assert proc.poll() is None and time.monotonic() < deadline, "no 4 tasks on disk"
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)  # the parent and its workers, mid-run
    proc.wait()
    finished = {p.name for p in tasks.glob("*.parquet")}
    assert 4 <= len(finished) < 16
    for p in tasks.glob("*.parquet"):
        assert pd.read_parquet(p)["status"].tolist() == ["ok"]  # every visible file is complete
    done = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"{len(finished)} already done" in done.stderr
    df = pd.read_parquet(tmp_path / "adhoc" / "k" / "results.parquet")
    assert len(df) == 16 and df["key"].is_unique and sorted(df["repeat"]) == list(range(16))
    assert finished <= {p.name for p in tasks.glob("*.parquet")}


@pytest.mark.slow
@pytest.mark.parametrize("runner", ["sequential", "local"])
def test_ctrl_c_prints_one_line_exits_130_and_keeps_finished_tasks(tmp_path, test_conf, runner):
    args = [sys.executable, "-m", "svmlab", "run", "--config-dir", str(test_conf)]
    args += ["dataset=iris", "solver=sleepy", "protocol=holdout", "protocol.n_repeats=12"]
    args += [f"results_dir={tmp_path}", "run_id=c", f"runner={runner}", "runner.progress=false"]
    # pytest-xdist workers ignore SIGINT, and children inherit that: restore the default
    restore = lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)  # noqa: E731
    proc = subprocess.Popen(
        args, cwd=tmp_path, stderr=subprocess.PIPE, text=True, preexec_fn=restore
    )
    tasks = tmp_path / "adhoc" / "c" / "tasks"
    deadline = time.monotonic() + 600  # a hang guard: a loaded machine may start slowly
    while len(list(tasks.glob("*.parquet"))) < 2:
        assert proc.poll() is None and time.monotonic() < deadline, "no 2 tasks on disk"
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)  # what Ctrl-C sends
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 130
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert last.startswith("svmlab: interrupted") and "resume" in last
    finished = list(tasks.glob("*.parquet"))
    assert 2 <= len(finished) < 12
    assert all(pd.read_parquet(p)["status"].tolist() == ["ok"] for p in finished)


def test_failed_validation_leaves_no_run_directory_but_keeps_an_existing_run(run_cli, tmp_path):
    base = ["run", "dataset=iris", "solver=svc", "protocol=holdout", f"results_dir={tmp_path}"]
    bad = run_cli(*base, "solver.C=-1", "run_id=x", cwd=tmp_path, check=2)
    assert "'C' parameter" in bad.stderr
    assert not (tmp_path / "adhoc").exists()  # neither the run nor the experiment folder
    run_cli(*base, "run_id=r", cwd=tmp_path, check=0)
    run_cli(*base, "solver.C=-1", "run_id=r", cwd=tmp_path, check=2)
    assert (tmp_path / "adhoc" / "r" / "results.parquet").is_file()  # a real run stays


@pytest.mark.parametrize("group", ["dataset", "solver", "protocol", "runner"])
def test_a_nulled_group_is_one_line_not_a_traceback(run_cli, tmp_path, group):
    proc = run_cli("run", f"{group}=null", f"results_dir={tmp_path}", cwd=tmp_path, check=2)
    assert proc.stderr.strip() == (
        f"svmlab: error: {group}=null leaves the run without a {group}; name one (svmlab list "
        f"{group}s), or drop one entry of an experiment with {group}s.NAME=null"
    )
    assert not any(tmp_path.iterdir())


def test_report_reads_tasks_when_results_parquet_is_truncated_and_refuses_a_plain_file(
    run_cli, tmp_path
):
    run_cli(
        "run",
        "dataset=iris",
        "solver=svc",
        "protocol=holdout",
        f"results_dir={tmp_path}",
        "run_id=t",
        cwd=tmp_path,
        check=0,
    )
    results = tmp_path / "adhoc" / "t" / "results.parquet"
    results.write_bytes(results.read_bytes()[:100])  # a disk that filled up mid-write
    proc = run_cli("report", str(results.parent), "--no-stats", cwd=tmp_path, check=0)
    assert "cannot be read (ArrowInvalid); reading the rows from" in proc.stderr
    assert "## accuracy" in proc.stdout and "Traceback" not in proc.stderr
    plain = tmp_path / "notes.txt"
    plain.write_text("a,b\n")
    bad = run_cli("report", str(plain), cwd=tmp_path, check=2)
    assert bad.stderr.strip().startswith("svmlab: error:") and len(bad.stderr.splitlines()) == 1
