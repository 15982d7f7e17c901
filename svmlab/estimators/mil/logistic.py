"""Multi-instance logistic regression (Xu & Frank 2004), as Weka 3.6's ``MILR``.

Every instance ``x`` of a bag gets the linear logistic model

    p(x) = 1 / (1 + exp(-(b + w'x))),

and the bag probability ``P(B+)`` combines the instance probabilities under one of Weka's three
assumptions (``-A``):

* ``"standard"`` (``-A 0``, the standard MI assumption): noisy-or,
  ``P(B-) = prod_j (1 - p_j)``, ``P(B+) = 1 - P(B-)``;
* ``"arithmetic"`` (``-A 1``, collective): ``P(B+) = mean_j p_j``;
* ``"geometric"`` (``-A 2``, collective): ``P(B+) = 1 / (1 + exp(-mean_j (b + w'x_j)))``, the
  normalised geometric mean of the instance posteriors.

``(b, w)`` minimises the bag negative log-likelihood plus the ridge ``ridge * |w|^2`` (the
intercept is not penalised). The defaults reproduce ``weka.classifiers.mi.MILR`` with its
default options ``-R 1.0E-6 -A 0``; ``docs/decisions/mil.md`` ("MILR and MDD") records the
reading of Weka's code this follows:

* **Scaling.** Before the fit every feature is standardised with *bag-level* statistics, as
  Weka's MILR computes them: the mean is the mean of the bag means, and the scale is
  ``sqrt(|sum_B m2_B / (N - 1) - mean^2 N / (N - 1)|)`` with ``m2_B`` the bag's mean of squares
  and ``N`` the number of bags. A feature whose scale is exactly 0 is left as it is. After the
  fit the coefficients are mapped back to the raw feature units, where prediction happens.
* **Start.** ``b = log((n+ + 1) / (n- + 1))`` (bags), ``w = 0``.
* **Optimiser.** :class:`~svmlab.estimators.weka.optimization.WekaQuasiNewton`, svmlab's
  re-implementation of Weka's ``Optimization`` (BFGS with Weka's ``L D L'`` factor updates,
  ``update="ldl"``, Weka's line search and stopping rules, restarted after every 200
  iterations until it converges), on Weka's objective and gradient evaluated with Weka's
  formulas: an overflowing ``exp`` gives the infinite value that makes Weka's line search
  halve its step, and a NaN gradient entry (``exp(z) / (1 + exp(z))`` once ``exp(z)``
  overflows, possibly at a finite value) that Weka's convergence test, a running maximum
  skipping NaN, reads as converged. That early stop happens on real data (mutagenesis_atoms,
  ``-A 1``: a fold stops at 106.5 where a stable gradient goes on to 85.3), so we keep it.
* **Prediction.** ``classes_[1]`` when ``P(B+) > P(B-)`` (Weka's arg-max: class 0 on ties).

Differences from Weka
---------------------
* Missing values are rejected (Weka skips them in the statistics and sets them to the mean).
* Bag weights are not accepted (Weka's MILR ignores instance weights).

References
----------
X. Xu, E. Frank. Logistic regression and boosting for labeled bags of instances. PAKDD 2004,
LNCS 3056, 272-281.
"""

from __future__ import annotations

import time
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.estimators.mil._bags import BagClassifierMixin, check_bag_labels, check_bags
from svmlab.estimators.weka.optimization import WekaQuasiNewton

__all__ = ["MILRClassifier", "milr_bag_statistics", "milr_negative_log_likelihood"]

ASSUMPTIONS = ("standard", "arithmetic", "geometric")


def milr_bag_statistics(X, starts, sizes):
    """Weka MILR's per-feature ``(mean, scale)`` from bag-level moments.

    Parameters
    ----------
    X : ndarray of shape (n_instances, n_features)
        Stacked instances; ``starts`` / ``sizes`` locate the bags (:func:`check_bags`).
    starts, sizes : ndarray of shape (n_bags,)

    Returns
    -------
    mean : ndarray of shape (n_features,)
        The mean of the bag means.
    scale : ndarray of shape (n_features,)
        ``sqrt(|sum_B m2_B / (N - 1) - mean^2 N / (N - 1)|)``; ``m2_B`` is the bag's mean of
        squared values, ``N`` the number of bags. The sums run in Weka's order (instance after
        instance, then bag after bag), so that a constant feature gets the same (exactly 0 or
        rounding-sized) scale as in Weka.
    """
    n_bags = len(starts)
    sum_mean = np.zeros(X.shape[1])
    sum_sq = np.zeros(X.shape[1])
    for start, size in zip(starts, sizes):
        block = X[start : start + size]
        sum_mean = sum_mean + np.cumsum(block, axis=0)[-1] / size
        sum_sq = sum_sq + np.cumsum(block * block, axis=0)[-1] / size
    mean = sum_mean / n_bags
    with np.errstate(divide="ignore", invalid="ignore"):
        var = sum_sq / (n_bags - 1.0) - mean * mean * n_bags / (n_bags - 1.0)
    return mean, np.sqrt(np.abs(var))


