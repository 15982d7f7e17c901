"""Preprocessing fitted on the training part of a split only, applied to both parts."""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from svmlab.data.dataset import Dataset
from svmlab.errors import ConfigError

SCALERS = ("zscore", "minmax", "none")
IMPUTERS = ("none", "mean", "median")
BAG_WEIGHTS = ("ignore", "fit")


class Preprocessor:
    """Scale inputs (and optionally multi-target outputs) with training statistics.

    Parameters
    ----------
    X : {"zscore", "minmax", "none"}, default="zscore"
        Input scaling. Constant features are left centred (scale 1).
    Y : {"zscore", "none"}, default="none"
        Target scaling for multi-target regression; metrics are then computed on the
        standardised scale, as the MTR paper's tables are.
    impute : {"none", "mean", "median"}, default="none"
        Fill missing inputs (NaN) with a training statistic before scaling.
    bag_weights : {"ignore", "fit"}, default="ignore"
        Multi-instance data whose file gives each bag a weight (the ``{w}`` of a Weka ARFF,
        e.g. musk1's): ``"fit"`` passes the training bags' weights to the solver's ``fit`` as
        ``sample_weight`` (:meth:`fit_weights`); ``"ignore"`` trains on unweighted bags.
        Metrics always count bags unweighted, as the papers' tables do.

    Notes
    -----
    For multi-instance data the statistics are over all instances of the training
    bags. Missing values are ignored when the statistics are computed.
    """

    def __init__(
        self, X: str = "zscore", Y: str = "none", impute: str = "none", bag_weights="ignore"
    ):
        for key, value, valid in (
            ("X", X, SCALERS),
            ("Y", Y, ("zscore", "none")),
            ("impute", impute, IMPUTERS),
            ("bag_weights", bag_weights, BAG_WEIGHTS),
        ):
            if value not in valid:
                raise ConfigError(
                    f"preprocessing.{key}={value!r} is not valid; choose one of {', '.join(valid)}"
                )
        self.X, self.Y, self.impute, self.bag_weights = X, Y, impute, bag_weights

    @classmethod
    def from_config(cls, cfg: dict | None) -> Preprocessor:
        """Build from the ``preprocessing`` section of a run configuration."""
        cfg = dict(cfg or {})
        return cls(
            cfg.get("X", "zscore"),
            cfg.get("Y", "none"),
            cfg.get("impute", "none"),
            cfg.get("bag_weights", "ignore"),
        )

    def fit_weights(self, train: Dataset) -> dict:
        """Keyword arguments for the solver's ``fit``: ``{"sample_weight": ...}`` with the
        training bags' weights when ``bag_weights="fit"`` (1 for a bag the file gives none),
        else nothing."""
        if self.bag_weights != "fit" or train.task != "multi_instance":
            return {}
        weights = train.meta.get("bag_weights")
        if weights is None:
            weights = np.ones(train.n_bags)
        return {"sample_weight": np.asarray(weights, dtype=np.float64)}

    def fit(self, train: Dataset) -> Preprocessor:
        """Learn the fill values and scales from the training part ``train``."""
        X = train.X
        self.fill_ = None
        if self.impute != "none":
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                stat = np.nanmean(X, axis=0) if self.impute == "mean" else np.nanmedian(X, axis=0)
            self.fill_ = np.where(np.isfinite(stat), stat, 0.0)
            X = np.where(np.isnan(X), self.fill_, X)
        self.x_shift_, self.x_scale_ = _stats(X, self.X)
        self.y_shift_ = self.y_scale_ = None
        if self.Y == "zscore" and train.task == "multitarget":
            self.y_shift_, self.y_scale_ = _stats(train.Y, "zscore")
        return self

    def transform(self, ds: Dataset) -> Dataset:
        """``ds`` with its inputs (and multi-target outputs) imputed and scaled."""
        X = ds.X
        if self.fill_ is not None:
            X = np.where(np.isnan(X), self.fill_, X)
        X = (X - self.x_shift_) / self.x_scale_
        Y = ds.Y
        if self.y_shift_ is not None:
            Y = (Y - self.y_shift_) / self.y_scale_
        return replace(ds, X=X, Y=Y)


def _stats(A: np.ndarray, kind: str) -> tuple[np.ndarray, np.ndarray]:
    d = A.shape[1]
    if kind == "none" or A.shape[0] == 0:
        return np.zeros(d), np.ones(d)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN columns
        if kind == "zscore":
            shift, scale = np.nanmean(A, axis=0), np.nanstd(A, axis=0)
        else:
            shift = np.nanmin(A, axis=0)
            scale = np.nanmax(A, axis=0) - shift
    shift = np.where(np.isfinite(shift), shift, 0.0)
    scale = np.where(np.isfinite(scale) & (scale > 0), scale, 1.0)
    return shift, scale
