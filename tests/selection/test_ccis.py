"""CCIS (Oliveira (2021), Eqs. 3.7-3.10) on layouts whose corners are known by hand."""

import numpy as np
import pytest

from svmlab.selection import (
    ClassCornerSelector,
    corner_scores,
    nearest_prototype_distance,
)


def two_grids():
    """Two 5x5 unit grids side by side: class 0 at x = 0..4, class 1 at x = 5..9."""
    xx, yy = np.meshgrid(np.arange(10.0), np.arange(5.0), indexing="ij")
    X = np.c_[xx.ravel(), yy.ravel()]
    return X, (X[:, 0] >= 5).astype(int)


def checkerboard():
    """A 6x6 unit grid, four 3x3 quadrants of alternating class."""
    xx, yy = np.meshgrid(np.arange(6.0), np.arange(6.0), indexing="ij")
    X = np.c_[xx.ravel(), yy.ravel()]
    return X, ((X[:, 0] < 3) ^ (X[:, 1] < 3)).astype(int)


def naive_scores(X, y, K, R):
    """Eq. 3.8 by definition: K nearest others, 0 < d <= R, other label."""
    out = []
    for i in range(len(X)):
        d = np.linalg.norm(X - X[i], axis=1)
        d[i] = np.inf
        nb = np.argsort(d, kind="stable")[:K]
        out.append(int(np.sum((d[nb] > 0) & (d[nb] <= R) & (y[nb] != y[i]))))
    return np.array(out)


def test_border_columns_of_two_grids_are_the_prototypes():
    X, y = two_grids()
    sel = ClassCornerSelector(corner_threshold=0).fit(X, y)
    assert sel.radius_ == 1.0  # Eq. 3.10: the grid spacing
    expected = np.flatnonzero(np.isin(X[:, 0], [4, 5]))
    np.testing.assert_array_equal(sel.prototypes_, expected)
    np.testing.assert_array_equal(sel.corners_, expected)  # P = 0: SV = PS
    assert set(sel.scores_[expected]) == {1}


def test_checkerboard_corner_is_selected_and_sv_within_ps():
    X, y = checkerboard()
    sel = ClassCornerSelector(corner_threshold=3, r_factor=1.5).fit(X, y)  # 8-neighbourhood
    np.testing.assert_array_equal(sel.scores_, naive_scores(X, y, 16, 1.5))
    centre = np.flatnonzero(np.isin(X[:, 0], [2, 3]) & np.isin(X[:, 1], [2, 3]))
    np.testing.assert_array_equal(sel.corners_, centre)
    assert set(sel.corners_) <= set(sel.prototypes_)
    border = np.isin(X[:, 0], [2, 3]) | np.isin(X[:, 1], [2, 3])
    np.testing.assert_array_equal(sel.prototype_mask_, border)


def test_larger_p_gives_fewer_corners():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=300) > 0).astype(int)
    sizes = [len(ClassCornerSelector(corner_threshold=p).fit(X, y).corners_) for p in range(16)]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] > sizes[-1]
    sel = ClassCornerSelector().fit(X, y)
    assert set(sel.corners_) <= set(sel.prototypes_)


def test_scores_equal_the_definition_with_duplicates():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(120, 3))
    y = rng.integers(0, 3, 120)
    X = np.r_[X, X[:10], X[:5]]  # duplicates, some with another label
    y = np.r_[y, y[:10], (y[:5] + 1) % 3]
    scores, R = corner_scores(X, y, n_neighbors=8)
    d = np.linalg.norm(X[:, None] - X[None], axis=2)
    np.fill_diagonal(d, np.inf)
    assert R == pytest.approx(np.where(d > 0, d, np.inf).min(axis=1).max())
    # which of several equidistant copies fills the K-th slot is the search's choice:
    # compare the rows without a tie across the K-th neighbour
    ds = np.sort(d, axis=1)
    clear = ds[:, 7] < ds[:, 8]
    assert clear.sum() > 100
    np.testing.assert_array_equal(scores[clear], naive_scores(X, y, 8, R)[clear])


def test_zero_distance_duplicates_never_count_in_thesis_mode():
    X, y = two_grids()
    X2, y2 = np.r_[X, X[:1]], np.r_[y, 1]  # a copy of (0, 0) with the other label
    s_thesis, _ = corner_scores(X2, y2)
    assert s_thesis[0] == 0  # the copy at distance 0 is no neighbour
    assert s_thesis[-1] == 2  # the copy sees (1, 0) and (0, 1) of the other class
    s_code, _ = corner_scores(X2, y2, threshold_mode="author_code", radius=1.0)
    assert s_code[0] == 1 and s_code[-1] == 3  # the author's code counts distance 0


def test_author_code_thresholds_are_one_higher():
    X, y = two_grids()
    thesis = ClassCornerSelector(corner_threshold=2, r_factor=1.5).fit(X, y)
    code = ClassCornerSelector(corner_threshold=2, r_factor=1.5, threshold_mode="author_code")
    code.fit(X, y)
    np.testing.assert_array_equal(code.scores_, thesis.scores_)  # no duplicates: same count
    assert len(thesis.corners_) == 6  # Gamma = 3 on the inner border points
    assert len(code.corners_) == 0  # needs Gamma' > 3
    # R = 1: Gamma = 1 on the border, so PS is the border in thesis mode, empty in code mode
    assert len(ClassCornerSelector(corner_threshold=0).fit(X, y).prototypes_) == 10
    code1 = ClassCornerSelector(corner_threshold=0, threshold_mode="author_code").fit(X, y)
    assert len(code1.prototypes_) == 0


def test_nearest_prototype_distance():
    X, y = two_grids()
    sel = ClassCornerSelector().fit(X, y)
    ncd = nearest_prototype_distance(X, X[sel.prototypes_])
    np.testing.assert_allclose(ncd, np.minimum(np.abs(X[:, 0] - 4), np.abs(X[:, 0] - 5)))
    with pytest.raises(ValueError, match="prototype"):
        nearest_prototype_distance(X, X[:0])


@pytest.mark.parametrize(
    "params, match",
    [
        ({"n_neighbors": 0}, "n_neighbors"),
        ({"n_neighbors": 9, "corner_threshold": 9}, r"P=9, K=9"),
        ({"corner_threshold": 20}, r"P=20, K=16"),
        ({"threshold_mode": "x"}, "thesis, author_code"),
        ({"r_factor": 0}, "r_factor"),
        ({"radius": -1.0}, "radius"),
    ],
)
def test_bad_parameters_are_refused(params, match):
    X, y = two_grids()
    with pytest.raises(ValueError, match=match):
        ClassCornerSelector(**params).fit(X, y)


def test_bad_data_is_refused():
    with pytest.raises(ValueError, match="at least 2 samples"):
        corner_scores([[0.0]], [1])
    with pytest.raises(ValueError, match="at least 2 classes"):
        corner_scores([[0.0], [1.0]], [1, 1])
