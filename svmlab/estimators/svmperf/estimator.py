"""SVM^perf and MKLPO as scikit-learn classifiers.

:class:`SVMPerfClassifier` is Joachims' (ICML 2005) structural SVM for a multivariate measure
with one kernel (linear by default); :class:`MKLPOClassifier` is Wang et al.'s MKLPO, the same
1-slack cutting plane with a learned combination of several kernels. Both train one model
per measure (``loss``), predict ``classes_[1]`` where the score is positive (Wang et al.,
Eq. 3: no bias, ``f(x) <= 0`` is negative), and expose the scores as ``decision_function``
for the ranking measures (AUC, PRBEP, Prec@k, Rec@k). :class:`SVMPerfClassifier` may add
SVM^perf's regularised bias feature (``bias``, its ``--b``).
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab.estimators.svmperf.blocks import FeatureBlock, GramBlock
from svmlab.estimators.svmperf.cutting_plane import cutting_plane
from svmlab.estimators.svmperf.kernel_bank import KERNEL_APPROX, KernelBank, linear_block
from svmlab.estimators.svmperf.kernel_weights import UPDATES, normalise
from svmlab.estimators.svmperf.oracles import MEASURES
from svmlab.estimators.svmperf.oracles_at_k import AT_K_MEASURES, check_k_fraction
from svmlab.estimators.svmperf.working_set_qp import QP_SOLVERS

SCALINGS = ("svmperf", "paper")


def _check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(str, choices))}; got {value!r}")


def _check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name} must be True or False; got {value!r}")


def _check_number(name, value, *, positive=True, integer=False, low=None, high=None):
    kind = Integral if integer else Real
    if isinstance(value, bool) or not isinstance(value, kind) or not np.isfinite(value):
        kind_name = "integer" if integer else "number"
        raise ValueError(f"{name} must be a finite {kind_name}; got {value!r}")
    if positive and value <= 0:
        raise ValueError(f"{name} must be > 0; got {value!r}")
    if low is not None and value < low or high is not None and value > high:
        raise ValueError(f"{name} must lie in [{low}, {high}]; got {value!r}")


def _append_constant(X, B):
    """``[X, B]``: SVM^perf's bias feature as the last column (sparse stays sparse)."""
    column = np.full((X.shape[0], 1), B)
    if sp.issparse(X):
        return sp.hstack([X, sp.csr_matrix(column)], format="csr")
    return np.hstack([X, column])


def _with_bias(block, B):
    """A kernel block with the bias feature: ``K + B^2`` or the features ``[Phi, B]``."""
    if not B:
        return block
    if isinstance(block, GramBlock):
        return GramBlock(block.K + B * B)
    return FeatureBlock(_append_constant(block.Phi, B))


