"""What the deviation scripts share: a study's dataset and splits as its runner draws them, and
its solvers as its runner builds them."""

from __future__ import annotations

import numpy as np

from svmlab.config import compose
from svmlab.data.registry import load_dataset
from svmlab.evaluation.protocols import get_protocol
from svmlab.runner.task import _splits
from svmlab.solvers import SolverSpec


def study_splits(experiment: str, dataset: str, repeat: int = 0):
    """``(dataset, {fold: split})`` of one repetition of ``experiment``'s protocol, with its
    seed: the parts its tasks train and test on."""
    cfg, _ = compose([f"+experiment={experiment}"])
    protocol = get_protocol(dict(cfg["protocol"]))
    return load_dataset(dataset), _splits(dataset, "{}", protocol, cfg.get("seed", 0), repeat)


def study_estimator(experiment: str, solver: str, **params):
    """A fresh estimator of ``experiment``'s solver ``solver`` as configured, with ``params``
    set (a grid point, or any other parameter of the estimator)."""
    cfg, _ = compose([f"+experiment={experiment}"])
    return SolverSpec.from_config(dict(cfg["solvers"][solver])).build(params)


def study_split(experiment: str, dataset: str, repeat: int = 0):
    """``(dataset, split)``: the first split of a repetition (a hold-out's only one)."""
    ds, splits = study_splits(experiment, dataset, repeat)
    return ds, next(iter(splits.values()))


def zscored(A, train) -> np.ndarray:
    """``A`` z-scored with the mean and standard deviation of its rows ``train`` (a constant
    column keeps its scale), as the studies' ``preprocessing: zscore`` does."""
    A = np.asarray(A, dtype=np.float64)
    mean, std = A[train].mean(0), A[train].std(0)
    return (A - mean) / np.where(std > 0, std, 1.0)
