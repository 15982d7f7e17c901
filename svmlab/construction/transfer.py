"""Feature-set transfer between learning tasks (Mierswa (2009), Ch. 10).

A learning task is represented **only** by relevance weights of a set of base features shared
by all tasks (Sec. 10.3): :func:`svm_feature_weights` gives the components of the normal of a
linear SVM's hyperplane (Thm. 10.2: such weights satisfy the weighting axioms W1-W4, exactly
only in the idealised argument of the proof, see below), :func:`task_distance` compares two
weight vectors (Thm. 10.3: the Manhattan distance satisfies the distance axioms D1-D5;
Thm. 10.1: the Euclidean distance violates D5). :func:`relief_feature_weights` is the Relief
baseline of Fig. 10.3 (Lemma 10.2: a per-feature weighting such as Relief violates W2).

:func:`construction_distance` compares the constructed features of two tasks by sampling
(Sec. 10.7.1, Figs. 10.5 and 10.6); the case base and the 2-phase retrieval that combines both
distances (Sec. 10.7.2) are in :mod:`svmlab.construction.case_base`.

Approximate axioms. The proof of Thm. 10.2 assumes that the optimal hyperplane does not change
when a base feature gets alternatives (W2) or irrelevant companions (W1, W4). For the
L2-regularised SVM this holds only approximately: a duplicated feature lets the SVM split its
coefficient ``v`` into ``(v/2, v/2)`` at half the penalty, i.e. the feature behaves as if it
were scaled by ``sqrt(2)``, and finite-sample weights of irrelevant features are small but not
zero. The smaller the regularisation (larger ``C``), the closer W2 and W4 hold.
"""

from __future__ import annotations

import numpy as np
from sklearn.svm import SVC, SVR
from sklearn.utils.multiclass import type_of_target

__all__ = [
    "construction_distance",
    "feature_distances",
    "relief_feature_weights",
    "svm_feature_weights",
    "task_distance",
]

_METRICS = ("manhattan", "euclidean")
_TASKS = ("auto", "classification", "regression")


def _check_xy(X, y, name):
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    if X.ndim != 2 or X.shape[0] < 2 or X.shape[1] < 1:
        raise ValueError(f"{name}: X must be a 2-D array with >= 2 rows, got shape {X.shape}")
    if y.ndim != 1 or y.shape[0] != X.shape[0]:
        raise ValueError(f"{name}: y must be 1-D with {X.shape[0]} entries, got {y.shape}")
    if not np.all(np.isfinite(X)):
        raise ValueError(f"{name}: X must be finite")
    return X, y


def _task(y, task, name) -> str:
    if task not in _TASKS:
        raise ValueError(f"{name}: task must be one of {list(_TASKS)}, got {task!r}")
    if task != "auto":
        return task
    kind = type_of_target(y)
    return "regression" if kind == "continuous" else "classification"


def _standardize(X):
    sd = X.std(axis=0)
    return (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)


