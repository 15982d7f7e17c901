"""The random forest's path over its number of trees: prefixes of one forest."""

import numpy as np
import pytest
from sklearn.base import clone

from svmlab.estimators.forest import RandomForestRegressor


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(150, 6))
    return X, X[:, 0] - X[:, 1] ** 2 + 0.1 * rng.normal(size=150)


def test_each_forest_of_the_path_is_the_forest_fit_grows(data):
    X, y = data
    model = RandomForestRegressor(max_features=2, min_samples_leaf=3, random_state=7)
    sizes = [20, 5, 40]
    path = model.fit_path(X, y, sizes)
    assert [m.n_estimators for m in path] == sizes and [len(m.estimators_) for m in path] == sizes
    for n, fitted in zip(sizes, path):
        alone = clone(model).set_params(n_estimators=n).fit(X, y)
        np.testing.assert_array_equal(fitted.predict(X), alone.predict(X))
        assert fitted.get_params() == alone.get_params()
    assert model.svmlab_contract.path_parameter == "n_estimators"


def test_without_an_int_seed_each_forest_is_grown_on_its_own(data):
    X, y = data
    path = RandomForestRegressor(random_state=None).fit_path(X, y, [3, 4])
    assert [len(m.estimators_) for m in path] == [3, 4]
    with pytest.raises(ValueError, match="n_estimators"):
        RandomForestRegressor(random_state=0).fit_path(X, y, [3, 0])
