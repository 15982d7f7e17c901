import numpy as np
import pandas as pd
import pytest

from svmlab.errors import ConfigError, UnknownNameError
from svmlab.reproduce import REPRODUCTIONS, get_reproduction, sections, side_by_side
from tests.reproduce._rows import ok_row


def _rows():
    rows = []
    for _fold in range(5):
        for solver, acc, secs, sv in (("ollawv", 0.96, 0.02, 10.0), ("nnisda", 0.94, 0.05, 40.0)):
            rows.append(
                {
                    "dataset": "iris_libsvm",
                    "method": solver,
                    "solver": solver,
                    "task_type": "multiclass",
                    "status": "ok",
                    "selected": True,
                    "accuracy": acc,
                    "task_seconds": secs,
                    "sv_percent": sv,
                }
            )
    return pd.DataFrame(rows)


def test_every_published_table_loads_with_the_mapped_methods():
    for repro in REPRODUCTIONS.values():
        columns = set()
        for table in repro.tables:
            pub = repro.published(table)
            # a table may leave a method out (Table 19 prints no Full-MLM NORM), never add one
            assert set(pub.columns) <= set(repro.methods)
            assert set(pub.index) <= set(repro.datasets)
            columns |= set(pub.columns)
        assert set(repro.methods) <= columns | {"OLLAWV"}


def test_side_by_side_scales_sums_and_differences():
    repro = get_reproduction("ollawv_table_5_3")
    acc = side_by_side(repro, repro.tables[0], _rows())
    assert acc.at["iris", "OLLAWV paper"] == "97.33" and acc.at["iris", "OLLAWV ours"] == "96.00"
    assert acc.at["iris", "OLLAWV Δ"] == "-1.33"
    assert acc.at["iris", "MNSVM ours"] == "—" and "wine" not in acc.index
    assert acc.at["mean abs. Δ", "OLLAWV Δ"] == "1.33"
    runtime = side_by_side(repro, repro.tables[1], _rows())
    assert runtime.at["iris", "OLLAWV ours"] == "0.10"  # 5 folds x 0.02 s: the whole nested CV
    titles = [s.title for s in sections("ollawv_table_5_3", _rows())]
    assert len(titles) == 6  # each table, then its published tests beside the run's
    assert [", tests, paper vs this run" in t for t in titles] == [False, True] * 3


def test_unknown_reproduction():
    with pytest.raises(UnknownNameError, match="unknown reproduction"):
        get_reproduction("table_9_9")


def test_plan_lists_unavailable_study_datasets(tmp_path):
    from svmlab.runner.plan import build_plan

    cfg = {
        "name": "t",
        "seed": 0,
        "dataset": {"name": "iris"},
        "datasets": {},
        "solvers": {},
        "solver": {"name": "knn", "_target_": "sklearn.neighbors.KNeighborsClassifier"},
        "protocol": {"name": "cv5", "kind": "auto_kfold", "n_splits": 5},
        "runner": {"backend": "sequential", "n_jobs": 1},
        "tuning": {"mode": "none"},
        "unavailable_datasets": ["reuters", "adult"],
        "reproduce": "ollawv_table_5_3",
    }
    plan = build_plan(cfg, str(tmp_path), "r")
    assert [n for n, _ in plan.unavailable] == ["reuters", "adult"]
    assert "LibCVM" in plan.unavailable[0][1]
    with pytest.raises(ConfigError, match="has it available"):
        build_plan({**cfg, "unavailable_datasets": ["iris"]}, str(tmp_path), "r")


def test_mil_precision_uses_each_paper_rows_class_convention():
    rows = []
    for solver, pos, neg in (("mirsvm", 0.9, 0.1), ("misvm_instance", 0.2, 0.8)):
        rows.append(
            {
                "dataset": "musk1",
                "method": solver,
                "solver": solver,
                "task_type": "multi_instance",
                "status": "ok",
                "selected": True,
                "precision_pos": pos,
                "precision_neg": neg,
            }
        )
    repro = get_reproduction("mirsvm_tables_4_3_to_4_13")
    table = side_by_side(repro, repro.tables[1], pd.DataFrame(rows))
    assert table.at["musk1", "MIRSVM"].startswith("0.9000")  # positive bags
    assert table.at["musk1", "MISVM"].startswith("0.8000")  # Weka row: negative bags


def test_rank_correlation_row_orders_datasets_like_the_paper():
    repro = get_reproduction("mtr_tables_3_3_to_3_12")
    published = repro.published(repro.tables[3])  # aRRMSE
    rows = []
    for paper_ds in ("Slump", "Andro", "EDM", "Jura"):
        for paper_m, flip in (("SVRCC", 1.0), ("ST", -1.0)):
            # SVRCC: the published values plus a constant (same order); ST: the order reversed
            value = 1.0 + flip * published.at[paper_ds, paper_m]
            rows.append(
                {
                    "dataset": repro.datasets[paper_ds],
                    "method": repro.methods[paper_m],
                    "solver": repro.methods[paper_m],
                    "task_type": "multitarget",
                    "status": "ok",
                    "selected": True,
                    "arrmse": value,
                }
            )
    table = side_by_side(repro, repro.tables[3], pd.DataFrame(rows))
    assert table.at["rank corr. ρ", "SVRCC"] == "+1.00"
    assert table.at["rank corr. ρ", "ST"] == "-1.00"
    assert table.at["mean abs. Δ", "SVRCC"] == "1.0000"
    assert table.at["Slump", "MORF"].startswith("—")


def test_mtr_datasets_map_to_registry_names():
    from svmlab.data.registry import dataset_info

    repro = get_reproduction("mtr_tables_3_3_to_3_12")
    for name in repro.datasets.values():
        assert dataset_info(name)["task"] == "multitarget"


