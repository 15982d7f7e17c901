"""Synthetic and Iris-derived data sets of Mierswa (2009), Part II (feature space transformations).

I. Mierswa, *Non-Convex and Multi-Objective Optimization in Data Mining*, PhD thesis,
TU Dortmund, 2009:

* Ch. 6 (supervised MO feature selection / construction): :func:`mierswa_sum15`
  (Fig. 6.1, 15 equally important features) and :func:`mierswa_fx` (Sec. 6.5,
  ``f(X) = 3 X1^3 - X1^2 + 1000/|X1| + 2000 |X1|``);
* Ch. 8, Table 8.1 (unsupervised MO feature selection for clustering): :func:`mo_grid`
  (GRID), :func:`mo_random` (RANDOM), :func:`mo_gm` (GM), :func:`iris_nn` (IRIS-NN),
  :func:`iris_gn` (IRIS-GN), :func:`mo_spiral` (SPIRAL); IRIS is the bundled ``iris`` and
  WPBC the registered ``wpbc`` (:func:`wpbc_clustering_features` gives the columns the
  clustering uses);
* Ch. 9, Table 9.1 (feature aggregation): :func:`iris_m` (IRIS-M).

The thesis generated its synthetic sets with RapidMiner's example-set generator (Sec. 8.5.1:
"all experiments were performed with RapidMiner"); where the text leaves a detail open the
generators follow that generator's grid / random / spiral functions (value range
[-10, 10]) and say so. The clustering sets have no label; ``y`` holds the generating
cluster, class or spiral arm where one exists and zeros otherwise
(``meta["unlabelled"]``). Every clustering set records ``meta["noise_features"]``
(column indices of the added noise features) and ``meta["n_clusters"]`` (Table 8.1's k,
None where the table gives 0 or ``?``).
"""

from __future__ import annotations

import itertools

import numpy as np
from sklearn.datasets import load_iris
from sklearn.utils import check_random_state

from ..errors import ConfigError
from .dataset import Dataset
from .generation import generator

#: RapidMiner's example-set generator draws attribute values from [-10, 10] by default.
_RM_LOW, _RM_HIGH = -10.0, 10.0


def _clustering_meta(noise_features, n_clusters, unlabelled=False, **extra):
    return {
        "noise_features": [int(j) for j in noise_features],
        "n_clusters": n_clusters,
        "unlabelled": unlabelled,
        **extra,
    }


def _check_positive(name, param, value):
    if value <= 0:
        raise ConfigError(f"{name}: {param} must be positive, got {value!r}")


# --------------------------------------------------------------------------- Ch. 6
@generator
def mierswa_sum15(n_samples=500, n_features=15, n_noise=0, random_state=0) -> Dataset:
    """Fig. 6.1 of Mierswa (2009): ``n_features`` equally important features, label = their sum.

    Features are U(0, 1) (the thesis gives neither the distribution nor ``n``; 500 as in
    the Sec. 6.5 set). ``n_noise`` extra U(0, 1) columns that the label ignores may be
    appended (``meta["noise_features"]``).
    """
    _check_positive("mierswa_sum15", "n_features", n_features)
    rng = check_random_state(random_state)
    X = rng.uniform(0.0, 1.0, size=(n_samples, n_features + n_noise))
    names = [f"att{j + 1}" for j in range(n_features)] + [f"noise{j + 1}" for j in range(n_noise)]
    return Dataset(
        name="mierswa_sum15",
        task="regression",
        X=X,
        y=X[:, :n_features].sum(axis=1),
        feature_names=tuple(names),
        meta={"noise_features": list(range(n_features, n_features + n_noise))},
    )


@generator
def mierswa_sum15_noise(n_samples=500, n_features=15, n_noise=10, random_state=0) -> Dataset:
    """:func:`mierswa_sum15` with ``n_noise`` (default 10) extra U(0, 1) columns the label
    ignores: the set on which the front of Fig. 6.1 should turn vertical after the relevant
    features (Sec. 6.2.1). A name of its own, so its rows are not mixed with the plain set's."""
    ds = mierswa_sum15(n_samples, n_features, n_noise, random_state)
    return Dataset(
        name="mierswa_sum15_noise",
        task=ds.task,
        X=ds.X,
        y=ds.y,
        feature_names=ds.feature_names,
        meta={"noise_features": ds.meta["noise_features"]},
    )


