"""Synthetic dataset generators: deterministic given ``random_state``, each returning a Dataset.

Every generator's keyword defaults are the registry's default parameters
(``conf/dataset/<name>.yaml``); :func:`generate` validates overrides.
"""

from __future__ import annotations

import inspect

import numpy as np
from sklearn.datasets import make_blobs, make_classification, make_moons
from sklearn.utils import check_random_state

from ..errors import ConfigError, UnknownNameError
from .dataset import Dataset
from .feature_sets import (
    iris_gn,
    iris_m,
    iris_nn,
    mierswa_fx,
    mierswa_sum15,
    mierswa_sum15_noise,
    mo_gm,
    mo_grid,
    mo_random,
    mo_spiral,
)
from .generation import generator as _generator
from .generation import plain as _plain


def _flip(y, rate, rng):
    """Flip binary 0/1 labels with probability ``rate`` (label noise)."""
    return np.where(rng.random_sample(len(y)) < rate, 1 - y, y) if rate > 0 else y


# --------------------------------------------------------------------------- classification
@_generator
def blobs(n_samples=300, n_features=2, centers=3, cluster_std=1.0, random_state=0) -> Dataset:
    """Isotropic Gaussian clusters, one class per cluster (:func:`sklearn.datasets.make_blobs`)."""
    X, y = make_blobs(
        n_samples=n_samples,
        n_features=n_features,
        centers=centers,
        cluster_std=cluster_std,
        random_state=random_state,
    )
    task = "binary" if len(np.unique(y)) <= 2 else "multiclass"
    return Dataset(name="blobs", task=task, X=X, y=y)


@_generator
def moons(n_samples=400, noise=0.1, random_state=0) -> Dataset:
    """Two interleaving half circles (:func:`sklearn.datasets.make_moons`), labels 0/1."""
    X, y = make_moons(n_samples=n_samples, noise=noise, random_state=random_state)
    return Dataset(name="moons", task="binary", X=X, y=y)


@_generator
def two_moons(n_samples=1001, noise=0.0, random_state=0) -> Dataset:
    """Two Moon (TMN), Oliveira (2021), Table 3: :func:`moons`, 1001 points, no noise (A17)."""
    X, y = make_moons(n_samples=n_samples, noise=noise, random_state=random_state)
    return Dataset(name="two_moons", task="binary", X=X, y=y)


