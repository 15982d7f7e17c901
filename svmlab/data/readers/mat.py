"""MATLAB ``.mat`` files holding one or more (data, label) pairs, e.g. ``usps.mat``."""

from __future__ import annotations

import io

import numpy as np
import scipy.io

from ...errors import DataFormatError
from ..dataset import Dataset
from ._common import classification_task, clean_labels, read_bytes, stem


def read_mat(
    path,
    *,
    data_vars=("traindata", "testdata"),
    label_vars=("trainlabel", "testlabel"),
    split_names=("train", "test"),
    samples_as_columns=None,
    task=None,
    name=None,
) -> Dataset:
    """Read labelled matrices from a MATLAB v4/v5 file and stack them row-wise.

    Parameters
    ----------
    path : str or Path
        The file (``.gz`` accepted).
    data_vars, label_vars : sequence of str
        Variable names of the data matrices and of their label vectors, in order.
        The defaults fit ``usps.mat`` (7291 training + 2007 test digits).
    split_names : sequence of str
        One name per pair; the row indices of each pair are kept in
        ``meta["predefined_split"]`` (e.g. the standard USPS train/test split).
    samples_as_columns : bool, optional
        Whether each sample is a column (``usps.mat``: 256 x 7291). Default:
        decided from which dimension matches the number of labels.
    task : {"binary", "multiclass"}, optional
        Default: from the number of distinct labels.
    name : str, optional
        Dataset name; default: the file stem.

    Returns
    -------
    Dataset
    """
    if not (len(data_vars) == len(label_vars) == len(split_names)):
        raise ValueError("data_vars, label_vars and split_names must have the same length")
    try:
        content = scipy.io.loadmat(io.BytesIO(read_bytes(path)))
    except (
        ValueError,
        TypeError,
        OSError,
        NotImplementedError,
        scipy.io.matlab.MatReadError,
    ) as exc:
        raise DataFormatError(path, f"not a readable MATLAB file: {exc}") from exc
    present = sorted(k for k in content if not k.startswith("__"))
    Xs, ys, split, start = [], [], {}, 0
    for data_var, label_var, split_name in zip(data_vars, label_vars, split_names):
        for var in (data_var, label_var):
            if var not in content:
                raise DataFormatError(path, f"no variable {var!r}; variables: {', '.join(present)}")
        X = np.asarray(content[data_var], dtype=np.float64)
        y = np.asarray(content[label_var]).ravel()
        columns = (
            samples_as_columns
            if samples_as_columns is not None
            else (X.shape[0] != len(y) and X.shape[1] == len(y))
        )
        X = X.T if columns else X
        if X.ndim != 2 or X.shape[0] != len(y):
            raise DataFormatError(
                path,
                f"{data_var!r} has shape {content[data_var].shape} "
                f"but {label_var!r} has {len(y)} labels",
            )
        Xs.append(X)
        ys.append(y)
        split[split_name] = np.arange(start, start + len(y))
        start += len(y)
    y = clean_labels(np.concatenate(ys), path)
    return Dataset(
        name=name or stem(path),
        task=task or classification_task(y),
        X=np.vstack(Xs),
        y=y,
        meta={"format": "mat", "predefined_split": split},
    )
