"""The SVM^perf variants MKLPO is compared with (Wang et al., Sec. IV), reconstructed.

Wang et al. name four competitors and give none of their settings. Two are plain
configurations of :class:`~svmlab.estimators.svmperf.SVMPerfClassifier` (solver files, no
class): **CPSP** (Joachims & Yu 2009), the kernel SVM^perf with one Gaussian kernel, here with
a Nystroem basis in place of the cutting-plane subspace pursuit for large ``n``; and **NDLO**
(Ranjbar et al. 2013), the linear 1-slack structural SVM with the same non-decomposable losses.
The other two need more than a configuration and live here, each written "in the spirit of"
its paper (docs/decisions/svmperf.md, "Comparators"):

* :class:`CAPOClassifier` (Li, Tsang & Zhou, TPAMI 2013): auxiliary Gaussian SVMs trained by
  hinge loss, then adapted to the measure by a linear SVM^perf over their decision values;
* :class:`FSPOClassifier` (Mao & Tsang, TPAMI 2013): a linear SVM^perf restricted to a
  feature budget that grows by the features with the largest gradient of the structural
  objective.
"""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVC
from sklearn.utils.validation import validate_data

from svmlab.estimators.svmperf.estimator import (
    SVMPerfClassifier,
    _check_bool,
    _check_number,
    _CuttingPlaneClassifier,
)
from svmlab.estimators.svmperf.kernel_bank import median_gamma
from svmlab.estimators.svmperf.oracles import most_violated


class _LinearPerfMixin:
    def _linear(self, **extra):
        return SVMPerfClassifier(
            loss=self.loss,
            C=self.C,
            epsilon=self.epsilon,
            kernel="linear",
            max_iter=self.max_iter,
            scaling=self.scaling,
            qp_solver=self.qp_solver,
            **extra,
        )

    def _copy_fit(self, inner):
        self.inner_ = inner
        self.n_iter_ = inner.n_iter_
        self.fit_info_ = dict(inner.fit_info_)


class CAPOClassifier(_LinearPerfMixin, _CuttingPlaneClassifier):
    """Classifier adaptation for a performance measure (CAPO, reconstructed).

    Step 1 trains auxiliary hinge-loss Gaussian SVMs (scikit-learn's ``SVC``) at the
    precisions ``gamma0 * aux_gamma_factors`` (``gamma0 = 1 / median ||x_i - x_j||^2``);
    step 2 adapts them to the measure: a linear :class:`SVMPerfClassifier` on their decision
    values (and the raw inputs when ``include_inputs``).

    Parameters
    ----------
    loss : {"accuracy", "f1", "prbep", "mcc", "auc"}, default="f1"
    C : float, default=1.0
        C of the adaptation step (SVM^perf scale).
    epsilon : float, default=0.1
    aux_C : float, default=1.0
        C of the auxiliary SVMs.
    aux_gamma_factors : tuple of float, default=(0.25, 1.0, 4.0)
    include_inputs : bool, default=False
    max_iter : int, default=500
    scaling : {"svmperf", "paper"}, default="svmperf"
    qp_solver : {"active_set", "clarabel", "osqp"}, default="active_set"
    random_state : int or None, default=None

    References
    ----------
    N. Li, I. W. Tsang & Z.-H. Zhou, "Efficient optimization of performance measures by
    classifier adaptation", IEEE TPAMI 35(6), 2013; cited as CAPO by Wang et al., Sec. IV.
    """

    def __init__(
        self,
        loss="f1",
        C=1.0,
        epsilon=0.1,
        aux_C=1.0,
        aux_gamma_factors=(0.25, 1.0, 4.0),
        include_inputs=False,
        max_iter=500,
        scaling="svmperf",
        qp_solver="active_set",
        random_state=None,
    ):
        self.loss = loss
        self.C = C
        self.epsilon = epsilon
        self.aux_C = aux_C
        self.aux_gamma_factors = aux_gamma_factors
        self.include_inputs = include_inputs
        self.max_iter = max_iter
        self.scaling = scaling
        self.qp_solver = qp_solver
        self.random_state = random_state

    def _adapted_inputs(self, X):
        Z = np.column_stack([aux.decision_function(X) for aux in self.auxiliary_])
        if not self.include_inputs:
            return Z
        return np.hstack([Z, X.toarray() if hasattr(X, "toarray") else X])

    def fit(self, X, y):
        """Train the auxiliary SVMs, then the adaptation for ``loss``.

        Returns
        -------
        self
        """
        self._check_common()
        _check_number("aux_C", self.aux_C)
        _check_bool("include_inputs", self.include_inputs)
        factors = list(np.atleast_1d(np.asarray(self.aux_gamma_factors, dtype=np.float64)))
        if not factors or any(not np.isfinite(f) or f <= 0 for f in factors):
            raise ValueError(
                f"aux_gamma_factors must be positive numbers; got {self.aux_gamma_factors!r}"
            )
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        y_pm = self._signed_labels(y)
        gamma0 = median_gamma(X, random_state=self.random_state)
        self.auxiliary_ = [
            SVC(C=float(self.aux_C), kernel="rbf", gamma=gamma0 * f).fit(X, y_pm) for f in factors
        ]
        inner = self._linear().fit(self._adapted_inputs(X), y_pm)
        self._copy_fit(inner)
        self.fit_info_["aux_gammas"] = [gamma0 * f for f in factors]
        return self

    _fitted_attr = "inner_"

    def _scores(self, X):
        """The adaptation's scores of the auxiliary decision values."""
        return self.inner_.decision_function(self._adapted_inputs(X))


