"""Julia JLD files (HDF5) holding a multi-instance dataset, read with PyPI ``h5py``.

The layout is the one of MIDatasets.jl (komartom/MIDatasets.jl, the miproblems.org
benchmarks as Julia data; e.g. Andrews' Tiger with 1220 instances and Newsgroups2).
Three top-level variables:

``X``
    ``Vector{Matrix{Float32}}``, one matrix per bag whose *rows* are the instances (MIDatasets.jl
    README). JLD stores it as an HDF5 array of object references to one dataset per bag; HDF5
    sees Julia's column-major ``(n_instances, n_features)`` matrix as ``(n_features,
    n_instances)``, so each bag is transposed on reading.
``y``
    The bag labels, a Julia ``BitVector`` (``true`` = positive bag). JLD stores it as a
    compound ``(chunks_, len_, dims_)``: ``chunks_`` references the ``UInt64`` words holding the
    bits, least significant bit first, and ``len_`` is the number of bags (``dims_`` is unused
    for a vector and may hold garbage). A plain numeric or boolean vector is accepted too.
``folds``
    Optional: 5 repetitions of 10-fold cross-validation as training-bag masks
    (``folds[r][k]`` is a ``BitVector``), read by :func:`read_jld_folds`.
"""

from __future__ import annotations

import io

import numpy as np

from ...errors import DataFormatError
from ..dataset import Dataset
from ._common import clean_labels, read_bytes, stem

_BIT_ARRAY_FIELDS = {"chunks_", "len_"}


def read_jld(path, *, name=None) -> Dataset:
    """Read a multi-instance dataset from a Julia JLD file in the MIDatasets.jl layout.

    Parameters
    ----------
    path : str or Path
        The file (``.gz``/``.bz2`` accepted).
    name : str, optional
        Dataset name; default: the file stem.

    Returns
    -------
    Dataset
        ``task="multi_instance"``; ``X`` the instances of all bags stacked in bag order
        (float64; the file stores float32), ``y`` one label per bag (1 = positive, 0 =
        negative for a ``BitVector``), ``bag_ids`` the bag of each instance and
        ``feature_names`` ``f0 .. f{d-1}`` (the file has no names).

    Notes
    -----
    The cross-validation folds the file may hold are not part of the returned dataset
    (their bag indices would not survive :meth:`Dataset.subset`); see :func:`read_jld_folds`.
    """
    with _open(path) as f:
        _require(path, f, ("X", "y"))
        bags = _bags(path, f)
        labels = _vector(path, f, f["y"][()], "y")
    if len(labels) != len(bags):
        raise DataFormatError(path, f"'y' has {len(labels)} labels but 'X' has {len(bags)} bags")
    n_features = bags[0].shape[1]
    return Dataset(
        name=name or stem(path),
        task="multi_instance",
        X=np.vstack(bags),
        y=clean_labels(labels.astype(np.int64) if labels.dtype == bool else labels, path),
        bag_ids=np.repeat(np.arange(len(bags)), [len(b) for b in bags]),
        feature_names=tuple(f"f{j}" for j in range(n_features)),
        meta={"format": "jld"},
    )


def read_jld_folds(path) -> np.ndarray:
    """The cross-validation folds stored in a MIDatasets.jl JLD file.

    Parameters
    ----------
    path : str or Path
        The file (``.gz``/``.bz2`` accepted).

    Returns
    -------
    ndarray of bool, shape (n_repeats, n_folds, n_bags)
        ``out[r, k]`` marks the *training* bags of fold ``k`` of repetition ``r``
        (MIDatasets.jl: ``X[folds[r][k]]`` trains, ``X[.!folds[r][k]]`` tests); 5 x 10 in the
        MIDatasets.jl files.
    """
    with _open(path) as f:
        _require(path, f, ("folds",))
        repeats = []
        for r, ref in enumerate(f["folds"][()]):
            masks = [
                _vector(path, f, f[inner][()], f"folds[{r + 1}][{k + 1}]")
                for k, inner in enumerate(_deref(path, f, ref, f"folds[{r + 1}]")[()])
            ]
            repeats.append(masks)
    try:
        out = np.array(repeats, dtype=bool)
    except ValueError:
        raise DataFormatError(path, "'folds' is not a rectangular array of masks") from None
    if out.ndim != 3:
        raise DataFormatError(path, "'folds' is not a rectangular array of masks")
    return out


# --------------------------------------------------------------------------- helpers
def _open(path):
    import h5py  # a dependency of svmlab; imported here, as the other readers' packages

    try:
        return h5py.File(io.BytesIO(read_bytes(path)), "r")
    except OSError as exc:
        raise DataFormatError(path, f"not a readable HDF5 (JLD) file: {exc}") from exc


def _require(path, f, names):
    present = sorted(k for k in f if not k.startswith("_"))
    for var in names:
        if var not in f:
            raise DataFormatError(
                path, f"no variable {var!r}; variables: {', '.join(present) or 'none'}"
            )


def _deref(path, f, ref, what):
    import h5py

    if not isinstance(ref, h5py.Reference) or not ref:
        raise DataFormatError(path, f"{what} is not an HDF5 object reference")
    return f[ref]


def _bags(path, f) -> list[np.ndarray]:
    """The bags of ``X`` as float64 ``(n_instances, n_features)`` arrays."""
    refs = f["X"][()]
    if refs.dtype != object or refs.ndim != 1 or len(refs) == 0:
        raise DataFormatError(
            path, "'X' must be a non-empty vector of matrices (HDF5 object references)"
        )
    bags = []
    for i, ref in enumerate(refs):
        stored = _deref(path, f, ref, f"X[{i + 1}]")[()]
        if stored.ndim != 2 or stored.dtype.kind not in "iuf":
            raise DataFormatError(
                path, f"X[{i + 1}] is not a numeric matrix (shape {stored.shape}, {stored.dtype})"
            )
        bag = stored.T.astype(np.float64)  # HDF5 (features, instances) -> rows = instances
        if bag.shape[0] == 0:
            raise DataFormatError(path, f"bag X[{i + 1}] has no instances")
        if bags and bag.shape[1] != bags[0].shape[1]:
            raise DataFormatError(
                path,
                f"bag X[{i + 1}] has {bag.shape[1]} features, bag X[1] has {bags[0].shape[1]}",
            )
        bags.append(bag)
    return bags


def _vector(path, f, value, what) -> np.ndarray:
    """A Julia vector: a ``BitVector`` compound decoded to bool, or a plain 1-D array."""
    fields = set(value.dtype.names or ())
    if _BIT_ARRAY_FIELDS <= fields:
        length = int(value["len_"])
        words = np.asarray(_deref(path, f, value["chunks_"], f"{what}.chunks")[()])
        if words.dtype.kind not in "iu" or words.ndim != 1 or len(words) != -(-length // 64):
            raise DataFormatError(
                path,
                f"{what}: a BitVector of {length} bits needs {-(-length // 64)} UInt64 chunks, "
                f"found shape {words.shape} ({words.dtype})",
            )
        bits = np.unpackbits(words.astype("<u8").view(np.uint8), bitorder="little")
        return bits[:length].astype(bool)
    array = np.asarray(value)
    if array.ndim != 1 or array.dtype.kind not in "biuf":
        raise DataFormatError(
            path, f"{what} is neither a BitVector nor a numeric vector ({array.dtype})"
        )
    return array
