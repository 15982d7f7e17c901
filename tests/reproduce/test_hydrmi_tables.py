"""Golden checks of the HyDR-MI paper's transcribed tables (svmlab/reproduce/published/hydrmi_*):
svmlab's statistics recompute the printed Table 6 and Table 13 from Tables 2-5 and 7-11, and the
tables agree with each other where the paper says they must."""

import numpy as np
import pandas as pd
import pytest

from svmlab.reproduce import get_reproduction, sections
from svmlab.reproduce.documents.hydrmi import distance_friedman
from svmlab.reproduce.documents.hydrmi_common import published as _published
from svmlab.stats.wilcoxon import rank_sum

T25 = _published("hydrmi_t2_t5_relieff_accuracy.csv")
T711 = _published("hydrmi_t7_t11_accuracy.csv")


def test_transcription_is_complete():
    assert len(T25) == 4 * 6 * 5 * 17 and T25["accuracy"].between(0, 1).all()
    assert len(T711) == 5 * 17 * 3


@pytest.mark.parametrize(
    "percent, printed", [(20, 5.636), (30, 5.506), (40, 3.822), (50, 1.172), (60, 0.618)]
)
def test_table_6_friedman_without_tie_correction(percent, printed):
    res = distance_friedman(T25[T25["percent"] == percent])
    assert res["N"] == 85 and round(res["chi2"], 3) == printed


def test_table_6_at_10_percent_differs_from_the_printed_value_and_bd_cd():
    res = distance_friedman(T25[T25["percent"] == 10])
    assert round(res["chi2"], 3) == 9.801  # printed 10.091 (one tie ranked differently)
    assert round(res["cd"], 4) == 0.4741
    assert res["ranks"].idxmin() == "adapted"
    assert {d for d, r in res["ranks"].items() if r > res["ranks"].min() + res["cd"]} == {
        "max",
        "avg",
    }


def _accuracies(dataset, condition):
    rows = T711[(T711["dataset"] == dataset) & (T711["condition"] == condition)]
    return rows.set_index("algorithm")["accuracy"]


@pytest.mark.parametrize(
    "dataset, other, W, z",
    [
        ("Fox", "ReliefF-MI", 211.5, -2.966),
        ("Fox", "Full Features", 212.5, -2.929),
        ("Elephant", "ReliefF-MI", 213.0, -2.913),
        ("Elephant", "Full Features", 225.5, -2.483),
        ("Tiger", "ReliefF-MI", 196.5, -3.481),  # printed 196.00 / -3.485: a typo (mean rank 11.56)
        ("Tiger", "Full Features", 189.0, -3.739),
        ("Musk1", "ReliefF-MI", 218.0, -2.742),
        ("Musk1", "Full Features", 237.5, -2.068),
        ("Musk2", "ReliefF-MI", 216.0, -2.814),
        ("Musk2", "Full Features", 226.0, -2.469),
    ],
)
def test_table_13_rank_sum(dataset, other, W, z):
    res = rank_sum(_accuracies(dataset, "HyDR-MI"), _accuracies(dataset, other))
    assert res.W == W and round(res.z, 3) == z and res.p < 0.05


def test_relieff_column_of_tables_7_to_11_is_table_5_at_50_percent():
    t5 = T25[(T25["distance"] == "adapted") & (T25["percent"] == 50)]
    t5 = t5.set_index(["dataset", "algorithm"])["accuracy"]
    rel = T711[T711["condition"] == "ReliefF-MI"].set_index(["dataset", "algorithm"])["accuracy"]
    assert (rel.sort_index() == t5.sort_index()).all()


def _rows(solver, dataset, acc, **extra):
    info = '{"n_features": 83, "ga_evaluations": 5, "ga_cache_hits": 5, "ga_best_fitness": 0.5}'
    return [
        {
            "status": "ok",
            "solver": solver,
            "dataset": dataset,
            "fold": f,
            "n_test": 10,
            "accuracy": acc,
            "fit_info": info,
            "chosen_params": "{}",
            **extra,
        }
        for f in range(2)
    ]


