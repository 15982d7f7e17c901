"""SVM^perf and MKLPO (svmlab.estimators.svmperf): the cutting plane against cvxpy, the
working-set QP, the kernel-weight step, kernel banks and the estimators' behaviour."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.metrics import f1_score
from sklearn.model_selection import StratifiedKFold
from sklearn.svm import SVC

from svmlab.estimators.svmperf import (
    CAPOClassifier,
    FSPOClassifier,
    MKLPOClassifier,
    SVMPerfClassifier,
)
from svmlab.estimators.svmperf.blocks import GramBlock
from svmlab.estimators.svmperf.cutting_plane import cutting_plane
from svmlab.estimators.svmperf.kernel_bank import KernelBank
from svmlab.estimators.svmperf.kernel_weights import uniform_weights, update_weights
from svmlab.estimators.svmperf.oracles import MEASURES, loss, most_violated
from svmlab.estimators.svmperf.oracles_at_k import AT_K_MEASURES, feasible, k_of
from svmlab.estimators.svmperf.working_set_qp import kkt_residual, solve_working_set_qp

cp = pytest.importorskip("cvxpy")


def _data(n=10, d=3, seed=0, pos=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = -np.ones(n, dtype=np.int64)
    y[rng.choice(n, pos, replace=False)] = 1
    X[y == 1] += 0.7
    return X, y


def _all_constraints(measure, y):
    """Every constraint (g, Delta) of the 1-slack problem, by enumeration (svmperf scaling)."""
    n = len(y)
    P, N = np.flatnonzero(y == 1), np.flatnonzero(y == -1)
    out = []
    if measure == "auc":
        s, u = 50.0 / (len(P) * len(N)), 100.0 / (len(P) * len(N))
        for bits in itertools.product((1, -1), repeat=len(P) * len(N)):
            Y = np.array(bits).reshape(len(P), len(N))
            c = np.zeros(n)
            c[P] = s * Y.sum(axis=1)
            c[N] = -s * Y.sum(axis=0)
            c_true = np.zeros(n)
            c_true[P], c_true[N] = s * len(N), -s * len(P)
            out.append((c_true - c, u * np.sum(Y == -1)))
        return out
    for bits in itertools.product((1, -1), repeat=n):
        ybar = np.array(bits)
        if measure == "prbep" and np.sum(ybar == 1) != len(P):
            continue
        if measure in AT_K_MEASURES and not feasible(
            measure, np.sum(ybar == 1), k_of(measure, len(P))
        ):
            continue
        delta = loss(measure, y, ybar)
        if measure in AT_K_MEASURES and delta == 0:  # only y and positive-loss labellings
            continue
        out.append((50.0 / n * (y - ybar), delta))
    return out


def _cvxpy_optimum(X, y, measure, C):
    cons = _all_constraints(measure, y)
    A = np.array([X.T @ g for g, _ in cons])
    d = np.array([delta for _, delta in cons])
    w, xi = cp.Variable(X.shape[1]), cp.Variable()
    prob = cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + C * xi), [d - A @ w <= xi, xi >= 0])
    prob.solve(solver=cp.CLARABEL)
    return prob.value, w.value


@pytest.mark.parametrize("measure", MEASURES)
def test_cutting_plane_reaches_the_epsilon_optimal_one_slack_objective(measure):
    X, y = _data(n=10 if measure != "auc" else 7, pos=4 if measure != "auc" else 3)
    C, eps = 5.0, 0.01
    optimum, _ = _cvxpy_optimum(X, y, measure, C)
    est = SVMPerfClassifier(loss=measure, C=C, epsilon=eps).fit(X, y)
    primal = est.fit_info_["final_primal"]
    assert est.fit_info_["stop_reason"] == "converged"
    assert optimum - 1e-6 <= primal <= optimum + C * eps + 1e-6


def test_accuracy_loss_is_the_bias_free_hinge_svm():
    """Spec check: with the accuracy loss, C on SVM^perf's scale is C_hinge = 100 C / n."""
    X, y = make_classification(120, 4, random_state=1)
    C = 2.0
    est = SVMPerfClassifier(loss="accuracy", C=C, epsilon=1e-5).fit(X, y)
    w = cp.Variable(4)
    yp = 2 * y - 1
    hinge = cp.sum(cp.pos(1 - cp.multiply(yp, X @ w)))
    cp.Problem(cp.Minimize(0.5 * cp.sum_squares(w) + 100 * C / len(y) * hinge)).solve()
    assert np.allclose(est.decision_function(X), X @ w.value, atol=1e-4)


@pytest.mark.parametrize("solver", ["osqp", "clarabel"])
@pytest.mark.parametrize("C", [0.5, 50.0])
def test_working_set_qp_matches_cvxpy(solver, C):
    rng = np.random.default_rng(3)
    B = rng.normal(size=(12, 6))
    H = B @ B.T
    delta = rng.uniform(1, 20, size=12)
    res = solve_working_set_qp(H, delta, C, solver=solver)
    a = cp.Variable(12)
    prob = cp.Problem(
        cp.Maximize(delta @ a - 0.5 * cp.quad_form(a, cp.psd_wrap(H))), [a >= 0, cp.sum(a) <= C]
    )
    prob.solve(solver=cp.CLARABEL)
    assert res.dual == pytest.approx(prob.value, rel=1e-7, abs=1e-7)
    assert kkt_residual(H, delta, C, res.alpha) < 1e-6 * max(C, 20)
    assert res.alpha.min() >= 0 and res.alpha.sum() <= C + 1e-9


