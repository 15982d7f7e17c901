"""DSOLLAWVClassifier (reconstructed; no paper targets): per-chunk retraining, degenerate chunks,
determinism, scikit-learn compatibility and the spine's prequential protocol."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import StandardScaler
from sklearn.utils.estimator_checks import check_estimator

from svmlab.data.synthetic import drifting_stream
from svmlab.estimators.ollawv import DSOLLAWVClassifier, OLLAWVClassifier
from svmlab.runner.execute import execute
from svmlab.runner.plan import build_plan
from svmlab.runner.store import consolidate, prepare_run_dir
from svmlab.solvers import SolverSpec

CONF = Path(__file__).resolve().parents[2] / "conf"
SMALL_GRID = {"gamma_grid": [0.1, 1.0, 4.0], "margin_grid": [0.0, 0.1], "tune_folds": 3}


@pytest.fixture(scope="module")
def stream():
    ds = drifting_stream(n_samples=3000, random_state=1)
    X = (ds.X - 5.0) / 3.0
    return X, ds.y


def _chunks(X, y, size=500):
    return [(X[s : s + size], y[s : s + size]) for s in range(0, len(y), size)]


def test_partial_fit_retrains_on_each_chunk(stream):
    X, y = stream
    model = DSOLLAWVClassifier(random_state=0, **SMALL_GRID)
    with pytest.raises(NotFittedError):
        model.predict(X[:5])
    accuracies, models = [], []
    for k, (Xc, yc) in enumerate(_chunks(X, y)):
        if k:
            accuracies.append(np.mean(model.predict(Xc) == yc))
        model.partial_fit(Xc, yc, classes=[0, 1])
        models.append(model.model_)
        # the model is a fresh OLLAWV (no C: C=1, absolute margin) trained on this chunk only
        fresh = OLLAWVClassifier(**model.model_.get_params()).fit(Xc, yc)
        np.testing.assert_array_equal(fresh.decision_function(X), model.decision_function(X))
    assert model.fit_info_["trained"] == [True] * 6 and model.fit_info_["tuned_on_chunk"] == 0
    assert len({id(m) for m in models}) == 6
    params = model.model_.get_params()
    assert params["C"] == 1.0 and params["margin_mode"] == "absolute"
    assert (params["gamma"], params["margin"]) == (model.gamma_, model.margin_)
    assert len(model.tuning_scores_) == 6 and model.tuning_scores_[
        (model.gamma_, model.margin_)
    ] == max(model.tuning_scores_.values())
    assert model.n_chunks_seen_ == 6 and model.n_samples_seen_ == 3000
    assert model.n_support_.sum() == model.model_.n_support_.sum() > 0
    assert np.mean(accuracies) > 0.75


def test_window_trains_on_latest_chunks(stream):
    X, y = stream
    model = DSOLLAWVClassifier(tune=False, window=2, random_state=0)
    for Xc, yc in _chunks(X, y):
        model.partial_fit(Xc, yc)
    assert model.model_.fit_info_["n_samples"] == [1000]
    assert not model.fit_info_["tuned_on_chunk"] and model.tuning_scores_ is None


def test_single_class_chunks_keep_the_previous_model(stream):
    X, y = stream
    model = DSOLLAWVClassifier(tune=False, random_state=0)
    # first chunk of one class: no model yet, predict that class; classes_ grows later
    model.partial_fit(X[y == 1][:50], np.ones(50, dtype=int))
    assert (
        model.model_ is None
        and model.classes_.tolist() == [1]
        and model.fit_info_["trained"] == [False]
    )
    np.testing.assert_array_equal(model.predict(X[:4]), [1, 1, 1, 1])
    model.partial_fit(X[:500], y[:500])
    assert model.classes_.tolist() == [0, 1] and model.fit_info_["trained"] == [False, True]
    before, scores = model.model_, model.decision_function(X)
    model.partial_fit(X[y == 0][:40], np.zeros(40, dtype=int))  # one class: keep the model
    model.partial_fit(
        np.vstack([X[y == 0][:40], X[y == 1][:1]]), np.r_[np.zeros(40, int), 1]
    )  # 1 sample of class 1
    assert model.model_ is before and model.fit_info_["trained"] == [False, True, False, False]
    np.testing.assert_array_equal(model.decision_function(X), scores)
    with pytest.raises(ValueError, match="differs from the first call"):
        model.partial_fit(X[:10], y[:10], classes=[0, 1, 2])
    fixed = DSOLLAWVClassifier(tune=False).partial_fit(X[:100], y[:100], classes=[0, 1])
    with pytest.raises(ValueError, match=r"labels \[7\] are not in classes"):
        fixed.partial_fit(X[:2], [0, 7])
    with pytest.raises(ValueError, match="features"):
        fixed.partial_fit(X[:10, :2], y[:10])


def test_multiclass_stream_with_missing_class_in_a_chunk():
    rng = np.random.RandomState(0)
    centers = np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 3.0]])
    y = rng.randint(3, size=600)
    X = centers[y] + rng.randn(600, 2)
    model = DSOLLAWVClassifier(tune=False, gamma=0.5, random_state=0).partial_fit(
        X[:300], y[:300], classes=[0, 1, 2]
    )
    assert model.decision_function(X).shape == (600, 3)
    two = y[300:] != 2  # a chunk without class 2: a binary model inside a 3-class stream
    model.partial_fit(X[300:][two], y[300:][two])
    d = model.decision_function(X)
    assert d.shape == (600, 3) and (d[:, 2] == -1.0).all()
    np.testing.assert_array_equal(model.classes_[np.argmax(d, axis=1)], model.predict(X))
    assert model.n_support_[2] == 0 and model.n_support_.sum() == model.model_.n_support_.sum()


def test_deterministic(stream):
    X, y = stream
    runs = []
    for _ in range(2):
        model = DSOLLAWVClassifier(random_state=7, **SMALL_GRID)
        for Xc, yc in _chunks(X, y, 1000):
            model.partial_fit(Xc, yc)
        runs.append(model.decision_function(X))
    np.testing.assert_array_equal(*runs)


def test_standardize_applies_the_training_scaling(stream):
    X, y = stream
    raw = 100 * X + 7
    model = DSOLLAWVClassifier(tune=False, standardize=True, random_state=0).partial_fit(
        raw[:500], y[:500]
    )
    scaler = StandardScaler().fit(raw[:500])
    plain = DSOLLAWVClassifier(tune=False, random_state=0).partial_fit(
        scaler.transform(raw[:500]), y[:500]
    )
    np.testing.assert_array_equal(
        model.decision_function(raw), plain.decision_function(scaler.transform(raw))
    )


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.SkipTestWarning")
def test_check_estimator():
    # tune=False keeps it fast; tuning runs in the tests above (check_estimator with tuning passes
    # too)
    results = check_estimator(DSOLLAWVClassifier(tune=False), on_fail=None)
    assert not [r["check_name"] for r in results if r["status"] == "failed"]


def test_solver_config_is_valid():
    cfg = yaml.safe_load((CONF / "solver" / "dsollawv.yaml").read_text())
    spec = SolverSpec.from_config(cfg)
    spec.validate()
    assert isinstance(spec.build(random_state=0), DSOLLAWVClassifier) and "stream" in spec.tasks


def test_prequential_protocol_end_to_end(tmp_path):
    dso = {**yaml.safe_load((CONF / "solver" / "dsollawv.yaml").read_text()), **SMALL_GRID}
    sgd = {"name": "sgd", "_target_": "sklearn.linear_model.SGDClassifier", "tasks": ["stream"]}
    cfg = {
        "name": "t",
        "seed": 0,
        "dataset": {"name": "drifting_stream", "params": {"n_samples": 4000}},
        "solver": dso,
        "datasets": {},
        "solvers": {"a": dso, "b": sgd},
        "protocol": {
            "name": "prequential",
            "kind": "prequential",
            "chunk_size": 500,
            "update": "auto",
        },
        "runner": {"backend": "sequential", "n_jobs": 1, "task_timeout": None, "progress": False},
        "preprocessing": {"X": "zscore", "Y": "none"},
        "tuning": {"mode": "nested", "inner_folds": 3, "scoring": None},
    }
    plan = build_plan(cfg, str(tmp_path), "r")
    prepare_run_dir(tmp_path, plan.identity, "")
    summary = execute(plan.tasks, cfg["runner"])
    df = consolidate(tmp_path)
    assert summary.n_failed == 0, df.get("error")
    row = df[df["solver"] == "dsollawv"].iloc[0]
    assert len(df) == 2 and set(df["update"]) == {"partial_fit"} and row["n_chunks"] == 8
    assert len(json.loads(row["chunk_accuracy"])) == 7 and row["model_size"] > 0
    assert row["accuracy"] > 0.8
