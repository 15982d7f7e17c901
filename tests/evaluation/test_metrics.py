import json
import math

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.svm import SVC, SVR, LinearSVC

from svmlab.errors import UnknownNameError
from svmlab.evaluation.metrics import (
    COUNT_COLUMNS,
    METRICS,
    TASKS,
    Metric,
    compute_metrics,
    direction,
    get_metric,
    metrics_for_task,
    model_size,
    pool_confusion,
)


def _binary_matrix(tp, fn, fp, tn, pos_index=1):
    """2x2 confusion matrix (rows = truth) over classes [0, 1] with class pos_index positive."""
    C = np.zeros((2, 2), dtype=int)
    p, q = pos_index, 1 - pos_index
    C[p, p], C[p, q], C[q, p], C[q, q] = tp, fn, fp, tn
    return C


def _labels_from_counts(tp, fn, fp, tn):
    y_true = np.array([1] * (tp + fn) + [0] * (fp + tn))
    y_pred = np.array([1] * tp + [0] * fn + [1] * fp + [0] * tn)
    return y_true, y_pred


# --- registry -----------------------------------------------------------------------------


def test_registry_is_consistent():
    for name, m in METRICS.items():
        assert isinstance(m, Metric) and m.name == name
        assert m.direction in ("max", "min")
        assert set(m.tasks) <= set(TASKS) and m.tasks
        assert m.description and "\n" not in m.description
    assert not set(COUNT_COLUMNS) & set(METRICS)
    with pytest.raises(Exception):
        METRICS["accuracy"].name = "x"  # frozen


def test_unknown_metric_raises_with_valid_names():
    with pytest.raises(UnknownNameError) as err:
        get_metric("accuarcy")
    assert "accuracy" in str(err.value) and err.value.kind == "metric"
    with pytest.raises(UnknownNameError):
        direction("nope")
    with pytest.raises(UnknownNameError):
        metrics_for_task("clustering")
    with pytest.raises(UnknownNameError):
        compute_metrics("clustering", [1], [1])


def test_directions_and_tasks():
    assert direction("kappa") == "max" and direction("arrmse") == "min"
    assert direction("rmse") == "min" and direction("acc") == "max"
    assert "auc_bal" in metrics_for_task("multi_instance")
    assert "f1_macro" in metrics_for_task("multiclass")
    assert "precision_pos" not in metrics_for_task("multiclass")
    assert set(metrics_for_task("multitarget")) == {
        "acc",
        "mse_mean",
        "mse_sum",
        "armse",
        "arrmse",
        "arrmse_test",
    }
    assert set(metrics_for_task("regression")) >= {"rmse", "mae", "r2", "mse"}
    assert not get_metric("roc_auc").poolable and get_metric("kappa").poolable


def test_compute_metrics_returns_exactly_the_task_metrics():
    rng = np.random.default_rng(0)
    y, p = rng.integers(0, 2, 50), rng.integers(0, 2, 50)
    out = compute_metrics("binary", y, p, scores=rng.normal(size=50))
    assert set(out) == set(metrics_for_task("binary")) | set(COUNT_COLUMNS)
    assert all(type(v) in (float, int, str) for v in out.values())  # plain Parquet-ready values
    y3, p3 = rng.integers(0, 3, 50), rng.integers(0, 3, 50)
    out = compute_metrics("multiclass", y3, p3)
    assert set(out) == set(metrics_for_task("multiclass")) | {"confusion", "classes"}


# --- golden values: MIL paper pooled confusion matrices (spec §5.2) -------------------------


def test_pool_mirsvm_musk1():
    # Split the pooled counts over three "folds" to exercise the summation.
    folds = [
        _binary_matrix(20, 0, 3, 15),
        _binary_matrix(16, 1, 2, 12),
        _binary_matrix(10, 0, 3, 10),
    ]
    out = pool_confusion("multi_instance", [json.dumps(C.tolist()) for C in folds], ["0", "1"])
    assert (out["tp"], out["fn"], out["fp"], out["tn"]) == (46, 1, 8, 37)
    assert out["accuracy"] == pytest.approx(0.9022, abs=5e-5)
    assert out["precision_pos"] == pytest.approx(0.8519, abs=5e-5)
    assert out["recall_pos"] == pytest.approx(0.9787, abs=5e-5)
    assert out["auc_bal"] == pytest.approx(0.9005, abs=5e-5)
    assert out["kappa"] == pytest.approx(0.8036, abs=5e-5)
    assert out["balanced_accuracy"] == pytest.approx(out["auc_bal"])
    assert set(out) == {m for m in metrics_for_task("multi_instance") if METRICS[m].poolable} | set(
        COUNT_COLUMNS
    )


