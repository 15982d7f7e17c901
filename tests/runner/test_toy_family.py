"""A new algorithm family lands without touching the core.

``tests/runner/toy_family/`` holds a family that exists only in the tests: two estimators
(``toy_estimators.py``) that declare svmlab's estimator contract, their solver files and an
experiment, given to ``svmlab run`` with ``--config-dir``. Nothing in ``svmlab/runner``,
``svmlab/evaluation`` or ``svmlab/solvers.py`` knows of it; every capability the contract
offers must still reach the run.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

TOY = Path(__file__).parent / "toy_family"
#: every test reads the one `svmlab run` (a subprocess) of the toy family
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def toy_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("toy")
    env = {**os.environ, "PYTHONPATH": str(TOY), "SVMLAB_TOY_LOG": str(tmp / "calls.log")}
    proc = subprocess.run(
        [sys.executable, "-m", "svmlab", "run", "--config-dir", str(TOY / "conf")]
        + ["+experiment=toy_study", f"results_dir={tmp}", "run_id=t", "runner=sequential"],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    df = pd.read_parquet(tmp / "toy_study" / "t" / "results.parquet")
    calls = (tmp / "calls.log").read_text().splitlines()
    return df, calls


def test_every_task_of_the_toy_family_runs(toy_run):
    df, _ = toy_run
    assert (df["status"] == "ok").all()
    assert sorted(zip(df["dataset"], df["solver"])) == sorted(
        [("breast_cancer", "toy")] * 5 + [("mi_bags", "toy_bags")] * 5
    )


def test_a_bags_estimator_gets_bags(toy_run):
    _, calls = toy_run
    bag_fits = [c for c in calls if c.startswith("fit_bags")]
    assert len(bag_fits) == 5 and all(c.endswith("ndarray") for c in bag_fits)


def test_the_path_parameter_is_fitted_as_one_path_and_ignored_parameters_once(toy_run):
    """Grid shrink x unused: `unused` is ignored, so each inner fold (5 outer x 2 inner)
    fits the shrink path once, and only the chosen model is refitted per outer fold."""
    _, calls = toy_run
    assert calls.count("fit_path [0.0, 0.3, 0.6]") == 10
    assert sum(c.startswith("fit shrink=") for c in calls) == 5


def test_declared_row_values_and_self_tuning_time_reach_the_row(toy_run):
    df, _ = toy_run
    toy = df[df["solver"] == "toy"]
    assert np.isfinite(toy["toy_spread"]).all() and (toy["toy_spread"] > 0).all()
    assert df.loc[df["solver"] == "toy_bags", "toy_spread"].isna().all()
    np.testing.assert_allclose(toy["final_fit_time"], (toy["fit_time"] - 0.25).clip(lower=0))
    assert (toy["tune_time"] >= 0.25).all()


def test_transductive_fit_sees_the_test_rows_unlabeled_and_diagnostics_are_kept(toy_run):
    df, _ = toy_run
    toy = df[df["solver"] == "toy"]
    infos = [json.loads(f) for f in toy["fit_info"]]
    assert [i["n_unlabeled"] for i in infos] == toy["n_test"].tolist()
    assert all(0.5 < i["toy_test_accuracy"] <= 1.0 for i in infos)
    np.testing.assert_allclose([i["toy_test_accuracy"] for i in infos], toy["accuracy"])
