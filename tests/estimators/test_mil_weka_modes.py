"""MIBoost, MIOptimalBall and CitationKNN in their Weka 3.6 modes (the defaults).

Rules are checked on toy bags everywhere; the comparisons with the real Weka classifiers run on
a small synthetic split and are skipped without Java and weka.jar. The full parity runs on
musk1, mutagenesis-atoms and elephant are tests/estimators/test_weka_parity.py.
"""

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier

from svmlab.data.registry import load_dataset
from svmlab.estimators.mil.boost import MIBoostClassifier, _step
from svmlab.estimators.mil.citation_knn import CitationKNNClassifier
from svmlab.estimators.mil.optimal_ball import MIOptimalBallClassifier
from svmlab.estimators.mil.weka import WekaMIClassifier
from svmlab.estimators.weka.decision_stump import DecisionStumpClassifier


def _weka(classname, options, split):
    bags_tr, y_tr, bags_te, _ = split
    return (
        WekaMIClassifier(classname=classname, options=options).fit(bags_tr, y_tr).predict(bags_te)
    )


def _ours(model, split):
    bags_tr, y_tr, bags_te, _ = split
    return model.fit(bags_tr, y_tr).predict(bags_te)


# ------------------------------------------------------------------------------------------
# MIBoost
# ------------------------------------------------------------------------------------------


def test_miboost_step_and_weights(split):
    W, s = np.array([0.5, 0.3, 0.2]), np.array([-1.0, -0.5, 1.0])
    c = _step(W, s)
    assert np.sum(W * s * np.exp(s * c)) == pytest.approx(0.0, abs=1e-12)
    assert _step(W, -s) == 0.0  # derivative >= 0 at 0: no positive step
    bags_tr, y_tr, _, _ = split
    model = MIBoostClassifier().fit(bags_tr, y_tr)
    assert isinstance(model.estimators_[0], DecisionStumpClassifier)
    assert model.fit_info_["n_rounds"] >= 1 and np.all(model.estimator_weights_ > 1e-6)
    assert model.bag_weights_.sum() == pytest.approx(1.0)
    P = model.predict_proba(bags_tr)
    np.testing.assert_allclose(np.log(P[:, 1] / P[:, 0]), model.decision_function(bags_tr))


def test_miboost_first_round_too_wrong_is_kept_with_step_one():
    class Flipped(DecisionStumpClassifier):
        def predict(self, X):
            return 1 - super().predict(X)

    bags = [np.zeros((2, 1)), np.ones((3, 1)), np.zeros((1, 1))]
    model = MIBoostClassifier(Flipped()).fit(bags, [0, 1, 0])
    assert model.fit_info_["stop"] == "too_wrong" and list(model.estimator_weights_) == [1.0]
    legacy = MIBoostClassifier(Flipped(), stopping="max_step").fit(bags, [0, 1, 0])
    assert legacy.fit_info_["n_rounds"] == 0 and list(legacy.predict(bags)) == [0, 0, 0]


@pytest.mark.weka
def test_miboost_equals_weka(split):
    weka = _weka("weka.classifiers.mi.MIBoost", "-W weka.classifiers.trees.DecisionStump", split)
    np.testing.assert_array_equal(_ours(MIBoostClassifier(), split), weka)


@pytest.mark.weka
def test_miboost_zero_r_equals_wekas_default(split):
    ours = _ours(MIBoostClassifier(DummyClassifier(strategy="most_frequent")), split)
    np.testing.assert_array_equal(ours, _weka("weka.classifiers.mi.MIBoost", "", split))


# ------------------------------------------------------------------------------------------
# MIOptimalBall
# ------------------------------------------------------------------------------------------


def _line_bags():
    # 1-D bags at 0 (pos, centre), 1 (pos), 2 (neg), 3 (neg), 4 (pos): distances from 0 are
    # 0, 1, 2, 3, 4 (scaling none)
    return [np.array([[v]]) for v in (0.0, 1.0, 2.0, 3.0, 4.0)], np.array([1, 1, 0, 0, 1])


def test_optimal_ball_radius_and_tie_rules():
    bags, y = _line_bags()
    # best balls: radius 1.5 (4 bags right with centre 0, or centre 1) ; Weka keeps the largest
    # radius among equal scores: centre 4 with radius 3.5 covers 1..4 -> 3 right; centre 0 r 1.5
    # -> 4 right; centre 1 r 0.5 -> 4 right (bag 0 outside? no: 0 is 1 away) ...
    weka = MIOptimalBallClassifier(scaling="none").fit(bags, y)
    legacy = MIOptimalBallClassifier(scaling="none", ties="smallest_radius").fit(bags, y)
    assert weka.fit_info_["train_score"] == legacy.fit_info_["train_score"]
    assert weka.radius_ >= legacy.radius_
    # every radius is a midpoint of two sorted bag distances of its centre
    d = np.abs(np.array([0.0, 1, 2, 3, 4]) - weka.center_[0])
    ds = np.sort(d)
    assert weka.radius_ in set((ds[1:] + ds[:-1]) / 2.0)


def test_optimal_ball_counting_and_weights():
    bags, y = _line_bags()
    with pytest.raises(ValueError, match="counting='weighted'"):
        MIOptimalBallClassifier().fit(bags, y, sample_weight=np.ones(5))
    heavy = MIOptimalBallClassifier(scaling="none", counting="weighted").fit(
        bags, y, sample_weight=[1, 1, 1, 1, 10.0]
    )
    assert heavy.predict([np.array([[4.0]])])[0] == 1  # the heavy far positive bag is inside
    # Weka's scaling maps a constant feature to 0 for test instances too
    model = MIOptimalBallClassifier().fit([np.c_[b, np.ones(1)] for b in bags], y)
    np.testing.assert_array_equal(
        model.predict([np.array([[0.0, 1.0]])]), model.predict([np.array([[0.0, 7.0]])])
    )


