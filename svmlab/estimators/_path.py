"""Fitting a whole path of one parameter, or of several jointly, from a single run (an
estimator's ``fit_path``, declared by its contract's ``path_parameter``).

OLLAWV: the worst-violator updates never depend on the stopping threshold (the classifier's
margin, the regressor's tube), only the stop does, so every model of a threshold path is a
prefix of the longest run. The bag-kernel SVMs (MISMO, miGraph): the bag kernel does not
depend on ``C``, so one kernel serves every ``C``. The MLM: nested sets of reference points
share one factorisation for every number of them and every ``C``. :func:`fit_along_path`
turns one such run into one fitted estimator per value, each the model a separate ``fit``
with that value gives.
"""

from __future__ import annotations

import math

from sklearn.base import clone

#: Attributes that validating ``X`` and ``y`` sets, shared by every model of a path.
_INPUT_ATTRIBUTES = ("classes_", "n_features_in_", "feature_names_in_")


def fit_along_path(estimator, name: str, values, run, store) -> list:
    """One fitted clone of ``estimator`` per value of parameter ``name`` (per point of a
    joint path), from one run.

    Parameters
    ----------
    estimator : estimator
        Any estimator with scikit-learn's ``_validate_params``.
    name : str or tuple of str
        The path parameter (``"margin"``, ``"epsilon"``, ``"C"``), or the parameters of a
        joint path (``("C", "n_reference")``).
    values : sequence of float, or of dict for a joint path
        The parameter's values, each finite and >= 0; for a joint path, each point's
        parameters (checked by the estimator's own parameter validation).
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
    if isinstance(name, tuple):
        if not values or not all(isinstance(v, dict) and set(v) <= set(name) for v in values):
            raise ValueError(
                f"a path over {name} takes a non-empty list of dicts over those parameters; "
                f"got {values}"
            )
        models = [clone(estimator).set_params(**v) for v in values]
    else:
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
