"""LIBSVM's C-SVC with any kernel of :mod:`svmlab.kernels`: the thesis's QP comparators.

Mierswa's experiments compare the evolutionary SVMs with two quadratic-programming SVMs:
LibSVM and mySVM (RapidMiner's ``JMySVMLearner``). :class:`KernelSVC` is both: LIBSVM
(``sklearn.svm.SVC`` on a precomputed kernel matrix, so the Epanechnikov, multiquadric and
other kernels of the thesis are available, indefinite ones included) with an optional z-scoring
of the features inside the learner (``scale=True``, what RapidMiner's mySVM does by default).
The mySVM emulation (``conf/solver/mysvm_like.yaml``) uses the raw features for Tables 3.3/3.4
and ``scale=True`` for Table 4.2, the readings that reproduce the thesis's mySVM columns
(docs/decisions/evo.md, "Feature scaling and the mySVM comparator"). It is an emulation, not
mySVM: mySVM's own safeguards for numerical trouble are not reproduced.
"""

from __future__ import annotations

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.contract import Contract, RowValue
from svmlab.estimators._kernel_params import KERNEL_CONSTRAINTS, KernelParamsMixin
from svmlab.kernels import kernel_diagonal, kernel_expansion, kernel_matrix

__all__ = ["KernelSVC"]


class KernelSVC(KernelParamsMixin, ClassifierMixin, BaseEstimator):
    """Binary C-SVC (LIBSVM's SMO) with a kernel of :mod:`svmlab.kernels`, optionally on
    z-scored features.

    Parameters
    ----------
    C : float or "auto", default=1.0
        Box of the dual; ``"auto"`` is SVMlight's / mySVM's ``n / sum_i K(x_i, x_i)``.
    kernel : str, default="rbf"
        A kernel name of :func:`svmlab.kernels.kernel_names` (``rbf``, ``epanechnikov``, ...).
    gamma, degree, kappa, delta, sigma1, sigma2, sigma3, shift : float or None, default=None
        Kernel parameters, as for :class:`~svmlab.estimators.evo.EvoSVMClassifier` (None: the
        kernel's default; one the kernel does not have is an error). For ``rbf``,
        ``K = exp(-gamma ||x - x'||^2)``: the thesis's "sigma" values go into ``gamma``
        (docs/decisions/evo.md, "RBF 'sigma' in the tables is gamma").
    scale : bool, default=False
        Z-score the features on the training data inside the learner (RapidMiner's mySVM
        default; the Table 4.2 reading of the mySVM emulation, docs/decisions/evo.md);
        ``False`` is LibSVM on the features as given.
    tol : float, default=1e-3
        LIBSVM's stopping tolerance (mySVM's KKT tolerance is also 1e-3).
    max_iter : int, default=-1
        LIBSVM's iteration cap (-1: none).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    support_ : ndarray of shape (n_SV,)
    support_vectors_ : ndarray of shape (n_SV, n_features)
        In the scaled space when ``scale=True``.
    dual_coef_ : ndarray of shape (1, n_SV)
        ``alpha_i y_i`` of the support vectors.
    intercept_ : ndarray of shape (1,)
    C_ : float
        The box used (resolves ``"auto"``).
    n_iter_ : int
        LIBSVM's iteration count.
    fit_info_ : dict
        ``objective`` (the dual objective ``sum alpha - 1/2 alpha^T Q alpha``, comparable with
        EvoSVM's), ``eq_violation``, ``n_sv``, ``C``, ``kernel``, ``kernel_params``, ``scale``,
        ``n_iter``.
    """

    svmlab_contract = Contract(row_values={"dual_objective": RowValue("objective", "max")})

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0.0, None, closed="neither"), StrOptions({"auto"})],
        **KERNEL_CONSTRAINTS,
        "scale": ["boolean"],
        "tol": [Interval(Real, 0.0, None, closed="neither")],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
    }

    def __init__(
        self,
        C=1.0,
        kernel="rbf",
        gamma=None,
        degree=None,
        kappa=None,
        delta=None,
        sigma1=None,
        sigma2=None,
        sigma3=None,
        shift=None,
        scale=False,
        tol=1e-3,
        max_iter=-1,
    ):
        self.C = C
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.kappa = kappa
        self.delta = delta
        self.sigma1 = sigma1
        self.sigma2 = sigma2
        self.sigma3 = sigma3
        self.shift = shift
        self.scale = scale
        self.tol = tol
        self.max_iter = max_iter

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Solve the SVM dual with LIBSVM on the kernel matrix of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
            Exactly two classes; ``classes_[1]`` is the +1 side.

        Returns
        -------
        self : object
        """
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        self.classes_, y_idx = np.unique(y, return_inverse=True)
        if len(self.classes_) != 2:
            raise ValueError(
                f"Only binary classification is supported. KernelSVC needs exactly 2 classes in y, "
                f"got {len(self.classes_)} class{'es' if len(self.classes_) != 1 else ''}"
            )
        params = self._kernel_params()
        self.scaler_ = StandardScaler().fit(X) if self.scale else None
        Z = self.scaler_.transform(X) if self.scale else X
        if isinstance(self.C, str):  # "auto"
            trace = float(kernel_diagonal(self.kernel, Z, **params).sum())
            if not (np.isfinite(trace) and trace > 0):
                raise ValueError(
                    f"C='auto' is n / trace(K), but the {self.kernel} kernel's trace is {trace!r}"
                )
            C = Z.shape[0] / trace
        else:
            C = float(self.C)
        K = kernel_matrix(self.kernel, Z, None, **params)
        svc = SVC(kernel="precomputed", C=C, tol=self.tol, max_iter=self.max_iter).fit(K, y_idx)
        Y = np.where(y_idx == 1, 1.0, -1.0)
        alpha = np.zeros(len(Y))
        alpha[svc.support_] = np.abs(svc.dual_coef_[0])
        self.support_ = svc.support_
        self.support_vectors_ = Z[svc.support_]
        self.dual_coef_ = svc.dual_coef_.copy()
        self.intercept_ = svc.intercept_.copy()
        self.C_ = C
        self.n_iter_ = int(svc.n_iter_[0])
        self._kernel_kwargs = params
        v = alpha * Y
        self.fit_info_ = {
            "objective": float(alpha.sum() - 0.5 * v @ K @ v),
            "eq_violation": float(abs(v.sum())),
            "n_sv": int(len(svc.support_)),
            "C": C,
            "kernel": self.kernel,
            "kernel_params": {k: float(p) for k, p in params.items()},
            "scale": bool(self.scale),
            "n_iter": int(svc.n_iter_[0]),
        }
        return self

    def decision_function(self, X):
        """``f(x) = sum_i alpha_i y_i K(x_i, x) + b``, over the support vectors only.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        scores : ndarray of shape (n_samples,)
            Positive means ``classes_[1]``.
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        Z = self.scaler_.transform(X) if self.scaler_ is not None else X
        return kernel_expansion(
            self.kernel,
            Z,
            self.support_vectors_,
            self.dual_coef_[0],
            self.intercept_[0],
            **self._kernel_kwargs,
        )

    def predict(self, X):
        """``classes_[1]`` where ``f(x) > 0``, else ``classes_[0]`` (LIBSVM's rule).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        scores = self.decision_function(X)  # first: NotFittedError before fit
        return self.classes_[(scores > 0).astype(np.intp)]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags
