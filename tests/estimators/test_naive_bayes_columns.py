"""NaiveBayesColumns and MIWrapper's feature-mask predictor: the predictions of a refit on any
column subset, bit for bit, without refitting."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.naive_bayes import GaussianNB

from svmlab.estimators.mil import MIWrapperClassifier
from svmlab.estimators.weka.naive_bayes import PrecisionNaiveBayes
from svmlab.estimators.weka.naive_bayes_columns import NaiveBayesColumns


def _data(seed, n=120, d=40):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, d)) * rng.uniform(0.1, 50, d) + 0.7 * y[:, None]
    X = np.round(X, int(rng.integers(0, 3)))  # repeated values: ties in the rounding
    X[:, 3] = 1.5  # a constant column (default precision, sd floor)
    w = rng.uniform(0.2, 3.0, n)
    w[:5] = 0.0  # rows of weight zero are dropped
    return X[:80], y[:80], w[:80], X[80:]


@pytest.mark.parametrize("seed", range(4))
def test_columns_equal_a_refit_on_every_mask_bit_for_bit(seed):
    X, y, w, Xt = _data(seed)
    columns = NaiveBayesColumns(X, y, w, Xt)
    rng = np.random.default_rng(seed + 100)
    for _ in range(60):
        mask = rng.random(X.shape[1]) < rng.uniform(0.05, 1.0)
        mask[rng.integers(X.shape[1])] = True
        refit = PrecisionNaiveBayes().fit(X[:, mask], y, sample_weight=w)
        np.testing.assert_array_equal(columns.predict_proba(mask), refit.predict_proba(Xt[:, mask]))


def test_columns_follow_weka_underflow_rescaling():
    # 300 tiny likelihoods: the running product drops below 1e-75 and is rescaled
    X, y, w, Xt = _data(7, n=120, d=300)
    Xt = Xt + 40.0
    mask = np.ones(X.shape[1], dtype=bool)
    refit = PrecisionNaiveBayes(prior_smoothing=0.5).fit(X, y, sample_weight=w)
    columns = NaiveBayesColumns(X, y, w, Xt, prior_smoothing=0.5)
    np.testing.assert_array_equal(columns.predict_proba(mask), refit.predict_proba(Xt))


def _bags(seed, n_bags=36, d=15):
    rng = np.random.default_rng(seed)
    y = np.array(["neg", "pos"])[np.arange(n_bags) % 2]
    bags = []
    for c in y:
        b = np.round(rng.normal(size=(int(rng.integers(1, 6)), d)), 2)
        b[:, :3] += 0.9 * (c == "pos")
        bags.append(b)
    X = np.concatenate(bags)
    starts = np.cumsum([0] + [len(b) for b in bags[:-1]])
    return bags, X, starts, y


@pytest.mark.parametrize("method", ["arithmetic", "geometric", "max"])
@pytest.mark.parametrize("weighting", ["bag_scaled", "none"])
def test_miwrapper_mask_predictor_equals_refitting(method, weighting):
    bags, X, starts, y = _bags(3)
    tests = [np.arange(i, 36, 3) for i in range(3)]
    folds = [(np.setdiff1d(np.arange(36), test), test) for test in tests]
    wrapper = MIWrapperClassifier(method=method, weighting=weighting)
    predict = wrapper.feature_mask_predictor(X, starts, y, folds)
    rng = np.random.default_rng(0)
    for _ in range(25):
        mask = rng.random(X.shape[1]) < 0.5
        mask[0] = True
        expected = np.empty(len(y), dtype=bool)
        for train, test in folds:
            model = MIWrapperClassifier(method=method, weighting=weighting).fit(
                [bags[i][:, mask] for i in train], y[train]
            )
            expected[test] = model.predict([bags[i][:, mask] for i in test]) == "pos"
        np.testing.assert_array_equal(predict(mask), expected)


def test_miwrapper_mask_predictor_only_for_weka_naive_bayes():
    _, X, starts, y = _bags(1)
    folds = [(np.arange(0, 36, 2), np.arange(1, 36, 2))]
    assert MIWrapperClassifier(GaussianNB()).feature_mask_predictor(X, starts, y, folds) is None
    one_class = [(np.arange(0, 36, 2)[y[::2] == "neg"], np.arange(1, 36, 2))]
    assert MIWrapperClassifier().feature_mask_predictor(X, starts, y, one_class) is None