def svm_feature_weights(
    X,
    y,
    *,
    C: float = 1.0,
    signed: bool = False,
    standardize: bool = True,
    task: str = "auto",
    epsilon: float = 0.1,
) -> np.ndarray:
    """Base-feature weights of a task: the normal ``w`` of a linear SVM (Mierswa (2009), Sec. 10.5,
    Thm. 10.2).

    Classification trains ``sklearn.svm.SVC(kernel="linear")``, regression
    ``sklearn.svm.SVR(kernel="linear")`` (libsvm: hinge / epsilon-insensitive loss, squared norm
    of ``w`` as regulariser, unregularised bias - the SVM of the thesis's Sec. 10.5; liblinear's
    LinearSVC/LinearSVR would also penalise the bias).

    Parameters
    ----------
    X : array (n, d)
        Base features of the task.
    y : array (n,)
        Target: class labels or real values.
    C : float
        SVM complexity constant (> 0).
    signed : bool
        Return the signed normal instead of ``|w|`` (the thesis does not say which; ``|w|``
        makes an inverted relation count as equally relevant).
    standardize : bool
        Standardise every feature to mean 0 / standard deviation 1 first and, for regression,
        the target as well, so that weights of different tasks are comparable (constant
        features become 0 and get weight 0).
    task : {"auto", "classification", "regression"}
        ``"auto"`` uses regression for a real-valued (continuous) target.
    epsilon : float
        Width of the SVR's insensitive tube (regression only), in units of the (standardised)
        target.

    Returns
    -------
    ndarray (d,)
        The weights. For more than two classes the mean of ``|w|`` over libsvm's one-vs-one
        hyperplanes (``signed=True`` is then refused).
    """
    name = "svm_feature_weights"
    X, y = _check_xy(X, y, name)
    if not np.isscalar(C) or not C > 0:
        raise ValueError(f"{name}: C must be a number > 0, got {C!r}")
    if not np.isscalar(epsilon) or not epsilon >= 0:
        raise ValueError(f"{name}: epsilon must be a number >= 0, got {epsilon!r}")
    kind = _task(y, task, name)
    if standardize:
        X = _standardize(X)
    if kind == "regression":
        y = np.asarray(y, dtype=np.float64)
        if standardize:
            y = _standardize(y[:, None])[:, 0]
        coef = SVR(kernel="linear", C=float(C), epsilon=float(epsilon)).fit(X, y).coef_
    else:
        if np.unique(y).size < 2:
            raise ValueError(f"{name}: y must contain at least two classes")
        coef = SVC(kernel="linear", C=float(C)).fit(X, y).coef_
    coef = np.asarray(coef, dtype=np.float64)
    if coef.shape[0] > 1:
        if signed:
            raise ValueError(f"{name}: signed=True needs a binary or regression task")
        return np.abs(coef).mean(axis=0)
    return coef[0] if signed else np.abs(coef[0])


def relief_feature_weights(
    X, y, *, n_neighbors: int = 10, task: str = "auto", random_state=None, n_samples=None
) -> np.ndarray:
    """Relief weights, the baseline of Mierswa (2009), Fig. 10.3 ("Relief + Euclidean").

    Classification: ReliefF (Kononenko 1994), regression: RReliefF (Robnik-Sikonja &
    Kononenko 1997), both with ``n_neighbors`` equally weighted nearest neighbours under the
    Manhattan distance of range-normalised features (the papers' rank-based neighbour influence
    is not used). Each weight is computed from the differences of its own feature, which is why
    Lemma 10.2 rules the method out (adding an alternative leaves the other weights unchanged).

    Parameters
    ----------
    X : array (n, d)
    y : array (n,)
    n_neighbors : int
        Neighbours per sampled instance (and per class for ReliefF's misses).
    task : {"auto", "classification", "regression"}
    random_state : int, Generator or None
        Draws the ``n_samples`` reference instances.
    n_samples : int or None
        Number of reference instances (all ``n`` if None).
    """
    name = "relief_feature_weights"
    X, y = _check_xy(X, y, name)
    if isinstance(n_neighbors, bool) or not isinstance(n_neighbors, int) or n_neighbors < 1:
        raise ValueError(f"{name}: n_neighbors must be an int >= 1, got {n_neighbors!r}")
    kind, n = _task(y, task, name), X.shape[0]
    span = np.ptp(X, axis=0)
    Z = X / np.where(span > 0, span, 1.0)
    rows = np.arange(n)
    if n_samples is not None:
        rows = np.random.default_rng(random_state).choice(
            n, size=min(int(n_samples), n), replace=False
        )
    diff = np.abs(Z[rows, None, :] - Z[None, :, :])  # (m, n, d)
    dist = diff.sum(axis=2)
    dist[np.arange(rows.size), rows] = np.inf  # an instance is not its own neighbour

    def nearest(mask):  # mean feature difference to the k nearest among the masked instances
        d = np.where(mask, dist, np.inf)
        k = max(1, min(n_neighbors, int(np.isfinite(d).sum(axis=1).min())))
        idx = np.argsort(d, axis=1, kind="stable")[:, :k]
        return np.take_along_axis(diff, idx[:, :, None], axis=1), idx

    if kind == "regression":
        y = np.asarray(y, dtype=np.float64)
        dA, idx = nearest(np.ones_like(dist, dtype=bool))
        dC = np.abs(y[rows, None] - y[idx]) / max(np.ptp(y), 1e-300)  # (m, k)
        N_dC, N_dA = dC.mean(axis=1).sum(), dA.mean(axis=1).sum(axis=0)
        N_both = (dC[:, :, None] * dA).mean(axis=1).sum(axis=0)
        m = rows.size
        return N_both / max(N_dC, 1e-300) - (N_dA - N_both) / max(m - N_dC, 1e-300)
    classes, codes = np.unique(y, return_inverse=True)
    if classes.size < 2:
        raise ValueError(f"{name}: y must contain at least two classes")
    prior = np.bincount(codes) / n
    same = codes[rows, None] == codes[None, :]
    w = -nearest(same)[0].mean(axis=1).sum(axis=0)
    for c in range(classes.size):
        scale = prior[c] / (1.0 - prior[codes[rows]])  # (m,)
        miss = nearest(codes[None, :] == c)[0].mean(axis=1)  # (m, d)
        w += ((codes[rows] != c)[:, None] * scale[:, None] * miss).sum(axis=0)
    return w / rows.size


