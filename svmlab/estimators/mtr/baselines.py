"""The Mulan comparators of the MTR study (Melki (2018), Sec. 3.3), re-implemented on scikit-learn.

See docs/decisions/mtr.md, "Mulan baselines re-implemented".

The paper ran them in Mulan (Java, on Weka) with the settings of Spyromitros-Xioufis et al.
(2016): every single-target model is a bagging of 100 regression trees (Weka ``REPTree``);
MTSC and ERCC use an internal 10-fold CV, ERC/ERCC 10 chains and MORF 100 trees. These
Python versions follow the algorithms, not the Java code, so their numbers will differ
from the published ones. Two differences hold for all of them:

* the trees are scikit-learn CART trees (``DecisionTreeRegressor``: grown fully, no
  pruning), whereas ``REPTree`` uses reduced-error pruning on a held-out third of the data
  and at least 2 instances per leaf; pass ``estimator=DecisionTreeRegressor(...)`` to
  change them;
* seeds come from ``random_state``, not Weka's.

RC, ERC and ERCC are :class:`~svmlab.estimators.mtr.chains.ChainEnsembleBase` subclasses:
the same chain code as SVRRC/SVRCC with bagged trees, no tuning, and (ERCC) out-of-fold
chain inputs. MTS and MTSC live in :mod:`svmlab.estimators.mtr.stacking`.
"""

from __future__ import annotations

import math
import time
from numbers import Integral, Real

import numpy as np
from sklearn.ensemble import BaggingRegressor, RandomForestRegressor
from sklearn.tree import DecisionTreeRegressor

from svmlab._sklearn_compat import HasMethods, Interval, StrOptions, _fit_context
from svmlab.estimators.mtr._base import MultiTargetRegressorBase, check_order, target_means
from svmlab.estimators.mtr.chains import ChainEnsembleBase
from svmlab.estimators.mtr.independent import IndependentTargetsBase
from svmlab.estimators.mtr.orders import random_chain_orders

__all__ = ["ERC", "ERCC", "MORF", "RC", "ST", "bagged_trees"]


def bagged_trees(estimator=None, n_estimators: int = 100, n_jobs=None) -> BaggingRegressor:
    """The baselines' single-target learner: bagging of ``n_estimators`` regression trees."""
    tree = DecisionTreeRegressor() if estimator is None else estimator
    return BaggingRegressor(estimator=tree, n_estimators=n_estimators, n_jobs=n_jobs)


_BAGGING_CONSTRAINTS: dict = {
    "estimator": [HasMethods(["fit", "predict"]), None],
    "n_estimators": [Interval(Integral, 1, None, closed="left")],
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
}


class _BaggedTreesMixin:
    def _link_template(self):
        return bagged_trees(self.estimator, self.n_estimators, self.n_jobs)


class ST(_BaggedTreesMixin, IndependentTargetsBase):
    """ST, single target: one bagging of regression trees per target, fitted independently.

    Mulan's ST with Weka ``Bagging(REPTree)``; here ``BaggingRegressor`` of unpruned CART
    trees (module docstring).

    Parameters
    ----------
    estimator : regressor or None, default=None
        The bagged base learner; ``None`` means ``DecisionTreeRegressor()``.
    n_estimators : int, default=100
        Bagging size.
    n_jobs : int or None, default=None
        Parallel jobs of each bagging.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    estimators_ : list of BaggingRegressor
        One per target.
    best_params_ : list of None
        No tuning (kept for a uniform interface).
    fit_info_ : dict
        ``n_train`` per target, ``tune_seconds`` (0) and ``fit_seconds``.
    n_features_in_ : int
    """

    _parameter_constraints: dict = dict(_BAGGING_CONSTRAINTS)

    def __init__(self, estimator=None, n_estimators=100, n_jobs=None, random_state=None):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.n_jobs = n_jobs
        self.random_state = random_state


