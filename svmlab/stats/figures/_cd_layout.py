"""Where everything of a critical-difference diagram goes, in inches.

The diagram is drawn on an axes used as a canvas measured in inches from the top-left
corner (y grows downwards). :func:`cd_layout` computes every position before anything
is drawn: the columns (names, elbow ends, rank axis), then the rows (title, caption,
CD scale bar, axis, clique bars, elbow lines), then the size of the whole canvas.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from svmlab.stats.figures._canvas import sorted_by_rank, text_width_in

if TYPE_CHECKING:  # pragma: no cover - typing only
    from matplotlib.axes import Axes

PAD = 0.1  # margin around the drawing
NAME_GAP = 0.07  # between the end of an elbow line and the name
CLIQUE_H = 0.13  # height of one row of clique bars
CLIQUE_OVERHANG = 0.05  # a clique bar overhangs the outermost elbow lines slightly
CLIQUE_GAP = 0.06  # smallest gap between two clique bars sharing a row


@dataclass
class CdLayout:
    """The positions of a critical-difference diagram, filled in by :func:`cd_layout`."""

    # Rank axis range and the texts.
    lo: int
    hi: int
    fs_name: float
    fs_small: float
    left: list[tuple[str, float]]  # best first: top row is the best method
    right: list[tuple[str, float]]  # worst first: top row is the worst method
    labels: dict[str, str]  # the printed average rank of each method
    cd: float
    cd_text: str
    caption: str | None
    title: str | None
    groups: list[list[str]]
    # Columns.
    name_w_left: float = 0.0
    name_w_right: float = 0.0
    side_gap: float = 0.0  # between the end of an elbow line and the axis
    fixed_w: float = 0.0  # everything but the axis
    axis_len: float = 0.0
    width_total: float = 0.0
    axis_left: float = 0.0
    axis_right: float = 0.0
    # Rows.
    line_h: float = 0.0
    title_y: float | None = None
    caption_y: float | None = None
    cd_text_y: float = 0.0
    cd_bar_y: float = 0.0
    tick_label_y: float = 0.0
    axis_y: float = 0.0
    first_clique_y: float = 0.0
    first_line_y: float = 0.0
    height_total: float = 0.0
    # Where each method and each clique bar sits.
    pos: dict[str, float] = field(default_factory=dict)
    intervals: list[tuple[float, float]] = field(default_factory=list)
    clique_rows: list[int] = field(default_factory=list)

    def x_of(self, rank: float) -> float:
        """Horizontal position of a rank on the axis."""
        return self.axis_left + (rank - self.lo) / (self.hi - self.lo) * self.axis_len


def cd_layout(
    ranks: Mapping[str, float],
    cd: float,
    groups: list[list[str]],
    title: str | None,
    lower_is_better_label: str | None,
    value_format: str,
    fontsize: float,
    ax: Axes | None,
) -> CdLayout:
    """Compute the layout of a diagram, sized to its labels or to ``ax`` when given."""
    ordered = sorted_by_rank(ranks)
    k = len(ordered)
    lo = min(1, math.floor(ordered[0][1]))
    fs_name = float(fontsize)
    n_left = math.ceil(k / 2)
    lay = CdLayout(
        lo=lo,
        hi=max(k, math.ceil(ordered[-1][1]), lo + 1),
        fs_name=fs_name,
        fs_small=0.85 * fs_name,
        left=ordered[:n_left],
        right=ordered[n_left:][::-1],
        labels={name: value_format.format(r) for name, r in ordered},
        cd=cd,
        cd_text=f"CD = {cd:.3f}",
        caption=(
            f"average {lower_is_better_label} (lower is better)" if lower_is_better_label else None
        ),
        title=title,
        groups=groups,
    )
    _place_columns(lay, ax)
    _place_rows(lay)
    lay.pos = {name: lay.x_of(r) for name, r in ordered}
    _place_cliques(lay)
    n_rows = max(len(lay.left), len(lay.right))
    lay.height_total = lay.first_line_y + (n_rows - 1) * lay.line_h + 0.22 + PAD
    return lay


def _place_columns(lay: CdLayout, ax: Axes | None) -> None:
    """Widths of the names and rank labels, the axis length and the total width."""
    lay.name_w_left = max((text_width_in(n, lay.fs_name) for n, _ in lay.left), default=0.0)
    lay.name_w_right = max((text_width_in(n, lay.fs_name) for n, _ in lay.right), default=0.0)
    rank_w = max(text_width_in(s, lay.fs_small) for s in lay.labels.values())
    lay.side_gap = rank_w + 0.2
    lay.fixed_w = 2 * PAD + lay.name_w_left + lay.name_w_right + 2 * (NAME_GAP + lay.side_gap)
    lay.axis_len = min(max(0.55 * (lay.hi - lay.lo), 3.5), 8.0)
    if ax is None:
        lay.width_total = lay.fixed_w + lay.axis_len
    else:
        bbox = ax.get_window_extent().transformed(ax.figure.dpi_scale_trans.inverted())
        lay.width_total = max(bbox.width, lay.fixed_w + 1.0)
        lay.axis_len = lay.width_total - lay.fixed_w
    lay.axis_left = PAD + lay.name_w_left + NAME_GAP + lay.side_gap
    lay.axis_right = lay.axis_left + lay.axis_len


def _caption_own_row(lay: CdLayout) -> bool:
    """Whether the caption needs its own row (it does not fit right of the CD scale bar)."""
    cd_bar_end = lay.x_of(min(lay.lo + lay.cd, lay.hi))
    cd_label_end = max(cd_bar_end, lay.axis_left + text_width_in(lay.cd_text, lay.fs_small))
    caption_w = text_width_in(lay.caption, lay.fs_small) if lay.caption else 0.0
    return lay.caption is not None and cd_label_end + 0.3 > lay.axis_right - caption_w


def _place_rows(lay: CdLayout) -> None:
    """Title, caption, CD scale bar, tick labels and axis, from the top down."""
    lay.line_h = max(0.27, 1.9 * lay.fs_name / 72.0)
    caption_own_row = _caption_own_row(lay)
    y = PAD
    if lay.title:
        lay.title_y = y + 0.18
        y += 0.42
    if caption_own_row:
        lay.caption_y = y + 0.1
        y += 0.26
    lay.cd_text_y = y + 0.08
    lay.cd_bar_y = y + 0.27
    if lay.caption is not None and not caption_own_row:
        lay.caption_y = lay.cd_bar_y
    y += 0.42
    lay.tick_label_y = y + 0.06
    lay.axis_y = y + 0.3


def _place_cliques(lay: CdLayout) -> None:
    """Clique bars below the axis, packed into as few rows as possible; then the lines."""
    pos, ext = lay.pos, CLIQUE_OVERHANG
    groups = lay.groups
    lay.intervals = [(min(pos[n] for n in g) - ext, max(pos[n] for n in g) + ext) for g in groups]
    order = sorted(range(len(groups)), key=lambda i: (lay.intervals[i][0], lay.intervals[i][1]))
    rows_sorted = assign_rows([lay.intervals[i] for i in order], gap=CLIQUE_GAP)
    lay.clique_rows = [0] * len(groups)
    for i, row in zip(order, rows_sorted):
        lay.clique_rows[i] = row
    n_clique_rows = max(lay.clique_rows, default=-1) + 1
    lay.first_clique_y = lay.axis_y + 0.2
    lay.first_line_y = lay.axis_y + 0.2 + n_clique_rows * CLIQUE_H + (0.2 if n_clique_rows else 0.1)


def assign_rows(intervals: Sequence[tuple[float, float]], gap: float) -> list[int]:
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
