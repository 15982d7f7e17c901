"""Every metric svmlab reports, defined in one place.

The registry :data:`METRICS` names each metric with its direction (higher or lower is
better), the task types it applies to and whether it can be recomputed from a confusion
matrix summed over folds ("poolable"). :func:`compute_metrics` evaluates one test fold;
:func:`pool_confusion` recomputes the poolable metrics from several folds' confusion
matrices, as the MIL study does (Melki (2018), Sec. 4.3; docs/decisions/mil.md, "How the MIL
tables were computed"). Both go through
:func:`_confusion_metrics`, so every confusion-derived formula exists exactly once.

Conventions for undefined values (each is the one the papers' tables or scikit-learn use;
docs/decisions/stats.md, "Undefined metric values"):

* precision with TP + FP = 0 (nothing predicted for the class) is **1.0**, as in the MIL
  tables (MIBoost on musk1: precision 1.0000, recall 0.0000; Melki (2018), Table 4.5). In the
  multiclass
  macro average it counts **0.0** instead (scikit-learn's ``zero_division=0``), so that a
  classifier is not rewarded for never predicting a class;
* recall with TP + FN = 0 (the class is absent from the test fold) is **NaN**: there is
  nothing to recall, and any number would bias a fold mean. ``auc_bal`` is NaN with it;
* F1 = 2TP / (2TP + FP + FN) is **0** when TP = 0 (scikit-learn's convention);
* MCC is **0** when a marginal of the confusion matrix is 0 (scikit-learn's convention);
* Cohen's kappa is **NaN** when p_e = 1 (one label only; scikit-learn's default);
* ``roc_auc`` is **NaN** without scores or when y_true holds a single class;
* multitarget: missing target values (NaN in ``y_true``) are ignored per target, a target
  with no observed value in the fold is left out of the average over targets; other NaNs
  (e.g. Pearson r of constant predictions) propagate.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import numpy as np
from sklearn.metrics import (
    confusion_matrix,
    mean_absolute_error,
    mean_squared_error,
    r2_score,
    roc_auc_score,
)

from svmlab.data.dataset import CLASSIFICATION_TASKS, TASKS
from svmlab.errors import UnknownNameError

__all__ = [
    "Metric",
    "METRICS",
    "TASKS",
    "COUNT_COLUMNS",
    "get_metric",
    "metrics_for_task",
    "direction",
    "compute_metrics",
    "pool_confusion",
    "model_size",
]

_CLASSIFICATION = CLASSIFICATION_TASKS
_TWO_CLASS = ("binary", "multi_instance", "stream")  # tasks whose rows carry per-class P/R
_MACRO = ("multiclass", "stream")
_MUST_BE_TWO_CLASS = ("binary", "multi_instance")

#: Columns :func:`compute_metrics` returns besides the metrics: the raw confusion counts
#: (``tp``, ``fp``, ``tn``, ``fn`` only for two-class problems). They are not metrics.
COUNT_COLUMNS = ("confusion", "classes", "tp", "fp", "tn", "fn")


@dataclass(frozen=True)
class Metric:
    """Description of one metric.

    Parameters
    ----------
    name : str
        Column name in result rows.
    direction : {"max", "min"}
        Whether higher ("max") or lower ("min") values are better; the rank tests need it.
    tasks : tuple of str
        Task types (see :data:`TASKS`) whose result rows carry this metric.
    poolable : bool
        True when the metric is a function of the confusion matrix alone, so it can be
        recomputed from a matrix summed over folds (:func:`pool_confusion`).
    description : str
        One line: the formula and where it comes from.
    """

    name: str
    direction: str
    tasks: tuple
    poolable: bool
    description: str

    def __post_init__(self):
        if self.direction not in ("max", "min"):
            raise ValueError(f"metric {self.name!r}: direction must be 'max' or 'min'")
        unknown = set(self.tasks) - set(TASKS)
        if unknown:
            raise ValueError(f"metric {self.name!r}: unknown tasks {sorted(unknown)}")


def _m(name, direction, tasks, poolable, description):
    return Metric(name, direction, tuple(tasks), poolable, description)


METRICS: dict[str, Metric] = {
    m.name: m
    for m in [
        # -- classification: any number of classes, from the confusion matrix ------------
        _m(
            "accuracy",
            "max",
            _CLASSIFICATION,
            True,
            "trace(C)/n; two classes (TP+TN)/n' - MIL Eq. 4.15a",
        ),
        _m(
            "error_rate",
            "min",
            _CLASSIFICATION,
            True,
            "1 - accuracy, the misclassification rate (Mierswa 2009, Tables 3.3-4.2)",
        ),
        _m(
            "balanced_accuracy",
            "max",
            _CLASSIFICATION,
            True,
            "mean recall over the classes present in y_true (sklearn balanced_accuracy_score)",
        ),
        _m(
            "kappa",
            "max",
            _CLASSIFICATION,
            True,
            "Cohen's kappa (p_o - p_e)/(1 - p_e), standard form of MIL Eq. 4.15d (Melki 2018)",
        ),
        _m(
            "mcc",
            "max",
            _CLASSIFICATION,
            True,
            "Matthews (TP*TN - FP*FN)/sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)), K-class R_K; "
            "0 if a marginal is 0 (scikit-learn's convention)",
        ),
        # -- two classes: both classes in turn as 'positive' ------------------------------
        _m(
            "precision_pos",
            "max",
            _TWO_CLASS,
            True,
            "TP/(TP+FP) for pos_label, 1.0 if TP+FP=0 - MIL Eq. 4.15b",
        ),
        _m(
            "recall_pos",
            "max",
            _TWO_CLASS,
            True,
            "TP/(TP+FN) for pos_label (sensitivity), NaN if TP+FN=0 - MIL Eq. 4.15c",
        ),
        _m(
            "f1_pos",
            "max",
            _TWO_CLASS,
            True,
            "2TP/(2TP+FP+FN) for pos_label, 0 if TP=0 (scikit-learn's convention)",
        ),
        _m(
            "precision_neg",
            "max",
            _TWO_CLASS,
            True,
            "precision with the other class as positive (Weka baselines of the MIL tables, "
            "Melki 2018, Tables 4.5/4.7)",
        ),
        _m(
            "recall_neg",
            "max",
            _TWO_CLASS,
            True,
            "recall with the other class as positive (specificity), NaN if it is absent",
        ),
        _m("f1_neg", "max", _TWO_CLASS, True, "F1 with the other class as positive"),
        _m(
            "auc_bal",
            "max",
            _TWO_CLASS,
            True,
            "MIL 'AUC' (1 + TP/(TP+FN) - FP/(FP+TN))/2 from hard labels - MIL Eq. 4.15e",
        ),
        _m(
            "roc_auc",
            "max",
            _CLASSIFICATION,
            False,
            "ROC area of scores, ties 1/2 (Mann-Whitney); multiclass one-vs-rest macro",
        ),
        _m(
            "prbep",
            "max",
            _TWO_CLASS,
            False,
            "precision among the n+ top-scored, ties pessimistic (Wang et al.'s RP-BEP)",
        ),
        # -- multiclass macro averages over the classes present in y_true -----------------
        _m(
            "precision_macro",
            "max",
            _MACRO,
            True,
            "mean per-class TP/(TP+FP) over classes in y_true, 0 if never predicted",
        ),
        _m(
            "recall_macro",
            "max",
            _MACRO,
            True,
            "mean per-class TP/(TP+FN) over classes in y_true (= balanced_accuracy)",
        ),
        _m(
            "f1_macro", "max", _MACRO, True, "mean per-class 2TP/(2TP+FP+FN) over classes in y_true"
        ),
        # -- regression -------------------------------------------------------------------
        _m("rmse", "min", ("regression",), False, "sqrt(mean((y - yhat)^2)) (Oliveira, Chs. 4-5)"),
        _m("mae", "min", ("regression",), False, "mean(|y - yhat|)"),
        _m("mse", "min", ("regression",), False, "mean((y - yhat)^2)"),
        _m(
            "r2",
            "max",
            ("regression",),
            False,
            "coefficient of determination 1 - SSE/SST (sklearn r2_score)",
        ),
        _m(
            "r2_pearson_sq",
            "max",
            ("regression",),
            False,
            "squared Pearson r(y, yhat), the 'R2' of Oliveira's LW-MLM thesis, Table 12",
        ),
        # -- multi-target regression (MTR Eqs. 3.4-3.7 / journal 4-7) ---------------------
        _m(
            "acc",
            "max",
            ("multitarget",),
            False,
            "aCC: mean over targets of Pearson r(y_j, yhat_j) - MTR Eq. 3.4",
        ),
        _m(
            "mse_mean",
            "min",
            ("multitarget",),
            False,
            "(1/m) sum_j mean_l (y_jl - yhat_jl)^2, MSE as printed - MTR Eq. 3.5",
        ),
        _m(
            "mse_sum",
            "min",
            ("multitarget",),
            False,
            "sum_j mean_l (y_jl - yhat_jl)^2, MSE as published in the MTR tables "
            "(Melki 2018, Table 3.5)",
        ),
        _m(
            "armse",
            "min",
            ("multitarget",),
            False,
            "aRMSE: mean over targets of RMSE_j - MTR Eq. 3.6",
        ),
        _m(
            "arrmse",
            "min",
            ("multitarget",),
            False,
            "aRRMSE: mean_j sqrt(SSE_j / sum (y_j - mean(y_train_j))^2), Mulan's default - MTR Eq. "
            "3.7",
        ),
        _m(
            "arrmse_test",
            "min",
            ("multitarget",),
            False,
            "aRRMSE with the test-fold mean in the denominator, as printed - MTR Eq. 3.7",
        ),
    ]
}


def get_metric(name: str) -> Metric:
    """Return the :class:`Metric` called ``name``.

    Raises
    ------
    svmlab.errors.UnknownNameError
        If no metric has that name; the message lists the valid names.
    """
    try:
        return METRICS[name]
    except (KeyError, TypeError):
        raise UnknownNameError("metric", name, METRICS) from None


def metrics_for_task(task: str) -> list[str]:
    """Names of the metrics whose result rows of task type ``task`` may carry, in registry order.

    For classification, which of them a row actually holds depends on the number of
    classes: ``*_pos``/``*_neg``/``auc_bal``/``prbep`` need two classes, the ``*_macro``
    averages are for multiclass tasks (and streams with more than two classes).
    """
    _check_task(task)
    return [name for name, m in METRICS.items() if task in m.tasks]


def direction(name: str) -> str:
    """``"max"`` if higher values of metric ``name`` are better, ``"min"`` otherwise."""
    return get_metric(name).direction


#: The metric a task's results are tuned by (``tuning.scoring: null``) and summarised by
#: (``summary_metric: null``, ``svmlab report`` without ``--metric``): one default per task.
DEFAULT_METRIC = {
    "binary": "accuracy",
    "multiclass": "accuracy",
    "multi_instance": "accuracy",
    "stream": "accuracy",
    "regression": "rmse",
    "multitarget": "arrmse",
}

#: Columns every result row carries whatever its task. Costs are lower-is-better; the
#: model columns are what a fitted model reports about itself, with their direction.
COST_COLUMNS = ("model_size", "sv_percent", "task_seconds")
MODEL_COLUMNS = {"dual_objective": "max"}


def default_metric(task: str) -> str:
    """The metric a ``task`` dataset is tuned and summarised by when none is named.

    >>> default_metric("multitarget")
    'arrmse'
    """
    _check_task(task)
    return DEFAULT_METRIC[task]


def is_cost(column: str) -> bool:
    """Timings (``*_time``) and model size: columns of every task type, lower is better."""
    return column.endswith("_time") or column in COST_COLUMNS


def is_task_independent(column: str) -> bool:
    """Whether every result row carries ``column``, whatever its task (costs, model columns)."""
    return is_cost(column) or column in MODEL_COLUMNS


def is_result_column(column: str) -> bool:
    """Whether ``column`` can be summarised and ranked: a metric, a cost or a model column."""
    return is_task_independent(column) or column in METRICS


def column_direction(column: str) -> str:
    """``"max"`` or ``"min"`` for a metric, a cost column or a model column.

    >>> column_direction("fit_time"), column_direction("kappa")
    ('min', 'max')

    Raises
    ------
    svmlab.errors.UnknownNameError
        If ``column`` is none of them.
    """
    if is_cost(column):
        return "min"
    if column in MODEL_COLUMNS:
        return MODEL_COLUMNS[column]
    return direction(column)


def _check_task(task):
    if task not in TASKS:
        raise UnknownNameError("task", task, TASKS)


# ----------------------------------------------------------------------------------------
# Classification
# ----------------------------------------------------------------------------------------


def _ratio(num, den, undefined):
    return float(num / den) if den else float(undefined)


def _per_class(C, k, empty_precision):
    """Precision, recall and F1 of class index ``k`` (one-vs-rest) from confusion matrix C."""
    tp = C[k, k]
    fp = C[:, k].sum() - tp
    fn = C[k, :].sum() - tp
    precision = _ratio(tp, tp + fp, empty_precision)
    recall = _ratio(tp, tp + fn, math.nan)
    f1 = _ratio(2 * tp, 2 * tp + fp + fn, 0.0)  # 0 when TP = 0
    return precision, recall, f1


def _confusion_metrics(C, task, pos_index):
    """Every poolable metric of ``task`` from the confusion matrix ``C`` (rows = truth).

    ``pos_index`` is the index of the positive class for two-class problems (else None).
    This is the single implementation behind :func:`compute_metrics` and
    :func:`pool_confusion`.
    """
    C = np.asarray(C, dtype=np.int64)
    K = C.shape[0]
    n = int(C.sum())
    true_counts, pred_counts = C.sum(axis=1), C.sum(axis=0)
    present = true_counts > 0
    recalls = np.divide(np.diag(C), true_counts, out=np.full(K, np.nan), where=present)

    out = {"accuracy": _ratio(np.trace(C), n, math.nan)}
    out["error_rate"] = 1.0 - out["accuracy"]  # the EvoSVM thesis's tables (in %)
    out["balanced_accuracy"] = float(recalls[present].mean()) if present.any() else math.nan
    # Cohen's kappa, standard form (Eq. 4.15d is misprinted; docs/decisions/mil.md): p_e from the
    # products of the marginals.
    p_o = np.trace(C) / n if n else math.nan
    p_e = float(true_counts @ pred_counts) / n**2 if n else math.nan
    out["kappa"] = float((p_o - p_e) / (1 - p_e)) if n and p_e != 1 else math.nan
    # MCC, K-class form (reduces to (TP*TN - FP*FN)/sqrt(...) for two classes).
    cov_tp = float(np.trace(C)) * n - float(true_counts @ pred_counts)
    cov_tt = float(n) ** 2 - float(true_counts @ true_counts)
    cov_pp = float(n) ** 2 - float(pred_counts @ pred_counts)
    out["mcc"] = cov_tp / math.sqrt(cov_tt * cov_pp) if cov_tt * cov_pp > 0 else 0.0

    if task in _TWO_CLASS:
        if K == 2 and pos_index is not None:
            neg_index = 1 - pos_index
            for suffix, k in (("pos", pos_index), ("neg", neg_index)):
                p, r, f = _per_class(C, k, empty_precision=1.0)  # MIL tables' convention
                out[f"precision_{suffix}"], out[f"recall_{suffix}"], out[f"f1_{suffix}"] = p, r, f
            # MIL Eq. 4.15e: (1 + TPR - FPR)/2 with FPR = 1 - recall of the other class.
            out["auc_bal"] = (1 + out["recall_pos"] - (1 - out["recall_neg"])) / 2
        else:
            for name in (
                "precision_pos",
                "recall_pos",
                "f1_pos",
                "precision_neg",
                "recall_neg",
                "f1_neg",
                "auc_bal",
            ):
                out[name] = math.nan
    if task == "multiclass" or (task in _MACRO and K > 2):
        per = np.array([_per_class(C, k, empty_precision=0.0) for k in range(K)]).reshape(K, 3)
        for j, name in enumerate(("precision_macro", "recall_macro", "f1_macro")):
            out[name] = float(per[present, j].mean()) if present.any() else math.nan
    return out


def _count_columns(C, classes, pos_index):
    """The raw confusion counts stored in a result row so metrics can be pooled later."""
    C = np.asarray(C, dtype=np.int64)
    out = {
        "confusion": json.dumps(C.tolist()),
        "classes": json.dumps([str(c) for c in classes]),
    }
    if C.shape[0] == 2 and pos_index is not None:
        p, q = pos_index, 1 - pos_index
        out.update(tp=int(C[p, p]), fn=int(C[p, q]), fp=int(C[q, p]), tn=int(C[q, q]))
    return out


def _pos_index(classes, pos_label):
    """Index of the positive class: ``pos_label`` if given, else classes[1] (sklearn)."""
    if len(classes) != 2:
        return None
    if pos_label is None:
        return 1
    names = [str(c) for c in classes]
    if str(pos_label) not in names:
        raise ValueError(f"pos_label {pos_label!r} is not one of the classes {names}")
    return names.index(str(pos_label))


def _resolve_classes(y_true, y_pred, classes, pos_label):
    if classes is None:
        observed = [y_true, y_pred] + ([np.asarray([pos_label])] if pos_label is not None else [])
        return np.unique(np.concatenate(observed))
    classes = np.asarray(classes)
    if len(np.unique(classes)) != len(classes):
        raise ValueError(f"classes contains duplicates: {classes.tolist()}")
    unknown = np.setdiff1d(np.concatenate([y_true, y_pred]), classes)
    if unknown.size:
        raise ValueError(f"labels {unknown.tolist()} are not among classes {classes.tolist()}")
    return classes


def _roc_auc(y_true, scores, classes):
    """ROC AUC; scores follow scikit-learn's orientation (see :func:`compute_metrics`)."""
    if scores is None or len(np.unique(y_true)) < 2:
        return math.nan
    scores = np.asarray(scores, dtype=float)
    if scores.shape[0] != len(y_true):
        raise ValueError(f"scores has {scores.shape[0]} rows, y_true has {len(y_true)}")
    if scores.ndim == 2 and scores.shape[1] == 1:
        scores = scores[:, 0]
    if scores.ndim == 1:
        if len(classes) != 2:
            raise ValueError("1-D scores need a two-class problem; pass an (n, K) score matrix")
        return float(roc_auc_score(y_true == classes[1], scores))
    if scores.shape[1] != len(classes):
        raise ValueError(f"scores has {scores.shape[1]} columns for {len(classes)} classes")
    if len(classes) == 2:
        return float(roc_auc_score(y_true == classes[1], scores[:, 1]))
    # One-vs-rest macro over the classes present in y_true. Computed per class because
    # sklearn's multi_class="ovr" accepts only probability rows summing to 1, and a
    # decision_function matrix is a valid input too.
    aucs = [
        roc_auc_score(y_true == c, scores[:, k])
        for k, c in enumerate(classes)
        if np.any(y_true == c)
    ]
    return float(np.mean(aucs))


