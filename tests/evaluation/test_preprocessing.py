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
