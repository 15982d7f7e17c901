"""LIBSVM / svmlight sparse text format (``label idx:val ...``, 1-based indices)."""

from __future__ import annotations

import io

import numpy as np
from sklearn.datasets import load_svmlight_file

from ...errors import DataFormatError
from ..dataset import Dataset
from ._common import classification_task, clean_labels, read_bytes, stem


def read_libsvm(path, *, n_features=None, zero_based=False, task=None, name=None) -> Dataset:
    """Read a LIBSVM/svmlight file into a dense dataset.

    Parameters
    ----------
    path : str or Path
        The file (``.gz`` accepted).
    n_features : int, optional
        Number of columns; default: the highest feature index present.
    zero_based : bool, default=False
        Whether indices start at 0 (LIBSVM files start at 1).
    task : {"binary", "multiclass", "stream", "regression"}, optional
        Default: binary or multiclass from the number of distinct labels.
    name : str, optional
        Dataset name; default: the file stem.

    Returns
    -------
    Dataset
        Labels are kept as in the file (integral labels as int64, e.g. -1/1 or 2/4).
    """
    data = read_bytes(path)
    try:
        X, y = load_svmlight_file(
            io.BytesIO(data), n_features=n_features, zero_based=zero_based, dtype=np.float64
        )
    except ValueError as exc:
        line, reason = _first_bad_line(data, zero_based)
        raise DataFormatError(path, reason or f"invalid LIBSVM data: {exc}", line=line) from exc
    y = y.astype(np.float64) if task == "regression" else clean_labels(y, path)
    return Dataset(
        name=name or stem(path),
        task=task or classification_task(y),
        X=X.toarray(),
        y=y,
        meta={"format": "libsvm"},
    )


def _first_bad_line(data: bytes, zero_based: bool):
    """Locate the first malformed line (only run after the fast parser failed)."""
    lowest = 0 if zero_based else 1
    for number, raw in enumerate(data.decode("utf-8", "replace").split("\n"), start=1):
        tokens = raw.split("#", 1)[0].split()
        if not tokens:
            continue
        try:
            float(tokens[0])
        except ValueError:
            return number, f"invalid label {tokens[0]!r}"
        for token in tokens[1:]:
            if not _valid_pair(token, lowest):
                return (
                    number,
                    f"invalid feature {token!r} (expected index:value with index >= {lowest})",
                )
    return None, None


def _valid_pair(token: str, lowest: int) -> bool:
    index, sep, value = token.partition(":")
    try:
        float(value)
        return sep == ":" and (index == "qid" or int(index) >= lowest)
    except ValueError:
        return False