def test_evosvm_tables_carry_the_run_anova_per_dataset():
    from scipy.stats import f_oneway

    repro = get_reproduction("evosvm_table_3_3")
    rows = []
    errors = {
        "evosvm": [0.10, 0.20, 0.15],
        "mysvm_like": [0.30, 0.35, 0.40],
        "libsvm_kernel": [0.12, 0.18, 0.16],
    }
    for solver, values in errors.items():
        for fold, v in enumerate(values):
            rows.append(
                {
                    **ok_row("sonar_mlbench", solver),
                    "fold": fold,
                    "error_rate": v,
                }
            )
    table = side_by_side(repro, repro.tables[0], pd.DataFrame(rows))
    ref = f_oneway(*errors.values())
    assert table.at["Sonar", "ANOVA F (p), this run"] == f"{ref.statistic:.2f} ({ref.pvalue:.2f})"
    assert (
        table.at["Sonar", "EvoSVM ours"] == "15.00" and table.at["Sonar", "EvoSVM paper"] == "16.40"
    )


def test_mlm_norms_scale_by_the_full_mlm_row_and_by_the_dataset_maximum():
    rows = pd.DataFrame(
        {
            "dataset": ["a"] * 4 + ["b"] * 2,
            "solver": ["mlm_full", "lwmlm_1", "mlm_full", "lwmlm_1", "mlm_full_clf", "cclwmlm"],
            "repeat": [0, 0, 1, 1, 0, 0],
            "fold": [0] * 6,
            "status": ["ok"] * 6,
            "b_norm": [10.0, 2.0, 20.0, 5.0, 8.0, 2.0],
        }
    )
    lw = get_reproduction("lwmlm_tables_11_to_13").prepare(rows)
    # Table 13: the ratio to Full-MLM of the same repetition, not to another one's
    assert lw["norm_ratio"].tolist()[:4] == [1.0, 0.2, 1.0, 0.25]
    # Table 19: 1 - ||B|| / the largest norm of any row of the dataset
    assert lw["norm_one_minus"].tolist() == [0.5, 0.9, 0.0, 0.75, 0.0, 0.75]


def _runner_support_vectors(model_size, n_train):
    """The runner's formula for the row columns sv_percent and sparsity, value by value."""
    n_train = n_train or 0
    sv = 100.0 * model_size / n_train if n_train and np.isfinite(model_size) else np.nan
    return sv, 1.0 - sv / 100.0


def test_support_vector_columns_equal_the_runner_formula_bit_for_bit():
    from svmlab.reproduce import support_vector_columns

    sizes = [7.0, 13.0, 0.0, np.nan, np.inf, 3.0, 11.0]
    n_train = [30, 97, 50, 40, 40, 0, np.nan]
    rows = pd.DataFrame({"model_size": sizes, "n_train": n_train})
    out = support_vector_columns(rows)
    expected = [_runner_support_vectors(s, n) for s, n in zip(sizes, n_train)]
    np.testing.assert_array_equal(out["sv_percent"], [e[0] for e in expected])
    np.testing.assert_array_equal(out["sparsity"], [e[1] for e in expected])
    assert "sv_percent" not in rows  # a copy
    # rows without the counts keep what they carry
    kept = support_vector_columns(pd.DataFrame({"sv_percent": [10.0]}))
    assert kept["sv_percent"].tolist() == [10.0] and "sparsity" not in kept


def test_sv_table_is_the_same_with_or_without_the_row_columns():
    from svmlab.reproduce import derive_columns

    rows = _rows()
    rows["n_train"] = 120
    rows["model_size"] = rows["sv_percent"] * 1.2  # 10 % and 40 % of 120
    rows["sparsity"] = 1.0 - rows["sv_percent"] / 100.0
    old = derive_columns("ollawv_table_5_3", rows)
    new = derive_columns("ollawv_table_5_3", rows.drop(columns=["sv_percent", "sparsity"]))
    pd.testing.assert_frame_equal(old, new[old.columns])
    repro = get_reproduction("ollawv_table_5_3")
    tables = [side_by_side(repro, repro.tables[2], d) for d in (old, new)]
    pd.testing.assert_frame_equal(*tables)
    assert tables[0].at["iris", "OLLAWV ours"] == "10.00"


def test_the_report_derives_each_run_once(monkeypatch, tmp_path):
    """``prepare`` runs once per run, in ``svmlab report`` (run_report) as in the report that
    ``svmlab run`` prints (build_report)."""
    import dataclasses

    import yaml

    from svmlab import reproduce
    from svmlab.report.builder import run_report
    from svmlab.report.summary import build_report

    calls = []

    def prepare(df):
        calls.append(len(df))
        return reproduce.support_vector_columns(df)

    target = dataclasses.replace(get_reproduction("ollawv_table_5_3"), prepare=prepare)
    monkeypatch.setitem(reproduce.REPRODUCTIONS, "ollawv_table_5_3", target)
    rows = _rows().assign(n_train=100, model_size=10.0).drop(columns="sv_percent")
    config = {"reproduce": "ollawv_table_5_3"}
    out = build_report(rows.assign(run_dir="r"), ["accuracy"], configs={"r": config})
    assert calls == [len(rows)]
    title = "support vectors (% of the training set), paper vs this run"
    assert any(title in s.title for s in out)
    calls.clear()
    rows.to_parquet(tmp_path / "results.parquet")
    (tmp_path / "config.yaml").write_text(yaml.safe_dump(config))
    report = run_report(tmp_path / "results.parquet", metric=["accuracy"], no_stats=True)
    assert calls == [len(rows)]
    assert any(title in s.title for s in report.sections)
