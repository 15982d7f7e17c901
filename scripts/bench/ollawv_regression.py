"""OLLAWVRegressor (beyond the paper) against LIBSVM's epsilon-SVR (scikit-learn's SVR).

Usage::

    SVMLAB_DATA_DIR=../shared/datasets python scripts/bench/ollawv_regression.py
        [--datasets diabetes enb:0 enb:1 slump:0 edm:0 wq:0 jura:0 sf2:0 scpf:0 rf1:0]
        [--max-samples 3000] [--C 0.1 1 10 100] [--gamma 0.01 0.1 1] [--epsilon 0.01 0.1 0.3]
        [--max-iter-frac 0.5]

``NAME:k`` is target ``k`` of a multi-target dataset of the registry; plain names are
single-target regression sets (diabetes is scikit-learn's). Rows with a missing value are
dropped; larger sets are subsampled (seed 0) to ``--max-samples``.

Both methods see the same 5 folds (shuffled, seed 0) and the same (C, gamma, epsilon) grid.
Inside each fold the inputs are z-scored and the target is standardised with the training
part's statistics (OLLAWV has in effect no intercept and its C is a step in units of y; SVR
gets the same treatment), and RMSE is measured in the original units of y. For each method
the grid point with the lowest mean CV RMSE is selected (the same, optimistic, selection for
both) and reported with its mean number of support vectors and mean fit time; ``grid s`` is
the total training time over the grid and folds. OLLAWV fits each (C, gamma) once for all
epsilon (``OLLAWVRegressor.fit_path``: the models of larger tubes are prefixes of the same
run): each of its grid points is charged an equal share of that run in ``grid s``, while
its ``fit s`` is the whole run (what obtaining the selected model took). SVR has a 1000 MB
kernel cache. Ratios are
OLLAWV / SVR. ``mean RMSE`` is the error of predicting the training mean, for scale.
Single-threaded (one BLAS thread).
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import KFold
from sklearn.svm import SVR
from threadpoolctl import threadpool_limits

from svmlab.estimators.ollawv import OLLAWVRegressor

DEFAULT = [
    "diabetes",
    "enb:0",
    "enb:1",
    "slump:0",
    "edm:0",
    "wq:0",
    "jura:0",
    "sf2:0",
    "scpf:0",
    "rf1:0",
]


def _load(spec: str, max_samples: int):
    if spec == "diabetes":
        X, y = load_diabetes(return_X_y=True)
        label = "diabetes"
    else:
        from svmlab.data.registry import load_dataset

        name, _, k = spec.partition(":")
        ds = load_dataset(name)
        if ds.Y is not None:
            k = int(k or 0)
            y, label = ds.Y[:, k], f"{name}:{ds.target_names[k] if ds.target_names else k}"
        else:
            y, label = ds.y, name
        X = ds.X
    X, y = np.asarray(X, float), np.asarray(y, float)
    keep = np.isfinite(X).all(axis=1) & np.isfinite(y)
    X, y = X[keep], y[keep]
    if max_samples and len(y) > max_samples:
        idx = np.random.default_rng(0).choice(len(y), max_samples, replace=False)
        X, y = X[idx], y[idx]
    return label, X, y


def _folds(X, y):
    """Per fold: z-scored inputs, standardised training target, and the target's scale."""
    for train, test in KFold(5, shuffle=True, random_state=0).split(X):
        mu, sd = X[train].mean(axis=0), X[train].std(axis=0)
        sd[sd == 0] = 1.0
        ym, ys = y[train].mean(), y[train].std() or 1.0
        yield (X[train] - mu) / sd, (y[train] - ym) / ys, (X[test] - mu) / sd, y[test], ym, ys


def _n_sv(model) -> int:
    return int(np.sum(model.n_support_))


