"""Figures of Oliveira (2021)'s thesis (LSSVM, Minimal Learning Machines and class corners).

Usage::

    python scripts/oliveira_figures.py sets [--datasets ...] [--runs R]              # Fig 8
    python scripts/oliveira_figures.py boundaries-lssvm [--datasets ...] [--subsample N]  # 10-12
    python scripts/oliveira_figures.py sensitivity                                   # Fig 13
    python scripts/oliveira_figures.py fits-1d [--datasets ...]                      # Figs 17-19
    python scripts/oliveira_figures.py rp-sweep [--datasets ...] [--variants ...] [--runs R]  # 20
    python scripts/oliveira_figures.py boundaries-mlm [--datasets ...] [--subsample N]    # 23-25
    python scripts/oliveira_figures.py all [--full]

Common options: ``--out DIR`` (default ``figures/oliveira``, git-ignored), ``--format png pdf
svg`` (default png), ``--quick`` (tiny runs, for smoke tests), ``--seed``. Needs
``SVMLAB_DATA_DIR`` for every data set except the synthetic ones (two_moons, artificial_*).

``sets`` (Fig 8): |D|, |PS| = |CCIS(D, 0)| and |SV| = |CCIS(D, 9)| (K = 16, automatic R) on the
z-scored training part of each Table 3 toy set (random stratified 80/20 hold-outs; Ripley's
fixed split), absolute and divided by |D|, averaged over ``--runs`` splits.

``boundaries-lssvm`` (Figs 10-12): CC-, FSA-, SSD- and CCP-LSSVM on TMN, RIP and BAN (inputs
z-scored on the training part; (C, gamma) tuned once by 10-fold CV on the full LSSVM and shared
by the four, as Sec. 3.3.1 does); decision value on a 300 x 300 mesh, f(x) = 0 in black, SVs as
hollow circles, test accuracy and #SV in each title. BAN's training part is subsampled to
``--subsample`` points (0: all 4,240) for speed.

``sensitivity`` (Fig 13): test accuracy and SPR = 1 - M/N of CC-LSSVM on Ripley over
P in {0, ..., 15} x R factor in {0.25, 0.5, ..., 3}; the default (P = 9, factor 1) is marked.

``fits-1d`` (Figs 17-19): Artificial I (x sin 1.5x), Artificial II (sinc) and mcycle, the training
points and the fitted curves of Full-, Random-, Rank- and LW-MLM-1/2/3; Random-MLM's K and
Rank-MLM's (K, C) by 5-fold CV on the squared Pearson R^2 over the Table 10 grids (Ch. 4).

``rp-sweep`` (Figs 20-21): test RMSE of LW-MLM against the number of reference points used in
prediction (the kappa subset of Eqs. 4.7-4.8: 2, then 5%, 10%, ..., 100% of N), one point per
run and their mean as a line; random hold-outs with Table 9's training sizes, inputs z-scored on
the training part, raw targets. The numbers are written beside the figure as CSV (columns
dataset, variant, run, n_train, n_rp, rp_percent, rmse).

``boundaries-mlm`` (Figs 23-25): Full-, Random-, Rank- (all points, ridge C) and CCLW-MLM class
regions on TMN, RIP and BAN; Random-MLM's K and Rank-MLM's C by 5-fold CV on accuracy over small
grids (Table 18 gives only the ranges of a random search).

``all`` runs every subcommand with ``--quick`` settings (``--full`` for the full ones).
"""

from __future__ import annotations

import argparse
import csv
import time
import warnings
from pathlib import Path

import numpy as np

DEFAULT_OUT = Path("figures/oliveira")

#: Table 3 toy sets available offline (registry name -> thesis acronym).
TOY_SETS = {
    "banana": "BAN",
    "wisconsin_keel": "BCW",
    "german": "GER",
    "haberman": "HAB",
    "heart": "HEA",
    "hepatitis_complete": "HEP",
    "ionosphere_weka": "ION",
    "pima": "PID",
    "ripley": "RIP",
    "two_moons": "TMN",
}
BOUNDARY_SETS = {"two_moons": "TMN", "ripley": "RIP", "banana": "BAN"}
CURVE_SETS = {
    "artificial_sine": "Artificial I",
    "artificial_sinc": "Artificial II",
    "mcycle": "mcycle",
}
#: Table 9 training sizes (Zhao et al. 2012) and acronyms.
TABLE9 = {
    "abalone": ("ABA", 3000),
    "auto_mpg_complete": ("MPG", 350),
    "boston": ("BTH", 400),
    "concrete": ("CON", 700),
    "cpu_small": ("CPU", 5000),
    "delta_ailerons": ("DAI", 5000),
    "delta_elevators": ("DEL", 6000),
    "kin8nm": ("KIN", 4500),
    "puma8nh_delve": ("8NH", 4500),
    "stock_torgo": ("STO", 600),
    "wine_quality_red": ("WRE", 1000),
    "wine_quality_white": ("WWH", 3500),
}
LW_VARIANTS = {"normal": "LW-MLM-1", "ks_fixed": "LW-MLM-2", "ks_otsu": "LW-MLM-3"}
RANDOM_K_GRID = [0.05 * i for i in range(1, 11)]  # Table 10
RANK_C_GRID = [2.0**p for p in range(-4, 3)]  # Table 10
CLASS_COLORS = ("#0072B2", "#D55E00")


