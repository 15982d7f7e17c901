"""One single-target model: its own grid search (inner k-fold CV, RMSE), its final refit, and
its out-of-fold predictions.

Every single-target model of the subpackage (a target of :class:`SingleTargetSVR`, a link of
a chain, a stage of the stacking baselines) is fitted by :func:`fit_tuned` on the rows where
its target is observed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import KFold, ParameterGrid
from sklearn.svm import SVR

from svmlab.seeding import derive_seed

__all__ = [
    "PAPER_GRID",
    "PAPER_GRID_GAMMA_BASE2",
    "TunedFit",
    "fit_tuned",
    "out_of_fold_predict",
    "resolve_param_grid",
    "seeded",
]

#: The grid of Eq. 3.3 (Melki (2018), Sec. 3.3; 72 points), with the exponents of gamma read as
#: powers of ten (docs/decisions/mtr.md, "Gamma grid of Eq. 3.3").
PAPER_GRID = {
    "C": [1.0, 10.0, 100.0],
    "gamma": [1e-9, 1e-7, 1e-5, 1e-3, 1e-1, 1.0, 5.0, 10.0],
    "epsilon": [0.01, 0.1, 0.2],
}

#: The same grid with the small gammas read as powers of two (the other reading of Eq. 3.3b).
PAPER_GRID_GAMMA_BASE2 = {
    "C": [1.0, 10.0, 100.0],
    "gamma": [2.0**-9, 2.0**-7, 2.0**-5, 2.0**-3, 2.0**-1, 1.0, 5.0, 10.0],
    "epsilon": [0.01, 0.1, 0.2],
}

_NAMED_GRIDS = {"paper": PAPER_GRID, "paper_gamma_base2": PAPER_GRID_GAMMA_BASE2}


def resolve_param_grid(param_grid):
    """A grid (as for :class:`~sklearn.model_selection.ParameterGrid`) from a name, dict or list of
    dicts."""
    if isinstance(param_grid, str):
        return {k: list(v) for k, v in _NAMED_GRIDS[param_grid].items()}
    if isinstance(param_grid, dict):
        return {
            k: list(v) if isinstance(v, (list, tuple, np.ndarray)) else [v]
            for k, v in param_grid.items()
        }
    return [resolve_param_grid(dict(g)) for g in param_grid]


def seeded(estimator, seed: int):
    """A clone of ``estimator`` whose unset ``random_state`` parameters (nested too) are seeded.

    Each such parameter gets its own seed derived from ``seed``; a ``random_state`` the user
    fixed is kept.
    """
    est = clone(estimator)
    params = est.get_params(deep=True)
    fill = {
        key: derive_seed(seed, key)
        for key, value in params.items()
        if (key == "random_state" or key.endswith("__random_state")) and value is None
    }
    if fill:
        est.set_params(**fill)
    return est


@dataclass
class TunedFit:
    """A fitted single-target model and how it was obtained.

    Attributes
    ----------
    model : estimator
        Fitted on the observed rows with ``params`` set.
    params : dict or None
        The selected grid point (plain Python values); None when tuning was off.
    tune_seconds : float
        Wall time of the grid search (0 without tuning).
    fit_seconds : float
        Wall time of the final refit.
    n_train : int
        Rows the model was fitted on (the observed ones).
    """

    model: Any
    params: dict | None
    tune_seconds: float
    fit_seconds: float
    n_train: int


def _plain(value):
    """NumPy scalars as Python ones, so the selected parameters serialise to JSON."""
    return value.item() if isinstance(value, np.generic) else value


def _rmse(predicted, y) -> float:
    return float(np.sqrt(np.mean((np.asarray(predicted).ravel() - y) ** 2)))


def _cv_rmse(template, params: dict, Z, y, folds) -> float:
    """Mean over ``folds`` of the validation RMSE of ``template`` with ``params``."""
    model = clone(template).set_params(**params)
    errors = []
    for train, test in folds:
        model.fit(Z[train], y[train])
        errors.append(_rmse(model.predict(Z[test]), y[test]))
    return float(np.mean(errors))


#: The parameters of an RBF ``SVR`` a grid may vary while the folds share one kernel per gamma.
_SVR_GRID_KEYS = frozenset({"C", "epsilon", "gamma", "tol", "shrinking", "max_iter"})


def _shares_rbf_kernels(template, points) -> bool:
    """Whether the grid is over an RBF :class:`~sklearn.svm.SVR` with numeric gammas, so that
    every point with the same gamma can reuse that gamma's kernel matrices."""
    if type(template) is not SVR or template.kernel != "rbf" or len(points) < 2:
        return False
    if any(not set(p) <= _SVR_GRID_KEYS for p in points):
        return False
    gammas = [p.get("gamma", template.gamma) for p in points]
    return all(isinstance(g, (int, float)) and not isinstance(g, bool) for g in gammas)


