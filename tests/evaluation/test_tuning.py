import numpy as np

import svmlab.evaluation.tuning as tuning
from svmlab.data.dataset import Dataset
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
