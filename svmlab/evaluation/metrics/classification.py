"""Classification metrics of one fold, all derived from its confusion matrix (plus ROC AUC
and PRBEP from scores), and the raw counts that let folds be pooled."""

from __future__ import annotations

import json
import math

import numpy as np

from svmlab.evaluation.metrics.registry import MACRO, MUST_BE_TWO_CLASS, TWO_CLASS

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


def confusion_metrics(C, task, pos_index):
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

    if task in TWO_CLASS:
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
    if task == "multiclass" or (task in MACRO and K > 2):
        per = np.array([_per_class(C, k, empty_precision=0.0) for k in range(K)]).reshape(K, 3)
        for j, name in enumerate(("precision_macro", "recall_macro", "f1_macro")):
            out[name] = float(per[present, j].mean()) if present.any() else math.nan
    return out


def count_columns(C, classes, pos_index):
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


def positive_index(classes, pos_label):
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
    from sklearn.metrics import roc_auc_score  # here: `svmlab list metrics` starts fast

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
        if np.isinf(scores).any():  # a saturated log-odds (P = 0 or 1): AUC needs only order
            from scipy.stats import rankdata

            scores = rankdata(scores)
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


def confusion(y_true, y_pred, classes) -> np.ndarray:
    """Confusion matrix (rows: true class, columns: predicted, in the order of ``classes``),
    the same as :func:`sklearn.metrics.confusion_matrix` with ``labels=classes``, for labels
    that are all among ``classes`` (checked by the caller); counted with one ``bincount``
    instead of scikit-learn's input validation, which costs a millisecond a fold.

    >>> confusion(np.array(["b", "a", "b"]), np.array(["b", "b", "a"]), np.array(["b", "a"]))
    array([[1, 1],
           [1, 0]])
    """
    classes = np.asarray(classes)
    if not len(y_true):
        raise ValueError("no samples to score: y_true and y_pred are empty")
    try:
        order = np.argsort(classes, kind="stable")
        ranked = classes[order]
        true, pred = order[np.searchsorted(ranked, y_true)], order[np.searchsorted(ranked, y_pred)]
    except TypeError:  # labels that cannot be ordered (mixed types): scikit-learn's way
        from sklearn.metrics import confusion_matrix  # here: `svmlab list metrics` starts fast

        return confusion_matrix(y_true, y_pred, labels=classes)
    n = len(classes)
    return np.bincount(true * n + pred, minlength=n * n).reshape(n, n).astype(np.int64)


def classification_metrics(task, y_true, y_pred, scores, classes, pos_label):
    y_true, y_pred = np.asarray(y_true).ravel(), np.asarray(y_pred).ravel()
    if y_true.shape != y_pred.shape:
        raise ValueError(f"y_true has {y_true.size} labels, y_pred has {y_pred.size}")
    classes = _resolve_classes(y_true, y_pred, classes, pos_label)
    if task in MUST_BE_TWO_CLASS and len(classes) > 2:
        raise ValueError(f"task {task!r} needs two classes, got {classes.tolist()}")
    pos_index = positive_index(classes, pos_label)
    C = confusion(y_true, y_pred, classes)
    out = confusion_metrics(C, task, pos_index)
    out["roc_auc"] = _roc_auc(y_true, scores, classes)
    if task in TWO_CLASS:
        out["prbep"] = _prbep(y_true, scores, classes, pos_index)
    out.update(count_columns(C, classes, pos_index))
    return out


# ----------------------------------------------------------------------------------------
# Regression
