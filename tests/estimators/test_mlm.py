"""Minimal Learning Machines (Oliveira (2021), Sec. 2.1.3, 2.2.4): Full-, Random-, Rank-, w-,
NN-, ell_{1/2}- and RMF-MLM, the multilateration solvers and the kappa subset."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize_scalar
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.estimator_checks import parametrize_with_checks

from svmlab.estimators.mlm import MLMClassifier, MLMRegressor
from svmlab.estimators.mlm.coefficients import full_ridge_path
from svmlab.estimators.mlm.distances import distance_matrix, resolve_count
from svmlab.estimators.mlm.multilateration import (
    cubic_multilateration,
    lm_multilateration,
    multilateration_cost,
)


def _line(n=60, seed=0):
    X = np.random.default_rng(seed).uniform(-2, 2, (n, 1))
    return X, 2 * X[:, 0] + 1


def _smooth(n=80, seed=1):
    X = np.random.default_rng(seed).uniform(-2, 2, (n, 1))
    return X, np.sin(2 * X[:, 0]) + 0.5 * X[:, 0]


def _blobs(n=60, seed=0):
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [6.0, 0.0], [0.0, 6.0]])
    y = np.repeat([0, 1, 2], n // 3)
    return centres[y] + rng.normal(scale=0.7, size=(len(y), 2)), np.array(["a", "b", "c"])[y]


# ---------------------------------------------------------------------------------- Full-MLM


def test_full_mlm_recovers_a_line_exactly():
    X, y = _line()
    est = MLMRegressor().fit(X, y)
    np.testing.assert_allclose(est.predict(X), y, atol=1e-9)
    X_new = np.linspace(-1.9, 1.9, 25)[:, None]
    np.testing.assert_allclose(est.predict(X_new), 2 * X_new[:, 0] + 1, atol=1e-8)
    assert est.model_size_ == len(X) and est.fit_info_["solver"] == "solve"
    np.testing.assert_array_equal(est.reference_points_, np.arange(len(X)))
    assert est.fit_info_["b_norm"] == pytest.approx(np.linalg.norm(est.B_))


def test_full_mlm_interpolates_a_smooth_function():
    X, y = _smooth()
    est = MLMRegressor().fit(X, y)
    np.testing.assert_allclose(est.predict(X), y, atol=1e-8)  # exact at the training points
    X_new = np.linspace(-1.8, 1.8, 40)[:, None]
    truth = np.sin(2 * X_new[:, 0]) + 0.5 * X_new[:, 0]
    err = np.abs(est.predict(X_new) - truth)
    assert np.max(err) < 0.05 and np.mean(err) < 0.01


def test_full_mlm_two_outputs_by_levenberg_marquardt():
    X, y = _smooth(50)
    Y = np.column_stack([y, np.cos(X[:, 0])])
    est = MLMRegressor().fit(X, Y)
    assert est.predict(X).shape == (50, 2)
    np.testing.assert_allclose(est.predict(X), Y, atol=1e-6)
    with pytest.raises(ValueError, match="multilateration='cubic' needs one output"):
        est.set_params(multilateration="cubic").predict(X)


def test_duplicate_inputs_fall_back_to_lstsq_with_a_warning():
    X, y = _smooth(40)
    X, y = np.vstack([X, X[:5]]), np.concatenate([y, y[:5]])
    with pytest.warns(RuntimeWarning, match="singular"):
        est = MLMRegressor().fit(X, y)
    assert est.fit_info_["fallback"] == "lstsq"
    np.testing.assert_allclose(est.predict(X), y, atol=1e-6)


@pytest.mark.parametrize("estimator", [MLMRegressor, MLMClassifier])
def test_duplicate_inputs_give_lstsq_minimum_norm_solution_from_the_distinct_ones(estimator):
    """Copies of an input (some with another output) make D singular: the distinct system's
    solve, shared among the copies, is lstsq's minimum-norm solution."""
    rng = np.random.default_rng(4)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int) if estimator is MLMClassifier else X @ [1.0, -2.0, 0.5]
    X = np.vstack([X, X[:6], X[:2]])  # six inputs twice, two of them three times
    y = np.concatenate([y, 1 - y[:6] if estimator is MLMClassifier else y[:6] + 1.0, y[:2]])
    with pytest.warns(RuntimeWarning, match="singular"):
        est = estimator().fit(X, y)
    assert est.fit_info_["fallback"] == "lstsq"
    assert est.fit_info_["solver"] == "solve_distinct"
    D = distance_matrix(X, est.reference_inputs_)
    Delta = distance_matrix(est.reference_outputs_, est.reference_outputs_)
    np.testing.assert_allclose(est.B_, np.linalg.pinv(D, rcond=1e-10) @ Delta, atol=1e-8)


