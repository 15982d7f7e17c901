"""Evaluation protocols: splitter objects that give deterministic train/test splits.

A protocol configuration (``conf/protocol/*.yaml``) names a ``kind``; :func:`get_protocol`
turns it into one of the splitters below, validating every field once:

:class:`KFold` (``kfold``)
    Shuffled k-fold (regression, multi-target regression).
:class:`StratifiedKFold` (``stratified_kfold``)
    Stratified k-fold on the class labels (classification, streams used as batch data).
:class:`BagStratifiedKFold` (``bag_stratified_kfold``)
    Stratified k-fold over *bags* (multi-instance data); a bag is never split.
:class:`AutoKFold` (``auto_kfold``)
    One of the three above, chosen from the dataset's task by :meth:`Protocol.for_task`.
:class:`Holdout` (``holdout``)
    One (or ``n_repeats``) random train/test split(s), stratified for classification; the
    training part is ``test_size`` or ``train_size`` (a count, a fraction, or one per
    dataset), and ``resample: false`` reuses one split in every repetition.
:class:`Predefined` (``predefined``)
    The dataset's own train/test split (two files joined into one dataset, e.g. the LIBSVM
    ``.t`` test files), the same in every repetition.
:class:`Prequential` (``prequential``)
    Batched test-then-train over a stream in arrival order (one task; the chunks are
    evaluated inside it, see :meth:`Prequential.chunks`).

Like scikit-learn's splitters, a protocol's :meth:`~Protocol.split` yields the splits of a
target vector. Splits index *samples*: rows, or bags for multi-instance data. They depend
only on the master seed, the dataset name and the repetition (and, for ``predefined``, the
dataset's recorded test rows, passed as ``predefined=``), so every solver sees the same
folds.

>>> import numpy as np
>>> cv = get_protocol({"name": "cv3", "kind": "auto_kfold", "n_splits": 3}).for_task("binary")
>>> type(cv).__name__, cv.n_folds
('StratifiedKFold', 3)
>>> [len(s.test) for s in cv.split(np.repeat([0, 1], 6), seed=0, dataset="toy")]
[4, 4, 4]
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from sklearn.model_selection import KFold as _SkKFold
from sklearn.model_selection import train_test_split

from svmlab.data.dataset import CLASSIFICATION_TASKS, TASKS
from svmlab.errors import ConfigError
from svmlab.seeding import derive_seed


@dataclass(frozen=True)
class Split:
    """One train/test split of one repetition."""

    repeat: int
    fold: int
    train: np.ndarray
    test: np.ndarray


@dataclass(frozen=True)
class Protocol(ABC):
    """Base class of the splitters; ``config`` is the configuration it was built from.

    Subclasses set :attr:`kind`, validate their own fields in :meth:`_validate` and
    produce the splits of one repetition in :meth:`_repeat_splits`.
    """

    name: str
    n_repeats: int = 1
    config: tuple = ()  # the configuration as sorted (key, value) pairs (hashable)

    kind: ClassVar[str] = ""
    #: Dataset tasks this protocol can split.
    tasks: ClassVar[tuple[str, ...]] = ()
    #: The reason given when a dataset's task does not fit (formatted with dataset, task).
    mismatch: ClassVar[str] = "cannot split dataset {dataset!r} ({task})"

    def _validate(self) -> None:
        _check_int(self, "n_repeats", self.n_repeats, 1)

    @property
    def n_folds(self) -> int:
        """Number of splits per repetition."""
        return 1

    def for_task(self, task: str) -> Protocol:
        """The concrete protocol used on a dataset of ``task`` (itself, except for auto)."""
        return self

    def check(self, task: str, dataset: str) -> Protocol:
        """The concrete protocol for ``dataset``; :class:`ConfigError` when it cannot split it."""
        concrete = self.for_task(task)
        if task not in concrete.tasks:
            reason = concrete.mismatch.format(dataset=dataset, task=task)
            raise ConfigError(f"protocol {self.name!r} {reason}")
        return concrete

    def split(
        self, y, *, seed: int, dataset: str, task: str | None = None, predefined=None
    ) -> Iterator[Split]:
        """Every (repeat, fold) split of targets ``y`` (one label per bag for MI data).

        ``task`` is needed only by protocols that behave differently per task (hold-out
        stratifies classification data only). ``predefined`` is the dataset's recorded
        split (``Dataset.meta["predefined_split"]``: ``{"train": rows, "test": rows}``),
        used only by :class:`Predefined`.
        """
        y = np.asarray(y)
        for repeat in range(self.n_repeats):
            yield from self.repeat_splits(
                y, repeat, seed=seed, dataset=dataset, task=task, predefined=predefined
            )

    def repeat_splits(
        self, y, repeat: int, *, seed: int, dataset: str, task: str | None = None, predefined=None
    ) -> list[Split]:
        """The splits of repetition ``repeat`` alone, as :meth:`split` yields them (a task of
        a run with 100,000 repetitions draws its own, not all of them)."""
        rs = derive_seed(seed, "split", dataset, self._seed_repeat(repeat))
        return list(self._repeat_splits(np.asarray(y), repeat, rs, task))

    def _seed_repeat(self, repeat: int) -> int:
        """The repetition whose seed draws the splits of ``repeat`` (itself by default)."""
        return repeat

    @abstractmethod
    def _repeat_splits(self, y, repeat: int, rs: int, task: str | None) -> Iterator[Split]:
        """The splits of one repetition, seeded with ``rs``."""

    def as_dict(self) -> dict:
        """The configuration this protocol was built from."""
        return dict(self.config)


@dataclass(frozen=True)
class _Folds(Protocol):
    n_splits: int = 10

    def _validate(self) -> None:
        super()._validate()
        _check_int(self, "n_splits", self.n_splits, 2)

    @property
    def n_folds(self) -> int:
        return self.n_splits


@dataclass(frozen=True)
class KFold(_Folds):
    """Shuffled, unstratified k-fold (regression and multi-target regression)."""

    kind: ClassVar[str] = "kfold"
    tasks: ClassVar[tuple[str, ...]] = TASKS

    def _repeat_splits(self, y, repeat, rs, task):
        index = np.arange(len(y))
        kf = _SkKFold(n_splits=self.n_splits, shuffle=True, random_state=rs)
        for fold, (train, test) in enumerate(kf.split(index)):
            yield Split(repeat, fold, train, test)


@dataclass(frozen=True)
class StratifiedKFold(_Folds):
    """Stratified k-fold that also works when a class has fewer members than folds."""

    kind: ClassVar[str] = "stratified_kfold"
    tasks: ClassVar[tuple[str, ...]] = tuple(CLASSIFICATION_TASKS)
    mismatch: ClassVar[str] = (
        "stratifies on class labels, but dataset {dataset!r} is a {task} dataset; "
        "use protocol=kfold10 or protocol=cv10"
    )

    def _repeat_splits(self, y, repeat, rs, task):
        index = np.arange(len(y))
        folds = stratified_fold_ids(y, self.n_splits, rs)
        for fold in range(self.n_splits):
            yield Split(repeat, fold, index[folds != fold], index[folds == fold])


@dataclass(frozen=True)
class BagStratifiedKFold(StratifiedKFold):
    """Stratified k-fold over bags (one label per bag); a bag is never split."""

    kind: ClassVar[str] = "bag_stratified_kfold"
    tasks: ClassVar[tuple[str, ...]] = ("multi_instance",)
    mismatch: ClassVar[str] = "splits bags, but dataset {dataset!r} is not multi-instance ({task})"


@dataclass(frozen=True)
class AutoKFold(_Folds):
    """k-fold that adapts to the task: stratified, bag-level stratified or plain."""

    kind: ClassVar[str] = "auto_kfold"
    tasks: ClassVar[tuple[str, ...]] = TASKS

    def for_task(self, task: str) -> Protocol:
        if task == "multi_instance":
            cls = BagStratifiedKFold
        elif task in CLASSIFICATION_TASKS:
            cls = StratifiedKFold
        else:
            cls = KFold
        return cls(self.name, self.n_repeats, self.config, n_splits=self.n_splits)

    def _repeat_splits(self, y, repeat, rs, task):
        raise ConfigError(f"protocol {self.name!r}: call for_task(task) before split()")


@dataclass(frozen=True)
class Holdout(Protocol):
    """Random train/test split(s), stratified for classification when every class has 2+.

    Parameters
    ----------
    test_size : float in (0, 1) or None, default=0.3
        Fraction of the samples in the test part. Exclusive with ``train_size``: set it
        to null when giving ``train_size``.
    train_size : int, float, mapping or None, default=None
        Size of the training part, the rest being the test part: a count (int >= 1), a
        fraction in (0, 1), or a mapping ``{dataset name: count or fraction}`` giving one
        per dataset (Oliveira (2021), Tables 9 and 14, after Zhao et al. 2012); a dataset
        missing from the mapping is an error.
    resample : bool, default=True
        ``True``: every repetition draws its own split. ``False``: the split of
        repetition 0 is reused in every repetition, so repeats differ only by the
        estimator's seed (Oliveira (2021), Table 19's 0.00 standard deviations; A15).
    """

    test_size: float | None = 0.3
    train_size: int | float | tuple | None = None
    resample: bool = True

    kind: ClassVar[str] = "holdout"
    tasks: ClassVar[tuple[str, ...]] = TASKS

    def __post_init__(self):
        if isinstance(self.train_size, Mapping):  # hashable, for the runner's split cache
            object.__setattr__(self, "train_size", tuple(sorted(self.train_size.items())))

    def _validate(self) -> None:
        super()._validate()
        ts, size = self.test_size, self.train_size
        if not isinstance(self.resample, bool):
            raise ConfigError(
                f"protocol {self.name!r}: resample must be true or false, got {self.resample!r}"
            )
        if size is not None and ts is not None:
            raise ConfigError(
                f"protocol {self.name!r}: give either test_size or train_size, not both "
                f"(test_size={ts!r}, train_size given); set test_size to null"
            )
        if size is None:
            if not (_is_number(ts) and 0 < ts < 1):
                raise ConfigError(
                    f"protocol {self.name!r}: test_size must be a fraction in (0, 1), got {ts!r}"
                )
            return
        sizes = dict(size) if isinstance(size, tuple) else {None: size}
        if not sizes:
            raise ConfigError(f"protocol {self.name!r}: train_size is an empty mapping")
        for key, value in sizes.items():
            if not _valid_size(value):
                where = "" if key is None else f" for dataset {key!r}"
                raise ConfigError(
                    f"protocol {self.name!r}: train_size{where} must be a count (int >= 1) or "
                    f"a fraction in (0, 1), got {value!r}"
                )

    def _seed_repeat(self, repeat: int) -> int:
        return repeat if self.resample else 0

    def train_size_for(self, dataset: str):
        """The training size used on ``dataset`` (None when ``test_size`` decides)."""
        if not isinstance(self.train_size, tuple):
            return self.train_size
        sizes = dict(self.train_size)
        if dataset not in sizes:
            raise ConfigError(
                f"protocol {self.name!r}: train_size has no entry for dataset {dataset!r}; "
                f"it lists {', '.join(map(str, sizes))}"
            )
        return sizes[dataset]

    def repeat_splits(self, y, repeat, *, seed, dataset, task=None, predefined=None):
        size = self.train_size_for(dataset)  # an unknown dataset fails before any split
        rs = derive_seed(seed, "split", dataset, self._seed_repeat(repeat))
        return list(self._holdout(np.asarray(y), repeat, rs, task, size))

    def _repeat_splits(self, y, repeat, rs, task):
        yield from self._holdout(y, repeat, rs, task, self.train_size_for(""))

    def _holdout(self, y, repeat, rs, task, size):
        if task is None:  # whether to stratify depends on it
            raise ConfigError(f"protocol {self.name!r}: holdout split() needs the dataset's task")
        index = np.arange(len(y))
        labels = y if (task in CLASSIFICATION_TASKS) else None
        if labels is not None and np.unique(labels, return_counts=True)[1].min() < 2:
            labels = None
        if isinstance(size, int) and size >= len(y):
            raise ConfigError(
                f"protocol {self.name!r}: train_size={size} leaves no test samples "
                f"({len(y)} samples)"
            )
        sizes = {"test_size": self.test_size} if size is None else {"train_size": size}
        train, test = train_test_split(index, random_state=rs, stratify=labels, **sizes)
        yield Split(repeat, 0, np.sort(train), np.sort(test))


@dataclass(frozen=True)
class Predefined(Protocol):
    """The dataset's own train/test split, identical in every repetition.

    For datasets that come as a training and a test file (the LIBSVM sets of Oliveira
    (2021), Table 6; Ripley's synth.te/synth.tr): the registry joins the two into one
    dataset and records which rows are the test rows (``meta["predefined_split"]``).
    The repetitions differ only by the estimator's seed (Oliveira (2021), Sec. 3.3.2.2:
    20 realizations on the fixed splits).
    """

    kind: ClassVar[str] = "predefined"
    tasks: ClassVar[tuple[str, ...]] = TASKS

    def repeat_splits(self, y, repeat, *, seed, dataset, task=None, predefined=None):
        if not predefined or "train" not in predefined or "test" not in predefined:
            raise ConfigError(
                f"protocol {self.name!r} (predefined) needs a dataset with a predefined "
                f"train/test split; dataset {dataset!r} has none"
            )
        train = np.sort(np.asarray(predefined["train"], dtype=np.int64))
        test = np.sort(np.asarray(predefined["test"], dtype=np.int64))
        n = len(y)
        if len(train) + len(test) > n or (len(test) and test.max() >= n):
            raise ConfigError(
                f"protocol {self.name!r}: the predefined split of dataset {dataset!r} does not "
                f"fit its {n} samples"
            )
        return [Split(repeat, 0, train, test)]

    def _repeat_splits(self, y, repeat, rs, task):
        # the splits come from the dataset, which only split() receives
        raise ConfigError(
            f"protocol {self.name!r} (predefined) draws no splits: call repeat_splits(..., "
            "predefined=dataset.meta['predefined_split'])"
        )


def _is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _valid_size(value) -> bool:
    if isinstance(value, int) and not isinstance(value, bool):
        return value >= 1
    return _is_number(value) and 0 < value < 1


UPDATES = ("auto", "partial_fit", "refit")


@dataclass(frozen=True)
class Prequential(Protocol):
    """Batched test-then-train over a stream in arrival order (one split: all samples)."""

    chunk_size: int = 1000
    max_samples: int | None = None
    update: str = "auto"

    kind: ClassVar[str] = "prequential"
    tasks: ClassVar[tuple[str, ...]] = tuple(CLASSIFICATION_TASKS)
    mismatch: ClassVar[str] = "is for streams; dataset {dataset!r} is a {task} dataset"

    def _validate(self) -> None:
        super()._validate()
        _check_int(self, "chunk_size", self.chunk_size, 2)
        if self.update not in UPDATES:
            raise ConfigError(
                f"protocol {self.name!r}: update must be one of {', '.join(UPDATES)}, "
                f"got {self.update!r}"
            )

    def _repeat_splits(self, y, repeat, rs, task):
        index = np.arange(len(y))
        yield Split(repeat, 0, index, index)

    def chunks(self, n_samples: int) -> list[tuple[int, int]]:
        """``(start, stop)`` of each chunk, in arrival order."""
        n = min(int(self.max_samples or n_samples), n_samples)
        size = int(self.chunk_size)
        return [(s, min(s + size, n)) for s in range(0, n, size)]


PROTOCOLS: dict[str, type[Protocol]] = {
    cls.kind: cls
    for cls in (
        KFold,
        StratifiedKFold,
        BagStratifiedKFold,
        AutoKFold,
        Holdout,
        Predefined,
        Prequential,
    )
}
KINDS = tuple(PROTOCOLS)
_COSMETIC = ("name", "kind", "description")


def get_protocol(config: dict | Protocol) -> Protocol:
    """The validated splitter of a protocol configuration (a ``conf/protocol`` mapping).

    Raises
    ------
    ConfigError
        Unknown ``kind``, a field the kind does not have, or an invalid value (naming the
        protocol, the field and what is valid).
    """
    if isinstance(config, Protocol):
        return config
    config = dict(config)
    name = config.get("name") or config.get("kind") or "?"
    kind = config.get("kind")
    if kind not in PROTOCOLS:
        raise ConfigError(
            f"protocol {name!r}: unknown kind {kind!r}; valid kinds: {', '.join(KINDS)}"
        )
    cls = PROTOCOLS[kind]
    fields = set(cls.__dataclass_fields__) - {"name", "config"}
    options = {k: v for k, v in config.items() if k not in _COSMETIC}
    unknown = sorted(set(options) - fields)
    if unknown:
        raise ConfigError(
            f"protocol {name!r} ({kind}) has no field {unknown[0]!r}; "
            f"valid fields: {', '.join(sorted(fields))}"
        )
    frozen = tuple(sorted((k, _hashable(v)) for k, v in config.items()))
    protocol = cls(name=name, config=frozen, **options)
    protocol._validate()
    return protocol


def _hashable(value):
    if isinstance(value, dict):
        return tuple(sorted((k, _hashable(v)) for k, v in value.items()))
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    return value


def _check_int(protocol: Protocol, field: str, value, least: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value < least:
        raise ConfigError(
            f"protocol {protocol.name!r}: {field} must be an integer >= {least}, got {value!r}"
        )


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


def make_splits(
    protocol: dict | Protocol, task: str, y, seed: int, dataset: str, predefined=None
) -> list[Split]:
    """All (repeat, fold) splits of a ``task`` dataset: build, check, split in one call.

    Parameters
    ----------
    protocol : dict or Protocol
        A protocol configuration (``kind``, ``n_splits``, ``n_repeats``, ...) or splitter.
    task : str
        The dataset's task.
    y : array-like of shape (n_samples,) or (n_samples, m)
        Targets per sample (bag labels for multi-instance data).
    seed : int
        Master seed.
    dataset : str
        Dataset name (part of the derived seed, so datasets get independent folds).
    predefined : mapping, optional
        The dataset's recorded split (``{"train": rows, "test": rows}``), for ``predefined``.

    Returns
    -------
    list of Split
    """
    concrete = get_protocol(protocol).check(task, dataset)
    return list(concrete.split(y, seed=seed, dataset=dataset, task=task, predefined=predefined))
