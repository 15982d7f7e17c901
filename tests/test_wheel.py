"""svmlab installed from a (non-editable) wheel finds its configs and registry."""

import os
import subprocess
import sys

import pytest

from svmlab.paths import REPO_ROOT

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run(
        [
            *pip,
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            str(tmp / "dist"),
            str(REPO_ROOT),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next((tmp / "dist").glob("svmlab-*.whl"))
    subprocess.run(
        [*pip, "install", "--no-deps", "--target", str(tmp / "site"), str(wheel)],
        check=True,
        capture_output=True,
    )
    return tmp


def _run(site, *args):
    env = {**os.environ, "PYTHONPATH": str(site / "site")}
    return subprocess.run(
        [sys.executable, *args], cwd=site, env=env, capture_output=True, text=True, timeout=300
    )


def test_wheel_contains_configs_and_registry(site):
    code = (
        "import svmlab, svmlab.paths as p; print(svmlab.__file__); print(p.conf_dir()); "
        "print(p.registry_file());"
        "print(p.repo_datasets_dir())"
    )
    out = _run(site, "-c", code)
    assert out.returncode == 0, out.stderr
    pkg, conf, registry, repo_ds = out.stdout.split()
    assert pkg.startswith(str(site / "site"))
    assert conf == str(site / "site" / "svmlab" / "_conf")
    assert registry == str(site / "site" / "svmlab" / "_datasets" / "registry.yaml")
    assert repo_ds == "None"


def test_wheel_runs_an_experiment(site):
    out = _run(
        site,
        "-m",
        "svmlab",
        "run",
        "dataset=iris",
        "solver=knn",
        "protocol.n_splits=3",
        "runner=sequential",
        f"results_dir={site / 'results'}",
        "run_id=w",
    )
    assert out.returncode == 0, out.stderr
    assert (site / "results" / "adhoc" / "w" / "results.parquet").exists()
    assert "quickstart" in _run(site, "-m", "svmlab", "list", "experiments").stdout


def test_wheel_carries_the_published_tables_tests_and_deviation_notes(site):
    code = (
        "from svmlab.reproduce import REPRODUCTIONS, known_deviations, get_reproduction;"
        "from svmlab.reproduce.published_tests import published_tests;"
        "n = sum(len(known_deviations(r)) for r in REPRODUCTIONS);"
        "r = get_reproduction('ollawv_table_5_3');"
        "print(n, published_tests('mtr_acc.csv')['control'], len(r.published(r.tables[0])))"
    )
    out = _run(site, "-c", code)
    assert out.returncode == 0, out.stderr
    n_notes, control, n_rows = out.stdout.split()
    assert int(n_notes) >= 4 and control == "SVRCC" and int(n_rows) == 23
