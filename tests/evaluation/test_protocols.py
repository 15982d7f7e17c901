import numpy as np
import pytest

from svmlab.errors import ConfigError
from svmlab.evaluation.protocols import (
    BagStratifiedKFold,
    KFold,
    Prequential,
    StratifiedKFold,
    get_protocol,
    make_splits,
    stratified_fold_ids,
)


def check_protocol(config, task, dataset):
    return get_protocol(config).check(task, dataset)


CV10 = {"name": "cv10", "kind": "auto_kfold", "n_splits": 10, "n_repeats": 1}


def test_auto_kind_follows_task():
    cv = get_protocol(CV10)
    assert type(cv.for_task("binary")) is StratifiedKFold
    assert type(cv.for_task("multi_instance")) is BagStratifiedKFold
    assert type(cv.for_task("regression")) is KFold
    assert type(cv.for_task("multitarget")) is KFold
    assert cv.for_task("binary").n_folds == 10 and cv.for_task("binary").name == "cv10"


def test_protocols_are_splitters_with_split():
    """A protocol object splits like a scikit-learn splitter and equals make_splits."""
    y = np.repeat([0, 1], 20)
    cv = get_protocol({"name": "s", "kind": "stratified_kfold", "n_splits": 4, "n_repeats": 2})
    splits = list(cv.split(y, seed=0, dataset="d"))
    assert [(s.repeat, s.fold) for s in splits] == [(r, f) for r in range(2) for f in range(4)]
    again = make_splits(cv.as_dict(), "binary", y, seed=0, dataset="d")
    assert all(np.array_equal(a.test, b.test) for a, b in zip(splits, again))


def test_unknown_protocol_fields_are_named():
    with pytest.raises(ConfigError, match="has no field 'n_split'.*valid fields"):
        get_protocol({"name": "x", "kind": "kfold", "n_split": 5})
    with pytest.raises(ConfigError, match="update must be one of"):
        get_protocol({"name": "p", "kind": "prequential", "chunk_size": 10, "update": "x"})


def test_splits_partition_and_are_deterministic():
    y = np.repeat([0, 1, 2], [50, 30, 20])
    a = make_splits(CV10, "multiclass", y, seed=0, dataset="d")
    b = make_splits(CV10, "multiclass", y, seed=0, dataset="d")
    assert len(a) == 10
    tests = np.concatenate([s.test for s in a])
    assert sorted(tests) == list(range(100))  # every sample tested exactly once
    for s, t in zip(a, b):
        assert np.array_equal(s.test, t.test)
        assert not set(s.train) & set(s.test)
    c = make_splits(CV10, "multiclass", y, seed=1, dataset="d")
    assert any(not np.array_equal(s.test, t.test) for s, t in zip(a, c))


def test_stratification_spreads_every_class():
    y = np.repeat([0, 1], [70, 30])
    for s in make_splits(CV10, "binary", y, seed=3, dataset="d"):
        assert np.sum(y[s.test] == 1) == 3
        assert np.sum(y[s.test] == 0) == 7


def test_fewer_members_than_folds_still_splits():
    # Suramin: 13 bags (7 positive, 6 negative) in 10 folds.
    y = np.array([1] * 7 + [0] * 6)
    folds = stratified_fold_ids(y, 10, random_state=0)
    sizes = np.bincount(folds, minlength=10)
    assert sizes.sum() == 13 and sizes.max() - sizes.min() <= 1


def test_repeats_differ_and_holdout_sizes():
    y = np.repeat([0, 1], 50)
    rep = {"name": "r", "kind": "auto_kfold", "n_splits": 2, "n_repeats": 5}
    splits = make_splits(rep, "binary", y, seed=0, dataset="d")
    assert len(splits) == 10 and {s.repeat for s in splits} == set(range(5))
    assert not np.array_equal(splits[0].test, splits[2].test)
    ho = make_splits(
        {"name": "h", "kind": "holdout", "test_size": 0.3}, "binary", y, seed=0, dataset="d"
    )
    assert len(ho) == 1 and len(ho[0].test) == 30


def test_regression_kfold_and_incompatibilities():
    y = np.arange(25.0)
    splits = make_splits(
        {"name": "k", "kind": "kfold", "n_splits": 5}, "regression", y, seed=0, dataset="d"
    )
    assert sorted(np.concatenate([s.test for s in splits])) == list(range(25))
    with pytest.raises(ConfigError, match="stratifies on class labels"):
        check_protocol(
            {"name": "stratified10", "kind": "stratified_kfold", "n_splits": 10},
            "regression",
            "slump",
        )
    with pytest.raises(ConfigError, match="splits bags"):
        check_protocol(
            {"name": "b", "kind": "bag_stratified_kfold", "n_splits": 10}, "binary", "iris"
        )
    with pytest.raises(ConfigError, match="unknown kind"):
        check_protocol({"name": "x", "kind": "loo"}, "binary", "iris")
    with pytest.raises(ConfigError, match="n_splits"):
        check_protocol({"name": "x", "kind": "kfold", "n_splits": 1}, "regression", "d")


def test_stream_chunks_cover_in_order():
    chunks = Prequential("p", chunk_size=1000).chunks(2500)
    assert chunks == [(0, 1000), (1000, 2000), (2000, 2500)]
    assert Prequential("p", chunk_size=1000, max_samples=1500).chunks(2500) == [
        (0, 1000),
        (1000, 1500),
    ]


def test_bag_level_folds_never_split_a_bag():
    from svmlab.data.registry import load_dataset

    ds = load_dataset("mi_bags")
    protocol = {"name": "b", "kind": "bag_stratified_kfold", "n_splits": 10, "n_repeats": 1}
    seen = []
    for s in make_splits(protocol, ds.task, ds.y, seed=0, dataset=ds.name):
        train, test = ds.subset(s.train), ds.subset(s.test)
        # every instance of a test bag is in the test part and none in the training part
        assert test.n_instances == sum(int(np.sum(ds.bag_ids == b)) for b in s.test)
        assert train.n_instances + test.n_instances == ds.n_instances
        assert not set(s.train) & set(s.test)
        seen.extend(s.test)
    assert sorted(seen) == list(range(ds.n_bags))