def _prbep(y_true, scores, classes, pos_index):
    """Precision/recall break-even point: precision among the n+ top-scored examples."""
    if scores is None or pos_index is None:
        return math.nan
    scores = np.asarray(scores, dtype=float)
    if scores.ndim == 2:
        scores = scores[:, 1] if scores.shape[1] == 2 else scores[:, 0]
    s = scores if pos_index == 1 else -scores  # scores point towards classes[1]
    is_pos = (y_true == classes[pos_index]).astype(int)
    n_pos = int(is_pos.sum())
    if n_pos == 0 or n_pos == len(is_pos):
        return math.nan
    # Descending score; among ties negatives come first (pessimistic, as svm_perf).
    order = np.lexsort((is_pos, -s))
    return float(is_pos[order[:n_pos]].mean())


def _classification(task, y_true, y_pred, scores, classes, pos_label):
    y_true, y_pred = np.asarray(y_true).ravel(), np.asarray(y_pred).ravel()
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true has {y_true.size} labels, y_pred has {y_pred.size}")
    classes = _resolve_classes(y_true, y_pred, classes, pos_label)
    if task in _MUST_BE_TWO_CLASS and len(classes) > 2:
        raise ValueError(f"task {task!r} needs two classes, got {classes.tolist()}")
    pos_index = _pos_index(classes, pos_label)
    C = confusion_matrix(y_true, y_pred, labels=classes)
    out = _confusion_metrics(C, task, pos_index)
    out["roc_auc"] = _roc_auc(y_true, scores, classes)
    if task in _TWO_CLASS:
        out["prbep"] = _prbep(y_true, scores, classes, pos_index)
    out.update(_count_columns(C, classes, pos_index))
    return out


