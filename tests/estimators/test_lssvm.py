"""Full LSSVM (Oliveira (2021), Eq. 2.5), its eigen path over C, and tune_lssvm.

The scikit-learn checks of LSSVMClassifier and LSSVMRegressor run in tests/test_conformance.py
(solvers ``lssvm`` and ``lssvm_regressor``), not again here.
"""

import numpy as np
import pytest

from svmlab.estimators.lssvm import (
    CCLSSVMClassifier,
    FCCLSSVMClassifier,
    FSALSSVMClassifier,
    LSSVMClassifier,
    LSSVMRegressor,
    tune_lssvm,
)
from svmlab.estimators.lssvm._kkt import EigenKKT, solve_kkt
from svmlab.estimators.lssvm.tuning import cv_folds, cv_scores
from svmlab.kernels import rbf


def xor_data(n=120, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = np.where(X[:, 0] * X[:, 1] + 0.2 * rng.normal(size=n) > 0, "a", "b")
    return X, y


def dense_kkt(K, t, C):
    """Eq. 2.5 as printed, by np.linalg.solve: [[0, 1^T], [1, K + I/C]] [b; a] = [0; t]."""
    n = len(t)
    A = np.zeros((n + 1, n + 1))
    A[0, 1:] = A[1:, 0] = 1.0
    A[1:, 1:] = K + np.eye(n) / C
    u = np.linalg.solve(A, np.r_[0.0, t])
    return u[1:], u[0]


@pytest.mark.parametrize("gamma", [1 / 0.49, 0.5 / 0.49])  # the thesis's sigma 0.7; 2 sigma^2
def test_classifier_equals_the_dense_kkt_solution(gamma):
    X, y = xor_data()
    est = LSSVMClassifier(C=8.0, gamma=gamma).fit(X, y)
    t = np.where(y == "b", 1.0, -1.0)  # classes_[1] = "b" is +1
    alpha, b = dense_kkt(rbf(X, X, gamma), t, 8.0)
    np.testing.assert_allclose(est.dual_coef_[0], alpha, atol=1e-8)
    assert est.intercept_[0] == pytest.approx(b, abs=1e-8)
    f = rbf(X[:7], X, gamma) @ alpha + b
    np.testing.assert_allclose(est.decision_function(X[:7]), f, atol=1e-8)
    np.testing.assert_array_equal(est.predict(X[:7]), np.where(f >= 0, "b", "a"))
    assert est.fit_info_["solver"] == "cholesky"
    assert est.n_support_.sum() == len(X)


def test_regressor_equals_the_dense_kkt_solution():
    rng = np.random.default_rng(1)
    X = rng.uniform(-3, 3, size=(80, 1))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=80)
    est = LSSVMRegressor(C=32.0, gamma=1.0).fit(X, y)
    alpha, b = dense_kkt(rbf(X, X, 1.0), y, 32.0)
    np.testing.assert_allclose(est.dual_coef_[0], alpha, atol=1e-8)
    assert est.intercept_[0] == pytest.approx(b, abs=1e-8)
    assert est.score(X, y) > 0.9


def test_eigen_path_equals_cholesky_per_c():
    X, y = xor_data()
    t = np.where(y == "b", 1.0, -1.0)
    K = rbf(X, X, 2.0)
    system = EigenKKT(K, t)
    for C in 2.0 ** np.arange(-5, 16, 2):
        alpha, b, _ = solve_kkt(K, t, C)
        alpha_e, b_e = system.solve(C)
        np.testing.assert_allclose(alpha_e, alpha, atol=1e-8 * max(1.0, np.abs(alpha).max()))
        assert b_e == pytest.approx(b, abs=1e-8)


def test_tune_lssvm_picks_the_brute_force_optimum():
    X, y = xor_data(90, seed=2)
    Cs, gammas = [0.25, 4.0, 64.0, 1024.0], [0.3, 1.0, 3.0]
    t = np.where(y == "b", 1.0, -1.0)
    folds = cv_folds(t, "classification", 5, 3)
    brute = np.zeros((len(gammas), len(Cs)))
    for i, g in enumerate(gammas):
        for j, C in enumerate(Cs):
            for train, val in folds:
                est = LSSVMClassifier(C=C, gamma=g).fit(X[train], y[train])
                brute[i, j] += np.sum(est.predict(X[val]) == y[val])
    brute /= len(y)
    scores, task = cv_scores(X, y, Cs=Cs, gammas=gammas, n_folds=5, random_state=3)
    assert task == "classification"
    np.testing.assert_allclose(scores, brute)
    i, j = np.unravel_index(np.argmax(brute), brute.shape)
    assert tune_lssvm(X, y, Cs=Cs, gammas=gammas, n_folds=5, random_state=3) == (Cs[j], gammas[i])
    # deterministic given random_state
    assert tune_lssvm(X, y, Cs=Cs, gammas=gammas, n_folds=5, random_state=3) == (Cs[j], gammas[i])


def test_tune_lssvm_regression_minimises_mse():
    rng = np.random.default_rng(4)
    X = rng.uniform(-3, 3, size=(60, 1))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    Cs, gammas = [0.1, 10.0, 1000.0], [0.1, 1.0, 10.0]
    scores, task = cv_scores(X, y, Cs=Cs, gammas=gammas, n_folds=4, random_state=0)
    assert task == "regression"
    folds = cv_folds(y, "regression", 4, 0)
    i, j = 1, 1
    mse = sum(
        np.sum(
            (LSSVMRegressor(C=Cs[j], gamma=gammas[i]).fit(X[tr], y[tr]).predict(X[va]) - y[va]) ** 2
        )
        for tr, va in folds
    ) / len(y)
    assert scores[i, j] == pytest.approx(mse)
    C, gamma = tune_lssvm(X, y, Cs=Cs, gammas=gammas, n_folds=4, random_state=0)
    assert scores[gammas.index(gamma), Cs.index(C)] == scores.min()


