"""Regression and multi-target regression metrics of one fold."""

from __future__ import annotations

import math

import numpy as np

# ----------------------------------------------------------------------------------------


def _pearson(a, b):
    """Pearson correlation; NaN when either side is constant."""
    da, db = a - a.mean(), b - b.mean()
    den = math.sqrt(float(da @ da) * float(db @ db))
    return float(da @ db) / den if den > 0 else math.nan


def regression_metrics(y_true, y_pred):
    from sklearn.metrics import mean_absolute_error, mean_squared_error, r2_score  # lazily

    y_true = np.asarray(y_true, dtype=float).ravel()
    y_pred = np.asarray(y_pred, dtype=float).ravel()
    mse = float(mean_squared_error(y_true, y_pred))
    r = _pearson(y_true, y_pred)
    return {
        "rmse": math.sqrt(mse),
        "mae": float(mean_absolute_error(y_true, y_pred)),
        "mse": mse,
        "r2": float(r2_score(y_true, y_pred)) if len(y_true) > 1 else math.nan,
        "r2_pearson_sq": r * r,
    }


def _as_2d(Y, what):
    Y = np.asarray(Y, dtype=float)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2:
        raise ValueError(f"{what} must be an (n, m) array, got shape {Y.shape}")
    return Y


def multitarget_metrics(Y_true, Y_pred, Y_train):
    """MTR Eqs. 3.4-3.7 (Melki (2018), Sec. 3.3), each target over its observed test values."""
    Y_true, Y_pred = _as_2d(Y_true, "y_true"), _as_2d(Y_pred, "y_pred")
    if Y_true.shape != Y_pred.shape:
        raise ValueError(f"y_true has shape {Y_true.shape}, y_pred {Y_pred.shape}")
    m = Y_true.shape[1]
    if Y_train is not None:
        Y_train = _as_2d(Y_train, "y_train")
        if Y_train.shape[1] != m:
            raise ValueError(f"y_train has {Y_train.shape[1]} targets, y_true has {m}")
        with np.errstate(all="ignore"):
            train_means = np.nanmean(Y_train, axis=0) if len(Y_train) else np.full(m, np.nan)
    per = {k: [] for k in ("r", "mse", "rrmse", "rrmse_test")}
    for j in range(m):
        seen = ~np.isnan(Y_true[:, j])  # missing target values are ignored (Osales)
        if not seen.any():
            continue
        y, yhat = Y_true[seen, j], Y_pred[seen, j]
        sse = float(((y - yhat) ** 2).sum())
        per["r"].append(_pearson(y, yhat))
        per["mse"].append(sse / len(y))
        with np.errstate(divide="ignore", invalid="ignore"):
            per["rrmse_test"].append(math.sqrt(np.divide(sse, ((y - y.mean()) ** 2).sum())))
            per["rrmse"].append(
                math.sqrt(np.divide(sse, ((y - train_means[j]) ** 2).sum()))
                if Y_train is not None
                else math.nan
            )
    if not per["mse"]:
        return dict.fromkeys(
            ("acc", "mse_mean", "mse_sum", "armse", "arrmse", "arrmse_test"), math.nan
        )
    mse = np.array(per["mse"])
    return {
        "acc": float(np.mean(per["r"])),  # Eq. 3.4
        "mse_mean": float(mse.mean()),  # Eq. 3.5 as printed
        "mse_sum": float(mse.sum()),  # Eq. 3.5 as published (no 1/m)
        "armse": float(np.sqrt(mse).mean()),  # Eq. 3.6
        "arrmse": float(np.mean(per["rrmse"])),  # Eq. 3.7, Mulan: training mean
        "arrmse_test": float(np.mean(per["rrmse_test"])),  # Eq. 3.7 as printed
    }


# ----------------------------------------------------------------------------------------
# Public entry points