# --------------------------------------------------------------------------- multilateration


def test_cubic_equals_lm_and_brute_force_minimisation():
    rng = np.random.default_rng(3)
    t = rng.normal(size=12)
    y_true = rng.normal(size=30)
    delta = np.abs(y_true[:, None] - t[None, :]) + rng.normal(scale=0.3, size=(30, 12))
    cubic = cubic_multilateration(delta, t)
    grid = np.linspace(-6, 6, 24001)
    cost = multilateration_cost(np.tile(grid, (30, 1)), delta, t)
    for i in range(30):
        j = int(np.argmin(cost[i]))
        fine = minimize_scalar(
            lambda v, i=i: multilateration_cost(np.array([[v]]), delta[i : i + 1], t)[0, 0],
            bracket=(grid[max(j - 1, 0)], grid[j], grid[min(j + 1, len(grid) - 1)]),
        ).x
        assert cubic[i] == pytest.approx(fine, abs=1e-5)
    # LM from the mean reaches the global minimum wherever it converges to it
    lm = lm_multilateration(delta, t[:, None])[:, 0]
    j_cubic = multilateration_cost(cubic[:, None], delta, t)[:, 0]
    j_lm = multilateration_cost(lm[:, None], delta, t)[:, 0]
    assert np.all(j_cubic <= j_lm + 1e-9)
    same = np.isclose(j_lm, j_cubic, rtol=1e-9)
    assert same.mean() > 0.8
    np.testing.assert_allclose(lm[same], cubic[same], atol=1e-5)


def test_cubic_with_three_real_roots_picks_the_cheapest():
    # two clusters of reference outputs at -1 and +1, distances 1 from both: minima near -2,
    # 0 and 2 are candidates; the exact answer is the minimum of J over a fine grid
    t = np.array([-1.0, -1.0, 1.0, 1.0, 1.0])
    delta = np.array([[1.0, 1.0, 1.0, 1.0, 1.0]])
    grid = np.linspace(-4, 4, 80001)[None, :]
    best = grid[0, np.argmin(multilateration_cost(grid, delta, t))]
    assert cubic_multilateration(delta, t)[0] == pytest.approx(best, abs=1e-4)


# ----------------------------------------------------------------------------- classification


def test_class_code_argmin_recovers_the_labels_of_separable_data():
    X, y = _blobs()
    for est in (MLMClassifier(), MLMClassifier(n_reference=0.3, random_state=0)):
        est.fit(X, y)
        np.testing.assert_array_equal(est.predict(X), y)
    X_new = np.array([[0.2, -0.1], [5.8, 0.3], [-0.2, 6.1]])
    np.testing.assert_array_equal(MLMClassifier().fit(X, y).predict(X_new), ["a", "b", "c"])
    nn = MLMClassifier(multilateration="nn").fit(X, y)
    np.testing.assert_array_equal(nn.predict(X), y)


def test_binary_labels():
    X, y = _blobs()
    keep = y != "c"
    est = MLMClassifier().fit(X[keep], y[keep] == "a")
    np.testing.assert_array_equal(est.predict(X[keep]), y[keep] == "a")
    assert est.reference_outputs_.shape[1] == 2  # one-hot, two columns


# -------------------------------------------------------------------------- Random, Rank, wMLM


