"""Pareto fronts of error against the number of features, one panel per data set:
:func:`pareto_fronts`.

The style of Mierswa (2009), Figs. 6.1, 6.8 and 7.13, with two choices: the thesis's axes
(every criterion maximised, so the x axis is minus the error and the y axis minus the number of
features, "good" at the upper right) or plain axes (number of features on x, error on y). Each
series (e.g. the inner cross-validation estimate and the outer test error of the same members)
is drawn as one thin step line per group (e.g. per outer fold) and a thick line through the
mean error at each size.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from svmlab.stats.figures._canvas import CONTROL_COLOR, WORSE_COLOR, new_figure
from svmlab.stats.figures._inputs import FigureInputError

if TYPE_CHECKING:  # pragma: no cover - typing only
    import pandas as pd
    from matplotlib.figure import Figure

SERIES_COLORS = (CONTROL_COLOR, WORSE_COLOR, "#2ca02c", "#9467bd", "#8c564b")


def pareto_fronts(
    points: pd.DataFrame,
    *,
    panel_column: str = "dataset",
    series_column: str = "series",
    group_column: str = "fold",
    size_column: str = "n_features",
    value_column: str = "error",
    value_label: str = "error",
    thesis_axes: bool = False,
    title: str = "",
    ncols: int | None = None,
) -> Figure:
    """Draw Pareto fronts (error vs number of features), one panel per data set.

    Parameters
    ----------
    points : DataFrame
        Long format: one row per front member and series, with the panel, series, group, size
        and value columns.
    panel_column, series_column, group_column, size_column, value_column : str
        Column names in ``points``.
    value_label : str
        Axis label of the value (e.g. "error rate", "RMSE").
    thesis_axes : bool, default=False
        Plot ``-value`` on x and ``-size`` on y, as the thesis does.
    title : str
        Figure title.
    ncols : int, optional
        Panels per row (default: up to 3).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    FigureInputError
        When a column is missing or there is nothing to draw.
    """
    cols = (panel_column, series_column, group_column, size_column, value_column)
    for col in cols:
        if col not in points:
            raise FigureInputError(f"pareto_fronts: points has no column {col!r}")
    points = points.dropna(subset=[size_column, value_column])
    panels = list(dict.fromkeys(points[panel_column]))
    if not panels:
        raise FigureInputError("pareto_fronts: no front members to draw")
    series = list(dict.fromkeys(points[series_column]))
    ncols = ncols or min(len(panels), 3)
    nrows = int(np.ceil(len(panels) / ncols))
    fig = new_figure(4.0 * ncols, 3.2 * nrows + (0.4 if title else 0))
    for i, panel in enumerate(panels):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        _draw_series(ax, points[points[panel_column] == panel], series, cols[1:], thesis_axes)
        _style_panel(ax, f"({chr(ord('a') + i)}) {panel}", value_label, thesis_axes)
        if i == 0 and len(series) > 1:
            ax.legend(fontsize=7, frameon=False)
    if title:
        fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    return fig


def _draw_series(ax, sub, series, columns, thesis_axes: bool) -> None:
    """One panel's lines: per series a thin step line per group and a thick one through the
    mean value at each size (``columns``: series, group, size and value column)."""
    series_column, group_column, size_column, value_column = columns
    sign = -1.0 if thesis_axes else 1.0
    for s, name in enumerate(series):
        color = SERIES_COLORS[s % len(SERIES_COLORS)]
        part = sub[sub[series_column] == name]
        for _, group in part.groupby(group_column, sort=True):
            g = group.sort_values(size_column)
            xy = (g[size_column].to_numpy(float), g[value_column].to_numpy(float))
            _line(ax, xy, sign, thesis_axes, color=color, alpha=0.25, lw=0.8)
        mean = part.groupby(size_column)[value_column].mean().sort_index()
        xy = (mean.index.to_numpy(float), mean.to_numpy(float))
        _line(ax, xy, sign, thesis_axes, color=color, lw=2.0, marker="o", ms=3, label=name)


def _style_panel(ax, title: str, value_label: str, thesis_axes: bool) -> None:
    """Axis labels (the thesis's or plain ones), the panel's title, a light grid."""
    if thesis_axes:
        ax.set_xlabel(f"- {value_label}", fontsize=9)
        ax.set_ylabel("- number of features", fontsize=9)
    else:
        ax.set_xlabel("number of features", fontsize=9)
        ax.set_ylabel(value_label, fontsize=9)
    ax.set_title(title, fontsize=10)
    ax.tick_params(labelsize=8)
    ax.grid(color="0.9", linewidth=0.6)
    ax.set_axisbelow(True)


def _line(ax, xy, sign, thesis_axes, **style):
    size, value = xy
    if thesis_axes:
        ax.plot(sign * value, sign * size, **style)
    else:
        ax.plot(size, value, **style)
