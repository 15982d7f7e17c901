"""WekaBaggingClassifier: Weka 3.6's Bagging (bootstrap draws, member seeds) in scikit-learn.

The draws are checked against orders printed by Weka 3.6.14; the parity tests (marker
``weka``) train the real ``weka.classifiers.meta.Bagging`` and the native one on the same rows
and compare their test predictions.
"""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier
from sklearn.utils.estimator_checks import check_estimator

from svmlab.data.registry import load_dataset
from svmlab.estimators.weka.bagging import WekaBaggingClassifier, weka_resample_with_weights
from svmlab.estimators.weka.decision_stump import DecisionStumpClassifier
from svmlab.estimators.weka.java_random import JavaRandom
from svmlab.estimators.weka.part import PARTClassifier
from svmlab.estimators.weka.rep_tree import REPTreeClassifier
from svmlab.testing import essential_checks, weka_classify

EXPECTED_FAILED = {
    # a weight is a drawing probability: a row of weight 2 is not two rows
    "check_sample_weight_equivalence_on_dense_data": "weights are drawing probabilities",
}


def _small():
    return WekaBaggingClassifier(n_estimators=2)


@pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)
def test_essential_checks(check):
    check(type(_small()).__name__, _small())


def test_scikit_learn_checks():
    failed = {
        r["check_name"]
        for r in check_estimator(_small(), on_fail=None, expected_failed_checks=EXPECTED_FAILED)
        if r["status"] == "failed"
    }
    assert not failed, failed


def test_resampling_follows_weka():
    # Weka 3.6.14: Instances.resampleWithWeights(new Random(3)) twice with these weights,
    # and once with unit weights and new Random(1)
    w = [1, 2, 0, 3, 0.5, 1, 1, 0.25, 4]
    rng = JavaRandom(3)
    assert weka_resample_with_weights(w, rng).tolist() == [6, 0, 0, 3, 8, 3, 3, 0, 3]
    assert weka_resample_with_weights(w, rng).tolist() == [8, 1, 8, 1, 8, 8, 1, 8, 8]
    assert weka_resample_with_weights(np.ones(7), JavaRandom(1)).tolist() == [5, 2, 1, 2, 6, 0, 6]


def test_member_seeds_and_draw_order():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = (X[:, 0] > 0).astype(int)
    model = WekaBaggingClassifier(n_estimators=3, seed=9).fit(X, y)
    # Weka: per member n nextDouble() draws for the sample, then nextInt() as the seed of a
    # Randomizable member (REPTree)
    ref = JavaRandom(9)
    for member, rows in zip(model.estimators_, model.estimators_samples_):
        np.testing.assert_array_equal(rows, weka_resample_with_weights(np.ones(30), ref))
        assert isinstance(member, REPTreeClassifier)
        assert member.seed == ref.next_int_unbounded()
    # a member that is not randomisable takes no draw: the samples follow one another
    stumps = WekaBaggingClassifier(DecisionStumpClassifier(), n_estimators=3, seed=9).fit(X, y)
    ref = JavaRandom(9)
    for rows in stumps.estimators_samples_:
        np.testing.assert_array_equal(rows, weka_resample_with_weights(np.ones(30), ref))
    assert stumps.fit_info_["member_seeds"] == [None] * 3

    # a Weka re-implementation that Weka does not randomise keeps its seed
    class NotRandomizable(REPTreeClassifier):
        _weka_randomizable = False

    kept = WekaBaggingClassifier(NotRandomizable(seed=4), n_estimators=2, seed=9).fit(X, y)
    assert [m.seed for m in kept.estimators_] == [4, 4]
    # other scikit-learn members get the draw's lower 31 bits as random_state
    sk = WekaBaggingClassifier(DecisionTreeClassifier(), n_estimators=2).fit(X, y)
    ref = JavaRandom(1)
    weka_resample_with_weights(np.ones(30), ref)
    assert sk.estimators_[0].random_state == ref.next_int_unbounded() & 0x7FFFFFFF


def test_weights_sample_size_and_missing_classes():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 3))
    y = np.repeat([0, 1, 2], [15, 15, 10])
    w = np.where(y == 2, 0.0, 1.0)  # class 2 is never drawn
    model = WekaBaggingClassifier(n_estimators=4, bag_size_percent=55).fit(X, y, sample_weight=w)
    assert model.fit_info_["sample_size"] == 22
    assert all(len(r) == 22 and not np.any(y[r] == 2) for r in model.estimators_samples_)
    proba = model.predict_proba(X)
    assert proba.shape == (40, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(proba[:, 2] == 0)  # members that never saw class 2 give it nothing
    with pytest.raises(ValueError, match="(?i)weight"):
        WekaBaggingClassifier().fit(X, y, sample_weight=np.zeros(40))


def test_probability_is_the_mean_of_the_members():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    y = (X[:, 0] + rng.normal(size=60) > 0).astype(int)
    model = WekaBaggingClassifier(n_estimators=5).fit(X, y)
    mean = np.mean([m.predict_proba(X) for m in model.estimators_], axis=0)
    np.testing.assert_allclose(model.predict_proba(X), mean)
    assert len({m.seed for m in model.estimators_}) == 5


# ------------------------------------------------------------------------------------------
# the real Weka
# ------------------------------------------------------------------------------------------


def weka_predict(tmp_path, classname, options, X, y, X_test, w=None):
    return weka_classify(tmp_path, classname, options, X, y, X_test, sample_weight=w)


def _tied_weighted():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 6, size=(223, 7)).astype(float)
    y = ((X.sum(1) * 3).astype(int) + rng.integers(0, 4, size=223)) % 4
    return X, y, rng.exponential(size=223)


def _musk1_bag_means():
    ds = load_dataset("musk1")
    return np.vstack([b.mean(axis=0) for b in ds.bags]), np.asarray(ds.y), None


CASES = {
    "iris": lambda: (load_dataset("iris").X, load_dataset("iris").y, None),
    "musk1_bag_means": _musk1_bag_means,
    "ties_weighted": _tied_weighted,
}


@pytest.mark.weka
@pytest.mark.parametrize(
    "case, options, params",
    [
        pytest.param("musk1_bag_means", [], {}, marks=pytest.mark.data),
        (
            "ties_weighted",
            ["-S", "7", "-P", "60", "-I", "5"],
            {"seed": 7, "bag_size_percent": 60, "n_estimators": 5},
        ),
        (
            "iris",
            ["-I", "4", "-W", "weka.classifiers.rules.PART"],
            {"n_estimators": 4, "estimator": PARTClassifier()},
        ),
    ],
    ids=["musk1_bag_means-REPTree", "ties_weighted-P60", "iris-PART"],
)
def test_equals_weka_bagging(tmp_path, case, options, params):
    X, y, w = CASES[case]()
    _, y = np.unique(y, return_inverse=True)
    train = np.arange(len(y)) % 3 != 2
    wt = None if w is None else w[train]
    pred, proba = weka_predict(
        tmp_path, "weka.classifiers.meta.Bagging", options, X[train], y[train], X, wt
    )
    ours = WekaBaggingClassifier(**params).fit(X[train], y[train], sample_weight=wt)
    np.testing.assert_array_equal(ours.predict(X), pred)
    np.testing.assert_allclose(ours.predict_proba(X), proba, atol=1.5e-3)  # Weka prints 3 dp
