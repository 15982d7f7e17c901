"""The tables the documents build themselves: the MO-EvoSVM fronts beside Table 3.5 and
Figs. 3.2/3.3, and the per-table summaries of the HyDR-MI and MKLPO studies."""

import json

import numpy as np
import pandas as pd
import pytest

from svmlab.reproduce import get_reproduction, sections
from svmlab.reproduce.documents.hydrmi_common import CLASSIFIERS
from svmlab.reproduce.documents.hydrmi_common import published as _published
from svmlab.reproduce.documents.mierswa2009_fronts import front_columns
from svmlab.reproduce.engine import table_summaries
from tests.reproduce._rows import ok_row


def _front_row(dataset, members, n_train=160, n_test=40):
    front = [
        {"obj_I": i1, "obj_II": i2, "train_err": tr, "holdout_err": ho}
        for i1, i2, tr, ho in members
    ]
    return {
        **ok_row(dataset, "moevosvm"),
        "repeat": 0,
        "fold": 0,
        "n_train": n_train,
        "n_test": n_test,
        "error_rate": 0.2,
        "solver_params": json.dumps({"gamma": 0.001}),
        "fit_info": json.dumps({"front": front}),
    }


#: A front from the large-margin end (objective I = 0, the majority class) to a small error.
_DIABETES = [
    (-5.0, 9.0, 0.66, 0.60),  # the minority class everywhere: high error, not the largest margin
    (0.0, 0.0, 0.35, 0.36),  # the largest margin: the default classifier
    (-50.0, 90.0, 0.22, 0.25),
    (-90.0, 300.0, 0.19, 0.26),
]


def test_front_ends_are_the_largest_margin_member_and_the_smallest_error():
    rows = front_columns(pd.DataFrame([_front_row("pima_indians_diabetes", _DIABETES)]))
    assert rows.at[0, "front_large_margin_error"] == 0.35
    assert rows.at[0, "front_min_train_error"] == 0.19
    plain = front_columns(pd.DataFrame([{"dataset": "x", "fit_info": "{}"}]))
    assert np.isnan(plain.at[0, "front_large_margin_error"])


def test_fronts_are_set_beside_table_3_5_and_the_thesis_text():
    repro = get_reproduction("moevosvm_fronts")
    rows = front_columns(pd.DataFrame([_front_row("pima_indians_diabetes", _DIABETES)]))
    out = {s.title.split(" — ")[0]: s for s in sections("moevosvm_fronts", rows)}
    default = next(s for t, s in out.items() if "Table 3.5 (default error)" in t)
    assert default.table.at["Diabetes", "MO-EvoSVM paper"] == "34.89"
    assert default.table.at["Diabetes", "MO-EvoSVM ours"] == "35.00"
    zero = next(s for t, s in out.items() if "read off Figs. 3.2/3.3" in t)
    assert zero.table.at["Diabetes", "MO-EvoSVM paper"] == "0.00"
    sizes = next(s for t, s in out.items() if t.startswith("Mierswa 2009, Table 3.5: the data"))
    assert sizes.table.at["Diabetes", "n (paper)"] == "200 (768)"
    assert sizes.table.at["Diabetes", "RBF gamma (paper's sigma)"] == "0.001 (0.001)"
    shape = next(s for t, s in out.items() if "the fronts' shape" in t)
    assert shape.table.at["Diabetes", "training error % from .. to"] == "66.0 .. 19.0"
    summaries = {s["number"]: s for s in table_summaries(repro, rows)}
    assert summaries["Table 3.5 (default error)"]["mean_abs_delta"]["MO-EvoSVM"] == (
        pytest.approx(0.11)
    )
    assert summaries["Figs. 3.2/3.3"]["read_off"]
    assert summaries["Table 3.5"]["mean_abs_delta"] == {"n": 568.0}


def _hydrmi_rows(dataset="elephant", paper_dataset="Elephant", shift=0.0):
    """Rows whose pooled accuracy is the paper's Table 7 value + ``shift`` (one fold each)."""
    t711 = _published("hydrmi_t7_t11_accuracy.csv")
    prefix = {"HyDR-MI": "hydrmi", "ReliefF-MI": "relieff", "Full Features": "full"}
    rows = []
    for _, p in t711[t711["dataset"] == paper_dataset].iterrows():
        solver = f"{prefix[p['condition']]}_{CLASSIFIERS[p['algorithm']]}"
        rows.append(
            {
                **ok_row(dataset, solver),
                "n_test": 100,
                "accuracy": p["accuracy"] + shift,
                "fit_info": json.dumps({"n_features": p["n_features"]}),
            }
        )
    return pd.DataFrame(rows)


