"""Two implementations of one multi-instance algorithm on the same folds.

svmlab re-implements the Weka 3.6 multi-instance classifiers that the MIRSVM study compared
against, and runs the real ones through :class:`svmlab.estimators.mil.weka.WekaMIClassifier`.
:func:`same_fold_predictions` fits each of several models on the same bag-stratified folds of
one dataset and returns every model's out-of-fold predictions, so that a native mode and the
Weka classifier it stands for can be compared bag by bag (``tests/estimators/mil`` and
``scripts/bench/mil_weka_parity.py`` do).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from svmlab.evaluation.protocols import make_splits

__all__ = ["same_fold_predictions", "pooled_accuracy"]


def _zscore(train, test):
    X = np.vstack(train)
    mu, sd = X.mean(axis=0), X.std(axis=0)
    sd[sd == 0] = 1.0
    return [(b - mu) / sd for b in train], [(b - mu) / sd for b in test]


def same_fold_predictions(
    bags,
    y,
    models: Mapping[str, Callable[[], object]],
    *,
    dataset: str,
    n_splits: int = 10,
    seed: int = 0,
    zscore: bool = False,
    sample_weight=None,
) -> dict[str, np.ndarray]:
    """Out-of-fold bag predictions of every model on one set of bag-stratified folds.

    Parameters
    ----------
    bags : sequence of ndarray of shape (n_instances_I, n_features)
    y : array-like of shape (n_bags,)
    models : mapping of str to callable
        ``name -> make_model``; ``make_model()`` returns a fresh unfitted estimator.
    dataset : str
        The dataset's name; with ``seed`` it fixes the folds, exactly as the runner's
        ``bag_stratified_kfold`` protocol draws them for that dataset.
    n_splits : int, default=10
    seed : int, default=0
        Master seed.
    zscore : bool, default=False
        Standardise instances with the training fold's mean and standard deviation (the
        MIRSVM study's preprocessing). Weka's classifiers rescale internally, so parity runs
        leave it off.
    sample_weight : array-like of shape (n_bags,), optional
        Bag weights passed to every model's ``fit`` (e.g. musk1's ``{w}`` column).

    Returns
    -------
    dict of str to ndarray of shape (n_bags,)
        Each model's predicted label of every bag, predicted by the model that did not see it.
    """
    y = np.asarray(y)
    bags = list(bags)
    protocol = {"kind": "bag_stratified_kfold", "n_splits": n_splits}
    splits = make_splits(protocol, "multi_instance", y, seed, dataset)
    out = {name: np.empty_like(y) for name in models}
    for split in splits:
        train = [bags[i] for i in split.train]
        test = [bags[i] for i in split.test]
        if zscore:
            train, test = _zscore(train, test)
        kwargs = {}
        if sample_weight is not None:
            kwargs["sample_weight"] = np.asarray(sample_weight)[split.train]
        for name, make in models.items():
            model = make()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(train, y[split.train], **kwargs)
            out[name][split.test] = model.predict(test)
    return out


def pooled_accuracy(y, pred, sample_weight=None) -> float:
    """Accuracy over all bags of all folds (weighted by ``sample_weight`` if given, as Weka
    counts weighted bags)."""
    y, pred = np.asarray(y), np.asarray(pred)
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=float)
    return float(np.sum(w * (y == pred)) / np.sum(w))