def test_random_mlm_is_least_squares_on_random_reference_points():
    X, y = _smooth(60)
    est = MLMRegressor(n_reference=0.25, random_state=0).fit(X, y)
    rp = est.reference_points_
    assert len(rp) == 15 == est.model_size_ and len(np.unique(rp)) == 15
    D = distance_matrix(X, X[rp])
    Delta = distance_matrix(y[:, None], y[rp, None])
    np.testing.assert_allclose(est.B_, np.linalg.lstsq(D, Delta, rcond=None)[0], atol=1e-8)
    np.testing.assert_array_equal(
        MLMRegressor(n_reference=15, random_state=0).fit(X, y).reference_points_, rp
    )


@pytest.mark.parametrize("n_reference", [0.4, None])
def test_rank_mlm_equals_the_closed_form(n_reference):
    X, y = _smooth(50)
    C = 0.5
    est = MLMRegressor(n_reference=n_reference, C=C, random_state=0).fit(X, y)
    rp = est.reference_points_
    D = distance_matrix(X, X[rp])
    Delta = distance_matrix(y[:, None], y[rp, None])
    closed = np.linalg.inv(D.T @ D + C * np.eye(len(rp))) @ D.T @ Delta
    np.testing.assert_allclose(est.B_, closed, rtol=1e-7, atol=1e-9)
    assert est.fit_info_["solver"] == "ridge"


def test_full_ridge_path_equals_rank_mlm_for_every_c():
    X, y = _smooth(40)
    D, Delta = distance_matrix(X, X), distance_matrix(y[:, None], y[:, None])
    Cs = [0.0, 0.01, 1.0]
    for C, B in zip(Cs, full_ridge_path(D, Delta, Cs)):
        np.testing.assert_allclose(B, MLMRegressor(C=C).fit(X, y).B_, rtol=1e-6, atol=1e-7)


def test_wmlm_balanced_weights_are_the_weighted_closed_form():
    X, y = _blobs(60)
    y = y[:50]
    X = X[:50]  # classes of 20, 20 and 10
    est = MLMClassifier(n_reference=0.5, class_weight="balanced", random_state=0).fit(X, y)
    rp = est.reference_points_
    Y = est.reference_outputs_
    onehot = (y[:, None] == est.classes_[None, :]).astype(float)
    D, Delta = distance_matrix(X, X[rp]), distance_matrix(onehot, Y)
    w = np.array([50 / (3 * 20)] * 40 + [50 / (3 * 10)] * 10)
    W = np.diag(w)
    closed = np.linalg.solve(D.T @ W @ D, D.T @ W @ Delta)
    np.testing.assert_allclose(est.B_, closed, rtol=1e-6, atol=1e-8)


# ------------------------------------------------------------------------- NN, l1/2, RMF


def test_nn_mlm_returns_the_training_outputs():
    X, y = _smooth(40)
    est = MLMRegressor(multilateration="nn").fit(X, y)
    np.testing.assert_allclose(est.predict(X), y)


def test_l_half_and_m_focuss_prune_reference_points():
    X, y = _smooth(60)
    for est in (
        MLMRegressor(regularization="l_half", C=1.0, prune_factor=0.5, max_iter=20),
        MLMRegressor(regularization="m_focuss", C=0.1, focuss_p=0.5, max_iter=20),
    ):
        est.fit(X, y)
        assert 2 <= est.model_size_ <= 60
        assert est.B_.shape == (est.model_size_, est.model_size_)
        assert est.n_iter_ >= 1 and est.fit_info_["b_norm"] == pytest.approx(np.linalg.norm(est.B_))
        pred = est.predict(X)
        assert np.all(np.isfinite(pred)) and np.corrcoef(pred, y)[0, 1] > 0.9
    assert (
        MLMRegressor(regularization="l_half", C=1.0, prune_factor=0.5, max_iter=20)
        .fit(X, y)
        .model_size_
        < 60
    )
    with pytest.raises(ValueError, match="needs C > 0"):
        MLMRegressor(regularization="m_focuss").fit(X, y)


# ------------------------------------------------------------------------------- kappa subset


