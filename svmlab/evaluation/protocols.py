"""Evaluation protocols: deterministic train/test splits for every task type.

A protocol configuration (``conf/protocol/*.yaml``) names a ``kind``:

``kfold``
    Shuffled k-fold (regression, multi-target regression).
``stratified_kfold``
    Stratified k-fold on the class labels (classification, streams used as batch data).
``bag_stratified_kfold``
    Stratified k-fold over *bags* (multi-instance data); a bag is never split.
``auto_kfold``
    One of the three above, chosen from the dataset's task.
``holdout``
    One (or ``n_repeats``) random train/test split(s), stratified for classification.
``prequential``
    Batched test-then-train over a stream in arrival order (one task; the chunks are
    evaluated inside it, see :func:`stream_chunks`).

Splits index *samples*: rows, or bags for multi-instance data. They depend only on the
master seed, the dataset name and the repetition, so every solver sees the same folds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import KFold, train_test_split

from svmlab.data.dataset import CLASSIFICATION_TASKS
from svmlab.errors import ConfigError
from svmlab.seeding import derive_seed

KINDS = (
    "kfold",
    "stratified_kfold",
    "bag_stratified_kfold",
    "auto_kfold",
    "holdout",
    "prequential",
)


@dataclass(frozen=True)
class Split:
    """One train/test split of one repetition."""

    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray


def resolve_kind(protocol: dict, task: str) -> str:
    """The concrete splitting scheme ``protocol`` uses on a dataset of ``task``."""
    kind = protocol.get("kind")
    if kind not in KINDS:
        raise ConfigError(
            f"protocol {protocol.get('name')!r}: unknown kind {kind!r}; valid kinds: {', '.join(KINDS)}"
        )
    if kind != "auto_kfold":
        return kind
    if task == "multi_instance":
        return "bag_stratified_kfold"
    return "stratified_kfold" if task in CLASSIFICATION_TASKS else "kfold"


def check_protocol(protocol: dict, task: str, dataset: str) -> None:
    """Raise :class:`ConfigError` when ``protocol`` cannot evaluate a ``task`` dataset."""
    name = protocol.get("name", protocol.get("kind"))
    kind = resolve_kind(protocol, task)
    if kind == "stratified_kfold" and task not in CLASSIFICATION_TASKS:
        raise ConfigError(
            f"protocol {name!r} stratifies on class labels, but dataset {dataset!r} is a {task} dataset; "
            "use protocol=kfold10 or protocol=cv10"
        )
    if kind == "bag_stratified_kfold" and task != "multi_instance":
        raise ConfigError(
            f"protocol {name!r} splits bags, but dataset {dataset!r} is not multi-instance ({task})"
        )
    if kind == "prequential" and task not in CLASSIFICATION_TASKS:
        raise ConfigError(
            f"protocol {name!r} is for streams; dataset {dataset!r} is a {task} dataset"
        )
    checks = [("n_repeats", 1)] + (
        [("n_splits", 2)] if kind in ("kfold", "stratified_kfold", "bag_stratified_kfold") else []
    )
    for key, least in checks:
        value = protocol.get(key, least)
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ConfigError(
                f"protocol {name!r}: {key} must be an integer >= {least}, got {value!r}"
            )
    if kind == "holdout":
        ts = protocol.get("test_size", 0.3)
        if not (isinstance(ts, (int, float)) and 0 < ts < 1):
            raise ConfigError(
                f"protocol {name!r}: test_size must be a fraction in (0, 1), got {ts!r}"
            )
    if kind == "prequential":
        cs = protocol.get("chunk_size")
        if not isinstance(cs, int) or cs < 2:
            raise ConfigError(f"protocol {name!r}: chunk_size must be an integer >= 2, got {cs!r}")
        if protocol.get("update", "auto") not in ("auto", "partial_fit", "refit"):
            raise ConfigError(
                f"protocol {name!r}: update must be auto, partial_fit or refit, got {protocol.get('update')!r}"
            )


def n_folds(protocol: dict, task: str) -> int:
    """Number of folds per repetition (1 for hold-out and prequential)."""
    kind = resolve_kind(protocol, task)
    return 1 if kind in ("holdout", "prequential") else int(protocol["n_splits"])


def stratified_fold_ids(y, n_splits: int, random_state: int) -> np.ndarray:
    """Assign each sample a fold so that every class is spread as evenly as possible.

    Samples of each class are shuffled and dealt to the folds in turn; the dealing
    continues where the previous class stopped, so fold sizes differ by at most one.
    Unlike scikit-learn's ``StratifiedKFold`` this also works when a class has fewer
    members than folds (e.g. the 13-bag Suramin data set with 10 folds).
    """
    y = np.asarray(y)
    if len(y) < n_splits:
        raise ConfigError(f"cannot make {n_splits} folds from {len(y)} samples")
    rng = np.random.default_rng(random_state)
    folds = np.empty(len(y), dtype=np.int64)
    start = 0
    classes, y_codes = np.unique(y, return_inverse=True)
    for c in range(len(classes)):
        members = rng.permutation(np.flatnonzero(y_codes == c))
        folds[members] = (start + np.arange(len(members))) % n_splits
        start = (start + len(members)) % n_splits
    return folds


def make_splits(protocol: dict, task: str, y, seed: int, dataset: str) -> list[Split]:
    """All (repeat, fold) splits of a dataset under ``protocol``.

    Parameters
    ----------
    protocol : dict
        A protocol configuration (``kind``, ``n_splits``, ``n_repeats``, ...).
    task : str
        The dataset's task.
    y : array-like of shape (n_samples,) or (n_samples, m)
        Targets per sample (bag labels for multi-instance data).
    seed : int
        Master seed.
    dataset : str
        Dataset name (part of the derived seed, so datasets get independent folds).

    Returns
    -------
    list of Split
    """
    check_protocol(protocol, task, dataset)
    kind = resolve_kind(protocol, task)
    n = len(y)
    index = np.arange(n)
    splits = []
    for repeat in range(int(protocol.get("n_repeats", 1))):
        rs = derive_seed(seed, "split", dataset, repeat)
        if kind == "prequential":
            splits.append(Split(repeat, 0, index, index))
        elif kind == "holdout":
            labels = np.asarray(y) if task in CLASSIFICATION_TASKS else None
            if labels is not None and np.unique(labels, return_counts=True)[1].min() < 2:
                labels = None
            train, test = train_test_split(
                index, test_size=protocol.get("test_size", 0.3), random_state=rs, stratify=labels
            )
            splits.append(Split(repeat, 0, np.sort(train), np.sort(test)))
        elif kind == "kfold":
            kf = KFold(n_splits=protocol["n_splits"], shuffle=True, random_state=rs)
            for fold, (train, test) in enumerate(kf.split(index)):
                splits.append(Split(repeat, fold, train, test))
        else:  # stratified_kfold, bag_stratified_kfold: y holds one label per sample (bag)
            folds = stratified_fold_ids(y, protocol["n_splits"], rs)
            for fold in range(protocol["n_splits"]):
                splits.append(Split(repeat, fold, index[folds != fold], index[folds == fold]))
    return splits


def stream_chunks(n_samples: int, protocol: dict) -> list[tuple[int, int]]:
    """``(start, stop)`` of each prequential chunk, in arrival order."""
    limit = protocol.get("max_samples") or n_samples
    n = min(int(limit), n_samples)
    size = int(protocol["chunk_size"])
    return [(s, min(s + size, n)) for s in range(0, n, size)]
