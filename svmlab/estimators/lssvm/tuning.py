"""The thesis's (C, sigma) search: 10-fold grid search on the full LSSVM
(Oliveira (2021), Sec. 3.3.1: "gamma and sigma tuned by 10-fold grid search on plain LSSVM and
reused by all LSSVM variants"; grid spec A5). The thesis's regularisation gamma is svmlab's
``C``, and its width sigma enters as the RBF precision ``gamma = 1 / sigma^2``
(:mod:`svmlab.estimators.lssvm._params`): the search runs over ``(gamma, C)``.

For every ``gamma`` and fold the training part's kernel is eigendecomposed once
(:class:`~svmlab.estimators.lssvm._kkt.EigenKKT`) and every ``C`` of the grid then costs
``O(N^2)`` (the validation outputs ``K_val,tr U beta + b`` come from ``W = K_val,tr U``,
computed once per fold). Folds are ``StratifiedKFold`` (classification) or ``KFold``
(regression), shuffled with ``random_state``, so the search is deterministic.

Selection: the highest pooled accuracy (the fraction of all samples predicted right when they
were in the validation fold) or the lowest pooled MSE; ties go to the first pair in the order
gamma-major, C-minor of the given grids. ``f(x) >= 0`` predicts +1, as
:class:`~svmlab.estimators.lssvm.LSSVMClassifier` does.

Memory: the squared distances of the whole set (``N x N``) plus one kernel and one
eigenbasis per fold: meant for N up to a few thousand (the estimators tune on a
subsample above ``tune_max_samples``).

:class:`TunedCGammaMixin` is how every LSSVM estimator of the package (full, CC, FCC, FSA, SSD,
CCP) turns ``C=None`` / ``gamma=None`` into tuned values: the same subsample, folds and grids
for all, so that on the same training data they all arrive at the same ``(C, gamma)`` (the
thesis's protocol: tune once on the full LSSVM, reuse for every variant).
"""

from __future__ import annotations

from contextlib import nullcontext
from numbers import Real

import numpy as np
from sklearn.model_selection import KFold, StratifiedKFold, train_test_split
from sklearn.utils.validation import check_array, check_X_y
from threadpoolctl import threadpool_limits

from svmlab.estimators.lssvm._kkt import EigenKKT
from svmlab.estimators.lssvm._params import DEFAULT_CS, DEFAULT_GAMMAS
from svmlab.kernels import squared_euclidean

#: Up to this many samples the search runs with one BLAS thread: the many small
#: eigendecompositions are many times slower with threads on a loaded 2-core machine
#: (measured: 39 s against 1.1 s for N = 200).
SINGLE_THREAD_MAX_SAMPLES = 2000

__all__ = [
    "tune_lssvm",
    "cv_scores",
    "cv_folds",
    "subsample_for_tuning",
    "tuning_memory",
    "TunedCGammaMixin",
]

TASKS = ("auto", "classification", "regression")


def _task_and_targets(y, task):
    if task not in TASKS:
        raise ValueError(f"task must be one of {', '.join(TASKS)}, got {task!r}")
    values = np.unique(y)
    if task == "auto":
        task = "classification" if len(values) == 2 else "regression"
    if task == "classification":
        if len(values) != 2:
            raise ValueError(
                f"tune_lssvm: classification needs exactly 2 classes in y, got {len(values)}"
            )
        return task, np.where(y == values[1], 1.0, -1.0)
    return task, np.asarray(y, dtype=np.float64)


def cv_folds(y, task: str, n_folds: int, random_state):
    """The (train, validation) index pairs of the search: shuffled ``StratifiedKFold``
    (classification; at most as many folds as the smaller class has samples, at least 2) or
    ``KFold``."""
    if not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise ValueError(f"n_folds must be an integer >= 2, got {n_folds!r}")
    if task == "classification":
        smallest = int(np.bincount((y > 0).astype(int)).min())
        k = max(2, min(n_folds, smallest))
        splitter = StratifiedKFold(k, shuffle=True, random_state=random_state)
    else:
        splitter = KFold(min(n_folds, len(y)), shuffle=True, random_state=random_state)
    return list(splitter.split(np.zeros((len(y), 1)), y))