class FSPOClassifier(_LinearPerfMixin, _CuttingPlaneClassifier):
    """Feature-budgeted linear SVM^perf (FSPO, reconstructed).

    Starting from no features, each round adds the ``budget`` unselected features with the
    largest ``|X' beta|`` -- the gradient of the structural objective with respect to their
    (zero) weights, with ``beta = G alpha`` of the current model (for the first round, of the
    most violated constraint at ``w = 0``) -- and retrains the linear SVM^perf on the selected
    features. It stops after ``max_rounds`` rounds, when every feature is selected, or when a
    round lowers the training primal by less than ``tol`` (relative).

    Parameters
    ----------
    loss : {"accuracy", "f1", "prbep", "mcc", "auc"}, default="f1"
    C : float, default=1.0
    epsilon : float, default=0.1
    budget : int, default=10
        Features added per round.
    max_rounds : int, default=5
    tol : float, default=1e-3
    max_iter : int, default=500
    scaling : {"svmperf", "paper"}, default="svmperf"
    qp_solver : {"active_set", "clarabel", "osqp"}, default="active_set"

    Attributes
    ----------
    support_ : ndarray of int
        The selected feature indices, in order of selection.
    coef_ : ndarray of shape (n_features,)
        Weights, zero outside ``support_``.

    References
    ----------
    Q. Mao & I. W. Tsang, "A feature selection method for multivariate performance
    measures", IEEE TPAMI 35(9), 2013; cited as FSPO by Wang et al., Sec. IV.
    """

    def __init__(
        self,
        loss="f1",
        C=1.0,
        epsilon=0.1,
        budget=10,
        max_rounds=5,
        tol=1e-3,
        max_iter=500,
        scaling="svmperf",
        qp_solver="active_set",
    ):
        self.loss = loss
        self.C = C
        self.epsilon = epsilon
        self.budget = budget
        self.max_rounds = max_rounds
        self.tol = tol
        self.max_iter = max_iter
        self.scaling = scaling
        self.qp_solver = qp_solver

    def fit(self, X, y):
        """Grow the feature set round by round and train on it.

        Returns
        -------
        self
        """
        self._check_common()
        _check_number("budget", self.budget, integer=True)
        _check_number("max_rounds", self.max_rounds, integer=True)
        _check_number("tol", self.tol, positive=False, low=0.0)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        y_pm = self._signed_labels(y)
        d = X.shape[1]
        beta = most_violated(self.loss, y_pm, np.zeros(len(y_pm)), scaling=self.scaling).g
        selected: list[int] = []
        inner, primal = None, np.inf
        for _ in range(int(self.max_rounds)):
            grad = np.abs(np.asarray(X.T @ beta).ravel())
            grad[selected] = -1.0
            ranked = np.argsort(-grad, kind="stable")[: int(self.budget)]
            new = [int(j) for j in ranked if grad[j] >= 0]
            if not new:
                break
            trial_sel = selected + new
            trial = self._linear().fit(X[:, trial_sel], y_pm)
            trial_primal = trial.fit_info_["final_primal"]
            if inner is not None and trial_primal > primal * (1.0 - float(self.tol)):
                break
            selected, inner, primal = trial_sel, trial, trial_primal
            beta = inner.beta_
            if len(selected) == d:
                break
        self.support_ = np.asarray(selected, dtype=np.intp)
        self.coef_ = np.zeros(d)
        self.coef_[self.support_] = inner.coef_
        self._copy_fit(inner)
        self.fit_info_["n_features_selected"] = len(selected)
        return self

    _fitted_attr = "coef_"

    def _scores(self, X):
        """``X w`` with ``w`` zero outside the selected features."""
        return np.asarray(X @ self.coef_).ravel()
