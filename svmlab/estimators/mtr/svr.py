"""The three multi-target SVR methods of Melki et al. (2017; dissertation Ch. 3): SVR, SVRRC, SVRCC.

Every single-target model (a target of :class:`SingleTargetSVR`, a link of a chain) gets its
own ``(C, gamma, epsilon)``, chosen by a grid search with inner k-fold CV on its training
rows minimising RMSE (Melki (2018), Sec. 3.3; docs/decisions/mtr.md, "Per-model tuning"),
then is refitted on all of them. The default grid is Eq. 3.3
(:data:`~svmlab.estimators.mtr.tuning.PAPER_GRID`, ``param_grid="paper"``);
``"paper_gamma_base2"`` is the other reading of its gammas (docs/decisions/mtr.md, "Gamma
grid of Eq. 3.3").

References
----------
G. Melki, A. Cano, V. Kecman, S. Ventura. Multi-target support vector regression via
correlation regressor chains. Information Sciences 415-416 (2017) 53-69.
doi:10.1016/j.ins.2017.06.017
"""

from __future__ import annotations

from numbers import Integral

from sklearn.svm import SVR

from svmlab._sklearn_compat import HasMethods, Interval, Options, StrOptions
from svmlab.estimators.mtr._base import check_order
from svmlab.estimators.mtr.chains import ChainEnsembleBase
from svmlab.estimators.mtr.independent import IndependentTargetsBase
from svmlab.estimators.mtr.orders import correlation_order, random_chain_orders
from svmlab.estimators.mtr.tuning import resolve_param_grid

__all__ = ["SVRCC", "SVRRC", "SingleTargetSVR"]

_TUNING_CONSTRAINTS: dict = {
    "estimator": [HasMethods(["fit", "predict"]), None],
    "param_grid": [StrOptions({"paper", "paper_gamma_base2"}), dict, list, None],
    "inner_cv": [Interval(Integral, 2, None, closed="left"), Options(Integral, {0}), None],
    "n_jobs": [Integral, None],
    "random_state": ["random_state"],
}


class _TunedSVRMixin:
    """Base learner ``estimator`` (default RBF epsilon-SVR), tuned by
    ``param_grid``/``inner_cv``."""

    def _link_template(self):
        return SVR(kernel="rbf") if self.estimator is None else self.estimator

    def _tuning(self):
        if self.param_grid is None or not self.inner_cv:
            return None, None
        return resolve_param_grid(self.param_grid), self.inner_cv


