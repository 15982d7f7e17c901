"""Fixtures shared by the estimator tests: the mi_bags even/odd split and the musk1
bag-stratified 10-fold harness."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning


@pytest.fixture(scope="module")
def split():
    """mi_bags (100 bags, 2-D) split in two: ``(bags_train, y_train, bags_test, y_test)``, the
    even-indexed bags for training and the odd-indexed ones for testing."""
    from svmlab.data.registry import load_dataset

    ds = load_dataset("mi_bags")
    bags, y = list(ds.bags), np.asarray(ds.y)
    tr, te = np.arange(0, len(y), 2), np.arange(1, len(y), 2)
    return [bags[i] for i in tr], y[tr], [bags[i] for i in te], y[te]


@pytest.fixture(scope="session")
def musk1():
    """The musk1 benchmark (92 bags); use it only in tests marked ``@pytest.mark.data``."""
    from svmlab.data.registry import load_dataset

    return load_dataset("musk1")


@pytest.fixture
def musk1_ten_fold(musk1):
    """Pooled accuracy of a multi-instance model on musk1, bag-stratified 10-fold (seed 0).

    ``musk1_ten_fold(make_model, zscore=True, ignore=(ConvergenceWarning,))`` builds
    ``make_model(fold)`` for each of the 10 folds, fits it on the training bags (z-scored with
    the training fold's instance mean and standard deviation when ``zscore``), predicts the test
    bags and returns the accuracy pooled over the 10 test folds, as the papers' tables count it.
    Warnings of the classes in ``ignore`` are silenced during ``fit``.
    """
    from svmlab.evaluation.protocols import make_splits

    ds = musk1

    def run(make_model, *, zscore=True, ignore=(ConvergenceWarning,)):
        splits = make_splits(
            {"kind": "bag_stratified_kfold", "n_splits": 10}, ds.task, ds.y, 0, "musk1"
        )
        pred = np.empty_like(ds.y)
        for split in splits:
            train = [ds.bags[i] for i in split.train]
            test = [ds.bags[i] for i in split.test]
            if zscore:
                X = np.vstack(train)
                mu, sd = X.mean(axis=0), X.std(axis=0)
                sd[sd == 0] = 1.0
                train = [(b - mu) / sd for b in train]
                test = [(b - mu) / sd for b in test]
            model = make_model(split.fold)
            with warnings.catch_warnings():
                for category in ignore:
                    warnings.simplefilter("ignore", category)
                model.fit(train, ds.y[split.train])
            pred[split.test] = model.predict(test)
        return float(np.mean(pred == ds.y))

    return run