def test_pool_mirsvm_webmining():
    out = pool_confusion("multi_instance", [_binary_matrix(6, 15, 2, 90)], [0, 1])
    assert out["kappa"] == pytest.approx(0.3468, abs=5e-5)
    assert out["auc_bal"] == pytest.approx(0.6320, abs=5e-5)
    assert out["precision_pos"] == pytest.approx(0.75)
    assert out["recall_pos"] == pytest.approx(6 / 21)
    assert out["accuracy"] == pytest.approx(96 / 113)


def test_pool_mismo_musk1_negative_class_as_positive():
    # Weka reports class 0 (negative bags) as "positive": TP=33, FN=12, FP=8, TN=39.
    C = _binary_matrix(33, 12, 8, 39, pos_index=0)
    golden = dict(kappa=0.5642, accuracy=0.7826, auc_bal=0.7816)
    as_neg = pool_confusion("multi_instance", [C], [0, 1], pos_label=0)
    as_pos = pool_confusion("multi_instance", [C], [0, 1])  # default pos_label = 1
    for out in (as_neg, as_pos):  # kappa, accuracy and auc_bal do not depend on the choice
        for k, v in golden.items():
            assert out[k] == pytest.approx(v, abs=5e-5), k
    assert as_neg["recall_pos"] == pytest.approx(0.7333, abs=5e-5)
    assert as_neg["precision_pos"] == pytest.approx(0.8049, abs=5e-5)
    assert as_pos["recall_neg"] == pytest.approx(0.7333, abs=5e-5)
    assert as_pos["precision_neg"] == pytest.approx(0.8049, abs=5e-5)


def test_compute_and_pool_agree():
    rng = np.random.default_rng(1)
    folds = [(rng.integers(0, 2, 30), rng.integers(0, 2, 30)) for _ in range(5)]
    rows = [compute_metrics("binary", y, p, classes=[0, 1]) for y, p in folds]
    pooled = pool_confusion("binary", [r["confusion"] for r in rows], rows[0]["classes"])
    whole = compute_metrics(
        "binary", np.concatenate([f[0] for f in folds]), np.concatenate([f[1] for f in folds])
    )
    for name, value in pooled.items():
        assert (
            whole[name] == pytest.approx(value)
            if isinstance(value, float)
            else whole[name] == value
        )
    assert sum(r["tp"] for r in rows) == pooled["tp"]


def test_pool_confusion_rejects_bad_input():
    with pytest.raises(ValueError):
        pool_confusion("binary", [np.eye(3)], [0, 1])
    with pytest.raises(ValueError):
        pool_confusion("regression", [np.eye(2)], [0, 1])
    with pytest.raises(ValueError):
        pool_confusion("binary", [np.eye(2)], [0, 1], pos_label=7)


# --- agreement with scikit-learn -----------------------------------------------------------


@pytest.mark.parametrize("seed", range(5))
def test_binary_agrees_with_sklearn(seed):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, 80)
    s = y + rng.normal(scale=1.0, size=80)
    p = (s > 0.5).astype(int)
    out = compute_metrics("binary", y, p, scores=s)
    assert out["accuracy"] == pytest.approx(skm.accuracy_score(y, p))
    assert out["balanced_accuracy"] == pytest.approx(skm.balanced_accuracy_score(y, p))
    assert out["kappa"] == pytest.approx(skm.cohen_kappa_score(y, p))
    assert out["mcc"] == pytest.approx(skm.matthews_corrcoef(y, p))
    assert out["roc_auc"] == pytest.approx(skm.roc_auc_score(y, s))
    for suffix, label in (("pos", 1), ("neg", 0)):
        assert out[f"precision_{suffix}"] == pytest.approx(
            skm.precision_score(y, p, pos_label=label)
        )
        assert out[f"recall_{suffix}"] == pytest.approx(skm.recall_score(y, p, pos_label=label))
        assert out[f"f1_{suffix}"] == pytest.approx(skm.f1_score(y, p, pos_label=label))
    assert out["auc_bal"] == pytest.approx(out["balanced_accuracy"])
    tn, fp, fn, tp = skm.confusion_matrix(y, p).ravel()
    assert (out["tp"], out["fp"], out["tn"], out["fn"]) == (tp, fp, tn, fn)
    assert all(type(out[k]) is int for k in ("tp", "fp", "tn", "fn"))