class _CuttingPlaneClassifier(ClassifierMixin, BaseEstimator):
    """Shared fit/predict of the 1-slack structural SVM classifiers (not public)."""

    _mkl = False

    def _check_common(self):
        _check_choice("loss", self.loss, MEASURES)
        _check_choice("scaling", self.scaling, SCALINGS)
        _check_choice("qp_solver", self.qp_solver, QP_SOLVERS)
        _check_number("C", self.C)
        _check_number("epsilon", self.epsilon)
        _check_number("max_iter", self.max_iter, integer=True)
        self._oracle_options()

    def _oracle_options(self):
        """``k_fraction`` for Prec@k / Rec@k (checked against the loss); nothing otherwise.

        Classifiers without the parameter (CAPO, FSPO) use SVM^perf's default k.
        """
        if self.loss not in AT_K_MEASURES:
            return {}
        return {"k_fraction": check_k_fraction(self.loss, getattr(self, "k_fraction", None))}

    def _signed_labels(self, y):
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if len(self.classes_) != 2:
            raise ValueError(
                f"Only binary classification is supported. {type(self).__name__} needs exactly "
                f"two classes in y; got {len(self.classes_)} "
                f"class{'' if len(self.classes_) == 1 else 'es'} "
                f"({', '.join(map(str, self.classes_[:5]))})"
            )
        return np.where(y == self.classes_[1], 1, -1).astype(np.int64)

    def _run(self, blocks, y_pm, **mkl):
        t0 = time.perf_counter()
        res = cutting_plane(
            blocks,
            y_pm,
            self.loss,
            C=float(self.C),
            epsilon=float(self.epsilon),
            max_iter=int(self.max_iter),
            scaling=self.scaling,
            qp_solver=self.qp_solver,
            oracle_options=self._oracle_options(),
            **mkl,
        )
        self.n_iter_ = res.n_iter
        self.mu_ = res.mu
        self.tau_ = np.sqrt(res.mu)
        self.dual_coef_ = res.alpha
        self.coefs_ = [b.coefficients(res.G, res.alpha) for b in blocks]
        self.beta_ = res.G @ res.alpha
        self.trace_ = res.trace
        self.fit_info_ = {
            "measure_optimised": self.loss,
            "n_iter": res.n_iter,
            "n_constraints": int(res.G.shape[1]),
            "stop_reason": res.stop_reason,
            "final_primal": res.primal,
            "final_gap": res.primal - res.dual,
            "qp_fallbacks": res.qp_fallbacks,
            "qp_iterations": res.qp_iterations,
            "train_seconds": time.perf_counter() - t0,
            "tau": self.tau_.round(6).tolist(),
        }
        return res

    #: the attribute that exists once the model is fitted
    _fitted_attr = "coefs_"

    def decision_function(self, X):
        """Scores of ``X``; positive means ``classes_[1]`` (no bias, Wang et al. Eq. 3).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, self._fitted_attr)
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return self._scores(X)

    def predict(self, X):
        """``classes_[1]`` where the score is positive, else ``classes_[0]`` (Eq. 3).

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)
        return self.classes_[(scores > 0).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        tags.input_tags.sparse = True
        return tags


class SVMPerfClassifier(_CuttingPlaneClassifier):
    """Structural SVM for a multivariate performance measure (SVM^perf), one kernel.

    Trains ``min 1/2 ||w||^2 + C xi`` subject to one joint constraint per labelling ``y'`` of
    the whole training set, ``w' (Psi(X, y) - Psi(X, y')) >= Delta(y, y') - xi``, by the
    1-slack cutting plane with the measure's exact most-violated-constraint oracle.

    Parameters
    ----------
    loss : {"accuracy", "f1", "prbep", "mcc", "auc", "prec_at_k", "rec_at_k"}, default="f1"
        The measure whose loss ``100 (1 - measure)`` is minimised.
    C : float, default=1.0
        Regularisation trade-off on SVM^perf's ``-c`` scale (``scaling="svmperf"``).
    epsilon : float, default=0.1
        Cutting-plane tolerance in percent-loss units (SVM^perf's ``-e``).
    bias : float, default=0.0
        SVM^perf's ``--b``: a constant feature of this value appended to every row, whose
        weight is regularised like the others (linear kernel: ``[x, bias]``; other kernels:
        ``K + bias^2``). 0 means no bias (Wang et al., Eq. 3); SVM^perf's own default is 1.
    k_fraction : float or None, default=None
        Prec@k / Rec@k only: ``k = max(1, int(k_fraction n+))`` training positives (SVM^perf's
        ``--p``; None is its default, 1/2 for Prec@k and 2 for Rec@k).
    kernel : str, default="linear"
        ``"linear"`` (inputs as features; sparse input stays sparse) or a kernel of
        :mod:`svmlab.kernels`, normalised to unit diagonal.
    gamma : float or None, default=None
        Gaussian precision; ``None`` uses ``gamma_factor / median ||x_i - x_j||^2`` of the
        training rows.
    gamma_factor : float, default=1.0
        Multiplies the median-heuristic precision when ``gamma`` is None (the grid of the
        kernel bank, ``2^-3 .. 2^3``, for tuning CPSP's one kernel).
    degree : int, default=3
        Polynomial degree (``(x'x'/d + 1)^degree``).
    kernel_approx : {"exact", "nystrom"}, default="exact"
        Exact Gram matrix or a rank-``n_components`` Nystroem approximation (for large n;
        the analogue of CPSP's sparse basis, Joachims & Yu 2009).
    n_components : int, default=500
        Nystroem rank.
    max_iter : int, default=500
        Cutting-plane iterations.
    scaling : {"svmperf", "paper"}, default="svmperf"
        Loss and feature-map scale: percent losses and labels ``+-50/n`` (SVM^perf), or
        fractions and unit labels (Wang et al. as printed; the same solutions at
        ``C_paper = 25 C / n^2``, for AUC ``2500 C / (n+ n-)^2``).
    qp_solver : {"active_set", "clarabel", "osqp"}, default="active_set"
        Solver of the working-set dual: svmlab's own active-set method for it, or a general
        QP solver; an answer that fails the KKT check is solved again by the next one
        (``fit_info_["qp_fallbacks"]`` counts these).
    shrinking : bool, default=False
        ``loss="accuracy"`` with the linear kernel only: most iterations re-examine only the
        examples whose label may still change, and the fit stops on a full, exact round
        (:mod:`~svmlab.estimators.svmperf.shrinking`; the idea of SVM^perf's ``-w 9``). The
        model is ``epsilon``-optimal like the default's, on another path.
    random_state : int or None, default=None
        Seeds the ``gamma`` subsample and the Nystroem landmarks.

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
        ``classes_[1]`` is the positive class of the measure.
    coef_ : ndarray of shape (n_features,)
        The weight vector (linear kernel only), without the bias feature's weight.
    intercept_ : float
        ``bias * w_bias``, the constant added to every score (0.0 when ``bias=0``).
    dual_coef_ : ndarray of shape (n_constraints,)
        ``alpha`` of the working-set constraints.
    beta_ : ndarray of shape (n_samples,)
        ``G alpha``: the expansion coefficients over the training rows.
    n_iter_ : int
    trace_ : list of dict
        Per-iteration violation, slack, primal, dual and gap.
    fit_info_ : dict
        What a result row records (iterations, constraints, stop reason, primal, gap, time).

    References
    ----------
    T. Joachims, "A support vector method for multivariate performance measures", ICML 2005,
    Algs. 1-3. Wang, Wang, Zhou & McDonald, "Multiple kernel multivariate performance
    learning using cutting plane algorithm", Eqs. 10, 17, 19 (with one kernel).
    """

    def __init__(
        self,
        loss="f1",
        C=1.0,
        epsilon=0.1,
        bias=0.0,
        k_fraction=None,
        kernel="linear",
        gamma=None,
        gamma_factor=1.0,
        degree=3,
        kernel_approx="exact",
        n_components=500,
        max_iter=500,
        scaling="svmperf",
        qp_solver="active_set",
        shrinking=False,
        random_state=None,
    ):
        self.loss = loss
        self.C = C
        self.epsilon = epsilon
        self.bias = bias
        self.k_fraction = k_fraction
        self.kernel = kernel
        self.gamma = gamma
        self.gamma_factor = gamma_factor
        self.degree = degree
        self.kernel_approx = kernel_approx
        self.n_components = n_components
        self.max_iter = max_iter
        self.scaling = scaling
        self.qp_solver = qp_solver
        self.shrinking = shrinking
        self.random_state = random_state

    def _kernel_spec(self):
        if self.kernel == "rbf":
            if self.gamma is None:
                _check_number("gamma_factor", self.gamma_factor)
                return {"kernel": "rbf", "gamma_factor": float(self.gamma_factor)}
            _check_number("gamma", self.gamma)
            return {"kernel": "rbf", "gamma": float(self.gamma)}
        if self.kernel == "polynomial":
            return {"kernel": "polynomial", "degree": self.degree}
        return {"kernel": self.kernel}

    def fit(self, X, y):
        """Train on ``X`` (array or sparse matrix) and two-class labels ``y``.

        Returns
        -------
        self
        """
        self._check_common()
        _check_choice("kernel_approx", self.kernel_approx, KERNEL_APPROX)
        _check_number("bias", self.bias, positive=False)
        if self.bias < 0:
            raise ValueError(f"bias must be >= 0 (0: no bias feature); got {self.bias!r}")
        if self.kernel_approx == "nystrom":
            _check_number("n_components", self.n_components, integer=True)
        _check_bool("shrinking", self.shrinking)
        if self.shrinking and (self.loss != "accuracy" or self.kernel != "linear"):
            raise ValueError(
                "shrinking=True needs loss='accuracy' and kernel='linear'; got "
                f"loss={self.loss!r}, kernel={self.kernel!r}"
            )
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        y_pm = self._signed_labels(y)
        B = float(self.bias)
        if self.kernel == "linear":
            self.bank_ = None
            blocks = [linear_block(_append_constant(X, B) if B else X)]
        else:
            self.bank_ = KernelBank(
                [self._kernel_spec()], self.kernel_approx, self.n_components, self.random_state
            ).fit(X)
            blocks = [_with_bias(block, B) for block in self.bank_.blocks()]
        self._run(blocks, y_pm, mkl_update="fixed", mkl_p=1.0, shrinking=bool(self.shrinking))
        self.intercept_ = self._split_bias(B)
        if self.bank_ is None:
            self.coef_ = self.coefs_[0]
        self.fit_info_["kernel"] = "linear" if self.bank_ is None else self.bank_.describe()[0]
        return self

    def _split_bias(self, B):
        """Take the bias feature's weight ``w_bias`` out of ``coefs_``; return ``B w_bias``.

        Explicit features (linear, Nystroem) carry it as their last weight; an exact Gram
        block ``K + B^2`` has ``w_bias = B sum(beta)``.
        """
        if not B:
            return 0.0
        coef = self.coefs_[0]
        if self.bank_ is not None and self.bank_.approx == "exact":
            return B * B * float(coef.sum())
        self.coefs_ = [coef[:-1]]
        return B * float(coef[-1])

    def _scores(self, X):
        """``f(x) = w' phi(x) + bias w_bias``."""
        if self.bank_ is None:
            return np.asarray(X @ self.coef_).ravel() + self.intercept_
        return self.bank_.decision(X, [1.0], self.coefs_) + self.intercept_


class MKLPOClassifier(_CuttingPlaneClassifier):
    """MKLPO: SVM^perf with a learned combination of kernels (Wang et al., Alg. 1).

    The combined kernel is ``K_tau = sum_m tau_m^2 K_m`` (Eq. 1) with ``tau`` on the simplex
    (Eq. 11); training alternates the cutting-plane/QP step on ``alpha`` (Eqs. 17, 19-20)
    with a kernel-weight step on ``tau`` (Eq. 18, read as the exact closed-form block
    minimiser; docs/decisions/svmperf.md).

    Parameters
    ----------
    loss : {"accuracy", "f1", "prbep", "mcc", "auc", "prec_at_k", "rec_at_k"}, default="f1"
    C : float, default=1.0
    epsilon : float, default=0.1
    k_fraction : float or None, default=None
        As in :class:`SVMPerfClassifier` (Prec@k / Rec@k only). MKLPO has no ``bias``
        (Wang et al., Eq. 3; docs/decisions/svmperf.md, "The bias").
    kernels : str or list of dict, default="dense"
        The candidate kernels (:mod:`~svmlab.estimators.svmperf.kernel_bank`): ``"dense"``
        (7 Gaussian + 3 polynomial), ``"text"``, ``"rbf"`` or a list of kernel dicts.
    mkl_update : {"closed_form", "literal_vertex", "fixed"}, default="closed_form"
        The weight step: the exact l_p-MKL block minimiser, Eq. 18 solved literally (one
        kernel per step), or no learning (the uniform combination).
    mkl_p : float, default=0.5
        Norm of the constraint on ``mu = tau^2``: 0.5 is the paper's ``sum tau = 1``; 1 is
        convex L1-MKL (``sum mu = 1``); 2 the non-sparse l_2-MKL. Must lie in [0.1, 100].
    tau_init : "uniform" or array-like of shape (n_kernels,), default="uniform"
        Initial ``tau`` (rescaled onto the constraint set).
    tol_tau : float, default=1e-4
        The weights are stationary when no ``tau_m`` moved more than this.
    inner_alternations : int, default=1
        QP / weight steps per cutting-plane iteration.
    smoothing : float in [0, 1), default=0.0
        Mix the new weights with the uniform ones by this much.
    final_alpha_resolve : bool, default=True
        Solve the QP once more with the final weights.
    kernel_approx : {"exact", "nystrom"}, default="exact"
    n_components : int, default=500
    max_iter : int, default=500
    scaling : {"svmperf", "paper"}, default="svmperf"
    qp_solver : {"active_set", "clarabel", "osqp"}, default="active_set"
    random_state : int or None, default=None

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    tau_ : ndarray of shape (n_kernels,)
        Learned kernel weights (``sum tau = 1`` for ``mkl_p=0.5``).
    mu_ : ndarray of shape (n_kernels,)
        Effective weights ``tau_**2``.
    kernels_ : list of str
        The kernels with their resolved parameters.
    dual_coef_, beta_, n_iter_, trace_, fit_info_ :
        As in :class:`SVMPerfClassifier`; ``fit_info_`` adds ``tau`` and the bank.

    References
    ----------
    Wang, Wang, Zhou & McDonald, "Multiple kernel multivariate performance learning using
    cutting plane algorithm", Eqs. 1, 11, 17-20 and Alg. 1; Kloft et al., "l_p-norm multiple
    kernel learning", JMLR 12 (2011) (the closed-form weight step).
    """

    def __init__(
        self,
        loss="f1",
        C=1.0,
        epsilon=0.1,
        k_fraction=None,
        kernels="dense",
        mkl_update="closed_form",
        mkl_p=0.5,
        tau_init="uniform",
        tol_tau=1e-4,
        inner_alternations=1,
        smoothing=0.0,
        final_alpha_resolve=True,
        kernel_approx="exact",
        n_components=500,
        max_iter=500,
        scaling="svmperf",
        qp_solver="active_set",
        random_state=None,
    ):
        self.loss = loss
        self.C = C
        self.epsilon = epsilon
        self.k_fraction = k_fraction
        self.kernels = kernels
        self.mkl_update = mkl_update
        self.mkl_p = mkl_p
        self.tau_init = tau_init
        self.tol_tau = tol_tau
        self.inner_alternations = inner_alternations
        self.smoothing = smoothing
        self.final_alpha_resolve = final_alpha_resolve
        self.kernel_approx = kernel_approx
        self.n_components = n_components
        self.max_iter = max_iter
        self.scaling = scaling
        self.qp_solver = qp_solver
        self.random_state = random_state

    def _initial_mu(self, M):
        if isinstance(self.tau_init, str):
            _check_choice("tau_init", self.tau_init, ("uniform",))
            return None
        tau = np.asarray(self.tau_init, dtype=np.float64)
        if (
            tau.shape != (M,)
            or not np.all(np.isfinite(tau))
            or np.any(tau < 0)
            or not np.any(tau > 0)
        ):
            raise ValueError(
                f"tau_init must be 'uniform' or {M} non-negative weights, not all 0; got "
                f"{self.tau_init!r}"
            )
        return normalise(tau**2, float(self.mkl_p))

    def fit(self, X, y):
        """Train on ``X`` and two-class labels ``y``: ``alpha`` and the kernel weights.

        Returns
        -------
        self
        """
        self._check_common()
        _check_choice("mkl_update", self.mkl_update, UPDATES)
        _check_choice("kernel_approx", self.kernel_approx, KERNEL_APPROX)
        _check_number("mkl_p", self.mkl_p, low=0.1, high=100.0)
        _check_number("tol_tau", self.tol_tau)
        _check_bool("final_alpha_resolve", self.final_alpha_resolve)
        if self.kernel_approx == "nystrom":
            _check_number("n_components", self.n_components, integer=True)
        _check_number("inner_alternations", self.inner_alternations, integer=True)
        _check_number("smoothing", self.smoothing, positive=False, low=0.0, high=0.999)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        y_pm = self._signed_labels(y)
        self.bank_ = KernelBank(
            self.kernels, self.kernel_approx, self.n_components, self.random_state
        ).fit(X)
        mu0 = self._initial_mu(self.bank_.n_kernels)
        self._run(
            self.bank_.blocks(),
            y_pm,
            mkl_update=self.mkl_update,
            mkl_p=float(self.mkl_p),
            mu_init=mu0,
            tol_tau=float(self.tol_tau),
            inner_alternations=int(self.inner_alternations),
            smoothing=float(self.smoothing),
            final_alpha_resolve=bool(self.final_alpha_resolve),
        )
        self.kernels_ = self.bank_.describe()
        self.fit_info_.update(
            {
                "mkl_p": float(self.mkl_p),
                "mkl_update": self.mkl_update,
                "kernel_bank": self.kernels if isinstance(self.kernels, str) else "custom",
                "n_kernels": self.bank_.n_kernels,
                "kernel_approx": self.kernel_approx,
            }
        )
        return self

    def _scores(self, X):
        """``f(x) = sum_m tau_m^2 sum_i beta_i K_m(x_i, x)`` (Eq. 14)."""
        return self.bank_.decision(X, self.mu_, self.coefs_)
