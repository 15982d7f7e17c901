"""MIRSVM's ``keep="author"`` against a plain re-run of the author's training loop (issue 37).

The reference below restates, independently of svmlab's solver and kernel code, what the
author's ``DualTrain.m`` / ``DualTest.m`` (melkiga/MultiInstanceLearning, fb6d759) do:

* as many passes as there are bags, each solving the dual over the current representatives
  with a general QP method (here a dense primal-dual interior point, in place of MATLAB's
  ``quadprog``);
* support vectors ``1e-7 <= alpha <= C + 1e-7`` and the bias averaged over all of them;
* outputs ``f(x)`` of every training instance; instances with ``|f(x)| <= 1e-5`` are dropped
  before each bag's maximum is taken, and a bag with nothing left gets its first instance;
* the returned model pairs the last ``alpha`` and bias with the representatives re-selected
  from them; a test bag is positive when its largest output (those within 1e-7 of zero
  dropped) is positive.
"""

import warnings

import numpy as np
import pytest
from scipy.linalg import cho_factor, cho_solve
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state
from threadpoolctl import threadpool_limits

from svmlab.estimators.mil import MIRSVMClassifier
from svmlab.estimators.mil.mirsvm import AUTHOR_OUTPUT_FLOOR

SIGMA = 5.0


def gaussian(A, B, sigma=SIGMA):
    """``exp(-||a - b||^2 / (2 sigma^2))`` between the rows of ``A`` and ``B``."""
    squared = (A * A).sum(1)[:, None] + (B * B).sum(1)[None, :] - 2.0 * A @ B.T
    return np.exp(-np.maximum(squared, 0.0) / (2.0 * sigma**2))


def interior_point_dual(Q, C, y):
    """``min 1/2 a'Qa - sum a`` subject to ``y'a = 0`` and ``0 <= a <= C``: Mehrotra's
    predictor-corrector on the box written with slacks, one step length for the primal and
    the dual variables (the dual residual depends on both)."""
    n = len(y)
    a, s, z, w, lam = np.full(n, C / 2), np.full(n, C / 2), np.ones(n), np.ones(n), 0.0

    def direction(rd, rp, rc1, rc2, solve, q):
        p = solve(-rd + rc1 / a - rc2 / s)
        dlam = (-rp - y @ p) / (y @ q)
        da = p + q * dlam
        return da, dlam, (rc1 - z * da) / a, (rc2 + w * da) / s

    def step(v1, d1, v2, d2):
        ratios = np.concatenate([-v1[d1 < 0] / d1[d1 < 0], -v2[d2 < 0] / d2[d2 < 0], [1.0]])
        return ratios.min()

    for _ in range(200):  # the slack s = C - a is kept as a variable of its own
        rd, rp, mu = Q @ a - 1.0 - y * lam - z + w, y @ a, (a @ z + s @ w) / (2 * n)
        if np.abs(rd).max() <= 1e-13 and abs(rp) <= 1e-13 * max(1.0, C) and mu <= 1e-14:
            return np.clip(a, 0.0, C)
        factor = cho_factor(Q + np.diag(z / a + w / s))

        def solve(r, factor=factor):
            return cho_solve(factor, r)

        q = solve(y)
        da, dl, dz, dw = direction(rd, rp, -a * z, -s * w, solve, q)
        t = min(step(a, da, s, -da), step(z, dz, w, dw))
        gap = (a + t * da) @ (z + t * dz) + (s - t * da) @ (w + t * dw)
        centre = (gap / (2 * n) / mu) ** 3 * mu
        da, dl, dz, dw = direction(
            rd, rp, -a * z - da * dz + centre, -s * w + da * dw + centre, solve, q
        )
        t = min(1.0, 0.995 * step(a, da, s, -da), 0.995 * step(z, dz, w, dw))
        a, s, lam, z, w = a + t * da, s - t * da, lam + t * dl, z + t * dz, w + t * dw
    raise RuntimeError("interior point: no convergence in 200 iterations")


def authors_loop(bags, Y, C, first, floor=1e-5):
    """The author's training loop from the initial representatives ``first`` (indices within
    the bags). Returns ``(alpha * Y, bias, representatives within their bags)``."""
    X = np.vstack(bags)
    sizes = np.array([len(b) for b in bags])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    S = starts + first
    for _ in range(len(bags)):
        K = gaussian(X[S], X[S])
        Q = np.outer(Y, Y) * K
        alpha = interior_point_dual(Q, C, Y)
        sv = (alpha >= 1e-7) & (alpha <= C + 1e-7)
        coef = alpha * Y
        bias = np.mean(Y[sv] - K[np.ix_(sv, sv)] @ coef[sv])
        out = gaussian(X, X[S]) @ coef + bias
        new = starts.copy()
        for bag, (start, size) in enumerate(zip(starts, sizes)):
            kept = np.flatnonzero(np.abs(out[start : start + size]) > floor)
            if len(kept):
                new[bag] = start + kept[np.argmax(out[start : start + size][kept])]
        S = new
    return coef, bias, S - starts, X[S]


def authors_prediction(bags, coef, bias, points):
    """+1 / -1 per bag as the author's test scores it (0: every output within 1e-7 of 0)."""
    labels = []
    for bag in bags:
        out = gaussian(bag, points) @ coef + bias
        out = out[np.abs(out) > 1e-7]
        labels.append(np.sign(out.max()) if len(out) else 0.0)
    return np.array(labels)


