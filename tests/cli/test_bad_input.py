"""Bad input and unusable places give one line and exit status 2 (issue 17, items 7-9).

Most checks here fail before Hydra starts, so they run in-process through ``main``.
"""

from pathlib import Path

import pytest

from svmlab import app
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
    real = app._can_write_in
    monkeypatch.setattr(app, "_can_write_in", lambda d: real(d) and Path(d) != run_dir)
    assert main(["run", f"results_dir={tmp_path}", "run_id=r"]) == 2
    assert _one_error_line(capsys) == (
        f"svmlab: error: cannot resume into run directory {run_dir}: {run_dir} is not writable; "
        "make it writable or choose another run_id=... or results_dir=..."
    )
    assert sorted(p.name for p in run_dir.rglob("*")) == ["done.parquet", "tasks"]  # no log


def test_write_probe_sees_a_directory_it_cannot_write(tmp_path):
    assert app._can_write_in(tmp_path)
    assert not app._can_write_in(tmp_path / "missing")


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
    app.check_cleared_members([f"{plural}={{}}", "dataset=wine"])  # no experiment: the default
