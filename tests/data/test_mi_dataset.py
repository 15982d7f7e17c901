"""Dataset.bags and Dataset.subset on multi-instance data read from a file."""

from __future__ import annotations

import numpy as np
import pytest

from svmlab.data.readers import read_mi_arff

TOY = """@relation toy
@attribute id {a,b,c,d}
@attribute bag relational
@attribute f numeric
@end bag
@attribute class {0,1}
@data
a,'1\\n2\\n3',1,{2}
b,'4',0
c,'5\\n6',1,{4}
d,'7\\n8',0
"""


@pytest.fixture
def toy(tmp_path):
    path = tmp_path / "toy.arff"
    path.write_text(TOY)
    return read_mi_arff(path)


def test_bags(toy):
    assert [b.ravel().tolist() for b in toy.bags] == [[1, 2, 3], [4], [5, 6], [7, 8]]
    assert toy.n_samples == 4 and toy.n_instances == 8


def test_subset_renumbers_bags_and_keeps_bag_meta_aligned(toy):
    sub = toy.subset([2, 0])
    assert [b.ravel().tolist() for b in sub.bags] == [[5, 6], [1, 2, 3]]
    assert sub.y.tolist() == [1, 1] and sub.bag_ids.tolist() == [0, 0, 1, 1, 1]
    assert sub.meta["bag_names"] == ["c", "a"]
    np.testing.assert_array_equal(sub.meta["bag_weights"], [4.0, 2.0])
    assert toy.meta["bag_names"] == ["a", "b", "c", "d"]  # the original is untouched
