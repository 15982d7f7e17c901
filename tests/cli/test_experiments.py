"""Every shipped experiment composes, and the OLLAWV quick profile runs end to end."""

import os
from pathlib import Path

import pandas as pd
import pytest

from svmlab.paths import conf_dir

EXPERIMENTS = sorted(p.stem for p in (conf_dir() / "experiment").glob("*.yaml"))


@pytest.mark.parametrize("name", EXPERIMENTS)
def test_experiment_composes(run_cli, tmp_path, name):
    out = run_cli("run", f"+experiment={name}", "--cfg", "job", cwd=tmp_path, check=0).stdout
    assert f"name: {name}" in out


@pytest.mark.skipif(not os.environ.get("SVMLAB_DATA_DIR") or not Path(os.environ.get("SVMLAB_DATA_DIR", "")).is_dir(),
                    reason="needs SVMLAB_DATA_DIR")
def test_ollawv_quick_runs_and_reports_beside_the_paper(run_cli, tmp_path):
    drop = [f"~datasets.{d}" for d in ("wine", "sonar", "vote", "heart")]
    proc = run_cli("run", "+experiment=ollawv_quick", *drop, "protocol.n_splits=3", "tuning.inner_folds=2",
                   f"results_dir={tmp_path}", "run_id=q", "runner=sequential", cwd=tmp_path, check=0)
    assert "Table 5.3" in proc.stdout and "OLLAWV paper" in proc.stdout
    df = pd.read_parquet(tmp_path / "ollawv_quick" / "q" / "results.parquet")
    assert set(df["solver"]) == {"ollawv", "nnisda", "mnsvm"} and (df["status"] == "ok").all()
    assert (df["sv_percent"] > 0).all() and (df.groupby("solver")["accuracy"].mean() > 0.8).all()