def cv_scores(
    X,
    y,
    *,
    Cs=DEFAULT_CS,
    gammas=DEFAULT_GAMMAS,
    n_folds=10,
    random_state=None,
    task="auto",
):
    """Pooled cross-validated score of every ``(gamma, C)``: accuracy (classification) or MSE
    (regression), shape ``(len(gammas), len(Cs))``, and the task used."""
    X, y = check_X_y(X, y, dtype=np.float64, y_numeric=False)
    task, t = _task_and_targets(y, task)
    Cs = [float(c) for c in np.atleast_1d(Cs)]
    gammas = [float(g) for g in np.atleast_1d(gammas)]
    if not Cs or not gammas or min(Cs) <= 0 or min(gammas) <= 0:
        raise ValueError("tune_lssvm: Cs and gammas must be non-empty lists of numbers > 0")
    folds = cv_folds(t, task, n_folds, random_state)
    # small systems: one BLAS thread is faster than several contending for the cores
    small = len(t) <= SINGLE_THREAD_MAX_SAMPLES
    with threadpool_limits(limits=1, user_api="blas") if small else nullcontext():
        return _grid_scores(X, t, task, folds, Cs, gammas), task


def _grid_scores(X, t, task, folds, Cs, gammas):
    D2 = squared_euclidean(X)
    total = np.zeros((len(gammas), len(Cs)))
    for i, gamma in enumerate(gammas):
        for train, val in folds:
            K_tr = np.exp(-gamma * D2[np.ix_(train, train)])
            system = EigenKKT(K_tr, t[train])
            W = np.exp(-gamma * D2[np.ix_(val, train)]) @ system.U
            for j, C in enumerate(Cs):
                beta, b = system.coefficients(C)
                f = W @ beta + b
                if task == "classification":
                    total[i, j] += np.sum(np.where(f >= 0, 1.0, -1.0) == t[val])
                else:
                    total[i, j] += np.sum((f - t[val]) ** 2)
    return total / len(t)


def tune_lssvm(
    X,
    y,
    *,
    Cs=DEFAULT_CS,
    gammas=DEFAULT_GAMMAS,
    n_folds=10,
    random_state=None,
    task="auto",
    memory=None,
) -> tuple[float, float]:
    """``(C, gamma)`` of the best full LSSVM by ``n_folds``-fold grid search.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Two class labels (classification) or real targets (regression).
    Cs, gammas : sequence of float
        The grids; default spec A5: ``C`` in ``2^{-5,-3,...,15}``, the thesis's ``sigma^2`` in
        ``2^{-7,-5,...,9}`` as ``gamma = 1 / sigma^2`` (:data:`DEFAULT_GAMMAS`).
    n_folds : int, default=10
    random_state : int, RandomState or None
        Seeds the fold shuffle.
    task : {"auto", "classification", "regression"}, default="auto"
        ``"auto"``: classification when ``y`` has exactly two distinct values.
    memory : str, joblib.Memory or None, default=None
        Cache the result (:func:`tuning_memory`): a second call with the same data, grids,
        folds and seed reads it instead of searching again.

    Returns
    -------
    C, gamma : float

    References
    ----------
    Oliveira (2021), Sec. 3.3.1; Suykens et al. (2002) for the eigendecomposition over C.
    """
    if memory is None or not isinstance(random_state, (int, np.integer)):
        search = _search  # a generator's draws would not be part of the cache's key
    else:
        search = tuning_memory(memory).cache(_search)
    Cs = [float(c) for c in np.atleast_1d(Cs)]
    gammas = [float(g) for g in np.atleast_1d(gammas)]
    return search(np.asarray(X), np.asarray(y), Cs, gammas, n_folds, random_state, task)


def _code_version() -> str:
    """Part of the cached search's key: the source of this module and of the eigen-solver it
    uses, and the NumPy / SciPy versions, so that a change to any of them searches anew."""
    import hashlib

    import scipy

    from svmlab.estimators.lssvm import _kkt

    digest = hashlib.sha256()
    for path in (__file__, _kkt.__file__):
        with open(path, "rb") as source:
            digest.update(source.read())
    digest.update(f"{np.__version__} {scipy.__version__}".encode())
    return digest.hexdigest()[:16]


_SEARCH_VERSION = _code_version()


def _search(X, y, Cs, gammas, n_folds, random_state, task, version=_SEARCH_VERSION):
    """:func:`tune_lssvm`'s search and choice (cached as a whole by ``memory``)."""
    scores, task = cv_scores(
        X, y, Cs=Cs, gammas=gammas, n_folds=n_folds, random_state=random_state, task=task
    )
    flat = np.argmax(scores) if task == "classification" else np.argmin(scores)
    i, j = np.unravel_index(flat, scores.shape)  # first best, gamma-major
    return float(Cs[j]), float(gammas[i])


