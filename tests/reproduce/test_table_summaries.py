"""The per-table summaries an index of the reproductions reads, the "datasets compared" row,
the protocol in the headings and the notes about rows a table may not have."""

import numpy as np
import pandas as pd
import pytest
import yaml

from svmlab.reproduce import REPRODUCTIONS, get_reproduction, run_summaries, sections, side_by_side
from svmlab.reproduce.engine import DATASETS_ROW, known_deviations, table_summaries
from tests.reproduce._rows import ok_row

#: Fold error rates per (registry dataset, solver): three folds each.
_ERRORS = {
    ("sonar_mlbench", "evosvm"): [0.10, 0.20, 0.15],
    ("sonar_mlbench", "mysvm_like"): [0.12, 0.14, 0.16],
    ("sonar_mlbench", "libsvm_kernel"): [0.11, 0.13, 0.15],
    ("bupa", "evosvm"): [0.30, 0.40, 0.35],
    ("bupa", "mysvm_like"): [0.30, 0.32, 0.34],
    ("bupa", "libsvm_kernel"): [0.31, 0.33, 0.35],
    ("spiral", "evosvm"): [0.15, 0.17, 0.19],
    ("spiral", "mysvm_like"): [0.18, 0.18, 0.18],
    ("spiral", "libsvm_kernel"): [0.16, 0.18, 0.20],
}


def _evosvm_rows(errors=_ERRORS, run_dir=None) -> pd.DataFrame:
    rows = []
    for (dataset, solver), values in errors.items():
        for fold, v in enumerate(values):
            rows.append(
                {
                    **ok_row(dataset, solver),
                    "repeat": 0,
                    "fold": fold,
                    "error_rate": v,
                    "run_dir": run_dir,
                }
            )
    return pd.DataFrame(rows)


def _run_dir(tmp_path, name, protocol, target="evosvm_table_3_3"):
    run = tmp_path / name
    run.mkdir()
    config = {"name": name, "description": f"{name}: what it runs", "reproduce": target}
    config["protocol"] = protocol
    (run / "config.yaml").write_text(yaml.safe_dump(config))
    return str(run)


def test_summary_of_a_grid_table_has_deltas_rho_counts_and_spreads():
    repro = get_reproduction("evosvm_table_3_3")
    (error, objective) = table_summaries(repro, _evosvm_rows())[:2] + [None]
    published = repro.published(repro.tables[0])
    published_std = repro.published_std(repro.tables[0])
    assert error["number"] == "Table 3.3" and error["metric"] == "error_rate"
    assert error["n_published"] == 8 and error["n_compared"] == 3
    assert error["datasets"] == ["Spiral", "Liver", "Sonar"]  # the paper's order
    ours = {"Sonar": 15.0, "Liver": 35.0, "Spiral": 17.0}
    expected = np.mean([abs(ours[d] - published.at[d, "EvoSVM"]) for d in ours])
    assert error["mean_abs_delta"]["EvoSVM"] == pytest.approx(expected)
    assert set(error["rho"]) == {"EvoSVM", "mySVM", "LibSVM"}
    # the run's spread: the mean over the 9 compared cells of the std over folds, in %
    stds = [100 * np.std(v, ddof=1) for v in _ERRORS.values()]
    assert error["spread_run"] == pytest.approx(np.mean(stds))
    printed = [published_std.at[d, m] for d in ours for m in ("EvoSVM", "mySVM", "LibSVM")]
    assert error["spread_published"] == pytest.approx(np.mean(printed))
    assert error["within_spread"] == (error["mean_abs_delta_overall"] <= error["spread_published"])
    assert error["verdicts_differ"] is None  # Table 3.3 prints no tests
    assert objective is None  # the rows carry no dual objective: Table 3.2 is left out


