"""Every task type through the runner: multi-instance, regression, multi-target, streams."""

import json

import numpy as np

from svmlab.runner.execute import execute
from svmlab.runner.plan import build_plan
from svmlab.runner.store import consolidate, prepare_run_dir


def _run(cfg, tmp_path):
    plan = build_plan(cfg, str(tmp_path), "r")
    prepare_run_dir(tmp_path, plan.identity, "")
    summary = execute(plan.tasks, cfg["runner"])
    df = consolidate(tmp_path)
    assert summary.n_failed == 0, df.get("error")
    return df


def test_multi_instance_folds_split_bags(make_cfg, tmp_path):
    mi = {
        "name": "meanbag",
        "_target_": "svmlab.testing.MeanBagClassifier",
        "tasks": ["multi_instance"],
    }
    df = _run(make_cfg(dataset={"name": "mi_bags"}, solver=mi), tmp_path)
    assert (df["task_type"] == "multi_instance").all()
    assert df["n_test"].sum() == 100  # bags, each tested once
    assert {"auc_bal", "tp", "fn", "precision_neg"} <= set(df.columns)
    assert df["accuracy"].mean() > 0.6


def test_regression_and_multitarget(make_cfg, tmp_path):
    svr = {
        "name": "svr",
        "_target_": "sklearn.svm.SVR",
        "tasks": ["regression"],
        "grid": {"C": [1.0, 10.0]},
    }
    knn = {
        "name": "knnr",
        "_target_": "sklearn.neighbors.KNeighborsRegressor",
        "tasks": ["regression", "multitarget"],
    }
    mts = {
        "name": "mt_svr",
        "_target_": "sklearn.multioutput.MultiOutputRegressor",
        "tasks": ["multitarget"],
        "estimator": {"_target_": "sklearn.svm.SVR"},
        "grid": {"estimator__C": [1.0, 10.0]},
    }
    cfg = make_cfg(
        datasets={"d": {"name": "diabetes"}, "m": {"name": "mtr_correlated"}},
        solvers={"s": svr, "k": knn, "t": mts},
        preprocessing={"X": "zscore", "Y": "zscore"},
    )
    df = _run(cfg, tmp_path)
    reg = df[df["task_type"] == "regression"]
    mt = df[df["task_type"] == "multitarget"]
    assert set(reg["solver"]) == {"svr", "knnr"} and set(mt["solver"]) == {"knnr", "mt_svr"}
    assert np.allclose(mt["mse_sum"], mt["mse_mean"] * 4)
    assert (mt["arrmse"] < 1.0).all()  # better than predicting the training mean
    assert json.loads(mt[mt["solver"] == "mt_svr"]["chosen_params"].iloc[0])["estimator__C"] in (
        1.0,
        10.0,
    )
    # one default per task for tuning and reporting (multi-target: the papers' aRRMSE)
    assert reg["tuning_metric"].eq("rmse").all() and mt["tuning_metric"].eq("arrmse").all()


def test_prequential_stream_partial_fit_and_refit(make_cfg, tmp_path):
    sgd = {"name": "sgd", "_target_": "sklearn.linear_model.SGDClassifier", "tasks": ["stream"]}
    svc = {"name": "svc", "_target_": "sklearn.svm.SVC", "tasks": ["binary"]}
    cfg = make_cfg(
        dataset={"name": "drifting_stream", "params": {"n_samples": 4000}},
        solvers={"a": sgd, "b": svc},
        protocol={
            "name": "prequential",
            "kind": "prequential",
            "chunk_size": 500,
            "update": "auto",
        },
    )
    df = _run(cfg, tmp_path)
    assert len(df) == 2 and (df["n_chunks"] == 8).all()
    assert dict(zip(df["solver"], df["update"])) == {"sgd": "partial_fit", "svc": "refit"}
    assert all(len(json.loads(c)) == 7 for c in df["chunk_accuracy"])
    total = [np.array(json.loads(c)).sum() for c in df["confusion"]]
    assert total == [3500, 3500]  # every sample after the first chunk tested once
    assert (df["accuracy"] > 0.7).all()


def test_estimator_tuning_time_moves_from_fit_to_tune_time(make_cfg, tmp_path):
    tuner = {
        "name": "self_tuning",
        "_target_": "svmlab.testing.SelfTuningClassifier",
        "tasks": ["binary", "multiclass"],
        "seconds": 0.05,
        "tuned": 0.03,
    }
    df = _run(make_cfg(solver=tuner), tmp_path)
    assert np.allclose(df["tune_time"], 0.03)  # no runner tuning: all of it is the estimator's
    assert np.allclose(df["final_fit_time"], df["fit_time"] - 0.03)
    assert (df["fit_time"] >= 0.05).all()


def test_warnings_are_kept_in_the_row_not_printed(make_cfg, tmp_path, capfd):
    lin = {
        "name": "lin",
        "_target_": "sklearn.svm.LinearSVC",
        "tasks": ["binary", "multiclass"],
        "max_iter": 1,
    }
    df = _run(make_cfg(solver=lin), tmp_path)
    assert df["warnings"].str.startswith("ConvergenceWarning: ").all()
    assert "ConvergenceWarning" not in capfd.readouterr().err


def test_dual_objective_column_from_fit_info(make_cfg, tmp_path):
    evo = {
        "name": "evosvm",
        "_target_": "svmlab.estimators.evo.EvoSVMClassifier",
        "tasks": ["binary"],
        "gamma": 1.0,
        "max_generations": 20,
    }
    knn = {"name": "knn", "_target_": "sklearn.neighbors.KNeighborsClassifier", "tasks": ["binary"]}
    df = _run(make_cfg(dataset={"name": "moons"}, solvers={"e": evo, "k": knn}), tmp_path)
    evo_rows = df[df["solver"] == "evosvm"]
    assert np.isfinite(evo_rows["dual_objective"]).all()
    assert np.allclose(
        evo_rows["dual_objective"], [json.loads(f)["objective"] for f in evo_rows["fit_info"]]
    )
    assert df.loc[df["solver"] == "knn", "dual_objective"].isna().all()
