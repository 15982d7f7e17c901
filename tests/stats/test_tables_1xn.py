"""The printed tables: the generic 1xN table (item 4), the omnibus choice, Nemenyi names
and the two-sided Bonferroni-Dunn decision (statistics issue, items 1-4)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from svmlab.errors import StatsInputError
from svmlab.report.render import render
from svmlab.stats import compare
from svmlab.stats.omnibus import quade
from svmlab.stats.posthoc import adjust, pairwise_p, rank_se
from svmlab.stats.tables import (
    ADJUSTED_1XN,
    comparison_sections,
    control_section,
    omnibus_section,
    pairwise_section,
    posthoc_1xn_section,
)

GH2008 = Path(__file__).parent / "golden" / "garcia_herrera_2008_accuracy.csv"


@pytest.fixture(scope="module")
def gh():
    return pd.read_csv(GH2008, index_col=0)


def test_generic_1xn_table_has_z_unadjusted_and_every_adjusted_p(gh):
    c = compare(gh, "max")
    s = posthoc_1xn_section(c)
    expected = ["rank", "z", "p (unadjusted)", "Bonferroni", "Holm", "Hochberg", "Finner"]
    expected += ["Hommel", "Holland", "Li", "direction"]
    assert list(s.table.columns[: len(expected)]) == expected
    R, se = c.average_ranks, rank_se(c.n_methods, c.n_datasets)
    for m in s.table.index:  # z = (R_control - R_i)/SE, the sign KEEL and Demsar print
        assert float(s.table.at[m, "z"]) == pytest.approx((R[c.control] - R[m]) / se, abs=5e-5)
    p = c.control_table["p"].to_numpy()
    for method, label in [("holm", "Holm"), ("hommel", "Hommel"), ("li", "Li")]:
        want = adjust(p, method)
        got = [float(v) for v in s.table[label]]
        assert np.allclose(got, want, rtol=6e-2, atol=5e-5)
    assert s.table.at["Kernel", "Holm"] == "1.8E-07" and s.table.at["CN2", "Li"] == "0.0619"
    assert "keep the table's column order" in s.note  # the documented Holm tie order


@pytest.mark.parametrize("fmt", ["markdown", "latex", "csv"])
def test_generic_1xn_columns_in_every_format(gh, fmt):
    text = render(comparison_sections(compare(gh, "max"), pairwise=()), fmt)
    for label in ("p (unadjusted)", *ADJUSTED_1XN.values(), "BD rejects"):
        assert label in text, f"{label} missing from the {fmt} output"


def test_paper_layout_of_the_1xn_table_is_unchanged(gh):
    cols = list(control_section(compare(gh, "max")).table.columns)
    assert cols == [
        "R+",
        "R-",
        "Wilcoxon p",
        "z-test p",
        "Holm threshold",
        "Holm adj. p",
        "Bonf-Dunn adj. p",
        "Holm rejects",
    ]


def test_bonferroni_dunn_flags_both_directions_in_the_tables(gh):
    # ranks C4.5 2.10, NaiveBayes 2.20, CN2 3.12, k-NN 3.25, Kernel 4.33; BD CD 1.0197
    c = compare(gh, "max", control="k-NN(k=1)")
    assert c.better_beyond_cd == ["C4.5", "NaiveBayes"] and c.beyond_cd == ["Kernel"]
    s = posthoc_1xn_section(c)
    bd = next(col for col in s.table.columns if col.startswith("BD rejects"))
    assert s.table.at["C4.5", "direction"] == "better" and s.table.at["C4.5", bd] == "yes"
    assert s.table.at["Kernel", "direction"] == "worse" and s.table.at["Kernel", bd] == "yes"
    assert s.table.at["CN2", bd] == "no"
    assert "worse: Kernel; better: C4.5, NaiveBayes" in omnibus_section(c).note


def test_nemenyi_tables_name_their_definition(gh):
    c = compare(gh, "max")
    m = c.pairwise()
    default = pairwise_section(c, "nemenyi", m)
    tukey = pairwise_section(c, "nemenyi_tukey", m)
    assert "min(1, m p)" in default.title and "studentized range" in tukey.title
    assert default.table.equals(pairwise_section(c, "nemenyi_bonferroni", m).table)
    assert "Tukey: studentized range" in omnibus_section(c).table.index[-1]


def test_quade_omnibus_drives_the_post_hoc_tests(gh):
    c = compare(gh, "max", omnibus="quade")
    q = quade(gh, "max")
    row = omnibus_section(c).table.loc["Quade"]
    assert row["statistic"] == "10.8018" and row["p"] == "1.8E-07" and row["df"] == "(4, 116)"
    assert np.allclose(c.pairwise()["p"], pairwise_p(q.scores, q.se))
    assert np.allclose(c.scores, q.scores) and c.score_name == "Quade T"
    assert "Quade T" in posthoc_1xn_section(c).table.columns


def test_bergmann_beyond_nine_methods_is_one_clear_error():
    rng = np.random.default_rng(0)
    table = pd.DataFrame(rng.uniform(size=(6, 10)), columns=[f"m{i}" for i in range(10)])
    c = compare(table, "max")
    with pytest.raises(StatsInputError, match=r"bergmann: .*2 to 9 methods.*k = 10"):
        pairwise_section(c, "bergmann")
