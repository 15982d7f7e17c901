"""Kernel functions shared by every estimator.

Conventions
-----------
The Gaussian (RBF) kernel is written with a *precision* ``gamma``, as in LIBSVM and
scikit-learn::

    K(x, y) = exp(-gamma * ||x - y||^2)

Papers that write it with a *width* ``sigma``, ``K(x, y) = exp(-||x - y||^2 / (2 sigma^2))``,
use ``gamma = 1 / (2 sigma^2)``; convert with :func:`gamma_from_sigma` and
:func:`sigma_from_gamma`. These are the only two meanings of the names in svmlab: an estimator
parameter ``gamma`` is always the precision above, ``sigma`` always this width
(docs/decisions/naming.md; ``tests/test_naming.py`` checks every estimator).

All functions accept dense arrays or SciPy sparse matrices for ``X`` and ``Y`` and return a
dense ``float64`` array of shape ``(n_X, n_Y)``. They build that one array and nothing of the
same size besides it, so the caller bounds memory by passing blocks of rows
(see :func:`rbf_blocks` and :func:`kernel_blocks`).

Kernel registry
---------------
Besides the Gaussian kernel, the module implements the kernels of Mierswa (2009), with the
thesis's symbols as parameter names (Defs. 2.10-2.12 and 4.2-4.4; docs/decisions/evo.md,
"Non-PSD kernels"). ``D = ||x - y||^2`` is always
the **squared** Euclidean distance:

====================  =============================================  ======================
name                  K(x, y)                                        parameters (default)
====================  =============================================  ======================
linear                ``<x, y>``                                     —
polynomial            ``(kappa <x, y> + delta)^degree`` (Def 2.10)   degree (3), kappa (1),
                                                                     delta (1)
rbf                   ``exp(-gamma D)`` (``gamma = 1/(2 sigma^2)``   gamma (1)
                      for Def 2.11's width sigma)
sigmoid               ``tanh(kappa <x, y> - delta)`` (Def 2.12)      kappa (1), delta (0)
epanechnikov          ``(1 - D/sigma1)^degree`` if ``D <= sigma1``,  sigma1 (1), degree (1)
                      else exactly 0 (Def 4.2)
gaussian_combination  ``exp(-D/sigma1) + exp(-D/sigma2)``            sigma1 (1), sigma2 (0),
                      ``- exp(-D/sigma3)`` (Def 4.3; a term whose    sigma3 (2)
                      sigma is 0 is left out)
multiquadric          ``sqrt(D/sigma1 + shift^2)`` (Def 4.4, where   sigma1 (1), shift (1)
                      the shift is called c)
====================  =============================================  ======================

Only ``rbf`` writes its scale as a precision; in ``epanechnikov``, ``gaussian_combination``
and ``multiquadric`` the ``sigma1`` (``sigma2``, ``sigma3``) *divides the squared distance*
(the Epanechnikov support radius is ``sqrt(sigma1)``), it is neither a width nor a precision.
The thesis writes the Epanechnikov and multiquadric divisor as ``sigma``; svmlab calls it
``sigma1``, as RapidMiner (the thesis's software) does, because ``sigma`` alone means the
Gaussian width ``exp(-D / (2 sigma^2))`` everywhere in svmlab (docs/decisions/naming.md).
Sigmoid, Epanechnikov, Gaussian combination and multiquadric kernels are in general
**indefinite** (their Gram matrices can have negative eigenvalues); nothing here assumes
positive semi-definiteness.

:func:`kernel_matrix` computes any of them by name, :func:`kernel_blocks` and
:func:`kernel_expansion` do so over blocks of rows, and :func:`kernel_diagonal` gives
``K(x_i, x_i)`` without any pairwise matrix.

Why one module of ~660 lines: it is the one place a kernel is defined. Each kernel is a
function, a parameter check and a profile of ``D`` or ``<x, y>`` that the registry below
ties together (:class:`KernelSpec`); split into functions and registry, adding a kernel would
mean editing two files, and about 90 of the lines are this docstring's table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from numbers import Real

import numpy as np
from sklearn.utils.extmath import row_norms, safe_sparse_dot

__all__ = [
    "gamma_from_sigma",
    "sigma_from_gamma",
    "squared_euclidean",
    "linear",
    "polynomial",
    "rbf",
    "rbf_blocks",
    "rbf_expansion",
    "sigmoid",
    "epanechnikov",
    "gaussian_combination",
    "multiquadric",
    "KernelSpec",
    "KERNELS",
    "kernel_names",
    "get_kernel",
    "kernel_matrix",
    "kernel_diagonal",
    "kernel_blocks",
    "kernel_expansion",
]


def gamma_from_sigma(sigma: float) -> float:
    """``gamma = 1 / (2 sigma^2)``: the RBF precision for a kernel width ``sigma``."""
    if not sigma > 0:
        raise ValueError(f"sigma must be > 0, got {sigma!r}")
    return 1.0 / (2.0 * sigma * sigma)


def sigma_from_gamma(gamma: float) -> float:
    """``sigma = sqrt(1 / (2 gamma))``: the RBF width for a precision ``gamma``."""
    if not gamma > 0:
        raise ValueError(f"gamma must be > 0, got {gamma!r}")
    return math.sqrt(1.0 / (2.0 * gamma))


def squared_euclidean(X, Y=None, *, X_sq=None, Y_sq=None) -> np.ndarray:
    """Pairwise squared Euclidean distances ``||x_i - y_j||^2``, shape ``(n_X, n_Y)``.

    Uses ``||x||^2 + ||y||^2 - 2 x.y`` (one matrix product) and clips the small negative
    values that cancellation can produce. ``X_sq`` / ``Y_sq`` are precomputed squared row
    norms, to avoid recomputing them when the same ``Y`` is used block after block.
    """
    if Y is None:
        Y, Y_sq = X, X_sq
    if X_sq is None:
        X_sq = row_norms(X, squared=True)
    if Y_sq is None:
        Y_sq = row_norms(Y, squared=True)
    D = np.asarray(safe_sparse_dot(X, Y.T, dense_output=True), dtype=np.float64)
    D *= -2.0
    D += np.asarray(X_sq, dtype=np.float64)[:, None]
    D += np.asarray(Y_sq, dtype=np.float64)[None, :]
    np.maximum(D, 0.0, out=D)
    return D


def linear(X, Y=None) -> np.ndarray:
    """Linear kernel ``K(x, y) = x . y``, shape ``(n_X, n_Y)``."""
    Y = X if Y is None else Y
    return np.asarray(safe_sparse_dot(X, Y.T, dense_output=True), dtype=np.float64)


def rbf(X, Y=None, gamma: float = 1.0, *, X_sq=None, Y_sq=None) -> np.ndarray:
    """Gaussian kernel ``K(x, y) = exp(-gamma ||x - y||^2)``, shape ``(n_X, n_Y)``.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_X, d)
    Y : array-like or sparse matrix of shape (n_Y, d), default=None
        ``None`` means ``Y = X``.
    gamma : float, default=1.0
        Precision, ``gamma = 1 / (2 sigma^2)``; must be > 0.
    X_sq, Y_sq : ndarray, optional
        Precomputed squared row norms of ``X`` / ``Y``.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y), float64
        Computed in place in the distance array: no second ``n_X x n_Y`` temporary.
    """
    if not gamma > 0:
        raise ValueError(f"gamma must be > 0, got {gamma!r}")
    K = squared_euclidean(X, Y, X_sq=X_sq, Y_sq=Y_sq)
    K *= -gamma
    np.exp(K, out=K)
    return K


def rbf_blocks(
    X, Y, gamma: float, *, max_bytes: int = 64 * 2**20
) -> Iterator[tuple[slice, np.ndarray]]:
    """Yield ``(rows, K)`` with ``K = rbf(X[rows], Y, gamma)`` over blocks of rows of ``X``.

    Each block holds at most about ``max_bytes`` of kernel values, so a prediction over
    many test points against many support vectors never builds the whole matrix. The
    squared norms of ``Y`` are computed once for all blocks.
    """
    n, m = X.shape[0], Y.shape[0]
    Y_sq = row_norms(Y, squared=True)
    step = max(1, int(max_bytes // (8 * max(m, 1))))
    for start in range(0, n, step):
        rows = slice(start, min(n, start + step))
        yield rows, rbf(X[rows], Y, gamma, Y_sq=Y_sq)


def rbf_expansion(X, sv, coef, intercept: float, gamma: float) -> np.ndarray:
    """``f(x) = sum_j coef_j exp(-gamma ||x - sv_j||^2) + intercept`` for every row of ``X``.

    Computed over blocks of rows (:func:`rbf_blocks`), so no test-by-SV matrix larger than
    a block is held; with no support vectors every output is ``intercept``.
    """
    out = np.full(X.shape[0], float(intercept))
    if len(coef):
        for rows, K in rbf_blocks(X, sv, gamma):
            out[rows] += K @ coef
    return out


# --------------------------------------------------------------------------------------
# the kernels of Mierswa (2009), Defs. 2.10-2.12 and 4.2-4.4
# --------------------------------------------------------------------------------------


def _check_real(name: str, value, *, positive: bool = False, nonnegative: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise ValueError(f"{name} must be a finite real number, got {value!r}")
    if positive and not value > 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    if nonnegative and not value >= 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return float(value)


def _dot(X, Y) -> np.ndarray:
    Y = X if Y is None else Y
    return np.asarray(safe_sparse_dot(X, Y.T, dense_output=True), dtype=np.float64)


# Each kernel is a function of one pairwise quantity, the inner product ("dot" kernels) or the
# squared distance ("distance" kernels). The profile maps an array of that quantity to kernel
# values in place, so that the pairwise matrix and the diagonal share one formula.


def _polynomial_profile(S, degree, kappa, delta):
    S *= kappa
    S += delta
    # an integral power: well defined for a negative base (an indefinite kernel for odd degree)
    return np.power(S, int(degree), out=S)


def _sigmoid_profile(S, kappa, delta):
    S *= kappa
    S -= delta
    return np.tanh(S, out=S)


def _rbf_profile(D, gamma):
    D *= -gamma
    return np.exp(D, out=D)


def _epanechnikov_profile(D, sigma1, degree):
    D *= -1.0 / sigma1
    D += 1.0
    np.maximum(D, 0.0, out=D)  # outside the support (D > sigma1) the base is clipped to 0 ...
    return np.power(D, degree, out=D)  # ... and 0 ** degree == 0 exactly, as degree > 0


def _gaussian_combination_profile(D, sigma1, sigma2, sigma3):
    out = np.zeros_like(D)
    for divisor, sign in ((sigma1, 1.0), (sigma2, 1.0), (sigma3, -1.0)):
        if divisor > 0:  # a zero sigma_k leaves its term out (RapidMiner's convention)
            term = np.exp(D * (-1.0 / divisor))
            if sign > 0:
                out += term
            else:
                out -= term
    return out


def _multiquadric_profile(D, sigma1, shift):
    D *= 1.0 / sigma1
    D += shift * shift
    return np.sqrt(D, out=D)


def _check_polynomial(degree, kappa, delta):
    if (
        isinstance(degree, bool)
        or not isinstance(degree, Real)
        or not degree >= 1
        or int(degree) != degree
    ):
        raise ValueError(f"the polynomial kernel's degree must be an integer >= 1, got {degree!r}")
    return {
        "degree": int(degree),
        "kappa": _check_real("kappa", kappa),
        "delta": _check_real("delta", delta),
    }


def _check_sigmoid(kappa, delta):
    return {"kappa": _check_real("kappa", kappa), "delta": _check_real("delta", delta)}


def _check_rbf(gamma):
    return {"gamma": _check_real("gamma", gamma, positive=True)}


def _check_epanechnikov(sigma1, degree):
    return {
        "sigma1": _check_real("sigma1", sigma1, positive=True),
        "degree": _check_real("degree", degree, positive=True),
    }


def _check_gaussian_combination(sigma1, sigma2, sigma3):
    named = (("sigma1", sigma1), ("sigma2", sigma2), ("sigma3", sigma3))
    out = {k: _check_real(k, v, nonnegative=True) for k, v in named}
    if not any(v > 0 for v in out.values()):
        raise ValueError(
            "the gaussian_combination kernel needs at least one of sigma1, sigma2, sigma3 > 0"
        )
    return out


def _check_multiquadric(sigma1, shift):
    return {
        "sigma1": _check_real("sigma1", sigma1, positive=True),
        "shift": _check_real("shift", shift),
    }


def polynomial(X, Y=None, degree: int = 3, kappa: float = 1.0, delta: float = 1.0) -> np.ndarray:
    """Polynomial kernel ``K(x, y) = (kappa <x, y> + delta)^degree`` (Mierswa Def. 2.10).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_X, d)
    Y : array-like or sparse matrix of shape (n_Y, d), default=None
        ``None`` means ``Y = X``.
    degree : int, default=3
        The exponent ``d``, an integer >= 1 (a real-valued ``3.0`` is accepted).
    kappa : float, default=1.0
        Scale of the inner product. Not a kernel width: there is no gamma/sigma here.
    delta : float, default=1.0
        Additive shift. Positive semi-definite for ``kappa >= 0, delta >= 0``.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y), float64
    """
    p = _check_polynomial(degree, kappa, delta)
    return _polynomial_profile(_dot(X, Y), **p)


def sigmoid(X, Y=None, kappa: float = 1.0, delta: float = 0.0) -> np.ndarray:
    """Sigmoid kernel ``K(x, y) = tanh(kappa <x, y> - delta)`` (Mierswa Def. 2.12).

    Note the **minus** sign: RapidMiner's "neural" kernel ``tanh(a <x, y> + b)`` and
    scikit-learn's ``tanh(gamma <x, y> + coef0)`` have ``delta = -b = -coef0``. The kernel is
    indefinite in general.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_X, d)
    Y : array-like or sparse matrix of shape (n_Y, d), default=None
        ``None`` means ``Y = X``.
    kappa : float, default=1.0
        Scale of the inner product (not a kernel width).
    delta : float, default=0.0
        Shift, subtracted.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y), float64
    """
    p = _check_sigmoid(kappa, delta)
    return _sigmoid_profile(_dot(X, Y), **p)


def epanechnikov(
    X, Y=None, sigma1: float = 1.0, degree: float = 1.0, *, X_sq=None, Y_sq=None
) -> np.ndarray:
    """Epanechnikov kernel ``K(x, y) = (1 - ||x - y||^2 / sigma1)^degree``, 0 outside (Def. 4.2).

    Defined for ``||x - y||^2 / sigma1 <= 1`` and **exactly 0** beyond, so the support is the
    ball of radius ``sqrt(sigma1)``. ``sigma1`` (the thesis's sigma, RapidMiner's sigma1)
    divides the *squared* distance: it is neither the RBF width nor a precision (Table 4.1's
    sigma values are used as they stand). The kernel is indefinite: Gram matrices can have
    negative eigenvalues.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_X, d)
    Y : array-like or sparse matrix of shape (n_Y, d), default=None
        ``None`` means ``Y = X``.
    sigma1 : float, default=1.0
        Squared support radius; > 0.
    degree : float, default=1.0
        Exponent ``d`` > 0; may be fractional (Table 4.1 uses e.g. 2.56).
    X_sq, Y_sq : ndarray, optional
        Precomputed squared row norms of ``X`` / ``Y``.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y), float64, values in [0, 1]
    """
    p = _check_epanechnikov(sigma1, degree)
    return _epanechnikov_profile(squared_euclidean(X, Y, X_sq=X_sq, Y_sq=Y_sq), **p)


def gaussian_combination(
    X,
    Y=None,
    sigma1: float = 1.0,
    sigma2: float = 0.0,
    sigma3: float = 2.0,
    *,
    X_sq=None,
    Y_sq=None,
) -> np.ndarray:
    """Gaussian combination ``exp(-D/sigma1) + exp(-D/sigma2) - exp(-D/sigma3)`` (Def. 4.3).

    ``D = ||x - y||^2``; each ``sigma_k`` *divides* the squared distance (``exp(-D/sigma_k)``
    is the RBF kernel with ``gamma = 1/sigma_k``). A term whose ``sigma_k`` is 0 is left out,
    as RapidMiner does; the defaults (1, 0, 2) are RapidMiner's (no experiment of the thesis
    uses this kernel). Indefinite in general.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_X, d)
    Y : array-like or sparse matrix of shape (n_Y, d), default=None
        ``None`` means ``Y = X``.
    sigma1, sigma2, sigma3 : float, default=1.0, 0.0, 2.0
        Each >= 0, at least one > 0.
    X_sq, Y_sq : ndarray, optional
        Precomputed squared row norms of ``X`` / ``Y``.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y), float64
    """
    p = _check_gaussian_combination(sigma1, sigma2, sigma3)
    return _gaussian_combination_profile(squared_euclidean(X, Y, X_sq=X_sq, Y_sq=Y_sq), **p)


def multiquadric(
    X, Y=None, sigma1: float = 1.0, shift: float = 1.0, *, X_sq=None, Y_sq=None
) -> np.ndarray:
    """Multiquadric kernel ``K(x, y) = sqrt(||x - y||^2 / sigma1 + shift^2)`` (Def. 4.4).

    ``sigma1`` (the thesis's sigma, RapidMiner's sigma1) divides the *squared* distance;
    ``shift`` is RapidMiner's "shift" (Def. 4.4's ``c``). The kernel grows with the distance
    (it is a distance-like function, not a similarity) and is indefinite. No experiment of
    the thesis uses it, so its defaults (``sigma1 = 1``, ``shift = 1``) are svmlab's own.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_X, d)
    Y : array-like or sparse matrix of shape (n_Y, d), default=None
        ``None`` means ``Y = X``.
    sigma1 : float, default=1.0
        > 0.
    shift : float, default=1.0
        ``K(x, x) = |shift|``.
    X_sq, Y_sq : ndarray, optional
        Precomputed squared row norms of ``X`` / ``Y``.

    Returns
    -------
    K : ndarray of shape (n_X, n_Y), float64
    """
    p = _check_multiquadric(sigma1, shift)
    return _multiquadric_profile(squared_euclidean(X, Y, X_sq=X_sq, Y_sq=Y_sq), **p)


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
