"""CCLW-MLM, the class-corner lightweight MLM (Oliveira (2021), Ch. 5, Eqs. 5.1-5.5,
Alg. 12): LW-MLM whose penalty grows with nearness to the class corners."""

from __future__ import annotations

import warnings
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

from svmlab._sklearn_compat import Interval, StrOptions
from svmlab.estimators.mlm._base import CLASSIFICATION_MULTILATERATION, MLMClassificationPart
from svmlab.estimators.mlm.lightweight import LightweightTraining
from svmlab.selection import THRESHOLD_MODES, ClassCornerSelector, nearest_prototype_distance

__all__ = ["CCLWMLMClassifier", "class_corner_penalty"]


def class_corner_penalty(X, y, selector):
    """``p_i = zeta - NCD(x_i)`` (Eqs. 5.1-5.3; Alg. 12 lines 1-3) with
    ``NCD(x) = min_{x_j in PS} ||x - x_j||``, ``PS = CCIS(D, 0)`` and
    ``zeta = max_i NCD(x_i)``: the prototypes get the largest penalty ``zeta``, the sample
    farthest from every prototype 0.

    Returns ``(p, n_prototypes)``; ``p`` is None when PS is empty (the caller falls back to
    ``P = I``).
    """
    selector.fit(X, y)
    prototypes = selector.prototypes_
    if len(prototypes) == 0:
        return None, 0
    ncd = nearest_prototype_distance(X, X[prototypes])
    return ncd.max() - ncd, int(len(prototypes))


class CCLWMLMClassifier(MLMClassificationPart, LightweightTraining, ClassifierMixin, BaseEstimator):
    """Class-corner lightweight MLM (CCLW-MLM, Oliveira (2021), Ch. 5, Alg. 12).

    LW-MLM on one-hot codes (every training point a reference point,
    ``B = (D D + diag(p^2))^{-1} D Delta``) with ``p_i = zeta - NCD(x_i)``: the distance of
    ``x_i`` to the nearest prototype of ``PS = CCIS(D, 0)`` (:class:`svmlab.selection.
    ClassCornerSelector`), subtracted from its maximum ``zeta``. Reference points on the class
    borders are penalised most, those deep inside a class least. Prediction by the class-code
    argmin (Eq. 5.5). When PS is empty (no sample has a differently labelled neighbour inside
    ``R``), ``P = I`` (the author's code), with a warning and
    ``fit_info_["penalty_fallback"] = "identity_penalty"``.

    Parameters
    ----------
    n_neighbors : int, default=16
        ``K`` of CCIS (Eq. 3.7).
    radius : float or None, default=None
        ``R`` of CCIS; ``None``: Eq. 3.10 (largest 1-NN distance) times ``r_factor``.
    r_factor : float, default=1.0
    threshold_mode : {"thesis", "author_code"}, default="thesis"
        CCIS's PS test (``Gamma > 0``, or the author's ``Gamma' > 1``; spec A3).
    multilateration : {"class_code", "nn"}, default="class_code"
    n_predict_reference : int, float in (0, 1] or None, default=None
        The kappa subset of Eqs. 4.7-4.8 (see :class:`LWMLMClassifier`), read at predict time.
    random_state : int, RandomState instance or None, default=None
        Draws the kappa subset (training is deterministic).

    Attributes
    ----------
    B_ : ndarray of shape (n_samples, n_samples)
    penalties_ : ndarray of shape (n_samples,)
        ``p = zeta - NCD``.
    reference_points_ : ndarray of int
    model_size_ : int
        ``n_samples``.
    reference_inputs_, reference_outputs_ : ndarray
    classes_ : ndarray of shape (n_classes,)
    fit_info_ : dict
        ``b_norm``, ``n_reference``, ``n_samples``, ``n_prototypes`` (``|PS|``), ``zeta``,
        ``radius`` (CCIS's R), ``penalty_fallback`` (``"identity_penalty"`` when PS was
        empty, else None), ``fallback`` (``"lstsq"`` when Cholesky failed, else None),
        ``solver``.

    Notes
    -----
    Memory as :class:`LWMLMClassifier`: dense N x N float64 matrices, O(N^3) training.

    References
    ----------
    S. A. F. Oliveira, PhD thesis, UFC, 2021, Ch. 5 ("Controlling complexity in instance-based
    classifiers: a class-corner approach"), Alg. 12.
    """

    _parameter_constraints: dict = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "radius": [Interval(Real, 0, None, closed="neither"), None],
        "r_factor": [Interval(Real, 0, None, closed="neither")],
        "threshold_mode": [StrOptions(set(THRESHOLD_MODES))],
        "multilateration": [StrOptions(set(CLASSIFICATION_MULTILATERATION))],
        "n_predict_reference": [
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="right"),
            None,
        ],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_neighbors=16,
        radius=None,
        r_factor=1.0,
        threshold_mode="thesis",
        multilateration="class_code",
        n_predict_reference=None,
        random_state=None,
    ):
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.r_factor = r_factor
        self.threshold_mode = threshold_mode
        self.multilateration = multilateration
        self.n_predict_reference = n_predict_reference
        self.random_state = random_state

    def _penalty_vector(self, X, Y, rng):
        if len(X) < 2:
            raise ValueError(
                f"CCLW-MLM needs at least 2 samples for CCIS; got n_samples = {len(X)}"
            )
        selector = ClassCornerSelector(
            n_neighbors=self.n_neighbors,
            corner_threshold=0,
            radius=self.radius,
            r_factor=self.r_factor,
            threshold_mode=self.threshold_mode,
        )
        p, n_prototypes = class_corner_penalty(X, np.argmax(Y, axis=1), selector)
        info = {"n_prototypes": n_prototypes, "radius": float(selector.radius_)}
        if p is None:
            warnings.warn(  # noqa: B028 (about this fit, not the caller's line)
                "CCLWMLMClassifier: CCIS found no prototype (PS is empty); using P = I "
                "(recorded in fit_info_['penalty_fallback'])",
                RuntimeWarning,
            )
            return np.ones(len(X)), {**info, "zeta": 0.0, "penalty_fallback": "identity_penalty"}
        return p, {**info, "zeta": float(p.max()), "penalty_fallback": None}
