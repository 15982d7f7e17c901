"""MOEvoSVMClassifier (spec evosvm.md §1.5): NSGA-II's front is non-dominated, its objective
values equal an independent computation, the box holds, every member is a working classifier,
the hold-out rule picks the member the thesis names, determinism, both engines, the NSGA-II
building blocks, input errors and scikit-learn compatibility."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from svmlab.estimators.evo import DualFitness, MOEvoSVMClassifier, mo_objectives
from svmlab.estimators.evo.moevosvm import _InductiveProblem, holdout_choice
from svmlab.nsga2 import crowding_distance, non_dominated, nsga2_survival
from svmlab.testing import essential_checks

GAMMA = 0.5
FAST = dict(gamma=GAMMA, population_size=20, max_generations=120)


def gaussian_kernel(A, B, gamma):
    """exp(-gamma ||a - b||^2) by explicit differences (independent of svmlab.kernels)."""
    diff = A[:, None, :] - B[None, :, :]
    return np.exp(-gamma * (diff**2).sum(axis=2))


def dominated_by_any(F):
    """For each row: is some other row >= everywhere and > somewhere (maximisation)?"""
    ge = (F[None, :, :] >= F[:, None, :]).all(axis=2)  # ge[i, j]: row j >= row i everywhere
    gt = (F[None, :, :] > F[:, None, :]).any(axis=2)
    return (ge & gt).any(axis=1)


def posthoc_b(s, y, a, U, tol=1e-8):
    free = (a > tol) & (a < U - tol)
    use = free if free.any() else a <= tol
    if not use.any():
        use = np.ones_like(free)
    return float(np.mean(y[use] - s[use]))


@pytest.fixture(scope="module")
def data():
    X, y = make_blobs(70, centers=[[-1, 0], [1, 0]], cluster_std=1.1, random_state=3)
    return X, np.where(y == 1, "b", "a")


@pytest.fixture(scope="module", params=["rm", "pymoo"])
def fitted(request, data):
    X, y = data
    return MOEvoSVMClassifier(engine=request.param, random_state=0, **FAST).fit(X, y)


# --- the front ---------------------------------------------------------------------------------


def test_front_is_non_dominated(fitted):
    F = fitted.pareto_front_
    assert F.shape == (fitted.fit_info_["front_size"], 3) and len(F) >= 5
    assert not dominated_by_any(F).any()
    assert len(np.unique(fitted.pareto_alpha_, axis=0)) == len(F)  # distinct members


def test_objectives_equal_independent_computation(fitted, data):
    X, y = data
    Xf = X[fitted.fit_indices_]
    Y = np.where(y[fitted.fit_indices_] == fitted.classes_[1], 1.0, -1.0)
    K = gaussian_kernel(Xf, Xf, GAMMA)
    for a, f in zip(fitted.pareto_alpha_, fitted.pareto_front_):
        margin = -sum(
            Y[i] * Y[j] * a[i] * a[j] * K[i, j]
            for i in np.flatnonzero(a)
            for j in np.flatnonzero(a)
        )
        assert f[0] == pytest.approx(margin, rel=1e-9, abs=1e-9)
        assert f[1] == pytest.approx(a.sum(), rel=1e-12)
        assert f[2] == pytest.approx(-abs(a @ Y), rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(
        mo_objectives(K, Y, fitted.pareto_alpha_), fitted.pareto_front_, rtol=1e-9, atol=1e-9
    )


def test_box_and_zero_start(fitted):
    A = fitted.pareto_alpha_
    assert A.min() >= 0.0 and A.max() <= 1000.0
    assert A.max() > 1.0  # the box, not C = 1, is the bound
    assert (A == 0).any(axis=1).all()  # zero start, hybrid mutation: no member is dense
    small = MOEvoSVMClassifier(alpha_max=3.0, random_state=0, **FAST).fit(*_blobs())
    assert small.pareto_alpha_.max() <= 3.0 and small.C_ == 3.0


def _blobs():
    X, y = make_blobs(40, centers=[[-1, 0], [1, 0]], cluster_std=1.0, random_state=0)
    return X, y


def test_large_margin_end_is_the_default_classifier(data):
    X, y = data
    clf = MOEvoSVMClassifier(random_state=0, **FAST).fit(X, y)
    zero = np.flatnonzero(~clf.pareto_alpha_.any(axis=1))
    assert len(zero) == 1  # alpha = 0 maximises (I): always on the front
    i = int(zero[0])
    assert clf.pareto_front_[i].tolist() == [0.0, 0.0, 0.0]
    majority = clf.classes_[int(np.mean(y[clf.fit_indices_] == clf.classes_[1]) >= 0.5)]
    assert set(clf.predict(X, member=i)) == {majority}  # only the bias decides
    assert clf.pareto_train_error_[i] == max(clf.pareto_train_error_)


# --- members as classifiers
# -------------------------------------------------------------------------


def test_every_member_predicts(fitted, data):
    X, y = data
    Xf = X[fitted.fit_indices_]
    Y = np.where(y[fitted.fit_indices_] == fitted.classes_[1], 1.0, -1.0)
    Xt = np.random.RandomState(1).randn(15, 2)
    Kt = gaussian_kernel(Xt, Xf, GAMMA)
    Kf = gaussian_kernel(Xf, Xf, GAMMA)
    all_f = fitted.pareto_decision_function(Xt)
    for i, a in enumerate(fitted.pareto_alpha_):
        b = posthoc_b(Kf @ (a * Y), Y, a, 1000.0)
        assert fitted.pareto_intercept_[i] == pytest.approx(b, abs=1e-9)
        f = Kt @ (a * Y) + b
        np.testing.assert_allclose(fitted.decision_function(Xt, member=i), f, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(all_f[:, i], f, rtol=1e-9, atol=1e-9)
        expected = np.where(f >= 0, fitted.classes_[1], fitted.classes_[0])
        np.testing.assert_array_equal(fitted.predict(Xt, member=i), expected)
        m = fitted.member(i)
        assert m.selected_ == i and m is not fitted
        np.testing.assert_array_equal(m.predict(Xt), expected)
        np.testing.assert_array_equal(m.alpha_, a)
        # training / hold-out errors as stored
        train = np.where(Kf @ (a * Y) + b >= 0, 1.0, -1.0)
        assert fitted.pareto_train_error_[i] == pytest.approx(np.mean(train != Y))
        Xh, yh = X[fitted.holdout_indices_], y[fitted.holdout_indices_]
        assert fitted.pareto_holdout_error_[i] == pytest.approx(
            np.mean(fitted.predict(Xh, member=i) != yh)
        )
    # the default member is the selected one, and the selected copy's attributes agree
    np.testing.assert_array_equal(fitted.predict(Xt), fitted.predict(Xt, member=fitted.selected_))
    np.testing.assert_array_equal(fitted.support_, fitted.fit_indices_[fitted.alpha_ > 0])
    assert fitted.dual_coef_.shape == (1, fitted.support_.size)
    with pytest.raises(IndexError, match="member must be an integer"):
        fitted.predict(Xt, member=len(fitted.pareto_front_))


def test_split_and_fit_info(fitted, data):
    X, _ = data
    assert len(fitted.holdout_indices_) == round(0.2 * len(X))
    assert sorted(np.concatenate([fitted.fit_indices_, fitted.holdout_indices_]).tolist()) == list(
        range(len(X))
    )
    info = json.loads(json.dumps(fitted.fit_info_))  # JSON-serialisable
    assert info["front_size"] == len(info["front"]) == len(fitted.pareto_front_)
    assert [m["selected"] for m in info["front"]].index(True) == fitted.selected_
    assert info["holdout_error"] == fitted.pareto_holdout_error_[fitted.selected_]
    assert info["evaluations"] > info["generations"] * fitted.population_size * 0.9
    assert info["objective_names"] == ["margin", "alpha_sum", "balance"]


# --- choosing one member -------------------------------------------------------------------------


def test_holdout_rule_on_a_constructed_front():
    #            member:  0     1     2     3     4     5
    train = np.array([0.10, 0.40, 0.25, 0.25, 0.05, 0.40])
    hold = np.array([0.20, 0.45, 0.20, 0.25, 0.30, 0.45])
    asum = np.array([50.0, 1.0, 20.0, 10.0, 80.0, 0.0])
    order, chosen = holdout_choice(train, hold, asum)
    # ordered by training error descending, ties by sum(alpha) ascending: 5, 1, 3, 2, 0, 4
    assert order.tolist() == [5, 1, 3, 2, 0, 4]
    # the minimal hold-out error 0.20 is reached by members 2 and 0; the rule takes the one
    # with the larger training error (the simpler model): member 2
    assert chosen == 2
    # a strictly better hold-out error wins regardless of its position
    hold[4] = 0.1
    assert holdout_choice(train, hold, asum)[1] == 4
    # all equal: the simplest member (largest training error, smallest sum alpha)
    assert holdout_choice(train, np.zeros(6), asum)[1] == 5


def test_fitted_selection_follows_the_rule(fitted):
    tr, ho = fitted.pareto_train_error_, fitted.pareto_holdout_error_
    assert np.all(np.diff(tr) <= 0)  # stored in the rule's order: training error descending
    s = fitted.selected_
    assert ho[s] == ho.min()
    assert not np.any(ho[:s] == ho.min())  # the first in order with the minimal hold-out error


def test_max_dual_selection(data):
    X, y = data
    clf = MOEvoSVMClassifier(selection="max_dual", random_state=0, **FAST).fit(X, y)
    assert len(clf.holdout_indices_) == 0 and clf.pareto_holdout_error_ is None
    F = clf.pareto_front_
    dual = F[:, 1] + 0.5 * F[:, 0]  # sum(alpha) - 1/2 alpha^T Q alpha
    assert clf.selected_ == int(np.argmax(dual))
    assert clf.fit_info_["holdout_error"] is None


def test_two_objectives(data):
    X, y = data
    clf = MOEvoSVMClassifier(use_balance_objective=False, random_state=0, **FAST).fit(X, y)
    assert clf.pareto_front_.shape[1] == 2
    assert not dominated_by_any(clf.pareto_front_).any()
    # with two objectives the front is a monotone trade-off: more alpha, less margin
    F = clf.pareto_front_[np.argsort(clf.pareto_front_[:, 1])]
    assert np.all(np.diff(F[:, 0]) < 0)


# --- NSGA-II building blocks
# -----------------------------------------------------------------------


def test_crowding_distance_by_hand():
    F = np.array([[0.0, 10.0], [1.0, 6.0], [3.0, 5.0], [4.0, 0.0]])
    raw = crowding_distance(F, normalize=False)
    assert np.isinf(raw[[0, 3]]).all()
    assert raw[1] == pytest.approx((3 - 0) + (10 - 5)) and raw[2] == pytest.approx(
        (4 - 1) + (6 - 0)
    )
    norm = crowding_distance(F, normalize=True)
    assert norm[1] == pytest.approx(3 / 4 + 5 / 10) and norm[2] == pytest.approx(3 / 4 + 6 / 10)
    assert np.isinf(crowding_distance(F[:2], normalize=True)).all()


def test_survival_keeps_fronts_then_cuts_by_crowding():
    rng = np.random.RandomState(0)
    F = np.array(
        [
            [0.0, 10.0],
            [1.0, 6.0],
            [3.0, 5.0],
            [4.0, 0.0],
            [2.0, 5.5],  # front 1 (5 points)
            [0.0, 4.0],
            [2.0, 3.0],  # front 2
            [-1.0, -1.0],
        ]
    )  # front 3
    assert sorted(non_dominated(F).tolist()) == [0, 1, 2, 3, 4]
    keep = nsga2_survival(F, 7, normalize=True, rng=rng)
    assert sorted(keep.tolist()) == [0, 1, 2, 3, 4, 5, 6]
    keep = nsga2_survival(F, 4, normalize=False, rng=rng)
    # front 1 is cut: the extremes (inf) and the most isolated inner point survive
    cd = crowding_distance(F[:5], normalize=False)
    assert sorted(keep.tolist()) == sorted(np.argsort(-cd, kind="stable")[:4].tolist())


def test_incremental_evaluation_matches_dense():
    rng = np.random.RandomState(4)
    X = rng.randn(25, 2)
    Y = np.where(rng.rand(25) < 0.5, 1.0, -1.0)
    K = gaussian_kernel(X, X, 0.7)
    prob = _InductiveProblem(DualFitness.from_kernel(K.copy(), Y, 1000.0), Y, True, "zeros")
    A = np.zeros((8, 25))
    F, G = prob.evaluate(A)
    for _ in range(40):  # a chain of hybrid mutations, evaluated incrementally
        M, Fm, Gm = prob.mutate(A, G, rng)
        if len(M):
            np.testing.assert_allclose(Fm, mo_objectives(K, Y, M), rtol=1e-9, atol=1e-6)
            A, G = np.concatenate([A, M])[-8:], np.concatenate([G, Gm])[-8:]
    from svmlab.estimators.evo._operators import uniform_crossover

    children, base = uniform_crossover(A, 1.0, rng)
    Fc, _ = prob.derive(children, base, A, G)
    np.testing.assert_allclose(Fc, mo_objectives(K, Y, children), rtol=1e-9, atol=1e-6)


# --- determinism, errors, configs, scikit-learn
# ------------------------------------------------------


@pytest.mark.parametrize("engine", ["rm", "pymoo"])
def test_same_seed_same_front(data, engine):
    X, y = data
    a = MOEvoSVMClassifier(engine=engine, random_state=5, **FAST).fit(X, y)
    b = MOEvoSVMClassifier(engine=engine, random_state=5, **FAST).fit(X, y)
    np.testing.assert_array_equal(a.pareto_alpha_, b.pareto_alpha_)
    np.testing.assert_array_equal(a.holdout_indices_, b.holdout_indices_)
    assert a.selected_ == b.selected_
    c = MOEvoSVMClassifier(engine=engine, random_state=6, **FAST).fit(X, y)
    assert a.pareto_alpha_.shape != c.pareto_alpha_.shape or not np.array_equal(
        a.pareto_alpha_, c.pareto_alpha_
    )
    d = MOEvoSVMClassifier(
        engine=engine, random_state=6, holdout_seed=int(a.fit_info_["n_fit"]), **FAST
    ).fit(X, y)
    e = MOEvoSVMClassifier(
        engine=engine, random_state=7, holdout_seed=int(a.fit_info_["n_fit"]), **FAST
    ).fit(X, y)
    np.testing.assert_array_equal(
        d.holdout_indices_, e.holdout_indices_
    )  # the split is fixed by holdout_seed


@pytest.mark.parametrize(
    "params, y, message",
    [
        ({"alpha_max": 0.0}, None, r"'alpha_max' parameter .* range \(0.0, inf\)"),
        ({"alpha_max": -5.0}, None, r"'alpha_max' parameter"),
        ({"population_size": 1}, None, r"'population_size' parameter .* in the range \[2, inf\)"),
        ({"kernel": "gauss"}, None, r"'kernel' parameter .* among .*'epanechnikov'"),
        (
            {"kernel": "rbf", "sigma1": 1.0},
            None,
            r"sigma1=1.0 is not a parameter of the rbf kernel",
        ),
        ({"holdout_size": 1.0}, None, r"'holdout_size' parameter"),
        ({"engine": "deap"}, None, r"'engine' parameter"),
        ({}, [0, 1, 2] * 10, r"Only binary classification is supported. .* got 3 classes"),
        ({}, [1] * 30, r"got 1 class"),
        ({}, [0.5, 1.5] * 15, r"Unknown label type"),
        ({"holdout_size": 0.9}, [0] * 27 + [1] * 3, r"hold-out split .* fewer than two classes"),
    ],
)
def test_bad_input(params, y, message):
    X = np.random.RandomState(0).randn(30, 2)
    y = [0, 1] * 15 if y is None else y
    with pytest.raises(ValueError, match=message):
        MOEvoSVMClassifier(
            population_size=params.pop("population_size", 4),
            max_generations=2,
            random_state=0,
            **params,
        ).fit(X, y)


def test_solver_config_is_valid():
    import yaml

    from svmlab.solvers import SolverSpec

    path = Path(__file__).resolve().parents[2] / "conf" / "solver" / "moevosvm.yaml"
    spec = SolverSpec.from_config(yaml.safe_load(path.read_text()))
    spec.validate()
    est = spec.build(random_state=0)
    assert (
        isinstance(est, MOEvoSVMClassifier) and spec.tasks == ("binary",) and est.random_state == 0
    )
    defaults = MOEvoSVMClassifier().get_params()
    assert {k: v for k, v in est.get_params().items() if k != "random_state"} == {
        k: v for k, v in defaults.items() if k != "random_state"
    }
    assert (
        est.alpha_max,
        est.population_size,
        est.max_generations,
        est.init,
        est.holdout_size,
    ) == (
        1000.0,
        100,
        1000,
        "zeros",
        0.2,
    )


# every scikit-learn check runs on moevosvm.yaml (population_size 10, max_generations 30) in
# tests/test_conformance.py; these are the essentials on a smaller run
@pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)
def test_sklearn_essentials(check):
    check("MOEvoSVMClassifier", MOEvoSVMClassifier(population_size=10, max_generations=20))
