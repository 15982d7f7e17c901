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


def test_stats_omnibus_choice_procedure_tables_and_figures(tmp_path, capsys):
    from svmlab.cli import main

    _matrix(tmp_path / "mse.csv")
    out_dir = tmp_path / "out"
    argv = ["stats", str(tmp_path / "mse.csv"), "-d", "lower", "--omnibus", "quade", "-o"]
    argv += [str(out_dir), "--pairwise", "bergmann", "nemenyi_tukey", "--figures", "svg"]
    assert main(argv) == 0
    text = (out_dir / "mse.md").read_text()
    assert "Friedman / Iman-Davenport test; Quade test" in text and "| Quade " in text
    assert "all pairs: Bergmann-Hommel (exhaustive sets" in text
    assert "all pairs: Nemenyi, Tukey form (studentized range" in text
    assert "Quade T | z  " in text and "| Hommel " in text and "BD rejects (alpha=0.05)" in text
    for which in ("bergmann", "nemenyi_tukey"):
        for kind in ("cd_diagram", "rank_bars", "pvalues"):
            svg = (out_dir / f"mse_{kind}_{which}.svg").read_text()
            assert all(m in svg for m in ("SVRCC", "SVR", "ST", "MORF")), (kind, which)


def test_stats_bergmann_for_ten_methods_is_one_line(tmp_path, capsys):
    from svmlab.cli import main

    rng = np.random.default_rng(1)
    pd.DataFrame(rng.uniform(size=(5, 10)), columns=[f"m{i}" for i in range(10)]).to_csv(
        tmp_path / "k10.csv"
    )
    argv = ["stats", str(tmp_path / "k10.csv"), "--pairwise", "bergmann", "--figures", "none"]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.strip().count("\n") == 0 and err.startswith("svmlab: error: --pairwise bergmann")
    assert "2 to 9 methods" in err and "k = 10" in err and "shaffer" in err


def test_stats_help_defines_every_procedure(capsys):
    import pytest

    from svmlab.cli import main
    from svmlab.stats.compare import OMNIBUS_TESTS
    from svmlab.stats.posthoc import ADJUSTMENTS
    from svmlab.stats.tables import PAIRWISE_LABELS

    with pytest.raises(SystemExit):
        main(["stats", "--help"])
    lines = capsys.readouterr().out.splitlines()
    for name in {*OMNIBUS_TESTS, *ADJUSTMENTS, *PAIRWISE_LABELS}:
        # each procedure starts a help line and a definition follows its name on that line
        assert any(
            f" {name} " in f" {line.strip()} " and len(line.split()) > 2 for line in lines
        ), name
    assert any("tied ranks) keep the column order" in line for line in lines)


def test_stats_without_figures_imports_no_plotting_library(tmp_path):
    import subprocess
    import sys

    _matrix(tmp_path / "t.csv")
    code = (
        "import sys; from svmlab.cli import main; "
        "rc = main(['stats', 't.csv', '--figures', 'none']); "
        "print(rc, sorted(m for m in ('matplotlib', 'seaborn', 'scikit_posthocs', 'statsmodels')"
        " if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "0 []"