# ----------------------------------------------------------------------------------------
# Regression
# ----------------------------------------------------------------------------------------


def _pearson(a, b):
    """Pearson correlation; NaN when either side is constant."""
    da, db = a - a.mean(), b - b.mean()
    den = math.sqrt(float(da @ da) * float(db @ db))
    return float(da @ db) / den if den > 0 else math.nan


def _regression(y_true, y_pred):
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


def _multitarget(Y_true, Y_pred, Y_train):
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
# ----------------------------------------------------------------------------------------


def compute_metrics(
    task, y_true, y_pred, *, scores=None, classes=None, pos_label=None, y_train=None
) -> dict[str, float]:
    """Every metric of task type ``task`` on one test fold.

    Parameters
    ----------
    task : str
        One of :data:`TASKS`. ``binary``, ``multi_instance``, ``stream`` and ``multiclass``
        are classification (for multi-instance data, one label per bag).
    y_true, y_pred : array-like
        True and predicted labels / values, shape (n,) or, for ``multitarget``, (n, m);
        NaN in a multitarget ``y_true`` marks a missing target value, ignored per target.
    scores : array-like, optional
        Continuous scores for ``roc_auc`` and ``prbep``. A 1-D array follows
        scikit-learn's orientation: larger means ``classes[1]`` (``decision_function``,
        or ``predict_proba[:, 1]``); ROC AUC does not depend on which class is called
        positive, ``prbep`` is computed for ``pos_label``. A 2-D array has one column per
        class in the order of ``classes`` (one-vs-rest macro AUC for more than two classes).
    classes : array-like, optional
        All class labels, in the order of the confusion matrix. Default: the sorted labels
        seen in ``y_true``, ``y_pred`` and ``pos_label``. Pass the dataset's classes so a
        fold lacking a class still gets a full matrix that can be pooled.
    pos_label : label, optional
        The positive class of two-class problems; default ``classes[1]`` (scikit-learn's
        convention; 1 for multi-instance labels {0, 1}).
    y_train : array-like, optional
        Training targets of the fold (``multitarget``): their per-target means are the
        denominator reference of ``arrmse``. Without it ``arrmse`` is NaN.

    Returns
    -------
    dict of str to float
        The metrics of :func:`metrics_for_task` that apply. Classification rows also hold
        the raw counts: ``confusion`` (JSON, rows = true class, columns = predicted) and
        ``classes`` (JSON list of the labels as strings), and for two classes integer
        ``tp``, ``fp``, ``tn``, ``fn`` relative to ``pos_label``.

    References
    ----------
    Melki (2018), Sec. 3.3 (MTR Eqs. 3.4-3.7) and Sec. 4.3 (MIL Eqs. 4.15a-e); Wang et al.,
    "Multiple kernel multivariate performance learning using cutting plane algorithm",
    Sec. I (F1, MCC, AUC, PRBEP); Oliveira's LSSVM/MLM thesis, Chs. 4-5 (RMSE, R²). The
    readings are in docs/decisions/mtr.md, mil.md and stats.md.
    """
    _check_task(task)
    if task in _CLASSIFICATION:
        return _classification(task, y_true, y_pred, scores, classes, pos_label)
    if task == "regression":
        return _regression(y_true, y_pred)
    return _multitarget(y_true, y_pred, y_train)


