"""The SVM^perf most-violated-constraint oracles (Joachims 2005, Algs. 2-3)
against exhaustive enumeration of all labellings,
an independent contingency-table loss, O(n+ n-) grids and scikit-learn's metrics."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import accuracy_score, f1_score, matthews_corrcoef, roc_auc_score

from svmlab.estimators.svmperf import oracles
from svmlab.estimators.svmperf.oracles import (
    MEASURES,
    _f1_reference,
    loss,
    measure_value,
    most_violated,
)

CONTINGENCY = ("accuracy", "f1", "prbep", "mcc")
SCALINGS = ("svmperf", "paper")
TOL = 1e-12


def units(scaling, n):
    return (100.0, 50.0 / n) if scaling == "svmperf" else (1.0, 1.0)


def auc_units(scaling, n_pos, n_neg):
    """(u, s_auc)."""
    if scaling == "svmperf":
        return 100.0 / (n_pos * n_neg), 50.0 / (n_pos * n_neg)
    return 1.0 / (n_pos * n_neg), 1.0


def table_loss(measure, y, Y, L):
    """Delta of every row of the labelling matrix Y, from TP/FP/FN/TN (the metric definitions),
    written independently of the module."""
    pos, pred = y > 0, Y > 0
    tp = (pred & pos).sum(1).astype(float)
    fp = (pred & ~pos).sum(1).astype(float)
    fn = (~pred & pos).sum(1).astype(float)
    tn = (~pred & ~pos).sum(1).astype(float)
    if measure == "accuracy":
        m = (tp + tn) / y.size
    elif measure == "f1":
        m = np.where(tp > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1), 0.0)
    elif measure == "prbep":
        m = tp / pos.sum()
    else:
        den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        m = np.where(den > 0, (tp * tn - fp * fn) / np.where(den > 0, den, 1), 0.0)
    return L * (1 - m)


def all_labellings(n):
    return 2 * ((np.arange(2**n)[:, None] >> np.arange(n)) & 1) - 1


def random_y(rng, n, n_pos=None):
    n_pos = int(rng.integers(1, n)) if n_pos is None else n_pos
    y = -np.ones(n, dtype=int)
    y[rng.choice(n, n_pos, replace=False)] = 1
    return y


def score_kinds(rng, n):
    return {
        "normal": rng.normal(size=n),
        "ties": rng.integers(-2, 3, size=n) * 0.5,
        "zero": np.zeros(n),
        "integer": rng.integers(-3, 4, size=n).astype(float),
    }


def contingency_cases():
    rng = np.random.default_rng(20260415)
    cases = []
    for n, n_pos in ((2, 1), (3, 1), (3, 2), (5, 2), (6, 5), (8, 3), (9, 1), (12, 4), (12, 7)):
        y = random_y(rng, n, n_pos)
        for kind, f in score_kinds(rng, n).items():
            cases.append((f"n{n}p{n_pos}-{kind}", y, f))
    return cases


def check_against_enumeration(measure, y, f, scaling, Y):
    L, s = units(scaling, y.size)
    c = most_violated(measure, y, f, scaling=scaling)
    V = table_loss(measure, y, Y, L) + s * (Y @ f)
    v_fast = c.delta + s * (c.ybar @ f)
    assert v_fast == pytest.approx(V.max(), abs=TOL, rel=0)
    top2 = np.sort(V)[-2:] if len(V) > 1 else np.array([-np.inf, V[0]])
    if top2[1] - top2[0] > 1e-9:  # unique maximiser: the labelling itself must match
        np.testing.assert_array_equal(c.ybar, Y[int(V.argmax())])
    # the constraint is consistent with its labelling
    assert c.delta == pytest.approx(table_loss(measure, y, c.ybar[None], L)[0], abs=TOL)
    np.testing.assert_allclose(c.g, s * (y - c.ybar), rtol=0, atol=0)
    assert c.violation(f) == pytest.approx(v_fast - s * (y @ f), abs=1e-11)
    return c


@pytest.mark.parametrize("scaling", SCALINGS)
@pytest.mark.parametrize("measure", ("accuracy", "f1", "mcc"))
def test_contingency_oracles_equal_enumeration(measure, scaling):
    for _, y, f in contingency_cases():
        Y = all_labellings(y.size)
        check_against_enumeration(measure, y, f, scaling, Y)
        if scaling == "paper":  # f on the paper's scale, where Delta and scores compete
            check_against_enumeration(measure, y, f / (2 * y.size), scaling, Y)


@pytest.mark.parametrize("scaling", SCALINGS)
def test_prbep_oracle_equals_enumeration_on_restricted_set(scaling):
    for _, y, f in contingency_cases():
        Y = all_labellings(y.size)
        Y = Y[(Y > 0).sum(1) == (y > 0).sum()]  # a + b = n+
        for ff in (f, f / (2 * y.size)):
            c = check_against_enumeration("prbep", y, ff, scaling, Y)
            assert (c.ybar > 0).sum() == (y > 0).sum()


@pytest.mark.parametrize("scaling", SCALINGS)
def test_auc_oracle_equals_enumeration_of_pairwise_labellings(scaling):
    rng = np.random.default_rng(7)
    for n_pos, n_neg in ((1, 1), (1, 4), (2, 2), (2, 3), (3, 3), (2, 5), (4, 4), (1, 16), (3, 5)):
        n = n_pos + n_neg
        y = random_y(rng, n, n_pos)
        pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
        u, s = auc_units(scaling, n_pos, n_neg)
        Y = all_labellings(n_pos * n_neg)  # pair k = (pos[k // n_neg], neg[k % n_neg])
        for f in score_kinds(rng, n).values():
            for ff in (f, f / (2 * n_pos * n_neg) if scaling == "paper" else 2 * f):
                d = (ff[pos][:, None] - ff[neg][None, :]).ravel()
                V = u * (Y < 0).sum(1) + s * (Y @ d)
                c = most_violated("auc", y, ff, scaling=scaling)
                assert c.ybar is None
                v_fast = c.delta + s * d.sum() - c.g @ ff  # c(Ybar) f = c(Y) f - g f
                assert v_fast == pytest.approx(V.max(), abs=TOL, rel=0)
                top2 = np.sort(V)[-2:] if len(V) > 1 else np.array([-np.inf, V[0]])
                if top2[1] - top2[0] > 1e-9:
                    viol = (Y[int(V.argmax())] < 0).reshape(n_pos, n_neg)
                    g = np.zeros(n)
                    g[pos], g[neg] = 2 * s * viol.sum(1), -2 * s * viol.sum(0)
                    np.testing.assert_allclose(c.g, g, rtol=0, atol=1e-12)
                    assert c.delta == pytest.approx(u * viol.sum(), abs=TOL)
                    assert c.delta == pytest.approx(
                        loss("auc", y, np.where(viol, -1, 1), scaling=scaling), abs=TOL
                    )


@pytest.mark.parametrize("scaling", SCALINGS)
def test_auc_oracle_matches_explicit_pairs_with_ties(scaling):
    """n = 300 against the explicit (n+, n-) pair matrix; integer scores put many pairs exactly
    at the threshold theta (1 under svmperf scaling), and those count as violated."""
    rng = np.random.default_rng(3)
    for n_pos in (30, 150, 270):
        y = random_y(rng, 300, n_pos)
        pos, neg = np.flatnonzero(y > 0), np.flatnonzero(y < 0)
        u, s = auc_units(scaling, n_pos, 300 - n_pos)
        theta = u / (2 * s)
        for f in (rng.integers(-3, 4, 300) * theta, rng.normal(size=300), np.zeros(300)):
            viol = f[pos][:, None] - f[neg][None, :] <= theta
            c = most_violated("auc", y, f, scaling=scaling)
            assert c.delta == pytest.approx(u * viol.sum(), abs=1e-10)
            np.testing.assert_allclose(c.g[pos], 2 * s * viol.sum(1), rtol=0, atol=1e-12)
            np.testing.assert_allclose(c.g[neg], -2 * s * viol.sum(0), rtol=0, atol=1e-12)
    # theta itself: under svmperf scaling a pair 1 apart is violated, 1 + 1e-9 apart is not
    y = np.array([1, -1])
    assert most_violated("auc", y, [1.0, 0.0]).delta == 100.0
    assert most_violated("auc", y, [1.0 + 1e-9, 0.0]).delta == 0.0


def grid_values(measure, y, f, scaling):
    """V(a, b) on the whole (n+ + 1) x (n- + 1) grid, from the independent table loss."""
    L, s = units(scaling, y.size)
    p = np.sort(f[y > 0])[::-1]
    q = np.sort(f[y < 0])[::-1]
    SP, SQ = np.r_[0, np.cumsum(p)], np.r_[0, np.cumsum(q)]
    a, b = np.meshgrid(np.arange(p.size + 1), np.arange(q.size + 1), indexing="ij")
    n_pos, n_neg = p.size, q.size
    tp, fp = a.astype(float), b.astype(float)
    fn, tn = n_pos - tp, n_neg - fp
    if measure == "f1":
        m = np.where(tp > 0, 2 * tp / (2 * tp + fp + fn), 0.0)
    else:
        den = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        m = np.where(den > 0, (tp * tn - fp * fn) / np.where(den > 0, den, 1), 0.0)
    return L * (1 - m) + s * (2 * SP[a] - SP[-1] + 2 * SQ[b] - SQ[-1])


def large_cases():
    rng = np.random.default_rng(11)
    out = []
    for n_pos in (1, 17, 150, 283):
        y = random_y(rng, 300, n_pos)
        for kind, f in score_kinds(rng, 300).items():
            out.append((f"p{n_pos}-{kind}", y, f))
    return out


def check_grid(measure, c, y, f, scaling):
    L, s = units(scaling, y.size)
    V = grid_values(measure, y, f, scaling)
    v_fast = c.delta + s * (c.ybar @ f)
    assert v_fast == pytest.approx(V.max(), abs=1e-11, rel=0), "argmax value"
    flat = np.sort(V.ravel())
    if flat[-1] - flat[-2] > 1e-9:
        a, b = np.unravel_index(int(V.argmax()), V.shape)
        pred = c.ybar > 0
        assert (pred & (y > 0)).sum() == a and (pred & (y < 0)).sum() == b


@pytest.mark.parametrize("scaling", SCALINGS)
def test_f1_fast_equals_reference_and_grid_on_n300(scaling):
    for _, y, f in large_cases():
        for ff in (f, f / 600) if scaling == "paper" else (f,):
            fast, ref = (
                most_violated("f1", y, ff, scaling=scaling),
                _f1_reference(y, ff, scaling=scaling),
            )
            L, s = units(scaling, y.size)
            assert fast.delta + s * (fast.ybar @ ff) == pytest.approx(
                ref.delta + s * (ref.ybar @ ff), abs=TOL, rel=0
            )
            check_grid("f1", fast, y, ff, scaling)
            check_grid("f1", ref, y, ff, scaling)


def test_f1_fast_equals_reference_labelling_on_continuous_scores():
    rng = np.random.default_rng(5)
    for n_pos in (3, 30, 100, 250):
        y = random_y(rng, 300, n_pos)
        f = rng.normal(size=300) * rng.choice([0.3, 1.0, 3.0])
        fast, ref = most_violated("f1", y, f), _f1_reference(y, f)
        np.testing.assert_array_equal(fast.ybar, ref.ybar)
        assert fast.key == ref.key and fast.delta == ref.delta


@pytest.mark.parametrize("block", (7, 1 << 17))
def test_mcc_enumeration_equals_grid_in_small_and_large_blocks(block, monkeypatch):
    monkeypatch.setattr(oracles, "_BLOCK_ELEMENTS", block)
    for _, y, f in large_cases():
        for scaling in SCALINGS:
            c = most_violated("mcc", y, f, scaling=scaling)
            check_grid("mcc", c, y, f, scaling)


def test_block_size_does_not_change_the_tie_break(monkeypatch):
    """Exact ties across blocks (all-zero scores under F1: every b ties at a = 0) keep the
    first maximum in (a ascending, b descending) order."""
    y = np.r_[np.ones(5, int), -np.ones(9, int)]
    f = np.zeros(14)
    out = []
    for block in (1, 3, 10, 1000):
        monkeypatch.setattr(oracles, "_BLOCK_ELEMENTS", block)
        out.append(_f1_reference(y, f).ybar)
    for ybar in out:
        np.testing.assert_array_equal(ybar, -y)
    # accuracy with every margin exactly 1 and n = 8 (all values exact in binary): V(a, b) is
    # the same on the whole grid, so the enumeration returns (a, b) = (0, n-) in every
    # blocking; the separable accuracy oracle instead keeps points on the margin (Joachims' rule)
    y = np.array([1, -1, -1, 1, -1, 1, -1, -1])
    f = y.astype(float)
    L, s = units("svmperf", 8)
    for block in (1, 2, 5, 1000):
        monkeypatch.setattr(oracles, "_BLOCK_ELEMENTS", block)
        assert oracles._enumerate("accuracy", oracles._Sorted(y, f), s, L) == (0, 5)
    np.testing.assert_array_equal(most_violated("accuracy", y, f).ybar, y)


@pytest.mark.parametrize("measure", CONTINGENCY)
def test_tie_breaking_is_deterministic(measure):
    y = np.array([1, -1, -1, 1, -1, 1, -1, -1])
    n_pos, n = 3, 8
    c = most_violated(measure, y, np.zeros(n))
    if measure == "prbep":  # a = max(0, n+ - n-) = 0: the first n+ negatives by index
        np.testing.assert_array_equal(c.ybar, [-1, 1, 1, -1, 1, -1, -1, -1])
    else:  # all-zero scores: the loss alone; F1 ties over b at a = 0 -> b = n-
        np.testing.assert_array_equal(c.ybar, -y)
    assert (c.ybar > 0).sum() == (n_pos if measure == "prbep" else n - n_pos)
    # equal scores within a class: the lower index is ranked first
    f = np.where(y > 0, 2.0, -2.0)
    f[[3, 6]] = [0.1, 0.1]
    c1, c2 = most_violated(measure, y, f), most_violated(measure, y, f.copy())
    assert c1.key == c2.key


def test_accuracy_keeps_points_on_the_margin():
    """The separable rule flips iff y_i f_i < 1 (svmperf scaling): a point exactly on the margin
    keeps its label, so scores with all margins >= 1 return y itself."""
    y = np.array([1, -1, 1, -1, -1])
    c = most_violated("accuracy", y, y * np.array([1.0, 1.0, 2.0, 1.0, 0.999]))
    np.testing.assert_array_equal(c.ybar, [1, -1, 1, -1, 1])
    assert c.delta == 20.0
    n = y.size
    c = most_violated("accuracy", y, y / (2 * n), scaling="paper")
    np.testing.assert_array_equal(c.ybar, y)


@pytest.mark.parametrize("measure", MEASURES)
def test_true_labelling_has_zero_loss_and_zero_g(measure):
    rng = np.random.default_rng(1)
    for n_pos, n in ((1, 2), (3, 10), (40, 50), (7, 300)):
        y = random_y(rng, n, n_pos)
        for scaling in SCALINGS:
            if measure == "auc":
                assert loss("auc", y, np.ones((n_pos, n - n_pos)), scaling=scaling) == 0.0
            else:
                assert loss(measure, y, y, scaling=scaling) == 0.0
            c = most_violated(measure, y, 100.0 * y, scaling=scaling)  # huge margins
            assert c.delta == 0.0
            assert not c.g.any()
            if c.ybar is not None:
                np.testing.assert_array_equal(c.ybar, y)
            assert c.violation(100.0 * y) == 0.0


@pytest.mark.parametrize("measure", CONTINGENCY)
def test_loss_equals_table_formula_and_is_nonnegative(measure):
    rng = np.random.default_rng(2)
    for n in (2, 7, 40):
        y = random_y(rng, n)
        Y = 2 * rng.integers(0, 2, size=(200, n)) - 1
        if measure == "prbep":
            Y = np.array([random_y(rng, n, int((y > 0).sum())) for _ in range(50)])
        for scaling in SCALINGS:
            L, _ = units(scaling, n)
            got = np.array([loss(measure, y, ybar, scaling=scaling) for ybar in Y])
            np.testing.assert_allclose(got, table_loss(measure, y, Y, L), rtol=0, atol=1e-12)
            assert (got >= 0).all()
            assert got.max() <= (2 * L if measure == "mcc" else L)


def test_loss_extremes():
    y = np.array([1, 1, -1, -1, -1])
    assert loss("mcc", y, -y) == 200.0
    assert loss("f1", y, -np.ones(5)) == 100.0  # nothing predicted positive: F1 = 0
    assert loss("mcc", y, np.ones(5)) == 100.0  # a + b = n: MCC := 0
    assert loss("mcc", y, -np.ones(5), scaling="paper") == 1.0  # a + b = 0
    assert loss("accuracy", y, -y) == 100.0
    assert loss("prbep", y, [-1, -1, 1, 1, -1]) == 100.0
    assert loss("auc", y, -np.ones((2, 3))) == 100.0
    # MCC = +-1 exactly at large n (the exact Cauchy-Schwarz check)
    big = np.r_[np.ones(30011, int), -np.ones(70001, int)]
    assert loss("mcc", big, big) == 0.0 and loss("mcc", big, -big) == 200.0


@pytest.mark.parametrize("measure", MEASURES)
def test_scalings_define_the_same_argmax(measure):
    """V_svmperf(f) = 100 V_paper(f / (2n)) (contingency) and 100 V_paper(f / (2 n+ n-)) (AUC)."""
    rng = np.random.default_rng(9)
    for n_pos, n in ((4, 40), (30, 45), (9, 200)):
        y = random_y(rng, n, n_pos)
        f = rng.normal(size=n)
        k = 2 * n_pos * (n - n_pos) if measure == "auc" else 2 * n
        perf = most_violated(measure, y, f)
        paper = most_violated(measure, y, f / k, scaling="paper")
        assert perf.key == paper.key
        assert perf.delta == pytest.approx(100 * paper.delta, rel=1e-12)
        if measure != "auc":
            np.testing.assert_array_equal(perf.ybar, paper.ybar)
        np.testing.assert_allclose(perf.g, paper.g * (50 / n if measure != "auc" else 50 / (k / 2)))


def test_constraint_is_read_only_and_keys_identify_labellings():
    y = np.array([1, -1, 1, -1, -1, -1])
    f = np.array([0.5, 0.2, -1.0, 3.0, -0.3, 0.0])
    for measure in MEASURES:
        c = most_violated(measure, y, f)
        with pytest.raises(ValueError):
            c.g[0] = 1.0
        if c.ybar is not None:
            with pytest.raises(ValueError):
                c.ybar[0] = 1
        assert isinstance(c.key, bytes)
        assert c.key == most_violated(measure, y, f.copy()).key
        assert c.key != most_violated(measure, y, 100.0 * y).key
    assert c.g.dtype == np.float64


def test_measure_value_matches_sklearn_and_the_losses():
    rng = np.random.default_rng(4)
    for n_pos in (1, 20, 70):
        y = random_y(rng, 90, n_pos)
        for f in (rng.normal(size=90), rng.integers(-2, 3, 90).astype(float), np.zeros(90)):
            pred = np.where(f > 0, 1, -1)
            assert measure_value("accuracy", y, f) == pytest.approx(accuracy_score(y, pred))
            assert measure_value("f1", y, f) == pytest.approx(f1_score(y, pred, zero_division=0))
            assert measure_value("mcc", y, f) == pytest.approx(
                matthews_corrcoef(y, pred), abs=1e-12
            )
            assert measure_value("auc", y, f) == pytest.approx(roc_auc_score(y, f))
            for m in ("accuracy", "f1", "mcc"):
                assert loss(m, y, pred) == pytest.approx(100 * (1 - measure_value(m, y, f)))
            # PRBEP: precision of the n+ top scores, negatives first among ties
            order = sorted(range(90), key=lambda i: (-f[i], y[i] > 0))
            top = np.full(90, -1)
            top[order[:n_pos]] = 1
            assert measure_value("prbep", y, f) == pytest.approx((y[top > 0] > 0).mean())
            assert loss("prbep", y, top) == pytest.approx(100 * (1 - measure_value("prbep", y, f)))


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"measure": "roc"},
            "measure must be one of accuracy, f1, prbep, mcc, auc, prec_at_k, rec_at_k; got 'roc'",
        ),
        ({"scaling": "percent"}, "scaling must be one of svmperf, paper"),
        ({"y": [1, 0, -1]}, "y must contain only the labels +1 and -1"),
        ({"y": ["a", "b", "a"]}, "y must contain only the labels +1 and -1"),
        ({"y": [1, 1, 1]}, "y must contain both classes"),
        ({"y": [[1, -1, 1]]}, "y must be a 1-D array"),
        ({"f": [0.0, 1.0]}, "f must be a 1-D array of 3 scores"),
        ({"f": [0.0, np.nan, 1.0]}, "f must be finite"),
        ({"f": [0.0, np.inf, 1.0]}, "f must be finite"),
    ],
)
def test_bad_input_raises_one_clear_error(kwargs, message):
    args = {"measure": "f1", "y": [1, -1, 1], "f": [0.0, 0.5, 1.0], "scaling": "svmperf"}
    args.update(kwargs)
    with pytest.raises(ValueError, match=message.replace("+", r"\+").replace("(", r"\(")):
        most_violated(args["measure"], args["y"], args["f"], scaling=args["scaling"])


def test_bad_labellings_for_loss():
    y = [1, -1, 1, -1]
    with pytest.raises(ValueError, match="exactly n\\+ = 2 positives"):
        loss("prbep", y, [1, 1, 1, -1])
    with pytest.raises(ValueError, match="ybar must be a 1-D array of 4 labels"):
        loss("f1", y, [1, 0, 1, -1])
    with pytest.raises(ValueError, match=r"ybar for auc must be an \(2, 2\) array"):
        loss("auc", y, [1, -1, 1, -1])
    with pytest.raises(ValueError, match="measure must be one of"):
        measure_value("precision", y, [0.0] * 4)


def test_descending_order_equals_stable_sort():
    """(score descending, index ascending): no ties, a few ties (repaired runs), many ties."""
    rng = np.random.default_rng(8)
    f = rng.normal(size=5000)
    few = f.copy()
    few[rng.choice(5000, 40)] = few[rng.choice(5000, 40)]
    few[:7] = 0.0
    for v in (f, few, np.round(f, 1), np.zeros(50), -np.zeros(3), np.array([0.0, -0.0, 0.0])):
        np.testing.assert_array_equal(
            oracles._desc_order(v), np.argsort(-v, kind="stable"), strict=True
        )