def task_distance(w_i, w_j, metric: str = "manhattan"):
    """Distance of two tasks from their base-feature weights (Mierswa (2009), Sec. 10.3-10.5).

    ``"manhattan"``: ``sum_p |w_i[p] - w_j[p]|`` (Thm. 10.3, the thesis's recommendation);
    ``"euclidean"``: violates D5 (Thm. 10.1: an added alternative halves two weights, which
    halves that feature's squared term).

    Parameters
    ----------
    w_i : array (d,)
    w_j : array (d,) or (m, d)
        One weight vector, or one per row (then one distance per row).
    metric : {"manhattan", "euclidean"}

    Returns
    -------
    float or ndarray (m,)
    """
    if metric not in _METRICS:
        raise ValueError(f"task_distance: metric must be one of {list(_METRICS)}, got {metric!r}")
    w_i = np.asarray(w_i, dtype=np.float64)
    w_j = np.asarray(w_j, dtype=np.float64)
    if w_i.ndim != 1 or w_j.ndim not in (1, 2) or w_j.shape[-1] != w_i.shape[0]:
        raise ValueError(
            "task_distance: w_i must be 1-D and w_j 1-D or 2-D with the same number of "
            f"features, got shapes {w_i.shape} and {w_j.shape}"
        )
    delta = np.abs(w_j - w_i)
    d = delta.sum(axis=-1) if metric == "manhattan" else np.sqrt((delta**2).sum(axis=-1))
    return float(d) if np.ndim(d) == 0 else d


def _corr_distance(A, B) -> np.ndarray:
    """``1 - r^2`` (Pearson) between every column of A (m, a) and of B (m, b); 1 where a pair has
    fewer than 3 rows with finite values in both columns or either column is constant there."""
    out = np.ones((A.shape[1], B.shape[1]))
    fa, fb = np.isfinite(A), np.isfinite(B)
    for p in range(A.shape[1]):
        for q in range(B.shape[1]):
            rows = fa[:, p] & fb[:, q]
            if rows.sum() < 3:
                continue
            a, b = A[rows, p], B[rows, q]
            # scale to [-1, 1] first: Pearson's r is scale-invariant, and huge finite values
            # (exp(exp(x))) would otherwise overflow in the products
            a = a / max(np.abs(a).max(), 1e-300)
            b = b / max(np.abs(b).max(), 1e-300)
            a = a - a.mean()
            b = b - b.mean()
            na, nb = np.sqrt(a @ a), np.sqrt(b @ b)
            if na <= 1e-12 * np.sqrt(a.size) or nb <= 1e-12 * np.sqrt(b.size):
                continue  # (numerically) constant
            r = float(np.clip((a @ b) / (na * nb), -1.0, 1.0))
            out[p, q] = 1.0 - r * r
    return out


