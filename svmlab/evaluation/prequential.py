"""Batched test-then-train (prequential) evaluation of a classifier on a stream."""

from __future__ import annotations

import json
import time

import numpy as np

from svmlab.data.dataset import Dataset
from svmlab.errors import ConfigError
from svmlab.evaluation.evaluate import Evaluation, check_finite, declared_values
from svmlab.evaluation.metrics import compute_metrics, model_size
from svmlab.evaluation.preprocessing import Preprocessor
from svmlab.evaluation.protocols import Prequential, get_protocol
from svmlab.solvers import SolverSpec


def prequential_evaluate(
    solver: SolverSpec,
    ds: Dataset,
    protocol: Prequential | dict,
    *,
    preprocessing: dict | None = None,
    random_state: int | None = None,
) -> tuple[Evaluation, dict]:
    """Predict each chunk with the model trained so far, then update the model with it.

    The first chunk only trains. The scaler is fitted on the first chunk (the only
    data seen before testing starts) and then frozen, so nothing leaks from the future.
    With ``update: partial_fit`` (or ``auto`` for estimators that have it) the model is
    updated incrementally; with ``refit`` it is retrained on the latest chunk only, as
    batched stream learners such as DSOLLAWV do.

    Returns
    -------
    evaluation : Evaluation
        Metrics over all tested samples (pooled), total fit and predict time, and the
        final model size.
    extra : dict
        ``n_chunks`` and ``chunk_accuracy`` (JSON list, one value per tested chunk).
    """
    protocol = get_protocol(protocol)
    if not isinstance(protocol, Prequential):
        raise ConfigError(f"protocol {protocol.name!r} is not prequential ({protocol.kind})")
    chunks = protocol.chunks(ds.n_instances)
    first = ds.subset(np.arange(*chunks[0]))
    pre = Preprocessor.from_config(preprocessing).fit(first)
    estimator = solver.build(random_state=random_state)
    check_finite(first, solver, estimator)
    update = protocol.update
    incremental = update == "partial_fit" or (
        update == "auto" and hasattr(estimator, "partial_fit")
    )
    classes = ds.classes if ds.is_classification else None
    y_true, y_pred, chunk_acc = [], [], []
    fit_time = predict_time = 0.0
    for i, (start, stop) in enumerate(chunks):
        chunk = pre.transform(ds.subset(np.arange(start, stop)))
        if i > 0:
            t0 = time.perf_counter()
            pred = estimator.predict(chunk.X)
            predict_time += time.perf_counter() - t0
            y_true.append(chunk.y)
            y_pred.append(pred)
            chunk_acc.append(float(np.mean(pred == chunk.y)))
        t0 = time.perf_counter()
        if incremental:
            kwargs = {"classes": classes} if classes is not None else {}
            estimator.partial_fit(chunk.X, chunk.y, **kwargs)
        elif len(np.unique(chunk.y)) > 1 or not ds.is_classification:
            estimator = solver.build(random_state=random_state).fit(chunk.X, chunk.y)
        fit_time += time.perf_counter() - t0
    metrics = compute_metrics(
        ds.task, np.concatenate(y_true), np.concatenate(y_pred), classes=classes
    )
    n_tested = sum(len(a) for a in y_true)
    extra = {
        "n_chunks": len(chunks),
        "chunk_accuracy": json.dumps(chunk_acc),
        "n_train": chunks[-1][1],
        "n_test": n_tested,
        "update": "partial_fit" if incremental else "refit",
    }
    fit_info = dict(getattr(estimator, "fit_info_", {}) or {})
    size = model_size(estimator)
    values = declared_values(solver.contract, fit_info)
    return Evaluation(metrics, fit_time, predict_time, size, fit_info, [], *values), extra