@pytest.mark.parametrize("seed", range(5))
def test_multiclass_agrees_with_sklearn(seed):
    rng = np.random.default_rng(seed)
    k = 4
    y = np.repeat(np.arange(k), 20)
    proba = rng.dirichlet(np.ones(k), size=len(y))
    proba[np.arange(len(y)), y] += 0.3
    proba /= proba.sum(axis=1, keepdims=True)
    p = proba.argmax(axis=1)
    labels = ["a", "b", "c", "d"]
    y_s, p_s = np.array(labels)[y], np.array(labels)[p]
    out = compute_metrics("multiclass", y_s, p_s, scores=proba)
    assert out["accuracy"] == pytest.approx(skm.accuracy_score(y, p))
    assert out["balanced_accuracy"] == pytest.approx(skm.balanced_accuracy_score(y, p))
    assert out["kappa"] == pytest.approx(skm.cohen_kappa_score(y, p))
    assert out["mcc"] == pytest.approx(skm.matthews_corrcoef(y, p))
    for name in ("precision", "recall", "f1"):
        ref = getattr(skm, f"{name}_score")(y, p, average="macro", zero_division=0)
        assert out[f"{name}_macro"] == pytest.approx(ref)
    assert out["roc_auc"] == pytest.approx(skm.roc_auc_score(y, proba, multi_class="ovr"))
    assert np.array_equal(np.array(json.loads(out["confusion"])), skm.confusion_matrix(y, p))
    assert json.loads(out["classes"]) == labels


def test_multiclass_roc_auc_accepts_decision_function_matrix():
    rng = np.random.default_rng(3)
    y = np.repeat(np.arange(3), 10)
    scores = rng.normal(size=(30, 3)) + np.eye(3)[y]  # rows do not sum to 1
    out = compute_metrics("multiclass", y, scores.argmax(1), scores=scores)
    ref = np.mean([skm.roc_auc_score(y == c, scores[:, c]) for c in range(3)])
    assert out["roc_auc"] == pytest.approx(ref)


def test_roc_auc_score_conventions():
    y = np.array([0, 0, 1, 1, 1])
    s = np.array([0.1, 0.6, 0.4, 0.8, 0.9])
    ref = skm.roc_auc_score(y, s)
    proba = np.column_stack([1 - s, s])
    assert compute_metrics("binary", y, s > 0.5, scores=s)["roc_auc"] == pytest.approx(ref)
    assert compute_metrics("binary", y, s > 0.5, scores=proba)["roc_auc"] == pytest.approx(ref)
    # ROC AUC does not depend on which class is called positive.
    assert compute_metrics("binary", y, s > 0.5, scores=s, pos_label=0)["roc_auc"] == pytest.approx(
        ref
    )


def test_regression_agrees_with_sklearn():
    rng = np.random.default_rng(0)
    y = rng.normal(size=40)
    p = y + rng.normal(scale=0.3, size=40)
    out = compute_metrics("regression", y, p)
    assert set(out) == set(metrics_for_task("regression"))
    assert out["mse"] == pytest.approx(skm.mean_squared_error(y, p))
    assert out["rmse"] == pytest.approx(math.sqrt(skm.mean_squared_error(y, p)))
    assert out["mae"] == pytest.approx(skm.mean_absolute_error(y, p))
    assert out["r2"] == pytest.approx(skm.r2_score(y, p))
    assert out["r2_pearson_sq"] == pytest.approx(np.corrcoef(y, p)[0, 1] ** 2)


# --- conventions ---------------------------------------------------------------------------


def test_both_class_precision_recall_symmetry():
    rng = np.random.default_rng(7)
    y, p = rng.integers(0, 2, 60), rng.integers(0, 2, 60)
    a = compute_metrics("binary", y, p, pos_label=1)
    b = compute_metrics("binary", y, p, pos_label=0)
    for name in ("precision", "recall", "f1"):
        assert a[f"{name}_pos"] == b[f"{name}_neg"] and a[f"{name}_neg"] == b[f"{name}_pos"]
    assert (a["tp"], a["fn"], a["fp"], a["tn"]) == (b["tn"], b["fp"], b["fn"], b["tp"])
    for name in ("accuracy", "kappa", "mcc", "auc_bal", "balanced_accuracy"):
        assert a[name] == pytest.approx(b[name])


