"""Mierswa (2009) Part II data sets: shapes, Table 8.1 statistics, construction, determinism."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_iris

from svmlab.data import feature_sets, load_dataset, synthetic

# Table 8.1 of Mierswa (2009): n, m, noise, sigma_o, sigma_n, k (None = "n.a." / 0 / "?").
TABLE_8_1 = {
    "mo_grid": (3125, 5, 0, None, None, None),
    "mo_random": (500, 10, 10, None, None, None),
    "mo_gm": (1000, 15, 10, 0.5, 0.5, 32),
    "iris_nn": (150, 5, 1, 0.8, 0.01, 3),
    "iris_gn": (150, 14, 10, 0.8, 0.8, 3),
    "mo_spiral": (500, 7, 5, 5.5, 5.5, 2),
}


def _sd(X, columns):
    return float(np.std(X[:, columns], axis=0, ddof=1).mean())


@pytest.mark.parametrize("name", sorted(TABLE_8_1))
def test_table_8_1_statistics(name):
    n, m, n_noise, sigma_o, sigma_n, k = TABLE_8_1[name]
    ds = synthetic.generate(name)
    noise = ds.meta["noise_features"]
    assert ds.X.shape == (n, m) and len(noise) == n_noise and ds.meta["n_clusters"] == k
    if sigma_n is not None:
        assert _sd(ds.X, noise) == pytest.approx(sigma_n, rel=0.08)
    if sigma_o is None:
        return
    original = [j for j in range(m) if j not in noise]
    if name == "mo_gm":  # sigma_o is the mean cluster standard deviation (decision)
        assert np.mean(ds.meta["cluster_sd"]) == pytest.approx(sigma_o, abs=0.05)
    elif name.startswith("iris"):  # Table 8.1's 0.8 is Iris's median column sd, not its mean
        assert np.median(np.std(ds.X[:, original], axis=0, ddof=1)) == pytest.approx(0.8, abs=0.01)
    else:
        assert _sd(ds.X, original) == pytest.approx(sigma_o, rel=0.05)


def test_grid_is_the_full_equidistant_grid():
    X = synthetic.generate("mo_grid").X
    levels = [-8.0, -4.0, 0.0, 4.0, 8.0]
    assert all(np.unique(X[:, j]).tolist() == levels for j in range(5))
    assert len(np.unique(X, axis=0)) == 3125
    shuffled = synthetic.generate("mo_grid", {"random_state": 3}).X
    assert not np.array_equal(X, shuffled)
    np.testing.assert_array_equal(np.unique(X, axis=0), np.unique(shuffled, axis=0))


def test_gm_clusters_sit_at_the_corners():
    ds = synthetic.generate("mo_gm", {"n_samples": 4000})
    assert np.unique(ds.y).size == 32
    for c in (0, 31):  # corner (-1, ..., -1) and (+1, ..., +1)
        centre = ds.X[ds.y == c, :5].mean(axis=0)
        np.testing.assert_allclose(centre, np.full(5, -1.0 if c == 0 else 1.0), atol=0.35)


def test_iris_variants_keep_iris():
    iris = load_iris()
    for name in ("iris_nn", "iris_gn"):
        ds = synthetic.generate(name)
        np.testing.assert_array_equal(ds.X[:, :4], iris.data)
        np.testing.assert_array_equal(ds.y, iris.target)
    nominal = synthetic.generate("iris_nn").X[:, 4]
    assert np.unique(nominal).size == 3  # discrete-valued


def test_iris_m_max_recovers_iris():
    ds = synthetic.generate("iris_m")
    iris = load_iris().data
    A, B = ds.X[:, 0::2], ds.X[:, 1::2]
    np.testing.assert_array_equal(np.maximum(A, B), iris)
    assert np.all(np.minimum(A, B) >= 0)
    assert 0.35 < np.mean(A == iris) < 0.65  # the kept half is chosen at random
    assert ds.meta["original_feature"] == [0, 0, 1, 1, 2, 2, 3, 3]


def test_spiral_arms():
    ds = synthetic.generate("mo_spiral")
    assert np.bincount(ds.y).tolist() == [250, 250] and ds.task == "binary"
    radius = np.hypot(ds.X[:, 0], ds.X[:, 1])
    # r = 10 phi / (4.5 pi) for phi up to 6 pi: 13.3, and 2 less on the second arm
    assert radius[ds.y == 0].max() == pytest.approx(40 / 3, abs=0.3)
    assert radius[ds.y == 1].max() == pytest.approx(40 / 3 - 2, abs=0.3)


def test_chapter_6_regression_sets():
    ds = synthetic.generate("mierswa_sum15", {"n_noise": 3})
    assert ds.X.shape == (500, 18) and ds.meta["noise_features"] == [15, 16, 17]
    np.testing.assert_allclose(ds.y, ds.X[:, :15].sum(axis=1))
    fx = synthetic.generate("mierswa_fx")
    x1 = fx.X[:, 0]
    assert fx.X.shape == (500, 2) and x1.min() >= -20 and x1.max() <= 25
    f = 3 * x1**3 - x1**2 + 1000 / np.abs(x1) + 2000 * np.abs(x1)
    np.testing.assert_allclose(fx.meta["f"], f)
    rel = (fx.y - f) / np.abs(f)
    assert np.std(rel) == pytest.approx(0.02, rel=0.15)
    absolute = synthetic.generate("mierswa_fx", {"noise": "absolute"})
    assert np.std(absolute.y - absolute.meta["f"]) == pytest.approx(0.02, rel=0.15)
    with pytest.raises(Exception, match="noise must be one of relative, absolute"):
        synthetic.generate("mierswa_fx", {"noise": "gaussian"})


@pytest.mark.data
def test_wpbc_clustering_columns():
    X, names = feature_sets.wpbc_clustering_features(load_dataset("wpbc"))
    assert X.shape == (198, 33) and not np.isnan(X).any() and names[0] == "time"
    assert np.std(X, axis=0, ddof=1).mean() == pytest.approx(33.2, abs=0.3)


@pytest.mark.parametrize("name", ["mo_gm", "iris_m", "mierswa_fx"])
def test_registered_and_deterministic(name):
    a, b = load_dataset(name), synthetic.generate(name)
    np.testing.assert_array_equal(a.X, b.X)
    assert a.meta["generator"] == name