def test_kappa_subset_is_read_at_predict_time():
    X, y = _smooth(80)
    est = MLMRegressor(random_state=0).fit(X, y)
    B = est.B_.copy()
    full = est.predict(X[:10])
    est.set_params(n_predict_reference=0.25)
    sub = est.predict(X[:10])
    np.testing.assert_array_equal(est.B_, B)  # no refit
    np.testing.assert_array_equal(sub, est.predict(X[:10]))  # int seed: the same subset
    # Full-MLM reproduces the training outputs from any subset of >= 2 reference points
    np.testing.assert_allclose(sub, full, atol=1e-6)
    assert not np.array_equal(est.set_params(random_state=1)._prediction_subset(2), None)
    est.set_params(n_predict_reference=None)
    np.testing.assert_array_equal(est.predict(X[:10]), full)
    assert (
        resolve_count(0.25, 80, name="n") == 20 and resolve_count(1, 80, name="n", minimum=2) == 2
    )


def test_bad_parameters_name_themselves():
    X, y = _line(20)
    with pytest.raises(ValueError, match="multilateration"):
        MLMRegressor(multilateration="newton").fit(X, y)
    with pytest.raises(ValueError, match="n_reference"):
        MLMRegressor(n_reference=1.5).fit(X, y)
    with pytest.raises(ValueError, match="regularization"):
        MLMClassifier(regularization="lasso").fit(X, y > 1)
    est = MLMRegressor().fit(X, y)
    with pytest.raises(ValueError, match="n_predict_reference"):
        est.set_params(n_predict_reference=-3).predict(X)


# --------------------------------------------------------------------------- scikit-learn API
# The registered solvers (conf/solver/mlm_*.yaml, lwmlm_*, cclwmlm) get every scikit-learn check
# in tests/test_conformance.py; here the variants no solver file builds.


@pytest.mark.slow
@parametrize_with_checks(
    [
        MLMRegressor(regularization="l_half", C=0.1, max_iter=10),
        MLMRegressor(regularization="m_focuss", C=0.1, max_iter=5),
        MLMClassifier(n_reference=0.5, class_weight="balanced", random_state=0),
        MLMRegressor(n_predict_reference=0.5, random_state=0),
    ]
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", (ConvergenceWarning, RuntimeWarning))
        check(estimator)


def _path_data(model, n=60):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 3))
    y = X[:, 0] - X[:, 1] + 0.1 * rng.normal(size=n)
    if isinstance(model, MLMClassifier):
        y = np.digitize(y, [-0.5, 0.5])
    return X, y


def _assert_same_model(fitted, alone, X, exact):
    same = np.testing.assert_array_equal if exact else np.testing.assert_allclose
    np.testing.assert_array_equal(fitted.reference_points_, alone.reference_points_)
    if exact:  # the same arithmetic; the BLAS may still pick another kernel for arrays laid
        # out differently (seen: relative 3e-12 with numpy 2.4.6 and scipy 1.17.1's OpenBLAS)
        np.testing.assert_allclose(fitted.B_, alone.B_, rtol=1e-10, atol=0)
    else:  # the same system solved from another factorisation: equal to rounding
        np.testing.assert_allclose(fitted.B_, alone.B_, rtol=1e-7, atol=1e-9 * abs(alone.B_).max())
    if isinstance(fitted, MLMClassifier):
        np.testing.assert_array_equal(fitted.predict(X), alone.predict(X))
    else:
        same(fitted.predict(X), alone.predict(X))
    info = {k: v for k, v in fitted.fit_info_.items() if k != "b_norm"}
    assert info == {k: v for k, v in alone.fit_info_.items() if k != "b_norm"}
    assert fitted.fit_info_["b_norm"] == pytest.approx(alone.fit_info_["b_norm"], rel=1e-7)
    assert fitted.n_iter_ == alone.n_iter_


