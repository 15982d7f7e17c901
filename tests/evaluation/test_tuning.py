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
