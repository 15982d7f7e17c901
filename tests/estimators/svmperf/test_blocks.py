"""FeatureBlock: the products the cutting plane needs, whatever the storage of the features."""

import numpy as np
import pytest
import scipy.sparse as sp

from svmlab.estimators.svmperf.blocks import FeatureBlock


def _features(n=200, d=12, density=0.2, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(n, d)) * (rng.random((n, d)) < density)


@pytest.mark.parametrize("kind", ["dense_mostly_zero", "dense_full", "sparse"])
def test_constraint_columns_and_scores_equal_the_plain_products(kind):
    rng = np.random.default_rng(1)
    Phi = _features(density=1.0 if kind == "dense_full" else 0.2)
    block = FeatureBlock(sp.csr_matrix(Phi) if kind == "sparse" else Phi)
    G = []
    g = np.zeros(Phi.shape[0])
    for step in range(6):
        g = g.copy()
        flip = rng.choice(Phi.shape[0], size=3 if step % 2 else 150, replace=False)
        g[flip] = rng.normal(size=flip.size)  # few changed rows (updated) or many (full product)
        G.append(g)
        col = block.add(g)
        Gm = np.column_stack(G)
        assert col == pytest.approx(Gm.T @ Phi @ Phi.T @ g, rel=1e-12, abs=1e-12)
    alpha = rng.random(len(G))
    assert block.scores(alpha) == pytest.approx(Phi @ (Phi.T @ (Gm @ alpha)), rel=1e-12)
    assert block.coefficients(Gm, alpha) == pytest.approx(Phi.T @ Gm @ alpha, rel=1e-12)
    block.keep(np.array([True, False, True, True, False, True]))
    kept = Gm[:, [0, 2, 3, 5]]
    assert block.scores(alpha[:4]) == pytest.approx(Phi @ (Phi.T @ (kept @ alpha[:4])))


def test_the_given_features_stay_the_block_s_phi():
    Phi = _features()
    assert FeatureBlock(Phi).Phi is Phi
