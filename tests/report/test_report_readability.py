"""What a reader of a report sees: a sweep's rank tests within each of its runs, charts
coloured by the test of the table they illustrate, headings that name their metric, wide
tables that scroll, and each fact said once."""

import re

import numpy as np
import pandas as pd
import pytest

from svmlab.report.builder import (
    UNAVAILABLE,
    Entry,
    RunReport,
    deviation_summary,
    document,
    unavailable_section,
)
from svmlab.report.rank_tests import add_rank_tests, block_control, rank_test_blocks
from svmlab.report.render import render
from svmlab.stats.analysis import analyse, control_holm_categories
from svmlab.stats.sections import Section

SOLVERS = ["evosvm", "evosvm_s", "evosvm_h", "psosvm", "mysvm_like", "libsvm_kernel"]
JOBS = ["evo.C=1", "evo.C=0.1", "evo.C=0.01"]


def _sweep_rows(jobs=JOBS, solvers=SOLVERS, datasets=("bupa", "sonar", "spiral"), folds=3):
    """Result rows of a sweep over C as ``load_results`` labels them (``"evosvm [evo.C=1]"``)."""
    rng = np.random.default_rng(0)
    rows = []
    for job in jobs:
        for s, solver in enumerate(solvers):
            for d, dataset in enumerate(datasets):
                for fold in range(folds):
                    rows.append(
                        {
                            "task_type": "binary",
                            "dataset": dataset,
                            "solver": solver,
                            "job": job,
                            "method": f"{solver} [{job}]" if job else solver,
                            "fold": fold,
                            "repeat": 0,
                            "status": "ok",
                            "selected": True,
                            "accuracy": 0.9 - 0.05 * s + 0.01 * d + 0.001 * rng.random(),
                        }
                    )
    return pd.DataFrame(rows)


def _report(df, tmp_path, metrics=("accuracy",), **stats):
    out = RunReport()
    stats = {"pairwise": ("holm",), **stats}
    add_rank_tests(
        out, df, list(metrics), "mean", {}, out_dir=tmp_path, formats=("svg",), stats=stats
    )
    return out


def _omnibus_notes(out):
    return [s.note for s in out.sections if s.title.startswith("Friedman")]


def test_a_sweeps_rank_tests_compare_the_methods_of_each_run(tmp_path):
    out = _report(_sweep_rows(), tmp_path)
    notes = _omnibus_notes(out)
    assert len(notes) == 3 and all("k = 6 methods" in n and "N = 3" in n for n in notes)
    groups = list(dict.fromkeys(s.group for s in out.sections))
    assert len(groups) == 3 and all(job in g for job, g in zip(JOBS, groups))
    for section in out.sections:  # plain method names inside a run's block
        assert not any("[evo.C" in str(c) for c in section.table.columns)
    for job in JOBS:  # each run's figures, named after it and placed in its block
        own = [
            p
            for p in out.figures
            if out.figure_groups[str(p)].endswith(f"{job} (its methods against each other)")
        ]
        assert own and all(job.replace("=", "_") in p.name for p in own)
    assert len({p.name for p in out.figures}) == len(out.figures)


def test_a_sweep_of_single_methods_compares_across_its_runs(tmp_path):
    out = _report(_sweep_rows(solvers=["svc"]), tmp_path)
    notes = _omnibus_notes(out)
    assert len(notes) == 1 and "k = 3 methods" in notes[0]
    assert all(s.group == "" for s in out.sections)


def test_a_single_run_is_one_block():
    df = _sweep_rows(jobs=[""])
    assert [job for job, _ in rank_test_blocks(df)] == [""]


def test_the_control_of_a_block_is_the_given_method_in_that_run():
    rows = _sweep_rows().assign(method=lambda d: d["solver"])
    assert block_control("psosvm [evo.C=1]", "evo.C=0.1", rows) == "psosvm"
    assert block_control("nosuch [evo.C=1]", "evo.C=0.1", rows) is None
    assert block_control(None, "evo.C=0.1", rows) is None


def test_block_headings_are_written_once_above_their_sections():
    t = pd.DataFrame({"a": ["1"]}, index=pd.Index(["x"], name="dataset"))
    sections = [Section("first", t, group="run A"), Section("second", t, group="run A")]
    md = render(sections + [Section("third", t, group="run B")], "markdown")
    assert md.count("## run A") == 1 and "### first" in md and "### second" in md
    assert md.index("## run B") > md.index("### second")
    page = render(sections, "html")
    assert page.count("run A</h3>") == 1 and "<h4>first</h4>" in page
    assert "# run A: first" in render(sections, "csv")


def _svg_categories(path) -> dict[str, str]:
    text = path.read_text()
    return {m: c for c, m in re.findall(r'id="rank-bar:([a-z_]+):([^"]+)"', text)}


def test_the_holm_chart_colours_the_methods_the_1xn_table_rejects(tmp_path):
    # 6 methods on 8 datasets, one clearly worse: the 1xN Holm test rejects it
    rng = np.random.default_rng(3)
    table = pd.DataFrame(
        rng.random((8, 6)) * 0.01 + np.array([0.90, 0.89, 0.88, 0.87, 0.86, 0.5]),
        columns=list("ABCDEF"),
        index=[f"d{i}" for i in range(8)],
    )
    cmp, sections, paths = analyse(table, "max", name="acc", out_dir=tmp_path, formats=("svg",))
    rejected = {m for m, r in cmp.control_table.iterrows() if r["holm_reject"]}
    assert rejected  # the case the chart used to leave uncoloured
    drawn = _svg_categories(tmp_path / "acc_rank_bars_holm.svg")
    assert {m for m, c in drawn.items() if c in ("worse", "better")} == rejected
    assert control_holm_categories(cmp) == drawn
    table_1xn = next(s for s in sections if "z, unadjusted and adjusted p" in s.title)
    yes = table_1xn.table["Holm rejects (alpha=0.05)"] == "yes"
    assert set(table_1xn.table.index[yes]) == rejected
    svg = (tmp_path / "acc_rank_bars_holm.svg").read_text()
    assert "control vs. each" in svg