@pytest.mark.parametrize(
    "params, match",
    [
        ({"C": 0.0}, "'C' parameter of LSSVMClassifier must be a float in the range"),
        ({"gamma": -1.0}, "'gamma' parameter of LSSVMClassifier must be a float in the range"),
        ({"gamma": "scale"}, "'gamma' parameter"),
    ],
)
def test_bad_parameters(params, match):
    X, y = xor_data(20)
    with pytest.raises(ValueError, match=match):
        LSSVMClassifier(**params).fit(X, y)


def test_multiclass_is_refused_with_a_pointer():
    X, y = xor_data(30)
    y[:5] = "c"
    with pytest.raises(
        ValueError, match="Only binary classification is supported. LSSVMClassifier: y has 3 class"
    ):
        LSSVMClassifier().fit(X, y)


def test_none_c_gamma_tune_to_the_values_of_the_sparse_variants():
    """The thesis's protocol (Sec. 3.3.1): every LSSVM variant tunes like the full LSSVM, so on
    the same data all arrive at the same (C, gamma) (one shared tuning implementation)."""
    X, y = xor_data(90, seed=2)
    tuning = {"Cs": [0.5, 8.0, 128.0], "gammas": [0.3, 1.0, 3.0], "tune_folds": 3}
    tuning.update(tune_max_samples=60, random_state=4)  # the subsample is shared too
    full = LSSVMClassifier(C=None, gamma=None, **tuning).fit(X, y)
    info = full.fit_info_
    assert info["tuned"] is True and info["tune_samples"] == 60
    assert (info["C"], info["gamma"]) == (full.C_, full.gamma_)
    cc = CCLSSVMClassifier(corner_threshold=3, **tuning).fit(X, y)
    fsa = FSALSSVMClassifier(**tuning).fit(X, y)
    assert (cc.C_, cc.gamma_) == (fsa.C_, fsa.gamma_) == (full.C_, full.gamma_)
    assert cc.fit_info_["tune_samples"] == fsa.fit_info_["tune_samples"] == 60
    fixed = LSSVMClassifier(C=full.C_, gamma=full.gamma_).fit(X, y)
    assert fixed.fit_info_["tuned"] is False and fixed.fit_info_["tune_samples"] == 0
    np.testing.assert_array_equal(fixed.dual_coef_, full.dual_coef_)
    np.testing.assert_array_equal(fixed.intercept_, full.intercept_)
    # a given C is kept and only gamma is searched
    half = LSSVMClassifier(C=8.0, gamma=None, **tuning).fit(X, y)
    assert half.C_ == 8.0 and half.gamma_ in tuning["gammas"] and half.fit_info_["tuned"]


def test_tune_random_state_fixes_the_search_whatever_the_estimator_seed():
    """Oliveira (2021), Table 7: one (C, gamma) per dataset for realisations that differ by
    the estimator's seed. With ``tune_random_state`` the search (its subsample and folds) no
    longer follows ``random_state``; without it, it does."""
    X, y = xor_data(120, seed=5)
    grids = {"Cs": [0.5, 8.0, 128.0], "gammas": [0.1, 0.3, 1.0, 3.0], "tune_folds": 3}
    grids.update(tune_max_samples=40, C=None, gamma=None)
    full = {s: LSSVMClassifier(random_state=s, **grids).fit(X, y) for s in range(6)}
    searched = {s: (m.C_, m.gamma_) for s, m in full.items()}
    assert len(set(searched.values())) > 1  # the seed matters on this data
    for seed in range(6):
        follows = FCCLSSVMClassifier(n_support=5, random_state=seed, **grids).fit(X, y)
        fixed = FCCLSSVMClassifier(
            n_support=5, random_state=seed, tune_random_state=0, **grids
        ).fit(X, y)
        assert (follows.C_, follows.gamma_) == searched[seed]
        assert (fixed.C_, fixed.gamma_) == searched[0]


def test_regressor_with_none_gamma_minimises_the_cv_mse():
    rng = np.random.default_rng(1)
    X = rng.uniform(-3, 3, size=(60, 1))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    gammas = [0.05, 1.0, 30.0]
    est = LSSVMRegressor(C=10.0, gamma=None, gammas=gammas, tune_folds=3, random_state=0)
    est.fit(X, y)
    expected = tune_lssvm(X, y, Cs=[10.0], gammas=gammas, n_folds=3, random_state=0)
    assert (est.C_, est.gamma_) == expected and est.fit_info_["tune_samples"] == 60


@pytest.mark.parametrize(
    "params, match",
    [
        ({"C": None, "Cs": []}, "Cs must be None"),
        ({"gamma": None, "gammas": [1.0, -2.0]}, "gammas must be None"),
        ({"C": None, "tune_folds": 1}, r"'tune_folds' parameter .* int in the range \[2, inf\)"),
        ({"C": None, "tune_max_samples": 1.5}, "'tune_max_samples' parameter"),
    ],
)
def test_bad_tuning_parameters(params, match):
    X, y = xor_data(20)
    with pytest.raises(ValueError, match=match):
        LSSVMClassifier(**params).fit(X, y)
