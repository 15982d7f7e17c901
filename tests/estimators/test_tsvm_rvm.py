"""Transductive SVMs (spec evosvm.md §1.8-1.9) and the RVM comparator (§1.7): the three
``y_mode`` readings on a tiny two-cluster problem, objective (I) against an independent
computation, the decision function over labeled and unlabeled rows, MO-T-SVM's front,
clustering from the front, the sparse and accurate RVM, input errors, determinism, configs."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.datasets import make_blobs
from sklearn.svm import SVC

from svmlab.estimators.evo import (
    EvoTSVMClassifier,
    MOTSVMClassifier,
    RVMClassifier,
    pareto_clustering,
    pareto_edges,
    sparse_bayesian_regression,
    tsvm_objective,
)
from svmlab.kernels import kernel_matrix
from svmlab.testing import essential_checks

GAMMA = 0.5
M = 5  # points per cluster


def gaussian_kernel(A, B, gamma):
    diff = A[:, None, :] - B[None, :, :]
    return np.exp(-gamma * (diff**2).sum(axis=2))


def dual_I(K, Yj, a):
    """sum a - 1/2 sum_ij a_i a_j Y_i Y_j K_ij, written out."""
    return float(
        a.sum()
        - 0.5
        * sum(a[i] * a[j] * Yj[i] * Yj[j] * K[i, j] for i in range(len(a)) for j in range(len(a)))
    )


@pytest.fixture(scope="module")
def clusters():
    """Two tight clusters far apart (upper: class 1, lower: class 0), one labeled point each."""
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(M, 2) * 0.5 + [0, 2], rng.randn(M, 2) * 0.5 - [0, 2]])
    truth = np.repeat([1, 0], M)
    y = np.full(2 * M, -1)
    y[0], y[M] = 1, 0
    return X, y, truth


def joint(clf, y, truth=None):
    """Rows ordered labeled first, and the solution's joint labels (y, y*) in +-1."""
    lab = np.flatnonzero(y != -1)
    order = np.concatenate([lab, clf.unlabeled_indices_])
    Yl = np.where(y[lab] == clf.classes_[1], 1.0, -1.0)
    ys = np.where(clf.unlabeled_labels_ == clf.classes_[1], 1.0, -1.0)
    return order, np.concatenate([Yl, ys])


# --- Evo-T-SVM: the three modes -------------------------------------------------------------------


@pytest.mark.parametrize("mode", ["self_label", "minmax"])
@pytest.mark.parametrize("seed", [0, 1])
def test_sound_modes_label_by_cluster(clusters, mode, seed):
    X, y, truth = clusters
    clf = EvoTSVMClassifier(gamma=GAMMA, y_mode=mode, random_state=seed).fit(X, y)
    u = clf.unlabeled_indices_
    np.testing.assert_array_equal(u, np.flatnonzero(y == -1))
    np.testing.assert_array_equal(clf.unlabeled_labels_, truth[u])  # y* follows the clusters
    np.testing.assert_array_equal(clf.transduction_, truth)  # and so do the predictions
    assert clf.fit_info_["unlabeled_agreement"] == 1.0
    Xt = np.array([[0.3, 2.5], [-0.2, -1.7]])
    np.testing.assert_array_equal(clf.predict(Xt), [1, 0])


def test_literal_mode_is_adversarial(clusters):
    """Maximising (I) over y* (the thesis as written, A14) prefers labels against the clusters."""
    X, y, truth = clusters
    K = gaussian_kernel(X, X, GAMMA)
    for seed in range(3):
        clf = EvoTSVMClassifier(gamma=GAMMA, y_mode="literal", random_state=seed).fit(X, y)
        order, Yj = joint(clf, y)
        a, Ko = clf.alpha_[order], K[np.ix_(order, order)]
        Y_cluster = np.concatenate(
            [Yj[:2], np.where(truth[clf.unlabeled_indices_] == 1, 1.0, -1.0)]
        )
        assert (
            dual_I(Ko, Yj, a) > dual_I(Ko, Y_cluster, a) + 1.0
        )  # its labelling beats the cluster one
        assert np.mean(clf.unlabeled_labels_ == truth[clf.unlabeled_indices_]) < 0.75


