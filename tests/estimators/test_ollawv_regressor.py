"""OLLAWVRegressor (beyond the paper): the invariants of the epsilon-insensitive worst-violator
loop, a pure-NumPy reference, the unit equivariance and nested tubes that replace C-invariance,
a smooth-function fit, scikit-learn compatibility and input errors."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from svmlab.contract import contract_of
from svmlab.estimators.ollawv import OLLAWVRegressor
from svmlab.kernels import rbf


def reference_fit(X, y, C, gamma, tol, max_iter, beta=1.0):
    """The regression loop in plain NumPy, written from the docstring's derivation."""
    n = len(y)
    o, free = np.zeros(n), np.ones(n, dtype=bool)
    sv, alpha, b, t = [], [], 0.0, 0
    wv = int(np.argmax(np.abs(y)))  # o = 0: the largest |y| (first maximum)
    if abs(y[wv]) <= tol:
        return np.array([], dtype=int), np.array([]), 0.0
    while True:
        t += 1
        lam = 2.0 / math.sqrt(t) * C * np.sign(y[wv] - o[wv])
        B = lam * beta / n
        sv.append(wv)
        alpha.append(lam)
        b += B
        free[wv] = False
        cand = np.flatnonzero(free)
        if cand.size == 0:
            break
        o[cand] += lam * np.exp(-gamma * ((X[cand] - X[wv]) ** 2).sum(axis=1)) + B
        err = np.abs(y[cand] - o[cand])
        k = int(np.argmax(err))
        if err[k] <= tol or t >= max_iter:
            break
        wv = cand[k]
    return np.array(sv), np.array(alpha), b


@pytest.fixture(scope="module")
def wave():
    rng = np.random.RandomState(0)
    X = rng.uniform(0.0, 1.0, size=(150, 2))
    y = np.sin(6.0 * X[:, 0]) + 0.5 * X[:, 1] + 0.1 * rng.randn(150)
    return X, y - y.mean()


@pytest.mark.parametrize(
    "C, gamma, eps, margin, mode, frac",
    [
        (1.0, 10.0, 0.1, 0.0, "absolute", 0.5),
        (0.5, 3.0, 0.05, 0.1, "scaled", None),
        (2.0, 30.0, 0.0, 0.05, "absolute", 0.3),
    ],
)
def test_matches_numpy_reference(wave, C, gamma, eps, margin, mode, frac):
    X, y = wave
    reg = OLLAWVRegressor(
        C=C,
        gamma=gamma,
        epsilon=eps,
        margin=margin,
        margin_mode=mode,
        max_iter_frac=frac,
        shuffle=False,
    ).fit(X, y)
    M = margin * C if mode == "scaled" else margin
    cap = len(y) if frac is None else math.ceil(frac * len(y))
    sv, alpha, b = reference_fit(X, y, C, gamma, eps + M, cap)
    np.testing.assert_array_equal(reg.support_, sv)
    np.testing.assert_allclose(reg.dual_coef_, alpha, rtol=1e-15)
    np.testing.assert_allclose(reg.intercept_, b, rtol=1e-12)
    np.testing.assert_allclose(
        reg.predict(X), rbf(X, X[sv], gamma) @ alpha + b, rtol=1e-10, atol=1e-12
    )


def test_invariants(wave):
    X, y = wave
    reg = OLLAWVRegressor(C=0.7, gamma=10.0, epsilon=0.05, random_state=1).fit(X, y)
    T = reg.fit_info_["iterations"]
    t = np.arange(1, T + 1)
    np.testing.assert_allclose(
        np.abs(reg.dual_coef_), 2.0 * 0.7 / np.sqrt(t), rtol=1e-15
    )  # |alpha_t| = eta_t C
    assert (
        len(np.unique(reg.support_)) == T == reg.n_support_[0] == len(reg.support_vectors_)
    )  # no SV twice
    assert T <= reg.fit_info_["max_iter"] == math.ceil(0.5 * len(y))
    np.testing.assert_allclose(
        reg.intercept_, reg.dual_coef_.sum() / len(y), rtol=1e-12
    )  # b = sum beta alpha / n
    assert reg.fit_info_["stop_reason"] in ("margin", "max_iter")
    if reg.fit_info_["stop_reason"] == "margin":
        assert reg.fit_info_["max_residual"] <= 0.05
    # the first worst violator is the largest |y| (o = 0), and moves the output towards it
    assert abs(y[reg.support_[0]]) == np.abs(y).max()
    assert np.sign(reg.dual_coef_[0]) == np.sign(y[reg.support_[0]])
    assert OLLAWVRegressor(use_bias=False).fit(X, y).intercept_ == 0.0
    inv_t = OLLAWVRegressor(eta="inv_t", eta_scale=1.0, gamma=10.0).fit(X, y)
    np.testing.assert_allclose(
        np.abs(inv_t.dual_coef_), 1.0 / np.arange(1, inv_t.n_support_[0] + 1), rtol=1e-15
    )


