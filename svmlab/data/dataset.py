"""The :class:`Dataset` type every reader, generator and protocol shares."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

TASKS = ("binary", "multiclass", "regression", "multitarget", "multi_instance", "stream")
#: Tasks whose targets are class labels (streams are classification data in arrival order).
CLASSIFICATION_TASKS = ("binary", "multiclass", "multi_instance", "stream")
#: ``meta`` keys holding one value per bag / per instance, kept aligned by :meth:`Dataset.subset`.
BAG_META = ("bag_names", "bag_weights")
INSTANCE_META = ("instance_labels",)


def _subset_meta(meta: dict, keys, index) -> None:
    for key in keys:
        if key in meta:
            values = np.asarray(meta[key])[index]
            meta[key] = values.tolist() if isinstance(meta[key], list) else values


@dataclass(frozen=True, eq=False)
class Dataset:
    """An immutable, fully loaded benchmark dataset.

    Parameters
    ----------
    name : str
        Registry name (as the papers use it).
    task : {"binary", "multiclass", "regression", "multitarget", "multi_instance", "stream"}
        Learning task. Streams are classification data in arrival order.
    X : ndarray of shape (n_instances, n_features), float64
        Inputs. Nominal inputs are already encoded as numbers. Missing inputs are NaN.
    y : ndarray of shape (n_samples,) or None
        Targets for single-target tasks. For ``multi_instance`` data this holds
        one label per *bag* (in bag order), not per instance.
    Y : ndarray of shape (n_samples, n_targets) or None
        Targets for ``multitarget`` data (NaN marks a missing target value).
    bag_ids : ndarray of shape (n_instances,) of int or None
        For ``multi_instance`` data, the bag index (0 .. n_bags-1) of each instance.
        Bags are numbered in order of first appearance in the file.
    feature_names, target_names : tuple of str
    meta : dict
        Provenance: ``path``, ``sha256``, ``format``, ``source``, ``notes``,
        ``bag_names`` (original bag identifiers) and similar.
    """

    name: str
    task: str
    X: np.ndarray
    y: np.ndarray | None = None
    Y: np.ndarray | None = None
    bag_ids: np.ndarray | None = None
    feature_names: tuple[str, ...] = ()
    target_names: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        if self.task not in TASKS:
            raise ValueError(
                f"dataset {self.name!r}: unknown task {self.task!r}; valid tasks: "
                f"{', '.join(TASKS)}"
            )
        X = np.asarray(self.X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"dataset {self.name!r}: X must be 2-D, got shape {X.shape}")
        X.setflags(write=False)
        object.__setattr__(self, "X", X)
        if self.task == "multitarget":
            if self.Y is None:
                raise ValueError(f"dataset {self.name!r}: a multitarget dataset needs Y")
            Y = np.asarray(self.Y, dtype=np.float64)
            if Y.ndim != 2 or Y.shape[0] != X.shape[0]:
                raise ValueError(
                    f"dataset {self.name!r}: Y has shape {Y.shape}, expected ({X.shape[0]}, m)"
                )
            Y.setflags(write=False)
            object.__setattr__(self, "Y", Y)
        elif self.y is None:
            raise ValueError(f"dataset {self.name!r}: task {self.task!r} needs y")
        if self.task == "multi_instance":
            if self.bag_ids is None:
                raise ValueError(f"dataset {self.name!r}: multi-instance data needs bag_ids")
            bag_ids = np.asarray(self.bag_ids, dtype=np.int64)
            if bag_ids.shape != (X.shape[0],):
                raise ValueError(f"dataset {self.name!r}: bag_ids must have one entry per instance")
            n_bags = int(bag_ids.max()) + 1 if bag_ids.size else 0
            if len(self.y) != n_bags:
                raise ValueError(
                    f"dataset {self.name!r}: {len(self.y)} bag labels for {n_bags} bags"
                )
            bag_ids.setflags(write=False)
            object.__setattr__(self, "bag_ids", bag_ids)
        elif self.y is not None and len(self.y) != X.shape[0]:
            raise ValueError(
                f"dataset {self.name!r}: y has {len(self.y)} entries for {X.shape[0]} rows"
            )
        if self.y is not None:
            y = np.asarray(self.y)
            y.setflags(write=False)
            object.__setattr__(self, "y", y)
        if not self.feature_names:
            object.__setattr__(self, "feature_names", tuple(f"x{j}" for j in range(X.shape[1])))

    # ------------------------------------------------------------------ sizes
    @property
    def n_instances(self) -> int:
        """Number of rows of ``X`` (instances; for MI data, all instances of all bags)."""
        return self.X.shape[0]

    @property
    def n_samples(self) -> int:
        """Number of learning examples: bags for MI data, rows otherwise."""
        return self.n_bags if self.task == "multi_instance" else self.n_instances

    @property
    def n_features(self) -> int:
        return self.X.shape[1]

    @property
    def n_targets(self) -> int:
        return self.Y.shape[1] if self.Y is not None else 1

    @property
    def n_bags(self) -> int:
        return len(self.y) if self.task == "multi_instance" else 0

    @property
    def classes(self) -> np.ndarray:
        """Sorted distinct labels (classification, MI and stream tasks)."""
        if self.task in ("regression", "multitarget"):
            raise AttributeError(
                f"dataset {self.name!r} is a {self.task} dataset and has no classes"
            )
        return np.unique(self.y)

    @property
    def is_classification(self) -> bool:
        return self.task in CLASSIFICATION_TASKS

    # -------------------------------------------------------------------- bags
    @property
    def bags(self) -> list[np.ndarray]:
        """List of per-bag instance arrays, in bag order."""
        if self.task != "multi_instance":
            raise AttributeError(f"dataset {self.name!r} is not multi-instance")
        order = np.argsort(self.bag_ids, kind="stable")
        bounds = np.cumsum(np.bincount(self.bag_ids, minlength=self.n_bags))[:-1]
        return np.split(self.X[order], bounds)

    @property
    def targets(self) -> np.ndarray:
        """``Y`` for multitarget data, ``y`` otherwise (bag labels for MI data)."""
        return self.Y if self.task == "multitarget" else self.y

    def subset(self, index) -> Dataset:
        """Rows (bags for MI data) selected by ``index``, renumbering bags.

        Per-bag and per-instance entries of ``meta`` (see ``BAG_META`` and
        ``INSTANCE_META``) are subset alongside; ``predefined_split`` is dropped
        because its row indices no longer apply.
        """
        index = np.asarray(index)
        meta = {k: v for k, v in self.meta.items() if k != "predefined_split"}
        if self.task == "multi_instance":
            keep = np.isin(self.bag_ids, index)
            remap = np.full(self.n_bags, -1, dtype=np.int64)
            remap[index] = np.arange(len(index))
            ids = remap[self.bag_ids[keep]]
            order = np.argsort(ids, kind="stable")
            rows = np.flatnonzero(keep)[order]
            _subset_meta(meta, BAG_META, index)
            _subset_meta(meta, INSTANCE_META, rows)
            return replace(self, X=self.X[rows], y=self.y[index], bag_ids=ids[order], meta=meta)
        _subset_meta(meta, INSTANCE_META, index)
        return replace(
            self,
            X=self.X[index],
            y=None if self.y is None else self.y[index],
            Y=None if self.Y is None else self.Y[index],
            meta=meta,
        )

    def summary(self) -> dict[str, Any]:
        """Counts in the layout of MANIFEST.tsv (rows, bags, features, targets, classes)."""
        out = {
            "name": self.name,
            "task": self.task,
            "rows": self.n_instances,
            "bags": self.n_bags or None,
            "features": self.n_features,
            "targets": self.n_targets if self.task == "multitarget" else None,
            "classes": len(self.classes) if self.is_classification else None,
        }
        return out

    def __repr__(self) -> str:
        parts = [f"{self.name!r}", self.task, f"{self.n_instances}x{self.n_features}"]
        if self.task == "multi_instance":
            parts.append(f"{self.n_bags} bags")
        if self.task == "multitarget":
            parts.append(f"{self.n_targets} targets")
        if self.is_classification:
            parts.append(f"{len(self.classes)} classes")
        return f"Dataset({', '.join(parts)})"
