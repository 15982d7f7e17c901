"""A transductive estimator is fitted on the training rows plus the unlabeled test rows."""

import numpy as np
import pytest

from svmlab.data.dataset import Dataset
from svmlab.errors import DataError
from svmlab.evaluation.evaluate import fit_and_score
from svmlab.solvers import SolverSpec

TSVM = {
    "name": "tsvm_evo",
    "_target_": "svmlab.estimators.evo.EvoTSVMClassifier",
    "tasks": ["binary"],
    "kernel": "linear",
}
SVC = {"name": "svc", "_target_": "sklearn.svm.SVC", "tasks": ["binary"], "kernel": "linear"}


def _parts(labels=(0, 1)):
    lo, hi = labels
    train = Dataset(name="rect", task="binary", X=np.array([[-0.5, -4.0], [0.5, 4.0]]), y=[lo, hi])
    test = Dataset(name="rect", task="binary", X=np.array([[-0.5, 4.0], [0.5, -4.0]]), y=[hi, lo])
    return train, test


def _score(cfg, train, test):
    spec = SolverSpec.from_config(cfg)
    return fit_and_score(spec, {}, train, test, preprocessing={"X": "none"}, random_state=0)


def test_the_transductive_solver_fits_on_labeled_and_unlabeled_rows():
    ev = _score(TSVM, *_parts())
    assert (ev.fit_info["n_labeled"], ev.fit_info["n_unlabeled"]) == (2, 2)
    assert ev.metrics["error_rate"] == 0.0  # upper vs lower, as the thesis's 4-Clusters


def test_an_inductive_solver_sees_the_training_rows_only():
    ev = _score(SVC, *_parts())
    assert "n_unlabeled" not in ev.fit_info and "error_rate" in ev.metrics


def test_a_class_label_of_minus_one_is_refused_for_a_transductive_solver():
    with pytest.raises(DataError, match=r"tsvm_evo.*'rect' uses -1 as a class label"):
        _score(TSVM, *_parts(labels=(-1, 1)))


def test_string_class_labels_are_kept_beside_the_integer_minus_one():
    ev = _score(TSVM, *_parts(labels=("lower", "upper")))
    assert ev.fit_info["n_unlabeled"] == 2 and ev.metrics["error_rate"] == 0.0
