"""Multi-objective feature selection for clustering (Mierswa (2009), Ch. 8)."""

from __future__ import annotations

import itertools
import runpy

import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components, minimum_spanning_tree
from scipy.spatial.distance import pdist, squareform
from sklearn.cluster import KMeans
from sklearn.datasets import load_iris
from sklearn.metrics import davies_bouldin_score
from sklearn.utils.estimator_checks import check_estimator

from svmlab.data import synthetic
from svmlab.nsga2 import dominates, non_dominated
from svmlab.paths import REPO_ROOT
from svmlab.selection.mo_clustering import (
    DEGENERATE_CRITERION,
    ClusteringFeatureSelector,
    ClusteringObjective,
    cluster_criterion,
    davies_bouldin,
    interesting_points,
    kmeans,
    kth_largest_mst_edge,
    slope_changes,
)

IRIS = load_iris().data


# --------------------------------------------------------------------------- Theorem 8.1
def test_theorem_8_1_normalised_front_collapses_on_a_fixed_assignment():
    """Minimising omega_norm = (1/nf) sum_p l_p and nf leaves one point: {argmin_p l_p};
    maximising nf with the unnormalised omega keeps one point per size instead."""
    rng = np.random.RandomState(3)
    X = rng.normal(size=(80, 6)) * rng.uniform(0.2, 2.0, size=6)
    labels = rng.randint(3, size=80)
    centres = np.array([X[labels == q].mean(axis=0) for q in range(3)])
    loss = ((X - centres[labels]) ** 2).sum(axis=0)  # l_p of the proof
    subsets = [np.array(s) for r in range(1, 7) for s in itertools.combinations(range(6), r)]
    nf = np.array([len(s) for s in subsets], dtype=float)
    omega = np.array([loss[s].sum() for s in subsets])
    norm_front = non_dominated(np.column_stack([-omega / nf, -nf]))
    assert len(norm_front) == 1
    assert subsets[norm_front[0]].tolist() == [int(np.argmin(loss))]
    info_front = non_dominated(np.column_stack([-omega, nf]))
    assert sorted(nf[info_front]) == [1, 2, 3, 4, 5, 6]
    for i in info_front:  # each size's best subset: its smallest losses
        assert omega[i] == pytest.approx(np.sort(loss)[: int(nf[i])].sum())


def test_db_norm_with_the_kmeans_criterion_collapses():
    """Thm. 8.1 through the selector: omega (within-SS) / nf against nf -> one 1-feature point."""
    sel = ClusteringFeatureSelector(
        3, formulation="db_norm", criterion="within_ss", max_generations=8, random_state=0
    ).fit(IRIS)
    single = [cluster_criterion(IRIS[:, [j]], 3, "within_ss")[0] for j in range(4)]
    assert len(sel.pareto_front_) == 1
    assert sel.pareto_front_["features"][0] == [int(np.argmin(single))]
    assert sel.support_.sum() == 1


# --------------------------------------------------------------------------- the fronts
@pytest.fixture(scope="module")
def iris_gn_selector():
    X = synthetic.generate("iris_gn").X
    return X, ClusteringFeatureSelector(3, max_generations=12, kmeans_n_init=2, random_state=0).fit(
        X
    )


def test_information_preserving_front_spans_many_sizes(iris_gn_selector):
    X, sel = iris_gn_selector
    front = sel.pareto_front_
    assert front["n_features"].nunique() == len(front) >= 10  # one subset per size, many sizes
    np.testing.assert_allclose(front["objective_criterion"], -front["criterion"])
    np.testing.assert_array_equal(front["objective_size"], front["n_features"])
    F = front[["objective_criterion", "objective_size"]].to_numpy()
    assert not any(dominates(a, b) for a in F for b in F)
    assert np.all(np.diff(front["criterion"]) > 0)  # more features, worse clustering
    # the four Iris columns cluster better than any mix with the N(0, 0.8) noise columns
    four = front[front["n_features"] == 4]
    if len(four):
        assert four["features"].iloc[0] == [0, 1, 2, 3]
    assert sel.support_.tolist() == sel.pareto_masks_[sel.chosen_].tolist()
    assert sel.transform(X).shape == (150, sel.support_.sum())
    assert sel.chosen_ == sel.interesting_points_[0]


def test_the_normalised_front_is_smaller_on_iris_gn(iris_gn_selector):
    X, right = iris_gn_selector
    left = ClusteringFeatureSelector(
        3, formulation="db_norm", max_generations=12, kmeans_n_init=2, random_state=0
    ).fit(X)
    assert len(left.pareto_front_) < len(right.pareto_front_)
    np.testing.assert_allclose(
        left.pareto_front_["objective_criterion"],
        -left.pareto_front_["criterion"] / left.pareto_front_["n_features"],
    )
    assert np.all(left.pareto_front_["objective_size"] == -left.pareto_front_["n_features"])


