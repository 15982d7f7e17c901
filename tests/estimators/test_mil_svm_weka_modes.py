"""SetKernelSVC and InstanceMISVMClassifier in their Weka 3.6 modes (MISMO, MISVM).

The defaults of both classes are Weka's defaults (linear kernel, [0, 1] rescaling, C = 1); the
pairs ``mismo`` / ``weka_mismo`` and ``misvm_instance`` / ``weka_misvm_instance`` (RBF, C = 10,
sigma = 5) are checked on three benchmark datasets by tests/estimators/test_weka_parity.py.
Here: the pieces by hand, and the linear defaults against the real Weka.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from svmlab.estimators.mil import misvm as misvm_module
from svmlab.estimators.mil._bags import check_bags, minmax_scaler
from svmlab.estimators.mil.misvm import InstanceMISVMClassifier, _relabel_positive_bags
from svmlab.estimators.mil.set_kernel import SetKernelSVC
from svmlab.estimators.mil.weka import WekaMIClassifier


@pytest.fixture(scope="module")
def mi_data():
    from svmlab.data.registry import load_dataset

    ds = load_dataset("mi_bags")  # 100 bags (50/50), 2-D, standard MI assumption
    rng = np.random.RandomState(0)
    # shift and stretch the features so that the [0, 1] rescaling matters
    bags = [b * np.array([3.0, 0.5]) + np.array([10.0, -4.0]) for b in ds.bags]
    train, test = np.arange(0, 100, 2), np.arange(1, 100, 2)
    rng.shuffle(train)
    return ([bags[i] for i in train], ds.y[train], [bags[i] for i in test], ds.y[test])


def test_minmax_scaler_maps_training_range_and_zeroes_constants():
    X = np.array([[1.0, 5.0, 2.0], [3.0, 5.0, 4.0], [2.0, 5.0, 0.0]])
    offset, factor = minmax_scaler(X)
    Z = (X - offset) * factor
    np.testing.assert_allclose(Z.min(axis=0), [0, 0, 0])
    np.testing.assert_allclose(Z.max(axis=0), [1, 0, 1])
    # a constant training feature is 0 for test rows too (Weka's Normalize)
    np.testing.assert_allclose((np.array([[5.0, 9.0, 8.0]]) - offset) * factor, [[2.0, 0, 2.0]])


def test_set_kernel_modes_by_hand(mi_data):
    bags, y, _, _ = mi_data
    X, _, sizes = check_bags(bags)
    offset, factor = minmax_scaler(X)
    scaled = [(b - offset) * factor for b in bags]
    lin = SetKernelSVC().fit(bags, y)
    expect = np.array([[np.sum(a @ b.T) for b in scaled[:4]] for a in scaled[:4]])
    np.testing.assert_allclose(lin.bag_kernel(bags[:4]), expect, rtol=1e-12)
    assert lin.fit_info_["bag_C"] == pytest.approx(np.mean(sizes))
    # the RBF set kernel is not normalised; G = 1 / (2 sigma^2)
    rbf = SetKernelSVC(kernel="rbf", sigma=0.5, C=10).fit(bags, y)
    d2 = lambda a, b: ((a[:, None, :] - b[None, :, :]) ** 2).sum(-1)  # noqa: E731
    expect = np.array([[np.exp(-2.0 * d2(a, b)).sum() for b in scaled[:4]] for a in scaled[:4]])
    np.testing.assert_allclose(rbf.bag_kernel(bags[:4]), expect, rtol=1e-10)
    assert rbf.fit_info_["bag_C"] == pytest.approx(10 * np.mean(sizes))
    # the named departures: cosine normalisation, unit box, no rescaling
    cos = SetKernelSVC(normalize=True, bag_weight="none", scaling="none").fit(bags, y)
    K = cos.bag_kernel(bags[:4])
    raw = np.array([[np.sum(a @ b.T) for b in bags[:4]] for a in bags[:4]])
    np.testing.assert_allclose(K, raw / np.sqrt(np.outer(np.diag(raw), np.diag(raw))))
    assert cos.fit_info_["bag_C"] == 1.0
    # rescaling inside equals rescaled inputs without it
    a = SetKernelSVC(kernel="rbf", sigma=0.5, tol=1e-8).fit(bags, y).decision_function(bags)
    b = SetKernelSVC(kernel="rbf", sigma=0.5, tol=1e-8, scaling="none").fit(scaled, y)
    np.testing.assert_allclose(a, b.decision_function(scaled), atol=1e-6)


def test_mi_svm_relabelling_ties_and_column_subsets(mi_data):
    # bag 0 (rows 0-2) keeps its positives; bag 1 (rows 3-5) has none: both tied maxima -> +1
    f = np.array([0.5, -1.0, 0.0, -0.3, -0.2, -0.2])
    new = _relabel_positive_bags(f, np.repeat([0, 1], 3), np.array([0, 3]), np.array([3, 3]))
    np.testing.assert_array_equal(new, [1, -1, -1, -1, 1, 1])
    bags, y, test_bags, _ = mi_data
    model = InstanceMISVMClassifier().fit([b[:, :1] for b in bags], y)  # a feature subset
    assert model.n_features_in_ == 1 and model.predict([b[:, :1] for b in test_bags]).shape == (
        len(test_bags),
    )


@pytest.mark.parametrize("max_iter, trained_on", [(500, 1), (501, 0)])
def test_mi_svm_after_a_cycle_holds_the_model_weka_ends_with(
    monkeypatch, mi_data, max_iter, trained_on
):
    """A two-cycle L0 -> L1 -> L0: Weka trains on until SVM number max_iter, which is trained
    on L1 for even max_iter and on L0 for odd; "stop" keeps the SVM trained on L1."""
    bags, y, test_bags, _ = mi_data
    states = []

    def flip(f, p_bag_of, p_starts, pos_sizes):
        out = np.ones(len(f))
        out[1] = -1.0 if len(states) % 2 == 0 else 1.0  # L0 (all +1) <-> L1 (row 1 is -1)
        states.append(out)
        return out

    monkeypatch.setattr(misvm_module, "_relabel_positive_bags", flip)
    model = InstanceMISVMClassifier(kernel="rbf", max_iter=max_iter).fit(bags, y)
    info = model.fit_info_
    assert info["stop"] == "cycle" and info["cycle_length"] == 2 and info["iterations"] == 2
    assert info["equivalent_iterations"] == max_iter
    pos_rows = np.flatnonzero(model.instance_labels_ == 1)
    n_pos_bags_rows = np.sum([len(b) for b, lab in zip(bags, y) if lab == 1])
    assert len(pos_rows) == n_pos_bags_rows - trained_on
    stopped = InstanceMISVMClassifier(kernel="rbf", max_iter=max_iter, on_cycle="stop")
    states.clear()
    stopped.fit(bags, y)
    assert stopped.fit_info_["equivalent_iterations"] == 2
    assert np.sum(stopped.instance_labels_ == 1) == n_pos_bags_rows - 1
    # the model read off the cycle is the SVM trained on those labels
    states.clear()
    with warnings.catch_warnings():  # max_iter=1 stops with labels still changing
        warnings.simplefilter("ignore", ConvergenceWarning)
        first = InstanceMISVMClassifier(kernel="rbf", max_iter=1 + trained_on).fit(bags, y)
    np.testing.assert_allclose(
        model.decision_function(test_bags), first.decision_function(test_bags), atol=1e-6
    )


# ------------------------------------------------------------------------------------------
# against the real Weka 3.6 (skipped without Java / weka.jar)
# ------------------------------------------------------------------------------------------


@pytest.mark.weka
@pytest.mark.parametrize(
    "native, classname, kw",
    [
        (SetKernelSVC, "weka.classifiers.mi.MISMO", {}),  # Weka's default MISMO: linear
        (SetKernelSVC, "weka.classifiers.mi.MISMO", dict(kernel="rbf", C=10, sigma=0.5)),
        (InstanceMISVMClassifier, "weka.classifiers.mi.MISVM", {}),  # default MISVM: linear
        (InstanceMISVMClassifier, "weka.classifiers.mi.MISVM", dict(kernel="rbf", sigma=0.5)),
    ],
)
def test_defaults_and_rbf_predict_as_weka(native, classname, kw, mi_data):
    bags, y, test_bags, _ = mi_data
    ours = native(**kw).fit(bags, y).predict(test_bags)
    weka_kw = {"C": kw.get("C"), "sigma": kw.get("sigma")}
    weka = WekaMIClassifier(classname, timeout=300, **weka_kw).fit(bags, y).predict(test_bags)
    assert np.sum(ours != weka) <= 1, f"{classname} {kw}: {np.flatnonzero(ours != weka)}"


@pytest.mark.weka
@pytest.mark.data
@pytest.mark.parametrize(
    "native, classname, dataset, n_folds",
    [
        (SetKernelSVC, "weka.classifiers.mi.MISMO", "musk1", 2),
        (InstanceMISVMClassifier, "weka.classifiers.mi.MISVM", "mutagenesis_atoms", 3),
    ],
)
def test_linear_defaults_as_weka_on_parity_folds(native, classname, dataset, n_folds):
    """Weka's default MISMO / MISVM (linear kernel, C = 1) on the first parity folds of one
    dataset. (MISMO on sets of other shapes, bag for bag: test_mismo_weka_parity.py.)"""
    from svmlab.data.registry import load_dataset
    from svmlab.evaluation.protocols import make_splits

    ds = load_dataset(dataset)
    protocol = {"kind": "bag_stratified_kfold", "n_splits": 10}
    differ = total = 0
    for split in make_splits(protocol, "multi_instance", ds.y, 0, ds.name)[:n_folds]:
        train = [ds.bags[i] for i in split.train]
        test = [ds.bags[i] for i in split.test]
        ours = native().fit(train, ds.y[split.train]).predict(test)
        weka = WekaMIClassifier(classname, timeout=600).fit(train, ds.y[split.train])
        differ += int(np.sum(ours != weka.predict(test)))
        total += len(test)
    assert differ <= max(1, int(0.05 * total)), f"{differ} of {total} bags differ"
