"""PrecisionNaiveBayes: Weka's NaiveBayes (precision rounding, sd floor, interval likelihood).

The formulas are checked by hand on tiny data; the real Weka 3.6 NaiveBayes is run on a small
weighted data set when Java and weka.jar are present (`make weka`).
"""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
from scipy.stats import norm
from sklearn.base import clone
from sklearn.utils.estimator_checks import check_estimator

from svmlab.estimators.mil.weka import find_java, find_weka_jar
from svmlab.estimators.weka.naive_bayes import PrecisionNaiveBayes, attribute_precision
from svmlab.testing import essential_checks


@pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)
def test_essential_checks(check):
    check(type(PrecisionNaiveBayes()).__name__, PrecisionNaiveBayes())


def test_check_estimator():
    results = check_estimator(PrecisionNaiveBayes(), on_fail=None)
    failed = [
        (r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"
    ]
    assert not failed


def test_precision_is_the_mean_gap_between_distinct_values():
    X = np.array([[0.0, 5.0, 1.0], [0.5, 5.0, 1.0], [0.5, 5.0, 1.0], [2.0, 5.0, 1.0]])
    # column 0: distinct 0, 0.5, 2 -> (2 - 0) / 2; columns 1-2: a single value -> the default
    np.testing.assert_allclose(attribute_precision(X), [1.0, 0.01, 0.01])
    np.testing.assert_allclose(attribute_precision(X, default=0.1), [1.0, 0.1, 0.1])
    np.testing.assert_allclose(attribute_precision(X[:1]), [0.01, 0.01, 0.01])


def test_hand_computed_model():
    X = np.array([[0.0], [1.0], [1.0], [3.0], [4.0], [4.0]])
    y = np.array([0, 0, 0, 1, 1, 1])
    w = np.array([1.0, 2.0, 1.0, 1.0, 1.0, 2.0])
    m = PrecisionNaiveBayes().fit(X, y, sample_weight=w)
    delta = 4.0 / 3.0  # distinct values 0, 1, 3, 4
    np.testing.assert_allclose(m.precision_, [delta])
    r = np.rint(X[:, 0] / delta) * delta  # rounded training values
    for c in (0, 1):
        rc, wc = r[y == c], w[y == c]
        mu = np.sum(wc * rc) / wc.sum()
        sd = np.sqrt(np.sum(wc * (rc - mu) ** 2) / wc.sum())
        assert m.theta_[c, 0] == pytest.approx(mu)
        assert m.sigma_[c, 0] == pytest.approx(max(sd, delta / 6))
    np.testing.assert_allclose(m.class_prior_, [(4 + 1) / (8 + 2), (4 + 1) / (8 + 2)])
    x = 2.2
    rx = np.rint(x / delta) * delta
    like = [
        norm.cdf((rx - m.theta_[c, 0] + delta / 2) / m.sigma_[c, 0])
        - norm.cdf((rx - m.theta_[c, 0] - delta / 2) / m.sigma_[c, 0])
        for c in (0, 1)
    ]
    expected = m.class_prior_ * np.maximum(like, 1e-75)
    np.testing.assert_allclose(m.predict_proba([[x]])[0], expected / expected.sum(), rtol=1e-9)


def test_constant_class_gets_the_sd_floor_and_zero_weight_rows_are_ignored():
    X = np.array([[1.0], [1.0], [2.0], [4.0], [100.0]])
    y = np.array([0, 0, 1, 1, 1])
    m = PrecisionNaiveBayes().fit(X, y, sample_weight=[1, 1, 1, 1, 0])
    assert m.precision_[0] == pytest.approx(1.5)  # 1, 2, 4: the 100 has weight zero
    assert m.sigma_[0, 0] == pytest.approx(1.5 / 6)
    ref = PrecisionNaiveBayes().fit(X[:4], y[:4])
    np.testing.assert_allclose(m.predict_proba(X), ref.predict_proba(X))


def test_ties_go_to_the_first_class_and_labels_are_kept():
    X = np.array([[0.0], [1.0], [0.0], [1.0]])
    m = PrecisionNaiveBayes().fit(X, ["b", "a", "a", "b"])
    assert list(m.classes_) == ["a", "b"]
    np.testing.assert_allclose(m.predict_proba(X), 0.5)
    assert list(m.predict(X)) == ["a"] * 4


def test_a_class_that_underflows_stays_at_zero():
    # 40 features that each give class 1 the floor 1e-75: its running product underflows to
    # zero and no later feature can bring it back (Weka's product with rescaling)
    rng = np.random.RandomState(0)
    X0 = rng.normal(0, 1, size=(20, 60))
    X1 = rng.normal(50, 1, size=(20, 60))
    X1[:, 40:] = rng.normal(0, 1, size=(20, 20))
    m = PrecisionNaiveBayes().fit(np.vstack([X0, X1]), [0] * 20 + [1] * 20)
    x = np.zeros((1, 60))
    x[0, 40:] = 50.0  # the last 20 features would favour class 1 overwhelmingly
    assert m.predict_proba(x)[0, 1] == 0.0


def test_any_feature_count_after_clone():
    rng = np.random.RandomState(1)
    X, y = rng.normal(size=(30, 5)), rng.randint(0, 2, 30)
    m = PrecisionNaiveBayes()
    assert clone(m).fit(X[:, [0, 3]], y).predict(X[:, [0, 3]]).shape == (30,)
    assert m.fit(X[:, :4], y).n_features_in_ == 4
    with pytest.raises(ValueError, match="features"):
        m.predict(X)


def _write_arff(path, X, y, w=None):
    lines = ["@relation t"] + [f"@attribute a{j} numeric" for j in range(X.shape[1])]
    lines += ["@attribute class {0,1}", "@data"]
    for i in range(len(X)):
        row = ",".join(repr(float(v)) for v in X[i]) + f",{int(y[i])}"
        if w is not None:
            row += "," + "{" + repr(float(w[i])) + "}"
        lines.append(row)
    path.write_text("\n".join(lines) + "\n")


@pytest.mark.weka
def test_equals_weka_naive_bayes(tmp_path):
    """Weka 3.6 NaiveBayes on weighted data with attributes of very different scales, a rounded
    one, a constant one and enough of them to make products underflow: same predictions, same
    distributions to Weka's three printed decimals."""
    rng = np.random.RandomState(3)
    n, d = 160, 40
    X = rng.normal(size=(n, d)) * rng.choice([1e-3, 1.0, 30.0], size=d) + rng.choice([0, 1e3], d)
    X[:, 1] = np.round(X[:, 1], 1)
    X[:, 2] = 3.0
    y = ((X[:, 0] - X[:, 0].mean()) / X[:, 0].std() + rng.normal(size=n) > 0.3).astype(int)
    X[y == 1, 5:25] += 4.0 * X[:, 5:25].std(axis=0)
    w = rng.uniform(0.2, 3.0, size=n)
    tr, te = np.arange(0, 120), np.arange(120, n)
    _write_arff(tmp_path / "tr.arff", X[tr], y[tr], w[tr])
    _write_arff(tmp_path / "te.arff", X[te], y[te])
    command = [find_java(), "-cp", str(find_weka_jar()), "weka.classifiers.bayes.NaiveBayes"]
    command += ["-t", str(tmp_path / "tr.arff"), "-T", str(tmp_path / "te.arff")]
    out = subprocess.run([*command, "-p", "0", "-distribution"], capture_output=True, text=True)
    rows = [line.split() for line in out.stdout.splitlines() if re.match(r"\s+\d+\s", line)]
    assert len(rows) == len(te), out.stdout + out.stderr
    weka_pred = np.array([int(r[2].split(":")[0]) - 1 for r in rows])
    weka_proba = np.array([[float(v.strip("*")) for v in r[-1].split(",")] for r in rows])
    m = PrecisionNaiveBayes().fit(X[tr], y[tr], sample_weight=w[tr])
    np.testing.assert_array_equal(m.predict(X[te]), weka_pred)
    np.testing.assert_allclose(m.predict_proba(X[te]), weka_proba, atol=6e-4)
