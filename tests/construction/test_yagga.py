"""YAGGAFeatureConstructor: multi-objective feature construction (Mierswa (2009), Sec. 6.4)."""

import numpy as np
import pytest
from joblib import parallel_backend
from sklearn.neighbors import KNeighborsClassifier
from sklearn.utils.estimator_checks import check_estimator

from svmlab.construction.expressions import apply, var
from svmlab.construction.yagga import YAGGAFeatureConstructor
from svmlab.nsga2 import dominates
from svmlab.testing import essential_checks

FAST = {"population_size": 4, "max_generations": 2, "random_state": 0}


def product_data(n=120, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(1, 3, size=(n, 3))
    return X, X[:, 0] * X[:, 1]


@pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)
def test_essential_checks(check):
    check("YAGGAFeatureConstructor", YAGGAFeatureConstructor(**FAST))


def test_scikit_learn_checks():
    failed = {
        r["check_name"]: r["exception"]
        for r in check_estimator(YAGGAFeatureConstructor(**FAST), on_fail=None)
        if r["status"] == "failed"
    }
    assert not failed, failed


def test_recovers_a_product_feature():
    X, y = product_data()
    m = YAGGAFeatureConstructor(
        generators=("*", "sin"), population_size=10, max_generations=15, random_state=0
    ).fit(X, y)
    product = apply("*", var(0), var(1))
    rows = [i for i, s in enumerate(m.pareto_expressions_) if product in s]
    assert rows, m.pareto_front_
    assert m.pareto_front_["error"].iloc[rows].min() < 1e-12 * np.var(y)
    assert product in m.features_
    Z = m.transform(X)
    assert Z.shape == (len(X), len(m.features_))
    assert "X1 * X2" in m.get_feature_names_out()
    assert m.n_features_in_ == 3 and m.fit_info_["evaluations"] > 0
    assert m.fit_info_["cache_hits"] > 0


def test_same_seed_same_front_and_front_is_non_dominated():
    X, y = product_data(seed=1)
    y = y + np.sin(X[:, 2])
    kw = {"population_size": 8, "max_generations": 8, "crossover": "one_point"}
    a = YAGGAFeatureConstructor(random_state=3, **kw).fit(X, y).pareto_front_
    b = YAGGAFeatureConstructor(random_state=3, **kw).fit(X, y).pareto_front_
    assert a.equals(b)
    F = np.column_stack([-a["error"], -a["n_features"]])
    assert not any(dominates(F[i], F[j]) for i in range(len(F)) for j in range(len(F)))
    assert list(a["n_features"]) == sorted(a["n_features"])
    assert list(a.columns) == ["n_features", "error", "features"]


def test_chosen_member_is_lowest_error_then_fewest_features():
    X, y = product_data(seed=2)
    m = YAGGAFeatureConstructor(population_size=6, max_generations=5, random_state=0).fit(X, y)
    front = m.pareto_front_
    best = front.sort_values(["error", "n_features"]).iloc[0]
    assert [str(e) for e in m.features_] == best["features"]


def test_kfold_and_classifier_inner_learner():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)
    m = YAGGAFeatureConstructor(
        estimator=KNeighborsClassifier(3),
        generators=("*",),
        validation=3,
        population_size=6,
        max_generations=6,
        random_state=0,
    ).fit(X, y)
    assert ((m.pareto_front_["error"] >= 0) & (m.pareto_front_["error"] <= 1)).all()
    assert m.pareto_front_["error"].min() < 0.2  # X1 * X2 separates the quadrants


@pytest.mark.parametrize(
    "param, value",
    [
        ("generators", ("*", "nope")),
        ("generators", "*"),
        ("validation", "cv"),
        ("validation", 1),
        ("holdout_fraction", 1.0),
        ("population_size", 1),
        ("crossover_rate", 1.5),
        ("crossover", "two_point"),
        ("mutation", "printed"),
        ("mutation_rate", 0.0),
        ("equivalence", "ttest"),
        ("equivalence_sigma", 0.0),
        ("crowding", "deb"),
        ("estimator", "linear"),
    ],
)
def test_bad_parameters(param, value):
    X, y = product_data(n=20)
    with pytest.raises(ValueError, match=param):
        YAGGAFeatureConstructor(**{param: value}).fit(X, y)


def test_parallel_evaluation_gives_the_same_front():
    X, y = product_data(seed=4)
    kw = {"population_size": 6, "max_generations": 4, "random_state": 5}
    serial = YAGGAFeatureConstructor(**kw).fit(X, y).pareto_front_
    with parallel_backend("threading"):
        par = YAGGAFeatureConstructor(n_jobs=2, **kw).fit(X, y).pareto_front_
    assert serial.equals(par)


def test_constant_originals_are_left_out():
    rng = np.random.RandomState(0)
    X = np.column_stack([rng.uniform(1, 2, size=60), np.full(60, 3.0)])  # X2 is constant
    m = YAGGAFeatureConstructor(population_size=6, max_generations=6, random_state=0)
    m.fit(X, 2 * X[:, 0] + 1)
    used = {i for s in m.pareto_expressions_ for e in s for i in e.base_features()}
    assert used == {0}
    assert m.pareto_front_["error"].iloc[0] < 1e-20
