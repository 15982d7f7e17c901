"""Figures of the evolutionary-SVM thesis (Mierswa 2009).

Usage::

    python scripts/evosvm_figures.py fronts RUN_DIR [--out DIR]
    python scripts/evosvm_figures.py tsvm [--out DIR]

``fronts`` (Figs. 3.2 / 3.3) reads a run of ``+experiment=moevosvm_fronts`` (or any run of the
``moevosvm`` solver) and draws, per dataset, MO-EvoSVM's rank-1 Pareto front (objective I, the
margin term, against objective II, the training-error term) and the training and hold-out
error of every front member ordered by training error, marking the member the hold-out rule
chose. ``tsvm`` (Figs. 5.2-5.7; the toy sets' generators are svmlab's, the thesis gives none)
fits the inductive SVM on the labeled
points and Evo-T-SVM on labeled + unlabeled points of the 4-Clusters, 3-Clusters and 2-Moons
sets, and draws both predictions.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def fronts(run_dir: Path, out: Path) -> Path:
    from matplotlib.figure import Figure

    from svmlab.results import load_results

    df = load_results(run_dir)
    df = df[(df["status"] == "ok") & df["fit_info"].str.contains('"front"')]
    if df.empty:
        raise SystemExit(f"{run_dir}: no MO-EvoSVM rows with a Pareto front in fit_info")
    names = sorted(df["dataset"].unique())
    fig = Figure(figsize=(9, 3.0 * len(names)), layout="constrained")
    axes = fig.subplots(len(names), 2, squeeze=False)
    for (ax_front, ax_err), name in zip(axes, names):
        info = json.loads(df[df["dataset"] == name]["fit_info"].iloc[0])
        front = sorted(info["front"], key=lambda m: -m["train_err"])
        obj1 = np.array([m["obj_I"] for m in front])
        obj2 = np.array([m["obj_II"] for m in front])
        train = 100 * np.array([m["train_err"] for m in front])
        hold = 100 * np.array([m["holdout_err"] for m in front])
        chosen = [i for i, m in enumerate(front) if m["selected"]]
        sc = ax_front.scatter(obj2, obj1, c=train, cmap="viridis", s=14)
        fig.colorbar(sc, ax=ax_front, label="training error (%)")
        if chosen:
            ax_front.scatter(
                obj2[chosen],
                obj1[chosen],
                s=90,
                facecolors="none",
                edgecolors="red",
                label="chosen",
            )
            ax_front.legend(loc="lower left", fontsize=8)
        ax_front.set_xlabel("objective II (training-error term)")
        ax_front.set_ylabel("objective I (margin term)")
        ax_front.set_title(f"{name}: rank-1 front, {len(front)} members", fontsize=10)
        idx = np.arange(len(front))
        ax_err.plot(idx, train, "o-", ms=3, label="training error")
        ax_err.plot(idx, hold, "s-", ms=3, label="hold-out error")
        if chosen:
            ax_err.axvline(
                chosen[0],
                color="red",
                lw=1,
                ls="--",
                label=f"chosen: {hold[chosen[0]]:.1f} % hold-out",
            )
        ax_err.set_xlabel("front member (by training error, largest first)")
        ax_err.set_ylabel("error (%)")
        ax_err.legend(fontsize=8)
    fig.suptitle(
        "Figs. 3.2 / 3.3 (reproduced): MO-EvoSVM Pareto fronts and the hold-out rule", fontsize=11
    )
    out.mkdir(parents=True, exist_ok=True)
    path = out / "moevosvm_fronts.png"
    fig.savefig(path, dpi=110)
    return path


def _tsvm_sets():
    """The registered transductive sets (as ``tsvm_bench`` runs them): features, labels with
    -1 on the unlabeled rows, and the kernel the experiment uses."""
    from svmlab.data import load_dataset

    out = {}
    for title, name, kernel in (
        ("4-Clusters", "four_clusters", "linear"),
        ("3-Clusters", "three_clusters", "linear"),
        ("2-Moons", "moons_transductive", "rbf"),
    ):
        ds = load_dataset(name)
        y = np.full(len(ds.y), -1)
        labeled = ds.meta["predefined_split"]["train"]
        y[labeled] = ds.y[labeled]
        out[title] = (ds.X, y, kernel)
    return out


def tsvm(out: Path) -> Path:
    from matplotlib.figure import Figure

    from svmlab.estimators.evo import EvoTSVMClassifier, KernelSVC

    sets = _tsvm_sets()
    fig = Figure(figsize=(9, 3.2 * len(sets)), layout="constrained")
    axes = fig.subplots(len(sets), 2, squeeze=False)
    for (ax_ind, ax_tr), (name, (X, y, kernel)) in zip(axes, sets.items()):
        params = {"gamma": 1.0} if kernel == "rbf" else {}
        labeled = y >= 0
        inductive = KernelSVC(kernel=kernel, scale=True, **params).fit(X[labeled], y[labeled])
        trans = EvoTSVMClassifier(kernel=kernel, random_state=0, **params).fit(X, y)
        for ax, model, title in (
            (ax_ind, inductive, "inductive SVM (labeled points only, z-scored)"),
            (ax_tr, trans, "Evo-T-SVM (labeled + unlabeled)"),
        ):
            pred = model.predict(X)
            ax.scatter(
                X[~labeled, 0],
                X[~labeled, 1],
                c=pred[~labeled],
                cmap="coolwarm",
                s=12,
                alpha=0.6,
                vmin=0,
                vmax=1,
            )
            ax.scatter(
                X[labeled, 0],
                X[labeled, 1],
                c=y[labeled],
                cmap="coolwarm",
                s=90,
                marker="*",
                edgecolors="black",
                vmin=0,
                vmax=1,
            )
            ax.set_title(f"{name}: {title}", fontsize=9)
    fig.suptitle(
        "Ch. 5 (reproduced): stars are labeled, dots coloured by the predicted class", fontsize=11
    )
    out.mkdir(parents=True, exist_ok=True)
    path = out / "tsvm.png"
    fig.savefig(path, dpi=110)
    return path


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = ap.add_subparsers(dest="cmd", required=True)
    f = sub.add_parser("fronts", help="Figs. 3.2/3.3 from a moevosvm run")
    f.add_argument("run_dir", type=Path)
    f.add_argument("--out", type=Path, default=Path("figures"))
    t = sub.add_parser("tsvm", help="Ch. 5: inductive vs transductive SVM on the synthetic sets")
    t.add_argument("--out", type=Path, default=Path("figures"))
    args = ap.parse_args()
    path = fronts(args.run_dir, args.out) if args.cmd == "fronts" else tsvm(args.out)
    print(path)


if __name__ == "__main__":
    main()