def fx_target(x1):
    """``f(X) = 3 X1^3 - X1^2 + 1000/|X1| + 2000 |X1|`` of Mierswa (2009), Sec. 6.5."""
    x1 = np.asarray(x1, dtype=float)
    return 3.0 * x1**3 - x1**2 + 1000.0 / np.abs(x1) + 2000.0 * np.abs(x1)


_FX_NOISE = ("relative", "absolute")


@generator
def mierswa_fx(
    n_samples=500, low=-20.0, high=25.0, noise="relative", noise_level=0.02, random_state=0
) -> Dataset:
    """Sec. 6.5 of Mierswa (2009): ``y = f(X1) + eps`` with a pure-noise second feature X2.

    X1 ~ U[low, high] = U[-20, 25], X2 ~ N(0, 1), ``f`` as :func:`fx_target`. The thesis
    writes both "eps ~ N(0, 0.02)" and "2% label noise": ``noise="relative"`` (default)
    draws eps ~ N(0, (noise_level * |f(X1)|)^2), ``"absolute"`` eps ~ N(0, noise_level^2).
    ``meta["f"]`` holds the noise-free target.
    """
    if noise not in _FX_NOISE:
        raise ConfigError(f"mierswa_fx: noise must be one of {', '.join(_FX_NOISE)}, got {noise!r}")
    rng = check_random_state(random_state)
    x1 = rng.uniform(low, high, size=n_samples)
    x2 = rng.normal(0.0, 1.0, size=n_samples)
    f = fx_target(x1)
    scale = noise_level * np.abs(f) if noise == "relative" else noise_level
    y = f + rng.normal(0.0, 1.0, size=n_samples) * scale
    return Dataset(
        name="mierswa_fx",
        task="regression",
        X=np.column_stack([x1, x2]),
        y=y,
        feature_names=("X1", "X2"),
        meta={"noise_features": [1], "f": f},
    )


# --------------------------------------------------------------------------- Ch. 8, Table 8.1
@generator
def mo_grid(levels=5, n_dims=5, random_state=0) -> Dataset:
    """GRID of Mierswa (2009), Table 8.1: ``levels ** n_dims`` = 5^5 = 3125 equidistant points.

    As RapidMiner's grid function: the values per dimension are the centres of ``levels``
    equal cells of [-10, 10] (-8, -4, 0, 4, 8). The grid is fixed; ``random_state`` only
    permutes the rows (their order matters to k-means initialisation, not to the data).
    No cluster structure (Table 8.1: k = 0): ``y`` is all zeros.
    """
    _check_positive("mo_grid", "levels", levels)
    width = (_RM_HIGH - _RM_LOW) / levels
    values = _RM_LOW + width / 2 + width * np.arange(levels)
    X = np.array(list(itertools.product(values, repeat=n_dims)), dtype=float)[:, ::-1]
    X = X[check_random_state(random_state).permutation(len(X))]
    return Dataset(
        name="mo_grid",
        task="multiclass",
        X=X,
        y=np.zeros(len(X), dtype=np.int64),
        feature_names=tuple(f"att{j + 1}" for j in range(n_dims)),
        meta=_clustering_meta([], None, unlabelled=True),
    )


@generator
def mo_random(n_samples=500, n_features=10, random_state=0) -> Dataset:
    """RANDOM of Mierswa (2009), Table 8.1: uniform white noise, U(-10, 10) in every column.

    The range is RapidMiner's default (the thesis gives none; Table 8.1's sigma_n is
    printed as infinity). All columns are noise; no clusters (k = 0): ``y`` is all zeros.
    """
    rng = check_random_state(random_state)
    X = rng.uniform(_RM_LOW, _RM_HIGH, size=(n_samples, n_features))
    return Dataset(
        name="mo_random",
        task="multiclass",
        X=X,
        y=np.zeros(n_samples, dtype=np.int64),
        feature_names=tuple(f"noise{j + 1}" for j in range(n_features)),
        meta=_clustering_meta(range(n_features), None, unlabelled=True),
    )


