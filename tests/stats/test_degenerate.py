"""Degenerate inputs (every dataset a tie, N = 2, k = 2) give a clear message, never a
verdict (statistics issue, item 5)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from svmlab.cli import main
from svmlab.report.render import render
from svmlab.stats import compare
from svmlab.stats.tables import comparison_sections

ALL_TIED = pd.DataFrame(
    [[0.8, 0.8, 0.8], [0.7, 0.7, 0.7], [0.9, 0.9, 0.9], [0.6, 0.6, 0.6]],
    columns=["A", "B", "C"],
    index=["d1", "d2", "d3", "d4"],
)
TWO_DATASETS = pd.DataFrame([[0.9, 0.5, 0.1], [0.95, 0.6, 0.2]], columns=["A", "B", "C"])
TWO_METHODS = pd.DataFrame({"A": [0.9, 0.8, 0.85, 0.7, 0.95], "B": [0.5, 0.4, 0.3, 0.2, 0.6]})


def test_all_tied_with_tie_correction_is_no_verdict():
    c = compare(ALL_TIED, "max", tie_correction=True)
    o = c.omnibus
    # the bug: chi2 = 0/0 = NaN made Iman-Davenport F infinite with p = 0 ("significant")
    assert math.isnan(o.chi2) and math.isnan(o.F) and math.isnan(o.F_p)
    assert "ties all 3 methods" in c.degenerate
    text = render(comparison_sections(c, pairwise=("holm",)), "markdown")
    assert "No verdict: every one of the 4 datasets ties all 3 methods" in text
    assert "| yes" not in text and "| no " not in text and "**" not in text.split("## Fried")[1]
    assert "0.0E+00" not in text and "| 0.0000" not in text


@pytest.mark.parametrize(
    "table, words",
    [(TWO_DATASETS, "N = 2 datasets"), (TWO_METHODS, "k = 2 methods")],
)
def test_two_datasets_or_two_methods_is_no_verdict(table, words):
    c = compare(table, "max")
    assert words in c.degenerate and "no verdict" in c.degenerate
    text = render(comparison_sections(c, pairwise=("holm",)), "csv")
    assert "yes" not in text and "No verdict" in text


def test_k2_all_wins_does_not_print_p_zero():
    c = compare(TWO_METHODS, "max")
    assert c.omnibus.F == math.inf  # Iman-Davenport is infinite here ...
    rows = comparison_sections(c, pairwise=())[1].table
    assert set(rows["p"].iloc[:2]) == {"—"}  # ... and no p is printed for it


def test_cli_names_the_problem_and_draws_no_figures(tmp_path, capsys):
    ALL_TIED.to_csv(tmp_path / "tied.csv")
    rc = main(["stats", str(tmp_path / "tied.csv"), "--tie-correction", "-o", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert rc == 0
    assert "svmlab: note: no verdict, no figures: every one of the 4 datasets ties" in err
    assert not list((tmp_path / "o").glob("*.png"))
    assert "No verdict" in (tmp_path / "o" / "tied.md").read_text()
