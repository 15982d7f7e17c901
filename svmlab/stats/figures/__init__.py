"""Figures for the post-hoc comparison of methods over many data sets.

Two styles are offered, both drawn from plain inputs (a mapping ``method -> average
rank`` and a critical difference), so this module does not depend on how the ranks or
the critical difference were computed:

* :func:`rank_bars` is the style of the papers' "Bonferroni–Dunn" figures (Melki (2018),
  Figs. 3.4–3.8 and 4.4–4.9; Zafra et al., HyDR-MI, Fig. 4): one
  bar per method whose length is its average rank, a grey band from the control's rank
  to control + CD, and the methods "to the right of the critical difference rectangle"
  (rank > control + CD) drawn in a distinct colour as significantly worse. This is the
  faithful style for the Bonferroni–Dunn papers.
* :func:`cd_diagram` is a Demšar-style critical-difference diagram: a rank axis with
  the best rank on the left, each method hanging from its average rank, and thick bars
  joining the groups of methods that are not significantly different ("cliques"). The
  cliques are either given (for example from pairwise Wilcoxon–Holm tests, as the
  critical-difference figures of Oliveira's LSSVM/MLM thesis were drawn) or computed
  Nemenyi-style by :func:`compute_cliques`.

:func:`save_figure` writes a figure in several formats at once, keeping the text of
SVG files as text and embedding TrueType fonts in PDF files so that both stay editable.

matplotlib is imported lazily inside the functions, so ``import svmlab.stats`` does not
pay for it, and the figures are rendered on an Agg canvas that is never attached to
pyplot: no display is needed, the user's interactive backend is left alone, and the
returned figures do not accumulate in pyplot's figure manager.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from svmlab.errors import SvmlabError

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "FigureInputError",
    "cd_diagram",
    "rank_bars",
    "save_figure",
    "compute_cliques",
    "classify_against_control",
    "CONTROL_COLOR",
    "NOT_SIGNIFICANT_COLOR",
    "WORSE_COLOR",
    "BETTER_COLOR",
    "BAND_COLOR",
]

# Okabe–Ito colours: distinguishable with the common colour-vision deficiencies and
# still distinct when printed in grey scale (dark / light / mid).
CONTROL_COLOR = "#0072B2"  # blue: the control method
NOT_SIGNIFICANT_COLOR = "#A6CEE3"  # light blue: within the CD band
WORSE_COLOR = "#D55E00"  # vermilion: significantly worse than the control
BETTER_COLOR = "#009E73"  # bluish green: significantly better than the control
BAND_COLOR = "#808080"  # the papers' grey critical-difference band

#: Category names returned by :func:`classify_against_control` and used as the
#: ``gid`` prefix of the bars drawn by :func:`rank_bars`.
CATEGORIES = ("control", "not_significant", "worse", "better")

_SUPPORTED_FORMATS = ("png", "pdf", "svg", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")


class FigureInputError(SvmlabError, ValueError):
    """The ranks, critical difference or options given to a figure function are invalid."""


# --------------------------------------------------------------------------- validation


def _check_ranks(avg_ranks: Mapping[str, float]) -> dict[str, float]:
    """Return ``avg_ranks`` as an ordered ``{str: float}`` dict, or raise."""
    if not isinstance(avg_ranks, Mapping):
        raise FigureInputError(
            f"avg_ranks must be a mapping from method name to average rank, "
            f"got {type(avg_ranks).__name__}"
        )
    if len(avg_ranks) == 0:
        raise FigureInputError("avg_ranks is empty: at least one method is needed")
    ranks: dict[str, float] = {}
    for name, value in avg_ranks.items():
        key = str(name)
        if key in ranks:
            raise FigureInputError(f"method name {key!r} occurs twice in avg_ranks")
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise FigureInputError(
                f"the average rank of {key!r} is not a number: {value!r}"
            ) from None
        if not math.isfinite(number):
            raise FigureInputError(
                f"the average rank of {key!r} is {number}; every rank must be a finite number"
            )
        ranks[key] = number
    return ranks


def _check_cd(cd: float) -> float:
    try:
        value = float(cd)
    except (TypeError, ValueError):
        raise FigureInputError(f"cd must be a number, got {cd!r}") from None
    if not math.isfinite(value) or value < 0:
        raise FigureInputError(
            f"cd (the critical difference) must be a finite number >= 0, got {value}"
        )
    return value


def _check_control(control: str, ranks: Mapping[str, float]) -> str:
    key = str(control)
    if key not in ranks:
        raise FigureInputError(
            f"control {control!r} is not one of the ranked methods. "
            f"Valid methods: {', '.join(ranks)}"
        )
    return key


def _check_alpha(alpha: float | None) -> float | None:
    if alpha is None:
        return None
    try:
        value = float(alpha)
    except (TypeError, ValueError):
        raise FigureInputError(f"alpha must be a number in (0, 1) or None, got {alpha!r}") from None
    if not 0.0 < value < 1.0:
        raise FigureInputError(f"alpha must lie strictly between 0 and 1, got {value}")
    return value


def _check_format(value_format: str) -> str:
    try:
        value_format.format(1.5)
    except (AttributeError, IndexError, KeyError, ValueError) as exc:
        raise FigureInputError(
            f"value_format must be a format string for one number such as '{{:.2f}}', "
            f"got {value_format!r} ({exc})"
        ) from None
    return value_format


# --------------------------------------------------------------------------- helpers


def _new_figure(width: float, height: float) -> Figure:
    """A figure on a private Agg canvas (no pyplot, no display)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _text_width_in(text: str, fontsize: float, weight: str = "normal") -> float:
    """Width of ``text`` in inches at ``fontsize`` points, with the default font."""
    if not text:
        return 0.0
    from matplotlib.font_manager import FontProperties
    from matplotlib.textpath import TextPath

    path = TextPath((0, 0), text, size=fontsize, prop=FontProperties(weight=weight))
    extents = path.get_extents()
    # TextPath measures the ink; add the side bearings that a rendered label keeps.
    return (extents.x1 + 0.1 * fontsize) / 72.0


