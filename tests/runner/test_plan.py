import re

import numpy as np
import pytest

from svmlab.errors import ConfigError, DataError, UnknownNameError
from svmlab.runner.plan import build_plan


def test_plan_expands_datasets_solvers_folds(make_cfg, tmp_path):
    cfg = make_cfg(
        datasets={"a": {"name": "iris"}, "b": {"name": "wine"}},
        solvers={
            "k": make_cfg()["solver"],
            "s": {"name": "svc", "_target_": "sklearn.svm.SVC", "tasks": ["multiclass"]},
        },
    )
    plan = build_plan(cfg, str(tmp_path), "r")
    assert len(plan.tasks) == 2 * 2 * 5
    assert len({t.key for t in plan.tasks}) == 20
    again = build_plan(cfg, str(tmp_path), "r")
    assert [t.key for t in plan.tasks] == [t.key for t in again.tasks]  # stable keys -> resumable


def test_null_entries_drop_members_of_an_experiment(make_cfg, tmp_path):
    cfg = make_cfg(
        datasets={"a": {"name": "iris"}, "b": None}, solvers={"k": make_cfg()["solver"], "s": None}
    )
    plan = build_plan(cfg, str(tmp_path), "r")
    assert plan.datasets == {"iris": "multiclass"} and len(plan.tasks) == 5


def test_dataset_solver_params_go_to_the_solvers_that_take_them(make_cfg, tmp_path):
    svc = {
        "name": "svc",
        "_target_": "sklearn.svm.SVC",
        "tasks": ["multiclass"],
        "grid": {"C": [1.0, 10.0], "gamma": [0.1, 1.0]},
    }
    cfg = make_cfg(
        datasets={"a": {"name": "iris", "solver_params": {"gamma": 0.5}}, "b": {"name": "wine"}},
        solvers={"k": make_cfg()["solver"], "s": svc},
    )
    plan = build_plan(cfg, str(tmp_path), "r")
    by = {(t.dataset, t.solver.name): t for t in plan.tasks}
    iris_svc, wine_svc = by[("iris", "svc")].solver, by[("wine", "svc")].solver
    assert iris_svc.params["gamma"] == 0.5 and iris_svc.grid == {"C": [1.0, 10.0]}
    assert by[("iris", "svc")].fixed_params == {"gamma": 0.5}  # recorded in chosen_params
    assert "gamma" not in wine_svc.params and wine_svc.grid["gamma"] == [0.1, 1.0]
    assert "gamma" not in by[("iris", "knn")].solver.params  # k-NN has no gamma: unchanged
    other = build_plan(
        make_cfg(
            datasets={
                "a": {"name": "iris", "solver_params": {"gamma": 2.0}},
                "b": {"name": "wine"},
            },
            solvers={"k": make_cfg()["solver"], "s": svc},
        ),
        str(tmp_path),
        "r",
    )
    assert other.identity["fingerprint"] != plan.identity["fingerprint"]
    twice = build_plan(
        make_cfg(
            datasets={
                "a": {"name": "iris", "solver_params": {"gamma": 0.5}},
                "b": {"name": "iris", "params": {}, "solver_params": {"gamma": 2.0}},
            },
            solvers={"s": svc},
        ),
        str(tmp_path),
        "r",
    )
    assert sorted({t.solver.params["gamma"] for t in twice.tasks}) == [
        0.5,
        2.0,
    ]  # per entry, not per dataset name
    with pytest.raises(ConfigError, match="solver_params \\['gama'\\] are parameters of none"):
        build_plan(
            make_cfg(
                datasets={"a": {"name": "iris", "solver_params": {"gama": 0.5}}}, solvers={"s": svc}
            ),
            str(tmp_path),
            "r",
        )
    with pytest.raises(ConfigError, match="do not suit solver 'svc'"):
        build_plan(
            make_cfg(
                datasets={"a": {"name": "iris", "solver_params": {"gamma": -1.0}}},
                solvers={"s": svc},
            ),
            str(tmp_path),
            "r",
        )


def test_incompatible_pairs_are_skipped_and_reported(make_cfg, tmp_path):
    svr = {"name": "svr", "_target_": "sklearn.svm.SVR", "tasks": ["regression"]}
    cfg = make_cfg(
        datasets={"a": {"name": "iris"}, "b": {"name": "diabetes"}},
        solvers={"k": make_cfg()["solver"], "r": svr},
    )
    plan = build_plan(cfg, str(tmp_path), "r")
    assert {(d, s) for d, s, _ in plan.skipped_pairs} == {("iris", "svr"), ("diabetes", "knn")}
    with pytest.raises(ConfigError, match="svr.*handles regression"):
        build_plan(make_cfg(solver=svr), str(tmp_path), "r")


