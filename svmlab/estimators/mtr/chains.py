"""Regressor chains: the one implementation behind SVRRC, SVRCC, RC, ERC and ERCC.

A chain is a permutation ``C = (C_1, ..., C_m)`` of the target indices. Link ``j`` is a
single-target model trained on ``[X, A_1, ..., A_{j-1}]`` to predict ``Y[:, C_j]``, where
``A_k`` is the chain input for target ``C_k`` (Melki (2018), Alg. 3.2; docs/decisions/mtr.md,
"Chain training inputs"):

* ``train_inputs="true"`` (default, the paper and Mulan's RC/ERC): the true values of the
  previous targets (teacher forcing);
* ``"oof"`` (RCC/ERCC): out-of-fold predictions of link ``k`` from an internal k-fold CV
  (clones of link ``k`` with its selected parameters, each trained on the other folds);
* ``"insample"``: link ``k``'s fitted predictions on its own training rows.

At prediction time every link's prediction is appended for the next one (Melki et al. (2017),
Alg. 4, in Melki (2018), App. A.2) and the
outputs are put back in the original target order. An ensemble averages its chains per
target.

Missing targets (NaN in ``Y``): link ``j`` is trained only on the rows where ``Y[:, C_j]``
is observed. Under ``"true"`` a missing previous target enters the later links' inputs as
that target's training mean; under ``"oof"``/``"insample"`` every row has a prediction.
"""

from __future__ import annotations

import time
from abc import ABCMeta, abstractmethod
from dataclasses import dataclass, field
from functools import partial
from numbers import Integral

import numpy as np

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.estimators.mtr._base import MultiTargetRegressorBase, target_means
from svmlab.estimators.mtr.tuning import fit_tuned, out_of_fold_predict
from svmlab.seeding import derive_seed

__all__ = ["TRAIN_INPUTS", "ChainEnsembleBase", "ChainModel", "fit_chain"]

TRAIN_INPUTS = ("true", "oof", "insample")


@dataclass
class ChainModel:
    """One fitted chain.

    Attributes
    ----------
    order : ndarray of shape (m,)
        ``order[j]`` is the target predicted by link ``j``.
    links : list of estimators
        The fitted single-target models, in chain order.
    best_params : list of (dict or None)
        Selected grid point of each link (None: not tuned).
    n_features : int
        Columns of ``X``; link ``j`` takes ``n_features + j`` inputs.
    tune_seconds, fit_seconds, chain_input_seconds : float
        Grid searches; final refits plus chain inputs; chain inputs alone (out-of-fold
        refits or in-sample predictions).
    """

    order: np.ndarray
    links: list
    best_params: list
    n_features: int
    tune_seconds: float = 0.0
    fit_seconds: float = 0.0
    chain_input_seconds: float = 0.0
    n_train: list = field(default_factory=list)

    def predict(self, X: np.ndarray) -> np.ndarray:
        """Predictions fed forward along the chain, columns in the original target order."""
        n, d, m = X.shape[0], self.n_features, len(self.order)
        Z = np.empty((n, d + m - 1))
        Z[:, :d] = X
        out = np.empty((n, m))
        for j, (target, link) in enumerate(zip(self.order, self.links)):
            pred = np.asarray(link.predict(Z[:, : d + j]), dtype=np.float64).ravel()
            out[:, target] = pred
            if j < m - 1:
                Z[:, d + j] = pred
        return out


def fit_chain(
    X, Y, order, fit_link, *, train_inputs: str = "true", oof_folds: int = 10, seed: int = 0
) -> ChainModel:
    """Train the links of one chain.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    Y : ndarray of shape (n, m)
        NaN marks a missing target value.
    order : ndarray of shape (m,)
        A permutation of ``range(m)``.
    fit_link : callable
        ``fit_link(Z, y, seed=...) -> TunedFit`` fits (and tunes) one link on the rows where
        ``y`` is observed.
    train_inputs : {"true", "oof", "insample"}
        The chain inputs of the later links at training time (module docstring).
    oof_folds : int
        Folds of the internal CV of ``"oof"``.
    seed : int
        Every link's seeds (tuning folds, estimator, out-of-fold folds) derive from it.
    """
    if train_inputs not in TRAIN_INPUTS:
        raise ValueError(
            f"train_inputs must be one of {', '.join(TRAIN_INPUTS)}; got {train_inputs!r}"
        )
    n, d = X.shape
    m = len(order)
    fill = target_means(Y)
    Z = np.empty((n, d + m - 1))
    Z[:, :d] = X
    chain = ChainModel(np.asarray(order, dtype=np.int64), [], [], d)
    for j, target in enumerate(chain.order):
        inputs, y = Z[:, : d + j], Y[:, target]
        fit = fit_link(inputs, y, seed=derive_seed(seed, "link", j))
        chain.links.append(fit.model)
        chain.best_params.append(fit.params)
        chain.n_train.append(fit.n_train)
        chain.tune_seconds += fit.tune_seconds
        chain.fit_seconds += fit.fit_seconds
        if j == m - 1:
            break
        t0 = time.perf_counter()
        if train_inputs == "true":
            column = np.where(np.isnan(y), fill[target], y)
        elif train_inputs == "insample":
            column = np.asarray(fit.model.predict(inputs), dtype=np.float64).ravel()
        else:
            column = out_of_fold_predict(
                fit.model, inputs, y, n_folds=oof_folds, seed=derive_seed(seed, "oof", j)
            )
        elapsed = time.perf_counter() - t0
        chain.chain_input_seconds += elapsed
        chain.fit_seconds += elapsed
        Z[:, d + j] = column
    return chain


