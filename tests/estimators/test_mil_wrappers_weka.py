"""MIWrapper and SimpleMI reproduce Weka 3.6's weka.classifiers.mi.MIWrapper / SimpleMI.

Unit checks of the Weka options (-A weights, -P combinations, -M embeddings, ZeroR ties) run
everywhere; the real Weka comparisons on a small synthetic problem (one split, about a second
per Weka run) are skipped when Java or weka.jar is absent (`make weka`). The 10-fold parity on
real data is tests/estimators/test_weka_parity.py.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.dummy import DummyClassifier
from sklearn.utils.estimator_checks import check_estimator

from svmlab.data.synthetic import mi_bags
from svmlab.estimators.mil.embedding import SimpleMIClassifier, embed_bags
from svmlab.estimators.mil.weka import WekaMIClassifier
from svmlab.estimators.mil.wrapper import MIWrapperClassifier, _bag_sums, instance_weights
from svmlab.estimators.weka.naive_bayes import PrecisionNaiveBayes
from svmlab.estimators.weka.zero_r import ZeroRClassifier
from svmlab.testing import essential_checks

NB = "-W weka.classifiers.bayes.NaiveBayes"


@pytest.fixture(scope="module")
def problem():
    """A hard-ish synthetic MI problem (bag probabilities away from 0 and 1), split in two."""
    ds = mi_bags(n_bags=40, n_features=3, bag_size=(2, 6), separation=1.5, random_state=4)
    bags, y = [np.asarray(b) * [1.0, 10.0, 0.01] for b in ds.bags], np.asarray(ds.y)
    return bags[::2], y[::2], bags[1::2], y[1::2]


class _Lookup(DummyClassifier):
    """Instance learner with P(classes_[1] | x) = x[0]."""

    def fit(self, X, y, sample_weight=None):
        self.classes_ = np.array([0, 1])
        return self

    def predict_proba(self, X):
        return np.column_stack([1 - X[:, 0], X[:, 0]])


def test_weight_methods():
    sizes = np.array([1, 4, 7, 2])
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    w3 = instance_weights(sizes, "bag_scaled")  # Weka -A 3: N / (n_bags |B|)
    np.testing.assert_allclose(w3, np.repeat(14 / (4 * sizes), sizes))
    np.testing.assert_allclose(np.add.reduceat(w3, starts), 14 / 4)
    np.testing.assert_allclose(instance_weights(sizes, "bag"), np.repeat(1 / sizes, sizes))
    np.testing.assert_allclose(instance_weights(sizes, "none"), 1.0)
    assert MIWrapperClassifier().weighting == "bag_scaled"
    assert MIWrapperClassifier().method == "arithmetic"


def test_combinations_follow_weka():
    bags = [np.array([[0.0005], [0.9]]), np.array([[0.2], [0.8], [0.7]])]
    fit = {
        m: MIWrapperClassifier(_Lookup(), method=m).fit(bags, [0, 1])
        for m in ("arithmetic", "geometric", "max")
    }
    np.testing.assert_allclose(fit["arithmetic"].predict_proba(bags)[:, 1], [0.45025, 1.7 / 3])
    # geometric: each class's probability clipped to [0.001, 0.999], geometric mean, normalised
    g1, g0 = np.sqrt(0.001 * 0.9), np.sqrt(0.999 * 0.1)
    assert fit["geometric"].predict_proba(bags)[0, 1] == pytest.approx(g1 / (g0 + g1))
    old = MIWrapperClassifier(_Lookup(), method="geometric", clip=1e-12).fit(bags, [0, 1])
    g1 = np.sqrt(0.0005 * 0.9)
    assert old.predict_proba(bags)[0, 1] == pytest.approx(g1 / (np.sqrt(0.9995 * 0.1) + g1))
    np.testing.assert_allclose(fit["max"].predict_proba(bags), [[0.1, 0.9], [0.2, 0.8]])


def test_all_zero_distribution_is_uniform():
    class Zero(_Lookup):
        def predict_proba(self, X):
            return np.zeros((X.shape[0], 2))

    m = MIWrapperClassifier(Zero()).fit([np.ones((2, 1)), np.ones((1, 1))], ["a", "b"])
    np.testing.assert_allclose(m.predict_proba([np.ones((3, 1))]), [[0.5, 0.5]])
    assert m.predict([np.ones((3, 1))])[0] == "a"  # a tie goes to classes_[0]


def test_bag_sums_add_in_instance_order():
    rng = np.random.RandomState(0)
    sizes = np.array([3, 1, 9])
    V = rng.normal(size=(13, 2)) * 10.0 ** rng.randint(-8, 8, size=(13, 2))
    starts = np.r_[0, np.cumsum(sizes)[:-1]]
    expected = []
    for s, n in zip(starts, sizes, strict=True):
        acc = [0.0, 0.0]
        for i in range(s, s + n):
            acc = [acc[0] + V[i, 0], acc[1] + V[i, 1]]
        expected.append(acc)
    assert np.array_equal(_bag_sums(V, starts, sizes), np.array(expected))


def test_simple_mi_embeddings():
    bags = [np.array([[1.0, -1.0], [3.0, 5.0], [2.0, 2.0]])]
    np.testing.assert_allclose(embed_bags(bags, "mean"), [[2.0, 2.0]])  # Weka -M 1
    np.testing.assert_allclose(embed_bags(bags, "center"), [[2.0, 2.0]])  # -M 2
    np.testing.assert_allclose(embed_bags(bags, "minmax"), [[1.0, -1.0, 3.0, 5.0]])  # -M 3
    np.testing.assert_allclose(embed_bags([bags[0][:2]], "center"), [[2.0, 2.0]])


@pytest.mark.parametrize("method", ["arithmetic", "geometric", "max"])
def test_zero_r_tie_predicts_the_first_class(method):
    # balanced training bags: Weka's ZeroR (and DummyClassifier) tie, both take classes_[0]
    bags = [np.full((k, 2), float(k)) for k in (1, 2, 3, 4)]
    for zero_r in (ZeroRClassifier(), DummyClassifier(strategy="prior")):
        wrapper = MIWrapperClassifier(zero_r, method=method).fit(bags, ["x", "y", "y", "x"])
        assert set(wrapper.predict(bags)) == {"x"}
        simple = SimpleMIClassifier(zero_r).fit(bags, ["x", "y", "y", "x"])
        assert set(simple.predict(bags)) == {"x"}


@pytest.mark.parametrize(
    "model",
    [
        MIWrapperClassifier(),
        MIWrapperClassifier(method="geometric", weighting="bag"),
        SimpleMIClassifier(PrecisionNaiveBayes(), method="minmax"),
        SimpleMIClassifier(PrecisionNaiveBayes(), method="center"),
    ],
    ids=["miw", "miw_geometric", "simple_minmax", "simple_center"],
)
def test_column_subsets_as_in_a_feature_selection_wrapper(model, problem):
    bags_tr, y_tr, bags_te, _ = problem
    for cols in ([0, 2], [1], [2, 1, 0]):
        m = clone(model).fit([b[:, cols] for b in bags_tr], y_tr)
        assert m.predict([b[:, cols] for b in bags_te]).shape == (len(bags_te),)
    refit = model.fit([b[:, [1]] for b in bags_tr], y_tr)
    assert refit.n_features_in_ == 1
    with pytest.raises(ValueError):
        refit.predict(bags_te)


WEKA_CASES = {
    "miw_P1_A3": (MIWrapperClassifier(), "MIWrapper", f"-P 1 -A 3 {NB}"),
    "miw_P2_A3": (MIWrapperClassifier(method="geometric"), "MIWrapper", f"-P 2 -A 3 {NB}"),
    "miw_P3_A3": (MIWrapperClassifier(method="max"), "MIWrapper", f"-P 3 -A 3 {NB}"),
    "miw_P1_A2": (MIWrapperClassifier(weighting="bag"), "MIWrapper", f"-P 1 -A 2 {NB}"),
    "miw_P1_A1": (MIWrapperClassifier(weighting="none"), "MIWrapper", f"-P 1 -A 1 {NB}"),
    "smi_M1": (SimpleMIClassifier(PrecisionNaiveBayes()), "SimpleMI", f"-M 1 {NB}"),
    "smi_M2": (
        SimpleMIClassifier(PrecisionNaiveBayes(), method="center"),
        "SimpleMI",
        f"-M 2 {NB}",
    ),
}


@pytest.mark.weka
@pytest.mark.parametrize("case", sorted(WEKA_CASES))
def test_equals_weka(case, problem):
    """Same predictions as Weka, and distributions to Weka's three printed decimals."""
    native, classname, options = WEKA_CASES[case]
    bags_tr, y_tr, bags_te, _ = problem
    weka = WekaMIClassifier(classname=f"weka.classifiers.mi.{classname}", options=options)
    weka.fit(bags_tr, y_tr)
    native = clone(native).fit(bags_tr, y_tr)
    proba = native.predict_proba(bags_te)
    assert 0.05 < np.mean(np.abs(proba[:, 1] - 0.5)) < 0.45  # not a trivial problem
    np.testing.assert_array_equal(native.predict(bags_te), weka.predict(bags_te))
    np.testing.assert_allclose(proba, weka.predict_proba(bags_te), atol=6e-4)


