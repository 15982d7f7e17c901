import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def svmlab(*args, cwd=None, env=None, timeout=300, check=None):
    """Run the installed `svmlab` entry point (as `python -m svmlab`) in a subprocess."""
    full_env = {**os.environ, **(env or {})}
    proc = subprocess.run(
        [sys.executable, "-m", "svmlab", *args],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if check is not None:
        assert proc.returncode == check, (
            f"exit {proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
        )
    return proc


@pytest.fixture
def run_cli():
    return svmlab


@pytest.fixture
def test_conf(tmp_path):
    """A config dir (for Hydra's --config-dir) with test-only solvers."""
    d = tmp_path / "testconf" / "solver"
    d.mkdir(parents=True)
    (d / "sleepy.yaml").write_text(
        "name: sleepy\n_target_: svmlab.testing.SleepClassifier\ntasks: [binary, "
        "multiclass]\nseconds: 0.4\n"
    )
    (d / "failing.yaml").write_text(
        "name: failing\n_target_: svmlab.testing.FailingClassifier\ntasks: [binary, "
        "multiclass]\nmessage: kaputt\n"
    )
    return d.parent