# ----------------------------------------------------------------------------- helpers
def _figure(nrows, ncols, width, height):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, axes


#: Raster resolution; main() lowers it for --quick runs (smoke tests render faster).
DPI = {"value": 150}


def _save(fig, out: Path, stem: str, formats) -> list[Path]:
    from svmlab.stats.figures import save_figure

    return save_figure(fig, out / stem, formats, dpi=DPI["value"])


def _load(name):
    from svmlab.data.registry import load_dataset

    ds = load_dataset(name)
    X, y = np.asarray(ds.X, dtype=float), np.asarray(ds.y)
    keep = ~np.isnan(X).any(axis=1)
    return ds, X[keep], y[keep], keep


def _classification_split(name, seed, test_size=0.2):
    """z-scored (Xtr, ytr, Xte, yte): Ripley's fixed split, else a stratified 80/20 hold-out."""
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    ds, X, y, keep = _load(name)
    split = ds.meta.get("predefined_split")
    if split is not None and keep.all():
        tr, te = np.asarray(split["train"]), np.asarray(split["test"])
    else:
        tr, te = train_test_split(
            np.arange(len(y)), test_size=test_size, stratify=y, random_state=seed
        )
    scaler = StandardScaler().fit(X[tr])
    return scaler.transform(X[tr]), y[tr], scaler.transform(X[te]), y[te]


def _subsample(X, y, n, seed):
    if not n or n >= len(y):
        return X, y
    from sklearn.model_selection import train_test_split

    Xs, _, ys, _ = train_test_split(X, y, train_size=n, stratify=y, random_state=seed)
    return Xs, ys


def _mesh(Xtr, n):
    lo, hi = Xtr.min(axis=0), Xtr.max(axis=0)
    pad = 0.08 * (hi - lo)
    xx, yy = np.meshgrid(
        np.linspace(lo[0] - pad[0], hi[0] + pad[0], n),
        np.linspace(lo[1] - pad[1], hi[1] + pad[1], n),
    )
    return xx, yy, np.c_[xx.ravel(), yy.ravel()]


def _scatter_classes(ax, X, y, s=6, alpha=0.45):
    for c, color in zip(np.unique(y), CLASS_COLORS):
        ax.scatter(X[y == c, 0], X[y == c, 1], s=s, c=color, alpha=alpha, linewidths=0)


def _pearson_sq(y, p):
    y, p = np.ravel(y) - np.mean(y), np.ravel(p) - np.mean(p)
    den = np.sqrt((y @ y) * (p @ p))
    return float((y @ p) / den) ** 2 if den > 0 else 0.0