@pytest.mark.weka
@pytest.mark.parametrize("scaling, n", [("minmax", 0), ("standard", 1)])
def test_optimal_ball_equals_weka(split, scaling, n):
    weka = _weka("weka.classifiers.mi.MIOptimalBall", f"-N {n}", split)
    np.testing.assert_array_equal(_ours(MIOptimalBallClassifier(scaling=scaling), split), weka)


# ------------------------------------------------------------------------------------------
# CitationKNN
# ------------------------------------------------------------------------------------------


def test_citation_knn_directed_distance_and_reference_ties():
    bags = [np.array([[0.0], [5.0]]), np.array([[1.0]]), np.array([[9.0]]), np.array([[-1.0]])]
    y = np.array([0, 1, 1, 0])
    sym = CitationKNNClassifier(hausdorff_rank=2, hausdorff="symmetric", scaling="none")
    directed = CitationKNNClassifier(hausdorff_rank=2, scaling="none")
    query = [np.array([[0.5], [4.0]])]
    # directed h_2(query -> bag): second smallest over the query's 2 instances
    H = directed.fit(bags, y)._query_distances(query)
    np.testing.assert_allclose(H, [[1.0, 3.0, 8.5, 5.0]])
    assert np.all(sym.fit(bags, y)._query_distances(query) >= H)
    # R = 1 with two training bags tied at the nearest distance: both vote
    m = CitationKNNClassifier(n_citers=0, scaling="none").fit(bags[1:], y[1:])
    p, n = m._votes([np.array([[0.0]])])
    assert (p[0], n[0]) == (1, 1)


def test_citation_knn_weka_range_is_widened_by_test_bags():
    bags = [np.array([[1.0, 0.0]]), np.array([[2.0, 0.0]]), np.array([[4.0, 0.0]])]
    y = np.array([0, 1, 1])
    m = CitationKNNClassifier().fit(bags, y)
    assert m.fit_info_["zero_range_features"] == 1
    # the second query alone, or after a first query that widens the range of feature 1
    alone = m._query_distances([np.array([[2.5, 0.0]])])
    after = m._query_distances([np.array([[40.0, 3.0]]), np.array([[2.5, 0.0]])])[1]
    assert not np.allclose(alone[0], after)
    # zero_range="nan": Weka's undefined distances, every training bag votes
    nan = CitationKNNClassifier(zero_range="nan").fit(bags, y)
    p, n = nan._votes([np.array([[2.5, 0.0]])])
    assert (p[0], n[0]) == (4, 2)


def _with_zero_feature(split):
    bags_tr, y_tr, bags_te, y_te = split
    return [np.c_[b, np.zeros(len(b))] for b in bags_tr], y_tr, bags_te, y_te


@pytest.mark.weka
@pytest.mark.parametrize("options", ["-R 3 -C 2 -H 2"])  # -R 1 -C 1 -H 1: the parity test
def test_citation_knn_equals_weka(split, options):
    R, C, H = (int(v) for v in options.split()[1::2])
    ours = CitationKNNClassifier(n_references=R, n_citers=C, hausdorff_rank=H)
    weka = _weka("weka.classifiers.mi.CitationKNN", options, split)
    np.testing.assert_array_equal(_ours(ours, split), weka)


@pytest.mark.weka
def test_citation_knn_zero_range_nan_reproduces_wekas_failure(split):
    bags_tr, y_tr, bags_te, y_te = _with_zero_feature(split)
    bags_te = [np.c_[b, np.zeros(len(b))] for b in bags_te]
    weka = WekaMIClassifier(classname="weka.classifiers.mi.CitationKNN")
    weka = weka.fit(bags_tr, y_tr).predict(bags_te)
    nan = CitationKNNClassifier(zero_range="nan").fit(bags_tr, y_tr).predict(bags_te)
    np.testing.assert_array_equal(nan, weka)
    assert len(set(weka)) == 1  # the majority (or first) class for every bag
    ignore = CitationKNNClassifier().fit(bags_tr, y_tr).predict(bags_te)
    assert np.mean(ignore == y_te) > np.mean(weka == y_te)


@pytest.mark.slow
@pytest.mark.data
def test_citation_knn_default_is_sensible_on_elephant():
    """Elephant has 120 features that are 0 everywhere: Weka's CitationKNN predicts one class
    (50%); the default (zero_range="ignore") must classify."""
    from svmlab.evaluation.parity import pooled_accuracy, same_fold_predictions

    ds = load_dataset("elephant")
    pred = same_fold_predictions(ds.bags, ds.y, {"native": CitationKNNClassifier}, dataset=ds.name)[
        "native"
    ]
    assert pooled_accuracy(ds.y, pred) > 0.65


@pytest.mark.parametrize(
    "make", [MIBoostClassifier, MIOptimalBallClassifier, CitationKNNClassifier], ids=str
)
def test_fit_on_a_column_subset(split, make):
    """Inside a feature-selection wrapper: every bag cut to the same columns."""
    bags_tr, y_tr, bags_te, _ = split
    cols = [1]  # mi_bags has 2 features
    model = make().fit([b[:, cols] for b in bags_tr], y_tr)
    assert model.n_features_in_ == 1
    assert len(model.predict([b[:, cols] for b in bags_te])) == len(bags_te)
