"""Bad input and unusable places give one line and exit status 2 (issue 17, items 7-9).

Most checks here fail before Hydra starts, so they run in-process through ``main``.
"""

from pathlib import Path

import pytest
from omegaconf import OmegaConf

from svmlab import run_checks
from svmlab.cli import main


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("svmlab: error: ")
    return err.strip()


def test_run_directory_path_that_is_a_file(tmp_path, capsys):
    """Regression: Hydra's FileExistsError traceback when results/<name>/<run_id> is a file."""
    (tmp_path / "adhoc").mkdir()
    blocker = tmp_path / "adhoc" / "ff"
    blocker.write_text("keep me")
    for run_id in ("ff", "ff/sub"):
        args = ["run", "dataset=iris", f"results_dir={tmp_path}", f"run_id={run_id}"]
        assert main(args) == 2
        assert _one_error_line(capsys) == (
            f"svmlab: error: run directory {tmp_path}/adhoc/{run_id} cannot be created: "
            f"{blocker} is a file, not a directory; choose another run_id=... or results_dir=..."
        )
    assert blocker.read_text() == "keep me"


def test_resume_into_a_read_only_run_directory(tmp_path, capsys, monkeypatch):
    """Root passes permission checks, so the write probe is simulated failing."""
    run_dir = tmp_path / "quickstart" / "r"
    (run_dir / "tasks").mkdir(parents=True)
    (run_dir / "tasks" / "done.parquet").write_bytes(b"rows")
    real = run_checks.can_write_in
    monkeypatch.setattr(run_checks, "can_write_in", lambda d: real(d) and Path(d) != run_dir)
    assert main(["run", f"results_dir={tmp_path}", "run_id=r"]) == 2
    assert _one_error_line(capsys) == (
        f"svmlab: error: cannot resume into run directory {run_dir}: {run_dir} is not writable; "
        "make it writable or choose another run_id=... or results_dir=..."
    )
    assert sorted(p.name for p in run_dir.rglob("*")) == ["done.parquet", "tasks"]  # no log


def test_write_probe_sees_a_directory_it_cannot_write(tmp_path):
    assert run_checks.can_write_in(tmp_path)
    assert not run_checks.can_write_in(tmp_path / "missing")


@pytest.mark.parametrize("plural", ["datasets", "solvers"])
def test_clearing_an_experiments_entries_with_braces_is_an_error(tmp_path, capsys, plural):
    """Regression: `+experiment=quickstart datasets={}` ran all four datasets anyway."""
    args = ["run", "+experiment=quickstart", f"{plural}={{}}", f"results_dir={tmp_path}"]
    assert main(args) == 2
    one = plural[:-1]
    assert _one_error_line(capsys) == (
        f"svmlab: error: {plural}={{}} does not remove the experiment's {plural} (Hydra merges "
        f"it into them); drop entries with {plural}.NAME=null, or leave out the experiment and "
        f"name one with {one}=NAME"
    )
    assert not any(tmp_path.iterdir())
    # without an experiment the entries are empty anyway: the default, accepted
    alone = OmegaConf.create({plural: {}, "hydra": {"overrides": {"task": [f"{plural}={{}}"]}}})
    run_checks.check_cleared_members(alone)


def _fake_run(run_dir: Path, *, drop=(), unstarted=()) -> None:
    """A run of 2 methods x 3 folds on iris, wine, breast_cancer and digits (and the datasets
    ``unstarted``, listed without rows), its task files written the way the runner writes
    them; ``drop`` leaves tasks out, as a run killed before them."""
    import numpy as np
    import yaml

    from svmlab.runner.store import write_task_rows

    (run_dir / "tasks").mkdir(parents=True)
    rng = np.random.default_rng(0)
    tasks = {"iris": "multiclass", "wine": "multiclass", "breast_cancer": "binary"}
    tasks["digits"] = "multiclass"
    for dataset, task in tasks.items():
        for solver in ("knn", "svc"):
            for fold in range(3):
                key = f"{dataset}-{solver}-r0f{fold}"
                if (dataset, solver, fold) in drop:
                    continue
                row = {"key": key, "experiment": "t", "run_id": "r", "dataset": dataset}
                row |= {"task_type": task, "solver": solver, "variant": "", "status": "ok"}
                row |= {"error": "", "repeat": 0, "fold": fold, "seed": 0, "tuning_mode": "none"}
                write_task_rows(run_dir, key, [row | {"accuracy": float(rng.uniform(0.8, 1))}])
    names = [*tasks, *unstarted]
    config = {
        "name": "t",
        "protocol": {"name": "cv3", "kind": "auto_kfold", "n_splits": 3, "n_repeats": 1},
        "datasets": {n: {"name": n, "params": {}} for n in names},
    }
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config))
    (run_dir / "run.json").write_text('{"experiment": "t"}')


