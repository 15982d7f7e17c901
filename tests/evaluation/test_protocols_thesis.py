"""Hold-out training sizes and fixed splits, and the predefined protocol (Oliveira (2021))."""

import numpy as np
import pytest

from svmlab.errors import ConfigError
from svmlab.evaluation.protocols import Holdout, Predefined, get_protocol, make_splits

Y = np.repeat([0, 1], [60, 40])


def holdout(**fields):
    return get_protocol({"name": "h", "kind": "holdout", "test_size": None, **fields})


def test_train_size_count_fraction_and_mapping():
    (s,) = holdout(train_size=70).split(Y, seed=0, dataset="d", task="binary")
    assert (len(s.train), len(s.test)) == (70, 30)
    assert np.sum(Y[s.test] == 1) == 12  # still stratified
    (s,) = holdout(train_size=0.25).split(Y, seed=0, dataset="d", task="binary")
    assert (len(s.train), len(s.test)) == (25, 75)
    sizes = holdout(train_size={"d": 50, "e": 0.9})
    (s,) = sizes.split(Y, seed=0, dataset="d", task="binary")
    assert (len(s.train), len(s.test)) == (50, 50)
    (s,) = sizes.split(np.arange(20.0), seed=0, dataset="e", task="regression")
    assert (len(s.train), len(s.test)) == (18, 2)
    hash(sizes)  # the runner caches splits by protocol


def test_train_size_errors_are_clear():
    with pytest.raises(ConfigError, match="no entry for dataset 'x'; it lists d, e"):
        list(holdout(train_size={"d": 50, "e": 3}).split(Y, seed=0, dataset="x", task="binary"))
    with pytest.raises(ConfigError, match="either test_size or train_size"):
        get_protocol({"name": "h", "kind": "holdout", "test_size": 0.2, "train_size": 10})
    with pytest.raises(ConfigError, match="train_size for dataset 'd' must be a count"):
        holdout(train_size={"d": 1.5})
    with pytest.raises(ConfigError, match="leaves no test samples"):
        list(holdout(train_size=100).split(Y, seed=0, dataset="d", task="binary"))
    with pytest.raises(ConfigError, match="resample must be true or false"):
        holdout(train_size=10, resample="no")


def test_defaults_keep_existing_splits():
    """No new key in a configuration: the same splits as before (test_size 0.3, resampled)."""
    old = get_protocol({"name": "holdout", "kind": "holdout", "test_size": 0.3, "n_repeats": 3})
    assert old.resample and old.train_size is None
    assert old.as_dict() == {"name": "holdout", "kind": "holdout", "test_size": 0.3, "n_repeats": 3}
    a = list(old.split(Y, seed=0, dataset="d", task="binary"))
    b = list(Holdout("x", 3, test_size=0.3).split(Y, seed=0, dataset="d", task="binary"))
    assert all(np.array_equal(s.test, t.test) for s, t in zip(a, b))
    assert not np.array_equal(a[0].test, a[1].test)  # every repetition draws its own split


def test_resample_false_reuses_one_split():
    fixed = holdout(train_size=0.8, resample=False, n_repeats=4)
    splits = list(fixed.split(Y, seed=5, dataset="d", task="binary"))
    assert [s.repeat for s in splits] == [0, 1, 2, 3]
    assert all(np.array_equal(s.test, splits[0].test) for s in splits)
    (first,) = holdout(train_size=0.8).split(Y, seed=5, dataset="d", task="binary")
    assert np.array_equal(first.test, splits[0].test)  # the split of repetition 0


def test_predefined_yields_the_recorded_rows_every_repeat():
    rows = {"train": np.arange(0, 70), "test": np.arange(70, 100)}
    splits = make_splits(
        {"name": "p", "kind": "predefined", "n_repeats": 3}, "binary", Y, 0, "d", predefined=rows
    )
    assert len(splits) == 3 and isinstance(get_protocol({"kind": "predefined"}), Predefined)
    for s in splits:
        assert np.array_equal(s.train, rows["train"]) and np.array_equal(s.test, rows["test"])
    with pytest.raises(ConfigError, match="dataset 'd' has none"):
        make_splits({"name": "p", "kind": "predefined"}, "binary", Y, 0, "d")
