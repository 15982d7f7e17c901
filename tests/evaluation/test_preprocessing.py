import numpy as np
import pytest

from svmlab.data.dataset import Dataset
from svmlab.errors import ConfigError
from svmlab.evaluation.preprocessing import Preprocessor


def _ds(X, **kw):
    return Dataset(name="t", task=kw.pop("task", "binary"), X=np.asarray(X, float), **kw)


def test_zscore_uses_training_statistics_only():
    train = _ds([[0.0, 1.0], [2.0, 1.0]], y=[0, 1])
    test = _ds([[4.0, 3.0]], y=[1])
    pre = Preprocessor("zscore").fit(train)
    assert np.allclose(
        pre.transform(train).X, [[-1, 0], [1, 0]]
    )  # constant column: centred, scale 1
    assert np.allclose(pre.transform(test).X, [[3, 2]])


def test_minmax_and_impute():
    train = _ds([[0.0, np.nan], [10.0, 4.0], [5.0, 2.0]], y=[0, 1, 0])
    pre = Preprocessor("minmax", impute="mean").fit(train)
    out = pre.transform(train).X
    assert np.allclose(out[:, 0], [0, 1, 0.5])
    assert np.allclose(out[0, 1], 0.5)  # NaN -> mean 3 -> (3-2)/2


def test_multitarget_scaling_and_bags_follow_rows():
    Y = np.array([[1.0, 10.0], [3.0, 30.0], [np.nan, 20.0]])
    ds = _ds(np.ones((3, 1)), task="multitarget", Y=Y)
    out = Preprocessor("none", Y="zscore").fit(ds).transform(ds).Y
    assert np.allclose(np.nanmean(out, axis=0), 0) and np.isnan(out[2, 0])
    mi = _ds([[0.0], [2.0], [4.0]], task="multi_instance", y=[0, 1], bag_ids=[0, 1, 1])
    t = Preprocessor("zscore").fit(mi).transform(mi)
    assert [b.shape[0] for b in t.bags] == [1, 2]


def test_bad_option_names_valid_choices():
    with pytest.raises(ConfigError, match="zscore, minmax, none"):
        Preprocessor("standard")


def test_bag_weights_reach_fit_only_when_asked():
    mi = _ds([[0.0], [2.0], [4.0]], task="multi_instance", y=[0, 1], bag_ids=[0, 1, 1])
    mi = mi.subset([0, 1])
    weighted = type(mi)(**{**mi.__dict__, "meta": {"bag_weights": np.array([3.0, 5.0])}})
    part = weighted.subset([1])
    assert Preprocessor().fit_weights(part) == {}
    fit = Preprocessor(bag_weights="fit").fit_weights(part)
    assert fit["sample_weight"].tolist() == [5.0]
    assert Preprocessor(bag_weights="fit").fit_weights(mi)["sample_weight"].tolist() == [1.0, 1.0]
    with pytest.raises(ConfigError, match="ignore, fit"):
        Preprocessor(bag_weights="yes")


class _WeightedMajority:
    """A multi-instance majority vote that counts bag weights."""

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self

    def fit(self, bags, y, sample_weight=None):
        w = np.ones(len(y)) if sample_weight is None else sample_weight
        labels = np.unique(y)
        self.label_ = labels[np.argmax([w[y == c].sum() for c in labels])]
        return self

    def predict(self, bags):
        return np.full(len(bags), self.label_)


def test_fit_and_score_trains_on_the_bag_weights(monkeypatch):
    from svmlab.evaluation import evaluate
    from svmlab.solvers import SolverSpec

    # three light negative bags, one heavy positive bag
    X = np.arange(5.0)[:, None]
    mi = _ds(X, task="multi_instance", y=[0, 0, 0, 1], bag_ids=[0, 1, 2, 3, 3])
    mi = type(mi)(**{**mi.__dict__, "meta": {"bag_weights": np.array([1.0, 1.0, 1.0, 9.0])}})
    # a bag estimator's contract (the target's class), built as the weighted majority below
    spec = SolverSpec.from_config({"name": "wm", "_target_": "svmlab.testing.MeanBagClassifier"})
    monkeypatch.setattr(SolverSpec, "build", lambda self, *a, **k: _WeightedMajority())
    for how, expected in (("ignore", 0), ("fit", 1)):
        ev = evaluate.fit_and_score(
            spec, {}, mi, mi, preprocessing={"bag_weights": how}, classes=np.array([0, 1])
        )
        assert ev.metrics["accuracy"] == (0.75 if expected == 0 else 0.25), how
