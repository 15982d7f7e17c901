"""OLLAWV regression: the worst-violator scheme on the epsilon-insensitive loss (beyond the
paper)."""

from __future__ import annotations

import math
from numbers import Real

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.contract import Contract
from svmlab.estimators._path import fit_along_path
from svmlab.estimators.ollawv._worst_violator import STOP_REASONS, worst_violator_regress
from svmlab.kernels import rbf_blocks

__all__ = ["OLLAWVRegressor"]


class OLLAWVRegressor(RegressorMixin, BaseEstimator):
    """OLLAWV for regression: update only the worst epsilon-insensitive violator, once each.

    **Beyond the paper.** The dissertation lists this as future work (Melki (2018), Ch. 8,
    item 1) and gives no algorithm; this is svmlab's derivation (see Notes and
    docs/decisions/ollawv.md, "OLLAWV for regression"), with
    no published numbers to compare against.

    Every iteration picks the not-yet-selected sample with the largest absolute residual
    ``|y - o|``, gives it the coefficient ``alpha = eta_t * C * sign(y - o)``, moves the bias
    by ``beta * alpha / n`` and updates the outputs of the remaining candidates with one RBF
    kernel row. Training stops when every remaining sample lies inside the tube
    ``|y - o| <= epsilon + M``, when every sample was selected, or after ``max_iter``
    iterations. Every selected sample is a support vector, so the model size equals the
    number of iterations.

    Parameters
    ----------
    C : float, default=1.0
        Penalty of the epsilon-insensitive loss; must be > 0. It is the step size in units
        of ``y``: only ``C`` relative to the scale of ``y`` matters (see Notes), so with a
        standardised target values around 1 are the useful ones.
    gamma : float, default=1.0
        Precision of the Gaussian kernel ``K(x, z) = exp(-gamma ||x - z||^2)``; must be > 0.
    epsilon : float, default=0.1
        Half-width of the insensitive tube (Eq. 2.8), in units of ``y``; must be >= 0.
    margin : float, default=0.0
        Extra stopping tolerance ``m`` >= 0: training stops when the largest remaining
        residual is ``<= epsilon + M``, with ``M = m * C`` (scaled) or ``M = m``
        (absolute). The default stops when every remaining sample is inside the tube.
    margin_mode : {"absolute", "scaled"}, default="absolute"
        How ``M`` is derived from ``margin``. Unlike the classifier, "scaled" does not make
        the model independent of ``C`` (see Notes).
    max_iter_frac : float or None, default=0.5
        Cap on the iterations (= support vectors) as a fraction of ``n_samples``:
        ``max_iter = ceil(max_iter_frac * n)``, at most ``n``; ``None`` means ``n``.
    use_bias : bool, default=True
        Learn a bias (``beta = 1``) or not (``beta = 0``).
    eta : {"inv_sqrt", "inv_t"}, default="inv_sqrt"
        Learning rate ``eta_t = eta_scale / sqrt(t)`` or ``eta_scale / t``.
    eta_scale : float, default=2.0
        Numerator of the learning rate; must be > 0.
    shuffle : bool, default=True
        Shuffle the training order once (with ``random_state``). The order only decides
        ties between equal residuals (duplicate samples), which go to the earliest sample.
    random_state : int, RandomState instance or None, default=None
        Seeds the shuffle. The algorithm is otherwise deterministic.

    Attributes
    ----------
    support_ : ndarray of shape (n_SV,)
        Indices into the training set of the support vectors, in selection order
        (``support_[t - 1]`` is the worst violator of iteration ``t``).
    support_vectors_ : ndarray of shape (n_SV, n_features)
        ``X[support_]`` as float64.
    dual_coef_ : ndarray of shape (n_SV,)
        Signed coefficients of ``support_vectors_``: ``eta_t * C * sign(y - o)``.
    intercept_ : float
        The bias ``b``.
    n_support_ : ndarray of shape (1,), dtype int32
        Number of support vectors (= iterations), as in :class:`sklearn.svm.SVR`.
    fit_info_ : dict
        ``iterations``, ``stop_reason`` ("margin", "max_iter" or "exhausted"),
        ``max_iter``, ``n_samples`` and ``max_residual``: the largest ``|y_j - o_j|`` over
        the samples left when training stopped (0.0 when none is left).
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Names of features seen during fit, when ``X`` has string column names.

    See Also
    --------
    OLLAWVClassifier : the worst-violator L1-SVM of the paper.
    sklearn.svm.SVR : the LIBSVM (SMO) solver of the same epsilon-SVR.

    Notes
    -----
    **Derivation.** The primal is ``R(w, b) = 1/2 ||w||^2 + C sum_i |y_i - o_i|_eps``
    with ``o_i = <w, phi(x_i)> + b`` and ``|r|_eps = max(0, |r| - eps)`` (Eq. 2.8–2.10).
    For a sample outside the tube (``|r_i| > eps``) a sub-gradient of its loss term with
    respect to ``w`` is ``-C s_i phi(x_i)``, ``s_i = sign(y_i - o_i)``; inside the tube it
    is 0. The pattern-wise SGD step on sample ``i`` is ``w <- w + eta (C s_i phi(x_i) - w)``,
    i.e. in the kernel expansion ``w = sum_j alpha_j phi(x_j)`` (as Eq. 5.7)
    ``alpha_i <- alpha_i + Lambda - P`` with ``Lambda = eta C s_i`` and ``P = eta alpha_i``.
    As in OLLAWV every sample is updated at most once, from ``alpha_i = 0``, so ``P = 0``
    and early stopping is the regulariser:

    * worst violator: ``wv = argmax_{j not in S} |y_j - o_j|_eps``, which is the arg-max
      of ``|y_j - o_j|`` because ``eps`` is a constant shift (ties: lowest index of the
      training order). Initially ``o = 0``, so the first one is the largest ``|y_j|``;
    * update (iteration ``t``): ``Lambda = eta_t C sign(y_wv - o_wv)``,
      ``alpha_wv = Lambda``, ``B = beta Lambda / n``, ``b += B`` (as Eq. 5.8) and
      ``o_j += Lambda K(x_j, x_wv) + B`` for every ``j`` not yet selected (as Eq. 5.9);
    * stop when ``max_{j not in S} |y_j - o_j| - eps <= M`` (every remaining sample is
      inside the tube widened by ``M``), when every sample was selected, or at
      ``t = max_iter``. The violator that triggered the stop is not a support vector. If
      no sample violates at ``o = 0`` the model is the constant 0 with no support vector.

    Prediction is ``o(x) = sum_s alpha_s K(x, x_s) + b``. The sub-gradient of the
    epsilon-insensitive loss has a constant magnitude, so a support vector moves the
    outputs by its step ``eta_t C`` however large its residual: the fit is resolved to
    roughly the last steps, ``2 C / sqrt(T)`` after ``T`` iterations.

    **No C-invariance.** The outputs are proportional to ``C`` as in the classifier, but
    the targets ``y`` are not, so the residuals and hence the worst violators and the stop
    depend on ``C`` whatever ``margin_mode``. What holds instead:

    * *unit equivariance*: multiplying ``y``, ``C`` and ``epsilon`` (and ``margin`` when
      absolute) by ``s > 0`` gives the same support vectors in the same order and
      multiplies ``alpha``, ``b`` and the predictions by ``s``. Only ``C / scale(y)``
      matters, so standardise the target and tune ``C`` around 1;
    * *nested tubes*: ``epsilon`` and ``M`` enter only through the stopping threshold
      ``epsilon + M``; the selection sequence does not depend on it, so the model for a
      larger threshold is a prefix (same support vectors, same coefficients, partial bias
      sum) of the model for a smaller one. One fit with the smallest ``epsilon`` gives the
      whole ``epsilon`` path;
    * the bias stays small, ``|b| <= 4 C sqrt(T) / n``, so the model has in effect no
      intercept: centre the target (e.g. :class:`sklearn.compose.TransformedTargetRegressor`
      with a standard scaler).

    Training never forms the kernel matrix: iteration ``t`` costs one kernel row against
    the ``n - t`` remaining samples.

    References
    ----------
    G. A. Melki, "Novel Support Vector Machines for Diverse Learning Paradigms", PhD
    dissertation, Virginia Commonwealth University, 2018, Ch. 5 (OLLAWV) and Ch. 8 (future
    work: OLLAWV for regression).

    Examples
    --------
    >>> import numpy as np
    >>> from svmlab.estimators.ollawv import OLLAWVRegressor
    >>> X = np.linspace(0, 1, 200)[:, None]
    >>> reg = OLLAWVRegressor(gamma=10.0, epsilon=0.05, random_state=0).fit(X, np.sin(6 * X[:, 0]))
    >>> float(round(reg.score(X, np.sin(6 * X[:, 0])), 2)) > 0.9
    True
    """

    svmlab_contract = Contract(path_parameter="epsilon", path_simpler="max")

    _parameter_constraints: dict = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "epsilon": [Interval(Real, 0, None, closed="left")],
        "margin": [Interval(Real, 0, None, closed="left")],
        "margin_mode": [StrOptions({"scaled", "absolute"})],
        "max_iter_frac": [Interval(Real, 0, None, closed="neither"), None],
        "use_bias": ["boolean"],
        "eta": [StrOptions({"inv_sqrt", "inv_t"})],
        "eta_scale": [Interval(Real, 0, None, closed="neither")],
        "shuffle": ["boolean"],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        C=1.0,
        gamma=1.0,
        epsilon=0.1,
        margin=0.0,
        margin_mode="absolute",
        max_iter_frac=0.5,
        use_bias=True,
        eta="inv_sqrt",
        eta_scale=2.0,
        shuffle=True,
        random_state=None,
    ):
        self.C = C
        self.gamma = gamma
        self.epsilon = epsilon
        self.margin = margin
        self.margin_mode = margin_mode
        self.max_iter_frac = max_iter_frac
        self.use_bias = use_bias
        self.eta = eta
        self.eta_scale = eta_scale
        self.shuffle = shuffle
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y):
        """Train the model.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data; finite values, converted to float64.
        y : array-like of shape (n_samples,)
            Finite real targets (best centred and scaled, see Notes).

        Returns
        -------
        self : OLLAWVRegressor
        """
        self._store(*self._run(X, y, [self.epsilon]), 0)
        return self

    def fit_path(self, X, y, epsilons):
        """One fitted regressor per ``epsilon``, from a single run (the nested tubes of the
        Notes), for the cost of the one with the smallest ``epsilon``. With a fixed
        ``random_state`` each is identical to ``clone(self).set_params(epsilon=e).fit(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        epsilons : sequence of float
            Values of ``epsilon`` (each >= 0).

        Returns
        -------
        models : list of OLLAWVRegressor
            Fitted copies of this estimator with ``epsilon`` set to each value, in order.
        """
        return fit_along_path(
            self,
            "epsilon",
            epsilons,
            lambda model, values: model._run(X, y, values),
            lambda model, state, i: model._store(*state, i),
        )

    def _run(self, X, y, epsilons):
        """Validate, then one worst-violator run serving every ``epsilon``."""
        X, y = validate_data(self, X, y, dtype=np.float64, order="C", y_numeric=True)
        n = X.shape[0]
        order = (
            check_random_state(self.random_state).permutation(n) if self.shuffle else np.arange(n)
        )
        cap = n if self.max_iter_frac is None else min(n, math.ceil(self.max_iter_frac * n))
        M = self.margin * self.C if self.margin_mode == "scaled" else self.margin
        run = worst_violator_regress(
            np.ascontiguousarray(X[order]),
            np.ascontiguousarray(y[order]),
            float(self.C),
            float(self.gamma),
            np.array([e + M for e in epsilons], dtype=np.float64),
            max(cap, 1),
            1.0 if self.use_bias else 0.0,
            self.eta == "inv_t",
            float(self.eta_scale),
        )
        return X, order, run + (cap,)

    def _store(self, X, order, run, i) -> None:
        """The fitted attributes of tolerance ``i`` of a run."""
        sv, alpha, iterations, bias, stop, worst, cap = run
        T = int(iterations[i])
        self.support_ = order[sv[:T]]
        self.support_vectors_ = X[self.support_]
        self.dual_coef_ = alpha[:T].copy()
        self.intercept_ = float(bias[i])
        self.n_support_ = np.array([T], dtype=np.int32)
        self.fit_info_ = {
            "iterations": T,
            "stop_reason": STOP_REASONS[int(stop[i])],
            "max_iter": int(cap),
            "n_samples": int(X.shape[0]),
            "max_residual": float(worst[i]),
        }

    def predict(self, X):
        """Predicted targets ``o(x) = sum_s alpha_s K(x, x_s) + b``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False)
        out = np.full(X.shape[0], self.intercept_)
        if self.dual_coef_.size:
            for rows, K in rbf_blocks(X, self.support_vectors_, self.gamma):
                out[rows] += K @ self.dual_coef_
        return out
