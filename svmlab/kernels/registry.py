"""The kernel registry: every kernel of :mod:`svmlab.kernels` by name.

:class:`KernelSpec` ties a kernel's function, parameter check and profile together;
:data:`KERNELS` holds one per kernel; :func:`kernel_matrix`, :func:`kernel_diagonal`,
:func:`kernel_blocks` and :func:`kernel_expansion` compute any of them by name.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

import numpy as np
from sklearn.utils.extmath import row_norms

from svmlab.kernels.gaussian import linear, rbf
from svmlab.kernels.mierswa import (
    _check_epanechnikov,
    _check_gaussian_combination,
    _check_multiquadric,
    _check_polynomial,
    _check_real,
    _check_sigmoid,
    _epanechnikov_profile,
    _gaussian_combination_profile,
    _multiquadric_profile,
    _polynomial_profile,
    _sigmoid_profile,
    epanechnikov,
    gaussian_combination,
    multiquadric,
    polynomial,
    sigmoid,
)


def _rbf_profile(D, gamma):
    D *= -gamma
    return np.exp(D, out=D)


def _check_rbf(gamma):
    return {"gamma": _check_real("gamma", gamma, positive=True)}


def _rbf_named(X, Y=None, gamma: float = 1.0, *, X_sq=None, Y_sq=None) -> np.ndarray:
    return rbf(X, Y, gamma, X_sq=X_sq, Y_sq=Y_sq)


@dataclass(frozen=True)
class KernelSpec:
    """One registered kernel.

    Attributes
    ----------
    name : str
        Registry name.
    formula : str
        ``K(x, y)`` in words, with the meaning of every parameter's scale.
    defaults : mapping
        Parameter names and their defaults, in signature order.
    distance : bool
        A function of ``||x - y||^2`` (accepts ``X_sq`` / ``Y_sq``) rather than of ``<x, y>``.
    psd : bool
        Whether every Gram matrix is positive semi-definite (at the documented parameter
        ranges; the polynomial kernel needs ``kappa, delta >= 0``).
    function : callable
        ``function(X, Y=None, **params)`` returning the ``(n_X, n_Y)`` kernel matrix.
    """

    name: str
    formula: str
    defaults: Mapping[str, float]
    distance: bool
    psd: bool
    function: Callable[..., np.ndarray]
    _check: Callable[..., dict]
    _profile: Callable[..., np.ndarray]

    def params(self, **params) -> dict:
        """The full, validated parameter set: ``params`` over the defaults.

        Raises
        ------
        ValueError
            For a name this kernel does not have (listing its parameters) or an invalid value.
        """
        unknown = [k for k in params if k not in self.defaults]
        if unknown:
            valid = ", ".join(self.defaults) or "none"
            raise ValueError(
                f"the {self.name} kernel has no parameter {unknown[0]!r}; its parameters: {valid} "
                f"(K = {self.formula})"
            )
        return self._check(**{**self.defaults, **params})

    def diagonal(self, X, **params) -> np.ndarray:
        """``K(x_i, x_i)`` for every row of ``X``, shape ``(n,)``, without a pairwise matrix."""
        p = self.params(**params)
        if self.distance:
            return self._profile(np.zeros(X.shape[0]), **p)
        return self._profile(np.asarray(row_norms(X, squared=True), dtype=np.float64).copy(), **p)


KERNELS: dict[str, KernelSpec] = {
    spec.name: spec
    for spec in (
        KernelSpec("linear", "<x, y>", {}, False, True, linear, lambda: {}, lambda S: S),
        KernelSpec(
            "polynomial",
            "(kappa <x, y> + delta)^degree",
            {"degree": 3, "kappa": 1.0, "delta": 1.0},
            False,
            False,
            polynomial,
            _check_polynomial,
            _polynomial_profile,
        ),
        KernelSpec(
            "rbf",
            "exp(-gamma ||x - y||^2), gamma = 1/(2 sigma^2) for a width sigma",
            {"gamma": 1.0},
            True,
            True,
            _rbf_named,
            _check_rbf,
            _rbf_profile,
        ),
        KernelSpec(
            "sigmoid",
            "tanh(kappa <x, y> - delta)",
            {"kappa": 1.0, "delta": 0.0},
            False,
            False,
            sigmoid,
            _check_sigmoid,
            _sigmoid_profile,
        ),
        KernelSpec(
            "epanechnikov",
            "(1 - ||x - y||^2 / sigma1)^degree inside ||x - y||^2 <= sigma1, else 0",
            {"sigma1": 1.0, "degree": 1.0},
            True,
            False,
            epanechnikov,
            _check_epanechnikov,
            _epanechnikov_profile,
        ),
        KernelSpec(
            "gaussian_combination",
            "exp(-||x - y||^2/sigma1) + exp(-||x - y||^2/sigma2) - exp(-||x - y||^2/sigma3), "
            "a zero sigma drops its term",
            {"sigma1": 1.0, "sigma2": 0.0, "sigma3": 2.0},
            True,
            False,
            gaussian_combination,
            _check_gaussian_combination,
            _gaussian_combination_profile,
        ),
        KernelSpec(
            "multiquadric",
            "sqrt(||x - y||^2 / sigma1 + shift^2)",
            {"sigma1": 1.0, "shift": 1.0},
            True,
            False,
            multiquadric,
            _check_multiquadric,
            _multiquadric_profile,
        ),
    )
}


def kernel_names() -> tuple[str, ...]:
    """The registered kernel names, sorted."""
    return tuple(sorted(KERNELS))


def get_kernel(name: str) -> KernelSpec:
    """The registered kernel called ``name``.

    Raises
    ------
    ValueError
        Naming the unknown kernel and listing the valid names.
    """
    try:
        return KERNELS[name]
    except (KeyError, TypeError):
        raise ValueError(
            f"unknown kernel {name!r}; valid kernels: {', '.join(kernel_names())}"
        ) from None


def kernel_matrix(name: str, A, B=None, **params) -> np.ndarray:
    """``K(A, B)`` for the kernel called ``name``, shape ``(n_A, n_B)``.

    Parameters
    ----------
    name : str
        One of :func:`kernel_names`.
    A : array-like or sparse matrix of shape (n_A, d)
    B : array-like or sparse matrix of shape (n_B, d), default=None
        ``None`` means ``B = A``. Pass blocks of rows of ``A`` to bound memory (or use
        :func:`kernel_blocks`).
    **params
        The kernel's parameters (see the module table); missing ones take their defaults.

    Returns
    -------
    K : ndarray of shape (n_A, n_B), float64

    Raises
    ------
    ValueError
        For an unknown kernel name, an unknown parameter or an invalid parameter value; the
        message lists the valid names.
    """
    spec = get_kernel(name)
    return spec.function(A, B, **spec.params(**params))


def kernel_diagonal(name: str, X, **params) -> np.ndarray:
    """``K(x_i, x_i)`` of the kernel called ``name`` for every row of ``X`` (shape ``(n,)``).

    Exact (a zero distance, not a cancelled one) and without any ``n x n`` matrix; used e.g.
    by the ``C = n / trace(K)`` heuristic.
    """
    return get_kernel(name).diagonal(X, **params)


def kernel_blocks(
    name: str, X, Y, *, max_bytes: int = 64 * 2**20, **params
) -> Iterator[tuple[slice, np.ndarray]]:
    """Yield ``(rows, K)``, ``K = kernel_matrix(name, X[rows], Y, **params)``, over blocks of rows.

    Each block holds at most about ``max_bytes`` of kernel values; the squared row norms of
    ``Y`` are computed once for all blocks of a distance kernel.
    """
    spec = get_kernel(name)
    p = spec.params(**params)
    n, m = X.shape[0], Y.shape[0]
    extra = {"Y_sq": row_norms(Y, squared=True)} if spec.distance else {}
    step = max(1, int(max_bytes // (8 * max(m, 1))))
    for start in range(0, n, step):
        rows = slice(start, min(n, start + step))
        yield rows, spec.function(X[rows], Y, **p, **extra)


def kernel_expansion(
    name: str, X, sv, coef, intercept: float = 0.0, *, max_bytes: int = 64 * 2**20, **params
) -> np.ndarray:
    """``f(x) = sum_j coef_j K(x, sv_j) + intercept`` for every row of ``X``, block by block.

    No test-by-SV matrix larger than a block is held; with no support vectors every output
    is ``intercept``.
    """
    out = np.full(X.shape[0], float(intercept))
    coef = np.asarray(coef, dtype=np.float64)
    if len(coef):
        for rows, K in kernel_blocks(name, X, sv, max_bytes=max_bytes, **params):
            out[rows] += K @ coef
    return out
