"""svmlab.kernels: every formula of spec evosvm.md §1.6 against a hand computation, the registry,
blockwise evaluation, Epanechnikov's compact support and an indefinite Gram matrix."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.metrics.pairwise import polynomial_kernel, sigmoid_kernel

from svmlab.kernels import (
    KERNELS,
    epanechnikov,
    gamma_from_sigma,
    gaussian_combination,
    kernel_blocks,
    kernel_diagonal,
    kernel_expansion,
    kernel_matrix,
    kernel_names,
    linear,
    multiquadric,
    polynomial,
    rbf,
    sigmoid,
)

# x = (1, 2), z = (3, 0): <x, z> = 3, ||x - z||^2 = 4 + 4 = 8
x = np.array([[1.0, 2.0]])
z = np.array([[3.0, 0.0]])

PARAMS = {
    "linear": {},
    "polynomial": {"degree": 2, "kappa": 0.5, "delta": 1.0},
    "rbf": {"gamma": 0.1},
    "sigmoid": {"kappa": 0.5, "delta": 1.0},
    "epanechnikov": {"sigma1": 10.0, "degree": 2.5},
    "gaussian_combination": {"sigma1": 4.0, "sigma2": 8.0, "sigma3": 16.0},
    "multiquadric": {"sigma1": 2.0, "shift": 3.0},
}

HAND = {
    "linear": 3.0,
    "polynomial": (0.5 * 3 + 1) ** 2,  # 6.25
    "rbf": math.exp(-0.1 * 8),
    "sigmoid": math.tanh(0.5 * 3 - 1),  # the thesis's minus sign
    "epanechnikov": (1 - 8 / 10) ** 2.5,
    "gaussian_combination": math.exp(-8 / 4) + math.exp(-8 / 8) - math.exp(-8 / 16),
    "multiquadric": math.sqrt(8 / 2 + 9),
}


def test_registry_names():
    assert kernel_names() == tuple(sorted(PARAMS))
    assert set(KERNELS) == set(PARAMS)


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_formula_by_hand(name):
    K = kernel_matrix(name, x, z, **PARAMS[name])
    assert K.shape == (1, 1) and K.dtype == np.float64
    assert K[0, 0] == pytest.approx(HAND[name], rel=1e-14)
    # symmetric in its arguments
    assert kernel_matrix(name, z, x, **PARAMS[name])[0, 0] == pytest.approx(HAND[name], rel=1e-14)


def test_public_functions_match_registry():
    assert polynomial(x, z, degree=2, kappa=0.5, delta=1.0)[0, 0] == HAND["polynomial"]
    assert sigmoid(x, z, kappa=0.5, delta=1.0)[0, 0] == pytest.approx(HAND["sigmoid"])
    assert epanechnikov(x, z, sigma1=10.0, degree=2.5)[0, 0] == pytest.approx(HAND["epanechnikov"])
    assert gaussian_combination(x, z, 4.0, 8.0, 16.0)[0, 0] == pytest.approx(
        HAND["gaussian_combination"]
    )
    assert multiquadric(x, z, sigma1=2.0, shift=3.0)[0, 0] == pytest.approx(HAND["multiquadric"])
    assert linear(x, z)[0, 0] == 3.0


def test_gaussian_combination_zero_sigma_drops_the_term():
    K = kernel_matrix("gaussian_combination", x, z, sigma1=4.0, sigma2=0.0, sigma3=16.0)
    assert K[0, 0] == pytest.approx(math.exp(-2) - math.exp(-0.5))
    # the defaults (1, 0, 2) are RapidMiner's: exp(-D) - exp(-D/2), zero on the diagonal
    np.testing.assert_array_equal(kernel_diagonal("gaussian_combination", np.ones((3, 2))), 0.0)


def test_conventions_against_scikit_learn():
    rng = np.random.RandomState(0)
    A, B = rng.randn(6, 3), rng.randn(4, 3)
    # polynomial (kappa <a,b> + delta)^d is sklearn's (gamma <a,b> + coef0)^degree
    np.testing.assert_allclose(
        kernel_matrix("polynomial", A, B, degree=3, kappa=0.7, delta=2.0),
        polynomial_kernel(A, B, degree=3, gamma=0.7, coef0=2.0),
        rtol=1e-13,
    )
    # sigmoid tanh(kappa <a,b> - delta) is sklearn's tanh(gamma <a,b> + coef0) with coef0 = -delta
    np.testing.assert_allclose(
        kernel_matrix("sigmoid", A, B, kappa=0.3, delta=0.5),
        sigmoid_kernel(A, B, gamma=0.3, coef0=-0.5),
        rtol=1e-13,
    )


def test_rbf_gamma_versus_sigma():
    rng = np.random.RandomState(1)
    A, B = rng.randn(5, 2), rng.randn(3, 2)
    D = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    # registry rbf = the existing svmlab.kernels.rbf, exp(-gamma D)
    np.testing.assert_array_equal(kernel_matrix("rbf", A, B, gamma=0.3), rbf(A, B, 0.3))
    np.testing.assert_allclose(kernel_matrix("rbf", A, B, gamma=0.3), np.exp(-0.3 * D), rtol=1e-12)
    # the thesis's Def 2.11 width: exp(-D / (2 sigma^2)) = rbf with gamma = 1 / (2 sigma^2)
    np.testing.assert_allclose(
        kernel_matrix("rbf", A, B, gamma=gamma_from_sigma(1.5)), np.exp(-D / (2 * 1.5**2))
    )
    # a width is not accepted as a parameter of the rbf kernel: it would be the A1 trap
    with pytest.raises(
        ValueError, match=r"rbf kernel has no parameter 'sigma'; its parameters: gamma"
    ):
        kernel_matrix("rbf", A, B, sigma=1.5)


def _loop(name, A, B, params):
    """Pairwise by the spec's formulas, one pair at a time."""
    out = np.empty((len(A), len(B)))
    for i, a in enumerate(A):
        for j, b in enumerate(B):
            d, s = float(((a - b) ** 2).sum()), float(a @ b)
            p = {**KERNELS[name].defaults, **params}
            if name == "linear":
                v = s
            elif name == "polynomial":
                v = (p["kappa"] * s + p["delta"]) ** p["degree"]
            elif name == "rbf":
                v = math.exp(-p["gamma"] * d)
            elif name == "sigmoid":
                v = math.tanh(p["kappa"] * s - p["delta"])
            elif name == "epanechnikov":
                v = (1 - d / p["sigma1"]) ** p["degree"] if d / p["sigma1"] <= 1 else 0.0
            elif name == "gaussian_combination":
                terms = (("sigma1", 1), ("sigma2", 1), ("sigma3", -1))
                v = sum(sign * math.exp(-d / p[k]) for k, sign in terms if p[k] > 0)
            else:
                v = math.sqrt(d / p["sigma1"] + p["shift"] ** 2)
            out[i, j] = v
    return out