def test_unit_equivariance_not_c_invariance(wave):
    X, y = wave
    base = OLLAWVRegressor(
        C=0.5, gamma=10.0, epsilon=0.05, margin=0.1, margin_mode="scaled", random_state=0
    ).fit(X, y)
    # y, C, epsilon scaled by 4 (exact in floating point): same SVs, coefficients and outputs x 4
    big = OLLAWVRegressor(
        C=2.0, gamma=10.0, epsilon=0.2, margin=0.1, margin_mode="scaled", random_state=0
    ).fit(X, 4 * y)
    np.testing.assert_array_equal(big.support_, base.support_)
    np.testing.assert_allclose(big.dual_coef_, 4 * base.dual_coef_, rtol=1e-15)
    np.testing.assert_allclose(big.predict(X), 4 * base.predict(X), rtol=1e-12, atol=1e-12)
    # ... but C alone changes the model, whatever margin_mode (y is not scaled by C)
    other = OLLAWVRegressor(
        C=2.0, gamma=10.0, epsilon=0.05, margin=0.1, margin_mode="scaled", random_state=0
    ).fit(X, y)
    assert not np.array_equal(other.support_[: base.n_support_[0]], base.support_)


def test_nested_tubes(wave):
    """epsilon + M only decides where the (threshold-independent) sequence stops: a prefix."""
    X, y = wave
    fits = [
        OLLAWVRegressor(gamma=10.0, epsilon=e, max_iter_frac=None, random_state=0).fit(X, y)
        for e in (0.0, 0.1, 0.3, 0.6)
    ]
    for small, large in zip(fits, fits[1:]):
        T = large.n_support_[0]
        assert T <= small.n_support_[0]
        np.testing.assert_array_equal(small.support_[:T], large.support_)
        np.testing.assert_array_equal(small.dual_coef_[:T], large.dual_coef_)
    none = OLLAWVRegressor(epsilon=10.0).fit(X, y)  # nothing outside the tube at o = 0
    assert none.n_support_[0] == 0 and none.fit_info_["iterations"] == 0
    np.testing.assert_array_equal(none.predict(X), 0.0)


def test_smooth_function_fit():
    rng = np.random.RandomState(3)
    X = rng.uniform(-3, 3, size=(400, 1))
    f = lambda x: np.sinc(x[:, 0])  # noqa: E731
    y = f(X) + 0.05 * rng.randn(400)
    reg = OLLAWVRegressor(C=0.3, gamma=2.0, epsilon=0.05, random_state=0).fit(X, y)
    X_test = np.linspace(-3, 3, 300)[:, None]
    assert reg.score(X_test, f(X_test)) > 0.97
    assert reg.n_support_[0] < 200


def test_deterministic(wave):
    X, y = wave
    a = OLLAWVRegressor(random_state=4, gamma=10.0).fit(X, y)
    b = OLLAWVRegressor(random_state=4, gamma=10.0).fit(X, y)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_array_equal(a.predict(X), b.predict(X))


@pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.SkipTestWarning"
)  # array-API check: NumPy only
def test_check_estimator():
    results = check_estimator(OLLAWVRegressor(), on_fail=None)
    assert not [r["check_name"] for r in results if r["status"] == "failed"]


@pytest.mark.parametrize(
    "params, X, y, message",
    [
        ({}, [[0.0, np.nan], [1.0, 2.0]], [0.0, 1.0], "NaN"),
        ({}, [[0.0, 1.0], [1.0, 2.0]], [0.0, np.nan], "NaN"),
        ({}, [[0.0, np.inf], [1.0, 2.0]], [0.0, 1.0], "infinity"),
        ({"gamma": 0.0}, [[0.0], [1.0]], [0.0, 1.0], "'gamma' parameter"),
        ({"gamma": -1.0}, [[0.0], [1.0]], [0.0, 1.0], "'gamma' parameter"),
        ({"epsilon": -0.1}, [[0.0], [1.0]], [0.0, 1.0], "'epsilon' parameter"),
        ({"margin": -0.1}, [[0.0], [1.0]], [0.0, 1.0], "'margin' parameter"),
        ({"C": 0.0}, [[0.0], [1.0]], [0.0, 1.0], "'C' parameter"),
        ({}, [[0.0], [1.0]], np.array(["a", "b"], dtype=object), "could not convert"),
    ],
)
def test_bad_input(params, X, y, message):
    with pytest.raises(ValueError, match=message):
        OLLAWVRegressor(**params).fit(np.asarray(X, dtype=float), y)


def test_solver_config_is_valid():
    import yaml

    from svmlab.solvers import SolverSpec

    path = Path(__file__).resolve().parents[2] / "conf" / "solver" / "ollawv_regressor.yaml"
    spec = SolverSpec.from_config(yaml.safe_load(path.read_text()))
    spec.validate()
    assert isinstance(spec.build(random_state=0).regressor, OLLAWVRegressor) and spec.tasks == (
        "regression",
    )


def test_fit_path_equals_separate_fits(wave):
    X, y = wave
    epsilons = [0.3, 0.0, 10.0, 0.1]
    base = OLLAWVRegressor(C=0.5, gamma=10.0, margin=0.02, max_iter_frac=None, random_state=1)
    models = base.fit_path(X, y, epsilons)
    assert [m.epsilon for m in models] == epsilons and contract_of(base).path_parameter == "epsilon"
    for e, model in zip(epsilons, models):
        alone = OLLAWVRegressor(
            C=0.5, gamma=10.0, epsilon=e, margin=0.02, max_iter_frac=None, random_state=1
        ).fit(X, y)
        np.testing.assert_array_equal(model.support_, alone.support_)
        np.testing.assert_array_equal(model.dual_coef_, alone.dual_coef_)
        assert model.intercept_ == alone.intercept_ and model.fit_info_ == alone.fit_info_
        np.testing.assert_array_equal(model.predict(X), alone.predict(X))
    assert models[2].n_support_[0] == 0  # nothing outside a tube of 10
    with pytest.raises(ValueError, match="epsilon values"):
        base.fit_path(X, y, [])
