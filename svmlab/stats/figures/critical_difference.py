"""The Demšar-style critical-difference diagram: :func:`cd_diagram`.

The positions come from :func:`~svmlab.stats.figures._cd_layout.cd_layout`; this module
checks the inputs and draws, in order: the rank axis, the CD scale bar, the caption and
title, the elbow lines with the names, and the clique bars on top.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from svmlab.stats.figures._canvas import new_figure
from svmlab.stats.figures._cd_layout import CLIQUE_H, NAME_GAP, CdLayout, cd_layout
from svmlab.stats.figures._inputs import FigureInputError, check_cd, check_format, check_ranks
from svmlab.stats.figures.groups import compute_cliques

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

INK = "#222222"


def cd_diagram(
    avg_ranks: Mapping[str, float],
    cd: float | None,
    *,
    cliques: Iterable[Iterable[str]] | None = None,
    title: str | None = None,
    lower_is_better_label: str | None = "rank",
    ax: Axes | None = None,
    value_format: str = "{:.2f}",
    fontsize: float = 10.0,
) -> Figure:
    """Draw a Demšar-style critical-difference diagram.

    The rank axis runs from 1 (best, on the left) to k. Each method hangs from its
    average rank by an elbow line: the better half of the methods is labelled on the
    left, the worse half on the right, each with its name and its average rank. Thick
    horizontal bars under the axis join the methods that are not significantly
    different, and a scale bar of length ``cd`` is drawn above the axis.

    Parameters
    ----------
    avg_ranks : mapping of str to float
        Average rank of each method (lower is better), e.g. Friedman average ranks.
    cd : float or None
        Critical difference (Nemenyi or Bonferroni–Dunn), ``>= 0``. None for a
        procedure without one (Holm, Shaffer, Bergmann–Hommel on all pairs): no scale bar
        is drawn, and ``cliques`` must be given (e.g. from
        :func:`~svmlab.stats.figures.groups.cliques_from_pvalues`).
    cliques : list of list of str, optional
        Groups of methods that are not significantly different, one bar each. Groups
        with fewer than two methods are ignored. If None, they are computed with
        :func:`compute_cliques` (maximal groups whose rank span is at most ``cd``).
        Pass them explicitly to draw the outcome of another test, e.g. pairwise
        Wilcoxon signed-rank tests with Holm's correction.
    title : str, optional
        Title drawn above the diagram.
    lower_is_better_label : str or None, default="rank"
        What is being ranked; the axis caption reads
        ``"average <label> (lower is better)"``. None draws no caption.
    ax : matplotlib Axes, optional
        Axes to draw into. It is switched off and used as a canvas measured in inches,
        so it should be about as large as the figure this function would create. If
        None, a new figure sized to fit the labels is created.
    value_format : str, default="{:.2f}"
        Format of the average ranks printed next to the names.
    fontsize : float, default=10
        Font size of the method names in points; the other texts are scaled from it.

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure holding the diagram (``ax.figure`` when ``ax`` is given).

    Raises
    ------
    FigureInputError
        (a ``ValueError``) if ``avg_ranks`` is empty or holds a NaN or infinite rank,
        if ``cd`` is negative or not finite, or if a clique names an unknown method.

    Notes
    -----
    The axis spans ``1 .. k`` and is widened to whole numbers if some rank falls
    outside (ranks computed over more methods than are shown). Methods with equal
    ranks are ordered as in ``avg_ranks``.
    """
    ranks = check_ranks(avg_ranks)
    if cd is None and cliques is None:
        raise FigureInputError("cd is None: give the cliques of the procedure instead")
    no_scale = cd is None
    cd = 0.0 if no_scale else check_cd(cd)
    value_format = check_format(value_format)
    groups = compute_cliques(ranks, cd) if cliques is None else _checked_cliques(cliques, ranks)
    lay = cd_layout(ranks, cd, groups, title, lower_is_better_label, value_format, fontsize, ax)
    if no_scale:
        lay.cd_text = ""
    fig, ax = _canvas_axes(ax, lay)
    _draw(ax, lay)
    return fig


def _draw(ax: Axes, lay: CdLayout) -> None:
    """The whole diagram, in the order of the module docstring."""
    _draw_axis(ax, lay)
    _draw_cd_scale(ax, lay)
    _draw_caption_and_title(ax, lay)
    _draw_elbows(ax, lay, lay.left, on_left=True)
    _draw_elbows(ax, lay, lay.right, on_left=False)
    _draw_cliques(ax, lay)  # last, so that the bars sit on top of the elbow lines they join


def _checked_cliques(
    cliques: Iterable[Iterable[str]], ranks: Mapping[str, float]
) -> list[list[str]]:
    """The given cliques as lists of names, without those of fewer than two methods."""
    groups: list[list[str]] = []
    for group in cliques:
        if isinstance(group, str):
            raise FigureInputError(
                f"cliques must be a list of lists of method names, got the string {group!r}"
            )
        names = [str(g) for g in group]
        unknown = [g for g in names if g not in ranks]
        if unknown:
            raise FigureInputError(
                f"clique {names} names unknown method(s) {', '.join(map(repr, unknown))}. "
                f"Valid methods: {', '.join(ranks)}"
            )
        if len(set(names)) >= 2:
            groups.append(names)
    return groups


def _canvas_axes(ax: Axes | None, lay: CdLayout) -> tuple[Figure, Axes]:
    """The axes switched off and measured in inches (a new full-figure one if None)."""
    if ax is None:
        fig = new_figure(lay.width_total, lay.height_total)
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    else:
        fig = ax.figure
    ax.set_axis_off()
    ax.set_xlim(0.0, lay.width_total)
    ax.set_ylim(lay.height_total, 0.0)
    return fig, ax


def _draw_axis(ax: Axes, lay: CdLayout) -> None:
    """The rank axis with integer ticks (labelled) and half ticks."""
    x_of, axis_y = lay.x_of, lay.axis_y
    ax.plot(
        [lay.axis_left, lay.axis_right], [axis_y, axis_y], color=INK, lw=1.2, solid_capstyle="butt"
    )
    step = _tick_step(lay.hi - lay.lo)
    for t in range(lay.lo, lay.hi + 1, step):
        ax.plot([x_of(t)] * 2, [axis_y - 0.1, axis_y], color=INK, lw=1.0)
        ax.text(
            x_of(t),
            lay.tick_label_y,
            str(t),
            ha="center",
            va="center",
            fontsize=lay.fs_small,
            color=INK,
        )
        if t + step / 2 < lay.hi:
            ax.plot([x_of(t + step / 2)] * 2, [axis_y - 0.05, axis_y], color=INK, lw=0.8)


def _tick_step(span: int) -> int:
    """1 for the usual 1..k rank axis; 2, 5, 10, 20, 50, ... for long ones (aligned ranks
    run to kN), so that at most about 15 ticks are labelled."""
    step = 1
    while span / step > 15:
        step = step * 5 // 2 if str(step).startswith("2") else step * 2
    return step


def _draw_cd_scale(ax: Axes, lay: CdLayout) -> None:
    """The CD scale bar above the axis, starting at the best end.

    A CD longer than the axis is cut at its end and drawn as an arrow; a CD of zero is
    only written.
    """
    axis_left, y, fs = lay.axis_left, lay.cd_bar_y, lay.fs_small
    if lay.cd <= 0:
        ax.text(
            axis_left, lay.cd_text_y, lay.cd_text, ha="left", va="center", fontsize=fs, color=INK
        )
        return
    clipped = lay.lo + lay.cd > lay.hi
    x_end = lay.axis_right if clipped else lay.x_of(lay.lo + lay.cd)
    ax.plot([axis_left, x_end], [y, y], color=INK, lw=1.6, solid_capstyle="butt")
    ax.plot([axis_left] * 2, [y - 0.05, y + 0.05], color=INK, lw=1.2)
    if clipped:
        ax.plot([x_end], [y], marker=">", ms=6, color=INK)
    else:
        ax.plot([x_end] * 2, [y - 0.05, y + 0.05], color=INK, lw=1.2)
    ax.text(
        (axis_left + x_end) / 2,
        lay.cd_text_y,
        lay.cd_text,
        ha="center",
        va="center",
        fontsize=fs,
        color=INK,
    )


def _draw_caption_and_title(ax: Axes, lay: CdLayout) -> None:
    """The axis caption (right-aligned with the axis) and the title (centred)."""
    if lay.caption is not None:
        ax.text(
            lay.axis_right,
            lay.caption_y,
            lay.caption,
            ha="right",
            va="center",
            fontsize=lay.fs_small,
            color="#555555",
            style="italic",
        )
    if lay.title_y is not None:
        ax.text(
            lay.width_total / 2,
            lay.title_y,
            lay.title,
            ha="center",
            va="center",
            fontsize=1.15 * lay.fs_name,
            weight="bold",
            color=INK,
        )


def _draw_elbows(ax: Axes, lay: CdLayout, methods, *, on_left: bool) -> None:
    """One side's elbow lines, from the axis out to the names and printed ranks."""
    if on_left:
        end = lay.axis_left - lay.side_gap
        name_x, name_ha = end - NAME_GAP, "right"
        label_x, label_ha = end + 0.05, "left"
    else:
        end = lay.axis_right + lay.side_gap
        name_x, name_ha = end + NAME_GAP, "left"
        label_x, label_ha = end - 0.05, "right"
    for i, (name, _) in enumerate(methods):
        yy = lay.first_line_y + i * lay.line_h
        x = lay.pos[name]
        ax.plot(
            [x, x, end],
            [lay.axis_y, yy, yy],
            color=INK,
            lw=0.9,
            solid_joinstyle="miter",
            gid=f"cd-line:{name}",
        )
        ax.plot([x], [lay.axis_y], "o", ms=3.2, color=INK)
        ax.text(name_x, yy, name, ha=name_ha, va="center", fontsize=lay.fs_name, color=INK)
        ax.text(
            label_x,
            yy - 0.03,
            lay.labels[name],
            ha=label_ha,
            va="bottom",
            fontsize=lay.fs_small,
            color="#444444",
        )


def _draw_cliques(ax: Axes, lay: CdLayout) -> None:
    """One thick bar per clique, in the rows chosen by the layout."""
    for group, (x0, x1), row in zip(lay.groups, lay.intervals, lay.clique_rows):
        yy = lay.first_clique_y + row * CLIQUE_H
        ax.plot(
            [x0, x1],
            [yy, yy],
            color="black",
            lw=4.0,
            solid_capstyle="round",
            gid="cd-clique:" + "|".join(group),
        )
