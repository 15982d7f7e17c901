"""The transductive sets of Mierswa 2009, Table 5.1: sizes and their labeled/unlabeled split."""

import numpy as np
import pytest

from svmlab.data import load_dataset


@pytest.mark.parametrize(
    ("name", "n_labeled", "n_unlabeled"),
    [("four_clusters", 2, 2), ("three_clusters", 4, 146), ("moons_transductive", 7, 393)],
)
def test_table_5_1_sizes_and_a_disjoint_split_with_both_classes_labeled(
    name, n_labeled, n_unlabeled
):
    ds = load_dataset(name)
    split = ds.meta["predefined_split"]
    train, test = np.asarray(split["train"]), np.asarray(split["test"])
    assert (len(train), len(test)) == (n_labeled, n_unlabeled)
    assert sorted(np.r_[train, test].tolist()) == list(range(len(ds.y)))
    assert set(ds.y[train]) == {0, 1}


def test_four_clusters_is_a_1_by_8_rectangle_split_upper_from_lower():
    ds = load_dataset("four_clusters", {"cluster_std": 0.0})
    assert np.ptp(ds.X[:, 0]) == 1.0 and np.ptp(ds.X[:, 1]) == 8.0
    assert ((ds.X[:, 1] > 0) == (ds.y == 1)).all()
    assert np.abs(load_dataset("four_clusters").X - ds.X).max() < 0.2  # default: jittered corners