def _svr_cv_rmse(template, points, Z, y, folds) -> list[float]:
    """:func:`_cv_rmse` of every point of an RBF SVR grid, with each gamma's kernel matrices
    computed once per fold and LIBSVM fed them (``kernel="precomputed"``) for every ``C`` and
    ``epsilon``: LIBSVM otherwise evaluates the kernel from the inputs inside every fit, which
    dominates on sets with hundreds of features (atp1d: 2.9x less CPU for Eq. 3.3's grid). The
    kernel values differ from LIBSVM's own in the last bits only."""
    base = {k: v for k, v in template.get_params().items() if k not in ("kernel", "gamma")}
    scores = [0.0] * len(points)
    by_gamma: dict[float, list[int]] = {}
    for i, p in enumerate(points):
        by_gamma.setdefault(float(p.get("gamma", template.gamma)), []).append(i)
    for gamma, members in by_gamma.items():
        errors: dict[int, list[float]] = {i: [] for i in members}
        for tr, te in folds:  # one fold's kernels at a time: memory of one training kernel
            K_tr, K_te = rbf_kernel(Z[tr], gamma=gamma), rbf_kernel(Z[te], Z[tr], gamma=gamma)
            for i in members:
                params = {k: v for k, v in points[i].items() if k != "gamma"}
                model = SVR(**{**base, **params, "kernel": "precomputed"}).fit(K_tr, y[tr])
                errors[i].append(_rmse(model.predict(K_te), y[te]))
        for i in members:
            scores[i] = float(np.mean(errors[i]))
    return scores


def _grid_search(template, param_grid, Z, y, n_folds: int, seed: int, n_jobs) -> dict:
    """The grid point with the smallest mean inner-CV RMSE, the first in grid order on ties.

    This is ``GridSearchCV(scoring="neg_root_mean_squared_error", refit=False)`` without its
    per-fit bookkeeping, which costs more than fitting an SVR on a few hundred rows (2-3x on
    the MTR quick profile): the same folds, and the same choice but for near-ties, since an
    RBF SVR grid fed its kernels (:func:`_svr_cv_rmse`, used when ``n_jobs`` is None or 1)
    scores differently from LIBSVM's own kernel in the last bits.
    """
    folds = list(KFold(n_folds, shuffle=True, random_state=seed).split(Z))
    points = list(ParameterGrid(param_grid))
    if _shares_rbf_kernels(template, points) and n_jobs in (None, 1):
        scores = _svr_cv_rmse(template, points, Z, y, folds)
    elif n_jobs in (None, 1) or len(points) == 1:
        scores = [_cv_rmse(template, p, Z, y, folds) for p in points]
    else:
        scores = Parallel(n_jobs=n_jobs)(
            delayed(_cv_rmse)(template, p, Z, y, folds) for p in points
        )
    return {k: _plain(v) for k, v in points[int(np.argmin(scores))].items()}


def fit_tuned(estimator, Z, y, *, param_grid=None, inner_cv=None, n_jobs=None, seed=0) -> TunedFit:
    """Fit one single-target model on the rows where ``y`` is observed, tuned if asked.

    Parameters
    ----------
    estimator : regressor
        Template; it is cloned (and its unset ``random_state`` seeded), never fitted itself.
    Z : ndarray of shape (n, p)
        Inputs.
    y : ndarray of shape (n,)
        Target; NaN rows are left out.
    param_grid : dict, list of dict or None
        Grid of ``estimator`` parameters (already resolved, see :func:`resolve_param_grid`).
    inner_cv : int or None
        Folds of the inner CV (``KFold``, shuffled); ``None`` or 0 disables tuning. With
        fewer observed rows than folds, one row per fold; with fewer than 2 rows, no tuning.
    n_jobs : int or None
        Parallel fits of the grid search.
    seed : int
        Seeds the inner folds and the estimator's unset ``random_state``.

    Returns
    -------
    TunedFit
        The grid point with the smallest mean inner-CV RMSE (the first in grid order on
        ties), and the model refitted with it on all observed rows.
    """
    observed = ~np.isnan(y)
    if not observed.all():
        Z, y = Z[observed], y[observed]
    template = seeded(estimator, derive_seed(seed, "estimator"))
    params, tune_seconds = None, 0.0
    n_folds = min(int(inner_cv or 0), len(y))
    if param_grid and n_folds >= 2:
        t0 = time.perf_counter()
        params = _grid_search(
            template, param_grid, Z, y, n_folds, derive_seed(seed, "inner_cv"), n_jobs
        )
        tune_seconds = time.perf_counter() - t0
        template.set_params(**params)
    t0 = time.perf_counter()
    model = clone(template).fit(Z, y)
    return TunedFit(model, params, tune_seconds, time.perf_counter() - t0, int(len(y)))


def out_of_fold_predict(model, Z, y, *, n_folds: int, seed: int) -> np.ndarray:
    """Out-of-fold predictions of every row of ``Z`` by clones of ``model``.

    The rows are split by a shuffled ``KFold(n_folds)`` (at most one fold per row); each
    fold is predicted by a clone of ``model`` (same parameters) fitted on the other folds'
    rows where ``y`` is observed. This is ``cross_val_predict`` except that rows with a
    missing target still get a prediction but never train. A fold whose training part has
    no observed target is predicted by ``model`` itself.

    Returns
    -------
    ndarray of shape (n,)
    """
    n = Z.shape[0]
    out = np.empty(n)
    k = min(n_folds, n)
    if k < 2:
        return np.asarray(model.predict(Z), dtype=np.float64).ravel()
    observed = ~np.isnan(y)
    for train, test in KFold(k, shuffle=True, random_state=seed).split(Z):
        train = train[observed[train]]
        fold_model = clone(model).fit(Z[train], y[train]) if train.size else model
        out[test] = np.asarray(fold_model.predict(Z[test]), dtype=np.float64).ravel()
    return out
