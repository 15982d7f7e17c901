"""Chains of svmlab.estimators.mtr: inputs at training and test time, orders, ensembles."""

import itertools
import math

import numpy as np
import pytest
from sklearn.base import BaseEstimator, RegressorMixin

from svmlab.estimators.mtr import (
    ERC,
    ERCC,
    RC,
    SVRCC,
    SVRRC,
    correlation_order,
    random_chain_orders,
    target_correlation,
)
from svmlab.estimators.mtr.chains import ChainEnsembleBase

OFFSET = 1000.0


class Recorder(RegressorMixin, BaseEstimator):
    """Predicts ``mean(y_fit) + offset`` for every row; keeps copies of what fit/predict saw."""

    def __init__(self, offset=OFFSET):
        self.offset = offset

    def fit(self, X, y):
        self.X_fit_ = np.array(X, dtype=float, copy=True)
        self.y_fit_ = np.array(y, dtype=float, copy=True)
        self.value_ = float(np.mean(y)) + self.offset
        return self

    def predict(self, X):
        self.X_predict_ = np.array(X, dtype=float, copy=True)
        return np.full(len(X), self.value_)


def data(n=40, d=3, m=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    Y = X @ rng.normal(size=(d, m)) + 0.1 * rng.normal(size=(n, m))
    return X, Y


def recording_chain(order, **params):
    return SVRCC(estimator=Recorder(), inner_cv=None, order=order, **params)


def test_chain_trains_on_true_targets_and_predicts_from_predictions():
    X, Y = data()
    model = recording_chain([2, 0, 1]).fit(X, Y)
    links = model.estimators_
    np.testing.assert_array_equal(model.order_, [2, 0, 1])
    # training inputs: X, then the TRUE previous targets in chain order
    np.testing.assert_array_equal(links[0].X_fit_, X)
    np.testing.assert_array_equal(links[1].X_fit_, np.column_stack([X, Y[:, 2]]))
    np.testing.assert_array_equal(links[2].X_fit_, np.column_stack([X, Y[:, 2], Y[:, 0]]))
    np.testing.assert_array_equal(links[1].y_fit_, Y[:, 0])
    # test time: the previous links' PREDICTIONS are appended
    Xt = X[:5] + 1.0
    pred = model.predict(Xt)
    p2, p0, p1 = (Y[:, t].mean() + OFFSET for t in (2, 0, 1))
    np.testing.assert_array_equal(links[0].X_predict_, Xt)
    np.testing.assert_allclose(links[1].X_predict_, np.column_stack([Xt, np.full(5, p2)]))
    np.testing.assert_allclose(
        links[2].X_predict_, np.column_stack([Xt, np.full(5, p2), np.full(5, p0)])
    )
    # outputs back in the original target order
    np.testing.assert_allclose(pred, np.tile([p0, p1, p2], (5, 1)))


def test_insample_and_oof_modes_change_the_training_inputs():
    X, Y = data(n=40)
    order = [1, 0, 2]
    true = recording_chain(order).fit(X, Y).estimators_
    insample = recording_chain(order, train_inputs="insample").fit(X, Y).estimators_
    oof = (
        recording_chain(order, train_inputs="oof", oof_folds=4, random_state=0)
        .fit(X, Y)
        .estimators_
    )
    np.testing.assert_array_equal(true[1].X_fit_[:, -1], Y[:, 1])
    # in-sample: link 0's fitted prediction on its training rows (the Recorder's constant)
    np.testing.assert_allclose(insample[1].X_fit_[:, -1], Y[:, 1].mean() + OFFSET)
    # out-of-fold: each fold gets the mean of the OTHER folds: 4 different values, none the
    # in-sample one
    column = oof[1].X_fit_[:, -1]
    assert len(np.unique(column)) == 4
    assert not np.any(np.isclose(column, Y[:, 1].mean() + OFFSET, rtol=0, atol=1e-12))
    for value in np.unique(column):
        held_out = column == value
        np.testing.assert_allclose(value, Y[~held_out, 1].mean() + OFFSET)
    # later links get the (recursive) estimates too, never the truth
    np.testing.assert_allclose(oof[2].X_fit_[:, : X.shape[1] + 1], oof[1].X_fit_)
    assert np.all(oof[2].X_fit_[:, -1] > OFFSET / 2) and np.all(
        insample[2].X_fit_[:, -1] > OFFSET / 2
    )
    # the links' own labels stay the true targets
    np.testing.assert_array_equal(oof[1].y_fit_, Y[:, 0])


def test_missing_targets_train_on_observed_rows_and_feed_the_training_mean():
    X, Y = data(n=30)
    Y[[3, 7], 0] = np.nan
    Y[5, 1] = np.nan
    model = recording_chain([0, 1, 2]).fit(X, Y)
    links = model.estimators_
    assert len(links[0].X_fit_) == 28 and len(links[1].X_fit_) == 29 and len(links[2].X_fit_) == 30
    # target 0 missing in rows 3 and 7: the later links see its training mean there
    col = links[2].X_fit_[:, X.shape[1]]
    np.testing.assert_allclose(col[[3, 7]], np.nanmean(Y[:, 0]))
    np.testing.assert_array_equal(np.delete(col, [3, 7]), np.delete(Y[:, 0], [3, 7]))
    assert np.isfinite(model.predict(X)).all()
    assert model.chains_[0].n_train == [28, 29, 30]


def test_signed_and_absolute_correlation_orders_on_a_constructed_Y():
    # orthonormal centred columns u, v, w: corr(Y0, Y1) = 1/sqrt2, corr(Y0, Y2) = -1,
    # corr(Y1, Y2) = -1/sqrt2, Y3 uncorrelated with the others.
    rng = np.random.default_rng(0)
    A = rng.normal(size=(50, 3))
    A -= A.mean(axis=0)
    u, v, w = np.linalg.qr(A)[0].T
    Y = np.column_stack([u, (u + v) / np.sqrt(2), -u, w])
    expected = np.array(
        [
            [1, 1 / np.sqrt(2), -1, 0],
            [1 / np.sqrt(2), 1, -1 / np.sqrt(2), 0],
            [-1, -1 / np.sqrt(2), 1, 0],
            [0, 0, 0, 1],
        ]
    )
    np.testing.assert_allclose(target_correlation(Y), expected, atol=1e-12)
    # signed sums 0.707, 1, -0.707, 1: tie between targets 1 and 3 goes to the lower index
    np.testing.assert_array_equal(correlation_order(Y, "signed"), [1, 3, 0, 2])
    # absolute sums 2.707, 2.414, 2.707, 1
    np.testing.assert_array_equal(correlation_order(Y, "abs"), [0, 2, 1, 3])
    X = rng.normal(size=(50, 2))
    assert list(SVRCC(estimator=Recorder(), inner_cv=None).fit(X, Y).order_) == [1, 3, 0, 2]
    fitted = SVRCC(estimator=Recorder(), inner_cv=None, corr="abs").fit(X, Y)
    assert list(fitted.order_) == [0, 2, 1, 3] and fitted.fit_info_["orders"] == [[0, 2, 1, 3]]


def test_correlation_uses_pairwise_complete_rows_with_missing_targets():
    X, Y = data(n=60, m=3)
    Ym = Y.copy()
    Ym[:10, 0] = np.nan
    P = target_correlation(Ym)
    np.testing.assert_allclose(P[0, 1], np.corrcoef(Y[10:, 0], Y[10:, 1])[0, 1])
    np.testing.assert_allclose(P[1, 2], np.corrcoef(Y[:, 1], Y[:, 2])[0, 1])
    np.testing.assert_allclose(target_correlation(Y), np.corrcoef(Y, rowvar=False), atol=1e-12)


@pytest.mark.parametrize("m, expected", [(2, 2), (3, 6), (4, 10)])
def test_svrrc_builds_all_permutations_up_to_max_chains_then_distinct_random_ones(m, expected):
    X, Y = data(n=20, m=m)
    model = SVRRC(estimator=Recorder(), inner_cv=None, random_state=0).fit(X, Y)
    orders = {tuple(o) for o in model.orders_}
    assert (
        len(model.orders_)
        == len(orders)
        == expected
        == len(model.chains_)
        == model.fit_info_["n_chains"]
    )
    assert all(sorted(o) == list(range(m)) for o in orders)
    if math.factorial(m) <= 10:
        assert orders == set(itertools.permutations(range(m)))
    # per-target mean over the chains
    X_test = X[:4]
    mean = np.mean([chain.predict(X_test) for chain in model.chains_], axis=0)
    np.testing.assert_allclose(model.predict(X_test), mean)


def test_svrrc_random_orders_are_seeded_and_max_chains_is_respected():
    X, Y = data(n=20, m=4)
    a = SVRRC(estimator=Recorder(), inner_cv=None, random_state=1).fit(X, Y)
    b = SVRRC(estimator=Recorder(), inner_cv=None, random_state=1).fit(X, Y)
    c = SVRRC(estimator=Recorder(), inner_cv=None, random_state=2).fit(X, Y)
    np.testing.assert_array_equal(a.orders_, b.orders_)
    assert {tuple(o) for o in a.orders_} != {tuple(o) for o in c.orders_}
    full = SVRRC(estimator=Recorder(), inner_cv=None, max_chains=24, random_state=0).fit(X, Y)
    assert len({tuple(o) for o in full.orders_}) == 24
    rng = np.random.RandomState(0)
    assert len({tuple(o) for o in random_chain_orders(5, 30, rng, distinct=True)}) == 30


def test_baseline_chains_reuse_the_shared_machinery():
    for cls in (RC, ERC, ERCC, SVRRC, SVRCC):
        assert issubclass(cls, ChainEnsembleBase)
        assert cls.fit is ChainEnsembleBase.fit and cls.predict is ChainEnsembleBase.predict
    assert (
        ERCC().train_inputs == "oof"
        and ERC().train_inputs == "true"
        and RC().train_inputs == "true"
    )
    X, Y = data(n=30, m=3)
    rc = RC(n_estimators=2, order=[1, 2, 0], random_state=0).fit(X, Y)
    assert [link.n_features_in_ for link in rc.estimators_] == [3, 4, 5]
    np.testing.assert_array_equal(rc.order_, [1, 2, 0])
    erc = ERC(n_estimators=2, n_chains=4, random_state=0).fit(X, Y)
    assert (
        erc.orders_.shape == (4, 3) and len(erc.estimators_) == 4 and len(erc.estimators_[0]) == 3
    )
    ercc = ERCC(n_estimators=2, n_chains=2, oof_folds=3, random_state=0).fit(X, Y)
    assert ercc.fit_info_["train_inputs"] == "oof" and ercc.fit_info_["chain_input_seconds"] > 0
