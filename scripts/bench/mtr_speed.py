"""Training time of SVRCC against SVR (one SVR per target) and SVRRC (up to 10 chains).

Usage::

    SVMLAB_DATA_DIR=../shared/datasets python scripts/bench/mtr_speed.py
        [--datasets rf1 scm20d wq oes10] [--max-samples 2000] [--C 10] [--gamma 0.1] [--epsilon 0.1]
        [--tuned]

The paper's claim (Ch. 3, Table 3.11): SVRCC costs about one chain, i.e. about as much as
SVR, and is several times cheaper than SVRRC. Each method is trained on the same rows
(inputs and targets z-scored; larger sets subsampled with seed 0 to ``--max-samples``), one
BLAS thread, same (C, gamma, epsilon) for every link. ``--tuned`` instead lets every link pick
its own parameters by an inner 3-fold CV over a 3 x 3 x 1 grid, as the study does (the search
then dominates the time). Printed: seconds of each method, SVRCC / SVR and SVRRC / SVRCC, and
aRRMSE of each on the rows left out by the subsample (when any are left), for scale.
Targets: SVRCC / SVR <= 1.5 and SVRRC / SVRCC "several times".
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.mtr import SVRCC, SVRRC, SingleTargetSVR
from svmlab.evaluation.metrics import compute_metrics

SMALL_GRID = {"C": [1.0, 10.0, 100.0], "gamma": [0.001, 0.1, 1.0], "epsilon": [0.1]}


def _standardise(train, test):
    mu, sd = np.nanmean(train, axis=0), np.nanstd(train, axis=0)
    sd[~(sd > 0)] = 1.0
    return (train - mu) / sd, (test - mu) / sd


def _prepare(name, max_samples):
    ds = load_dataset(name)
    X, Y = ds.X, ds.Y
    X = np.where(np.isnan(X), np.nanmean(X, axis=0), X)
    order = np.random.default_rng(0).permutation(len(X))
    train, test = order[:max_samples], order[max_samples : max_samples + 2000]
    X_train, X_test = _standardise(X[train], X[test])
    Y_train, Y_test = _standardise(Y[train], Y[test])
    return X_train, Y_train, X_test, Y_test


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--datasets", nargs="*", default=["rf1", "scm20d", "wq", "oes10"])
    ap.add_argument("--max-samples", type=int, default=2000)
    ap.add_argument("--C", type=float, default=10.0)
    ap.add_argument("--gamma", type=float, default=0.1)
    ap.add_argument("--epsilon", type=float, default=0.1)
    ap.add_argument(
        "--tuned", action="store_true", help="per-link inner 3-fold CV over a 3x3x1 grid"
    )
    args = ap.parse_args()
    if args.tuned:
        common = {"param_grid": SMALL_GRID, "inner_cv": 3}
    else:
        common = {
            "param_grid": {"C": [args.C], "gamma": [args.gamma], "epsilon": [args.epsilon]},
            "inner_cv": None,
        }
    makers = {
        "SVR": lambda: SingleTargetSVR(random_state=0, **common),
        "SVRCC": lambda: SVRCC(random_state=0, **common),
        "SVRRC": lambda: SVRRC(random_state=0, **common),
    }
    mode = (
        "tuned per link (inner 3-fold, 9 points)"
        if args.tuned
        else f"fixed C={args.C:g} gamma={args.gamma:g} epsilon={args.epsilon:g}"
    )
    print(f"SVR / SVRCC / SVRRC training time, {mode}, <= {args.max_samples} rows, one BLAS thread")
    print(
        f"{'dataset':<8} {'n':>5} {'d':>4} {'m':>3} | {'SVR s':>7} {'SVRCC s':>8} {'SVRRC s':>8} | "
        f"{'CC/SVR':>6} {'RC/CC':>6} | {'aRRMSE SVR':>10} {'SVRCC':>6} {'SVRRC':>6}"
    )
    ratios = []
    with threadpool_limits(1):
        for name in args.datasets:
            X, Y, X_test, Y_test = _prepare(name, args.max_samples)
            secs, err = {}, {}
            for label, make in makers.items():
                model = make()
                t0 = time.perf_counter()
                model.fit(X, Y)
                secs[label] = time.perf_counter() - t0
                err[label] = (
                    compute_metrics("multitarget", Y_test, model.predict(X_test), y_train=Y)[
                        "arrmse"
                    ]
                    if len(X_test)
                    else np.nan
                )
            cc_svr, rc_cc = secs["SVRCC"] / secs["SVR"], secs["SVRRC"] / secs["SVRCC"]
            ratios.append((cc_svr, rc_cc))
            print(
                f"{name:<8} {X.shape[0]:>5} {X.shape[1]:>4} {Y.shape[1]:>3} | {secs['SVR']:>7.2f} "
                f"{secs['SVRCC']:>8.2f} {secs['SVRRC']:>8.2f} | {cc_svr:>6.2f} {rc_cc:>6.1f} | "
                f"{err['SVR']:>10.4f} {err['SVRCC']:>6.4f} {err['SVRRC']:>6.4f}"
            )
    cc_svr, rc_cc = np.exp(np.mean(np.log(ratios), axis=0))
    print(
        f"geometric means: SVRCC / SVR = {cc_svr:.2f} (target <= 1.5), SVRRC / SVRCC = {rc_cc:.1f} "
        "(target: several times)"
    )


if __name__ == "__main__":
    main()