# ----------------------------------------------------------------------------- Fig 8
def sets(out, formats, datasets=None, runs=10, seed=0, quick=False) -> list[Path]:
    """Fig 8: |D|, |PS|, |SV| of CCIS (K = 16, P = 9, automatic R) per toy set."""
    from svmlab.selection import ClassCornerSelector

    names = list(datasets or TOY_SETS)
    runs = 1 if quick else runs
    rows = []
    for name in names:
        counts = []
        for r in range(runs):
            Xtr, ytr, _, _ = _classification_split(name, seed + r)
            sel = ClassCornerSelector(n_neighbors=16, corner_threshold=9).fit(Xtr, ytr)
            counts.append((len(ytr), len(sel.prototypes_), len(sel.corners_)))
        rows.append((TOY_SETS.get(name, name), *np.mean(counts, axis=0)))
    labels = [r[0] for r in rows]
    D, PS, SV = (np.array([r[k] for r in rows]) for k in (1, 2, 3))
    fig, axes = _figure(1, 2, 12, 4.2)
    x = np.arange(len(labels))
    w = 0.27
    colors = ("#999999", "#E69F00", "#009E73")
    for ax, scale, ylabel in (
        (axes[0, 0], np.ones_like(D), "number of samples (log scale)"),
        (axes[0, 1], D, "fraction of |D|"),
    ):
        for k, (vals, lab, col) in enumerate(
            zip(
                (D, PS, SV),
                ("|D| (training set)", "|PS| = CCIS(D, 0)", "|SV| = CCIS(D, 9)"),
                colors,
            )
        ):
            ax.bar(x + (k - 1) * w, vals / scale, w, color=col, label=lab)
        ax.set_xticks(x, labels)
        ax.set_ylabel(ylabel)
        ax.set_xlabel("data set")
    axes[0, 0].set_yscale("log")
    axes[0, 0].set_title("absolute")
    axes[0, 1].set_title("normalised by |D|")
    axes[0, 1].set_ylim(0, 1.08)
    for xi, sv, d in zip(x, SV, D):
        axes[0, 1].text(xi + w, sv / d + 0.015, f"{sv / d:.0%}", ha="center", fontsize=7)
    for xi, ps in zip(x, PS):
        if ps == 0:  # e.g. the noise-free two moons: no differently labelled neighbour inside R
            axes[0, 0].text(xi + w / 2, 5, "PS = SV\n= empty", ha="center", fontsize=7)
    handles, labs = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labs, loc="outside lower center", ncols=3, fontsize=9)
    fig.suptitle(
        "Fig 8 (reproduced): CCIS reduction D -> PS -> SV on the toy sets "
        f"(K = 16, P = 9, automatic R; mean of {runs} hold-out{'s' if runs > 1 else ''})"
    )
    for lab, d, ps, sv in zip(labels, D, PS, SV):
        print(
            f"{lab}: |D| = {d:.0f}, |PS| = {ps:.1f} ({ps / d:.1%}), |SV| = {sv:.1f} ({sv / d:.1%})"
        )
    return _save(fig, out, "fig08_ccis_set_sizes", formats)


# ----------------------------------------------------------------------------- Figs 10-12
def _tune(Xtr, ytr, seed, quick):
    from svmlab.estimators.lssvm import tune_lssvm
    from svmlab.estimators.lssvm.tuning import subsample_for_tuning

    Xt, yt = subsample_for_tuning(Xtr, ytr, 200 if quick else 2000, seed)
    if quick:
        return tune_lssvm(Xt, yt, Cs=(1.0, 32.0), gammas=(4.0, 1.0), n_folds=3, random_state=seed)
    return tune_lssvm(Xt, yt, random_state=seed)


def boundaries_lssvm(
    out, formats, datasets=None, subsample=1000, seed=0, quick=False, mesh=300
) -> list[Path]:
    """Figs 10-12: boundaries and SVs of CC-, FSA-, SSD- and CCP-LSSVM."""
    from matplotlib.colors import TwoSlopeNorm

    from svmlab.estimators.lssvm import (
        CCLSSVMClassifier,
        CCPLSSVMClassifier,
        FSALSSVMClassifier,
        SSDLSSVMClassifier,
    )

    mesh = 60 if quick else mesh
    fig_no = {"two_moons": 10, "ripley": 11, "banana": 12}
    paths = []
    for name in datasets or BOUNDARY_SETS:
        Xtr, ytr, Xte, yte = _classification_split(name, seed)
        n_full = len(ytr)
        if name == "banana" or quick:
            Xtr, ytr = _subsample(Xtr, ytr, 300 if quick else subsample, seed)
        t0 = time.perf_counter()
        C, gamma = _tune(Xtr, ytr, seed, quick)
        models = {
            "CC-LSSVM": CCLSSVMClassifier(C=C, gamma=gamma, random_state=seed),
            "FSA-LSSVM": FSALSSVMClassifier(C=C, gamma=gamma, random_state=seed),
            "SSD-LSSVM": SSDLSSVMClassifier(C=C, gamma=gamma, random_state=seed),
            "CCP-LSSVM": CCPLSSVMClassifier(C=C, gamma=gamma, random_state=seed),
        }
        xx, yy, grid = _mesh(Xtr, mesh)
        fig, axes = _figure(1, 4, 17, 4.6)
        for ax, (label, model) in zip(axes[0], models.items()):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(Xtr, ytr)
            f = model.decision_function(grid).reshape(xx.shape)
            lim = max(float(np.percentile(np.abs(f), 98)), 1e-9)
            ax.contourf(
                xx,
                yy,
                np.clip(f, -lim, lim),
                levels=21,
                cmap="RdBu_r",
                norm=TwoSlopeNorm(0.0, -lim, lim),
                alpha=0.55,
            )
            ax.contour(xx, yy, f, levels=[0], colors="black", linewidths=1.5)
            _scatter_classes(ax, Xtr, ytr, s=5, alpha=0.5)
            sv = Xtr[model.support_]
            ax.scatter(
                sv[:, 0], sv[:, 1], s=28, facecolors="none", edgecolors="black", linewidths=0.8
            )
            acc = float(np.mean(model.predict(Xte) == yte))
            spr = 1.0 - len(model.support_) / len(ytr)
            ax.set_title(f"{label}\nACC = {acc:.3f}, #SV = {len(model.support_)} (SPR {spr:.2f})")
            ax.set_xlabel("$x_1$ (z-scored)")
            ax.set_xlim(xx.min(), xx.max())
            ax.set_ylim(yy.min(), yy.max())
        axes[0, 0].set_ylabel("$x_2$ (z-scored)")
        from matplotlib.lines import Line2D

        handles = [
            Line2D([], [], color="black", label="f(x) = 0"),
            Line2D([], [], marker="o", ls="", mfc="none", mec="black", label="support vectors"),
            Line2D([], [], marker="o", ls="", color=CLASS_COLORS[0], label="class -1 (train)"),
            Line2D([], [], marker="o", ls="", color=CLASS_COLORS[1], label="class +1 (train)"),
        ]
        fig.legend(handles=handles, loc="outside lower center", ncols=4, fontsize=9)
        acr = BOUNDARY_SETS.get(name, name)
        sub = f", {len(ytr)} of {n_full} training points" if len(ytr) < n_full else ""
        fig.suptitle(
            f"Fig {fig_no.get(name, '')} (reproduced): sparse LSSVMs on {acr}{sub}; "
            f"C = {C:g}, gamma = {gamma:.3g} tuned on the full LSSVM and shared"
        )
        paths += _save(
            fig, out, f"fig{fig_no.get(name, 0):02d}_lssvm_boundaries_{acr.lower()}", formats
        )
        print(f"{acr}: {time.perf_counter() - t0:.1f} s")
    return paths


