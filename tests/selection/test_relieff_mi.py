"""ReliefF-MI (svmlab.selection.relieff_mi): the vectorised weights equal the formula-by-formula
transcription, relevant features rank first, and the paper's conventions hold (constant
features weigh 0, k capped, m a scale)."""

import numpy as np
import pytest

from svmlab.selection import (
    bag_distance_matrix,
    bag_distance_tables,
    rank_features,
    relieff_mi_terms,
    relieff_mi_weights,
    subset_size,
)
from svmlab.selection.relieff_mi import range_normalise
from svmlab.selection.relieff_mi_reference import relieff_mi_weights_reference

DISTANCES = ["min", "max", "avg", "adapted"]


def random_bags(seed=0, n=18, d=6, constant=2):
    """Bags of 1-5 instances, labels alternating, feature ``constant`` constant everywhere."""
    rng = np.random.default_rng(seed)
    bags = [rng.normal(size=(rng.integers(1, 6), d)) for _ in range(n)]
    for b in bags:
        b[:, constant] = 7.0
    return bags, np.arange(n) % 2


def planted_bags(seed=0, n=40, d=8):
    """Every instance of a positive bag is shifted on features 0 and 1; the rest is noise."""
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    bags = []
    for label in y:
        b = rng.normal(size=(rng.integers(2, 6), d))
        if label:
            b[:, :2] += 3.0
        bags.append(b)
    return bags, y


@pytest.mark.parametrize("distance", DISTANCES)
@pytest.mark.parametrize("metric", ["cityblock", "euclidean"])
def test_weights_equal_the_per_formula_transcription(distance, metric):
    bags, y = random_bags()
    fast = relieff_mi_weights(bags, y, distance=distance, k=4, m=18, instance_metric=metric)
    slow = relieff_mi_weights_reference(
        bags, y, distance=distance, k=4, m=18, instance_metric=metric
    )
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)
    assert fast[2] == 0.0  # a constant feature weighs exactly 0


@pytest.mark.parametrize("diff_pairs", ["min", "max", "avg"])
@pytest.mark.parametrize("distance", ["adapted", "min"])
def test_other_witness_pairs_equal_the_transcription(distance, diff_pairs):
    bags, y = random_bags(seed=6)
    fast = relieff_mi_weights(bags, y, distance=distance, k=4, m=18, diff_pairs=diff_pairs)
    slow = relieff_mi_weights_reference(
        bags, y, distance=distance, k=4, m=18, diff_pairs=diff_pairs
    )
    np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    ("distance", "diff_pairs"), [("max", "distance"), ("adapted", "distance"), ("min", "max")]
)
def test_the_reference_max_witness_equals_the_transcription(distance, diff_pairs):
    bags, y = random_bags(seed=8)
    kwargs = dict(distance=distance, k=4, m=18, diff_pairs=diff_pairs, max_witness="reference")
    fast = relieff_mi_weights(bags, y, **kwargs)
    np.testing.assert_allclose(fast, relieff_mi_weights_reference(bags, y, **kwargs), atol=1e-12)
    # the reference bag's pair is not always the larger direction's
    larger = relieff_mi_weights(bags, y, **{**kwargs, "max_witness": "larger"})
    assert not np.allclose(fast, larger)


def test_the_max_witness_leaves_the_min_and_avg_pairs_alone():
    bags, y = random_bags(seed=8)
    for distance in ("min", "avg"):
        np.testing.assert_array_equal(
            relieff_mi_weights(bags, y, distance=distance, k=3),
            relieff_mi_weights(bags, y, distance=distance, k=3, max_witness="reference"),
        )
    with pytest.raises(ValueError, match=r"max_witness must be one of \('larger', 'reference'\)"):
        relieff_mi_weights(bags, y, max_witness="forward")


def test_diff_pairs_change_the_differences_not_the_neighbours():
    bags, y = random_bags(seed=7)
    # with the distance's own pairs, a simple distance is its own diff_pairs
    for distance in ("min", "max", "avg"):
        np.testing.assert_array_equal(
            relieff_mi_weights(bags, y, distance=distance, k=3),
            relieff_mi_weights(bags, y, distance=distance, k=3, diff_pairs=distance),
        )
    # adapted with one kind of pairs differs from the paper's per-class-pair choice
    paper = relieff_mi_weights(bags, y, k=3)
    assert not np.allclose(paper, relieff_mi_weights(bags, y, k=3, diff_pairs="avg"))
    # and from that distance alone, because the neighbours are still ranked by adapted
    assert not np.allclose(
        relieff_mi_weights(bags, y, k=3, diff_pairs="avg"),
        relieff_mi_weights(bags, y, distance="avg", k=3),
    )