@pytest.mark.weka
@pytest.mark.parametrize(
    "case",
    [
        (MIWrapperClassifier, "arithmetic", "weka.classifiers.mi.MIWrapper", ""),
        (MIWrapperClassifier, "geometric", "weka.classifiers.mi.MIWrapper", "-P 2"),
        (MIWrapperClassifier, "max", "weka.classifiers.mi.MIWrapper", "-P 3"),
        (SimpleMIClassifier, "mean", "weka.classifiers.mi.SimpleMI", ""),
    ],
    ids=["miw_P1", "miw_P2", "miw_P3", "smi"],
)
def test_zero_r_equals_weka_default(case, problem):
    """Weka's default base learner ZeroR is ZeroRClassifier: the same distributions, also when
    the training classes tie (3 + 3 bags), where the rounding of the -A 3 weight sums decides
    (MIWrapper then predicts classes_[1] in Weka, SimpleMI classes_[0])."""
    cls, method, classname, options = case
    bags_tr, y_tr, bags_te, _ = problem
    keep = np.r_[np.flatnonzero(y_tr == 0)[:3], np.flatnonzero(y_tr == 1)[:3]]
    for idx in (np.arange(len(y_tr)), keep):
        tr, ytr = [bags_tr[i] for i in idx], y_tr[idx]
        native = cls(ZeroRClassifier(), method=method).fit(tr, ytr)
        weka = WekaMIClassifier(classname=classname, options=options).fit(tr, ytr)
        np.testing.assert_array_equal(native.predict(bags_te), weka.predict(bags_te))
        np.testing.assert_allclose(
            native.predict_proba(bags_te), weka.predict_proba(bags_te), atol=6e-4
        )


