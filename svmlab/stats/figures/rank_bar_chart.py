"""The papers' bar chart of average ranks with the critical-difference band: :func:`rank_bars`.

The chart is drawn in steps: the grey band and its edges, the bars coloured by
category, the values at the bar ends, the rank axis and method ticks, and the legend,
which is finally hung under the axis; value labels cut by a band edge get a white
backing.

Every bar carries a ``gid`` of the form ``"rank-bar:<category>:<method>"``, with the category
from :func:`~svmlab.stats.figures.groups.classify_against_control` (or the categories given),
so tests and post-processing can find which methods were drawn as significantly worse.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from svmlab.stats.figures._canvas import (
    BAND_COLOR,
    BETTER_COLOR,
    CONTROL_COLOR,
    NOT_SIGNIFICANT_COLOR,
    WORSE_COLOR,
    new_figure,
    text_width_in,
)
from svmlab.stats.figures._inputs import (
    FigureInputError,
    check_alpha,
    check_cd,
    check_control,
    check_format,
    check_ranks,
)
from svmlab.stats.figures.groups import classify_against_control

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.legend import Legend
    from matplotlib.text import Text

CATEGORY_COLORS = {
    "control": CONTROL_COLOR,
    "not_significant": NOT_SIGNIFICANT_COLOR,
    "worse": WORSE_COLOR,
    "better": BETTER_COLOR,
}


@dataclass(frozen=True)
class _Chart:
    """The methods in drawing order, with their ranks and categories."""

    names: list[str]
    values: list[float]
    categories: dict[str, str]
    control: str
    c: float  # the control's rank: where the band starts
    threshold: float  # c + cd: where the band ends
    horizontal: bool
    band: bool = True  # False for a procedure without a critical difference

    @classmethod
    def of(
        cls,
        ranks: dict[str, float],
        control: str,
        cd: float | None,
        *,
        horizontal: bool,
        categories: Mapping[str, str] | None = None,
    ) -> _Chart:
        c = ranks[control]
        if categories is None:
            categories = classify_against_control(ranks, control, cd)
        return cls(
            names=list(ranks),
            values=list(ranks.values()),
            categories=dict(categories),
            control=control,
            c=c,
            threshold=c + (cd or 0.0),
            horizontal=horizontal,
            band=cd is not None,
        )

    @property
    def positions(self) -> list[int]:
        return list(range(len(self.names)))


def rank_bars(
    avg_ranks: Mapping[str, float],
    control: str,
    cd: float | None,
    *,
    categories: Mapping[str, str] | None = None,
    alpha: float | None = None,
    title: str | None = None,
    ax: Axes | None = None,
    orientation: str = "horizontal",
    test_name: str = "Bonferroni–Dunn",
    value_format: str = "{:.2f}",
    xlabel: str = "average rank (lower is better)",
) -> Figure:
    """Draw the papers' bar chart of average ranks with the critical-difference band.

    One bar per method, in the input order, as long as its average rank. A grey band runs from
    the control's rank to control + ``cd``; the methods beyond it (rank > control + ``cd``, "to
    the right of the critical difference rectangle") are significantly worse than the control
    and drawn in a distinct colour. The control's bar is highlighted, each bar is annotated
    with its value, and a legend states the critical difference and the threshold. Every bar
    carries a ``gid`` ``"rank-bar:<category>:<method>"`` (module docstring).

    Parameters
    ----------
    avg_ranks : mapping of str to float
        Average rank of each method (lower is better), in the order to draw them.
    control : str
        The control method (usually the best-ranked one), a key of ``avg_ranks``.
    cd : float or None
        Critical difference, ``>= 0``, e.g. Bonferroni–Dunn ``q_alpha * sqrt(k (k + 1) /
        (6 N))``. None for an all-pairs procedure without one (Holm, Shaffer,
        Bergmann–Hommel): no band is drawn and ``categories`` must be given.
    categories : mapping of str to str, optional
        The category of each method (``"control"``, ``"not_significant"``, ``"worse"``,
        ``"better"``), e.g. from :func:`~svmlab.stats.figures.groups.classify_by_pvalues`;
        default: from ``cd`` with :func:`classify_against_control`.
    alpha : float, optional
        Significance level, only used in the legend (``"CD = 2.424 (Bonferroni–Dunn, α =
        0.05)"``).
    title : str, optional
        Axes title.
    ax : matplotlib Axes, optional
        Axes to draw into. If None, a new figure is created.
    orientation : {"horizontal", "vertical"}, default="horizontal"
        ``"horizontal"`` puts the rank on the x axis, so that significantly worse methods
        reach to the right of the band, as the papers describe; ``"vertical"`` draws upright
        bars with the band as a horizontal stripe.
    test_name : str, default="Bonferroni–Dunn"
        Name of the post-hoc test shown in the legend.
    value_format : str, default="{:.2f}"
        Format of the values printed at the end of the bars.
    xlabel : str, default="average rank (lower is better)"
        Label of the rank axis.

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure holding the chart (``ax.figure`` when ``ax`` is given).

    Raises
    ------
    FigureInputError
        (a ``ValueError``) for empty ranks or a NaN or infinite one, a ``control`` that is
        not ranked (the message lists the valid ones), a negative or non-finite ``cd``, an
        ``alpha`` outside (0, 1) or an unknown ``orientation``.
    """
    ranks, cd, control, alpha, value_format, categories = _checked_inputs(
        avg_ranks, control, cd, categories, alpha, value_format, orientation
    )
    chart = _Chart.of(
        ranks, control, cd, horizontal=orientation == "horizontal", categories=categories
    )
    detail = test_name + (f", α = {alpha:g}" if alpha is not None else "")
    return _draw(ax, chart, cd, detail, value_format, xlabel, title)


def _draw(ax, chart: _Chart, cd, detail: str, value_format: str, xlabel: str, title) -> Figure:
    """The chart, in the steps of the module docstring, on ``ax`` or a new figure."""
    fig, ax, own_figure = _figure_and_axes(ax, chart)
    span = max(max(chart.values), chart.threshold) * 1.16 + 0.3  # room for the value labels
    _draw_band(ax, chart)
    _draw_bars(ax, chart)
    value_texts = _write_values(ax, chart, value_format, offset=0.012 * span)
    _style_axes(ax, chart, span, xlabel)
    legend = _draw_legend(ax, chart, cd, detail)
    _finish(fig, ax, chart, legend, value_texts, title=title, own_figure=own_figure)
    return fig


def _checked_inputs(avg_ranks, control, cd, categories, alpha, value_format, orientation):
    """The validated ``(ranks, cd, control, alpha, value_format, categories)`` (the given
    categories are checked only without a ``cd``); raise on bad input."""
    ranks = check_ranks(avg_ranks)
    cd = None if cd is None else check_cd(cd)
    control = check_control(control, ranks)
    alpha = check_alpha(alpha)
    value_format = check_format(value_format)
    if orientation not in ("horizontal", "vertical"):
        raise FigureInputError(
            f"orientation must be 'horizontal' or 'vertical', got {orientation!r}"
        )
    if cd is None:
        categories = _checked_categories(categories, ranks)
    return ranks, cd, control, alpha, value_format, categories


def _checked_categories(categories, ranks: dict[str, float]) -> dict[str, str]:
    """The given categories, one known category per ranked method; raise otherwise."""
    if categories is None:
        raise FigureInputError("cd is None: give the categories of the procedure instead")
    bad = {n: categories.get(n) for n in ranks if categories.get(n) not in CATEGORY_COLORS}
    if bad:
        raise FigureInputError(
            f"categories {bad} are missing or unknown; valid: {', '.join(CATEGORY_COLORS)}"
        )
    return {n: categories[n] for n in ranks}


def _figure_and_axes(ax: Axes | None, chart: _Chart) -> tuple[Figure, Axes, bool]:
    """``ax`` and its figure, or a new figure sized for the methods' names; and if new."""
    if ax is not None:
        return ax.figure, ax, False
    k = len(chart.names)
    if chart.horizontal:
        longest = max(text_width_in(n, 10.0) for n in chart.names)
        fig = new_figure(max(7.0, 5.2 + longest), 1.9 + 0.36 * k)
    else:
        fig = new_figure(max(6.5, 1.6 + 0.62 * k), 5.2)
    return fig, fig.add_subplot(1, 1, 1), True