@generator
def mo_gm(
    n_samples=1000,
    n_dims=5,
    spacing=2.0,
    sd_high=1.0,
    n_noise=10,
    noise_sd=0.5,
    random_state=0,
) -> Dataset:
    """GM of Mierswa (2009), Sec. 8.5.1 / Table 8.1: 32 Gaussian clusters in 5-D plus noise.

    ``2 ** n_dims`` = 32 clusters centred at the corners of a hypercube of edge ``spacing``
    (``{-spacing/2, +spacing/2}^n_dims``; the thesis gives no centres -- two clusters per
    dimension, as RapidMiner's mixture generator counts them); each cluster has its own
    standard deviation per dimension drawn from U(0, ``sd_high``) ("random standard
    deviations between 0.0 and 1.0"); points pick a cluster uniformly. ``n_noise`` = 10
    N(0, ``noise_sd`` = 0.5) noise columns follow. Table 8.1's sigma_o = 0.5 is the mean of
    the cluster standard deviations (``meta["cluster_sd"]``), not the spread of the
    original columns. ``y`` is the cluster index (corner bits, first dimension highest).
    """
    _check_positive("mo_gm", "spacing", spacing)
    rng = check_random_state(random_state)
    n_clusters = 2**n_dims
    corners = np.array(list(itertools.product((-0.5, 0.5), repeat=n_dims))) * spacing
    cluster_sd = rng.uniform(0.0, sd_high, size=(n_clusters, n_dims))
    y = rng.randint(n_clusters, size=n_samples)
    X = corners[y] + rng.normal(size=(n_samples, n_dims)) * cluster_sd[y]
    noise = rng.normal(0.0, noise_sd, size=(n_samples, n_noise))
    names = [f"att{j + 1}" for j in range(n_dims)] + [f"noise{j + 1}" for j in range(n_noise)]
    return Dataset(
        name="mo_gm",
        task="multiclass",
        X=np.hstack([X, noise]),
        y=y.astype(np.int64),
        feature_names=tuple(names),
        meta=_clustering_meta(
            range(n_dims, n_dims + n_noise), n_clusters, cluster_sd=cluster_sd.tolist()
        ),
    )


def _iris():
    iris = load_iris()
    names = tuple(n.replace(" (cm)", "").replace(" ", "_") for n in iris.feature_names)
    return iris.data, iris.target.astype(np.int64), names


@generator
def iris_nn(n_values=3, noise_sd=0.01, random_state=0) -> Dataset:
    """IRIS-NN of Mierswa (2009), Table 8.1: Iris plus one discrete-valued nominal noise feature.

    "A discrete-valued feature with randomly selected nominal values": each row draws one
    of ``n_values`` values uniformly; the values are equidistant and scaled so that their
    population standard deviation is ``noise_sd`` (Table 8.1: sigma_n = 0.01). ``y`` is the
    Iris class.
    """
    if n_values < 2:
        raise ConfigError(f"iris_nn: n_values must be at least 2, got {n_values!r}")
    rng = check_random_state(random_state)
    X, y, names = _iris()
    codes = np.arange(n_values, dtype=float)
    step = noise_sd / codes.std()
    noise = codes[rng.randint(n_values, size=len(X))] * step
    return Dataset(
        name="iris_nn",
        task="multiclass",
        X=np.column_stack([X, noise]),
        y=y,
        feature_names=(*names, "nominal_noise"),
        meta=_clustering_meta([X.shape[1]], 3),
    )


@generator
def iris_gn(n_noise=10, noise_sd=0.8, random_state=0) -> Dataset:
    """IRIS-GN of Mierswa (2009), Table 8.1: Iris plus ``n_noise`` = 10 N(0, 0.8) noise features."""
    rng = check_random_state(random_state)
    X, y, names = _iris()
    noise = rng.normal(0.0, noise_sd, size=(len(X), n_noise))
    return Dataset(
        name="iris_gn",
        task="multiclass",
        X=np.hstack([X, noise]),
        y=y,
        feature_names=(*names, *(f"noise{j + 1}" for j in range(n_noise))),
        meta=_clustering_meta(range(X.shape[1], X.shape[1] + n_noise), 3),
    )


