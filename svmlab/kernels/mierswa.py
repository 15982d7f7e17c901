"""The kernels of Mierswa (2009), Defs. 2.10-2.12 and 4.2-4.4: polynomial, sigmoid,
Epanechnikov, Gaussian combination and multiquadric.

Each is a function of one pairwise quantity with a parameter check and a *profile* (the
formula applied in place to an array of that quantity), which the registry
(:mod:`svmlab.kernels.registry`) shares between the pairwise matrix and the diagonal. All but
the polynomial kernel with ``kappa, delta >= 0`` are indefinite in general; the table of
formulas and parameter meanings is in :mod:`svmlab.kernels`.
"""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from sklearn.utils.extmath import safe_sparse_dot

from svmlab.kernels.gaussian import squared_euclidean


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