def _draw_band(ax: Axes, chart: _Chart) -> None:
    """The grey band from the control's rank to the threshold.

    The band sits behind the bars; its edges are redrawn on top so that the threshold
    stays visible where a bar crosses it.
    """
    c, threshold = chart.c, chart.threshold
    if not chart.band:
        (ax.axvline if chart.horizontal else ax.axhline)(c, color=CONTROL_COLOR, lw=1.0, ls=":")
        return
    band_kw = dict(facecolor=BAND_COLOR, alpha=0.28, lw=0, zorder=0.5)
    if chart.horizontal:
        ax.axvspan(c, threshold, **band_kw)
        edge = ax.axvline
    else:
        ax.axhspan(c, threshold, **band_kw)
        edge = ax.axhline
    edge(c, color=CONTROL_COLOR, lw=1.0, ls=":", zorder=3)
    edge(threshold, color="#333333", lw=1.3, ls="--", zorder=3)


def _draw_bars(ax: Axes, chart: _Chart) -> None:
    """One bar per method, coloured and tagged (``gid``) by its category."""
    bar = ax.barh if chart.horizontal else ax.bar
    size_kw = {"height": 0.68} if chart.horizontal else {"width": 0.68}
    containers = bar(
        chart.positions,
        chart.values,
        color=[CATEGORY_COLORS[chart.categories[n]] for n in chart.names],
        edgecolor="#333333",
        linewidth=0.6,
        zorder=2,
        **size_kw,
    )
    for patch, name in zip(containers.patches, chart.names):
        patch.set_gid(f"rank-bar:{chart.categories[name]}:{name}")
        if name == chart.control:
            patch.set_linewidth(1.4)
            patch.set_edgecolor("black")


