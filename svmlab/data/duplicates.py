"""Duplicated rows and bags of a dataset, and those among them whose labels disagree.

Two rows are duplicates when their feature vectors are identical (``NaN`` equals ``NaN``,
``-0.0`` equals ``0.0``); two bags are duplicates when they hold the same multiset of
instances (the order of the instances in a bag does not matter: a bag is a set to every
multi-instance method). A group of duplicates *conflicts* when its members do not all carry
the same label (classification) or the same targets (regression, multi-target).

Each row (and each bag's sorted instance codes) is reduced to a 128-bit BLAKE2b digest of
its bytes, and the digests are grouped with :func:`pandas.factorize`: one pass over the data,
no copy of it unless it holds ``-0.0`` or ``NaN``, and no pairwise comparison. Sparse
matrices are compared on their canonical CSR form (sorted indices, no stored zeros).

Typical use::

    from svmlab.data import load_dataset
    from svmlab.data.duplicates import find_duplicates
    find_duplicates(load_dataset("tiger")).describe()
    # '20 duplicated bags (bags 0-19 = 180-199), 10 with opposite labels'
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

import numpy as np

from .dataset import Dataset

#: Groups named in :meth:`Duplicates.describe` before "...".
SHOWN_GROUPS = 3
#: Members of a group named before "..." (and the group's size).
SHOWN_MEMBERS = 4
#: The bits of -0.0 read as an int64.
_NEGATIVE_ZERO = np.float64(-0.0).view(np.int64)


@dataclass(frozen=True)
class Duplicates:
    """The duplicated rows or bags of a dataset.

    Parameters
    ----------
    unit : {"rows", "bags"}
        What was compared: rows (single-instance data) or bags (multi-instance data).
    n : int
        Rows or bags checked.
    groups : tuple of tuple of int
        Positions (0-based, file order; bags in order of first appearance) of each group of
        two or more identical rows or bags, each group ascending, groups by first position.
    conflicting : tuple of int
        The indices into ``groups`` of the groups whose labels or targets differ.
    targets : {"labels", "targets"}
        Class labels (classification) or numeric targets (regression, multi-target).
    n_classes : int
        Distinct labels of the whole dataset (0 for targets): two makes conflicting labels
        "opposite".
    unavoidable : int
        Classification only: the members of the groups that disagree with their group's most
        frequent label, the errors one model must make on them (0 for targets).
    """

    unit: str
    n: int
    groups: tuple = ()
    conflicting: tuple = ()
    targets: str = "labels"
    n_classes: int = 0
    unavoidable: int = 0

    @property
    def n_duplicated(self) -> int:
        """Rows or bags that repeat an earlier one (the size of the data less its distinct
        rows or bags)."""
        return sum(len(g) - 1 for g in self.groups)

    @property
    def n_conflicting(self) -> int:
        """Groups of duplicates whose labels or targets differ."""
        return len(self.conflicting)

    def describe(self) -> str:
        """One line: ``20 duplicated bags (bags 0-19 = 180-199), 10 with opposite labels``.

        With a group of more than two, the groups are counted: ``5 duplicated rows in 3
        groups (rows 4 = 9 = 12, ...), 1 group with conflicting labels``.
        """
        if not self.groups:
            return f"no duplicated {self.unit} (of {self.n})"
        pairs = all(len(g) == 2 for g in self.groups)
        unit = self.unit if self.n_duplicated > 1 else self.unit[:-1]
        text = f"{self.n_duplicated} duplicated {unit}"
        if not pairs:
            text += f" in {len(self.groups)} groups"
        text += f" ({self.unit} {name_groups(self.groups)})"
        if self.targets == "targets":
            what = "different targets"
        else:
            what = "opposite labels" if self.n_classes == 2 else "conflicting labels"
        counted = "" if pairs else (" group" if self.n_conflicting == 1 else " groups")
        return f"{text}, {self.n_conflicting}{counted} with {what}"

    def to_dict(self) -> dict:
        """Plain values (JSON), read back by :meth:`from_dict`."""
        return {
            "unit": self.unit,
            "n": self.n,
            "groups": [list(g) for g in self.groups],
            "conflicting": list(self.conflicting),
            "targets": self.targets,
            "n_classes": self.n_classes,
            "unavoidable": self.unavoidable,
        }

    @classmethod
    def from_dict(cls, values: dict) -> Duplicates:
        """The :class:`Duplicates` of :meth:`to_dict`'s values."""
        return cls(
            unit=values["unit"],
            n=int(values["n"]),
            groups=tuple(tuple(int(i) for i in g) for g in values["groups"]),
            conflicting=tuple(int(i) for i in values["conflicting"]),
            targets=values["targets"],
            n_classes=int(values["n_classes"]),
            unavoidable=int(values["unavoidable"]),
        )


def name_groups(groups, shown: int = SHOWN_GROUPS) -> str:
    """Groups as text: ``0-19 = 180-199`` for pairs that run on together, ``4 = 9 = 12``
    otherwise; the first ``shown`` items, then ``...``."""
    items, run = [], None  # run: [first of each member, length] of consecutive pairs
    for g in groups:
        if run is not None and len(g) == 2 and all(a + run[1] == b for a, b in zip(run[0], g)):
            run[1] += 1
            continue
        if run is not None:
            items.append(_run_text(*run))
        run = [g, 1] if len(g) == 2 else None
        if run is None:
            items.append(_group_text(g))
    if run is not None:
        items.append(_run_text(*run))
    return ", ".join(items[:shown] + (["..."] if len(items) > shown else []))


