"""Fitting a whole path of one parameter from a single run (an estimator's ``fit_path``,
declared by its contract's ``path_parameter``).

OLLAWV: the worst-violator updates never depend on the stopping threshold (the classifier's
margin, the regressor's tube), only the stop does, so every model of a threshold path is a
prefix of the longest run. The bag-kernel SVMs (MISMO, miGraph): the bag kernel does not
depend on ``C``, so one kernel serves every ``C``. :func:`fit_along_path` turns one such run
into one fitted estimator per value, each identical to a separate ``fit`` with that value.
"""

from __future__ import annotations

import math

from sklearn.base import clone

#: Attributes that validating ``X`` and ``y`` sets, shared by every model of a path.
_INPUT_ATTRIBUTES = ("classes_", "n_features_in_", "feature_names_in_")


def fit_along_path(estimator, name: str, values, run, store) -> list:
    """One fitted clone of ``estimator`` per value of parameter ``name``, from one run.

    Parameters
    ----------
    estimator : estimator
        Any estimator with scikit-learn's ``_validate_params``.
    name : str
        The path parameter (``"margin"``, ``"epsilon"``, ``"C"``).
    values : sequence of float
        Its values, each finite and >= 0 (and valid for the estimator's parameter).
    run : callable
        ``run(model, values) -> state``: validates the data on ``model`` and runs the loop
        once for every value.
    store : callable
        ``store(model, state, i)``: sets the fitted attributes of value ``i`` on ``model``.

    Returns
    -------
    list
        The fitted clones, in the order of ``values``.
    """
    values = list(values)  # as given: an int parameter stays int
    numbers = [float(v) for v in values]
    if not values or min(numbers) < 0 or not all(math.isfinite(v) for v in numbers):
        raise ValueError(
            f"{name} values must be a non-empty list of finite numbers >= 0; got {values}"
        )
    models = [clone(estimator).set_params(**{name: v}) for v in values]
    for model in models:
        model._validate_params()
    state = run(models[0], values)
    for i, model in enumerate(models):
        if i:
            for attr in _INPUT_ATTRIBUTES:
                if hasattr(models[0], attr):
                    setattr(model, attr, getattr(models[0], attr))
        store(model, state, i)
    return models