@generator
def mo_spiral(
    n_samples=500, coordinate_noise=0.1, n_noise=5, noise_sd=5.5, random_state=0
) -> Dataset:
    """SPIRAL of Mierswa (2009), Fig. 8.1 / Table 8.1: two spirals plus 5 noise features.

    The two spiral dimensions follow RapidMiner's spiral cluster function: 3 turns, each arm
    ``n_samples / 2`` points at angles ``phi_i = 3 pi / 2 + i * delta`` (i = 1 ..), radius
    ``r = 10 phi / (6 pi - 3 pi / 2)``, minus 2 for the second arm, plus N(0, 0.1) noise per
    coordinate (their standard deviation is about 5.6, Table 8.1: sigma_o = 5.5). ``n_noise``
    N(0, ``noise_sd`` = 5.5) columns follow (sigma_n = 5.5). ``y`` is the arm (0, 1).
    """
    rng = check_random_state(random_state)
    start, span = 1.5 * np.pi, 6 * np.pi - 1.5 * np.pi
    sizes = (n_samples // 2, n_samples - n_samples // 2)
    delta = span / (n_samples / 2)
    arms = []
    for offset, size in zip((0.0, 2.0), sizes):
        phi = start + delta * np.arange(1, size + 1)
        r = 10.0 * phi / span - offset
        arms.append(np.column_stack([r * np.cos(phi), r * np.sin(phi)]))
    X = np.vstack(arms) + rng.normal(0.0, coordinate_noise, size=(n_samples, 2))
    noise = rng.normal(0.0, noise_sd, size=(n_samples, n_noise))
    y = np.repeat([0, 1], sizes).astype(np.int64)
    return Dataset(
        name="mo_spiral",
        task="binary",
        X=np.hstack([X, noise]),
        y=y,
        feature_names=("att1", "att2", *(f"noise{j + 1}" for j in range(n_noise))),
        meta=_clustering_meta(range(2, 2 + n_noise), 2),
    )


# --------------------------------------------------------------------------- Ch. 9, Table 9.1
@generator
def iris_m(random_state=0) -> Dataset:
    """IRIS-M of Mierswa (2009), Sec. 9.4 / Table 9.1: each Iris feature split into A and B.

    Per row and feature one of A, B (chosen at random) keeps the value ``v`` and the other
    gets U(0, v), so ``max(A, B)`` recovers the original (Iris values are positive).
    Columns are ordered ``f1_A, f1_B, f2_A, ...``; ``meta["original_feature"]`` maps each
    column to its Iris feature. ``y`` is the Iris class.
    """
    rng = check_random_state(random_state)
    X, y, names = _iris()
    keeps_a = rng.random_sample(X.shape) < 0.5
    other = rng.uniform(0.0, 1.0, size=X.shape) * X
    a = np.where(keeps_a, X, other)
    b = np.where(keeps_a, other, X)
    out = np.empty((X.shape[0], 2 * X.shape[1]))
    out[:, 0::2], out[:, 1::2] = a, b
    return Dataset(
        name="iris_m",
        task="multiclass",
        X=out,
        y=y,
        feature_names=tuple(f"{n}_{part}" for n in names for part in "AB"),
        meta={"original_feature": [j for j in range(X.shape[1]) for _ in "AB"], "n_clusters": 3},
    )


# --------------------------------------------------------------------------- WPBC (Table 8.1)
def wpbc_clustering_features(dataset: Dataset):
    """The WPBC columns the clustering uses (Table 8.1 of Mierswa (2009)), missing values filled.

    The registered ``wpbc`` (R ``TH.data::wpbc``) has the outcome (N/R) as ``y`` and 33
    numeric columns: time, the 30 cell-nucleus features, tumour size and lymph-node count.
    All 33 are used raw (unscaled): their mean standard deviation is 33.3, Table 8.1's
    sigma_o is 33.2. Table 8.1's m = 34 presumably counts the outcome or the ID column of the
    UCI file, neither of which describes the tumour. The 4 missing lymph-node counts are
    replaced by the column mean.

    Returns
    -------
    X : ndarray of shape (198, 33)
    feature_names : tuple of str
    """
    X = np.array(dataset.X, dtype=float)
    missing = np.isnan(X)
    if missing.any():
        X[missing] = np.take(np.nanmean(X, axis=0), np.nonzero(missing)[1])
    return X, tuple(dataset.feature_names)
