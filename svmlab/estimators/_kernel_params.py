"""Kernel parameters as estimator constructor arguments.

Any estimator that takes a kernel of :mod:`svmlab.kernels` by name (the evolutionary SVMs,
:class:`~svmlab.estimators.kernel_svc.KernelSVC`) declares ``kernel`` plus the parameters of
:data:`KERNEL_PARAMS` and mixes in :class:`KernelParamsMixin`."""

from __future__ import annotations

from numbers import Real

from svmlab._sklearn_compat import Interval, StrOptions
from svmlab.kernels import get_kernel, kernel_names

__all__ = ["KERNEL_CONSTRAINTS", "KERNEL_PARAMS", "KernelParamsMixin"]

# constructor parameters that belong to the kernel; None means "the kernel's default".
# ``shift`` is the multiquadric's additive term (Mierswa Def. 4.4 calls it c; renamed so that no
# estimator has both ``C`` and ``c``). ``sigma1`` is the divisor of the squared distance of the
# Epanechnikov, multiquadric and Gaussian-combination kernels (the thesis's sigma, RapidMiner's
# sigma1): ``sigma`` is reserved for the Gaussian width (docs/decisions/naming.md).
KERNEL_PARAMS = (
    "gamma",
    "degree",
    "kappa",
    "delta",
    "sigma1",
    "sigma2",
    "sigma3",
    "shift",
)

_POSITIVE = Interval(Real, 0.0, None, closed="neither")
_NONNEGATIVE = Interval(Real, 0.0, None, closed="left")

# scikit-learn parameter constraints of ``kernel`` and of every parameter of KERNEL_PARAMS
KERNEL_CONSTRAINTS: dict = {
    "kernel": [StrOptions(set(kernel_names()))],
    "gamma": [_POSITIVE, None],
    "degree": [_POSITIVE, None],
    "kappa": [Real, None],
    "delta": [Real, None],
    "sigma1": [_NONNEGATIVE, None],
    "sigma2": [_NONNEGATIVE, None],
    "sigma3": [_NONNEGATIVE, None],
    "shift": [Real, None],
}


class KernelParamsMixin:
    """``kernel`` plus the parameters of :data:`KERNEL_PARAMS` as constructor arguments."""

    def _kernel_params(self) -> dict:
        """The kernel's validated parameters; an error for one the kernel does not have."""
        spec = get_kernel(self.kernel)
        given = {k: getattr(self, k) for k in KERNEL_PARAMS if getattr(self, k) is not None}
        extra = [k for k in given if k not in spec.defaults]
        if extra:
            valid = ", ".join(spec.defaults) or "none"
            raise ValueError(
                f"{type(self).__name__}: {extra[0]}={given[extra[0]]!r} is not a parameter of the "
                f"{spec.name} kernel (K = {spec.formula}); its parameters: {valid}. "
                "Leave the others unset (None)."
            )
        return spec.params(**given)
