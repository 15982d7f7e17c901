"""SVM^perf's error rate with shrinking: the same epsilon-optimal problem on a cheaper path."""

import cvxpy as cp
import numpy as np
import pytest
import scipy.sparse as sp

from svmlab.estimators.svmperf import SVMPerfClassifier


def _data(n=400, d=20, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d)) * (rng.random((n, d)) < 0.4)
    y = np.where(X @ rng.normal(size=d) + 0.7 * rng.normal(size=n) > 0.5, 1, -1)
    return X, y


def _hinge_optimum(X, y, C):
    """The accuracy loss's 1-slack problem is the bias-free hinge SVM with C' = 100 C / n."""
    w = cp.Variable(X.shape[1])
    hinge = cp.sum(cp.pos(1 - cp.multiply(y, X @ w)))
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + 100 * C / len(y) * hinge))
    prob.solve(solver=cp.CLARABEL)
    return prob.value


@pytest.mark.parametrize("C", [0.5, 10.0])
def test_shrinking_reaches_an_epsilon_optimal_point_of_the_same_problem(C):
    X, y = _data()
    eps = 0.05
    model = SVMPerfClassifier(loss="accuracy", C=C, epsilon=eps, shrinking=True).fit(X, y)
    default = SVMPerfClassifier(loss="accuracy", C=C, epsilon=eps).fit(X, y)
    optimum = _hinge_optimum(X, y, C)
    primal = model.fit_info_["final_primal"]
    assert model.fit_info_["stop_reason"] == "converged"
    assert optimum - 1e-6 <= primal <= optimum + C * eps + 1e-6
    assert abs(primal - default.fit_info_["final_primal"]) <= C * eps
    assert model.fit_info_["qp_fallbacks"] == 0


def test_most_rounds_look_at_a_part_of_the_examples_and_the_last_one_at_all():
    X, y = _data(n=3000, d=30, seed=1)
    model = SVMPerfClassifier(loss="accuracy", C=50.0, epsilon=0.1, shrinking=True).fit(X, y)
    rounds = [t["full_round"] for t in model.trace_]
    assert rounds[:5] == [True] * 5 and not all(rounds)
    assert model.n_iter_ == len(rounds) + 1  # the stopping round (full) is not logged


def test_dense_and_sparse_inputs_give_the_same_model():
    X, y = _data(seed=2)
    dense = SVMPerfClassifier(loss="accuracy", C=5.0, shrinking=True).fit(X, y)
    sparse = SVMPerfClassifier(loss="accuracy", C=5.0, shrinking=True).fit(sp.csr_matrix(X), y)
    assert np.array_equal(dense.coef_, sparse.coef_)


@pytest.mark.parametrize(
    "params, message",
    [
        ({"loss": "f1", "shrinking": True}, "shrinking=True needs loss='accuracy'"),
        ({"loss": "accuracy", "kernel": "rbf", "shrinking": True}, "kernel='linear'"),
        ({"loss": "accuracy", "shrinking": "yes"}, "shrinking must be True or False"),
    ],
)
def test_shrinking_refuses_what_it_cannot_do_in_one_line(params, message):
    X, y = _data(n=60)
    with pytest.raises(ValueError, match=message):
        SVMPerfClassifier(**params).fit(X, y)