def tuning_memory(memory):
    """The joblib cache ``memory`` names: ``"auto"`` is ``<svmlab cache>/lssvm-tuning``
    (:func:`svmlab.paths.cache_dir`), another string a directory, a ``joblib.Memory`` itself."""
    from sklearn.utils.validation import check_memory

    if isinstance(memory, str) and memory == "auto":
        from svmlab.paths import cache_dir

        memory = str(cache_dir() / "lssvm-tuning")
    return check_memory(memory)


def subsample_for_tuning(X, y, max_samples, random_state):
    """At most ``max_samples`` rows, stratified by label (classification), for the search on
    large sets; all rows when ``max_samples`` is None or not exceeded."""
    X = check_array(X)
    if max_samples is None or X.shape[0] <= max_samples:
        return X, y
    classes = np.unique(y)
    strat = y if len(classes) <= 2 else None
    Xs, _, ys, _ = train_test_split(
        X, y, train_size=int(max_samples), stratify=strat, random_state=random_state
    )
    return Xs, ys


def _check_grid(owner: str, name: str, grid) -> None:
    if grid is None:
        return
    values = list(np.atleast_1d(grid)) if not isinstance(grid, str) else [grid]
    ok = bool(values) and all(
        isinstance(v, Real) and not isinstance(v, bool) and np.isfinite(v) and v > 0 for v in values
    )
    if not ok:
        raise ValueError(
            f"{owner}: {name} must be None (spec A5 grid) or a non-empty list of numbers > 0, "
            f"got {grid!r}"
        )


class TunedCGammaMixin:
    """``C`` / ``gamma`` given, or tuned by :func:`tune_lssvm` when None: one implementation
    for every LSSVM estimator.

    The host stores the parameters ``C``, ``gamma``, ``Cs``, ``gammas``, ``tune_folds``,
    ``tune_max_samples``, ``tune_random_state`` and ``random_state`` (validated by
    :data:`~svmlab.estimators.lssvm._params.LSSVM_CONSTRAINTS`) and ``memory``. A None ``C``
    (``gamma``) is
    searched over ``Cs`` (``gammas``; None: the spec A5 grid), a given one is kept fixed; the
    search runs ``tune_folds``-fold on at most ``tune_max_samples`` rows (stratified for
    classification; :func:`subsample_for_tuning`), seeded by ``tune_random_state`` or, when
    that is None, ``random_state``.
    """

    def _check_grids(self) -> None:
        """One clear error for a grid ``Cs`` / ``gammas`` with a value that is not > 0."""
        owner = type(self).__name__
        _check_grid(owner, "Cs", self.Cs)
        _check_grid(owner, "gammas", self.gammas)

    def _tuning_record(self, C, gamma, tuned, n_tune) -> dict:
        """The hyper-parameters as every LSSVM's ``fit_info_`` records them."""
        return {"C": C, "gamma": gamma, "tuned": tuned, "tune_samples": n_tune}

    def _c_gamma(self, X, t, task: str) -> tuple[float, float, bool, int]:
        """``(C, gamma, tuned, tune_samples)`` for the training set ``X``, ``t`` (``+-1``
        labels for ``task="classification"``, real targets for ``"regression"``);
        ``tune_samples`` is 0 when nothing was tuned."""
        if self.C is not None and self.gamma is not None:
            return float(self.C), float(self.gamma), False, 0
        seed = self.random_state if self.tune_random_state is None else self.tune_random_state
        Xs, ts = subsample_for_tuning(X, t, self.tune_max_samples, seed)
        grid_C = DEFAULT_CS if self.Cs is None else self.Cs
        grid_g = DEFAULT_GAMMAS if self.gammas is None else self.gammas
        C, gamma = tune_lssvm(
            Xs,
            ts,
            Cs=[float(self.C)] if self.C is not None else [float(c) for c in grid_C],
            gammas=[float(self.gamma)] if self.gamma is not None else [float(g) for g in grid_g],
            n_folds=int(self.tune_folds),
            random_state=seed,
            task=task,
            memory=getattr(self, "memory", None),
        )
        return float(C), float(gamma), True, int(Xs.shape[0])
