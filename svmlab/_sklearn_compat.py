"""The private scikit-learn names svmlab uses, imported in this one module.

svmlab's estimators validate their parameters as scikit-learn's own do: a class-level
``_parameter_constraints`` dict, checked by the ``_fit_context`` decorator on ``fit``, whose
constraint types (``Interval``, ``StrOptions``, ``Options``, ``HasMethods``) live in the private
module ``sklearn.utils._param_validation``. A few estimators also use scikit-learn's private
validation helpers ``_check_sample_weight`` and ``_check_feature_names_in``. scikit-learn may
move or change private names in any release, so every other svmlab module imports them from
here, and ``tests/test_architecture.py`` checks that none imports a private scikit-learn module
or name directly: a release that moves one needs a change in this file only.

Allowed range: scikit-learn >= 1.6 and < 1.10 (``pyproject.toml``). The test suite has run with
1.9.1 only, the version installed when the range was set; the lower bound is the oldest release
with the names imported here, the upper bound the next minor release, to be raised once the
suite passes with it.
"""

from sklearn.base import _fit_context
from sklearn.utils._param_validation import HasMethods, Interval, Options, StrOptions
from sklearn.utils.validation import _check_feature_names_in, _check_sample_weight

__all__ = [
    "HasMethods",
    "Interval",
    "Options",
    "StrOptions",
    "_check_feature_names_in",
    "_check_sample_weight",
    "_fit_context",
]
