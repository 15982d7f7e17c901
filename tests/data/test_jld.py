"""The Julia JLD (HDF5) reader: hand-built files in the MIDatasets.jl layout, and the real
Tiger / Newsgroups2 files (``data``-marked) through the registry."""

from __future__ import annotations

import gzip

import h5py
import numpy as np
import pytest

from svmlab.data import load_dataset
from svmlab.data.readers import read_file, read_jld, read_jld_folds
from svmlab.errors import DataFormatError

_BIT_VECTOR = np.dtype([("chunks_", h5py.ref_dtype), ("len_", "<i8"), ("dims_", h5py.ref_dtype)])


def _bit_vector(f, bits, counter):
    """Store ``bits`` as JLD stores a Julia BitVector: UInt64 chunks, LSB first."""
    bits = np.asarray(bits, dtype=bool)
    padded = np.zeros(-(-len(bits) // 64) * 64, dtype=np.uint8)
    padded[: len(bits)] = bits
    words = np.packbits(padded, bitorder="little").view("<u8")
    chunks = f.create_dataset(f"_refs/{next(counter):08d}", data=words)
    dims = f.create_dataset(f"_refs/{next(counter):08d}", data=np.array([len(bits) + 7]))
    value = np.zeros((), dtype=_BIT_VECTOR)
    value["chunks_"], value["len_"], value["dims_"] = chunks.ref, len(bits), dims.ref
    return value  # dims_ is unused by Julia for a vector (garbage in the real files)


def write_jld(path, bags, labels, folds=None, *, plain_labels=False):
    """A JLD file as MIDatasets.jl writes it: ``X`` (refs to Julia (n_i, d) matrices, which
    HDF5 shows as (d, n_i)), ``y`` a BitVector (or a plain vector) and optionally ``folds``."""
    counter = iter(range(1, 10_000))
    with h5py.File(path, "w") as f:
        refs = [
            f.create_dataset(f"_refs/{next(counter):08d}", data=np.asarray(b, np.float32).T).ref
            for b in bags
        ]
        f.create_dataset("X", data=np.array(refs, dtype=h5py.ref_dtype))
        if plain_labels:
            f.create_dataset("y", data=np.asarray(labels))
        else:
            f.create_dataset("y", data=_bit_vector(f, labels, counter))
        if folds is not None:
            outer = []
            for repeat in folds:
                inner = [
                    f.create_dataset(
                        f"_refs/{next(counter):08d}", data=_bit_vector(f, mask, counter)
                    ).ref
                    for mask in repeat
                ]
                ds = f.create_dataset(
                    f"_refs/{next(counter):08d}", data=np.array(inner, dtype=h5py.ref_dtype)
                )
                outer.append(ds.ref)
            f.create_dataset("folds", data=np.array(outer, dtype=h5py.ref_dtype))
    return path


BAGS = [
    [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]],
    [[0.5, 0.25, -1.0]],
    [[7.0, 8.0, 9.0], [1.5, 2.5, 3.5], [0.0, 0.0, 0.0]],
]


def test_bags_are_rows_and_labels_come_from_the_bit_vector(tmp_path):
    ds = read_jld(write_jld(tmp_path / "toy.jld", BAGS, [True, False, True]))
    assert ds.task == "multi_instance" and ds.name == "toy"
    np.testing.assert_array_equal(ds.X, np.vstack(BAGS))
    assert ds.X.dtype == np.float64 and ds.feature_names == ("f0", "f1", "f2")
    assert ds.bag_ids.tolist() == [0, 0, 1, 2, 2, 2]
    assert ds.y.tolist() == [1, 0, 1] and ds.y.dtype == np.int64
    assert ds.meta["format"] == "jld"


def test_bit_vector_across_chunk_words(tmp_path):
    labels = np.zeros(130, dtype=bool)
    labels[[0, 63, 64, 65, 127, 128, 129]] = True  # both ends of each UInt64 word
    bags = [[[float(i)]] for i in range(130)]
    ds = read_jld(write_jld(tmp_path / "long.jld", bags, labels))
    np.testing.assert_array_equal(ds.y, labels.astype(int))
    np.testing.assert_array_equal(ds.X[:, 0], np.arange(130))


def test_plain_label_vector_and_gzip_and_dispatch(tmp_path):
    path = write_jld(tmp_path / "p.jld", BAGS, [1, -1, 1], plain_labels=True)
    assert read_jld(path).y.tolist() == [1, -1, 1]
    packed = tmp_path / "p.jld.gz"
    packed.write_bytes(gzip.compress(path.read_bytes()))
    np.testing.assert_array_equal(read_jld(packed).X, read_file(path, "jld").X)


def test_folds_are_training_masks(tmp_path):
    folds = [[[True, False, True], [False, True, True]], [[True, True, False], [True, False, True]]]
    path = write_jld(tmp_path / "f.jld", BAGS, [1, 0, 1], folds)
    out = read_jld_folds(path)
    assert out.dtype == bool and out.shape == (2, 2, 3)
    np.testing.assert_array_equal(out, folds)
    with pytest.raises(DataFormatError, match="no variable 'folds'; variables: X, y"):
        read_jld_folds(write_jld(tmp_path / "nofolds.jld", BAGS, [1, 0, 1]))


def test_bad_files_raise_naming_the_problem(tmp_path):
    not_hdf5 = tmp_path / "x.jld"
    not_hdf5.write_bytes(b"RDX3\n")
    with pytest.raises(DataFormatError, match="not a readable HDF5") as err:
        read_jld(not_hdf5)
    assert str(not_hdf5) in str(err.value)
    with pytest.raises(DataFormatError, match="'y' has 2 labels but 'X' has 3 bags"):
        read_jld(write_jld(tmp_path / "n.jld", BAGS, [True, False]))
    ragged = [[[1.0, 2.0]], [[1.0, 2.0, 3.0]]]
    with pytest.raises(DataFormatError, match=r"bag X\[2\] has 3 features, bag X\[1\] has 2"):
        read_jld(write_jld(tmp_path / "r.jld", ragged, [True, False]))
    with h5py.File(tmp_path / "noy.jld", "w") as f:
        f.create_dataset("X", data=np.ones(3))
    with pytest.raises(DataFormatError, match="no variable 'y'; variables: X"):
        read_jld(tmp_path / "noy.jld")


# --------------------------------------------------------------------------- the real files
@pytest.mark.data
def test_tiger_andrews_is_the_1220_instance_version():
    ds = load_dataset("tiger_andrews")
    assert (ds.n_bags, ds.n_instances, ds.n_features) == (200, 1220, 230)
    assert np.bincount(ds.y).tolist() == [100, 100]
    assert ds.y[:100].all() and not ds.y[100:].any()  # positives first, as in the file
    sizes = np.bincount(ds.bag_ids)
    assert sizes.min() == 1 and sizes.max() == 13
    # the HyDR-MI spec: 106 of the 230 Tiger features are constant over all instances
    assert int((np.ptp(ds.X, axis=0) == 0).sum()) == 106
    assert load_dataset("tiger").n_instances == 1188  # the ARFF version is untouched


@pytest.mark.data
def test_newsgroups2_counts_and_folds(data_dir):
    ds = load_dataset("newsgroups2")
    assert (ds.n_bags, ds.n_instances, ds.n_features) == (100, 3094, 200)
    assert np.bincount(ds.y).tolist() == [50, 50]
    folds = read_jld_folds(data_dir / "mil" / "jld" / "Newsgroups2.jld")
    assert folds.shape == (5, 10, 100)
    # 10-fold CV: every bag is a test bag in exactly one fold of each repetition
    assert ((~folds).sum(axis=1) == 1).all()
