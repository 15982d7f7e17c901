"""Bad input and unusable places give one line and exit status 2 (issue 17, items 7-9;
issue 34, item 3).

The catalogue of bad inputs is organised by command: ``test_bad_input_run.py`` (``svmlab
run``), ``test_bad_input_commands.py`` (``report``, ``stats``, ``reproduce``, ``data``,
``list``); :func:`assert_refused` holds what every case asserts. This file keeps the cases that
need more than one command line. Most checks fail before Hydra starts, so they run in-process
through ``main``.
"""

import hashlib
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from svmlab import run_checks
from svmlab.cli import main


def cases(table):
    """``pytest.param(words, named)`` of a catalogue table, each with its words as id."""
    return [pytest.param(words, named, id=str(words)[:70]) for words, named in table]


def exit_status(argv: list[str]) -> int:
    """``svmlab ARGV`` in-process; argparse's errors end in SystemExit, svmlab's return."""
    try:
        return main(argv)
    except SystemExit as exc:
        return exc.code


def _snapshot(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): "dir"
        if p.is_dir()
        else hashlib.sha256(p.read_bytes()).hexdigest()
        for p in root.rglob("*")
    }


def assert_refused(argv: list[str], named: list[str], root: Path, capsys) -> str:
    """``svmlab ARGV`` exits with status 2 and one to three lines on stderr, the first
    ``svmlab: error: ...``, holding each of ``named`` and no traceback; nothing is printed on
    stdout and nothing under ``root`` is written or changed (a results directory ``root/res``
    may be left, empty)."""
    capsys.readouterr()
    before = _snapshot(root)
    code = exit_status(argv)
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert code == 2, f"exit {code}\nstderr:\n{err}"
    assert "Traceback" not in err and 1 <= len(lines) <= 3, err
    assert lines[0].startswith("svmlab: error: "), err
    for text in named:
        assert text in err, f"{text!r} not in {err!r}"
    assert out.strip() == "", out
    after = _snapshot(root)
    changed = {p for p in after if before.get(p) != after[p]} | (set(before) - set(after))
    assert changed <= {"res"}, changed
    return err.strip()


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


def _fake_run(run_dir: Path, *, drop=(), unstarted=(), solvers=None) -> None:
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
    if solvers:
        config["solvers"] = {n: {"name": n, "tasks": ["binary", "multiclass"]} for n in solvers}
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config))
    (run_dir / "run.json").write_text('{"experiment": "t"}')


def test_report_of_a_killed_run_tests_on_the_shared_folds_and_names_the_rest(tmp_path, capsys):
    """Regression: a killed multi-dataset run's report exited 2 (missing cells) unless
    --no-stats, or ranked a dataset whose folds were half done on unequal folds."""
    run_dir = tmp_path / "r"
    lost = {("wine", "svc", 2), ("digits", "knn", 0), ("digits", "knn", 1)}
    _fake_run(run_dir, drop=lost, unstarted=["moons"])
    (run_dir / "tasks" / "digits-knn-r0f2.parquet").unlink()  # no digits/knn cell at all
    assert main(["report", str(run_dir), "--figures"]) == 0
    out, err = capsys.readouterr()
    assert err.strip() == (
        "svmlab: note: the run is incomplete; the statistics compare each dataset on the folds "
        "every method has finished: wine (2 of 3 folds), and leave out digits (no rows of knn); "
        "moons (no rows yet)"
    )
    summary = out.split("## Friedman")[0]
    for dataset in ("iris", "wine", "breast_cancer", "digits"):  # every table that can be shown
        assert f"| {dataset} " in summary
    assert "_N = 3 datasets, k = 2 methods." in out  # iris, breast_cancer, wine on 2 folds
    _fake_run(tmp_path / "whole")
    assert main(["report", str(tmp_path / "whole"), "--figures"]) == 0
    out, err = capsys.readouterr()
    assert "_N = 4 datasets, k = 2 methods." in out and err == ""


