"""The LSSVM family's kernel parameters: ``C`` (the thesis's gamma), the width ``sigma`` and
its convention, and the default tuning grids (Oliveira (2021), Sec. 2.1.2; spec A4, A5).

``width_convention="sig2"`` is ``K(x, z) = exp(-||x - z||^2 / sigma^2)`` (LS-SVMlab's
``sig2``, the default); ``"two_sigma2"`` is ``exp(-||x - z||^2 / (2 sigma^2))``.
"""

from __future__ import annotations

from numbers import Real

import numpy as np

__all__ = ["WIDTH_CONVENTIONS", "DEFAULT_CS", "DEFAULT_SIGMAS", "rbf_gamma", "check_c_sigma"]

WIDTH_CONVENTIONS = ("sig2", "two_sigma2")

#: Spec A5: C in 2^{-5, -3, ..., 15} (11 values).
DEFAULT_CS = tuple(2.0**p for p in range(-5, 16, 2))
#: Spec A5: sigma^2 in 2^{-7, -5, ..., 9} (9 values), as sigma.
DEFAULT_SIGMAS = tuple(float(np.sqrt(2.0**p)) for p in range(-7, 10, 2))


def rbf_gamma(sigma: float, width_convention: str) -> float:
    """Precision of :func:`svmlab.kernels.rbf` for a width ``sigma``: ``1/sigma^2`` (sig2) or
    ``1/(2 sigma^2)`` (two_sigma2)."""
    if width_convention not in WIDTH_CONVENTIONS:
        raise ValueError(
            f"width_convention must be one of {', '.join(WIDTH_CONVENTIONS)} "
            f"(exp(-d^2/sigma^2) or exp(-d^2/(2 sigma^2))), got {width_convention!r}"
        )
    return 1.0 / (sigma * sigma) if width_convention == "sig2" else 0.5 / (sigma * sigma)


def _check_positive(owner: str, name: str, value, allow_none: bool) -> None:
    if value is None and allow_none:
        return
    ok = isinstance(value, Real) and not isinstance(value, bool) and np.isfinite(value)
    if not ok or not value > 0:
        extra = " or None (tuned by tune_lssvm)" if allow_none else ""
        raise ValueError(f"{owner}: {name} must be a number > 0{extra}, got {value!r}")


def check_c_sigma(owner: str, C, sigma, width_convention, *, allow_none: bool = False) -> None:
    """One clear error for a bad ``C``, ``sigma`` or ``width_convention``."""
    _check_positive(owner, "C", C, allow_none)
    _check_positive(owner, "sigma", sigma, allow_none)
    if width_convention not in WIDTH_CONVENTIONS:
        raise ValueError(
            f"{owner}: width_convention must be one of {', '.join(WIDTH_CONVENTIONS)}, "
            f"got {width_convention!r}"
        )