def test_the_terms_give_the_weights():
    bags, y = random_bags(seed=8)
    terms = relieff_mi_terms(bags, y, k=4, m=18)
    np.testing.assert_array_equal(terms.weights, relieff_mi_weights(bags, y, k=4, m=18))
    live = terms.span > 0
    np.testing.assert_allclose(terms.weights[live], (terms.misses - terms.hits)[live], atol=1e-15)
    assert terms.weights[2] == 0.0 and np.all(terms.hits >= 0) and np.all(terms.misses >= 0)


@pytest.mark.parametrize("distance", DISTANCES)
def test_relevant_features_rank_first(distance):
    bags, y = planted_bags()
    w = relieff_mi_weights(bags, y, distance=distance)
    assert set(rank_features(w)[:2]) == {0, 1}


def test_k_is_capped_at_the_class_size_and_m_only_scales():
    bags, y = random_bags(seed=3)
    capped = relieff_mi_weights(bags, y, k=80, m=18)
    np.testing.assert_allclose(capped, relieff_mi_weights(bags, y, k=9, m=18))  # 8 hits, 9 misses
    assert not np.allclose(capped, relieff_mi_weights(bags, y, k=5, m=18))
    np.testing.assert_allclose(relieff_mi_weights(bags, y, k=80, m=1), 18 * capped)


def test_random_sampling_is_seeded():
    bags, y = random_bags(seed=4)
    a = relieff_mi_weights(bags, y, sampling="random", m=10, random_state=1)
    b = relieff_mi_weights(bags, y, sampling="random", m=10, random_state=1)
    c = relieff_mi_weights(bags, y, sampling="random", m=10, random_state=2)
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, c)


def test_bag_distances_are_ordered_and_adapted_follows_the_labels():
    bags, y = random_bags(seed=5)
    X = np.vstack(bags)
    sizes = np.array([len(b) for b in bags])
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    t = bag_distance_tables(range_normalise(X)[0], starts, sizes)
    assert np.all(t.h_min <= t.h_avg + 1e-12) and np.all(t.h_avg <= t.h_max + 1e-12)
    np.testing.assert_allclose(t.h_max, t.h_max.T)
    H = bag_distance_matrix(t, "adapted", y == 1)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    np.testing.assert_array_equal(H[np.ix_(pos, pos)], t.h_min[np.ix_(pos, pos)])
    np.testing.assert_array_equal(H[np.ix_(neg, neg)], t.h_avg[np.ix_(neg, neg)])
    np.testing.assert_array_equal(H[np.ix_(pos, neg)], t.h_max[np.ix_(pos, neg)])


def test_ranking_conventions_and_subset_sizes():
    w = np.array([0.3, 0.0, -0.1, 0.3, 0.0])
    constant = np.array([False, True, False, False, False])
    np.testing.assert_array_equal(rank_features(w, constant), [0, 3, 1, 4, 2])
    np.testing.assert_array_equal(rank_features(w, constant, "rank_last"), [0, 3, 4, 2, 1])
    np.testing.assert_array_equal(rank_features(w, constant, "drop"), [0, 3, 4, 2])
    assert [subset_size(p / 10, 230) for p in range(1, 7)] == [23, 46, 69, 92, 115, 138]
    assert [subset_size(p / 10, 166) for p in range(1, 7)] == [17, 33, 50, 66, 83, 100]
    assert subset_size(0.1, 166, "floor") == 16


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"distance": "hausdorff"}, "distance must be one of"),
        ({"instance_metric": "cosine"}, "instance_metric must be one of"),
        ({"k": 0}, "k must be a positive integer"),
        ({"sampling": "some"}, "sampling must be one of"),
        ({"diff_pairs": "adapted"}, "diff_pairs must be one of"),
    ],
)
def test_bad_parameters_are_refused_with_one_line(kwargs, match):
    bags, y = random_bags()
    with pytest.raises(ValueError, match=match):
        relieff_mi_weights(bags, y, **kwargs)
