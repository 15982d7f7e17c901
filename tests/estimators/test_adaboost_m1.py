"""AdaBoostM1Classifier: Weka 3.6's AdaBoostM1 (reweighting) as a scikit-learn classifier."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.estimator_checks import check_estimator

from svmlab.estimators.weka.adaboost_m1 import AdaBoostM1Classifier, heaviest_instances
from svmlab.estimators.weka.decision_stump import DecisionStumpClassifier
from svmlab.estimators.weka.part import PARTClassifier
from svmlab.estimators.weka.zero_r import ZeroRClassifier
from svmlab.testing import weka_classify


def test_scikit_learn_checks():
    # two rounds keep the checks fast; the loop is the same for ten
    failed = {
        r["check_name"]
        for r in check_estimator(AdaBoostM1Classifier(n_iterations=2), on_fail=None)
        if r["status"] == "failed"
    }
    assert not failed, failed


def test_default_base_learner_is_part():
    X = np.array([[0.0], [1.0], [2.0], [3.0], [4.0], [5.0]])
    boost = AdaBoostM1Classifier().fit(X, ["a", "a", "a", "b", "b", "b"])
    # error 0 in the first round: Weka keeps that model alone and stops
    assert len(boost.estimators_) == 1 and isinstance(boost.estimators_[0], PARTClassifier)
    assert boost.errors_.tolist() == [0.0]
    np.testing.assert_array_equal(boost.predict_proba(X), boost.estimators_[0].predict_proba(X))
    np.testing.assert_array_equal(boost.predict([[0.5], [4.5]]), ["a", "b"])


def test_a_useless_first_model_is_kept_alone():
    # ZeroR on balanced classes errs on half the weight: kept (first round), no boosting
    X = np.arange(6.0)[:, None]
    boost = AdaBoostM1Classifier(ZeroRClassifier()).fit(X, [0, 1, 0, 1, 0, 1])
    assert len(boost.estimators_) == 1 and boost.errors_.tolist() == [0.5]


def test_reweighting_and_votes_follow_adaboost_m1():
    X = np.arange(12.0)[:, None]
    y = np.array([0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 1, 1])
    boost = AdaBoostM1Classifier(DecisionStumpClassifier(), n_iterations=3).fit(X, y)
    first = DecisionStumpClassifier().fit(X, y)
    missed = first.predict(X) != y
    err = missed.mean()
    assert boost.errors_[0] == pytest.approx(err)
    # misclassified weights grow by (1 - err) / err, then all are rescaled to their old sum
    w = np.where(missed, (1 - err) / err, 1.0)
    w = w * 12 / w.sum()
    second = DecisionStumpClassifier().fit(X, y, sample_weight=w)
    assert boost.estimators_[1].threshold_ == second.threshold_
    betas = np.log((1 - boost.errors_) / boost.errors_)[: len(boost.estimators_)]
    np.testing.assert_allclose(boost.estimator_weights_, betas)
    # the distribution is exp(votes - max) normalised, the votes being log(1 / beta) per class
    votes = np.zeros((12, 2))
    for est, b in zip(boost.estimators_, boost.estimator_weights_):
        votes[np.arange(12), est.predict(X)] += b
    expected = np.exp(votes - votes.max(axis=1, keepdims=True))
    np.testing.assert_allclose(boost.predict_proba(X), expected / expected.sum(axis=1)[:, None])


def test_weight_threshold_selects_the_heaviest_instances():
    w = np.array([1.0, 5.0, 2.0, 2.0, 0.5])
    # 90 % of 10.5 = 9.45: 5, then both 2s (no cut between equal weights) reach 9
    np.testing.assert_array_equal(sorted(heaviest_instances(w, 0.9)), [0, 1, 2, 3])
    np.testing.assert_array_equal(sorted(heaviest_instances(w, 0.4)), [1])
    np.testing.assert_array_equal(sorted(heaviest_instances(w, 1.0)), [0, 1, 2, 3, 4])


def test_base_learner_without_weights_is_refused():
    with pytest.raises(ValueError, match="sample_weight"):
        AdaBoostM1Classifier(KNeighborsClassifier()).fit([[0.0], [1.0]], [0, 1])


# ----------------------------------------------------------------------------- Weka parity
def weka_predictions(tmp_path, options, X, y, Xt, yt, n_classes):
    """Weka AdaBoostM1's test-set predictions (class indices)."""
    name = "weka.classifiers.meta.AdaBoostM1"
    return weka_classify(tmp_path, name, options, X, y, Xt, n_classes=n_classes)[0]


def holdout(name):
    """Registry data set (musk1: the bag means SimpleMI -M 1 feeds its base learner) as class
    indices, split 2/3 - 1/3 at random."""
    from svmlab.data.registry import load_dataset

    ds = load_dataset(name)
    X = np.array([b.mean(axis=0) for b in ds.bags]) if name == "musk1" else np.asarray(ds.X)
    y = np.unique(np.asarray(ds.y), return_inverse=True)[1]
    perm = np.random.default_rng(1).permutation(len(y))
    tr, te = perm[: 2 * len(y) // 3], perm[2 * len(y) // 3 :]
    return X[tr], y[tr], X[te], y[te], int(y.max()) + 1


@pytest.mark.weka
@pytest.mark.data
@pytest.mark.parametrize(
    "name, base",
    [("iris_weka", "PART"), ("musk1", "PART"), ("diabetes_weka", "DecisionStump")],
)
def test_equals_weka_adaboost_m1(tmp_path, name, base):
    """Same test predictions as Weka's AdaBoostM1 -P 100 -S 1 -I 10 (PART, or Weka's default
    base learner DecisionStump)."""
    X, y, Xt, yt, K = holdout(name)
    if base == "PART":
        options, ours = ["-W", "weka.classifiers.rules.PART"], AdaBoostM1Classifier()
    else:
        options, ours = [], AdaBoostM1Classifier(DecisionStumpClassifier())
    weka_pred = weka_predictions(tmp_path, options, X, y, Xt, yt, K)
    assert len(weka_pred) == len(yt)
    ours.fit(X, y)
    assert len(ours.estimators_) > 1  # boosting happened
    assert np.mean(ours.predict(Xt) == weka_pred) == 1.0
