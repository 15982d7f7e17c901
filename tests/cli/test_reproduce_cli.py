"""``svmlab reproduce``: the document registry, one run per study and one report per document."""

import socket

import pytest

from svmlab.cli import main
from svmlab.report.render import check_page
from svmlab.reproduce import papers
from svmlab.reproduce.papers import PAPERS, Paper, Study

#: iris, wine and moons, 3 solvers, one hold-out split, no grid search: a few seconds.
FAST = (
    "~datasets.breast_cancer",
    "protocol=holdout",
    "tuning.mode=none",
    "runner=sequential",
)


def test_list_names_every_paper_and_its_quick_profiles(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    for name, paper in PAPERS.items():
        assert f"{name}: {paper.title}" in out
        for study in paper.studies:
            assert study.full in out
    assert "mtr_quick" in out and "(none)" not in out  # every study has a quick profile


def test_unknown_paper_is_one_line_with_did_you_mean(capsys):
    assert main(["reproduce", "melki"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("svmlab: error: unknown paper 'melki'. Did you mean melki2018?")


def test_every_registered_experiment_exists():
    from svmlab.paths import conf_dir

    names = {p.stem for p in (conf_dir() / "experiment").glob("*.yaml")}
    for paper in PAPERS.values():
        for study in paper.studies:
            assert study.full in names, (paper.name, study.full)


@pytest.mark.slow
def test_tiny_paper_runs_and_writes_one_report(tmp_path, monkeypatch, capsys):
    tiny = Paper(
        "tiny",
        "A tiny document",
        (
            Study("Sec. 1, quick start", "quickstart", "quickstart", FAST),
            Study("Sec. 2, no quick profile", "quickstart"),
        ),
    )
    monkeypatch.setitem(papers.PAPERS, "tiny", tiny)
    results, out = tmp_path / "results", tmp_path / "out"
    argv = ["reproduce", "tiny", "--quick", "--results-dir", str(results), "--out", str(out)]
    assert main(argv) == 0
    run_dir = results / "quickstart" / "reproduce-quick"
    assert (run_dir / "results.parquet").is_file()
    md = (out / "tiny-quick.md").read_text()
    assert str(run_dir) in md and "\n## accuracy" not in md  # sections one level down
    assert "### accuracy" in md
    assert md.count("skipped: Sec. 2, no quick profile") == 1
    made = md.split("How the runs were made", 1)[1]  # machine, time and code of each run
    assert socket.gethostname() in made and "task-hours" in made
    n_tables, n_figures, problems = check_page(out / "tiny-quick.html")
    assert n_tables >= 3 and not problems  # every table has rows, every figure exists
    assert n_figures, "the rank tests of 3 datasets x 3 methods draw figures"
    # --no-run reports what exists, without running again
    capsys.readouterr()
    assert main([*argv, "--no-run"]) == 0
    assert "reproduce: quickstart" not in capsys.readouterr().err


def test_missing_runs_are_named_and_the_status_is_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(papers.PAPERS, "tiny", Paper("tiny", "T", (Study("S", "quickstart"),)))
    argv = ["reproduce", "tiny", "--no-run", "--results-dir", str(tmp_path), "--out", str(tmp_path)]
    assert main(argv) == 1
    assert "1 experiment(s) without a full run: quickstart" in capsys.readouterr().err
    assert "no results:" in (tmp_path / "tiny.md").read_text()


@pytest.mark.parametrize("flag", ["--out"])
def test_unwritable_out_is_refused_before_running(tmp_path, flag, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    assert main(["reproduce", "svmperf", flag, str(blocker)]) == 2
    assert "is a file, not a directory" in capsys.readouterr().err


def test_deviations_collect_every_mean_abs_delta_row():
    import pandas as pd

    from svmlab.report.builder import MEAN_DELTA, Entry, RunReport, deviations
    from svmlab.stats.sections import Section

    table = pd.DataFrame(
        {"A Δ": ["+0.10", "0.10"], "B Δ": ["-0.30", "0.30"]}, index=["iris", MEAN_DELTA]
    )
    report = RunReport(
        [Section("T1, paper vs this run", table, key=("paper", "T1")), Section("other", table[:1])]
    )
    dev = deviations([Entry("Sec. 1", "exp", None, "ok", report)])
    assert dev.to_dict("index") == {"T1": {"experiment": "exp", "A": "0.10", "B": "0.30"}}


@pytest.mark.slow
def test_a_study_can_be_a_sweep(tmp_path, monkeypatch):
    sweep = Study("Sec. 1, over C", "quickstart", overrides=("-m", "solver.C=1,10", *FAST))
    monkeypatch.setitem(papers.PAPERS, "tiny", Paper("tiny", "T", (sweep,)))
    argv = ["reproduce", "tiny", "--results-dir", str(tmp_path), "--out", str(tmp_path / "out")]
    assert main(argv) == 0
    runs = sorted(
        p.parent.name for p in (tmp_path / "quickstart" / "reproduce").glob("*/config.yaml")
    )
    assert runs == ["0", "1"]
    md = (tmp_path / "out" / "tiny.md").read_text()
    assert "svc [solver.C=1]" in md and "svc [solver.C=10]" in md


@pytest.mark.slow
def test_only_runs_the_named_studies_and_the_report_names_the_rest(tmp_path, monkeypatch):
    two = Paper(
        "tiny",
        "T",
        (Study("Sec. 1", "quickstart", overrides=FAST), Study("Sec. 2", "quickstart_other")),
    )
    monkeypatch.setitem(papers.PAPERS, "tiny", two)
    argv = ["reproduce", "tiny", "--results-dir", str(tmp_path), "--out", str(tmp_path)]
    assert main([*argv, "--only", "quickstart"]) == 0
    md = (tmp_path / "tiny.md").read_text()
    assert "skipped: Sec. 2 (quickstart_other: left out (--only))" in md
    assert (tmp_path / "quickstart" / "reproduce" / "results.parquet").is_file()


@pytest.mark.parametrize("order", ["folds", "solvers"])
def test_order_reaches_the_run_as_runner_order(tmp_path, monkeypatch, order):
    import svmlab.app

    calls = []
    monkeypatch.setattr(svmlab.app, "run", lambda overrides: calls.append(overrides) or 0)
    monkeypatch.setitem(papers.PAPERS, "tiny", Paper("tiny", "T", (Study("Sec. 1", "quickstart"),)))
    argv = ["reproduce", "tiny", "--results-dir", str(tmp_path), "--out", str(tmp_path / "out")]
    main([*argv, "--order", order])
    assert len(calls) == 1 and f"runner.order={order}" in calls[0]


def test_only_with_an_unknown_experiment_is_one_line(capsys):
    assert main(["reproduce", "mierswa2009", "--only", "evosvm_bnch", "--no-run"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "unknown experiment 'evosvm_bnch'. Did you mean evosvm_bench" in err[0]


def test_check_page_names_an_empty_table_and_a_missing_figure(tmp_path):
    page = tmp_path / "p.html"
    page.write_text(
        "<table><tr><th>a</th></tr></table><table><tr><th>h</th></tr><tr><td>1</td></tr>"
        '</table><img src="gone.png"><img src="/abs.png">'
    )
    assert check_page(page) == (
        2,
        2,
        [
            "table 1 has no data rows",
            "figure gone.png does not exist",
            "figure '/abs.png' is not a relative path",
        ],
    )