def test_unknown_names_list_valid_choices(make_cfg, tmp_path):
    with pytest.raises(UnknownNameError, match="unknown dataset 'irsi'.*Did you mean.*iris"):
        build_plan(make_cfg(dataset={"name": "irsi"}), str(tmp_path), "r")
    with pytest.raises(ConfigError, match="has no parameter 'k'"):
        build_plan(make_cfg(solver__k=3), str(tmp_path), "r")
    with pytest.raises(ConfigError, match="grid names 'k'"):
        build_plan(make_cfg(solver__grid={"k": [1]}), str(tmp_path), "r")
    with pytest.raises(ConfigError, match="n_neighbors"):
        build_plan(make_cfg(solver__n_neighbors="five"), str(tmp_path), "r")
    with pytest.raises(ConfigError, match="tuning.mode"):
        build_plan(make_cfg(tuning__mode="inner"), str(tmp_path), "r")
    with pytest.raises(ConfigError, match="stratifies"):
        build_plan(
            make_cfg(
                dataset={"name": "diabetes"},
                protocol={"name": "s", "kind": "stratified_kfold", "n_splits": 5},
                solver={"name": "svr", "_target_": "sklearn.svm.SVR", "tasks": ["regression"]},
            ),
            str(tmp_path),
            "r",
        )


def test_explicit_parameters_leave_the_grid(make_cfg, tmp_path):
    plan = build_plan(make_cfg(), str(tmp_path), "r", fixed_params=["n_neighbors"])
    assert plan.tasks[0].solver.grid == {}
    # through an experiment entry that interpolates the primary solver
    cfg = make_cfg()
    cfg["solvers"] = {
        "main": dict(cfg["solver"]),
        "svc": {"name": "svc", "_target_": "sklearn.svm.SVC", "grid": {"C": [1, 10]}},
    }
    plan = build_plan(cfg, str(tmp_path), "r", fixed_params=["n_neighbors"])
    grids = {t.solver.name: t.solver.grid for t in plan.tasks}
    assert grids == {"knn": {}, "svc": {"C": [1, 10]}}


def test_primary_solver_override_without_effect_is_an_error(make_cfg, tmp_path):
    cfg = make_cfg(solvers={"svc": {"name": "svc", "_target_": "sklearn.svm.SVC"}})
    with pytest.raises(
        ConfigError, match=r"solver.n_neighbors=... has no effect.*solvers.<key>.n_neighbors"
    ):
        build_plan(cfg, str(tmp_path), "r", fixed_params=["n_neighbors"])


@pytest.mark.parametrize(
    "change, message",
    [
        ({"tuning__scoring": "rmse"}, "tuning.scoring='rmse' does not apply to dataset 'iris'"),
        ({"summary_metric": "acuracy"}, "unknown metric 'acuracy'"),
        (
            {"runner__backend": "spark"},
            "runner.backend='spark' is not valid; choose one of loky, sequential, dask, ray",
        ),
        ({"runner__n_jobs": 0}, "runner.n_jobs must be a non-zero integer"),
        (
            {"dataset": {"name": "moons", "params": {"n_samples": "abc"}}},
            "dataset 'moons': invalid params",
        ),
        (
            {"dataset": {"name": "moons", "params": {"n_samples": 4}}},
            "cannot split dataset 'moons'",
        ),
        (
            {
                "dataset": {"name": "drifting_stream", "params": {"n_samples": 800}},
                "protocol": {"name": "p", "kind": "prequential", "chunk_size": 1000},
            },
            "fewer than 2 chunks",
        ),
    ],
)
def test_settings_checked_before_compute(make_cfg, tmp_path, change, message):
    cfg = make_cfg(**change)
    if cfg["dataset"]["name"] == "drifting_stream":
        cfg["solver"]["tasks"] = ["stream", "binary"]
    with pytest.raises(ConfigError, match=message):
        build_plan(cfg, str(tmp_path), "r")