@_generator
def spiral(n_samples=500, noise=0.75, n_turns=3, radius_offset=2.0, random_state=0) -> Dataset:
    """Two interleaved spirals (EvoSVM thesis, RapidMiner's spiral function, noisier arms).

    Each spiral has ``n_samples / 2`` points at angles phi from 3*pi/2 to
    ``n_turns * 2*pi`` in equal steps, radius ``r = 10 * phi / (n_turns*2*pi - 3*pi/2)``,
    minus ``radius_offset`` for the second spiral; Gaussian noise of standard
    deviation ``noise`` is added to each coordinate. Labels: 0 (first), 1 (second).

    The default ``noise=0.75`` is svmlab's calibration to the thesis's error rates
    (Mierswa 2009, Tables 3.3 and 4.2: 16-18 % with an RBF kernel, gamma = 1, C = 1);
    ``noise=0.1`` is RapidMiner's own generator, whose arms an RBF SVM separates without
    error (docs/decisions/data.md, "EvoSVM data sets").
    """
    rng = check_random_state(random_state)
    sizes = (n_samples // 2, n_samples - n_samples // 2)
    start, span = 1.5 * np.pi, n_turns * 2 * np.pi - 1.5 * np.pi
    parts, labels = [], []
    for label, (size, offset) in enumerate(zip(sizes, (0.0, radius_offset))):
        phi = start + span * np.arange(size) / size
        r = 10.0 * phi / span - offset
        parts.append(np.column_stack([r * np.cos(phi), r * np.sin(phi)]))
        labels.append(np.full(size, label))
    X = np.vstack(parts) + rng.normal(0.0, noise, size=(n_samples, 2))
    return Dataset(name="spiral", task="binary", X=X, y=np.concatenate(labels))


@_generator
def checkerboard(
    n_samples=1000, n_tiles=8, tile_size=5.0, label_noise=0.0, random_state=0
) -> Dataset:
    """Uniform points on an ``n_tiles x n_tiles`` board; class 1 where the tile parities agree."""
    rng = check_random_state(random_state)
    X = rng.uniform(0.0, n_tiles * tile_size, size=(n_samples, 2))
    tiles = np.floor(X / tile_size).astype(np.int64) % 2
    y = _flip((tiles[:, 0] == tiles[:, 1]).astype(np.int64), label_noise, rng)
    return Dataset(name="checkerboard", task="binary", X=X, y=y)


def _transductive(name, X, y, labeled) -> Dataset:
    """A transductive set: ``labeled`` rows train, all others are the unlabeled (test) rows."""
    labeled = np.sort(np.asarray(labeled, dtype=np.int64))
    rest = np.setdiff1d(np.arange(len(y)), labeled)
    split = {"train": labeled.tolist(), "test": rest.tolist()}
    return Dataset(name=name, task="binary", X=X, y=y, meta={"predefined_split": split})


@_generator
def four_clusters(n_per_cluster=1, cluster_std=0.05, random_state=0) -> Dataset:
    """4-Clusters (Mierswa 2009, Table 5.1, Fig. 5.1): the corners of a 1 x 8 rectangle.

    Lower-left (class 0) and upper-right (class 1) are labeled, upper-left (1) and lower-right
    (0) not (``predefined_split``); the y-distance is 8 times the x-distance (Fig. 5.1). The
    thesis gives no coordinates: the rectangle is centred at the origin, since Evo-T-SVM's
    b = 0 trick puts a linear kernel's hyperplane through the origin during the search (with
    a corner at the origin no labelling could separate). Each cluster has ``n_per_cluster``
    points (Table 5.1: 1, i.e. 2 labeled and 2 unlabeled) with Gaussian noise of std
    ``cluster_std`` around its corner (0: the exact corners).
    """
    rng = check_random_state(random_state)
    corners = np.array([[-0.5, -4.0], [0.5, 4.0], [-0.5, 4.0], [0.5, -4.0]])  # LL, UR, UL, LR
    X = np.repeat(corners, n_per_cluster, axis=0)
    X = X + cluster_std * rng.standard_normal(X.shape)
    y = np.repeat(np.array([0, 1, 1, 0], dtype=np.int64), n_per_cluster)
    return _transductive("four_clusters", X, y, [0, n_per_cluster])


@_generator
def three_clusters(n_per_cluster=50, cluster_std=0.75, n_labeled=2, random_state=0) -> Dataset:
    """3-Clusters (Mierswa 2009, Table 5.1, Figs. 5.4/5.5; geometry not given, svmlab's reading).

    Gaussian clusters centred at (0, 4) (class 1, ``n_labeled`` labeled), (0, 0.5) (class 1,
    all unlabeled: the middle cluster, a bit closer to the upper one) and (0, -4) (class 0,
    ``n_labeled`` labeled); Table 5.1: 4 labeled, 146 unlabeled.
    """
    rng = check_random_state(random_state)
    centres = np.array([[0.0, 4.0], [0.0, 0.5], [0.0, -4.0]])
    X = np.repeat(centres, n_per_cluster, axis=0)
    X = X + cluster_std * rng.standard_normal(X.shape)
    y = np.repeat(np.array([1, 1, 0], dtype=np.int64), n_per_cluster)
    labeled = np.r_[np.arange(n_labeled), 2 * n_per_cluster + np.arange(n_labeled)]
    return _transductive("three_clusters", X, y, labeled)


@_generator
def moons_transductive(
    n_samples=400, noise=0.1, n_labeled_upper=4, n_labeled_lower=3, random_state=0
) -> Dataset:
    """2-Moons (Mierswa 2009, Table 5.1, Figs. 5.6/5.7): :func:`moons` with 7 labeled points.

    ``n_labeled_upper`` points of the upper moon (class 0) and ``n_labeled_lower`` of the
    lower (class 1), drawn at random, are labeled; the rest unlabeled (Table 5.1: 7 and 393).
    """
    rng = check_random_state(random_state)
    X, y = make_moons(n_samples=n_samples, noise=noise, random_state=random_state)
    labeled = np.r_[
        rng.choice(np.flatnonzero(y == 0), n_labeled_upper, replace=False),
        rng.choice(np.flatnonzero(y == 1), n_labeled_lower, replace=False),
    ]
    return _transductive("moons_transductive", X, y, labeled)


# --------------------------------------------------------------------------- 1-D regression
@_generator
def artificial_sine(
    n_samples=200, low=-2 * np.pi, high=2 * np.pi, noise_low=0.25, noise_high=0.5, random_state=0
) -> Dataset:
    """Artificial I of Oliveira (2021), Sec. 4.3.3: ``y = x sin(1.5 x) + u``, u ~ U(0.25, 0.5).

    ``x`` is evenly spaced on ``[low, high]`` (the thesis gives no range; ambiguity A20
    takes [-2 pi, 2 pi]); the noise ``u`` is uniform on ``[noise_low, noise_high]``.
    """
    rng = check_random_state(random_state)
    x = np.linspace(low, high, n_samples)
    y = x * np.sin(1.5 * x) + rng.uniform(noise_low, noise_high, size=n_samples)
    return Dataset(name="artificial_sine", task="regression", X=x[:, None], y=y)


@_generator
def artificial_sinc(
    n_samples=200,
    low=-2 * np.pi,
    high=2 * np.pi,
    scale=3.0,
    noise_low=0.025,
    noise_high=0.05,
    random_state=0,
) -> Dataset:
    """Artificial II of Oliveira (2021), Sec. 4.3.3: ``y = 3 sin(x) / x + u``, u ~ U(0.025, 0.05).

    The OCR of the formula is unreadable; ambiguity A20 reads it as a sinc scaled by
    ``scale`` = 3, with ``x`` evenly spaced on ``[low, high]`` and ``sin(0)/0 = 1``.
    """
    rng = check_random_state(random_state)
    x = np.linspace(low, high, n_samples)
    y = scale * np.sinc(x / np.pi) + rng.uniform(noise_low, noise_high, size=n_samples)
    return Dataset(name="artificial_sinc", task="regression", X=x[:, None], y=y)


# --------------------------------------------------------------------------- multi-instance
@_generator
def mi_bags(
    n_bags=100,
    n_features=2,
    bag_size=(5, 15),
    positive_fraction=0.5,
    witness_rate=0.2,
    separation=4.0,
    random_state=0,
) -> Dataset:
    """Bags under the standard multi-instance assumption.

    Negative instances come from N(0, I); instances of the positive concept from
    N(mu, 0.5^2 I) with ``||mu|| = separation``. A bag is positive iff it holds at
    least one positive-concept instance: a positive bag of size s has
    ``1 + Binomial(s - 1, witness_rate)`` of them, a negative bag none.

    Returns
    -------
    Dataset
        ``multi_instance``; bag labels 0/1; ``meta["instance_labels"]`` marks the
        positive-concept instances (the witnesses).
    """
    rng = check_random_state(random_state)
    low, high = bag_size
    sizes = rng.randint(low, high + 1, size=n_bags)
    labels = np.zeros(n_bags, dtype=np.int64)
    labels[rng.permutation(n_bags)[: round(positive_fraction * n_bags)]] = 1
    mu = np.full(n_features, separation / np.sqrt(n_features))
    X, inst = [], []
    for size, label in zip(sizes, labels):
        n_pos = 1 + rng.binomial(size - 1, witness_rate) if label else 0
        flags = rng.permutation(np.r_[np.ones(n_pos, np.int64), np.zeros(size - n_pos, np.int64)])
        X.append(
            np.where(
                flags[:, None] == 1,
                mu + 0.5 * rng.normal(size=(size, n_features)),
                rng.normal(size=(size, n_features)),
            )
        )
        inst.append(flags)
    return Dataset(
        name="mi_bags",
        task="multi_instance",
        X=np.vstack(X),
        y=labels,
        bag_ids=np.repeat(np.arange(n_bags), sizes),
        meta={"instance_labels": np.concatenate(inst)},
    )


# ------------------------------------------------------------------ multi-target regression
@_generator
def mtr_correlated(
    n_samples=500, n_features=10, n_targets=4, correlation=0.8, noise=0.1, random_state=0
) -> Dataset:
    """Linear multi-target regression whose targets are correlated.

    ``Y = X W + E`` with X ~ N(0, I). The rows of W and of E are drawn with the
    target correlation matrix ``R = (1 - rho) I + rho 11^T`` (``rho = correlation``),
    so the targets share structure that chained / stacked models can exploit.
    ``noise`` is the noise standard deviation relative to the signal's.
    """
    rng = check_random_state(random_state)
    R = (1 - correlation) * np.eye(n_targets) + correlation * np.ones((n_targets, n_targets))
    L = np.linalg.cholesky(R)
    X = rng.normal(size=(n_samples, n_features))
    F = X @ (rng.normal(size=(n_features, n_targets)) @ L.T)
    Y = F + noise * F.std(axis=0) * (rng.normal(size=(n_samples, n_targets)) @ L.T)
    return Dataset(
        name="mtr_correlated",
        task="multitarget",
        X=X,
        Y=Y,
        target_names=tuple(f"y{k}" for k in range(n_targets)),
    )


# --------------------------------------------------------------------------- streams
@_generator
def drifting_stream(
    n_samples=20000, n_features=3, thresholds=(8.0, 9.0, 7.0, 9.5), noise=0.1, random_state=0
) -> Dataset:
    """SEA-concepts stream with abrupt drift (Street & Kim, 2001).

    Features are U(0, 10); only the first two are relevant. The stream is cut into
    ``len(thresholds)`` equal blocks; in block k the label is 1 iff
    ``x0 + x1 <= thresholds[k]``. Labels are flipped with probability ``noise``.
    ``meta["drift_points"]`` lists the first index of every new concept.
    """
    rng = check_random_state(random_state)
    if n_features < 2:
        raise ConfigError("drifting_stream needs n_features >= 2")
    X = rng.uniform(0.0, 10.0, size=(n_samples, n_features))
    concept = np.minimum(np.arange(n_samples) * len(thresholds) // n_samples, len(thresholds) - 1)
    y = _flip(
        (X[:, 0] + X[:, 1] <= np.asarray(thresholds, float)[concept]).astype(np.int64), noise, rng
    )
    drifts = np.flatnonzero(np.diff(concept)) + 1
    return Dataset(
        name="drifting_stream", task="stream", X=X, y=y, meta={"drift_points": drifts.tolist()}
    )


@_generator
def rotating_hyperplane(
    n_samples=20000, n_features=10, mag_change=0.001, noise=0.05, random_state=0
) -> Dataset:
    """Rotating-hyperplane stream with gradual drift (Hulten et al., 2001).

    ``x ~ U(0, 1)^d``; the label is 1 iff ``w_t . x >= sum(w_t) / 2``, where the
    weights move by ``mag_change`` per sample along a fixed random +-1 direction.
    """
    rng = check_random_state(random_state)
    X = rng.uniform(size=(n_samples, n_features))
    w0, direction = rng.uniform(size=n_features), rng.choice([-1.0, 1.0], size=n_features)
    W = w0 + mag_change * np.arange(n_samples)[:, None] * direction
    y = _flip(((X * W).sum(axis=1) >= W.sum(axis=1) / 2).astype(np.int64), noise, rng)
    return Dataset(name="rotating_hyperplane", task="stream", X=X, y=y)


@_generator
def random_rbf(
    n_samples=20000, n_features=10, n_classes=2, n_centroids=50, drift_speed=0.0, random_state=0
) -> Dataset:
    """Random-RBF stream (the MOA generator family the DSOLLAWV author tested on).

    ``n_centroids`` centres uniform in ``[0, 1]^d``, each with a random class, weight and
    spread; a sample picks a centre by weight and moves from it in a random direction by
    a Gaussian distance times the spread. With ``drift_speed > 0`` every centre moves
    that far per sample along its own random direction, bouncing off the unit cube.
    """
    rng = check_random_state(random_state)
    centres = rng.uniform(size=(n_centroids, n_features))
    labels = rng.randint(n_classes, size=n_centroids)
    weights = rng.uniform(size=n_centroids)
    spread = rng.uniform(size=n_centroids)
    velocity = rng.normal(size=(n_centroids, n_features))
    velocity *= drift_speed / np.linalg.norm(velocity, axis=1, keepdims=True)
    which = rng.choice(n_centroids, size=n_samples, p=weights / weights.sum())
    direction = rng.normal(size=(n_samples, n_features))
    direction /= np.linalg.norm(direction, axis=1, keepdims=True)
    step = np.arange(n_samples)[:, None]
    position = centres[which] + velocity[which] * step
    position = np.abs(((position + 1.0) % 2.0) - 1.0)  # reflect into [0, 1]
    X = position + direction * (rng.normal(size=(n_samples, 1)) * spread[which, None])
    return Dataset(name="random_rbf", task="stream", X=X, y=labels[which].astype(np.int64))


# --------------------------------------------------------------------------- MKLPO stand-ins
#: Amino-acid composition of UniProtKB/Swiss-Prot (release statistics, percent; rounded),
#: in the order of :data:`svmlab.data.kmers.AMINO_ACIDS`.
SWISSPROT_COMPOSITION = (
    8.25, 1.38, 5.46, 6.72, 3.86, 7.07, 2.27, 5.91, 5.80, 9.64,
    2.41, 4.06, 4.74, 3.93, 5.53, 6.64, 5.35, 6.86, 1.10, 2.92,
)  # fmt: skip


def allergen_sequences(
    scale=0.05,
    composition="swissprot",
    n_motifs=8,
    motif_length=(6, 12),
    mutation=0.15,
    confuser_rate=0.02,
    random_state=0,
):
    """The sequences of :func:`synthetic_allergen` (docs/decisions/svmperf.md, "Stand-in datasets").

    Returns
    -------
    sequences : list of str
    y : ndarray of int64
        1 for an allergen, -1 otherwise (positives first, then negatives).
    info : dict
        ``motifs`` (the planted family) and ``confusers`` (negatives carrying a motif).
    """
    from .kmers import AMINO_ACIDS

    if composition not in ("swissprot", "uniform"):
        raise ConfigError(f"composition must be swissprot or uniform, got {composition!r}")
    rng = check_random_state(random_state)
    letters = np.array(list(AMINO_ACIDS))
    p = np.asarray(SWISSPROT_COMPOSITION) if composition == "swissprot" else np.ones(20)
    p = p / p.sum()
    n_pos, n_neg = round(3907 * scale), round(39070 * scale)
    low, high = motif_length
    motifs = ["".join(rng.choice(letters, size=rng.randint(low, high + 1), p=p))
              for _ in range(n_motifs)]  # fmt: skip
    n = n_pos + n_neg
    lengths = np.clip(np.round(rng.lognormal(np.log(350), 0.5, size=n)), 50, 2000).astype(int)
    confusers = np.sort(n_pos + rng.choice(n_neg, size=round(confuser_rate * n_neg), replace=False))
    planted = np.zeros(n, dtype=np.int64)
    planted[:n_pos] = rng.randint(1, 4, size=n_pos)  # 1-3 motif instances per allergen
    planted[confusers] = 1
    sequences = []
    for length, count in zip(lengths, planted):
        seq = rng.choice(letters, size=length, p=p)
        for _ in range(count):
            motif = np.array(list(motifs[rng.randint(n_motifs)]))
            mutate = rng.random_sample(len(motif)) < mutation
            # a mutated residue becomes another residue, drawn by composition
            for j in np.flatnonzero(mutate):
                q = np.where(letters == motif[j], 0.0, p)
                motif[j] = rng.choice(letters, p=q / q.sum())
            start = rng.randint(length - len(motif) + 1)
            seq[start : start + len(motif)] = motif
        sequences.append("".join(seq))
    y = np.r_[np.ones(n_pos, np.int64), -np.ones(n_neg, np.int64)]
    return sequences, y, {"motifs": motifs, "confusers": len(confusers)}


@_generator
def synthetic_allergen(scale=0.05, k=2, random_state=0) -> Dataset:
    """Allergen-like protein sequences as k-mer bag-of-words (MKLPO stand-in for Allerdictor).

    A stand-in for the MKLPO paper's allergen data (docs/decisions/svmperf.md): 3,907 allergens (+1)
    and 39,070 non-allergens (-1) at ``scale`` = 1.0 (``round(3907 * scale)`` / ``round(39070 *
    scale)``; the default 0.05
    gives 195 / 1,954, a CI size). Residues are drawn from the Swiss-Prot composition;
    lengths are ``round(lognormal(log 350, 0.5))`` clipped to [50, 2000]. A family of 8
    motifs (lengths 6-12) is drawn once; every allergen carries 1-3 instances of family
    motifs, each residue mutated with probability 0.15 (to another residue), and 2 % of the
    non-allergens (confusers) carry one. Features: :func:`svmlab.data.kmers.kmer_features`
    over the 20 amino acids with window ``k`` (term frequencies, L2-normalised rows; the
    generated sequences have no non-standard letters). ``k`` = 2 gives 400 dense features;
    svmlab's choice for the real data, ``k`` = 3, gives 8,000 (dense float64: 8,000 x 8
    bytes per row). Rows are shuffled. ``allergen_sequences`` returns the raw sequences.
    """
    from .kmers import AMINO_ACIDS, kmer_features, kmer_vocabulary

    sequences, y, info = allergen_sequences(scale=scale, random_state=random_state)
    order = check_random_state(random_state).permutation(len(y))
    X = kmer_features([sequences[i] for i in order], k, AMINO_ACIDS, "drop")
    return Dataset(
        name="synthetic_allergen",
        task="binary",
        X=X,
        y=y[order],
        feature_names=tuple(kmer_vocabulary(k, AMINO_ACIDS, "drop")),
        meta={"positive_class": 1, **info},
    )


@_generator
def synthetic_lsvt(
    n_samples=126,
    n_features=309,
    n_positive=84,
    n_informative=15,
    n_redundant=30,
    class_sep=1.0,
    random_state=0,
) -> Dataset:
    """LSVT-like dense data: 126 x 309, 84 positives (+1, the majority) and 42 negatives (-1).

    A stand-in (docs/decisions/svmperf.md) for UCI LSVT Voice
    Rehabilitation (84 unacceptable = +1, 42 acceptable = -1). :func:`sklearn.datasets.
    make_classification` with ``n_informative`` Gaussian-cluster dimensions (2 clusters per
    class), ``n_redundant`` random linear combinations of them (correlated dimensions) and
    the remaining ``n_features - n_informative - n_redundant`` pure noise, no label noise,
    class weights chosen so exactly ``n_positive`` rows are positive. Rows are shuffled.
    """
    n_neg = n_samples - n_positive
    if not 0 < n_positive < n_samples:
        raise ConfigError(
            f"synthetic_lsvt: n_positive must be between 1 and n_samples - 1, got {n_positive}"
        )
    # make_classification gives class c int(n * w_c / 2) rows per cluster and deals the rest
    # out one per cluster, class 0's cluster first: pass the exact counts (nudged up so int()
    # cannot round down) and make an odd-sized positive class class 0 when the other is even
    pos = 0 if n_positive % 2 and not n_neg % 2 else 1
    counts = [n_neg, n_positive] if pos == 1 else [n_positive, n_neg]
    X, y01 = make_classification(
        n_samples=n_samples,
        n_features=n_features,
        n_informative=n_informative,
        n_redundant=n_redundant,
        n_repeated=0,
        n_classes=2,
        n_clusters_per_class=2,
        weights=[(c + 0.5) / n_samples for c in counts],
        flip_y=0.0,
        class_sep=class_sep,
        shuffle=True,
        random_state=random_state,
    )
    y = np.where(y01 == pos, 1, -1).astype(np.int64)
    if int((y == 1).sum()) != n_positive:  # pragma: no cover - guards the weights arithmetic
        raise ConfigError(
            f"synthetic_lsvt: got {(y == 1).sum()} positives for n_positive={n_positive}"
        )
    return Dataset(name="synthetic_lsvt", task="binary", X=X, y=y, meta={"positive_class": 1})


# --------------------------------------------------------------------------- registry helpers
GENERATORS = {
    f.__name__: f
    for f in (
        blobs,
        moons,
        two_moons,
        spiral,
        checkerboard,
        four_clusters,
        three_clusters,
        moons_transductive,
        mi_bags,
        mtr_correlated,
        drifting_stream,
        rotating_hyperplane,
        random_rbf,
        artificial_sine,
        artificial_sinc,
        synthetic_allergen,
        synthetic_lsvt,
        mierswa_sum15,
        mierswa_sum15_noise,
        mierswa_fx,
        mo_grid,
        mo_random,
        mo_gm,
        iris_nn,
        iris_gn,
        mo_spiral,
        iris_m,
    )
}


def default_params(name: str) -> dict:
    """The default keyword arguments of generator ``name``."""
    gen = _lookup(name)
    return {p.name: _plain(p.default) for p in inspect.signature(gen).parameters.values()}


def generate(name: str, params=None) -> Dataset:
    """Run generator ``name`` with ``params`` overriding its defaults.

    Raises
    ------
    UnknownNameError
        For an unknown generator.
    ConfigError
        For a parameter the generator does not take.
    """
    gen = _lookup(name)
    params = dict(params or {})
    valid = default_params(name)
    unknown = sorted(set(params) - set(valid))
    if unknown:
        raise ConfigError(
            f"synthetic dataset {name!r} has no parameter(s) {', '.join(unknown)}; "
            f"valid: {', '.join(valid)}"
        )
    return gen(**params)


def _lookup(name):
    try:
        return GENERATORS[name]
    except KeyError:
        raise UnknownNameError("synthetic dataset", name, GENERATORS) from None
