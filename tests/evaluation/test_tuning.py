import numpy as np

import svmlab.evaluation.tuning as tuning
from svmlab.data.dataset import Dataset
from svmlab.evaluation.tuning import Tuning
from svmlab.solvers import SolverSpec


def _data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    return Dataset(name="toy", task="binary", X=X, y=(X[:, 0] > 0).astype(int))


def test_equivalent_grid_points_are_trained_once(monkeypatch):
    calls = []
    real = tuning.fit_and_score
    monkeypatch.setattr(
        tuning, "fit_and_score", lambda *a, **k: calls.append(a[1]) or real(*a, **k)
    )
    spec = SolverSpec.from_config(
        {
            "name": "ollawv",
            "_target_": "svmlab.estimators.ollawv.OLLAWVClassifier",
            "grid": {"C": [1.0, 4.0, 16.0], "gamma": [0.5, 2.0]},
        }
    )
    best, table = tuning.inner_search(
        spec,
        _data(),
        tuning={"inner_folds": 3},
        preprocessing=None,
        classes=np.array([0, 1]),
        seed=0,
        random_state=0,
    )
    assert len(table) == 6 and len(calls) == 2 * 3  # two distinct models x three inner folds
    by_gamma = {}
    for row in table:
        by_gamma.setdefault(row["params"]["gamma"], set()).add(row["score"])
    assert all(len(scores) == 1 for scores in by_gamma.values())
    # with the absolute margin C matters again: every point is trained
    calls.clear()
    spec = SolverSpec.from_config(
        {
            **{
                "name": "o",
                "_target_": "svmlab.estimators.ollawv.OLLAWVClassifier",
                "margin_mode": "absolute",
            },
            "grid": {"C": [1.0, 4.0], "gamma": [0.5]},
        }
    )
    tuning.inner_search(
        spec,
        _data(),
        tuning={"inner_folds": 3},
        preprocessing=None,
        classes=np.array([0, 1]),
        seed=0,
        random_state=0,
    )
    assert len(calls) == 2 * 3


def test_a_solver_scoring_overrides_the_run_scoring(monkeypatch):
    """One model per measure: each solver's grid search optimises its own metric."""
    import pytest

    from svmlab.errors import SvmlabError

    cfg = {
        "name": "svmperf_auc",
        "_target_": "svmlab.estimators.svmperf.SVMPerfClassifier",
        "loss": "auc",
        "scoring": "roc_auc",
        "grid": {"C": [0.1, 10.0]},
    }
    spec = SolverSpec.from_config(cfg)
    assert "scoring" not in spec.params and spec.settings()["scoring"] == "roc_auc"
    run = tuning.Tuning.from_config({"scoring": "accuracy"})
    assert run.metric("binary", spec) == "roc_auc" and run.metric("binary") == "accuracy"
    seen = []
    real = tuning.fit_and_score

    def spy(*a, **k):
        ev = real(*a, **k)
        seen.append(ev.metrics["roc_auc"])
        return ev

    monkeypatch.setattr(tuning, "fit_and_score", spy)

    _, table = tuning.inner_search(
        spec,
        _data(),
        tuning=run,
        preprocessing=None,
        classes=np.array([0, 1]),
        seed=0,
        random_state=0,
    )
    assert len(seen) == 6  # two grid points x three inner folds, scored by ROC AUC
    assert [row["score"] for row in table] == pytest.approx([np.mean(seen[:3]), np.mean(seen[3:])])
    run.check_task("binary", "toy", [spec])
    with pytest.raises(SvmlabError, match="f1_macro"):
        run.check_task("binary", "toy", [SolverSpec.from_config({**cfg, "scoring": "f1_macro"})])
    with pytest.raises(SvmlabError, match="unknown metric|no metric|valid"):
        run.check_task("binary", "toy", [SolverSpec.from_config({**cfg, "scoring": "f2"})])


def test_a_path_parameter_is_fitted_as_one_path_with_the_same_scores(monkeypatch):
    """OLLAWV's margins: one fit_path per (gamma, inner fold), the scores of separate fits."""
    from svmlab.estimators.ollawv import OLLAWVClassifier

    rng = np.random.default_rng(3)
    X = rng.normal(size=(90, 3))
    data = Dataset(
        name="toy", task="binary", X=X, y=(X[:, 0] + 0.7 * rng.normal(size=90) > 0).astype(int)
    )
    spec = SolverSpec.from_config(
        {
            "name": "ollawv",
            "_target_": "svmlab.estimators.ollawv.OLLAWVClassifier",
            "grid": {"C": [1.0, 4.0], "margin": [0.3, 0.03, 0.003], "gamma": [0.5, 2.0]},
        }
    )
    assert tuning.grid_path(spec) == ("margin",)
    assert tuning.seed_key(spec, {"C": 1.0, "margin": 0.3, "gamma": 0.5}) == tuning.seed_key(
        spec, {"C": 4.0, "margin": 0.003, "gamma": 0.5}
    )
    paths, singles = [], []
    real_path = OLLAWVClassifier.fit_path
    monkeypatch.setattr(
        OLLAWVClassifier,
        "fit_path",
        lambda self, *a, **k: paths.append(a[2]) or real_path(self, *a, **k),
    )
    run = dict(
        tuning={"inner_folds": 3},
        preprocessing=None,
        classes=np.array([0, 1]),
        seed=0,
        random_state=0,
    )
    _, table = tuning.inner_search(spec, data, **run)
    assert len(table) == 12 and len(paths) == 2 * 3  # two gammas x three inner folds
    assert all(values == [0.3, 0.03, 0.003] for values in paths)
    # the same search with every point fitted on its own
    real = tuning.fit_and_score
    monkeypatch.setattr(tuning, "grid_path", lambda solver: ())
    monkeypatch.setattr(
        tuning, "fit_and_score", lambda *a, **k: singles.append(a[1]) or real(*a, **k)
    )
    monkeypatch.setattr(  # the seeds of the path search, so the models are the same
        tuning,
        "seed_key",
        lambda solver, point: tuning.model_key(
            solver, {k: v for k, v in point.items() if k != "margin"}
        ),
    )
    _, alone = tuning.inner_search(spec, data, **run)
    assert len(singles) == 6 * 3  # C does not change the model: 2 gammas x 3 margins x 3 folds
    assert [row["score"] for row in table] == [row["score"] for row in alone]
    assert len({row["score"] for row in table}) > 2  # the margins do change the score


