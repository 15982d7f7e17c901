"""Weka-style multi-instance baselines: SimpleMI, MIWrapper, TLC (+ Bagging, Stacking), MIBoost."""

import numpy as np
import pytest
from sklearn.dummy import DummyClassifier
from sklearn.neighbors import KNeighborsClassifier
from sklearn.svm import SVC
from sklearn.tree import DecisionTreeClassifier

from svmlab.estimators.mil.boost import MIBoostClassifier
from svmlab.estimators.mil.embedding import SimpleMIClassifier, embed_bags
from svmlab.estimators.mil.tlc import (
    TLCBaggingClassifier,
    TLCClassifier,
    TLCStackingClassifier,
    make_tlc_bagging,
)
from svmlab.estimators.mil.wrapper import MIWrapperClassifier, instance_weights

FACTORIES = {
    "simple_mi_mean": lambda rs=0: SimpleMIClassifier(random_state=rs),
    "simple_mi_minmax": lambda rs=0: SimpleMIClassifier(method="minmax", random_state=rs),
    "mi_wrapper": lambda rs=0: MIWrapperClassifier(random_state=rs),
    "mi_wrapper_geometric": lambda rs=0: MIWrapperClassifier(method="geometric", random_state=rs),
    "tlc": lambda rs=0: TLCClassifier(random_state=rs),
    "tlc_bagging": lambda rs=0: make_tlc_bagging(n_estimators=5, random_state=rs),
    "tlc_stacking": lambda rs=0: TLCStackingClassifier(cv=3, random_state=rs),
    "miboost": lambda rs=0: MIBoostClassifier(random_state=rs),
}


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_beats_majority_and_api(name, split):
    bags_tr, y_tr, bags_te, y_te = split
    model = FACTORIES[name]().fit(bags_tr, y_tr)
    pred = model.predict(bags_te)
    majority = max(np.mean(y_te == c) for c in np.unique(y_te))
    acc = float(np.mean(pred == y_te))
    assert acc > majority + 0.1, (name, acc, majority)
    assert list(model.classes_) == [0, 1]
    scores = model.decision_function(bags_te)
    assert scores.shape == (len(bags_te),) and np.all(np.isfinite(scores))
    if hasattr(model, "predict_proba"):
        P = model.predict_proba(bags_te)
        assert P.shape == (len(bags_te), 2)
        np.testing.assert_allclose(P.sum(axis=1), 1.0)
        assert np.all((P >= 0) & (P <= 1))
    assert isinstance(model.fit_info_, dict) and model.fit_info_["n_bags"] == len(bags_tr)


@pytest.mark.parametrize(
    "name", ["tlc", "tlc_bagging", "tlc_stacking", "miboost", "simple_mi_mean"]
)
def test_deterministic_with_random_state(name, split):
    bags_tr, y_tr, bags_te, _ = split
    a = FACTORIES[name](3).fit(bags_tr, y_tr).decision_function(bags_te)
    b = FACTORIES[name](3).fit(bags_tr, y_tr).decision_function(bags_te)
    np.testing.assert_array_equal(a, b)


def test_string_labels_and_positive_class(split):
    bags_tr, y_tr, bags_te, y_te = split
    names = np.array(["neg", "pos"])
    for model in (
        SimpleMIClassifier(method="minmax"),
        TLCClassifier(random_state=0),
        MIBoostClassifier(),
    ):
        model.fit(bags_tr, names[y_tr])
        assert list(model.classes_) == ["neg", "pos"]
        pred = model.predict(bags_te)
        assert set(pred) <= {"neg", "pos"}
        # positive scores go with classes_[1]
        scores = model.decision_function(bags_te)
        assert np.mean((scores > 0) == (pred == "pos")) > 0.95


# ------------------------------------------------------------------------------------------
# invariants
# ------------------------------------------------------------------------------------------


