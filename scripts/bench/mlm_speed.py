"""LW-MLM against Full-MLM: training time, out-of-sample prediction time and accuracy.

Usage::

    SVMLAB_DATA_DIR=../shared/datasets python scripts/bench/mlm_speed.py
        [--datasets abalone kin8nm wine_quality_red delta_ailerons] [--classification banana]
        [--variant ks_otsu] [--kappas 0.05 0.1 0.2 0.3 0.5 1.0] [--max-train 0] [--repeats 3]

The claim (Oliveira (2021), Sec. 4.1.3, Eqs. 4.7-4.8, Table 17): LW-MLM trains like Full-MLM
(O(N^3)) but predicts with a random subset of K reference points (the kappa subset), so its
out-of-sample prediction costs O(N K) per point instead of Full-MLM's O(N^2)
(``Phi(x) B`` over all N columns and multilateration over N distances). Acceptance target:
LW-MLM predicts >= 3x faster than Full-MLM at equal accuracy (RMSE within 1 % of Full-MLM's,
or accuracy within 1 point).

Regression: the Table 9 sets that are available, holdout sizes of Table 9 (ABA 3000/1177,
KIN 4500/3692, WRE 1000/599, DAI 5000/2129; ``--max-train`` caps the training size), one
random split (seed 0), features z-scored on the training part, targets raw, cubic
multilateration. Classification: LW-MLM of the same variant and CCLW-MLM against Full-MLM,
all with the class-code argmin (Eq. 5.5), on an 80/20 split. One BLAS thread; every time is
the minimum over ``--repeats`` runs (prediction) or one run (training). Printed per data set:
training seconds of both and their ratio, Full-MLM's prediction time and error, then for
every kappa (fraction of the N reference points used at prediction) LW-MLM's prediction
time, speed-up over Full-MLM and error; the last column says whether the target holds there.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from threadpoolctl import threadpool_limits

from svmlab.data.registry import load_dataset
from svmlab.estimators.mlm import (
    CCLWMLMClassifier,
    LWMLMClassifier,
    LWMLMRegressor,
    MLMClassifier,
    MLMRegressor,
)

#: Table 9 holdout sizes (train, test) of the regression sets used here
TABLE_9 = {
    "abalone": (3000, 1177),
    "kin8nm": (4500, 3692),
    "wine_quality_red": (1000, 599),
    "delta_ailerons": (5000, 2129),
}


def _split(X, y, n_train, n_test, max_train):
    if max_train:
        n_train = min(n_train, max_train)
    order = np.random.default_rng(0).permutation(len(X))
    n_train = min(n_train, len(X) - 1)
    train, test = order[:n_train], order[n_train : n_train + n_test]
    mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
    sd[sd == 0] = 1.0
    return (X[train] - mu) / sd, y[train], (X[test] - mu) / sd, y[test]


def _timed_fit(model, X, y):
    t0 = time.perf_counter()
    model.fit(X, y)
    return time.perf_counter() - t0


def _timed_predict(model, X, repeats):
    best, pred = np.inf, None
    for _ in range(repeats):
        t0 = time.perf_counter()
        pred = model.predict(X)
        best = min(best, time.perf_counter() - t0)
    return best, pred


def _rmse(y, p):
    return float(np.sqrt(np.mean((np.asarray(y, float) - p) ** 2)))


def _regression(name, args):
    ds = load_dataset(name)
    X = np.asarray(ds.X, dtype=np.float64)
    y = np.asarray(ds.y, dtype=np.float64)
    n_train, n_test = TABLE_9.get(name, (int(0.7 * len(X)), len(X)))
    X_tr, y_tr, X_te, y_te = _split(X, y, n_train, n_test, args.max_train)
    full, lw = MLMRegressor(), LWMLMRegressor(penalty=args.variant, random_state=0)
    fit_full, fit_lw = _timed_fit(full, X_tr, y_tr), _timed_fit(lw, X_tr, y_tr)
    t_full, p_full = _timed_predict(full, X_te, args.repeats)
    e_full = _rmse(y_te, p_full)
    info = full.fit_info_
    print(f"\n{name}: Full-MLM solver {info['solver']}, fallback {info['fallback']}", end="")
    print(
        f"; N = {len(X_tr)} train, {len(X_te)} test, d = {X.shape[1]}; "
        f"fit Full {fit_full:.2f} s, LW-MLM ({args.variant}) {fit_lw:.2f} s "
        f"(LW / Full {fit_lw / fit_full:.2f}); Full predict {t_full:.3f} s, RMSE {e_full:.4g}"
    )
    found = _kappa_rows(lw, X_te, y_te, t_full, e_full, args, lower_is_better=True)
    return {f"{name} LW-MLM ({args.variant})": found}


def _classification(name, args):
    ds = load_dataset(name)
    X, y = np.asarray(ds.X, dtype=np.float64), np.asarray(ds.y)
    n_train = int(0.8 * len(X))
    X_tr, y_tr, X_te, y_te = _split(X, y, n_train, len(X) - n_train, args.max_train)
    full = MLMClassifier()
    fit_full = _timed_fit(full, X_tr, y_tr)
    t_full, p_full = _timed_predict(full, X_te, args.repeats)
    a_full = float(np.mean(p_full == y_te))
    rows = {}
    for label, model in (
        (f"LW-MLM ({args.variant})", LWMLMClassifier(penalty=args.variant, random_state=0)),
        ("CCLW-MLM", CCLWMLMClassifier(random_state=0)),
    ):
        fit = _timed_fit(model, X_tr, y_tr)
        print(
            f"\n{name} (classification): N = {len(X_tr)} train, {len(X_te)} test, "
            f"d = {X.shape[1]}; fit Full {fit_full:.2f} s, {label} {fit:.2f} s "
            f"(ratio {fit / fit_full:.2f}); Full predict {t_full:.3f} s, ACC {a_full:.4f}"
        )
        rows[f"{name} {label}"] = _kappa_rows(
            model, X_te, y_te, t_full, a_full, args, lower_is_better=False
        )
    return rows


def _kappa_rows(model, X_te, y_te, t_full, e_full, args, *, lower_is_better):
    metric = "RMSE" if lower_is_better else "ACC"
    print(
        f"  {'kappa':>6} {'K':>6} | {'predict s':>9} {'speed-up':>8} | {metric:>9} "
        f"{'vs Full':>8} | target"
    )
    found = []
    for kappa in args.kappas:
        model.set_params(n_predict_reference=None if kappa >= 1 else kappa)
        t, p = _timed_predict(model, X_te, args.repeats)
        if lower_is_better:
            err = _rmse(y_te, p)
            diff = f"{100 * (err / e_full - 1):+7.2f}%"
            equal = err <= 1.01 * e_full
        else:
            err = float(np.mean(p == y_te))
            diff = f"{100 * (err - e_full):+6.2f}pt"
            equal = err >= e_full - 0.01
        speed = t_full / t
        ok = equal and speed >= 3.0
        K = model._prediction_subset(2)
        K = model.model_size_ if K is None else len(K)
        print(
            f"  {kappa:>6.2f} {K:>6} | {t:>9.3f} {speed:>8.2f} | {err:>9.4g} {diff:>8} | "
            f"{'MET' if ok else '-'}"
        )
        if ok:
            found.append(kappa)
    verdict = (
        f"target met for kappa in {found} (smallest {min(found):g})"
        if found
        else "target NOT met at any kappa tried"
    )
    print(f"  -> {verdict}")
    return found


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--datasets", nargs="*", default=list(TABLE_9))
    ap.add_argument("--classification", nargs="*", default=["banana"])
    ap.add_argument("--variant", default="ks_otsu", choices=["normal", "ks_fixed", "ks_otsu"])
    ap.add_argument("--kappas", nargs="*", type=float, default=[0.05, 0.1, 0.2, 0.3, 0.5, 1.0])
    ap.add_argument("--max-train", type=int, default=0, help="cap on the training size (0: none)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    print(
        "LW-MLM vs Full-MLM (Oliveira 2021, Ch. 4): training and out-of-sample prediction, "
        "one BLAS thread; speed-up = Full-MLM predict time / LW-MLM predict time"
    )
    summary = {}
    with threadpool_limits(1):
        for name in args.datasets:
            summary.update(_regression(name, args))
        for name in args.classification:
            summary.update(_classification(name, args))
    print("\nsummary (kappas where LW predicts >= 3x faster at equal accuracy):")
    for name, found in summary.items():
        print(f"  {name:<34} {found if found else 'none'}")


if __name__ == "__main__":
    main()
