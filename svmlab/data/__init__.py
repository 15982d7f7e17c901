"""Datasets: the :class:`Dataset` type, file readers, the registry, synthetic generators and
fetching.

Typical use::

    from svmlab.data import load_dataset, list_datasets
    ds = load_dataset("musk1")            # registry name (or alias), verified by sha256
    ds = load_dataset("spiral", {"n_samples": 1000})
"""

from .dataset import TASKS, Dataset
from .registry import (
    clear_cache,
    dataset_info,
    fetch,
    list_datasets,
    load_dataset,
    locate,
    resolve,
    verify,
)

__all__ = [
    "TASKS",
    "Dataset",
    "clear_cache",
    "dataset_info",
    "fetch",
    "list_datasets",
    "load_dataset",
    "locate",
    "resolve",
    "verify",
]
