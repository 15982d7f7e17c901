"""Duplicated rows and bags, and those with conflicting labels (svmlab.data.duplicates)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from svmlab.data import Dataset
from svmlab.data.duplicates import (
    Duplicates,
    duplicate_bags,
    duplicate_rows,
    find_duplicates,
    name_groups,
    row_codes,
)

ROWS = np.array([[1.0, 2.0], [3.0, 4.0], [1.0, 2.0], [5.0, 6.0], [3.0, 4.0], [1.0, 2.0]])


def test_identical_rows_are_grouped_and_conflicting_labels_counted():
    found = duplicate_rows(ROWS, np.array(["a", "b", "a", "a", "c", "b"]))
    assert found.unit == "rows" and found.n == 6
    assert found.groups == ((0, 2, 5), (1, 4))
    assert found.n_duplicated == 3  # six rows, three distinct
    assert found.conflicting == (0, 1) and found.unavoidable == 2  # row 5 and one of 1, 4
    assert found.describe() == (
        "3 duplicated rows in 2 groups (rows 0 = 2 = 5, 1 = 4), 2 groups with conflicting labels"
    )


def test_duplicates_with_the_same_label_do_not_conflict():
    found = duplicate_rows(ROWS, np.array([1, -1, 1, 1, -1, 1]))
    assert found.groups == ((0, 2, 5), (1, 4)) and found.conflicting == ()
    assert found.unavoidable == 0
    assert found.describe().endswith("0 groups with opposite labels")  # two classes


def test_distinct_rows_have_no_duplicates():
    found = duplicate_rows(np.eye(3), np.array([0, 1, 0]))
    assert found.groups == () and found.describe() == "no duplicated rows (of 3)"


def test_nan_equals_nan_and_negative_zero_equals_zero():
    X = np.array([[np.nan, 0.0], [np.nan, -0.0], [1.0, np.nan], [1.0, 2.0]])
    assert row_codes(X).tolist() == [0, 0, 1, 2]
    assert np.signbit(X[1, 1])  # the caller's array is left as it was


def test_sparse_rows_compare_on_their_values_not_their_storage():
    dense = ROWS.copy()
    dense[3] = 0.0
    stored = sp.csr_matrix(dense)
    stored.data[stored.indptr[1]] = 0.0  # an explicit zero in row 1: row 1 != row 4 now
    messy = sp.coo_matrix(stored)  # unsorted, with the explicit zero kept
    order = np.random.default_rng(0).permutation(messy.nnz)
    messy = sp.coo_matrix((messy.data[order], (messy.row[order], messy.col[order])), dense.shape)
    expected = dense.copy()
    expected[1, 0] = 0.0
    assert row_codes(messy).tolist() == row_codes(expected).tolist()
    labels = np.array([0, 1, 1, 0, 0, 0])
    assert duplicate_rows(messy, labels).groups == duplicate_rows(expected, labels).groups


def test_regression_targets_that_differ_are_reported_as_targets():
    found = duplicate_rows(ROWS, np.array([0.5, 1.0, 0.5, 2.0, 1.5, 0.5]))
    assert found.targets == "targets" and found.conflicting == (1,)
    assert found.unavoidable == 0  # no count of errors for numeric targets
    assert found.describe().endswith("1 group with different targets")


def test_multitarget_rows_compare_whole_target_rows():
    Y = np.array([[1.0, 2.0], [0.0, 0.0], [1.0, 2.0], [0.0, 1.0], [0.0, 0.0], [1.0, 3.0]])
    ds = Dataset("mt", "multitarget", ROWS, Y=Y)
    found = find_duplicates(ds)
    assert found.groups == ((0, 2, 5), (1, 4)) and found.conflicting == (0,)


def _bags(instances, bag_ids, labels):
    return Dataset(
        "bags", "multi_instance", np.array(instances, float), y=np.array(labels), bag_ids=bag_ids
    )


def test_bags_holding_the_same_multiset_of_instances_are_duplicates():
    """Bag 2 is bag 0 in another order (a duplicate); bag 3 holds bag 1's instances with
    other multiplicities (not one); bag 4 repeats bag 1 with the opposite label."""
    a, b, c = [1.0, 0.0], [0.0, 1.0], [2.0, 2.0]
    instances = [a, b, c, b, c, b, a, b, b, c, c, c, b]
    bag_ids = [0, 0, 1, 1, 1, 2, 2, 3, 3, 3, 4, 4, 4]
    found = find_duplicates(_bags(instances, bag_ids, [1, 0, 1, 0, 1]))
    assert found.unit == "bags" and found.n == 5
    assert found.groups == ((0, 2), (1, 4)) and found.conflicting == (1,)
    assert found.describe() == "2 duplicated bags (bags 0 = 2, 1 = 4), 1 with opposite labels"


def test_bag_duplicates_of_arrays_and_of_a_dataset_agree():
    rng = np.random.default_rng(1)
    X = rng.integers(0, 2, size=(30, 2)).astype(float)
    bag_ids = np.repeat(np.arange(10), 3)
    labels = rng.integers(0, 2, size=10)
    direct = duplicate_bags(X, bag_ids, labels)
    assert direct == find_duplicates(_bags(X, bag_ids, labels))


def test_pairs_that_run_on_together_are_named_as_ranges():
    pairs = [(i, 180 + i) for i in range(20)]
    assert name_groups(pairs) == "0-19 = 180-199"
    assert name_groups([(0, 5), (1, 6), (3, 9), (4, 10)]) == "0-1 = 5-6, 3-4 = 9-10"
    groups = [(0, 2, 5), (1, 4), (6, 7), (8, 9), (11, 20)]
    assert name_groups(groups) == "0 = 2 = 5, 1 = 4, 6 = 7, ..."  # the first three
    long = tuple(range(0, 100, 10))
    assert name_groups([long]) == "0 = 10 = 20 = 30 = ... (10 in all)"


def test_findings_survive_a_round_trip_through_plain_values():
    found = duplicate_rows(ROWS, np.array(["a", "b", "a", "a", "c", "b"]))
    assert Duplicates.from_dict(found.to_dict()) == found


@pytest.mark.data
def test_registered_tiger_has_twenty_duplicated_bags_ten_with_opposite_labels(data_dir):
    from svmlab.data import load_dataset

    found = find_duplicates(load_dataset("tiger"))
    assert found.groups == tuple((i, 180 + i) for i in range(20))
    assert found.n_duplicated == 20 and found.n_conflicting == 10 and found.unavoidable == 10
    assert found.describe() == "20 duplicated bags (bags 0-19 = 180-199), 10 with opposite labels"
