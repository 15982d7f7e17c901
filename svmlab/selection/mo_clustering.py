"""Multi-objective unsupervised feature selection for clustering (Mierswa (2009), Ch. 8;
docs/decisions/mo_features.md).

The thesis's *information-preserving* formulation (Sec. 8.4): NSGA-II searches bit masks over
the features for two objectives, both maximised --

* the number of selected features ``nf`` (maximised: a clustering should describe as much of
  the data as possible, and every cluster criterion improves as features are dropped, so
  maximising ``nf`` is what makes the two objectives compete), and
* the negated cluster criterion ``-omega`` of a clustering of the selected columns, with no
  normalisation by ``nf``: the Davies-Bouldin index ``omega_DB`` of a k-means clustering
  (Sec. 8.2.1) or the single-link criterion ``omega_{d-max}`` (Sec. 8.2.3).

The prior formulation it is compared with (Sec. 8.3; Kim, Street & Menczer, Morita et al.)
minimises ``omega / nf`` **and** ``nf``. Theorem 8.1 shows that for ``omega`` the k-means
within-cluster sum of squares this front collapses to one single-feature point; with
``omega_DB`` the ``1/nf`` factor still imposes an inverse-proportional shape even on pure
noise (Fig. 8.2). Both are :class:`ClusteringFeatureSelector` formulations.

The front's kinks segment it (Sec. 8.4.1): :func:`slope_changes` and
:func:`interesting_points` implement ``eta_p`` and ``Delta eta_p`` literally.
"""

from __future__ import annotations

from numbers import Integral

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from svmlab._sklearn_compat import Interval, StrOptions, _fit_context
from svmlab.selection.mo_search import SEARCH_CONSTRAINTS, MaskSearchMixin

__all__ = [
    "CRITERIA",
    "FORMULATIONS",
    "ClusteringFeatureSelector",
    "ClusteringObjective",
    "DEGENERATE_CRITERION",
    "cluster_criterion",
    "davies_bouldin",
    "interesting_points",
    "kmeans",
    "kth_largest_mst_edge",
    "slope_changes",
]

FORMULATIONS = ("information_preserving", "db_norm")
CRITERIA = ("davies_bouldin", "single_link", "within_ss")
CHOICES = ("interesting", "largest")

#: The criterion value of a degenerate clustering (fewer distinct points than clusters): a
#: finite "worst" value, so any proper clustering of the same size dominates it.
DEGENERATE_CRITERION = 1e6


# --------------------------------------------------------------------------- cluster criteria
def kth_largest_mst_edge(X: np.ndarray, k: int) -> float:
    """``omega_{d-max}`` of Sec. 8.2.3: the smallest threshold that leaves at most ``k`` single-link
    clusters, i.e. the ``k``-th largest edge of the Euclidean minimum spanning tree.

    Cutting the ``k - 1`` largest tree edges leaves exactly ``k`` connected components
    (single-link clusters); the largest remaining edge is the "weakest link" whose removal
    would split a cluster. Returns 0 when ``X`` has ``k`` or fewer distinct points.

    Prim's algorithm on the implicit complete graph: ``O(n^2 m)`` time and ``O(n)`` memory,
    no ``n x n`` distance matrix.
    """
    X = np.unique(np.asarray(X, dtype=np.float64), axis=0)
    n = len(X)
    if n <= k:
        return 0.0
    best = np.full(n, np.inf)  # squared distance of each point to the growing tree
    in_tree = np.zeros(n, dtype=bool)
    edges = np.empty(n - 1)
    current = 0
    for i in range(n - 1):
        in_tree[current] = True
        d = X - X[current]
        np.minimum(best, np.einsum("ij,ij->i", d, d), out=best)
        best[in_tree] = np.inf
        current = int(np.argmin(best))
        edges[i] = best[current]
    return float(np.sqrt(np.partition(edges, n - 1 - k)[n - 1 - k]))


