"""Distance / density MI baselines: CitationKNN, MIDD, EM-DD, MIOptimalBall."""

import numpy as np
import pytest

from svmlab.estimators.mil._bags import check_bags
from svmlab.estimators.mil.citation_knn import CitationKNNClassifier, hausdorff_distances
from svmlab.estimators.mil.diverse_density import (
    DiverseDensityClassifier,
    EMDDClassifier,
    dd_negative_log_likelihood,
)
from svmlab.estimators.mil.optimal_ball import MIOptimalBallClassifier


def _fast(cls):
    if cls in (DiverseDensityClassifier, EMDDClassifier):
        return cls(max_starts=4, random_state=0)
    if cls is CitationKNNClassifier:
        # the minimal Hausdorff distance (rank 1, the default) cannot see one concept
        # instance among shared background instances; the classical (symmetric) Hausdorff
        # distance can (Weka's directed one only partly)
        return cls(hausdorff_rank=10, hausdorff="symmetric")
    return cls()


ALL = [CitationKNNClassifier, DiverseDensityClassifier, EMDDClassifier, MIOptimalBallClassifier]


@pytest.fixture(scope="module")
def mi_bags():
    from svmlab.data.registry import load_dataset

    ds = load_dataset("mi_bags")
    return ds.bags, np.asarray(ds.y)


def _separable(seed=0, n=40):
    """Positive bags hold one instance near (3, 3); negatives only background."""
    rng = np.random.default_rng(seed)
    bags, y = [], []
    for i in range(n):
        b = rng.normal(0.0, 1.0, size=(rng.integers(3, 7), 2))
        if i % 2:
            b[0] = rng.normal(3.0, 0.2, size=2)
        bags.append(b)
        y.append(i % 2)
    return bags, np.array(y)


# ------------------------------------------------------------------------------------------
# learning beats the majority rate
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: CitationKNNClassifier(hausdorff_rank=10),  # min-Hausdorff fails here (background)
        lambda: DiverseDensityClassifier(max_starts=3, random_state=0),
        lambda: EMDDClassifier(max_starts=3, max_em_iter=5, random_state=0),
        lambda: MIOptimalBallClassifier(),
    ],
)
def test_mi_bags_beats_majority(mi_bags, make):
    bags, y = mi_bags
    tr, te = np.arange(0, len(y), 2), np.arange(1, len(y), 2)
    model = make().fit([bags[i] for i in tr], y[tr])
    acc = np.mean(model.predict([bags[i] for i in te]) == y[te])
    majority = max(np.mean(y[te] == c) for c in np.unique(y))
    assert acc > majority + 0.15, acc


@pytest.mark.parametrize("cls", ALL)
def test_separable_problem(cls):
    bags, y = _separable(0)
    test_bags, test_y = _separable(1)
    model = _fast(cls).fit(bags, y)
    assert np.mean(model.predict(test_bags) == test_y) >= 0.9
    scores = model.decision_function(test_bags)
    assert scores.shape == (len(test_bags),)
    np.testing.assert_array_equal(
        model.predict(test_bags), model.classes_[(scores > 0).astype(int)]
    )
    assert isinstance(model.fit_info_, dict)


# ------------------------------------------------------------------------------------------
# Hausdorff distances against brute force
# ------------------------------------------------------------------------------------------


def _brute_hausdorff(A, B, k):
    d = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
    h_ab = np.sort(d.min(axis=1))[min(k, len(A)) - 1]
    h_ba = np.sort(d.min(axis=0))[min(k, len(B)) - 1]
    return max(h_ab, h_ba)


