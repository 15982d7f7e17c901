"""The multi-instance feature selectors (svmlab.selection) and HyDR-MI (svmlab.estimators.mil):
the ReliefF-MI filter in a pipeline, the genetic wrapper's elitism, determinism and fitness
cache, and that HyDR-MI sees only the bags it is fitted on."""

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.naive_bayes import GaussianNB
from sklearn.pipeline import make_pipeline

from svmlab.estimators.mil import HyDRMIClassifier, SimpleMIClassifier
from svmlab.selection import (
    GeneticFeatureSelector,
    MultiInstanceFeatureSelector,
    relieff_mi_weights,
    sensitivity_x_specificity,
)
from svmlab.selection.genetic import FitnessCache


def planted(seed=0, n=40, d=10):
    """Positive bags shifted on features 0 and 1, feature 5 constant."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    bags = []
    for label in y:
        b = rng.normal(size=(rng.integers(2, 5), d))
        b[:, :2] += 1.5 * label
        b[:, 5] = 1.0
        bags.append(b)
    return bags, y


def simple_mi():
    return SimpleMIClassifier(estimator=GaussianNB())


class BagSpy(ClassifierMixin, BaseEstimator):
    """Majority-class learner that records the bag ids (any feature // 1000) it is shown."""

    seen_fit: list = []
    seen_predict: list = []

    def fit(self, bags, y):
        BagSpy.seen_fit.append({int(b[0, 0] // 1000) for b in bags})
        self.classes_ = np.unique(y)
        self.label_ = np.bincount(np.searchsorted(self.classes_, y)).argmax()
        return self

    def predict(self, bags):
        BagSpy.seen_predict.append({int(b[0, 0] // 1000) for b in bags})
        return np.full(len(bags), self.classes_[self.label_])


def test_filter_goes_in_a_pipeline_before_a_mil_estimator():
    bags, y = planted()
    pipe = make_pipeline(MultiInstanceFeatureSelector(0.2), simple_mi()).fit(bags, y)
    selector = pipe[0]
    assert set(selector.get_support(indices=True)) == {0, 1}
    assert selector.n_constant_in_subset_ == 0 and selector.constant_[5]
    assert pipe.score(bags, y) > 0.8
    with pytest.raises(ValueError, match="features"):
        selector.transform([b[:, :4] for b in bags])


def test_sensitivity_times_specificity():
    assert sensitivity_x_specificity([1, 1, 0, 0], [1, 0, 0, 0]) == 0.5
    assert sensitivity_x_specificity([1, 1, 0, 0], [1, 1, 1, 1]) == 0.0  # one class everywhere


def test_fitness_cache_evaluates_each_mask_once():
    calls = []
    cache = FitnessCache(lambda mask: calls.append(mask.copy()) or float(mask.sum()))
    masks = np.array([[1, 0, 1], [1, 0, 1], [0, 1, 0]], dtype=bool)
    np.testing.assert_array_equal(cache(masks), [2.0, 2.0, 1.0])
    cache(masks[:1])
    assert (cache.evaluations, cache.hits, len(calls)) == (2, 2, 2)


def test_ga_elite_never_gets_worse_and_is_seeded():
    bags, y = planted(seed=1)
    kw = dict(population_size=12, max_generations=6, random_state=3)
    ga = GeneticFeatureSelector(simple_mi(), **kw).fit(bags, y)
    best = [h["best"] for h in ga.history_]
    assert len(best) == 7 and all(b2 >= b1 for b1, b2 in zip(best, best[1:]))
    assert ga.fitness_ == best[-1] and ga.support_.any()
    assert ga.n_evaluations_ + ga.n_cache_hits_ == 12 * 7
    again = GeneticFeatureSelector(simple_mi(), **kw).fit(bags, y)
    np.testing.assert_array_equal(again.support_, ga.support_)
    assert [h["best"] for h in again.history_] == best


def test_hydrmi_sees_only_its_training_bags_and_records_what_it_used():
    rng = np.random.default_rng(2)
    y = np.arange(30) % 2
    bags = [rng.uniform(size=(3, 6)) + 1000.0 * i for i in range(30)]  # every feature says i
    train, test = np.arange(20), np.arange(20, 30)
    BagSpy.seen_fit.clear()
    BagSpy.seen_predict.clear()
    clf = HyDRMIClassifier(
        BagSpy(), filter_fraction=1.0, population_size=6, max_generations=2, random_state=0
    )
    clf.fit([bags[i] for i in train], y[train])
    seen = set().union(*BagSpy.seen_fit, *BagSpy.seen_predict)
    assert seen <= set(train)
    # inner folds: a fitness fit never predicts the bags it was trained on
    for fitted, predicted in zip(BagSpy.seen_fit, BagSpy.seen_predict):
        assert not fitted & predicted
    info = clf.fit_info_
    assert info["n_features"] == clf.support_.sum() and info["ga_evaluations"] > 0
    assert len(info["ga_best_by_generation"]) == 3
    assert clf.predict([bags[i] for i in test]).shape == (10,)


@pytest.mark.parametrize("selection, n_features", [("full", 10), ("relieff_mi", 3)])
def test_hydrmi_baseline_conditions(selection, n_features):
    bags, y = planted(seed=4)
    clf = HyDRMIClassifier(simple_mi(), selection=selection, filter_fraction=0.3).fit(bags, y)
    assert clf.fit_info_["n_features"] == n_features
    assert clf.fit_info_["n_constant_in_subset"] == (1 if selection == "full" else 0)
    assert "ga_evaluations" not in clf.fit_info_


@pytest.mark.parametrize("diff_pairs", ["distance", "avg"])
def test_the_filter_and_hydrmi_pass_the_witness_pairs_on(diff_pairs):
    bags, y = planted(seed=5)
    expected = relieff_mi_weights(bags, y, diff_pairs=diff_pairs)
    assert not np.allclose(expected, relieff_mi_weights(bags, y, diff_pairs="min"))
    selector = MultiInstanceFeatureSelector(0.3, diff_pairs=diff_pairs).fit(bags, y)
    np.testing.assert_array_equal(selector.weights_, expected)
    clf = HyDRMIClassifier(simple_mi(), selection="relieff_mi", diff_pairs=diff_pairs)
    np.testing.assert_array_equal(clf.fit(bags, y).filter_.weights_, expected)
    with pytest.raises(ValueError, match="diff_pairs"):
        MultiInstanceFeatureSelector(diff_pairs="adapted").fit(bags, y)


def test_the_filter_and_hydrmi_pass_the_max_witness_on():
    bags, y = planted(seed=5)
    expected = relieff_mi_weights(bags, y, distance="max", max_witness="reference")
    assert not np.allclose(expected, relieff_mi_weights(bags, y, distance="max"))
    selector = MultiInstanceFeatureSelector(0.3, distance="max", max_witness="reference")
    np.testing.assert_array_equal(selector.fit(bags, y).weights_, expected)
    clf = HyDRMIClassifier(
        simple_mi(), selection="relieff_mi", distance="max", max_witness="reference"
    )
    np.testing.assert_array_equal(clf.fit(bags, y).filter_.weights_, expected)
    with pytest.raises(ValueError, match="max_witness"):
        MultiInstanceFeatureSelector(max_witness="forward").fit(bags, y)


def test_missing_estimator_is_one_clear_line():
    bags, y = planted()
    with pytest.raises(ValueError, match="needs an estimator"):
        HyDRMIClassifier().fit(bags, y)