def test_precision_is_one_without_positive_predictions():
    # MIBoost on musk1 style: everything predicted negative -> precision 1, recall 0.
    y = np.array([1, 1, 1, 0, 0])
    out = compute_metrics("multi_instance", y, np.zeros(5, int))
    assert out["precision_pos"] == 1.0 and out["recall_pos"] == 0.0 and out["f1_pos"] == 0.0
    assert out["tp"] == 0 and out["fp"] == 0
    assert out["precision_neg"] == pytest.approx(0.4) and out["recall_neg"] == 1.0
    assert out["kappa"] == 0.0 and out["mcc"] == 0.0 and out["auc_bal"] == 0.5


def test_recall_nan_when_class_absent_from_fold():
    out = compute_metrics("binary", np.zeros(4, int), np.array([0, 0, 1, 0]), classes=[0, 1])
    assert math.isnan(out["recall_pos"]) and math.isnan(out["auc_bal"])
    assert out["precision_pos"] == 0.0 and out["f1_pos"] == 0.0
    assert out["recall_neg"] == 0.75
    assert math.isnan(out["roc_auc"])


def test_roc_auc_nan_without_scores_or_with_one_class():
    y = np.array([1, 1, 1])
    assert math.isnan(
        compute_metrics("binary", y, y, scores=[0.1, 0.2, 0.3], classes=[0, 1])["roc_auc"]
    )
    y = np.array([0, 1, 1])
    assert math.isnan(compute_metrics("binary", y, y)["roc_auc"])


def test_pos_label_default_and_one_class_fold():
    y = np.array([-1, 1, 1, -1])
    p = np.array([-1, 1, -1, -1])
    out = compute_metrics("binary", y, p)
    assert (out["tp"], out["fn"], out["fp"], out["tn"]) == (1, 1, 0, 2)  # pos = classes[1] = 1
    # A fold with one observed label still gets a 2x2 matrix when pos_label names the other.
    out = compute_metrics("multi_instance", np.zeros(3, int), np.zeros(3, int), pos_label=1)
    assert json.loads(out["classes"]) == ["0", "1"] and out["tn"] == 3


def test_kappa_nan_when_single_label():
    out = compute_metrics("binary", np.ones(4, int), np.ones(4, int), classes=[0, 1])
    assert math.isnan(out["kappa"]) and out["mcc"] == 0.0 and out["accuracy"] == 1.0


def test_label_validation():
    with pytest.raises(ValueError):
        compute_metrics("binary", [0, 1, 2], [0, 1, 1])
    with pytest.raises(ValueError):
        compute_metrics("binary", [0, 1, 2], [0, 1, 1], classes=[0, 1])
    with pytest.raises(ValueError):
        compute_metrics("binary", [0, 1], [0, 1, 1])


def test_prbep():
    y = np.array([1, 0, 1, 0, 0, 1])
    s = np.array([0.9, 0.8, 0.7, 0.1, 0.2, 0.3])
    # top-3 by score: 0.9 (pos), 0.8 (neg), 0.7 (pos) -> 2/3
    assert compute_metrics("binary", y, s > 0.5, scores=s)["prbep"] == pytest.approx(2 / 3)
    # ties at the cut count negatives first
    s_tie = np.array([0.9, 0.5, 0.5, 0.1, 0.5, 0.3])  # 0.5 tie straddles the cut
    assert compute_metrics("binary", y, s_tie > 0.5, scores=s_tie)["prbep"] == pytest.approx(1 / 3)
    # pos_label = 0 ranks by the negated scores: top-3 of -s are 0.1, 0.2, 0.3 -> 2 negatives
    assert compute_metrics("binary", y, s > 0.5, scores=s, pos_label=0)["prbep"] == pytest.approx(
        2 / 3
    )


# --- multitarget ---------------------------------------------------------------------------


