"""scikit-learn's random forest regressor with a path over its number of trees.

A random forest of ``n`` trees grown with a fixed ``random_state`` is the first ``n`` trees of
a forest of more trees grown with the same ``random_state``: each tree's seed is drawn from it
in turn (scikit-learn's ``_make_estimator``), whatever the total. :meth:`fit_path` therefore
grows the largest forest of a grid once and gives every smaller one as its prefix, instead of
growing each anew (Oliveira (2021), Table 15's grid has 100, 200 and 300 trees: half the trees).
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.ensemble import RandomForestRegressor as _SklearnForest

from svmlab.contract import Contract
from svmlab.estimators._path import fit_along_path

__all__ = ["RandomForestRegressor"]


class RandomForestRegressor(_SklearnForest):
    """:class:`sklearn.ensemble.RandomForestRegressor` (same parameters and models) that can fit
    a whole path over ``n_estimators`` at once (:meth:`fit_path`)."""

    svmlab_contract = Contract(path_parameter="n_estimators", path_simpler="min")

    def fit_path(self, X, y, n_estimators):
        """One fitted forest per number of trees, all cut from one forest.

        With an int ``random_state`` each forest has the trees of
        ``clone(self).set_params(n_estimators=n).fit(X, y)`` (and, with ``n_jobs=1``, its
        predictions to the bit; several jobs sum the trees in another order, as two separate
        fits would). With ``oob_score`` or
        ``warm_start``, or a ``random_state`` that is not an int, each is fitted on its own.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
        n_estimators : sequence of int
            Numbers of trees (each >= 1).

        Returns
        -------
        models : list of RandomForestRegressor
            Fitted forests with ``n_estimators`` set to each value, in the order given.
        """
        values = list(n_estimators)
        if not all(isinstance(n, (int, np.integer)) and not isinstance(n, bool) for n in values):
            raise ValueError(f"n_estimators values must be integers >= 1; got {values}")
        values = [int(n) for n in values]
        if self.oob_score or self.warm_start or not isinstance(self.random_state, int):
            return [clone(self).set_params(n_estimators=n).fit(X, y) for n in values]
        largest = max(values)

        def grow(model, _):
            return _SklearnForest.fit(clone(model).set_params(n_estimators=largest), X, y)

        def cut(model, grown, i):
            params = set(grown.get_params(deep=False))
            for name, value in vars(grown).items():  # fitted attributes, public and private
                if name not in params:
                    setattr(model, name, value)
            model.estimators_ = grown.estimators_[: values[i]]

        return fit_along_path(self, "n_estimators", values, grow, cut)