def test_every_statistics_heading_names_its_metric_and_direction(tmp_path):
    df = _sweep_rows(jobs=[""])
    df["error_rate"] = 1 - df["accuracy"]
    out = _report(df, tmp_path, metrics=("accuracy", "error_rate"))
    stats_titles = [s.title for s in out.sections if "meta-rank" not in s.title]
    assert len(stats_titles) == 8
    for metric, word in (("accuracy", "higher"), ("error_rate", "lower")):
        mine = [t for t in stats_titles if f"{metric}, {word} is better" in t]
        assert len(mine) == 4, stats_titles
    friedman = [t for t in stats_titles if t.startswith("Friedman")]
    assert len(set(friedman)) == 2


def test_wide_html_tables_scroll_and_markdown_stays_plain():
    wide = pd.DataFrame([[f"{v:.4f}" for v in range(30)]], columns=[f"m{i}" for i in range(30)])
    section = Section("wide", wide.rename_axis("dataset"))
    html = render([section], "html")
    assert "<div class='scroll'><table>" in html
    from svmlab.report.render import CSS

    assert "overflow-x:auto" in CSS and "position:sticky" in CSS
    assert "scroll" not in render([section], "markdown")


def test_a_pipe_inside_a_markdown_cell_does_not_split_the_row():
    norm = pd.DataFrame({"NORM = ||B|| / ||B_Full||": ["0.84 | 0.99"]}, index=["aba"])
    text = render([Section("norms", norm.rename_axis("dataset"))], "markdown")
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    # a row splits on unescaped pipes only: two cells, header and body alike
    assert [len(re.split(r"(?<!\\)\|", r.strip().strip("|"))) for r in rows] == [2, 2]
    assert r"\|\|B\|\|" in text


def _entry(name, missing):
    return Entry("part", name, None, "ok", RunReport(config={"unavailable_datasets": missing}))


def test_a_dataset_not_obtainable_is_explained_once(monkeypatch):
    import svmlab.report.builder as builder

    monkeypatch.setattr(
        builder, "unavailable", lambda c: [(n, f"why {n}") for n in c["unavailable_datasets"]]
    )
    entries = [_entry("a_quick", ["lupus", "crabs"]), _entry("b_quick", ["lupus"])]
    section = unavailable_section(entries)
    assert section.title == UNAVAILABLE
    assert list(section.table.index) == ["lupus", "crabs"]
    assert section.table.at["lupus", "used by"] == "a_quick, b_quick"
    md, page = document("doc", entries, __import__("pathlib").Path("."))
    assert md.count("why lupus") == 1 and page.count("why lupus") == 1
    assert "not obtainable here: lupus, crabs; why: see [Datasets not obtainable here]" in md
    assert "href='#datasets-not-obtainable-here'" in page
    assert "id='datasets-not-obtainable-here'" in page


def _paper_section(title, key, number=""):
    table = pd.DataFrame({"A Δ": ["1.0"]}, index=pd.Index(["mean abs. Δ"], name="dataset"))
    return Section(title, table, key=("paper", key), number=number)


def test_summary_rows_carry_their_table_numbers_and_are_unique():
    a = RunReport(
        sections=[_paper_section("Doc, Table 3.3 (x): error, paper vs this run", "error")]
    )
    b = RunReport(
        sections=[
            _paper_section("Doc, Table 4.2 (y): error, paper vs this run", "error"),
            _paper_section("Doc (z): error, paper vs this run", "other error", number="Table 5.1"),
            _paper_section("Doc: error, paper vs this run", "[C=1] Table 6.1: error"),
        ]
    )
    c = RunReport(sections=[_paper_section("Doc, no number: error", "error")])
    d = RunReport(sections=[_paper_section("Doc, no number: error", "error")])
    entries = [Entry("p", n, None, "ok", r) for n, r in zip("abcd", (a, b, c, d))]
    summary = deviation_summary(entries)
    assert list(summary.index) == [
        "Table 3.3: error",
        "Table 4.2: error",
        "Table 5.1: other error",
        "Table 6.1: error [C=1]",
        "error (c)",
        "error (d)",
    ]
    assert summary.index.is_unique


@pytest.mark.parametrize("fmt", ["markdown", "latex"])
def test_best_cells_stay_bold(fmt):
    t = pd.DataFrame({"svc": ["0.95"], "knn": ["0.93"]}, index=pd.Index(["iris"], name="dataset"))
    text = render([Section("accuracy", t, best={"iris": ["svc"]})], fmt)
    assert ("**0.95**" if fmt == "markdown" else r"\textbf{0.95}") in text


def test_html_headings_carry_the_anchors_of_the_markdown_headings():
    from svmlab.report.render import anchored

    body = anchored("<h2>Summary</h2><h3 class='block'>Run C=1</h3><h3>Run C=1</h3>")
    assert "<h2 id='summary'>" in body
    assert "<h3 class='block' id='run-c1'>" in body and "<h3 id='run-c1-1'>" in body


def test_a_sweeps_control_may_be_named_plainly(tmp_path):
    from svmlab.report.rank_tests import control_names

    df = _sweep_rows()
    assert {"psosvm", "psosvm [evo.C=1]"} <= control_names(df)
    out = _report(df, tmp_path, control="psosvm")
    assert all(
        s.table.index.name == "psosvm vs." for s in out.sections if "against each" in s.title
    )