def test_multitarget_hand_computed():
    Y = np.array([[1.0, 2.0], [2.0, np.nan], [3.0, 4.0], [4.0, 8.0]])
    P = np.array([[1.0, 3.0], [3.0, 0.0], [2.0, 4.0], [4.0, 6.0]])
    Y_train = np.array([[0.0, 4.0], [2.0, 6.0]])  # train means 1 and 5
    out = compute_metrics("multitarget", Y, P, y_train=Y_train)
    assert set(out) == set(metrics_for_task("multitarget"))
    # target 1: errors 0, -1, 1, 0 -> SSE 2, MSE 0.5; test mean 2.5 -> SST 5; train mean 1 -> 14
    # target 2 (row 2 missing): errors -1, 0, 2 -> SSE 5, MSE 5/3; test mean 14/3 -> SST 56/3;
    #          train mean 5 -> 9 + 1 + 9 = 19
    mse = np.array([0.5, 5 / 3])
    r1 = np.corrcoef([1, 2, 3, 4], [1, 3, 2, 4])[0, 1]  # 0.8
    r2 = np.corrcoef([2, 4, 8], [3, 4, 6])[0, 1]
    assert r1 == pytest.approx(0.8)
    assert out["acc"] == pytest.approx((r1 + r2) / 2)
    assert out["mse_mean"] == pytest.approx(mse.mean())
    assert out["mse_sum"] == pytest.approx(mse.sum())
    assert out["mse_sum"] == pytest.approx(Y.shape[1] * out["mse_mean"])
    assert out["armse"] == pytest.approx(np.sqrt(mse).mean())
    assert out["arrmse_test"] == pytest.approx((math.sqrt(2 / 5) + math.sqrt(5 / (56 / 3))) / 2)
    assert out["arrmse"] == pytest.approx((math.sqrt(2 / 14) + math.sqrt(5 / 19)) / 2)


def test_multitarget_without_y_train_and_relation_on_random_data():
    rng = np.random.default_rng(0)
    Y = rng.normal(size=(30, 5))
    P = Y + rng.normal(scale=0.5, size=Y.shape)
    out = compute_metrics("multitarget", Y, P)
    assert math.isnan(out["arrmse"]) and not math.isnan(out["arrmse_test"])
    assert out["mse_sum"] == pytest.approx(5 * out["mse_mean"])
    per = [skm.mean_squared_error(Y[:, j], P[:, j]) for j in range(5)]
    assert out["mse_mean"] == pytest.approx(skm.mean_squared_error(Y, P))
    assert out["armse"] == pytest.approx(np.mean(np.sqrt(per)))
    assert out["acc"] == pytest.approx(
        np.mean([np.corrcoef(Y[:, j], P[:, j])[0, 1] for j in range(5)])
    )


def test_multitarget_skips_target_without_observations():
    Y = np.array([[1.0, np.nan], [2.0, np.nan], [3.0, np.nan]])
    P = np.array([[1.0, 5.0], [2.0, 5.0], [4.0, 5.0]])
    out = compute_metrics("multitarget", Y, P)
    assert out["mse_mean"] == pytest.approx(1 / 3) and out["mse_sum"] == pytest.approx(1 / 3)


# --- model size ----------------------------------------------------------------------------


def test_model_size():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    svc = SVC().fit(X, y)
    assert model_size(svc) == svc.n_support_.sum()
    svr = SVR().fit(X, X[:, 0])
    assert model_size(svr) == len(svr.support_)
    lin = LinearSVC(penalty="l1", dual=False, C=0.05).fit(X, y)
    assert model_size(lin) == np.count_nonzero(lin.coef_)

    class Custom:
        model_size_ = 7

    assert model_size(Custom()) == 7.0
    assert math.isnan(model_size(object()))


def test_roc_auc_takes_saturated_log_odds_by_their_order():
    """A diverse-density model's log-odds are +-inf where P(B+) is 1 or 0: still ranks."""
    from svmlab.evaluation.metrics import compute_metrics

    y = np.array([0, 0, 1, 1, 1])
    pred = np.array([0, 1, 1, 1, 0])
    saturated = np.array([-np.inf, 2.0, np.inf, 3.0, -np.inf])
    finite = np.array([-1e308, 2.0, 1e308, 3.0, -1e308])
    got = compute_metrics("binary", y, pred, scores=saturated, classes=np.array([0, 1]))
    ref = compute_metrics("binary", y, pred, scores=finite, classes=np.array([0, 1]))
    assert got["roc_auc"] == ref["roc_auc"] == 0.75  # 4 pairs ordered, 1 tied, 1 reversed
