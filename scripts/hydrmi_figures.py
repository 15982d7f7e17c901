"""Figures of the HyDR-MI study (Zafra, Pechenizkiy & Ventura, Sec. 5) from a run's rows.

Usage::

    python scripts/hydrmi_figures.py convergence RUN_DIR [--dataset elephant] [--out DIR]
    python scripts/hydrmi_figures.py subsets RUN_DIR [--dataset elephant] [--out DIR]

``convergence`` (Fig. 6): the genetic search's best fitness (sensitivity x specificity by inner
CV) per generation, mean over the folds and runs of each HyDR-MI solver of the run on one data
set; the paper says it rises monotonically and most classifiers settle within 50 generations.
``subsets`` (Fig. 7): the size of the subset HyDR-MI chose in every fold and run, per classifier,
beside the filter's 50 % (the paper: 30-65 features on elephant).
RUN_DIR is a run of ``hydrmi_bench`` or ``hydrmi_quick`` (rows of the ``hydrmi_*`` solvers).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np


def _rows(run_dir, dataset):
    from svmlab.results import load_results

    df = load_results(run_dir)
    df = df[(df["status"] == "ok") & df["solver"].str.startswith("hydrmi_")]
    if dataset is not None:
        df = df[df["dataset"] == dataset]
    if df.empty:
        raise SystemExit(f"no HyDR-MI rows for dataset {dataset!r} in {run_dir}")
    df = df.assign(info=df["fit_info"].map(json.loads))
    return df


def convergence(run_dir, dataset, out: Path) -> Path:
    from matplotlib.figure import Figure

    df = _rows(run_dir, dataset)
    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.subplots()
    for solver, g in df.groupby("solver"):
        curves = [i["ga_best_by_generation"] for i in g["info"] if "ga_best_by_generation" in i]
        n = min(len(c) for c in curves)
        mean = np.mean([c[:n] for c in curves], axis=0)
        ax.plot(np.arange(n), mean, marker="o", ms=3, label=solver.removeprefix("hydrmi_"))
    ax.set_xlabel("generation (0 = random initial population)")
    ax.set_ylabel("best fitness: sensitivity x specificity (inner CV)")
    ax.set_title(f"HyDR-MI's genetic search on {dataset}: best individual per generation")
    ax.legend(fontsize=8)
    path = out / f"hydrmi_fig6_convergence_{dataset}.png"
    fig.savefig(path, dpi=120)
    return path


def subsets(run_dir, dataset, out: Path) -> Path:
    from matplotlib.figure import Figure

    df = _rows(run_dir, dataset)
    groups = sorted(df.groupby("solver"), key=lambda kv: kv[0])
    fig = Figure(figsize=(8, 5), layout="constrained")
    ax = fig.subplots()
    sizes = [[i["n_features"] for i in g["info"]] for _, g in groups]
    ax.boxplot(
        sizes, tick_labels=[s.removeprefix("hydrmi_") for s, _ in groups], orientation="horizontal"
    )
    filt = [i.get("n_filter_features") for i in df["info"] if i.get("n_filter_features")]
    if filt:
        ax.axvline(np.mean(filt), ls="--", c="grey", label="ReliefF-MI filter (50 %)")
        ax.legend(fontsize=8)
    ax.set_xlabel("features selected by HyDR-MI (every fold and run)")
    ax.set_title(f"HyDR-MI subset sizes on {dataset}")
    path = out / f"hydrmi_fig7_subsets_{dataset}.png"
    fig.savefig(path, dpi=120)
    return path


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("figure", choices=["convergence", "subsets"])
    p.add_argument("run_dir")
    p.add_argument("--dataset", default="elephant")
    p.add_argument("--out", type=Path, default=Path("."))
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    make = convergence if args.figure == "convergence" else subsets
    print(make(args.run_dir, args.dataset, args.out))


if __name__ == "__main__":
    main()
