"""The cutting plane's result: the working-set vectors as a matrix stored whole on request."""

import numpy as np
import pytest

from svmlab.estimators.svmperf.working_set import ConstraintVectors


def test_constraint_vectors_behave_like_their_array():
    rng = np.random.default_rng(0)
    cols = [rng.normal(size=7) for _ in range(3)]
    G = ConstraintVectors(cols, 7)
    dense = np.column_stack(cols)
    assert G.shape == (7, 3) and np.array_equal(np.asarray(G), dense)
    alpha = np.array([0.5, 0.0, 2.0])
    assert G @ alpha == pytest.approx(dense @ alpha, rel=1e-15)
    assert np.asarray(ConstraintVectors([], 4)).shape == (4, 0)
    with pytest.raises(ValueError, match="G @ v needs v of shape"):
        G @ np.ones(2)
