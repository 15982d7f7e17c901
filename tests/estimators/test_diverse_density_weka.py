"""MIDD and EM-DD follow Weka 3.6's MIDD and MIEMDD (filter, starts, objective, optimiser,
EM rules, prediction); the real-Weka comparisons skip without Java / weka.jar."""

import math

import numpy as np
import pytest

from svmlab.estimators.mil._bags import check_bags
from svmlab.estimators.mil.diverse_density import (
    DiverseDensityClassifier,
    EMDDClassifier,
    emdd_negative_log_likelihood,
    weka_emdd_start_bags,
    weka_filter,
)
from svmlab.estimators.mil.weka import WekaMIClassifier
from svmlab.estimators.weka.java_random import JavaRandom
from svmlab.estimators.weka.optimization import WEKA_ZERO, WekaQuasiNewton


def _bags(seed=0, n=24, d=2):
    """Positive bags hold one instance near (2, 2, ...); negatives only background."""
    rng = np.random.default_rng(seed)
    bags, y = [], []
    for i in range(n):
        b = rng.normal(0.0, 1.0, size=(rng.integers(2, 6), d))
        if i % 2:
            b[rng.integers(len(b))] = rng.normal(2.0, 0.3, size=d)
        bags.append(b)
        y.append(i % 2)
    return bags, np.array(y)


def test_java_random_is_bit_for_bit():
    # values printed by java.util.Random (OpenJDK) for these seeds
    r = JavaRandom(1)
    assert [r.next_int(91) for _ in range(5)] == [4, 39, 85, 35, 90]
    assert JavaRandom(42).next_int(16) == 11  # the power-of-two branch


def test_emdd_start_bags_as_weka():
    positive = np.array([True, False, True, True, False, True])
    bags = weka_emdd_start_bags(positive, 3, seed=1)
    assert len(set(bags)) == 3 and all(positive[b] for b in bags)
    assert 5 not in bags  # Weka draws from nextInt(n_bags - 1): the last bag never
    # fewer drawable positive bags than asked (Weka would loop forever): all positives
    assert weka_emdd_start_bags(np.array([True, False, True]), 3, seed=1) == [0, 2]


def test_weka_filter():
    X = np.array([[1.0, 5.0], [3.0, 5.0], [8.0, 5.0]])
    offset, scale = weka_filter(X, "standard")
    np.testing.assert_allclose(offset, [4.0, 5.0])
    np.testing.assert_allclose(scale, [np.std(X[:, 0], ddof=1), 1.0])  # sample sd, as Weka
    offset, scale = weka_filter(X, "minmax")
    np.testing.assert_allclose((np.array([[2.0, 7.0]]) - offset) / scale, [[1 / 7, 0.0]])


def test_midd_starts_from_the_largest_positive_bags():
    bags, y = _bags(1)
    sizes = np.array([len(b) for b in bags])
    m = DiverseDensityClassifier(max_iter=5).fit(bags, y)
    big = np.flatnonzero((y == 1) & (sizes == sizes[y == 1].max()))
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    expected = np.concatenate([starts[b] + np.arange(sizes[b]) for b in big])
    np.testing.assert_array_equal(m.fit_info_["start_rows"], expected)
    every = DiverseDensityClassifier(start_from="positive_bags", max_iter=5).fit(bags, y)
    assert every.fit_info_["n_starts"] == sizes[y == 1].sum()


def test_emdd_objective_gradient():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(6, 3))
    positive = np.array([True, False, True, False, False, True])
    params = np.concatenate([rng.normal(size=3), rng.uniform(0.3, 1.2, 3)])

    def brute(v):
        p = np.exp(-(((X - v[:3]) ** 2) * v[3:] ** 2).sum(axis=1))
        return -np.sum(np.log(np.maximum(np.where(positive, p, 1 - p), WEKA_ZERO)))

    val, grad = emdd_negative_log_likelihood(params, X, positive)
    assert val == pytest.approx(brute(params), rel=1e-12)
    num = [(brute(params + 1e-6 * e) - brute(params - 1e-6 * e)) / 2e-6 for e in np.eye(6)]
    np.testing.assert_allclose(grad, num, rtol=1e-5, atol=1e-7)


def test_weka_quasi_newton_minimises():
    def rosen(x):
        f = (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2
        g = np.array([-2 * (1 - x[0]) - 400 * x[0] * (x[1] - x[0] ** 2), 200 * (x[1] - x[0] ** 2)])
        return f, g

    x, f, done = WekaQuasiNewton(rosen).minimize(np.array([-1.2, 1.0]))
    assert done and f < 1e-8
    np.testing.assert_allclose(x, [1.0, 1.0], atol=1e-4)


def test_midd_crosses_the_floored_plateau():
    # far apart in 8 standardised dimensions, every other positive bag is floored at the
    # start: Weka's expanding line search still moves (SciPy's L-BFGS-B stops at once)
    bags, y = _bags(2, n=30, d=8)
    weka = DiverseDensityClassifier().fit(bags, y)
    assert np.all(weka.fit_info_["final_values"] <= weka.fit_info_["start_values"] + 1e-9)
    assert np.mean(weka.predict(bags) == y) >= 0.8


def test_fits_on_a_column_subset():
    # inside a feature-selection wrapper: the same bags, some columns
    bags, y = _bags(3, d=4)
    sub = [b[:, [0, 2]] for b in bags]
    for cls in (DiverseDensityClassifier, EMDDClassifier):
        m = cls(max_starts=3).fit(sub, y)
        assert m.n_features_in_ == 2 and m.predict(sub).shape == (len(y),)


def test_emdd_keeps_the_fewest_training_errors():
    bags, y = _bags(4, n=12)
    m = EMDDClassifier().fit(bags, y)
    info = m.fit_info_
    assert info["training_error"] == info["training_errors"].min()
    first = int(np.argmin(info["training_errors"]))  # the first of the fewest
    assert info["final_values"][first] == info["neg_log_likelihood"]
    assert np.all(info["em_iterations"] <= 10)
    X, _, _ = check_bags(bags)
    assert math.isfinite(info["neg_log_likelihood"]) and len(X) > info["n_starts"]


@pytest.mark.weka
@pytest.mark.parametrize(
    "native, classname",
    [(DiverseDensityClassifier, "MIDD"), (EMDDClassifier, "MIEMDD")],
)
def test_same_predictions_as_real_weka(native, classname):
    bags, y = _bags(5, n=30, d=3)
    test_bags, _ = _bags(6, n=30, d=3)
    ours = native().fit(bags, y).predict(test_bags)
    weka = WekaMIClassifier(f"weka.classifiers.mi.{classname}", timeout=600).fit(bags, y)
    assert np.mean(ours == weka.predict(test_bags)) >= 0.95
