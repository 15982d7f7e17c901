"""Fitting a whole path of one OLLAWV parameter from a single run.

The worst-violator updates never depend on the stopping threshold (the classifier's margin,
the regressor's tube), only the stop does: every model of a threshold path is a prefix of
the longest run. :func:`fit_along_path` turns one such run into one fitted estimator per
value, each identical to a separate ``fit`` with that value.
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
    estimator : OLLAWV estimator
    name : str
        The path parameter (``"margin"``, ``"epsilon"``).
    values : sequence of float
        Its values, each finite and >= 0.
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
    values = [float(v) for v in values]
    if not values or min(values) < 0 or not all(math.isfinite(v) for v in values):
        raise ValueError(
            f"{name} values must be a non-empty list of finite numbers >= 0; got {values}"
        )
    models = [clone(estimator).set_params(**{name: v}) for v in values]
    models[0]._validate_params()
    state = run(models[0], values)
    for i, model in enumerate(models):
        if i:
            for attr in _INPUT_ATTRIBUTES:
                if hasattr(models[0], attr):
                    setattr(model, attr, getattr(models[0], attr))
        store(model, state, i)
    return models