def _working_set(M=3, n=30, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=n) > 0, 1, -1)
    Ks = [np.exp(-g * ((X[:, None] - X[None]) ** 2).sum(-1)) for g in (0.05, 0.5, 5.0)][:M]
    G, deltas = [], []
    f = np.zeros(n)
    for _ in range(6):  # a fixed working set: the oracle at a few score vectors
        con = most_violated("f1", y, f)
        G.append(con.g)
        deltas.append(con.delta)
        f = rng.normal(size=n)
    G = np.array(G).T
    return [G.T @ K @ G for K in Ks], np.array(deltas)


@pytest.mark.parametrize("p", [0.5, 1.0, 2.0])
def test_closed_form_weight_step_decreases_the_working_set_objective(p):
    Q, delta = _working_set()
    C, mu = 10.0, uniform_weights(3, p)
    values = []
    for _ in range(15):
        H = sum(m * q for m, q in zip(mu, Q))
        alpha = solve_working_set_qp(H, delta, C).alpha
        values.append(0.5 * alpha @ H @ alpha + C * max(0.0, np.max(delta - H @ alpha)))
        mu = update_weights(mu, [alpha @ q @ alpha for q in Q], update="closed_form", p=p)
        assert np.all(mu >= 0)
        assert np.sum(mu**p) == pytest.approx(1.0)  # p = 0.5: sum(tau) = 1
    assert np.all(np.diff(values) <= 1e-7 * max(values))


def test_weight_step_variants():
    mu = uniform_weights(3, 0.5)
    assert np.sqrt(mu).sum() == pytest.approx(1.0)
    vertex = update_weights(mu, [1.0, 3.0, 3.0], update="literal_vertex", p=0.5)
    assert vertex.tolist() == [0.0, 1.0, 0.0]  # ties go to the lowest index
    assert update_weights(mu, [1.0, 2.0, 3.0], update="fixed", p=0.5).tolist() == mu.tolist()
    assert update_weights(mu, [0.0, 0.0, 0.0], update="closed_form", p=0.5).tolist() == mu.tolist()
    with pytest.raises(ValueError, match="mkl_update must be one of"):
        update_weights(mu, [1.0, 1.0, 1.0], update="simplex", p=0.5)


def test_mklpo_keeps_tau_on_the_simplex_and_learns_weights():
    X, y = make_classification(150, 5, n_informative=3, random_state=2)
    est = MKLPOClassifier(loss="f1", C=10.0).fit(X, y)
    assert est.tau_.sum() == pytest.approx(1.0)
    assert np.all(est.tau_ >= 0) and len(est.tau_) == 10
    assert not np.allclose(est.tau_, 0.1)  # the weights moved from uniform
    assert est.fit_info_["stop_reason"] == "converged"
    assert est.score(X, y) > 0.8
    convex = MKLPOClassifier(loss="f1", C=10.0, mkl_p=1.0).fit(X, y)
    assert convex.mu_.sum() == pytest.approx(1.0)
    vertex = MKLPOClassifier(loss="f1", C=10.0, mkl_update="literal_vertex", max_iter=40)
    vertex.fit(X, y)
    assert sorted(vertex.tau_.tolist())[-1] == 1.0 and np.count_nonzero(vertex.tau_) == 1


def test_a_duplicated_kernel_predicts_like_the_single_kernel():
    X, y = make_classification(80, 4, random_state=4)
    k = {"kernel": "rbf", "gamma": 0.3}
    single = SVMPerfClassifier(loss="auc", C=3.0, kernel="rbf", gamma=0.3, epsilon=1e-3).fit(X, y)
    double = MKLPOClassifier(loss="auc", C=3.0, kernels=[k, k], mkl_p=1.0, epsilon=1e-3).fit(X, y)
    assert double.mu_ == pytest.approx([0.5, 0.5])
    assert np.allclose(double.decision_function(X), single.decision_function(X), atol=1e-5)


def test_nystroem_with_every_row_as_landmark_equals_the_exact_kernel():
    X, y = make_classification(60, 4, random_state=5)
    exact = MKLPOClassifier(loss="mcc", C=2.0, kernels="dense").fit(X, y)
    approx = MKLPOClassifier(
        loss="mcc", C=2.0, kernels="dense", kernel_approx="nystrom", n_components=60
    ).fit(X, y)
    assert np.allclose(approx.tau_, exact.tau_, atol=1e-6)
    assert np.allclose(approx.decision_function(X), exact.decision_function(X), atol=1e-5)