@pytest.mark.parametrize("name", sorted(PARAMS))
def test_matrix_blocks_diagonal_and_sparse(name):
    rng = np.random.RandomState(2)
    A, B = rng.rand(13, 3) * 2, rng.rand(7, 3) * 2
    p = PARAMS[name]
    expected = _loop(name, A, B, p)
    np.testing.assert_allclose(kernel_matrix(name, A, B, **p), expected, rtol=1e-10, atol=1e-12)
    K_sparse = kernel_matrix(name, sp.csr_matrix(A), sp.csr_matrix(B), **p)
    np.testing.assert_allclose(K_sparse, expected, rtol=1e-10, atol=1e-12)
    # B=None means B=A; the diagonal is exact and needs no pairwise matrix
    KA = kernel_matrix(name, A, **p)
    np.testing.assert_allclose(KA, _loop(name, A, A, p), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(kernel_diagonal(name, A, **p), np.diag(KA), rtol=1e-10, atol=1e-12)
    # blocks of rows (a few rows each) cover the matrix exactly
    blocks = list(kernel_blocks(name, A, B, max_bytes=8 * 7 * 3, **p))
    assert len(blocks) == 5 and all(K.shape[0] <= 3 for _, K in blocks)
    np.testing.assert_allclose(np.vstack([K for _, K in blocks]), expected, rtol=1e-10, atol=1e-12)
    coef = rng.randn(7)
    f = kernel_expansion(name, A, B, coef, 0.5, max_bytes=50, **p)
    np.testing.assert_allclose(f, expected @ coef + 0.5, rtol=1e-9)
    np.testing.assert_array_equal(kernel_expansion(name, A, B[:0], coef[:0], 0.5, **p), 0.5)


def test_epanechnikov_is_exactly_zero_outside_its_support():
    rng = np.random.RandomState(3)
    A = rng.uniform(0, 4, (60, 2))
    sigma = 2.5  # support radius sqrt(2.5) in squared-distance units
    K = kernel_matrix("epanechnikov", A, sigma1=sigma, degree=1.7)
    D = ((A[:, None, :] - A[None, :, :]) ** 2).sum(-1)
    outside = D > sigma * (1 + 1e-12)
    assert outside.sum() > 1000
    assert np.all(K[outside] == 0.0)  # exactly zero, not tiny
    inside = D < sigma * (1 - 1e-9)
    assert np.all(K[inside] > 0.0) and np.all(K <= 1.0)
    np.testing.assert_allclose(K[inside], (1 - D[inside] / sigma) ** 1.7, rtol=1e-9)
    # on the boundary ||x - z||^2 = sigma the kernel is 0: x = (0, 0), z = (0, 2), sigma = 4
    assert (
        kernel_matrix(
            "epanechnikov", np.zeros((1, 2)), np.array([[0.0, 2.0]]), sigma1=4.0, degree=0.5
        )[0, 0]
        == 0.0
    )


def test_epanechnikov_gram_matrix_is_indefinite():
    # by hand: points 0, 1, 2 on a line, sigma = 4, d = 1: K = [[1, .75, 0], [.75, 1, .75], [0, .75,
    # 1]],
    # eigenvalues 1 and 1 +- 0.75 sqrt(2), the smallest negative
    K = kernel_matrix("epanechnikov", np.array([[0.0], [1.0], [2.0]]), sigma1=4.0, degree=1.0)
    np.testing.assert_allclose(K, [[1, 0.75, 0], [0.75, 1, 0.75], [0, 0.75, 1]], atol=1e-15)
    ev = np.linalg.eigvalsh(K)
    np.testing.assert_allclose(
        ev, [1 - 0.75 * math.sqrt(2), 1.0, 1 + 0.75 * math.sqrt(2)], rtol=1e-12
    )
    assert ev[0] < 0
    # the spec's Checkerboard setting (Table 4.1: sigma 9.75, d 3; x ~ U([0, 40]^2), n = 300, §3.3)
    X = np.random.RandomState(0).uniform(0, 40, (300, 2))
    ev = np.linalg.eigvalsh(kernel_matrix("epanechnikov", X, sigma1=9.75, degree=3.0))
    assert ev[0] < -1e-3


def test_other_indefinite_kernels():
    X = np.random.RandomState(4).randn(30, 2)
    for name, p in [
        ("multiquadric", {}),
        ("gaussian_combination", {"sigma1": 1.0, "sigma2": 0.0, "sigma3": 2.0}),
        ("sigmoid", {"kappa": 1.0, "delta": -1.0}),
    ]:
        assert np.linalg.eigvalsh(kernel_matrix(name, X, **p))[0] < -1e-6, name


def test_unknown_kernel_name():
    with pytest.raises(
        ValueError,
        match=r"unknown kernel 'gauss'; valid kernels: epanechnikov, gaussian_combination, "
        r"linear, multiquadric, polynomial, rbf, sigmoid",
    ):
        kernel_matrix("gauss", x)


@pytest.mark.parametrize(
    "name, params, message",
    [
        (
            "epanechnikov",
            {"gamma": 1.0},
            "epanechnikov kernel has no parameter 'gamma'; its parameters: sigma1, degree",
        ),
        ("linear", {"degree": 2}, "linear kernel has no parameter 'degree'; its parameters: none"),
        ("polynomial", {"degree": 2.5}, "degree must be an integer >= 1"),
        ("polynomial", {"degree": 0}, "degree must be an integer >= 1"),
        ("rbf", {"gamma": 0.0}, "gamma must be > 0"),
        ("epanechnikov", {"sigma1": -1.0}, "sigma1 must be > 0"),
        ("epanechnikov", {"degree": 0.0}, "degree must be > 0"),
        (
            "gaussian_combination",
            {"sigma1": 0.0, "sigma2": 0.0, "sigma3": 0.0},
            "at least one of sigma1",
        ),
        ("gaussian_combination", {"sigma2": -1.0}, "sigma2 must be >= 0"),
        ("multiquadric", {"sigma1": 0.0}, "sigma1 must be > 0"),
        ("sigmoid", {"kappa": float("nan")}, "kappa must be a finite real number"),
    ],
)
def test_invalid_parameters(name, params, message):
    with pytest.raises(ValueError, match=message):
        kernel_matrix(name, x, z, **params)


def test_polynomial_accepts_integral_float_degree():
    assert (
        kernel_matrix("polynomial", x, z, degree=2.0, kappa=0.5, delta=1.0)[0, 0]
        == HAND["polynomial"]
    )