def test_a_joint_path_is_fitted_once_per_inner_fold_with_the_scores_of_separate_fits(monkeypatch):
    """Random-/Rank-MLM's K x C grid: one fit_path per inner fold over every (K, C), whose
    points share one seed; the same scores as fitting each point with that seed."""
    from svmlab.estimators.mlm import MLMRegressor

    rng = np.random.default_rng(4)
    X = rng.normal(size=(80, 3))
    data = Dataset(name="toy", task="regression", X=X, y=X[:, 0] - X[:, 1] + rng.normal(size=80))
    spec = SolverSpec.from_config(
        {
            "name": "mlm_rank",
            "_target_": "svmlab.estimators.mlm.MLMRegressor",
            "grid": {"n_reference": [0.2, 0.5], "C": [0.0, 1.0, 4.0]},
        }
    )
    assert tuning.grid_path(spec) == ("C", "n_reference")
    assert len({tuning.seed_key(spec, p) for p in spec.grid_points()}) == 1
    paths = []
    real_path = MLMRegressor.fit_path
    monkeypatch.setattr(
        MLMRegressor,
        "fit_path",
        lambda self, *a, **k: paths.append(a[2]) or real_path(self, *a, **k),
    )
    run = dict(tuning={"inner_folds": 3}, preprocessing=None, classes=None, seed=0, random_state=0)
    _, table = tuning.inner_search(spec, data, **run)
    assert len(table) == 6 and len(paths) == 3  # one path per inner fold
    assert all(len(points) == 6 and isinstance(points[0], dict) for points in paths)
    monkeypatch.setattr(tuning, "grid_path", lambda solver: ())
    monkeypatch.setattr(  # the seed of the path search, so the reference points are the same
        tuning, "seed_key", lambda solver, point: tuning.model_key(solver, {})
    )
    _, alone = tuning.inner_search(spec, data, **run)
    np.testing.assert_allclose(
        [row["score"] for row in table], [row["score"] for row in alone], rtol=1e-9
    )


def test_one_se_on_a_joint_path_moves_along_its_first_varied_parameter(monkeypatch):
    """Rank-MLM: along C (towards larger) among the points of one K; Random-MLM (only K
    varies): along K (towards fewer reference points), None counting as the largest."""
    rng = np.random.default_rng(5)
    X = rng.normal(size=(60, 2))
    data = Dataset(name="toy", task="regression", X=X, y=X[:, 0] + 0.3 * rng.normal(size=60))
    run = dict(preprocessing=None, classes=None, seed=0, random_state=0)
    rule = {"inner_folds": 3, "rule": "one_se"}
    target = "svmlab.estimators.mlm.MLMRegressor"
    rank = SolverSpec.from_config(
        {"name": "rank", "_target_": target, "grid": {"n_reference": [0.3, 0.6], "C": [0.5, 8.0]}}
    )
    random = SolverSpec.from_config(
        {"name": "random", "_target_": target, "grid": {"n_reference": [0.2, None]}}
    )
    seen = []
    real = tuning.select_point
    monkeypatch.setattr(tuning, "select_point", lambda *a, **k: seen.append(k) or real(*a, **k))
    for spec, along, simpler in ((rank, "C", "max"), (random, "n_reference", "min")):
        Tuning.from_config(rule).check_rule(spec)  # a direction is declared: not refused
        _, table = tuning.inner_search(spec, data, tuning=rule, **run)
        used = seen.pop()
        assert used["rule"] == "one_se" and used["simpler"] == simpler
        assert used["path_values"] == [row["params"][along] for row in table]
        others = [{k: v for k, v in row["params"].items() if k != along} for row in table]
        same = [[a == b for b in others] for a in others]
        assert [[a == b for b in used["groups"]] for a in used["groups"]] == same


def test_one_se_orders_none_as_the_largest_path_value():
    picked = tuning.select_point(
        [0.80, 0.79, 0.81],
        rule="one_se",
        errors=[0.05, 0.05, 0.05],
        path_values=[None, 0.5, 0.2],
        simpler="max",
    )
    assert picked == 0
