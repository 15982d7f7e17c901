"""Comma-separated formats: CSV (with or without a header row), header-less KEEL ``.dat``
and the ``mil`` CSV layout."""

from __future__ import annotations

import csv
import io

import numpy as np
import pandas as pd

from ...errors import DataFormatError
from ..dataset import Dataset
from ._common import classification_task, clean_labels, encode_levels, read_bytes, stem


# --------------------------------------------------------------------------- tables
def read_table(path, *, header: bool, skipinitialspace: bool = False, whitespace: bool = False):
    """Parse a comma-separated (or, with ``whitespace``, blank-separated) file strictly.

    Blank lines are skipped and CR bytes stripped; every other line must have as
    many fields as the first one.

    Returns
    -------
    frame : DataFrame
        The cells, with pandas' type inference (``?`` and empty cells are missing).
    lines : ndarray of int
        The 1-based file line of each row of ``frame``.

    Raises
    ------
    DataFormatError
        Naming the first line whose field count differs.
    """
    data = read_bytes(path)
    if whitespace:  # runs of blanks separate the fields (e.g. UCI german.data-numeric)
        data = b"\n".join(b",".join(line.split()) for line in data.split(b"\n"))
    kept, numbers = [], []
    for number, line in enumerate(data.split(b"\n"), start=1):
        line = line.rstrip(b"\r")
        if line.strip():
            kept.append(line)
            numbers.append(number)
    if not kept:
        raise DataFormatError(path, "the file has no data")
    _check_field_counts(path, kept, numbers, quoted=b'"' in data)
    try:
        frame = pd.read_csv(
            io.BytesIO(b"\n".join(kept)),
            header=0 if header else None,
            skipinitialspace=skipinitialspace,
            na_values=["?"],
            low_memory=False,
        )
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        raise DataFormatError(path, f"cannot parse: {exc}") from exc
    lines = np.asarray(numbers[1:] if header else numbers, dtype=np.int64)
    return frame, lines


def _check_field_counts(path, lines, numbers, *, quoted: bool):
    if quoted:  # a quoted field may contain commas: let the csv module split
        counts = [len(row) for row in csv.reader(line.decode("utf-8", "replace") for line in lines)]
    else:
        counts = [line.count(b",") + 1 for line in lines]
    expected = counts[0]
    for count, number in zip(counts, numbers):
        if count != expected:
            raise DataFormatError(
                path, f"expected {expected} comma-separated fields, found {count}", line=number
            )


def column_as_float(column: pd.Series, path, lines, *, name) -> tuple[np.ndarray, list[str] | None]:
    """One column as float64: numbers as they are, a nominal (text) column as codes.

    Returns
    -------
    values : ndarray of float64
        NaN where the cell is missing.
    levels : list of str or None
        The sorted levels a nominal column was encoded with (code i = levels[i]).

    Raises
    ------
    DataFormatError
        When a mostly numeric column holds a value that is not a number.
    """
    if pd.api.types.is_numeric_dtype(column.dtype) or pd.api.types.is_bool_dtype(column.dtype):
        return column.to_numpy(dtype=np.float64, na_value=np.nan), None
    text = column.astype(object).where(column.notna(), None)
    text = text.map(lambda v: v.strip() if isinstance(v, str) else v)
    present = text.notna() & (text != "")
    parsed = pd.to_numeric(text.where(present, None), errors="coerce")
    numeric = parsed.notna() & present
    n_present, n_numeric = int(present.sum()), int(numeric.sum())
    if n_numeric == n_present:
        return parsed.to_numpy(dtype=np.float64, na_value=np.nan), None
    if 2 * n_numeric >= n_present:
        row = int(np.argmax((present & ~numeric).to_numpy()))
        raise DataFormatError(
            path,
            f"column {name!r}: non-numeric value {text.iloc[row]!r} in a numeric column",
            line=int(lines[row]),
        )
    codes, levels = encode_levels(text.tolist())
    return codes, levels


def frame_to_X(frame: pd.DataFrame, columns, path, lines):
    """Stack ``columns`` of ``frame`` into a float64 matrix; returns ``(X, nominal_levels)``."""
    sub = frame[list(columns)]
    if all(pd.api.types.is_numeric_dtype(t) for t in sub.dtypes):
        return sub.to_numpy(dtype=np.float64, na_value=np.nan), {}
    out, levels = np.empty((len(sub), len(columns))), {}
    for j, col in enumerate(columns):
        out[:, j], lev = column_as_float(sub[col], path, lines, name=col)
        if lev is not None:
            levels[str(col)] = lev
    return out, levels


def _single_target(path, name, task, X, y, feature_names, meta):
    return Dataset(
        name=name or stem(path),
        task=task or classification_task(y),
        X=X,
        y=y,
        feature_names=tuple(str(f) for f in feature_names),
        meta=meta,
    )