class ChainEnsembleBase(MultiTargetRegressorBase, metaclass=ABCMeta):
    """Fit one chain per order and average them per target.

    Subclasses give the chain orders (:meth:`_chain_orders`), the base learner of the links
    (:meth:`_link_template`) and its tuning (:meth:`_tuning`); they declare the parameters
    ``train_inputs``, ``oof_folds``, ``n_jobs`` and ``random_state``. Single-chain
    subclasses set ``_single_chain = True`` to expose flat ``order_``, ``estimators_`` and
    ``best_params_``.
    """

    _single_chain = False

    _chain_parameter_constraints: dict = {
        "train_inputs": [StrOptions(set(TRAIN_INPUTS))],
        "oof_folds": [Interval(Integral, 2, None, closed="left")],
        "n_jobs": [Integral, None],
        "random_state": ["random_state"],
    }

    @abstractmethod
    def _chain_orders(self, Y: np.ndarray, rng) -> np.ndarray:
        """The chains' target orders, shape ``(n_chains, m)``, from the training targets."""

    @abstractmethod
    def _link_template(self):
        """An unfitted single-target regressor: the template of every link."""

    def _tuning(self):
        """``(param_grid, inner_cv)`` of every link; ``(None, None)`` means no tuning."""
        return None, None

    @_fit_context(prefer_skip_nested_validation=False)
    def fit(self, X, Y):
        """Fit every chain.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Finite inputs.
        Y : array-like of shape (n_samples, n_targets)
            ``n_targets >= 2``; NaN marks a missing target value.

        Returns
        -------
        self
        """
        X, Y = self._validate_fit_data(X, Y)
        base = self._base_seed()
        orders = np.asarray(
            self._chain_orders(Y, np.random.RandomState(self._seed(base, "orders"))), dtype=np.int64
        )
        grid, inner_cv = self._tuning()
        fit_link = partial(
            fit_tuned, self._link_template(), param_grid=grid, inner_cv=inner_cv, n_jobs=self.n_jobs
        )
        chains = [
            fit_chain(
                X,
                Y,
                order,
                fit_link,
                train_inputs=self.train_inputs,
                oof_folds=self.oof_folds,
                seed=self._seed(base, "chain", c),
            )
            for c, order in enumerate(orders)
        ]
        self.chains_ = chains
        self.orders_ = orders
        if self._single_chain:
            self.order_ = orders[0]
            self.estimators_ = chains[0].links
            self.best_params_ = chains[0].best_params
        else:
            self.estimators_ = [chain.links for chain in chains]
            self.best_params_ = [chain.best_params for chain in chains]
        self.fit_info_ = {
            "n_chains": len(chains),
            "orders": orders.tolist(),
            "best_params": [chain.best_params for chain in chains],
            "train_inputs": self.train_inputs,
            "tuned": bool(grid) and bool(inner_cv),
            "tune_seconds": float(sum(chain.tune_seconds for chain in chains)),
            "fit_seconds": float(sum(chain.fit_seconds for chain in chains)),
            "chain_input_seconds": float(sum(chain.chain_input_seconds for chain in chains)),
        }
        return self

    def predict(self, X):
        """Per-target mean of the chains' fed-forward predictions.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)

        Returns
        -------
        Y_pred : ndarray of shape (n_samples, n_targets)
        """
        X = self._validate_predict_X(X)
        total = self.chains_[0].predict(X)
        for chain in self.chains_[1:]:
            total += chain.predict(X)
        return total / len(self.chains_)
