"""svmlab.qp: the SVM dual against LIBSVM (sklearn SVC, precomputed kernel) and scipy."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.svm import SVC

from svmlab.kernels import rbf
from svmlab.qp import DualSolution, dual_objective, kkt_gap, solve_svm_dual, svm_intercept

METHODS = ["osqp", "smo"]


def problem(n=40, d=3, gamma=0.5, seed=0, noise=0.7):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + noise * rng.normal(size=n) > 0, 1.0, -1.0)
    return rbf(X, X, gamma), y


def libsvm_alpha(K, y, C, **kw):
    svc = SVC(kernel="precomputed", C=C, tol=1e-10, shrinking=False, **kw).fit(K, y)
    alpha = np.zeros(len(y))
    alpha[svc.support_] = np.abs(svc.dual_coef_[0])
    return alpha, float(svc.intercept_[0])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize(
    "C, gamma, seed", [(0.1, 0.5, 0), (1.0, 0.5, 1), (10.0, 2.0, 2), (1000.0, 0.1, 3)]
)
def test_matches_libsvm(method, C, gamma, seed):
    K, y = problem(gamma=gamma, seed=seed)
    ref_alpha, ref_b = libsvm_alpha(K, y, C)
    sol = solve_svm_dual(K, y, C, method=method, tol=1e-9)
    assert sol.converged and sol.gap <= 1e-9
    assert sol.objective == pytest.approx(dual_objective(K, y, ref_alpha), rel=1e-7, abs=1e-9)
    np.testing.assert_allclose(sol.alpha, ref_alpha, atol=1e-5 * C)
    assert sol.intercept == pytest.approx(ref_b, abs=1e-5 * max(1.0, C))
    # exactly feasible: inside the box, on the equality constraint
    assert np.all(sol.alpha >= 0) and np.all(sol.alpha <= C)
    assert abs(y @ sol.alpha) <= 1e-9 * max(1.0, sol.alpha.sum())


@pytest.mark.parametrize("method", METHODS)
def test_per_sample_bounds_match_class_weights(method):
    K, y = problem(seed=4)
    C = np.where(y > 0, 5.0, 0.5)  # SVC: C * class_weight per class
    ref_alpha, ref_b = libsvm_alpha(K, y, 1.0, class_weight={1.0: 5.0, -1.0: 0.5})
    sol = solve_svm_dual(K, y, C, method=method, tol=1e-9)
    np.testing.assert_allclose(sol.alpha, ref_alpha, atol=1e-5)
    assert sol.intercept == pytest.approx(ref_b, abs=1e-5)


def test_matches_scipy_on_a_tiny_problem():
    K, y = problem(n=12, seed=5)
    C = 2.0
    Q = np.outer(y, y) * K
    ref = minimize(
        lambda a: 0.5 * a @ Q @ a - a.sum(),
        np.zeros(12),
        jac=lambda a: Q @ a - 1,
        bounds=[(0, C)] * 12,
        constraints=[{"type": "eq", "fun": lambda a: y @ a, "jac": lambda a: y}],
        method="SLSQP",
        options={"ftol": 1e-14, "maxiter": 1000},
    )
    for method in METHODS:
        sol = solve_svm_dual(K, y, C, method=method, tol=1e-9)
        assert sol.objective <= ref.fun + 1e-8
        np.testing.assert_allclose(sol.alpha, ref.x, atol=1e-5)


def test_no_free_variables_gives_the_midpoint_bias():
    # unconstrained optimum alpha = 1 everywhere; C = 0.5 puts every alpha on its bound
    rng = np.random.default_rng(6)
    K = np.eye(6) + 0.01 * rbf(*(2 * [rng.normal(size=(6, 2))]), gamma=1.0)
    y = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    ref_alpha, ref_b = libsvm_alpha(K, y, 0.5)
    for method in METHODS:
        sol = solve_svm_dual(K, y, 0.5, method=method, tol=1e-10)
        np.testing.assert_array_equal(sol.alpha, np.full(6, 0.5))
        assert sol.intercept == pytest.approx(ref_b, abs=1e-9)
        assert svm_intercept(K, y, 0.5, sol.alpha) == pytest.approx(sol.intercept)


@pytest.mark.parametrize("method", METHODS)
def test_warm_start_gives_the_same_optimum_faster(method):
    K, y = problem(n=80, seed=7)
    cold = solve_svm_dual(K, y, 10.0, method=method, tol=1e-8)
    warm = solve_svm_dual(K, y, 10.0, method=method, tol=1e-8, warm_start=cold)
    assert warm.objective == pytest.approx(cold.objective, rel=1e-9)
    assert warm.n_iter < cold.n_iter
    # a nearby problem (K changed), warm-started from the old optimum, reaches the new one
    K2, _ = problem(n=80, seed=7, gamma=0.6)
    ref = solve_svm_dual(K2, y, 10.0, method="smo", tol=1e-9)
    moved = solve_svm_dual(K2, y, 10.0, method=method, tol=1e-9, warm_start=cold.alpha)
    assert moved.objective == pytest.approx(ref.objective, rel=1e-8)


def test_smo_from_the_optimum_takes_no_step():
    K, y = problem(seed=8)
    sol = solve_svm_dual(K, y, 1.0, method="smo", tol=1e-8)
    again = solve_svm_dual(K, y, 1.0, method="smo", tol=1e-8, warm_start=sol.alpha)
    assert again.n_iter == 0
    np.testing.assert_array_equal(again.alpha, sol.alpha)


def test_infeasible_warm_start_is_repaired():
    K, y = problem(seed=9)
    start = np.full(len(y), 5.0)  # outside the box and off the equality constraint
    sol = solve_svm_dual(K, y, 1.0, method="smo", tol=1e-8, warm_start=start)
    ref = solve_svm_dual(K, y, 1.0, method="smo", tol=1e-8)
    assert sol.objective == pytest.approx(ref.objective, rel=1e-9)


def test_kkt_gap_and_solution_record():
    K, y = problem(seed=10)
    assert kkt_gap(K, y, 1.0, np.zeros(len(y))) == pytest.approx(
        0.0 + 2.0
    )  # v = -y*G = y: max 1, min -1
    sol = solve_svm_dual(K, y, 1.0, tol=1e-6)
    assert isinstance(sol, DualSolution) and sol.method in ("osqp", "osqp+smo")
    assert kkt_gap(K, y, 1.0, sol.alpha) <= 1e-6


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"K": np.eye(3)}, r"K must be \(4, 4\)"),
        ({"y": np.array([1.0, -1.0, 2.0, 1.0])}, "only -1 and \\+1"),
        ({"y": np.ones(4)}, "both classes"),
        ({"C": 0.0}, "C must be > 0"),
        ({"method": "cvx"}, "method must be one of"),
        ({"tol": 0.0}, "tol must be > 0"),
        ({"warm_start": np.zeros(3)}, "warm_start must have 4 entries"),
    ],
)
def test_bad_input(kwargs, message):
    args = {"K": np.eye(4), "y": np.array([1.0, -1.0, 1.0, -1.0]), "C": 1.0}
    args.update(kwargs)
    K, y, C = args.pop("K"), args.pop("y"), args.pop("C")
    with pytest.raises(ValueError, match=message):
        solve_svm_dual(K, y, C, **args)


@pytest.mark.parametrize("method", ["smo", "osqp"])
def test_matches_cvxpy(method):
    """The dual optimum agrees with a general convex solver (cvxpy), as a reference."""
    cp = pytest.importorskip("cvxpy")
    rng = np.random.default_rng(7)
    X = rng.normal(size=(40, 3))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=40) > 0, 1.0, -1.0)
    K = rbf(X, X, 0.5)
    C = 2.0
    Q = (y[:, None] * y[None, :]) * K + 1e-10 * np.eye(len(y))
    a = cp.Variable(len(y))
    problem = cp.Problem(
        cp.Minimize(0.5 * cp.quad_form(a, cp.psd_wrap(Q)) - cp.sum(a)), [a >= 0, a <= C, y @ a == 0]
    )
    problem.solve(solver=cp.CLARABEL)
    sol = solve_svm_dual(K, y, C, method=method, tol=1e-6)
    assert dual_objective(K, y, sol.alpha) == pytest.approx(problem.value, rel=1e-5, abs=1e-6)
    assert np.allclose(sol.alpha, np.clip(a.value, 0, C), atol=2e-3)