def _sorted_by_rank(ranks: Mapping[str, float]) -> list[tuple[str, float]]:
    """Methods sorted by rank, ties kept in input order (stable)."""
    return sorted(ranks.items(), key=lambda item: item[1])


def compute_cliques(avg_ranks: Mapping[str, float], cd: float) -> list[list[str]]:
    """Maximal groups of methods whose average ranks span at most ``cd``.

    This is the Nemenyi-style grouping drawn as thick bars in a critical-difference
    diagram: all methods of a group are pairwise not significantly different, because
    the largest rank difference inside it is at most the critical difference. Only
    groups of two or more methods are returned (a lone method needs no bar), and a group
    contained in another one is dropped.

    Parameters
    ----------
    avg_ranks : mapping of str to float
        Average rank of each method (lower is better).
    cd : float
        Critical difference, ``>= 0``.

    Returns
    -------
    cliques : list of list of str
        The groups ordered by their lowest rank; the methods inside each group are
        ordered by rank, ties in input order. A span equal to ``cd`` (up to 1e-12
        for floating-point noise) still counts as not significant.

    Raises
    ------
    FigureInputError
        (a ``ValueError``) if ``avg_ranks`` is empty or holds a non-finite rank, or if
        ``cd`` is negative or not finite.

    Examples
    --------
    >>> compute_cliques({"A": 1.0, "B": 1.5, "C": 2.4, "D": 3.8}, cd=1.0)
    [['A', 'B'], ['B', 'C']]
    """
    ranks = _check_ranks(avg_ranks)
    cd = _check_cd(cd)
    ordered = _sorted_by_rank(ranks)
    tol = 1e-12 * max(1.0, cd)
    cliques: list[list[str]] = []
    last_end = -1
    n = len(ordered)
    for start in range(n):
        end = start
        while end + 1 < n and ordered[end + 1][1] - ordered[start][1] <= cd + tol:
            end += 1
        # A group starting later is contained in the previous one unless it reaches further.
        if end > last_end and end > start:
            cliques.append([name for name, _ in ordered[start : end + 1]])
        last_end = max(last_end, end)
    return cliques