@pytest.mark.parametrize(
    "model",
    [
        MLMRegressor(n_reference=0.4, random_state=3),
        MLMRegressor(n_reference=None, random_state=3),  # every point: C = 0 is Full-MLM
        MLMClassifier(n_reference=0.5, class_weight="balanced", random_state=3),
        MLMRegressor(n_reference=0.4, regularization="m_focuss", random_state=3),
    ],
    ids=["rank", "full", "weighted_classifier", "rmf"],
)
def test_a_c_path_gives_the_models_separate_fits_give(model):
    from sklearn.base import clone

    X, y = _path_data(model)
    Cs = [0.25, 0.0, 4.0] if model.regularization == "ridge" else [0.25, 4.0]
    path = model.fit_path(X, y, Cs)  # plain numbers are values of C
    for C, fitted in zip(Cs, path):
        alone = clone(model).set_params(C=C).fit(X, y)
        assert fitted.C == C
        # one K: the same columns in the same order, so a ridge is the same arithmetic; only
        # C = 0 at K < n solves by QR instead of lstsq (another regularisation: on its own)
        exact = model.n_reference is None or model.regularization != "ridge" or C > 0
        _assert_same_model(fitted, alone, X, exact)


@pytest.mark.parametrize(
    "model",
    [
        MLMRegressor(random_state=3),
        MLMRegressor(random_state=3, multilateration="lm"),
        MLMClassifier(class_weight="balanced", random_state=3),
        MLMClassifier(random_state=3),
    ],
    ids=["regressor", "regressor_lm", "weighted_classifier", "classifier"],
)
def test_a_path_over_k_and_c_gives_the_models_separate_fits_give(model):
    """Random- and Rank-MLM's Table 10 grid in one fit_path: the reference points of every K
    are the ones a separate fit with the same seed draws, and the models agree to rounding."""
    from sklearn.base import clone

    X, y = _path_data(model, n=80)
    if model.multilateration == "lm":
        y = np.column_stack([y, X[:, 2]])
    points = [{"n_reference": k, "C": c} for k in (0.1, 0.3, 0.5, 1.0, 12) for c in (0.0, 0.5, 2.0)]
    path = model.fit_path(X, y, points)
    assert len(path) == len(points)
    for point, fitted in zip(points, path):
        alone = clone(model).set_params(**point).fit(X, y)
        assert fitted.get_params()["n_reference"] == point["n_reference"]
        assert fitted.C == point["C"]
        full_mlm = point["n_reference"] == 1.0 and point["C"] == 0.0  # fitted on its own
        _assert_same_model(fitted, alone, X, exact=full_mlm)


@pytest.mark.parametrize("shift, fallback", [(0.0, False), (1e-10, True)], ids=["copies", "near"])
def test_repeated_reference_inputs_on_a_k_path_give_a_separate_fits_model(
    monkeypatch, shift, fallback
):
    """Copies of a reference input make D's columns equal: the path shares their
    coefficients as the minimum-norm solution does, without lstsq; nearly equal columns
    (ill-conditioned) are solved by lstsq for that K. Either way the separate fit's model."""
    from sklearn.base import clone

    import svmlab.estimators.mlm.standard as standard

    X, y = _path_data(MLMRegressor())
    X = np.vstack([X, X[:30] + shift])  # the first 30 rows twice (or nearly)
    y = np.concatenate([y, y[:30] + 0.05])
    model = MLMRegressor(random_state=1)
    points = [{"n_reference": k, "C": 0.0} for k in (0.2, 0.5, 0.9)]
    calls, real = [], standard.regularised_least_squares
    monkeypatch.setattr(
        standard, "regularised_least_squares", lambda *a, **k: calls.append(1) or real(*a, **k)
    )
    path = model.fit_path(X, y, points)
    assert bool(calls) == fallback
    for point, fitted in zip(points, path):
        alone = clone(model).set_params(**point).fit(X, y)
        np.testing.assert_array_equal(fitted.reference_points_, alone.reference_points_)
        np.testing.assert_allclose(fitted.B_, alone.B_, rtol=1e-7, atol=1e-9 * abs(alone.B_).max())
        np.testing.assert_allclose(fitted.predict(X), alone.predict(X), rtol=1e-9, atol=1e-9)


def test_the_mlm_contract_declares_a_joint_path_over_k_and_c():
    contract = MLMRegressor.svmlab_contract
    assert contract.path_parameter == ("C", "n_reference") and contract.joint_path
    assert contract.simpler_end("n_reference") == "min" and contract.simpler_end("C") == "max"