@pytest.mark.parametrize("k", [1, 2, 4, 50])
def test_hausdorff_against_brute_force(k, monkeypatch):
    import svmlab.estimators.mil.citation_knn as mod

    monkeypatch.setattr(mod, "_BLOCK_ELEMENTS", 30)  # force several blocks
    rng = np.random.default_rng(k)
    A = [rng.normal(size=(rng.integers(1, 6), 3)) for _ in range(7)]
    B = [rng.normal(size=(rng.integers(1, 6), 3)) for _ in range(5)]
    XA, sA, nA = check_bags(A)
    XB, sB, nB = check_bags(B)
    H = hausdorff_distances(XA, sA, nA, XB, sB, nB, rank=k)
    ref = np.array([[_brute_hausdorff(a, b, k) for b in B] for a in A])
    np.testing.assert_allclose(H, ref, rtol=1e-10, atol=1e-12)
    if k == 1:  # minimal Hausdorff = closest pair
        np.testing.assert_allclose(
            H[0, 0], np.sqrt(((A[0][:, None] - B[0][None]) ** 2).sum(-1)).min()
        )


def test_citation_votes_and_tie_rule():
    # 1-D bags: the query sits between one positive and one negative bag
    bags = [np.array([[0.0]]), np.array([[10.0]]), np.array([[20.0]])]
    y = np.array(["neg", "pos", "neg"])
    m = CitationKNNClassifier(n_references=1, n_citers=0, scaling="none").fit(bags, y)
    assert list(m.predict([np.array([[9.0]]), np.array([[1.0]])])) == ["pos", "neg"]
    # R = 2 references, one of each class -> tie -> negative
    m2 = CitationKNNClassifier(n_references=2, n_citers=0, scaling="none").fit(bags, y)
    assert m2.predict([np.array([[6.0]])])[0] == "neg"
    assert m2.decision_function([np.array([[6.0]])])[0] == 0.0
    # citers: bag 10 has nearest other bag at 10, so a query within 10 of it is cited by it
    m3 = CitationKNNClassifier(n_references=1, n_citers=1, scaling="none").fit(bags, y)
    np.testing.assert_allclose(m3.citation_radius_, [10.0, 10.0, 10.0])
    # query at 12: reference = 10 (pos); citers: 10 (|2|<=10, pos), 20 (8<=10, neg) -> 2 vs 1
    assert m3.predict([np.array([[12.0]])])[0] == "pos"


# ------------------------------------------------------------------------------------------
# Diverse density objective
# ------------------------------------------------------------------------------------------


def _brute_nll(params, bags, y):
    d = bags[0].shape[1]
    t, s = params[:d], params[d:]
    total = 0.0
    for b, lab in zip(bags, y):
        p = np.exp(-(((b - t) ** 2) * s**2).sum(axis=1))
        prob = 1 - np.prod(1 - p) if lab == 1 else np.prod(1 - p)
        total -= np.log(prob)
    return total


def test_dd_objective_and_gradient_against_brute_force():
    rng = np.random.default_rng(3)
    bags = [rng.normal(size=(n, 3)) for n in (2, 3, 1, 4)]
    y = np.array([1, 0, 1, 0])
    X, starts, _ = check_bags(bags)
    for _ in range(3):
        params = np.concatenate([rng.normal(size=3), rng.uniform(0.3, 1.5, 3)])
        val, grad = dd_negative_log_likelihood(params, X, starts, y == 1)
        assert val == pytest.approx(_brute_nll(params, bags, y), rel=1e-10)
        eps = 1e-6
        num = [
            (_brute_nll(params + eps * e, bags, y) - _brute_nll(params - eps * e, bags, y))
            / (2 * eps)
            for e in np.eye(6)
        ]
        np.testing.assert_allclose(grad, num, rtol=1e-5, atol=1e-7)
    # far from every instance: Weka MIDD floors every probability at sqrt(2^-52)
    import math

    zero = math.sqrt(2.0**-52)
    params = np.concatenate([np.full(3, 4.0), np.full(3, 0.8)])
    val, grad = dd_negative_log_likelihood(params, X, starts, y == 1)
    assert np.isfinite(val) and np.all(np.isfinite(grad))
    ref = 0.0
    for b, lab in zip(bags, y):
        p = np.exp(-(((b - 4.0) ** 2) * 0.64).sum(axis=1))
        if lab == 1:
            ref -= math.log(max(1.0 - math.prod(1.0 - p), zero))
        else:
            ref -= sum(math.log(max(1.0 - pj, zero)) for pj in p)
    assert val == pytest.approx(ref, rel=1e-8)


