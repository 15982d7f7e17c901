"""EvoSVMClassifier and PsoSVMClassifier (spec evosvm.md §1.1-1.4): the fitness against an
independent dual objective (also after incremental updates), the box, the post-hoc bias rule,
the mutation operators' probabilities, optimality on a separable problem, input errors,
determinism and scikit-learn compatibility."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from scipy import stats
from sklearn.datasets import make_blobs
from sklearn.utils.estimator_checks import check_estimator

from svmlab.estimators.evo import DualFitness, EvoSVMClassifier, PsoSVMClassifier, posthoc_bias
from svmlab.estimators.evo._operators import (
    OneFifthRule,
    gaussian_mutation,
    sparse_mutation_draws,
    tournament_select,
    tournament_size,
    uniform_crossover,
)
from svmlab.kernels import kernel_matrix, rbf
from svmlab.qp import solve_svm_dual
from svmlab.testing import essential_checks

VARIANTS = ["gaussian", "switching", "hybrid"]


def dual_W(K, y, alpha):
    """1^T alpha - 1/2 alpha^T (y y^T * K) alpha, written out independently."""
    Q = np.outer(y, y) * K
    return float(alpha.sum() - 0.5 * alpha @ Q @ alpha)


def b0_optimum(K, y, C, sweeps=5000):
    """The box-constrained dual without equality constraint, by exact coordinate ascent."""
    Q = np.outer(y, y) * K
    a, g = np.zeros(len(y)), np.zeros(len(y))
    for _ in range(sweeps):
        moved = 0.0
        for i in range(len(y)):
            new = min(C, max(0.0, a[i] + (1.0 - g[i]) / Q[i, i]))
            d = new - a[i]
            if d:
                g += d * Q[i]
                a[i] = new
                moved = max(moved, abs(d))
        if moved < 1e-12:
            break
    return a, float(a.sum() - 0.5 * a @ g)


@pytest.fixture(scope="module")
def blobs():
    X, y = make_blobs(40, centers=[[-2, 0], [2, 0]], cluster_std=0.8, random_state=0)
    return X, np.where(y == 1, "pos", "neg")


@pytest.fixture(scope="module")
def overlap():
    X, y = make_blobs(80, centers=[[-1, 0], [1, 0]], cluster_std=1.2, random_state=1)
    return X, y


@pytest.fixture(scope="module")
def problem():
    rng = np.random.RandomState(0)
    X = rng.randn(30, 3)
    y = np.where(rng.rand(30) < 0.5, 1.0, -1.0)
    return X, y


# --- the fitness ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kernel, params", [("rbf", {"gamma": 0.5}), ("epanechnikov", {"sigma1": 4.0, "degree": 2.0})]
)
def test_fitness_is_the_dual_objective(problem, kernel, params):
    X, y = problem
    K = kernel_matrix(kernel, X, **params)
    fit = DualFitness.from_kernel(K.copy(), y, C=2.0)
    A = np.random.RandomState(1).rand(7, 30) * 2.0
    F, G = fit.evaluate(A)
    np.testing.assert_allclose(F, [dual_W(K, y, a) for a in A], rtol=1e-12)
    np.testing.assert_allclose(G, A @ (np.outer(y, y) * K), rtol=1e-12)
    assert fit.objective(A[0]) == pytest.approx(dual_W(K, y, A[0]), rel=1e-12)


@pytest.mark.parametrize("hybrid", [False, True])
def test_incremental_updates_keep_fitness_exact(problem, hybrid):
    X, y = problem
    K = rbf(X, X, 0.5)
    C = 1.5
    fit = DualFitness.from_kernel(K.copy(), y, C)
    rng = np.random.RandomState(2)
    A = rng.rand(6, 30) * C
    A[:, ::3] = 0.0  # zero genes, so both directions of the mutation occur
    F, G = fit.evaluate(A)
    for _ in range(50):  # a long chain of incremental updates
        rows, genes, u = sparse_mutation_draws(6, 30, rng)
        fit.mutate_sparse(A, G, F, rows, genes, u, hybrid=hybrid)
    np.testing.assert_allclose(F, [dual_W(K, y, a) for a in A], rtol=1e-10)
    np.testing.assert_allclose(G, A @ (np.outer(y, y) * K), rtol=1e-10, atol=1e-12)
    # derived individuals (crossover children) by the sparse path equal the dense evaluation
    children, base = uniform_crossover(A, 1.0, rng)
    Fc, Gc = fit.evaluate_derived(children, base, G, A)
    np.testing.assert_allclose(Fc, [dual_W(K, y, a) for a in children], rtol=1e-10)
    near = A[base].copy()
    near[:, 0] = children[:, 0]  # one changed gene per row: the sparse path
    Fn, _ = fit.evaluate_derived(near, base, G, A)
    np.testing.assert_allclose(Fn, [dual_W(K, y, a) for a in near], rtol=1e-10)


@pytest.mark.parametrize("mutation", VARIANTS)
def test_fit_reports_the_dual_objective_of_its_alpha(overlap, mutation):
    X, y = overlap
    clf = EvoSVMClassifier(mutation=mutation, gamma=0.5, C=0.7, random_state=0).fit(X, y)
    info = clf.fit_info_
    Y = np.where(y == clf.classes_[1], 1.0, -1.0)
    K = rbf(X, X, 0.5)
    assert info["objective"] == pytest.approx(dual_W(K, Y, clf.alpha_), rel=1e-10)
    # the tracked best fitness (incremental updates over the whole run) is the same number
    assert info["history"][-1] == pytest.approx(info["objective"], rel=1e-9)
    assert len(info["history"]) == info["generations"] + 1
    assert np.all(np.diff(info["history"]) >= 0)
    assert info["eq_violation"] == pytest.approx(abs(clf.alpha_ @ Y))
    assert info["variant"] == {"gaussian": "G", "switching": "S", "hybrid": "H"}[mutation]
    assert info["evaluations"] > info["generations"] and info["seconds"] > 0
    assert info["stop_reason"] in ("patience", "max_gen")


# --- box, bias, prediction --------------------------------------------------------------------


@pytest.mark.parametrize(
    "est",
    [EvoSVMClassifier(mutation=m, C=0.3, gamma=1.0, random_state=0) for m in VARIANTS]
    + [PsoSVMClassifier(C=0.3, gamma=1.0, random_state=0)],
)
def test_box_holds(overlap, est):
    X, y = overlap
    est.fit(X, y)
    assert np.all(est.alpha_ >= 0.0) and np.all(est.alpha_ <= 0.3)
    np.testing.assert_array_equal(est.support_, np.flatnonzero(est.alpha_ > 0))
    assert est.dual_coef_.shape == (1, est.support_.size) and est.intercept_.shape == (1,)
    assert est.n_support_.sum() == est.support_.size


def test_gaussian_mutation_clips_to_the_box():
    rng = np.random.RandomState(3)
    A = rng.rand(20, 100)
    M = gaussian_mutation(A, 0.5, 1.0, rng)
    assert M.min() == 0.0 and M.max() == 1.0  # large steps hit both bounds and stay on them
    assert np.all((M >= 0) & (M <= 1))
    assert not np.shares_memory(M, A)


def test_posthoc_bias_rule_by_hand():
    s = np.array([0.5, -0.2, 1.0, 0.3, 0.1])
    y = np.array([1.0, -1.0, 1.0, -1.0, 1.0])
    r = y - s  # [0.5, -0.8, 0.0, -1.3, 0.9]
    # free support vectors (1e-8 < alpha < C - 1e-8): indices 1 and 3
    assert posthoc_bias(s, y, np.array([0.0, 0.5, 1.0, 0.2, 1.0]), 1.0, 1e-8) == pytest.approx(
        (-0.8 - 1.3) / 2
    )
    # none free: the alpha ~ 0 (indices 0 and 3; 1e-9 counts as zero at tolerance 1e-8)
    assert posthoc_bias(s, y, np.array([0.0, 1.0, 1.0, 1e-9, 1.0]), 1.0, 1e-8) == pytest.approx(
        (0.5 - 1.3) / 2
    )
    # ... but 1e-9 is a free support vector at PsoSVM's tolerance 1e-10
    assert posthoc_bias(s, y, np.array([0.0, 1.0, 1.0, 1e-9, 1.0]), 1.0, 1e-10) == pytest.approx(
        -1.3
    )
    # every alpha at C: the mean over all
    assert posthoc_bias(s, y, np.ones(5), 1.0, 1e-8) == pytest.approx(r.mean())


@pytest.mark.parametrize(
    "est",
    [
        EvoSVMClassifier(mutation="hybrid", gamma=0.5, random_state=1),
        PsoSVMClassifier(gamma=0.5, random_state=1),
    ],
)
def test_fitted_bias_and_decision_function(overlap, est):
    X, y = overlap
    est.fit(X, y)
    Y = np.where(y == est.classes_[1], 1.0, -1.0)
    a, C, tol = est.alpha_, est.C_, est._is_zero
    s = rbf(X, X, 0.5) @ (a * Y)
    free = (a > tol) & (a < C - tol)
    use = free if free.any() else a <= tol
    assert est.intercept_[0] == pytest.approx(np.mean(Y[use] - s[use]), abs=1e-12)
    Xt = np.random.RandomState(5).randn(25, 2)
    f = rbf(Xt, X, 0.5) @ (a * Y) + est.intercept_[0]
    np.testing.assert_allclose(est.decision_function(Xt), f, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(
        est.predict(Xt), np.where(f >= 0, est.classes_[1], est.classes_[0])
    )


# --- operators ------------------------------------------------------------------------------


def test_switching_and_hybrid_change_genes_with_probability_one_over_n():
    P, n, C = 400, 50, 2.0
    rng = np.random.RandomState(0)
    X = rng.randn(n, 2)
    y = np.where(np.arange(n) % 2, 1.0, -1.0)
    fit = DualFitness.from_kernel(rbf(X, X, 1.0), y, C)
    for hybrid in (False, True):
        A = rng.rand(P, n) * C
        A[:, : n // 2] = 0.0  # half the genes at 0, half positive
        before = A.copy()
        F, G = fit.evaluate(A)
        rows, genes, u = sparse_mutation_draws(P, n, rng)
        changed_rows = fit.mutate_sparse(A, G, F, rows, genes, u, hybrid=hybrid)
        changed = A != before
        k = int(changed.sum())
        # each of the P n genes changes with probability 1/n
        assert stats.binomtest(k, P * n, 1.0 / n).pvalue > 0.01
        assert abs(k / (P * n) - 1 / n) < 0.2 / n
        np.testing.assert_array_equal(changed_rows, changed.any(axis=1))
        was_pos = changed & (before > 0)
        was_zero = changed & (before == 0)
        assert was_pos.sum() > 100 and was_zero.sum() > 100  # both directions occur about equally
        assert np.all(A[was_pos] == 0.0)  # a positive gene is switched off
        if hybrid:  # a zero gene gets a uniform value in [0, C] (Fig. 3.1)
            assert stats.kstest(A[was_zero] / C, "uniform").pvalue > 0.01
        else:  # a zero gene is switched to C
            assert np.all(A[was_zero] == C)
        # the number of genes changed per individual is binomial(n, 1/n): ~ 63 % of individuals
        # change
        assert abs(changed.any(axis=1).mean() - (1 - (1 - 1 / n) ** n)) < 0.08


def test_gaussian_mutation_changes_every_gene_with_normal_steps():
    rng = np.random.RandomState(1)
    C, sigma = 1.0, 0.1
    A = np.full((200, 50), 0.5)  # far from the bounds: no clipping at 5 sigma
    M = gaussian_mutation(A, sigma, C, rng)
    assert np.all(M != A)  # probability 1 for every gene
    steps = (M - A).ravel() / sigma
    assert stats.kstest(steps, "norm").pvalue > 0.01
    assert np.std(steps) == pytest.approx(1.0, abs=0.03)


def test_tournament_and_crossover():
    assert [tournament_size(p, 0.25) for p in (2, 10, 14, 40)] == [1, 3, 4, 10]  # halves round up
    rng = np.random.RandomState(2)
    F = np.arange(40.0)
    win = tournament_select(F, 2000, 0.25, rng)
    # the winner of 10 draws with replacement from 40: P(win <= k) = ((k+1)/40)^10
    assert np.mean(win <= 29) == pytest.approx(0.75**10, abs=0.02)
    A = rng.rand(10, 200)
    children, base = uniform_crossover(A, 1.0, rng)
    assert children.shape == (10, 200) and sorted(base) == list(range(10))
    first, second = children[:5], children[5:]
    np.testing.assert_allclose(
        first + second, A[base[:5]] + A[base[5:]]
    )  # genes are exchanged, not changed
    swapped = (first == A[base[5:]]).mean()
    assert swapped == pytest.approx(0.5, abs=0.05)
    n_pairs = [len(uniform_crossover(A, 0.9, rng)[0]) // 2 for _ in range(400)]
    assert np.mean(n_pairs) / 5 == pytest.approx(0.9, abs=0.02)
    assert len(uniform_crossover(A, 0.0, rng)[0]) == 0


def test_one_fifth_rule():
    rule = OneFifthRule("thesis", n=30)
    sigma = 1.0
    for g in range(100):  # improvements in half of the generations
        sigma = rule.update(sigma, g, 0 if g % 2 else 3)
    assert sigma == 1.0 and rule.adaptations == 0
    assert rule.update(sigma, 100, 0) == 2.0  # rate 0.5 > 1/5 after 100 generations: doubled
    rule = OneFifthRule("thesis", n=30)
    for g in range(100):
        sigma = rule.update(1.0, g, 5)
    assert rule.update(1.0, 100, 5) == 0.5  # no success: halved
    rule = OneFifthRule(
        "rm2007", n=10
    )  # every n generations over the last 2n, from 2n on, factor 0.85
    s = [rule.update(1.0, g, 7) for g in range(21)]
    assert s[:20] == [1.0] * 20 and s[20] == pytest.approx(0.85)
    rule = OneFifthRule("rm2007", n=10)
    s = [
        rule.update(1.0, g, 1) for g in range(21)
    ]  # success = improved within the last 2 generations
    assert s[20] == pytest.approx(1 / 0.85)


# --- optimisation quality ---------------------------------------------------------------------


def test_reaches_95_percent_of_the_optimal_dual(blobs):
    X, labels = blobs
    y = np.where(labels == "pos", 1.0, -1.0)
    K = rbf(X, X, 0.5)
    _, W_b0 = b0_optimum(K, y, 1.0)
    W_qp = -solve_svm_dual(K, y, 1.0, tol=1e-8).objective  # with the equality constraint: <= W_b0
    assert W_qp <= W_b0 + 1e-9
    clf = EvoSVMClassifier(
        mutation="gaussian", gamma=0.5, patience=None, max_generations=1000, random_state=0
    ).fit(X, labels)
    W = clf.fit_info_["objective"]
    assert W >= 0.95 * W_b0 and W >= 0.95 * W_qp
    assert W <= W_b0 + 1e-9
    assert clf.score(X, labels) == 1.0


def test_patience_and_max_gen(overlap):
    X, y = overlap
    clf = EvoSVMClassifier(mutation="hybrid", gamma=0.5, patience=3, random_state=0).fit(X, y)
    h = clf.fit_info_["history"]
    assert clf.fit_info_["stop_reason"] == "patience"
    assert len(set(h[-5:])) == 1 and h[-5] > h[-6]  # stop after more than 3 stale generations
    clf = EvoSVMClassifier(
        mutation="hybrid", gamma=0.5, patience=None, max_generations=25, random_state=0
    ).fit(X, y)
    assert clf.fit_info_["generations"] == 25 and clf.fit_info_["stop_reason"] == "max_gen"


def test_gaussian_step_adaptation_is_reported(overlap):
    X, y = overlap
    info = (
        EvoSVMClassifier(gamma=0.5, patience=None, max_generations=201, random_state=0)
        .fit(X, y)
        .fit_info_
    )
    assert info["sigma_adaptations"] == 2  # after 100 and after 200 generations (the thesis rule)
    assert info["sigma_final"] in {0.1 * 2**k for k in range(-2, 3)}
    info = (
        EvoSVMClassifier(gamma=0.5, one_fifth="off", max_generations=50, random_state=0)
        .fit(X, y)
        .fit_info_
    )
    assert info["sigma_final"] == 0.1 and info["sigma_adaptations"] == 0


def test_indefinite_kernel(overlap):
    X, y = overlap
    K = kernel_matrix("epanechnikov", X, sigma1=2.0, degree=2.0)
    assert np.linalg.eigvalsh(K)[0] < 0
    clf = EvoSVMClassifier(
        kernel="epanechnikov",
        sigma1=2.0,
        degree=2.0,
        C="auto",
        max_generations=300,
        patience=10,
        random_state=0,
    ).fit(X, y)
    assert clf.C_ == pytest.approx(1.0)  # n / trace(K), K_ii = 1
    assert clf.fit_info_["kernel_params"] == {"sigma1": 2.0, "degree": 2.0}
    assert clf.score(X, y) > 0.75
    Y = np.where(y == clf.classes_[1], 1.0, -1.0)
    assert clf.fit_info_["objective"] == pytest.approx(dual_W(K, Y, clf.alpha_), rel=1e-10)


def test_c_auto_is_n_over_trace(overlap):
    X, y = overlap
    clf = EvoSVMClassifier(kernel="linear", C="auto", max_generations=5, random_state=0).fit(X, y)
    assert clf.C_ == pytest.approx(len(X) / (X**2).sum())
    assert np.all(clf.alpha_ <= clf.C_)
    assert PsoSVMClassifier(C="auto", max_generations=5, random_state=0).fit(
        X, y
    ).C_ == pytest.approx(1.0)


def test_pso(overlap):
    X, y = overlap
    for r_dist in ("uniform", "rm_gauss1"):
        clf = PsoSVMClassifier(gamma=0.5, r_dist=r_dist, random_state=0).fit(X, y)
        info = clf.fit_info_
        h = info["history"]
        assert h[-1] > h[0] and np.all(np.diff(h) >= 0)
        assert info["evaluations"] == 10 * (info["generations"] + 1)
        assert info["inertia_final"] == pytest.approx(0.1 - info["generations"] * 0.1 / 500)
        assert clf.score(X, y) > 0.75
    pso = PsoSVMClassifier(
        gamma=0.5, patience=None, max_generations=40, dynamic_inertia=False, random_state=0
    )
    info = pso.fit(X, y).fit_info_
    assert info["generations"] == 40 and info["inertia_final"] == 0.1


# --- input errors -------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", [EvoSVMClassifier, PsoSVMClassifier])
@pytest.mark.parametrize(
    "params, y, message",
    [
        (
            {"C": 0.0},
            None,
            r"'C' parameter .* must be a float in the range \(0.0, inf\) or a str among \{'auto'\}",
        ),
        ({"C": -1.0}, None, r"'C' parameter"),
        ({"C": "heuristic"}, None, r"'C' parameter"),
        ({"population_size": 1}, None, r"'population_size' parameter .* in the range \[2, inf\)"),
        ({"kernel": "gauss"}, None, r"'kernel' parameter .* among .*'epanechnikov'"),
        (
            {"kernel": "rbf", "sigma1": 1.0},
            None,
            r"sigma1=1.0 is not a parameter of the rbf kernel .* parameters: gamma",
        ),
        ({"kernel": "polynomial", "degree": 1.5}, None, r"degree must be an integer"),
        (
            {"kernel": "gaussian_combination", "C": "auto"},
            None,
            r"C='auto' is n / trace\(K\).* set C",
        ),
        (
            {},
            [0, 1, 2] * 4,
            r"Only binary classification is supported. .* exactly 2 classes in y, got 3 classes",
        ),
        ({}, [1] * 12, r"got 1 class"),
        ({}, [0.5, 1.5] * 6, r"Unknown label type"),
    ],
)
def test_bad_input(cls, params, y, message):
    X = np.random.RandomState(0).randn(12, 2)
    y = [0, 1] * 6 if y is None else y
    with pytest.raises(ValueError, match=message):
        cls(max_generations=3, **params).fit(X, y)


# --- determinism, sparse input, configs ---------------------------------------------------------


@pytest.mark.parametrize(
    "est",
    [EvoSVMClassifier(mutation=m, gamma=0.5) for m in VARIANTS] + [PsoSVMClassifier(gamma=0.5)],
)
def test_same_seed_same_model(overlap, est):
    X, y = overlap
    a = est.set_params(random_state=7).fit(X, y).alpha_.copy()
    b = pickle.loads(pickle.dumps(est)).set_params(random_state=7).fit(X, y).alpha_
    np.testing.assert_array_equal(a, b)
    c = est.set_params(random_state=np.random.RandomState(7)).fit(X, y).alpha_
    np.testing.assert_array_equal(a, c)
    assert not np.array_equal(a, est.set_params(random_state=8).fit(X, y).alpha_)


def test_sparse_input_gives_the_dense_model(overlap):
    X, y = overlap
    dense = EvoSVMClassifier(mutation="hybrid", gamma=0.5, random_state=0).fit(X, y)
    sparse = EvoSVMClassifier(mutation="hybrid", gamma=0.5, random_state=0).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.alpha_, dense.alpha_, rtol=1e-12)
    f_sparse = sparse.decision_function(sp.csr_matrix(X))
    np.testing.assert_allclose(f_sparse, dense.decision_function(X), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name, cls", [("evosvm", EvoSVMClassifier), ("psosvm", PsoSVMClassifier)])
def test_solver_config_is_valid(name, cls):
    import yaml

    from svmlab.solvers import SolverSpec

    path = Path(__file__).resolve().parents[2] / "conf" / "solver" / f"{name}.yaml"
    spec = SolverSpec.from_config(yaml.safe_load(path.read_text()))
    spec.validate()
    est = spec.build(random_state=0)
    assert isinstance(est, cls) and spec.tasks == ("binary",) and est.random_state == 0
    defaults = cls().get_params()
    assert {k: v for k, v in est.get_params().items() if k != "random_state"} == {
        k: v for k, v in defaults.items() if k != "random_state"
    }  # the config spells out the thesis defaults


# --- scikit-learn compatibility -------------------------------------------------------------------


@pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)
@pytest.mark.parametrize(
    "est",
    [
        EvoSVMClassifier(max_generations=50),
        EvoSVMClassifier(mutation="hybrid", max_generations=50),
        PsoSVMClassifier(max_generations=50),
    ],
    ids=["G", "H", "PSO"],
)
def test_sklearn_essentials(check, est):
    check(type(est).__name__, est)


# EvoSVM-G and PSO as configured (evosvm.yaml, psosvm.yaml) get every check in
# tests/test_conformance.py; here the variant no solver file names
@pytest.mark.slow
@pytest.mark.parametrize("est", [EvoSVMClassifier(mutation="switching")], ids=["S"])
def test_check_estimator(est):
    results = check_estimator(est, on_fail=None)
    assert not [r["check_name"] for r in results if r["status"] == "failed"]
