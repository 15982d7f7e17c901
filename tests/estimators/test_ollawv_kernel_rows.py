"""The compiled kernel rows of OLLAWV: the exponential's accuracy, and values that depend only
on the candidate, never on its position in a block (the arg-min ties rely on it)."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from svmlab.estimators.ollawv._kernel_rows import BLOCK, exp_nonpos, rbf_block


@njit
def _exp_all(x):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = exp_nonpos(x[i])
    return out


def _row(XT, xw, gamma):
    n = XT.shape[1]
    acc, kv, out = np.empty((4, BLOCK)), np.empty(BLOCK), np.empty(n)
    for lo in range(0, n, BLOCK):
        nb = min(BLOCK, n - lo)
        rbf_block(XT, lo, nb, xw, gamma, acc, kv)
        out[lo : lo + nb] = kv[:nb]
    return out


def test_exp_is_within_one_ulp_of_the_c_library():
    rng = np.random.default_rng(0)
    x = np.concatenate([-rng.random(200_000) * 750, -rng.random(20_000) * 1e-3, [0.0, -0.0]])
    got = _exp_all(x)
    ref = np.array([math.exp(v) for v in x])
    normal = ref > 2.3e-308  # subnormal results may lose bits
    ulps = np.abs(got - ref)[normal] / np.spacing(ref[normal])
    assert ulps.max() <= 1.0
    assert np.all(got[~normal] <= 4.5e-308) and np.all(got >= 0)
    assert _exp_all(np.array([0.0]))[0] == 1.0
    assert np.all(_exp_all(np.array([-745.2, -800.0, -1e300])) == 0.0)


def test_values_do_not_depend_on_the_position_in_a_block():
    rng = np.random.default_rng(1)
    for d in (1, 3, 4, 9, 20):
        row = rng.standard_normal(d)
        X = rng.standard_normal((2 * BLOCK + 37, d))
        X[[0, 5, BLOCK - 1, BLOCK, 2 * BLOCK + 36]] = row  # vector body, block edges, tail
        xw = rng.standard_normal(d)
        k = _row(np.ascontiguousarray(X.T), xw, 0.3)
        same = k[[0, 5, BLOCK - 1, BLOCK, 2 * BLOCK + 36]]
        assert np.all(same == same[0])
        ref = np.exp(-0.3 * ((X - xw) ** 2).sum(axis=1))
        np.testing.assert_allclose(k, ref, rtol=1e-13)


def test_squared_distances_keep_the_four_partial_sums():
    """The distance is summed as four interleaved partial sums, (s0 + s1) + (s2 + s3), the
    order the training loop has always used: gamma = -log(exp(-1)) recovers it exactly."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((50, 11)) * 1e-3
    xw = rng.standard_normal(11) * 1e-3
    s = np.zeros((50, 4))
    for f in range(11):
        part = f % 4 if f < 8 else 0
        s[:, part] += (X[:, f] - xw[f]) ** 2
    expected = (s[:, 0] + s[:, 1]) + (s[:, 2] + s[:, 3])
    got = _row(np.ascontiguousarray(X.T), xw, 1.0)
    np.testing.assert_array_equal(got, _exp_all(-expected))