def test_simple_mi_embeddings():
    bags = [np.array([[1.0, 5.0], [3.0, -1.0]]), np.array([[0.0, 2.0]])]
    np.testing.assert_allclose(embed_bags(bags, "mean"), [[2.0, 2.0], [0.0, 2.0]])
    np.testing.assert_allclose(
        embed_bags(bags, "minmax"), [[1.0, -1.0, 3.0, 5.0], [0.0, 2.0, 0.0, 2.0]]
    )
    model = SimpleMIClassifier(method="minmax", estimator=DecisionTreeClassifier()).fit(
        bags * 2, [0, 1, 0, 1]
    )
    assert model.transform(bags).shape == (2, 4) and model.fit_info_["n_embedded_features"] == 4


def test_mi_wrapper_weights_sum_to_one_per_bag(split):
    sizes = np.array([1, 4, 7, 2])
    w = instance_weights(sizes, "bag")
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    np.testing.assert_allclose(np.add.reduceat(w, starts), 1.0)
    np.testing.assert_allclose(instance_weights(sizes, "none"), 1.0)
    bags_tr, y_tr, _, _ = split
    model = MIWrapperClassifier(weighting="bag").fit(bags_tr, y_tr)  # Weka -A 2
    assert model.fit_info_["bag_weight_min"] == pytest.approx(1.0)
    assert model.fit_info_["bag_weight_max"] == pytest.approx(1.0)


def test_mi_wrapper_aggregations():
    # a 1-feature problem where the instance learner is a lookup: P(pos | x) = x
    class Lookup(DummyClassifier):
        def fit(self, X, y, sample_weight=None):
            self.classes_ = np.array([0, 1])
            return self

        def predict_proba(self, X):
            return np.column_stack([1 - X[:, 0], X[:, 0]])

    bags = [np.array([[0.2], [0.8]]), np.array([[0.9], [0.9]])]
    for method, expected in (
        ("arithmetic", 0.5),
        ("max", 0.8),
        ("geometric", np.sqrt(0.16) / (np.sqrt(0.16) + np.sqrt(0.16))),
    ):
        m = MIWrapperClassifier(Lookup(), method=method).fit(bags, [0, 1])
        assert m.predict_proba(bags)[0, 1] == pytest.approx(expected)


def test_tlc_counts_every_instance_once(split):
    bags_tr, y_tr, bags_te, _ = split
    sizes = np.array([len(b) for b in bags_te])
    leaves = TLCClassifier(nodes="leaves", random_state=0).fit(bags_tr, y_tr)
    np.testing.assert_array_equal(leaves.transform(bags_te).sum(axis=1), sizes)
    full = TLCClassifier(random_state=0).fit(bags_tr, y_tr)
    V = full.transform(bags_te)
    assert V.shape[1] == full.fit_info_["n_tree_nodes"]
    np.testing.assert_array_equal(V[:, 0], sizes)  # the root holds every instance
    t = full.tree_.tree_
    internal = np.flatnonzero(t.children_left != -1)  # a node's count = sum of its children's
    np.testing.assert_array_equal(
        V[:, internal], V[:, t.children_left[internal]] + V[:, t.children_right[internal]]
    )
    rel = TLCClassifier(counts="relative", nodes="leaves", random_state=0).fit(bags_tr, y_tr)
    np.testing.assert_allclose(rel.transform(bags_te).sum(axis=1), 1.0)


def test_bagging_members_trained_on_bag_resamples(split):
    bags_tr, y_tr, _, _ = split
    sizes = np.array([len(b) for b in bags_tr])
    model = TLCBaggingClassifier(TLCClassifier(), n_estimators=4, random_state=1).fit(bags_tr, y_tr)
    assert len(model.estimators_) == len(model.estimators_samples_) == 4
    for member, idx in zip(model.estimators_, model.estimators_samples_):
        assert len(idx) == len(bags_tr) and idx.min() >= 0 and idx.max() < len(bags_tr)
        assert len(np.unique(idx)) < len(bags_tr)  # a bootstrap draw repeats bags
        assert member.fit_info_["n_bags"] == len(idx)
        assert member.fit_info_["n_instances"] == sizes[idx].sum()
    assert not all(
        np.array_equal(model.estimators_samples_[0], s) for s in model.estimators_samples_[1:]
    )


def test_stacking_meta_features(split):
    bags_tr, y_tr, bags_te, _ = split
    model = TLCStackingClassifier(cv=3, random_state=0).fit(bags_tr, y_tr)
    assert model.fit_info_["members"] == ["tlc", "simple_mi"]
    assert model.transform(bags_te).shape == (len(bags_te), 2)


