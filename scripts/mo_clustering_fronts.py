"""Reproduce Ch. 8 of Mierswa (2009): multi-objective feature selection for clustering, the
prior ``omega_DB / nf`` minimisation (Sec. 8.3) against the information-preserving
maximisation of ``nf`` and ``-omega`` (Sec. 8.4), on the Table 8.1 data sets.

For every data set both fronts are searched with :class:`svmlab.selection.ClusteringFeatureSelector`
(same NSGA-II settings, same seed) and a table is printed -- the data set's statistics
(n, m, noise features, the mean standard deviations sigma_o / sigma_n of the original and noise
features, k) beside Table 8.1's, the size of both fronts, the feature counts they cover,
whether the ``1/nf`` front collapsed to one point, and how straight each front is (R^2 of a
line through criterion objective against nf) -- followed by the thesis's qualitative findings
(Sec. 8.5.2).

Figures (docs/figures/mo_features/ by default):

* ``clustering_fronts.png`` -- Figs. 8.2-8.4: per data set the ``DB_norm`` front (left; x =
  ``-omega/nf``, y = ``-nf``) and the information-preserving front (right; x = ``-omega``,
  y = ``nf``);
* ``clustering_segmentation.png`` -- Fig. 8.6: the WPBC (k = 2) information-preserving front
  with its five points of largest ``|Delta eta - 1|`` (Sec. 8.4.1) marked (``--segment``
  picks another data set).

k per data set (Table 8.1; the table gives 0 for GRID and RANDOM, "?" for WPBC, whose figure
uses k = 2): GRID 5 (the grid's levels per dimension), RANDOM 2, GM 32, the Iris sets 3, WPBC 2,
SPIRAL 2 with the single-link criterion (Sec. 8.5.1; its left panel divides the same criterion by
nf). See docs/decisions/mo_features.md.

Usage::

    python scripts/mo_clustering_fronts.py            # --quick: 7 sets (no GM), 20 generations
    python scripts/mo_clustering_fronts.py --paper    # all 8 sets, population 2m, 1000 generations
"""

from __future__ import annotations

import argparse
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from svmlab.data import load_dataset
from svmlab.data.feature_sets import wpbc_clustering_features
from svmlab.paths import REPO_ROOT
from svmlab.selection.mo_clustering import ClusteringFeatureSelector
from svmlab.stats.figures._canvas import new_figure
from svmlab.stats.figures.saving import save_figure


@dataclass(frozen=True)
class Spec:
    """One row of Table 8.1 and how we cluster it."""

    label: str
    registry: str
    k: int
    criterion: str
    table: tuple  # (n, m, noise, sigma_o, sigma_n, k) as printed; None = "n.a." / "?"
    finding: str


SPECS = [
    Spec(
        "GRID",
        "mo_grid",
        5,
        "davies_bouldin",
        (3125, 5, 0, None, None, 0),
        "left front collapses",
    ),
    Spec(
        "RANDOM",
        "mo_random",
        2,
        "davies_bouldin",
        (500, 10, 10, None, np.inf, 0),
        "left convex (1/nf artefact), right linear",
    ),
    Spec(
        "GM",
        "mo_gm",
        32,
        "davies_bouldin",
        (1000, 15, 10, 0.5, 0.5, 32),
        "right front has more points",
    ),
    Spec(
        "IRIS",
        "iris",
        3,
        "davies_bouldin",
        (150, 4, 0, 0.8, None, 3),
        "right complete, left few subsets",
    ),
    Spec(
        "IRIS-NN",
        "iris_nn",
        3,
        "davies_bouldin",
        (150, 5, 1, 0.8, 0.01, 3),
        "left front collapses",
    ),
    Spec(
        "IRIS-GN",
        "iris_gn",
        3,
        "davies_bouldin",
        (150, 14, 10, 0.8, 0.8, 3),
        "right complete, left few subsets",
    ),
    Spec(
        "WPBC",
        "wpbc",
        2,
        "davies_bouldin",
        (198, 34, 0, 33.2, None, None),
        "right shows kinks (k = 2)",
    ),
    Spec(
        "SPIRAL",
        "mo_spiral",
        2,
        "single_link",
        (500, 7, 5, 5.5, 5.5, 2),
        "left front collapses",
    ),
]

PROFILES = {
    # 20 generations: "in most cases the population converges ... after less than 20" (8.5.2)
    "quick": {
        "sets": ("GRID", "RANDOM", "IRIS", "IRIS-NN", "IRIS-GN", "WPBC", "SPIRAL"),
        "max_generations": 20,
        "kmeans_n_init": 3,
    },
    "paper": {
        "sets": tuple(s.label for s in SPECS),
        "max_generations": 1000,
        "kmeans_n_init": 10,
    },
}
FORMULATIONS = ("db_norm", "information_preserving")


def load(spec: Spec, seed: int):
    """``(X, noise column indices)`` of a Table 8.1 data set."""
    if spec.registry == "wpbc":
        return wpbc_clustering_features(load_dataset("wpbc"))[0], []
    params = None if spec.registry == "iris" else {"random_state": seed}
    ds = load_dataset(spec.registry, params)
    return np.asarray(ds.X), list(ds.meta.get("noise_features", []))


