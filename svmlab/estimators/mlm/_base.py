"""What every MLM estimator shares: reference points, the distance matrices, ``B``, the
``fit_info_`` record and the kappa subset at prediction (Oliveira (2021), Algs. 5-6 and
10-11, Eqs. 4.7-4.8).

A concrete estimator combines one *task* part (:class:`MLMRegressionPart`: multilateration
of real outputs; :class:`MLMClassificationPart`: one-hot codes and the class-code argmin)
with one *training* part that defines ``_select_reference`` and ``_coefficients``.
"""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab.contract import Contract, RowValue
from svmlab.estimators.mlm.distances import (
    PREDICT_BLOCK_ROWS,
    distance_matrix,
    one_hot,
    resolve_count,
)
from svmlab.estimators.mlm.multilateration import (
    class_code_argmin,
    cubic_multilateration,
    lm_multilateration,
    nearest_reference,
)

__all__ = ["MLMClassificationPart", "MLMRegressionPart", "MLMTrainingBase"]

REGRESSION_MULTILATERATION = ("auto", "cubic", "lm", "nn")
CLASSIFICATION_MULTILATERATION = ("class_code", "nn")


class MLMTrainingBase:
    """Fit machinery. Subclasses define

    * ``_select_reference(n, rng) -> indices`` (default: every training point);
    * ``_coefficients(D, Delta, X, Y, rng, weights) -> (B, info)``; ``info`` may hold
      ``"kept"`` (positions of the reference points left after pruning) and ``"fallback"``.
    """

    svmlab_contract = Contract(row_values={"b_norm": RowValue("b_norm", "min")})

    def _select_reference(self, n, rng):
        return np.arange(n)

    def _fit_encoded(self, X, Y, weights=None):
        rng, rp, D, Delta = self._distances(X, Y)
        B, info = self._coefficients(D, Delta, X, Y, rng, weights)
        del D, Delta
        return self._store(X, Y, rp, B, info)

    def _distances(self, X, Y):
        """The generator of ``random_state`` after drawing the reference points, the points,
        and the input and output distances to them (``D``, ``Delta``)."""
        rng = check_random_state(self.random_state)
        rp = np.asarray(self._select_reference(len(X), rng), dtype=np.intp)
        return rng, rp, distance_matrix(X, X[rp]), distance_matrix(Y, Y[rp])

    def _store(self, X, Y, rp, B, info):
        """Keep ``B``, the reference points left and ``fit_info_``; warn about a fallback."""
        n = len(X)
        kept = info.pop("kept", None)
        if kept is not None:
            rp = rp[kept]
        if info.get("fallback"):
            warnings.warn(  # noqa: B028 (about this fit, not the caller's line)
                f"{type(self).__name__}: the linear system for B is singular or not positive "
                f"definite (duplicate inputs?); its minimum-norm solution taken instead, by "
                f"{info.get('solver') or info['fallback']} (recorded in fit_info_['fallback'] "
                "and ['solver'])",
                RuntimeWarning,
            )
        self.B_ = B
        self.reference_points_ = rp
        self.model_size_ = int(len(rp))
        self.reference_inputs_ = X[rp]
        self.reference_outputs_ = Y[rp]
        self.fit_info_ = {
            "b_norm": float(np.linalg.norm(B)),
            "n_reference": int(len(rp)),
            "n_samples": int(n),
            "fallback": None,
            **info,
        }
        return self

    # ---------------------------------------------------------------- prediction helpers

    def _prediction_subset(self, minimum):
        """Positions (into the reference points) used in multilateration: all of them, or the
        random kappa subset of ``n_predict_reference`` (Eqs. 4.7-4.8), drawn anew from
        ``random_state`` at every call (an int seed gives the same subset every time)."""
        K = resolve_count(
            self.n_predict_reference, self.model_size_, name="n_predict_reference", minimum=minimum
        )
        if K >= self.model_size_:
            return None
        rng = check_random_state(self.random_state)
        return np.sort(rng.choice(self.model_size_, size=K, replace=False))

    def _estimated_distance_blocks(self, X, subset):
        """``(rows, Phi(x) B[:, S])`` for blocks of test rows: the estimated output distances
        to the kept reference outputs (Eq. 2.12 step 1; O(N K) per point with the subset)."""
        B = self.B_ if subset is None else self.B_[:, subset]
        for lo in range(0, len(X), PREDICT_BLOCK_ROWS):
            rows = slice(lo, min(len(X), lo + PREDICT_BLOCK_ROWS))
            yield rows, distance_matrix(X[rows], self.reference_inputs_) @ B

    def _check_predict_input(self, X):
        check_is_fitted(self, "B_")
        return validate_data(self, X, reset=False, dtype=np.float64)