def kmeans(X: np.ndarray, k: int, *, n_init=10, max_iter=100, seed=0, distinct=None):
    """k-means as Sec. 8.2.1 describes it (Lloyd's alternation); the best of ``n_init`` starts.

    Each start takes ``k`` random distinct data points as centroids ("the centroids are
    initialized with random data points"), then alternates assigning every point to its nearest
    centroid and moving each centroid to its cluster mean until no assignment changes or
    ``max_iter`` steps are done; a cluster that empties keeps its centroid. The start with the
    smallest within-cluster sum of squares ``omega`` wins (ties: the first).

    ``distinct`` may pass ``np.unique(X, axis=0)`` when the caller has it.

    Returns
    -------
    labels : ndarray of int, shape (n_samples,)
    centers : ndarray of shape (k, n_features)
    inertia : float
        ``omega`` of the returned clustering.
    """
    rng = np.random.RandomState(seed)
    if distinct is None:
        distinct = np.unique(X, axis=0)
    # all starts advance together (a start whose assignment no longer changes is a fixed
    # point of the update, so extra steps leave it as the sequential algorithm stops it)
    centers = np.stack(
        [distinct[rng.choice(len(distinct), k, replace=False)] for _ in range(n_init)]
    )
    sq = np.einsum("ij,ij->i", X, X)
    eye = np.eye(k)
    labels = None
    for _ in range(max_iter):
        d2 = sq[None, :, None] - 2.0 * X @ centers.transpose(0, 2, 1)
        d2 += np.einsum("sij,sij->si", centers, centers)[:, None, :]
        new = np.argmin(d2, axis=2)  # (n_init, n)
        if labels is not None and np.array_equal(new, labels):
            break
        labels = new
        onehot = eye[labels]  # (n_init, n, k)
        counts = onehot.sum(axis=1)
        sums = onehot.transpose(0, 2, 1) @ X
        full = counts > 0
        centers = np.where(full[..., None], sums / np.maximum(counts, 1)[..., None], centers)
    diff = X[None] - np.take_along_axis(centers, labels[..., None], axis=1)
    inertia = np.einsum("sij,sij->s", diff, diff)
    best = int(np.argmin(inertia))
    return labels[best], centers[best], float(inertia[best])


def davies_bouldin(X: np.ndarray, labels: np.ndarray) -> float:
    """``omega_DB`` of Sec. 8.2.1 (Davies & Bouldin), as scikit-learn's ``davies_bouldin_score``.

    ``(1/k) sum_q max_{r != q} (s_q + s_r) / d(c_q, c_r)`` over the non-empty clusters, with
    ``s_q`` the mean Euclidean distance of cluster ``q``'s points to its centroid ``c_q``.
    Like scikit-learn: coinciding centroids contribute 0, and the index is 0 when every
    ``s_q`` or every centroid distance is 0 (e.g. each cluster a single value).
    """
    _, labels = np.unique(labels, return_inverse=True)
    k = labels.max() + 1
    counts = np.bincount(labels, minlength=k)
    centers = np.zeros((k, X.shape[1]))
    np.add.at(centers, labels, X)
    centers /= counts[:, None]
    s = np.bincount(labels, weights=np.linalg.norm(X - centers[labels], axis=1), minlength=k)
    s /= counts
    diff = centers[:, None, :] - centers[None, :, :]
    dist = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    if np.allclose(s, 0) or np.allclose(dist, 0):
        return 0.0
    dist[dist == 0] = np.inf
    ratio = (s[:, None] + s[None, :]) / dist
    np.fill_diagonal(ratio, -np.inf)
    return float(np.mean(np.max(ratio, axis=1)))


