"""MOFeatureSelector (Mierswa (2009), Sec. 6.2): the front it finds, its choice, no leakage."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.naive_bayes import GaussianNB

from svmlab.nsga2 import non_dominated
from svmlab.selection import MOFeatureSelector
from svmlab.testing import essential_checks

SMALL = dict(population_size=16, max_generations=25, random_state=0)


@pytest.fixture(scope="module")
def weighted_sum():
    """y = sum_j 2^j x_j (j = 0..7): the best subset of size k is the k heaviest features."""
    rng = np.random.RandomState(0)
    X = rng.uniform(size=(200, 8))
    return X, X @ 2.0 ** np.arange(8)


@pytest.fixture(scope="module")
def fitted(weighted_sum):
    X, y = weighted_sum
    return MOFeatureSelector(LinearRegression(), cv=3, refit_front=True, **SMALL).fit(X, y)


def test_front_is_the_nested_optimum_from_one_feature_to_all(fitted):
    front = fitted.pareto_front_
    assert front["n_features"].tolist() == list(range(1, 9))
    for k, feats in zip(front["n_features"], front["features"], strict=True):
        assert sorted(feats) == list(range(8 - k, 8))  # the k heaviest
    assert np.all(np.diff(front["inner_error"]) < 0)  # each feature lowers the RMSE
    np.testing.assert_allclose(front["inner_error"], -front["inner_score"])


def test_front_is_non_dominated(fitted):
    F = np.column_stack([fitted.pareto_front_["inner_score"], -fitted.pareto_front_["n_features"]])
    assert len(non_dominated(F)) == len(F)


def test_best_choice_predicts_with_all_relevant_features(fitted, weighted_sum):
    X, y = weighted_sum
    assert fitted.support_.all() and fitted.get_support().sum() == 8
    np.testing.assert_allclose(fitted.predict(X), y, atol=1e-8)
    assert fitted.transform(X).shape == (200, 8)
    assert fitted.fit_info_["front"]["n_features"] == list(range(1, 9))


def test_choices_one_se_and_budget(weighted_sum, fitted):
    X, y = weighted_sum
    budget = MOFeatureSelector(LinearRegression(), cv=3, choose=3, **SMALL).fit(X, y)
    assert np.flatnonzero(budget.support_).tolist() == [5, 6, 7]
    one_se = MOFeatureSelector(LinearRegression(), cv=3, choose="one_se", **SMALL).fit(X, y)
    assert one_se.support_.sum() <= fitted.support_.sum()


def test_rounding_level_score_differences_are_ties_that_go_to_fewer_features():
    sel = MOFeatureSelector(choose="best")
    sel.pareto_masks_ = np.array([[1, 0, 0], [1, 1, 0], [1, 1, 1]], dtype=bool)
    assert sel._choose(np.array([-0.5, -2e-15, -1e-15]), np.zeros(3)) == 1


def test_score_front_scores_every_member_on_new_data(fitted, weighted_sum):
    X, y = weighted_sum
    scores = fitted.score_front(X[:50], y[:50])
    assert scores.shape == (8,) and np.all(np.diff(scores) > 0)
    diag = fitted.test_diagnostics(X[:50], y[:50])
    assert len(diag["front_test_error"]) == 8 and diag["front_test_error"][-1] < 1e-6


def test_same_seed_same_front_and_cache_changes_nothing_but_cost(weighted_sum):
    X, y = weighted_sum
    kw = {**SMALL, "max_generations": 10}
    a = MOFeatureSelector(LinearRegression(), cv=3, **kw).fit(X, y)
    b = MOFeatureSelector(LinearRegression(), cv=3, **kw).fit(X, y)
    c = MOFeatureSelector(LinearRegression(), cv=3, cache=False, **kw).fit(X, y)
    assert a.pareto_front_.equals(b.pareto_front_) and a.pareto_front_.equals(c.pareto_front_)
    assert a.n_evaluations_ < c.n_evaluations_ / 2 and a.cache_hit_rate_ > 0.5
    assert c.cache_hit_rate_ == 0.0


def test_pymoo_engine_finds_the_same_front(weighted_sum):
    X, y = weighted_sum
    sel = MOFeatureSelector(LinearRegression(), cv=3, engine="pymoo", **SMALL).fit(X, y)
    assert sel.pareto_front_["n_features"].tolist() == list(range(1, 9))


def test_history_records_each_generation(weighted_sum):
    X, y = weighted_sum
    sel = MOFeatureSelector(LinearRegression(), cv=3, record_history=True, **SMALL).fit(X, y)
    assert len(sel.history_) == SMALL["max_generations"] + 1
    assert len(sel.history_[-1]) == 8


class _Centroid(ClassifierMixin, BaseEstimator):
    """Nearest class mean in plain numpy: a learner cheap enough for hundreds of CV fits."""

    def fit(self, X, y):
        self.classes_ = np.unique(y)
        self.means_ = np.array([X[y == c].mean(axis=0) for c in self.classes_])
        return self

    def predict(self, X):
        d = ((X[:, None, :] - self.means_[None]) ** 2).sum(axis=2)
        return self.classes_[np.argmin(d, axis=1)]


def test_no_leakage_nested_search_at_chance_leaky_search_inflated():
    """Pure noise (60 rows, 60 features, three draws): a search inside each outer training part
    scores at chance on the outer test parts, while the same search run on all data, judged on
    the folds it selected with (the leaky protocol), looks far better than chance."""
    nested, leaky = [], []
    for seed in range(3):
        rng = np.random.RandomState(seed)
        X, y = rng.randn(60, 60), np.repeat([0, 1], 30)
        outer = StratifiedKFold(5, shuffle=True, random_state=1)
        kw = dict(population_size=16, max_generations=8, random_state=0)
        sel = MOFeatureSelector(_Centroid(), cv=3, **kw)
        nested.append(cross_val_score(sel, X, y, cv=outer).mean())
        mask = MOFeatureSelector(_Centroid(), cv=outer, **kw).fit(X, y).support_
        leaky.append(cross_val_score(_Centroid(), X[:, mask], y, cv=outer).mean())
    assert all(0.3 <= a <= 0.7 for a in nested) and 0.4 <= np.mean(nested) <= 0.6
    assert min(leaky) >= 0.65 and np.mean(leaky) - np.mean(nested) >= 0.15


@pytest.mark.parametrize(
    "params, message",
    [
        ({"engine": "nsga3"}, "engine"),
        ({"choose": "median"}, "choose"),
        ({"crossover_rate": 1.5}, "crossover_rate"),
        ({"population_size": 2}, "population_size"),
    ],
)
def test_bad_parameters_are_named(params, message):
    X, y = np.random.RandomState(0).randn(30, 4), np.repeat([0, 1], 15)
    with pytest.raises(ValueError, match=message):
        MOFeatureSelector(GaussianNB(), **params).fit(X, y)


def test_default_estimator_is_a_linear_svm():
    X, y = np.random.RandomState(0).randn(40, 5), np.repeat([0, 1], 20)
    X[:, 0] += 3 * y
    sel = MOFeatureSelector(cv=3, population_size=6, max_generations=3, random_state=0).fit(X, y)
    assert type(sel.estimator_).__name__ == "LinearSVC" and sel.support_[0]
    assert sel.score(X, y) > 0.9


@pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)
def test_sklearn_essentials(check):
    check(
        "MOFeatureSelector",
        MOFeatureSelector(GaussianNB(), cv=2, population_size=4, max_generations=2, random_state=0),
    )