def classify_against_control(
    avg_ranks: Mapping[str, float], control: str, cd: float
) -> dict[str, str]:
    """Label each method relative to the control, Bonferroni–Dunn style.

    Parameters
    ----------
    avg_ranks : mapping of str to float
        Average rank of each method (lower is better).
    control : str
        The control method, one of the keys of ``avg_ranks``.
    cd : float
        Critical difference, ``>= 0``.

    Returns
    -------
    categories : dict of str to str
        In input order, one of ``"control"``; ``"worse"`` when the rank is strictly
        greater than ``rank(control) + cd`` (beyond the grey band of the papers'
        figures); ``"better"`` when it is strictly less than ``rank(control) - cd``
        (possible only when the control is not the best method); otherwise
        ``"not_significant"``. A difference equal to ``cd`` up to floating-point
        rounding (1e-12) is not significant.

    Raises
    ------
    FigureInputError
        (a ``ValueError``) on empty or non-finite ranks, a negative ``cd`` or a
        ``control`` that is not ranked.
    """
    ranks = _check_ranks(avg_ranks)
    cd = _check_cd(cd)
    control = _check_control(control, ranks)
    c = ranks[control]
    tol = 1e-12 * max(1.0, cd)  # a difference equal to cd up to rounding is not significant
    out: dict[str, str] = {}
    for name, r in ranks.items():
        if name == control:
            out[name] = "control"
        elif r - c > cd + tol:
            out[name] = "worse"
        elif c - r > cd + tol:
            out[name] = "better"
        else:
            out[name] = "not_significant"
    return out


def _assign_rows(intervals: Sequence[tuple[float, float]], gap: float) -> list[int]:
    """Greedy interval packing: the first row in which an interval overlaps nothing."""
    rows: list[list[tuple[float, float]]] = []
    assigned = []
    for lo, hi in intervals:
        for i, row in enumerate(rows):
            if all(hi + gap <= a or lo - gap >= b for a, b in row):
                row.append((lo, hi))
                assigned.append(i)
                break
        else:
            rows.append([(lo, hi)])
            assigned.append(len(rows) - 1)
    return assigned


# --------------------------------------------------------------------------- CD diagram