def run(spec, grid, frac, max_samples):
    label, X, y = _load(spec, max_samples)
    folds = list(_folds(X, y))
    base = float(np.mean([np.sqrt(np.mean((yt - ym) ** 2)) for _, _, _, yt, ym, _ in folds]))
    out = {}
    for method in ("ollawv", "svr"):
        points, total = [], 0.0
        for C, g in dict.fromkeys((C, g) for C, g, _ in grid):
            epsilons = [e for c, gg, e in grid if (c, gg) == (C, g)]
            rmse = np.zeros((len(folds), len(epsilons)))
            sv = np.zeros_like(rmse)
            secs = np.zeros_like(rmse)  # each point's share of the grid time
            whole = np.zeros_like(rmse)  # what obtaining that point's model took
            for f, (Xa, ya, Xt, yt, ym, ys) in enumerate(folds):
                if method == "ollawv":  # the epsilon path of one run (nested tubes)
                    start = OLLAWVRegressor(C=C, gamma=g, max_iter_frac=frac, random_state=0)
                    t0 = time.perf_counter()
                    models = start.fit_path(Xa, ya, epsilons)
                    whole[f] = time.perf_counter() - t0
                    secs[f] = whole[f] / len(models)
                else:
                    models = []
                    for j, e in enumerate(epsilons):
                        t0 = time.perf_counter()
                        models.append(SVR(C=C, gamma=g, epsilon=e, cache_size=1000).fit(Xa, ya))
                        secs[f, j] = whole[f, j] = time.perf_counter() - t0
                for j, model in enumerate(models):
                    rmse[f, j] = np.sqrt(np.mean((model.predict(Xt) * ys + ym - yt) ** 2))
                    sv[f, j] = _n_sv(model)
            total += secs.sum()
            for j, e in enumerate(epsilons):
                points.append(
                    (
                        float(rmse[:, j].mean()),
                        float(rmse[:, j].std()),
                        float(sv[:, j].mean()),
                        float(whole[:, j].mean()),
                        (C, g, e),
                    )
                )
        best = min(points, key=lambda p: p[0])
        out[method] = {
            "rmse": best[0],
            "std": best[1],
            "sv": best[2],
            "fit_s": best[3],
            "point": best[4],
            "grid_s": total,
        }
    n_train = len(folds[0][1])
    o, s = out["ollawv"], out["svr"]
    print(
        f"\n## {label}: n = {len(y)} ({n_train} per training part), d = {X.shape[1]}, "
        f"mean-predictor RMSE {base:.4g}"
    )
    print(
        f"{'method':<7} {'RMSE':>10} {'± std':>8} {'#SV':>8} {'%SV':>6} {'fit s':>8} {'grid s':>8} "
        " selected (C, gamma, eps)"
    )
    for m, r in out.items():
        print(
            f"{m:<7} {r['rmse']:>10.4g} {r['std']:>8.3g} {r['sv']:>8.1f} "
            f"{100 * r['sv'] / n_train:>6.1f} "
            f"{r['fit_s']:>8.4f} {r['grid_s']:>8.2f}  {r['point']}"
        )
    return {
        "dataset": label,
        "n": len(y),
        "base": base,
        "rmse_o": o["rmse"],
        "rmse_s": s["rmse"],
        "rmse_ratio": o["rmse"] / s["rmse"],
        "sv_ratio": o["sv"] / max(s["sv"], 1e-12),
        "fit_ratio": o["fit_s"] / s["fit_s"],
        "grid_ratio": o["grid_s"] / s["grid_s"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--datasets", nargs="+", default=DEFAULT)
    ap.add_argument(
        "--max-samples", type=int, default=3000, help="random subsample of larger sets (0: all)"
    )
    ap.add_argument("--C", nargs="+", type=float, default=[0.1, 1.0, 10.0, 100.0])
    ap.add_argument("--gamma", nargs="+", type=float, default=[0.01, 0.1, 1.0])
    ap.add_argument("--epsilon", nargs="+", type=float, default=[0.01, 0.1, 0.3])
    ap.add_argument(
        "--max-iter-frac", type=float, default=0.5, help="OLLAWV cap as a fraction of n (0: no cap)"
    )
    args = ap.parse_args()
    grid = list(itertools.product(args.C, args.gamma, args.epsilon))
    frac = args.max_iter_frac or None
    print(
        f"grid: C {args.C} x gamma {args.gamma} x epsilon {args.epsilon} ({len(grid)} points), "
        "5-fold CV; "
        f"OLLAWV max_iter_frac={frac}"
    )
    with threadpool_limits(1):
        OLLAWVRegressor().fit_path(np.eye(8), np.arange(8.0), [0.1, 0.2])  # load the compiled loop
        SVR().fit(np.eye(8), np.arange(8.0))
        results = [run(spec, grid, frac, args.max_samples) for spec in args.datasets]
    print("\n## summary (ratios OLLAWV / SVR; RMSE of the selected grid points)")
    print(
        f"{'dataset':<22} {'n':>5} {'mean RMSE':>10} {'OLLAWV':>10} {'SVR':>10} {'RMSE':>6} "
        f"{'#SV':>6} {'fit':>6} {'grid':>6}"
    )
    for r in results:
        print(
            f"{r['dataset']:<22} {r['n']:>5} {r['base']:>10.4g} {r['rmse_o']:>10.4g} "
            f"{r['rmse_s']:>10.4g} "
            f"{r['rmse_ratio']:>6.3f} {r['sv_ratio']:>6.2f} {r['fit_ratio']:>6.2f} "
            f"{r['grid_ratio']:>6.2f}"
        )
    g = lambda k: float(np.exp(np.mean(np.log([r[k] for r in results]))))  # noqa: E731
    print(
        f"{'geometric mean':<22} {'':>5} {'':>10} {'':>10} {'':>10} {g('rmse_ratio'):>6.3f} "
        f"{g('sv_ratio'):>6.2f} "
        f"{g('fit_ratio'):>6.2f} {g('grid_ratio'):>6.2f}"
    )


if __name__ == "__main__":
    main()
