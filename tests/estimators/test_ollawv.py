"""OLLAWVClassifier: the invariants of Algorithm 5.1 (spec ollawv.md §1.4 item 8), one-vs-one
voting, a pure-NumPy reference, scikit-learn compatibility, input errors and an accuracy check
against Table 5.3."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.datasets import load_iris, make_blobs, make_classification
from sklearn.model_selection import GridSearchCV, StratifiedKFold
from sklearn.preprocessing import MinMaxScaler
from sklearn.utils.estimator_checks import check_estimator

from svmlab.estimators.ollawv import OLLAWVClassifier, c_invariant
from svmlab.kernels import gamma_from_sigma, rbf, sigma_from_gamma

PAPER_C = [4.0**k for k in range(-2, 6)]
PAPER_GAMMA = [4.0**k for k in range(-5, 3)]


def reference_fit(X, y, C, gamma, M, max_iter, beta=1.0):
    """Algorithm 5.1 in plain NumPy, written from the spec: boolean mask of candidates."""
    n = len(y)
    o, free = np.zeros(n), np.ones(n, dtype=bool)
    sv, alpha, b, wv, t = [], [], 0.0, 0, 0
    while True:
        t += 1
        lam = 2.0 / math.sqrt(t) * C * y[wv]
        B = lam * beta / n
        sv.append(wv)
        alpha.append(lam)
        b += B
        free[wv] = False
        cand = np.flatnonzero(free)
        if cand.size == 0:
            break
        o[cand] += lam * np.exp(-gamma * ((X[cand] - X[wv]) ** 2).sum(axis=1)) + B
        yo = y[cand] * o[cand]
        k = int(np.argmin(yo))  # first minimum = lowest index
        if yo[k] >= M or t >= max_iter:
            break
        wv = cand[k]
    return np.array(sv), np.array(alpha), b


@pytest.fixture(scope="module")
def binary():
    X, y = make_classification(
        n_samples=120, n_features=5, n_informative=3, flip_y=0.1, random_state=0
    )
    return MinMaxScaler().fit_transform(X), np.where(y == 1, "yes", "no")


@pytest.fixture(scope="module")
def iris():
    X, y = load_iris(return_X_y=True)
    return MinMaxScaler().fit_transform(X), y


# --- the binary core ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "gamma, margin, frac", [(1.0, 0.1, 0.5), (4.0, 0.01, None), (0.25, 1.0, 0.3)]
)
def test_matches_numpy_reference(binary, gamma, margin, frac):
    X, labels = binary
    clf = OLLAWVClassifier(
        C=3.0, gamma=gamma, margin=margin, max_iter_frac=frac, shuffle=False
    ).fit(X, labels)
    pos, neg = clf.pairs_[0]
    y = np.where(labels == clf.classes_[pos], 1.0, -1.0)
    cap = len(y) if frac is None else math.ceil(frac * len(y))
    sv, alpha, b = reference_fit(X, y, 3.0, gamma, margin * 3.0, cap)
    np.testing.assert_array_equal(clf.sv_order_[0], sv)
    np.testing.assert_allclose(clf.alphas_[0], alpha, rtol=1e-15)
    np.testing.assert_allclose(clf.intercept_[0], b, rtol=1e-12)
    o = rbf(X, X[sv], gamma) @ alpha + b
    sign = 1.0 if pos == 1 else -1.0  # decision_function is oriented towards classes_[1]
    np.testing.assert_allclose(clf.decision_function(X), sign * o, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(
        clf.predict(X), np.where(o > 0, clf.classes_[pos], clf.classes_[neg])
    )


def test_alpha_magnitudes_bias_and_cap(binary):
    X, labels = binary
    for eta, scale, power in [("inv_sqrt", 2.0, 0.5), ("inv_t", 1.0, 1.0)]:
        C = 7.0
        clf = OLLAWVClassifier(
            C=C, gamma=2.0, margin=0.05, eta=eta, eta_scale=scale, shuffle=False
        ).fit(X, labels)
        y = np.where(labels == clf.classes_[clf.pairs_[0, 0]], 1.0, -1.0)
        sv, alpha = clf.sv_order_[0], clf.alphas_[0]
        t = np.arange(1, sv.size + 1)
        np.testing.assert_allclose(
            np.abs(alpha), scale * C / t**power, rtol=1e-15
        )  # (a) |alpha_t| = 2C/sqrt(t)
        np.testing.assert_array_equal(np.sign(alpha), y[sv])  # (a) with the sign of y
        n = len(y)
        np.testing.assert_allclose(
            clf.intercept_[0], np.sum(scale * C * y[sv] / (t**power * n)), rtol=1e-12
        )  # (c)
        info = clf.fit_info_
        assert info["iterations"] == [sv.size] and info["max_iter"] == [math.ceil(0.5 * n)]  # (d)
        assert sv.size <= math.ceil(0.5 * n)
        assert np.unique(sv).size == sv.size  # (e) never selected twice
        assert sv[0] == 0  # the first sample of the training order is the first SV


def test_iris_fixture_alphas():
    """The author's iris fixture (C = 100): alpha = 200, -141.42, -115.47, 100, -89.44, ...

    Reproduced with the unshuffled iris (sklearn order, min-max scaled), first pairwise model
    (setosa +1 vs versicolor -1), gamma = 0.0625.
    """
    X, y = load_iris(return_X_y=True)
    clf = OLLAWVClassifier(C=100.0, gamma=0.0625, shuffle=False).fit(
        MinMaxScaler().fit_transform(X), y
    )
    np.testing.assert_allclose(
        clf.alphas_[0][:5], [200.0, -141.42, -115.47, 100.0, -89.44], atol=5e-3
    )


def test_no_bias_and_exhaustion(binary):
    X, labels = binary
    clf = OLLAWVClassifier(use_bias=False, margin=1e6, max_iter_frac=None, shuffle=False).fit(
        X, labels
    )
    assert clf.intercept_[0] == 0.0
    # m large and no cap: every sample becomes an SV
    assert clf.fit_info_["iterations"] == [len(X)] and clf.fit_info_["stop_reason"] == ["exhausted"]
    assert clf.support_fraction_ == 1.0
    capped = OLLAWVClassifier(margin=1e6, max_iter_frac=0.25, shuffle=False).fit(X, labels)
    assert capped.fit_info_["stop_reason"] == ["max_iter"] and capped.fit_info_["iterations"] == [
        30
    ]


def test_zero_margin_still_trains_one_sv(binary):
    X, labels = binary
    clf = OLLAWVClassifier(margin=0.0, gamma=1e-9, shuffle=False).fit(X, labels)
    assert clf.fit_info_["iterations"][0] >= 1


def test_separable_blobs_are_learned_exactly():
    X, y = make_blobs(n_samples=200, centers=[[0, 0], [6, 6]], cluster_std=0.5, random_state=0)
    clf = OLLAWVClassifier(gamma=0.5, random_state=0).fit(X, y)
    assert clf.score(X, y) == 1.0
    assert clf.fit_info_["stop_reason"] == ["margin"]


def test_ties_go_to_the_lowest_index():
    # Duplicated rows get bit-identical outputs: the earlier copy must be selected first.
    rng = np.random.default_rng(1)
    base = rng.random((20, 3))
    X = np.vstack([base, base])
    y = np.where(base[:, 0] + 0.3 * rng.standard_normal(20) > 0.5, 1, -1)
    y = np.concatenate([y, y])
    clf = OLLAWVClassifier(gamma=2.0, margin=1e6, max_iter_frac=None, shuffle=False).fit(X, y)
    order = clf.sv_order_[0]
    position = np.empty(len(X), dtype=int)
    position[order] = np.arange(len(order))
    # Only the first SV has no earlier duplicate choice; after it, each copy i precedes i + 20.
    later = np.arange(20) != order[0] % 20
    assert np.all(position[np.arange(20)[later]] < position[np.arange(20, 40)[later]])


# --- C-invariance ---------------------------------------------------------------------------


def test_c_invariance_with_scaled_margin(iris):
    X, y = iris
    fits = [OLLAWVClassifier(C=C, gamma=1.0, random_state=0).fit(X, y) for C in PAPER_C]
    ref = fits[0]
    for clf in fits[1:]:
        for a, b in zip(ref.sv_order_, clf.sv_order_):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(ref.alphas_, clf.alphas_):
            np.testing.assert_array_equal(a / ref.C, b / clf.C)
        np.testing.assert_array_equal(ref.predict(X), clf.predict(X))
    assert c_invariant(ref) and c_invariant({"margin_mode": "scaled"}) and c_invariant({})
    assert not c_invariant({"margin_mode": "absolute"})


def test_c_matters_with_absolute_margin(iris):
    X, y = iris
    small = OLLAWVClassifier(C=0.0625, margin=0.1, margin_mode="absolute", random_state=0).fit(X, y)
    large = OLLAWVClassifier(C=1024.0, margin=0.1, margin_mode="absolute", random_state=0).fit(X, y)
    assert small.fit_info_["iterations"] != large.fit_info_["iterations"]


# --- one-vs-one -----------------------------------------------------------------------------


def test_pairs_follow_class_size_and_train_on_their_subset():
    X, y = make_blobs(n_samples=[10, 30, 20], centers=None, n_features=3, random_state=2)
    clf = OLLAWVClassifier(gamma=0.5, shuffle=False).fit(X, y)
    np.testing.assert_array_equal(clf.pairs_, [[1, 2], [1, 0], [2, 0]])  # sizes 30 > 20 > 10
    assert clf.fit_info_["n_samples"] == [50, 40, 30]
    for k, (a, b) in enumerate(clf.pairs_):
        idx = np.flatnonzero(np.isin(y, (a, b)))
        single = OLLAWVClassifier(gamma=0.5, shuffle=False).fit(
            X[idx], np.where(y[idx] == a, 1, -1)
        )
        np.testing.assert_array_equal(clf.sv_order_[k], idx[single.sv_order_[0]])
        np.testing.assert_array_equal(clf.alphas_[k], single.alphas_[0])
    # distinct SVs over all pairs, counted once per sample
    union = np.unique(np.concatenate(clf.sv_order_))
    np.testing.assert_array_equal(np.sort(clf.support_), union)
    np.testing.assert_array_equal(clf.n_support_, np.bincount(y[union], minlength=3))
    np.testing.assert_array_equal(clf.support_vectors_, X[clf.support_])
    assert clf.support_fraction_ == union.size / len(y)


@pytest.mark.parametrize(
    "o, expected",
    [
        ([1.0, 1.0, 1.0], 0),  # 0 wins both of its pairs
        ([-1.0, -1.0, 0.0], 2),  # 0 -> -1 class: 2 gets two votes
        ([1.0, -2.0, 0.5], 2),  # 1-1-1 vote tie; signed sums (-1, -0.5, 1.5)
        ([0.5, -0.5, 2.0], 1),  # 1-1-1 vote tie; sums (0, 1.5, -1.5)
        ([1.0, -1.0, 1.0], 0),  # 1-1-1 vote tie and sums (0, 0, 0): lowest class index
    ],
)
def test_ovo_vote_and_tie_rule(iris, o, expected):
    X, y = iris
    clf = OLLAWVClassifier(random_state=0).fit(X, y)
    np.testing.assert_array_equal(clf.pairs_, [[0, 1], [0, 2], [1, 2]])  # equal sizes: by label
    clf._pair_outputs = lambda X: np.array([o])
    assert clf.predict(X[:1])[0] == expected
    assert np.argmax(clf.decision_function(X[:1])[0]) == expected


def test_binary_decision_orientation():
    X, y = make_blobs(n_samples=[40, 20], centers=[[0, 0], [2, 2]], random_state=3)
    for labels in (y, 1 - y):  # larger class is classes_[0], then classes_[1]
        clf = OLLAWVClassifier(random_state=0).fit(X, labels)
        d = clf.decision_function(X)
        assert d.shape == (len(X),)
        np.testing.assert_array_equal(clf.predict(X), clf.classes_[(d > 0).astype(int)])


def test_prediction_blocks_do_not_change_results(iris, monkeypatch):
    X, y = iris
    clf = OLLAWVClassifier(random_state=0).fit(X, y)
    whole = clf.decision_function(X)
    import svmlab.estimators.ollawv.classifier as mod

    real = mod.rbf_blocks
    monkeypatch.setattr(
        mod, "rbf_blocks", lambda A, B, g: real(A, B, g, max_bytes=8 * B.shape[0] * 7)
    )
    np.testing.assert_allclose(clf.decision_function(X), whole, rtol=1e-12)


# --- estimator contract ---------------------------------------------------------------------


@pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.SkipTestWarning"
)  # array-API check: NumPy only
def test_check_estimator():
    results = check_estimator(OLLAWVClassifier(), on_fail=None)
    failed = [r["check_name"] for r in results if r["status"] == "failed"]
    assert not failed


def test_deterministic_given_random_state(iris):
    X, y = iris
    for init in ("first", "random"):
        a = OLLAWVClassifier(init_violator=init, random_state=5).fit(X, y)
        b = OLLAWVClassifier(init_violator=init, random_state=5).fit(X, y)
        for u, v in zip(a.sv_order_, b.sv_order_):
            np.testing.assert_array_equal(u, v)
        np.testing.assert_array_equal(a.decision_function(X), b.decision_function(X))
    c = OLLAWVClassifier(random_state=6).fit(X, y)
    assert any(not np.array_equal(u, v) for u, v in zip(a.sv_order_, c.sv_order_))


@pytest.mark.parametrize(
    "params, X, y, message",
    [
        ({}, np.zeros((4, 2)), [1, 1, 1, 1], "at least 2 classes; got 1 class"),
        (
            {},
            np.arange(10.0).reshape(5, 2),
            [0, 0, 1, 1, 2],
            "class 2 has a single sample; OLLAWV needs at least 2 per class",
        ),
        ({}, [[0.0, np.nan], [1, 1], [2, 2], [3, 3]], [0, 0, 1, 1], "NaN"),
        ({}, [[0.0, np.inf], [1, 1], [2, 2], [3, 3]], [0, 0, 1, 1], "infinity"),
        ({"gamma": 0.0}, np.eye(4), [0, 0, 1, 1], r"'gamma' parameter .* range \(0.0, inf\)"),
        ({"gamma": -1.0}, np.eye(4), [0, 0, 1, 1], "'gamma' parameter"),
        ({"C": 0}, np.eye(4), [0, 0, 1, 1], r"'C' parameter .* range \(0.0, inf\)"),
        ({"margin": -0.1}, np.eye(4), [0, 0, 1, 1], r"'margin' parameter .* range \[0.0, inf\)"),
        (
            {"margin_mode": "relative"},
            np.eye(4),
            [0, 0, 1, 1],
            "'margin_mode' parameter .* among .*'absolute'",
        ),
        ({"max_iter_frac": 0.0}, np.eye(4), [0, 0, 1, 1], "'max_iter_frac' parameter"),
        ({"eta": "constant"}, np.eye(4), [0, 0, 1, 1], "'eta' parameter"),
    ],
)
def test_bad_input_errors(params, X, y, message):
    with pytest.raises(ValueError, match=message):
        OLLAWVClassifier(**params).fit(X, y)


def test_kernel_conventions():
    X = np.array([[0.0, 0.0], [1.0, 2.0]])
    np.testing.assert_allclose(rbf(X, X, 0.5), np.exp(-0.5 * np.array([[0, 5], [5, 0]])))
    assert gamma_from_sigma(2.0) == 0.125 and sigma_from_gamma(0.125) == 2.0


# --- accuracy against Table 5.3 -------------------------------------------------------------

# (registry name, published OLLAWV accuracy of Table 5.3). Protocol as in spec §4: 5-fold
# stratified outer CV, min-max scaling fitted on the training part, gamma chosen on the paper's
# grid by 5-fold inner CV, C = 1 (irrelevant), margin 0.1, cap 0.5 (the author's defaults).
TABLE_5_3 = [("heart2", 82.22), ("vote_libsvm", 96.54), ("iris_libsvm", 97.33)]


@pytest.mark.data
@pytest.mark.parametrize("name, published", TABLE_5_3)
def test_accuracy_near_table_5_3(name, published):
    from svmlab.data.registry import load_dataset

    ds = load_dataset(name)
    X, y = ds.X, ds.y
    accs = []
    for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
        scaler = MinMaxScaler().fit(X[train])
        search = GridSearchCV(
            OLLAWVClassifier(random_state=0),
            {"gamma": PAPER_GAMMA},
            cv=StratifiedKFold(5, shuffle=True, random_state=1),
        ).fit(scaler.transform(X[train]), y[train])
        accs.append(search.score(np.clip(scaler.transform(X[test]), 0, 1), y[test]))
    assert abs(100 * np.mean(accs) - published) <= 3.0


def test_ties_go_to_the_lowest_original_index_even_when_shuffled():
    # duplicated rows give exact ties; whatever the shuffle, the earlier copy is selected first
    rng = np.random.default_rng(0)
    base = rng.normal(size=(10, 2))
    X = np.vstack([base, base])
    y = np.where(base[:, 0] + base[:, 1] > 0, 1, -1)
    y = np.concatenate([y, y])
    for seed in range(5):
        clf = OLLAWVClassifier(gamma=0.5, random_state=seed, max_iter_frac=None).fit(X, y)
        order = list(clf.sv_order_[0])
        for i in range(10):  # the copies tie until one is selected: it must be the earlier one
            if i + 10 in order[1:]:  # (the first violator is picked by the shuffle, not by arg-min)
                assert i in order and order.index(i) < order.index(i + 10)


# --- the compiled loop: blocks, compaction, paths -------------------------------------------


def test_many_blocks_match_the_numpy_reference():
    """Several kernel-row blocks and compactions of the candidate arrays: still Algorithm 5.1."""
    X, y = make_classification(
        n_samples=1500, n_features=7, flip_y=0.15, class_sep=0.5, random_state=3
    )
    clf = OLLAWVClassifier(gamma=0.5, margin=0.05, max_iter_frac=None, shuffle=False).fit(X, y)
    assert clf.fit_info_["iterations"][0] > 200  # enough selections to compact several times
    pos = clf.pairs_[0, 0]
    yy = np.where(y == clf.classes_[pos], 1.0, -1.0)
    sv, alpha, b = reference_fit(X, yy, 1.0, 0.5, 0.05, len(y))
    np.testing.assert_array_equal(clf.sv_order_[0], sv)
    np.testing.assert_allclose(clf.alphas_[0], alpha, rtol=1e-15)
    np.testing.assert_allclose(clf.intercept_[0], b, rtol=1e-12)


@pytest.mark.parametrize("shape", ["binary", "multiclass"])
def test_fit_path_equals_separate_fits(binary, shape):
    if shape == "binary":
        X, y = binary
    else:
        X, y = make_blobs(n_samples=300, centers=4, cluster_std=2.5, random_state=4)
    margins = [0.3, 0.0, 0.01, 0.1]
    base = OLLAWVClassifier(gamma=1.5, random_state=7)
    models = base.fit_path(X, y, margins)
    assert [m.margin for m in models] == margins and base.margin == 0.1  # base left unfitted
    for m, model in zip(margins, models):
        alone = OLLAWVClassifier(gamma=1.5, margin=m, random_state=7).fit(X, y)
        for a, b in zip(model.sv_order_, alone.sv_order_):
            np.testing.assert_array_equal(a, b)
        for a, b in zip(model.alphas_, alone.alphas_):
            np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(model.intercept_, alone.intercept_)
        np.testing.assert_array_equal(model.support_, alone.support_)
        np.testing.assert_array_equal(model.decision_function(X), alone.decision_function(X))
        info, solo = model.fit_info_, alone.fit_info_
        assert info["kernel_evaluations"] == solo["kernel_evaluations"]
        assert info["stop_reason"] == solo["stop_reason"]
        assert info["path_kernel_evaluations"] == [
            max(p) for p in zip(*(x.fit_info_["kernel_evaluations"] for x in models))
        ]
    sizes = [len(model.support_) for model in models]
    assert sizes[1] <= sizes[2] <= sizes[3] <= sizes[0]  # a smaller margin stops earlier
    with pytest.raises(ValueError, match="margin values"):
        base.fit_path(X, y, [0.1, -1.0])


def test_kernel_evaluations_count_the_work(binary):
    X, y = binary
    clf = OLLAWVClassifier(gamma=1.0, margin=0.01, shuffle=False).fit(X, y)
    T, n = clf.fit_info_["iterations"][0], len(y)
    # every iteration scans the stored candidates: between the live ones and all n
    assert sum(n - t for t in range(1, T + 1)) <= clf.fit_info_["kernel_evaluations"][0] <= n * T