def test_summary_counts_the_published_tests_verdicts_that_differ():
    repro = get_reproduction("mtr_tables_3_3_to_3_12")
    published = repro.published(repro.tables[0])  # aCC, Table 3.3 (tests: Table 3.4)
    rows = []
    for paper_ds in ("Slump", "Andro", "EDM", "Jura", "Enb"):
        for paper_m, solver in repro.methods.items():
            rows.append(
                {
                    "dataset": repro.datasets[paper_ds],
                    "method": solver,
                    "solver": solver,
                    "task_type": "multitarget",
                    "status": "ok",
                    "selected": True,
                    "acc": published.at[paper_ds, paper_m],
                }
            )
    (acc,) = table_summaries(repro, pd.DataFrame(rows))
    assert acc["number"] == "Table 3.3" and acc["n_compared"] == 5 and acc["n_published"] == 24
    assert acc["mean_abs_delta_overall"] == pytest.approx(0.0)
    assert acc["verdicts_compared"] > 0
    assert 0 <= acc["verdicts_differ"] <= acc["verdicts_compared"]
    table = side_by_side(repro, repro.tables[0], pd.DataFrame(rows))
    assert table.at[DATASETS_ROW, "SVRCC"] == "5 of 24"


def test_run_summaries_name_the_document_experiment_and_protocol(tmp_path):
    run = _run_dir(tmp_path, "evosvm_quick", {"kind": "stratified_kfold", "n_splits": 5})
    out = run_summaries(_evosvm_rows(run_dir=run))
    assert [s["document"] for s in out] == ["mierswa2009"]
    (s,) = out
    assert s["experiment"] == "evosvm_quick" and s["run_dir"] == run
    assert s["protocol_paper"] == "RBF, C = 1, 20-fold CV"
    assert s["protocol_run"] == "5-fold CV" and s["quick"]
    assert s["table"] == "Table 3.3: error (%, mean of the fold error rates)"


def test_heading_sets_the_run_protocol_beside_the_paper(tmp_path):
    quick = _run_dir(tmp_path, "evosvm_quick", {"kind": "stratified_kfold", "n_splits": 5})
    (side, *_) = sections("evosvm_table_3_3", _evosvm_rows(run_dir=quick))
    assert "Table 3.3: error" in side.title
    assert side.title.endswith("paper: RBF, C = 1, 20-fold CV; this run: 5-fold CV (quick profile)")
    assert "this run is the quick profile evosvm_quick" in side.note
    full = _run_dir(tmp_path, "evosvm_bench", {"kind": "stratified_kfold", "n_splits": 20})
    (side, *_) = sections("evosvm_table_3_3", _evosvm_rows(run_dir=full))
    assert side.title.endswith("this run: the same (20-fold CV)")
    assert "quick profile" not in side.note


def test_heading_without_a_stored_config_reads_the_rows():
    (side, *_) = sections("evosvm_table_3_3", _evosvm_rows().drop(columns="run_dir"))
    assert side.title.endswith("paper: RBF, C = 1, 20-fold CV; this run: 3 fold(s)")


def test_a_row_note_shows_only_under_tables_with_that_row():
    (without, *_) = sections("evosvm_table_3_3", _evosvm_rows())
    assert "Lawsuit" not in without.note and "Lawsuit" not in without.table.index
    errors = dict(_ERRORS) | {
        ("lawsuit", s): [0.02, 0.03, 0.04] for s in ("evosvm", "mysvm_like", "libsvm_kernel")
    }
    (with_row, *_) = sections("evosvm_table_3_3", _evosvm_rows(errors))
    assert "Lawsuit" in with_row.table.index
    assert "the Lawsuit rows are suspect" in with_row.note


def test_unprinted_published_cells_are_shown_and_not_compared():
    repro = get_reproduction("tsvm_figures_5_2_to_5_7")
    rows = []
    for dataset, solver, error in (
        ("four_clusters", "mysvm_like", 0.5),
        ("four_clusters", "tsvm_evo", 0.0),
        ("two_moons", "mysvm_like", 0.2),
        ("moons_transductive", "mysvm_like", 0.2),
        ("moons_transductive", "tsvm_evo", 0.1),
    ):
        rows.append(
            {
                **ok_row(dataset, solver),
                "error_rate": error,
                "n_train": 2,
                "n_test": 2,
            }
        )
    table = side_by_side(repro, repro.tables[0], pd.DataFrame(rows))
    assert table.at["2-Moons", "inductive SVM paper"] == "—"
    assert table.at["2-Moons", "inductive SVM Δ"] == ""
    assert table.at[DATASETS_ROW, "inductive SVM Δ"] == "1 of 2"  # 2-Moons is not printed
    assert table.at[DATASETS_ROW, "Evo-T-SVM Δ"] == "2 of 3"
    assert table.at["mean abs. Δ", "Evo-T-SVM Δ"] == "5.0"
    (figs, t51) = table_summaries(repro, pd.DataFrame(rows))
    assert figs["read_off"] and "read off" in figs["table"]
    assert figs["mean_abs_delta"] == {"inductive SVM": 0.0, "Evo-T-SVM": 5.0}
    assert t51["number"] == "Table 5.1" and t51["n_compared"] == 2


