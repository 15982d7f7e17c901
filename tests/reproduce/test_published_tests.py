"""The published test tables beside the run's (svmlab.reproduce.published_tests) and the
deviation summary of ``svmlab reproduce`` (svmlab.report.builder)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd
import pytest
import yaml

from svmlab.report.builder import Entry, RunReport, deviation_summary
from svmlab.report.render import markdown_html
from svmlab.reproduce import REPRODUCTIONS, known_deviations
from svmlab.reproduce.published_tests import (
    DIFFERS,
    VERDICTS_ROW,
    _all_published,
    paper_verdicts,
    side_by_side_tests,
)
from svmlab.stats.sections import Section

GOLDEN = Path(__file__).parents[1] / "stats" / "golden"
WITH_RANKS = [csv for csv, pub in _all_published().items() if pub.get("average_ranks")]


def _published_table(csv: str) -> pd.DataFrame:
    path = resources.files("svmlab.reproduce").joinpath("published", csv)
    return pd.read_csv(path, index_col=0)


@pytest.mark.parametrize("csv", sorted(_all_published()))
def test_the_packaged_tests_are_the_golden_fixtures_published_values(csv):
    fixture = yaml.safe_load((GOLDEN / csv.replace(".csv", ".yaml")).read_text())
    printed, packaged = fixture["published"], _all_published()[csv]
    for key in ("average_ranks", "wilcoxon", "z_p", "holm_threshold", "cd"):
        assert packaged.get(key) == printed.get(key), key
    if packaged.get("average_ranks"):
        assert packaged["control"] == fixture["control"]
        assert packaged["N"] == fixture["N"]
        assert packaged["bd_alpha"] == fixture["bd_alpha"]
    for key in ("F", "p"):
        assert (packaged.get("iman_davenport") or {}).get(key) == (
            printed.get("iman_davenport") or {}
        ).get(key)


@pytest.mark.parametrize("csv", WITH_RANKS)
def test_the_papers_own_table_gives_every_published_verdict(csv):
    """Fed the published per-dataset table, the run-side tests agree with every printed
    verdict (Wilcoxon, Holm, Bonferroni-Dunn per method, and Iman-Davenport)."""
    table, note = side_by_side_tests(_published_table(csv), _all_published()[csv])
    assert table.at[VERDICTS_ROW, DIFFERS].startswith("0 of ")
    assert int(table.at[VERDICTS_ROW, DIFFERS].split(" of ")[1]) >= 2 * (len(table) - 2)
    assert "this run: N =" in note


def test_paper_verdicts_follow_the_printed_numbers():
    v = paper_verdicts(_all_published()["mtr_acc.csv"])
    # the six methods the text lists beyond the Bonferroni-Dunn CD (2.4236) of SVRCC
    assert sorted(v.index[v["bd"] == "worse"]) == sorted(["MORF", "ST", "MTS", "MTSC", "RC", "ERC"])
    assert v.at["SVRRC", "wilcoxon_p"] == _all_published()["mtr_acc.csv"]["wilcoxon"]["SVRRC"]["p"]
    assert not v.at["SVRRC", "holm"] and v.at["RC", "holm"]
    # MIL prints no z-test p: it is derived from the printed ranks (N = 15, k = 12)
    mil = paper_verdicts(_all_published()["mil_accuracy.csv"])
    assert mil.at["MIBoost", "z_p"] < 1e-6 and mil.at["MIBoost", "bd"] == "worse"


def test_a_run_that_disagrees_is_counted_and_named():
    pub = _all_published()["mtr_acc.csv"]
    ours = _published_table("mtr_acc.csv")
    ours["SVRCC"], ours["RC"] = ours["RC"].to_numpy(), ours["SVRCC"].to_numpy()  # swap best/worst
    table, _ = side_by_side_tests(ours, pub)
    n_diff = int(table.at[VERDICTS_ROW, DIFFERS].split(" of ")[0])
    assert n_diff >= 5
    assert "Bonferroni-Dunn" in table.at["MORF", DIFFERS]
    entry = Entry(
        "Ch. 3",
        "mtr_quick",
        None,
        "ok",
        RunReport([Section("MTR: aCC, tests", table, key=("tests", "aCC"))]),
    )
    summary = deviation_summary([entry])
    assert summary.at["aCC", "test verdicts that differ"] == table.at[VERDICTS_ROW, DIFFERS]
    assert "MORF:" in summary.at["aCC", "where"]


def test_a_run_without_the_control_has_no_tests_and_says_why():
    pub = _all_published()["mtr_acc.csv"]
    ours = _published_table("mtr_acc.csv").drop(columns=["SVRCC"])
    table, note = side_by_side_tests(ours, pub)
    assert VERDICTS_ROW not in table.index
    assert "no tests on this run: the run has no SVRCC" in note
    assert (table["avg. rank ours"] == "").all()


def test_the_summary_has_mean_delta_and_spearman_per_table():
    side = pd.DataFrame(
        {"A Δ": ["+0.1", "0.10", "+0.50"], "B Δ": ["-0.3", "0.30", "-0.20"]},
        index=["iris", "mean abs. Δ", "rank corr. ρ"],
    )
    report = RunReport([Section("T: acc, paper vs this run", side, key=("paper", "acc"))])
    entry = Entry("p", "exp", None, "ok", report)
    row = deviation_summary([entry]).loc["acc"]
    assert row["mean abs. Δ (mean over methods)"] == "0.2"
    assert row["Spearman ρ (median; min..max)"] == "+0.15 (-0.20..+0.50)"


def test_every_named_deviation_has_its_explanation_with_a_number():
    for name in REPRODUCTIONS:
        for topic, text in known_deviations(name):
            assert text.startswith("**"), topic  # one bold sentence first
            assert any(ch.isdigit() for ch in text), topic  # a measured number
    assert any(r.deviations for r in REPRODUCTIONS.values())


def test_markdown_notes_become_html():
    html = markdown_html("**Bold.** `cmd --quick` gives _0.5_ %.\n\n- one\n- two <3")
    assert html.startswith("<p><strong>Bold.</strong> <code>cmd --quick</code>")
    assert "<em>0.5</em>" in html and "<ul><li>one</li><li>two &lt;3</li></ul>" in html


def test_the_jobs_of_a_sweep_keep_their_own_summary_rows():
    side = pd.DataFrame({"A Δ": ["0.10"]}, index=["mean abs. Δ"])
    report = RunReport(
        [
            Section(f"[evo.C={c}] T, C = {c}: error", side, key=("paper", f"[evo.C={c}] error"))
            for c in (1, 0.1)
        ]
    )
    summary = deviation_summary([Entry("p", "evosvm_variants", None, "ok", report)])
    assert list(summary.index) == ["[evo.C=1] error", "[evo.C=0.1] error"]
