"""Accuracy over time of a stream run (e.g. ``svmlab run +experiment=ollawv_streams``).

Usage::

    python scripts/ollawv_streams.py RUN_DIR [--out FILE.png] [--smooth K]

One panel per stream, one line per solver: the accuracy of each tested chunk (the
``chunk_accuracy`` column of the prequential protocol) against the number of samples seen
at the chunk's end; each panel's title gives every solver's accuracy over the whole stream. With
``--smooth K`` the lines show a centred moving average over K chunks. Known drift points
of synthetic streams (``meta["drift_points"]``) are drawn as dotted vertical lines.
Writes ``RUN_DIR/figures/stream_accuracy.png`` unless ``--out`` says otherwise and prints
the path.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

import numpy as np
import yaml

COLORS = ("#009E73", "#0072B2", "#D55E00", "#CC79A7", "#E69F00", "#56B4E9", "#000000")


def _drift_points(name: str, params: dict) -> list[int]:
    """Drift points of a synthetic stream (cheap to regenerate); none for file streams."""
    from svmlab.data.registry import dataset_info, load_dataset

    if dataset_info(name)["source"] != "synthetic":
        return []
    return list(load_dataset(name, params).meta.get("drift_points", []))


def plot(run_dir: Path, out: Path, smooth: int = 1) -> Path:
    from matplotlib.figure import Figure

    from svmlab.results import load_results

    df = load_results(run_dir)
    df = df[(df["status"] == "ok") & df["chunk_accuracy"].notna()]
    if df.empty:
        raise SystemExit(f"{run_dir}: no stream results (chunk_accuracy) to plot")
    cfg = (
        yaml.safe_load((run_dir / "config.yaml").read_text())
        if (run_dir / "config.yaml").exists()
        else {}
    )
    chunk = int(cfg.get("protocol", {}).get("chunk_size", 1))
    ds_cfg = {
        v.get("name", k): v.get("params") or {} for k, v in (cfg.get("datasets") or {}).items()
    }
    streams = sorted(df["dataset"].unique())
    methods = sorted(df["method"].unique())
    color = dict(zip(methods, COLORS * 2))

    ncols = min(3, len(streams))
    nrows = math.ceil(len(streams) / ncols)
    fig = Figure(figsize=(5.2 * ncols, 3.6 * nrows), layout="constrained")
    axes = np.atleast_1d(fig.subplots(nrows, ncols, squeeze=False)).ravel()
    for ax, stream in zip(axes, streams):
        rows = df[df["dataset"] == stream]
        overall = []
        for method in methods:
            row = rows[rows["method"] == method]
            if row.empty:
                continue
            acc = np.asarray(json.loads(row["chunk_accuracy"].iloc[0]), dtype=float)
            if smooth > 1 and acc.size >= smooth:
                acc = np.convolve(acc, np.ones(smooth) / smooth, mode="same") / np.convolve(
                    np.ones_like(acc), np.ones(smooth) / smooth, mode="same"
                )
            x = (
                np.arange(acc.size) + 2
            ) * chunk  # tested chunk i is stream chunk i+1: samples seen at its end
            x = np.minimum(x, int(row["n_train"].iloc[0]))
            ax.plot(
                x,
                acc,
                "-",
                marker="o" if acc.size <= 20 else None,
                ms=3,
                lw=1.4,
                color=color[method],
                label=method,
            )
            overall.append(f"{method} {row['accuracy'].iloc[0]:.3f}")
        seen = int(rows["n_train"].max())
        for d in _drift_points(stream, ds_cfg.get(stream, {})):
            if d < seen:  # a run limited by max_samples stops before later drifts
                ax.axvline(d, color="grey", ls=":", lw=1)
        ax.set_title(f"{stream}\noverall: {', '.join(overall)}", fontsize=10)
        ax.set_xlabel("samples seen")
        ax.set_ylabel("chunk accuracy")
        ax.grid(alpha=0.3)
    for ax in axes[len(streams) :]:
        ax.set_visible(False)
    handles = [axes[0].plot([], [], color=color[m], lw=2)[0] for m in methods]
    fig.legend(
        handles, methods, loc="outside lower center", ncols=len(methods), fontsize=10, frameon=False
    )
    note = f", moving average over {smooth} chunks" if smooth > 1 else ""
    fig.suptitle(
        f"Prequential accuracy per chunk of {chunk} (test-then-train{note}); dotted: drift points"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=130)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("run_dir", type=Path)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument(
        "--smooth", type=int, default=1, help="moving average over this many chunks (1: none)"
    )
    args = ap.parse_args()
    out = args.out or args.run_dir / "figures" / "stream_accuracy.png"
    print(plot(args.run_dir, out, args.smooth))


if __name__ == "__main__":
    main()