@pytest.mark.parametrize("cls", [DiverseDensityClassifier, EMDDClassifier])
def test_optimum_beats_every_start(cls):
    bags, y = _separable(2, n=20)
    m = cls(max_starts=6, random_state=1).fit(bags, y)
    info = m.fit_info_
    assert info["n_starts"] == 6
    assert np.all(info["final_values"] <= info["start_values"] + 1e-9)
    assert min(info["final_values"]) < min(info["start_values"])
    # the target lands near the concept (3, 3), in original units
    target = m.target_ * m._scale + m._offset
    np.testing.assert_allclose(target, [3.0, 3.0], atol=0.6)


# ------------------------------------------------------------------------------------------
# determinism, labels, bad input
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cls", ALL)
def test_determinism_and_labels(cls):
    bags, y = _separable(4, n=20)
    labels = np.where(y == 1, "yes", "no")
    a = _fast(cls).fit(bags, labels)
    b = _fast(cls).fit(bags, labels)
    np.testing.assert_array_equal(a.decision_function(bags), b.decision_function(bags))
    assert set(a.predict(bags)) <= {"yes", "no"}
    assert list(a.classes_) == ["no", "yes"]


@pytest.mark.parametrize("cls", ALL)
@pytest.mark.parametrize(
    "bags, y, message",
    [
        ([np.ones((2, 2)), np.ones((0, 2))], [0, 1], "zero instances"),
        ([np.ones((2, 2)), np.ones((2, 3))], [0, 1], "features"),
        ([np.ones((2, 2)), np.ones((2, 2))], [1, 1], "only one class"),
        ([np.ones((2, 2))] * 3, [0, 1, 2], "3 classes"),
        ([np.ones((2, 2))] * 3, [0, 1], "labels"),
        ([np.array([[np.nan, 1.0]]), np.ones((1, 2))], [0, 1], "NaN"),
    ],
)
def test_bad_input(cls, bags, y, message):
    with pytest.raises(ValueError, match=message):
        cls().fit(bags, y)


@pytest.mark.parametrize("cls", ALL)
def test_bad_input_at_prediction(cls):
    bags, y = _separable(5, n=10)
    m = _fast(cls).fit(bags, y)
    with pytest.raises(ValueError, match="features"):
        m.predict([np.ones((2, 3))])


# ------------------------------------------------------------------------------------------
# musk1, bag-level stratified 10-fold (needs the benchmark files)
# ------------------------------------------------------------------------------------------

# Table 4.3 / journal Table 3 (Weka defaults). CitationKNN and EM-DD were not run in the paper.
PAPER_MUSK1 = {"MIDD": 0.8804, "MIOptimalBall": 0.7717}


@pytest.mark.slow
@pytest.mark.data
def test_musk1_ten_fold_accuracy(musk1, musk1_ten_fold):
    ds = musk1
    makers = {
        "CitationKNN": lambda f: CitationKNNClassifier(),
        "MIOptimalBall": lambda f: MIOptimalBallClassifier(),
    }
    acc = {}
    for name, make in makers.items():
        acc[name] = musk1_ten_fold(make, zscore=False, ignore=())  # the models scale inside
        print(
            f"musk1 {name} pooled 10-fold accuracy {acc[name]:.4f} (paper "
            f"{PAPER_MUSK1.get(name, 'n/a')})"
        )
    majority = max(np.mean(ds.y == c) for c in np.unique(ds.y))
    for name, value in acc.items():
        assert value > majority + 0.1, (name, value)
    # MIDD and EM-DD follow Weka's MIDD / MIEMDD, too slow here on musk1 (minutes); their
    # musk1 accuracy is checked against the real Weka by scripts/bench/mil_weka_parity.py
    # (TOO_SLOW_FOR_CI in tests/estimators/test_weka_parity.py). Paper MIDD: 0.8804.
    # MIOptimalBall with min-max scaling (our reading of Weka's default) is ~0.65 here,
    # 0.79 without scaling; recorded, not asserted against the paper.