def test_missing_values_rejected_before_compute(make_cfg, tmp_path, monkeypatch):
    import svmlab.runner.plan as plan_mod
    from svmlab.data.dataset import Dataset

    X = np.random.default_rng(0).normal(size=(20, 2))
    X[3, 1] = np.nan
    ds = Dataset(name="holes", task="binary", X=X, y=np.repeat([0, 1], 10))
    monkeypatch.setattr(plan_mod, "load_dataset", lambda name, params=None, **kw: ds)
    svc = {"name": "svc", "_target_": "sklearn.svm.SVC", "tasks": ["binary"]}
    with pytest.raises(DataError, match="1 missing or infinite input values.*preprocessing.impute"):
        build_plan(make_cfg(solver=svc), str(tmp_path), "r")
    build_plan(
        make_cfg(solver=svc, preprocessing={"X": "zscore", "impute": "mean"}), str(tmp_path), "r"
    )


def test_override_of_an_experiment_entry_leaves_its_grid(make_cfg, tmp_path):
    """Bug: `solvers.<key>.C=1000` was overridden by the grid; any form of override fixes it."""
    cfg = make_cfg()
    cfg["solvers"] = {
        "lin": {
            "name": "lin",
            "_target_": "sklearn.svm.LinearSVC",
            "C": 1000.0,
            "grid": {"C": [1, 10], "tol": [1e-4]},
        },
        "svc": {"name": "svc", "_target_": "sklearn.svm.SVC", "grid": {"C": [1, 10]}},
    }
    plan = build_plan(cfg, str(tmp_path), "r", fixed_params={"lin": ["C"]})
    by = {t.solver.name: t for t in plan.tasks}
    assert by["lin"].solver.grid == {"tol": [1e-4]} and by["lin"].fixed_params == {"C": 1000.0}
    assert by["svc"].solver.grid == {"C": [1, 10]} and by["svc"].fixed_params == {}


def test_tuning_mode_is_decided_once_per_solver(make_cfg, tmp_path):
    """Bug: a solver without a grid was labelled outer-best; the plan decides the mode."""
    nb = {"name": "nb", "_target_": "sklearn.naive_bayes.GaussianNB"}
    cfg = make_cfg(tuning__mode="outer_best", solvers={"k": make_cfg()["solver"], "nb": nb})
    modes = {t.solver.name: t.tuning_mode for t in build_plan(cfg, str(tmp_path), "r").tasks}
    assert modes == {"knn": "outer_best", "nb": "none"}
    stream = make_cfg(
        dataset={"name": "drifting_stream", "params": {"n_samples": 3000}},
        protocol={"name": "p", "kind": "prequential", "chunk_size": 1000},
    )
    assert {t.tuning_mode for t in build_plan(stream, str(tmp_path), "r").tasks} == {"none"}


def test_rows_record_the_solver_as_configured(make_cfg, tmp_path):
    """A solver written without a grid or task list is recorded (and hashed) without them,
    so run directories of earlier svmlab versions still resume."""
    nb = {"name": "nb", "_target_": "sklearn.naive_bayes.GaussianNB"}
    spec = build_plan(make_cfg(solver=nb), str(tmp_path), "r").tasks[0].solver
    assert spec.settings() == {"_target_": "sklearn.naive_bayes.GaussianNB"}
    knn = build_plan(make_cfg(), str(tmp_path), "r", fixed_params=["n_neighbors"]).tasks[0]
    assert knn.solver.settings()["grid"] == {} and knn.solver.settings()["tasks"] == [
        "binary",
        "multiclass",
    ]


def test_bag_weights_fit_needs_solvers_that_take_weights(make_cfg, tmp_path):
    cfg = make_cfg(
        dataset={"name": "mi_bags", "params": {}},
        solver={
            "name": "simple_mi_mean",
            "_target_": "svmlab.testing.MeanBagClassifier",
            "tasks": ["multi_instance"],
        },
        preprocessing={"X": "zscore", "bag_weights": "fit"},
        protocol={"name": "bag5", "kind": "bag_stratified_kfold", "n_splits": 5},
        tuning={"mode": "none"},
    )
    with pytest.raises(ConfigError, match="simple_mi_mean takes no sample_weight"):
        build_plan(cfg, str(tmp_path), "r")