def test_minmax_is_the_exact_min_over_labellings(clusters):
    """minmax = min over all 2^n* labellings of the box-constrained maximum of (I), checked
    with an independent solver (L-BFGS-B on the box)."""
    X, y, truth = clusters
    rows = [0, 1, 2, M, M + 1, M + 2]  # three points per cluster: 2^4 labellings
    X, y = X[rows], y[rows]
    n_u = 4
    clf = EvoTSVMClassifier(gamma=GAMMA, y_mode="minmax", C=1.0, C_u=0.5).fit(X, y)
    order, Yj = joint(clf, y)
    K = gaussian_kernel(X, X, GAMMA)[np.ix_(order, order)]
    ub = np.array([1.0, 1.0] + [0.5] * n_u)

    def inner_max(Y):
        Q = np.outer(Y, Y) * K
        r = minimize(
            lambda a: 0.5 * a @ Q @ a - a.sum(),
            np.zeros(len(Y)),
            jac=lambda a: Q @ a - 1.0,
            bounds=list(zip(np.zeros(len(Y)), ub)),
            method="L-BFGS-B",
            options={"ftol": 1e-14, "gtol": 1e-11},
        )
        return -r.fun

    values = {
        bits: inner_max(np.concatenate([Yj[:2], bits]))
        for bits in itertools.product((-1.0, 1.0), repeat=n_u)
    }
    best = min(values, key=values.get)
    np.testing.assert_array_equal(Yj[2:], best)
    np.testing.assert_array_equal(clf.unlabeled_labels_, [1, 1, 0, 0])  # the clusters
    assert clf.fit_info_["objective"] == pytest.approx(values[best], rel=1e-6)
    assert clf.fit_info_["stop_reason"] == "exhaustive" and clf.fit_info_["evaluations"] == 2**n_u
    a = clf.alpha_[order]
    assert np.all(a >= 0) and np.all(a <= ub + 1e-12)


def test_minmax_search_above_the_exhaustive_limit(clusters):
    X, y, truth = clusters
    clf = EvoTSVMClassifier(
        gamma=GAMMA, y_mode="minmax", minmax_exhaustive=3, max_generations=30, random_state=0
    ).fit(X, y)
    assert clf.fit_info_["stop_reason"] in ("patience", "max_gen")
    assert clf.fit_info_["evaluations"] < 2 ** (2 * M - 2)
    np.testing.assert_array_equal(clf.transduction_, truth)
    assert np.all(np.diff(clf.fit_info_["history"]) <= 0)  # the best inner maximum only decreases


@pytest.mark.parametrize("mode", ["self_label", "literal"])
def test_objective_box_and_decision_function(clusters, mode):
    X, y, _ = clusters
    C, C_u = 0.8, 0.3
    clf = EvoTSVMClassifier(gamma=GAMMA, C=C, C_u=C_u, y_mode=mode, random_state=2).fit(X, y)
    order, Yj = joint(clf, y)
    K = gaussian_kernel(X, X, GAMMA)
    a = clf.alpha_[order]
    Ko = K[np.ix_(order, order)]
    assert clf.fit_info_["objective"] == pytest.approx(dual_I(Ko, Yj, a), rel=1e-10)
    assert clf.fit_info_["objective"] == pytest.approx(tsvm_objective(Ko, Yj, a)[0], rel=1e-12)
    assert clf.fit_info_["history"][-1] == pytest.approx(clf.fit_info_["objective"], rel=1e-9)
    lab = y != -1
    assert (
        np.all(clf.alpha_ >= 0) and np.all(clf.alpha_[lab] <= C) and np.all(clf.alpha_[~lab] <= C_u)
    )
    # f(x) = sum_i alpha_i y_i K(x, x_i) + sum_k alpha*_k y*_k K(x, x*_k) + b, b by mySVM's rule
    s = Ko @ (a * Yj)
    ub = np.where(np.arange(len(a)) < lab.sum(), C, C_u)
    free = (a > 1e-8) & (a < ub - 1e-8)
    use = free if free.any() else a <= 1e-8
    b = np.mean(Yj[use] - s[use])
    assert clf.intercept_[0] == pytest.approx(b, abs=1e-10)
    Xt = np.random.RandomState(3).randn(7, 2) * 2
    f = gaussian_kernel(Xt, X[order], GAMMA) @ (a * Yj) + b
    np.testing.assert_allclose(clf.decision_function(Xt), f, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(Xt), np.where(f >= 0, 1, 0))
    json.dumps(clf.fit_info_)


