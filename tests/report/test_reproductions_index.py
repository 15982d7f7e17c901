"""The index of a folder of document reports (svmlab/report/reproductions_index.py)."""

import json
import re

from svmlab.report.reproductions_index import (
    BEGIN,
    DEVIATES,
    END,
    NO_SPREAD,
    NOT_RUN,
    REPRODUCED,
    SAME_VERDICTS,
    _unrun_rows,
    headings,
    index_markdown,
    read_records,
    table_status,
    update_index,
    write_record,
)
from svmlab.reproduce.papers import PAPERS


def _summary(**kw):
    base = {"n_compared": 5, "n_published": 8, "within_spread": True, "note": ""}
    return base | {"spread_run": 1.0, "spread_published": None} | kw


def test_status_follows_the_spread_the_run_and_the_explanations():
    assert table_status(_summary(), partial=False, explained=False) == REPRODUCED
    assert table_status(_summary(within_spread=False), False, False) == DEVIATES
    assert "explained" in table_status(_summary(within_spread=False), False, True)
    assert table_status(_summary(), partial=True, explained=False).endswith("partial run")
    none = table_status(_summary(n_compared=0, note="figure only"), False, False)
    assert none.startswith("not compared") and "figure only" in none


def test_headings_get_githubs_anchors_repeats_numbered():
    md = "# T\n## A: x\n### Friedman test\n## B: y\n### Friedman test\n"
    anchors = [a for _, _, a in headings(md)]
    assert anchors == ["t", "a-x", "friedman-test", "b-y", "friedman-test-1"]


def test_a_sweeps_target_lists_every_jobs_tables():
    rows = _unrun_rows({"experiment": "evosvm_variants", "part": "Table 3.4"}, NOT_RUN)
    names = [r["table"] for r in rows]
    assert len(names) == 3 and all("Table 3.4" in n for n in names)


def test_every_document_is_listed_with_its_tables_when_nothing_ran():
    text = index_markdown({})
    for paper in PAPERS.values():
        assert f"### {paper.title}" in text
    assert "Table 5.3" in text and "Table 19" in text and NOT_RUN in text


def _record(document="svmperf", quick=False):
    return {
        "document": document,
        "title": "t",
        "quick": quick,
        "report": f"{document}.md",
        "studies": [{"experiment": "svmperf_bench", "made": {"tasks": 3}, "incomplete": {}}],
        "tables": [
            {
                "experiment": "svmperf_bench",
                "table": "Fig. 1: AUC",
                "job": "",
                "status": REPRODUCED,
                "mean_abs_delta": 0.0123,
                "spread": 0.05,
                "rho_median": 0.8,
                "verdicts": "1 of 4",
                "datasets": "2 of 2",
                "digits": 3,
                "link": "svmperf.md#fig-1",
            }
        ],
    }


def test_an_index_line_keeps_eight_cells_when_a_table_name_holds_pipes():
    record = _record()
    record["tables"][0]["table"] = "Table 13: NORM = ||B|| / ||B_Full||"
    line = next(x for x in index_markdown({"svmperf": record}).splitlines() if "NORM" in x)
    assert len(re.split(r"(?<!\\)\|", line.strip().strip("|"))) == 8


def test_update_index_rewrites_only_its_block_and_skips_quick_records(tmp_path):
    write_record(tmp_path, _record())
    write_record(tmp_path, _record("oliveira", quick=True) | {"report": "oliveira-quick.md"})
    assert set(read_records(tmp_path)) == {"svmperf"}
    readme = tmp_path / "README.md"
    readme.write_text(f"# Intro\nkept above\n{BEGIN}\nstale line\n{END}\nkept below\n")
    update_index(tmp_path)
    text = readme.read_text()
    assert text.startswith("# Intro\nkept above\n") and text.endswith(f"{END}\nkept below\n")
    assert "stale line" not in text
    assert "[Fig. 1: AUC](svmperf.md#fig-1)" in text and "| 0.012 | 0.050 | +0.80 | 1 of 4" in text
    assert json.loads((tmp_path / "svmperf.index.json").read_text())["document"] == "svmperf"
    # the quick record does not stand in for the full study
    assert "No full report yet (`svmlab reproduce oliveira`)" in text


def test_a_table_without_a_spread_is_neither_reproduced_nor_deviating():
    status = table_status(_summary(spread_run=float("nan"), within_spread=False), False, False)
    assert status == NO_SPREAD


def test_a_table_of_tests_is_judged_by_its_verdicts():
    tests = _summary(spread_run=None, within_spread=False, verdicts_compared=6)
    assert table_status(tests | {"verdicts_differ": 0}, False, False) == SAME_VERDICTS
    assert table_status(tests | {"verdicts_differ": 5}, False, False) == DEVIATES
    explained = table_status(tests | {"verdicts_differ": 5}, True, True)
    assert explained == DEVIATES + " (explained in the report) - partial run"


def test_run_time_tables_are_judged_by_order_only():
    status = table_status(_summary(ranks_only=True, within_spread=False), False, False)
    assert status.startswith("order only")


def test_a_readme_without_the_block_keeps_its_text(tmp_path):
    readme = tmp_path / "README.md"
    readme.write_text("# Full reproductions\n\nhow they were made\n")
    update_index(tmp_path)
    text = readme.read_text()
    assert text.startswith("# Full reproductions\n\nhow they were made\n")
    assert BEGIN in text and END in text


def test_the_status_counts_include_tables_not_run():
    counts = index_markdown({}).split("\n\n")[0]
    assert f"| {NOT_RUN} |" in counts


def test_the_status_counts_say_how_many_come_from_an_unfinished_run():
    from svmlab.reproduce.papers import PAPERS

    name = next(iter(PAPERS))
    tables = [
        {"status": "reproduced within its spread"},
        {"status": "reproduced within its spread - partial run"},
        {"status": "deviates (explained in the report) - partial run"},
    ]
    tables = [t | {"table": f"Table {i}", "experiment": "e"} for i, t in enumerate(tables)]
    record = {"tables": tables, "studies": [], "report": f"{name}.md"}
    counts = index_markdown({name: record}).split("\n\n")[0]
    assert "| reproduced within its spread | 2 | 1 |" in counts
    assert "| deviates | 1 | 1 |" in counts


def test_links_prefer_the_side_by_side_heading():
    from svmlab.report.reproductions_index import _section_anchor

    md = (
        "## Part: exp\n### accuracy (mean ± std over folds)\n"
        "### Friedman / Iman-Davenport test (accuracy, higher is better)\n"
        "### Doc, Table 1: accuracy, paper vs this run\n## Other: exp2\n"
    )
    anchor = _section_anchor(headings(md), "Part: exp", "accuracy", "")
    assert anchor == "doc-table-1-accuracy-paper-vs-this-run"
    assert _section_anchor(headings(md), "Part: exp", "missing title", "") == "part-exp"


def test_the_last_column_counts_a_tables_rows_not_only_datasets():
    # HyDR-MI's Tables 6-13 have subset sizes, classifiers or baselines as rows
    text = index_markdown({"svmperf": _record()})
    assert "| verdicts differ | rows compared |" in text and "| 2 of 2 |" in text
