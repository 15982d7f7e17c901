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

The package: :mod:`~svmlab.kernels.gaussian` (the Gaussian and linear kernels, the
gamma/sigma conversions and the block-wise Gaussian expansion most estimators use),
:mod:`~svmlab.kernels.mierswa` (the kernels of Mierswa (2009) above, with their parameter
checks and profiles) and :mod:`~svmlab.kernels.registry` (:class:`KernelSpec`, the registry
and the by-name functions). Every name is importable from ``svmlab.kernels``; a new kernel
is a function, a check and a profile beside its family, and one :class:`KernelSpec` entry.
"""

from __future__ import annotations

from svmlab.kernels.gaussian import (
    gamma_from_sigma,
    linear,
    rbf,
    rbf_blocks,
    rbf_expansion,
    sigma_from_gamma,
    squared_euclidean,
)
from svmlab.kernels.mierswa import (
    epanechnikov,
    gaussian_combination,
    multiquadric,
    polynomial,
    sigmoid,
)
from svmlab.kernels.registry import (
    KERNELS,
    KernelSpec,
    get_kernel,
    kernel_blocks,
    kernel_diagonal,
    kernel_expansion,
    kernel_matrix,
    kernel_names,
)

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
