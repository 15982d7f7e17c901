"""The one helper module of the multi-instance estimators: validating and stacking bags and bag
labels, per-bag reductions, bag prediction mixins, feature scaling, and the seeding and weighted
fitting of base estimators used by the MIL ensembles (SimpleMI, MIWrapper, TLC, MIBoost), and
the instance-level kernel SVM that MI-SVM and mi-SVM train in turn (:class:`_InstanceSVMBase`),
and the compiled passes over the instances of the diverse-density objectives (MIDD, MIEMDD, MDD).

MIL estimator modules import shared code from here only, never from one another."""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from numba import njit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.pipeline import Pipeline
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from svmlab._sklearn_compat import Interval, StrOptions
from svmlab.bags import check_bag_labels, check_bags
from svmlab.contract import Contract
from svmlab.kernels import gamma_from_sigma, rbf_expansion

__all__ = [
    "OVER_SQUARE",
    "TIMES_SQUARE",
    "BagClassifierMixin",
    "MaxInstanceMixin",
    "apply_scaling",
    "bag_argmax",
    "bag_max",
    "check_bag_labels",
    "check_bags",
    "check_binary_bags",
    "feature_scaling",
    "fit_scaling",
    "fit_weighted",
    "instance_weights",
    "minmax_scaler",
    "positive_proba",
    "positive_score",
    "seed_estimator",
    "weighted_moments",
    "weighted_sq_dist",
]


def bag_max(values, starts):
    """Largest value of each bag (``values`` stacked bag after bag, ``starts`` from
    :func:`check_bags`)."""
    return np.maximum.reduceat(np.asarray(values), starts)


class BagClassifierMixin:
    """``predict`` for bag classifiers whose ``decision_function`` is positive for
    ``classes_[1]``."""

    svmlab_contract = Contract(input="bags")

    def predict(self, bags):
        """Bag labels: ``classes_[1]`` where the bag score is > 0.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        ndarray of shape (n_bags,)
        """
        scores = self.decision_function(bags)
        return self.classes_[(scores > 0).astype(np.intp)]


class MaxInstanceMixin(BagClassifierMixin):
    """Bag score = the largest instance output (the standard MI assumption).

    Subclasses implement ``_instance_scores(X)`` on validated, stacked instances.
    """

    def instance_decision_function(self, X):
        """Decision values of single instances.

        Parameters
        ----------
        X : array-like of shape (n_instances, n_features)

        Returns
        -------
        ndarray of shape (n_instances,)
        """
        check_is_fitted(self)
        X, _, _ = check_bags([X], self.n_features_in_)
        return self._instance_scores(X)

    def decision_function(self, bags):
        """Bag scores: the largest instance output of each bag; positive means ``classes_[1]``.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        ndarray of shape (n_bags,)
        """
        check_is_fitted(self)
        X, starts, _ = check_bags(bags, self.n_features_in_)
        return bag_max(self._instance_scores(X), starts)


def seed_estimator(estimator, rng):
    """Give every ``random_state`` parameter of ``estimator`` (nested ones too) a seed from
    ``rng``."""
    keys = [
        k
        for k in estimator.get_params(deep=True)
        if k == "random_state" or k.endswith("__random_state")
    ]
    if keys:
        estimator.set_params(**{k: int(rng.randint(np.iinfo(np.int32).max)) for k in keys})
    return estimator


def fit_weighted(estimator, X, y, sample_weight, who: str):
    """Fit with per-row weights (a :class:`~sklearn.pipeline.Pipeline` routes them to its last
    step)."""
    if sample_weight is None:
        return estimator.fit(X, y)
    if isinstance(estimator, Pipeline):
        name, last = estimator.steps[-1]
        if not has_fit_parameter(last, "sample_weight"):
            raise ValueError(
                f"{who}: the final step of the base pipeline ({type(last).__name__}) "
                "does not accept sample_weight, which this method needs"
            )
        return estimator.fit(X, y, **{f"{name}__sample_weight": sample_weight})
    if not has_fit_parameter(estimator, "sample_weight"):
        raise ValueError(
            f"{who}: the base estimator {type(estimator).__name__} does not accept "
            "sample_weight, which this method needs"
        )
    return estimator.fit(X, y, sample_weight=sample_weight)


def positive_proba(estimator, X):
    """Probability of class index 1 from a fitted classifier trained on labels {0, 1}."""
    proba = estimator.predict_proba(X)
    cols = list(estimator.classes_)
    return proba[:, cols.index(1)] if 1 in cols else np.zeros(X.shape[0])


def positive_score(estimator, X):
    """A continuous score of class index 1: ``predict_proba`` when available, else
    ``decision_function``."""
    if hasattr(estimator, "predict_proba"):
        try:
            return positive_proba(estimator, X)
        except AttributeError:  # e.g. SVC(probability=False)
            pass
    return np.asarray(estimator.decision_function(X), dtype=float).ravel()


