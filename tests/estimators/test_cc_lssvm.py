"""CC-LSSVM (Oliveira (2021), Alg. 8, Eq. 3.11) and FCC-LSSVM (Alg. 9)."""

import warnings

import numpy as np
import pytest

from svmlab.estimators.lssvm import CCLSSVMClassifier, FCCLSSVMClassifier, LSSVMClassifier
from svmlab.kernels import rbf
from svmlab.selection import ClassCornerSelector


def noisy_xor(n=300, noise=0.35, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + noise * rng.normal(size=n) * 0.3 > 0, 1, 0)
    return X, y


def test_every_sample_a_corner_gives_the_full_lssvm():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = rng.integers(0, 2, 80)  # random labels, big radius: every sample has Gamma >= 1
    cc = CCLSSVMClassifier(C=4.0, gamma=1.0, corner_threshold=0, radius=100.0).fit(X, y)
    full = LSSVMClassifier(C=4.0, gamma=1.0).fit(X, y)
    assert cc.fit_info_["n_prototypes"] == 80 and cc.fit_info_["n_support"] == 80
    np.testing.assert_array_equal(cc.support_, np.arange(80))
    np.testing.assert_allclose(cc.dual_coef_, full.dual_coef_, atol=1e-8)
    assert cc.intercept_[0] == pytest.approx(full.intercept_[0], abs=1e-8)


def test_reduced_system_has_the_prototype_labels_on_the_right():
    X, y = noisy_xor()
    cc = CCLSSVMClassifier(C=8.0, gamma=4.0, corner_threshold=3, constraints="prototypes")
    cc.fit(X, y)
    sel = ClassCornerSelector(corner_threshold=3).fit(X, y)
    PS, SV = sel.prototypes_, sel.corners_
    assert 0 < len(SV) < len(PS) < len(X)
    np.testing.assert_array_equal(cc.support_, SV)
    np.testing.assert_array_equal(cc.prototypes_, PS)
    # Eq. 3.11 by hand: rows PS, columns SV, 1/C where the row is the column's sample
    t = np.where(y == 1, 1.0, -1.0)
    A = np.zeros((len(PS) + 1, len(SV) + 1))
    A[0, 1:] = A[1:, 0] = 1.0
    A[1:, 1:] = rbf(X[PS], X[SV], 1 / 0.25) + (PS[:, None] == SV[None, :]) / 8.0
    w = np.linalg.lstsq(A, np.r_[0.0, t[PS]], rcond=None)[0]
    np.testing.assert_allclose(cc.dual_coef_[0], w[1:], atol=1e-8)
    assert cc.intercept_[0] == pytest.approx(w[0], abs=1e-8)
    # with the SV labels on the right (after PS's first |SV| rows) the answer differs
    v_sv = np.r_[0.0, t[SV], np.zeros(len(PS) - len(SV))]
    w_sv = np.linalg.lstsq(A, v_sv, rcond=None)[0]
    assert np.abs(w_sv[1:] - cc.dual_coef_[0]).max() > 1e-3
    assert cc.score(X, y) > 0.8


def test_all_constraint_rows_keep_the_corner_columns_and_use_every_sample():
    X, y = noisy_xor()
    cc = CCLSSVMClassifier(C=8.0, gamma=4.0, corner_threshold=3).fit(X, y)  # default: all rows
    sel = ClassCornerSelector(corner_threshold=3).fit(X, y)
    SV, rows = sel.corners_, np.arange(len(X))
    np.testing.assert_array_equal(cc.support_, SV)
    np.testing.assert_array_equal(cc.prototypes_, sel.prototypes_)  # PS is still reported
    t = np.where(y == 1, 1.0, -1.0)
    A = np.zeros((len(X) + 1, len(SV) + 1))
    A[0, 1:] = A[1:, 0] = 1.0
    A[1:, 1:] = rbf(X, X[SV], 1 / 0.25) + (rows[:, None] == SV[None, :]) / 8.0
    w = np.linalg.lstsq(A, np.r_[0.0, t], rcond=None)[0]
    np.testing.assert_allclose(cc.dual_coef_[0], w[1:], atol=1e-8)
    assert cc.fit_info_["constraints"] == "all"


def test_empty_corner_set_falls_back_and_is_recorded():
    X, y = noisy_xor(noise=0.0)  # clean border: Gamma stays small
    with pytest.warns(RuntimeWarning, match="empty corner set"):
        cc = CCLSSVMClassifier(C=8.0, gamma=4.0, corner_threshold=15).fit(X, y)
    n_ps = cc.fit_info_["n_prototypes"]
    assert cc.fit_info_["n_corners"] == 0
    assert len(cc.support_) == int(np.ceil(np.sqrt(n_ps)))
    assert "highest Gamma" in cc.fit_info_["fallback"]
    top = np.sort(cc.scores_[cc.prototypes_])[::-1][: len(cc.support_)]
    np.testing.assert_array_equal(np.sort(cc.scores_[cc.support_])[::-1], top)
    with pytest.warns(RuntimeWarning, match="all .* prototypes"):
        cc = CCLSSVMClassifier(C=8.0, gamma=4.0, corner_threshold=15, fallback="prototypes")
        cc.fit(X, y)
    assert len(cc.support_) == n_ps
    with pytest.raises(ValueError, match="empty corner set"):
        CCLSSVMClassifier(C=8.0, gamma=4.0, corner_threshold=15, fallback="error").fit(X, y)