# --------------------------------------------------------------------------- readers
def read_csv(
    path,
    *,
    label=None,
    drop_columns=(),
    header=True,
    row_names=False,
    whitespace=False,
    task=None,
    name=None,
) -> Dataset:
    """Read a CSV file with a header row; the label is the last (or the named) column.

    Parameters
    ----------
    path : str or Path
        The file (``.gz`` accepted).
    label : str, optional
        Name of the class/target column; default: the last column. In a file
        without a header row the columns are named by their 0-based position
        (``"0"``, ``"1"``, ...).
    drop_columns : sequence of str
        Columns that are not features (e.g. a sample identifier).
    header : bool, default=True
        Whether the first line names the columns.
    row_names : bool, default=False
        The first column holds row names (an R data frame written by ``write.csv``,
        whose header leaves that column unnamed); it is dropped.
    whitespace : bool, default=False
        Fields are separated by runs of blanks instead of commas.
    task : {"binary", "multiclass", "stream", "regression"}, optional
        Default: binary or multiclass from the number of distinct labels.
    name : str, optional
        Dataset name; default: the file stem.

    Returns
    -------
    Dataset
        Text-valued feature columns are encoded as integer codes of their sorted
        levels (listed in ``meta["nominal_levels"]``); empty cells and ``?`` are NaN.
    """
    frame, lines = read_table(path, header=header, whitespace=whitespace)
    if row_names:
        if frame.shape[1] < 2:
            raise DataFormatError(path, "row_names: the file has a single column")
        frame = frame.iloc[:, 1:]
    columns = [str(c) for c in frame.columns]
    frame.columns = columns
    label = columns[-1] if label is None else str(label)
    for col in [label, *drop_columns]:
        if col not in columns:
            raise DataFormatError(path, f"no column {col!r}; columns: {', '.join(columns)}")
    features = [c for c in columns if c != label and c not in drop_columns]
    X, levels = frame_to_X(frame, features, path, lines)
    if task == "regression":
        y, _ = column_as_float(frame[label], path, lines, name=label)
    else:
        y = clean_labels(frame[label].to_numpy(), path, lines=lines)
    meta = {
        "format": "csv",
        "label_column": label,
        "dropped_columns": list(drop_columns),
        "row_names_dropped": bool(row_names),
        "nominal_levels": levels,
    }
    return _single_target(path, name, task, X, y, features, meta)


def read_keel(path, *, task=None, name=None) -> Dataset:
    """Read a KEEL ``.dat`` file whose ``@``-header was stripped.

    No header row, comma (or comma + space) separated, label in the last column.
    String-valued (nominal) features are encoded as codes of their sorted levels;
    labels are stripped of padding (vehicle's ``"bus "``).
    """
    frame, lines = read_table(path, header=False, skipinitialspace=True)
    if frame.shape[1] < 2:
        raise DataFormatError(path, "a KEEL data row needs at least one feature and a label")
    features = [f"x{j}" for j in range(frame.shape[1] - 1)]
    frame.columns = [*features, "label"]
    X, levels = frame_to_X(frame, features, path, lines)
    y = clean_labels(frame["label"].to_numpy(), path, lines=lines)
    meta = {"format": "keel-dat", "nominal_levels": levels}
    return _single_target(path, name, task, X, y, features, meta)


def read_mil_csv(path, *, name=None) -> Dataset:
    """Read the ``mil`` package's multi-instance CSV layout.

    No header; column 0 is the bag label, column 1 the bag id, the rest are the
    instance features. Bags are numbered by first appearance; every instance of a
    bag must carry the bag's label.
    """
    frame, lines = read_table(path, header=False)
    if frame.shape[1] < 3:
        raise DataFormatError(
            path, "a multi-instance CSV row needs a bag label, a bag id and features"
        )
    bag_ids, bag_names = pd.factorize(frame[1], sort=False)
    if (bag_ids < 0).any():
        raise DataFormatError(path, "missing bag id", line=int(lines[np.argmax(bag_ids < 0)]))
    labels = clean_labels(frame[0].to_numpy(), path, lines=lines)
    first = np.unique(bag_ids, return_index=True)[1]  # first instance of each bag
    bag_labels = labels[first]
    clash = labels != bag_labels[bag_ids]
    if clash.any():
        row = int(np.argmax(clash))
        bag = str(bag_names[bag_ids[row]])
        raise DataFormatError(
            path,
            f"an instance of bag {bag!r} has label {labels[row].item()!r}, the bag's first "
            f"instance {bag_labels[bag_ids[row]].item()!r}",
            line=int(lines[row]),
        )
    X, levels = frame_to_X(frame, list(range(2, frame.shape[1])), path, lines)
    if levels:
        raise DataFormatError(
            path, f"non-numeric feature column(s) {sorted(levels)} in a multi-instance CSV"
        )
    return Dataset(
        name=name or stem(path),
        task="multi_instance",
        X=X,
        y=bag_labels,
        bag_ids=bag_ids,
        feature_names=tuple(f"f{j}" for j in range(X.shape[1])),
        meta={"format": "mil-csv", "bag_names": [str(b) for b in bag_names]},
    )