def cluster_criterion(
    X: np.ndarray, k: int, criterion: str, *, n_init=10, max_iter=100, seed=0
) -> tuple[float, bool]:
    """The cluster criterion ``omega`` (minimised) of the columns ``X``; is it degenerate?

    Parameters
    ----------
    X : ndarray of shape (n_samples, nf)
    k : int
        Number of clusters.
    criterion : {"davies_bouldin", "single_link", "within_ss"}
        ``"davies_bouldin"``: ``omega_DB`` (Sec. 8.2.1, :func:`davies_bouldin`) of a
        :func:`kmeans` clustering; ``"within_ss"``: k-means' own ``omega`` (within-cluster sum
        of squares, Sec. 8.2.1; the criterion of Theorem 8.1); ``"single_link"``:
        :func:`kth_largest_mst_edge`.
    n_init, max_iter, seed
        :func:`kmeans` settings.

    Returns
    -------
    omega : float
    degenerate : bool
        True when ``X`` has fewer than ``k`` distinct rows, so k-means cannot form ``k``
        clusters, or for the Davies-Bouldin index with ``k = 1`` (it compares clusters);
        ``omega`` is then :data:`DEGENERATE_CRITERION`.
    """
    if criterion == "single_link":
        return kth_largest_mst_edge(X, k), False
    distinct = np.unique(X, axis=0)
    if len(distinct) < k or (criterion == "davies_bouldin" and k < 2):
        return DEGENERATE_CRITERION, True
    labels, _, inertia = kmeans(
        X, k, n_init=n_init, max_iter=max_iter, seed=seed, distinct=distinct
    )
    if criterion == "within_ss":
        return inertia, False
    # 0 when every cluster is a single value (a perfect clustering of discrete data, the
    # thesis's IRIS-NN case) -- kept as it is.
    return davies_bouldin(X, labels), False


class ClusteringObjective:
    """``mask -> objectives`` (maximised) of one formulation; picklable for joblib.

    ``"information_preserving"``: ``(-omega, nf)`` (Sec. 8.4). ``"db_norm"``:
    ``(-omega / nf, -nf)`` (Sec. 8.3). :meth:`omega` gives a mask's raw criterion and whether
    its clustering is degenerate.
    """

    def __init__(self, X, k, criterion, formulation, *, n_init=10, max_iter=100, seed=0):
        self.X, self.k, self.criterion, self.formulation = X, k, criterion, formulation
        self.n_init, self.max_iter, self.seed = n_init, max_iter, seed

    def omega(self, mask) -> tuple[float, bool]:
        return cluster_criterion(
            self.X[:, mask],
            self.k,
            self.criterion,
            n_init=self.n_init,
            max_iter=self.max_iter,
            seed=self.seed,
        )

    def objectives(self, omega: float, nf: int) -> tuple[float, float]:
        if self.formulation == "information_preserving":
            return -omega, float(nf)
        return -omega / nf, -float(nf)

    def __call__(self, mask):
        return self.objectives(self.omega(mask)[0], int(np.count_nonzero(mask)))


