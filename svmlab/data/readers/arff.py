"""Standard ARFF (via liac-arff): classification files and Mulan multi-target files."""

from __future__ import annotations

import re

import arff as liac_arff
import numpy as np

from ...errors import DataFormatError
from ..dataset import Dataset
from ._common import classification_task, clean_labels, read_text, stem

_NUMERIC = ("NUMERIC", "REAL", "INTEGER")


def read_arff(
    path, *, n_targets=None, label=None, task=None, space_separated=False, name=None
) -> Dataset:
    """Read a standard (non-relational) ARFF file.

    Parameters
    ----------
    path : str or Path
        The file (``.gz`` accepted).
    n_targets : int, optional
        Multi-target regression: the targets are the last ``n_targets`` attributes
        (Mulan files carry no other marker). Gives a ``multitarget`` dataset whose
        ``Y`` has NaN where a target is ``?``.
    label : str, optional
        Classification: name of the class attribute; default the last attribute.
    task : {"binary", "multiclass", "stream", "regression"}, optional
        Default: binary or multiclass from the number of distinct labels. With
        ``"regression"`` the (numeric) ``label`` attribute is the float target.
    space_separated : bool, default=False
        The data rows separate values by white space instead of commas (Torgo's
        delta_ailerons / delta_elevators); they are read as if comma-separated.
    name : str, optional
        Dataset name; default: the file stem.

    Returns
    -------
    Dataset
        Nominal inputs are encoded as integer codes in declaration order (levels in
        ``meta["nominal_levels"]``); ``?`` becomes NaN. Class labels are the level
        names (numbers when every level is numeric).
    """
    text = read_text(path)
    if space_separated:
        text = _commas_for_spaces(text)
    doc, data = _parse(path, text)
    attributes = doc["attributes"]
    names = [a for a, _ in attributes]
    levels = {a: list(kind) for a, kind in attributes if not isinstance(kind, str)}
    meta = {"format": "arff", "relation": doc.get("relation")}
    name = name or stem(path)

    if n_targets:
        k = int(n_targets)
        if not 0 < k < len(names):
            raise DataFormatError(
                path, f"cannot take the last {k} of {len(names)} attributes as targets"
            )
        meta["nominal_levels"] = {a: lv for a, lv in levels.items() if a in names[:-k]}
        return Dataset(
            name=name,
            task="multitarget",
            X=data[:, :-k],
            Y=data[:, -k:],
            feature_names=tuple(names[:-k]),
            target_names=tuple(names[-k:]),
            meta=meta,
        )

    col = len(names) - 1 if label is None else _index(path, names, label)
    features = [j for j in range(len(names)) if j != col]
    y = _targets(path, text, data[:, col], names[col], levels, task)
    meta["label_column"] = names[col]
    meta["class_levels"] = levels.get(names[col])
    meta["nominal_levels"] = {names[j]: levels[names[j]] for j in features if names[j] in levels}
    return Dataset(
        name=name,
        task=task or classification_task(y),
        X=data[:, features],
        y=y,
        feature_names=tuple(names[j] for j in features),
        meta=meta,
    )


def _parse(path, text):
    """liac-arff's document and its data as a float array (nominal values as codes, ``?`` as
    NaN); a :class:`DataFormatError` for invalid ARFF, other attribute types or ragged rows."""
    try:
        doc = liac_arff.loads(text, encode_nominal=True)
    except liac_arff.ArffException as exc:
        line = getattr(exc, "line", None)
        message = re.sub(
            r",? (?:at|in) line \d+[.:]?", "", str(exc)
        ).strip()  # the line is reported separately
        raise DataFormatError(
            path, f"invalid ARFF: {message}", line=line if line and line > 0 else None
        ) from exc
    attributes = doc["attributes"]
    for attr_name, kind in attributes:
        if isinstance(kind, str) and kind.upper() not in _NUMERIC:
            raise DataFormatError(
                path,
                f"attribute {attr_name!r} has type {kind}; "
                "only numeric and nominal attributes are supported",
            )
    try:
        data = np.array(doc["data"], dtype=np.float64).reshape(len(doc["data"]), len(attributes))
    except ValueError as exc:  # ragged rows
        raise DataFormatError(path, f"inconsistent data rows: {exc}") from exc
    return doc, data


def _targets(path, text, codes, column, levels, task):
    """The target column ``codes`` as labels (level names of a nominal class, else cleaned
    numbers) or, for ``task="regression"``, as floats; a missing value is an error."""
    if column in levels:
        if np.isnan(codes).any():
            line = _data_lines(text)[int(np.argmax(np.isnan(codes)))]
            raise DataFormatError(
                path, f"missing class value ('?') for attribute {column!r}", line=line
            )
        return clean_labels(np.asarray(levels[column], dtype=object)[codes.astype(np.int64)], path)
    if task == "regression":
        if np.isnan(codes).any():
            line = _data_lines(text)[int(np.argmax(np.isnan(codes)))]
            raise DataFormatError(path, f"missing target value for {column!r}", line=line)
        return codes
    return clean_labels(codes, path, lines=_data_lines(text))


def _commas_for_spaces(text: str) -> str:
    """``text`` with the white space between the values of each data row turned into commas."""
    out, in_data = [], False
    for line in text.split("\n"):
        s = line.strip()
        if not in_data:
            in_data = s.lower().startswith("@data")
        elif s and not s.startswith("%"):
            line = ",".join(s.split())
        out.append(line)
    return "\n".join(out)


def _index(path, names, attr):
    if attr not in names:
        raise DataFormatError(path, f"no attribute {attr!r}; attributes: {', '.join(names)}")
    return names.index(attr)


def _data_lines(text: str) -> list[int]:
    """1-based line numbers of the data rows (after ``@data``; blank and ``%`` lines skipped)."""
    out, in_data = [], False
    for number, line in enumerate(text.split("\n"), start=1):
        s = line.strip()
        if not in_data:
            in_data = s.lower().startswith("@data")
        elif s and not s.startswith("%"):
            out.append(number)
    return out