def test_string_labels_and_object_y(clusters):
    X, y, truth = clusters
    ys = np.array([{1: "up", 0: "down", -1: -1}[v] for v in y], dtype=object)
    clf = EvoTSVMClassifier(gamma=GAMMA, random_state=0).fit(X, ys)
    assert clf.classes_.tolist() == ["down", "up"]
    np.testing.assert_array_equal(clf.transduction_, np.where(truth == 1, "up", "down"))


def test_same_seed_same_model(clusters):
    X, y, _ = clusters
    for mode in ("self_label", "literal"):
        a = EvoTSVMClassifier(gamma=GAMMA, y_mode=mode, random_state=4).fit(X, y)
        b = EvoTSVMClassifier(gamma=GAMMA, y_mode=mode, random_state=4).fit(X, y)
        np.testing.assert_array_equal(a.alpha_, b.alpha_)
        np.testing.assert_array_equal(a.unlabeled_labels_, b.unlabeled_labels_)
    m1 = MOTSVMClassifier(gamma=GAMMA, population_size=12, max_generations=40, random_state=4).fit(
        X, y
    )
    m2 = MOTSVMClassifier(gamma=GAMMA, population_size=12, max_generations=40, random_state=4).fit(
        X, y
    )
    np.testing.assert_array_equal(m1.pareto_alpha_, m2.pareto_alpha_)


# --- MO-T-SVM
# -------------------------------------------------------------------------------------------


@pytest.fixture(
    scope="module",
    params=[("self_label", "rm"), ("literal", "rm"), ("self_label", "pymoo")],
    ids=["self_label-rm", "literal-rm", "self_label-pymoo"],
)
def mo_fitted(request, clusters):
    X, y, _ = clusters
    mode, engine = request.param
    return MOTSVMClassifier(
        gamma=GAMMA,
        y_mode=mode,
        engine=engine,
        population_size=30,
        max_generations=300,
        random_state=0,
    ).fit(X, y)


def test_mo_front_objectives_and_members(mo_fitted, clusters):
    X, y, truth = clusters
    clf = mo_fitted
    F = clf.pareto_front_
    assert F.shape[1] == 3 and len(F) >= 5
    ge = (F[None] >= F[:, None]).all(axis=2)
    gt = (F[None] > F[:, None]).any(axis=2)
    assert not (ge & gt).any()  # non-dominated
    assert np.all(np.diff(F[:, 0]) <= 0)  # ordered by (I)
    lab = np.flatnonzero(y != -1)
    order = np.concatenate([lab, clf.unlabeled_indices_])
    Yl = np.where(y[lab] == 1, 1.0, -1.0)
    K = gaussian_kernel(X, X, GAMMA)[np.ix_(order, order)]
    assert clf.pareto_alpha_.min() >= 0 and clf.pareto_alpha_.max() <= 1000.0
    for i in range(len(F)):
        a = clf.pareto_alpha_[i][order]
        Yj = np.concatenate([Yl, clf.pareto_unlabeled_labels_[i].astype(float)])
        assert F[i, 0] == pytest.approx(dual_I(K, Yj, a), rel=1e-9, abs=1e-9)
        assert F[i, 1] == pytest.approx(a[:2].sum()) and F[i, 2] == pytest.approx(a[2:].sum())
        m = clf.member(i)
        f = gaussian_kernel(X[:3], X[order], GAMMA) @ (a * Yj) + clf.pareto_intercept_[i]
        np.testing.assert_allclose(m.decision_function(X[:3]), f, rtol=1e-9, atol=1e-9)
        assert m.transduction_.shape == (len(X),)
    s = clf.selected_
    assert clf.pareto_train_error_[s] == clf.pareto_train_error_.min()
    assert json.loads(json.dumps(clf.fit_info_))["front_size"] == len(F)


def test_mo_self_label_front_contains_the_cluster_labelling(clusters):
    X, y, truth = clusters
    clf = MOTSVMClassifier(
        gamma=GAMMA, population_size=30, max_generations=300, random_state=0
    ).fit(X, y)
    assert (
        max(np.mean(clf.member(i).transduction_ == truth) for i in range(len(clf.pareto_front_)))
        == 1.0
    )


