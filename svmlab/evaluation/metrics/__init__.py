"""Every metric svmlab reports, defined in one place.

The registry :data:`METRICS` names each metric with its direction (higher or lower is
better), the task types it applies to and whether it can be recomputed from a confusion
matrix summed over folds ("poolable"). :func:`compute_metrics` evaluates one test fold;
:func:`pool_confusion` recomputes the poolable metrics from several folds' confusion
matrices, as the MIL study does (Melki (2018), Sec. 4.3; docs/decisions/mil.md, "How the MIL
tables were computed"). Both go through
:func:`confusion_metrics`, so every confusion-derived formula exists exactly once.

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

import numpy as np

from svmlab.evaluation.metrics.classification import (
    classification_metrics,
    confusion_metrics,
    count_columns,
    positive_index,
)
from svmlab.evaluation.metrics.registry import (
    CLASSIFICATION,
    COST_COLUMNS,
    COUNT_COLUMNS,
    DEFAULT_METRIC,
    METRICS,
    TASKS,
    Metric,
    check_task,
    column_direction,
    default_metric,
    direction,
    get_metric,
    is_cost,
    is_result_column,
    is_task_independent,
    metrics_for_task,
)
from svmlab.evaluation.metrics.regression import multitarget_metrics, regression_metrics

__all__ = [
    "COST_COLUMNS",
    "COUNT_COLUMNS",
    "DEFAULT_METRIC",
    "METRICS",
    "TASKS",
    "Metric",
    "column_direction",
    "compute_metrics",
    "default_metric",
    "direction",
    "get_metric",
    "is_cost",
    "is_result_column",
    "is_task_independent",
    "metrics_for_task",
    "model_size",
    "pool_confusion",
]


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
    check_task(task)
    if task in CLASSIFICATION:
        return classification_metrics(task, y_true, y_pred, scores, classes, pos_label)
    if task == "regression":
        return regression_metrics(y_true, y_pred)
    return multitarget_metrics(y_true, y_pred, y_train)


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
    check_task(task)
    if task not in CLASSIFICATION:
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
    pos_index = positive_index(classes, pos_label)
    out = confusion_metrics(total, task, pos_index)
    out.update(count_columns(total, classes, pos_index))
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
