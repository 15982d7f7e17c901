"""The LSSVM family's hyper-parameters (Oliveira (2021), Sec. 2.1.2 and 3.3.1; spec A4, A5):
``C`` (the thesis's regularisation gamma), the RBF precision ``gamma``, the default tuning grids
and the parameter constraints every LSSVM estimator shares.

The kernel is svmlab's ``K(x, z) = exp(-gamma ||x - z||^2)`` (:func:`svmlab.kernels.rbf`,
docs/decisions/naming.md). The thesis prints it as ``exp(-||x - z||^2 / sigma^2)`` (spec A4,
the denominator partly lost in the scan): its sigma is ``gamma = 1 / sigma^2``. LS-SVMlab 1.8's
training code (``kernel_matrix.m``) computes ``exp(-||x - z||^2 / (2 sig2))`` for its ``sig2``:
``gamma = 1 / (2 sig2)`` (docs/decisions/lssvm_mlm.md, "Kernel width (A4)").
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np

from svmlab._sklearn_compat import HasMethods, Interval

__all__ = ["DEFAULT_CS", "DEFAULT_GAMMAS", "LSSVM_CONSTRAINTS"]

#: Spec A5: C in 2^{-5, -3, ..., 15} (11 values).
DEFAULT_CS = tuple(2.0**p for p in range(-5, 16, 2))
#: Spec A5: sigma^2 in 2^{-7, -5, ..., 9} (9 values), as ``gamma = 1 / sigma^2``, in that order
#: (the largest gamma first). Each value is ``1 / (s * s)`` for ``s = sqrt(2^p)``, as svmlab
#: has always computed it from the widths, so ``127.99999999999997`` rather than ``128``: tuned
#: models stay bit-identical to earlier runs.
DEFAULT_GAMMAS = tuple(1.0 / (s * s) for s in (float(np.sqrt(2.0**p)) for p in range(-7, 10, 2)))

_POSITIVE = Interval(Real, 0.0, None, closed="neither")

#: scikit-learn parameter constraints of the hyper-parameters and of their tuning.
LSSVM_CONSTRAINTS: dict = {
    "C": [_POSITIVE, None],
    "gamma": [_POSITIVE, None],
    "Cs": ["array-like", None],
    "gammas": ["array-like", None],
    "tune_folds": [Interval(Integral, 2, None, closed="left")],
    "tune_max_samples": [Interval(Integral, 2, None, closed="left"), None],
    "tune_random_state": ["random_state"],
    "memory": [None, str, HasMethods(["cache"])],
    "random_state": ["random_state"],
}