def test_pareto_edges_by_hand():
    F = np.array(
        [[3.0, 0.0, 0.0], [0.0, 3.0, 0.0], [0.0, 0.0, 3.0], [1.0, 1.0, 1.0], [2.0, 2.0, -1.0]]
    )
    edges = pareto_edges(F)
    assert edges[(0, 1)].tolist() == [0, 1, 4]
    assert edges[(0, 2)].tolist() == [0, 2, 3]
    assert edges[(1, 2)].tolist() == [1, 2, 3]


def test_clustering_from_the_pareto_front():
    """No labels at all: the margin / unlabeled-error edge of MO-T-SVM's front clusters
    two blobs (linear kernel, b = 0: a hyperplane through the origin between them)."""
    rng = np.random.RandomState(0)
    X = np.vstack([rng.randn(12, 2) * 0.5 + [0, 2], rng.randn(12, 2) * 0.5 - [0, 2]])
    truth = np.repeat([1, 0], 12)
    res = pareto_clustering(
        X,
        kernel="linear",
        population_size=30,
        max_generations=400,
        random_state=0,
        min_cluster_size=4,
    )
    assert res.estimator.classes_.tolist() == [0, 1] and res.estimator.fit_info_["n_labeled"] == 0
    assert res.labels.shape == (len(res.members), len(X)) and res.chosen is not None
    labels = res.labels[res.chosen]
    assert max(np.mean(labels == truth), np.mean(labels != truth)) == 1.0
    assert res.agreement[res.chosen] == 1.0
    assert np.all(np.diff(res.objectives[:, 1]) >= 0)  # ordered by (III)


# --- input errors
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [EvoTSVMClassifier, MOTSVMClassifier])
@pytest.mark.parametrize(
    "params, y, message",
    [
        ({"population_size": 1}, None, r"'population_size' parameter .* in the range \[2, inf\)"),
        ({"kernel": "gauss"}, None, r"'kernel' parameter .* among"),
        ({}, [0, 1] * 6, r"transductive: it needs unlabeled rows, marked y = -1"),
        ({}, [0, 1, 2, -1] * 3, r"Only binary classification is supported. .* got 3 classes"),
        ({}, [0.5, 1.5, -1, -1] * 3, r"Unknown label type"),
        ({}, [1, -1, -1, -1] * 3, r"got 1 class"),
        ({}, [0, 1, np.nan, -1] * 3, r"NaN"),
    ],
)
def test_bad_input(cls, params, y, message):
    X = np.random.RandomState(0).randn(12, 2)
    y = [0, 1, -1, -1] * 3 if y is None else y
    with pytest.raises(ValueError, match=message):
        cls(max_generations=2, **params).fit(X, np.asarray(y))


@pytest.mark.parametrize(
    "params, message",
    [
        ({"C": 0.0}, r"'C' parameter .* range \(0.0, inf\)"),
        ({"C": -1.0}, r"'C' parameter"),
        ({"C_u": 0.0}, r"'C_u' parameter"),
        ({"y_mode": "max"}, r"'y_mode' parameter"),
    ],
)
def test_bad_evo_tsvm_parameters(params, message):
    X = np.random.RandomState(0).randn(12, 2)
    with pytest.raises(ValueError, match=message):
        EvoTSVMClassifier(max_generations=2, **params).fit(X, np.array([0, 1, -1, -1] * 3))


def test_bad_mo_tsvm_parameters():
    X = np.random.RandomState(0).randn(12, 2)
    y = np.array([0, 1, -1, -1] * 3)
    with pytest.raises(ValueError, match=r"'y_mode' parameter .* among .*'literal'"):
        MOTSVMClassifier(y_mode="minmax").fit(X, y)  # no multi-objective counterpart
    with pytest.raises(ValueError, match=r"'alpha_max' parameter"):
        MOTSVMClassifier(alpha_max=0.0).fit(X, y)
    with pytest.raises(ValueError, match=r"every row of y is -1"):
        EvoTSVMClassifier().fit(X, np.full(12, -1))  # clustering only for MO-T-SVM


# --- RVM
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def separable():
    X, y = make_blobs(120, centers=[[-3, 0], [3, 0]], cluster_std=1.0, random_state=0)
    return X, np.where(y == 1, "pos", "neg")