def test_same_seed_same_front_and_nominal_noise_collapses_db_norm():
    X = synthetic.generate("iris_nn").X
    fits = [
        ClusteringFeatureSelector(
            3, formulation=f, max_generations=5, kmeans_n_init=2, random_state=7
        ).fit(X)
        for f in ("db_norm", "db_norm", "information_preserving")
    ]
    assert fits[0].pareto_front_.equals(fits[1].pareto_front_)
    # the 3-valued noise column clusters perfectly (omega_DB = 0) on its own (Sec. 8.3)
    assert fits[0].pareto_front_["features"].tolist() == [[4]]
    assert fits[0].pareto_front_["criterion"][0] == 0.0
    assert len(fits[2].pareto_front_) == 5


# --------------------------------------------------------------------------- criteria
def test_single_link_criterion_is_the_kth_largest_mst_edge():
    rng = np.random.RandomState(0)
    X = np.vstack([rng.normal(c, 0.3, size=(40, 2)) for c in ((0, 0), (4, 0), (0, 5))])
    D = squareform(pdist(X))
    edges = np.sort(minimum_spanning_tree(D).data)
    for k in (1, 2, 3, 5):
        w = kth_largest_mst_edge(X, k)
        assert w == pytest.approx(edges[-k])
        # the smallest threshold with at most k single-link clusters
        assert connected_components(D <= w + 1e-12, directed=False)[0] <= k
        assert connected_components(D <= w - 1e-9, directed=False)[0] > k
    assert kth_largest_mst_edge(np.vstack([X[:3], X[:3]]), 3) == 0.0  # 3 distinct points


def test_davies_bouldin_and_kmeans_agree_with_scikit_learn():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(120, 3))
    labels = rng.randint(4, size=120)
    assert davies_bouldin(X, labels) == pytest.approx(davies_bouldin_score(X, labels))
    _, _, inertia = kmeans(IRIS, 3, n_init=10, seed=0)
    ref = KMeans(3, n_init=10, random_state=0).fit(IRIS).inertia_
    assert inertia == pytest.approx(ref, rel=1e-6)


def test_degenerate_clusterings_get_a_finite_worst_value():
    X = np.repeat([[0.0], [1.0]], 10, axis=0)
    assert cluster_criterion(X, 3, "davies_bouldin") == (DEGENERATE_CRITERION, True)
    objective = ClusteringObjective(np.hstack([X, X]), 3, "davies_bouldin", "db_norm")
    assert np.all(np.isfinite(objective(np.array([True, True]))))


# --------------------------------------------------------------------------- segmentation
def test_slope_changes_follow_section_8_4_1():
    nf = [3, 1, 2, 4]  # unsorted on purpose
    w = [-1.0, 0.0, -1.0, -3.0]
    order, eta, delta = slope_changes(nf, w)
    assert order.tolist() == [1, 2, 0, 3]
    assert eta[1] == pytest.approx(-np.pi / 4) and eta[2] == 0.0
    assert eta[0] == pytest.approx(np.arctan(-2.0)) and np.isnan(eta[3])
    assert delta[1] == pytest.approx(-0.5)  # eta_1 / eta_0, eta_0 = pi / 2
    assert delta[2] == 0.0
    assert delta[0] == np.inf  # a kink out of a flat stretch (eta_{p-1} = 0)
    assert interesting_points(nf, w, n=5).tolist() == [0, 1, 2]  # never the last point
    assert interesting_points([1, 2, 3], [0.0, 0.0, 0.0]).tolist() == [0, 1]  # Delta eta 0, 1


# --------------------------------------------------------------------------- API
def test_parameter_and_input_errors():
    with pytest.raises(ValueError, match="formulation"):
        ClusteringFeatureSelector(formulation="kim").fit(IRIS)
    with pytest.raises(ValueError, match="criterion"):
        ClusteringFeatureSelector(criterion="silhouette").fit(IRIS)
    with pytest.raises(ValueError, match="n_clusters must be at most n_samples=5"):
        ClusteringFeatureSelector(6).fit(IRIS[:5])


def test_choose_a_size():
    X = synthetic.generate("iris_nn").X
    sel = ClusteringFeatureSelector(
        3, choose=3, max_generations=5, kmeans_n_init=2, random_state=0
    ).fit(X)
    assert sel.support_.sum() == 3 and sel.fit_info_["n_selected"] == 3
    assert sel.get_params()["choose"] == 3


def test_fronts_script_quick_path(tmp_path, capsys):
    script = runpy.run_path(str(REPO_ROOT / "scripts" / "mo_clustering_fronts.py"))
    args = ["--sets", "IRIS-NN", "--segment", "IRIS-NN", "--generations", "2"]
    rows = script["main"]([*args, "--out", str(tmp_path)])
    assert rows[0]["data set"] == "IRIS-NN" and rows[0]["collapsed"] == "yes"  # the 1/nf front
    assert rows[0]["|right|"] > rows[0]["|left|"] and rows[0]["noise"] == "1 (1)"
    assert "IRIS-NN" in capsys.readouterr().out
    assert (tmp_path / "clustering_fronts.png").exists()
    assert (tmp_path / "clustering_segmentation.png").exists()


def test_scikit_learn_estimator_checks():
    est = ClusteringFeatureSelector(2, max_generations=1, kmeans_n_init=1, random_state=0)
    failed = [r for r in check_estimator(est, on_fail=None) if r["status"] == "failed"]
    assert failed == []
