"""WekaSMOClassifier reproduces Weka 3.6's weka.classifiers.functions.SMO (linear, no -M).

Behaviour checks run everywhere; the comparisons with the real Weka 3.6.14 (`make weka`) are
marked ``weka`` (and ``data``): propositional SMO on diabetes and on musk1's bag means, and
``MIWrapper -P 2 -A 3 -W weka.classifiers.functions.SMO`` on musk1 folds. Measured agreement
(docs/decisions/mil.md, "SMO as a base learner"): every prediction equal.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.svm import SVC

from svmlab.estimators.mil.embedding import embed_bags
from svmlab.estimators.mil.weka import WekaMIClassifier
from svmlab.estimators.mil.wrapper import MIWrapperClassifier, instance_weights
from svmlab.estimators.weka.smo import WekaSMOClassifier, _apply_normalize, weka_normalize
from svmlab.evaluation.parity import same_fold_predictions
from svmlab.testing import essential_checks, weka_classify


@pytest.fixture(scope="module")
def data():
    """Two overlapping Gaussian classes, features on very different scales."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 4)) * [1.0, 50.0, 0.01, 3.0] + [0.0, 500.0, 0.0, -2.0]
    y = (X[:, 0] + (X[:, 1] - 500) / 50 + rng.normal(scale=0.8, size=120) > 0).astype(int)
    return X, y


@pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)
def test_essential_checks(check):
    check(type(WekaSMOClassifier()).__name__, WekaSMOClassifier())


def test_weights_scale_the_box(data):
    """Weka's SMO is a WeightedInstancesHandler: alpha_i <= C * w_i."""
    X, y = data
    doubled = WekaSMOClassifier().fit(X, y, sample_weight=np.full(len(y), 2.0))
    big_c = WekaSMOClassifier(C=2.0).fit(X, y)
    np.testing.assert_array_equal(doubled.coef_, big_c.coef_)
    assert doubled.intercept_[0] == big_c.intercept_[0]
    w = np.random.RandomState(1).uniform(0.1, 3.0, len(y))
    weighted = WekaSMOClassifier().fit(X, y, sample_weight=w)
    assert not np.allclose(weighted.coef_, WekaSMOClassifier().fit(X, y).coef_, atol=1e-3)


def test_zero_weight_rows_are_dropped_before_scaling(data):
    X, y = data
    outlier = np.vstack([X, [[100.0, 1e5, 5.0, 40.0]]])
    w = np.r_[np.ones(len(y)), 0.0]
    dropped = WekaSMOClassifier().fit(outlier, np.r_[y, 1], sample_weight=w)
    plain = WekaSMOClassifier().fit(X, y)
    np.testing.assert_array_equal(dropped.coef_, plain.coef_)
    assert dropped.fit_info_["n_train"] == len(y)


def test_normalize_divides_by_the_range_and_zeroes_constants():
    X = np.array([[1.0, 7.0, 0.3], [4.0, 7.0, 0.1], [2.5, 7.0, 0.7]])
    low, span = weka_normalize(X)
    Z = _apply_normalize(np.array([[10.0, 3.0, 0.2]]), low, span)
    assert Z[0, 0] == (10.0 - 1.0) / 3.0  # not clipped to [0, 1]
    assert Z[0, 1] == 0.0  # constant in training
    assert Z[0, 2] == (0.2 - 0.1) / (0.7 - 0.1)  # a division, bit for bit


def test_hard_distribution_and_sign(data):
    X, y = data
    m = WekaSMOClassifier().fit(X[:80], y[:80])
    proba, score = m.predict_proba(X[80:]), m.decision_function(X[80:])
    assert set(np.unique(proba)) == {0.0, 1.0}
    np.testing.assert_array_equal(proba[:, 1], score > 0)
    np.testing.assert_array_equal(m.predict(X[80:]), m.classes_[(score > 0).astype(int)])
    # a constant-feature column is scaled to 0: its test values do not matter
    Xc = np.column_stack([X, np.full(len(y), 3.0)])
    mc = WekaSMOClassifier().fit(Xc[:80], y[:80])
    assert mc.coef_[0, -1] == 0.0
    Xt = Xc[80:].copy()
    Xt[:, -1] = 1e6
    np.testing.assert_array_equal(mc.decision_function(Xt), score)


def test_solution_is_the_svm_optimum_to_weka_tolerance(data):
    """Same primal objective as LIBSVM (tight tolerance) on the scaled data, to ~1e-3."""
    X, y = data
    w = np.random.RandomState(2).uniform(0.5, 2.0, len(y))
    m = WekaSMOClassifier(C=10.0).fit(X, y, sample_weight=w)
    Z = _apply_normalize(X, *weka_normalize(X))
    ref = SVC(kernel="linear", C=10.0, tol=1e-8).fit(Z, y, sample_weight=w)
    yy = np.where(y == 1, 1.0, -1.0)

    def primal(coef, b):
        return 0.5 * coef @ coef + 10.0 * np.sum(w * np.maximum(0.0, 1.0 - yy * (Z @ coef + b)))

    ours, theirs = primal(m.coef_[0], m.intercept_[0]), primal(ref.coef_[0], ref.intercept_[0])
    assert theirs <= ours <= theirs * (1 + 1e-3)