def test_rvm_sparse_and_accurate(separable):
    X, y = separable
    clf = RVMClassifier(gamma=0.01).fit(X, y)
    assert clf.fit_info_["converged"]
    assert clf.score(X, y) == 1.0
    Xt, yt = make_blobs(200, centers=[[-3, 0], [3, 0]], cluster_std=1.0, random_state=1)
    assert clf.score(Xt, np.where(yt == 1, "pos", "neg")) >= 0.98
    assert 1 <= len(clf.relevance_) <= 10  # few relevance vectors out of 120 points ...
    assert (
        len(clf.relevance_) < SVC(gamma=0.01).fit(X, y).n_support_.sum()
    )  # ... fewer than SVC's SVs
    assert clf.fit_info_["n_relevance"] == len(clf.relevance_) == len(clf.coef_) == len(clf.alpha_)
    np.testing.assert_array_equal(clf.relevance_vectors_, X[clf.relevance_])
    f = gaussian_kernel(Xt, X[clf.relevance_], 0.01) @ clf.coef_ + clf.intercept_
    np.testing.assert_allclose(clf.decision_function(Xt), f, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(Xt), np.where(f >= 0, "pos", "neg"))
    # the fitted function regresses the +-1 targets
    Y = np.where(y == "pos", 1.0, -1.0)
    assert np.mean((clf.decision_function(X) - Y) ** 2) < 0.1
    json.dumps(clf.fit_info_)


def test_rvm_with_an_indefinite_kernel():
    X, y = make_blobs(80, centers=[[-1, 0], [1, 0]], cluster_std=0.8, random_state=2)
    K = kernel_matrix("epanechnikov", X, sigma1=2.0, degree=2.0)
    assert np.linalg.eigvalsh(K)[0] < 0  # not positive semi-definite
    clf = RVMClassifier(kernel="epanechnikov", sigma1=2.0, degree=2.0).fit(X, y)
    assert clf.score(X, y) > 0.85 and len(clf.relevance_) < len(X) / 2


def test_sparse_bayesian_regression_finds_the_true_basis():
    rng = np.random.RandomState(0)
    Phi = rng.randn(100, 30)
    w = np.zeros(30)
    w[[3, 11, 20]] = [2.0, -1.5, 1.0]
    t = Phi @ w + 0.05 * rng.randn(100)
    res = sparse_bayesian_regression(Phi, t)
    act = res["active"]
    assert res["converged"] and {3, 11, 20} <= set(act.tolist()) and len(act) <= 12  # of 30 columns
    np.testing.assert_allclose(res["mu"], w[act], atol=0.03)  # the others keep tiny weights
    assert 1 / res["beta"] == pytest.approx(0.05**2, rel=0.5)
    # re-estimation fixed point: alpha_i = gamma_i / mu_i^2
    gamma = 1 - res["alpha"] * np.diag(res["Sigma"])
    np.testing.assert_allclose(res["alpha"], gamma / res["mu"] ** 2, rtol=0.01)


@pytest.mark.parametrize(
    "params, y, message",
    [
        ({"kernel": "gauss"}, None, r"'kernel' parameter"),
        ({"tol": 0.0}, None, r"'tol' parameter"),
        ({"max_iter": 0}, None, r"'max_iter' parameter"),
        ({"kernel": "rbf", "degree": 2}, None, r"degree=2 is not a parameter of the rbf kernel"),
        ({}, [0, 1, 2] * 4, r"Only binary classification is supported"),
        ({}, [0.5, 1.5] * 6, r"Unknown label type"),
    ],
)
def test_rvm_bad_input(params, y, message):
    X = np.random.RandomState(0).randn(12, 2)
    y = [0, 1] * 6 if y is None else y
    with pytest.raises(ValueError, match=message):
        RVMClassifier(**params).fit(X, y)


@pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)
def test_rvm_sklearn_essentials(check):
    check("RVMClassifier", RVMClassifier(max_iter=50))


# --- configs
# ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, cls",
    [("tsvm_evo", EvoTSVMClassifier), ("tsvm_mo", MOTSVMClassifier), ("rvm", RVMClassifier)],
)
def test_solver_config_is_valid(name, cls):
    import yaml

    from svmlab.solvers import SolverSpec

    path = Path(__file__).resolve().parents[2] / "conf" / "solver" / f"{name}.yaml"
    spec = SolverSpec.from_config(yaml.safe_load(path.read_text()))
    spec.validate()
    est = spec.build(random_state=0)
    assert isinstance(est, cls) and spec.tasks == ("binary",)
    defaults = cls().get_params()
    assert {k: v for k, v in est.get_params().items() if k != "random_state"} == {
        k: v for k, v in defaults.items() if k != "random_state"
    }