def statistics(X, noise):
    """n, m, noise count, and the mean standard deviations of the original / noise columns."""
    sd = X.std(axis=0, ddof=1)
    original = [j for j in range(X.shape[1]) if j not in set(noise)]
    sigma_o = float(sd[original].mean()) if original else None
    sigma_n = float(sd[noise].mean()) if noise else None
    return X.shape[0], X.shape[1], len(noise), sigma_o, sigma_n


def linear_r2(nf, value) -> float:
    """R^2 of a straight line through (nf, value): 1 for a linear front (NaN below 3 points)."""
    nf, value = np.asarray(nf, float), np.asarray(value, float)
    if len(nf) < 3 or np.ptp(value) == 0:
        return float("nan")
    fit = np.polyval(np.polyfit(nf, value, 1), nf)
    return 1.0 - float(np.sum((value - fit) ** 2) / np.sum((value - value.mean()) ** 2))


def run(spec: Spec, profile: dict, seed: int, n_jobs: int, generations=None):
    X, noise = load(spec, seed)
    fronts = {}
    for formulation in FORMULATIONS:
        sel = ClusteringFeatureSelector(
            spec.k,
            formulation=formulation,
            criterion=spec.criterion,
            kmeans_n_init=profile["kmeans_n_init"],
            max_generations=generations or profile["max_generations"],
            n_jobs=n_jobs,
            random_state=seed,
        ).fit(X)
        fronts[formulation] = sel
    return X, noise, fronts


def distinct_points(front):
    """The front's points in objective space: subsets with equal objectives count once."""
    return front.drop_duplicates(["objective_criterion", "objective_size"])


def _fmt(v, digits=2):
    if v is None:
        return "n.a."
    if isinstance(v, float) and np.isinf(v):
        return "inf"
    return f"{v:.{digits}f}" if isinstance(v, float) else str(v)


def table_row(spec: Spec, X, noise, fronts) -> dict:
    n, m, n_noise, sigma_o, sigma_n = statistics(X, noise)
    tn, tm, tnoise, tso, tsn, tk = spec.table
    row = {
        "data set": spec.label,
        "n": f"{n} ({tn})",
        "m": f"{m} ({tm})",
        "noise": f"{n_noise} ({tnoise})",
        "sigma_o": f"{_fmt(sigma_o)} ({_fmt(tso)})",
        "sigma_n": f"{_fmt(sigma_n)} ({_fmt(tsn)})",
        "k": f"{spec.k} ({'?' if tk is None else tk})",
    }
    points = {}
    for formulation, short in zip(FORMULATIONS, ("left", "right")):
        # points of the front in objective space (equivalent subsets count once)
        front = distinct_points(fronts[formulation].pareto_front_)
        nf = front["n_features"].to_numpy()
        points[short] = len(front)
        row[f"|{short}|"] = len(front)
        row[f"{short} nf"] = f"{nf.min()}-{nf.max()}" if len(nf) > 1 else str(nf[0])
        row[f"{short} R2"] = _fmt(linear_r2(nf, front["objective_criterion"]))
    row["collapsed"] = "yes" if points["left"] == 1 else "no"
    row["thesis (Sec. 8.5.2)"] = spec.finding
    return row


def print_table(rows):
    cols = list(rows[0])
    widths = {c: max(len(c), *(len(str(r[c])) for r in rows)) for c in cols}
    print("  ".join(c.ljust(widths[c]) for c in cols))
    for r in rows:
        print("  ".join(str(r[c]).ljust(widths[c]) for c in cols))
    print(
        "\nValues: ours (Table 8.1). left = minimise omega/nf and nf (Sec. 8.3), right = "
        "maximise -omega and nf (Sec. 8.4); |.| = points in objective space (equivalent subsets "
        "count once); R2 = straightness of the criterion objective against nf. Thesis "
        "findings (Sec. 8.5.2): right fronts always have more points; the "
        "left fronts collapse for GRID, IRIS-NN and SPIRAL; on RANDOM the left front is convex "
        "(the 1/nf artefact) and the right one linear; on IRIS and IRIS-GN the right fronts are "
        "complete (every nf) and the left ones cover few subsets."
    )


