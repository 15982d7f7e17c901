"""svmlab's own solver of the 1-slack working-set dual (simplex_qp) and its use as the default."""

import cvxpy as cp
import numpy as np
import pytest

from svmlab.estimators.svmperf import SVMPerfClassifier
from svmlab.estimators.svmperf.simplex_qp import pair_gap, solve_simplex_qp
from svmlab.estimators.svmperf.working_set_qp import (
    KKT_TOL,
    QP_SOLVERS,
    dual_value,
    kkt_residual,
    solve_working_set_qp,
)


def _problem(k, rank, seed, delta_high=20.0):
    rng = np.random.default_rng(seed)
    B = rng.normal(size=(k, rank))
    return B @ B.T, rng.uniform(0.5, delta_high, size=k)


def _cvxpy_dual(H, delta, C):
    a = cp.Variable(len(delta))
    prob = cp.Problem(
        cp.Maximize(delta @ a - 0.5 * cp.quad_form(a, cp.psd_wrap(H))), [a >= 0, cp.sum(a) <= C]
    )
    prob.solve(solver=cp.CLARABEL)
    return prob.value


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0, 1e4])
@pytest.mark.parametrize("k, rank", [(15, 15), (40, 5), (60, 2)])  # full and rank-deficient H
def test_active_set_reaches_the_optimum_of_cvxpy(C, k, rank):
    H, delta = _problem(k, rank, seed=k + rank)
    res = solve_working_set_qp(H, delta, C)
    assert res.solver == "active_set"
    scale = max(1.0, C, delta.max())
    assert kkt_residual(H, delta, C, res.alpha) <= KKT_TOL * scale
    assert res.alpha.min() >= 0 and res.alpha.sum() <= C * (1 + 1e-12)
    assert res.dual == pytest.approx(_cvxpy_dual(H, delta, C), rel=1e-7, abs=1e-7)


def test_the_bound_active_and_inactive_cases():
    H, delta = _problem(10, 10, seed=1)
    small = solve_working_set_qp(H, delta, 0.01).alpha  # sum(alpha) = C
    assert small.sum() == pytest.approx(0.01, rel=1e-12)
    large = solve_working_set_qp(H, delta, 1e9).alpha  # the bound is slack: multiplier 0
    assert large.sum() < 1e9
    grad = H @ large - delta
    support = large > 0
    assert np.allclose(grad[support], 0.0, atol=1e-6) and grad[~support].min() >= -1e-6


def test_a_warm_start_from_the_previous_working_set_gives_the_same_answer():
    """As the cutting plane calls it: the previous alpha padded with a zero."""
    H, delta = _problem(30, 6, seed=4)
    C = 50.0
    previous = solve_simplex_qp(H[:29, :29], delta[:29], C)[0]
    warm, warm_steps, gap = solve_simplex_qp(H, delta, C, np.append(previous, 0.0))
    cold, cold_steps, _ = solve_simplex_qp(H, delta, C)
    assert gap <= 1e-10 * max(C, delta.max())
    assert dual_value(H, delta, warm) == pytest.approx(dual_value(H, delta, cold), rel=1e-12)
    assert warm_steps <= cold_steps


def test_an_infeasible_warm_start_is_pulled_back_onto_the_feasible_set():
    H, delta = _problem(8, 8, seed=5)
    alpha, _, gap = solve_simplex_qp(H, delta, 1.0, np.full(8, 3.0))
    assert alpha.min() >= 0 and alpha.sum() <= 1.0 + 1e-12
    assert gap == pytest.approx(pair_gap(H, delta, 1.0, alpha)) and gap <= 1e-10 * 20


def test_degenerate_problems():
    # H = 0: all mass on the largest loss; one constraint; identical constraints
    delta = np.array([1.0, 3.0, 2.0])
    assert solve_simplex_qp(np.zeros((3, 3)), delta, 2.0)[0] == pytest.approx([0, 2.0, 0])
    assert solve_simplex_qp(np.array([[4.0]]), np.array([2.0]), 10.0)[0] == pytest.approx([0.5])
    g = np.ones((3, 1))
    alpha = solve_working_set_qp(g @ g.T, np.full(3, 2.0), 10.0).alpha
    assert alpha.sum() == pytest.approx(2.0)


def test_every_solver_name_is_a_choice_and_active_set_is_the_default():
    assert QP_SOLVERS[0] == "active_set"
    assert SVMPerfClassifier().qp_solver == "active_set"
    with pytest.raises(ValueError, match="qp_solver must be one of active_set, clarabel, osqp"):
        solve_working_set_qp(np.eye(2), np.ones(2), 1.0, solver="hideo")


def _imbalanced(n=600, d=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.3)
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.8 * rng.normal(size=n) > 1.2, 1, -1)
    return X, y


@pytest.mark.parametrize("loss", ["f1", "accuracy", "auc", "prbep"])
@pytest.mark.parametrize("C", [1.0, 100.0])
def test_models_equal_the_general_solvers_within_the_cutting_plane_tolerance(loss, C):
    """The default QP changes no model beyond what epsilon allows: the final objectives agree
    within C epsilon (both are epsilon-optimal), and no fit needs a fallback."""
    X, y = _imbalanced(n=300)
    eps = 0.05
    fits = {
        s: SVMPerfClassifier(loss=loss, C=C, epsilon=eps, qp_solver=s).fit(X, y)
        for s in ("active_set", "clarabel")
    }
    new, old = fits["active_set"].fit_info_, fits["clarabel"].fit_info_
    assert abs(new["final_primal"] - old["final_primal"]) <= C * eps
    assert new["qp_fallbacks"] == 0
    assert new["qp_iterations"] > 0
    assert new["stop_reason"] == old["stop_reason"] == "converged"


def test_the_issue_setting_needs_no_fallback():
    """F1, C = 1, epsilon = 0.001: Clarabel fell back to OSQP up to 45 times on w8a."""
    X, y = _imbalanced(n=2000, d=60, seed=3)
    model = SVMPerfClassifier(loss="f1", C=1.0, epsilon=0.001).fit(X, y)
    assert model.fit_info_["qp_fallbacks"] == 0
    assert all(t["qp_solver"] == "active_set" for t in model.trace_)