def _group_text(group: tuple) -> str:
    """``4 = 9 = 12``; a long group ``0 = 10 = 65 = 70 = ... (176 in all)``."""
    if len(group) <= SHOWN_MEMBERS:
        return " = ".join(map(str, group))
    return " = ".join(map(str, group[:SHOWN_MEMBERS])) + f" = ... ({len(group)} in all)"


def _run_text(first: tuple, length: int) -> str:
    if length == 1:
        return " = ".join(map(str, first))
    return " = ".join(f"{a}-{a + length - 1}" for a in first)


def find_duplicates(dataset: Dataset) -> Duplicates:
    """The duplicated rows (bags, for multi-instance data) of ``dataset``."""
    if dataset.task == "multi_instance":
        return duplicate_bags(dataset.X, dataset.bag_ids, dataset.y)
    if dataset.task == "multitarget":
        return duplicate_rows(dataset.X, dataset.Y)
    return duplicate_rows(dataset.X, dataset.y, classes=dataset.is_classification)


def duplicate_rows(X, targets, *, classes: bool | None = None) -> Duplicates:
    """The groups of identical rows of ``X`` (dense or scipy sparse).

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_rows, n_features)
    targets : array-like of shape (n_rows,) or (n_rows, n_targets)
        Labels or targets; two columns or more are compared as whole rows.
    classes : bool, optional
        Whether ``targets`` are class labels. Default: one column not of a float dtype.

    Returns
    -------
    Duplicates
        ``unit="rows"``.
    """
    return _duplicates("rows", row_codes(X), targets, classes)


def duplicate_bags(X, bag_ids, labels, *, classes: bool = True) -> Duplicates:
    """The groups of bags holding the same multiset of instances.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_instances, n_features)
    bag_ids : array-like of shape (n_instances,)
        The bag (0 .. n_bags-1) of each instance.
    labels : array-like of shape (n_bags,)
        One label per bag.
    classes : bool, default=True
        Whether the labels are classes (else numeric targets).

    Returns
    -------
    Duplicates
        ``unit="bags"``.
    """
    bag_ids = np.asarray(bag_ids, dtype=np.int64)
    instance = row_codes(X)
    order = np.lexsort((instance, bag_ids))  # by bag, then by instance code
    bounds = np.cumsum(np.bincount(bag_ids, minlength=len(labels)))[:-1]
    keys = [_digest(part) for part in np.split(instance[order], bounds)]
    return _duplicates("bags", _factorize(keys), labels, classes)


def row_codes(X) -> np.ndarray:
    """An integer per row, equal for identical rows (``NaN`` equals ``NaN``, ``-0.0`` equals
    ``0.0``); dense arrays or scipy sparse matrices."""
    import scipy.sparse as sp

    if sp.issparse(X):
        keys = _sparse_row_keys(X)
    else:
        dense = _canonical(np.asarray(X, dtype=np.float64))
        if dense.ndim == 1:
            dense = dense[:, None]
        keys = [_digest(row) for row in dense]
    return _factorize(keys)


def _factorize(keys) -> np.ndarray:
    """A code per key, equal for equal keys (pandas' hash table, imported when needed: the
    stored findings are read without it)."""
    import pandas as pd

    values = keys if isinstance(keys, np.ndarray) else np.array(keys, dtype=object)
    return pd.factorize(values, use_na_sentinel=False)[0]


def _canonical(values: np.ndarray) -> np.ndarray:
    """C-contiguous, with one zero and one NaN bit pattern (a copy only when needed)."""
    values = np.ascontiguousarray(values)
    negative_zero = bool((values.view(np.int64) == _NEGATIVE_ZERO).any())  # one pass each
    nan = bool(np.isnan(values).any())
    if negative_zero or nan:
        values = values.copy()
        values[values == 0] = 0.0
        values[np.isnan(values)] = np.nan
    return values


def _sparse_row_keys(X) -> list[bytes]:
    """A digest per row of the canonical CSR form: sorted indices and values, no zeros."""
    csr = X.tocsr(copy=True).astype(np.float64)
    csr.sum_duplicates()
    csr.sort_indices()
    csr.eliminate_zeros()  # -0.0 == 0 too
    data = csr.data.copy()
    data[np.isnan(data)] = np.nan
    indices, ptr = csr.indices.astype(np.int64), csr.indptr
    return [_digest(indices[a:b]) + _digest(data[a:b]) for a, b in zip(ptr[:-1], ptr[1:])]


def _digest(values: np.ndarray) -> bytes:
    return hashlib.blake2b(np.ascontiguousarray(values), digest_size=16).digest()


def _duplicates(unit: str, codes: np.ndarray, targets, classes: bool | None) -> Duplicates:
    """:class:`Duplicates` from a code per row or bag and the targets."""
    targets = np.asarray(targets)
    if classes is None:
        classes = targets.ndim == 1 and targets.dtype.kind not in "fc"
    if targets.ndim == 2 and targets.shape[1] > 1:
        target_codes = row_codes(targets)
    else:
        target_codes = _factorize(targets.ravel())
    order = np.argsort(codes, kind="stable")
    bounds = np.flatnonzero(np.diff(codes[order])) + 1
    groups = sorted(
        (tuple(int(i) for i in g) for g in np.split(order, bounds) if len(g) > 1),
        key=lambda g: g[0],
    )
    conflicting, unavoidable = [], 0
    for k, group in enumerate(groups):
        counts = np.bincount(target_codes[list(group)])
        if np.count_nonzero(counts) > 1:
            conflicting.append(k)
            unavoidable += len(group) - int(counts.max())
    return Duplicates(
        unit=unit,
        n=len(codes),
        groups=tuple(groups),
        conflicting=tuple(conflicting),
        targets="labels" if classes else "targets",
        n_classes=len(np.unique(target_codes)) if classes else 0,
        unavoidable=unavoidable if classes else 0,
    )