def pool_confusion(task, confusions, classes, *, pos_label=None) -> dict[str, float]:
    """Recompute every poolable metric from the sum of several folds' confusion matrices.

    The MIL study collects TP, TN, FP, FN over the 10 test folds and computes its metrics
    once from the totals; this reproduces MIRSVM's published rows exactly (docs/decisions/mil.md,
    "How the MIL tables were computed").

    Parameters
    ----------
    task : str
        A classification task type (see :data:`TASKS`).
    confusions : list of str or array-like
        Confusion matrices (rows = true class) as stored in the ``confusion`` column (JSON)
        or as arrays, all in the order of ``classes``.
    classes : list or str
        Class labels (or the JSON ``classes`` column) in matrix order.
    pos_label : label, optional
        Positive class for two-class problems (compared as strings); default ``classes[1]``.

    Returns
    -------
    dict of str to float
        The poolable metrics of ``task``, plus the pooled ``confusion``, ``classes`` and,
        for two classes, ``tp``, ``fp``, ``tn``, ``fn``.

    References
    ----------
    Melki (2018), Sec. 4.3 (the counts are "first collected", then the metrics computed) and
    Eqs. 4.15a-e.
    """
    _check_task(task)
    if task not in _CLASSIFICATION:
        raise ValueError(f"pool_confusion needs a classification task, got {task!r}")
    if isinstance(classes, str):
        classes = json.loads(classes)
    classes = list(classes)
    K = len(classes)
    if not len(confusions):
        raise ValueError("pool_confusion needs at least one confusion matrix")
    total = np.zeros((K, K), dtype=np.int64)
    for C in confusions:
        C = np.asarray(json.loads(C) if isinstance(C, str) else C)
        if C.shape != (K, K):
            raise ValueError(f"confusion matrix of shape {C.shape} does not match {K} classes")
        total += C.astype(np.int64)
    pos_index = _pos_index(classes, pos_label)
    out = _confusion_metrics(total, task, pos_index)
    out.update(_count_columns(total, classes, pos_index))
    return out


def model_size(estimator) -> float:
    """Size of a fitted model, for the result row's ``model_size`` column.

    The total number of support vectors (``n_support_``) if the estimator has it, else its
    own ``model_size_`` attribute, else the number of nonzero coefficients in ``coef_``;
    for a wrapper (e.g. ``TransformedTargetRegressor``) the size of the fitted inner
    ``regressor_`` / ``estimator_``; else NaN.
    """
    for attr, size in (
        ("n_support_", lambda v: float(np.sum(v))),
        ("model_size_", float),
        ("coef_", lambda v: float(np.count_nonzero(v))),
    ):
        try:
            value = getattr(estimator, attr)
        except Exception:  # e.g. SVC.coef_ raises for non-linear kernels
            continue
        if value is not None:
            return size(value)
    for inner in ("regressor_", "estimator_"):
        wrapped = getattr(estimator, inner, None)
        if wrapped is not None and wrapped is not estimator:
            return model_size(wrapped)
    return math.nan
