"""Prec@k and Rec@k oracles (svmlab.estimators.svmperf.oracles_at_k) against exhaustive
enumeration of every labelling, an O(n+ n-) grid, and their losses and measures."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab.estimators.svmperf.oracles import loss, measure_value, most_violated
from svmlab.estimators.svmperf.oracles_at_k import k_of

AT_K = ("prec_at_k", "rec_at_k")
SCALINGS = ("svmperf", "paper")
TOL = 1e-12


def units(scaling, n):
    return (100.0, 50.0 / n) if scaling == "svmperf" else (1.0, 1.0)


def at_k_loss(measure, y, Y, L):
    """Delta of every row of Y from the definitions (precision of the predicted positives,
    recall of the positives), written independently of the module."""
    pos, pred = y > 0, Y > 0
    tp = (pred & pos).sum(1).astype(float)
    n_pred = pred.sum(1).astype(float)
    if measure == "prec_at_k":
        m = np.where(n_pred > 0, tp / np.maximum(n_pred, 1), 0.0)
    else:
        m = tp / pos.sum()
    return L * (1 - m)


def searched(measure, y, Y, k):
    """y and the labellings of positive loss with at least (Prec@k) / at most (Rec@k) k
    predicted positives."""
    n_pred = (Y > 0).sum(1)
    ok = n_pred >= k if measure == "prec_at_k" else n_pred <= k
    ok &= at_k_loss(measure, y, Y, 1.0) > 0
    return np.vstack([y[None], Y[ok]])


def all_labellings(n):
    return 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) - 1


def random_y(rng, n, n_pos):
    y = -np.ones(n, dtype=int)
    y[rng.choice(n, n_pos, replace=False)] = 1
    return y


def cases():
    rng = np.random.default_rng(20261129)
    out = []
    for n, n_pos in ((2, 1), (3, 1), (3, 2), (5, 2), (6, 5), (8, 3), (9, 1), (11, 4), (12, 7)):
        y = random_y(rng, n, n_pos)
        for f in (
            rng.normal(size=n),
            rng.integers(-2, 3, size=n) * 0.5,
            np.zeros(n),
            rng.integers(-3, 4, size=n).astype(float),
        ):
            out.append((y, f))
    return out


FRACTIONS = {"prec_at_k": (None, 0.2, 1.0), "rec_at_k": (None, 1.0, 1.5, 10.0)}


@pytest.mark.parametrize("scaling", SCALINGS)
@pytest.mark.parametrize("measure", AT_K)
def test_at_k_oracles_equal_enumeration_of_every_labelling(measure, scaling):
    for y, f in cases():
        n, n_pos = y.size, int((y > 0).sum())
        L, s = units(scaling, n)
        for fraction in FRACTIONS[measure]:
            k = k_of(measure, n_pos, fraction)
            Y = searched(measure, y, all_labellings(n), k)
            for ff in (f, f / (2 * n)):
                c = most_violated(measure, y, ff, scaling=scaling, k_fraction=fraction)
                V = at_k_loss(measure, y, Y, L) + s * (Y @ ff)
                v_fast = c.delta + s * (c.ybar @ ff)
                assert v_fast == pytest.approx(V.max(), abs=TOL, rel=0)
                assert c.ybar.tolist() in Y.tolist()  # a searched labelling
                top2 = np.sort(V)[-2:] if len(V) > 1 else np.array([-np.inf, V[0]])
                if top2[1] - top2[0] > 1e-9:
                    np.testing.assert_array_equal(c.ybar, Y[int(V.argmax())])
                assert c.delta == pytest.approx(at_k_loss(measure, y, c.ybar[None], L)[0])
                assert c.delta == pytest.approx(
                    loss(measure, y, c.ybar, scaling=scaling, k_fraction=fraction), abs=TOL
                )
                np.testing.assert_allclose(c.g, s * (y - c.ybar), rtol=0, atol=0)


def grid_max(measure, y, f, k, L, s):
    """max of V(a, b) over the searched part of the (n+ + 1) x (n- + 1) grid."""
    p, q = np.sort(f[y > 0])[::-1], np.sort(f[y < 0])[::-1]
    SP, SQ = np.r_[0, np.cumsum(p)], np.r_[0, np.cumsum(q)]
    a, b = np.meshgrid(np.arange(p.size + 1), np.arange(q.size + 1), indexing="ij")
    m = a + b
    if measure == "prec_at_k":
        delta = L * (1 - np.where(m > 0, a / np.maximum(m, 1), 0.0))
        ok = m >= k
    else:
        delta = L * (1 - a / p.size)
        ok = m <= k
    V = delta + s * (2 * SP[a] - SP[-1] + 2 * SQ[b] - SQ[-1])
    return max(V[ok & (delta > 0)].max(), V[-1, 0])  # V[-1, 0]: y itself


@pytest.mark.parametrize("measure", AT_K)
def test_at_k_oracles_equal_the_grid_on_n400(measure):
    rng = np.random.default_rng(5)
    for n_pos in (1, 9, 120, 390):
        y = random_y(rng, 400, n_pos)
        for f in (rng.normal(size=400), rng.integers(-2, 3, 400) * 0.25, np.zeros(400)):
            for fraction in FRACTIONS[measure]:
                k = k_of(measure, n_pos, fraction)
                c = most_violated(measure, y, f, k_fraction=fraction)
                L, s = units("svmperf", 400)
                v_fast = c.delta + s * (c.ybar @ f)
                assert v_fast == pytest.approx(grid_max(measure, y, f, k, L, s), abs=1e-9)


def test_k_follows_svmperf_default_rule():
    assert k_of("prec_at_k", 10) == 5 and k_of("rec_at_k", 10) == 20
    assert k_of("prec_at_k", 1) == 1  # int(0.5) = 0 -> at least 1
    assert k_of("prec_at_k", 7, 0.3) == 2 and k_of("rec_at_k", 7, 1.5) == 10


@pytest.mark.parametrize("measure", AT_K)
def test_true_labelling_is_searched_and_has_zero_loss(measure):
    y = np.array([1, -1, 1, -1, -1, 1, -1])
    assert loss(measure, y, y) == 0.0
    c = most_violated(measure, y, 100.0 * y)
    np.testing.assert_array_equal(c.ybar, y)
    assert c.delta == 0.0 and c.violation(100.0 * y) == 0.0


def test_measures_are_precision_and_recall_of_the_top_k():
    y = np.array([1, -1, 1, -1, -1, 1, -1, 1])  # n+ = 4: k = 2 (Prec@k), 8 (Rec@k)
    f = np.array([0.9, 0.8, 0.1, 0.95, -1.0, 0.5, 0.2, -0.3])
    assert measure_value("prec_at_k", y, f) == 0.5  # top 2: 0.95 (neg), 0.9 (pos)
    assert measure_value("prec_at_k", y, f, k_fraction=0.75) == pytest.approx(1 / 3)
    assert measure_value("rec_at_k", y, f) == 1.0
    assert measure_value("rec_at_k", y, f, k_fraction=1.0) == 0.5  # top 4: 2 positives
    # a tie at the cut counts the negative first
    assert measure_value("prec_at_k", [1, -1, 1], [1.0, 1.0, 0.0], k_fraction=0.5) == 0.0


def test_bad_k_fraction_and_labellings_raise_one_clear_error():
    y, f = [1, -1, 1, -1], [0.1, 0.2, 0.3, 0.4]
    with pytest.raises(ValueError, match=r"k_fraction for prec_at_k must lie in \(0, 1\]"):
        most_violated("prec_at_k", y, f, k_fraction=1.5)
    with pytest.raises(ValueError, match="k_fraction for rec_at_k must be a finite number >= 1"):
        most_violated("rec_at_k", y, f, k_fraction=0.5)
    with pytest.raises(ValueError, match="k_fraction must be a number or None"):
        measure_value("rec_at_k", y, f, k_fraction="2")
    with pytest.raises(ValueError, match="must predict at least k = 1 positives, got 0"):
        loss("prec_at_k", y, [-1, -1, -1, -1])
    with pytest.raises(ValueError, match="must predict at most k = 2 positives, got 3"):
        loss("rec_at_k", y, [1, 1, 1, -1], k_fraction=1.0)