def cd_diagram(
    avg_ranks: Mapping[str, float],
    cd: float,
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
    cd : float
        Critical difference (Nemenyi or Bonferroni–Dunn), ``>= 0``.
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
    ranks = _check_ranks(avg_ranks)
    cd = _check_cd(cd)
    value_format = _check_format(value_format)
    if cliques is None:
        groups = compute_cliques(ranks, cd)
    else:
        groups = []
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

    ordered = _sorted_by_rank(ranks)
    k = len(ordered)
    lo = min(1, math.floor(ordered[0][1]))
    hi = max(k, math.ceil(ordered[-1][1]), lo + 1)

    fs_name = float(fontsize)
    fs_small = 0.85 * fs_name
    n_left = math.ceil(k / 2)
    left = ordered[:n_left]  # best first: top row is the best method
    right = ordered[n_left:][::-1]  # worst first: top row is the worst method
    labels = {name: value_format.format(r) for name, r in ordered}

    # ---- horizontal layout, in inches
    pad = 0.1
    name_w_left = max((_text_width_in(n, fs_name) for n, _ in left), default=0.0)
    name_w_right = max((_text_width_in(n, fs_name) for n, _ in right), default=0.0)
    rank_w = max(_text_width_in(s, fs_small) for s in labels.values())
    side_gap = rank_w + 0.2  # between the end of an elbow line and the axis
    name_gap = 0.07  # between the end of an elbow line and the name
    fixed_w = 2 * pad + name_w_left + name_w_right + 2 * (name_gap + side_gap)
    axis_len = min(max(0.55 * (hi - lo), 3.5), 8.0)

    # ---- vertical layout, in inches from the top
    line_h = max(0.27, 1.9 * fs_name / 72.0)
    clique_h = 0.13
    cd_text = f"CD = {cd:.3f}"
    caption = (
        f"average {lower_is_better_label} (lower is better)" if lower_is_better_label else None
    )

    if ax is None:
        width_total = fixed_w + axis_len
    else:
        bbox = ax.get_window_extent().transformed(ax.figure.dpi_scale_trans.inverted())
        width_total = max(bbox.width, fixed_w + 1.0)
        axis_len = width_total - fixed_w

    axis_left = pad + name_w_left + name_gap + side_gap
    axis_right = axis_left + axis_len

    def x_of(rank: float) -> float:
        return axis_left + (rank - lo) / (hi - lo) * axis_len

    # Does the caption fit to the right of the CD scale bar on the same row?
    cd_bar_end = x_of(min(lo + cd, hi))
    cd_label_end = max(cd_bar_end, axis_left + _text_width_in(cd_text, fs_small))
    caption_w = _text_width_in(caption, fs_small) if caption else 0.0
    caption_own_row = caption is not None and cd_label_end + 0.3 > axis_right - caption_w

    y = pad
    title_y = None
    if title:
        title_y = y + 0.18
        y += 0.42
    caption_y = None
    if caption_own_row:
        caption_y = y + 0.1
        y += 0.26
    cd_text_y = y + 0.08
    cd_bar_y = y + 0.27
    if caption is not None and not caption_own_row:
        caption_y = cd_bar_y
    y += 0.42
    tick_label_y = y + 0.06
    axis_y = y + 0.3

    # Cliques: thick bars below the axis, packed into as few rows as possible.
    pos = {name: x_of(r) for name, r in ordered}
    ext = 0.05  # the bar overhangs the outermost elbow lines slightly
    intervals = [(min(pos[n] for n in g) - ext, max(pos[n] for n in g) + ext) for g in groups]
    order = sorted(range(len(groups)), key=lambda i: (intervals[i][0], intervals[i][1]))
    rows_sorted = _assign_rows([intervals[i] for i in order], gap=0.06)
    clique_rows = [0] * len(groups)
    for i, row in zip(order, rows_sorted):
        clique_rows[i] = row
    n_clique_rows = max(clique_rows, default=-1) + 1
    first_clique_y = axis_y + 0.2
    first_line_y = axis_y + 0.2 + n_clique_rows * clique_h + (0.2 if n_clique_rows else 0.1)
    n_rows = max(len(left), len(right))
    height_total = first_line_y + (n_rows - 1) * line_h + 0.22 + pad

    if ax is None:
        fig = _new_figure(width_total, height_total)
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
    else:
        fig = ax.figure
    ax.set_axis_off()
    ax.set_xlim(0.0, width_total)
    ax.set_ylim(height_total, 0.0)

    ink = "#222222"
    # Rank axis with integer ticks (labelled) and half ticks.
    ax.plot([axis_left, axis_right], [axis_y, axis_y], color=ink, lw=1.2, solid_capstyle="butt")
    for t in range(lo, hi + 1):
        ax.plot([x_of(t)] * 2, [axis_y - 0.1, axis_y], color=ink, lw=1.0)
        ax.text(
            x_of(t), tick_label_y, str(t), ha="center", va="center", fontsize=fs_small, color=ink
        )
        if t < hi:
            ax.plot([x_of(t + 0.5)] * 2, [axis_y - 0.05, axis_y], color=ink, lw=0.8)

    # CD scale bar above the axis, starting at the best end. A CD longer than the
    # axis is cut at its end and drawn as an arrow.
    if cd > 0:
        clipped = lo + cd > hi
        x_end = axis_right if clipped else x_of(lo + cd)
        ax.plot([axis_left, x_end], [cd_bar_y, cd_bar_y], color=ink, lw=1.6, solid_capstyle="butt")
        ax.plot([axis_left] * 2, [cd_bar_y - 0.05, cd_bar_y + 0.05], color=ink, lw=1.2)
        if clipped:
            ax.plot([x_end], [cd_bar_y], marker=">", ms=6, color=ink)
        else:
            ax.plot([x_end] * 2, [cd_bar_y - 0.05, cd_bar_y + 0.05], color=ink, lw=1.2)
        ax.text(
            (axis_left + x_end) / 2,
            cd_text_y,
            cd_text,
            ha="center",
            va="center",
            fontsize=fs_small,
            color=ink,
        )
    else:
        ax.text(axis_left, cd_text_y, cd_text, ha="left", va="center", fontsize=fs_small, color=ink)
    if caption is not None:
        ax.text(
            axis_right,
            caption_y,
            caption,
            ha="right",
            va="center",
            fontsize=fs_small,
            color="#555555",
            style="italic",
        )
    if title_y is not None:
        ax.text(
            width_total / 2,
            title_y,
            title,
            ha="center",
            va="center",
            fontsize=1.15 * fs_name,
            weight="bold",
            color=ink,
        )

    # Elbow lines with names and ranks.
    left_end = axis_left - side_gap
    right_end = axis_right + side_gap
    for i, (name, r) in enumerate(left):
        yy = first_line_y + i * line_h
        x = pos[name]
        ax.plot(
            [x, x, left_end],
            [axis_y, yy, yy],
            color=ink,
            lw=0.9,
            solid_joinstyle="miter",
            gid=f"cd-line:{name}",
        )
        ax.plot([x], [axis_y], "o", ms=3.2, color=ink)
        ax.text(left_end - name_gap, yy, name, ha="right", va="center", fontsize=fs_name, color=ink)
        ax.text(
            left_end + 0.05,
            yy - 0.03,
            labels[name],
            ha="left",
            va="bottom",
            fontsize=fs_small,
            color="#444444",
        )
    for i, (name, r) in enumerate(right):
        yy = first_line_y + i * line_h
        x = pos[name]
        ax.plot(
            [x, x, right_end],
            [axis_y, yy, yy],
            color=ink,
            lw=0.9,
            solid_joinstyle="miter",
            gid=f"cd-line:{name}",
        )
        ax.plot([x], [axis_y], "o", ms=3.2, color=ink)
        ax.text(right_end + name_gap, yy, name, ha="left", va="center", fontsize=fs_name, color=ink)
        ax.text(
            right_end - 0.05,
            yy - 0.03,
            labels[name],
            ha="right",
            va="bottom",
            fontsize=fs_small,
            color="#444444",
        )

    # Clique bars last, so they sit on top of the elbow lines they join.
    for group, (x0, x1), row in zip(groups, intervals, clique_rows):
        yy = first_clique_y + row * clique_h
        ax.plot(
            [x0, x1],
            [yy, yy],
            color="black",
            lw=4.0,
            solid_capstyle="round",
            gid="cd-clique:" + "|".join(group),
        )
    return fig


# --------------------------------------------------------------------------- rank bars


def rank_bars(
    avg_ranks: Mapping[str, float],
    control: str,
    cd: float,
    *,
    alpha: float | None = None,
    title: str | None = None,
    ax: Axes | None = None,
    orientation: str = "horizontal",
    test_name: str = "Bonferroni–Dunn",
    value_format: str = "{:.2f}",
    xlabel: str = "average rank (lower is better)",
) -> Figure:
    """Draw the papers' bar chart of average ranks with the critical-difference band.

    One bar per method, in the input order, whose length is its average rank. A grey
    band runs from the control's rank to control + ``cd``; the methods whose rank lies
    beyond it (strictly greater than control + ``cd``, "to the right of the critical
    difference rectangle") are significantly worse than the control and are drawn in a
    distinct colour. The control's bar is highlighted, each bar is annotated with its
    value, and a legend states the critical difference and the threshold.

    Parameters
    ----------
    avg_ranks : mapping of str to float
        Average rank of each method (lower is better), in the order to draw them.
    control : str
        The control method (usually the best-ranked one), a key of ``avg_ranks``.
    cd : float
        Critical difference, ``>= 0``, e.g. Bonferroni–Dunn
        ``q_alpha * sqrt(k (k + 1) / (6 N))``.
    alpha : float, optional
        Significance level, only used in the legend text ``"CD = 2.424
        (Bonferroni–Dunn, α = 0.05)"``.
    title : str, optional
        Axes title.
    ax : matplotlib Axes, optional
        Axes to draw into. If None, a new figure is created.
    orientation : {"horizontal", "vertical"}, default="horizontal"
        ``"horizontal"`` puts the rank on the x axis, so that significantly worse
        methods reach to the right of the band, as the papers describe; ``"vertical"``
        draws upright bars with the band as a horizontal stripe.
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
        (a ``ValueError``) if ``avg_ranks`` is empty or holds a NaN or infinite rank,
        if ``control`` is not a ranked method (the message lists the valid ones), if
        ``cd`` is negative or not finite, if ``alpha`` is outside (0, 1) or if
        ``orientation`` is unknown.

    Notes
    -----
    Every bar carries a ``gid`` of the form ``"rank-bar:<category>:<method>"``, with
    the category from :func:`classify_against_control`, so tests and post-processing
    can find which methods were drawn as significantly worse.
    """
    ranks = _check_ranks(avg_ranks)
    cd = _check_cd(cd)
    control = _check_control(control, ranks)
    alpha = _check_alpha(alpha)
    value_format = _check_format(value_format)
    if orientation not in ("horizontal", "vertical"):
        raise FigureInputError(
            f"orientation must be 'horizontal' or 'vertical', got {orientation!r}"
        )
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    categories = classify_against_control(ranks, control, cd)
    names = list(ranks)
    values = [ranks[n] for n in names]
    k = len(names)
    c = ranks[control]
    threshold = c + cd
    horizontal = orientation == "horizontal"

    own_figure = ax is None
    if ax is None:
        if horizontal:
            longest = max(_text_width_in(n, 10.0) for n in names)
            fig = _new_figure(max(7.0, 5.2 + longest), 1.9 + 0.36 * k)
        else:
            fig = _new_figure(max(6.5, 1.6 + 0.62 * k), 5.2)
        ax = fig.add_subplot(1, 1, 1)
    else:
        fig = ax.figure

    colors = {
        "control": CONTROL_COLOR,
        "not_significant": NOT_SIGNIFICANT_COLOR,
        "worse": WORSE_COLOR,
        "better": BETTER_COLOR,
    }
    positions = list(range(k))
    top = max(max(values), threshold)
    span = top * 1.16 + 0.3  # room for the value labels beyond the longest bar

    # The band sits behind the bars; its edges are redrawn on top so that the
    # threshold stays visible where a bar crosses it.
    band_kw = dict(facecolor=BAND_COLOR, alpha=0.28, lw=0, zorder=0.5)
    if horizontal:
        ax.axvspan(c, threshold, **band_kw)
        edge = ax.axvline
    else:
        ax.axhspan(c, threshold, **band_kw)
        edge = ax.axhline
    edge(c, color=CONTROL_COLOR, lw=1.0, ls=":", zorder=3)
    edge(threshold, color="#333333", lw=1.3, ls="--", zorder=3)

    bar = ax.barh if horizontal else ax.bar
    size_kw = {"height": 0.68} if horizontal else {"width": 0.68}
    containers = bar(
        positions,
        values,
        color=[colors[categories[n]] for n in names],
        edgecolor="#333333",
        linewidth=0.6,
        zorder=2,
        **size_kw,
    )
    for patch, name in zip(containers.patches, names):
        patch.set_gid(f"rank-bar:{categories[name]}:{name}")
        if name == control:
            patch.set_linewidth(1.4)
            patch.set_edgecolor("black")

    offset = 0.012 * span
    value_texts = []
    for p, v, name in zip(positions, values, names):
        weight = "bold" if name == control else "normal"
        text = value_format.format(v)
        if horizontal:
            t = ax.text(
                v + offset, p, text, ha="left", va="center", fontsize=9, weight=weight, zorder=4
            )
        else:
            t = ax.text(
                p, v + offset, text, ha="center", va="bottom", fontsize=9, weight=weight, zorder=4
            )
        value_texts.append(t)

    if horizontal:
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
        if label.get_text() == control:
            label.set_fontweight("bold")
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    ax.tick_params(labelsize=10)

    detail = test_name + (f", α = {alpha:g}" if alpha is not None else "")
    handles = [
        Patch(facecolor=CONTROL_COLOR, edgecolor="black", label=f"{control} (control)"),
        Patch(
            facecolor=NOT_SIGNIFICANT_COLOR,
            edgecolor="#333333",
            label="not significantly different",
        ),
        Patch(facecolor=WORSE_COLOR, edgecolor="#333333", label="significantly worse than control"),
    ]
    if "better" in categories.values():
        handles.append(
            Patch(
                facecolor=BETTER_COLOR,
                edgecolor="#333333",
                label="significantly better than control",
            )
        )
    handles += [
        Patch(facecolor=BAND_COLOR, alpha=0.28, label=f"CD = {cd:.3f} ({detail})"),
        Line2D(
            [],
            [],
            color="#333333",
            lw=1.3,
            ls="--",
            label=f"threshold = {c:.3f} + {cd:.3f} = {threshold:.3f}",
        ),
    ]
    legend = ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, 0.0),
        ncol=2,
        frameon=False,
        fontsize=9,
        handlelength=1.6,
        columnspacing=1.5,
    )
    if title:
        ax.set_title(title, fontsize=12, weight="bold")
    if own_figure:
        fig.set_layout_engine("constrained")
    _place_legend_below(fig, ax, legend)
    _unclutter_labels(fig, ax, value_texts, (c, threshold), horizontal)
    return fig


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