def test_empty_prototype_set_falls_back_to_the_full_lssvm():
    X = np.r_[np.zeros((10, 1)), np.full((10, 1), 10.0)] + np.linspace(0, 1, 20)[:, None]
    y = np.r_[np.zeros(10), np.ones(10)]
    with pytest.warns(RuntimeWarning, match="full LSSVM"):
        cc = CCLSSVMClassifier(C=2.0, gamma=1.0, corner_threshold=0).fit(X, y)
    full = LSSVMClassifier(C=2.0, gamma=1.0).fit(X, y)
    assert "full LSSVM" in cc.fit_info_["fallback"] and cc.fit_info_["n_prototypes"] == 0
    np.testing.assert_allclose(cc.dual_coef_, full.dual_coef_, atol=1e-10)


def test_tuned_hyperparameters_are_recorded():
    X, y = noisy_xor(120)
    cc = CCLSSVMClassifier(Cs=[1.0, 100.0], gammas=[0.1, 10.0], tune_folds=3, corner_threshold=3)
    cc.fit(X, y)
    assert cc.fit_info_["tuned"] and cc.fit_info_["C"] in (1.0, 100.0)
    assert cc.fit_info_["gamma"] in (0.1, 10.0)


def test_fcc_keeps_exactly_m_svs_of_highest_gamma():
    X, y = noisy_xor(600, seed=1)
    fcc = FCCLSSVMClassifier(
        n_support=25, n_strata=3, C=8.0, gamma=4.0, corner_threshold=3, random_state=0
    ).fit(X, y)
    assert len(fcc.support_) == 25 and fcc.n_support_.sum() == 25
    assert fcc.fit_info_["n_strata"] == 3 and len(fcc.radii_) == 3
    assert fcc.fit_info_["n_corners"] > 25 and fcc.fit_info_["note"] is None
    corners = np.flatnonzero(fcc.scores_ > 3)
    threshold = np.sort(fcc.scores_[corners])[::-1][24]
    assert fcc.scores_[fcc.support_].min() == threshold
    assert set(fcc.support_) <= set(corners) and set(corners) <= set(fcc.prototypes_)
    again = FCCLSSVMClassifier(**fcc.get_params()).fit(X, y)
    np.testing.assert_array_equal(again.support_, fcc.support_)


def test_fcc_keeps_fewer_with_a_note():
    X, y = noisy_xor(300)
    with pytest.warns(RuntimeWarning, match="only .* SVs available"):
        fcc = FCCLSSVMClassifier(n_support=10_000, C=8.0, gamma=4.0, corner_threshold=3).fit(X, y)
    assert len(fcc.support_) == fcc.fit_info_["n_corners"] < 10_000
    assert "only" in fcc.fit_info_["note"]


def test_fcc_with_one_stratum_and_all_corners_equals_cc():
    X, y = noisy_xor(300)
    cc = CCLSSVMClassifier(C=8.0, gamma=4.0, corner_threshold=3).fit(X, y)
    fcc = FCCLSSVMClassifier(
        n_support=len(cc.support_), n_strata=1, C=8.0, gamma=4.0, corner_threshold=3
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fcc.fit(X, y)
    np.testing.assert_array_equal(fcc.support_, cc.support_)
    np.testing.assert_allclose(fcc.dual_coef_, cc.dual_coef_, atol=1e-8)
    assert fcc.intercept_[0] == pytest.approx(cc.intercept_[0], abs=1e-8)


@pytest.mark.parametrize(
    "Est, params, match",
    [
        (CCLSSVMClassifier, {"corner_threshold": 16}, r"P=16, K=16"),
        (CCLSSVMClassifier, {"fallback": "x"}, r"'fallback' parameter .* among .*'top_scores'"),
        (FCCLSSVMClassifier, {"constraints": "ps"}, r"'constraints' parameter .* among .*'all'"),
        (CCLSSVMClassifier, {"C": -1.0}, "'C' parameter"),
        (FCCLSSVMClassifier, {"n_support": 0}, "n_support"),
        (FCCLSSVMClassifier, {"n_strata": 1000, "C": 1.0, "gamma": 1.0}, "n_strata=1000"),
    ],
)
def test_bad_parameters(Est, params, match):
    X, y = noisy_xor(60)
    with pytest.raises(ValueError, match=match):
        Est(**params).fit(X, y)