def fold_of(name, fold):
    """Training and test part of one bag-stratified fold (10 folds, seed 0), z-scored on the
    training part, as svmlab's runner makes them."""
    from svmlab.data.registry import load_dataset
    from svmlab.evaluation.preprocessing import Preprocessor
    from svmlab.evaluation.protocols import make_splits

    ds = load_dataset(name)
    protocol = {"kind": "bag_stratified_kfold", "n_splits": 10}
    split = next(s for s in make_splits(protocol, ds.task, ds.y, 0, name) if s.fold == fold)
    train, test = ds.subset(split.train), ds.subset(split.test)
    pre = Preprocessor("zscore").fit(train)
    return pre.transform(train), pre.transform(test)


def initial_representatives(bags, seed):
    """MIRSVM's random initial representative of every bag for ``random_state=seed``."""
    sizes = np.array([len(b) for b in bags])
    draws = check_random_state(seed).random_sample(len(sizes))
    return np.minimum((draws * sizes).astype(np.intp), sizes - 1)


# the floor changes svmlab's path on each of these (fox fold 2: 12 of 20 test bags)
CASES = [("elephant", 5, 10.0), ("elephant", 4, 0.1), ("fox", 2, 0.1), ("fox", 6, 0.1)]


@pytest.fixture(scope="module")
def reruns():
    """Each case's fold and the author's loop re-run on it."""
    out = {}
    with threadpool_limits(1):  # small dense products: threads only contend on a busy box
        for name, fold, C in CASES:
            train, test = fold_of(name, fold)
            Y = np.where(train.y == np.unique(train.y)[1], 1.0, -1.0)
            first = initial_representatives(train.bags, fold)
            out[name, fold, C] = train, test, authors_loop(train.bags, Y, C, first)
    return out


def fit_author_mode(train, C, fold, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return MIRSVMClassifier(C=C, sigma=SIGMA, keep="author", random_state=fold, **kw).fit(
            train.bags, train.y
        )


@pytest.mark.data
@pytest.mark.parametrize("case", CASES, ids=[f"{n}-fold{f}-C{c:g}" for n, f, c in CASES])
def test_keep_author_equals_the_authors_loop_bag_for_bag(reruns, case):
    name, fold, C = case
    train, test, (coef, bias, reps, points) = reruns[case]
    model = fit_author_mode(train, C, fold)
    np.testing.assert_array_equal(model.representatives_, reps)
    expected = authors_prediction(test.bags, coef, bias, points)
    assert np.all(expected != 0)
    predicted = np.where(model.predict(test.bags) == model.classes_[1], 1.0, -1.0)
    np.testing.assert_array_equal(predicted, expected)
    assert model.fit_info_["output_floor"] == AUTHOR_OUTPUT_FLOOR == 1e-5


@pytest.mark.data
def test_without_the_floor_the_author_mode_leaves_the_authors_path(reruns):
    train, test, (coef, bias, reps, points) = reruns["fox", 2, 0.1]
    model = fit_author_mode(train, 0.1, 2, output_floor=0.0)
    assert np.any(model.representatives_ != reps)
    predicted = np.where(model.predict(test.bags) == model.classes_[1], 1.0, -1.0)
    assert np.sum(predicted != authors_prediction(test.bags, coef, bias, points)) >= 5


# ------------------------------------------------------------------------------------------
# the floor itself (no data needed)
# ------------------------------------------------------------------------------------------


def two_cluster_bags(seed=0, n_bags=30):
    rng = np.random.default_rng(seed)
    y = np.arange(n_bags) % 2
    bags = [rng.standard_normal((int(rng.integers(2, 6)), 3)) + 1.5 * label for label in y]
    return bags, y


def test_output_floor_auto_follows_keep():
    bags, y = two_cluster_bags()
    assert MIRSVMClassifier(keep="author").fit(bags, y).fit_info_["output_floor"] == 1e-5
    assert MIRSVMClassifier(keep="last").fit(bags, y).fit_info_["output_floor"] == 0.0
    set_floor = MIRSVMClassifier(keep="last", output_floor=0.25).fit(bags, y)
    assert set_floor.fit_info_["output_floor"] == 0.25


@pytest.mark.parametrize("value", [-1e-5, "none", None])
def test_bad_output_floor_is_refused(value):
    bags, y = two_cluster_bags()
    with pytest.raises(ValueError, match="output_floor"):
        MIRSVMClassifier(output_floor=value).fit(bags, y)


@pytest.mark.parametrize("qp_solver", ["osqp", "libsvm"])
def test_the_floor_is_the_same_in_the_compiled_and_the_python_loop(qp_solver):
    # a floor large enough to drop many outputs, bags left empty included
    bags, y = two_cluster_bags(3, 40)
    kw = dict(C=1.0, sigma=1.0, output_floor=0.6, max_iter=8, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        compiled = MIRSVMClassifier(**kw).fit(bags, y)
        other = MIRSVMClassifier(qp_solver=qp_solver, tol=1e-9, **kw).fit(bags, y)
        plain = MIRSVMClassifier(**{**kw, "output_floor": 0.0}).fit(bags, y)
    np.testing.assert_array_equal(compiled.representatives_, other.representatives_)
    assert np.any(compiled.representatives_ != plain.representatives_)


def test_a_bag_whose_outputs_are_all_within_the_floor_keeps_its_first_instance():
    bags, y = two_cluster_bags(5, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        model = MIRSVMClassifier(C=1.0, output_floor=1e9, max_iter=3, random_state=0).fit(bags, y)
    np.testing.assert_array_equal(model.representatives_, np.zeros(len(bags), dtype=np.intp))
