"""The compiled LDL update of Weka's quasi-Newton minimiser against its step-by-step form, and
its failures where Weka throws."""

import math

import numpy as np
import pytest

from svmlab.estimators.weka.optimization import WEKA_ZERO, _ldl_rank_one


def _stepwise_update(L, D, v, coeff):
    """Gill, Golub, Murray & Saunders (1974) C1 / C2 with Weka's guards, one column at a time:
    the order of operations the compiled update must keep."""
    n = len(v)
    P = np.empty(n)
    for i in range(n):  # forward substitution, earlier columns first (Weka's vp recurrence)
        P[i] = v[i]
        for k in range(i):
            P[i] -= L[i, k] * P[k]
    b = np.empty(n)
    if coeff > 0.0:
        t = coeff
        for j in range(n):
            d_bar = D[j] + t * P[j] * P[j]
            b[j] = P[j] * t / d_bar
            t *= D[j] / d_bar
            D[j] = d_bar
    else:
        t = sum(p * p / d for p, d in zip(P.tolist(), D.tolist()))
        root = 1.0 + coeff * t
        root = math.sqrt(root) if root > 0.0 else 0.0
        alpha, sigma = coeff, coeff / (1.0 + root)
        for j in range(n):
            d, p = D[j], P[j] * P[j] / D[j]
            theta = 1.0 + sigma * p
            t = max(t - p, 0.0)
            plus = sigma * sigma * p * t
            if j < n - 1 and plus <= WEKA_ZERO:
                plus = WEKA_ZERO
            rho = theta * theta + plus
            D[j] = rho * d
            b[j] = alpha * P[j] / (rho * d)
            alpha /= rho
            rho = math.sqrt(rho)
            sigma *= (1.0 + rho) / (rho * (theta + rho))
    w = v.copy()
    for j in range(n):  # column j: v less P_0 L[:, 0] ... P_j L[:, j] (old columns)
        w = w - L[:, j] * P[j]
        L[j + 1 :, j] = L[j + 1 :, j] + b[j] * w[j + 1 :]


@pytest.mark.parametrize("n", [1, 2, 7, 60, 166])
def test_ldl_update_equals_the_stepwise_one_bit_for_bit(n):
    rng = np.random.default_rng(n)
    L, D = np.eye(n), np.ones(n)
    L_ref, D_ref = L.copy(), D.copy()
    for k in range(40):  # a quasi-Newton history: positive and negative rank-one terms
        v = rng.normal(size=n) * 10.0 ** rng.uniform(-2, 2)
        if k % 2 == 0:
            coeff = 1.0 / rng.uniform(0.1, 10.0)
        else:  # as BFGS's g g' / g'p: removes at most the whole of v's direction
            B = (L * D) @ L.T
            coeff = -rng.choice([0.3, 0.9, 0.999]) / (v @ np.linalg.solve(B, v))
        _ldl_rank_one(L, D, v, coeff)
        _stepwise_update(L_ref, D_ref, v, coeff)
        np.testing.assert_array_equal(L, L_ref)
        np.testing.assert_array_equal(D, D_ref)
    assert np.all(np.triu(L, 1) == 0) and np.all(np.diag(L) == 1.0)


def test_a_nan_factor_fails_where_weka_throws():
    from svmlab.estimators.weka.optimization import _ldl_rank_one as update

    L, D = np.eye(2), np.array([0.0, 1.0])  # a zero pivot: p = inf, then D_0 = NaN
    with pytest.raises(FloatingPointError, match="a diagonal term became NaN .* row 0"):
        update(L, D, np.array([1.0, 1.0]), -0.5)
    L, D = np.eye(2), np.array([0.0, 1.0])
    update(L, D, np.array([1.0, 1.0]), 0.5)  # a positive term fills the zero pivot
    assert D[0] == 0.5 and np.all(np.isfinite(L)) and np.all(np.isfinite(D))