def test_report_of_a_killed_run_tests_the_complete_datasets_and_names_the_rest(tmp_path, capsys):
    """Regression: a killed multi-dataset run's report exited 2 (missing cells) unless
    --no-stats, or ranked a dataset whose folds were half done."""
    run_dir = tmp_path / "r"
    lost = {("wine", "svc", 2), ("digits", "knn", 0), ("digits", "knn", 1)}
    _fake_run(run_dir, drop=lost, unstarted=["moons"])
    (run_dir / "tasks" / "digits-knn-r0f2.parquet").unlink()  # no digits/knn cell at all
    assert main(["report", str(run_dir), "--figures"]) == 0
    out, err = capsys.readouterr()
    assert err.strip() == (
        "svmlab: note: the run is incomplete; the statistics use only the datasets with every "
        "method's folds and leave out digits (knn 0 of 3 folds); moons (no rows yet); wine "
        "(svc 2 of 3 folds)"
    )
    summary = out.split("## Friedman")[0]
    for dataset in ("iris", "wine", "breast_cancer", "digits"):  # every table that can be shown
        assert f"| {dataset} " in summary
    assert "_N = 2 datasets, k = 2 methods." in out  # iris and breast_cancer only
    _fake_run(tmp_path / "whole")
    assert main(["report", str(tmp_path / "whole"), "--figures"]) == 0
    out, err = capsys.readouterr()
    assert "_N = 4 datasets, k = 2 methods." in out and err == ""


def test_report_refuses_unwritable_output_and_figures_before_any_work(tmp_path, capsys):
    run_dir = tmp_path / "r"
    _fake_run(run_dir)
    blocker = tmp_path / "file"
    blocker.write_text("")
    cases = [
        (
            ["-o", str(blocker / "out.md")],
            f"--output {blocker}/out.md cannot be created: {blocker} is a file",
        ),
        (["-o", str(tmp_path)], f"--output {tmp_path} is a directory; give a file name"),
        (
            ["--figures-dir", str(blocker)],
            f"--figures-dir {blocker} is a file, not a directory; give a directory",
        ),
        (
            ["--figures-dir", str(blocker / "f")],
            f"--figures-dir {blocker}/f cannot be created: {blocker} is a file",
        ),
    ]
    for extra, message in cases:
        assert main(["report", str(run_dir), *extra]) == 2
        assert _one_error_line(capsys) == f"svmlab: error: {message}"
    assert not (run_dir / "report").exists() and blocker.read_text() == ""


def test_data_fetch_tries_every_name_and_reports_each_failure(capsys):
    """Regression: `data fetch A B C` stopped at the first failure."""
    assert main(["data", "fetch", "nosuch1", "iris", "nosuch2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert [line.split(": ")[2] for line in err[:3]] == ["nosuch1", "iris", "nosuch2"]
    assert all(line.startswith("svmlab: error: ") for line in err[:3])
    assert err[3] == "svmlab: 3 of 3 dataset(s) not fetched: nosuch1, iris, nosuch2"
    assert len(err) == 4 and "Traceback" not in "\n".join(err)


def test_run_with_an_unreachable_dask_scheduler_is_one_line(run_cli, tmp_path):
    """Regression: runner.address=tcp://127.0.0.1:9 gave dask's traceback after 30 s."""
    import socket

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nobody listens once it is closed
    args = ["run", "dataset=iris", "solver=knn", "protocol=holdout", "runner=dask"]
    args += [f"runner.address=tcp://127.0.0.1:{port}", f"results_dir={tmp_path}", "run_id=d"]
    proc = run_cli(*args, cwd=tmp_path, check=2)
    assert proc.stderr == (
        f"svmlab: error: runner.address='tcp://127.0.0.1:{port}': cannot connect to a dask "
        f"scheduler at 127.0.0.1:{port} (Connection refused); start one (dask scheduler) or set "
        "runner.address=null for a local cluster\n"
    )
    assert not (tmp_path / "adhoc").exists()  # the run directory Hydra made is removed


def test_report_with_an_infinite_cell_keeps_its_tables_and_names_the_cell(tmp_path, capsys):
    """An infinite metric value cannot be ranked: the report says so for that metric in one
    note and still prints every table (exit 0), instead of ending with an error."""
    import pyarrow.parquet as pq

    from svmlab.runner.store import write_task_rows

    run_dir = tmp_path / "r"
    _fake_run(run_dir)
    path = run_dir / "tasks" / "wine-svc-r0f1.parquet"
    row = pq.read_table(path).to_pylist()[0] | {"accuracy": float("inf")}
    write_task_rows(run_dir, "wine-svc-r0f1", [row])
    assert main(["report", str(run_dir), "--metric", "accuracy"]) == 0
    out, err = capsys.readouterr()
    assert "Traceback" not in err
    notes = [line for line in err.splitlines() if "no rank tests for accuracy" in line]
    assert len(notes) == 1 and "infinite" in notes[0] and "wine" in notes[0]
    for dataset in ("iris", "wine", "breast_cancer", "digits"):
        assert f"| {dataset} " in out


def test_a_sweep_into_an_unusable_results_directory_is_one_line(tmp_path, capsys):
    """Regression: the sweep's status directory was made before the check, so -m met a file
    in the way with a NotADirectoryError traceback."""
    blocker = tmp_path / "file"
    blocker.write_text("keep me")
    args = ["run", "-m", "dataset=iris", "solver.C=1,10", f"results_dir={blocker}/res"]
    assert main(args) == 2
    assert _one_error_line(capsys) == (
        f"svmlab: error: results directory {blocker}/res cannot be created: {blocker} is not a "
        "writable directory; set results_dir=... to another place"
    )