def test_printed_standard_deviations_have_the_shape_of_their_table():
    with_std = 0
    for repro in REPRODUCTIONS.values():
        for table in repro.tables:
            std = repro.published_std(table)
            if std is None:
                continue
            with_std += 1
            mean = repro.published(table)
            assert std.index.equals(mean.index) and std.columns.equals(mean.columns)
            assert (std.stack().dropna() >= 0).all()
    # EvoSVM Tables 3.2-3.4 and 4.2; Oliveira Tables 7, 11-13 and 19 (x2); Melki Tables 5.3, 5.5
    assert with_std == 14


def test_a_printed_zero_spread_counts_as_half_the_last_digit():
    repro = get_reproduction("cclwmlm_table_19")
    published = repro.published(repro.tables[0])
    rows = []
    for fold in range(3):
        for paper_m, solver in repro.methods.items():
            rows.append(
                {
                    **ok_row(repro.datasets["BAN"], solver),
                    "repeat": fold,
                    "fold": 0,
                    "accuracy": published.at["BAN", paper_m] + 0.004,
                }
            )
    (acc,) = [s for s in table_summaries(repro, pd.DataFrame(rows)) if s["metric"] == "accuracy"]
    assert acc["spread_published"] == 0.0  # printed 0.00
    assert acc["mean_abs_delta_overall"] == pytest.approx(0.004) and acc["within_spread"]


def test_the_document_summary_lists_number_datasets_compared_and_deltas():
    from svmlab.report.builder import Entry, RunReport, deviation_summary

    report = RunReport(sections=sections("evosvm_table_3_3", _evosvm_rows()))
    summary = deviation_summary([Entry("Table 3.3", "evosvm_quick", None, "", report)])
    row = summary.loc["Table 3.3: error (%, mean of the fold error rates)"]
    assert row["datasets compared"] == "3 of 8"
    assert row["experiment"] == "evosvm_quick" and row["mean abs. Δ (mean over methods)"]


def test_run_time_tables_compare_ranks_only():
    flagged = {t.file for repro in REPRODUCTIONS.values() for t in repro.tables if t.ranks_only}
    assert flagged == {"ollawv_runtime.csv", "mil_time.csv", "mtr_time.csv"}
    repro = get_reproduction("ollawv_table_5_3")
    rows = pd.DataFrame(
        [
            {
                "dataset": "iris_libsvm",
                "method": "ollawv",
                "solver": "ollawv",
                "task_type": "multiclass",
                "status": "ok",
                "selected": True,
                "accuracy": 0.96,
                "task_seconds": 0.02,
            }
        ]
    )
    by_file = {s["file"]: s for s in table_summaries(repro, rows)}
    assert by_file["ollawv_runtime.csv"]["ranks_only"]
    assert not by_file["ollawv_accuracy.csv"]["ranks_only"]


def test_a_known_deviation_marks_the_tables_it_concerns_and_no_other():
    """A target's own deviations concern all its tables, a table's only that table."""
    import dataclasses

    repro = get_reproduction("evosvm_table_3_3")
    error, objective = repro.tables[:2]

    def summary(deviations=(), error_topics=(), objective_topics=()):
        tables = (
            dataclasses.replace(error, deviations=error_topics),
            dataclasses.replace(objective, deviations=objective_topics),
        )
        target = dataclasses.replace(repro, deviations=deviations, tables=tables)
        return table_summaries(target, _evosvm_rows())[0]  # the rows have errors only

    assert summary(error_topics=("evosvm_spiral",))["explained_by"] == ["evosvm_spiral"]
    assert summary(objective_topics=("evosvm_objective",))["explained_by"] == []
    assert summary(deviations=("evosvm_mysvm",))["explained_by"] == ["evosvm_mysvm"]
    marked = dataclasses.replace(
        repro, tables=(error, dataclasses.replace(objective, deviations=("evosvm_spiral",)))
    )
    assert "evosvm_spiral" in [topic for topic, _ in known_deviations(marked)]
