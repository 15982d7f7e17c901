"""REPTreeClassifier: Weka 3.6's REPTree as a scikit-learn classifier.

The rules are checked on hand-made data; the parity tests (marker ``weka``) train the real
``weka.classifiers.trees.REPTree`` and the native tree on the same rows and compare their test
predictions, and MIBoost(REPTree) with Weka's ``mi.MIBoost``.
"""

import numpy as np
import pytest
from sklearn.utils.estimator_checks import check_estimator

from svmlab.data.registry import load_dataset
from svmlab.estimators.mil.boost import MIBoostClassifier
from svmlab.estimators.mil.weka import (
    WekaMIClassifier,
)
from svmlab.estimators.weka.java_random import JavaRandom
from svmlab.estimators.weka.rep_tree import REPTreeClassifier, weka_holdout_split, weka_sort_columns
from svmlab.testing import essential_checks, weka_classify

EXPECTED_FAILED = {
    # the hold-out split deals rows, not weight: a row of weight 2 is not two rows
    "check_sample_weight_equivalence_on_dense_data": "rows, not weights, are dealt into folds",
}


@pytest.mark.parametrize("check", essential_checks(), ids=lambda c: c.__name__)
def test_essential_checks(check):
    check(type(REPTreeClassifier()).__name__, REPTreeClassifier())


def test_scikit_learn_checks():
    failed = {
        r["check_name"]
        for r in check_estimator(
            REPTreeClassifier(), on_fail=None, expected_failed_checks=EXPECTED_FAILED
        )
        if r["status"] == "failed"
    }
    assert not failed, failed


# ------------------------------------------------------------------------------------------
# Weka's data handling (expected orders printed by Weka 3.6.14 itself)
# ------------------------------------------------------------------------------------------


def test_weka_quicksort_order_of_equal_values():
    values = np.array([2, 1, 2, 0, 1, 2, 0, 0, 1, 2, 1, 0, 2, 2, 1.0])
    # weka.core.Utils.sort(values): not the stable order
    weka = [7, 3, 6, 11, 8, 10, 14, 4, 1, 12, 13, 2, 9, 5, 0]
    order = weka_sort_columns(values[:, None])
    assert order.tolist() == [weka]
    # the stable order wherever the order of equal values cannot change a sum
    unit = weka_sort_columns(values[:, None], np.zeros(15, int), np.ones(15))
    assert unit.tolist() == [np.argsort(values, kind="stable").tolist()]


def test_weka_holdout_split():
    y = [0, 1, 1, 0, 2, 1, 0, 0, 1, 2, 2, 1, 0]
    # Weka: randomize(Random(s)); stratify(3); trainCV(3, 0, random); testCV(3, 0)
    expected = {
        1: ([0, 8, 3, 9, 2, 1, 6, 10], [5, 11, 7, 12, 4]),
        42: ([12, 4, 5, 0, 2, 10, 7, 11], [6, 3, 1, 8, 9]),
    }
    for seed, (grow, prune) in expected.items():
        g, p = weka_holdout_split(y, 3, JavaRandom(seed))
        assert (g.tolist(), p.tolist()) == (grow, prune)


# ------------------------------------------------------------------------------------------
# growing, pruning, backfitting
# ------------------------------------------------------------------------------------------


