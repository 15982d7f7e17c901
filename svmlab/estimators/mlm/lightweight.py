"""LW-MLM, the lightweight MLM (Oliveira (2021), Ch. 4, Eqs. 4.1-4.8, Algs. 10-11): every
training point is a reference point and ``B = (D^T D + P^T P)^{-1} D^T Delta`` with a
per-reference-point penalty ``P = diag(p)``."""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin

from svmlab._sklearn_compat import Interval, StrOptions
from svmlab.estimators.mlm._base import (
    CLASSIFICATION_MULTILATERATION,
    REGRESSION_MULTILATERATION,
    MLMClassificationPart,
    MLMRegressionPart,
    MLMTrainingBase,
)
from svmlab.estimators.mlm.coefficients import regularised_least_squares
from svmlab.estimators.mlm.penalties import (
    K_RULES,
    ks_penalty,
    neighbour_count,
    normal_penalty,
)

__all__ = ["LWMLMClassifier", "LWMLMRegressor", "LightweightTraining"]

PENALTIES = ("normal", "ks_fixed", "ks_otsu")


class LightweightTraining(MLMTrainingBase):
    """All training points as reference points; ``p`` from :meth:`_penalty_vector`."""

    def _penalty_vector(self, X, Y, rng):
        """``(p, info)`` of the chosen LW-MLM variant (Table 10)."""
        n = len(X)
        if self.penalty == "normal":
            return normal_penalty(n, rng), {}
        k = self.n_neighbors if self.n_neighbors is not None else neighbour_count(n, self.k_rule)
        k = int(min(k, n - 1))
        threshold = "otsu" if self.penalty == "ks_otsu" else self.threshold
        p, pvalues, t = ks_penalty(
            X, Y, k=k, threshold=threshold, delta=self.delta, y_neighbours=self.y_neighbours
        )
        return p, {"k": k, "threshold": t, "n_nonlinear": int(np.sum(pvalues < t))}

    def _coefficients(self, D, Delta, X, Y, rng, weights):
        p, info = self._penalty_vector(X, Y, rng)
        self.penalties_ = np.asarray(p, dtype=np.float64)
        B, solve_info = regularised_least_squares(D, Delta, self.penalties_**2, weights)
        return B, {
            **info,
            **solve_info,
            "solver": "cholesky" if not solve_info["fallback"] else "lstsq",
        }


_LW_CONSTRAINTS = {
    "penalty": [StrOptions(set(PENALTIES))],
    "k_rule": [StrOptions(set(K_RULES))],
    "n_neighbors": [Interval(Integral, 1, None, closed="left"), None],
    "threshold": [Interval(Real, 0, 1, closed="both")],
    "delta": [Interval(Real, 0, None, closed="left")],
    "y_neighbours": [StrOptions({"same", "output"})],
    "n_predict_reference": [
        Interval(Integral, 1, None, closed="left"),
        Interval(Real, 0, 1, closed="right"),
        None,
    ],
    "random_state": ["random_state"],
}

