"""The reconstructed sparse-LSSVM baselines of Oliveira (2021), Ch. 3 (Table 4): FSA-, SSD- and
CCP-LSSVM. The full scikit-learn checks run on their solver configs (tests/test_conformance.py);
here, the essential ones on fixed-hyper-parameter variants."""

import math

import numpy as np
import pytest
from sklearn.datasets import make_moons

from svmlab.estimators.lssvm._kkt import solve_kkt
from svmlab.estimators.lssvm.ccp import CCPLSSVMClassifier
from svmlab.estimators.lssvm.fsa import FSALSSVMClassifier
from svmlab.estimators.lssvm.ssd import SSDLSSVMClassifier
from svmlab.kernels import rbf
from svmlab.testing import essential_checks

CLASSES = (FSALSSVMClassifier, SSDLSSVMClassifier, CCPLSSVMClassifier)
FIXED = {"C": 10.0, "gamma": 4.0}  # the thesis's sigma 0.5


@pytest.fixture(scope="module")
def moons():
    X, y = make_moons(300, noise=0.1, random_state=0)
    Xt, yt = make_moons(600, noise=0.1, random_state=1)
    labels = np.array(["lower", "upper"])
    return X, labels[y], Xt, labels[yt]


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_sparse_and_accurate_on_two_moons(cls, moons):
    X, y, Xt, yt = moons
    model = cls(**FIXED, random_state=0).fit(X, y)
    m = len(model.support_)
    assert 0 < m < len(X)
    assert np.mean(model.predict(Xt) == yt) >= 0.95
    assert set(model.predict(Xt)) <= set(model.classes_)
    assert model.n_support_.sum() == m == model.fit_info_["n_support"]
    assert model.dual_coef_.shape == (1, m) and model.intercept_.shape == (1,)
    assert np.all(np.diff(model.support_) > 0)
    np.testing.assert_array_equal(model.support_vectors_, X[model.support_])
    assert model.fit_info_["sparsity"] == pytest.approx(1 - m / len(X))
    assert model.fit_info_["tuned"] is False and model.fit_info_["C"] == FIXED["C"]
    # the expansion is the decision function; classes_[1] is the positive side
    f = rbf(Xt, model.support_vectors_, model.gamma_) @ model.dual_coef_[0] + model.intercept_
    np.testing.assert_allclose(model.decision_function(Xt), f)
    np.testing.assert_array_equal(model.predict(Xt), model.classes_[(f >= 0).astype(int)])


def test_fsa_without_a_stop_is_the_full_lssvm(moons):
    X, y, Xt, _ = moons
    X, y = X[:80], y[:80]
    model = FSALSSVMClassifier(**FIXED, epsilon=0.0).fit(X, y)
    assert model.fit_info_["stop_reason"] == "exhausted" and len(model.support_) == 80
    gamma = FIXED["gamma"]
    alpha, b, _ = solve_kkt(rbf(X, X, gamma), np.where(y == "upper", 1.0, -1.0), FIXED["C"])
    np.testing.assert_allclose(
        model.decision_function(Xt), rbf(Xt, X, gamma) @ alpha + b, rtol=0, atol=1e-8
    )


def test_fsa_epsilon_stop_and_max_support(moons):
    X, y, _, _ = moons
    model = FSALSSVMClassifier(**FIXED).fit(X, y)
    info = model.fit_info_
    assert info["stop_reason"] == "epsilon" and info["max_residual"] < 0.5
    # the residual of every sample outside the basis is within epsilon
    outside = np.setdiff1d(np.arange(len(X)), model.support_)
    r = model.decision_function(X[outside]) - np.where(y[outside] == "upper", 1.0, -1.0)
    assert np.max(np.abs(r)) == pytest.approx(info["max_residual"])
    # smaller epsilon, more basis functions; the cap is honoured
    assert len(FSALSSVMClassifier(**FIXED, epsilon=0.1).fit(X, y).support_) > len(model.support_)
    capped = FSALSSVMClassifier(**FIXED, epsilon=0.0, max_support=7).fit(X, y)
    assert len(capped.support_) == 7 and capped.fit_info_["stop_reason"] == "max_support"
    np.testing.assert_array_equal(np.sort(capped.selection_order_), capped.support_)


def test_fsa_basis_memory_cap_without_max_support(moons, monkeypatch):
    X, y, _, _ = moons
    monkeypatch.setattr(FSALSSVMClassifier, "MAX_BASIS_BYTES", 8 * len(X) * 5)
    with pytest.warns(UserWarning, match="set max_support"):
        model = FSALSSVMClassifier(**FIXED, epsilon=0.0).fit(X, y)
    assert len(model.support_) == 5 and model.fit_info_["stop_reason"] == "memory"