def test_miboost_rounds_and_weights(split):
    bags_tr, y_tr, _, _ = split
    model = MIBoostClassifier(n_estimators=7, random_state=0).fit(bags_tr, y_tr)
    assert 1 <= model.fit_info_["n_rounds"] <= 7 == MIBoostClassifier(n_estimators=7).n_estimators
    assert len(model.estimators_) == len(model.estimator_weights_) == model.fit_info_["n_rounds"]
    assert np.all(model.estimator_weights_ > 0)
    assert model.bag_weights_.sum() == pytest.approx(1.0)
    assert all(e < 0.5 for e in model.fit_info_["bag_errors"][: model.fit_info_["n_rounds"]])
    assert MIBoostClassifier().n_estimators == 10


def test_miboost_perfect_stump_stops():
    bags = [
        np.array([[0.0], [0.1]]),
        np.array([[1.0], [1.1]]),
        np.array([[0.2]]),
        np.array([[0.9], [1.2]]),
    ]
    # svmlab's earlier rule: the separating round is kept with the capped step
    model = MIBoostClassifier(stopping="max_step", max_step=5.0).fit(bags, [0, 1, 0, 1])
    assert model.fit_info_["stop"] == "perfect" and model.estimator_weights_[-1] == 5.0
    np.testing.assert_array_equal(model.predict(bags), [0, 1, 0, 1])
    # Weka's rule: a first round that separates is kept with step 1, and boosting stops
    model = MIBoostClassifier().fit(bags, [0, 1, 0, 1])
    assert model.fit_info_["stop"] == "separable"
    np.testing.assert_array_equal(model.estimator_weights_, [1.0])
    np.testing.assert_array_equal(model.predict(bags), [0, 1, 0, 1])


# ------------------------------------------------------------------------------------------
# bad input
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_bad_input(name):
    good = [np.zeros((2, 3)), np.ones((3, 3)), np.zeros((1, 3)), np.ones((2, 3))]
    with pytest.raises(ValueError, match="exactly 2 classes"):
        FACTORIES[name]().fit(good, [1, 1, 1, 1])
    with pytest.raises(ValueError, match="exactly 2 classes"):
        FACTORIES[name]().fit(good, [0, 1, 2, 1])
    with pytest.raises(ValueError, match="zero instances"):
        FACTORIES[name]().fit([np.zeros((0, 3))] + good[1:], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="features"):
        FACTORIES[name]().fit([np.zeros((2, 2))] + good[1:], [0, 1, 0, 1])
    with pytest.raises(ValueError, match="labels"):
        FACTORIES[name]().fit(good, [0, 1])


def test_bad_params_and_predict_input(split):
    bags_tr, y_tr, _, _ = split
    with pytest.raises(ValueError):
        SimpleMIClassifier(method="median").fit(bags_tr, y_tr)
    with pytest.raises(ValueError):
        MIWrapperClassifier(method="median").fit(bags_tr, y_tr)
    with pytest.raises(ValueError, match="sample_weight"):
        MIWrapperClassifier(KNeighborsClassifier()).fit(bags_tr, y_tr)
    model = TLCClassifier(random_state=0).fit(bags_tr, y_tr)
    with pytest.raises(ValueError, match="features"):
        model.predict([np.zeros((2, 5))])


# ------------------------------------------------------------------------------------------
# musk1, bag-level stratified 10-fold (needs the benchmark files)
# ------------------------------------------------------------------------------------------

