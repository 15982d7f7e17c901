"""A heat map of an all-pairs procedure's p-values: :func:`pvalue_heatmap`.

The k x k p-values (Nemenyi, Holm, Shaffer, Bergmann–Hommel, ...) as coloured cells with
the value printed in each, in the style of scmamp's ``plotPvalues``: the colour runs over
log10(p) from dark (small p) to light (p = 1), and the cells with p <= alpha are framed
and printed in bold.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from svmlab.stats.figures._canvas import new_figure, text_width_in
from svmlab.stats.figures._inputs import FigureInputError, check_alpha
from svmlab.stats.figures.groups import _pvalue

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.figure import Figure

FLOOR = 1e-12  # smallest p on the colour scale


def pvalue_heatmap(
    pvalues,
    methods: Sequence[str],
    *,
    alpha: float = 0.05,
    title: str | None = None,
) -> Figure:
    """Draw the p-values of every pair of methods as a heat map.

    Parameters
    ----------
    pvalues : DataFrame or mapping of mappings
        Symmetric k x k p-values, ``pvalues[a][b]`` (the diagonal is not drawn).
    methods : sequence of str
        The methods in the order of the rows and columns (e.g. best rank first).
    alpha : float, default=0.05
        Cells with p <= alpha are framed and their value is bold.
    title : str, optional
        Title above the map.

    Returns
    -------
    fig : matplotlib.figure.Figure

    Raises
    ------
    FigureInputError
        (a ``ValueError``) for fewer than two methods, a missing pair, a p outside
        [0, 1] or an alpha outside (0, 1).

    Notes
    -----
    Each cell carries a ``gid`` ``"pvalue:<row>|<column>:<sig|ns>"``.
    """
    from matplotlib.colors import Normalize

    names = [str(m) for m in methods]
    if len(names) < 2:
        raise FigureInputError("a p-value heat map needs at least two methods")
    alpha = check_alpha(alpha)
    k = len(names)
    side = max(3.0, 0.75 * k + max(text_width_in(n, 9.0) for n in names))
    fig = new_figure(side + 1.2, side + (0.4 if title else 0.0))
    ax = fig.add_subplot(1, 1, 1)
    cmap = _colormap()
    norm = Normalize(vmin=math.log10(FLOOR), vmax=0.0)
    _draw_cells(ax, pvalues, names, alpha, cmap, norm)
    _style_axes(ax, names)
    _draw_colorbar(fig, ax, cmap, norm, alpha)
    if title:
        ax.set_title(title, fontsize=11, weight="bold")
    return fig  # saved with bbox_inches="tight", which keeps the tick labels


def _draw_cells(ax, pvalues, names: list[str], alpha: float, cmap, norm) -> None:
    """One cell per pair, coloured by log10(p) and printed; framed and bold when p <= alpha;
    the diagonal grey."""
    from matplotlib.patches import Rectangle

    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if i == j:
                ax.add_patch(Rectangle((j, i), 1, 1, facecolor="#EEEEEE", edgecolor="white"))
                continue
            p = _pvalue(pvalues, a, b)
            sig = p <= alpha
            shade = norm(math.log10(max(p, FLOOR)))
            ax.add_patch(
                Rectangle(
                    (j, i),
                    1,
                    1,
                    facecolor=cmap(shade),
                    edgecolor="black" if sig else "white",
                    lw=1.5 if sig else 0.8,
                    gid=f"pvalue:{a}|{b}:{'sig' if sig else 'ns'}",
                )
            )
            ax.text(
                j + 0.5,
                i + 0.5,
                f"{p:.3f}" if p >= 1e-3 else f"{p:.0e}",
                ha="center",
                va="center",
                fontsize=8,
                weight="bold" if sig else "normal",
                color="white" if shade < 0.45 else "black",
            )


def _style_axes(ax, names: list[str]) -> None:
    """Square cells, the method names on both axes, no spines."""
    k = len(names)
    ax.set_xlim(0, k)
    ax.set_ylim(k, 0)
    ax.set_xticks([i + 0.5 for i in range(k)], names, rotation=40, ha="right")
    ax.set_yticks([i + 0.5 for i in range(k)], names)
    ax.set_aspect("equal")
    ax.tick_params(length=0, labelsize=9)
    for spine in ax.spines.values():
        spine.set_visible(False)


def _draw_colorbar(fig, ax, cmap, norm, alpha: float) -> None:
    """The log10 p scale beside the map, with a line at alpha."""
    from matplotlib.cm import ScalarMappable

    bar = fig.colorbar(ScalarMappable(norm=norm, cmap=cmap), ax=ax, fraction=0.046, pad=0.04)
    bar.set_label("log10 p")
    bar.ax.axhline(math.log10(alpha), color="black", lw=1.2)


def _colormap():
    """Dark blue (small p) to white (p = 1)."""
    from matplotlib.colors import LinearSegmentedColormap

    return LinearSegmentedColormap.from_list("pvalues", ["#08306B", "#4292C6", "#F7FBFF"])
