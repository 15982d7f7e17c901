"""Multi-target stacking baselines MTS (Mulan's SST) and MTSC (SSTC) (Melki (2018), Sec. 3.3).

Stage 1 fits one model per target on ``X``. Stage 2 fits, for every target ``j``, a second
model on ``[X, yhat_1, ..., yhat_m]``, the stage-1 estimates of the targets. MTS builds the
stage-2 training inputs from the stage-1 models' in-sample predictions; MTSC from
out-of-fold predictions of an internal k-fold CV (the "corrected" variant), so that they
look like the stage-1 predictions a new example gets. At prediction time stage 2 always
takes the stage-1 models' predictions.

``exclude_own``: Spyromitros-Xioufis et al.'s SST feeds all ``m`` estimates to every
stage-2 model (default, ``False``); the dissertation's description gives stage-2 model
``j`` only the ``m - 1`` estimates of the *other* targets (``True``).

The single-target learner is a bagging of regression trees as in the other Mulan
baselines (see :mod:`svmlab.estimators.mtr.baselines` for how it differs from Weka's).
Missing targets: each stage-1/stage-2 model of target ``j`` is trained on the rows where
``j`` is observed; the stage-1 estimates exist for every row.
"""

from __future__ import annotations

import time
from numbers import Integral

import numpy as np

from svmlab._sklearn_compat import Interval, _fit_context
from svmlab.estimators.mtr._base import MultiTargetRegressorBase
from svmlab.estimators.mtr.baselines import _BAGGING_CONSTRAINTS, _BaggedTreesMixin
from svmlab.estimators.mtr.independent import fit_per_target
from svmlab.estimators.mtr.tuning import fit_tuned, out_of_fold_predict

__all__ = ["MTS", "MTSC"]


class _StackingBase(_BaggedTreesMixin, MultiTargetRegressorBase):
    """Two-stage stacking; subclasses choose how the stage-2 training inputs are estimated."""

    _out_of_fold = False

    def _stage2_inputs(self, X, P, target):
        if self.exclude_own:
            P = np.delete(P, target, axis=1)
        return np.hstack([X, P])

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, Y):
        """Fit both stages.

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
        template = self._link_template()
        m = Y.shape[1]
        stage1 = fit_per_target(
            template,
            X,
            Y,
            param_grid=None,
            inner_cv=None,
            n_jobs=None,
            seed_of=lambda t: self._seed(base, "stage1", t),
        )
        t0 = time.perf_counter()
        if self._out_of_fold:
            P = np.column_stack(
                [
                    out_of_fold_predict(
                        f.model, X, Y[:, t], n_folds=self.oof_folds, seed=self._seed(base, "oof", t)
                    )
                    for t, f in enumerate(stage1)
                ]
            )
        else:
            P = np.column_stack(
                [np.asarray(f.model.predict(X), dtype=np.float64).ravel() for f in stage1]
            )
        meta_seconds = time.perf_counter() - t0
        stage2 = [
            fit_tuned(
                template, self._stage2_inputs(X, P, t), Y[:, t], seed=self._seed(base, "stage2", t)
            )
            for t in range(m)
        ]
        self.stage1_estimators_ = [f.model for f in stage1]
        self.stage2_estimators_ = [f.model for f in stage2]
        self.fit_info_ = {
            "exclude_own": bool(self.exclude_own),
            "meta_features": "oof" if self._out_of_fold else "insample",
            "tune_seconds": 0.0,
            "fit_seconds": float(sum(f.fit_seconds for f in stage1 + stage2) + meta_seconds),
            "meta_seconds": float(meta_seconds),
        }
        return self

    def predict(self, X):
        """Stage-2 predictions from ``X`` and the stage-1 estimates.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Y_pred : ndarray of shape (n_samples, n_targets)
        """
        X = self._validate_predict_X(X)
        P = np.column_stack(
            [np.asarray(e.predict(X), dtype=np.float64).ravel() for e in self.stage1_estimators_]
        )
        return np.column_stack(
            [
                np.asarray(e.predict(self._stage2_inputs(X, P, t)), dtype=np.float64).ravel()
                for t, e in enumerate(self.stage2_estimators_)
            ]
        )


class MTS(_StackingBase):
    """MTS (stacked single-target, Mulan's SST): stage 2 trained on in-sample stage-1 estimates.

    Parameters
    ----------
    estimator : regressor or None, default=None
        The bagged base learner of both stages; ``None`` means ``DecisionTreeRegressor()``.
    n_estimators : int, default=100
        Bagging size of every model.
    exclude_own : bool, default=False
        ``False``: stage-2 model ``j`` sees all ``m`` estimates (original SST);
        ``True``: only the other ``m - 1`` (the dissertation's reading).
    n_jobs : int or None, default=None
        Parallel jobs of each bagging.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    stage1_estimators_, stage2_estimators_ : list of BaggingRegressor
        One per target and stage.
    fit_info_ : dict
        ``exclude_own``, ``meta_features``, ``tune_seconds`` (0), ``fit_seconds`` (both
        stages and the meta-features) and ``meta_seconds``.
    n_features_in_ : int
    """

    _parameter_constraints: dict = {**_BAGGING_CONSTRAINTS, "exclude_own": ["boolean"]}

    def __init__(
        self, estimator=None, n_estimators=100, exclude_own=False, n_jobs=None, random_state=None
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.exclude_own = exclude_own
        self.n_jobs = n_jobs
        self.random_state = random_state


class MTSC(_StackingBase):
    """MTSC (corrected stacking, Mulan's SSTC): stage 2 trained on out-of-fold stage-1 estimates.

    Each target's stage-1 estimates of the training rows come from an internal
    ``oof_folds``-fold CV (shuffled ``KFold``, as ``cross_val_predict``; rows whose target is
    missing are predicted but never trained on); stage 1 itself is refitted on all rows.

    Parameters
    ----------
    estimator : regressor or None, default=None
        The bagged base learner of both stages; ``None`` means ``DecisionTreeRegressor()``.
    n_estimators : int, default=100
        Bagging size of every model.
    exclude_own : bool, default=False
        As :class:`MTS`.
    oof_folds : int, default=10
        Folds of the internal CV.
    n_jobs : int or None, default=None
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    As :class:`MTS`.
    """

    _out_of_fold = True

    _parameter_constraints: dict = {
        **_BAGGING_CONSTRAINTS,
        "exclude_own": ["boolean"],
        "oof_folds": [Interval(Integral, 2, None, closed="left")],
    }

    def __init__(
        self,
        estimator=None,
        n_estimators=100,
        exclude_own=False,
        oof_folds=10,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.exclude_own = exclude_own
        self.oof_folds = oof_folds
        self.n_jobs = n_jobs
        self.random_state = random_state