def _sample(sigma_i, sigma_j, n_samples, rng, name):
    sigma_i = np.asarray(sigma_i, dtype=np.float64)
    sigma_j = np.asarray(sigma_j, dtype=np.float64)
    if sigma_i.ndim != 1 or sigma_i.shape != sigma_j.shape:
        raise ValueError(
            f"{name}: sigma_i and sigma_j must be 1-D of equal length, got shapes "
            f"{sigma_i.shape} and {sigma_j.shape}"
        )
    if not (np.all(np.isfinite(sigma_i)) and np.all(np.isfinite(sigma_j))):
        raise ValueError(f"{name}: sigma_i and sigma_j must be finite")
    if isinstance(n_samples, bool) or not isinstance(n_samples, int | np.integer) or n_samples < 3:
        raise ValueError(f"{name}: n_samples must be an int >= 3, got {n_samples!r}")
    sigma = np.maximum(np.minimum(sigma_i, sigma_j), 0.0)  # Fig. 10.6: the narrower range
    return np.random.default_rng(rng).normal(size=(int(n_samples), sigma.size)) * sigma


def feature_distances(features_i, features_j, sigma_i, sigma_j, *, n_samples=100, rng=None):
    """``calc_distance`` of Mierswa (2009), Fig. 10.6, for every pair of features.

    ``m = n_samples`` artificial points are drawn with base feature ``p`` from
    ``N(0, min(sigma_i[p], sigma_j[p]))`` (the thesis transfers only standard deviations of
    mean-standardised data); both features are evaluated on them and the distance is
    ``1 - r^2`` with Pearson's ``r``. All pairs share one sample (the figure draws one per
    pair; the distribution of every entry is the same).

    A pair is at distance 1 (the value of uncorrelated features) when fewer than three points
    give finite values of both features or one of them is constant on those points; Pearson's
    ``r`` is undefined there.

    Returns
    -------
    ndarray (len(features_i), len(features_j))
    """
    Xs = _sample(sigma_i, sigma_j, n_samples, rng, "feature_distances")
    features_i, features_j = list(features_i), list(features_j)
    if not features_i or not features_j:
        return np.ones((len(features_i), len(features_j)))
    A = np.column_stack([f.evaluate(Xs) for f in features_i])
    B = np.column_stack([f.evaluate(Xs) for f in features_j])
    return _corr_distance(A, B)


def construction_distance(
    features_i, features_j, sigma_i, sigma_j, *, n_samples: int = 100, rng=None
) -> float:
    """Distance between the constructed features of two tasks (Mierswa (2009), Sec. 10.7.1,
    Fig. 10.5): the sum over the constructed features of task ``i`` of the smallest
    :func:`feature_distances` entry to a constructed feature of task ``j``.

    The measure is asymmetric (a task whose features are all covered by task ``j`` is at
    distance 0 from it, whatever else ``j`` constructs). A task ``i`` without constructed
    features is at distance 0; when task ``j`` has none, every feature of ``i`` contributes 1
    (the largest value of ``1 - r^2``) instead of Fig. 10.5's initial infinity, so that the
    2-phase combination stays finite.

    Parameters
    ----------
    features_i, features_j : sequence of :class:`svmlab.construction.expressions.Expr`
        Constructed features (expressions over the base features).
    sigma_i, sigma_j : array (d,)
        Standard deviations of the base features of the two tasks.
    n_samples : int
        Number ``m`` of artificial points (>= 3).
    rng : int, Generator or None

    Returns
    -------
    float in ``[0, len(features_i)]``
    """
    D = feature_distances(features_i, features_j, sigma_i, sigma_j, n_samples=n_samples, rng=rng)
    if D.shape[0] == 0:
        return 0.0
    if D.shape[1] == 0:
        return float(D.shape[0])
    return float(D.min(axis=1).sum())
