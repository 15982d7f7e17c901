"""Weka's relational multi-instance ARFF format (liac-arff and scipy cannot read it).

A file declares three top-level attributes: a bag id, ``@attribute bag relational``
... ``@end bag`` (which declares the instance features) and the class. Each data
line is one bag::

    bagid,"v11,v12,...\\nv21,v22,...",label[,{weight}]

The instances of a bag are separated by the *two characters* backslash and ``n``.
Handled quirks: ``'`` or ``"`` as the quote, a Weka instance weight ``{w}`` after
the label (kept as ``meta["bag_weights"]``), a trailing comma at the end of an
instance row, single-instance bags, CR/CRLF line ends, ``?`` for missing values.
"""

from __future__ import annotations

import re

import numpy as np

from ...errors import DataFormatError
from ..dataset import Dataset
from ._common import clean_labels, read_text, stem

_ATTRIBUTE = re.compile(r"@attribute\s+('[^']*'|\"[^\"]*\"|\S+)\s+(.*?)\s*$", re.IGNORECASE)
_WEIGHT = re.compile(r"^(.*?)\s*,\s*\{\s*([^}]*?)\s*\}$")
_NUMERIC = ("numeric", "real", "integer")


def read_mi_arff(path, *, name=None) -> Dataset:
    """Read a Weka relational multi-instance ARFF file.

    Parameters
    ----------
    path : str or Path
        The file (``.gz`` accepted).
    name : str, optional
        Dataset name; default: the file stem.

    Returns
    -------
    Dataset
        ``task="multi_instance"``; ``y`` holds one label per bag (in file order),
        ``bag_ids`` the bag of each instance; ``meta["bag_names"]`` the bag
        identifiers and, when the file has Weka instance weights,
        ``meta["bag_weights"]`` (1.0 where a bag has none).
    """
    lines = read_text(path).split("\n")
    top, inner, class_levels, data_start = _parse_header(path, lines)
    n_features = len(inner)
    bags, bag_names, labels, weights = [], [], [], []
    for number in range(data_start, len(lines) + 1):
        line = lines[number - 1].strip()
        if not line or line.startswith("%"):
            continue
        bag_name, body, label, weight = _split_bag_line(path, line, number)
        if class_levels is not None and label not in class_levels:
            raise DataFormatError(
                path, f"class value {label!r} is not one of {class_levels}", line=number
            )
        bags.append(_parse_instances(path, body, inner, n_features, bag_name, number))
        bag_names.append(bag_name)
        labels.append(label)
        weights.append(weight)
    if not bags:
        raise DataFormatError(path, "the file has no bags")
    meta = {
        "format": "mi-arff",
        "bag_names": bag_names,
        "bag_attribute": top[0],
        "label_column": top[2],
    }
    if any(w is not None for w in weights):
        meta["bag_weights"] = np.array([1.0 if w is None else w for w in weights])
    return Dataset(
        name=name or stem(path),
        task="multi_instance",
        X=np.vstack(bags),
        y=clean_labels(labels, path),
        bag_ids=np.repeat(np.arange(len(bags)), [len(b) for b in bags]),
        feature_names=tuple(a for a, _ in inner),
        meta=meta,
    )


# --------------------------------------------------------------------------- header
def _parse_header(path, lines):
    """Return (top-level names, inner attributes, class levels or None, first data line number)."""
    top, inner, block = [], [], None  # block: the relational attribute being declared
    for number, raw in enumerate(lines, start=1):
        line = raw.strip()
        low = line.lower()
        if not line or line.startswith("%") or low.startswith("@relation"):
            continue
        if low.startswith("@end"):
            if block is None:
                raise DataFormatError(
                    path, "@end without an open relational attribute", line=number
                )
            block = None
            continue
        if low.startswith("@data"):
            if block is not None:
                raise DataFormatError(
                    path,
                    f"relational attribute {block!r} is not closed by '@end {block}'",
                    line=number,
                )
            if len(top) != 3 or top[1][1] != "relational":
                raise DataFormatError(
                    path,
                    "expected three top-level attributes: bag id, a relational attribute, class",
                    line=number,
                )
            if not inner:
                raise DataFormatError(
                    path,
                    f"the relational attribute {top[1][0]!r} declares no features",
                    line=number,
                )
            return [a for a, _ in top], inner, top[2][1], number + 1
        m = _ATTRIBUTE.match(line)
        if not m:
            raise DataFormatError(path, f"cannot parse header line {line[:60]!r}", line=number)
        attr, kind = m.group(1).strip("'\""), m.group(2)
        if block is not None:
            levels = _levels(kind)
            if levels is None and kind.lower() not in _NUMERIC:
                raise DataFormatError(
                    path, f"instance attribute {attr!r} has unsupported type {kind!r}", line=number
                )
            inner.append((attr, levels))
        elif kind.lower() == "relational":
            block = attr
            top.append((attr, "relational"))
        else:
            top.append((attr, _levels(kind)))
    raise DataFormatError(path, "no @data section")