def feature_scaling(X, kind: str):
    """Per-feature ``(offset, scale)`` so that ``(X - offset) / scale`` is the scaled data.

    ``"minmax"``: to [0, 1] (Weka's Normalize); ``"standard"``: zero mean, unit variance
    (Weka's Standardize); ``"none"``: identity. Constant features get scale 1.
    """
    d = X.shape[1]
    if kind == "none":
        return np.zeros(d), np.ones(d)
    if kind == "minmax":
        offset = X.min(axis=0)
        scale = X.max(axis=0) - offset
    elif kind == "standard":
        offset = X.mean(axis=0)
        scale = X.std(axis=0)
    else:  # pragma: no cover - guarded by parameter validation
        raise ValueError(f"unknown scaling {kind!r}")
    scale = np.where(scale > 0, scale, 1.0)
    return offset, scale


def check_binary_bags(name: str, bags, y):
    """``check_bags`` plus the bag labels: returns ``X, starts, sizes, classes, Y (+-1)``."""
    X, starts, sizes = check_bags(bags)
    classes, y_idx = check_bag_labels(y, len(sizes), name)
    return X, starts, sizes, classes, np.where(y_idx == 1, 1.0, -1.0)


def bag_argmax(values, starts, sizes):
    """Row of ``values`` holding each bag's maximum (the first one on ties)."""
    bag_of = np.repeat(np.arange(len(starts)), sizes)
    best = np.maximum.reduceat(values, starts)
    hits = np.flatnonzero(values == best[bag_of])
    _, first = np.unique(bag_of[hits], return_index=True)
    return hits[first]


def instance_weights(sizes, weighting: str = "bag"):
    """Training weight of every instance, stacked bag after bag.

    ``"bag"``: ``1 / |B|`` (each bag sums to 1, Frank & Xu). ``"none"``: 1 for every instance.
    """
    sizes = np.asarray(sizes, dtype=np.intp)
    if weighting == "bag":
        return np.repeat(1.0 / sizes, sizes)
    if weighting == "none":
        return np.ones(int(sizes.sum()))
    raise ValueError(f"weighting must be 'bag' or 'none', got {weighting!r}")


def minmax_scaler(X):
    """Weka's ``Normalize`` fitted on the rows of ``X``: ``(offset, factor)`` such that
    ``(Z - offset) * factor`` maps every feature's training range to [0, 1].

    A feature constant on ``X`` gets factor 0, so it becomes 0 for every row, training or
    test, as in Weka (which maps a constant attribute to 0).
    """
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = hi - lo
    factor = np.zeros_like(span)
    np.divide(1.0, span, out=factor, where=span > 0)
    return lo, factor


def fit_scaling(X, scaling: str):
    """``minmax_scaler(X)`` for ``scaling="minmax"``; ``(None, None)`` (no scaling) otherwise."""
    return minmax_scaler(X) if scaling == "minmax" else (None, None)


def apply_scaling(X, offset, factor):
    """``(X - offset) * factor``, or ``X`` itself when ``offset`` is None."""
    if offset is None:
        return X
    return (X - offset) * factor


# ------------------------------------------------------------------------------------------
# the instance-level SVM of MI-SVM and mi-SVM (svmlab.estimators.mil.misvm)
# ------------------------------------------------------------------------------------------


_INSTANCE_SVM_CONSTRAINTS: dict = {
    "C": [Interval(Real, 0.0, None, closed="neither")],
    "sigma": [Interval(Real, 0.0, None, closed="neither")],
    "gamma": [Interval(Real, 0.0, None, closed="neither"), None],
    "max_iter": [Interval(Integral, 1, None, closed="left")],
    "tol": [Interval(Real, 0.0, None, closed="neither")],
    "qp_solver": [StrOptions({"auto", "smo", "libsvm"})],
    "max_kernel_size": [Interval(Integral, 1, None, closed="left")],
}