def test_ssd_active_subset_has_floor_k_sqrt_n_points(moons):
    X, y, _, _ = moons
    for k in (4, 2.5):
        model = SSDLSSVMClassifier(**FIXED, k=k, random_state=0).fit(X, y)
        size = math.floor(k * math.sqrt(len(X)))
        assert len(model.prototypes_) == len(np.unique(model.prototypes_)) == size
        assert model.fit_info_["n_prototypes"] == size
        assert np.isin(model.support_, model.prototypes_).all()
        assert len(model.support_) <= size
        assert model.fit_info_["entropy_end"] >= model.fit_info_["entropy_start"]


def test_ssd_and_ccp_are_seeded(moons):
    X, y, Xt, _ = moons
    for cls in (SSDLSSVMClassifier, CCPLSSVMClassifier):
        a = cls(**FIXED, random_state=3).fit(X, y)
        b = cls(**FIXED, random_state=3).fit(X, y)
        np.testing.assert_array_equal(a.support_, b.support_)
        np.testing.assert_array_equal(a.decision_function(Xt), b.decision_function(Xt))


def test_ccp_keeps_ceil_ratio_n_nonzeros(moons):
    X, y, _, _ = moons
    for ratio in (0.3, 0.15):
        for refit in (True, False):
            model = CCPLSSVMClassifier(**FIXED, ratio=ratio, refit=refit, random_state=0)
            model.fit(X, y)
            assert len(model.support_) == math.ceil(ratio * len(X))
            assert model.fit_info_["n_measurements"] == math.ceil(ratio * len(X))
            assert not model.fit_info_["omp_premature"]


def test_ccp_refuses_a_large_n_naming_the_override(moons):
    X, y, _, _ = moons
    with pytest.raises(ValueError, match=r"N = 300\b.*max_samples = 200; set max_samples >= 300"):
        CCPLSSVMClassifier(**FIXED, max_samples=200).fit(X, y)


@pytest.mark.parametrize(
    "cls, params, message",
    [
        (FSALSSVMClassifier, {"C": -1.0}, r"'C' parameter .* range \(0.0, inf\) or None"),
        (SSDLSSVMClassifier, {"gamma": 0}, r"'gamma' parameter .* range \(0.0, inf\) or None"),
        (FSALSSVMClassifier, {"epsilon": -0.5}, r"'epsilon' parameter .* range \[0.0, inf\)"),
        (FSALSSVMClassifier, {"max_support": 0}, r"'max_support' parameter .* \[1, inf\)"),
        (SSDLSSVMClassifier, {"k": 0}, r"'k' parameter .* range \(0.0, inf\)"),
        (SSDLSSVMClassifier, {"l0_tol": 1.5}, r"'l0_tol' parameter .* range \[0.0, 1.0\)"),
        (SSDLSSVMClassifier, {"entropy_iter": 1.5}, r"'entropy_iter' parameter .* \[0, inf\)"),
        (CCPLSSVMClassifier, {"ratio": 0.0}, r"'ratio' parameter .* range \(0.0, 1.0\]"),
        (
            CCPLSSVMClassifier,
            {"refit": "yes"},
            "'refit' parameter .* must be an instance of 'bool'",
        ),
        (CCPLSSVMClassifier, {"tune_max_samples": 1}, "'tune_max_samples' parameter"),
    ],
)
def test_bad_parameters_are_refused_in_one_line(cls, params, message, moons):
    X, y, _, _ = moons
    with pytest.raises(ValueError, match=message) as info:
        cls(**{**FIXED, **params}).fit(X[:40], y[:40])
    assert "\n" not in str(info.value) and cls.__name__ in str(info.value)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_more_than_two_classes_is_a_clear_error(cls):
    X = np.random.default_rng(0).normal(size=(30, 2))
    message = f"Only binary classification is supported. {cls.__name__}: y has 3 class"
    with pytest.raises(ValueError, match=message):
        cls(**FIXED).fit(X, np.arange(30) % 3)


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_none_hyperparameters_are_tuned_and_recorded(cls, moons):
    X, y, _, _ = moons
    model = cls(random_state=0, tune_max_samples=60).fit(X[:120], y[:120])
    info = model.fit_info_
    assert info["tuned"] is True and info["tune_samples"] == 60
    assert math.log2(info["C"]) in range(-5, 16, 2)
    assert math.log2(info["gamma"]) == pytest.approx(round(math.log2(info["gamma"])))
    assert (model.C_, model.gamma_) == (info["C"], info["gamma"])
    # a given C is kept, only gamma is searched
    half = cls(C=8.0, random_state=0, tune_max_samples=60).fit(X[:120], y[:120])
    assert half.fit_info_["C"] == 8.0 and half.fit_info_["tuned"] is True


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)
def test_essential_checks(cls, check):
    check(cls.__name__, cls(**FIXED, random_state=0))