def test_same_seed_same_model():
    X, y = make_classification(200, 5, random_state=6)
    kw = dict(loss="prbep", C=5.0, kernel_approx="nystrom", n_components=40, random_state=3)
    a, b = MKLPOClassifier(**kw).fit(X, y), MKLPOClassifier(**kw).fit(X, y)
    assert a.tau_.tolist() == b.tau_.tolist()
    assert a.decision_function(X).tolist() == b.decision_function(X).tolist()


def test_f1_model_beats_svc_f1_on_imbalanced_data():
    X, y = make_classification(
        600, 8, n_informative=4, weights=[0.9], flip_y=0.03, class_sep=0.7, random_state=7
    )
    ours, svc = [], []
    for tr, te in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        m = SVMPerfClassifier(loss="f1", C=100.0).fit(X[tr], y[tr])
        ours.append(f1_score(y[te], m.predict(X[te])))
        svc.append(f1_score(y[te], SVC(kernel="linear").fit(X[tr], y[tr]).predict(X[te])))
    assert np.mean(ours) > np.mean(svc) + 0.05


def test_comparators_fit_and_rank():
    X, y = make_classification(120, 12, n_informative=3, random_state=8)
    capo = CAPOClassifier(loss="auc", C=10.0).fit(X, y)
    assert capo.score(X, y) > 0.8 and len(capo.auxiliary_) == 3
    fspo = FSPOClassifier(loss="f1", C=10.0, budget=3, max_rounds=2).fit(X, y)
    assert 3 <= len(fspo.support_) <= 6 and np.count_nonzero(fspo.coef_) <= 6
    assert fspo.score(X, y) > 0.7


def test_the_text_bank_polynomials_are_not_a_constant_kernel():
    """On unit rows (x'x'/d + 1)^p would be ~1 everywhere: an implicit bias kernel."""
    rng = np.random.default_rng(0)
    X = np.abs(rng.normal(size=(40, 64)))
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    bank = KernelBank("text").fit(X)
    for kern in bank.kernels_[1:3]:
        K = kern(X, X)
        assert K.min() < 0.9  # far from the all-ones matrix


def test_gram_block_columns_are_kernel_products():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(5, 5))
    K = A @ A.T
    block = GramBlock(K)
    g1, g2 = rng.normal(size=5), np.array([0.0, 1.0, 0.0, -1.0, 0.0])
    assert block.add(g1) == pytest.approx([g1 @ K @ g1])
    assert block.add(g2) == pytest.approx([g1 @ K @ g2, g2 @ K @ g2])
    assert block.scores(np.array([1.0, 2.0])) == pytest.approx(K @ (g1 + 2 * g2))


def test_cutting_plane_trace_records_each_iteration():
    X, y = _data(n=40, seed=2, pos=8)
    K = X @ X.T
    res = cutting_plane([GramBlock(K)], y, "f1", C=10.0, epsilon=0.1)
    assert res.n_iter == len(res.trace) + 1  # the last iteration only tests convergence
    assert all(r["gap"] >= -1e-6 for r in res.trace)
    assert res.trace[-1]["n_constraints"] == res.G.shape[1]


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"loss": "fscore"}, "loss must be one of accuracy, f1, prbep, mcc, auc"),
        ({"C": -1.0}, "C must be > 0"),
        ({"scaling": "joachims"}, "scaling must be one of svmperf, paper"),
        ({"kernel_approx": "rff"}, "kernel_approx must be one of exact, nystrom"),
        ({"kernel": "sigmoid"}, "'sigmoid' is not positive semi-definite"),
        ({"kernel": "rbf", "kernel_approx": "nystrom", "n_components": 0}, "n_components must"),
        ({"kernel": "rbf", "kernel_approx": "nystrom", "n_components": 2.5}, "n_components must"),
    ],
)
def test_bad_parameters_get_one_clear_line(kwargs, message):
    X, y = make_classification(30, 3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises(ValueError, match=message):
        SVMPerfClassifier(**kwargs).fit(X, y)


def test_mklpo_rejects_bad_kernel_settings():
    X, y = make_classification(30, 3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises(ValueError, match="mkl_update must be one of"):
        MKLPOClassifier(mkl_update="qp").fit(X, y)
    with pytest.raises(ValueError, match="kernels must be one of dense, text, rbf, linear"):
        MKLPOClassifier(kernels="gaussian").fit(X, y)
    with pytest.raises(ValueError, match="tau_init must be 'uniform' or 10"):
        MKLPOClassifier(tau_init=[1.0, 2.0]).fit(X, y)
    with pytest.raises(ValueError, match="tau_init must be 'uniform' or 10"):
        MKLPOClassifier(tau_init=[np.inf] + [1.0] * 9).fit(X, y)
    with pytest.raises(ValueError, match=r"mkl_p must lie in \[0.1, 100.0\]"):
        MKLPOClassifier(mkl_p=0.001).fit(X, y)
    with pytest.raises(ValueError, match="final_alpha_resolve must be True or False"):
        MKLPOClassifier(final_alpha_resolve="no").fit(X, y)
    with pytest.raises(ValueError, match="needs exactly two classes"):
        MKLPOClassifier().fit(X, np.arange(30) % 3)
