"""The confusion matrix svmlab counts equals scikit-learn's, for every kind of label."""

import numpy as np
import pytest
from sklearn.metrics import confusion_matrix

from svmlab.evaluation.metrics.classification import confusion


@pytest.mark.parametrize("kind", ["int", "str", "float", "object"])
def test_confusion_equals_scikit_learns(kind):
    rng = np.random.default_rng(0)
    for _ in range(200):
        k = int(rng.integers(2, 7))
        labels = {
            "int": np.arange(k) * 3 - 4,
            "str": np.array([f"c{i}" for i in range(k)]),
            "float": np.arange(k) * 2.0 - 1,
            "object": np.array([f"c{i}" for i in range(k)], dtype=object),
        }[kind]
        classes = rng.permutation(labels)
        n = int(rng.integers(1, 40))
        y_true, y_pred = classes[rng.integers(0, k, n)], classes[rng.integers(0, k, n)]
        got, want = (
            confusion(y_true, y_pred, classes),
            confusion_matrix(y_true, y_pred, labels=classes),
        )
        assert got.dtype == want.dtype and np.array_equal(got, want)


def test_no_samples_is_an_error():
    with pytest.raises(ValueError, match="no samples"):
        confusion(np.array([]), np.array([]), np.array([0, 1]))