def test_more_classes_vote_and_one_class(data):
    X, y = data
    y3 = np.where(X[:, 3] > -1.0, 2, y)
    m = WekaSMOClassifier().fit(X, y3)
    assert [tuple(p) for p in m.pairs_] == [(0, 1), (0, 2), (1, 2)]
    proba = m.predict_proba(X)
    np.testing.assert_allclose(np.round(proba * 3), proba * 3)  # shares of three votes
    np.testing.assert_array_equal(m.predict(X), m.classes_[np.argmax(m.decision_function(X), 1)])
    assert np.mean(m.predict(X) == y3) > 0.8
    lone = WekaSMOClassifier().fit(X[:5], ["a"] * 5)
    np.testing.assert_array_equal(lone.predict(X[5:9]), ["a"] * 4)


def test_bad_input(data):
    X, y = data
    with pytest.raises(ValueError, match="non-negative"):
        WekaSMOClassifier().fit(X, y, sample_weight=np.r_[-1.0, np.ones(len(y) - 1)])
    with pytest.raises(ValueError, match="non-zero"):
        WekaSMOClassifier().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="scaling"):
        WekaSMOClassifier(scaling="standard").fit(X, y)
    with pytest.raises(ValueError, match="'C'"):
        WekaSMOClassifier(C=0.0).fit(X, y)


def test_miwrapper_hands_weighted_instances_to_smo():
    """Weka's MIWrapper never resamples: SMO gets every instance with its -A 3 weight."""
    rng = np.random.RandomState(3)
    sizes = rng.randint(1, 6, size=24)
    bags = [rng.normal(loc=i % 2, size=(k, 3)) for i, k in enumerate(sizes)]
    y = np.arange(24) % 2
    wrapper = MIWrapperClassifier(WekaSMOClassifier(), method="geometric").fit(bags, y)
    direct = WekaSMOClassifier().fit(
        np.vstack(bags), np.repeat(y, sizes), sample_weight=instance_weights(sizes, "bag_scaled")
    )
    np.testing.assert_array_equal(wrapper.estimator_.coef_, direct.coef_)
    assert wrapper.estimator_.fit_info_["n_train"] == sizes.sum()


# -- the real Weka ---------------------------------------------------------------------------


def _weka_smo_predict(tmp_path, X_train, y_train, X_test, w=None):
    """Predicted class indices of Weka 3.6's SMO with its default options."""
    name = "weka.classifiers.functions.SMO"
    return weka_classify(tmp_path, name, [], X_train, y_train, X_test, sample_weight=w)[0]


@pytest.mark.weka
@pytest.mark.data
def test_equals_weka_smo_on_diabetes_weighted(tmp_path):
    from svmlab.data.registry import load_dataset

    ds = load_dataset("diabetes_libsvm")
    X, y = ds.X, (np.asarray(ds.y) > 0).astype(int)
    perm = np.random.RandomState(0).permutation(len(y))
    tr, te = perm[:500], perm[500:]
    w = np.random.RandomState(1).uniform(0.1, 3.0, len(tr))
    weka = _weka_smo_predict(tmp_path, X[tr], y[tr], X[te], w)
    native = WekaSMOClassifier().fit(X[tr], y[tr], sample_weight=w).predict(X[te])
    np.testing.assert_array_equal(native, weka)  # measured: 268 of 268 equal


@pytest.mark.weka
@pytest.mark.data
def test_equals_weka_smo_on_musk1_bag_means(tmp_path, musk1):
    X, y = embed_bags(list(musk1.bags), "mean"), np.asarray(musk1.y)
    tr, te = np.arange(0, len(y), 2), np.arange(1, len(y), 2)
    weka = _weka_smo_predict(tmp_path, X[tr], y[tr], X[te])
    native = WekaSMOClassifier().fit(X[tr], y[tr]).predict(X[te])
    np.testing.assert_array_equal(native, weka)  # measured: 46 of 46 equal


@pytest.mark.weka
@pytest.mark.data
def test_miwrapper_smo_equals_weka_on_musk1(musk1):
    """MIWrapper -P 2 -A 3 -W SMO: the HyDR-MI study's "MIWrapper (SMO)" column."""
    pred = same_fold_predictions(
        musk1.bags,
        musk1.y,
        {
            "native": lambda: MIWrapperClassifier(
                WekaSMOClassifier(), method="geometric", weighting="bag_scaled"
            ),
            "weka": lambda: WekaMIClassifier(
                classname="weka.classifiers.mi.MIWrapper",
                options="-P 2 -A 3 -W weka.classifiers.functions.SMO",
            ),
        },
        dataset="musk1",
        n_splits=2,
    )
    # measured: 92 of 92 bags equal here, and on the 10 seed-0 folds
    np.testing.assert_array_equal(pred["native"], pred["weka"])
    assert np.mean(pred["native"] == np.asarray(musk1.y)) > 0.7