def test_split_rules():
    X = np.arange(12.0).reshape(-1, 1)
    y = [0] * 6 + [1] * 6
    tree = REPTreeClassifier(pruning=False).fit(X, y)
    assert tree.tree_["threshold"][0] == 5.5  # the midpoint; x < cut goes left
    np.testing.assert_array_equal(tree.predict([[5.4], [5.5]]), [0, 1])
    # a node lighter than 2 * min_num stays a leaf
    assert REPTreeClassifier(pruning=False).fit(X[:6], y[3:9]).fit_info_["n_nodes"] == 3
    light = REPTreeClassifier(pruning=False).fit(X[:6], y[3:9], sample_weight=np.full(6, 0.5))
    assert light.fit_info_["n_nodes"] == 1
    # the side weights are checked for the best attribute only: feature 0 isolates one row
    # (side of weight 1 < min_num), so the node stays a leaf although feature 1 has a valid cut
    X2 = np.array([[0, 0], [1, 0], [1, 1], [1, 1], [1, 1], [1, 1.0]])
    y2 = [1, 0, 0, 0, 0, 0]
    assert REPTreeClassifier(pruning=False).fit(X2, y2).fit_info_["n_nodes"] == 1
    one = REPTreeClassifier(pruning=False, min_num=1.0).fit(X2, y2)
    assert (one.tree_["feature"][0], one.tree_["threshold"][0]) == (0, 0.5)
    # depth limit
    rng = np.random.default_rng(0)
    Xr = rng.normal(size=(200, 3))
    yr = (np.sin(3 * Xr[:, 0]) + Xr[:, 1] > 0).astype(int)
    assert REPTreeClassifier(max_depth=1).fit(Xr, yr).fit_info_["depth"] <= 1
    assert REPTreeClassifier(pruning=False).fit(Xr, yr).fit_info_["depth"] > 1


def test_attributes_are_compared_by_the_gain_of_their_chosen_table():
    # two attributes with the same perfect cut (rows of a wdbc node under MIBoost-like
    # weights): summed in their own orders the two gains differ in the last bit. Weka compares
    # attributes by the gain recomputed from each chosen table (column sums left + right, not
    # the node totals), which favours the first attribute here; Weka 3.6.14 splits on f1 too.
    X = np.array(
        [[0.055, 906.6], [0.055, 947.9], [0.08, 862.1], [0.119, 854.3], [0.145, 809.2]]
        + [[0.198, 1575.0], [0.203, 1102.0], [0.208, 980.9], [0.223, 1461.0], [0.3, 2019.0]]
    )
    y = [0] * 5 + [1] * 5
    w = [0.11609117092793683, 2.6590624748019662, 1.0202022839457714, 0.42667349792275344]
    w += [1.3661632309276732, 0.0022693266812281823, 0.19815787435906926, 0.8489330295445371]
    w += [0.35401004219324983, 0.6799319039689096]
    tree = REPTreeClassifier(pruning=False).fit(X, y, sample_weight=w)
    assert tree.tree_["feature"][0] == 0 and tree.tree_["threshold"][0] == (0.145 + 0.198) / 2


def test_backfitted_leaves_hold_growing_plus_pruning_counts():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(150, 4))
    y = (X[:, 0] + 0.5 * rng.normal(size=150) > 0).astype(int) + (X[:, 1] > 1)
    w = rng.exponential(size=150)
    tree = REPTreeClassifier(seed=5).fit(X, y, sample_weight=w)
    assert tree.fit_info_["n_leaves"] > 1
    grow, prune = weka_holdout_split(y, 3, JavaRandom(5))
    assert sorted(grow.tolist() + prune.tolist()) == list(range(150))
    assert (len(grow), len(prune)) == (100, 50)
    leaves = tree.apply(X)
    for leaf in np.unique(leaves):
        counts = np.bincount(y[leaves == leaf], weights=w[leaves == leaf], minlength=3)
        np.testing.assert_allclose(tree.tree_["value"][leaf], counts / counts.sum(), atol=1e-12)


def _rows_at_nodes(tree, X):
    """For every node of ``tree.tree_``, the mask of the rows of ``X`` that pass through it."""
    t = tree.tree_
    at = np.zeros((len(t["feature"]), len(X)), dtype=bool)
    at[0] = True
    for k in range(len(t["feature"])):  # parents come before their children
        if t["feature"][k] >= 0:
            left = X[:, t["feature"][k]] < t["threshold"][k]
            at[t["left"][k]] = at[k] & left
            at[t["right"][k]] = at[k] & ~left
    return at


def _leaves_under(t, k):
    if t["feature"][k] < 0:
        return [k]
    return _leaves_under(t, t["left"][k]) + _leaves_under(t, t["right"][k])


