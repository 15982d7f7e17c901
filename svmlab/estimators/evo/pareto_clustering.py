"""Clustering from the MO-T-SVM Pareto front (Mierswa 2009, §5.4): fit MO-T-SVM with every row
unlabeled and read two-cluster assignments off the front."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from svmlab.estimators.evo.mo_tsvm import MOTSVMClassifier
from svmlab.nsga2 import non_dominated

__all__ = ["ParetoClustering", "pareto_clustering", "pareto_edges"]


def pareto_edges(F) -> dict[tuple[int, int], np.ndarray]:
    """The 2-D edge fronts of a 3-objective front (maximisation).

    For every pair of objectives ``(i, j)`` the indices (ascending) of the members that no
    other member dominates in those two objectives alone. For MO-T-SVM: ``(0, 1)`` is the
    classical SVM trade-off, ``(0, 2)`` max-margin clustering of the unlabeled rows, and
    ``(1, 2)`` the "overfitted clustering" (Mierswa (2009), Sec. 5.4.2).
    """
    F = np.asarray(F, dtype=np.float64)
    return {
        (i, j): non_dominated(F[:, [i, j]]) for i, j in itertools.combinations(range(F.shape[1]), 2)
    }


@dataclass
class ParetoClustering:
    """Result of :func:`pareto_clustering`.

    Attributes
    ----------
    estimator : MOTSVMClassifier
        The fitted MO-T-SVM (no labeled rows).
    members : ndarray of int
        Members of the margin / unlabeled-error edge front (objectives (I) and (III)), ordered
        by (III) ascending -- from the large-margin end to the fit-every-point end.
    labels : ndarray of shape (n_members, n_samples)
        Cluster (0 or 1) of every row for each of these members: its ``y*``.
    objectives : ndarray of shape (n_members, 2)
        (I) and (III) of these members.
    agreement : ndarray of shape (n_members,)
        Share of rows where the member's labelling equals its own prediction (decision
        function with the post-hoc bias): how self-consistent the clustering is.
    chosen : int or None
        Position in ``members`` of the suggested clustering: among the members whose smaller
        cluster has at least ``min_cluster_size`` rows, the most self-consistent one, of
        equal ones the largest margin (``None`` if no member qualifies). A heuristic of
        this implementation; the thesis chooses none.
    """

    estimator: MOTSVMClassifier
    members: np.ndarray
    labels: np.ndarray
    objectives: np.ndarray
    agreement: np.ndarray
    chosen: int | None


def pareto_clustering(X, *, min_cluster_size: int = 1, **params) -> ParetoClustering:
    """Two-cluster assignments read off the MO-T-SVM Pareto front of unlabeled data (Sec. 5.4.2).

    Fits :class:`MOTSVMClassifier` with every row unlabeled ("if no training data is given,
    we automatically get a clustering scheme") and returns the members of the edge front
    between margin (I) and the unlabeled dual sum (III), each with its labelling ``y*`` as a
    clustering. The thesis reports no quantitative clustering results; this is the
    demonstration.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    min_cluster_size : int, default=1
        Size the smaller cluster must reach for a member to be ``chosen``.
    **params
        Parameters of :class:`MOTSVMClassifier` (kernel, gamma, y_mode, population_size, ...).

    Returns
    -------
    ParetoClustering
    """
    X = np.asarray(X) if not hasattr(X, "tocsr") else X
    est = MOTSVMClassifier(**params).fit(X, np.full(X.shape[0], -1))
    F = est.pareto_front_
    edge = pareto_edges(F)[(0, 2)]
    edge = edge[np.lexsort((edge, F[edge, 2]))]
    labels = np.empty((len(edge), X.shape[0]), dtype=np.intp)
    labels[:, est.unlabeled_indices_] = (est.pareto_unlabeled_labels_[edge] > 0).astype(np.intp)
    sizes = labels.sum(axis=1)
    smaller = np.minimum(sizes, X.shape[0] - sizes)
    agreement = np.array(
        [np.mean(est.member(int(i)).predict(X) == lab) for i, lab in zip(edge, labels)]
    )
    ok = np.flatnonzero(smaller >= min_cluster_size)
    chosen = None
    if len(ok):  # most self-consistent, then largest margin, then first
        chosen = int(ok[np.lexsort((ok, -F[edge[ok], 0], -agreement[ok]))[0]])
    return ParetoClustering(est, edge, labels, F[edge][:, [0, 2]], agreement, chosen)