# Table 4.3 / journal Table 3, musk1 row. SimpleMI, MIWrapper and MIBoost equal the
# majority-class rate 47/92 (constant Weka runs); the Bagging value is a permuted TLC value.
PAPER_MUSK1 = {
    "simple_mi": 0.5109,
    "mi_wrapper": 0.5109,
    "miboost": 0.5109,
    "tlc": 0.8587,
    "tlc_bagging": 0.8142,
    "tlc_stacking": 0.8587,
}
MUSK1_MODELS = {
    "simple_mi": lambda f: SimpleMIClassifier(random_state=f),
    "mi_wrapper": lambda f: MIWrapperClassifier(random_state=f),
    "miboost": lambda f: MIBoostClassifier(random_state=f),
    "tlc": lambda f: TLCClassifier(random_state=f),
    "tlc_bagging": lambda f: make_tlc_bagging(random_state=f),
    "tlc_stacking": lambda f: TLCStackingClassifier(random_state=f),
}
# Regression snapshot: measured with this code (z-scored per training fold, pooled over the 10
# folds, seed-0 folds); no published value exists for these configurations (see below).
MEASURED_MUSK1 = {
    "simple_mi": 0.8370,
    "mi_wrapper": 0.7609,
    "miboost": 0.6304,  # = Weka 3.6 MIBoost -W DecisionStump on the same folds (parity test)
    "tlc": 0.7826,
    "tlc_bagging": 0.7935,
    "tlc_stacking": 0.8587,
}
# The TLC rows are real learners in the paper too: our value must be near the published one.
PAPER_TOLERANCE = {"tlc": 0.08, "tlc_bagging": 0.05, "tlc_stacking": 0.05}


@pytest.mark.slow
@pytest.mark.data
@pytest.mark.snapshot
@pytest.mark.parametrize(
    "name", ["simple_mi", "mi_wrapper", "miboost", "tlc", "tlc_bagging", "tlc_stacking"]
)
def test_musk1_ten_fold_accuracy_regression_snapshot(name, musk1_ten_fold):
    """Regression snapshot (MEASURED_MUSK1, measured with this code) beside real checks.

    Real checks: the TLC rows against the published accuracy (PAPER_TOLERANCE); SimpleMI,
    MIWrapper and MIBoost against the published column reproduced with the paper's ZeroR base
    learner (:func:`test_musk1_published_zero_r_columns`) and SimpleMI against an independent
    bag-mean + scikit-learn SVC (:func:`test_musk1_simple_mi_matches_an_independent_bag_mean_svc`).
    MIWrapper's and MIBoost's own numbers with a real base learner have no independent reference.
    """
    accuracy = musk1_ten_fold(MUSK1_MODELS[name], ignore=(Warning,))
    print(f"musk1 {name} pooled 10-fold accuracy {accuracy:.4f} (paper {PAPER_MUSK1[name]})")
    assert accuracy >= 0.60  # all clearly above the 0.5109 majority rate
    if name in PAPER_TOLERANCE:
        assert accuracy >= PAPER_MUSK1[name] - PAPER_TOLERANCE[name]
    assert accuracy == pytest.approx(MEASURED_MUSK1[name], abs=0.03)  # the snapshot


@pytest.mark.data
@pytest.mark.parametrize("name", ["simple_mi", "mi_wrapper", "miboost"])
def test_musk1_published_zero_r_columns(name, musk1_ten_fold):
    """The published SimpleMI / MIWrapper / MIBoost musk1 accuracy (0.5109 = 47/92) is what the
    methods give with Weka's default base learner ZeroR (a majority-class DummyClassifier)."""
    zero_r = DummyClassifier(strategy="most_frequent")
    makers = {
        "simple_mi": lambda f: SimpleMIClassifier(estimator=zero_r, random_state=f),
        "mi_wrapper": lambda f: MIWrapperClassifier(estimator=zero_r, random_state=f),
        "miboost": lambda f: MIBoostClassifier(estimator=zero_r, random_state=f),
    }
    accuracy = musk1_ten_fold(makers[name], ignore=(Warning,))
    assert accuracy == pytest.approx(PAPER_MUSK1[name], abs=5e-5)


class _BagMeanSVC:
    """SimpleMI written out independently: each bag's mean instance, then an RBF SVC."""

    def fit(self, bags, y):
        self.svc = SVC(kernel="rbf", C=1.0, gamma="scale").fit([b.mean(axis=0) for b in bags], y)
        return self

    def predict(self, bags):
        return self.svc.predict([b.mean(axis=0) for b in bags])


@pytest.mark.data
def test_musk1_simple_mi_matches_an_independent_bag_mean_svc(musk1_ten_fold):
    ours = musk1_ten_fold(MUSK1_MODELS["simple_mi"], ignore=(Warning,))
    assert ours == musk1_ten_fold(lambda fold: _BagMeanSVC())
