import copy

import pytest

BASE = {
    "name": "t",
    "seed": 0,
    "dataset": {"name": "iris", "params": {}},
    "solver": {
        "name": "knn",
        "_target_": "sklearn.neighbors.KNeighborsClassifier",
        "tasks": ["binary", "multiclass"],
        "n_neighbors": 5,
        "grid": {"n_neighbors": [1, 5]},
    },
    "datasets": {},
    "solvers": {},
    "protocol": {"name": "cv5", "kind": "auto_kfold", "n_splits": 5, "n_repeats": 1},
    "runner": {"backend": "sequential", "n_jobs": 1, "task_timeout": None, "progress": False},
    "preprocessing": {"X": "zscore", "Y": "none"},
    "tuning": {"mode": "nested", "inner_folds": 3, "scoring": None},
}


@pytest.fixture
def make_cfg():
    def make(**changes):
        cfg = copy.deepcopy(BASE)
        for key, value in changes.items():
            node = cfg
            *path, last = key.split("__")
            for p in path:
                node = node[p]
            node[last] = value
        return cfg

    return make