def test_a_dataset_can_override_the_run_preprocessing(make_cfg, tmp_path):
    """Bag-of-words rows stay unscaled while the dense sets of the same run are z-scored."""
    cfg = make_cfg(
        datasets={"a": {"name": "iris", "preprocessing": {"X": "none"}}, "b": {"name": "wine"}}
    )
    plan = build_plan(cfg, str(tmp_path), "r")
    prep = {t.dataset: t.preprocessing["X"] for t in plan.tasks}
    assert prep == {"iris": "none", "wine": cfg["preprocessing"].get("X", "zscore")}
    plain = build_plan(
        make_cfg(datasets={"a": {"name": "iris"}, "b": {"name": "wine"}}), str(tmp_path), "r"
    )
    assert plain.identity["fingerprint"] != plan.identity["fingerprint"]
    with pytest.raises(ConfigError, match="dataset 'iris': preprocessing"):
        build_plan(
            make_cfg(datasets={"a": {"name": "iris", "preprocessing": {"X": "robust"}}}),
            str(tmp_path),
            "r",
        )


@pytest.mark.parametrize("plural, singular", [("datasets", "dataset"), ("solvers", "solver")])
def test_nulling_every_entry_is_an_error_not_the_root_default(make_cfg, tmp_path, plural, singular):
    """Regression: nulling every dataset (solver) of an experiment silently ran iris (svc)."""
    cfg = make_cfg(**{plural: {"a": None, "b": None}})
    with pytest.raises(ConfigError) as err:
        build_plan(cfg, str(tmp_path), "r")
    assert str(err.value) == (
        f"every entry of {plural} is null (a, b): no {singular} is left to run; keep at least "
        f"one, or leave out the experiment and name one with {singular}=NAME"
    )


def test_inner_folds_beyond_the_training_rows_is_an_error(make_cfg, tmp_path):
    """Regression: tuning.inner_folds=500 on iris's 105 holdout training rows was capped."""
    holdout = {"name": "holdout", "kind": "holdout", "test_size": 0.3, "n_repeats": 1}
    cfg = make_cfg(protocol=holdout, tuning__inner_folds=500)
    with pytest.raises(ConfigError) as err:
        build_plan(cfg, str(tmp_path), "r")
    assert str(err.value) == (
        "tuning.inner_folds=500 is more than the 105 training rows of dataset 'iris' (its "
        "smallest outer training part under protocol 'holdout'); use at most "
        "tuning.inner_folds=105"
    )
    assert build_plan(make_cfg(protocol=holdout, tuning__inner_folds=105), str(tmp_path), "r")
    untuned = make_cfg(protocol=holdout, tuning__inner_folds=500, tuning__mode="none")
    assert len(build_plan(untuned, str(tmp_path), "r").tasks) == 1  # no inner CV: no limit


@pytest.mark.parametrize("impute", ["none", "mean"])
def test_infinite_inputs_get_advice_that_helps(make_cfg, tmp_path, monkeypatch, impute):
    """Regression: inf inputs under impute=mean were advised to set impute=mean."""
    import svmlab.runner.plan as plan_mod
    from svmlab.data.dataset import Dataset

    X = np.random.default_rng(0).normal(size=(20, 2))
    X[3, 1], X[4, 0] = np.inf, np.nan
    ds = Dataset(name="spikes", task="binary", X=X, y=np.repeat([0, 1], 10))
    monkeypatch.setattr(plan_mod, "load_dataset", lambda name, params=None, **kw: ds)
    svc = {"name": "svc", "_target_": "sklearn.svm.SVC", "tasks": ["binary"]}
    cfg = make_cfg(solver=svc, preprocessing={"X": "zscore", "impute": impute})
    with pytest.raises(DataError) as err:
        build_plan(cfg, str(tmp_path), "r")
    now = " (it is mean here)" if impute == "mean" else ""
    assert str(err.value) == (
        "dataset 'spikes' has 1 infinite input values, which solver 'svc' cannot take; "
        f"preprocessing.impute fills only missing (NaN) values{now}, so replace them in the "
        "data file or leave the dataset out"
    )