class RC(_BaggedTreesMixin, ChainEnsembleBase):
    """RC, regressor chain: one chain of bagged trees over a random target order.

    As Mulan's ``RegressorChain``, trained on the true values of the previous targets and
    predicting by feeding predictions forward; ``train_inputs="oof"`` gives Mulan's RCC.
    The order is drawn with ``random_state`` unless ``order`` is given.

    Parameters
    ----------
    estimator : regressor or None, default=None
        The bagged base learner; ``None`` means ``DecisionTreeRegressor()``.
    n_estimators : int, default=100
        Bagging size of every link.
    order : array-like of shape (n_targets,) or None, default=None
        A fixed chain (permutation of ``range(n_targets)``); ``None``: random.
    train_inputs : {"true", "oof", "insample"}, default="true"
        Chain inputs at training time.
    oof_folds : int, default=10
        Folds of the internal CV of ``train_inputs="oof"``.
    n_jobs : int or None, default=None
        Parallel jobs of each bagging.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    order_ : ndarray of shape (n_targets,)
    orders_ : ndarray of shape (1, n_targets)
    chains_ : list of one ChainModel
    estimators_ : list of BaggingRegressor
        The links in chain order.
    best_params_ : list of None
    fit_info_ : dict
        ``orders``, ``train_inputs``, ``tune_seconds`` (0), ``fit_seconds``,
        ``chain_input_seconds``.
    n_features_in_ : int
    """

    _single_chain = True

    _parameter_constraints: dict = {
        **_BAGGING_CONSTRAINTS,
        **ChainEnsembleBase._chain_parameter_constraints,
        "order": ["array-like", None],
    }

    def __init__(
        self,
        estimator=None,
        n_estimators=100,
        order=None,
        train_inputs="true",
        oof_folds=10,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.order = order
        self.train_inputs = train_inputs
        self.oof_folds = oof_folds
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _chain_orders(self, Y, rng):
        if self.order is not None:
            return check_order(self.order, Y.shape[1])[None, :]
        return random_chain_orders(Y.shape[1], 1, rng, distinct=False)


class ERC(_BaggedTreesMixin, ChainEnsembleBase):
    """ERC, ensemble of regressor chains: ``n_chains`` random chains of bagged trees, averaged.

    As Mulan's ERC, the orders are drawn independently, so with few targets
    (``m! < n_chains``) orders repeat; the repeated chains still differ by their bagging
    seeds. (SVRRC instead takes distinct orders.) True previous targets at training time.

    Parameters
    ----------
    estimator : regressor or None, default=None
        The bagged base learner; ``None`` means ``DecisionTreeRegressor()``.
    n_estimators : int, default=100
        Bagging size of every link.
    n_chains : int, default=10
        Ensemble size.
    train_inputs : {"true", "oof", "insample"}, default="true"
        Chain inputs at training time ("oof" is ERCC).
    oof_folds : int, default=10
        Folds of the internal CV of ``train_inputs="oof"``.
    n_jobs : int or None, default=None
        Parallel jobs of each bagging.
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    orders_ : ndarray of shape (n_chains, n_targets)
    chains_ : list of ChainModel
    estimators_ : list of list of BaggingRegressor
        ``estimators_[c][j]``: link ``j`` of chain ``c``.
    best_params_ : list of list of None
    fit_info_ : dict
        ``n_chains``, ``orders``, ``train_inputs``, ``tune_seconds`` (0), ``fit_seconds``,
        ``chain_input_seconds``.
    n_features_in_ : int
    """

    _parameter_constraints: dict = {
        **_BAGGING_CONSTRAINTS,
        **ChainEnsembleBase._chain_parameter_constraints,
        "n_chains": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        estimator=None,
        n_estimators=100,
        n_chains=10,
        train_inputs="true",
        oof_folds=10,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.n_chains = n_chains
        self.train_inputs = train_inputs
        self.oof_folds = oof_folds
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _chain_orders(self, Y, rng):
        return random_chain_orders(Y.shape[1], self.n_chains, rng, distinct=False)


class ERCC(ERC):
    """ERCC, ERC "corrected": chains trained on out-of-fold estimates of the previous targets.

    :class:`ERC` with ``train_inputs="oof"``: link ``k``'s chain input for the later links is
    its internal ``oof_folds``-fold cross-validated prediction (Mulan's RCC inside ERC).
    Mulan also uses these estimates recursively, as here: link ``k`` itself was trained on
    the out-of-fold estimates of the targets before it.

    Parameters
    ----------
    estimator : regressor or None, default=None
        The bagged base learner; ``None`` means ``DecisionTreeRegressor()``.
    n_estimators : int, default=100
        Bagging size of every link.
    n_chains : int, default=10
        Ensemble size.
    train_inputs : {"true", "oof", "insample"}, default="oof"
        Chain inputs at training time.
    oof_folds : int, default=10
        Folds of the internal CV.
    n_jobs : int or None, default=None
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    As :class:`ERC`.
    """

    def __init__(
        self,
        estimator=None,
        n_estimators=100,
        n_chains=10,
        train_inputs="oof",
        oof_folds=10,
        n_jobs=None,
        random_state=None,
    ):
        super().__init__(
            estimator=estimator,
            n_estimators=n_estimators,
            n_chains=n_chains,
            train_inputs=train_inputs,
            oof_folds=oof_folds,
            n_jobs=n_jobs,
            random_state=random_state,
        )


class MORF(MultiTargetRegressorBase):
    """MORF, multi-objective random forest: one multi-output random forest for all targets.

    The paper's MORF is a random forest of predictive clustering trees in CLUS (Kocev et al.);
    this is scikit-learn's ``RandomForestRegressor``, whose multi-output trees split on the
    variance reduction summed over the targets -- the same criterion when the targets are
    standardised, but CART trees and scikit-learn's forest, not CLUS. CLUS ignores a missing
    target in the variance; here a missing target value (NaN in ``Y``) is replaced by that
    target's training mean before fitting.

    Parameters
    ----------
    n_estimators : int, default=100
        Trees.
    max_features : {"log2+1", "sqrt", "log2"}, int, float or None, default="log2+1"
        Features tried per split; ``"log2+1"`` is ``floor(log2(d)) + 1`` (Kocev et al.),
        the others as in ``RandomForestRegressor``.
    min_samples_leaf : int, default=1
    n_jobs : int or None, default=None
    random_state : int, RandomState instance or None, default=None

    Attributes
    ----------
    forest_ : RandomForestRegressor
    fit_info_ : dict
        ``max_features`` (resolved), ``tune_seconds`` (0) and ``fit_seconds``.
    n_features_in_ : int
    """

    _parameter_constraints: dict = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_features": [
            StrOptions({"log2+1", "sqrt", "log2"}),
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0.0, 1.0, closed="right"),
            None,
        ],
        "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        n_estimators=100,
        max_features="log2+1",
        min_samples_leaf=1,
        n_jobs=None,
        random_state=None,
    ):
        self.n_estimators = n_estimators
        self.max_features = max_features
        self.min_samples_leaf = min_samples_leaf
        self.n_jobs = n_jobs
        self.random_state = random_state

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, Y):
        """Fit the forest on ``X`` and all targets at once.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        Y : array-like of shape (n_samples, n_targets)
            ``n_targets >= 2``; NaN (missing) entries are filled with the target's mean.

        Returns
        -------
        self
        """
        X, Y = self._validate_fit_data(X, Y)
        Y = np.where(np.isnan(Y), target_means(Y), Y)
        d = X.shape[1]
        max_features = self.max_features
        if max_features == "log2+1":
            max_features = min(d, int(math.floor(math.log2(d))) + 1)
        self.forest_ = RandomForestRegressor(
            n_estimators=self.n_estimators,
            max_features=max_features,
            min_samples_leaf=self.min_samples_leaf,
            n_jobs=self.n_jobs,
            random_state=self._base_seed(),
        )
        t0 = time.perf_counter()
        self.forest_.fit(X, Y)
        self.fit_info_ = {
            "max_features": max_features,
            "tune_seconds": 0.0,
            "fit_seconds": time.perf_counter() - t0,
        }
        return self

    def predict(self, X):
        """The forest's per-target predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Y_pred : ndarray of shape (n_samples, n_targets)
        """
        X = self._validate_predict_X(X)
        return np.asarray(self.forest_.predict(X), dtype=np.float64)
