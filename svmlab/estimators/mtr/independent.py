"""One independent single-target model per target: the machinery of SingleTargetSVR and ST."""

from __future__ import annotations

from abc import ABCMeta, abstractmethod

import numpy as np

from svmlab._sklearn_compat import _fit_context
from svmlab.estimators.mtr._base import MultiTargetRegressorBase
from svmlab.estimators.mtr.tuning import fit_tuned

__all__ = ["IndependentTargetsBase", "fit_per_target"]


def fit_per_target(template, X, Y, *, param_grid, inner_cv, n_jobs, seed_of):
    """``fit_tuned`` on every column of ``Y`` (its observed rows); ``seed_of(t)`` seeds target
    ``t``."""
    return [
        fit_tuned(
            template,
            X,
            Y[:, t],
            param_grid=param_grid,
            inner_cv=inner_cv,
            n_jobs=n_jobs,
            seed=seed_of(t),
        )
        for t in range(Y.shape[1])
    ]


class IndependentTargetsBase(MultiTargetRegressorBase, metaclass=ABCMeta):
    """Problem transformation into ``m`` single-target problems, each fitted (and tuned) alone.

    Subclasses give the base learner (:meth:`_link_template`) and its tuning
    (:meth:`_tuning`) and declare ``n_jobs`` and ``random_state``.
    """

    @abstractmethod
    def _link_template(self):
        """An unfitted single-target regressor: the template of every target's model."""

    def _tuning(self):
        return None, None

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, Y):
        """Fit one model per target on the rows where that target is observed.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite inputs.
        Y : array-like of shape (n_samples, n_targets)
            ``n_targets >= 2``; NaN marks a missing target value.

        Returns
        -------
        self
        """
        X, Y = self._validate_fit_data(X, Y)
        base = self._base_seed()
        grid, inner_cv = self._tuning()
        fits = fit_per_target(
            self._link_template(),
            X,
            Y,
            param_grid=grid,
            inner_cv=inner_cv,
            n_jobs=self.n_jobs,
            seed_of=lambda t: self._seed(base, "target", t),
        )
        self.estimators_ = [f.model for f in fits]
        self.best_params_ = [f.params for f in fits]
        self.fit_info_ = {
            "best_params": self.best_params_,
            "n_train": [f.n_train for f in fits],
            "tuned": bool(grid) and bool(inner_cv),
            "tune_seconds": float(sum(f.tune_seconds for f in fits)),
            "fit_seconds": float(sum(f.fit_seconds for f in fits)),
        }
        return self

    def predict(self, X):
        """Every target's model applied to ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Y_pred : ndarray of shape (n_samples, n_targets)
        """
        X = self._validate_predict_X(X)
        return np.column_stack(
            [np.asarray(est.predict(X), dtype=np.float64).ravel() for est in self.estimators_]
        )
