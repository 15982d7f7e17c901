"""Boxplots of per-fold values, one panel per measure: :func:`measure_boxplots`.

The style of the MKLPO paper's Figs. 1-2 (Wang et al., Sec. IV): for each measure a panel with
one box per method over the cross-validation folds (median line, quartile box, whiskers to the
furthest fold within 1.5 IQR, outlying folds as dots), the first method -- the proposed one --
in the control colour and the others in a light one, each fold drawn as a jittered point so
that ten folds are seen as ten values.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from svmlab.stats.figures._canvas import CONTROL_COLOR, NOT_SIGNIFICANT_COLOR, new_figure
from svmlab.stats.figures._inputs import FigureInputError

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas as pd
    from matplotlib.figure import Figure


def measure_boxplots(
    values: pd.DataFrame,
    *,
    panels: Sequence[str],
    methods: Sequence[str],
    title: str = "",
    panel_column: str = "measure",
    method_column: str = "method",
    value_column: str = "value",
    ncols: int | None = None,
) -> Figure:
    """One boxplot panel per measure, one box per method.

    Parameters
    ----------
    values : DataFrame
        Long format: one row per fold with the panel, method and value columns.
    panels : sequence of str
        The panels (measures) in drawing order; each gets the letter (a), (b), ...
    methods : sequence of str
        The methods in box order; the first is highlighted as the proposed method.
    title : str
        Figure title.
    panel_column, method_column, value_column : str
        Column names in ``values``.
    ncols : int, optional
        Panels per row (default: all in one row up to 5).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    FigureInputError
        When there are no panels or methods, or a column is missing.
    """
    for col in (panel_column, method_column, value_column):
        if col not in values:
            raise FigureInputError(f"measure_boxplots: values has no column {col!r}")
    panels, methods = list(panels), list(methods)
    if not panels or not methods:
        raise FigureInputError("measure_boxplots: need at least one panel and one method")
    ncols = ncols or min(len(panels), 5)
    nrows = int(np.ceil(len(panels) / ncols))
    width = max(2.2, 0.45 * len(methods) + 0.8)
    fig = new_figure(width * ncols, 2.9 * nrows + (0.4 if title else 0))
    rng = np.random.default_rng(0)  # jitter only; fixed so figures are reproducible
    for i, panel in enumerate(panels):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        sub = values[values[panel_column] == panel]
        data = [sub.loc[sub[method_column] == m, value_column].dropna().to_numpy() for m in methods]
        positions = np.arange(1, len(methods) + 1)
        present = [k for k, d in enumerate(data) if len(d)]
        boxes = ax.boxplot(
            [data[k] for k in present],
            positions=positions[present],
            widths=0.6,
            patch_artist=True,
            medianprops={"color": "black", "linewidth": 1.4},
            flierprops={"marker": "o", "markersize": 3, "markerfacecolor": "none"},
        )
        for k, patch in zip(present, boxes["boxes"]):
            patch.set_facecolor(CONTROL_COLOR if k == 0 else NOT_SIGNIFICANT_COLOR)
            patch.set_alpha(0.85 if k == 0 else 0.7)
        for k in present:
            x = positions[k] + rng.uniform(-0.12, 0.12, size=len(data[k]))
            ax.plot(x, data[k], ".", color="0.25", markersize=2.5, zorder=3)
        ax.set_xticks(positions)
        ax.set_xticklabels(methods, rotation=45, ha="right", fontsize=8)
        ax.set_title(f"({chr(ord('a') + i)}) {panel}", fontsize=10)
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(axis="y", color="0.9", linewidth=0.6)
        ax.set_axisbelow(True)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig
