"""The MKLPO study's report (svmlab.reproduce.documents.svmperf) on hand-made result rows."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from svmlab.reproduce import figures, get_reproduction
from svmlab.reproduce.documents.svmperf import (
    MEASURES,
    METHODS,
    diagonal,
    figure_summaries,
    svmperf_sections,
)

#: method -> the value added to every measure (MKLPO best, then CAPO, ...)
LEVEL = {"mklpo": 0.2, "capo": 0.1, "cpsp": 0.05, "fspo": 0.0, "ndlo": 0.0, "svc": -0.05}


def _rows():
    rng = np.random.default_rng(0)
    rows = []
    for dataset in ("synthetic_lsvt", "splice_ei"):
        for prefix, level in LEVEL.items():
            losses = [None] if prefix == "svc" else [loss for loss, _ in MEASURES.values()]
            for loss in losses:
                solver = prefix if loss is None else f"{prefix}_{loss}"
                for fold in range(10):
                    base = 0.6 + level + 0.01 * fold + rng.normal(0, 0.005)
                    info = {"tau": [0.7, 0.3] + [0.0] * 8} if prefix == "mklpo" else {}
                    row = {
                        "dataset": dataset,
                        "solver": solver,
                        "method": solver,
                        "status": "ok",
                        "repeat": 0,
                        "fold": fold,
                        "fit_info": json.dumps(info),
                    }
                    # the model trained for `loss` is a little better on that measure
                    for measure_loss, column in MEASURES.values():
                        row[column] = base + (0.02 if measure_loss == loss else 0.0)
                    rows.append(row)
    return pd.DataFrame(rows)


def test_diagonal_takes_each_model_on_the_measure_it_was_trained_for():
    diag = diagonal(_rows())
    assert set(diag["method"]) == {*METHODS, "SVC"}
    one = diag[(diag["dataset"] == "splice_ei") & (diag["method"] == "CAPO")]
    assert len(one) == 10 * len(MEASURES)
    # CAPO's values on its own measures carry the +0.02 of the optimised measure
    assert np.allclose(
        one.groupby("fold")["value"].mean().to_numpy()[:1], 0.6 + 0.1 + 0.02, atol=0.02
    )
    svc = diag[diag["method"] == "SVC"]
    assert len(svc) == 2 * 10 * len(MEASURES)  # one model, evaluated on every measure


def test_sections_give_medians_tests_blocks_claims_and_weights():
    sections = svmperf_sections(_rows())
    titles = [s.title for s in sections]
    assert titles[0].startswith("MKLPO study, Figs. 1-2")
    medians = sections[0].table
    assert list(medians.columns) == [*METHODS, "SVC"]
    assert medians.shape[0] == 2 * len(MEASURES)
    assert all(best == ["MKLPO"] for best in sections[0].best.values())
    wilcoxon = sections[1].table
    # MKLPO ahead on all 10 folds: exact p = 2/1024, Holm over the paper's 4 competitors
    cells = wilcoxon.to_numpy().ravel()
    assert all(
        c.startswith("+") and float(c[1:]) == pytest.approx(4 * 2 / 1024, abs=5e-4) for c in cells
    )
    assert list(wilcoxon.columns) == ["CPSP", "CAPO", "FSPO", "NDLO"]
    assert any("Friedman" in t or "Iman" in t for t in titles)
    blocks = next(s for s in sections if "fold-mean" in s.title).table
    assert "SVC" not in blocks.columns  # k = 5, as the spec's CD of 1.766 for N = 10
    claims = next(s for s in sections if "claims" in s.title).table
    assert claims.at["R1", "this run"] == "best median in 5/5"
    assert claims.at["R4", "this run"] == "best median in 5/5"
    assert "CAPO" in claims.at["R6", "this run"]
    weights = sections[-1].table
    assert weights.at["splice_ei", "tau_1"] == "0.70"


def _unfinished_rows():
    """splice_ei killed after MKLPO's folds: the other methods have no rows there yet."""
    rows = _rows()
    early = (rows["dataset"] == "splice_ei") & ~rows["solver"].str.startswith("mklpo")
    return rows[~early]


def test_a_dataset_without_every_methods_folds_is_left_out_and_named():
    sections = svmperf_sections(_unfinished_rows())
    medians = sections[0]
    assert all(key.startswith("synthetic_lsvt") for key in medians.table.index)
    assert "Left out until the run finishes them" in medians.note and "splice_ei" in medians.note
    claims = next(s for s in sections if "claims" in s.title).table
    # R1 is about the allergen stand-ins: splice_ei alone, unfinished, crowns nobody
    assert claims.at["R1", "this run"] == "best median in 0/0"
    assert claims.at["R4", "this run"] == "best median in 5/5"


def test_figure_summaries_say_which_figure_is_not_finished():
    by_number = {s["number"]: s for s in figure_summaries(_unfinished_rows())}
    assert "not finished" in by_number["Fig. 1"]["note"]
    assert "begun: splice_ei" in by_number["Fig. 1"]["note"]
    assert "synthetic_lsvt" in by_number["Fig. 2"]["note"]
    assert "not finished" not in by_number["Fig. 2"]["note"]
    assert set(s["number"] for s in figure_summaries(_rows())) == {"Fig. 1", "Fig. 2"}


def test_the_target_makes_its_own_rank_tests():
    from svmlab.reproduce import own_rank_tests

    assert own_rank_tests("svmperf_figures_1_2")
    assert not own_rank_tests("ollawv_table_5_3")


@pytest.mark.slow
def test_the_report_redraws_figures_1_2_per_dataset(tmp_path):
    paths = figures("svmperf_figures_1_2", _rows(), tmp_path, ("png",))
    assert sorted(p.name for p in paths) == [
        "svmperf_boxplots_splice_ei.png",
        "svmperf_boxplots_synthetic_lsvt.png",
    ]
    assert all(p.stat().st_size > 10_000 for p in paths)
    assert get_reproduction("svmperf_figures_1_2").tables == ()


def test_boxplots_need_their_columns():
    from svmlab.stats.figures._inputs import FigureInputError
    from svmlab.stats.figures.boxplots import measure_boxplots

    with pytest.raises(FigureInputError, match="no column 'measure'"):
        measure_boxplots(pd.DataFrame({"method": [], "value": []}), panels=["AUC"], methods=["A"])
