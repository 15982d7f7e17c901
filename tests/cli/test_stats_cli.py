"""`svmlab stats` and `svmlab report --metric` produce the tables and figures."""

from pathlib import Path

import matplotlib.image as mpimg
import numpy as np
import pandas as pd
import pytest

from svmlab.cli import main
from svmlab.errors import StatsInputError
from svmlab.stats.compare import compare, read_table


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
    """Nor scipy.stats or scikit-learn: `svmlab stats` starts at once (issue 34, item 2)."""
    import subprocess
    import sys

    _matrix(tmp_path / "t.csv")
    code = (
        "import sys; from svmlab.cli import main; "
        "rc = main(['stats', 't.csv', '--figures', 'none']); "
        "heavy = ('matplotlib', 'seaborn', 'scikit_posthocs', 'statsmodels', 'scipy.stats', "
        "'sklearn'); print(rc, sorted(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip().splitlines()[-1] == "0 []"


# --- bad input: one line, exit 2, nothing written ----------------------------------------------

GH2008 = (
    Path(__file__).resolve().parents[1] / "stats" / "golden" / "garcia_herrera_2008_accuracy.csv"
)
HEADERLESS = {
    "comma": "Abalone,0.219,0.202,0.249\nAdult,0.803,0.750,0.813\nAutos,0.809,0.774,0.673\n",
    "semicolon": "Abalone;0.219;0.202;0.249\nAdult;0.803;0.750;0.813\nAutos;0.809;0.774;0.673\n",
    "tab": "Abalone\t0.219\t0.202\t0.249\nAdult\t0.803\t0.750\t0.813\nAutos\t0.8\t0.7\t0.6\n",
    "a missing cell": "Abalone,0.219,,0.249\nAdult,0.803,0.750,0.813\nAutos,0.8,0.7,0.6\n",
    "no dataset column": "0.219,0.202,0.249\n0.803,0.750,0.813\n0.809,0.774,0.673\n",
}


def _one_line_error(capsys) -> str:
    out, err = capsys.readouterr()
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("svmlab: error: "), err
    assert "Traceback" not in err and out == ""
    return lines[0]


@pytest.mark.parametrize("kind", sorted(HEADERLESS))
def test_stats_on_a_table_without_a_header_row_is_refused(tmp_path, monkeypatch, capsys, kind):
    """A header-less CSV would take its first dataset's values as method names and lose that
    dataset: it is refused before anything is computed or written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "acc.csv").write_text(HEADERLESS[kind])
    assert main(["stats", "acc.csv", "--output-dir", "out"]) == 2
    line = _one_line_error(capsys)
    assert "acc.csv: the first row must name the methods" in line
    assert "0.219" in line or "0.202" in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["acc.csv"]


def test_numeric_method_names_after_a_dataset_cell_are_a_header(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.csv").write_text("dataset,0.1,1,10\nd1,0.9,0.8,0.7\nd2,0.8,0.7,0.9\n")
    table = read_table(tmp_path / "c.csv")
    assert list(table.columns) == ["0.1", "1", "10"] and list(table.index) == ["d1", "d2"]


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["nosuch.csv"], "nosuch.csv does not exist"),
        (["empty.csv"], "empty.csv: cannot read as a table"),
        (["header_only.csv"], "have no values at all"),
        (["one_method.csv"], "need at least 2 methods to compare, got 1"),
        (["one_dataset.csv"], "need at least 2 datasets to compare, got 1"),
        (["bad.parquet"], "bad.parquet: cannot read as a table"),
        (["gh.csv", "--control", "nosuch"], "unknown method 'nosuch'"),
        (["gh.csv", "--alpha", "2"], "2 is not a significance level"),
        (["gh.csv", "--bd-alpha", "0"], "0 is not a significance level"),
        (["gh.csv", "--bergmann-hommel", "scmamp"], "'scmamp'"),
        (["gh.csv", "--pairwise", "nosuch"], "'nosuch'"),
        (["gh.csv", "-d", "sideways"], "'sideways'"),
    ],
)
def test_stats_bad_input_is_one_line_and_exit_2(tmp_path, monkeypatch, capsys, argv, says):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "gh.csv").write_bytes(GH2008.read_bytes())
    (tmp_path / "empty.csv").write_text("")
    (tmp_path / "header_only.csv").write_text("dataset,A,B\n")
    (tmp_path / "one_method.csv").write_text("dataset,A\nd1,0.5\nd2,0.6\n")
    (tmp_path / "one_dataset.csv").write_text("dataset,A,B\nd1,0.9,0.8\n")
    (tmp_path / "bad.parquet").write_text("x")
    before = sorted(p.name for p in tmp_path.iterdir())
    try:
        status = main(["stats", *argv, "--figures", "png"])
    except SystemExit as exc:  # argparse's own errors
        status = exc.code
    assert status == 2
    assert says in _one_line_error(capsys)
    assert sorted(p.name for p in tmp_path.iterdir()) == before


# --- Bergmann-Hommel: both definitions, the table names which -----------------------------------


@pytest.mark.parametrize(
    ("option", "label", "knn_vs_naive_bayes"),
    [
        ([], "Bergmann-Hommel (exhaustive sets: max over the sets I", "0.0303"),
        (["--bergmann-hommel", "exhaustive"], "Garcia & Herrera 2008", "0.0303"),
        (["--bergmann-hommel", "monotone"], "Bergmann-Hommel, monotone (", "0.0319"),
    ],
)
def test_stats_bergmann_hommel_definition_is_chosen_and_named(
    tmp_path, capsys, option, label, knn_vs_naive_bayes
):
    """Garcia & Herrera (2008)'s 30 x 5 example: k-NN vs NaiveBayes is 0.0303 by the paper's
    definition (the default) and 0.0319 by the monotone one; k-NN vs Kernel is 0.0319 by both."""
    argv = ["stats", str(GH2008), "--pairwise", "bergmann", "--figures", "none", "-f", "csv"]
    assert main(argv + option) == 0
    out = capsys.readouterr().out
    assert "all pairs: Bergmann-Hommel" in out and label in out
    table = out.split("all pairs: ", 1)[1]
    rows = {line.split(",")[0]: line.split(",")[1:] for line in table.splitlines()[1:7]}
    header = table.splitlines()[1].split(",")[1:]
    knn = rows["k-NN(k=1)"]
    assert knn[header.index("NaiveBayes")] == knn_vs_naive_bayes
    assert knn[header.index("Kernel")] == "0.0319"


def test_report_takes_the_bergmann_hommel_option():
    from svmlab.cli._common import stats_kwargs
    from svmlab.cli.parser import build_parser

    parser = build_parser()
    args = parser.parse_args(["report", "run_dir", "--bergmann-hommel", "monotone"])
    assert stats_kwargs(args)["bergmann_hommel"] == "monotone"
    args = parser.parse_args(["report", "run_dir"])
    assert stats_kwargs(args)["bergmann_hommel"] == "exhaustive"


def test_compare_refuses_an_unknown_bergmann_hommel_definition():
    table = read_table(GH2008)
    with pytest.raises(StatsInputError, match="bergmann_hommel='scmamp' is not valid"):
        compare(table, bergmann_hommel="scmamp")