# ----------------------------------------------------------------------------- Fig 13
def sensitivity(out, formats, seed=0, quick=False) -> list[Path]:
    """Fig 13: ACC and SPR of CC-LSSVM on Ripley over (P, R factor)."""
    from svmlab.estimators.lssvm import CCLSSVMClassifier

    Xtr, ytr, Xte, yte = _classification_split("ripley", seed)
    if quick:
        Xtr, ytr = _subsample(Xtr, ytr, 300, seed)
        Ps, factors = [0, 5, 9, 15], [0.5, 1.0, 2.0]
    else:
        Ps, factors = list(range(16)), [0.25 * i for i in range(1, 13)]
    C, gamma = _tune(Xtr, ytr, seed, quick)
    acc = np.full((len(Ps), len(factors)), np.nan)
    spr = np.full_like(acc, np.nan)
    n_fallback = 0
    for i, P in enumerate(Ps):
        for j, fct in enumerate(factors):
            m = CCLSSVMClassifier(C=C, gamma=gamma, corner_threshold=P, r_factor=fct)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                m.fit(Xtr, ytr)
            n_fallback += m.fit_info_.get("fallback") is not None
            acc[i, j] = np.mean(m.predict(Xte) == yte)
            spr[i, j] = 1.0 - len(m.support_) / len(ytr)
    fig, axes = _figure(1, 2, 13, 5.6)
    for ax, vals, title in (
        (axes[0, 0], acc, "test accuracy"),
        (axes[0, 1], spr, "sparsity SPR = 1 - M/N"),
    ):
        im = ax.imshow(vals, origin="lower", aspect="auto", cmap="viridis")
        fig.colorbar(im, ax=ax, shrink=0.9)
        ax.set_xticks(range(len(factors)), [f"{f:g}" for f in factors], fontsize=8)
        ax.set_yticks(range(len(Ps)), [str(p) for p in Ps], fontsize=8)
        ax.set_xlabel("R factor (multiplies the automatic R of Eq. 3.10)")
        ax.set_ylabel("P (variability threshold)")
        ax.set_title(title)
        if 9 in Ps and 1.0 in factors:
            ax.plot(factors.index(1.0), Ps.index(9), "o", color="black", ms=9, mfc="white", mew=2)
    axes[0, 0].plot(
        [], [], "o", color="black", mfc="white", mew=2, label="default (P = 9, factor 1)"
    )
    axes[0, 0].legend(loc="upper right", fontsize=8, framealpha=0.9)
    fig.suptitle(
        f"Fig 13 (reproduced): CC-LSSVM on Ripley (N = {len(ytr)}, C = {C:g}, gamma = {gamma:.3g}; "
        f"{n_fallback} cells used the empty-SV fallback)"
    )
    i9 = Ps.index(9) if 9 in Ps else 0
    j1 = factors.index(1.0) if 1.0 in factors else 0
    print(
        f"default: ACC {acc[i9, j1]:.3f}, SPR {spr[i9, j1]:.3f}; ACC range "
        f"{np.nanmin(acc):.3f}-{np.nanmax(acc):.3f}, "
        f"SPR range {np.nanmin(spr):.3f}-{np.nanmax(spr):.3f}"
    )
    stem = out / "fig13_cclssvm_sensitivity_ripley"
    stem.parent.mkdir(parents=True, exist_ok=True)
    with open(stem.with_suffix(".csv"), "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["P", "r_factor", "accuracy", "sparsity"])
        for i, P in enumerate(Ps):
            for j, fct in enumerate(factors):
                w.writerow([P, fct, f"{acc[i, j]:.4f}", f"{spr[i, j]:.4f}"])
    return _save(fig, out, stem.name, formats) + [stem.with_suffix(".csv")]


# ----------------------------------------------------------------------------- Figs 17-19
def _cv_best(make, grid, X, y, seed, score, folds=5):
    """The grid point with the best mean ``score`` over ``folds``-fold CV (first on ties)."""
    from sklearn.model_selection import KFold, StratifiedKFold

    is_clf = score == "accuracy"
    splitter = (StratifiedKFold if is_clf else KFold)(folds, shuffle=True, random_state=seed)
    splits = list(splitter.split(X, y))
    best, best_score = None, -np.inf
    for params in grid:
        vals = []
        for tr, va in splits:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                p = make(**params).fit(X[tr], y[tr]).predict(X[va])
            vals.append(np.mean(p == y[va]) if is_clf else _pearson_sq(y[va], p))
        if np.mean(vals) > best_score:
            best, best_score = params, float(np.mean(vals))
    return best, best_score


def fits_1d(out, formats, datasets=None, seed=0, quick=False) -> list[Path]:
    """Figs 17-19: 1-D fits of Full-, Random-, Rank- and LW-MLM-1/2/3."""
    from sklearn.preprocessing import StandardScaler

    from svmlab.estimators.mlm import LWMLMRegressor, MLMRegressor

    fig_no = {"artificial_sine": 17, "artificial_sinc": 18, "mcycle": 19}
    k_grid = [0.1, 0.3, 0.5] if quick else RANDOM_K_GRID
    c_grid = [0.25, 4.0] if quick else RANK_C_GRID
    paths = []
    for name in datasets or CURVE_SETS:
        _, X, y, _ = _load(name)
        scaler = StandardScaler().fit(X)
        Xs = scaler.transform(X)
        rk, _ = _cv_best(
            lambda **p: MLMRegressor(random_state=seed, **p),
            [{"n_reference": k} for k in k_grid],
            Xs,
            y,
            seed,
            "r2",
        )
        rkc, _ = _cv_best(
            lambda **p: MLMRegressor(random_state=seed, **p),
            [{"n_reference": k, "C": c} for k in k_grid for c in c_grid],
            Xs,
            y,
            seed,
            "r2",
        )
        models = {
            "Full-MLM": MLMRegressor(),
            f"Random-MLM (K = {rk['n_reference']:.0%} of N)": MLMRegressor(random_state=seed, **rk),
            f"Rank-MLM (K = {rkc['n_reference']:.0%} of N, C = {rkc['C']:g})": MLMRegressor(
                random_state=seed, **rkc
            ),
            **{
                lab: LWMLMRegressor(penalty=pen, random_state=seed)
                for pen, lab in LW_VARIANTS.items()
            },
        }
        xs = np.linspace(X.min(), X.max(), 150 if quick else 600)[:, None]
        fig, axes = _figure(2, 3, 14, 7.5)
        for ax, (label, model) in zip(axes.ravel(), models.items()):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(Xs, y)
            ax.scatter(X[:, 0], y, s=9, c="#999999", alpha=0.8, linewidths=0, label="training data")
            rp = model.reference_points_
            if len(rp) < len(y):
                ax.scatter(
                    X[rp, 0],
                    y[rp],
                    s=26,
                    facecolors="none",
                    edgecolors="#555555",
                    linewidths=0.8,
                    label=f"reference points ({len(rp)})",
                )
            ax.plot(
                xs[:, 0], model.predict(scaler.transform(xs)), color="#D55E00", lw=1.6, label="fit"
            )
            r2 = _pearson_sq(y, model.predict(Xs))
            ax.set_title(f"{label}\ntraining $R^2$ = {r2:.3f}", fontsize=10)
            ax.set_xlabel("x" if name != "mcycle" else "time (ms)")
            ax.set_ylabel("y" if name != "mcycle" else "head acceleration (g)")
        axes[0, 0].legend(fontsize=8, loc="best")
        axes[0, 1].legend(fontsize=8, loc="best")
        title = CURVE_SETS.get(name, name)
        fig.suptitle(
            f"Fig {fig_no.get(name, '')} (reproduced): MLM fits on {title} (N = {len(y)}); "
            "Random/Rank tuned by 5-fold CV on $R^2$ (Table 10 grids)"
        )
        paths += _save(fig, out, f"fig{fig_no.get(name, 0):02d}_mlm_fits_{name}", formats)
    return paths


# ----------------------------------------------------------------------------- Figs 20-21
def _rp_counts(n, quick):
    steps = [0.25, 0.5, 1.0] if quick else [0.05 * i for i in range(1, 21)]
    counts = [2] + [max(2, int(round(s * n))) for s in steps]
    return sorted(set(counts))


def rp_sweep(out, formats, datasets=None, variants=None, runs=30, seed=0, quick=False):
    """Figs 20-21: LW-MLM test RMSE against the number of RPs used at prediction."""
    from sklearn.preprocessing import StandardScaler

    from svmlab.errors import DataUnavailableError
    from svmlab.estimators.mlm import LWMLMRegressor

    variants = list(variants or LW_VARIANTS)
    runs = min(runs, 2) if quick else runs
    names = []
    for name in datasets or TABLE9:
        try:
            _load(name)
            names.append(name)
        except DataUnavailableError as exc:
            print(f"skipping {name}: {exc}")
    records = []
    for name in names:
        t0 = time.perf_counter()
        _, X, y, _ = _load(name)
        acr, n_train = TABLE9.get(name, (name, int(0.7 * len(y))))
        if quick:
            n_train = min(n_train, 120)
        for run in range(runs):
            rng = np.random.default_rng([seed, run])
            idx = rng.permutation(len(y))
            tr, te = idx[:n_train], idx[n_train:]
            if quick:
                te = te[:200]
            scaler = StandardScaler().fit(X[tr])
            Xtr, Xte = scaler.transform(X[tr]), scaler.transform(X[te])
            for pen in variants:
                model = LWMLMRegressor(penalty=pen, random_state=seed * 1000 + run)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model.fit(Xtr, y[tr])
                for k in _rp_counts(n_train, quick):
                    model.set_params(n_predict_reference=None if k >= n_train else k)
                    rmse = float(np.sqrt(np.mean((model.predict(Xte) - y[te]) ** 2)))
                    records.append(
                        (acr, LW_VARIANTS[pen], run, n_train, k, 100.0 * k / n_train, rmse)
                    )
        print(f"{acr}: {runs} runs x {len(variants)} variants in {time.perf_counter() - t0:.1f} s")
    out.mkdir(parents=True, exist_ok=True)
    csv_path = out / "fig20_lwmlm_rp_sweep.csv"
    with open(csv_path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["dataset", "variant", "run", "n_train", "n_rp", "rp_percent", "rmse"])
        for r in records:
            w.writerow([*r[:5], f"{r[5]:.2f}", f"{r[6]:.6g}"])
    acrs = list(dict.fromkeys(r[0] for r in records))
    labs = [LW_VARIANTS[p] for p in variants]
    fig, axes = _figure(len(acrs), len(labs), 4.2 * len(labs), 2.9 * len(acrs) + 0.6)
    arr = np.array([(r[4], r[5], r[6]) for r in records])
    keys = [(r[0], r[1]) for r in records]
    for i, acr in enumerate(acrs):
        for j, lab in enumerate(labs):
            ax = axes[i, j]
            sel = np.array([k == (acr, lab) for k in keys])
            pct, rmse = arr[sel, 1], arr[sel, 2]
            ax.scatter(pct, rmse, s=7, c="#009E73", alpha=0.45, linewidths=0, label="one run")
            xs = np.unique(pct)
            means = np.array([rmse[pct == v].mean() for v in xs])
            ax.plot(xs, means, "-", color="#0072B2", lw=1.6, label=f"mean of {runs} runs")
            # the y range from the 5% point on: K = 2 is often an order of magnitude worse
            tail = rmse[pct >= 5.0 - 1e-9] if np.any(pct >= 5.0 - 1e-9) else rmse
            lo, hi = float(tail.min()), float(tail.max())
            ax.set_ylim(lo - 0.1 * (hi - lo + 1e-12), hi + 0.25 * (hi - lo + 1e-12))
            off = rmse.max() > hi * 1.0001
            ax.set_title(f"{acr}, {lab}" + (" (K = 2 off the scale)" if off else ""), fontsize=10)
            ax.set_xlim(0, 102)
            if i == len(acrs) - 1:
                ax.set_xlabel("reference points used at prediction (% of N)")
            if j == 0:
                ax.set_ylabel("test RMSE")
    if len(acrs):
        axes[0, 0].legend(fontsize=8, loc="upper right")
    fig.suptitle(
        "Figs 20-21 (reproduced): LW-MLM test RMSE against the number of random reference points "
        "used in multilateration (K = 2, 5%, ..., 100% of N)"
    )
    return _save(fig, out, "fig20_lwmlm_rp_sweep", formats) + [csv_path]


# ----------------------------------------------------------------------------- Figs 23-25
def boundaries_mlm(out, formats, datasets=None, subsample=1000, seed=0, quick=False, mesh=300):
    """Figs 23-25: class regions of Full-, Random-, Rank- and CCLW-MLM."""
    from matplotlib.colors import ListedColormap
    from matplotlib.lines import Line2D

    from svmlab.estimators.mlm import CCLWMLMClassifier, MLMClassifier

    mesh = 60 if quick else mesh
    fig_no = {"two_moons": 23, "ripley": 24, "banana": 25}
    k_grid = [0.1, 0.3] if quick else [0.05, 0.1, 0.2, 0.3, 0.4, 0.5]
    c_grid = [0.01, 1.0] if quick else [10.0**p for p in range(-3, 3)]
    paths = []
    for name in datasets or BOUNDARY_SETS:
        t0 = time.perf_counter()
        Xtr, ytr, Xte, yte = _classification_split(name, seed)
        n_full = len(ytr)
        if name == "banana" or quick:
            Xtr, ytr = _subsample(Xtr, ytr, 250 if quick else subsample, seed)
        rk, _ = _cv_best(
            lambda **p: MLMClassifier(random_state=seed, **p),
            [{"n_reference": k} for k in k_grid],
            Xtr,
            ytr,
            seed,
            "accuracy",
        )
        rc, _ = _cv_best(
            lambda **p: MLMClassifier(**p), [{"C": c} for c in c_grid], Xtr, ytr, seed, "accuracy"
        )
        models = {
            "Full-MLM": MLMClassifier(),
            f"Random-MLM (K = {rk['n_reference']:.0%} of N)": MLMClassifier(
                random_state=seed, **rk
            ),
            f"Rank-MLM (C = {rc['C']:g})": MLMClassifier(**rc),
            "CCLW-MLM": CCLWMLMClassifier(),
        }
        xx, yy, grid = _mesh(Xtr, mesh)
        fig, axes = _figure(1, 4, 17, 4.6)
        classes = np.unique(ytr)
        for ax, (label, model) in zip(axes[0], models.items()):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model.fit(Xtr, ytr)
            z = (model.predict(grid) == classes[1]).astype(float).reshape(xx.shape)
            ax.contourf(
                xx,
                yy,
                z,
                levels=[-0.5, 0.5, 1.5],
                cmap=ListedColormap(["#9ecae1", "#fdae6b"]),
                alpha=0.6,
            )
            ax.contour(xx, yy, z, levels=[0.5], colors="black", linewidths=1.3)
            _scatter_classes(ax, Xtr, ytr, s=5, alpha=0.55)
            rp = model.reference_points_
            extra = ""
            if len(rp) < len(ytr):
                ax.scatter(
                    Xtr[rp, 0],
                    Xtr[rp, 1],
                    s=26,
                    facecolors="none",
                    edgecolors="black",
                    linewidths=0.7,
                )
                extra = f", {len(rp)} RPs"
            elif isinstance(model, CCLWMLMClassifier):
                extra = f", |PS| = {model.fit_info_['n_prototypes']}"
            acc = float(np.mean(model.predict(Xte) == yte))
            ax.set_title(
                f"{label}\nACC = {acc:.3f}{extra}, ||B||_F = {model.fit_info_['b_norm']:.3g}",
                fontsize=10,
            )
            ax.set_xlabel("$x_1$ (z-scored)")
            ax.set_xlim(xx.min(), xx.max())
            ax.set_ylim(yy.min(), yy.max())
        axes[0, 0].set_ylabel("$x_2$ (z-scored)")
        handles = [
            Line2D([], [], color="black", label="class boundary"),
            Line2D(
                [],
                [],
                marker="o",
                ls="",
                mfc="none",
                mec="black",
                label="reference points (Random-MLM)",
            ),
            Line2D(
                [],
                [],
                marker="o",
                ls="",
                color=CLASS_COLORS[0],
                label=f"class {classes[0]} (train)",
            ),
            Line2D(
                [],
                [],
                marker="o",
                ls="",
                color=CLASS_COLORS[1],
                label=f"class {classes[1]} (train)",
            ),
        ]
        fig.legend(handles=handles, loc="outside lower center", ncols=4, fontsize=9)
        acr = BOUNDARY_SETS.get(name, name)
        sub = f", {len(ytr)} of {n_full} training points" if len(ytr) < n_full else ""
        fig.suptitle(
            f"Fig {fig_no.get(name, '')} (reproduced): MLM decision regions on {acr}{sub} "
            "(Random K and Rank C by 5-fold CV on accuracy)"
        )
        paths += _save(
            fig, out, f"fig{fig_no.get(name, 0):02d}_mlm_boundaries_{acr.lower()}", formats
        )
        print(f"{acr}: {time.perf_counter() - t0:.1f} s")
    return paths


# ----------------------------------------------------------------------------- CLI
def main(argv=None) -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    common.add_argument(
        "--format", nargs="+", default=["png"], choices=["png", "pdf", "svg"], dest="formats"
    )
    common.add_argument("--quick", action="store_true", help="tiny runs (smoke tests)")
    common.add_argument("--seed", type=int, default=0)
    sub = ap.add_subparsers(dest="which", required=True)
    p = sub.add_parser("sets", parents=[common], help="Fig 8")
    p.add_argument("--datasets", nargs="+", default=None, help=f"default: {' '.join(TOY_SETS)}")
    p.add_argument("--runs", type=int, default=10)
    for cmd, hlp in (("boundaries-lssvm", "Figs 10-12"), ("boundaries-mlm", "Figs 23-25")):
        p = sub.add_parser(cmd, parents=[common], help=hlp)
        p.add_argument(
            "--datasets", nargs="+", default=None, help="default: two_moons ripley banana"
        )
        p.add_argument("--subsample", type=int, default=1000, help="BAN training points (0: all)")
    sub.add_parser("sensitivity", parents=[common], help="Fig 13")
    p = sub.add_parser("fits-1d", parents=[common], help="Figs 17-19")
    p.add_argument("--datasets", nargs="+", default=None, help=f"default: {' '.join(CURVE_SETS)}")
    p = sub.add_parser("rp-sweep", parents=[common], help="Figs 20-21")
    p.add_argument(
        "--datasets", nargs="+", default=None, help="default: the Table 9 sets available"
    )
    p.add_argument("--variants", nargs="+", default=None, choices=list(LW_VARIANTS))
    p.add_argument("--runs", type=int, default=30)
    p = sub.add_parser("all", parents=[common], help="everything, quick settings")
    p.add_argument("--full", action="store_true", help="full settings instead of --quick")
    args = ap.parse_args(argv)

    out, fmt, seed = args.out, args.formats, args.seed
    quick = args.quick or (args.which == "all" and not args.full)
    DPI["value"] = 72 if quick else 150
    t0 = time.perf_counter()
    jobs = {
        "sets": lambda: sets(
            out, fmt, getattr(args, "datasets", None), getattr(args, "runs", 10), seed, quick
        ),
        "boundaries-lssvm": lambda: boundaries_lssvm(
            out, fmt, getattr(args, "datasets", None), getattr(args, "subsample", 1000), seed, quick
        ),
        "sensitivity": lambda: sensitivity(out, fmt, seed, quick),
        "fits-1d": lambda: fits_1d(out, fmt, getattr(args, "datasets", None), seed, quick),
        "rp-sweep": lambda: rp_sweep(
            out,
            fmt,
            getattr(args, "datasets", None),
            getattr(args, "variants", None),
            getattr(args, "runs", 30),
            seed,
            quick,
        ),
        "boundaries-mlm": lambda: boundaries_mlm(
            out, fmt, getattr(args, "datasets", None), getattr(args, "subsample", 1000), seed, quick
        ),
    }
    if args.which == "all":
        # the default data sets of each figure; rp-sweep on the small Table 9 sets only
        args.datasets = None
        selected = list(jobs)
        jobs["rp-sweep"] = lambda: rp_sweep(
            out,
            fmt,
            ["auto_mpg_complete", "boston", "stock_torgo"] if quick else None,
            None,
            2 if quick else 30,
            seed,
            quick,
        )
    else:
        selected = [args.which]
    for which in selected:
        for path in jobs[which]():
            print(path)
    print(f"done in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