def test_wrapper_sections_put_a_run_beside_tables_7_to_13():
    rows = []
    for i, clf in enumerate(["miwrapper_nb", "citation_knn", "mi_optimal_ball"]):
        rows += _rows(f"hydrmi_{clf}", "musk1", 0.9 - 0.01 * i)
        rows += _rows(f"relieff_{clf}", "musk1", 0.8 - 0.01 * i)
        rows += _rows(f"full_{clf}", "musk1", 0.7)
    out = sections("hydrmi_tables_7_to_13", pd.DataFrame(rows))
    titles = [s.title for s in out]
    assert any("Table 10 (Musk1)" in t for t in titles)
    t10 = out[0].table
    assert t10.loc["MIWrapper (Naive Bayes)", "HyDR-MI acc"] == "0.900 (0.920)"
    assert any("Table 13" in t for t in titles) and any("genetic search" in t for t in titles)
    assert get_reproduction("hydrmi_tables_7_to_13").tables == ()


def test_tables_12_and_13_are_listed_uncompared_while_hydrmi_has_one_classifier():
    from svmlab.reproduce.documents.hydrmi import wrapper_summaries

    rows = _rows("hydrmi_miwrapper_nb", "musk1", 0.9) + _rows("relieff_miwrapper_nb", "musk1", 0.8)
    rows += _rows("relieff_citation_knn", "musk1", 0.8)
    by_number = {s["number"]: s for s in wrapper_summaries(pd.DataFrame(rows))}
    for number in ("Table 12", "Table 13"):
        assert by_number[number]["n_compared"] == 0
        assert "two or more classifiers" in by_number[number]["note"]
    assert by_number["Table 10"]["datasets"]  # the per-dataset table is compared


def test_relieff_sections_compare_distances():
    rows = []
    for d, acc in zip(("min", "max", "avg", "adapted"), (0.7, 0.6, 0.65, 0.8)):
        for clf in ("miwrapper_nb", "citation_knn"):
            for fraction in (0.1, 0.7):  # the paper stops at 60 %
                params = f'{{"distance": "{d}", "filter_fraction": {fraction}}}'
                for r in _rows(f"relieff_{clf}", "elephant", acc):
                    rows.append(r | {"chosen_params": params})
    out = sections("hydrmi_tables_2_to_6", pd.DataFrame(rows))
    assert out[0].table.loc["adapted 70%", "Elephant"] == "0.800 (—)"
    t6 = out[1].table
    assert float(t6.loc["10%", "rank adapted"]) == 1.0
    assert np.isfinite(float(t6.loc["10%", "chi2 this run"]))
    assert t6.loc["70%", "chi2 printed"] == "—"


def test_relieff_cells_pool_the_folds_per_distance_and_subset():
    from svmlab.reproduce.documents.hydrmi_relieff import relieff_cells

    rows = []
    for d, acc in (("min", 0.7), ("adapted", 0.5)):
        params = f'{{"distance": "{d}", "filter_fraction": 0.3}}'
        rows += [r | {"chosen_params": params} for r in _rows("relieff_milr", "fox", acc)]
    rows += _rows("hydrmi_milr", "fox", 0.9)  # not a filter-only row
    cells = relieff_cells(pd.DataFrame(rows)).set_index("distance")
    assert list(cells.index) == ["adapted", "min"]
    assert cells.loc["min", "accuracy"] == pytest.approx(0.7)
    assert set(cells["percent"]) == {30} and set(cells["dataset"]) == {"Fox"}
    assert relieff_cells(pd.DataFrame(_rows("hydrmi_milr", "fox", 0.9))).empty


def test_table_13_counts_verdicts_only_over_all_17_classifiers():
    from svmlab.reproduce.documents.hydrmi import wrapper_summaries

    rows = []
    for i, clf in enumerate(["miwrapper_nb", "citation_knn", "mi_optimal_ball"]):
        rows += _rows(f"hydrmi_{clf}", "musk1", 0.9 - 0.01 * i)
        rows += _rows(f"relieff_{clf}", "musk1", 0.8 - 0.01 * i)
    table13 = {s["number"]: s for s in wrapper_summaries(pd.DataFrame(rows))}["Table 13"]
    assert table13["n_compared"] == 1 and table13["verdicts_compared"] is None
    assert (
        "this run: 3;" in table13["note"]
        and "verdicts at 5 % differ, not counted" in (table13["note"])
    )