_LW_DOC = """Lightweight MLM (LW-MLM, Oliveira (2021), Ch. 4, Algs. 10-11){task}.

    Every training point is a reference point; ``B`` minimises
    ``||D B - Delta||_F^2 + ||P B||_F^2`` with ``P = diag(p)`` (Eq. 4.1), i.e.
    ``B = (D D + diag(p^2))^{{-1}} D Delta`` (Eq. 4.2; ``D`` is symmetric) by Cholesky, with
    ``lstsq`` on ``[D; diag(p)] B = [Delta; 0]`` as the fallback when the Gram matrix is not
    positive definite (warned and recorded in ``fit_info_["fallback"]``). ``p_i`` penalises
    the influence of reference point ``i``. ``p = sqrt(C) 1`` is Rank-MLM with all points.

    Parameters
    ----------
    penalty : {{"normal", "ks_fixed", "ks_otsu"}}, default="ks_otsu"
        LW-MLM-1: ``p_i ~ N(0, 1)``; LW-MLM-2: ``p_i = KS^t_delta(x_i, y_i)`` (Eq. 4.6) with
        the fixed threshold ``threshold``; LW-MLM-3: the same with Otsu's threshold on the
        p-values (256-bin histogram).
    k_rule : {{"log10_5N", "5log10N"}}, default="log10_5N"
        KS neighbourhood size: ``max(2, round(log10(5 N)))`` as Table 10 prints it (spec
        A10), or ``max(2, round(5 log10 N))``. Ignored when ``n_neighbors`` is given.
    n_neighbors : int or None, default=None
        Explicit ``k`` (overrides ``k_rule``).
    threshold : float, default=0.05
        ``t`` of LW-MLM-2 (not given in the thesis; spec A9).
    delta : float, default=1.0
        Extra penalty of the samples with KS p-value ``< t`` (Eq. 4.6; spec A12).
    y_neighbours : {{"same", "output"}}, default="same"
        Output-side profile from the input neighbours' outputs (spec A11) or from the
        output's own nearest neighbours.
{multilateration}    n_predict_reference : int, float in (0, 1] or None, default=None
        The kappa subset of Eqs. 4.7-4.8: multilaterate with this many random reference
        points (int or fraction of N; at least 2, and n_outputs + 1), using
        ``Phi(x) B[:, S]``. Read at predict time: set it after fitting, no refit (the
        Figs. 20-21 sweep). ``None``: all.
    random_state : int, RandomState instance or None, default=None
        Draws ``p`` of LW-MLM-1 in ``fit`` and the kappa subset in ``predict``.

    Attributes
    ----------
    B_ : ndarray of shape (n_samples, n_samples)
    penalties_ : ndarray of shape (n_samples,)
        ``p``.
    reference_points_ : ndarray of int
        ``arange(n_samples)``.
    model_size_ : int
        ``n_samples`` (no subset selection during training).
    reference_inputs_, reference_outputs_ : ndarray
    fit_info_ : dict
        ``b_norm`` (``||B||_F``), ``n_reference``, ``n_samples``, ``fallback``, ``solver``;
        for the KS penalties also ``k``, ``threshold`` (the ``t`` used) and ``n_nonlinear``
        (samples with p-value below ``t``).
{extra_attributes}
    Notes
    -----
    Memory: ``D``, ``Delta``, the Gram matrix ``D D + diag(p^2)`` and ``B`` are dense N x N
    float64 (288 MB each at N = 6000, about 1.2 GB at peak), inherent to LW-MLM. Training is
    O(N^3); prediction O(N K) per point with the kappa subset of K points.

    References
    ----------
    J. V. Florencio, S. A. F. Oliveira, J. P. P. Gomes, A. R. Rocha Neto, "A new perspective for
    Minimal Learning Machines: A lightweight approach", Neurocomputing 401, 2020;
    S. A. F. Oliveira, PhD thesis, UFC, 2021, Ch. 4, Table 10.
    """


class LWMLMRegressor(MLMRegressionPart, LightweightTraining, RegressorMixin, BaseEstimator):
    __doc__ = _LW_DOC.format(
        task=" for regression",
        multilateration="""    multilateration : {"auto", "cubic", "lm", "nn"}, default="auto"
        As :class:`MLMRegressor`: cubic for one output, LM for several (spec A8).
""",
        extra_attributes="    n_outputs_ : int\n",
    )

    _parameter_constraints: dict = {
        **_LW_CONSTRAINTS,
        "multilateration": [StrOptions(set(REGRESSION_MULTILATERATION))],
    }

    def __init__(
        self,
        penalty="ks_otsu",
        k_rule="log10_5N",
        n_neighbors=None,
        threshold=0.05,
        delta=1.0,
        y_neighbours="same",
        multilateration="auto",
        n_predict_reference=None,
        random_state=None,
    ):
        self.penalty = penalty
        self.k_rule = k_rule
        self.n_neighbors = n_neighbors
        self.threshold = threshold
        self.delta = delta
        self.y_neighbours = y_neighbours
        self.multilateration = multilateration
        self.n_predict_reference = n_predict_reference
        self.random_state = random_state


class LWMLMClassifier(MLMClassificationPart, LightweightTraining, ClassifierMixin, BaseEstimator):
    __doc__ = _LW_DOC.format(
        task=" for classification (one-hot Delta, class-code argmin, Eq. 5.5)",
        multilateration="""    multilateration : {"class_code", "nn"}, default="class_code"
        As :class:`MLMClassifier`.
""",
        extra_attributes="    classes_ : ndarray of shape (n_classes,)\n",
    )

    _parameter_constraints: dict = {
        **_LW_CONSTRAINTS,
        "multilateration": [StrOptions(set(CLASSIFICATION_MULTILATERATION))],
    }

    def __init__(
        self,
        penalty="ks_otsu",
        k_rule="log10_5N",
        n_neighbors=None,
        threshold=0.05,
        delta=1.0,
        y_neighbours="same",
        multilateration="class_code",
        n_predict_reference=None,
        random_state=None,
    ):
        self.penalty = penalty
        self.k_rule = k_rule
        self.n_neighbors = n_neighbors
        self.threshold = threshold
        self.delta = delta
        self.y_neighbours = y_neighbours
        self.multilateration = multilateration
        self.n_predict_reference = n_predict_reference
        self.random_state = random_state