class _InstanceSVMBase(MaxInstanceMixin, ClassifierMixin, BaseEstimator):
    """Shared parameters, the QP call and bag prediction of MI-SVM and mi-SVM."""

    _parameter_constraints: dict = dict(_INSTANCE_SVM_CONSTRAINTS)
    _name = "instance SVM"

    def __init__(
        self,
        C: float = 1.0,
        sigma: float = 1.0,
        gamma: float | None = None,
        max_iter: int = 50,
        tol: float = 1e-3,
        qp_solver: str = "auto",
        max_kernel_size: int = 6000,
    ):
        self.C = C
        self.sigma = sigma
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.qp_solver = qp_solver
        self.max_kernel_size = max_kernel_size

    def _gamma_value(self) -> float:
        return float(self.gamma) if self.gamma is not None else gamma_from_sigma(self.sigma)

    def _use_libsvm(self, n_examples: int) -> bool:
        return self.qp_solver == "libsvm" or (
            self.qp_solver == "auto" and n_examples > self.max_kernel_size
        )

    def _train(self, Z, yz, gamma, K, previous, kernel="rbf"):
        """One SVM on examples ``Z`` with labels ``yz`` (+-1).

        Returns ``(alpha, b, sol_or_None, n_iter)``: ``alpha`` over all rows of ``Z``.
        ``K`` is the precomputed kernel (SMO path) or ``None`` (LIBSVM path, with the
        ``kernel`` named for ``sklearn.svm.SVC``).
        """
        if K is not None:
            from svmlab.qp import solve_svm_dual

            sol = solve_svm_dual(
                K, yz, float(self.C), warm_start=previous, tol=self.tol, method="smo"
            )
            return sol.alpha, float(sol.intercept), sol, int(sol.n_iter), bool(sol.converged)
        from sklearn.svm import SVC

        svc = SVC(kernel=kernel, gamma=gamma, C=float(self.C), tol=self.tol, cache_size=500).fit(
            Z, yz
        )
        alpha = np.zeros(len(yz))
        alpha[svc.support_] = np.abs(svc.dual_coef_[0])
        return alpha, float(svc.intercept_[0]), None, int(svc.n_iter_[0]), True

    def _store_model(self, Z, yz, alpha, b, gamma):
        sv = alpha > 1e-8 * float(self.C)
        self._gamma = gamma
        self.support_vectors_ = Z[sv].copy()
        self.dual_coef_ = (alpha * yz)[sv]
        self.intercept_ = float(b)
        self.n_support_ = np.array([np.sum(sv & (yz < 0)), np.sum(sv & (yz > 0))], dtype=np.int32)
        self.model_size_ = int(sv.sum())

    def _run_info(self, stop, changed_per_iter, qp_iter, converged_qp, t_start, libsvm, gamma):
        """The ``fit_info_`` entries both alternations share (the sizes are added by each)."""
        return {
            "iterations": int(self.n_iter_),
            "converged": stop == "converged",
            "stop": stop,
            "changed_per_iter": changed_per_iter,
            "qp_iterations": int(qp_iter),
            "qp_converged": bool(converged_qp),
            "seconds": float(time.perf_counter() - t_start),
            "qp_solver": "libsvm" if libsvm else "smo",
            "gamma": float(gamma),
        }

    # -- prediction ------------------------------------------------------------------------

    def _instance_scores(self, X):
        return rbf_expansion(
            X, self.support_vectors_, self.dual_coef_, self.intercept_, self._gamma
        )


# ------------------------------------------------------------------ diverse-density passes
# Each evaluation of the MIDD, MIEMDD and MDD objectives needs the weighted squared distance of
# every instance to the target point, then two weighted sums over the instances for the
# gradient. With NumPy that is five passes over the instance matrix and two temporaries of its
# size, thousands of times per fit; compiled, two passes and none. The distance follows Weka's
# loop (features one after the other, Weka's factors); the gradient's moments are summed over
# all instances at once, not per bag as Weka does, so rounding still differs there. Divisions
# follow IEEE 754 (a zero width gives an infinite distance, as in Java and NumPy).


#: How :func:`weighted_sq_dist` weighs a squared difference ``r * r`` by ``w_k``, in Weka's own
#: arithmetic: MIDD and MIEMDD multiply by the scale twice (``r * r * s * s``), MDD divides by
#: the squared width (``r * r / (sigma * sigma)``).
TIMES_SQUARE, OVER_SQUARE = 0, 1


@njit(cache=True, error_model="numpy")
def weighted_sq_dist(X, t, w, how):  # pragma: no cover - compiled
    """``sum_k (X_ik - t_k)^2 w_k^2`` (``how=TIMES_SQUARE``) or ``sum_k (X_ik - t_k)^2 / w_k^2``
    (``OVER_SQUARE``) for every row ``i`` of ``X``."""
    n, d = X.shape
    out = np.empty(n)
    for i in range(n):
        acc = 0.0
        for k in range(d):
            r = X[i, k] - t[k]
            if how == TIMES_SQUARE:
                acc += r * r * w[k] * w[k]
            else:
                acc += r * r / (w[k] * w[k])
        out[i] = acc
    return out


@njit(cache=True, error_model="numpy")
def weighted_moments(X, t, coef):  # pragma: no cover - compiled
    """``(sum_i coef_i (X_i - t), sum_i coef_i (X_i - t)^2)``, per feature."""
    n, d = X.shape
    m1 = np.zeros(d)
    m2 = np.zeros(d)
    for i in range(n):
        c = coef[i]
        for k in range(d):
            r = X[i, k] - t[k]
            cr = c * r
            m1[k] += cr
            m2[k] += cr * r
    return m1, m2
