"""Figures of the OLLAWV chapter (Melki 2018, Ch. 5).

Usage::

    python scripts/ollawv_figures.py boundary [--out DIR]          # Fig. 5.4
    python scripts/ollawv_figures.py scaling RUN_DIR [--out DIR]   # Figs. 5.8 / 5.9

``boundary`` draws the decision boundaries of OLLAWV, LIBSVM (scikit-learn's SVC) and the
Bayes-optimal quadratic rule on two 2-D Gaussian classes with different covariances, for
200 and 2000 training points (the paper does not give the Gaussians or the parameters; the
ones used are printed). ``scaling`` plots runtime (whole nested CV, s) and %SV against the
number of samples from an ``ollawv_bench`` run, the paper's values dashed beside them.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def _gaussians(n: int, rng):
    means = [np.array([-1.0, -0.5]), np.array([1.0, 0.5])]
    covs = [np.array([[1.0, 0.6], [0.6, 1.0]]), np.array([[0.5, -0.2], [-0.2, 1.5]])]
    X = np.vstack([rng.multivariate_normal(means[c], covs[c], n // 2) for c in (0, 1)])
    y = np.repeat([-1, 1], n // 2)
    return X, y, means, covs


def _bayes_log_ratio(grid, means, covs):
    from scipy.stats import multivariate_normal

    return multivariate_normal(means[1], covs[1]).logpdf(grid) - multivariate_normal(
        means[0], covs[0]
    ).logpdf(grid)


def boundary(out: Path, gamma: float = 0.5, C: float = 10.0) -> list[Path]:
    from matplotlib.figure import Figure
    from sklearn.svm import SVC

    from svmlab.estimators.ollawv import OLLAWVClassifier

    rng = np.random.default_rng(0)
    fig = Figure(figsize=(11, 5), layout="constrained")
    axes = fig.subplots(1, 2)
    xx, yy = np.meshgrid(np.linspace(-4, 4, 300), np.linspace(-4, 4, 300))
    grid = np.c_[xx.ravel(), yy.ravel()]
    for ax, n in zip(axes, (200, 2000)):
        X, y, means, covs = _gaussians(n, rng)
        ax.scatter(X[y < 0, 0], X[y < 0, 1], s=6, c="#0072B2", alpha=0.5, label="class -1")
        ax.scatter(X[y > 0, 0], X[y > 0, 1], s=6, c="#D55E00", alpha=0.5, label="class +1")
        models = {
            "OLLAWV": OLLAWVClassifier(C=C, gamma=gamma, random_state=0).fit(X, y),
            "LIBSVM (SMO)": SVC(C=C, gamma=gamma).fit(X, y),
        }
        ax.contour(
            xx,
            yy,
            _bayes_log_ratio(grid, means, covs).reshape(xx.shape),
            levels=[0],
            colors="black",
            linestyles="dashed",
        )
        for (name, model), color in zip(models.items(), ("#009E73", "#CC79A7")):
            ax.contour(
                xx, yy, model.decision_function(grid).reshape(xx.shape), levels=[0], colors=color
            )
            n_sv = int(np.sum(model.n_support_))
            ax.plot([], [], color=color, label=f"{name} ({n_sv} SVs)")
        ax.plot([], [], color="black", linestyle="dashed", label="Bayes")
        ax.set_title(f"n = {n}")
        ax.legend(loc="lower right", fontsize=8, framealpha=0.9)
        ax.set_xlim(-4, 4)
        ax.set_ylim(-4, 4)
    fig.suptitle(f"Fig. 5.4 (reproduced): decision boundaries, RBF gamma = {gamma}, C = {C}")
    out.mkdir(parents=True, exist_ok=True)
    path = out / "ollawv_fig_5_4_boundaries.png"
    fig.savefig(path, dpi=150)
    return [path]


def scaling(run_dir: Path, out: Path) -> list[Path]:
    from matplotlib.figure import Figure

    from svmlab.reproduce import derive_columns, get_reproduction
    from svmlab.results import aggregate, load_results

    repro = get_reproduction("ollawv_table_5_3")
    df = derive_columns(repro.name, load_results(run_dir))  # sv_percent
    sizes = (
        df.groupby("dataset")[["n_train", "n_test"]].first().sum(axis=1)
        // df.groupby("dataset")["repeat"].nunique()
    )
    paths = []
    for column, how, title, file, table in (
        (
            "task_seconds",
            "sum",
            "runtime of the nested CV (s)",
            "ollawv_fig_5_8_runtime.png",
            repro.tables[1],
        ),
        (
            "sv_percent",
            "mean",
            "support vectors (% of training set)",
            "ollawv_fig_5_9_sv.png",
            repro.tables[2],
        ),
    ):
        agg = aggregate(df, column, "mean")
        if how == "sum":
            agg["value"] = agg["value"] * agg["n"]
        ours = agg.pivot(index="dataset", columns="method", values="value")
        published = repro.published(table)
        inverse = {repro.datasets.get(k, k): k for k in published.index}
        fig = Figure(figsize=(7, 4.5), layout="constrained")
        ax = fig.subplots()
        for (paper_m, solver), color in zip(
            repro.methods.items(), ("#009E73", "#0072B2", "#D55E00")
        ):
            if solver in ours.columns:
                s = ours[solver].dropna()
                n = sizes.reindex(s.index)
                order = np.argsort(n.to_numpy())
                ax.plot(
                    n.to_numpy()[order],
                    s.to_numpy()[order],
                    "o-",
                    color=color,
                    label=f"{paper_m} (this run)",
                )
                pub = [published.at[inverse[d], paper_m] for d in s.index[order] if d in inverse]
                ax.plot(
                    n.to_numpy()[order][: len(pub)],
                    pub,
                    "x--",
                    color=color,
                    alpha=0.6,
                    label=f"{paper_m} (paper)",
                )
        ax.set_xscale("log")
        if how == "sum":
            ax.set_yscale("log")
        ax.set_xlabel("number of samples")
        ax.set_ylabel(title)
        ax.set_title(
            f"Fig. {'5.8' if how == 'sum' else '5.9'} (reproduced): {title} against the number of "
            "samples"
        )
        ax.legend(fontsize=8)
        out.mkdir(parents=True, exist_ok=True)
        fig.savefig(out / file, dpi=150)
        paths.append(out / file)
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="which", required=True)
    b = sub.add_parser("boundary")
    b.add_argument("--out", type=Path, default=Path("figures"))
    s = sub.add_parser("scaling")
    s.add_argument("run_dir", type=Path)
    s.add_argument("--out", type=Path, default=Path("figures"))
    args = ap.parse_args()
    paths = boundary(args.out) if args.which == "boundary" else scaling(args.run_dir, args.out)
    for p in paths:
        print(p)


if __name__ == "__main__":
    main()