def _segment_logsumexp(values, starts):
    """``log sum exp`` of ``values`` within each bag (``starts`` its first rows), without
    overflow or underflow."""
    top = np.maximum.reduceat(values, starts)
    sizes = np.diff(np.append(starts, len(values)))
    shifted = np.exp(values - np.repeat(top, sizes))
    return top + np.log(np.add.reduceat(shifted, starts))


def milr_negative_log_likelihood(params, X, starts, sizes, positive, assumption, ridge):
    """Weka MILR's penalised bag negative log-likelihood and its gradient.

    Parameters
    ----------
    params : ndarray of shape (1 + n_features,)
        ``[b, w]``.
    X : ndarray of shape (n_instances, n_features)
        Stacked (standardised) instances.
    starts, sizes : ndarray of shape (n_bags,)
    positive : ndarray of bool, shape (n_bags,)
    assumption : {"standard", "arithmetic", "geometric"}
    ridge : float

    Returns
    -------
    value : float
        ``-sum_B log P(y_B | B) + ridge * |w|^2``, evaluated as Weka does (``log(1 + exp(z))``
        and ``1 / (1 + exp(z))`` literally: an overflow gives ``inf``, not a rounded value).
    grad : ndarray of shape (1 + n_features,)
        Weka's expressions, also literal (``exp(z) / (1 + exp(z))`` is NaN once ``exp(z)``
        overflows).
    """
    b, w = params[0], params[1:]
    z = X @ w + b
    pos_inst = np.repeat(positive, sizes)
    sign = np.where(positive, -1.0, 1.0)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        e = np.exp(z)
        if assumption == "standard":
            value = np.add.reduceat(np.log(1.0 + e), starts)  # -log P(B-)
            value = value[~positive].sum() - np.log(1.0 - np.exp(-value[positive])).sum()
            # d/dz: p_j in a negative bag, -p_j / (1 / P(B-) - 1) in a positive one
            p = e / (1.0 + e)
            inv_neg = np.exp(-np.add.reduceat(np.log(1.0 - p), starts))
            coef = p * np.repeat(np.where(positive, -1.0 / (inv_neg - 1.0), 1.0), sizes)
        elif assumption == "arithmetic":
            lik = np.where(pos_inst, 1.0 - 1.0 / (1.0 + e), 1.0 / (1.0 + e))
            value = -np.log(np.add.reduceat(lik, starts) / sizes).sum()
            denom = np.add.reduceat(np.where(pos_inst, e / (1.0 + e), 1.0 / (1.0 + e)), starts)
            coef = e / ((1.0 + e) * (1.0 + e)) * np.repeat(sign / denom, sizes)
        else:  # geometric
            mean_signed = np.add.reduceat(np.where(pos_inst, -z, z), starts) / sizes
            value = np.log(1.0 + np.exp(mean_signed)).sum()
            odds = np.exp(mean_signed)
            coef = np.repeat(sign * odds / (1.0 + odds) / sizes, sizes)
        # Weka's formulas: exp(z) = inf makes a gradient entry NaN (inf / inf), possibly at a
        # finite value; WekaQuasiNewton then stops as Weka does
        grad = np.empty_like(params)
        grad[0] = coef.sum()
        grad[1:] = coef @ X + 2.0 * ridge * w
    value = float(value + ridge * (w @ w))
    return value, grad


