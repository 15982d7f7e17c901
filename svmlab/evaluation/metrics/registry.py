"""The metric registry: every metric's direction, task types and poolability, the default
metric of each task, and the result columns every row carries (costs, model columns)."""

from __future__ import annotations

from dataclasses import dataclass

from svmlab.data.dataset import CLASSIFICATION_TASKS, TASKS
from svmlab.errors import UnknownNameError

CLASSIFICATION = CLASSIFICATION_TASKS
TWO_CLASS = ("binary", "multi_instance", "stream")  # tasks whose rows carry per-class P/R
MACRO = ("multiclass", "stream")
MUST_BE_TWO_CLASS = ("binary", "multi_instance")

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
            CLASSIFICATION,
            True,
            "trace(C)/n; two classes (TP+TN)/n' - MIL Eq. 4.15a",
        ),
        _m(
            "error_rate",
            "min",
            CLASSIFICATION,
            True,
            "1 - accuracy, the misclassification rate (Mierswa 2009, Tables 3.3-4.2)",
        ),
        _m(
            "balanced_accuracy",
            "max",
            CLASSIFICATION,
            True,
            "mean recall over the classes present in y_true (sklearn balanced_accuracy_score)",
        ),
        _m(
            "kappa",
            "max",
            CLASSIFICATION,
            True,
            "Cohen's kappa (p_o - p_e)/(1 - p_e), standard form of MIL Eq. 4.15d (Melki 2018)",
        ),
        _m(
            "mcc",
            "max",
            CLASSIFICATION,
            True,
            "Matthews (TP*TN - FP*FN)/sqrt((TP+FP)(TP+FN)(TN+FP)(TN+FN)), K-class R_K; "
            "0 if a marginal is 0 (scikit-learn's convention)",
        ),
        # -- two classes: both classes in turn as 'positive' ------------------------------
        _m(
            "precision_pos",
            "max",
            TWO_CLASS,
            True,
            "TP/(TP+FP) for pos_label, 1.0 if TP+FP=0 - MIL Eq. 4.15b",
        ),
        _m(
            "recall_pos",
            "max",
            TWO_CLASS,
            True,
            "TP/(TP+FN) for pos_label (sensitivity), NaN if TP+FN=0 - MIL Eq. 4.15c",
        ),
        _m(
            "f1_pos",
            "max",
            TWO_CLASS,
            True,
            "2TP/(2TP+FP+FN) for pos_label, 0 if TP=0 (scikit-learn's convention)",
        ),
        _m(
            "precision_neg",
            "max",
            TWO_CLASS,
            True,
            "precision with the other class as positive (Weka baselines of the MIL tables, "
            "Melki 2018, Tables 4.5/4.7)",
        ),
        _m(
            "recall_neg",
            "max",
            TWO_CLASS,
            True,
            "recall with the other class as positive (specificity), NaN if it is absent",
        ),
        _m("f1_neg", "max", TWO_CLASS, True, "F1 with the other class as positive"),
        _m(
            "auc_bal",
            "max",
            TWO_CLASS,
            True,
            "MIL 'AUC' (1 + TP/(TP+FN) - FP/(FP+TN))/2 from hard labels - MIL Eq. 4.15e",
        ),
        _m(
            "roc_auc",
            "max",
            CLASSIFICATION,
            False,
            "ROC area of scores, ties 1/2 (Mann-Whitney); multiclass one-vs-rest macro",
        ),
        _m(
            "prbep",
            "max",
            TWO_CLASS,
            False,
            "precision among the n+ top-scored, ties pessimistic (Wang et al.'s RP-BEP)",
        ),
        # -- multiclass macro averages over the classes present in y_true -----------------
        _m(
            "precision_macro",
            "max",
            MACRO,
            True,
            "mean per-class TP/(TP+FP) over classes in y_true, 0 if never predicted",
        ),
        _m(
            "recall_macro",
            "max",
            MACRO,
            True,
            "mean per-class TP/(TP+FN) over classes in y_true (= balanced_accuracy)",
        ),
        _m("f1_macro", "max", MACRO, True, "mean per-class 2TP/(2TP+FP+FN) over classes in y_true"),
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
    check_task(task)
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

#: Cost columns every result row carries whatever its task, all lower-is-better (besides the
#: ``*_time`` columns). Extra values an estimator reports come with their own direction (its
#: contract's ``row_values``, :mod:`svmlab.contract`), and so do the columns a reproduction
#: derives from rows (``svmlab.reproduce``); neither is listed here.
COST_COLUMNS = ("model_size", "task_seconds")


def default_metric(task: str) -> str:
    """The metric a ``task`` dataset is tuned and summarised by when none is named.

    >>> default_metric("multitarget")
    'arrmse'
    """
    check_task(task)
    return DEFAULT_METRIC[task]


def is_cost(column: str) -> bool:
    """Timings (``*_time``) and model size: columns of every task type, lower is better."""
    return column.endswith("_time") or column in COST_COLUMNS


def is_task_independent(column: str) -> bool:
    """Whether every result row carries ``column``, whatever its task (the costs)."""
    return is_cost(column)


def is_result_column(column: str) -> bool:
    """Whether ``column`` is a metric or a cost (what every run can summarise and rank)."""
    return is_task_independent(column) or column in METRICS


def column_direction(column: str) -> str:
    """``"max"`` or ``"min"`` for a metric or a cost column.

    >>> column_direction("fit_time"), column_direction("kappa")
    ('min', 'max')

    Raises
    ------
    svmlab.errors.UnknownNameError
        If ``column`` is none of them.
    """
    if is_cost(column):
        return "min"
    return direction(column)


def check_task(task):
    if task not in TASKS:
        raise UnknownNameError("task", task, TASKS)


# ----------------------------------------------------------------------------------------
# Classification
