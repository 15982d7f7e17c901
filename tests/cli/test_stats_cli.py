"""`svmlab stats` and `svmlab report --metric` produce the tables and figures."""

import matplotlib.image as mpimg
import numpy as np
import pandas as pd


def _matrix(path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        rng.uniform(0.5, 1.5, size=(8, 4)) + [0.0, 0.2, 0.4, 0.6],
        columns=["SVRCC", "SVR", "ST", "MORF"],
        index=[f"d{i}" for i in range(8)],
    )
    df.index.name = "Dataset"
    df.to_csv(path)
    return df


def test_stats_latex_tables_and_figures(run_cli, tmp_path):
    _matrix(tmp_path / "mse.csv")
    proc = run_cli(
        "stats",
        str(tmp_path / "mse.csv"),
        "--control",
        "SVRCC",
        "--metric-direction",
        "lower",
        "--format",
        "latex",
        "--figures",
        "png",
        "svg",
        cwd=tmp_path,
        check=0,
    )
    out = proc.stdout
    assert (
        out.count("\\toprule") == 5
        and "Iman-Davenport" in out
        and "SVRCC vs." in out
        and "Holm threshold" in out
    )
    png = tmp_path / "mse_stats" / "mse_rank_bars.png"
    img = mpimg.imread(png)
    assert img.ndim == 3 and img.shape[0] > 200
    svg = (tmp_path / "mse_stats" / "mse_cd_diagram.svg").read_text()
    assert all(m in svg for m in ("SVRCC", "SVR", "ST", "MORF"))


def test_stats_bad_input_is_one_clear_error(run_cli, tmp_path):
    df = _matrix(tmp_path / "t.csv").astype(object)
    df.iloc[2, 1] = "n/a?"
    df.to_csv(tmp_path / "bad.csv")
    proc = run_cli("stats", str(tmp_path / "bad.csv"), cwd=tmp_path)
    assert (
        proc.returncode == 2
        and "non-numeric value 'n/a?' for dataset 'd2', method 'SVR'" in proc.stderr
    )
    proc = run_cli("stats", str(tmp_path / "t.csv"), "--control", "SVRC", cwd=tmp_path)
    assert proc.returncode == 2 and "unknown method 'SVRC'. Did you mean SVRCC" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_report_with_metric_adds_tests_and_figures(run_cli, tmp_path):
    run_cli(
        "run",
        "+experiment=quickstart",
        "protocol.n_splits=3",
        f"results_dir={tmp_path}",
        "run_id=r",
        "runner=sequential",
        cwd=tmp_path,
        check=0,
    )
    run_dir = tmp_path / "quickstart" / "r"
    out = run_cli(
        "report", str(run_dir), "--metric", "accuracy", "--aggregate", "pooled", check=0
    ).stdout
    assert "Friedman / Iman-Davenport test" in out and "against each method" in out
    assert (run_dir / "report" / "accuracy_rank_bars.png").exists()
    assert (run_dir / "report" / "accuracy_cd_diagram.png").exists()