class MILRClassifier(BagClassifierMixin, ClassifierMixin, BaseEstimator):
    """Multi-instance logistic regression, Weka 3.6's ``weka.classifiers.mi.MILR``.

    Parameters
    ----------
    assumption : {"standard", "arithmetic", "geometric"}, default="standard"
        How instance posteriors make the bag posterior (Weka's ``-A 0|1|2``, module
        docstring).
    ridge : float, default=1e-6
        Weka's ``-R``: the penalty ``ridge * |w|^2`` on the coefficients of the standardised
        features (not the intercept).
    max_iter : int or None, default=None
        Cap on the optimiser iterations; ``None``: until Weka's optimiser converges (at most
        20000 iterations).

    Attributes
    ----------
    classes_ : ndarray of shape (2,)
    coef_ : ndarray of shape (n_features,)
        ``w`` in the raw feature units.
    intercept_ : float
        ``b`` in the raw feature units.
    fit_info_ : dict
        ``neg_log_likelihood`` (penalised, standardised problem), ``start_value``,
        ``optimizer_iterations``, ``converged``, ``seconds``.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> bags = [rng.normal(size=(3, 2)) + (2.0 if i % 2 else 0.0) for i in range(20)]
    >>> y = [i % 2 for i in range(20)]
    >>> MILRClassifier().fit(bags, y).predict(bags[:4])
    array([0, 1, 0, 1])
    """

    _parameter_constraints: dict = {
        "assumption": [StrOptions(set(ASSUMPTIONS))],
        "ridge": [Interval(Real, 0.0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
    }

    def __init__(self, assumption: str = "standard", ridge: float = 1e-6, max_iter=None):
        self.assumption = assumption
        self.ridge = ridge
        self.max_iter = max_iter

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, bags, y):
        """Standardise as Weka's MILR does and minimise the penalised bag likelihood.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)
        y : array-like of shape (n_bags,)
            Exactly two classes; ``classes_[1]`` is positive.

        Returns
        -------
        self : object
        """
        t0 = time.perf_counter()
        X, starts, sizes = check_bags(bags)
        self.classes_, y01 = check_bag_labels(y, len(sizes), "MILR")
        self.n_features_in_ = X.shape[1]
        positive = y01 == 1
        mean, scale = milr_bag_statistics(X, starts, sizes)
        used = scale != 0
        Z = X.copy()
        Z[:, used] = (X[:, used] - mean[used]) / scale[used]
        n_pos = float(positive.sum())
        x0 = np.zeros(X.shape[1] + 1)
        x0[0] = np.log((n_pos + 1.0) / (len(sizes) - n_pos + 1.0))
        args = (Z, starts, sizes, positive, self.assumption, self.ridge)
        fun = lambda p: milr_negative_log_likelihood(p, *args)  # noqa: E731
        cap = 100 * WekaQuasiNewton.MAXITS if self.max_iter is None else self.max_iter
        opt = WekaQuasiNewton(fun, max_iter=cap, update="ldl")
        params, value, converged = opt.minimize(x0)
        # back to raw units, feature after feature as Weka does
        w = params[1:].copy()
        b = float(params[0])
        for j in np.flatnonzero(used):
            w[j] /= scale[j]
            b -= w[j] * mean[j]
        self.coef_, self.intercept_ = w, b
        self.fit_info_ = {
            "neg_log_likelihood": float(value),
            "start_value": fun(x0)[0],
            "optimizer_iterations": opt.nit,
            "converged": bool(converged),
            "seconds": time.perf_counter() - t0,
        }
        return self

    def _log_proba(self, bags):
        """``(log P(B-), log P(B+))`` of every bag."""
        check_is_fitted(self)
        X, starts, sizes = check_bags(bags, n_features=self.n_features_in_)
        z = X @ self.coef_ + self.intercept_
        # in log space throughout, so that a bag far from the decision boundary keeps a finite
        # log-odds where the probabilities themselves underflow (a fold of fox gave -inf)
        if self.assumption == "standard":
            s = np.add.reduceat(np.logaddexp(0.0, z), starts)  # -log P(B-) = sum softplus(z)
            with np.errstate(divide="ignore"):
                exact = np.log(-np.expm1(-s))
            # s below the smallest double: 1 - exp(-s) = s = sum exp(z), taken as a log-sum-exp
            log_pos = np.where(s > 1e-300, exact, _segment_logsumexp(z, starts))
            log_neg = -s
        elif self.assumption == "arithmetic":
            log_pos = _segment_logsumexp(-np.logaddexp(0.0, -z), starts) - np.log(sizes)
            log_neg = _segment_logsumexp(-np.logaddexp(0.0, z), starts) - np.log(sizes)
        else:
            m = np.add.reduceat(z, starts) / sizes
            log_pos, log_neg = -np.logaddexp(0.0, -m), -np.logaddexp(0.0, m)
        return log_neg, log_pos

    def decision_function(self, bags):
        """Log-odds ``log P(B+) - log P(B-)`` of every bag under ``assumption``.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        scores : ndarray of shape (n_bags,)
            > 0 means ``classes_[1]``.
        """
        log_neg, log_pos = self._log_proba(bags)
        return log_pos - log_neg

    def predict_proba(self, bags):
        """``[P(B-), P(B+)]`` per bag under ``assumption``.

        Parameters
        ----------
        bags : sequence of array-like of shape (n_instances_I, n_features)

        Returns
        -------
        ndarray of shape (n_bags, 2)
        """
        log_neg, log_pos = self._log_proba(bags)
        return np.column_stack([np.exp(log_neg), np.exp(log_pos)])
