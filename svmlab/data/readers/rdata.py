"""R data files (``.RData`` / ``.rda``): one data frame of the file, read with PyPI ``rdata``."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from ...errors import DataFormatError
from ..dataset import Dataset
from ._common import classification_task, clean_labels, read_bytes, stem


def _keep_frames(obj, attrs):
    """A data frame as its columns and attributes, so a matrix column survives conversion."""
    return {"columns": dict(obj), "attrs": attrs}


def _columns(path, obj, object_name) -> dict[str, np.ndarray]:
    """``{column name: 1-D array}``; a matrix column ``x`` becomes ``x[name]`` columns."""
    if isinstance(obj, pd.DataFrame):
        return {str(c): obj[c] for c in obj.columns}
    if not (isinstance(obj, dict) and "columns" in obj):
        raise DataFormatError(path, f"R object {object_name!r} is not a data frame")
    out = {}
    for name, column in obj["columns"].items():
        if isinstance(column, np.ma.MaskedArray):  # an integer column with NA
            column = column.astype(np.float64).filled(np.nan)
        values = np.asarray(column)
        if values.ndim == 1:  # keep factors (pandas Categorical) as they are
            out[str(name)] = pd.Series(column if isinstance(column, pd.Categorical) else values)
        elif values.ndim == 2:  # an AsIs matrix column (e.g. hdi::riboflavin's x)
            labels = (
                getattr(column, "coords", {}).get(column.dims[1])
                if hasattr(column, "dims")
                else None
            )
            names = (
                [str(v) for v in np.asarray(labels)]
                if labels is not None
                else range(values.shape[1])
            )
            for j, sub in enumerate(names):
                out[f"{name}[{sub}]"] = pd.Series(values[:, j])
        else:
            raise DataFormatError(
                path, f"column {name!r} of {object_name!r} has {values.ndim} dimensions"
            )
    return out


def read_rdata(
    path, *, r_object=None, label=None, drop_columns=(), task=None, name=None
) -> Dataset:
    """Read one data frame of an R data file.

    Parameters
    ----------
    path : str or Path
        The ``.RData`` / ``.rda`` file (any R compression).
    r_object : str, optional
        The R object to read; default: the file's only object (or its first).
    label : str, optional
        The target / class column; default: the last column.
    drop_columns : sequence of str
        Columns that are not features (an intercept, a second target, an identifier).
    task : {"binary", "multiclass", "regression"}, optional
        Default: binary or multiclass from the number of distinct labels.
    name : str, optional
        Dataset name; default: the file stem.

    Returns
    -------
    Dataset
        Factor columns are encoded as their level codes (``meta["nominal_levels"]``), R's
        NA as NaN. A matrix column (``I(x)`` in R, e.g. ``hdi::riboflavin``) becomes one
        feature per matrix column, named ``x[colname]``.
    """
    import rdata

    raw = read_bytes(path)
    try:
        parsed = rdata.parser.parse_data(raw)
        classes = dict(rdata.conversion.DEFAULT_CLASS_MAP)
        classes["data.frame"] = _keep_frames
        with warnings.catch_warnings():  # "Missing constructor for R class AsIs"
            warnings.simplefilter("ignore", UserWarning)
            objects = rdata.conversion.convert(parsed, classes)
    except Exception as exc:  # rdata raises many types on a corrupt file
        raise DataFormatError(path, f"not a readable R data file: {exc}") from exc
    if not objects:
        raise DataFormatError(path, "the R data file holds no object")
    r_object = r_object or next(iter(objects))
    if r_object not in objects:
        raise DataFormatError(path, f"no R object {r_object!r}; objects: {', '.join(objects)}")
    columns = _columns(path, objects[r_object], r_object)
    names = list(columns)
    label = names[-1] if label is None else str(label)
    for col in [label, *drop_columns]:
        if col not in columns:
            raise DataFormatError(
                path, f"no column {col!r} in {r_object!r}; columns: {', '.join(names[:20])}"
            )
    features = [c for c in names if c != label and c not in drop_columns]
    X, levels = np.empty((len(columns[label]), len(features))), {}
    for j, col in enumerate(features):
        X[:, j], lev = _as_float(columns[col])
        if lev is not None:
            levels[col] = lev
    target = columns[label]
    if task == "regression":
        y = _as_float(target)[0]
    else:
        y = clean_labels(target.astype(object).where(target.notna(), None).to_numpy(), path)
    meta = {
        "format": "rdata",
        "r_object": r_object,
        "label_column": label,
        "dropped_columns": list(drop_columns),
        "nominal_levels": levels,
    }
    return Dataset(
        name=name or stem(path),
        task=task or classification_task(y),
        X=X,
        y=y,
        feature_names=tuple(features),
        meta=meta,
    )


def _as_float(column: pd.Series):
    """A column as float64 (NaN for NA); a factor as its level codes, with the levels."""
    if isinstance(column.dtype, pd.CategoricalDtype):
        codes = column.cat.codes.to_numpy(dtype=np.float64)
        codes[codes < 0] = np.nan
        return codes, [str(c) for c in column.cat.categories]
    return pd.to_numeric(column, errors="raise").to_numpy(dtype=np.float64, na_value=np.nan), None


__all__ = ["read_rdata"]