# --------------------------------------------------------------------------- segmentation
def slope_changes(n_features, criterion) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``eta_p`` and ``Delta eta_p`` of Sec. 8.4.1 along a Pareto front.

    The points are sorted by ``n_features`` (ascending). For consecutive points ``p, p+1``:
    ``eta_p = arctan((w_{p+1} - w_p) / (nf_{p+1} - nf_p))`` and
    ``Delta eta_p = eta_p / eta_{p-1}`` with ``eta_0 = pi / 2``. ``w`` is ``criterion`` as
    given -- :class:`ClusteringFeatureSelector` passes the maximised form ``-omega``.

    Guards: the last point has no ``eta`` (NaN); a point whose predecessor slope is 0 gets
    ``Delta eta = 1`` if its own slope is 0 too (no change) and ``+inf`` otherwise (a kink
    out of a flat stretch); of points with equal ``n_features`` (not possible on a 2-D front)
    only the first counts, the others get NaN.

    Returns
    -------
    order : ndarray of int
        The indices of the points sorted by ``n_features``.
    eta, delta_eta : ndarray of float
        Per input point (input order).
    """
    nf = np.asarray(n_features, dtype=np.float64)
    w = np.asarray(criterion, dtype=np.float64)
    order = np.argsort(nf, kind="stable")
    keep = order[np.r_[True, np.diff(nf[order]) > 0]]
    eta = np.full(len(nf), np.nan)
    delta = np.full(len(nf), np.nan)
    if len(keep) >= 2:
        slopes = np.arctan(np.diff(w[keep]) / np.diff(nf[keep]))
        previous = np.r_[np.pi / 2, slopes[:-1]]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = slopes / previous
        flat = previous == 0
        ratio[flat] = np.where(slopes[flat] == 0, 1.0, np.inf)
        eta[keep[:-1]] = slopes
        delta[keep[:-1]] = ratio
    return order, eta, delta


def interesting_points(n_features, criterion, n: int = 5) -> np.ndarray:
    """The ``n`` front points with the largest ``|Delta eta_p - 1|`` (Sec. 8.4.1, Fig. 8.6).

    Parameters
    ----------
    n_features : array-like of int
        ``nf`` of each front point.
    criterion : array-like of float
        ``w`` of each point; use the maximised form ``-omega`` (as the selector does).
    n : int, default=5
        Five in Fig. 8.6.

    Returns
    -------
    ndarray of int
        Indices into the input, most interesting first (ties: fewer features first). Points
        without ``Delta eta`` (the last one) are never chosen, so fewer than ``n`` may return.
    """
    order, _, delta = slope_changes(n_features, criterion)
    score = np.abs(delta - 1.0)
    candidates = [i for i in order if not np.isnan(delta[i])]
    rank = {i: r for r, i in enumerate(order)}
    candidates.sort(key=lambda i: (-score[i], rank[i]))
    return np.asarray(candidates[:n], dtype=np.intp)


# --------------------------------------------------------------------------- the estimator
class ClusteringFeatureSelector(MaskSearchMixin, SelectorMixin, BaseEstimator):
    """Multi-objective feature selection for clustering (Mierswa (2009), Ch. 8).

    NSGA-II (:func:`svmlab.selection.mo_search.search_masks`; population ``2m``, 1000
    generations, bit-flip ``1/m``, uniform crossover 0.9 by default, Sec. 8.4) searches feature
    subsets for a cluster criterion of a fixed number of clusters and the subset size. The
    non-dominated subsets are kept (:attr:`pareto_front_`), segmented by the kinks of the front
    (Sec. 8.4.1, :attr:`interesting_points_`), and one of them is the selection
    (``choose``).

    Parameters
    ----------
    n_clusters : int, default=2
        ``k``, fixed per data set (Table 8.1). ``1`` is accepted for the single-link and
        within-SS criteria; the Davies-Bouldin index needs two clusters (with ``k = 1`` every
        subset is degenerate).
    formulation : {"information_preserving", "db_norm"}, default="information_preserving"
        ``"information_preserving"`` (Sec. 8.4): maximise ``nf`` and ``-omega``.
        ``"db_norm"`` (Sec. 8.3, the prior approach): minimise ``omega / nf`` and ``nf``
        (with the Davies-Bouldin criterion this is Morita et al.'s ``omega_DB,norm``, with
        ``"within_ss"`` Kim et al.'s ``omega_norm`` of Theorem 8.1).
    criterion : {"davies_bouldin", "single_link", "within_ss"}, default="davies_bouldin"
        ``omega``: the Davies-Bouldin index of a k-means clustering (Sec. 8.2.1), the single-link
        weakest link ``omega_{d-max}`` read as the ``k``-th largest minimum-spanning-tree edge
        (Sec. 8.2.3, see :func:`kth_largest_mst_edge`), or k-means' within-cluster sum of
        squares (Sec. 8.2.1). All minimised.
    kmeans_n_init : int, default=10
        k-means restarts from random data points (Sec. 8.2.1; RapidMiner's k-means default).
    kmeans_max_iter : int, default=100
        k-means steps per start (RapidMiner's default).
    choose : {"interesting", "largest"} or int, default="interesting"
        The selected member: ``"interesting"`` the point with the largest ``|Delta eta - 1|``
        (the strongest kink of the front, Sec. 8.4.1); ``"largest"`` the member with the most
        features; an int ``q`` the member with the most features not above ``q`` (on an
        information-preserving front: the best clustering with ``q`` features), or the
        smallest member when all are larger.
    n_interesting : int, default=5
        How many interesting points to mark (Fig. 8.6: five).
    population_size : int, default=None
        NSGA-II population; ``None`` is ``2m`` (Sec. 8.4).
    max_generations : int, default=1000
        Sec. 8.4 (the thesis notes the front usually settles within 20 generations).
    crossover_rate : float, default=0.9
        Uniform crossover probability (Sec. 8.4).
    gene_mutation_rate : float, default=None
        Bit-flip probability per bit; ``None`` is ``1/m`` (Sec. 8.4).
    p_initial : float, default=0.5
        Probability that a feature is on in an initial individual.
    engine : {"rm", "pymoo"}, default="rm"
        See :mod:`svmlab.nsga2`.
    crowding : {"raw", "normalized"}, default="raw"
        Crowding distance of the ``"rm"`` engine.
    cache : bool, default=True
        Evaluate each distinct subset once.
    n_jobs : int, default=1
        joblib workers for the new subsets of a generation.
    random_state : int, RandomState instance or None, default=None
        Seeds the search and the k-means seed (one seed for every subset, so a subset's
        fitness is a deterministic function of the subset).
    record_history : bool, default=False
        Keep each generation's front in :attr:`history_`.

    Attributes
    ----------
    pareto_front_ : pandas.DataFrame
        One row per non-dominated subset, ascending in ``n_features``: ``n_features``,
        ``criterion`` (raw ``omega``), ``objective_criterion`` and ``objective_size`` (the
        two maximised objectives: ``-omega`` and ``nf``, or ``-omega/nf`` and ``-nf``),
        ``degenerate``, ``eta`` and ``delta_eta`` (Sec. 8.4.1, computed on ``(nf, -omega)``),
        ``features`` (column indices, or names when ``X`` had them).
    pareto_masks_ : ndarray of bool, shape (n_members, n_features_in_)
    interesting_points_ : ndarray of int
        Rows of :attr:`pareto_front_` with the largest ``|Delta eta - 1|``, most interesting
        first.
    chosen_ : int
        Row of :attr:`pareto_front_` that is selected.
    support_ : ndarray of bool, shape (n_features_in_,)
    history_ : list of ndarray
        With ``record_history``: per generation, the front's objective values.
    fit_info_ : dict
        Generations, evaluations, cache hit rate, the k-means seed and the front.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        When ``X`` had string column names.

    References
    ----------
    I. Mierswa, *Non-Convex and Multi-Objective Optimization in Data Mining*, PhD thesis,
    TU Dortmund, 2009, Ch. 8 (Secs. 8.2-8.5, Theorem 8.1, Table 8.1, Figs. 8.2-8.6).
    """

    _parameter_constraints: dict = {
        **SEARCH_CONSTRAINTS,
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "formulation": [StrOptions(set(FORMULATIONS))],
        "criterion": [StrOptions(set(CRITERIA))],
        "kmeans_n_init": [Interval(Integral, 1, None, closed="left")],
        "kmeans_max_iter": [Interval(Integral, 1, None, closed="left")],
        "choose": [StrOptions(set(CHOICES)), Interval(Integral, 1, None, closed="left")],
        "n_interesting": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        formulation="information_preserving",
        criterion="davies_bouldin",
        kmeans_n_init=10,
        kmeans_max_iter=100,
        choose="interesting",
        n_interesting=5,
        population_size=None,
        max_generations=1000,
        crossover_rate=0.9,
        gene_mutation_rate=None,
        p_initial=0.5,
        engine="rm",
        crowding="raw",
        cache=True,
        n_jobs=1,
        random_state=None,
        record_history=False,
    ):
        self.n_clusters = n_clusters
        self.formulation = formulation
        self.criterion = criterion
        self.kmeans_n_init = kmeans_n_init
        self.kmeans_max_iter = kmeans_max_iter
        self.choose = choose
        self.n_interesting = n_interesting
        self.population_size = population_size
        self.max_generations = max_generations
        self.crossover_rate = crossover_rate
        self.gene_mutation_rate = gene_mutation_rate
        self.p_initial = p_initial
        self.engine = engine
        self.crowding = crowding
        self.cache = cache
        self.n_jobs = n_jobs
        self.random_state = random_state
        self.record_history = record_history

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y=None):
        """Search the Pareto front of (cluster criterion, number of features).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : ignored
            Unsupervised; accepted for pipeline compatibility.

        Returns
        -------
        self
        """
        X = validate_data(self, X, dtype=np.float64)
        if self.n_clusters > X.shape[0]:
            raise ValueError(
                f"n_clusters must be at most n_samples={X.shape[0]}, got {self.n_clusters}"
            )
        rng = check_random_state(self.random_state)
        seed = int(rng.randint(2**31 - 1))
        objective = ClusteringObjective(
            X,
            int(self.n_clusters),
            self.criterion,
            self.formulation,
            n_init=self.kmeans_n_init,
            max_iter=self.kmeans_max_iter,
            seed=seed,
        )
        result = self._search_masks(objective, X.shape[1], rng)
        masks = result.masks
        nf = masks.sum(axis=1).astype(int)
        raw = [objective.omega(m) for m in masks]  # cheap: k-means is seeded, few members
        omega = np.array([r[0] for r in raw])
        _, eta, delta = slope_changes(nf, -omega)
        self.pareto_masks_ = masks
        self.pareto_front_ = pd.DataFrame(
            {
                "n_features": nf,
                "criterion": omega,
                "objective_criterion": result.objectives[:, 0],
                "objective_size": result.objectives[:, 1],
                "degenerate": [r[1] for r in raw],
                "eta": eta,
                "delta_eta": delta,
                "features": self._member_features(masks),
            }
        )
        self.interesting_points_ = interesting_points(nf, -omega, self.n_interesting)
        self.chosen_ = self._choose(nf)
        self.support_ = masks[self.chosen_].copy()
        if self.record_history:
            self.history_ = result.history
        self.fit_info_ = {
            "generations": result.generations,
            "population_size": len(result.population),
            "evaluations": result.n_evaluations,
            "requests": result.n_requests,
            "cache_hit_rate": round(result.cache_hit_rate, 4),
            "kmeans_seed": seed,
            "chosen": int(self.chosen_),
            "n_selected": int(self.support_.sum()),
            "interesting_points": self.interesting_points_.tolist(),
            "front": {
                "n_features": nf.tolist(),
                "criterion": [round(float(w), 6) for w in omega],
                "features": [np.flatnonzero(m).tolist() for m in masks],
            },
        }
        return self

    def _choose(self, nf: np.ndarray) -> int:
        if self.choose == "interesting":
            return int(self.interesting_points_[0]) if len(self.interesting_points_) else 0
        if self.choose == "largest":
            return int(np.argmax(nf))
        allowed = np.flatnonzero(nf <= self.choose)
        if not len(allowed):
            return int(np.argmin(nf))
        return int(allowed[np.argmax(nf[allowed])])

    def _get_support_mask(self):
        check_is_fitted(self, "support_")
        return self.support_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = False
        return tags