def test_a_listed_solver_without_any_row_is_named_as_not_started(tmp_path):
    """A study whose run has not reached one of its solvers names it (the report and the
    reproductions index say exactly what is missing)."""
    from svmlab.results import incomplete_datasets, load_results, unstarted_solvers

    _fake_run(tmp_path / "r", solvers=["knn", "svc", "lssvm"])
    rows = load_results(tmp_path / "r")
    assert unstarted_solvers(rows) == ["lssvm"]
    assert incomplete_datasets(rows) == {}  # no method of the tables: every dataset is ranked
    from svmlab.report.builder import run_report

    notes = run_report(tmp_path / "r", no_stats=True).notes
    assert any("has not reached 1 of its solvers yet (no rows): lssvm" in n for n in notes)
    _fake_run(tmp_path / "whole", solvers=["knn", "svc"])
    assert unstarted_solvers(load_results(tmp_path / "whole")) == []


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
    """Regression: `data fetch A B C` stopped at the first failure. A bundled set (iris)
    has no file to fetch: it is said, and it is not a failure."""
    assert main(["data", "fetch", "nosuch1", "iris", "nosuch2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert [line.split(": ")[2] for line in err[:2]] == ["nosuch1", "nosuch2"]
    assert all(line.startswith("svmlab: error: ") for line in err[:2])
    assert err[2] == "svmlab: iris: sklearn data, no file to fetch"
    assert err[3] == "svmlab: 2 of 3 dataset(s) not fetched: nosuch1, nosuch2"
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


@pytest.mark.parametrize("flag", ["-m", "--multirun"])
def test_multirun_flag_may_stand_between_overrides(flag, tmp_path, capsys):
    """Regression: `-m` between overrides gave argparse's "unrecognized arguments"; here Hydra
    parses the command line and composes, and svmlab's check of the sweep answers."""
    args = ["run", "dataset=iris", flag, "+experiment=quickstart", f"results_dir={tmp_path}"]
    assert main([*args, "datasets={}"]) == 2
    assert _one_error_line(capsys).startswith("svmlab: error: datasets={} does not remove")
    assert not any(tmp_path.iterdir())


def test_the_accepted_values_pass_their_rule():
    """The other side of the catalogue: the limits themselves, names with parts, booleans."""
    from svmlab.run_checks import check_value

    accepted = [("seed", 0), ("seed", 2**32 - 1), ("run_id", "a/b"), ("run_id", 7)]
    accepted += [("name", "x" * 255), ("results_dir", "."), ("data.allow_download", True)]
    accepted += [("runner.progress", False), ("dataset.params.random_state", None)]
    accepted += [("solvers.svc.random_state", 2**32 - 1), ("solver.grid.random_state", [0, 1])]
    accepted += [("report.bd_alpha", 0.1), ("report.bd_alpha", None), ("datasets", {})]
    for key, value in accepted:
        check_value(key, value)


def test_derived_seeds_use_the_whole_seed_and_refuse_others():
    """Item 4: a seed of 2^32 or more gave the folds of the seed mod 2^32 while the rows
    recorded the large seed; derive_seed now refuses it, and every accepted seed is its own."""
    from svmlab.seeding import MAX_SEED, derive_seed

    assert derive_seed(0, "split", "iris", 0) != derive_seed(MAX_SEED, "split", "iris", 0)
    assert derive_seed(5, "x") == derive_seed(5, "x")
    for seed in (-1, MAX_SEED + 1, 2**63 + 1):
        with pytest.raises(ValueError, match="0 to 4294967295"):
            derive_seed(seed, "split")


def test_hydra_errors_exit_2_with_one_line_in_a_real_process(run_cli, tmp_path):
    """Hydra's own errors (an unknown key; a config file that is not YAML, read through an
    experiment's defaults list) end the console command with svmlab's line and status 2,
    where Hydra exited 1 with several lines or a traceback."""
    conf = tmp_path / "conf"
    (conf / "experiment").mkdir(parents=True)
    (conf / "solver").mkdir()
    (conf / "experiment" / "mine.yaml").write_text(
        "# @package _global_\ndefaults:\n  - override /solver: broken\nname: mine\n"
    )
    (conf / "solver" / "broken.yaml").write_text("name: broken\n\tC: 1\n")
    base = ["run", f"results_dir={tmp_path}/res", "dataset=iris"]
    proc = run_cli(*base, "nosuch.key=1", cwd=tmp_path, check=2)
    assert proc.stderr.startswith("svmlab: error: unknown setting nosuch.key")
    assert proc.stderr.count("\n") == 1 and proc.stdout == ""
    proc = run_cli(*base, "--config-dir", str(conf), "+experiment=mine", cwd=tmp_path, check=2)
    assert proc.stderr == (
        f"svmlab: error: {conf}/solver/broken.yaml, line 2, column 1: not valid YAML (found "
        "character '\\t' that cannot start any token, while scanning for the next token)\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["conf"]


def test_every_shipped_config_file_passes_the_value_rules():
    """The rules refuse nothing svmlab ships: each value of each file of conf/ (keys placed
    where the file's group puts them; interpolations are checked once composed)."""
    import yaml

    from svmlab.paths import conf_dir
    from svmlab.run_checks import check_value

    def leaves(prefix, node):
        if isinstance(node, dict):
            for key, value in node.items():
                yield from leaves(f"{prefix}.{key}" if prefix else str(key), value)
        else:
            yield prefix, node

    files = sorted(conf_dir().rglob("*.yaml"))
    for path in files:
        group = path.parent.relative_to(conf_dir()).as_posix()
        prefix = "" if group in (".", "experiment") else group
        content = yaml.safe_load(path.read_text()) or {}
        for key, value in leaves(prefix, content):
            if not (isinstance(value, str) and "${" in value):
                check_value(key, value)
    assert len(files) > 300


@pytest.mark.parametrize(
    "words",
    [
        "--cfg job dataset=iris --resolve",
        "dataset=iris --cfg=job -p solver",
        "-c job dataset=iris",
        "--info defaults dataset=iris",
        "dataset=iris --info",
        "-i searchpath",
        "--help",
        "dataset=iris -h",
    ],
)
def test_hydras_own_options_still_pass_the_checks(words, tmp_path, capsys, monkeypatch):
    """The other side of the option checks: Hydra's options, in any place, run as before
    (print and exit 0, nothing written)."""
    monkeypatch.chdir(tmp_path)
    assert exit_status(["run", f"results_dir={tmp_path}/res", *words.split()]) == 0
    out, err = capsys.readouterr()
    assert out and "svmlab: error" not in err and not any(tmp_path.iterdir())