# --------------------------------------------------------------------------- saving


def save_figure(
    fig: Figure,
    path_stem: str | Path,
    formats: Sequence[str] = ("png", "pdf", "svg"),
    *,
    dpi: float = 200,
    close: bool = True,
) -> list[Path]:
    """Write a figure in several formats and close it.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure to write.
    path_stem : str or Path
        Output path without extension; ``".<format>"`` is appended for each format
        (so dots already in the stem, as in ``"ranks_v1.2"``, are kept). Missing parent
        directories are created.
    formats : sequence of str, default=("png", "pdf", "svg")
        File formats, with or without a leading dot, case-insensitive.
    dpi : float, default=200
        Resolution of raster formats.
    close : bool, default=True
        Release the figure afterwards (removes it from pyplot if pyplot manages it).

    Returns
    -------
    paths : list of Path
        The files written, in the order of ``formats``.

    Raises
    ------
    FigureInputError
        (a ``ValueError``) if ``formats`` is empty or names an unsupported format.

    Notes
    -----
    SVG text is written as ``<text>`` elements (``svg.fonttype = "none"``) and PDF/PS
    fonts are embedded as TrueType (``fonttype = 42``), so the labels stay searchable
    and editable. Figures are cropped to their content (``bbox_inches="tight"``).
    """
    import matplotlib

    if isinstance(formats, str):
        formats = (formats,)
    wanted = [str(f).lower().lstrip(".") for f in formats]
    if not wanted:
        raise FigureInputError("formats is empty: name at least one file format, e.g. 'png'")
    bad = [f for f in wanted if f not in _SUPPORTED_FORMATS]
    if bad:
        raise FigureInputError(
            f"unsupported figure format(s) {', '.join(map(repr, bad))}. "
            f"Valid formats: {', '.join(_SUPPORTED_FORMATS)}"
        )
    stem = Path(path_stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    rc: dict[str, Any] = {"svg.fonttype": "none", "pdf.fonttype": 42, "ps.fonttype": 42}
    paths: list[Path] = []
    try:
        with matplotlib.rc_context(rc):
            for fmt in dict.fromkeys(wanted):
                path = stem.with_name(f"{stem.name}.{fmt}")
                fig.savefig(
                    path,
                    format=fmt,
                    dpi=dpi,
                    bbox_inches="tight",
                    pad_inches=0.05,
                    facecolor="white",
                )
                paths.append(path)
    finally:
        if close:
            _close(fig)
    return paths


def _close(fig: Figure) -> None:
    import sys

    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:  # only touch pyplot if the caller already uses it
        pyplot.close(fig)
    fig.clear()
