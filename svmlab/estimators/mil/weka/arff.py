"""Weka's relational multi-instance ARFF files (written for the training and the test bags)
and Weka 3.6's ``-p 0 -distribution`` prediction table (read back)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _row(values) -> str:
    # repr of a Python float is the shortest string that reads back to the same double
    return ",".join(map(repr, values))


def write_mi_arff(
    path,
    bags,
    labels,
    *,
    bag_ids,
    declared_ids=None,
    class_levels=("0", "1"),
    weights=None,
    relation: str = "svmlab",
    n_features: int | None = None,
) -> None:
    """Write bags as a Weka relational multi-instance ARFF file.

    Layout: a nominal bag id, ``@attribute bag relational`` with numeric features ``f1..fd``,
    and the nominal ``class``. Each bag is one line, ``id,"v11,v12,...\\nv21,...",label[,{w}]``
    (instances separated by the two characters backslash-n), values at full double precision.

    Parameters
    ----------
    path : str or Path
    bags : sequence of ndarray of shape (n_instances_I, d)
    labels : sequence of str or None
        Class value of each bag (one of ``class_levels``); None writes ``?`` (unknown).
    bag_ids : sequence of str
        The id of each bag.
    declared_ids : sequence of str, optional
        The ids the header declares (default ``bag_ids``). Weka needs identical headers in
        the training and the test file, so both declare the ids of both.
    class_levels : sequence of str
    weights : sequence of float, optional
        Weka instance weight of each bag.
    relation : str
    n_features : int, optional
        Number of features (default: taken from the first bag).
    """
    if len(bag_ids) != len(bags) or len(labels) != len(bags):
        raise ValueError(f"{len(bags)} bags but {len(bag_ids)} ids and {len(labels)} labels")
    if n_features is None:
        n_features = np.asarray(bags[0]).shape[1]
    declared = [str(b) for b in (bag_ids if declared_ids is None else declared_ids)]
    levels = [str(c) for c in class_levels]
    for s in (*declared, *levels, relation):
        if not s or any(c in s for c in ",'\"{}% \t\n\\"):
            raise ValueError(
                f"{s!r} cannot be written unquoted to ARFF (bag id, class value or relation name)"
            )
    missing = set(map(str, bag_ids)) - set(declared)
    if missing:
        raise ValueError(f"bag ids {sorted(missing)[:3]} are not among declared_ids")
    lines = [
        f"@relation {relation}",
        "",
        f"@attribute bag_id {{{','.join(declared)}}}",
        "@attribute bag relational",
    ]
    lines += [f"  @attribute f{j + 1} numeric" for j in range(n_features)]
    lines += ["@end bag", f"@attribute class {{{','.join(levels)}}}", "", "@data"]
    for i, bag in enumerate(bags):
        body = "\\n".join(_row(r) for r in np.asarray(bag, dtype=np.float64).tolist())
        label = "?" if labels[i] is None else str(labels[i])
        if label != "?" and label not in levels:
            raise ValueError(f"bag {i}: class value {label!r} is not one of {levels}")
        line = f'{bag_ids[i]},"{body}",{label}'
        if weights is not None:
            line += f",{{{float(weights[i])!r}}}"
        lines.append(line)
    Path(path).write_text("\n".join(lines) + "\n", encoding="ascii")


def parse_predictions(text: str, n_bags: int, n_classes: int = 2):
    """Read Weka 3.6's ``-p 0 -distribution`` output.

    Parameters
    ----------
    text : str
        Weka's standard output.
    n_bags : int
        Expected number of predictions.
    n_classes : int

    Returns
    -------
    pred : ndarray of shape (n_bags,), int
        Weka's predicted class index (0-based; the argmax of the distribution when Weka
        printed ``?``).
    proba : ndarray of shape (n_bags, n_classes)
        The printed distribution (3 decimals), renormalised to sum to 1.

    Raises
    ------
    ValueError
        When the predictions table is missing or malformed.
    """
    lines = text.splitlines()
    try:
        head = next(k for k, line in enumerate(lines) if line.split()[:2] == ["inst#", "actual"])
    except StopIteration:
        raise ValueError(
            "Weka printed no predictions table ('inst#  actual  predicted ...')"
        ) from None
    pred, proba = [], []
    for line in lines[head + 1 :]:
        tokens = line.split()
        if not tokens:
            continue
        if not tokens[0].isdigit() or len(tokens) < 4:
            raise ValueError(f"unexpected line in Weka's predictions: {line!r}")
        if int(tokens[0]) != len(pred) + 1:
            raise ValueError(f"Weka's predictions are out of order at line {line!r}")
        try:
            dist = np.array([float(v.lstrip("*")) for v in tokens[-1].split(",")])
        except ValueError:
            raise ValueError(
                f"cannot read the class distribution in Weka's line {line!r}"
            ) from None
        if dist.shape != (n_classes,):
            raise ValueError(
                f"expected {n_classes} class probabilities, Weka printed {tokens[-1]!r}"
            )
        total = dist.sum()
        dist = dist / total if total > 0 else np.full(n_classes, 1.0 / n_classes)
        label = tokens[2]
        pred.append(int(label.split(":", 1)[0]) - 1 if ":" in label else int(np.argmax(dist)))
        proba.append(dist)
    if len(pred) != n_bags:
        raise ValueError(f"Weka printed {len(pred)} predictions for {n_bags} test bags")
    pred = np.asarray(pred, dtype=np.intp)
    if np.any((pred < 0) | (pred >= n_classes)):
        raise ValueError(f"Weka predicted a class index outside 1..{n_classes}")
    return pred, np.asarray(proba, dtype=np.float64).reshape(n_bags, n_classes)
