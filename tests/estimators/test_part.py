"""PARTClassifier: Weka 3.6's PART decision list as a scikit-learn classifier."""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from svmlab.estimators.mil.weka import find_java, find_weka_jar
from svmlab.estimators.weka.part import PARTClassifier
from svmlab.testing import weka_classify, write_weka_arff


def test_scikit_learn_checks():
    failed = {
        r["check_name"]
        for r in check_estimator(PARTClassifier(), on_fail=None)
        if r["status"] == "failed"
    }
    assert not failed, failed


def test_two_pure_halves_give_two_rules_with_an_actual_value_threshold():
    X = np.array([[0.0], [1.0], [2.0], [4.0], [5.0], [6.0]])
    part = PARTClassifier().fit(X, [0, 0, 0, 1, 1, 1])
    assert part.n_rules_ == 2
    (conditions, counts), (default, counts2) = part.rules_
    # the midpoint 3.0 is moved down to the largest training value not above it (Weka)
    assert conditions == [(0, True, 2.0)] and default == []
    np.testing.assert_array_equal(counts, [3, 0])
    np.testing.assert_array_equal(counts2, [0, 3])
    np.testing.assert_array_equal(part.predict([[2.0], [2.5], [3.5]]), [0, 1, 1])


def test_pessimistic_pruning_and_min_num_obj():
    # one flipped label among 20: C4.5's error estimate of a single leaf beats any split
    X = np.arange(20.0)[:, None]
    y = np.zeros(20, dtype=int)
    y[7] = 1
    assert PARTClassifier().fit(X, y).n_rules_ == 1
    # a clean block of 4 survives pruning, the larger leaf makes the first rule; a branch must
    # weigh min_num_obj, so with 5 the cut moves to 4 (Weka: "x0 > 4: 0 (15.0)")
    y = np.r_[np.ones(4, dtype=int), np.zeros(16, dtype=int)]
    assert PARTClassifier().fit(X, y).rules_[0][0] == [(0, False, 3.0)]
    assert PARTClassifier(min_num_obj=5).fit(X, y).rules_[0][0] == [(0, False, 4.0)]
    # noisy data where Weka's PART has 2 rules and PART -U 3 (checked against Weka 3.6.14)
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 2)).round(3)
    y = (X[:, 0] + rng.normal(size=80) > 0).astype(int)
    assert PARTClassifier().fit(X, y).n_rules_ == 2
    assert PARTClassifier(unpruned=True).fit(X, y).n_rules_ == 3


def test_weights_move_the_rules_and_probabilities_are_leaf_distributions():
    X = np.arange(8.0)[:, None]
    y = np.array([0, 0, 0, 0, 1, 1, 1, 0])
    plain = PARTClassifier().fit(X, y)
    proba = plain.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    heavy = PARTClassifier().fit(X, y, sample_weight=[1, 1, 1, 1, 1, 1, 1, 20])
    assert heavy.predict([[7.0]])[0] == 0
    assert heavy.rules_ != plain.rules_


def test_missing_values_and_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="NaN"):
        PARTClassifier().fit([[0.0], [np.nan]], [0, 1])
    with pytest.raises(ValueError, match="confidence_factor"):
        PARTClassifier(confidence_factor=1.5).fit([[0.0], [1.0]], [0, 1])


# ----------------------------------------------------------------------------- Weka parity
def run_weka(tmp_path, classname, options, X_train, y_train, X_test, y_test, n_classes):
    """Weka's test-set predictions (class indices)."""
    return weka_classify(
        tmp_path, classname, options, X_train, y_train, X_test, n_classes=n_classes
    )[0]


def weka_part_rules(tmp_path, X, y, n_classes):
    """The decision list Weka's PART prints for training data (X, y)."""
    write_weka_arff(tmp_path / "train.arff", X, y, n_classes)
    cmd = [find_java(), "-cp", str(find_weka_jar()), "weka.classifiers.rules.PART"]
    cmd += ["-t", str(tmp_path / "train.arff"), "-no-cv"]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    start = out.index("------------------\n\n") + len("------------------\n\n")
    return out[start : out.index("Number of Rules")]


def holdout(name, seed=0):
    """Registry data set (musk1: the bag means SimpleMI -M 1 feeds its base learner) as class
    indices, split 2/3 - 1/3 at random."""
    from svmlab.data.registry import load_dataset

    ds = load_dataset(name)
    if name == "musk1":
        X = np.array([b.mean(axis=0) for b in ds.bags])
    else:
        X = np.asarray(ds.X, dtype=float)
    y = np.unique(np.asarray(ds.y), return_inverse=True)[1]
    perm = np.random.default_rng(seed).permutation(len(y))
    tr, te = perm[: 2 * len(y) // 3], perm[2 * len(y) // 3 :]
    return X[tr], y[tr], X[te], y[te], int(y.max()) + 1


@pytest.mark.weka
@pytest.mark.data
@pytest.mark.parametrize("name", ["iris_weka", "diabetes_weka", "musk1"])
def test_equals_weka_part_predictions(tmp_path, name):
    """Same test predictions as Weka's PART on a random 2/3 - 1/3 hold-out."""
    X, y, Xt, yt, K = holdout(name)
    weka_pred = run_weka(tmp_path, "weka.classifiers.rules.PART", [], X, y, Xt, yt, K)
    assert len(weka_pred) == len(yt)
    assert np.mean(PARTClassifier().fit(X, y).predict(Xt) == weka_pred) == 1.0


@pytest.mark.weka
@pytest.mark.data
def test_equals_weka_part_rules(tmp_path):
    """The decision list (conditions, thresholds, leaf weights and errors) is Weka's, on the
    musk1 bag means (what SimpleMI -M 1 gives PART)."""
    X, y, *_ = holdout("musk1", seed=1)
    ours = PARTClassifier().fit(X, y).export_text([f"f{j + 1}" for j in range(X.shape[1])])
    ours = re.sub(r": (\d+) \(", lambda m: f": c{m.group(1)} (", ours)
    assert ours[: ours.index("Number of Rules")] == weka_part_rules(tmp_path, X, y, 2)