def test_hydrmi_tables_7_to_13_are_summed_up_per_table():
    repro = get_reproduction("hydrmi_tables_7_to_13")
    out = {s["number"]: s for s in table_summaries(repro, _hydrmi_rows(shift=0.01))}
    t7 = out["Table 7"]
    assert t7["n_published"] == 17 and t7["n_compared"] == 17
    assert t7["mean_abs_delta"] == pytest.approx(
        {"HyDR-MI": 0.01, "ReliefF-MI": 0.01, "Full Features": 0.01}
    )
    assert t7["rho_median"] == pytest.approx(1.0)
    t13 = out["Table 13"]
    assert t13["verdicts_compared"] == 2 and t13["verdicts_differ"] == 0
    assert set(out["Table 12"]["mean_abs_delta"]) == {"HyDR-MI", "baseline"}
    # the paper's own accuracies give its printed mean ranks (to their 2 decimals) and z
    assert out["Table 12"]["mean_abs_delta"]["HyDR-MI"] < 0.005
    assert out["Table 13"]["mean_abs_delta"]["z"] < 0.0005


def test_svmperf_figures_say_they_have_no_published_numbers():
    repro = get_reproduction("svmperf_figures_1_2")
    rows = pd.DataFrame(
        [
            {
                **ok_row("splice_ei", "mklpo_auc"),
                "repeat": 0,
                "fold": 0,
                "roc_auc": 0.9,
                "fit_info": "{}",
            }
        ]
    )
    (fig1,) = table_summaries(repro, rows)
    assert fig1["number"] == "Fig. 1" and fig1["n_published"] == 0
    assert "no published numbers" in fig1["note"] and not fig1["within_spread"]


def test_hydrmi_tables_2_to_6_are_summed_up_per_table():
    t25 = _published("hydrmi_t2_t5_relieff_accuracy.csv")
    cells = t25[(t25["percent"] == 10) & t25["dataset"].isin(["Elephant", "Fox"])]
    registry = {"Elephant": "elephant", "Fox": "fox"}
    rows = [
        {
            **ok_row(registry[c["dataset"]], f"relieff_{CLASSIFIERS[c['algorithm']]}"),
            "n_test": 100,
            "accuracy": c["accuracy"],
            "fit_info": "{}",
            "chosen_params": json.dumps({"distance": c["distance"], "filter_fraction": 0.1}),
        }
        for _, c in cells.iterrows()
    ]
    repro = get_reproduction("hydrmi_tables_2_to_6")
    out = {s["number"]: s for s in table_summaries(repro, pd.DataFrame(rows))}
    assert set(out) == {"Table 2", "Table 3", "Table 4", "Table 5", "Table 6"}
    assert out["Table 2"]["mean_abs_delta"] == {"10%": pytest.approx(0.0)}
    assert out["Table 2"]["n_compared"] == 2 and out["Table 2"]["n_published"] == 5
    assert out["Table 6"]["verdicts_compared"] == 1 and out["Table 6"]["datasets"] == ["10%"]


def test_hydrmi_sections_end_with_the_summary_rows_and_verdicts():
    out = sections("hydrmi_tables_7_to_13", _hydrmi_rows(shift=0.01))
    t7 = next(s for s in out if s.key == ("paper", "Table 7: Elephant, accuracy per classifier"))
    assert t7.table.at["mean abs. Δ", "HyDR-MI acc"] == "0.010"
    assert t7.table.at["datasets compared", "HyDR-MI acc"] == "17 of 17"
    t13 = next(s for s in out if s.key and s.key[0] == "tests")
    assert t13.table.at["verdicts that differ", "verdicts differ"] == "0 of 2"


def test_tables_without_printed_numbers_are_listed_with_the_reason():
    repro = get_reproduction("lssvm_figure_7")
    (t5,) = table_summaries(repro, pd.DataFrame({"dataset": ["banana"], "accuracy": [0.9]}))
    assert t5["number"] == "Table 5 / Fig. 7" and t5["n_published"] == 0 and t5["note"]
    assert t5["n_compared"] == 0 and not t5["within_spread"]


def test_table_5s_note_sets_the_runs_mean_ranks_beside_fig_7s_claims():
    rows = pd.DataFrame(
        [
            {"dataset": d, "solver": s, "accuracy": a, "sparsity": sp}
            for d in ("banana", "ripley")
            for s, a, sp in (
                ("lssvm", 0.90, 0.0),
                ("cc_lssvm", 0.80, 0.9),
                ("fsa_lssvm", 0.85, 0.5),
            )
        ]
    )
    (t5,) = table_summaries(get_reproduction("lssvm_figure_7"), rows)
    assert "Fig. 7 claims CC-LSSVM has the best mean rank of accuracy" in t5["note"]
    assert "CC-LSSVM's accuracy rank 3.00 of 3 (best lssvm, 1.00)" in t5["note"]
    assert "its sparsity rank 1.00 of 2 sparse methods" in t5["note"]
