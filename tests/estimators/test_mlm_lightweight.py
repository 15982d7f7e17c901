"""LW-MLM (Oliveira (2021), Ch. 4) and CCLW-MLM (Ch. 5): penalty vectors, the closed form, the
Rank-MLM special case, Otsu's threshold, the kappa subset and the fallbacks."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmlab.estimators.mlm import CCLWMLMClassifier, LWMLMClassifier, LWMLMRegressor, MLMRegressor
from svmlab.estimators.mlm.coefficients import regularised_least_squares
from svmlab.estimators.mlm.distances import distance_matrix
from svmlab.estimators.mlm.penalties import (
    ks_p_values,
    neighbour_count,
    otsu_threshold,
    thresholded_penalty,
)
from svmlab.selection import ClassCornerSelector, nearest_prototype_distance


def _kinked(n=120, seed=0):
    """Linear on the left, wiggly on the right: KS p-values of both kinds."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-3, 3, n))
    y = np.where(x < 0, 0.5 * x, np.sin(4 * x)) + rng.normal(scale=0.05, size=n)
    return x[:, None], y


def _two_classes(n=60, seed=0, gap=2.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    X[y == 1, 0] += gap
    return X, y


class _FixedPenalty(LWMLMRegressor):
    """LW-MLM with p = sqrt(C) 1 (the Rank-MLM special case, Oliveira (2021), Sec. 4.1)."""

    C = 0.7

    def _penalty_vector(self, X, Y, rng):
        return np.full(len(X), np.sqrt(self.C)), {}


def test_lw_mlm_closed_form_and_rank_special_case():
    X, y = _kinked(60)
    lw = LWMLMRegressor(penalty="normal", random_state=0).fit(X, y)
    D, Delta = distance_matrix(X, X), distance_matrix(y[:, None], y[:, None])
    p = lw.penalties_
    closed = np.linalg.solve(D @ D + np.diag(p**2), D @ Delta)
    np.testing.assert_allclose(lw.B_, closed, rtol=1e-6, atol=1e-8)
    assert lw.model_size_ == 60 and lw.fit_info_["solver"] == "cholesky"
    # same seed, same p (LW-MLM-1 draws p_i ~ N(0, 1) per run)
    twin = LWMLMRegressor(penalty="normal", random_state=0).fit(X, y)
    np.testing.assert_array_equal(twin.penalties_, p)
    fixed = _FixedPenalty().fit(X, y)
    rank = MLMRegressor(C=_FixedPenalty.C).fit(X, y)
    np.testing.assert_allclose(fixed.B_, rank.B_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(fixed.predict(X), rank.predict(X), atol=1e-9)


@pytest.mark.parametrize("penalty", ["ks_fixed", "ks_otsu"])
def test_ks_penalty_adds_delta_below_the_threshold(penalty):
    X, y = _kinked(120)
    # t = 0.9 for the fixed threshold: the p-values of k = 10 are coarse (0.42, 0.79, 0.99, 1)
    est = LWMLMRegressor(penalty=penalty, k_rule="5log10N", delta=1.0, threshold=0.9).fit(X, y)
    k = est.fit_info_["k"]
    assert k == round(5 * np.log10(120))
    pv = ks_p_values(X, y[:, None], k)
    t = 0.9 if penalty == "ks_fixed" else otsu_threshold(pv)
    assert est.fit_info_["threshold"] == pytest.approx(t)
    below = pv < t
    assert 0 < below.sum() < len(pv)  # both kinds of sample occur
    np.testing.assert_allclose(est.penalties_[below], pv[below] + 1.0)
    np.testing.assert_allclose(est.penalties_[~below], pv[~below])
    np.testing.assert_allclose(est.penalties_, thresholded_penalty(pv, t, 1.0))
    assert est.fit_info_["n_nonlinear"] == below.sum()


def test_ks_profiles_use_the_input_neighbours_and_z_scores():
    # y = 3 x on a line: the output profile is the input profile times 3, so after z-scoring
    # both agree and every p-value is 1 (locally linear everywhere)
    X = np.linspace(0, 1, 30)[:, None] ** 2
    assert np.allclose(ks_p_values(X, 3 * X, 3), 1.0)
    assert np.allclose(ks_p_values(X, 3 * X, 3, y_neighbours="output"), 1.0)


@pytest.mark.parametrize("k", [3, 10])
def test_ks_p_values_equal_one_test_per_sample(k):
    from scipy.stats import ks_2samp
    from sklearn.neighbors import NearestNeighbors

    X, y = _kinked(90)
    phi, idx = NearestNeighbors(n_neighbors=k).fit(X).kneighbors()
    psi = np.abs(y[idx] - y[:, None])
    z = [(v - v.mean(axis=1, keepdims=True)) / v.std(axis=1, keepdims=True) for v in (phi, psi)]
    expected = [ks_2samp(a, b).pvalue for a, b in zip(*z)]
    np.testing.assert_allclose(ks_p_values(X, y[:, None], k), expected, rtol=1e-12)


def test_neighbour_rules():
    assert neighbour_count(3000) == 4  # round(log10(15000)) = round(4.18)
    assert neighbour_count(3000, "5log10N") == 17
    assert neighbour_count(10) == 2  # max(2, round(log10(50)))
    assert neighbour_count(2) == 1  # at most n - 1
    with pytest.raises(ValueError, match="k_rule"):
        neighbour_count(10, "sqrtN")


def test_otsu_threshold_splits_two_groups():
    values = np.concatenate([np.full(40, 0.02), np.full(60, 0.9), [0.05, 0.85]])
    t = otsu_threshold(values)  # a bin centre: the lower group is values <= ~t
    assert 0.02 < t < 0.85
    rng = np.random.default_rng(0)
    mixed = np.concatenate([rng.normal(0.2, 0.02, 300), rng.normal(0.7, 0.02, 200)])
    assert 0.25 < otsu_threshold(mixed) < 0.65
    assert otsu_threshold(np.full(5, 0.3)) == 0.3


def test_cholesky_failure_falls_back_to_the_stacked_lstsq():
    D = np.zeros((3, 3))
    Delta = np.ones((3, 3))
    B, info = regularised_least_squares(D, Delta, np.array([1.0, 0.0, 0.0]))
    assert info["fallback"] == "lstsq"
    np.testing.assert_allclose(B, 0.0, atol=1e-12)  # min-norm solution of [0; P] B = [1; 0]


def test_kappa_sweep_needs_no_refit():
    X, y = _kinked(100)
    est = LWMLMRegressor(penalty="normal", random_state=0).fit(X, y)
    B = est.B_.copy()
    rmse = {}
    for kappa in (2, 0.25, 0.5, None):
        est.set_params(n_predict_reference=kappa)
        rmse[kappa] = np.sqrt(np.mean((est.predict(X) - y) ** 2))
    np.testing.assert_array_equal(est.B_, B)
    assert all(np.isfinite(v) for v in rmse.values())
    assert rmse[0.5] < 0.5 and rmse[None] < 0.5


def test_lw_classifier_on_separable_data():
    X, y = _two_classes(gap=6.0)
    for penalty in ("normal", "ks_otsu"):
        est = LWMLMClassifier(penalty=penalty, random_state=0).fit(X, y)
        assert np.mean(est.predict(X) == y) >= 0.95


# ------------------------------------------------------------------------------------- CCLW


def test_cclw_penalty_is_zeta_minus_ncd():
    X, y = _two_classes(80, gap=0.5)
    est = CCLWMLMClassifier().fit(X, y)
    selector = ClassCornerSelector(corner_threshold=0).fit(X, y)
    ps = selector.prototypes_
    assert len(ps) > 0 and est.fit_info_["n_prototypes"] == len(ps)
    ncd = nearest_prototype_distance(X, X[ps])
    zeta = ncd.max()
    np.testing.assert_allclose(est.penalties_, zeta - ncd)
    np.testing.assert_allclose(est.penalties_[ps], zeta)  # prototypes get the maximum cost
    assert est.penalties_.min() == pytest.approx(0.0)  # the farthest sample gets 0
    assert est.fit_info_["zeta"] == pytest.approx(zeta)
    assert est.fit_info_["penalty_fallback"] is None
    D = distance_matrix(X, X)
    Delta = distance_matrix(est.reference_outputs_, est.reference_outputs_)
    closed = np.linalg.solve(D @ D + np.diag(est.penalties_**2), D @ Delta)
    np.testing.assert_allclose(est.B_, closed, rtol=1e-6, atol=1e-8)
    assert np.mean(est.predict(X) == y) > 0.8


def test_cclw_without_prototypes_uses_the_identity():
    # two classes far apart on a fine grid: no neighbour of another class within R
    X = np.concatenate([np.linspace(0, 1, 11), np.linspace(10, 11, 11)])[:, None]
    y = np.repeat([0, 1], 11)
    with pytest.warns(RuntimeWarning, match="PS is empty"):
        est = CCLWMLMClassifier().fit(X, y)
    assert est.fit_info_["penalty_fallback"] == "identity_penalty"
    assert est.fit_info_["n_prototypes"] == 0
    np.testing.assert_array_equal(est.penalties_, np.ones(22))
    np.testing.assert_array_equal(est.predict(X), y)


# --------------------------------------------------------------------------- scikit-learn API
# lwmlm_1/2/3 and cclwmlm get every check in tests/test_conformance.py; here the classifier
# no solver file builds.


@parametrize_with_checks([LWMLMClassifier(penalty="ks_fixed")])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        check(estimator)