def test_dask_address_without_a_scheduler_fails_at_planning(make_cfg, tmp_path):
    """Regression: runner.address=tcp://127.0.0.1:9 gave dask's traceback after 30 s; planning
    now probes the address itself (a plain TCP connection) and refuses with one line."""
    import socket

    from svmlab.runner.settings import check_cluster_address

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # nobody listens once it is closed
    runner = {"name": "dask", "backend": "dask", "address": f"tcp://127.0.0.1:{port}", "n_jobs": 2}
    with pytest.raises(ConfigError) as err:
        build_plan(make_cfg(runner=runner), str(tmp_path), "r")
    assert str(err.value).startswith(
        f"runner.address='tcp://127.0.0.1:{port}': cannot connect to a dask scheduler at "
        f"127.0.0.1:{port} (Connection refused); start one"
    )
    with socket.create_server(("127.0.0.1", 0)) as server:  # a listener is accepted
        check_cluster_address("dask", f"tcp://127.0.0.1:{server.getsockname()[1]}", timeout=1)
    with pytest.raises(ConfigError, match="the port is not a number"):
        check_cluster_address("dask", "tcp://127.0.0.1:http")


def test_a_plan_too_large_to_run_is_refused_before_any_task_is_made(make_cfg, tmp_path):
    cfg = make_cfg(
        protocol={"name": "h", "kind": "holdout", "test_size": 0.3, "n_repeats": 10**9},
        tuning__mode="none",
    )
    with pytest.raises(ConfigError) as info:
        build_plan(cfg, str(tmp_path), "r")
    message = str(info.value)
    assert "\n" not in message and "1,000,000,000 tasks" in message
    assert "runner.max_tasks=2,000,000" in message
    cfg["runner"]["max_tasks"] = 5
    with pytest.raises(ConfigError, match="the plan has 6 tasks"):
        build_plan({**cfg, "protocol": {**cfg["protocol"], "n_repeats": 6}}, str(tmp_path), "r")
    cfg["runner"]["max_tasks"] = 6
    assert (
        len(
            build_plan(
                {**cfg, "protocol": {**cfg["protocol"], "n_repeats": 6}}, str(tmp_path), "r"
            ).tasks
        )
        == 6
    )


def test_task_keys_are_those_of_the_full_serialisation(make_cfg, tmp_path):
    """Keys made from one serialisation per (dataset, solver) equal the per-task digests that
    earlier runs stored, so their run directories still resume."""
    from svmlab.runner.keys import digest as _digest
    from svmlab.runner.plan import _identity_solver

    cfg = make_cfg(tuning__mode="none")
    plan = build_plan(cfg, str(tmp_path), "r")
    t = plan.tasks[3]
    shared = {
        "experiment": t.experiment,
        "dataset": t.dataset,
        "dataset_params": t.dataset_params,
        "solver": _identity_solver(t.solver),
        "protocol": t.protocol.as_dict(),
        "preprocessing": t.preprocessing,
        # the tuning fields earlier runs stored: the rule, added later, only when not best
        "tuning": {k: v for k, v in t.tuning.__dict__.items() if k != "rule"},
        "seed": t.seed,
    }
    digest = _digest({**shared, "repeat": t.repeat, "fold": t.fold})
    assert t.key == f"{t.dataset}-{t.solver.name}-r{t.repeat}f{t.fold}-{digest}"