def draw_fronts(results, path: Path, settings: str):
    n = len(results)
    cols = 2  # data sets per figure row, each a (left, right) pair
    rows = (n + cols - 1) // cols
    fig = new_figure(12.0, 2.6 * rows)
    for i, (spec, _, _, fronts) in enumerate(results):
        for j, formulation in enumerate(FORMULATIONS):
            ax = fig.add_subplot(rows, 2 * cols, 2 * i + j + 1)
            front = fronts[formulation].pareto_front_
            ax.plot(
                front["objective_criterion"],
                front["objective_size"],
                "o-",
                ms=3.5,
                lw=0.8,
                color="#0072B2" if j else "#D55E00",
            )
            crit = "d-max" if spec.criterion == "single_link" else "DB"
            if j == 0:
                ax.set_xlabel(f"-omega_{crit} / nf", fontsize=7)
                ax.set_ylabel("-nf", fontsize=7)
            else:
                ax.set_xlabel(f"-omega_{crit}", fontsize=7)
                ax.set_ylabel("nf", fontsize=7)
            title = "DB_norm (Sec. 8.3)" if j == 0 else "information preserving (8.4)"
            ax.set_title(f"{spec.label} (k={spec.k}): {title}", fontsize=7.5)
            ax.tick_params(labelsize=6)
            ax.yaxis.get_major_locator().set_params(integer=True)
    fig.suptitle(f"Mierswa (2009), Figs. 8.2-8.4 reproduced: {settings}", fontsize=9)
    fig.tight_layout()
    save_figure(fig, path, formats=("png",), dpi=130)


def draw_segmentation(spec: Spec, selector, path: Path):
    front = selector.pareto_front_
    fig = new_figure(5.5, 4.0)
    ax = fig.add_subplot(1, 1, 1)
    x, y = front["objective_criterion"], front["n_features"]
    ax.plot(x, y, "o-", ms=3.5, lw=0.8, color="#0072B2")
    for rank, p in enumerate(selector.interesting_points_):
        ax.axhline(y.iloc[p], color="#D55E00", lw=0.8, ls="--")
        ax.plot(x.iloc[p], y.iloc[p], "s", ms=7, mfc="none", mec="#D55E00")
        ax.annotate(
            f"{rank + 1}: |d_eta-1|={abs(front['delta_eta'].iloc[p] - 1):.2f}",
            (x.iloc[p], y.iloc[p]),
            xytext=(4, 2),
            textcoords="offset points",
            fontsize=6.5,
        )
    ax.set_xlabel("-omega_DB", fontsize=8)
    ax.set_ylabel("nf", fontsize=8)
    ax.set_title(
        f"{spec.label} (k={spec.k}): the 5 points of largest |Delta eta - 1| (Sec. 8.4.1)",
        fontsize=8,
    )
    ax.tick_params(labelsize=7)
    fig.tight_layout()
    save_figure(fig, path, formats=("png",), dpi=150)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--quick", action="store_true", help="7 sets (not GM), 20 generations (default)"
    )
    group.add_argument("--paper", action="store_true", help="all sets, 1000 generations")
    parser.add_argument("--sets", nargs="+", help="data set labels (e.g. IRIS WPBC)")
    parser.add_argument("--generations", type=int, help="override the profile's generations")
    parser.add_argument("--kmeans-n-init", type=int, help="override the k-means restarts")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument("--out", type=Path, default=REPO_ROOT / "docs" / "figures" / "mo_features")
    parser.add_argument(
        "--segment", default="WPBC", help="the data set of the segmentation figure (Fig. 8.6)"
    )
    parser.add_argument("--no-figures", action="store_true")
    args = parser.parse_args(argv)
    profile = dict(PROFILES["paper" if args.paper else "quick"])
    if args.kmeans_n_init:
        profile["kmeans_n_init"] = args.kmeans_n_init
    by_label = {s.label: s for s in SPECS}
    wanted = args.sets or profile["sets"]
    unknown = sorted(set(wanted) - set(by_label))
    if unknown:
        parser.error(f"unknown data set(s) {', '.join(unknown)}; valid: {', '.join(by_label)}")
    results, rows = [], []
    for label in wanted:
        spec = by_label[label]
        t0 = time.perf_counter()
        X, noise, fronts = run(spec, profile, args.seed, args.n_jobs, args.generations)
        results.append((spec, X, noise, fronts))
        rows.append(table_row(spec, X, noise, fronts))
        print(f"[{label}: {time.perf_counter() - t0:.1f} s]", flush=True)
    print()
    print_table(rows)
    for spec, _, _, fronts in results:
        right = fronts["information_preserving"]
        print(
            f"\n{spec.label}: information-preserving front (nf: omega), interesting points "
            f"(largest |Delta eta - 1| first): {right.interesting_points_.tolist()}"
        )
        print(
            "  "
            + ", ".join(
                f"{n}: {w:.3g}"
                for n, w in zip(right.pareto_front_["n_features"], right.pareto_front_["criterion"])
            )
        )
    if args.no_figures:
        return rows
    settings = (
        f"NSGA-II population 2m, {args.generations or profile['max_generations']} generations, "
        f"k-means {profile['kmeans_n_init']} starts, seed {args.seed}"
    )
    draw_fronts(results, args.out / "clustering_fronts", settings)
    print(f"\nwrote {args.out / 'clustering_fronts.png'}")
    segment = [r for r in results if r[0].label == args.segment]
    if segment:
        spec, _, _, fronts = segment[0]
        draw_segmentation(
            spec, fronts["information_preserving"], args.out / "clustering_segmentation"
        )
        print(f"wrote {args.out / 'clustering_segmentation.png'}")
    return rows


if __name__ == "__main__":
    main()
