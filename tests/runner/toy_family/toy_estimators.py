"""A toy algorithm family for the core's contract test: it exists only in tests/.

``ToyCentroidClassifier`` declares every capability of :class:`svmlab.contract.Contract`
that a vector estimator can have; ``ToyBagClassifier`` takes bags. Both log their calls to
the file named by ``SVMLAB_TOY_LOG`` (one line per call), so a test can see what the runner
called without reaching into it.
"""

import os

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, clone

from svmlab.contract import Contract, RowValue


def _log(event: str) -> None:
    path = os.environ.get("SVMLAB_TOY_LOG")
    if path:
        with open(path, "a") as f:
            f.write(event + "\n")


def _ignored(params) -> tuple[str, ...]:
    """``unused`` never changes the model; ``shrink`` does not when ``mode`` is "flat"."""
    return ("unused",) + (("shrink",) if params.get("mode") == "flat" else ())


class ToyCentroidClassifier(ClassifierMixin, BaseEstimator):
    """Nearest class centroid, centroids shrunk towards the overall mean by ``shrink``.

    Transductive (the unlabeled test rows move the overall mean), fits a whole ``shrink``
    path at once, reports its distance to the mean as a row value, pretends to tune itself
    for 0.25 s and scores its test rows in ``test_diagnostics``.
    """

    svmlab_contract = Contract(
        transductive=True,
        path_parameter="shrink",
        tuning_ignores=_ignored,
        row_values={"toy_spread": RowValue("spread", "min")},
        tune_seconds="self_tuning_seconds",
        test_diagnostics=True,
    )

    def __init__(self, shrink=0.0, unused=0, mode="shrunk"):
        self.shrink = shrink
        self.unused = unused
        self.mode = mode

    def fit(self, X, y):
        _log(f"fit shrink={self.shrink} unused={self.unused}")
        return self._fit(np.asarray(X, dtype=float), np.asarray(y))

    def _fit(self, X, y):
        labeled = y != -1
        self.classes_ = np.unique(y[labeled])
        centre = X.mean(axis=0)  # all rows, unlabeled ones included
        shrink = 0.0 if self.mode == "flat" else self.shrink
        self.centroids_ = np.array(
            [(1 - shrink) * X[y == c].mean(axis=0) + shrink * centre for c in self.classes_]
        )
        self.fit_info_ = {
            "spread": float(np.linalg.norm(self.centroids_ - centre)),
            "self_tuning_seconds": 0.25,
            "n_unlabeled": int((~labeled).sum()),
        }
        return self

    def fit_path(self, X, y, values):
        _log(f"fit_path {list(values)}")
        X, y = np.asarray(X, dtype=float), np.asarray(y)
        return [clone(self).set_params(shrink=v)._fit(X, y) for v in values]

    def decision_function(self, X):
        d = ((np.asarray(X)[:, None, :] - self.centroids_[None]) ** 2).sum(axis=2)
        return d[:, 0] - d[:, 1] if len(self.classes_) == 2 else -d

    def predict(self, X):
        d = ((np.asarray(X)[:, None, :] - self.centroids_[None]) ** 2).sum(axis=2)
        return self.classes_[d.argmin(axis=1)]

    def test_diagnostics(self, X, y) -> dict:
        return {"toy_test_accuracy": float(np.mean(self.predict(X) == y))}


class ToyBagClassifier(ClassifierMixin, BaseEstimator):
    """Bag label by the nearest centroid of bag means."""

    svmlab_contract = Contract(input="bags")

    def fit(self, bags, y):
        _log(f"fit_bags {len(bags)} {type(bags[0]).__name__}")
        means = np.array([np.mean(b, axis=0) for b in bags])
        y = np.asarray(y)
        self.classes_ = np.unique(y)
        self.centroids_ = np.array([means[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict(self, bags):
        means = np.array([np.mean(b, axis=0) for b in bags])
        d = ((means[:, None, :] - self.centroids_[None]) ** 2).sum(axis=2)
        return self.classes_[d.argmin(axis=1)]