def _write_values(ax: Axes, chart: _Chart, value_format: str, offset: float) -> list[Text]:
    """The value at the end of each bar, bold for the control."""
    value_texts = []
    for p, v, name in zip(chart.positions, chart.values, chart.names):
        weight = "bold" if name == chart.control else "normal"
        text = value_format.format(v)
        if chart.horizontal:
            t = ax.text(
                v + offset, p, text, ha="left", va="center", fontsize=9, weight=weight, zorder=4
            )
        else:
            t = ax.text(
                p, v + offset, text, ha="center", va="bottom", fontsize=9, weight=weight, zorder=4
            )
        value_texts.append(t)
    return value_texts


def _style_axes(ax: Axes, chart: _Chart, span: float, xlabel: str) -> None:
    """Method ticks (the control's in bold), rank axis limits, label and grid."""
    positions, names, k = chart.positions, chart.names, len(chart.names)
    if chart.horizontal:
        ax.set_yticks(positions, names)
        ax.set_ylim(k - 0.4, -0.6)  # first method on top
        ax.set_xlim(0, span)
        ax.set_xlabel(xlabel)
        ax.grid(axis="x", color="#DDDDDD", lw=0.6, zorder=0)
        tick_labels = ax.get_yticklabels()
    else:
        ax.set_xticks(positions, names, rotation=40, ha="right", rotation_mode="anchor")
        ax.set_xlim(-0.6, k - 0.4)
        ax.set_ylim(0, span)
        ax.set_ylabel(xlabel)
        ax.grid(axis="y", color="#DDDDDD", lw=0.6, zorder=0)
        tick_labels = ax.get_xticklabels()
    for label in tick_labels:
        if label.get_text() == chart.control:
            label.set_fontweight("bold")
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=10)


def _draw_legend(ax: Axes, chart: _Chart, cd: float, detail: str) -> Legend:
    """The legend: the categories, then the CD band and the threshold line."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [
        Patch(facecolor=CONTROL_COLOR, edgecolor="black", label=f"{chart.control} (control)"),
        Patch(
            facecolor=NOT_SIGNIFICANT_COLOR,
            edgecolor="#333333",
            label="not significantly different",
        ),
        Patch(facecolor=WORSE_COLOR, edgecolor="#333333", label="significantly worse than control"),
    ]
    if "better" in chart.categories.values():
        handles.append(
            Patch(
                facecolor=BETTER_COLOR,
                edgecolor="#333333",
                label="significantly better than control",
            )
        )
    if not chart.band:
        handles.append(Line2D([], [], color="none", label=f"significance: {detail}"))
        return _legend(ax, handles)
    handles += [
        Patch(facecolor=BAND_COLOR, alpha=0.28, label=f"CD = {cd:.3f} ({detail})"),
        Line2D(
            [],
            [],
            color="#333333",
            lw=1.3,
            ls="--",
            label=f"threshold = {chart.c:.3f} + {cd:.3f} = {chart.threshold:.3f}",
        ),
    ]
    return _legend(ax, handles)


def _legend(ax: Axes, handles) -> Legend:
    return ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=2,
        frameon=False,
        fontsize=9,
        handlelength=1.6,
        columnspacing=1.5,
    )


def _finish(fig, ax, chart: _Chart, legend, value_texts, *, title, own_figure: bool) -> None:
    """Title, layout engine (on a figure of our own), legend placement, label backings."""
    if title:
        ax.set_title(title, fontsize=12, weight="bold")
    if own_figure:
        fig.set_layout_engine("constrained")
    _place_legend_below(fig, ax, legend)
    _unclutter_labels(fig, ax, value_texts, (chart.c, chart.threshold), chart.horizontal)


def _place_legend_below(fig, ax, legend) -> None:
    """Hang the legend just under the x tick labels and axis label.

    The gap is measured in points, so it stays right whatever size the layout engine
    later gives the axes.
    """
    from matplotlib.transforms import offset_copy

    fig.draw_without_rendering()
    axes_bottom = ax.get_window_extent().y0
    below = ax.xaxis.get_tightbbox()
    drop_px = max(0.0, axes_bottom - below.y0) if below is not None else 0.0
    drop_pt = drop_px * 72.0 / fig.dpi + 4.0
    legend.set_bbox_to_anchor(
        (0.5, 0.0), transform=offset_copy(ax.transAxes, fig=fig, y=-drop_pt, units="points")
    )


def _unclutter_labels(fig, ax, texts, lines, horizontal: bool) -> None:
    """Give a white backing to the value labels that a band edge would cut through."""
    fig.draw_without_rendering()  # settles the layout so that extents are final
    box = dict(boxstyle="square,pad=0.1", facecolor="white", edgecolor="none")
    slack = 3.0 * fig.dpi / 72.0  # 3 points
    for t in texts:
        extent = t.get_window_extent()
        for value in lines:
            if horizontal:
                at = ax.transData.transform((value, 0.0))[0]
                crossed = extent.x0 - slack <= at <= extent.x1 + slack
            else:
                at = ax.transData.transform((0.0, value))[1]
                crossed = extent.y0 - slack <= at <= extent.y1 + slack
            if crossed:
                t.set_bbox(box)
                break