def test_every_kept_split_lowers_the_holdout_error():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + X[:, 1] ** 2 + rng.normal(size=300) > 1).astype(int)
    tree = REPTreeClassifier(seed=3).fit(X, y)
    t = tree.tree_
    grow, prune = weka_holdout_split(y, 3, JavaRandom(3))
    at_grow, at_prune = _rows_at_nodes(tree, X[grow]), _rows_at_nodes(tree, X[prune])
    # hold-out error of a node as a leaf: pruning rows outside its growing majority (a node
    # without growing rows takes its parent's)
    majority = np.zeros(len(t["feature"]), dtype=int)
    for k in range(len(t["feature"])):
        if at_grow[k].any():
            majority[k] = np.argmax(np.bincount(y[grow][at_grow[k]], minlength=2))
        for child in (t["left"][k], t["right"][k]):
            if child >= 0:
                majority[child] = majority[k]
    error = np.array([np.sum(y[prune][m] != c) for m, c in zip(at_prune, majority)])
    internal = np.nonzero(t["feature"] >= 0)[0]
    assert len(internal) >= 2
    for k in internal:
        assert error[_leaves_under(t, k)].sum() < error[k]  # else Weka would prune node k
    grown = REPTreeClassifier(pruning=False).fit(X, y)
    assert grown.fit_info_["n_leaves"] > 2 * tree.fit_info_["n_leaves"]
    # too few rows for three folds: Weka refuses, this tree grows unpruned
    small = REPTreeClassifier(min_num=0.5).fit([[0.0], [1.0]], [0, 1])
    assert small.fit_info_["n_prune"] == 0 and small.predict([[0.0]])[0] == 0


# ------------------------------------------------------------------------------------------
# the real Weka
# ------------------------------------------------------------------------------------------


def weka_predict(tmp_path, classname, options, X, y, X_test, w=None):
    return weka_classify(tmp_path, classname, options, X, y, X_test, sample_weight=w)


def _bag_means(name):
    ds = load_dataset(name)
    return np.vstack([b.mean(axis=0) for b in ds.bags]), np.asarray(ds.y)


def _tied_weighted():
    rng = np.random.default_rng(4)
    X = rng.integers(0, 6, size=(223, 7)).astype(float)
    y = ((X.sum(1) * 3).astype(int) + rng.integers(0, 4, size=223)) % 4
    return X, y, rng.exponential(size=223)


CASES = {
    "iris": lambda: (load_dataset("iris").X, load_dataset("iris").y, None),
    "musk1_bag_means": lambda: (*_bag_means("musk1"), None),
    "ties_weighted": _tied_weighted,
}


@pytest.mark.weka
@pytest.mark.parametrize(
    "case, options",
    [
        ("iris", []),
        pytest.param("musk1_bag_means", [], marks=pytest.mark.data),
        ("ties_weighted", ["-S", "14", "-N", "5"]),
    ],
)
def test_equals_weka_reptree(tmp_path, case, options):
    X, y, w = CASES[case]()
    _, y = np.unique(y, return_inverse=True)
    train = np.arange(len(y)) % 3 != 2
    wt = None if w is None else w[train]
    pred, proba = weka_predict(
        tmp_path, "weka.classifiers.trees.REPTree", options, X[train], y[train], X, wt
    )
    kw = {"seed": int(options[1]), "num_folds": int(options[3])} if options else {}
    ours = REPTreeClassifier(**kw).fit(X[train], y[train], sample_weight=wt)
    np.testing.assert_array_equal(ours.predict(X), pred)
    np.testing.assert_allclose(ours.predict_proba(X), proba, atol=1.5e-3)  # Weka prints 3 dp


@pytest.mark.weka
def test_miboost_with_reptree_equals_weka(split):
    bags_tr, y_tr, bags_te, _ = split
    weka = WekaMIClassifier(
        classname="weka.classifiers.mi.MIBoost",
        options="-R 10 -B 0 -W weka.classifiers.trees.REPTree",
    )
    ours = MIBoostClassifier(estimator=REPTreeClassifier()).fit(bags_tr, y_tr)
    assert ours.fit_info_["n_rounds"] == 10
    np.testing.assert_array_equal(ours.predict(bags_te), weka.fit(bags_tr, y_tr).predict(bags_te))