def test_fold_order_runs_every_dataset_and_solver_split_by_split(make_cfg, tmp_path):
    cfg = make_cfg(
        datasets={"wine": {"name": "wine", "params": {}}},
        solvers={"knn3": {**make_cfg()["solver"], "name": "knn3", "n_neighbors": 3, "grid": None}},
    )
    by_dataset = build_plan(cfg, str(tmp_path), "r")
    cfg["runner"]["order"] = "folds"
    by_fold = build_plan(cfg, str(tmp_path), "r")
    assert by_fold.identity == by_dataset.identity  # either order resumes the other's run
    assert sorted(t.key for t in by_fold.tasks) == sorted(t.key for t in by_dataset.tasks)
    assert [t.key for t in by_dataset.tasks[:5]] == [
        t.key
        for t in by_dataset.tasks
        if (t.dataset, t.solver.name)
        == (by_dataset.tasks[0].dataset, by_dataset.tasks[0].solver.name)
    ]  # the default: one dataset and solver after another
    first = by_fold.tasks[: len(by_fold.tasks) // 5]
    assert {(t.repeat, t.fold) for t in first} == {(0, 0)}
    assert {(t.dataset, t.solver.name) for t in first} == {
        (t.dataset, t.solver.name) for t in by_dataset.tasks
    }
    assert [(t.dataset, t.solver.name) for t in first] == list(
        dict.fromkeys((t.dataset, t.solver.name) for t in by_dataset.tasks)
    )  # within a fold, the configuration's order


def test_solver_order_finishes_one_solver_after_another_each_in_fold_order(make_cfg, tmp_path):
    knn = make_cfg()["solver"]
    cfg = make_cfg(
        datasets={"wine": {"name": "wine", "params": {}}, "iris": {"name": "iris", "params": {}}},
        solvers={
            "knn3": {**knn, "name": "knn3", "n_neighbors": 3, "grid": None},
            "knn1": {**knn, "name": "knn1", "n_neighbors": 1, "grid": None},
        },
    )
    by_dataset = build_plan(cfg, str(tmp_path), "r")
    cfg["runner"]["order"] = "solvers"
    by_solver = build_plan(cfg, str(tmp_path), "r")
    assert by_solver.identity == by_dataset.identity  # every order resumes the others' runs
    assert sorted(t.key for t in by_solver.tasks) == sorted(t.key for t in by_dataset.tasks)
    solvers = list(dict.fromkeys(t.solver.name for t in by_dataset.tasks))
    datasets = list(dict.fromkeys(t.dataset for t in by_dataset.tasks))
    assert len(solvers) == 2 and len(datasets) == 2
    seen = [t.solver.name for t in by_solver.tasks]
    assert seen == sorted(seen, key=solvers.index)  # the first solver's tasks all come first
    first = [t for t in by_solver.tasks if t.solver.name == solvers[0]]
    assert [(t.repeat, t.fold) for t in first] == sorted((t.repeat, t.fold) for t in first)
    assert [t.dataset for t in first[:2]] == datasets  # split 1 of every dataset, then 2, ...


def test_solver_order_is_the_experiments_even_where_the_first_dataset_skips_a_solver(
    make_cfg, tmp_path
):
    knn = make_cfg()["solver"]
    cfg = make_cfg(
        datasets={
            "wine": {"name": "wine", "params": {}},  # multiclass: the binary-only solver skips it
            "breast_cancer": {"name": "breast_cancer", "params": {}},
        },
        solvers={
            "binary_knn": {**knn, "name": "binary_knn", "tasks": ["binary"], "grid": None},
            "knn1": {**knn, "name": "knn1", "n_neighbors": 1, "grid": None},
        },
    )
    cfg["runner"]["order"] = "solvers"
    plan = build_plan(cfg, str(tmp_path), "r")
    assert list(dict.fromkeys(t.solver.name for t in plan.tasks)) == ["binary_knn", "knn1"]


def test_an_unknown_order_names_the_choices(make_cfg, tmp_path):
    cfg = make_cfg()
    cfg["runner"]["order"] = "random"
    message = "runner.order='random' is not valid; choose one of datasets, folds, solvers"
    with pytest.raises(ConfigError, match=message):
        build_plan(cfg, str(tmp_path), "r")


@pytest.mark.parametrize("threads", [0, -1, 1.5, True, "all"])
def test_blas_threads_must_be_a_positive_integer_or_null(make_cfg, tmp_path, threads):
    cfg = make_cfg()
    cfg["runner"]["blas_threads"] = threads
    message = r"runner.blas_threads must be a positive integer or null .*, got "
    with pytest.raises(ConfigError, match=message + re.escape(repr(threads))):
        build_plan(cfg, str(tmp_path), "r")


def test_tasks_carry_the_runs_blas_threads(make_cfg, tmp_path):
    assert {t.blas_threads for t in build_plan(make_cfg(), str(tmp_path), "r").tasks} == {1}
    cfg = make_cfg()
    cfg["runner"]["blas_threads"] = None
    assert {t.blas_threads for t in build_plan(cfg, str(tmp_path), "r").tasks} == {None}


def test_a_cache_only_parameter_changes_neither_the_identity_nor_the_task_keys(make_cfg, tmp_path):
    lssvm = {
        "name": "lssvm",
        "_target_": "svmlab.estimators.lssvm.LSSVMClassifier",
        "tasks": ["binary"],
        "C": 1.0,
        "gamma": 0.5,
    }
    cfg = make_cfg(dataset={"name": "breast_cancer", "params": {}}, solver=lssvm)
    cfg["tuning"]["mode"] = "none"
    plain = build_plan(cfg, str(tmp_path), "r")
    cfg["solver"]["memory"] = "auto"
    cached = build_plan(cfg, str(tmp_path), "r")
    assert cached.identity == plain.identity
    assert [t.key for t in cached.tasks] == [t.key for t in plain.tasks]
    assert cached.tasks[0].solver.params["memory"] == "auto"  # still passed to the estimator