class SingleTargetSVR(_TunedSVRMixin, IndependentTargetsBase):
    """SVR (Alg. 3.1): one independently tuned RBF epsilon-SVR per target.

    Parameters
    ----------
    estimator : regressor or None, default=None
        Base learner, cloned for every target; ``None`` means
        ``sklearn.svm.SVR(kernel="rbf")`` (LIBSVM epsilon-SVR with a bias; docs/decisions/mtr.md,
        "SVR bias"). Any
        single-target regressor works, e.g. :class:`svmlab.estimators.ollawv.OLLAWVRegressor`.
    param_grid : {"paper", "paper_gamma_base2"}, dict, list of dict or None, default="paper"
        Grid of ``estimator`` parameters searched for every target: Eq. 3.3's 72 points
        (C {1, 10, 100} x gamma {1e-9, 1e-7, 1e-5, 1e-3, 0.1, 1, 5, 10} x epsilon
        {0.01, 0.1, 0.2}), its base-2 gamma variant, or your own. ``None``: no tuning.
    inner_cv : int or None, default=10
        Folds of the inner (shuffled) KFold of the grid search; ``None`` or 0 disables
        tuning and ``estimator`` is used with its own parameters.
    n_jobs : int or None, default=None
        Parallel fits of each grid search.
    random_state : int, RandomState instance or None, default=None
        Seeds the inner folds (and a stochastic ``estimator``).

    Attributes
    ----------
    estimators_ : list of estimators
        The fitted model of each target.
    best_params_ : list of (dict or None)
        Each target's selected grid point; None without tuning.
    fit_info_ : dict
        ``best_params``, ``n_train`` (rows with an observed value, per target), ``tuned``,
        ``tune_seconds`` (grid searches) and ``fit_seconds`` (final refits).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        When ``X`` has string column names.
    """

    _parameter_constraints: dict = dict(_TUNING_CONSTRAINTS)

    def __init__(
        self, estimator=None, param_grid="paper", inner_cv=10, n_jobs=None, random_state=None
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.inner_cv = inner_cv
        self.n_jobs = n_jobs
        self.random_state = random_state


class SVRRC(_TunedSVRMixin, ChainEnsembleBase):
    """SVRRC (Alg. 3.3): an ensemble of SVR regressor chains over distinct random target orders.

    With ``m!`` no larger than ``max_chains`` (``m <= 3`` for the default; docs/decisions/mtr.md,
    "Number of random chains (SVRRC)") every
    permutation of the targets is a chain; otherwise ``max_chains`` distinct random
    permutations drawn with ``random_state``. The chains are trained on the true values of
    the previous targets and predict by feeding predictions forward (see
    :mod:`svmlab.estimators.mtr.chains`); their predictions are averaged per target.

    Parameters
    ----------
    estimator : regressor or None, default=None
        Base learner of every link, cloned; ``None`` means ``sklearn.svm.SVR(kernel="rbf")``.
    param_grid : {"paper", "paper_gamma_base2"}, dict, list of dict or None, default="paper"
        Grid searched separately for every link (see :class:`SingleTargetSVR`).
    inner_cv : int or None, default=10
        Inner folds of every link's grid search; ``None`` or 0: no tuning.
    max_chains : int, default=10
        Number of chains when ``m! > max_chains``.
    train_inputs : {"true", "oof", "insample"}, default="true"
        Chain inputs at training time: the true previous targets (the paper), out-of-fold
        predictions (RCC-style) or in-sample predictions.
    oof_folds : int, default=10
        Folds of the internal CV of ``train_inputs="oof"``.
    n_jobs : int or None, default=None
        Parallel fits of each grid search.
    random_state : int, RandomState instance or None, default=None
        Seeds the permutations, the inner folds and the out-of-fold folds.

    Attributes
    ----------
    orders_ : ndarray of shape (n_chains, n_targets)
        ``orders_[c, j]`` is the target predicted by link ``j`` of chain ``c``.
    chains_ : list of ChainModel
        The fitted chains.
    estimators_ : list of list of estimators
        ``estimators_[c][j]``: link ``j`` of chain ``c``.
    best_params_ : list of list of (dict or None)
        Selected grid point of every link, same nesting.
    fit_info_ : dict
        ``n_chains``, ``orders``, ``best_params``, ``train_inputs``, ``tuned``,
        ``tune_seconds`` (grid searches), ``fit_seconds`` (final refits plus chain inputs)
        and ``chain_input_seconds``.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    """

    _parameter_constraints: dict = {
        **_TUNING_CONSTRAINTS,
        **ChainEnsembleBase._chain_parameter_constraints,
        "max_chains": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        estimator=None,
        param_grid="paper",
        inner_cv=10,
        max_chains=10,
        train_inputs="true",
        oof_folds=10,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.inner_cv = inner_cv
        self.max_chains = max_chains
        self.train_inputs = train_inputs
        self.oof_folds = oof_folds
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _chain_orders(self, Y, rng):
        return random_chain_orders(Y.shape[1], self.max_chains, rng, distinct=True)


class SVRCC(_TunedSVRMixin, ChainEnsembleBase):
    """SVRCC (Alg. 3.4): one SVR regressor chain in the direction of maximum target correlation.

    The chain orders the targets by decreasing column sum of the Pearson correlation matrix
    of the training targets (the diagonal included; stable sort, lower index first on ties);
    ``corr="abs"`` sums absolute correlations instead (docs/decisions/mtr.md, "Correlation
    order (SVRCC)"). An explicit ``order``
    overrides it.

    Parameters
    ----------
    estimator : regressor or None, default=None
        Base learner of every link, cloned; ``None`` means ``sklearn.svm.SVR(kernel="rbf")``.
    param_grid : {"paper", "paper_gamma_base2"}, dict, list of dict or None, default="paper"
        Grid searched separately for every link (see :class:`SingleTargetSVR`).
    inner_cv : int or None, default=10
        Inner folds of every link's grid search; ``None`` or 0: no tuning.
    corr : {"signed", "abs"}, default="signed"
        Correlations summed for the order.
    order : array-like of shape (n_targets,) or None, default=None
        A fixed chain (a permutation of ``range(n_targets)``) instead of the correlation one.
    train_inputs : {"true", "oof", "insample"}, default="true"
        Chain inputs at training time (see :class:`SVRRC`).
    oof_folds : int, default=10
        Folds of the internal CV of ``train_inputs="oof"``.
    n_jobs : int or None, default=None
        Parallel fits of each grid search.
    random_state : int, RandomState instance or None, default=None
        Seeds the inner folds and the out-of-fold folds.

    Attributes
    ----------
    order_ : ndarray of shape (n_targets,)
        The chain: ``order_[j]`` is the target predicted by link ``j``.
    orders_ : ndarray of shape (1, n_targets)
        The same, as for the ensembles.
    chains_ : list of one ChainModel
    estimators_ : list of estimators
        The links, in chain order.
    best_params_ : list of (dict or None)
        Selected grid point of every link, in chain order.
    fit_info_ : dict
        As :class:`SVRRC`'s.
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
    """

    _single_chain = True

    _parameter_constraints: dict = {
        **_TUNING_CONSTRAINTS,
        **ChainEnsembleBase._chain_parameter_constraints,
        "corr": [StrOptions({"signed", "abs"})],
        "order": ["array-like", None],
    }

    def __init__(
        self,
        estimator=None,
        param_grid="paper",
        inner_cv=10,
        corr="signed",
        order=None,
        train_inputs="true",
        oof_folds=10,
        n_jobs=None,
        random_state=None,
    ):
        self.estimator = estimator
        self.param_grid = param_grid
        self.inner_cv = inner_cv
        self.corr = corr
        self.order = order
        self.train_inputs = train_inputs
        self.oof_folds = oof_folds
        self.n_jobs = n_jobs
        self.random_state = random_state

    def _chain_orders(self, Y, rng):
        if self.order is not None:
            return check_order(self.order, Y.shape[1])[None, :]
        return correlation_order(Y, self.corr)[None, :]