def _levels(kind: str):
    kind = kind.strip()
    if not (kind.startswith("{") and kind.endswith("}")):
        return None
    return [v.strip().strip("'\"") for v in kind[1:-1].split(",")]


# --------------------------------------------------------------------------- data
def _split_bag_line(path, line, number):
    """Split ``bagid,<q>body<q>,label[,{w}]`` into its parts."""
    if line[0] in "'\"":
        end = line.find(line[0], 1)
        if end < 0:
            raise DataFormatError(path, "unterminated quoted bag id", line=number)
        bag_name, rest = line[1:end], line[end + 1 :].lstrip()
        if not rest.startswith(","):
            raise DataFormatError(path, "expected ',' after the bag id", line=number)
        rest = rest[1:]
    else:
        bag_name, sep, rest = line.partition(",")
        if not sep:
            raise DataFormatError(path, "expected 'bagid,<quoted instances>,label'", line=number)
    bag_name, rest = bag_name.strip(), rest.lstrip()
    if not rest or rest[0] not in "'\"":
        raise DataFormatError(
            path, f"bag {bag_name!r}: the instances must be quoted with ' or \"", line=number
        )
    end = rest.find(rest[0], 1)
    if end < 0:
        raise DataFormatError(path, f"bag {bag_name!r}: unterminated quote", line=number)
    body, tail = rest[1:end], rest[end + 1 :].strip()
    if not tail.startswith(","):
        raise DataFormatError(
            path, f"bag {bag_name!r}: expected ',label' after the instances", line=number
        )
    tail, weight = tail[1:].strip(), None
    m = _WEIGHT.match(tail)
    if m:
        tail = m.group(1)
        try:
            weight = float(m.group(2))
        except ValueError:
            raise DataFormatError(
                path, f"bag {bag_name!r}: invalid instance weight {{{m.group(2)}}}", line=number
            ) from None
    label = tail.strip().strip("'\"")
    if not label or "," in label:
        raise DataFormatError(
            path,
            f"bag {bag_name!r}: expected one class value after the instances, got {tail!r}",
            line=number,
        )
    return bag_name, body, label, weight


def _parse_instances(path, body, inner, n_features, bag_name, number):
    rows = []
    for k, row in enumerate(body.split("\\n"), start=1):
        fields = [f.strip() for f in row.split(",")]
        if len(fields) == n_features + 1 and fields[-1] == "":
            fields.pop()  # trailing comma at the end of an instance row
        if fields == [""]:
            continue
        if len(fields) != n_features:
            raise DataFormatError(
                path,
                f"bag {bag_name!r}, instance {k}: "
                f"expected {n_features} values, found {len(fields)}",
                line=number,
            )
        rows.append(fields)
    if not rows:
        raise DataFormatError(path, f"bag {bag_name!r} has no instances", line=number)
    try:
        return np.array(rows, dtype=np.float64)
    except ValueError:
        pass  # '?' or nominal values: convert cell by cell, with a precise message
    out = np.empty((len(rows), n_features))
    for i, fields in enumerate(rows):
        for j, (value, (attr, levels)) in enumerate(zip(fields, inner)):
            out[i, j] = _cell(path, value, attr, levels, bag_name, i + 1, number)
    return out


def _cell(path, value, attr, levels, bag_name, k, number):
    if value == "?":
        return np.nan
    if levels is not None:
        value = value.strip("'\"")
        if value not in levels:
            raise DataFormatError(
                path,
                f"bag {bag_name!r}, instance {k}: {value!r} is not a level of {attr!r}",
                line=number,
            )
        return float(levels.index(value))
    try:
        return float(value)
    except ValueError:
        raise DataFormatError(
            path,
            f"bag {bag_name!r}, instance {k}: "
            f"non-numeric value {value!r} for numeric attribute {attr!r}",
            line=number,
        ) from None