@pytest.mark.weka
@pytest.mark.parametrize(
    "case",
    [
        (MIWrapperClassifier(weighting="original"), "MIWrapper", f"-P 1 -A 0 {NB}"),
        (MIWrapperClassifier(), "MIWrapper", f"-P 1 -A 3 {NB}"),
        (SimpleMIClassifier(PrecisionNaiveBayes()), "SimpleMI", f"-M 1 {NB}"),
    ],
    ids=["miw_A0", "miw_A3", "smi_M1"],
)
def test_bag_weights_as_weka(case, problem):
    """Bag weights: MIWrapper -A 0 spreads them over the bag's instances; -A 3 and SimpleMI
    ignore them, in Weka and natively."""
    native, classname, options = case
    bags_tr, y_tr, bags_te, _ = problem
    w = np.random.RandomState(0).uniform(0.1, 5.0, size=len(y_tr))
    weka = WekaMIClassifier(classname=f"weka.classifiers.mi.{classname}", options=options)
    weka.fit(bags_tr, y_tr, sample_weight=w)
    native = clone(native).fit(bags_tr, y_tr, sample_weight=w)
    np.testing.assert_array_equal(native.predict(bags_te), weka.predict(bags_te))
    np.testing.assert_allclose(
        native.predict_proba(bags_te), weka.predict_proba(bags_te), atol=6e-4
    )


# ------------------------------------------------------------------------------------------
# ZeroRClassifier on its own
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)
def test_zero_r_essential_checks(check):
    check("ZeroRClassifier", ZeroRClassifier())


def test_zero_r_check_estimator():
    results = check_estimator(ZeroRClassifier(), on_fail=None)
    failed = {r["check_name"] for r in results if r["status"] == "failed"}
    assert failed <= {"check_classifiers_train"}  # a constant classifier: low training accuracy


def test_zero_r_counts_start_at_one():
    X = np.zeros((5, 2))
    m = ZeroRClassifier().fit(X, ["b", "a", "b", "a", "b"], sample_weight=[1, 2, 1, 0.5, 0.5])
    np.testing.assert_allclose(m.counts_, [1 + 2.5, 1 + 2.5])
    np.testing.assert_allclose(m.predict_proba(X[:2]), 0.5)
    assert list(m.predict(X[:2])) == ["a", "a"]  # tie: the first class
    m = ZeroRClassifier().fit(X, [0, 1, 1, 1, 0])
    np.testing.assert_allclose(m.class_distribution_, [3 / 7, 4 / 7])