class MLMRegressionPart:
    """Real outputs; multilateration by the exact cubic (one output), Levenberg-Marquardt or
    the nearest reference output (NN-MLM)."""

    def fit(self, X, y):
        """Fit the MLM.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)

        Returns
        -------
        self
        """
        return self._fit_encoded(*self._validated(X, y))

    #: What :meth:`_validated` sets besides scikit-learn's input attributes.
    _target_attributes = ("_y_ndim", "n_outputs_")

    def _validated(self, X, y):
        """``(X, Y, weights)``: the checked inputs, the outputs as a matrix, no weights."""
        self._validate_params()
        X, y = validate_data(self, X, y, multi_output=True, y_numeric=True, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        self._y_ndim = y.ndim
        Y = y.reshape(len(y), -1)
        self.n_outputs_ = Y.shape[1]
        return X, Y, None

    def _multilateration_method(self):
        m = self.multilateration
        if m not in REGRESSION_MULTILATERATION:
            raise ValueError(
                f"multilateration must be one of {', '.join(REGRESSION_MULTILATERATION)}; got {m!r}"
            )
        if m == "auto":
            return "cubic" if self.n_outputs_ == 1 else "lm"
        if m == "cubic" and self.n_outputs_ != 1:
            raise ValueError(
                f"multilateration='cubic' needs one output; this model has {self.n_outputs_} "
                "(use 'lm' or 'auto')"
            )
        return m

    def predict(self, X):
        """Multilaterate the outputs of ``X`` (Oliveira (2021), Eq. 2.12; Alg. 11 with the
        kappa subset when ``n_predict_reference`` is set)."""
        X = self._check_predict_input(X)
        method = self._multilateration_method()
        subset = self._prediction_subset(minimum=max(2, self.n_outputs_ + 1))
        T = self.reference_outputs_ if subset is None else self.reference_outputs_[subset]
        out = np.empty((len(X), self.n_outputs_))
        for rows, delta in self._estimated_distance_blocks(X, subset):
            if method == "cubic":
                out[rows, 0] = cubic_multilateration(delta, T[:, 0])
            elif method == "lm":
                out[rows] = lm_multilateration(delta, T)
            else:
                out[rows] = T[nearest_reference(delta)]
        return out[:, 0] if self._y_ndim == 1 else out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags


class MLMClassificationPart:
    """Class labels as one-hot codes (Eq. 5.4); prediction by the class-code argmin (Eq. 5.5)
    or NN-MLM (the label of the reference point with the smallest estimated distance)."""

    def fit(self, X, y):
        """Fit the MLM on one-hot codes of ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)

        Returns
        -------
        self
        """
        return self._fit_encoded(*self._validated(X, y))

    #: What :meth:`_validated` sets besides scikit-learn's input attributes.
    _target_attributes = ("classes_",)

    def _validated(self, X, y):
        """``(X, Y, weights)``: the checked inputs, one-hot codes, the sample weights."""
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_index = np.unique(y, return_inverse=True)
        Y = one_hot(y_index, len(self.classes_))
        return X, Y, self._sample_weights(y_index)

    def _sample_weights(self, y_index):
        return None

    def predict(self, X):
        """The class of every row of ``X`` (Oliveira (2021), Eq. 5.5)."""
        X = self._check_predict_input(X)
        if self.multilateration not in CLASSIFICATION_MULTILATERATION:
            raise ValueError(
                "multilateration must be one of "
                f"{', '.join(CLASSIFICATION_MULTILATERATION)}; got {self.multilateration!r}"
            )
        subset = self._prediction_subset(minimum=1)
        T = self.reference_outputs_ if subset is None else self.reference_outputs_[subset]
        codes = distance_matrix(np.eye(len(self.classes_)), T)
        out = np.empty(len(X), dtype=np.intp)
        for rows, delta in self._estimated_distance_blocks(X, subset):
            if self.multilateration == "class_code":
                out[rows] = class_code_argmin(delta, codes)
            else:
                out[rows] = np.argmax(T[nearest_reference(delta)], axis=1)
        return self.classes_[out]
